"""How fast a read command starts (issue 48): `kg query` as a process against the floor, a python
process that opens the graph read-only and counts its sources.

300 hotpotqa-100 passages compiled offline into a temporary knowledge base; vectors embedded once
(a first default-mode query); then, in turn (one of each per round, so a busy machine slows all
three alike), `--runs` rounds of:

- `kg query --mode bm25 Q`
- `kg query Q` (the default mode: hybrid)
- a bare python process: `import kuzu`, open the graph read-only, count the sources.

Median wall seconds of each, and the ratios the issue asks for: bm25 / bare <= 3, default / bm25 <= 1.5.
`--against CHECKOUT` adds both `kg query` commands of another checkout of kg (its code first on
PYTHONPATH) to each round, on a copy of the knowledge base (each keeps its own saved walk graph).

    .venv/bin/python benchmarks/read_start.py             # about 2 minutes
    .venv/bin/python benchmarks/read_start.py --runs 15 --against ../main

Prints a table and writes benchmarks/out/read_start.json. KG_DATA_DIR overrides the data folder.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import KG_EXE as KG
from harness import compile_hotpot, machine, out_path, write_json

QUESTION = "Which state highway runs east to west in Jefferson County?"
BARE = ("import kuzu, sys\n"
        "db = kuzu.Database(sys.argv[1], read_only=True)\n"
        "rows = kuzu.Connection(db).execute('MATCH (s:Source) RETURN count(s)')\n"
        "print(rows.get_next()[0])\n")


Commands = dict[str, tuple[list[str], dict[str, str] | None]]  # label -> (command, environment: None for this one's)


def commands(root: Path) -> Commands:
    kb = ["--kb", str(root)]
    return {"kg query --mode bm25": ([KG, "query", QUESTION, "--mode", "bm25", *kb], None),
            "kg query (default mode)": ([KG, "query", QUESTION, *kb], None),
            "bare: open read-only, count sources": ([sys.executable, "-c", BARE, str(root / ".kg" / "graph.kuzu")], None)}


def against_commands(root: Path, against: Path) -> Commands:
    """Another checkout's `kg query`, on a copy of the knowledge base made after this one's first
    questions (its vectors embedded: the same cache) that keeps its own saved walk graph."""
    other = root.with_name("kb-against")
    shutil.copytree(root, other)
    env = {**os.environ, "PYTHONPATH": str(against.resolve())}
    return {f"{against.name}: kg query --mode bm25": ([KG, "query", QUESTION, "--mode", "bm25", "--kb", str(other)], env),
            f"{against.name}: kg query (default mode)": ([KG, "query", QUESTION, "--kb", str(other)], env)}


def warm(cmds: Commands) -> None:
    """Each command once: the vectors embedded, the walk's graph saved, the files cached."""
    for cmd, env in cmds.values():
        subprocess.run(cmd, check=True, capture_output=True, env=env)


def seconds(cmd: list[str], env: dict[str, str] | None) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the process and the processes it waited for).
    The CPU seconds hardly move with the machine's load; the wall seconds are what a person waits."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def in_turn(cmds: Commands, runs: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    walls: dict[str, list[float]] = {label: [] for label in cmds}
    cpus: dict[str, list[float]] = {label: [] for label in cmds}
    for _ in range(runs):
        for label, (cmd, env) in cmds.items():
            wall, cpu = seconds(cmd, env)
            walls[label].append(wall)
            cpus[label].append(cpu)
    return walls, cpus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--against", type=Path, help="another checkout of kg, timed in the same rounds")
    parser.add_argument("--out", type=Path, default=out_path("read_start.json"))
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kg-read-start-"))
    try:
        root = work / "kb"
        compile_seconds = compile_hotpot(root, args.passages)
        cmds = commands(root)
        graph = Path(cmds["bare: open read-only, count sources"][0][-1])
        if not graph.exists():
            raise SystemExit(f"no graph at {graph}: kg keeps it elsewhere now; fix BARE's path")
        warm(cmds)
        if args.against is not None:
            more = against_commands(root, args.against)
            warm(more)
            cmds.update(more)
        times, cpus = in_turn(cmds, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    medians = {label: round(statistics.median(values), 3) for label, values in times.items()}
    cpu = {label: round(statistics.median(values), 3) for label, values in cpus.items()}
    bm25, default, bare = (medians[label] for label in list(cmds)[:3])
    cpu_bm25, cpu_default, cpu_bare = (cpu[label] for label in list(cmds)[:3])
    result: dict[str, Any] = {
        "passages": args.passages, "runs": args.runs, "compile_s": round(compile_seconds, 1), "machine": machine(),
        "median_s": medians, "max_s": {label: round(max(values), 3) for label, values in times.items()},
        "cpu_median_s": cpu, "bm25 / bare": round(bm25 / bare, 2), "default / bm25": round(default / bm25, 2),
        "cpu: bm25 / bare": round(cpu_bm25 / cpu_bare, 2), "cpu: default / bm25": round(cpu_default / cpu_bm25, 2),
        "done": bm25 <= 3 * bare and default <= 1.5 * bm25,
    }
    if args.against is not None:
        before_bm25, before_default = (medians[label] for label in list(cmds)[3:5])
        result[f"{args.against.name}: bm25 / bare"] = round(before_bm25 / bare, 2)
        result[f"{args.against.name}: default / bm25"] = round(before_default / before_bm25, 2)
        cpu_before_bm25 = cpu[list(cmds)[3]]
        result[f"{args.against.name}: cpu: bm25 / bare"] = round(cpu_before_bm25 / cpu_bare, 2)
    for label, median in medians.items():
        print(f"{label:38} median {median:.3f} s, max {result['max_s'][label]:.3f} s, CPU {cpu[label]:.3f} s")
    print(f"bm25 / bare {result['bm25 / bare']}x (at most 3), default / bm25 {result['default / bm25']}x (at most 1.5); "
          f"CPU: {result['cpu: bm25 / bare']}x, {result['cpu: default / bm25']}x")
    if args.against is not None:
        name = args.against.name
        print(f"{name}: bm25 / bare {result[f'{name}: bm25 / bare']}x, default / bm25 {result[f'{name}: default / bm25']}x; "
              f"CPU: bm25 / bare {result[f'{name}: cpu: bm25 / bare']}x")
    write_json(args.out, result)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
