"""Questions in about a second (issue 22): `kg query` and `kg search` as processes per mode, and
first-time embedding throughput of the two MiniLM runtimes (onnxruntime, kg's default, and
sentence-transformers on torch).

1. 100 hotpotqa-100 passages compiled offline; vectors embedded once (a first hybrid query); then
   `--runs` processes of each command per mode, the same question; median and max wall time.
2. The same texts embedded by each runtime from an empty cache (model load excluded): texts/s,
   and the largest difference between the two runtimes' vectors.

    .venv/bin/python benchmarks/embed_runtime.py              # about 3 minutes
    .venv/bin/python benchmarks/embed_runtime.py --texts 2000 --runs 5

Prints a table and writes benchmarks/out/embed_runtime.json. KG_DATA_DIR overrides the data folder.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from harness import KG_EXE as KG
from harness import (
    data_dir,
    hotpot_markdown,
    kg_compile_sources,
    out_path,
    read_jsonl,
    run_seconds,
    write_json,
)

QUESTION = "Which state highway runs east to west in Jefferson County?"


def processes(root: Path, runs: int) -> dict[str, Any]:
    subprocess.run([KG, "query", QUESTION, "--kb", str(root)], check=True, capture_output=True)  # embeds once
    out: dict[str, Any] = {}
    for command in ("query", "search"):
        for mode in ("hybrid", "bm25"):
            extra = [] if mode == "hybrid" else ["--mode", "bm25"]  # hybrid is the default of both
            times = [run_seconds([KG, command, QUESTION, "--kb", str(root), *extra]) for _ in range(runs)]
            out[f"kg {command} {'(default: hybrid)' if mode == 'hybrid' else '--mode bm25'}"] = {
                "median_s": round(statistics.median(times), 3), "max_s": round(max(times), 3), "runs": runs}
    for command in ("query", "search"):
        default, bm25 = out[f"kg {command} (default: hybrid)"], out[f"kg {command} --mode bm25"]
        out[f"kg {command}: default / bm25"] = round(default["median_s"] / bm25["median_s"], 2)
    return out


def throughput(texts: list[str]) -> dict[str, Any]:
    from kg.embed import MiniLMEmbedder, MiniLMTorchEmbedder

    out: dict[str, Any] = {}
    vectors = {}
    for label, embedder in (("onnxruntime", MiniLMEmbedder()), ("torch", MiniLMTorchEmbedder())):
        embedder.embed(["warm up the model"])
        started = time.perf_counter()
        vectors[label] = embedder.embed(texts)
        seconds = time.perf_counter() - started
        out[label] = {"texts": len(texts), "seconds": round(seconds, 1), "texts_per_s": round(len(texts) / seconds, 1)}
    out["max_abs_difference"] = float(np.abs(vectors["onnxruntime"] - vectors["torch"]).max())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--texts", type=int, default=1000, help="SciFact abstract sentences embedded per runtime")
    parser.add_argument("--out", type=Path, default=out_path("embed_runtime.json"))
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kg-embed-runtime-"))
    try:
        root = work / "kb"
        rows = read_jsonl(data_dir() / "hotpotqa-100" / "corpus.jsonl", args.passages)
        kg_compile_sources(root, {f"p{i:03d}.md": hotpot_markdown(p) for i, p in enumerate(rows)})
        result: dict[str, Any] = {"passages": args.passages, "processes": processes(root, args.runs)}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with (data_dir() / "scifact" / "corpus.jsonl").open(encoding="utf-8") as f:
        sentences = [s for line in f for s in json.loads(line)["sentences"]][: args.texts]
    result["throughput"] = throughput(sentences)
    for label, row in result["processes"].items():
        shown = f"median {row['median_s']} s, max {row['max_s']} s" if isinstance(row, dict) else f"{row}x"
        print(f"{label:36} {shown}")
    for label in ("onnxruntime", "torch"):
        row = result["throughput"][label]
        print(f"first-time embedding, {label:12} {row['texts']} texts in {row['seconds']} s ({row['texts_per_s']} texts/s)")
    print(f"largest difference between the runtimes' vectors: {result['throughput']['max_abs_difference']:.1e}")
    write_json(args.out, result)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
