"""kg/extract/data/words.toml, the offline extractor's word lists, as kg/extract/vocab.py reads them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from kg.extract import vocab as V

KG = Path(V.__file__).resolve().parent.parent
DERIVED_ONLY = {"kinds", "kind_nouns", "kind_heads", "kind_heads_not", "units"}  # read through vocab.words()


def test_every_list_is_read_by_the_code_a_pattern_or_another_list() -> None:
    data = tomllib.loads(V.WORDS.read_text(encoding="utf-8"))
    code = "\n".join(p.read_text(encoding="utf-8") for p in KG.rglob("*.py"))
    included = set(re.findall(r"@(\w+)", V.WORDS.read_text(encoding="utf-8")))
    for templated in ("patterns.toml", "token_rules.toml"):  # {{list}} in a regex
        included |= set(re.findall(r"\{\{(\w+)", (V.WORDS.parent / templated).read_text(encoding="utf-8")))
    included |= _token_rule_lists(tomllib.loads((V.WORDS.parent / "token_rules.toml").read_text(encoding="utf-8")))
    unread = [key for key in data if key not in DERIVED_ONLY and key not in included
              and not re.search(rf"\b{key.upper()}\b", code)]
    assert unread == []


def _token_rule_lists(spec: object) -> set[str]:
    """The words.toml lists token rules name: `in`, `not_in`, and "@list" in `text` or `lower`."""
    if isinstance(spec, list):
        return set().union(*map(_token_rule_lists, spec)) if spec else set()
    if not isinstance(spec, dict):
        return set()
    found: set[str] = set()
    for key, value in spec.items():
        if key in ("in", "not_in"):
            found |= {value} if isinstance(value, str) else set(value)
        elif key in ("text", "lower"):
            found |= {v[1:] for v in ([value] if isinstance(value, str) else value) if v.startswith("@")}
        else:
            found |= _token_rule_lists(value)
    return found


def test_includes_and_removals_compose_in_order() -> None:
    lists = {"a": "x y z", "b": ["@a", "-y", "w", "-"], "c": "@b -x"}
    assert V.expand(lists, "b") == ["x", "z", "w", "-"]  # a lone "-" is a word (the hyphen)
    assert V.expand(lists, "c") == ["z", "w", "-"]


def test_lists_are_frozensets_tuples_where_order_matters_and_tables_dicts() -> None:
    assert "the" in V.STOP_CAPS and isinstance(V.STOP_CAPS, frozenset)
    assert V.HEDGES[0] == "arguably" and isinstance(V.CAUSAL_MARKERS, tuple)
    assert "about" not in V.STRONG_HEDGES and "about" in V.SOFT_HEDGES
    assert V.MONTHS["march"] == 3 and list(V.MONTHS)[:2] == ["january", "february"]
    assert V.UNIT_LOOKUP["kilometres"] == "km" and V.MULTIPLIERS["million"] == 1e6
    assert V.KIND_NOUNS["radio station"] == "organization" and "channel" not in V.KIND_NOUNS
    assert V.KIND_HEADS["cemetery"] == "place" and "moon" not in V.KIND_HEADS
    assert V.DESCRIPTIONS["machine"] == "" and V.DESCRIPTIONS["band"] == "organization"
    assert "emperor" in V.NAME_TITLES and "general" not in V.NAME_TITLES  # "@titles -general ... emperor"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = V.NO_SUCH_LIST
