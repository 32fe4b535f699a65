"""The hand-labelled technical prose (benchmarks/fixtures/tech_entities.jsonl, issue 46) and its
scorer in benchmarks/extractor_quality.py (`--dataset tech`)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from conftest import load_benchmark

FIXTURE = Path(__file__).resolve().parent.parent / "benchmarks" / "fixtures" / "tech_entities.jsonl"
KINDS = {"person", "organisation", "location", "product", "work", "event", "misc"}


def _rows() -> list[dict]:
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def test_the_fixture_is_well_formed() -> None:
    rows = _rows()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)) >= 60
    for row in rows:
        assert row["domain"] == "tech" and row["source"] and row["licence"], row["id"]
        assert 150 <= len(row["text"].split()) <= 500, row["id"]
        names = [e["name"] for e in row["entities"]]
        assert names, row["id"]
        for entity in row["entities"]:
            assert entity["kind"] in KINDS, (row["id"], entity)
            assert entity["name"] in row["text"], (row["id"], entity["name"])  # verbatim
        folded = Counter(" ".join(n.casefold().split()) for n in names)
        assert max(folded.values()) == 1, (row["id"], folded.most_common(1))


def test_the_fixture_spans_many_projects_and_names_products_people_and_organisations() -> None:
    rows = _rows()
    assert len({r["source"].split(",")[0] for r in rows}) >= 40
    kinds = Counter(e["kind"] for r in rows for e in r["entities"])
    assert kinds["product"] >= 200 and kinds["person"] >= 30 and kinds["organisation"] >= 30


def test_an_entity_is_scored_by_the_first_gold_name_it_carries() -> None:
    load_benchmark("train_types")  # extractor_quality maps CrossNER kinds as train_types does
    quality = load_benchmark("extractor_quality")
    doc = {"id": "d", "text": "Guido van Rossum wrote Python at CWI; see also HTTP and Markdown.",
           "entities": [{"name": "Guido van Rossum", "kind": "person"}, {"name": "Python", "kind": "product"},
                        {"name": "CWI", "kind": "organisation"}, {"name": "HTTP", "kind": "misc"},
                        {"name": "Markdown", "kind": "misc"}]}
    entities = [{"name": "Guido van Rossum", "type": "person", "aliases": []},
                {"name": "the Python", "type": "place", "aliases": ["Python"]},  # matched by an alias, typed wrong
                {"name": "CWI", "type": "concept", "aliases": []},                # left untyped
                {"name": "HTTP", "type": "organization", "aliases": []},          # a concept given a type
                {"name": "wrote", "type": "concept", "aliases": []}]              # no gold name
    scored = quality.score_kinds(doc, entities, quality.kind_types())
    summary = quality.kinds_summary(scored["counts"])
    assert summary["typed"] == 3 and summary["type_precision"] == round(1 / 3, 4)
    assert summary["named_things"] == {"found": 3, "typed_right": round(1 / 3, 4), "untyped": round(1 / 3, 4)}
    assert summary["people_organisations_places"]["found"] == 2
    assert summary["name_precision"] == 0.8  # four of five canonical names are gold: "the Python" folds to "python"
    assert summary["recall"] == 0.8 and scored["missed"] == [["d", "concept", "Markdown"]]
    assert [(m["name"], m["gold"], m["kg_type"]) for m in scored["mistyped"]] == [
        ("the Python", "product", "place"), ("HTTP", "concept", "organization")]


HELDOUT = FIXTURE.with_name("tech_heldout.jsonl")


def _project(source: str) -> str:
    """ "PyPI package onnx 1.23.2, long description ..." -> "pypi package onnx"."""
    return source.split(",")[0].rsplit(" ", 1)[0].lower()


def test_the_held_out_set_is_well_formed_and_apart_from_the_training_set() -> None:
    """benchmarks/fixtures/tech_heldout.jsonl (tech_heldout.md) judges technical prose kg never
    learnt from: its projects are not the tech set's, and the type model's training never reads it."""
    rows = [json.loads(line) for line in HELDOUT.read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 15 and len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        assert row["domain"] == "tech" and row["source"] and row["licence"], row["id"]
        for entity in row["entities"]:
            assert entity["kind"] in KINDS and entity["name"] in row["text"], (row["id"], entity)
        folded = Counter(" ".join(e["name"].casefold().split()) for e in row["entities"])
        assert max(folded.values()) == 1, (row["id"], folded.most_common(1))
    assert not {_project(r["source"]) for r in rows} & {_project(r["source"]) for r in _rows()}
    trainer = (FIXTURE.parent.parent / "train_types.py").read_text(encoding="utf-8")
    assert "tech_heldout" not in trainer and "fixtures/*" not in trainer and "glob(" not in trainer
