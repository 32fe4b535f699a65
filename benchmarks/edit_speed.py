"""One-edit compile against a no-op compile, as `kg compile` processes (issue 46).

hotpotqa-100's first 300 passages (one markdown source each) are compiled offline into a fresh
knowledge base. Then, in turn, N times: `kg compile` with nothing changed, and `kg compile` after
one source was edited (the next passage of the corpus added to a different source each time, as a
person adds a paragraph to a note). Each is a process,
as a user runs it: start-up, imports, the compile, the render, closing the database. The medians
and their ratio are printed and written as JSON; the target is a ratio within 1.5. The tables
kg.extract.tables keeps go to a fresh folder ($KG_CACHE_DIR when set): the first compile, timed
apart, derives them.

With --profile, one more edit is compiled under cProfile and under `python -X importtime`, and
the largest costs (functions by cumulative time, modules by import time) are printed and kept.

    .venv/bin/python benchmarks/edit_speed.py [--passages 300] [--repeats 7] [--profile]
"""

from __future__ import annotations

import argparse
import io
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import KG_EXE, compile_hotpot, hotpot_passages, machine, out_path, write_json

TARGET_RATIO = 1.5
STEPS = ("nothing_changed", "one_edit")


def compile_args(root: Path) -> list[str]:
    return ["compile", "-q", "--kb", str(root), "-x", "heuristic"]


def edit(path: Path, paragraph: str) -> None:
    """A paragraph added at the end of a source, as a person adds to a note."""
    text = path.read_text(encoding="utf-8")
    path.write_text(f"{text}\n{paragraph}\n", encoding="utf-8")


def timed_process(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, its threads included) of a command run to
    completion; the CPU time is the figure to trust on a machine others load."""
    started = time.perf_counter()
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    error = process.stderr.read() if process.stderr else b""
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, cmd, stderr=error)
    return round(wall, 3), round(usage.ru_utime + usage.ru_stime, 3)


def alternate(root: Path, paragraphs: list[str]) -> dict[str, dict[str, list[float]]]:
    """Wall and CPU seconds of no-op and one-edit compiles, run in turn (a no-op first each round),
    a round for each paragraph, added to a different source each time."""
    sources = sorted((root / "raw").glob("*.md"))
    times: dict[str, dict[str, list[float]]] = {step: {"wall": [], "cpu": []} for step in STEPS}
    for n, paragraph in enumerate(paragraphs):
        for step in STEPS:
            if step == "one_edit":
                edit(sources[(n * 37) % len(sources)], paragraph)
            wall, cpu = timed_process([KG_EXE, *compile_args(root)])
            times[step]["wall"].append(wall)
            times[step]["cpu"].append(cpu)
    return times


def profile_edit(root: Path, workdir: Path, top: int, paragraphs: list[str]) -> dict[str, Any]:
    """Where one edit's time goes: functions by cumulative time (cProfile), modules by their own
    cumulative import time (-X importtime)."""
    source = sorted((root / "raw").glob("*.md"))[1]
    edit(source, paragraphs[0])
    stats_file = workdir / "edit.prof"
    subprocess.run([sys.executable, "-m", "cProfile", "-o", str(stats_file), KG_EXE, *compile_args(root)],
                   check=True, capture_output=True)
    buffer = io.StringIO()
    stats = pstats.Stats(str(stats_file), stream=buffer)
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = []
    for (filename, line, name), (_, _, _, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append({"function": f"{Path(filename).name}:{line}({name})", "cumulative_s": round(cumulative, 3)})
    rows.sort(key=lambda r: -r["cumulative_s"])
    edit(source, paragraphs[1])
    imported = subprocess.run([sys.executable, "-X", "importtime", KG_EXE, *compile_args(root)],
                              check=True, capture_output=True, text=True).stderr
    modules = []
    for line in imported.splitlines():
        found = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if found and len(found.group(3)) <= 2:  # top-level imports and their direct children
            modules.append({"module": found.group(4), "cumulative_s": round(int(found.group(2)) / 1e6, 3)})
    modules.sort(key=lambda r: -r["cumulative_s"])
    return {"total_s": round(total, 3), "functions": rows[:top], "imports": modules[:top]}


def checkout() -> str:
    """The folder and commit of the kg that `kg` runs (PYTHONPATH picks the checkout)."""
    import kg

    folder = Path(kg.__file__).resolve().parent.parent
    commit = subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(folder), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return f"{folder} at {commit.stdout.strip() or '?'}{' (modified)' if dirty else ''}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="Also profile one edit (cProfile, -X importtime).")
    parser.add_argument("--top", type=int, default=25, help="Rows of the profile to keep.")
    parser.add_argument("--out", type=Path, default=out_path("edit_speed.json"))
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="kg-edit-speed-"))
    os.environ.setdefault("KG_CACHE_DIR", str(workdir / "cache"))  # the first compile derives the tables
    try:
        root = workdir / "kb"
        full = compile_hotpot(root, args.passages)
        paragraphs = [row["text"] for row in hotpot_passages(args.repeats + 2, skip=args.passages)]
        times = alternate(root, paragraphs[: args.repeats])
        medians = {step: {kind: round(statistics.median(values), 3) for kind, values in kinds.items()}
                   for step, kinds in times.items()}
        result: dict[str, Any] = {
            "corpus": f"hotpotqa-100, first {args.passages} passages", "repeats": args.repeats,
            "full_compile_s": round(full, 2), "seconds": times, "median_s": medians,
            "ratio": {kind: round(medians["one_edit"][kind] / medians["nothing_changed"][kind], 2) for kind in ("wall", "cpu")},
            "target_ratio": TARGET_RATIO, "kg": checkout(), "machine": machine(), "load_average": os.getloadavg()}
        if args.profile:
            result["profile"] = profile_edit(root, workdir, args.top, paragraphs[args.repeats :])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"{result['corpus']}; full compile {result['full_compile_s']} s; {args.repeats} rounds in turn; kg: {result['kg']}")
    print("| step | wall median s | CPU median s | wall, each | CPU, each |")
    print("|---|---:|---:|---|---|")
    for step, kinds in times.items():
        print(f"| {step} | {medians[step]['wall']:.2f} | {medians[step]['cpu']:.2f} | "
              f"{' '.join(f'{v:.2f}' for v in kinds['wall'])} | {' '.join(f'{v:.2f}' for v in kinds['cpu'])} |")
    print(f"one edit / nothing changed: wall {result['ratio']['wall']}, CPU {result['ratio']['cpu']} "
          f"(target <= {TARGET_RATIO}); load average {', '.join(f'{v:.1f}' for v in result['load_average'])}")
    if args.profile:
        profile = result["profile"]
        print(f"\nOne edit under cProfile: {profile['total_s']} s")
        for row in profile["functions"]:
            print(f"  {row['cumulative_s']:7.3f}  {row['function']}")
        print("\nImports (cumulative, -X importtime):")
        for row in profile["imports"]:
            print(f"  {row['cumulative_s']:7.3f}  {row['module']}")
    write_json(args.out, result)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
