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
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from harness import KG_EXE as KG
from harness import (
    data_dir,
    kg_compile_sources,
    nearest_rank,
    out_path,
    percentile,
    read_jsonl,
    run_seconds,
    scifact_markdown,
    write_json,
)
from mcp import Client, StdioServerParameters


def latency_ms(times: list[float]) -> dict[str, float]:
    """p50 (interpolated: the median) and p95 (nearest rank), in milliseconds."""
    return {"n": len(times), "p50_ms": round(1000 * percentile(times, 0.5), 1),
            "p95_ms": round(1000 * nearest_rank(times, 0.95), 1)}


def compile_scifact(root: Path, limit: int) -> float:
    """SciFact's first `limit` abstracts compiled offline, then one search to build its index;
    returns the seconds of both."""
    docs = read_jsonl(data_dir() / "scifact" / "corpus.jsonl", limit)
    seconds = kg_compile_sources(root, {f"{doc['doc_id']}.md": scifact_markdown(doc, strip=False) for doc in docs})
    return seconds + run_seconds([KG, "search", "warm up", "--mode", "bm25", "--kb", str(root)])


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
    return {"server_ready_ms": round(1000 * ready, 1), **{k: latency_ms(v) for k, v in out.items()}}


def through_processes(root: Path, questions: list[str]) -> dict[str, Any]:
    out: dict[str, list[float]] = {"kg search": [], "kg query": []}
    for q in questions:
        for name, cmd in (("kg search", [KG, "search", q, "--mode", "bm25", "--json", "--kb", str(root)]),
                          ("kg query", [KG, "query", q, "--mode", "bm25", "--json", "--kb", str(root)])):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            out[name].append(time.perf_counter() - t0)
    return {k: latency_ms(v) for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=100_000, help="abstracts to compile (default: all)")
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--process-questions", type=int, default=10, help="questions run as kg processes (slower)")
    parser.add_argument("--kb", type=Path, default=None, help="a compiled SciFact knowledge base to use (not changed)")
    parser.add_argument("--out", type=Path, default=out_path("mcp.json"))
    args = parser.parse_args(argv)
    questions = [r["claim"] for r in read_jsonl(data_dir() / "scifact" / "claims_train.jsonl")[: args.questions]]
    work = Path(tempfile.mkdtemp(prefix="kg-mcp-bench-"))
    try:
        root = work / "kb"
        if args.kb:
            shutil.copytree(args.kb, root)
            seconds = 0.0
        else:
            seconds = compile_scifact(root, args.limit)
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
    write_json(args.out, result)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
