"""The two things a yes/no question compares, and what each one's claims define it as."""

from __future__ import annotations

from collections.abc import Mapping

from kg.names import name_key
from kg.retrieve.question import ParsedQuestion
from kg.retrieve.strategies.base import Context, Row

MAX_NAME_WORDS = 6  # the longest name looked for in a question, in words


def compared_pair(question: ParsedQuestion, linked: Mapping[str, float],
                  context: Context) -> tuple[list[str], dict[str, str], list[str]]:
    """The two linked entities the question names first (longest names first, no overlaps): their ids,
    names, and the words naming them in the question."""
    spans = name_spans(question.tokens)
    found: list[tuple[int, int, str]] = []  # (start, end, entity): where each linked entity's name occurs
    for entity in sorted(linked):
        for name in (context.entity_name(entity), *context.entity_aliases(entity)):
            found.extend((start, end, entity) for start, end in spans.get(name_key(name), ()) if name.strip())
    chosen: list[tuple[int, int, str]] = []
    for span in sorted(set(found), key=lambda s: (s[0] - s[1], s[0], s[2])):  # longest first, no overlaps
        if all(span[1] <= c[0] or span[0] >= c[1] for c in chosen) and span[2] not in {c[2] for c in chosen}:
            chosen.append(span)
    pair = sorted(chosen)[:2]
    return ([entity for _, _, entity in pair], {entity: context.entity_name(entity) for _, _, entity in pair},
            [" ".join(question.tokens[start:end]) for start, end, _ in pair])


def name_spans(tokens: tuple[str, ...]) -> dict[str, list[tuple[int, int]]]:
    """name key -> the token spans of a question that spell it (up to MAX_NAME_WORDS words)."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for size in range(1, min(MAX_NAME_WORDS, len(tokens)) + 1):
        for start in range(len(tokens) - size + 1):
            if key := name_key(" ".join(tokens[start : start + size])):
                spans.setdefault(key, []).append((start, start + size))
    return spans


def defining_claims(pair: list[str], names: dict[str, str], context: Context) -> dict[str, list[Row]]:
    """Per entity, the live claims it is the subject of (not negated: "ENIAC was not a stored-program
    machine" says no such thing), then what its own page defines it as, whatever subject the
    extractor gave that claim ("Christopher Edward Nolan is a film director" on "Christopher Nolan")."""
    own_page = {entity: set(context.titled_sources(names[entity])) for entity in pair}
    page_rows = [r for r in context.source_claims(sorted(set().union(*own_page.values())))
                 if r.get("type") == "definition" and (r.get("polarity") or 0) >= 0]
    rows = context.entity_claims(pair)
    out: dict[str, list[Row]] = {}
    for entity in pair:
        about = [r for r in rows if r["eid"] == entity and r["role"] == "subject" and (r.get("polarity") or 0) >= 0]
        seen = {r["id"] for r in about}
        out[entity] = about + [r for r in page_rows if r["path"] in own_page[entity] and r["id"] not in seen]
    return out
