from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kg import api
from kg.cli import app
from kg.compile.resolve import lone_family_names
from kg.kb import KnowledgeBase
from kg.models import ExtractedEntity

runner = CliRunner()


def test_fuzzy_merge_is_an_edge_and_can_be_undone(kb: KnowledgeBase) -> None:
    (kb.raw / "a.md").write_text("# Bletchley Park\n\nBletchley Park was a codebreaking centre in England.\n")
    (kb.raw / "b.md").write_text("# Notes\n\nThe Bletchly Park team read Enigma traffic in 1941.\n")
    api.compile_kb(kb)
    edges = api.cypher(kb, "MATCH (a:Entity)-[m:ALIAS_OF]->(b:Entity) RETURN a.id AS a, b.id AS b, m.method AS method")
    assert edges == [{"a": "bletchly-park", "b": "bletchley-park", "method": "fuzzy"}]
    page = (kb.wiki / "entities/bletchley-park.md").read_text()
    assert "The Bletchly Park team read Enigma traffic" in page and "Merged into this page: Bletchly Park" in page
    assert not (kb.wiki / "entities/bletchly-park.md").exists()
    result = runner.invoke(app, ["entity", "unmerge", "bletchly-park", "--kb", str(kb.root)])
    assert result.exit_code == 0, result.output
    assert (kb.wiki / "entities/bletchly-park.md").exists()
    assert "Bletchly" not in (kb.wiki / "entities/bletchley-park.md").read_text()
    merged = runner.invoke(app, ["entity", "merge", "Bletchly Park", "bletchley-park", "--kb", str(kb.root)])
    assert merged.exit_code == 0 and not (kb.wiki / "entities/bletchly-park.md").exists()
    shown = json.loads(runner.invoke(app, ["entity", "show", "bletchley-park", "--kb", str(kb.root), "--json"]).output)
    assert shown["merged_here"][0]["method"] == "manual"
    log = (kb.wiki / "log.md").read_text()
    assert "] unmerge | bletchly-park" in log and "] merge | bletchly-park" in log
    loop = runner.invoke(app, ["entity", "merge", "bletchley-park", "bletchly-park", "--kb", str(kb.root)])
    assert loop.exit_code == 1 and "loop" in loop.output


def test_claim_show_explain_and_stale_claims(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    claim_id = api.cypher(example_kb, "MATCH (c:Claim) WHERE c.text CONTAINS '27 tonnes' RETURN c.id AS id")[0]["id"]
    shown = runner.invoke(app, ["claim", "show", claim_id, "--kb", str(example_kb.root)])
    assert shown.exit_code == 0 and "✓ verified" in shown.output and "different values for weigh" in shown.output
    (example_kb.raw / "eniac.md").write_text((example_kb.raw / "eniac.md").read_text() + "\nMore text.\n")
    status = json.loads(runner.invoke(app, ["status", "--kb", str(example_kb.root), "--json"]).output)
    assert status["changed"] == ["eniac.md"] and status["stale_claims"] >= 10
    changed = json.loads(runner.invoke(app, ["claim", "show", claim_id, "--kb", str(example_kb.root), "--json"]).output)
    assert changed["evidence"][0]["state"] == "changed"
    explain = json.loads(runner.invoke(app, ["compile", "--explain", "--json", "--kb", str(example_kb.root)]).output)
    assert explain["plan"]["changed"] == ["eniac.md"] and "sources/eniac" in explain["pages"] and "index" in explain["pages"]
    assert api.cypher(example_kb, "MATCH (c:Claim {id: $id}) RETURN c.status AS s", {"id": claim_id})[0]["s"] == "live"
    missing = runner.invoke(app, ["claim", "show", "nope", "--kb", str(example_kb.root)])
    assert missing.exit_code == 1 and "No claim" in missing.output


FAMILY_NAME_ROWS = [  # (entities of one document as (name, type), expected {lone name key: full name})
    ([("Andrej Karpathy", "person"), ("Karpathy", "concept")], {"karpathy": "Andrej Karpathy"}),
    ([("Andrej Karpathy", "person"), ("Karpathy", "person")], {"karpathy": "Andrej Karpathy"}),
    ([("John Smith", "person"), ("Jane Smith", "person"), ("Smith", "concept")], {}),  # two Smiths: ambiguous
    ([("John Smith", "person"), ("John Smith", "person"), ("Smith", "person")], {"smith": "John Smith"}),
    ([("Henry Ford", "person"), ("Ford", "organization")], {}),  # the company, not the man
    ([("Smith Street", "place"), ("Smith", "concept")], {}),  # a full name must be a person's
    ([("John von Neumann", "person"), ("von Neumann", "concept")], {"von neumann": "John von Neumann"}),
    ([("Kim Jong-un", "person"), ("RNA", "concept"), ("Alan Turing", "person")], {}),  # no lone name
    ([("Sam Altman", "person"), ("OpenAI", "organization"), ("Altman", "concept")], {"altman": "Sam Altman"}),
]


@pytest.mark.parametrize(("names", "expected"), FAMILY_NAME_ROWS)
def test_a_family_name_alone_folds_into_the_one_person_of_the_document(names, expected) -> None:
    assert lone_family_names(ExtractedEntity(name=n, type=t) for n, t in names) == expected


def test_a_family_name_in_a_later_section_joins_the_person_named_in_full(kb: KnowledgeBase) -> None:
    filler = "".join(f"## Part {i}\n\nThe build step {i} compiles the notes into pages again.\n\n" for i in range(80))
    (kb.raw / "a.md").write_text(f"# Agents\n\nAndrej Karpathy wrote about coding agents in 2025.\n\n{filler}"
                                 "## Later\n\nIn a talk, Karpathy argued that agents need better memory.\n")
    (kb.raw / "b.md").write_text(f"# Teams\n\nJohn Smith joined in 2020.\n\n{filler}## Hiring\n\nJane Smith left in "
                                 f"2021.\n\n{filler}## Notes\n\nIn March, Smith approved the budget.\n")
    api.compile_kb(kb)
    about = api.cypher(kb, "MATCH (c:Claim)-[:ABOUT {role: 'subject'}]->(e:Entity) WHERE c.text CONTAINS 'memory' "
                           "RETURN e.id AS e")
    assert about == [{"e": "andrej-karpathy"}]
    smith = api.cypher(kb, "MATCH (c:Claim)-[:ABOUT {role: 'subject'}]->(e:Entity) WHERE c.text CONTAINS 'budget' "
                           "RETURN e.id AS e")
    assert smith == [{"e": "smith"}]  # two Smiths in the document: left alone
