"""Everyday histories of a knowledge base, and every read command after each step (issue 24).

Each history starts from `kg init` and runs random steps as a person would: add a few or many
notes (in "daily" histories a batch of about the same size every step, as in issue 24), edit
some (append, rewrite), delete, rename or move them, touch them without changing their bytes,
compile all of raw/ or only some paths; after each step it runs the read commands
(`kg status`, `kg search`, `kg query`, `kg lint`, `kg cypher` over a whole table, and
`kg doctor --check`, which reads every column of every table in a child process). Every command
is a real process. A command that dies of a signal (exit code above 128, or negative) is a
crash; a crash, or an exit code a command never gives for that situation, fails the run.

    python benchmarks/histories.py --histories 20 --steps 10
    python benchmarks/histories.py --histories 2 --steps 3 --quick   # what the CI test runs

Prints one line per history and a summary; writes benchmarks/out/histories.json.
Passages come from ../shared/data/hotpotqa-100 and scifact (KG_DATA_DIR overrides the folder).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import KG_EXE, data_dir, out_path, read_jsonl, write_json

# Exit codes a command may give in an everyday history: compile 1 = a source failed (e.g. a
# file emptied by an edit); lint 1 = it found errors.
ALLOWED = {"compile": {0, 1}, "status": {0}, "search": {0}, "query": {0}, "lint": {0, 1}, "cypher": {0}, "doctor": {0}}
TABLES = ["Source", "Entity", "Claim", "Chunk", "Decision", "LogEntry"]


@dataclass
class Passage:
    title: str
    text: str


@dataclass
class History:
    seed: int
    kind: str = "mixed"
    steps: list[str] = field(default_factory=list)
    commands: int = 0
    crashes: list[dict[str, Any]] = field(default_factory=list)
    unexpected: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.crashes and not self.unexpected


def load_passages(limit: int = 3000) -> list[Passage]:
    data = data_dir()
    passages = [Passage(d["title"], d["text"]) for d in read_jsonl(data / "hotpotqa-100" / "corpus.jsonl")]
    passages += [Passage(d["title"], " ".join(d["sentences"]))
                 for d in read_jsonl(data / "scifact" / "corpus.jsonl", limit // 2)]
    return passages[:limit]


def note(p: Passage) -> str:
    return f"# {p.title}\n\n{p.text}\n"


class Runner:
    """One knowledge base and the commands run against it."""

    def __init__(self, root: Path, history: History, kg: list[str], quick: bool) -> None:
        self.root, self.history, self.kg, self.quick = root, history, kg, quick

    def run(self, name: str, *args: str, step: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        done = subprocess.run([*self.kg, name, *args], cwd=self.root, capture_output=True, text=True, env=env)
        self.history.commands += 1
        record = {"step": step, "command": " ".join(["kg", name, *args]), "exit": done.returncode,
                  "stderr": done.stderr.strip()[-500:]}
        if done.returncode < 0 or done.returncode > 128:
            self.history.crashes.append(record)
        elif done.returncode not in ALLOWED[name]:
            self.history.unexpected.append(record)
        return done

    def reads(self, rng: random.Random, words: list[str], step: str) -> None:
        self.run("status", "--json", step=step)
        self.run("search", rng.choice(words), "--mode", "bm25", "--json", step=step)
        if not self.quick:
            self.run("query", f"What is {rng.choice(words)}?", "--mode", "bm25", "--offline", "--json", step=step)
            self.run("cypher", f"MATCH (n:{rng.choice(TABLES)}) RETURN n.*", "--json", step=step)
        self.run("lint", "--json", step=step)
        self.run("doctor", "--check", "--json", step=step)


def one_history(seed: int, passages: list[Passage], steps: int, kg: list[str], quick: bool, work: Path) -> History:
    rng = random.Random(seed)
    history = History(seed)
    started = time.perf_counter()
    root = work / f"kb-{seed}"
    shutil.rmtree(root, ignore_errors=True)
    subprocess.run([*kg, "init", str(root)], check=True, capture_output=True)
    runner = Runner(root, history, kg, quick)
    raw = root / "raw"
    unused = list(range(len(passages)))
    rng.shuffle(unused)
    present: list[Path] = []
    words = [w for p in passages[:200] for w in p.title.split() if len(w) > 4] or ["the"]
    folders = ["", "notes/", "papers/", "notes/old/"]
    # Two kinds of history: "daily" adds a batch of about the same size every step, as someone
    # adding notes day by day (the history of issue 24); "mixed" does a bit of everything.
    daily = rng.choice([0, 10, 20, 60] if not quick else [0, 10, 20])
    pure = seed % 5 == 0  # exactly issue 24's history: batches of 60 sorting first, nothing else
    if pure:
        daily = 60
    history.kind = "issue 24" if pure else f"daily {daily}" if daily else "mixed"
    written = 0
    for step in range(steps):
        ops = []
        for turn in range(1 if pure else rng.randint(1, 3)):
            if daily and turn == 0:
                op = "add"
            else:
                op = rng.choice(["add", "add", "edit", "delete", "rename", "touch"] if present else ["add"])
            if op == "add":
                k = daily if daily and turn == 0 else rng.choice([1, 3, 10, 30, 60] if not quick else [1, 5, 20])
                k = min(len(unused), k)
                for _ in range(k):
                    p = passages[unused.pop()]
                    written += 1
                    # a daily batch sorts before the earlier ones, as in issue 24's history
                    path = raw / (f"{10000 - written:05d}-{seed}.md" if daily and turn == 0 else
                                  f"{rng.choice(folders)}{written:04d}-{seed}.md")
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(note(p), encoding="utf-8")
                    present.append(path)
                ops.append(f"add {k}")
            elif op == "edit":
                chosen = rng.sample(present, min(len(present), rng.choice([1, 2, 5, 20])))
                for path in chosen:
                    other = passages[rng.randrange(len(passages))]
                    if rng.random() < 0.5:
                        path.write_text(path.read_text(encoding="utf-8") + f"\n{other.text[:300]}\n", encoding="utf-8")
                    else:
                        path.write_text(note(other), encoding="utf-8")
                ops.append(f"edit {len(chosen)}")
            elif op == "delete":
                chosen = rng.sample(present, min(len(present), rng.choice([1, 2, 10])))
                for path in chosen:
                    path.unlink()
                    present.remove(path)
                ops.append(f"delete {len(chosen)}")
            elif op == "rename":
                chosen = rng.sample(present, min(len(present), rng.choice([1, 3])))
                for path in chosen:
                    target = raw / f"{rng.choice(folders)}moved-{step}-{path.name}"
                    if target.exists():
                        continue
                    target.parent.mkdir(parents=True, exist_ok=True)
                    path.rename(target)
                    present[present.index(path)] = target
                ops.append(f"rename {len(chosen)}")
            else:
                chosen = rng.sample(present, min(len(present), rng.choice([1, 10])))
                for path in chosen:
                    path.write_bytes(path.read_bytes())
                ops.append(f"touch {len(chosen)}")
        label = f"step {step + 1}: {', '.join(ops)}"
        history.steps.append(label)
        if present and not pure and rng.random() < 0.25:  # an editor's on-save hook: only some paths
            runner.run("compile", "-q", str(rng.choice(present).relative_to(root)), step=label)
        runner.run("compile", "-q", step=label)
        if pure and step < steps - 1:  # as fast as the history: only `kg status` between compiles
            runner.run("status", "--json", step=label)
        else:
            runner.reads(rng, words, label)
    history.seconds = time.perf_counter() - started
    shutil.rmtree(root, ignore_errors=True)
    return history


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--histories", type=int, default=10)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="smaller steps and fewer read commands")
    parser.add_argument("--kg", default=KG_EXE, help="the kg executable")
    parser.add_argument("--out", type=Path, default=out_path("histories.json"))
    args = parser.parse_args(argv)
    passages = load_passages()
    results = []
    with tempfile.TemporaryDirectory(prefix="kg-histories-") as tmp:
        for i in range(args.histories):
            history = one_history(args.seed + i, passages, args.steps, [args.kg], args.quick, Path(tmp))
            results.append(history)
            status = "ok" if history.ok else f"{len(history.crashes)} crash(es), {len(history.unexpected)} unexpected exit(s)"
            print(f"history {history.seed} ({history.kind}): {len(history.steps)} steps, {history.commands} commands, "
                  f"{history.seconds:.0f} s: {status}", flush=True)
            for bad in history.crashes + history.unexpected:
                print(f"    {bad['step']}: `{bad['command']}` exited {bad['exit']}: {bad['stderr'][-200:]}", flush=True)
    crashed = sum(1 for h in results if h.crashes)
    failed = sum(1 for h in results if not h.ok)
    commands = sum(h.commands for h in results)
    print(f"{len(results)} histories, {sum(len(h.steps) for h in results)} steps, {commands} commands: "
          f"{crashed} with a crash, {failed} with a crash or an unexpected exit code")
    write_json(args.out, {"histories": [h.__dict__ for h in results], "crashed": crashed, "failed": failed,
                          "commands": commands}, default=str)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
