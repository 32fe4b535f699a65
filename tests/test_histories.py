"""Issue 24: everyday histories (adds, edits, deletions, renames, touches, compiles of some paths),
every read command after each step, each a real process: none may die of a signal. The many-
history run is `python benchmarks/histories.py`; CI runs two short ones."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "histories.py"


def load_script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("histories", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["histories"] = module
    spec.loader.exec_module(module)
    return module


def test_everyday_histories_end_every_command_without_a_crash(tmp_path: Path) -> None:
    histories = load_script()
    if not (histories.DATA / "hotpotqa-100" / "corpus.jsonl").exists():
        pytest.skip(f"no benchmark data at {histories.DATA} (set KG_DATA_DIR)")
    passages = histories.load_passages(limit=600)
    for seed in (7, 8):
        history = histories.one_history(seed, passages, 3, [sys.executable, "-m", "kg.cli"], True, tmp_path)
        assert history.commands >= 3 * 5
        assert history.ok, (history.steps, history.crashes, history.unexpected)
