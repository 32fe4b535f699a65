"""One-edit compile against a no-op compile, as `kg compile` processes (issue 46).

hotpotqa-100's first 300 passages (one markdown source each) are compiled offline into a fresh
knowledge base. Then, in turn, N times: `kg compile` with nothing changed, and `kg compile` after
one source was edited (the next passage of the corpus added to a different source each time, as a
person adds a paragraph to a note). Each is a process,
as a user runs it: start-up, imports, the compile, the render, closing the database. The medians
and their ratio are printed and written as JSON; the target is a ratio within 1.5. The tables
kg.extract.tables keeps go to a fresh folder ($KG_CACHE_DIR when set): the first compile, timed
apart, derives them.

With --profile, a no-op and one more edit are compiled under cProfile (CPU clock) and under
`python -X importtime`: CPU by stage, and the modules only the edit imports.

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


# Where a compile's CPU goes, by stage: (file the function is in, its name).
STAGES = {
    "imports": ("<frozen importlib._bootstrap>", "_find_and_load"),
    "kg.api.compile_kb (the lazy imports in it too)": ("kg/api/build.py", "compile_kb"),
    "open the graph": ("kg/api/stores.py", "open_store"),
    "extraction": ("kg/compile/pipeline.py", "extract"),
    "of which gazetteer tables read": ("kg/extract/tables.py", "read"),
    "graph writes": ("kg/graph/store.py", "write"),
    "regroup": ("kg/compile/groups.py", "regroup"),
    "contradiction detection": ("kg/compile/contradict.py", "detect"),
    "render": ("exporters/incremental.py", "render_incremental"),
    "close the graph": ("kg/graph/store.py", "close"),
}
# python RUNNER OUT SCRIPT ARGS...: runs SCRIPT as __main__ with ARGS under cProfile's CPU clock.
RUNNER = """import cProfile, runpy, sys, time
out = sys.argv[1]
sys.argv = sys.argv[2:]
profile = cProfile.Profile(time.process_time)
try:
    profile.runcall(runpy.run_path, sys.argv[0], run_name="__main__")
except SystemExit:
    pass
profile.dump_stats(out)
"""


def cpu_profile(root: Path, workdir: Path, name: str) -> dict[str, float]:
    """CPU seconds by stage of one `kg compile` process under cProfile (process time; the profiler
    inflates Python-heavy parts, imports most)."""
    out = workdir / f"{name}.prof"
    runner = workdir / "profile_runner.py"
    runner.write_text(RUNNER, encoding="utf-8")
    subprocess.run([sys.executable, str(runner), str(out), KG_EXE, *compile_args(root)], check=True, capture_output=True)
    stats = pstats.Stats(str(out), stream=io.StringIO()).stats  # type: ignore[attr-defined]
    found = {"total": round(sum(row[2] for row in stats.values()), 3)}
    for stage, (where, function) in STAGES.items():
        found[stage] = round(sum(row[3] for (file, _, name), row in stats.items()
                                 if name == function and file.endswith(where)), 3)
    return found


def imports(root: Path) -> dict[str, float]:
    """Seconds of each top-level import of one `kg compile` process (-X importtime)."""
    text = subprocess.run([sys.executable, "-X", "importtime", KG_EXE, *compile_args(root)],
                          check=True, capture_output=True, text=True).stderr
    found: dict[str, float] = {}
    for line in text.splitlines():
        row = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| ?(\S+)$", line)  # one space: imported at the top
        if row:
            found[row.group(3)] = round(int(row.group(2)) / 1e6, 3)
    return found


def profile_edit(root: Path, workdir: Path, paragraphs: list[str]) -> dict[str, Any]:
    """Where a one-edit compile's CPU goes against a no-op one's, by stage, and the modules only
    the edit imports."""
    source = sorted((root / "raw").glob("*.md"))[1]
    nothing = cpu_profile(root, workdir, "nothing_changed")
    edit(source, paragraphs[0])
    one = cpu_profile(root, workdir, "one_edit")
    before = imports(root)
    edit(source, paragraphs[1])
    after = imports(root)
    only_edit = {m: s for m, s in sorted(after.items(), key=lambda kv: -kv[1]) if m not in before}
    return {"cpu_s_by_stage": {stage: {"nothing_changed": nothing[stage], "one_edit": one[stage]} for stage in one},
            "imported_by_the_edit_only_s": only_edit}


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
            result["profile"] = profile_edit(root, workdir, paragraphs[args.repeats :])
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
        print("\nCPU seconds by stage under cProfile (it inflates Python-heavy parts):")
        print("| stage | nothing changed | one edit |")
        print("|---|---:|---:|")
        for stage, pair in result["profile"]["cpu_s_by_stage"].items():
            print(f"| {stage} | {pair['nothing_changed']:.3f} | {pair['one_edit']:.3f} |")
        extra = result["profile"]["imported_by_the_edit_only_s"]
        print("Imported by the edit only: " + (", ".join(f"{m} {s:.3f} s" for m, s in extra.items()) or "nothing"))
    write_json(args.out, result)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
