"""Incremental compile benchmark (issue 5).

Compiles the SciFact abstracts (one markdown source each) offline into a fresh knowledge base,
then measures, each through `kg.api.compile_kb` in this process:

  (a) a compile with nothing changed (target < 2 s, zero extraction calls),
  (b) one source edited (target < 2 s, only the blast radius rewritten),
  (c) one source deleted (target < 2 s),
  (d) 1% of the sources edited,

plus how the time grows with the number of edited sources (1, 10, 1%, 5%), and (a)-(c) again
timed as `kg compile` processes, as a user runs them. "Pages
rewritten" is the number of wiki files the render wrote (the rest are hard-linked).

    .venv/bin/python benchmarks/incremental.py [--limit N] [--out benchmarks/out/incremental.json]
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import data_dir, out_path, read_jsonl, write_json, write_scifact

from kg import api
from kg.kb import init

TARGET_SECONDS = 2.0


def step(kb: Any, label: str) -> dict[str, Any]:
    started = time.perf_counter()
    report, rendered = api.compile_kb(kb)
    seconds = time.perf_counter() - started
    return {
        "step": label,
        "seconds": round(seconds, 3),
        "compile_seconds": round(report.seconds, 3),
        "sources_extracted": report.compiled,
        "removed": len(report.plan.vanished),
        "pages_rendered": rendered.pages if rendered is not None else 0,
        "pages_rewritten": rendered.written if rendered is not None else 0,
    }


def process_step(kb: Any, label: str) -> dict[str, Any]:
    """The same change timed as a user sees it: a `kg compile` process (start-up, imports, the
    compile, the render and closing the database)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kg.cli", "compile", "--kb", str(kb.root), "-q"], check=True)
    return {"step": label, "seconds": round(time.perf_counter() - started, 3)}


def edit(path: Path, n: int) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text + f"\n\nEdited {n}: this abstract was revised in {2000 + n % 20}.\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=None, help="SciFact corpus.jsonl (default: $KG_DATA_DIR or ../shared/data)")
    parser.add_argument("--limit", type=int, default=None, help="Use only the first N abstracts.")
    parser.add_argument("--out", type=Path, default=out_path("incremental.json"))
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    docs = read_jsonl(args.corpus or data_dir() / "scifact" / "corpus.jsonl", args.limit)
    workdir = Path(tempfile.mkdtemp(prefix="kg-incremental-"))
    rng = random.Random(args.seed)
    try:
        kb, _ = init(workdir / "kb")
        write_scifact(kb.raw, docs)
        paths = sorted(kb.raw.glob("*.md"))
        started = time.perf_counter()
        api.compile_kb(kb)
        results: dict[str, Any] = {"sources": len(paths), "full_compile_seconds": round(time.perf_counter() - started, 2)}
        steps = [step(kb, "(a) nothing changed")]
        edit(paths[0], 0)
        steps.append(step(kb, "(b) one source edited"))
        paths[1].unlink()
        steps.append(step(kb, "(c) one source deleted"))
        processes = [process_step(kb, "(a) nothing changed")]
        edit(paths[2], 1)
        processes.append(process_step(kb, "(b) one source edited"))
        paths[3].unlink()
        processes.append(process_step(kb, "(c) one source deleted"))
        results["as_kg_compile_process"] = processes
        live = paths[4:]
        growth = []
        for count in (1, 10, max(1, len(live) // 100), max(1, len(live) // 20)):
            for i, path in enumerate(rng.sample(live, count)):
                edit(path, i + count)
            row = step(kb, f"{count} sources edited")
            row["edited"] = count
            growth.append(row)
        steps.append({**growth[2], "step": "(d) 1% of sources edited"})
        results["steps"] = steps
        results["growth"] = growth
        results["targets"] = {"seconds": TARGET_SECONDS}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"{results['sources']} sources; full compile {results['full_compile_seconds']} s\n")
    print("| step | seconds | sources extracted | pages rewritten |")
    print("|---|---:|---:|---:|")
    for row in results["steps"]:
        print(f"| {row['step']} | {row['seconds']:.2f} | {row['sources_extracted']} | {row['pages_rewritten']} |")
    print("\nAs a `kg compile` process (start-up and closing the database included):")
    print("| step | seconds |")
    print("|---|---:|")
    for row in results["as_kg_compile_process"]:
        print(f"| {row['step']} | {row['seconds']:.2f} |")
    print("\nGrowth with the number of edited sources:")
    print("| edited | seconds | pages rewritten |")
    print("|---:|---:|---:|")
    for row in results["growth"]:
        print(f"| {row['edited']} | {row['seconds']:.2f} | {row['pages_rewritten']} |")
    write_json(args.out, results)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
