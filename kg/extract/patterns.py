"""The offline extractor's regular expressions, kept as data in kg/extract/data/patterns.toml with
the examples each must match and the counterexamples it must not (tests/test_patterns.py). Each is
compiled once, on first use."""

from __future__ import annotations

import functools
import re
import tomllib
from pathlib import Path
from typing import Any

from kg.extract import vocab as V

PATTERNS = Path(__file__).parent / "data" / "patterns.toml"
# Capital and small letters, Latin-1 and Latin Extended-A and B included ("Çaykur Rizespor", "Łódź",
# "Tomás Ortega"): a character class's content, for {{upper}} and {{lower}}.
UPPER = "A-Z" + "".join(c for c in map(chr, range(0xC0, 0x250)) if c.isupper())
LOWER = "a-z" + "".join(c for c in map(chr, range(0xC0, 0x250)) if c.islower())
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}


@functools.cache
def specs() -> dict[str, dict[str, Any]]:
    """Every pattern's table: regex, flags, full, examples, counterexamples."""
    return tomllib.loads(PATTERNS.read_text(encoding="utf-8"))


@functools.cache
def pattern(name: str) -> re.Pattern[str]:
    spec = specs()[name]
    flags = 0
    for flag in spec.get("flags", ""):
        flags |= _FLAGS[flag]
    return re.compile(regex(name), flags)


def identifier(text: str) -> bool:
    """One identifier-like word that may name software, not an expression, constant or file."""
    return (pattern("identifier").fullmatch(text) is not None and not pattern("env_constant").fullmatch(text)
            and not pattern("file_name").fullmatch(text) and len(text) <= 40)


def regex(name: str) -> str:
    """A pattern's regex with its templates filled (`fill`)."""
    return fill(specs()[name]["regex"])


def fill(text: str) -> str:
    """A regex with its templates filled: {{upper}}, {{lower}}, {{months}}, {{@other}} (the pattern `other`'s
    regex), {{list}} and {{list:capitalized}} (a word list of words.toml, sorted, as alternatives),
    {{list:longest}} (its phrases escaped, the longest first: the longest is found)."""

    def template(found: re.Match[str]) -> str:
        ref, key, form = found.groups()
        if ref:
            return regex(key)
        if key in ("upper", "lower"):
            return UPPER if key == "upper" else LOWER
        if key == "months":
            return "|".join(m.capitalize() for m in V.MONTHS)
        words = getattr(V, key.upper())
        if form == "longest":
            return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        return "|".join(sorted(w.capitalize() for w in words) if form == "capitalized" else sorted(words))

    return re.sub(r"\{\{(@?)(\w+)(?::(\w+))?\}\}", template, text)
