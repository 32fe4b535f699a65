"""One token matcher for the offline extractor's rules (issue 46), after spaCy's Matcher, without its
200 MB: a rule is data in kg/extract/data/token_rules.toml, a pattern over words (a name's or a
sentence's, split on white space), with the examples it must match and the counterexamples it must
not (tests/test_token_rules.py).

A token spec holds when all its keys do: `text` (the word is one of these; "@list" a words.toml
list's words), `lower` / `not_lower` (its lower case is / is not), `in` / `not_in` (its lower case is / is not in a words.toml list, or in any of several),
`regex` (the word matches it whole), `capital` (its first letter is upper case), `upper` (it is all
capitals), `tail_lower` (what follows its first letter is lower case), `digit`, `verb` (an auxiliary or a common verb's form), `when` (the caller said this of
where the words stand: "opens", "participle"; "!after_comma" it did not say), `any` / `all` (specs of which one / every one holds).
`strip` takes the characters it names off the word's ends before `text`, `lower`, `in`, `not_in`,
`regex` and `digit`. `op`: "?" at most once, "+" once or more, "*" any number of times, "!" one word the spec
does not hold for. A rule's `anchor` ("start", "end", "whole") pins its match, its `length` ([least, most]) says how
many words it reads at all; its `patterns` are
alternatives, tried in order; `unless` patterns, matched at the same anchor, veto it.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.extract import vocab as V

RULES = Path(__file__).parent / "data" / "token_rules.toml"


def is_verb(word: str) -> bool:
    """A verb (an auxiliary, or a form of a common verb), or a word that ends a noun phrase as one does."""
    w = word.lower().strip(".,;:")
    if w in V.AUXILIARIES or w in V.ENDS_A_PHRASE or w in V.COMMON_VERBS:
        return True
    if any(w.endswith(suffix) and w[: -len(suffix)] in V.COMMON_VERBS for suffix in ("s", "es", "ed", "d", "ing")):
        return True
    return w.endswith("ies") and w[:-3] + "y" in V.COMMON_VERBS


def _words(names: str | list[str]) -> frozenset[str]:
    return frozenset().union(*(getattr(V, n.upper()) for n in ([names] if isinstance(names, str) else names)))


class _Memo(dict[str, bool]):
    """What a word test says of each word, remembered: names and sentences repeat their words, and a
    lookup that hits runs no Python at all."""

    def __init__(self, test: Callable[[str], bool]) -> None:
        super().__init__()
        self.test = test

    def __missing__(self, word: str) -> bool:
        found = self[word] = self.test(word)
        return found


def _word_test(spec: dict[str, Any]) -> Callable[[str], bool]:
    """What a token spec says of a word, `when` aside."""
    strip = spec.get("strip")
    norm: Callable[[str], str] = (lambda w: w.lower().strip(strip)) if strip else str.lower
    bare: Callable[[str], str] = (lambda w: w.strip(strip)) if strip else str
    tests = [_key_test(key, value, norm, bare) for key, value in spec.items() if key not in ("op", "strip", "when")]
    return lambda w: all(t(w) for t in tests)


def _key_test(key: str, value: Any, norm: Callable[[str], str], bare: Callable[[str], str]) -> Callable[[str], bool]:
    if key in ("text", "lower", "not_lower"):
        values = [value] if isinstance(value, str) else value
        wanted = frozenset(w for v in values for w in (_words(v[1:]) if v.startswith("@") else [v]))
        form, inside = bare if key == "text" else norm, key != "not_lower"
        return lambda w: (form(w) in wanted) == inside
    if key in ("in", "not_in"):
        listed, inside = _words(value), key == "in"
        return lambda w: (norm(w) in listed) == inside
    if key == "regex":
        compiled = re.compile(value)
        return lambda w: compiled.fullmatch(bare(w)) is not None
    if key in ("capital", "upper", "tail_lower", "digit", "verb"):
        test: Callable[[str], bool] = {"capital": lambda w: w[:1].isupper(), "upper": str.isupper,
                                       "tail_lower": lambda w: w[1:].islower(),
                                       "digit": lambda w: norm(w).isdigit(), "verb": is_verb}[key]
        return lambda w: test(w) == value
    if key in ("any", "all"):
        parts = [_word_test(s) for s in value]
        return (lambda w: all(t(w) for t in parts)) if key == "all" else (lambda w: any(t(w) for t in parts))
    raise ValueError(f"token spec key {key!r} unknown: use one of those kg/extract/matcher.py names")


Token = tuple[Callable[[str], bool], str | None, str]  # (word test, `when`, op)


def _token(spec: dict[str, Any]) -> Token:
    return _Memo(_word_test(spec)).__getitem__, spec.get("when"), spec.get("op", "")


def _end(pattern: list[Token], words: list[str], at: int, said: Collection[str], to_end: bool) -> int | None:
    """Where the first match of `pattern` from `at` ends, longest first (as a greedy regex); with
    `to_end`, only a match that ends with the words."""
    if not pattern:
        return at if not to_end or at == len(words) else None
    (test, when, op), rest = pattern[0], pattern[1:]
    if when is not None and (when[1:] in said if when.startswith("!") else when not in said):
        return None
    if not op or op == "!":  # one word
        return _end(rest, words, at + 1, said, to_end) if at < len(words) and test(words[at]) != (op == "!") else None
    run = at
    most = len(words) if op in ("+", "*") else min(len(words), at + 1)
    while run < most and test(words[run]):
        run += 1
    for end in range(run, (at if op in ("?", "*") else at + 1) - 1, -1):
        found = _end(rest, words, end, said, to_end)
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class Rule:
    name: str
    anchor: str
    patterns: list[list[Token]]
    unless: list[list[Token]]
    spec: dict[str, Any]

    def find(self, words: list[str], said: Collection[str] = ()) -> tuple[int, int] | None:
        """The first match (start, end) of the rule in `words`, or None."""
        low, high = self.spec.get("length", (0, len(words)))
        if not low <= len(words) <= high:
            return None
        found = self._first(self.patterns, words, said)
        return found if found is None or not self.unless or self._first(self.unless, words, said) is None else None

    def __call__(self, words: list[str], said: Collection[str] = ()) -> bool:
        return self.find(words, said) is not None

    def _first(self, patterns: list[list[Token]], words: list[str], said: Collection[str]) -> tuple[int, int] | None:
        to_end = self.anchor in ("end", "whole")
        for start in ((0,) if self.anchor in ("start", "whole") else range(len(words) + 1)):
            for pattern in patterns:
                test, _, op = pattern[0]
                if op in ("", "+") and (start == len(words) or not test(words[start])):
                    continue  # the first word is wanted and does not fit: no need to try further
                end = _end(pattern, words, start, said, to_end)
                if end is not None:
                    return start, end
        return None


@functools.cache
def specs() -> dict[str, dict[str, Any]]:
    return tomllib.loads(RULES.read_text(encoding="utf-8"))


@functools.cache
def rule(name: str) -> Rule:
    spec = specs()[name]

    def compiled(patterns: list[list[dict[str, Any]]]) -> list[list[Token]]:
        return [[_token(token) for token in pattern] for pattern in patterns]

    patterns = spec["patterns"] if "patterns" in spec else [spec["pattern"]]
    return Rule(name, spec.get("anchor", ""), compiled(patterns), compiled(spec.get("unless", [])), spec)
