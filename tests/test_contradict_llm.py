"""Issue 35 item 3: with an LLM configured, the judge confirms every candidate of the claim-key
index, those about different subjects included, through a real client against the loopback fake."""

from __future__ import annotations

from typing import Any

import pytest
from fakes_llm import FakeAnthropic, heuristic_reply, is_judge_request, judge_pairs, judge_reply

from kg import api
from kg.kb import KnowledgeBase

KEY = "sk-ant-test-key"
ENERGY = "# Energy balance\n\nEnergy balance requires hypothalamic glutamate neurotransmission in mice.\n"
GLUTAMATE = """# Glutamate

Hypothalamic glutamate neurotransmission is unrelated to energy balance in mice.
Aspirin increases the risk of bleeding in adults.
"""
ASPIRIN = "# Aspirin\n\nAspirin decreases the risk of bleeding in adults.\n"


def verdict(text: str) -> str:
    """A scripted model: the energy pair contradicts; the aspirin pair (which the rules flag) does not."""
    return "contradicts" if "unrelated" in text and "requires" in text else "compatible"


def scripted(body: dict[str, Any]) -> dict[str, Any]:
    return judge_reply(body, verdict) if is_judge_request(body) else heuristic_reply(body)


def test_the_llm_judges_candidates_about_different_subjects(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    kb.config_path.write_text('[compile]\nextractor = "anthropic"\n\n[llm]\nmodel = "claude-haiku-4-5"\n'
                              "timeout_seconds = 2\nbackoff_seconds = 0.001\nmax_retries = 1\n", encoding="utf-8")
    for name, text in (("energy.md", ENERGY), ("glutamate.md", GLUTAMATE), ("aspirin.md", ASPIRIN)):
        (kb.raw / name).write_text(text, encoding="utf-8")
    with FakeAnthropic(responder=scripted) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        api.compile_kb(kb, render=False)
        asked = [text for r in server.requests if is_judge_request(r.body) for _, text in judge_pairs(r.body)
                 if "Source of A" in text]
    subjects = api.cypher(kb, "MATCH (c:Claim)-[:ABOUT {role: 'subject'}]->(e:Entity) WHERE c.text CONTAINS 'nergy balance' "
                              "RETURN e.id AS subject")
    assert len({r["subject"] for r in subjects}) == 2  # the two energy claims have different subjects
    assert any("unrelated" in t and "requires" in t for t in asked)  # a candidate from the term keys
    assert any("increases the risk" in t and "decreases the risk" in t for t in asked)  # the rules' finding, confirmed
    edges = api.cypher(kb, "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) RETURN a.text AS a, b.text AS b, r.method AS m")
    assert [(e["m"], "unrelated" in e["a"] + e["b"]) for e in edges] == [("rules+llm", True)]  # confirmed; "compatible" overrules
