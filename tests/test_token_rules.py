"""kg/extract/data/token_rules.toml: every token rule matches its examples and none of its
counterexamples; the matcher's operators behave as a regex's do."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kg.extract import matcher as M

KG = Path(M.__file__).resolve().parent.parent


def _said(example: str) -> tuple[list[str], frozenset[str]]:
    """An example's words (a join rule's gap, in bars, one token), and what "[opens]" /
    "[participle]" before them says of where they stand."""
    flags = re.match(r"\[(\w+)\]\s*", example)
    text = example[flags.end():] if flags else example
    gap = re.search(r" (\|[^|]*\|) ", text)
    words = [*text[: gap.start()].split(), gap.group(1), *text[gap.end():].split()] if gap else text.split()
    return words, frozenset({flags.group(1)} if flags else ())


@pytest.mark.parametrize("name", sorted(M.specs()))
def test_a_rule_matches_its_examples_and_no_counterexample(name: str) -> None:
    spec, rule = M.specs()[name], M.rule(name)
    assert spec["examples"] and spec["counterexamples"], "each rule shows what it must and must not match"
    assert [e for e in spec["examples"] if not rule(*_said(e))] == []
    assert [c for c in spec["counterexamples"] if rule(*_said(c))] == []


def test_every_rule_is_run_by_a_phase_or_named_by_the_code() -> None:
    code = "\n".join(p.read_text(encoding="utf-8") for p in KG.rglob("*.py"))
    assert [n for n, spec in M.specs().items() if "phase" not in spec and f'rule("{n}")' not in code] == []


@pytest.mark.parametrize(("pattern", "words", "found"), [
    ([{"lower": "a"}, {"lower": "b", "op": "+"}], "x a b b c", (1, 4)),
    ([{"lower": "a"}, {"lower": "b", "op": "*"}, {"lower": "b"}], "a b b", (0, 3)),
    ([{"lower": "a"}, {"lower": "b", "op": "?"}, {"lower": "c"}], "a c", (0, 2)),
    ([{"lower": "a"}, {"lower": "b", "op": "!"}], "a b a c", (2, 4)),
    ([{"capital": True, "not_in": "stop_caps"}], "The Beatles", (1, 2)),
    ([{"is": "past_tense"}, {"not_is": ["past_tense", "given_name"]}], "Rome invaded stopped Gaul", (2, 4)),
])
def test_operators(pattern: list[dict], words: str, found: tuple[int, int]) -> None:
    rule = M.Rule("t", {"pattern": pattern})
    assert rule.find(words.split()) == found


def test_an_unknown_key_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown"):
        M.Rule("t", {"pattern": [{"lemma": "be"}]})


def test_when_is_said_of_a_whole_token_not_inside_any_or_all() -> None:
    with pytest.raises(ValueError, match="unknown"):
        M.Rule("t", {"pattern": [{"any": [{"when": "opens"}, {"capital": True}]}]})


def test_a_name_test_reads_the_words_joined_as_one_name() -> None:
    # "San Francisco" is a city as a whole, neither of its words is; name_strip takes stops off each word
    city = M.Rule("t", {"anchor": "whole", "name_is": "city", "pattern": [{}, {"op": "+"}]})
    assert city("San Francisco".split()) and not city("San Franciscos".split())
    words = M.Rule("t", {"anchor": "whole", "name_not_is": "common_word", "name_strip": ".", "pattern": [{}, {}]})
    assert words("Zhu Rongji".split()) and not words("Feng. Shui".split())


def test_a_whole_rule_reads_only_as_many_words_as_its_tokens_allow() -> None:
    rule = M.Rule("t", {"anchor": "whole", "patterns": [[{"capital": True}], [{}, {"op": "?"}, {}]]})
    assert (rule.low, rule.high) == (1, 3)
    assert rule("Leeds".split()) and rule("a b c".split()) and not rule("a b c d".split())
    assert M.Rule("t", {"anchor": "whole", "pattern": [{}, {"op": "+"}]}).high == 1 << 30
