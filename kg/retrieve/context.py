"""What the navigator and its strategies read of one open graph, kept between questions.

`GraphContext` is the `Context` strategies read through (kg/retrieve/strategies/base.py), over the
store, the searcher (which holds every claim's entities and first source in memory once it has
answered two questions) and the walk's graph (names, titles and neighbour counts); and the reads the
navigator itself makes (index lines, candidate claims, claim details with their citations).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from kg.graph.retrieval import (
    claim_entity_and_citation_rows,
    contradiction_rows,
    entity_claim_rows,
    entity_page_rows,
    has_contradictions,
    source_claim_rows,
    source_live_claim_rows,
    source_slugs,
)
from kg.graph.store import Store
from kg.names import in_context, name_key
from kg.retrieve.question import tokenize
from kg.retrieve.results import Citation, ClaimRef
from kg.retrieve.search import Searcher
from kg.retrieve.settings import DEFAULT_SETTINGS, NavigatorSettings
from kg.retrieve.strategies.base import Row
from kg.retrieve.walk import OFF_WALK_TYPES, GraphWalk
from kg.text import QUESTION_STOPWORDS


class GraphContext:
    """Reads of one graph for navigation: the name index, claims, sources, citations."""

    def __init__(self, store: Store, searcher: Searcher, walk: GraphWalk,
                 settings: NavigatorSettings = DEFAULT_SETTINGS) -> None:
        self.store, self.searcher, self.walk, self.settings = store, searcher, walk, settings
        self._names: dict[str, set[str]] | None = None
        self._entities: dict[str, dict[str, Any]] = {}
        self._has_contradictions: bool | None = None

    # the name index ---------------------------------------------------------------------------

    def names(self) -> dict[str, set[str]]:
        """name key -> ids of entities that have a page (at least one claim)."""
        if self._names is None:
            names: dict[str, set[str]] = defaultdict(set)
            for row in entity_page_rows(self.store):
                self._entities[row["id"]] = row
                if row.get("type") in OFF_WALK_TYPES:
                    continue  # a nationality named in a question is no entity to drill into (a hub)
                for name in (row["name"], *(row["aliases"] or [])):
                    key = name_key(name)
                    if self.walk.is_demonym(name):
                        continue  # "American" in a question is no way into the United States' page (a hub)
                    if key and (len(key) >= 4 or (len(key) >= 2 and name.isupper())) and key not in QUESTION_STOPWORDS:
                        names[key].add(row["id"])
            self._names = dict(names)
        return self._names

    def has_page(self, entity: str) -> bool:
        self.names()
        return entity in self._entities

    def entity_name(self, entity: str) -> str:
        self.names()
        return (self._entities.get(entity) or {}).get("name") or entity

    def entity_aliases(self, entity: str) -> list[str]:
        self.names()
        return list((self._entities.get(entity) or {}).get("aliases") or [])

    def entities_named(self, name: str) -> list[str]:
        return sorted(self.names().get(name_key(name), ()))

    def names_in(self, text: str, capitalised: bool = False) -> dict[str, float]:
        return self.linked_names(tokenize(text), capitalised)

    def linked_names(self, tokens: tuple[str, ...], capitalised: bool = False) -> dict[str, float]:
        """Entities named by n-grams of these tokens (with `capitalised`, only n-grams starting with a
        capital: "electoral ward" names no "Ward"); a longer name weighs more."""
        names = self.names()
        found: dict[str, float] = {}
        per_word = self.settings.name_weight_per_word
        for size in range(min(6, len(tokens)), 0, -1):
            for start in range(len(tokens) - size + 1):
                if capitalised and not tokens[start][:1].isupper():
                    continue
                for entity in sorted(names.get(name_key(" ".join(tokens[start : start + size])), ())):
                    found[entity] = max(found.get(entity, 0.0), 1.0 + per_word * (size - 1))
        return found

    def index_line(self, entity: str) -> str:
        self.names()
        row = self._entities.get(entity) or {"name": entity, "summary": ""}
        return f"- [[entities/{entity}|{row['name']}]] — {row.get('summary') or ''}"

    def is_bridge(self, entity: str) -> bool:
        self.names()
        row = self._entities.get(entity)
        return (row is not None and row.get("type") not in OFF_WALK_TYPES
                and self.walk.entity_degree(entity) <= self.walk.hub_degree(self.settings.hub_degree))

    # claims and sources -----------------------------------------------------------------------

    def entity_claims(self, entities: list[str]) -> list[Row]:
        return self._in_context(entity_claim_rows(self.store, entities)) if entities else []

    def _in_context(self, rows: list[Row]) -> list[Row]:
        """The rows with each claim's text as navigation weighs it: after its subject's name when the
        sentence does not name it (kg.names.in_context: "It weighed ..." is found for "ENIAC")."""
        about, _ = self.searcher.claim_entities(list({r["id"] for r in rows}))  # in memory once loaded
        for row in rows:
            subject = next((e for e, is_subject in about.get(row["id"], []) if is_subject), None)
            if subject is not None:
                row["text"] = in_context(row["text"], self.entity_name(subject))
        return rows

    def titled_sources(self, name: str) -> list[str]:
        return self.walk.titled_sources(name) if name else []

    def source_claims(self, paths: list[str]) -> list[Row]:
        return self._in_context(source_claim_rows(self.store, paths, set(), self.settings.whole_source_chunks)) if paths else []

    def claim_origins(self, ids: list[str]) -> tuple[dict[str, list[tuple[str, bool]]], dict[str, tuple[str, str]]]:
        return self.searcher.claim_entities(ids)

    def candidate_source_claims(self, paths: list[str], entities: set[str]) -> dict[str, list[Row]]:
        """Per source, its live claims about one of `entities` (a row per such entity, eid), and all of
        them for a short source (eid None for the others): path, eid, id, text, conf, type."""
        if not paths:
            return {}
        rows = self._in_context(source_live_claim_rows(self.store, paths, self.settings.whole_source_chunks))
        about, _ = self.searcher.claim_entities([r["id"] for r in rows])  # in memory once the searcher holds them
        out: dict[str, list[Row]] = defaultdict(list)
        for row in rows:
            reached = sorted({entity for entity, _ in about.get(row["id"], []) if entity in entities})
            out[row["path"]].extend([dict(row, eid=entity) for entity in reached] or [dict(row, eid=None)])
        # a long source (a book, a PDF): only its claims about the reached entities, filtered in the query
        long_paths = [p for p in paths if p not in out]
        for row in self._in_context(source_claim_rows(self.store, long_paths, entities)) if long_paths and entities else []:
            out[row["path"]].append(row)
        return dict(out)

    def claim_refs(self, ids: list[str], scores: dict[str, float]) -> list[ClaimRef]:
        """The claims with their subject, entities and live citations."""
        if not ids:
            return []
        rows, citations = claim_entity_and_citation_rows(self.store, ids)  # keyed lookups, see there
        refs: dict[str, ClaimRef] = {}
        for r in sorted(rows, key=lambda r: (r["id"], r["role"] != "subject", r["e"] or "")):
            ref = refs.get(r["id"])
            if ref is None:
                subject = r["e"] if r["role"] == "subject" else None
                ref = refs[r["id"]] = ClaimRef(r["id"], r["text"], float(r["conf"] or 0), subject,
                                               r["name"] if subject else "", round(scores.get(r["id"], 0.0), 4),
                                               claim_type=r.get("type") or "")
            if r["e"] and r["e"] not in ref.entities:
                ref.entities.append(r["e"])
        for r in citations:
            if r["id"] in refs:
                refs[r["id"]].citations.append(Citation(r["path"], r["slug"], r["title"], r["cs"], r["ce"], r["quote"]))
        return list(refs.values())

    def source_slugs(self, paths: list[str]) -> dict[str, str]:
        return source_slugs(self.store, paths[:50]) if paths else {}

    def contradictions(self, ids: list[str]) -> list[tuple[str, str, float]]:
        """CONTRADICTS edges among these claims (the graph is asked once whether it has any)."""
        if self._has_contradictions is None:
            self._has_contradictions = has_contradictions(self.store)
        if not self._has_contradictions or not ids:
            return []
        return [(r["first"], r["second"], float(r["confidence"] or 0)) for r in contradiction_rows(self.store, ids)]
