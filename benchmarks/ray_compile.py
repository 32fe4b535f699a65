"""`kg compile` with the local engine vs `--engine ray` (issue 20 item 3), on hotpotqa passages.

Each passage becomes `raw/<id>.md` ("# {title}\\n\\n{text}") in a fresh knowledge base per engine,
compiled offline (heuristic extractor) through the library (kg.api.compile_kb, render included),
each engine in its own child process so that peak memory is its own:

- local: the compile as today, every source extracted in the writer's process;
- ray:   local Ray on this machine (`ray.init(num_cpus=N)`), extraction on the workers, results
         written by the one writer in plan order. Ray's start-up is timed apart.

Also measured, in the local child: the pure per-source step alone (SourceWork: read, chunk,
extract, verify), so that compile time = extraction + the single writer's part (writes, regroup,
contradiction detection) and the render, which no engine fans out. Peak RSS: the writer process
(ru_maxrss) and, for Ray, the sum of its processes' resident sets, sampled every 0.2 s.
Both wikis are compared (log pages aside, which carry the compile's time).

    PYTHONPATH=. .venv/bin/python benchmarks/ray_compile.py                 # all 994 passages
    PYTHONPATH=. .venv/bin/python benchmarks/ray_compile.py --limit 100 --cpus 2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from harness import REPO, data_dir, hotpot_markdown, out_path, read_jsonl, rss_mb, write_json

DEFAULT_OUT = out_path("ray_compile.json")


def ray_rss_mb() -> float:
    """Resident set of every Ray process (raylet, GCS, workers) now, in MB (Linux /proc)."""
    total = 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes()
            if b"ray" not in cmd or int(proc.name) == os.getpid():
                continue
            for line in (proc / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except (OSError, ValueError):
            continue
    return total / 1024


def make_kb(root: Path, corpus: Path, limit: int | None) -> Any:
    from kg.kb import init

    kb, _ = init(root)
    for row in read_jsonl(corpus, limit):
        (kb.raw / f"{row['id']}.md").write_text(hotpot_markdown(row), encoding="utf-8")
    return kb


def wiki_sha256(kb_root: Path) -> str:
    """One digest of every wiki file but the log (the log names times)."""
    wiki = kb_root / "wiki"
    digest = hashlib.sha256()
    for page in sorted(wiki.rglob("*")):
        rel = page.relative_to(wiki).as_posix()
        if page.is_file() and rel != "log.md" and not rel.startswith("log/"):
            digest.update(rel.encode() + b"\0" + page.read_bytes())
    return digest.hexdigest()


def child(engine_name: str, root: Path, corpus: Path, limit: int | None, cpus: int) -> dict[str, Any]:
    """One engine's run, in this (child) process."""
    from kg import api
    from kg.compile.engine import LocalEngine, RayEngine
    from kg.compile.pipeline import SourceWork
    from kg.extract.heuristic import HeuristicExtractor

    kb = make_kb(root, corpus, limit)
    sources = sorted(p.name for p in kb.raw.iterdir())
    result: dict[str, Any] = {"engine": engine_name, "sources": len(sources)}
    if engine_name == "local":
        config = kb.config()
        work = SourceWork(kb.raw, kb.converted_path, config.compile.max_source_bytes, config.authority,
                          config.compile.chunk_chars, HeuristicExtractor())
        started = time.perf_counter()
        extracted = [work(path) for path in sources]
        seconds = time.perf_counter() - started
        result["extract_only_seconds"] = round(seconds, 3)
        result["extract_ms_per_source"] = round(1000 * seconds / len(sources), 3)
        result["claims_extracted"] = sum(len(e.claims) for e in extracted)
        del extracted
        engine: Any = LocalEngine()
    else:
        import ray

        started = time.perf_counter()
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
        engine = RayEngine()
        list(engine.map(len, ["warm"] * (2 * cpus)))  # the workers' processes up before the clock starts
        result["ray_start_seconds"] = round(time.perf_counter() - started, 3)
        result["cpus"] = cpus
    peak = [0.0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], ray_rss_mb())
            stop.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    if engine_name == "ray":
        sampler.start()
    started = time.perf_counter()
    report, rendered = api.compile_kb(kb, "heuristic", engine=engine)
    seconds = time.perf_counter() - started
    stop.set()
    if engine_name == "ray":
        sampler.join()
        result["ray_processes_peak_rss_mb"] = round(peak[0], 1)
        import ray

        ray.shutdown()
    result.update({
        "compile_seconds": round(seconds, 3), "sources_per_second": round(len(sources) / seconds, 2),
        "graph_seconds": round(report.seconds, 3), "render_seconds": round(seconds - report.seconds, 3),
        "compiled": report.compiled, "failed": len(report.failed), "claims_added": report.claims_added,
        "entities_added": report.entities_added, "writer_peak_rss_mb": round(rss_mb(), 1),
        "wiki_pages": rendered.pages if rendered is not None else None, "wiki_sha256": wiki_sha256(kb.root),
    })
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="kg compile: local engine vs --engine ray (local Ray), offline.")
    parser.add_argument("--corpus", type=Path, default=None,
                        help="hotpotqa corpus.jsonl (default: $KG_DATA_DIR or ../shared/data: hotpotqa-100/corpus.jsonl)")
    parser.add_argument("--limit", type=int, default=None, help="the first N passages only")
    parser.add_argument("--cpus", type=int, default=2, help="Ray's num_cpus (default 2)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--child", choices=("local", "ray"), help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    corpus = args.corpus or data_dir() / "hotpotqa-100" / "corpus.jsonl"
    if args.child:
        print(json.dumps(child(args.child, args.root, corpus, args.limit, args.cpus)))
        return
    results: dict[str, Any] = {"corpus": str(corpus), "limit": args.limit, "cpus": args.cpus, "runs": {}}
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    with tempfile.TemporaryDirectory(prefix="kg-ray-bench-") as tmp:
        for name in ("local", "ray"):
            cmd = [sys.executable, __file__, "--child", name, "--root", str(Path(tmp) / name), "--corpus", str(corpus),
                   "--cpus", str(args.cpus), *(["--limit", str(args.limit)] if args.limit else [])]
            started = time.perf_counter()
            done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
            if done.returncode != 0:
                sys.exit(f"{name} run failed:\n{done.stderr[-3000:]}")
            run = json.loads(done.stdout.strip().splitlines()[-1])
            run["process_seconds"] = round(time.perf_counter() - started, 3)
            results["runs"][name] = run
            print(json.dumps(run, indent=2))
    local, ray = results["runs"]["local"], results["runs"]["ray"]
    results["same_wiki"] = local["wiki_sha256"] == ray["wiki_sha256"]
    # the part of a compile no engine fans out: the single writer (writes, regroup, detection), then the render
    results["writer_seconds_estimate"] = round(local["graph_seconds"] - local["extract_only_seconds"], 3)
    results["writer_sources_per_second"] = round(local["sources"] / results["writer_seconds_estimate"], 1)
    results["render_sources_per_second"] = round(local["sources"] / local["render_seconds"], 1)
    write_json(args.out, results)
    print(f"same wiki: {results['same_wiki']}; local {local['compile_seconds']} s, ray {ray['compile_seconds']} s "
          f"(+{ray['ray_start_seconds']} s start-up); extraction {local['extract_ms_per_source']} ms/source; "
          f"writer ~{results['writer_sources_per_second']} sources/s, render {local['render_seconds']} s -> {args.out}")


if __name__ == "__main__":
    main()
