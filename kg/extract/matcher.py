"""One token matcher for the offline extractor's rules (issue 46), after spaCy's Matcher, without its
200 MB: a rule is data in kg/extract/data/token_rules.toml, a pattern over words (a name's or a
sentence's, split on white space), with the examples it must match and the counterexamples it must
not (tests/test_token_rules.py).

A token spec holds when all its keys do: `text` (the word is one of these; "@list" a words.toml
list's words), `lower` / `not_lower` (its lower case is / is not), `in` / `not_in` (its lower case is / is not in a words.toml list, or in any of several),
`regex` (the word matches it whole; templates as in patterns.toml: {{list}}), `capital` (its first letter is upper case), `upper` (it is all
capitals), `tail_lower` (what follows its first letter is lower case), `digit`, `verb` (an auxiliary or a common verb's form),
`is` / `not_is` (what a named word test says of it, one of WORD_TESTS, or of several: any holds / none does),
`when` (the caller said this of
where the words stand: "opens", "participle"; "!after_comma" it did not say), `any` / `all` (specs of which one / every one holds).
`strip` takes the characters it names off the word's ends before `text`, `lower`, `in`, `not_in`, `is`, `not_is`,
`regex` and `digit`. `op`: "?" at most once, "+" once or more, "*" any number of times, "!" one word the spec
does not hold for. A rule's `anchor` ("start", "end", "whole") pins its match, its `length` ([least, most]) says how
many words it reads at all; its `patterns` are
alternatives, tried in order; `unless` patterns, matched at the same anchor, veto it; `name_is` /
`name_not_is` a word test (or several) that the words joined as one name (`name_strip` taking the
characters it names off each word's ends) must pass / fail.
"""

from __future__ import annotations

import functools
import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from kg.extract import gazetteer
from kg.extract import patterns as P
from kg.extract import vocab as V

RULES = Path(__file__).parent / "data" / "token_rules.toml"


def is_verb(word: str) -> bool:
    """A verb (an auxiliary, or a form of a common verb), or a word that ends a noun phrase as one does."""
    w = word.lower().strip(".,;:")
    return w in V.AUXILIARIES or w in V.ENDS_A_PHRASE or common_verb(w)


def common_verb(w: str) -> bool:
    """A form of a common verb, in lower case ("sign", "signs", "signed", "signing", "carries")."""
    return any(w.endswith(suffix) and w[: len(w) - len(suffix)] in V.COMMON_VERBS for suffix in ("", "s", "es", "ed", "d", "ing")) \
        or (w.endswith("ies") and w[:-3] + "y" in V.COMMON_VERBS)


def title_case(word: str) -> bool:
    """Written as a proper name is: a capital, then lower case ("Łódź", "Baden-Württemberg",
    "O'Brien"), not "HeLa", "CpG" or "IgE"."""
    parts = [p for p in re.split(r"[-'’]", word) if p]
    return word[:1].isupper() and bool(parts) and all(p.isalpha() and (len(p) == 1 or p[1:].islower()) for p in parts)


# What the lexicon (kg/extract/gazetteer.py) or a pattern says of a word: a token spec's `is`.
WORD_TESTS: dict[str, Callable[[str], bool]] = {
    "past_tense": lambda w: gazetteer.past_tense(w.lower()),  # "invaded", "stopped": of a verb WordNet lists
    "base_verb": lambda w: gazetteer.verb(w.lower()),  # "use", "monitor": a verb's base form WordNet lists
    "given_name": lambda w: w.lower() in gazetteer.first_names(),  # "walker", "rob"
    "identifier": P.identifier,  # "asyncio", "pkg-config": a word that may name software
    "title_case": title_case,  # "Leeds", "O'Brien" (not "HeLa")
    "city": gazetteer.is_city,  # a city of 15,000 people or more (GeoNames)
    "demonym": gazetteer.is_demonym,  # what a people is called ("Zambian", "Americans")
    "place": gazetteer.is_place,  # a country, subdivision, capital, continent, US state or county
    "common_word": gazetteer.common_word,  # a word WordNet lists in lower case, or its plural
    "faker_word": lambda w: w.lower() in gazetteer.english_words(),  # a word of Faker's English word list
    "chinese_family_name": lambda w: w.lower() in gazetteer.chinese_family_names(),  # "zhu", "liang"
}


def _words(names: str | list[str]) -> frozenset[str]:
    return frozenset().union(*(getattr(V, n.upper()) for n in ([names] if isinstance(names, str) else names)))


def _word_test(spec: dict[str, Any]) -> Callable[[str], bool]:
    """What a token spec says of a word, `when` aside."""
    strip = spec.get("strip")
    norm: Callable[[str], str] = (lambda w: w.lower().strip(strip)) if strip else str.lower
    bare: Callable[[str], str] = (lambda w: w.strip(strip)) if strip else str
    tests = [_key_test(key, value, norm, bare) for key, value in spec.items() if key not in ("op", "strip")]
    if len(tests) == 1:
        return tests[0]
    return lambda w: all(t(w) for t in tests)


def _key_test(key: str, value: Any, norm: Callable[[str], str], bare: Callable[[str], str]) -> Callable[[str], bool]:
    if key in ("text", "lower", "not_lower"):
        values = [value] if isinstance(value, str) else value
        wanted = frozenset(w for v in values for w in (_words(v[1:]) if v.startswith("@") else [v]))
        form, inside = bare if key == "text" else norm, key != "not_lower"
        return lambda w: (form(w) in wanted) == inside
    if key in ("in", "not_in"):
        listed = _words(value)
        if norm is str.lower:
            return (lambda w: w.lower() in listed) if key == "in" else (lambda w: w.lower() not in listed)
        return (lambda w: norm(w) in listed) if key == "in" else (lambda w: norm(w) not in listed)
    if key in ("is", "not_is"):
        named = [WORD_TESTS[n] for n in ([value] if isinstance(value, str) else value)]
        return lambda w: any(t(bare(w)) for t in named) == (key == "is")
    if key == "regex":
        compiled = re.compile(P.fill(value))  # {{upper}}, {{lower}}: any Latin letter of that case
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


class Rule:
    """A rule compiled to a regular expression over its words' codes: each word is one character whose
    bits say which of the rule's token specs it passes (remembered per word), so that Python's regex
    engine does the matching, backtracking and all, as fast as the hand-written code it replaced."""

    def __init__(self, name: str, spec: dict[str, Any]) -> None:
        self.name, self.spec = name, spec
        self.alternatives = spec["patterns"] if "patterns" in spec else [spec["pattern"]]
        self.unless = spec.get("unless", [])
        keys = dict.fromkeys(_key(token) for pattern in self.alternatives + self.unless for token in pattern)
        self.bits = {key: bit for bit, key in enumerate(k for k in keys if k != "{}")}
        if len(self.bits) > 12:
            raise ValueError(f"token rule {name!r} has more than 12 distinct token specs: split it in two")
        tests = [(1 << bit, _shared_test(key)) for key, bit in self.bits.items()]
        self.code_of = _Memo(lambda w: chr(_BASE + sum([power for power, test in tests if test(w)]))).__getitem__
        self.low, self.high = spec.get("length", (0, 1 << 30))
        if spec.get("anchor") == "whole":  # a whole match reads as many words as its tokens allow
            self.low = max(self.low, min(sum(t.get("op") not in ("?", "*") for t in p) for p in self.alternatives))
            if not any(t.get("op") in ("+", "*") for p in self.alternatives for t in p):
                self.high = min(self.high, max(map(len, self.alternatives)))
        # what a named word test says of all the words as one name ("San Francisco": a city)
        self.name_tests = [(WORD_TESTS[test], key == "name_is") for key in ("name_is", "name_not_is")
                           for test in ([spec[key]] if isinstance(spec.get(key), str) else spec.get(key, []))]
        self.name_strip = spec.get("name_strip")
        # a rule held at one end that reads a bounded number of words needs the codes of those alone
        lengths = [None if any(t.get("op") in ("+", "*") for t in p) else len(p) for p in self.alternatives + self.unless]
        anchor = spec.get("anchor", "")
        self.window = max(lengths) if anchor in ("start", "end") and None not in lengths else 0  # type: ignore[type-var]
        # per alternative, the word tests of the literal tokens it wants (text, lower, regex): a rule none
        # of whose alternatives finds each of its literals among the words is not run (most join pairs,
        # whose gap is no "| and |"), and the codes of their words are never computed
        gates = [[_shared_test(_key(t)) for t in p if t.get("op", "") in ("", "+") and "when" not in t
                  and set(t) - {"op", "strip"} and set(t) - {"op", "strip"} <= {"text", "lower", "regex"}]
                 for p in self.alternatives]
        self.gates = gates if all(gates) else []
        self.compiled: dict[frozenset[str], tuple[Callable[[str], re.Match[str] | None], Callable[[str], re.Match[str] | None] | None]] = {}

    def find(self, words: list[str], said: frozenset[str] = frozenset()) -> tuple[int, int] | None:
        """The first match (start, end) of the rule in `words`, or None."""
        if not self.low <= len(words) <= self.high:
            return None
        if self.gates and not any(all(any(map(test, words)) for test in gate) for gate in self.gates):
            return None
        compiled = self.compiled.get(said) or self._compile(said)
        shift = len(words) - self.window if self.window and self.spec["anchor"] == "end" and len(words) > self.window else 0
        codes = "".join(map(self.code_of, words[shift : shift + self.window] if self.window else words))
        found = compiled[0](codes)
        if found is None or (compiled[1] is not None and compiled[1](codes)):
            return None
        if self.name_tests:
            name = " ".join(w.strip(self.name_strip) for w in words) if self.name_strip else " ".join(words)
            if any(test(name) != wanted for test, wanted in self.name_tests):
                return None
        return shift + found.start(), shift + found.end()

    def __call__(self, words: list[str], said: frozenset[str] = frozenset()) -> bool:
        return self.find(words, said) is not None

    def _compile(self, said: frozenset[str]) -> tuple[Callable[[str], re.Match[str] | None], Callable[[str], re.Match[str] | None] | None]:
        anchor = self.spec.get("anchor", "")
        how = "fullmatch" if anchor == "whole" else "match" if anchor == "start" else "search"
        self.compiled[said] = (getattr(self._regex(self.alternatives, said), how),
                               getattr(self._regex(self.unless, said), how) if self.unless else None)
        return self.compiled[said]

    def _regex(self, patterns: list[list[dict[str, Any]]], said: frozenset[str]) -> re.Pattern[str]:
        def token(spec: dict[str, Any]) -> str:
            when, op = spec.get("when"), spec.get("op", "")
            if when is not None and (when[1:] in said if when.startswith("!") else when not in said):
                return "(?!)"
            codes = _codes(len(self.bits), self.bits.get(_key(spec)))
            return ("[^" if op == "!" else "[") + codes + "]" + ("" if op == "!" else op)

        alternatives = "|".join("".join(token(t) for t in pattern) for pattern in patterns)
        return re.compile(f"(?:{alternatives})" + (r"\Z" if self.spec.get("anchor") == "end" else ""))


T = TypeVar("T")
_BASE = 0xE000  # a word's code: a character of Unicode's private use area


def _codes(bits: int, bit: int | None) -> str:
    """A character class's body: the codes of `bits` bits that have `bit` set (every code when None),
    as ranges (a rule of 9 specs compiled 4x slower from its 256 codes a class written one by one)."""
    if bit is None:
        return f"{chr(_BASE)}-{chr(_BASE + (1 << bits) - 1)}"
    run = 1 << bit  # the codes with the bit set come in runs of this many
    return "".join(chr(_BASE + low) + (f"-{chr(_BASE + low + run - 1)}" if run > 1 else "")
                   for low in range(run, 1 << bits, 2 * run))


class _Memo(dict[str, T]):
    """A function's answer for each word, remembered: a lookup that hits runs no Python at all (a
    word's code; a token spec's answer, shared by every rule that has the spec)."""

    def __init__(self, answer: Callable[[str], T]) -> None:
        super().__init__()
        self.answer = answer

    def __missing__(self, word: str) -> T:
        if len(self) >= 200_000:
            self.clear()  # a long-lived server reads ever more words: memory stays bounded
        found = self[word] = self.answer(word)
        return found


@functools.cache
def _shared_test(key: str) -> Callable[[str], bool]:
    return _Memo(_word_test(json.loads(key))).__getitem__


def _key(spec: dict[str, Any]) -> str:
    """What a token spec tests of a word alone (not where the words stand, nor how often)."""
    return json.dumps({k: v for k, v in spec.items() if k not in ("op", "when")}, sort_keys=True)


@functools.cache
def specs() -> dict[str, dict[str, Any]]:
    return tomllib.loads(RULES.read_text(encoding="utf-8"))


@functools.cache
def rule(name: str) -> Rule:
    return Rule(name, specs()[name])
