"""A seeded synthetic corpus for the scale, merge and navigation benchmarks.

Entities with names and types (people, organisations, places, works), facts as sentences with
quantities and dates, some deliberately contradictory (the same entity and predicate with another
value in another source), spread over markdown sources with headings and [[links]], in folders
of 1,000 (part000/s000000.md, ...). The same seed writes the same bytes.
"""

from __future__ import annotations

import random
from pathlib import Path

_SYL = ["ka", "lo", "ven", "dra", "mi", "tor", "sel", "an", "bri", "cor", "du", "fen", "gar", "hal",
        "is", "jor", "kel", "lun", "mar", "nor", "os", "pel", "quin", "ras", "sol", "tam", "ul", "vor",
        "wen", "yar", "zed", "bel", "cas", "del", "er", "fal"]
_ORG = ["Labs", "Institute", "Works", "Foundation", "Systems", "Society", "Company", "Observatory"]
_PLACE = ["Port", "Lake", "Mount", "New", "Fort", "Saint"]
_WORK = ["Atlas", "Chronicle", "Engine", "Codex", "Survey", "Treatise"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December"]


def _word(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(_SYL) for _ in range(parts)).capitalize()


def make_entities(n: int, rng: random.Random) -> list[tuple[str, str]]:
    """n unique (name, kind) pairs."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    kinds = ["person", "organization", "place", "work"]
    while len(out) < n:
        kind = kinds[len(out) % 4]
        if kind == "person":
            name = f"{_word(rng, 2)} {_word(rng, 3)}"
        elif kind == "organization":
            name = f"{_word(rng, 2)} {rng.choice(_ORG)}"
        elif kind == "place":
            name = f"{rng.choice(_PLACE)} {_word(rng, 2)}"
        else:
            name = f"The {_word(rng, 2)} {rng.choice(_WORK)}"
        if name.lower() not in seen:
            seen.add(name.lower())
            out.append((name, kind))
    return out


def _fact(rng: random.Random, name: str, kind: str, override: int | None = None) -> str:
    """One sentence with a quantity or a date; `override` fixes the value."""
    if kind == "person":
        year = override or rng.randint(1890, 1990)
        return f"{name} was born in {year}."
    if kind == "organization":
        value = override or rng.randint(5, 90000)
        return f"{name} has {value} employees."
    if kind == "place":
        value = override or rng.randint(100, 2000000)
        return f"{name} has a population of {value} people."
    value = override or rng.randint(1800, 2020)
    return f"{name} was first published in {value}."


def canonical(idx: int, kind: str) -> int:
    """The true value of an entity's main fact (a year for people and works, else a count)."""
    return 1900 + (idx * 37) % 100 if kind in ("person", "work") else 100 + (idx * 7919) % 90000


def make_source(i: int, entities: list[tuple[str, str]], rng: random.Random,
                contradiction_rate: float = 0.05) -> tuple[str, bool]:
    """A markdown source about one main entity, restating facts about it and a linked entity;
    returns (text, whether its main fact was deliberately contradicted).

    Facts are derived from the entity's index, so sources that restate them agree; with
    probability `contradiction_rate` the main fact is stated with another value (a deliberate
    contradiction with the other sources about that entity).
    """
    main_idx = i % len(entities)
    name, kind = entities[main_idx]
    other_idx = [rng.randrange(len(entities)) for _ in range(3)]
    others = [entities[j] for j in other_idx]
    value = canonical(main_idx, kind)
    contradicted = rng.random() < contradiction_rate
    if contradicted:
        value += rng.randint(1, 9)
    year = 1950 + main_idx % 70
    lines = [f"# {name}: report {i}", "", "## Overview", ""]
    lines.append(_fact(rng, name, kind, override=value) + f" {name} was visited by [[{others[0][0]}]] "
                 f"in {rng.choice(_MONTHS)} {rng.randint(1950, 2024)}.")
    lines.append(f"It is closely associated with [[{others[1][0]}]] and [[{others[2][0]}]].")
    lines += ["", "## Figures", ""]
    lines.append(f"In {year}, {name} reported revenue of {1 + (main_idx * 13) % 900} million dollars.")
    lines.append(f"A survey of {name} in {year} measured {1 + (main_idx * 29) % 500} km of roads.")
    lines.append(_fact(rng, others[2][0], others[2][1], override=canonical(other_idx[2], others[2][1])))
    lines += ["", "## See also", "", f"- [[{others[2][0]}]]", ""]
    return "\n".join(lines), contradicted


def generate(raw: Path, n: int, seed: int) -> tuple[int, int]:
    """Write n sources into raw/ (in folders of 1,000); returns (bytes, deliberately contradicted sources)."""
    rng = random.Random(seed)
    entities = make_entities(max(50, n // 2), rng)
    total = contradicted = 0
    for i in range(n):
        folder = raw / f"part{i // 1000:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        text, bad = make_source(i, entities, rng)
        data = text.encode("utf-8")
        (folder / f"s{i:06d}.md").write_bytes(data)
        total += len(data)
        contradicted += bad
    return total, contradicted
