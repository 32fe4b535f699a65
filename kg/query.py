"""Deterministic navigation of the compiled wiki, the way a reader (or an agent) would use it.

`navigate(kb_or_store, question, budget)`:

1. the index: entity pages whose name or alias occurs in the question (a name lookup, like
   scanning index.md for the words of the question), and their index lines are read;
2. search (hybrid when an embedder is given, else BM25) over claims, source chunks and
   answer pages; the hits' snippets are read;
3. pages are ranked (entity pages by name match and by the hits about them; source pages by
   their chunk and claim hits), then drilled into in rank order: an entity page's claims
   most relevant to the question, then the cited source spans, until the budget is spent.

Tokens read are counted as ceil(characters / 4) of every piece of text the navigator read
(index lines, hit snippets, claims, source spans); name lookups and graph hops are not text
and are not counted. A piece that does not fit in what is left of the budget is skipped.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from kg.embed import Embedder
from kg.kb import KnowledgeBase
from kg.names import name_key
from kg.search import Hit, Searcher
from kg.store import Store

DEFAULT_BUDGET = 2000
SNIPPET_CHARS = 400
_WORD = re.compile(r"[a-z0-9]+")
_STOP = (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its "
    "of on or so such than that the their them then there these they this to was were what when where which "
    "who whom why will with would you your about after before between during more most much many not no "
    "other some only also very use used using"
)
STOPWORDS = frozenset(_STOP.split())


def tokens_of(text: str) -> int:
    return math.ceil(len(text) / 4) if text else 0


def terms(text: str) -> set[str]:
    """Content words, crudely stemmed (plural s), for overlap scoring."""
    out = set()
    for word in _WORD.findall(text.casefold()):
        if word in STOPWORDS or len(word) < 2:
            continue
        out.add(word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word)
    return out


@dataclass
class Citation:
    source_path: str
    source_slug: str
    source_title: str
    char_start: int
    char_end: int
    quote: str

    @property
    def link(self) -> str:
        return f"[[sources/{self.source_slug}|{_label(self.source_title)}]]"


@dataclass
class ClaimRef:
    id: str
    text: str
    confidence: float
    subject: str | None
    subject_name: str
    score: float
    citations: list[Citation] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)

    def link(self) -> str:
        """The claim's block in its first source page (Obsidian block reference)."""
        if not self.citations:
            return f"[[entities/{self.subject}|{_label(self.subject_name)}]]" if self.subject else ""
        c = self.citations[0]
        return f"[[sources/{c.source_slug}#^{self.id}|{_label(c.source_title)}]]"


@dataclass
class Read:
    kind: str  # index | hit | claim | span
    ref: str
    tokens: int


@dataclass
class NavigationResult:
    question: str
    budget: int
    pages: list[str]  # wiki pages chosen, best first (entities/x, sources/y, answers/z)
    source_paths: list[str]  # sources (paths under raw/), best first
    claims: list[ClaimRef]  # claims read, most relevant first
    tokens_read: int
    reads: list[Read] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    entity_names: dict[str, str] = field(default_factory=dict)
    counting: str = "ceil(characters / 4) of every text the navigator read"

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["hits"] = [h.as_dict() for h in self.hits]
        return data


class Navigator:
    """Holds what is worth keeping between questions (the name index, the searcher)."""

    def __init__(self, store: Store, embedder: Embedder | None = None, searcher: Searcher | None = None) -> None:
        self.store = store
        self.searcher = searcher or Searcher(store, embedder)
        self._names: dict[str, set[str]] | None = None
        self._entities: dict[str, dict[str, Any]] = {}

    # the index --------------------------------------------------------------------------

    def names(self) -> dict[str, set[str]]:
        """name key -> ids of entities that have a page (at least one claim)."""
        if self._names is None:
            names: dict[str, set[str]] = defaultdict(set)
            table = self.store.table(
                "MATCH (e:Entity) WHERE EXISTS { MATCH (:Claim)-[:ABOUT]->(e) } "
                "RETURN e.id AS id, e.name AS name, e.aliases AS aliases, e.summary AS summary")
            for row in table.to_pylist():
                self._entities[row["id"]] = row
                for name in (row["name"], *(row["aliases"] or [])):
                    key = name_key(name)
                    if key and (len(key) >= 4 or (len(key) >= 2 and name.isupper())) and key not in STOPWORDS:
                        names[key].add(row["id"])
            self._names = dict(names)
        return self._names

    def name_matches(self, question: str) -> dict[str, float]:
        """Entities named in the question; longer names weigh more."""
        names = self.names()
        words = question.split()
        found: dict[str, float] = {}
        for size in range(min(6, len(words)), 0, -1):
            for start in range(len(words) - size + 1):
                key = name_key(" ".join(words[start : start + size]))
                for entity in sorted(names.get(key, ())):
                    found[entity] = max(found.get(entity, 0.0), 1.0 + 0.25 * (size - 1))
        return found

    def index_line(self, entity_id: str) -> str:
        row = self._entities.get(entity_id) or {"name": entity_id, "summary": ""}
        return f"- [[entities/{entity_id}|{row['name']}]] — {row.get('summary') or ''}"

    # the walk ---------------------------------------------------------------------------

    def navigate(self, question: str, budget: int = DEFAULT_BUDGET, mode: str | None = None, k: int = 12) -> NavigationResult:
        budget = max(0, int(budget))
        spent = 0
        reads: list[Read] = []

        def read(kind: str, ref: str, text: str, limit: int = budget) -> bool:
            nonlocal spent
            cost = tokens_of(text)
            if spent + cost > limit:
                return False
            spent += cost
            reads.append(Read(kind, ref, cost))
            return True

        wanted = terms(question)
        matched = self.name_matches(question)
        mode = mode or ("hybrid" if self.searcher.embedder is not None else "bm25")
        hits = self.searcher.search(question, mode, k).hits if question.strip() else []

        entity_score: dict[str, float] = defaultdict(float)
        source_score: dict[str, float] = defaultdict(float)
        page_score: dict[str, float] = defaultdict(float)
        for entity, weight in matched.items():
            entity_score[entity] += weight
        for rank, hit in enumerate(hits, 1):
            w = 1.0 / (rank + 2)
            if hit.kind == "claim":
                for i, entity in enumerate(hit.entities):
                    entity_score[entity] += w if i == 0 else w / 3
                if hit.source_path:
                    source_score[hit.source_path] += w
            elif hit.kind == "chunk":
                source_score[hit.source_path] += 1.5 * w
            elif hit.kind == "page":
                page_score[f"answers/{hit.id}"] += w

        # 1. index lines of the named entities, then the snippets of the chunk and page hits
        #    (claim hits are read in step 2), with at most half of the budget
        for entity in sorted(matched, key=lambda e: (-matched[e], e)):
            read("index", f"entities/{entity}", self.index_line(entity), budget // 2)
        for hit in hits:
            if hit.kind != "claim":
                read("hit", f"{hit.kind}:{hit.id}", hit.text[:SNIPPET_CHARS], budget // 2)

        # 2. drill into pages in rank order
        ranked_entities = sorted(entity_score, key=lambda e: (-entity_score[e], e))
        claim_scores: dict[str, float] = {}
        hit_rank = {h.id: r for r, h in enumerate(hits, 1) if h.kind == "claim"}
        relevant = set(hit_rank)
        drill = ranked_entities[:8]
        rows_of: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in self.store.query(
                "MATCH (c:Claim)-[:ABOUT]->(e:Entity) WHERE e.id IN $ids AND c.status = 'live' "
                "RETURN e.id AS eid, c.id AS id, c.text AS text, c.confidence AS conf ORDER BY eid, id", {"ids": drill}):
            rows_of[r["eid"]].append(r)
        for entity in drill:
            for r in rows_of[entity]:
                overlap = len(wanted & terms(r["text"])) / (len(wanted) or 1)
                if overlap > 0 or r["id"] in hit_rank:
                    relevant.add(r["id"])
                bonus = 1.0 / (hit_rank[r["id"]] + 1) if r["id"] in hit_rank else 0.0
                score = overlap + bonus + 0.1 * float(r["conf"] or 0) + 0.2 * entity_score[entity]
                claim_scores[r["id"]] = max(claim_scores.get(r["id"], 0.0), score)
        for claim_id, rank in hit_rank.items():
            claim_scores.setdefault(claim_id, 1.0 / (rank + 1))
        ordered = sorted(relevant, key=lambda c: (-claim_scores[c], c))
        details = {c.id: c for c in self.claim_refs(ordered[:60], claim_scores)}
        kept: list[ClaimRef] = []
        for claim_id in ordered[:60]:
            ref = details.get(claim_id)
            if ref is None or not read("claim", claim_id, ref.text):
                continue
            kept.append(ref)
            for citation in ref.citations[:1]:  # the cited span, when it says more than the claim
                if " ".join(citation.quote.split()) != " ".join(ref.text.split()) and read("span", f"{citation.source_path}:{citation.char_start}-{citation.char_end}", citation.quote):
                    source_score[citation.source_path] += 0.5 * claim_scores[claim_id] / (len(kept) + 2)
            if len(kept) >= 25:
                break

        sources = sorted(source_score, key=lambda p: (-source_score[p], p))
        slugs = self.source_slugs(sources)
        pages = [f"entities/{e}" for e in ranked_entities[:10]]
        pages += [f"sources/{slugs[p]}" for p in sources[:10] if p in slugs]
        pages += sorted(page_score, key=lambda p: (-page_score[p], p))
        names = {e: (self._entities.get(e) or {}).get("name") or e for e in ranked_entities[:10]}
        return NavigationResult(question, budget, pages, sources, kept, spent, reads, hits, names)

    def claim_refs(self, ids: list[str], scores: dict[str, float]) -> list[ClaimRef]:
        if not ids:
            return []
        rows = self.store.query(
            "MATCH (c:Claim) WHERE c.id IN $ids OPTIONAL MATCH (c)-[a:ABOUT]->(e:Entity) "
            "RETURN c.id AS id, c.text AS text, c.confidence AS conf, e.id AS e, e.name AS name, a.role AS role",
            {"ids": ids})
        refs: dict[str, ClaimRef] = {}
        for r in sorted(rows, key=lambda r: (r["id"], r["role"] != "subject", r["e"] or "")):
            ref = refs.get(r["id"])
            if ref is None:
                subject = r["e"] if r["role"] == "subject" else None
                ref = refs[r["id"]] = ClaimRef(r["id"], r["text"], float(r["conf"] or 0), subject,
                                               r["name"] if subject else "", round(scores.get(r["id"], 0.0), 4))
            if r["e"] and r["e"] not in ref.entities:
                ref.entities.append(r["e"])
        for r in self.store.query(
            "MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) WHERE c.id IN $ids AND x.retracted_at IS NULL "
            "RETURN c.id AS id, s.path AS path, s.slug AS slug, s.title AS title, x.char_start AS cs, "
            "x.char_end AS ce, x.quote AS quote ORDER BY id, path, cs", {"ids": ids}):
            if r["id"] in refs:
                refs[r["id"]].citations.append(Citation(r["path"], r["slug"], r["title"], r["cs"], r["ce"], r["quote"]))
        return list(refs.values())

    def source_slugs(self, paths: list[str]) -> dict[str, str]:
        if not paths:
            return {}
        rows = self.store.query("MATCH (s:Source) WHERE s.path IN $p RETURN s.path AS path, s.slug AS slug",
                                {"p": paths[:50]})
        return {r["path"]: r["slug"] for r in rows}


@contextmanager
def _store_of(kb_or_store: KnowledgeBase | Store) -> Iterator[Store]:
    if isinstance(kb_or_store, Store):
        yield kb_or_store
    else:
        with Store(kb_or_store.db_path, read_only=True) as store:
            yield store


def navigate(kb_or_store: KnowledgeBase | Store, question: str, budget: int = DEFAULT_BUDGET,
             embedder: Embedder | None = None, mode: str | None = None) -> NavigationResult:
    """One question, start to finish (for many questions, keep a `Navigator`)."""
    with _store_of(kb_or_store) as store:
        return Navigator(store, embedder).navigate(question, budget, mode)


def _label(value: object) -> str:
    text = " ".join(str(value or "").split())
    return text.replace("|", "¦").replace("[", "(").replace("]", ")")
