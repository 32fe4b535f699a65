"""Deterministic navigation of the compiled wiki, the way a reader (or an agent) would use it.

`navigate(kb_or_store, question, budget)`:

1. the index: entity pages whose name or alias occurs in the question (a name lookup, like
   scanning index.md for the words of the question), and their index lines are read;
2. search (hybrid when an embedder is given, else BM25) over claims, source chunks and
   answer pages; the hits' snippets are read;
3. the graph walk (`kg.walk`): personalised PageRank restarting on the entities and source
   titles the question names and on the search's best sources ranks the sources, and the
   entities it reaches join the entity ranking (name matches, the entities of claim hits);
4. claims are drilled into: those of the best entity pages and those of the top sources
   about an entity the walk reached, scored by overlap with the question, search rank,
   confidence, entity and source rank. The best claim of each top source is read first (the
   evidence behind the ranking), then the rest by score, each with its cited source span when
   that says more, until the budget is spent;
5. the second hop of a two-hop question: the entities the best claims name lead to their claims;
   one that answers what the first claim lacks is read first, and its source joins the top 5
   (`Navigator.second_hop`).

Tokens read are counted as ceil(characters / 4) of every piece of text the navigator read
(index lines, hit snippets, claims, source spans); name lookups, the search engine's ranking
and graph hops (the walk) are not text and are not counted. A piece that does not fit in what
is left of the budget is skipped. The source ranking does not depend on the budget: a small
budget reads less evidence for the same ranking.
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
from kg.graph.fts import indexed_store
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
from kg.kb import KnowledgeBase
from kg.names import name_key
from kg.retrieve.question import (
    Question,
    is_both_question,
    parse_question,
    property_value,
    property_words,
    same_property,
    terms,
)
from kg.retrieve.search import Hit, Searcher
from kg.retrieve.walk import OFF_WALK_TYPES, GraphWalk, WalkResult
from kg.text import QUESTION_STOPWORDS

DEFAULT_BUDGET = 2000
SNIPPET_CHARS = 400
WALK_DEPTH = 20  # sources the walk ranks
PRIOR_SOURCES = 10  # the search's best sources seed the walk ...
PRIOR_WEIGHT = 0.5  # ... with half the restart mass of the names (chosen on odd questions)
WALK_ENTITIES = 10  # reached entities that count towards the entity ranking
DRILL_ENTITIES = 8  # entity pages whose claims are candidates
SOURCE_EVIDENCE = 5  # top sources whose claims about reached entities are candidates ...
WHOLE_SOURCE_CHUNKS = 4  # ... all of their claims, for a source of at most this many chunks
ANSWER_WEIGHT = 1.0  # a claim that states what the question asks (kg/retrieve/question.py)
SOURCE_ANSWER_WEIGHT = 0.5  # ... more when it comes from one of the best sources
FIRST_HOP = 3  # the best claims whose entities lead to the second hop of a question ...
OPENINGS = 2  # ... and the best claims of (at most) two sources the question names by title ...
OPENING_CLAIMS = 6  # (chosen on all 100 questions among 1, 3 and 6: one more answer found, on odd)
HUB_DEGREE = 100  # ... unless an entity is a hub (neighbours in the walk's graph): "United States"; or
# more in a large graph, where the top 0.1% of entities by neighbours are its hubs (GraphWalk.hub_degree)
BRIDGE_ANSWERS = 3  # second-hop claims that answer, at most; the sources of the best ...
HOP_SOURCES = 2  # ... two of them are ranked ...
HOP_SOURCE_RANK = 4  # ... at least 4th (chosen on all 100 questions among 2nd-4th and 1 or 2 claims; both halves gain)


def tokens_of(text: str) -> int:
    return math.ceil(len(text) / 4) if text else 0


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
    answers: bool = False  # states what the question asks (its words, and a value of the kind asked for)
    claim_type: str = ""

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
    source: str = ""  # the source path the text came from (hits of chunks, claims, spans)


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
    answer_kind: str = ""  # what the question asks for: quantity, date, person, place, or "" (anything)
    contradictions: list[tuple[str, str, float]] = field(default_factory=list)  # among the claims read
    judged: bool = True  # whether claims could be told to answer or not (a question with words or a kind)
    # "Are A and B both C?": "yes" or "no", the entities compared, the property words, and per entity the
    # id of a claim that says it has the property ("" when none does)
    verdict: str = ""
    compared: list[tuple[str, str, str]] = field(default_factory=list)  # (entity id, name, claim id)
    compared_on: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)  # "Are A and B in the same X?": each one's X, as the claims say

    @property
    def sources_read(self) -> list[str]:
        """Sources some read text came from, in reading order."""
        return list(dict.fromkeys(r.source for r in self.reads if r.source))

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["hits"] = [h.as_dict() for h in self.hits]
        return data


class Navigator:
    """Holds what is worth keeping between questions (the name index, the searcher)."""

    def __init__(self, store: Store, embedder: Embedder | None = None, searcher: Searcher | None = None,
                 walk: GraphWalk | None = None) -> None:
        self.store = store
        self.searcher = searcher or Searcher(store, embedder)
        self.walk = walk or GraphWalk(store)  # reads the graph on the first question
        self._names: dict[str, set[str]] | None = None
        self._entities: dict[str, dict[str, Any]] = {}
        self._has_contradictions: bool | None = None

    # the index --------------------------------------------------------------------------

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
                    if key and (len(key) >= 4 or (len(key) >= 2 and name.isupper())) and key not in QUESTION_STOPWORDS:
                        names[key].add(row["id"])
            self._names = dict(names)
        return self._names

    def name_matches(self, question: str, capitalised: bool = False) -> dict[str, float]:
        """Entities named in the question (with `capitalised`, only by words that start with a capital:
        "electoral ward" names no "Ward"); longer names weigh more."""
        names = self.names()
        words = question.split()
        found: dict[str, float] = {}
        for size in range(min(6, len(words)), 0, -1):
            for start in range(len(words) - size + 1):
                if capitalised and not words[start][:1].isupper():
                    continue
                key = name_key(" ".join(words[start : start + size]))
                for entity in sorted(names.get(key, ())):
                    found[entity] = max(found.get(entity, 0.0), 1.0 + 0.25 * (size - 1))
        return found

    def index_line(self, entity_id: str) -> str:
        row = self._entities.get(entity_id) or {"name": entity_id, "summary": ""}
        return f"- [[entities/{entity_id}|{row['name']}]] — {row.get('summary') or ''}"

    # navigation -------------------------------------------------------------------------

    def navigate(self, question: str, budget: int = DEFAULT_BUDGET, mode: str | None = None, k: int = 12) -> NavigationResult:
        budget = max(0, int(budget))
        spent = 0
        reads: list[Read] = []

        def read(kind: str, ref: str, text: str, limit: int = budget, source: str = "") -> bool:
            nonlocal spent
            cost = tokens_of(text)
            if spent + cost > limit:
                return False
            spent += cost
            reads.append(Read(kind, ref, cost, source))
            return True

        asked = parse_question(question)
        wanted = set(asked.words)
        matched = self.name_matches(question)
        mode = mode or ("hybrid" if self.searcher.embedder is not None else "bm25")
        hits = self.searcher.search(question, mode, k).hits if question.strip() else []

        entity_score: dict[str, float] = defaultdict(float)
        search_score: dict[str, float] = defaultdict(float)  # sources, by the search hits in them
        page_score: dict[str, float] = defaultdict(float)
        for entity, weight in matched.items():
            entity_score[entity] += weight
        for rank, hit in enumerate(hits, 1):
            w = 1.0 / (rank + 2)
            if hit.kind == "claim":
                for i, entity in enumerate(hit.entities):
                    entity_score[entity] += w if i == 0 else w / 3
                if hit.source_path:
                    search_score[hit.source_path] += w
            elif hit.kind == "chunk":
                search_score[hit.source_path] += 1.5 * w
            elif hit.kind == "page":
                page_score[f"answers/{hit.id}"] += w

        # the graph walk ranks the sources: restart on the entities and titles the question
        # names and on the search's best sources, spread along mentions, relations and aliases
        searched = sorted(search_score, key=lambda p: (-search_score[p], p))
        walked = self.walk.walk(question, WALK_DEPTH, {p: 1.0 / (1 + i) for i, p in enumerate(searched[:PRIOR_SOURCES])},
                                PRIOR_WEIGHT) if question.strip() else WalkResult([], [])
        sources = walked.source_paths + [p for p in searched if p not in set(walked.source_paths)]
        reached = [(e, m) for e, m in walked.entities if e in self._entities]  # with a page (see names())
        top_mass = max((m for _, m in reached), default=0.0) or 1.0
        for entity, mass in reached[:WALK_ENTITIES]:
            entity_score[entity] += mass / top_mass

        # 1. index lines of the named entities, then the snippets of the chunk and page hits
        #    (claim hits are read in step 2), with at most half of the budget
        for entity in sorted(matched, key=lambda e: (-matched[e], e)):
            read("index", f"entities/{entity}", self.index_line(entity), budget // 2)
        for hit in hits:
            if hit.kind != "claim":
                read("hit", f"{hit.kind}:{hit.id}", hit.text[:SNIPPET_CHARS], budget // 2, hit.source_path)

        # 2. claims: of the best entity pages, and of the best sources about entities reached,
        #    scored by overlap with the question, search rank, confidence, entity and source rank
        ranked_entities = sorted(entity_score, key=lambda e: (-entity_score[e], e))
        hit_rank = {h.id: r for r, h in enumerate(hits, 1) if h.kind == "claim"}
        candidates = self.entity_claims(ranked_entities[:DRILL_ENTITIES])
        reached_ids = {e for e, _ in walked.entities} | set(matched)
        by_source = self.source_claims(sources[:SOURCE_EVIDENCE], reached_ids)
        source_rank = {p: r for r, p in enumerate(sources[:SOURCE_EVIDENCE], 1)}
        for rows in by_source.values():
            candidates.extend(rows)
        claim_scores: dict[str, float] = {}
        answering: set[str] = set()
        relevant = set(hit_rank)
        for row in candidates:
            overlap = len(wanted & terms(row["text"])) / (len(wanted) or 1)
            if asked.answers(row["text"], row.get("type") or ""):
                answering.add(row["id"])
            from_source = row.get("path") in source_rank
            if overlap > 0 or row["id"] in hit_rank or from_source:
                relevant.add(row["id"])
            bonus = 1.0 / (hit_rank[row["id"]] + 1) if row["id"] in hit_rank else 0.0
            score = overlap + bonus + 0.1 * float(row["conf"] or 0) + 0.2 * entity_score.get(row["eid"], 0.0)
            score += ANSWER_WEIGHT if row["id"] in answering else 0.0
            if from_source:
                score += 0.5 / (source_rank[row["path"]] + 1)
                if row["id"] in answering:
                    score += SOURCE_ANSWER_WEIGHT  # an answer in the best sources beats one elsewhere
            claim_scores[row["id"]] = max(claim_scores.get(row["id"], 0.0), score)
        for claim_id, rank in hit_rank.items():
            claim_scores.setdefault(claim_id, 1.0 / (rank + 1))
        # the second hop: claims about the entities the best claims name, answering what those lack
        text_of = {row["id"]: row["text"] for row in candidates} | {h.id: h.text for h in hits if h.kind == "claim"}
        # the best claim of each source the question names by its title opens a first hop too ("Drew
        # Fuller" -> "He is best known for ... Charmed", which repeats no word of the question)
        titled = sorted(walked.linked_sources, key=lambda p: (-walked.linked_sources[p], p))[:OPENINGS]
        openings = [r["id"] for p in titled
                    for r in sorted(by_source.get(p, []), key=lambda r: (-claim_scores[r["id"]], r["id"]))[:OPENING_CLAIMS]]
        second = self.second_hop(asked, set(matched), relevant, claim_scores, text_of, list(dict.fromkeys(openings)))
        for claim_id, score in second:
            claim_scores[claim_id] = max(claim_scores.get(claim_id, 0.0), score)
            answering.add(claim_id)
            relevant.add(claim_id)
        if second:  # their sources are the answer's evidence: among the top 5, after the first hop's best
            _, where = self.searcher.claim_entities([c for c, _ in second[:HOP_SOURCES]])
            sources = promoted(sources, [where[c][0] for c, _ in second[:HOP_SOURCES] if c in where], HOP_SOURCE_RANK)
        ordered = sorted(relevant, key=lambda c: (-claim_scores[c], c))[:60]
        # the best claim of each top source is the evidence behind the ranking
        best_of_source = [max(by_source[p], key=lambda r: (claim_scores[r["id"]], r["id"]))["id"]
                          for p in sources[:SOURCE_EVIDENCE] if by_source.get(p)]
        # claims that answer first, then the best claim of each top source, then the rest
        reading = list(dict.fromkeys([*(c for c in ordered if c in answering), *best_of_source, *ordered]))
        details = {c.id: c for c in self.claim_refs(reading, claim_scores)}
        kept: list[ClaimRef] = []
        for claim_id in reading:
            ref = details.get(claim_id)
            cited = ref.citations[0].source_path if ref and ref.citations else ""
            if ref is None or not read("claim", claim_id, ref.text, source=cited):
                continue
            ref.answers = claim_id in answering or asked.answers(ref.text, ref.claim_type)  # search hits too
            kept.append(ref)
            for citation in ref.citations[:1]:  # the cited span, when it says more than the claim
                if _says_more(citation.quote, ref.text):
                    read("span", f"{citation.source_path}:{citation.char_start}-{citation.char_end}", citation.quote,
                         source=citation.source_path)
            if len(kept) >= 25:
                break
        kept.sort(key=lambda c: (-claim_scores[c.id], c.id))

        slugs = self.source_slugs(sources)
        pages = [f"entities/{e}" for e in ranked_entities[:10]]
        pages += [f"sources/{slugs[p]}" for p in sources[:10] if p in slugs]
        pages += sorted(page_score, key=lambda p: (-page_score[p], p))
        names = {e: (self._entities.get(e) or {}).get("name") or e for e in ranked_entities[:10]}
        verdict, compared, prop = self.both(asked, matched, question)
        values: list[str] = []
        if not verdict:
            verdict, compared, values = self.same(matched, question)
            prop = {same_property(question)} if verdict else set()
        if compared:  # the claims the verdict rests on are cited too
            extra = [c for _, _, c in compared if c and c not in {k.id for k in kept}]
            for ref in self.claim_refs(extra, claim_scores):
                ref.answers = True
                kept.insert(0, ref)
        conflicts = [(r["first"], r["second"], float(r["confidence"] or 0))
                     for r in (contradiction_rows(self.store, [c.id for c in kept]) if self.has_contradictions() else [])]
        return NavigationResult(question, budget, pages, sources, kept, spent, reads, hits, names,
                                answer_kind=asked.kind, contradictions=conflicts, judged=asked.judged,
                                verdict=verdict, compared=compared, compared_on=sorted(prop), values=values)

    def compared_pair(self, matched: dict[str, float], question: str) -> tuple[list[str], dict[str, str], list[str]]:
        """The two entities a comparison names first (longest names first, no overlaps): their ids, names
        and the text naming them in the question."""
        lowered = question.casefold()
        spans: list[tuple[int, int, str, str]] = []  # where each matched entity's name or alias occurs
        for entity in sorted(matched):
            row = self._entities.get(entity) or {}
            for name in (row.get("name") or entity, *(row.get("aliases") or [])):
                at = lowered.find(name.casefold())
                if at >= 0 and name.strip():
                    spans.append((at, at + len(name), entity, row.get("name") or entity))
        chosen: list[tuple[int, int, str, str]] = []
        for span in sorted(spans, key=lambda s: (s[0] - s[1], s[0], s[2])):  # longest first, no overlaps
            if all(span[1] <= c[0] or span[0] >= c[1] for c in chosen) and span[2] not in {c[2] for c in chosen}:
                chosen.append(span)
        chosen.sort()
        return [c[2] for c in chosen[:2]], {c[2]: c[3] for c in chosen[:2]}, [question[c[0]:c[1]] for c in chosen[:2]]

    def defining_claims(self, pair: list[str], names: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
        """Per entity, the live claims it is the subject of (not negated: "ENIAC was not a stored-program
        machine" says no such thing), then what its own page defines it as, whatever subject the
        extractor gave that claim ("Christopher Edward Nolan is a film director" on "Christopher Nolan")."""
        own_page = {entity: set(self.walk.titled_sources(names[entity])) for entity in pair}
        page_rows = [r for r in self.source_rows(sorted(set().union(*own_page.values())), set())
                     if r.get("type") == "definition" and (r["polarity"] or 0) >= 0]
        rows = entity_claim_rows(self.store, pair)
        out: dict[str, list[dict[str, Any]]] = {}
        for entity in pair:
            about = [r for r in rows if r["eid"] == entity and r["role"] == "subject" and (r["polarity"] or 0) >= 0]
            seen = {r["id"] for r in about}
            out[entity] = about + [r for r in page_rows if r["path"] in own_page[entity] and r["id"] not in seen]
        return out

    def both(self, asked: Question, matched: dict[str, float], question: str) -> tuple[str, list[tuple[str, str, str]], set[str]]:
        """"Are A and B both C?": for the two entities the question names first, a claim about each
        holding every word of C; "yes" when both have one, else "no" (as far as the wiki says)."""
        if not is_both_question(question) or len(matched) < 2:
            return "", [], set()
        pair, names, named = self.compared_pair(matched, question)
        prop = property_words(asked, named)
        if len(pair) < 2 or not prop:
            return "", [], set()
        claims = self.defining_claims(pair, names)
        compared = []
        for entity in pair:
            having = [r["id"] for r in claims[entity] if prop <= terms(r["text"])]
            compared.append((entity, names[entity], having[0] if having else ""))
        return ("yes" if all(c for _, _, c in compared) else "no"), compared, prop

    def same(self, matched: dict[str, float], question: str) -> tuple[str, list[tuple[str, str, str]], list[str]]:
        """"Are A and B in the same province?": for the two entities the question names first, the
        first claim about each that names a province ("a city in Jiangsu province"); "yes" when the
        two name the same one, "no" when not, nothing when either says none."""
        word = same_property(question)
        if not word or len(matched) < 2:
            return "", [], []
        pair, names, _ = self.compared_pair(matched, question)
        if len(pair) < 2:
            return "", [], []
        claims = self.defining_claims(pair, names)
        compared, values = [], []
        for entity in pair:
            found = [(r["id"], v) for r in claims[entity] if (v := property_value(r["text"], word, names[entity]))]
            if not found:
                return "", [], []
            compared.append((entity, names[entity], found[0][0]))
            values.append(found[0][1])
        return ("yes" if name_key(values[0]) == name_key(values[1]) else "no"), compared, values

    def second_hop(self, asked: Question, named: set[str], relevant: set[str], scores: dict[str, float],
                   text_of: dict[str, str], openings: list[str]) -> list[tuple[str, float]]:
        """Claims that answer a two-hop question through a bridge entity: "Who created the soap opera
        Kate Ramsay is from?" is answered by a claim about Neighbours, which the best claim about Kate
        Ramsay names.

        The best claims that share a name with the question lead on to their entities (not those the
        question names, nor hubs), and to the entity their source is about. A bridge entity's claims
        are followed when it is their subject, or when it was the leading claim's subject (then a claim
        that merely names it will do: "Hannah Gross is the daughter of Paul Gross"), and so are the
        claims of its own short source. Two claims that only mention the same place are no chain. A
        claim that answers after the claim that led to it (`answers_after`) scores as that claim plus
        the share of the question's words it adds."""
        if not asked.topic_words or asked.kind == "definition":
            return []
        start = asked.name_words or asked.words
        first = [c for c in sorted(relevant, key=lambda c: (-scores[c], c))
                 if c in text_of and start & terms(text_of[c])][:FIRST_HOP]
        first += [c for c in openings if c not in first and c in text_of]
        about, sources = self.searcher.claim_entities(first)
        via: dict[str, tuple[str, bool]] = {}  # bridge entity -> (the best claim naming it, whether its subject)
        for claim in first:
            title = re.sub(r"\s*\([^()]*\)\s*$", "", sources.get(claim, ("", ""))[1])  # "Charmed (TV series)"
            home = [(entity, True) for entity in sorted(self.names().get(name_key(title), ()))]
            # and the names in its text, as a reader would spot them (the extractor may have split one)
            spotted = [(entity, False) for entity in sorted(self.name_matches(text_of[claim], capitalised=True))]
            for entity, subject in [*about.get(claim, []), *home, *spotted]:
                if entity not in named and entity not in via and self.is_bridge(entity):
                    via[entity] = (claim, subject)
        if not via:
            return []
        own_source = {sources[c][0] for c in first if c in sources}  # its claims are scored already
        led_from: dict[str, str] = {}  # a bridge entity's own source -> the claim that led there
        for entity, (claim, _) in via.items():
            for path in self.walk.titled_sources((self._entities.get(entity) or {}).get("name") or ""):
                led_from.setdefault(path, claim)
        rows = [(row, via[row["eid"]][0]) for row in entity_claim_rows(self.store, sorted(via))
                if row["role"] == "subject" or via[row["eid"]][1]]
        # the claims of a bridge entity's own source (when short) that name it otherwise ("It is headquartered in ...")
        rows += [(row, led_from[row["path"]]) for row in self.source_rows(sorted(set(led_from) - own_source), set())]
        found: dict[str, float] = {}
        for row, lead in rows:
            if row["id"] in first or not asked.answers_after(row["text"], row.get("type") or "", text_of[lead]):
                continue
            known = asked.words & terms(text_of[lead])
            gain = len(asked.words & terms(row["text"]) - known) / len(asked.words)
            found[row["id"]] = max(found.get(row["id"], 0.0), scores[lead] + gain)
        return sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))[:BRIDGE_ANSWERS]

    def is_bridge(self, entity: str) -> bool:
        """Whether an entity can lead to a second hop: it has a page, is no nationality, is no hub."""
        row = self._entities.get(entity)
        return (row is not None and row.get("type") not in OFF_WALK_TYPES
                and self.walk.entity_degree(entity) <= self.walk.hub_degree(HUB_DEGREE))

    def has_contradictions(self) -> bool:
        """Whether the graph has any CONTRADICTS edge (asked once: most questions then skip a query)."""
        if self._has_contradictions is None:
            self._has_contradictions = has_contradictions(self.store)
        return self._has_contradictions

    def entity_claims(self, entities: list[str]) -> list[dict[str, Any]]:
        """Live claims about these entities: eid, id, text, conf."""
        if not entities:
            return []
        return entity_claim_rows(self.store, entities)

    def source_claims(self, paths: list[str], entities: set[str]) -> dict[str, list[dict[str, Any]]]:
        """Per source, its live claims about one of `entities` (a row per such entity, eid), and all of
        them for a short source (eid None for the others): path, eid, id, text, conf, type."""
        if not paths:
            return {}
        rows = source_live_claim_rows(self.store, paths, WHOLE_SOURCE_CHUNKS)  # the short sources' claims
        about, _ = self.searcher.claim_entities([r["id"] for r in rows])  # in memory once the searcher holds them
        out: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            reached = sorted({entity for entity, _ in about.get(row["id"], []) if entity in entities})
            out[row["path"]].extend([dict(row, eid=entity) for entity in reached] or [dict(row, eid=None)])
        # a long source (a book, a PDF): only its claims about the reached entities, filtered in the query
        long_paths = [p for p in paths if p not in out]
        for row in source_claim_rows(self.store, long_paths, entities) if long_paths and entities else []:
            out[row["path"]].append(row)
        return dict(out)

    def source_rows(self, paths: list[str], entities: set[str]) -> list[dict[str, Any]]:
        """Live claims of these sources about one of `entities`, all of them for a short source."""
        return source_claim_rows(self.store, paths, entities, WHOLE_SOURCE_CHUNKS) if paths else []

    def claim_refs(self, ids: list[str], scores: dict[str, float]) -> list[ClaimRef]:
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
        if not paths:
            return {}
        return source_slugs(self.store, paths[:50])


@contextmanager
def _store_of(kb_or_store: KnowledgeBase | Store) -> Iterator[Store]:
    if isinstance(kb_or_store, Store):
        yield kb_or_store
    else:
        with indexed_store(kb_or_store.db_path) as store:
            yield store


def navigate(kb_or_store: KnowledgeBase | Store, question: str, budget: int = DEFAULT_BUDGET,
             embedder: Embedder | None = None, mode: str | None = None) -> NavigationResult:
    """One question, start to finish (for many questions, keep a `Navigator`)."""
    with _store_of(kb_or_store) as store:
        return Navigator(store, embedder).navigate(question, budget, mode)


def promoted(ranked: list[str], paths: list[str], rank: int) -> list[str]:
    """`ranked` with each of `paths` moved up to `rank` (1-based) unless already ranked there or better;
    the first of `paths` ends highest."""
    for path in reversed(paths):
        if path not in ranked[:rank]:
            ranked = [*ranked[: rank - 1], path, *(p for p in ranked[rank - 1 :] if p != path)]
    return ranked


def _says_more(quote: str, text: str) -> bool:
    """Whether an evidence quote has words the claim's text lacks (beyond a pronoun the standalone
    text replaced: "It weighed ..." / "ENIAC weighed ...")."""
    have = set(re.findall(r"\w+", text.casefold()))
    return sum(1 for w in re.findall(r"\w+", quote.casefold()) if w not in have) > 2


def _label(value: object) -> str:
    text = " ".join(str(value or "").split())
    return text.replace("|", "¦").replace("[", "(").replace("]", ")")
