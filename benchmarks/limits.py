"""No query takes the machine down (issue 32): the hostile list against `kg mcp` over stdio (the
official MCP client), and `kg cypher` on a 100-million-element range, on hotpotqa passages
compiled offline.

For each hostile call: seconds to the reply, whether it was a result or an error (and which), and
whether a `kg_status` call right after it works; the peak resident memory of the server's process
tree (the server and its read worker) over the whole run, sampled every 50 ms. Then `kg cypher`
alone: exit code, seconds, message and the peak of its process tree.

    .venv/bin/python benchmarks/limits.py                  # 300 passages (~1 min to compile)
    .venv/bin/python benchmarks/limits.py --passages 994

Prints a table and writes benchmarks/out/limits.json. KG_DATA_DIR overrides the data folder.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import psutil
from harness import KG_EXE as KG
from harness import PeakTree, compile_hotpot, out_path, write_json
from mcp import Client, StdioServerParameters

RANGE_100M = "UNWIND range(1, 100000000) AS x RETURN count(x)"
HOSTILE: list[tuple[str, str, dict[str, Any]]] = [
    ("100-million range", "kg_cypher", {"query": RANGE_100M}),
    ("triple cross product (count)", "kg_cypher", {"query": "MATCH (a:Claim), (b:Claim), (c:Claim) RETURN count(*)"}),
    ("triple cross product (text)", "kg_cypher", {"query": "MATCH (a:Claim), (b:Claim), (c:Claim) RETURN a.text, b.text, c.text"}),
    ("two-way cross product, text", "kg_cypher", {"query": "MATCH (a:Claim), (b:Claim) RETURN a.text, b.text"}),
    ("3-million-row result", "kg_cypher", {"query": "UNWIND range(1, 3000000) AS x RETURN x"}),
    ("5 MB query string", "kg_cypher", {"query": "MATCH (c:Claim) RETURN c.id // " + "x" * 5_000_000}),
    ("malformed Cypher", "kg_cypher", {"query": "MATCH (c:Claim RETURN c"}),
    ("COPY TO a file", "kg_cypher", {"query": "COPY (MATCH (c:Claim) RETURN c.text) TO '/tmp/kg-limits.csv'"}),
    ("400 KB search string", "kg_search", {"query": "ab " * 133_000}),
    ("50,000-word question", "kg_query", {"question": "why " * 50_000}),
    ("page path ../../../../etc/passwd", "kg_page", {"path": "../../../../etc/passwd"}),
    ("entity name of control characters", "kg_entity", {"name": "\x01\x02\x03\x1b[31m"}),
]


async def through_mcp(root: Path) -> dict[str, Any]:
    calls = []
    # this environment, PYTHONPATH included: the MCP SDK otherwise starts the server with a few
    # variables only, and a checkout measured with PYTHONPATH would serve the installed kg
    server_params = StdioServerParameters(command=KG, args=["mcp", "--kb", str(root)], env=dict(os.environ))
    async with Client(server_params) as client:
        server = next(p for p in psutil.Process().children(recursive=True) if "mcp" in p.cmdline())
        peak = PeakTree(server.pid)
        for label, tool, args in HOSTILE:
            started = time.perf_counter()
            try:
                with anyio.fail_after(120):
                    result = await client.call_tool(tool, args)
                outcome, text = ("error" if result.is_error else "result"), result.content[0].text
            except TimeoutError:
                outcome, text = "no reply in 120 s", ""
            seconds = time.perf_counter() - started
            status = await client.call_tool("kg_status", {})
            calls.append({"call": label, "seconds": round(seconds, 2), "outcome": outcome,
                          "reply": " ".join(text.split())[:160], "status_after": not status.is_error})
        return {"calls": calls, "peak_mb": peak.stop(), "server_alive": server.is_running()}


def through_cli(root: Path) -> dict[str, Any]:
    started = time.perf_counter()
    child = subprocess.Popen([KG, "cypher", RANGE_100M, "--kb", str(root)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    peak = PeakTree(child.pid)
    out, err = child.communicate(timeout=600)
    return {"command": f"kg cypher {RANGE_100M!r}", "exit_code": child.returncode,
            "seconds": round(time.perf_counter() - started, 1), "peak_mb": peak.stop(),
            "message": " ".join((err or out).split())[:200]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--out", type=Path, default=out_path("limits.json"))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "kb"
        compile_s = compile_hotpot(root, args.passages)
        served = anyio.run(through_mcp, root)
        cli = through_cli(root)
    print(f"{args.passages} hotpotqa passages compiled in {compile_s:.1f} s\n")
    print(f"{'kg mcp call':36} {'s':>6}  {'outcome':8} status after")
    for call in served["calls"]:
        print(f"{call['call']:36} {call['seconds']:6.2f}  {call['outcome']:8} {'ok' if call['status_after'] else 'FAILED'}"
              f"   {call['reply'][:90]}")
    print(f"\nkg mcp peak memory (server + worker): {served['peak_mb']} MB; still serving: {served['server_alive']}")
    print(f"kg cypher 100-million range: exit {cli['exit_code']} after {cli['seconds']} s, peak {cli['peak_mb']} MB: "
          f"{cli['message']}")
    write_json(args.out, {"passages": args.passages, "compile_seconds": round(compile_s, 1), "mcp": served, "cli": cli})
    slow = [c["call"] for c in served["calls"] if c["seconds"] > 60 or not c["status_after"]]
    ok = not slow and served["peak_mb"] < 1500 and cli["exit_code"] == 1 and cli["seconds"] <= 120 and cli["peak_mb"] < 3000
    print("issue 32's figures: " + ("met" if ok else f"NOT met ({', '.join(slow) or 'memory or the CLI'})"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
