from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kg.cli import app
from tests.conftest import EXAMPLES

runner = CliRunner()


def kg(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_init_is_idempotent(tmp_path: Path) -> None:
    first = kg("init", str(tmp_path / "kb"))
    assert first.exit_code == 0 and "created" in first.output
    for name in ("raw", "wiki", "insights", ".kg", "kg.toml", "AGENTS.md"):
        assert (tmp_path / "kb" / name).exists()
    config = (tmp_path / "kb" / "kg.toml").read_text()
    second = kg("init", str(tmp_path / "kb"))
    assert second.exit_code == 0 and "nothing changed" in second.output
    assert (tmp_path / "kb" / "kg.toml").read_text() == config


def test_ingest_compile_status_cypher(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kg("init", str(kb))
    result = kg("ingest", str(EXAMPLES), "--kb", str(kb), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["compiled"] == 14 and data["claims_added"] > 100
    status = json.loads(kg("status", "--kb", str(kb), "--json").output)
    assert status["counts"]["Source"] == 14 and status["extractor"] == "heuristic" and status["changed"] == []
    rows = json.loads(kg("cypher", "MATCH (e:Entity {id: $id}) RETURN e.name AS name", "--param", "id=eniac",
                         "--kb", str(kb), "--json").output)
    assert rows == [{"name": "ENIAC"}]
    table = kg("cypher", "MATCH (s:Source) RETURN s.path AS path ORDER BY path LIMIT 2", "--kb", str(kb))
    assert table.output.splitlines()[0] == "path"
    again = kg("compile", "--kb", str(kb))
    assert again.exit_code == 0 and "Nothing changed" in again.output


def test_cypher_is_read_only_unless_write(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kg("init", str(kb))
    kg("compile", "--kb", str(kb))
    denied = kg("cypher", "CREATE (:Page {id: 'p'})", "--kb", str(kb))
    assert denied.exit_code != 0 and "--write" in denied.output
    assert kg("cypher", "CREATE (:Page {id: 'p'})", "--write", "--kb", str(kb)).exit_code == 0
    bad = kg("cypher", "MATCH (n:Nope) RETURN n", "--kb", str(kb))
    assert bad.exit_code == 1 and "error:" in bad.output


def test_errors_are_messages_with_exit_codes(tmp_path: Path) -> None:
    outside = kg("status", "--kb", str(tmp_path))
    assert outside.exit_code == 2 and "kg init" in outside.output
    kb = tmp_path / "kb"
    kg("init", str(kb))
    assert kg("compile", "--kb", str(kb), "-x", "nonsense").exit_code == 2
    (kb / "raw" / "bad.md").write_bytes(b"\x00\x00")
    (kb / "raw" / "ok.md").write_text("# Ok\n\nAlan Turing worked at Bletchley Park.")
    result = kg("compile", "--kb", str(kb))
    assert result.exit_code == 1 and "binary" in result.output
    assert (kb / "wiki" / "sources" / "ok.md").exists()


def test_ingest_refuses_to_overwrite(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kg("init", str(kb))
    note = tmp_path / "eniac.md"
    shutil.copyfile(EXAMPLES / "eniac.md", note)
    assert kg("ingest", str(note), "--kb", str(kb), "--no-compile").exit_code == 0
    note.write_text("# Different\n")
    result = kg("ingest", str(note), "--kb", str(kb), "--no-compile")
    assert result.exit_code == 1 and "already exists" in result.output
    assert (kb / "raw" / "eniac.md").read_bytes() == (EXAMPLES / "eniac.md").read_bytes()


def test_help_and_version() -> None:
    assert "compile" in kg("--help").output
    assert kg("--version").output.startswith("kg ")


def test_a_kg_process_collects_garbage_for_every_command_but_a_bounded_read(monkeypatch: Any) -> None:
    """`kg` as a process starts with the collector off (kg.cli._Kg); a command's own work turns it on,
    but a bounded read's process (its work is its worker's) keeps it off and skips it at exit. In a
    test's CliRunner (the collector on) nothing changes."""
    import atexit
    import gc

    from kg import cli

    at_exit: list[Any] = []
    monkeypatch.setattr(atexit, "register", at_exit.append)
    try:
        cli._collect_for("query")  # in-process, the collector on: as the caller has it
        assert gc.isenabled() and at_exit == []
        gc.disable()
        cli._collect_for("query")
        assert not gc.isenabled() and at_exit == [gc.freeze]
        cli._collect_for("compile")
        assert gc.isenabled()
    finally:
        gc.enable()
