"""Issue 24: everyday histories (adds, edits, deletions, renames, touches, compiles of some paths),
every read command after each step, each a real process: none may die of a signal. The many-
history run is `python benchmarks/histories.py`; CI runs two short ones."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import load_benchmark


def test_everyday_histories_end_every_command_without_a_crash(tmp_path: Path) -> None:
    histories = load_benchmark("histories")
    try:
        data = histories.data_dir()
    except SystemExit as missing:
        pytest.skip(str(missing))
    if not (data / "hotpotqa-100" / "corpus.jsonl").exists():
        pytest.skip(f"no hotpotqa-100 in the benchmark data at {data} (set KG_DATA_DIR)")
    passages = histories.load_passages(limit=600)
    for seed in (7, 8):
        history = histories.one_history(seed, passages, 3, [sys.executable, "-m", "kg.cli"], True, tmp_path)
        assert history.commands >= 3 * 5
        assert history.ok, (history.steps, history.crashes, history.unexpected)
