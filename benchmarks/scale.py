"""How kg grows with the number of sources (issue 7, "scale").

A deterministic, seeded generator (benchmarks/synthetic.py) writes a synthetic knowledge base:
entities with names and types (people, organisations, places, works), facts as sentences with quantities and
dates, some deliberately contradictory (the same entity and predicate with another value
in another source), spread over markdown sources with headings and [[links]]. For each
size N, a fresh child process (so peak RSS is per size) generates N sources into a fresh
knowledge base and measures through the library API (kg.kb / kg.api):

- compile: `api.compile_kb(kb, render=False)` of all N sources (offline heuristic extractor)
- render: `api.render_kb(kb)` of the whole wiki
- incremental: one source edited (a sentence appended), then `api.compile_kb(kb, render=False)`
  (the first edit after the build, which also drops the search indexes); then EDITS more edits,
  each `api.compile_kb(kb)` (what `kg compile` does: compile, then render the wiki; median, mean
  and max are reported: the mean and max include the WAL checkpoints that come every few dozen
  edits, kg/graph/store.py CLOSE_CHECKPOINT_KB), one more as a `kg compile` process (start-up included), and a no-change
  `api.compile_kb(kb)`
- the same edit named: EDITS edits each `api.compile_kb(kb, only=[path])` (what `kg compile PATH`
  does: no stat of the other N - 1 files, no read of their rows), and one as a `kg compile PATH` process
- database size on disk (.kg/), wiki size, peak RSS of the child (ru_maxrss)
- query latency, p50/p95 over --repeats runs with random entities:
    point lookup   MATCH (e:Entity {id: $id}) RETURN e.name, e.type, e.summary
    2-hop agg.     MATCH (a:Entity {id: $id})<-[:ABOUT]-(:Claim)-[:ABOUT]->(b:Entity)
                   RETURN b.name, count(*) ORDER BY count DESC LIMIT 10
  through `kg.api.cypher` (opens the database read-only per call, like `kg cypher`) and
  through one open read-only Store (the query alone).

Growth with N is reported as the exponent b of a log-log least-squares fit t ~ a N^b. For
reference, N log N over 1k..50k fits b ~ 1.1-1.2. Targets: compile and render no worse than
N log N, incremental one-source time flat (b ~ 0), 50k sources within 4 GB of RAM.

    .venv/bin/python benchmarks/scale.py --sizes 1000,10000
    .venv/bin/python benchmarks/scale.py --sizes 1000,10000,50000 --repeats 50
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import (
    REPO,
    disk_bytes,
    loglog_slope,
    machine,
    out_path,
    percentile,
    rss_mb,
    write_json,
)
from synthetic import generate

DEFAULT_OUT = out_path("scale.json")
RSS_LIMIT_MB = 4096.0
EDITS = 30  # one-source edits timed per size: median, mean (with the periodic WAL checkpoints) and max

POINT = "MATCH (e:Entity {id: $id}) RETURN e.name AS name, e.type AS type, e.summary AS summary"
TWO_HOP = ("MATCH (a:Entity {id: $id})<-[:ABOUT]-(:Claim)-[:ABOUT]->(b:Entity) "
           "RETURN b.name AS name, count(*) AS n ORDER BY n DESC, name LIMIT 10")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Scale benchmark: compile / incremental / render time, database size, peak RSS "
                    "and Cypher latency on seeded synthetic knowledge bases of N sources.",
    )
    parser.add_argument("--sizes", default="1000,10000",
                        help="comma-separated numbers of sources (default 1000,10000; the issue asks 1000,10000,50000)")
    parser.add_argument("--seed", type=int, default=7, help="generator seed (default 7)")
    parser.add_argument("--repeats", type=int, default=30, help="query runs per latency figure (default 30)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON results (default {DEFAULT_OUT.relative_to(REPO)})")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="make the knowledge bases under this folder (default: a temporary folder, removed)")
    parser.add_argument("--keep", action="store_true", help="keep the knowledge bases")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed per size (default 3600)")
    parser.add_argument("--merge", action="store_true",
                        help="keep the runs already in --out for sizes not measured now (add 50000 to a 1k-10k run)")
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--child-root", type=Path, default=None, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


# measuring ---------------------------------------------------------------------------------


def latency(fn: Any, ids: list[str]) -> dict[str, float]:
    times = []
    for entity_id in ids:
        started = time.perf_counter()
        fn(entity_id)
        times.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": round(percentile(times, 0.5), 3), "p95_ms": round(percentile(times, 0.95), 3),
            "mean_ms": round(statistics.fmean(times), 3), "runs": len(times)}


def child(n: int, root: Path, seed: int, repeats: int) -> dict[str, Any]:
    from kg import api
    from kg import kb as kb_module
    from kg.graph.store import Store

    log = lambda msg: print(f"[N={n:,}] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    kb, _ = kb_module.init(root)
    started = time.perf_counter()
    source_bytes, deliberate = generate(kb.raw, n, seed)
    gen_seconds = time.perf_counter() - started
    log(f"generated {n:,} sources ({source_bytes / 1e6:.1f} MB) in {gen_seconds:.1f} s")

    started = time.perf_counter()
    step = max(1, n // 10)

    def progress(_path: str, done: int) -> None:
        if done % step == 0:
            log(f"  compiled {done:,}/{n:,}  {time.perf_counter() - started:7.1f} s  peak RSS {rss_mb():,.0f} MB")

    report, _ = api.compile_kb(kb, extractor="heuristic", render=False, progress=progress)
    compile_seconds = time.perf_counter() - started
    rss_after_compile = rss_mb()
    log(f"compile {compile_seconds:.1f} s, {report.claims_added:,} claims, peak RSS {rss_after_compile:.0f} MB")

    started = time.perf_counter()
    rendered = api.render_kb(kb)
    render_seconds = time.perf_counter() - started
    log(f"render {render_seconds:.1f} s")

    # incremental: one source edited. The first edit after a full build also drops the search
    # indexes (left dropped on a large graph until the next search: kg/compile/pipeline.py); later edits
    # are the edit-compile loop, timed EDITS times.
    def edit(k: int) -> None:
        with (kb.raw / "part000" / f"s{k:06d}.md").open("a", encoding="utf-8") as handle:
            handle.write(f"\nA later survey found {4242 + k} additional records in {2031 + k % 7}.\n")

    edit(1)
    started = time.perf_counter()
    inc_report, _ = api.compile_kb(kb, extractor="heuristic", render=False)
    incremental_compile = time.perf_counter() - started
    edit_times, inc2_report, inc2_rendered = [], None, None
    for k in range(2, 2 + EDITS):
        edit(k)
        started = time.perf_counter()
        inc2_report, inc2_rendered = api.compile_kb(kb, extractor="heuristic")
        edit_times.append(time.perf_counter() - started)
    incremental_with_render = statistics.median(edit_times)
    incremental_mean = statistics.mean(edit_times)
    edit(2 + EDITS)
    started = time.perf_counter()  # what a user waits for: a `kg compile` process
    subprocess.run([sys.executable, "-m", "kg.cli", "compile", "--kb", str(kb.root), "-q"], check=True)
    incremental_process = time.perf_counter() - started
    named_times = []  # the same edits compiled by name, as `kg compile PATH` (an editor's on-save hook) does
    for k in range(3 + EDITS, 3 + 2 * EDITS):
        edit(k)
        started = time.perf_counter()
        named_report, _ = api.compile_kb(kb, extractor="heuristic", only=[f"part000/s{k:06d}.md"])
        named_times.append(time.perf_counter() - started)
        assert named_report.compiled == 1 and not named_report.plan.unchanged
    edit(3 + 2 * EDITS)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kg.cli", "compile", str(kb.raw / "part000" / f"s{3 + 2 * EDITS:06d}.md"),
                    "--kb", str(kb.root), "-q"], check=True)
    named_process = time.perf_counter() - started
    started = time.perf_counter()
    nochange_report, _ = api.compile_kb(kb, extractor="heuristic")
    nochange_seconds = time.perf_counter() - started
    log(f"incremental: first edit {incremental_compile:.2f} s (compile only), then {incremental_with_render:.2f} s "
        f"median, {incremental_mean:.2f} s mean, {max(edit_times):.2f} s max of {EDITS} (compile + render, as `kg compile`), "
        f"{incremental_process:.2f} s as a `kg compile` process; no change {nochange_seconds:.2f} s")
    log(f"named edit (`kg compile PATH`): {statistics.median(named_times):.2f} s median, "
        f"{statistics.mean(named_times):.2f} s mean, {max(named_times):.2f} s max of {EDITS}; "
        f"{named_process:.2f} s as a process")
    assert inc2_report is not None

    counts = api.status(kb).counts
    rng = random.Random(seed + 1)
    entity_ids = [r["id"] for r in api.cypher(kb, "MATCH (e:Entity) RETURN e.id AS id ORDER BY e.id")]
    ids = [entity_ids[rng.randrange(len(entity_ids))] for _ in range(repeats)]
    queries: dict[str, Any] = {
        "point_lookup_ops_cypher": latency(lambda i: api.cypher(kb, POINT, {"id": i}), ids),
        "two_hop_ops_cypher": latency(lambda i: api.cypher(kb, TWO_HOP, {"id": i}), ids),
    }
    with Store(kb.db_path, read_only=True) as store:
        store.query(POINT, {"id": ids[0]})  # warm
        queries["point_lookup_open_store"] = latency(lambda i: store.query(POINT, {"id": i}), ids)
        queries["two_hop_open_store"] = latency(lambda i: store.query(TWO_HOP, {"id": i}), ids)
    # `kg search` and `kg query` (BM25: no embedder), each call opening the graph like the CLI. The
    # first search after the edits rebuilds the full-text indexes (a small compile leaves them
    # dropped) and the first question reads the walk's graph and saves it: both timed apart.
    names = {r["id"]: r["name"] for r in api.cypher(kb, "MATCH (e:Entity) RETURN e.id AS id, e.name AS name")}
    asked = [f"When was {names[i]} visited, and by whom?" for i in ids[: max(1, min(repeats, 20))]]
    started = time.perf_counter()
    api.search_kb(kb, names[ids[0]], "bm25")
    first_search = time.perf_counter() - started
    queries["search_bm25"] = latency(lambda i: api.search_kb(kb, names[i], "bm25"), ids)
    (kb.state / "walk-graph.npz").unlink(missing_ok=True)
    started = time.perf_counter()
    api.query_kb(kb, asked[0], mode="bm25")
    first_question = time.perf_counter() - started
    queries["query_bm25"] = latency(lambda question: api.query_kb(kb, question, mode="bm25"), asked)

    log("queries: " + ", ".join(f"{k} p50 {v['p50_ms']:.1f} ms" for k, v in queries.items()))

    return {
        "n": n,
        "source_bytes": source_bytes,
        "deliberate_contradictions": deliberate,
        "generate_seconds": round(gen_seconds, 3),
        "compile_seconds": round(compile_seconds, 3),
        "compile_report": report.as_dict(),
        "render_seconds": round(render_seconds, 3),
        "render_pages": getattr(rendered, "pages", None),
        "incremental_compile_seconds": round(incremental_compile, 3),
        "incremental_compile_report": inc_report.as_dict(),
        "incremental_with_render_seconds": round(incremental_with_render, 3),
        "incremental_with_render_all_seconds": [round(t, 3) for t in edit_times],
        "incremental_with_render_mean_seconds": round(incremental_mean, 3),
        "incremental_with_render_max_seconds": round(max(edit_times), 3),
        "incremental_process_seconds": round(incremental_process, 3),
        "named_edit_seconds": round(statistics.median(named_times), 3),
        "named_edit_all_seconds": [round(t, 3) for t in named_times],
        "named_edit_mean_seconds": round(statistics.mean(named_times), 3),
        "named_edit_max_seconds": round(max(named_times), 3),
        "named_edit_process_seconds": round(named_process, 3),
        "incremental_with_render_report": inc2_report.as_dict(),
        "incremental_rendered": inc2_rendered is not None,
        "nochange_compile_seconds": round(nochange_seconds, 3),
        "nochange_compiled": nochange_report.compiled,
        "graph_counts": counts,
        "database_bytes": disk_bytes(kb.db_path),
        "state_dir_bytes": disk_bytes(kb.state),
        "wiki_bytes": disk_bytes(kb.wiki),
        "peak_rss_mb": round(rss_mb(), 1),
        "peak_rss_mb_after_compile": round(rss_after_compile, 1),
        "queries": queries,
        "first_search_after_edits_seconds": round(first_search, 3),
        "first_question_seconds": round(first_question, 3),
    }


# the parent --------------------------------------------------------------------------------


def fit_exponent(ns: list[int], ys: list[float]) -> float | None:
    b = loglog_slope(ns, ys)
    return None if b is None else round(b, 3)


METRICS = [
    ("compile_seconds", "compile (all sources)", "nlogn"),
    ("render_seconds", "render (whole wiki)", "nlogn"),
    ("incremental_compile_seconds", "first edit after the build, compile only", None),
    ("incremental_with_render_seconds", f"1-source edit, compile + render (median of {EDITS})", "flat"),
    ("incremental_with_render_mean_seconds", f"1-source edit, mean of {EDITS} (WAL checkpoints included)", "flat"),
    ("incremental_with_render_max_seconds", f"1-source edit, slowest of {EDITS}", None),
    ("incremental_process_seconds", "1-source edit as a `kg compile` process", "flat"),
    ("named_edit_seconds", f"1-source edit named, `kg compile PATH` (median of {EDITS})", "flat"),
    ("named_edit_mean_seconds", f"1-source edit named, mean of {EDITS}", "flat"),
    ("named_edit_max_seconds", f"1-source edit named, slowest of {EDITS}", None),
    ("named_edit_process_seconds", "1-source edit named, as a `kg compile PATH` process", "flat"),
    ("nochange_compile_seconds", "no-change `kg compile`", "flat"),
    ("database_bytes", "database bytes", None),
    ("peak_rss_mb", "peak RSS MB", None),
]
QUERY_METRICS = ["point_lookup_ops_cypher", "two_hop_ops_cypher", "point_lookup_open_store", "two_hop_open_store",
                 "search_bm25", "query_bm25"]


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in runs if "error" not in r]
    ns = [r["n"] for r in ok]
    growth: dict[str, Any] = {}
    nlogn = fit_exponent(ns, [n * math.log(n) for n in ns]) if len(ns) >= 2 else None
    for key, _label, target in METRICS:
        if not all(key in r for r in ok):  # a merged older run lacks a newer metric
            continue
        b = fit_exponent(ns, [float(r[key]) for r in ok])
        met = None
        if b is not None and target == "nlogn" and nlogn is not None:
            met = b <= nlogn + 0.1
        elif b is not None and target == "flat":
            met = b <= 0.2
        growth[key] = {"exponent": b, "target": target, "met": met}
    for key in QUERY_METRICS:
        if all(key in r["queries"] for r in ok):  # a merged older run lacks a newer metric
            growth[f"{key}_p50"] = {"exponent": fit_exponent(ns, [r["queries"][key]["p50_ms"] for r in ok]),
                                    "target": None, "met": None}
    rss = {str(r["n"]): r["peak_rss_mb"] for r in ok}
    return {"nlogn_exponent_over_these_sizes": nlogn, "growth": growth, "peak_rss_mb": rss,
            "rss_within_4gb": {k: v <= RSS_LIMIT_MB for k, v in rss.items()}}


def print_tables(result: dict[str, Any]) -> None:
    runs = [r for r in result["runs"] if "error" not in r]
    header = "| metric | " + " | ".join(f"N={r['n']:,}" for r in runs) + " | exponent | target |"
    print("\n" + header)
    print("|" + "---|" * (len(runs) + 3))

    def fmt(key: str, v: float) -> str:
        if key == "database_bytes":
            return f"{v / 1e6:,.1f} MB"
        if key == "peak_rss_mb":
            return f"{v:,.0f} MB"
        return f"{v:,.2f} s"

    g = result["summary"]["growth"]
    for key, label, target in METRICS:
        if key not in g:
            continue
        cells = " | ".join(fmt(key, r[key]) for r in runs)
        e = g[key]["exponent"]
        verdict = "" if target is None else (
            f"{'≤ N log N' if target == 'nlogn' else 'flat'}: {'ok' if g[key]['met'] else 'MISSED' if g[key]['met'] is False else '?'}")
        print(f"| {label} | {cells} | {'' if e is None else f'{e:.2f}'} | {verdict} |")
    for key in QUERY_METRICS:
        if f"{key}_p50" not in g:
            continue
        cells = " | ".join(f"{r['queries'][key]['p50_ms']:.1f} / {r['queries'][key]['p95_ms']:.1f} ms" for r in runs)
        e = g[f"{key}_p50"]["exponent"]
        print(f"| {key.replace('_', ' ')} p50 / p95 | {cells} | {'' if e is None else f'{e:.2f}'} | |")
    for key, label in (("first_search_after_edits_seconds", "first `kg search` after edits (rebuilds the indexes)"),
                       ("first_question_seconds", "first `kg query` (reads and saves the walk's graph)")):
        if all(key in r for r in runs):
            cells = " | ".join(f"{r[key]:.2f} s" for r in runs)
            print(f"| {label} | {cells} | | |")
    counts = " | ".join(f"{r['graph_counts'].get('Entity', 0):,} ent, {r['graph_counts'].get('Claim', 0):,} claims"
                        for r in runs)
    print(f"| graph | {counts} | | |")
    flagged = " | ".join(f"{r['graph_counts'].get('Contradiction', 0):,} flagged / {r['deliberate_contradictions']:,} planted"
                         for r in runs)
    print(f"| contradictions | {flagged} | | |")
    print(f"\nN log N over these sizes fits exponent {result['summary']['nlogn_exponent_over_these_sizes']}")
    for r in result["runs"]:
        if "error" in r:
            print(f"N={r['n']:,}: FAILED: {r['error'][-500:]}")


def write_result(args: argparse.Namespace, sizes: list[int], runs: list[dict[str, Any]]) -> dict[str, Any]:
    result = {
        "machine": machine(kuzu=True),
        "seed": args.seed,
        "repeats": args.repeats,
        "sizes": sizes,
        "runs": runs,
    }
    result["summary"] = summarise(runs)
    write_json(args.out, result, sort_keys=True)
    return result


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.child_root, args.seed, args.repeats)))
        return 0

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    base = args.workdir.resolve() if args.workdir else Path(tempfile.mkdtemp(prefix="kg-bench-scale-"))
    base.mkdir(parents=True, exist_ok=True)
    runs: list[dict[str, Any]] = []
    if args.merge and args.out.is_file():
        kept = [r for r in json.loads(args.out.read_text(encoding="utf-8")).get("runs", []) if r["n"] not in sizes]
        runs.extend(kept)
        sizes = sorted({*sizes, *(r["n"] for r in kept)})
    try:
        for n in [n for n in sizes if n not in {r["n"] for r in runs}]:
            root = base / f"kb-{n}"
            if root.exists():
                shutil.rmtree(root)
            cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(n), "--child-root", str(root),
                   "--seed", str(args.seed), "--repeats", str(args.repeats)]
            started = time.perf_counter()
            try:
                proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                runs.append({"n": n, "error": f"timed out after {args.timeout:.0f} s"})
                continue
            wall = time.perf_counter() - started
            if proc.returncode != 0:
                runs.append({"n": n, "error": f"exit {proc.returncode}"})
            else:
                run = json.loads(proc.stdout.strip().splitlines()[-1])
                run["child_wall_seconds"] = round(wall, 2)
                runs.append(run)
            if not args.keep:
                shutil.rmtree(root, ignore_errors=True)
            runs.sort(key=lambda r: r["n"])
            write_result(args, sizes, runs)  # after every size, so a long run keeps what it measured
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(base, ignore_errors=True)

    result = write_result(args, sizes, runs)
    print_tables(result)
    print(f"\nwrote {args.out}")
    return 0 if all("error" not in r for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
