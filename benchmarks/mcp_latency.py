"""kg mcp latency (issue 16): kg_search and kg_query through the official MCP client over stdio,
beside `kg search` and `kg query` as processes, on SciFact compiled offline.

The server's read worker keeps the graph open between calls and lets a compile in
(kg/graph/kept.py); kg_status shows what a call costs beside its work. Questions are SciFact's
training claims.

    .venv/bin/python benchmarks/mcp_latency.py                 # all 5,183 abstracts (compile ~2 min)
    .venv/bin/python benchmarks/mcp_latency.py --limit 1000 --questions 20
    .venv/bin/python benchmarks/mcp_latency.py --kb DIR        # a SciFact knowledge base compiled already

Prints p50/p95 per path and writes benchmarks/out/mcp.json. KG_DATA_DIR overrides the data folder.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parent.parent
KG = str(Path(sys.executable).with_name("kg"))


def data_dir() -> Path:
    return Path(os.environ.get("KG_DATA_DIR", REPO.parent / "shared" / "data"))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def percentiles(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"n": len(times), "p50_ms": round(1000 * statistics.median(ordered), 1), "p95_ms": round(1000 * p95, 1)}


def build(root: Path, limit: int) -> float:
    subprocess.run([KG, "init", str(root)], check=True, capture_output=True)
    for row in read_jsonl(data_dir() / "scifact" / "corpus.jsonl")[:limit]:
        (root / "raw" / f"{row['doc_id']}.md").write_text(f"# {row['title']}\n\n{' '.join(row['sentences'])}\n", encoding="utf-8")
    started = time.perf_counter()
    subprocess.run([KG, "compile", "-q", "--kb", str(root), "-x", "heuristic"], check=True, capture_output=True)
    subprocess.run([KG, "search", "warm up", "--mode", "bm25", "--kb", str(root)], check=True, capture_output=True)
    return time.perf_counter() - started


async def through_mcp(root: Path, questions: list[str]) -> dict[str, Any]:
    params = StdioServerParameters(command=KG, args=["mcp", "--kb", str(root)])
    started = time.perf_counter()
    out: dict[str, list[float]] = {"kg_status": [], "kg_search": [], "kg_query": []}
    async with Client(params) as client:
        await client.list_tools()
        ready = time.perf_counter() - started
        for name, args in [("kg_status", {})] * 10 + [("kg_search", {"query": q, "limit": 10}) for q in questions] + \
                [("kg_query", {"question": q}) for q in questions]:
            t0 = time.perf_counter()
            result = await client.call_tool(name, args)
            out[name].append(time.perf_counter() - t0)
            if result.is_error:
                raise SystemExit(f"{name} failed: {result.content[0].text}")  # type: ignore[union-attr]
    return {"server_ready_ms": round(1000 * ready, 1), **{k: percentiles(v) for k, v in out.items()}}


def through_processes(root: Path, questions: list[str]) -> dict[str, Any]:
    out: dict[str, list[float]] = {"kg search": [], "kg query": []}
    for q in questions:
        for name, cmd in (("kg search", [KG, "search", q, "--mode", "bm25", "--json", "--kb", str(root)]),
                          ("kg query", [KG, "query", q, "--mode", "bm25", "--json", "--kb", str(root)])):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            out[name].append(time.perf_counter() - t0)
    return {k: percentiles(v) for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=100_000, help="abstracts to compile (default: all)")
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--process-questions", type=int, default=10, help="questions run as kg processes (slower)")
    parser.add_argument("--kb", type=Path, default=None, help="a compiled SciFact knowledge base to use (not changed)")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out" / "mcp.json")
    args = parser.parse_args(argv)
    questions = [r["claim"] for r in read_jsonl(data_dir() / "scifact" / "claims_train.jsonl")[: args.questions]]
    work = Path(tempfile.mkdtemp(prefix="kg-mcp-bench-"))
    try:
        root = work / "kb"
        if args.kb:
            shutil.copytree(args.kb, root)
            seconds = 0.0
        else:
            seconds = build(root, args.limit)
        sources = len(list((root / "raw").iterdir()))
        print(f"compiled {sources:,} abstracts in {seconds:.0f} s", flush=True)
        mcp = anyio.run(through_mcp, root, questions)
        processes = through_processes(root, questions[: args.process_questions])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {"sources": sources, "compile_seconds": round(seconds, 1), "mcp": mcp, "processes": processes}
    print(f"kg mcp ready (spawn + handshake): {mcp['server_ready_ms']} ms")
    for label, stats in (("kg_status", mcp["kg_status"]), ("kg_search over MCP", mcp["kg_search"]),
                         ("kg_query over MCP", mcp["kg_query"]), ("kg search process", processes["kg search"]),
                         ("kg query process", processes["kg query"])):
        print(f"{label:28} p50 {stats['p50_ms']:>8} ms  p95 {stats['p95_ms']:>8} ms  (n={stats['n']})")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
