"""`kg compile PATHS`: only the sources at or under the paths are planned and compiled; the rest
of raw/ is not looked at, and the result for those sources is what a full compile gives."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg import api
from kg.cli import app
from kg.errors import ConfigError
from kg.kb import KnowledgeBase
from tests.conftest import is_log, tree_digest

runner = CliRunner()


def kg(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def append(kb: KnowledgeBase, name: str, text: str) -> None:
    with (kb.raw / name).open("a", encoding="utf-8") as handle:
        handle.write(f"\n{text}\n")


def sources(kb: KnowledgeBase) -> dict[str, str]:
    return {r["path"]: r["status"] for r in api.cypher(kb, "MATCH (s:Source) RETURN s.path AS path, s.status AS status")}


def test_only_the_named_sources_are_compiled(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    append(example_kb, "eniac.md", "ENIAC was moved to Aberdeen Proving Ground in 1947.")
    append(example_kb, "colossus.md", "Colossus Mark 2 was operational by June 1944.")
    (example_kb.raw / "edvac.md").unlink()
    (example_kb.raw / "intel-4004.md").unlink()
    report, rendered = api.compile_kb(example_kb, only=["eniac.md", "edvac.md"])
    assert report.plan.changed == ["eniac.md"] and report.plan.vanished == ["edvac.md"] and report.plan.new == []
    assert report.plan.unchanged == [] and rendered is not None  # nothing else was even looked at
    assert sources(example_kb)["edvac.md"] == "removed" and sources(example_kb)["intel-4004.md"] == "compiled"
    rest = api.compile_kb(example_kb)[0].plan  # the others are still waiting
    assert rest.changed == ["colossus.md"] and rest.vanished == ["intel-4004.md"]


def test_a_path_limited_compile_gives_what_a_full_one_gives(example_kb: KnowledgeBase, tmp_path: Path) -> None:
    api.compile_kb(example_kb)
    twin = KnowledgeBase(tmp_path / "twin")
    shutil.copytree(example_kb.root, twin.root)
    for kb in (example_kb, twin):
        append(kb, "eniac.md", "ENIAC weighed 30 tons and used 150 kW of power in 1946.")
        (kb.raw / "notes").mkdir()
        (kb.raw / "notes" / "eniac.txt").write_text("ENIAC\n\nENIAC was announced to the press in February 1946.\n")
        (kb.raw / "colossus.txt").write_text("Colossus notes\n\nColossus was dismantled in 1960.\n")  # slug taken
    api.compile_kb(example_kb, only=["eniac.md", "colossus.txt", "notes"])
    api.compile_kb(twin)
    query = ("MATCH (c:Claim)-[:ABOUT {role: 'subject'}]->(e:Entity) RETURN e.id AS entity, c.text AS text, c.status AS status "
             "ORDER BY entity, text")
    assert api.cypher(example_kb, query) == api.cypher(twin, query)
    assert sources(example_kb) == sources(twin)
    slugs = "MATCH (s:Source) RETURN s.path AS path, s.slug AS slug ORDER BY path"
    rows = api.cypher(example_kb, slugs)
    assert rows == api.cypher(twin, slugs) and len({r["slug"] for r in rows}) == len(rows)  # new slugs avoid all others
    pages = {p: d for p, d in tree_digest(example_kb.wiki).items() if not is_log(p)}  # log lines carry times
    assert pages == {p: d for p, d in tree_digest(twin.wiki).items() if not is_log(p)}


def test_paths_are_read_from_here_or_from_raw(example_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    (example_kb.raw / "notes").mkdir()
    monkeypatch.chdir(example_kb.raw / "notes")
    assert api.select_sources(example_kb, ["../eniac.md", "eniac.md", "../notes/"]) == ["eniac.md", "notes", "notes/eniac.md"]
    assert api.select_sources(example_kb, [str(example_kb.raw / "colossus.md")]) == ["colossus.md"]
    assert api.select_sources(example_kb, [str(example_kb.raw)]) is None and api.select_sources(example_kb, []) is None
    with pytest.raises(ConfigError, match="not in raw/"):
        api.select_sources(example_kb, ["../../kg.toml"])


def test_cli_compile_paths_and_their_errors(example_kb: KnowledgeBase) -> None:
    root = str(example_kb.root)
    assert kg("compile", "--kb", root, "-q").exit_code == 0
    append(example_kb, "eniac.md", "ENIAC was moved to Aberdeen Proving Ground in 1947.")
    done = kg("compile", str(example_kb.raw / "eniac.md"), "--kb", root, "--json")
    assert done.exit_code == 0 and json.loads(done.output)["changed"] == 1 and json.loads(done.output)["unchanged"] == 0
    graph = tree_digest(example_kb.state)
    (example_kb.raw / "picture.png").write_bytes(b"\x89PNG")
    for path, message in (("typo.md", "does not exist and was never compiled"),
                          ("picture.png", "is not a source kg reads"),
                          (os.path.join("..", "kg.toml"), "is not in raw/")):
        failed = kg("compile", path, "--kb", root)
        assert failed.exit_code == 2 and message in failed.output, failed.output
    assert tree_digest(example_kb.state) == graph  # a refused selection writes nothing
    explained = json.loads(kg("compile", "eniac.md", "--kb", root, "--explain", "--json").output)
    assert explained["plan"]["unchanged"] == ["eniac.md"] and explained["pages"] == []


def test_many_paths_at_once(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    (example_kb.raw / "many").mkdir()
    names = [f"many/n{i:02d}.md" for i in range(40)]
    for i, name in enumerate(names):
        (example_kb.raw / name).write_text(f"# Note {i}\n\nProject Zeta{i} started in {1950 + i}.\n", encoding="utf-8")
    report, _ = api.compile_kb(example_kb, only=[*names[:39], "eniac.md"])  # more paths than are queried one by one
    assert report.plan.new == names[:39] and report.plan.unchanged == ["eniac.md"] and report.compiled == 39
    assert api.compile_kb(example_kb)[0].plan.new == names[39:]
