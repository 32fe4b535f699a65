"""kg/extract/data/patterns.toml: every pattern matches its examples and none of its counterexamples."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kg.extract import patterns as P

KG = Path(P.__file__).resolve().parent.parent


@pytest.mark.parametrize("name", sorted(P.specs()))
def test_a_pattern_matches_its_examples_and_no_counterexample(name: str) -> None:
    spec, compiled = P.specs()[name], P.pattern(name)
    match = compiled.fullmatch if spec.get("full") else compiled.match if spec.get("start") else compiled.search
    assert spec["examples"] and spec["counterexamples"], "each pattern shows what it must and must not match"
    assert [e for e in spec["examples"] if not match(e)] == []
    assert [c for c in spec["counterexamples"] if match(c)] == []


def test_every_pattern_is_used_by_the_code_or_another_pattern() -> None:
    code = "\n".join(p.read_text(encoding="utf-8") for p in KG.rglob("*.py"))
    inside = {name for spec in P.specs().values() for name in re.findall(r"\{\{@(\w+)\}\}", spec["regex"])}
    inside |= set(re.findall(r"\{\{@(\w+)\}\}", (KG / "extract" / "data" / "token_rules.toml").read_text(encoding="utf-8")))
    assert [name for name in P.specs() if name not in inside and f'pattern("{name}")' not in code] == []


def test_each_pattern_is_tested_the_way_the_code_applies_it() -> None:
    # `start` patterns are checked with .match, `full` ones with .fullmatch, the others with .search:
    # a pattern the code applies otherwise would have examples that pass here and fail there
    allowed = {"full": {"fullmatch"}, "start": {"match"}, "search": {"search", "finditer", "findall", "split", "sub"}}
    wrong = []
    for path in sorted(KG.rglob("*.py")):
        code = path.read_text(encoding="utf-8")
        uses = [(name, set(re.findall(rf"\b{var}\.(\w+)\(", code)))
                for var, name in re.findall(r'^(\w+) = P\.pattern\("(\w+)"\)', code, re.M)]
        uses += [(name, {used}) for name, used in re.findall(r'\bP\.pattern\("(\w+)"\)\.(\w+)\(', code)]
        for name, used in uses:  # by a module's name for it, or inline
            spec = P.specs()[name]
            mode = "full" if spec.get("full") else "start" if spec.get("start") else "search"
            ok = allowed[mode] | ({"match"} if mode == "full" and spec["regex"].endswith("$") else set())
            wrong += [(name, mode, method) for method in used - ok]
    assert wrong == []
