"""Issue 19: flashcards, spaced repetition, gaps and exports."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import zipfile
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg import api
from kg.cli import app
from kg.errors import ConfigError, KgError
from kg.kb import KnowledgeBase
from kg.learn.reviews import Review, append_review, read_reviews, schedule

runner = CliRunner()


def _due(kb: KnowledgeBase) -> dict:
    result = runner.invoke(app, ["review", "--json", "--kb", str(kb.root)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_cards_review_and_a_rebuild_keep_the_schedule(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    made = runner.invoke(app, ["cards", "--kb", str(example_kb.root)])
    assert made.exit_code == 0, made.output
    data = _due(example_kb)
    kinds = Counter(card["kind"] for card in data["due"])
    assert data["due_count"] >= 20 and len(kinds) >= 3, kinds
    live = {r["c.id"] for r in api.cypher(example_kb, "MATCH (c:Claim) WHERE c.status = 'live' RETURN c.id")}
    assert all(card["claims"] and set(card["claims"]) <= live for card in data["due"])
    assert all(card["id"] == f"{card['id'].split(':')[0]}:{card['kind']}" for card in data["due"])
    five = [card["id"] for card in data["due"][:5]]
    rated = runner.invoke(app, ["review", "--kb", str(example_kb.root), *[a for c in five for a in ("--rate", f"{c}=good")]])
    assert rated.exit_code == 0, rated.output
    assert not set(five) & {card["id"] for card in _due(example_kb)["due"]}
    shutil.rmtree(example_kb.state)  # .kg/ is safe to delete: the review history is in learning/
    api.compile_kb(example_kb)
    after = _due(example_kb)
    assert not set(five) & {card["id"] for card in after["due"]}
    assert after["due_count"] == data["due_count"] - 5
    assert (example_kb.learning / "gaps.md").read_text().startswith("---\ntype: gaps\n")


def test_bad_ratings_are_refused_and_nothing_is_recorded(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    api.cards_kb(example_kb)
    card = api.review_due(example_kb)["due"][0]["id"]
    reviews = example_kb.learning / "reviews.jsonl"
    for args, message in ((["--rate", "nope:definitional=good"], "No card"), (["--rate", f"{card}=great"], "not a rating"),
                          (["--rate", f"{card}=good", "--at", "2999-01-01"], "future"),
                          (["--rate", f"{card}=good", "--at", "last tuesday"], "ISO 8601"),
                          (["--rate", f"{card}=good", "--at", "0001-01-01T00:00:00+01:00"], "ISO 8601"),
                          (["--rate", f"{card}=good", "--at", "0001-01-01T00:30:00Z"], "out of range"),
                          (["--rate", f"{card}=good", "--rate", "nope:x=good"], "nothing was recorded"),
                          (["--rate", "good"], "CARD_ID=RATING")):
        result = runner.invoke(app, ["review", "--kb", str(example_kb.root), *args])
        assert result.exit_code != 0 and message in result.output, (args, result.output)
        assert not reviews.exists() or reviews.read_text() == ""


def test_a_damaged_review_line_is_reported_and_skipped(tmp_path: Path) -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    append_review(tmp_path, Review("a:definitional", "good", at))
    with (tmp_path / "reviews.jsonl").open("ab") as handle:
        handle.write(b'{"card": "a:definitional", "rating": "go')  # a crash mid-write
    append_review(tmp_path, Review("a:definitional", "easy", at + timedelta(days=1)))
    reviews, problems = read_reviews(tmp_path)
    assert [r.rating for r in reviews] == ["good", "easy"]
    assert len(problems) == 1 and "line 2" in problems[0]


def test_schedule_is_a_function_of_the_history() -> None:
    at = datetime(2026, 3, 1, tzinfo=UTC)
    history = [Review("x:definitional", "good", at), Review("x:definitional", "good", at + timedelta(minutes=15))]
    first = schedule(["x:definitional", "y:relational"], history)
    assert schedule(["x:definitional", "y:relational"], list(reversed(history))) == first  # replayed by time
    assert first["x:definitional"].due > at + timedelta(days=1) and first["x:definitional"].reviews == 2
    assert first["y:relational"].state == "new" and first["y:relational"].due.year == 1970


def test_exports_are_byte_identical_and_hold_what_they_say(example_kb: KnowledgeBase, tmp_path: Path) -> None:
    api.compile_kb(example_kb)
    api.cards_kb(example_kb)
    a, b = tmp_path / "a.apkg", tmp_path / "b.apkg"
    report = api.export_anki(example_kb, a)
    api.export_anki(example_kb, b)
    assert a.read_bytes() == b.read_bytes() and report.written >= 20
    with zipfile.ZipFile(a) as archive:
        (tmp_path / "c.anki2").write_bytes(archive.read("collection.anki2"))
    with sqlite3.connect(tmp_path / "c.anki2") as db:
        notes = db.execute("SELECT flds FROM notes").fetchall()
    assert len(notes) == report.written and any("raw/eniac.md chars" in n[0] for n in notes)
    for fmt in ("openai", "bedrock"):
        one, two = tmp_path / f"{fmt}1.jsonl", tmp_path / f"{fmt}2.jsonl"
        report = api.export_finetune(example_kb, one, fmt)
        api.export_finetune(example_kb, two, fmt)
        assert one.read_bytes() == two.read_bytes() and report.written > 20
        lines = [json.loads(line) for line in one.read_text().splitlines()]
        sidecar = [json.loads(line) for line in (tmp_path / f"{fmt}1.jsonl.claims.jsonl").read_text().splitlines()]
        assert len(sidecar) == len(lines) and all(row["claims"] for row in sidecar)
        for line in lines:
            roles = [m["role"] for m in line["messages"]]
            assert roles[-2:] == ["user", "assistant"], line
            assert set(line) <= {"messages", "schemaVersion", "system"}  # no extra keys
        assert report.left_out["claim: claim contradicted (--include-contradicted keeps it)"] > 0
    alpaca = tmp_path / "alpaca.jsonl"
    api.export_finetune(example_kb, alpaca, "alpaca", min_confidence=0.8)
    assert all(set(json.loads(line)) == {"instruction", "input", "output"} for line in alpaca.read_text().splitlines())
    slides = tmp_path / "eniac.md"
    result = runner.invoke(app, ["export", "slides", "entities/eniac", str(slides), "--kb", str(example_kb.root)])
    assert result.exit_code == 0, result.output
    text = slides.read_text()
    assert text.startswith("---\nmarp: true\n") and "\n# ENIAC\n" in text and "[[sources/eniac#^" in text


def test_exports_refuse_raw_and_insights_and_bad_options(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    (example_kb.learning).mkdir(exist_ok=True)
    for path in (example_kb.raw / "deck.apkg", example_kb.insights / "x.jsonl", example_kb.learning / "reviews.jsonl",
                 example_kb.state / "x.apkg"):
        with pytest.raises(ConfigError):
            api.export_anki(example_kb, path)
        assert not path.exists()
    with pytest.raises(KgError):
        api.export_finetune(example_kb, example_kb.root / "out.jsonl", "csv")
    with pytest.raises(KgError):
        api.export_slides(example_kb, "entities/no-such-page", example_kb.root / "s.md")
    result = runner.invoke(app, ["export", "finetune", str(example_kb.raw / "x.jsonl"), "--kb", str(example_kb.root)])
    assert result.exit_code == 2 and "never written" in result.output


def test_the_interactive_session_rates_what_it_shows(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    api.cards_kb(example_kb)
    first = api.review_due(example_kb)["due"][0]
    result = runner.invoke(app, ["review", "--limit", "2", "--kb", str(example_kb.root)], input="\n3\n\nx\n1\n")
    assert result.exit_code == 0, result.output
    assert first["question"] in result.output and "not a rating" in result.output
    reviews, _ = read_reviews(example_kb.learning)
    assert [r.rating for r in reviews] == ["good", "again"] and reviews[0].card == first["id"]


def test_a_card_whose_claims_are_retracted_is_retired_and_not_due(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    api.cards_kb(example_kb)
    cards = {json.loads(line)["id"]: json.loads(line) for line in (example_kb.learning / "cards.jsonl").read_text().splitlines()}
    lone = [c for c in cards.values() if {cite.split(" ")[0] for cite in c["citations"]} == {"raw/transistor.md"}]
    assert lone
    (example_kb.raw / "transistor.md").unlink()
    api.compile_kb(example_kb)  # learning/cards.jsonl exists: the compile keeps it current
    after = {json.loads(line)["id"]: json.loads(line) for line in (example_kb.learning / "cards.jsonl").read_text().splitlines()}
    retired = [after[c["id"]] for c in lone if c["id"] in after]
    assert retired and all(c["status"] == "retired" for c in retired)
    assert not {c["id"] for c in retired} & {c["id"] for c in api.review_due(example_kb)["due"]}
    with pytest.raises(KgError, match="retired"):
        api.review_rate(example_kb, [(retired[0]["id"], "good")])


@pytest.mark.parametrize("seed", [1, 2])
def test_cards_kept_current_by_compiles_equal_cards_made_from_scratch(tmp_path: Path, seed: int) -> None:
    import random

    from kg.kb import init
    from tests.test_incremental import _corpus, _random_edit

    kb, _ = init(tmp_path / "kb")
    _corpus(kb.raw, 12)
    api.compile_kb(kb)
    api.cards_kb(kb)
    rng = random.Random(seed)
    for step in range(6):
        kind = _random_edit(kb.raw, rng, step)
        api.compile_kb(kb)
        kept = (kb.learning / "cards.jsonl").read_text()
        api.cards_kb(kb)
        assert (kb.learning / "cards.jsonl").read_text() == kept, (step, kind)


def _card_reply(body: dict) -> dict:
    """A model that writes one card of each kind it can, citing the first claim it was given."""
    from fakes_llm import user_text

    text = user_text(body)
    ids = re.findall(r"^- \[(c[0-9a-f]+)\]", text, re.M)
    name = re.search(r"^Entity: (.*) \(", text, re.M)
    entity = name.group(1) if name else "it"
    return {"cards": [{"kind": "definitional", "question": f"What, in one line, is {entity}?",
                       "answer": f"{entity} is what claim {ids[0]} says.", "claim_ids": ids[:1]},
                      {"kind": "applied", "question": f"When would you need to know about {entity}?",
                       "answer": f"When studying early computers: {entity}.", "claim_ids": ids[:2]}]}


def test_an_llm_writes_better_questions_and_the_applied_kind_cached(example_kb: KnowledgeBase,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from fakes_llm import FakeAnthropic

    api.compile_kb(example_kb)  # offline: the graph
    example_kb.config_path.write_text('[compile]\nextractor = "anthropic"\n\n[llm]\ntimeout_seconds = 2\n'
                                      'backoff_seconds = 0.001\nmax_retries = 1\njudges = false\n', encoding="utf-8")
    with FakeAnthropic(_card_reply) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        result = api.cards_kb(example_kb)
        first = len(server.calls("/v1/messages"))
        assert result["by_kind"].get("applied", 0) > 5 and first > 5 and result["llm_failures"] == 0
        cards = [json.loads(line) for line in (example_kb.learning / "cards.jsonl").read_text().splitlines()]
        applied = [c for c in cards if c["kind"] == "applied"]
        assert all(c["made_by"].startswith("cards_v1-") and c["claims"] for c in applied)
        assert any(c["made_by"] == "template" for c in cards)  # entities with one claim keep template cards
        api.cards_kb(example_kb)
        assert len(server.calls("/v1/messages")) == first  # every reply came from the cache
    offline = runner.invoke(app, ["cards", "--offline", "--kb", str(example_kb.root), "--json"])
    assert offline.exit_code == 0 and json.loads(offline.stdout)["by_kind"].get("applied", 0) == 0
