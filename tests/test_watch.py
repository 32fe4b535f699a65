"""Issue 21: `kg watch` (a process, as a person runs it) and freshness limits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kg import api
from kg.config import Config
from kg.errors import ConfigError
from kg.kb import KnowledgeBase, init

KG = str(Path(sys.executable).with_name("kg"))


def wait_for(check: Callable[[], bool], seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def run(*args: str, kb: KnowledgeBase) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KG, *args, "--kb", str(kb.root)], capture_output=True, text=True, timeout=120)


def test_watch_compiles_new_edited_and_deleted_files_and_stops_on_sigterm(tmp_path: Path) -> None:
    kb, _ = init(tmp_path / "kb")
    for n in range(30):
        (kb.raw / f"p{n:02d}.md").write_text(f"# Machine {n}\n\nMachine {n} was built in {1900 + n} in Leeds.\n", encoding="utf-8")
    api.compile_kb(kb, "heuristic")
    watcher = subprocess.Popen([KG, "watch", "--debounce", "0.3", "--kb", str(kb.root)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: (kb.state / "watch.pid").is_file())
        second = run("watch", kb=kb)
        assert second.returncode == 3 and "already running" in second.stderr and str(watcher.pid) in second.stderr

        note = kb.raw / "zuse.md"
        note.write_text("# Zuse Z3\n\nThe Zuse Z3 was completed in 1941 in Berlin.\n", encoding="utf-8")
        page = kb.wiki / "sources" / "zuse.md"
        assert wait_for(page.is_file), "a new file did not reach the wiki"
        note.write_text("# Zuse Z3\n\nThe Zuse Z3 was completed in 1941 in Berlin by Konrad Zuse.\n", encoding="utf-8")
        assert wait_for(lambda: "Konrad Zuse" in page.read_text(encoding="utf-8")), "an edit did not reach the wiki"
        time.sleep(1.0)  # idle: the graph is free
        found = run("search", "Zuse Berlin", "--mode", "bm25", "--json", kb=kb)
        assert found.returncode == 0 and "Zuse" in found.stdout
        note.unlink()
        # a removed source keeps its page, marked removed, its claims retracted
        assert wait_for(lambda: 'status: "removed"' in page.read_text(encoding="utf-8")), "a deletion did not reach the wiki"

        started = time.monotonic()
        watcher.send_signal(signal.SIGTERM)
        watcher.wait(timeout=10)
        assert time.monotonic() - started < 10 and watcher.returncode == 0
    finally:
        if watcher.poll() is None:
            watcher.kill()
    out = watcher.stdout.read() if watcher.stdout else ""
    assert out.count("compiled zuse.md") == 3, out
    assert not (kb.state / "watch.pid").exists()
    assert run("compile", "-q", kb=kb).returncode == 0


def add_freshness(kb: KnowledgeBase, entry: str) -> None:
    text = kb.config_path.read_text(encoding="utf-8")
    assert "\n[freshness]\n" in text  # kg init writes the table, with examples commented out
    kb.config_path.write_text(text.replace("\n[freshness]\n", f"\n[freshness]\n{entry}\n"), encoding="utf-8")


def test_freshness_limits_in_status_and_lint(tmp_path: Path) -> None:
    kb, _ = init(tmp_path / "kb")
    (kb.raw / "src").mkdir()
    old, new, dated = kb.raw / "src" / "hp001.md", kb.raw / "src" / "hp002.md", kb.raw / "src" / "hp003.md"
    old.write_text("# Old\n\nAn old note about ENIAC.\n", encoding="utf-8")
    new.write_text("# New\n\nA new note about ENIAC.\n", encoding="utf-8")
    dated.write_text("---\nupdated: 2001-01-01\n---\n# Dated\n\nA note dated long ago.\n", encoding="utf-8")
    ninety_days_ago = time.time() - 90 * 86400
    os.utime(old, (ninety_days_ago, ninety_days_ago))
    add_freshness(kb, '"src/hp00*" = "30d"')
    api.compile_kb(kb, "heuristic")
    assert api.status(kb).past_freshness == 2
    lint = run("lint", "--json", kb=kb)
    findings = [f for f in json.loads(lint.stdout)["findings"] if f["check"] == "freshness"]
    assert sorted(f["subject"] for f in findings if f["subject"].startswith("raw/")) == ["raw/src/hp001.md", "raw/src/hp003.md"]
    pages = {f["subject"] for f in findings if f["subject"].startswith("entities/")}
    assert "entities/dated" in pages and "entities/new" not in pages  # pages resting only on overdue sources
    assert "90 days old" in next(f["message"] for f in findings if f["subject"].endswith("hp001.md"))
    assert "`updated:`" in next(f["message"] for f in findings if f["subject"].endswith("hp003.md"))


@pytest.mark.parametrize("entry", ['"news/**" = "30x"', '"/etc/*" = "30d"', '"a" = "0d"', '"a" = true'])
def test_a_bad_freshness_entry_is_a_configuration_error(tmp_path: Path, entry: str) -> None:
    kb, _ = init(tmp_path / "kb")
    add_freshness(kb, entry)
    with pytest.raises(ConfigError, match=r"\[freshness\]"):
        Config.load(kb.config_path)
    assert run("status", kb=kb).returncode == 2
