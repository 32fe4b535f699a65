from __future__ import annotations

import shutil

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg import api
from kg.kb import KnowledgeBase, init
from tests.conftest import is_log, tree_digest


def test_examples_compile_into_a_useful_wiki(example_kb: KnowledgeBase) -> None:
    raw_before = tree_digest(example_kb.raw)
    report, rendered = api.compile_kb(example_kb)
    assert report.compiled == 14 and not report.failed and report.unverified == 0
    assert rendered is not None
    wiki = example_kb.wiki
    for page in ("index.md", "log.md", "contradictions.md", "entities/eniac.md", "sources/eniac.md", "entities/john-von-neumann.md"):
        assert (wiki / page).is_file(), page
    eniac = (wiki / "entities/eniac.md").read_text()
    assert eniac.startswith("---\ntype: entity\n")
    assert "17,468 vacuum tubes" in eniac and "[[sources/eniac#^" in eniac
    assert "## Backlinks" in eniac and "[[sources/colossus|Colossus]]" in eniac
    assert "Electronic Numerical Integrator and Computer" in eniac  # alias from the acronym definition
    index = (wiki / "index.md").read_text()
    assert "[[entities/eniac|ENIAC]]" in index and "[[indexes/sources|" in index
    assert "[[sources/lecture-transcript|" in (wiki / "indexes/sources.md").read_text()
    log = (wiki / "log.md").read_text()
    assert log.count("] ingest | ") == 14
    assert tree_digest(example_kb.raw) == raw_before
    # template syntax in a source is shown, not executed
    assert "{{ accumulator }}" in (wiki / "sources/instruction-pipelining.md").read_text()


def test_render_is_byte_identical_and_restores_a_deleted_wiki(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    first = tree_digest(example_kb.wiki)
    shutil.rmtree(example_kb.wiki)
    api.render_kb(example_kb)
    assert tree_digest(example_kb.wiki) == first
    api.render_kb(example_kb)
    assert tree_digest(example_kb.wiki) == first


def test_recompile_with_nothing_changed_does_nothing(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    before = tree_digest(example_kb.wiki)
    report, rendered = api.compile_kb(example_kb)
    assert not report.changed_anything and rendered is None
    assert tree_digest(example_kb.wiki) == before


def test_changed_and_deleted_sources_retract_claims(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    (example_kb.raw / "eniac.md").write_text("# ENIAC\n\nENIAC weighed 30 tons.\n")
    (example_kb.raw / "colossus.md").unlink()
    report, _ = api.compile_kb(example_kb)
    assert report.plan.changed == ["eniac.md"] and report.plan.vanished == ["colossus.md"]
    rows = api.cypher(example_kb, "MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source {path: 'eniac.md'}) "
                      "WHERE x.retracted_at = '' RETURN c.text AS text")
    assert [r["text"] for r in rows] == ["ENIAC weighed 30 tons."]
    retracted = api.cypher(example_kb, "MATCH (c:Claim) WHERE c.status = 'retracted' RETURN count(c) AS n")[0]["n"]
    assert retracted > 10
    assert api.cypher(example_kb, "MATCH (s:Source {path: 'colossus.md'}) RETURN s.status AS s")[0]["s"] == "removed"
    assert "] remove | colossus.md" in (example_kb.wiki / "log.md").read_text()


def test_bad_files_fail_alone_and_nothing_in_raw_or_insights_changes(kb: KnowledgeBase) -> None:
    (kb.raw / "good.md").write_text("# Good\n\nAlan Turing worked at Bletchley Park.\n")
    (kb.raw / "empty.md").write_text("")
    (kb.raw / "binary.md").write_bytes(b"\x00\x01\x02binary")
    (kb.raw / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (kb.raw / "big.md").write_text("x " * 3_000_000)
    (kb.raw / "CON.md").write_text("# [[x|y]] ---: {{ jinja }} {% if %}\n\nThe title: \"quoted\" breaks YAML.\n")
    (kb.raw / "con.txt").write_text("Differs from CON.md only in case and suffix. Alan Turing was here.\n")
    (kb.insights / "mine.md").write_text("my own [[Alan Turing]] note")
    before = tree_digest(kb.raw), tree_digest(kb.insights)
    report, rendered = api.compile_kb(kb)
    assert set(report.failed) == {"empty.md", "binary.md", "latin1.txt", "big.md"}
    assert "max_source_bytes" in report.failed["big.md"] and "UTF-8" in report.failed["latin1.txt"]
    assert report.compiled == 3 and rendered is not None
    assert (tree_digest(kb.raw), tree_digest(kb.insights)) == before
    pages = sorted(p.name for p in (kb.wiki / "sources").iterdir())
    assert len(pages) == 7 and len(set(p.lower() for p in pages)) == 7
    con = next(p for p in (kb.wiki / "sources").iterdir() if 'path: "CON.md"' in p.read_text())
    assert con.name.startswith("x-con")
    front = con.read_text().split("\n---\n")[0]
    assert 'title: "[[x|y]] ---: {{ jinja }} {% if %}"' in front
    status = api.status(kb)
    assert set(status.failed) == {"empty.md", "binary.md", "latin1.txt", "big.md"}


note_text = st.lists(
    st.sampled_from([
        "Alan Turing worked at Bletchley Park.", "ENIAC weighed 27 tonnes.", "The transistor is a device.",
        "Colossus was not the first computer.", "Grace Hopper wrote COBOL in 1959.", "It was probably faster than ENIAC.",
        "**Bold term** is a thing.", "See [[Alan Turing]].", "| A | B |\n|---|---|\n| ENIAC | 5 kW |",
    ]), min_size=1, max_size=6,
).map(" ".join)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(note_text, min_size=1, max_size=4))
def test_render_is_deterministic_for_any_small_corpus(tmp_path_factory, notes: list[str]) -> None:
    digests = []
    for attempt in range(2):
        kb, _ = init(tmp_path_factory.mktemp(f"kb{attempt}"))
        for i, text in enumerate(notes):
            (kb.raw / f"n{i}.md").write_text(f"# Note {i}\n\n{text}\n")
        api.compile_kb(kb)
        api.render_kb(kb)
        digests.append({k: v for k, v in tree_digest(kb.wiki).items() if not is_log(k)})
    assert digests[0] == digests[1]
