"""Word lists for the heuristic extractor, kept as data in kg/extract/data/words.toml (what each
list is for is said there). Read once, on first use: `vocab.STOP_CAPS` is the list `stop_caps`, a
frozenset; the few lists whose order matters, or that `str.endswith` takes, are tuples, the
tables dicts."""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import Any

WORDS = Path(__file__).parent / "data" / "words.toml"
_ORDERED = frozenset({"hedges", "soft_hedges", "opinion_markers", "causal_markers", "comparison_markers",
                      "noun_suffixes"})


def expand(lists: dict[str, Any], key: str) -> list[str]:
    """A list's entries in order: a string split on white space or an array; "@name" includes the
    list `name`, "-word" removes a word included before (a lone "-" is the hyphen)."""
    value = lists[key]
    entries: list[str] = []
    for entry in value.split() if isinstance(value, str) else value:
        if entry.startswith("@"):
            entries += expand(lists, entry[1:])
        elif entry.startswith("-") and entry != "-":
            entries = [e for e in entries if e != entry[1:]]
        else:
            entries.append(entry)
    return list(dict.fromkeys(entries))


@functools.cache
def words() -> dict[str, Any]:
    """Every list and table of words.toml by its name in capitals, and the ones derived from them."""
    data = tomllib.loads(WORDS.read_text(encoding="utf-8"))
    lists = {k: v for k, v in data.items() if not isinstance(v, dict)}
    found: dict[str, Any] = {k.upper(): tuple(expand(lists, k)) if k in _ORDERED else frozenset(expand(lists, k))
                             for k in lists}
    found |= {k.upper(): v for k, v in data.items() if isinstance(v, dict)}
    found["UNIT_LOOKUP"] = {spelling: unit for unit, spellings in data["units"].items() for spelling in spellings}
    found["STRONG_HEDGES"] = tuple(h for h in found["HEDGES"] if h not in found["SOFT_HEDGES"])
    kinds = [(word, kind) for table in (data["kinds"], data["kind_nouns"]) for kind in table
             for word in expand(table, kind)]
    found["KIND_NOUNS"] = dict(kinds)
    heads = {w: k for w, k in found["KIND_NOUNS"].items() if k not in ("person", "work") and " " not in w}
    heads |= {w: kind for kind in data["kind_heads"] for w in expand(data["kind_heads"], kind)}
    found["DESCRIPTIONS"] = {w: "" if kind == "any" else kind for kind in data["descriptions"]
                             for w in expand(data["descriptions"], kind)}
    found["KIND_HEADS"] = {w: k for w, k in heads.items() if w not in found["KIND_HEADS_NOT"]}
    return found


def __getattr__(name: str) -> Any:
    try:
        value = words()[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value  # the next lookup is a plain attribute's
    return value
