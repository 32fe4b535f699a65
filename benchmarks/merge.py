"""Merging shard bundles into a central knowledge base (issue 20, item 4).

One seeded synthetic corpus of S x N sources (benchmarks/synthetic.py, scale.py's generator) is cut into S
shards of N sources each (shard i holds sources i*N .. (i+1)*N - 1, at the paths the generator
gives them, so the shards' union is the one corpus). Through the library (kg.api), offline:

- each shard is a knowledge base of its own, compiled (`api.compile_kb`, heuristic extractor,
  no render: a bundle is made from the graph)
- one key pair (`api.bundle_keygen`), then a signed bundle per shard (`api.bundle_export`)
- `api.bundle_verify` of each bundle, timed
- `api.merge_kb` of all S bundles into a fresh central knowledge base, in one call, in a child
  process (`python -c`), whose peak RSS is read from os.wait4's rusage (ru_maxrss); the merge
  includes the central wiki's render, as `kg merge` does
- graph size: sources, entities, claims, contradictions of the central graph, bundle bytes,
  the central .kg/ and wiki/ sizes

Equality check: at a small size (default 2 x 500; the main run itself when S x N is no larger),
the central graph's entity ids and live claim ids are compared with one compile of the union
of the sources (`equal: true/false`); that run also times the union's compile.

    PYTHONPATH=. .venv/bin/python benchmarks/merge.py --shards 2 --sources 500   # ~1 min
    PYTHONPATH=. .venv/bin/python benchmarks/merge.py                            # 8 x 5,000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import REPO, disk_bytes, machine, out_path, rusage_mb, write_json
from synthetic import generate

DEFAULT_OUT = out_path("merge.json")

MERGE_CHILD = """
import json, sys, time
from pathlib import Path
from kg import api
from kg.kb import init
kb, _ = init(Path(sys.argv[1]))
started = time.perf_counter()
report, rendered = api.merge_kb(kb, [Path(p) for p in sys.argv[2:]])
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "report": report.as_dict(),
                  "pages": getattr(rendered, "pages", None)}))
"""


def log(msg: str) -> None:
    print(f"[merge {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Merge benchmark: S shards of N synthetic sources each are compiled, exported as signed "
                    "bundles, verified and merged into one central knowledge base (time, peak RSS, graph size), "
                    "plus an equality check of a small merge against one compile of the union.")
    parser.add_argument("--shards", type=int, default=8, help="number of shards S (default 8)")
    parser.add_argument("--sources", type=int, default=5000, help="sources per shard N (default 5000)")
    parser.add_argument("--seed", type=int, default=7, help="generator seed (default 7, as scale.py)")
    parser.add_argument("--check-shards", type=int, default=2, help="shards of the equality check (default 2)")
    parser.add_argument("--check-sources", type=int, default=500, help="sources per shard of the check (default 500)")
    parser.add_argument("--no-check", action="store_true", help="skip the equality check")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="make the knowledge bases and bundles here (default: a temporary folder, removed)")
    parser.add_argument("--keep", action="store_true", help="keep the knowledge bases and bundles")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"JSON results (default {DEFAULT_OUT.relative_to(REPO)})")
    args = parser.parse_args(argv)
    if args.shards < 1 or args.sources < 1 or args.check_shards < 1 or args.check_sources < 1:
        parser.error("--shards, --sources and the check sizes must be at least 1")
    return args


def graph_counts(db_root: Path) -> dict[str, int]:
    from kg.graph.store import Store
    from kg.kb import KnowledgeBase

    with Store(KnowledgeBase(db_root).db_path, read_only=True) as store:
        return store.counts()


def graph_ids(db_root: Path) -> tuple[set[str], set[str]]:
    from kg.graph.store import Store
    from kg.kb import KnowledgeBase

    with Store(KnowledgeBase(db_root).db_path, read_only=True) as store:
        entities = {r["id"] for r in store.query("MATCH (e:Entity) RETURN e.id AS id")}
        claims = {r["id"] for r in store.query("MATCH (c:Claim) WHERE c.status = 'live' RETURN c.id AS id")}
    return entities, claims


def split_corpus(corpus: Path, shard_raws: list[Path], n: int) -> None:
    """Move the generated files into the shards' raw/ (source i to shard i // n), keeping paths."""
    for path in sorted(corpus.rglob("*.md")):
        index = int(path.stem[1:])
        target = shard_raws[index // n] / path.relative_to(corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        path.rename(target)


def run(shards: int, n: int, seed: int, work: Path, compare: bool) -> dict[str, Any]:
    from kg import api
    from kg.kb import init

    tag = f"{shards}x{n}"
    base = work / tag
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    total = shards * n
    out: dict[str, Any] = {"shards": shards, "sources_per_shard": n, "sources": total, "seed": seed}

    started = time.perf_counter()
    corpus = base / "corpus"
    source_bytes, deliberate = generate(corpus, total, seed)
    union = None
    if compare:  # one knowledge base holding the whole corpus, for the equality check
        union, _ = init(base / "union")
        shutil.copytree(corpus, union.raw, dirs_exist_ok=True)
    kbs = [init(base / f"shard-{i}")[0] for i in range(shards)]
    split_corpus(corpus, [kb.raw for kb in kbs], n)
    out.update(source_bytes=source_bytes, deliberate_contradictions=deliberate,
               generate_seconds=round(time.perf_counter() - started, 2))
    log(f"[{tag}] generated {total:,} sources ({source_bytes / 1e6:.1f} MB) in {out['generate_seconds']:.1f} s")

    compiles = []
    for i, kb in enumerate(kbs):
        started = time.perf_counter()
        report, _ = api.compile_kb(kb, extractor="heuristic", render=False)
        seconds = time.perf_counter() - started
        compiles.append({"shard": i, "seconds": round(seconds, 2), "compiled": report.compiled,
                         "claims_added": report.claims_added, "entities_added": report.entities_added})
        log(f"[{tag}] shard {i}: compiled {report.compiled:,} sources in {seconds:.1f} s "
            f"({report.compiled / seconds:.0f}/s), {report.claims_added:,} claims")
    out["shard_compile"] = compiles
    out["shard_compile_seconds_total"] = round(sum(c["seconds"] for c in compiles), 2)

    pair = base / "keys"
    private, public, keyid = api.bundle_keygen(pair)
    exports, bundles = [], []
    for i, kb in enumerate(kbs):
        folder = base / "bundles" / f"shard-{i}"
        started = time.perf_counter()
        exported = api.bundle_export(kb, folder, private, shard_id=f"shard-{i}")
        seconds = time.perf_counter() - started
        exports.append({"shard": i, "seconds": round(seconds, 3), "bytes": disk_bytes(folder), "rows": exported.rows})
        bundles.append(folder)
        log(f"[{tag}] shard {i}: exported in {seconds:.2f} s, {exports[-1]['bytes'] / 1e6:.1f} MB")
    out["export"] = exports
    out["bundle_bytes_total"] = sum(e["bytes"] for e in exports)

    verifies = []
    for i, folder in enumerate(bundles):
        started = time.perf_counter()
        report = api.bundle_verify(folder, public)
        seconds = time.perf_counter() - started
        if not report.valid:
            raise SystemExit(f"bundle {folder} does not verify: {report.failures}")
        verifies.append({"shard": i, "seconds": round(seconds, 3), "valid": report.valid})
    out["verify"] = verifies
    out["verify_seconds_total"] = round(sum(v["seconds"] for v in verifies), 3)
    log(f"[{tag}] verified {len(verifies)} bundles in {out['verify_seconds_total']:.2f} s (key id {keyid[:16]}...)")

    central = base / "central"
    log(f"[{tag}] merging {shards} bundles into {central} (child process) ...")
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", MERGE_CHILD, str(central), *map(str, bundles)],
                            stdout=subprocess.PIPE, text=True)
    stdout = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"the merge failed (exit {proc.returncode})")
    merged = json.loads(stdout.strip().splitlines()[-1])
    peak = rusage_mb(usage)
    compile_part = merged["report"].get("seconds")
    out["merge"] = {"seconds": round(merged["seconds"], 2), "process_wall_seconds": round(wall, 2),
                    "write_and_graph_steps_seconds": compile_part,
                    "render_seconds": round(merged["seconds"] - (compile_part or 0), 2),
                    "peak_rss_mb": round(peak, 1), "pages": merged["pages"], "report": merged["report"]}
    log(f"[{tag}] merge {merged['seconds']:.1f} s ({wall:.1f} s as a process; writes and graph steps "
        f"{compile_part} s), peak RSS {peak:,.0f} MB")

    kb_central = init(central)[0]
    counts = graph_counts(central)
    out["central"] = {"counts": counts, "kg_bytes": disk_bytes(kb_central.state),
                      "db_bytes": disk_bytes(kb_central.db_path), "wiki_bytes": disk_bytes(kb_central.wiki)}
    log(f"[{tag}] central graph: {counts}; .kg {out['central']['kg_bytes'] / 1e6:.1f} MB")

    if union is not None:
        started = time.perf_counter()
        report, _ = api.compile_kb(union, extractor="heuristic", render=False)
        seconds = time.perf_counter() - started
        u_entities, u_claims = graph_ids(union.root)
        c_entities, c_claims = graph_ids(central)
        out["union"] = {"compile_seconds": round(seconds, 2), "counts": graph_counts(union.root),
                        "entity_ids": len(u_entities), "live_claim_ids": len(u_claims)}
        out["equal"] = {"entity_ids": u_entities == c_entities, "live_claim_ids": u_claims == c_claims,
                        "entities_only_central": len(c_entities - u_entities),
                        "entities_only_union": len(u_entities - c_entities),
                        "claims_only_central": len(c_claims - u_claims),
                        "claims_only_union": len(u_claims - c_claims)}
        out["equal"]["equal"] = out["equal"]["entity_ids"] and out["equal"]["live_claim_ids"]
        log(f"[{tag}] one compile of the union: {seconds:.1f} s; central == union: {out['equal']['equal']} "
            f"(entity ids {len(c_entities):,} vs {len(u_entities):,}, live claim ids {len(c_claims):,} vs {len(u_claims):,})")
    return out


def print_run(r: dict[str, Any]) -> None:
    c = r["central"]["counts"]
    m = r["merge"]
    print(f"\n{r['shards']} shards x {r['sources_per_shard']:,} sources ({r['sources']:,}):")
    print("| stage | seconds |\n|---|---|")
    print(f"| compile each shard (sum of {r['shards']}) | {r['shard_compile_seconds_total']:,.1f} |")
    print(f"| export each shard (sum) | {sum(e['seconds'] for e in r['export']):,.2f} |")
    print(f"| verify each bundle (sum) | {r['verify_seconds_total']:,.2f} |")
    print(f"| merge all bundles, one call (of which writes + graph steps / render) | {m['seconds']:,.1f} "
          f"({m['write_and_graph_steps_seconds']} / {m['render_seconds']}) |")
    print(f"| merge as a process | {m['process_wall_seconds']:,.1f} |")
    if "union" in r:
        print(f"| one compile of the union (no render) | {r['union']['compile_seconds']:,.1f} |")
    print(f"peak RSS of the merge: {m['peak_rss_mb']:,.0f} MB")
    print(f"central graph: {c.get('Source', 0):,} sources, {c.get('Entity', 0):,} entities, {c.get('Claim', 0):,} claims, "
          f"{c.get('Contradiction', 0):,} contradictions; bundles {r['bundle_bytes_total'] / 1e6:,.1f} MB; "
          f"central .kg {r['central']['kg_bytes'] / 1e6:,.1f} MB, wiki {r['central']['wiki_bytes'] / 1e6:,.1f} MB")
    if "equal" in r:
        e = r["equal"]
        print(f"equal to one compile of the union: {str(e['equal']).lower()} (entity ids {e['entity_ids']}, "
              f"live claim ids {e['live_claim_ids']})")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    work = args.workdir.resolve() if args.workdir else Path(tempfile.mkdtemp(prefix="kg-bench-merge-"))
    work.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"machine": machine(kuzu=True), "runs": []}
    small = args.shards * args.sources <= args.check_shards * args.check_sources

    def save() -> None:
        write_json(args.out, result, sort_keys=True)

    try:
        if not args.no_check and not small:
            log(f"equality check: {args.check_shards} x {args.check_sources:,}")
            check = run(args.check_shards, args.check_sources, args.seed, work, compare=True)
            result["check"] = check
            save()
        log(f"main run: {args.shards} x {args.sources:,}")
        result["runs"].append(run(args.shards, args.sources, args.seed, work, compare=small and not args.no_check))
        if small and "equal" in result["runs"][0]:
            result["check"] = result["runs"][0]
        save()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if "check" in result and result["check"] is not result["runs"][0]:
        print_run(result["check"])
    for r in result["runs"]:
        print_run(r)
    print(f"\nwrote {args.out}")
    ok = result.get("check", {}).get("equal", {}).get("equal", True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
