"""Compile speed benchmark (issue 2, "Speed").

Writes each SciFact abstract as one markdown source `raw/<doc_id>.md` into a fresh,
temporary knowledge base, then measures through the library API (kg.kb / kg.api):

1. full compile of every source (offline heuristic extractor), including the render
   that `kg compile` does at the end: wall time, sources/s, claims/s;
2. a recompile with nothing changed (in this process, and as a fresh `kg compile`
   process, which also pays for Python start-up and imports);
3. a full render: delete wiki/ and render it from the graph;
4. peak RSS (ru_maxrss of this process and of the child processes) and the size of the
   database on disk.

Targets on a 2-core machine: full compile <= 180 s, no-change recompile <= 3 s,
render <= 15 s, peak RSS < 2 GB.

    .venv/bin/python benchmarks/compile.py                 # the full corpus (5,183 abstracts)
    .venv/bin/python benchmarks/compile.py --limit 300     # a quick run
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import (
    REPO,
    data_dir,
    disk_bytes,
    machine,
    out_path,
    read_jsonl,
    rss_mb,
    timed,
    write_json,
    write_scifact,
)

DEFAULT_OUT = out_path("compile.json")

TARGETS = {
    "compile_seconds": 180.0,
    "nochange_recompile_seconds": 3.0,
    "render_seconds": 15.0,
    "peak_rss_mb": 2048.0,
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark `kg compile` / `kg render` on the SciFact abstracts (offline).",
    )
    parser.add_argument(
        "--corpus", type=Path, default=None,
        help="SciFact corpus.jsonl (default: $KG_DATA_DIR/scifact/corpus.jsonl, "
             "else ../shared/data/scifact/corpus.jsonl beside the repo)",
    )
    parser.add_argument("--limit", type=int, default=None, help="use only the first N abstracts (quick runs)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON results (default {DEFAULT_OUT.relative_to(REPO)})")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="make the knowledge base here (must not exist) instead of a temporary folder")
    parser.add_argument("--keep", action="store_true", help="keep the knowledge base afterwards and print where it is")
    parser.add_argument("--no-cli", action="store_true",
                        help="skip the no-change recompile through a fresh `kg compile` process")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return parser.parse_args(argv)


# measuring ---------------------------------------------------------------------------------


def count_files(path: Path) -> int:
    return sum(1 for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def vm_hwm_mb(pid: int) -> float:
    """A live process's peak RSS from /proc (Linux); 0 when unavailable."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def run_child(cmd: list[str]) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run a command; returns (result, wall seconds, peak RSS MB).

    The child's peak is polled from /proc/<pid>/status (VmHWM), because RUSAGE_CHILDREN's
    ru_maxrss on Linux carries over the parent's RSS at fork time across exec.
    """
    started = time.perf_counter()
    peak = 0.0
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as child:
        while child.poll() is None:
            peak = max(peak, vm_hwm_mb(child.pid))
            time.sleep(0.005)
        out, err = child.communicate()
    seconds = time.perf_counter() - started
    return subprocess.CompletedProcess(cmd, child.returncode, out, err), seconds, peak


# the run -----------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict[str, Any]:
    from kg import api
    from kg import kb as kb_module

    corpus = (args.corpus or data_dir() / "scifact" / "corpus.jsonl").resolve()
    if not corpus.is_file():
        sys.exit(f"SciFact corpus not found at {corpus}. Pass --corpus PATH or set KG_DATA_DIR.")
    docs = read_jsonl(corpus, args.limit)

    if args.workdir:
        if args.workdir.exists():
            sys.exit(f"{args.workdir} exists; --workdir must name a new folder.")
        root = args.workdir.resolve()
        cleanup = None
    else:
        cleanup = tempfile.mkdtemp(prefix="kg-bench-compile-")
        root = Path(cleanup) / "kb"

    try:
        kb, _ = kb_module.init(root)
        source_bytes, source_words = write_scifact(kb.raw, docs)
        log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
        log(f"wrote {len(docs):,} sources ({source_words:,} words) to {kb.raw}")

        step = max(1, len(docs) // 20)
        started = time.perf_counter()

        def progress(path: str, done: int) -> None:
            if done % step == 0 or done == len(docs):
                log(f"  compiled {done:,}/{len(docs):,} sources  {time.perf_counter() - started:6.1f} s  "
                    f"peak RSS {rss_mb():,.0f} MB")

        # 1. full compile (then render, as `kg compile` does)
        (report, rendered), compile_wall = timed(lambda: api.compile_kb(kb, extractor="heuristic", progress=progress))
        rss_after_compile = rss_mb()
        counts = api.status(kb).counts
        compile_only = float(report.seconds)
        log(f"full compile: {compile_wall:.1f} s")

        # 2. recompile, nothing changed
        (report2, rendered2), nochange = timed(lambda: api.compile_kb(kb, extractor="heuristic"))
        log(f"no-change recompile: {nochange:.2f} s")
        cli_nochange = None
        cli_peak_mb = 0.0
        cli_result: dict[str, Any] | None = None
        if not args.no_cli:
            kg_bin = Path(sys.executable).with_name("kg")
            cmd = [str(kg_bin), "compile", "--kb", str(kb.root), "--json"] if kg_bin.exists() else [
                sys.executable, "-m", "kg.cli", "compile", "--kb", str(kb.root), "--json"]
            proc, cli_nochange, cli_peak_mb = run_child(cmd)
            if proc.returncode == 0:
                try:
                    cli_result = json.loads(proc.stdout)
                except ValueError:
                    cli_result = {"stdout": proc.stdout[-2000:]}
            else:
                cli_result = {"returncode": proc.returncode, "stderr": proc.stderr[-2000:]}
            log(f"no-change recompile (fresh `kg compile` process): {cli_nochange:.2f} s")

        # 3. full render from the graph alone
        shutil.rmtree(kb.wiki)
        rendered3, render_seconds = timed(lambda: api.render_kb(kb))
        log(f"full render: {render_seconds:.1f} s")

        peak_self = rss_mb()
        peak_children = cli_peak_mb
        n = len(docs)
        claims = int(report.claims_added)
        results: dict[str, Any] = {
            "corpus": str(corpus),
            "machine": machine(),
            "sources": n,
            "source_bytes": source_bytes,
            "source_words": source_words,
            "compile": {
                "wall_seconds": round(compile_wall, 3),
                "compile_only_seconds": round(compile_only, 3),
                "render_and_overhead_seconds": round(compile_wall - compile_only, 3),
                "sources_per_second": round(n / compile_wall, 2),
                "claims_per_second": round(claims / compile_wall, 2),
                "words_per_second": round(source_words / compile_wall, 1),
                "report": report.as_dict(),
                "rendered_pages": getattr(rendered, "pages", None),
            },
            "graph_counts": counts,
            "nochange_recompile": {
                "seconds": round(nochange, 3),
                "compiled": report2.compiled,
                "rendered": rendered2 is not None,
                "cli_seconds": None if cli_nochange is None else round(cli_nochange, 3),
                "cli_result": cli_result,
            },
            "render": {
                "seconds": round(render_seconds, 3),
                "pages": getattr(rendered3, "pages", None),
                "bytes": getattr(rendered3, "bytes", None),
                "files_on_disk": count_files(kb.wiki),
            },
            "memory": {
                "peak_rss_mb_after_compile": round(rss_after_compile, 1),
                "peak_rss_mb_self": round(peak_self, 1),
                "peak_rss_mb_children": round(peak_children, 1),
                "peak_rss_mb_children_rusage": round(rss_mb(resource.RUSAGE_CHILDREN), 1),
                "peak_rss_mb": round(max(peak_self, peak_children), 1),
            },
            "disk": {
                "database_bytes": disk_bytes(kb.db_path),
                "state_dir_bytes": disk_bytes(kb.state),
                "wiki_bytes": disk_bytes(kb.wiki),
            },
        }
        measured = {
            "compile_seconds": compile_wall,
            "nochange_recompile_seconds": max(nochange, cli_nochange or 0.0),
            "render_seconds": render_seconds,
            "peak_rss_mb": results["memory"]["peak_rss_mb"],
        }
        results["targets"] = {
            name: {"target": limit, "measured": round(measured[name], 3), "met": measured[name] <= limit}
            for name, limit in TARGETS.items()
        }
        if args.keep:
            results["kb"] = str(kb.root)
        return results
    finally:
        if cleanup and not args.keep:
            shutil.rmtree(cleanup, ignore_errors=True)


def mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


def print_table(r: dict[str, Any]) -> None:
    c, nc, rd, m, d = r["compile"], r["nochange_recompile"], r["render"], r["memory"], r["disk"]
    t = r["targets"]

    def ok(name: str) -> str:
        return f"target {t[name]['target']:g}: {'ok' if t[name]['met'] else 'MISSED'}"

    counts = ", ".join(f"{k} {v:,}" for k, v in r["graph_counts"].items())
    rows = [
        ("sources", f"{r['sources']:,} ({r['source_words']:,} words, {mb(r['source_bytes'])})", ""),
        ("graph", counts, ""),
        ("full compile (+render)", f"{c['wall_seconds']:.1f} s", ok("compile_seconds")),
        ("  of which compile", f"{c['compile_only_seconds']:.1f} s", ""),
        ("  sources/s", f"{c['sources_per_second']:,.1f}", ""),
        ("  claims/s", f"{c['claims_per_second']:,.1f} ({c['report']['claims_added']:,} claims)", ""),
        ("no-change recompile", f"{nc['seconds']:.2f} s (in process)", ok("nochange_recompile_seconds")),
    ]
    if nc["cli_seconds"] is not None:
        rows.append(("  as `kg compile` process", f"{nc['cli_seconds']:.2f} s", ""))
    rows += [
        ("full render", f"{rd['seconds']:.1f} s ({rd['files_on_disk']:,} files, {mb(d['wiki_bytes'])})", ok("render_seconds")),
        ("peak RSS", f"{m['peak_rss_mb']:,.0f} MB (self {m['peak_rss_mb_self']:,.0f}, children {m['peak_rss_mb_children']:,.0f})",
         ok("peak_rss_mb")),
        ("database on disk", f"{mb(d['database_bytes'])} (.kg/ {mb(d['state_dir_bytes'])})", ""),
    ]
    width = max(len(a) for a, _, _ in rows)
    value_width = max(len(b) for _, b, _ in rows)
    print(f"\nkg compile benchmark: {r['corpus']}  ({r['machine']['cpus']} CPUs, Python {r['machine']['python']})")
    for label, value, note in rows:
        print(f"  {label:<{width}}  {value:<{value_width}}  {note}".rstrip())


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    results = run(args)
    print_table(results)
    write_json(args.out, results, sort_keys=True)
    print(f"\nwrote {args.out}")
    if args.keep and "kb" in results:
        print(f"knowledge base kept at {results['kb']}")
    return 0 if all(v["met"] for v in results["targets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
