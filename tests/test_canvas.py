"""`kg export canvas`: JSON Canvas 1.0 of an entity's neighbourhood (exporters/canvas.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from exporters import canvas as canvas_doc
from kg import api
from kg.cli import app
from kg.errors import ConfigError, QueryError
from kg.kb import KnowledgeBase

runner = CliRunner()


def _export(kb: KnowledgeBase, path: Path, *args: str) -> dict:
    result = runner.invoke(app, ["export", "canvas", *args, str(path), "--kb", str(kb.root), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["written"] > 0
    return json.loads(path.read_text(encoding="utf-8"))


def test_a_neighbourhood_is_valid_json_canvas_whose_files_are_wiki_pages(compiled: KnowledgeBase, tmp_path: Path) -> None:
    document = _export(compiled, tmp_path / "eniac.canvas", "eniac")
    assert canvas_doc.problems(document, compiled.wiki) == []
    files = {n["file"] for n in document["nodes"] if n["type"] == "file"}
    assert "entities/eniac.md" in files and any(f.startswith("sources/") for f in files)
    claims = [n for n in document["nodes"] if n["type"] == "text" and n["id"].startswith("claim-")]
    assert claims and all("[[sources/" in n["text"] for n in claims)
    labels = {e.get("label") for e in document["edges"]}
    assert "source" in labels and len(labels) > 1  # predicates or roles besides the source edges
    ids = [n["id"] for n in document["nodes"]]
    assert len(ids) == len(set(ids))


def test_more_hops_reach_further_and_the_same_graph_gives_the_same_bytes(compiled: KnowledgeBase, tmp_path: Path) -> None:
    one = _export(compiled, tmp_path / "one.canvas", "eniac")
    two = _export(compiled, tmp_path / "two.canvas", "eniac", "--hops", "2")
    assert len(two["nodes"]) >= len(one["nodes"])
    assert canvas_doc.problems(two, compiled.wiki) == []
    again = tmp_path / "again.canvas"
    api.export_canvas(compiled, "ENIAC", again, hops=2)  # by name, the same entity
    assert again.read_bytes() == (tmp_path / "two.canvas").read_bytes()


def test_no_hops_draws_the_entity_and_its_own_claims_only(compiled: KnowledgeBase, tmp_path: Path) -> None:
    document = _export(compiled, tmp_path / "zero.canvas", "eniac", "--hops", "0")
    entities = [n for n in document["nodes"] if n["id"].startswith("entity-")]
    assert [n["id"] for n in entities] == ["entity-eniac"]


def test_problems_names_what_breaks_the_spec(tmp_path: Path) -> None:
    (tmp_path / "entities").mkdir()
    (tmp_path / "entities" / "a.md").write_text("# A\n")
    good = {"nodes": [{"id": "a", "type": "file", "file": "entities/a.md", "x": 0, "y": 0, "width": 10, "height": 10}],
            "edges": []}
    assert canvas_doc.problems(good, tmp_path) == []
    bad = {"nodes": [{"id": "a", "type": "file", "file": "entities/b.md", "x": 0, "y": 0, "width": 10, "height": 10},
                     {"id": "a", "type": "text", "x": 0.5, "y": 0, "width": 1, "height": 1},
                     {"id": "c", "type": "text"}],
           "edges": [{"id": "e", "fromNode": "a", "toNode": "zz"}]}
    found = canvas_doc.problems(bad, tmp_path)
    assert any("entities/b.md" in p for p in found) and any("twice" in p for p in found)
    assert any("lacks" in p for p in found) and any("zz" in p for p in found) and any("non-integer" in p for p in found)


def test_unknown_entities_bad_hops_and_protected_folders_are_refused(compiled: KnowledgeBase, tmp_path: Path) -> None:
    with pytest.raises(QueryError):
        api.export_canvas(compiled, "no such entity at all", tmp_path / "x.canvas")
    with pytest.raises(ConfigError):
        api.export_canvas(compiled, "eniac", tmp_path / "x.canvas", hops=9)
    with pytest.raises(ConfigError):
        api.export_canvas(compiled, "eniac", compiled.raw / "x.canvas")
    result = runner.invoke(app, ["export", "canvas", "eniac", str(compiled.raw / "x.canvas"), "--kb", str(compiled.root)])
    assert result.exit_code == 2 and not (compiled.raw / "x.canvas").exists()
