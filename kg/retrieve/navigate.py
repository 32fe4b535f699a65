"""Deterministic navigation of the compiled wiki, the way a reader (or an agent) would use it.

`navigate(kb_or_store, question, budget)` is a short pipeline over one parsed question
(kg/retrieve/question.py: tokens, names, kind of value, shape; the raw text is not read again):

1. link: entity pages whose name or alias the question's words spell (longer names weigh more);
2. search (hybrid when an embedder is given, else BM25) over claims, source chunks and answer
   pages;
3. rank: the graph walk (kg/retrieve/walk.py), personalised PageRank restarting on the entities
   and source titles the question names and on the search's best sources, ranks the sources; the
   entities it reaches join the entity ranking (links, the entities of claim hits);
4. claims: those of the best entity pages and of the top sources, scored by overlap with the
   question, search rank, confidence, entity and source rank, and whether they state what the
   question asks (`ParsedQuestion.answers`);
5. strategies (kg/retrieve/strategies/): each that applies to the question's shape adds typed
   evidence: a yes/no `Verdict` ("both", "same"), second-hop answers (`Bridged`), whose sources
   join the top 5;
6. read within the budget: index lines and hit snippets (at most half), then the claims that
   answer, the best claim of each top source, the rest by score, each with its cited source span
   when that says more.

Tokens read are counted as ceil(characters / 4) of every piece of text the navigator read (index
lines, hit snippets, claims, source spans); name lookups, the search engine's ranking and graph hops
are not text and are not counted. A piece that does not fit in what is left of the budget is
skipped. The source ranking does not depend on the budget. Every weight and limit is in
kg/retrieve/settings.py.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from kg.embed import Embedder
from kg.graph.fts import indexed_store
from kg.graph.store import Store
from kg.kb import KnowledgeBase
from kg.names import in_context
from kg.retrieve.context import GraphContext
from kg.retrieve.question import ParsedQuestion, parse_question, terms
from kg.retrieve.results import Citation, ClaimRef, Found, NavigationResult, Read
from kg.retrieve.search import Hit, Searcher
from kg.retrieve.settings import DEFAULT_MODE, DEFAULT_SETTINGS, NavigatorSettings
from kg.retrieve.strategies import Bridged, Findings, Strategy, Verdict, default_strategies
from kg.retrieve.strategies.base import Row
from kg.retrieve.walk import GraphWalk, WalkResult

__all__ = ["DEFAULT_BUDGET", "Citation", "ClaimRef", "NavigationResult", "Navigator", "Read", "navigate", "promoted"]

DEFAULT_BUDGET = 2000


def tokens_of(text: str) -> int:
    return math.ceil(len(text) / 4) if text else 0


class Reader:
    """Counts what is read against the budget: a piece that does not fit is skipped."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.spent = 0
        self.reads: list[Read] = []

    def read(self, kind: str, ref: str, text: str, limit: int | None = None, source: str = "") -> bool:
        cost = tokens_of(text)
        if self.spent + cost > (self.budget if limit is None else limit):
            return False
        self.spent += cost
        self.reads.append(Read(kind, ref, cost, source))
        return True


@dataclass
class Ranking:
    """Steps 1-3: the linked entities, the hits, the entities and sources ranked."""

    linked: dict[str, float]
    hits: list[Hit]
    entity_score: dict[str, float]
    sources: list[str]
    pages: dict[str, float]  # answer pages found by search
    walked: WalkResult

    @property
    def entities(self) -> list[str]:
        return sorted(self.entity_score, key=lambda e: (-self.entity_score[e], e))


@dataclass
class Candidates:
    """Step 4: candidate claims, their scores, which answer, and the claims of each top source."""

    scores: dict[str, float] = field(default_factory=dict)
    answering: set[str] = field(default_factory=set)
    relevant: set[str] = field(default_factory=set)
    texts: dict[str, str] = field(default_factory=dict)
    by_source: dict[str, list[Row]] = field(default_factory=dict)
    rows: list[Row] = field(default_factory=list)  # every candidate row
    hops: dict[str, str] = field(default_factory=dict)  # a second hop's claim -> the first-hop claim that led there


class Navigator:
    """Holds what is worth keeping between questions (the name index, the searcher, the walk's graph)."""

    def __init__(self, store: Store, embedder: Embedder | None = None, searcher: Searcher | None = None,
                 walk: GraphWalk | None = None, settings: NavigatorSettings = DEFAULT_SETTINGS,
                 strategies: Sequence[Strategy] | None = None) -> None:
        self.store = store
        self.settings = settings
        self.searcher = searcher or Searcher(store, embedder)
        self.walk = walk or GraphWalk(store)  # reads the graph on the first question
        self.context = GraphContext(store, self.searcher, self.walk, settings)
        self.strategies = tuple(strategies) if strategies is not None else default_strategies(settings)

    def navigate(self, question: str, budget: int = DEFAULT_BUDGET, mode: str | None = None) -> NavigationResult:
        asked = parse_question(question)
        mode = mode or (DEFAULT_MODE if self.searcher.embedder is not None else "bm25")  # no vectors without an embedder
        ranking = self.rank(asked, mode)
        found = self.candidates(asked, ranking)
        findings = self.findings(ranking, found)
        evidence = [e for s in self.strategies if s.applies(asked) if (e := s.run(asked, findings, self.context)) is not None]
        verdict = next((e for e in evidence if isinstance(e, Verdict)), None)
        for bridged in (e for e in evidence if isinstance(e, Bridged)):
            self.add_hops(bridged, found, ranking)
        self.closest_first(asked, found)
        reader = Reader(max(0, int(budget)))
        self.read_index(ranking, reader)
        claims = self.read_claims(asked, found, ranking, reader, verdict)
        result = self.result(asked, mode, ranking, claims, reader, verdict)
        result.found = explain(claims, found, ranking, mode, verdict)
        return result

    # 1-3: link, search, rank -----------------------------------------------------------------

    def rank(self, asked: ParsedQuestion, mode: str) -> Ranking:
        s = self.settings
        linked = self.context.linked_names(asked.tokens)
        # in score order: the votes below weigh every hit of a source (kg search puts each source's best first)
        hits = self.searcher.search(asked.text, mode, s.search_hits, by_source=False).hits if asked.tokens else []
        entity_score: dict[str, float] = defaultdict(float, linked)
        search_score: dict[str, float] = defaultdict(float)  # sources, by the search hits in them
        pages: dict[str, float] = defaultdict(float)
        for rank, hit in enumerate(hits, 1):
            w = 1.0 / (rank + s.hit_rank_offset)
            if hit.kind == "claim":
                for i, entity in enumerate(hit.entities):
                    entity_score[entity] += w if i == 0 else w * s.other_entity_share
                if hit.source_path:
                    search_score[hit.source_path] += w
            elif hit.kind == "chunk":
                search_score[hit.source_path] += s.chunk_hit_weight * w
            elif hit.kind == "page":
                pages[f"answers/{hit.id}"] += w
        # the walk ranks the sources: restart on the entities and titles the question names and on the
        # search's best sources, spread along mentions, relations and aliases
        searched = sorted(search_score, key=lambda p: (-search_score[p], p))
        prior = {p: 1.0 / (1 + i) for i, p in enumerate(searched[: s.prior_sources])}
        walked = self.walk.walk(asked.tokens, s.walk_depth, prior, s.prior_weight) if asked.tokens else WalkResult([], [])
        walked_paths = set(walked.source_paths)
        sources = walked.source_paths + [p for p in searched if p not in walked_paths]
        reached = [(e, m) for e, m in walked.entities if self.context.has_page(e)]
        top_mass = max((m for _, m in reached), default=0.0) or 1.0
        for entity, mass in reached[: s.walk_entities]:
            entity_score[entity] += mass / top_mass
        return Ranking(linked, hits, dict(entity_score), sources, dict(pages), walked)

    # 4: candidate claims ----------------------------------------------------------------------

    def candidates(self, asked: ParsedQuestion, ranking: Ranking) -> Candidates:
        """Claims of the best entity pages and of the top sources, scored."""
        s = self.settings
        hit_rank = {h.id: r for r, h in enumerate(ranking.hits, 1) if h.kind == "claim"}
        rows = self.context.entity_claims(ranking.entities[: s.drill_entities])
        reached = {e for e, _ in ranking.walked.entities} | set(ranking.linked)
        top = ranking.sources[: s.source_evidence]
        found = Candidates(relevant=set(hit_rank), by_source=self.context.candidate_source_claims(top, reached))
        for source_rows in found.by_source.values():
            rows.extend(source_rows)
        source_rank = {p: r for r, p in enumerate(top, 1)}
        for row in rows:
            score = self.claim_score(asked, row, hit_rank, source_rank, ranking.entity_score)
            if asked.answers(row["text"], row.get("type") or ""):
                found.answering.add(row["id"])
                score += s.answer_weight + (s.source_answer_weight if row.get("path") in source_rank else 0.0)
            if terms(row["text"]) & asked.words or row["id"] in hit_rank or row.get("path") in source_rank:
                found.relevant.add(row["id"])
            found.scores[row["id"]] = max(found.scores.get(row["id"], 0.0), score)
        for claim_id, rank in hit_rank.items():
            found.scores.setdefault(claim_id, 1.0 / (rank + s.hit_bonus_offset))
        # hits as the rows are (kg/retrieve/context.py `_in_context`): after their subject's name when
        # the sentence does not name it (a claim hit's page is its subject's)
        found.texts = {row["id"]: row["text"] for row in rows} | {
            h.id: in_context(h.text, self.context.entity_name(h.page.removeprefix("entities/")) if h.page else "")
            for h in ranking.hits if h.kind == "claim"}
        found.rows = rows
        return found

    def claim_score(self, asked: ParsedQuestion, row: Row, hit_rank: dict[str, int], source_rank: dict[str, int],
                    entity_score: dict[str, float]) -> float:
        """Overlap with the question's words, search rank, confidence, entity rank and source rank."""
        s = self.settings
        score = len(asked.words & terms(row["text"])) / (len(asked.words) or 1)
        if row["id"] in hit_rank:
            score += 1.0 / (hit_rank[row["id"]] + s.hit_bonus_offset)
        score += s.confidence_weight * float(row["conf"] or 0) + s.entity_weight * entity_score.get(row["eid"], 0.0)
        if row.get("path") in source_rank:
            score += s.source_weight / (source_rank[row["path"]] + 1)
        return score

    # 5: strategies ----------------------------------------------------------------------------

    def findings(self, ranking: Ranking, found: Candidates) -> Findings:
        """What strategies are given: the links, the scored candidates, and the openings (the best
        claims of the sources the question names by title: "Drew Fuller" -> "He is best known for ...
        Charmed", which repeats no word of the question)."""
        s = self.settings
        titled = sorted(ranking.walked.linked_sources, key=lambda p: (-ranking.walked.linked_sources[p], p))[: s.openings]
        openings = [r["id"] for p in titled
                    for r in sorted(found.by_source.get(p, []), key=lambda r: (-found.scores[r["id"]], r["id"]))[: s.opening_claims]]
        return Findings(ranking.linked, found.scores, frozenset(found.relevant), found.texts, tuple(dict.fromkeys(openings)))

    def add_hops(self, bridged: Bridged, found: Candidates, ranking: Ranking) -> None:
        """Second-hop answers are read first, and their sources join the top 5 after the first hop's best."""
        s = self.settings
        for hop in bridged.answers:
            found.hops.setdefault(hop.claim, hop.lead)
            found.scores[hop.claim] = max(found.scores.get(hop.claim, 0.0), hop.score)
            found.answering.add(hop.claim)
            found.relevant.add(hop.claim)
        best = [hop.claim for hop in bridged.answers[: s.hop_sources]]
        _, where = self.context.claim_origins(best)
        ranking.sources = promoted(ranking.sources, [where[c][0] for c in best if c in where], s.hop_source_rank)

    def closest_first(self, asked: ParsedQuestion, found: Candidates) -> None:
        """When no claim answers (after the strategies too), the closest read first are those about a
        thing the question names that hold a value of the kind asked ("Manon Balletti (1740 – 1776) ..."
        for "When did Manon die?"). After the second hop, so that they lead no hop."""
        if found.answering or not self.settings.value_weight:
            return
        for claim_id in {row["id"] for row in found.rows if asked.holds_value(row["text"], row.get("type") or "")}:
            found.scores[claim_id] += self.settings.value_weight

    # 6: reading -------------------------------------------------------------------------------

    def read_index(self, ranking: Ranking, reader: Reader) -> None:
        """Index lines of the linked entities, then the snippets of chunk and page hits (claim hits are
        read with the claims), with at most a share of the budget."""
        limit = int(reader.budget * self.settings.index_share)
        for entity in sorted(ranking.linked, key=lambda e: (-ranking.linked[e], e)):
            reader.read("index", f"entities/{entity}", self.context.index_line(entity), limit)
        for hit in ranking.hits:
            if hit.kind != "claim":
                reader.read("hit", f"{hit.kind}:{hit.id}", hit.text[: self.settings.snippet_chars], limit, hit.source_path)

    def read_claims(self, asked: ParsedQuestion, found: Candidates, ranking: Ranking, reader: Reader,
                    verdict: Verdict | None) -> list[ClaimRef]:
        """Claims that answer first, then the best claim of each top source, then the rest by score."""
        s = self.settings
        ordered = sorted(found.relevant, key=lambda c: (-found.scores[c], c))[: s.candidate_claims]
        best_of_source = [max(found.by_source[p], key=lambda r: (found.scores[r["id"]], r["id"]))["id"]
                          for p in ranking.sources[: s.source_evidence] if found.by_source.get(p)]
        reading = list(dict.fromkeys([*(c for c in ordered if c in found.answering), *best_of_source, *ordered]))
        details = {c.id: c for c in self.context.claim_refs(reading, found.scores)}
        kept: list[ClaimRef] = []
        for claim_id in reading:
            ref = details.get(claim_id)
            cited = ref.citations[0].source_path if ref and ref.citations else ""
            # read with its subject's name when the sentence does not name it ("ENIAC: It weighed ...")
            if ref is None or not reader.read("claim", claim_id, ref.in_context, source=cited):
                continue
            ref.answers = claim_id in found.answering or asked.answers(ref.in_context, ref.claim_type)  # search hits too
            kept.append(ref)
            for citation in ref.citations[:1]:  # the cited span, when it says more than the claim
                if _says_more(citation.quote, ref.in_context):
                    reader.read("span", f"{citation.source_path}:{citation.char_start}-{citation.char_end}",
                                citation.quote, source=citation.source_path)
            if len(kept) >= s.kept_claims:
                break
        kept.sort(key=lambda c: (-found.scores[c.id], c.id))
        if verdict is not None:  # the claims the verdict rests on are cited too, first
            extra = [c for c in verdict.claims if c not in {k.id for k in kept}]
            for ref in self.context.claim_refs(extra, found.scores):
                ref.answers = True
                kept.insert(0, ref)
        return kept

    def result(self, asked: ParsedQuestion, mode: str, ranking: Ranking, claims: list[ClaimRef], reader: Reader,
               verdict: Verdict | None) -> NavigationResult:
        s = self.settings
        entities = ranking.entities[: s.result_entities]
        slugs = self.context.source_slugs(ranking.sources)
        pages = [f"entities/{e}" for e in entities]
        pages += [f"sources/{slugs[p]}" for p in ranking.sources[: s.result_sources] if p in slugs]
        pages += sorted(ranking.pages, key=lambda p: (-ranking.pages[p], p))
        return NavigationResult(
            asked.text, reader.budget, pages, ranking.sources, claims, reader.spent, reader.reads,
            {e: self.context.entity_name(e) for e in entities}, answer_kind=asked.kind, shape=asked.shape,
            search_mode=mode, contradictions=self.context.contradictions([c.id for c in claims]),
            judged=asked.judged, verdict=verdict, linked=dict(ranking.linked))


EXPLAINED_PAGES = 2  # the entity pages that weigh most in a claim's score; the others add little


def explain(claims: list[ClaimRef], found: Candidates, ranking: Ranking, mode: str, verdict: Verdict | None) -> list[Found]:
    """Each claim read, with every way the navigator came to it: a search hit, an entity page it
    drilled into, a top source, a second hop, the verdict, and whether it answers."""
    hit_rank = {h.id: r for r, h in enumerate(ranking.hits, 1) if h.kind == "claim"}
    source_rank = {p: r for r, p in enumerate(ranking.sources, 1)}
    rows: dict[str, list[Row]] = defaultdict(list)
    for row in found.rows:
        rows[row["id"]].append(row)
    rested_on = set(verdict.claims) if verdict else set()
    out = []
    for claim in claims:
        ways = [f"search hit {hit_rank[claim.id]} ({mode})"] if claim.id in hit_rank else []
        its = rows.get(claim.id, [])
        pages = sorted({r["eid"] for r in its if r.get("eid") in ranking.entity_score},
                       key=lambda e: (-ranking.entity_score[e], e))
        ways += [f"entity page {e} ({ranking.entity_score[e]:.2f})" for e in pages[:EXPLAINED_PAGES]]
        ways += [f"source {source_rank[p]}: {p}" for p in sorted({r["path"] for r in its if r.get("path") in source_rank})]
        if claim.id in found.hops:
            ways.append(f"second hop from claim {found.hops[claim.id]}")
        if claim.id in rested_on:
            ways.append("the yes/no verdict rests on it")
        if claim.answers:
            ways.append("states what the question asks")
        out.append(Found(claim.id, found.scores.get(claim.id, 0.0), list(dict.fromkeys(ways))))
    return out


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
    """Whether an evidence quote has words the claim's text lacks (an LLM's claim is a paraphrase; the
    offline extractor's is the quote's own sentence)."""
    have = set(re.findall(r"\w+", text.casefold()))
    return sum(1 for w in re.findall(r"\w+", quote.casefold()) if w not in have) > 2
