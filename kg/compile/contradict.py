"""Contradictions and supersession between claims, found at compile time.

Candidates, never all pairs: claims about the same subject entity, plus lexical neighbours
through an inverted index over content words (plus embedding neighbours when an embedder is
given). A judge decides each candidate pair; `RuleJudge` is the offline one. Findings become
CONTRADICTS edges; nothing is deleted. Declared single-valued predicates are resolved by
time instead: the later claim SUPERSEDES the earlier one.

Cost: the first compile (or a bulk one) loads and stems every live claim. A small incremental
compile, given the persistent stem index (kg/compile/stems.py), loads only the new claims' neighbourhood
(same-subject claims and the claims sharing their rare stems) and finds exactly the candidates
the full path would.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
import sqlite3
from abc import ABC, abstractmethod
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kg.compile.stems import StemIndex
from kg.extract.facets import date_facets, quantity_facets
from kg.graph.claims import (
    all_claim_texts,
    claim_total_and_first,
    contradictions_among,
    count_live_claims,
    live_claim_rows,
    live_claim_subjects,
    live_claims_of_subjects,
    mark_claims_checked,
    unchecked_live_claims,
)
from kg.graph.store import Store, WriteBatch, now_iso
from kg.text import CLAIM_STOPWORDS

_WORD = re.compile(r"[a-z0-9][a-z0-9-]*")
NEGATIONS = {"not", "no", "never", "neither", "nor", "cannot", "none", "without", "lack", "lacks", "lacking",
             "unrelated", "fails", "fail", "failed", "absent", "n't"}
# Words that state a direction of effect; opposite signs on otherwise similar claims disagree.
# Matched on stems (see `stem`), so "enhances", "enhanced" and "enhancement" all count.
UP_WORDS = """increase enhance promote raise higher more greater activate stimulate induce upregulate catalyze
accelerate elevate augment boost perpetuate generate generation essential require gain strengthen facilitate
exacerbate susceptible susceptibility faster larger bigger rise rose grow grew positive cause
encourage vulnerable vulnerability presence present support""".split()
DOWN_WORDS = """decrease reduce inhibit lower less fewer suppress impede impair prevent downregulate antagonize delay
diminish attenuate disrupt remove removal block dispensable loss lose weaken hinder immune resist resistant abolish
slow slower smaller fall fell decline drop negative deplete depletion protect protective absence absent""".split()
# Pairs of opposite terms that are not directions of effect.
ANTONYMS = [tuple(pair.split("/")) for pair in """central/peripheral inner/outer early/late acute/chronic benign/malignant
male/female maximum/minimum before/after upper/lower safe/unsafe effective/ineffective successful/unsuccessful
sufficient/insufficient necessary/unnecessary common/rare first/last major/minor all/none always/never
increased/decreased same/different similar/different identical/different short/long old/young
improve/worsen better/worse benefit/harm beneficial/harmful""".split()]
SUPERLATIVES = {"first", "only", "last", "largest", "smallest", "earliest", "oldest", "fastest", "biggest", "sole"}

# Candidates (read at call time, so a test can shrink them).
MAX_DF = 500  # a stem more live claims share than this says nothing about which ones are related
NEIGHBOURS = 20  # lexical neighbours judged per new claim
PER_SUBJECT = 200  # claims of the same subject judged per new claim
# Incremental detection (needs the stem index) when the new claims are at most this many and
# less than this share of the live claims; otherwise every live claim is loaded.
INCREMENTAL_MAX_NEW = 2000
INCREMENTAL_MAX_SHARE = 0.2


def stem(word: str) -> str:
    for suffix in ("ations", "ation", "ments", "ment", "ings", "ing", "ions", "ion", "ies", "es", "ed", "er", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def content_stems(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.lower().replace("n't", " not")) if w not in CLAIM_STOPWORDS and w not in NEGATIONS]


# What the stem index was built with: a change of the stemmer or the word lists rebuilds it.
_PROBE = "relations creation statements payment readings reading sessions session studies boxes tested larger cases phone isn't"
STEMMER = hashlib.sha256("\x1f".join([*sorted(CLAIM_STOPWORDS), *sorted(NEGATIONS), *content_stems(_PROBE)]).encode()).hexdigest()[:16]


def _lexicon(words: list[str]) -> tuple[set[str], tuple[str, ...]]:
    stems = {stem(w) for w in words}
    return stems, tuple(s for s in stems if len(s) >= 6)  # long stems also match longer forms


UP, UP_PREFIXES = _lexicon(UP_WORDS)
DOWN, DOWN_PREFIXES = _lexicon(DOWN_WORDS)


_ANTONYM_STEMS = [(stem(left), stem(right)) for left, right in ANTONYMS]


@functools.lru_cache(maxsize=100_000)
def _stem_direction(s: str) -> int:
    if s in UP or s.startswith(UP_PREFIXES):
        return 1
    return -1 if s in DOWN or s.startswith(DOWN_PREFIXES) else 0


def _direction(stems: Iterable[str]) -> int:
    score = sum(_stem_direction(s) for s in stems)
    return (score > 0) - (score < 0)


@functools.lru_cache(maxsize=200_000)
def _negated(text: str) -> bool:
    words = set(_WORD.findall(text.lower().replace("n't", " not")))
    return bool(words & NEGATIONS) and "not only" not in text.lower()


@dataclass
class ClaimRecord:
    id: str
    text: str
    subject: str
    predicate: str
    claim_type: str
    polarity: int
    object: str
    confidence: float
    authority: int = 0
    valid_from: str | None = None
    recorded_at: str = ""
    entities: frozenset[str] = frozenset()
    stems: list[str] = field(default_factory=list)
    sources: tuple[str, ...] = ()  # paths of the sources whose evidence is live (shown to an LLM judge)

    def __post_init__(self) -> None:
        if not self.stems:
            self.stems = content_stems(self.text)
        # Derived once per claim, not once per candidate pair.
        self.stem_set = frozenset(self.stems)
        self.core = frozenset(s for s in self.stem_set if not _stem_direction(s))
        self.negated = _negated(self.text)
        self.has_number = any(ch.isdigit() for ch in self.text)


@dataclass(frozen=True)
class Finding:
    a: str
    b: str
    reason: str
    confidence: float
    method: str


class ContradictionJudge(ABC):
    method = "judge"

    @abstractmethod
    def judge(self, pairs: Sequence[tuple[ClaimRecord, ClaimRecord]]) -> list[Finding | None]:
        """For each candidate pair, a Finding when the two claims cannot both hold, else None."""


def _stems(words: str) -> set[str]:
    return {stem(w) for w in words.split() if w not in CLAIM_STOPWORDS}


def _jaccard(a: Set[str], b: Set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


class RuleJudge(ContradictionJudge):
    """Offline rules: polarity flips, opposite directions, different values, exclusive superlatives."""

    method = "rules"

    def __init__(self, similarity: float = 0.45, direction_similarity: float = 0.3) -> None:
        self.similarity = similarity  # shared content needed before a negation flip counts
        self.direction_similarity = direction_similarity  # ... before opposite directions count

    def judge(self, pairs: Sequence[tuple[ClaimRecord, ClaimRecord]]) -> list[Finding | None]:
        return [self.judge_one(a, b) for a, b in pairs]

    def judge_one(self, a: ClaimRecord, b: ClaimRecord) -> Finding | None:
        confidence = round(min(a.confidence, b.confidence) ** 0.5, 2)
        comparative = " than " in a.text or " than " in b.text  # a comparison's number is about its own subject
        related = a.subject == b.subject or (not comparative and (a.subject in b.entities or b.subject in a.entities))
        if related and a.has_number and b.has_number:
            found = self._values(a, b, confidence)
            if found:
                return found
        sa, sb = a.stem_set, b.stem_set
        core = _jaccard(a.core, b.core)
        shared = len(a.core & b.core)
        neg_a, neg_b = a.negated, b.negated
        dir_a, dir_b = _direction(sa - sb), _direction(sb - sa)
        if dir_a and dir_b and dir_a != dir_b and neg_a == neg_b and core >= self.direction_similarity and shared >= 3:
            return Finding(a.id, b.id, "opposite directions of effect", confidence, self.method)
        if core < self.similarity:
            return self._superlatives(a, b, confidence)
        if _reversed_comparison(a.text, b.text):
            return Finding(a.id, b.id, "the same comparison the other way round", confidence, self.method)
        only_a, only_b = sa - sb, sb - sa
        for left, right in _ANTONYM_STEMS:
            if (left in only_a and right in only_b) or (right in only_a and left in only_b):
                return Finding(a.id, b.id, f"opposite terms: {left} / {right}", confidence, self.method)
        if core >= 0.8 and (dir_a or dir_b) and len(only_a) <= 2 and len(only_b) <= 2 and neg_a == neg_b and dir_a != dir_b:
            return Finding(a.id, b.id, "the same statement with a different effect", round(confidence * 0.9, 2), self.method)
        effect_a = 0 if neg_a else dir_a
        effect_b = 0 if neg_b else dir_b
        negation_flip = neg_a != neg_b
        if negation_flip and (not (dir_a or dir_b) or effect_a != effect_b):
            return Finding(a.id, b.id, "one claim negates the other", round(confidence * min(1.0, core + 0.2), 2), self.method)
        return self._superlatives(a, b, confidence)

    @staticmethod
    def _values(a: ClaimRecord, b: ClaimRecord, confidence: float) -> Finding | None:
        """Same subject (or a shared entity), what is measured overlaps, the values differ."""
        for pred_a, value_a, unit_a in quantity_facets(a.text):
            for pred_b, value_b, unit_b in quantity_facets(b.text):
                shared = _stems(pred_a) & _stems(pred_b)
                if unit_a != unit_b or not shared:
                    continue
                if abs(value_a - value_b) > 0.005 * max(abs(value_a), abs(value_b)):
                    what = " ".join(sorted(shared))
                    reason = f"different values for {what}: {value_a:g} vs {value_b:g} {unit_a}"
                    return Finding(a.id, b.id, reason, confidence, "rules")
        for pred_a, iso_a in date_facets(a.text):
            for pred_b, iso_b in date_facets(b.text):
                shared = _stems(pred_a) & _stems(pred_b)
                if len(shared) >= min(2, len(_stems(pred_a)), len(_stems(pred_b))) and shared and not (
                    iso_a.startswith(iso_b) or iso_b.startswith(iso_a)
                ):
                    what = " ".join(sorted(shared))
                    return Finding(a.id, b.id, f"different dates for {what}: {iso_a} vs {iso_b}", confidence, "rules")
        return None

    @staticmethod
    def _superlatives(a: ClaimRecord, b: ClaimRecord, confidence: float) -> Finding | None:
        """"X was the first Y" and "Z was the first Y": both cannot hold."""
        if a.subject == b.subject or a.claim_type != "definition" or b.claim_type != "definition" or a.polarity < 0 or b.polarity < 0:
            return None
        words_a, words_b = a.object.lower().split(), b.object.lower().split()
        if not words_a or not words_b or words_a[0] not in SUPERLATIVES or words_a[0] != words_b[0]:
            return None
        if _jaccard(set(content_stems(a.object)), set(content_stems(b.object))) >= 0.6:
            return Finding(a.id, b.id, f"both claim to be the {words_a[0]} of their kind", round(confidence * 0.8, 2), "rules")
        return None


def _reversed_comparison(a: str, b: str) -> bool:
    """"X is more effective than Y" against "Y is more effective than X"."""
    if " than " not in a or " than " not in b:
        return False
    left_a, right_a = (set(content_stems(part)) for part in a.split(" than ", 1))
    left_b, right_b = (set(content_stems(part)) for part in b.split(" than ", 1))
    subject_a, subject_b = left_a - right_b, left_b - right_a
    return bool(subject_a) and bool(subject_b) and _jaccard(subject_a, right_b) >= 0.6 and _jaccard(subject_b, right_a) >= 0.6


class CandidateIndex:
    """Lexical neighbours of claims: an idf-weighted sparse claim x stem matrix, so finding the
    neighbours of every new claim is one sparse matrix product instead of a Python loop."""

    def __init__(self, claims: Sequence[ClaimRecord], max_df: int = 500) -> None:
        from scipy.sparse import csr_matrix

        self.claims = claims
        df: dict[str, int] = defaultdict(int)
        for claim in claims:
            for s in claim.stem_set:
                df[s] += 1
        n = max(1, len(claims))
        vocab = {s: col for col, s in enumerate(sorted(s for s, d in df.items() if d <= max_df))}
        rows, cols, idf = [], [], []
        for i, claim in enumerate(claims):
            for s in sorted(claim.stem_set):
                if s in vocab:
                    rows.append(i)
                    cols.append(vocab[s])
                    idf.append(math.log(n / df[s]))
        shape = (len(claims), len(vocab))
        self.weighted = csr_matrix((np.array(idf, dtype=np.float64), (rows, cols)), shape=shape)
        self.present = csr_matrix((np.ones(len(rows), dtype=np.float64), (rows, cols)), shape=shape)

    def neighbours_of(self, rows: Sequence[int], k: int = 10, min_shared: int = 2) -> dict[int, list[int]]:
        """For each row index: up to k other claims sharing >= min_shared rare stems, best idf overlap first."""
        if not rows:
            return {}
        scores = (self.weighted[list(rows)] @ self.present.T).tocsr()
        shared = (self.present[list(rows)] @ self.present.T).tocsr()
        scores.sort_indices()
        shared.sort_indices()
        out: dict[int, list[int]] = {}
        for position, i in enumerate(rows):
            start, end = shared.indptr[position], shared.indptr[position + 1]
            cols, counts = shared.indices[start:end], shared.data[start:end]
            # `scores` drops pairs whose shared stems all have idf 0 (a stem in every claim, in a
            # graph of at most max_df claims): their score is 0, not a misaligned slice.
            vals = np.zeros(len(cols))
            start, end = scores.indptr[position], scores.indptr[position + 1]
            vals[np.searchsorted(cols, scores.indices[start:end])] = scores.data[start:end]
            keep = (counts >= min_shared) & (cols != i)
            cols, vals = cols[keep], vals[keep]
            order = np.lexsort((cols, -vals))[:k]  # best overlap first, ties by position
            out[i] = cols[order].tolist()
        return out


def candidate_pairs(claims: Sequence[ClaimRecord], new_ids: set[str], per_subject: int = 200, k: int = 20,
                    max_df: int = 500, lexical: Mapping[str, Sequence[str]] | None = None) -> list[tuple[int, int]]:
    """Index pairs (i < j) to judge: new claims against claims of the same subject and lexical neighbours.

    `claims` sorted by id. `lexical`: the new claims' lexical neighbours (ids) when found elsewhere
    (see `lexical_neighbours`); None: found here, with `claims` taken as every live claim."""
    by_subject: dict[str, list[int]] = defaultdict(list)
    for i, claim in enumerate(claims):
        by_subject[claim.subject].append(i)
    new_rows = [i for i, claim in enumerate(claims) if claim.id in new_ids]
    neighbours: dict[int, list[int]] = {}
    if lexical is not None:
        row_of = {claim.id: i for i, claim in enumerate(claims)}
        neighbours = {i: [row_of[c] for c in lexical.get(claims[i].id, ())] for i in new_rows}
    elif new_rows:
        index = CandidateIndex(claims, max_df)
        for start in range(0, len(new_rows), 2000):  # bounded memory for the sparse products
            neighbours.update(index.neighbours_of(new_rows[start : start + 2000], k))
    pairs: set[tuple[int, int]] = set()
    for i in new_rows:
        claim = claims[i]
        same = [j for j in by_subject[claim.subject] if j != i]
        same.sort(key=lambda j: (claims[j].predicate != claim.predicate, claims[j].id))
        for j in (*same[:per_subject], *neighbours.get(i, [])):
            pairs.add((min(i, j), max(i, j)))
    return sorted(pairs)


def load_claim_records(store: Store, ids: Sequence[str] | None = None,
                       stems: Mapping[str, list[str]] | None = None) -> list[ClaimRecord]:
    """Live claims (with a subject entity) sorted by id: all of them, or those among `ids`.
    `stems`: content stems already known by claim id (the others are stemmed here)."""
    if ids is not None and not ids:
        return []
    rows = live_claim_rows(store, ids)
    known = stems or {}
    records = []
    for r in rows:
        values: dict[str, Any] = {k: (v if v is not None else d) for (k, v), d in zip(r.items(), _DEFAULTS, strict=True)}
        values["sources"] = tuple(sorted({p for p in values["sources"] if p}))
        values["entities"] = frozenset(values["entities"])
        records.append(ClaimRecord(**values, stems=list(known.get(r["id"], ()))))
    return records


_DEFAULTS = ("", "", "", "", "fact", 1, "", 0.5, 0, None, "", (), ())  # in the order of live_claim_rows's columns


@dataclass
class ContradictionReport:
    candidates: int = 0
    found: int = 0
    superseded: int = 0
    loaded: int = 0  # claim records loaded: every live claim, or the new claims' neighbourhood


def detect(store: Store, judge: ContradictionJudge | None = None, single_valued: Sequence[str] = (),
           stems: StemIndex | None = None) -> ContradictionReport:
    """Judge candidate pairs of live claims not checked yet against all live claims; record
    CONTRADICTS / SUPERSEDES edges and mark the claims checked, in one transaction.

    `stems`: the persistent stem index. With it, a few new claims in a large graph are checked
    loading only their neighbourhood (same findings); it is filled whenever every claim is loaded."""
    judge = judge or RuleJudge()
    report = ContradictionReport()
    new = {r["id"]: r["text"] or "" for r in unchecked_live_claims(store)}
    if not new:
        return report
    new_ids = set(new)
    single = set(single_valued)
    local = None
    if stems is not None:
        try:
            local = _neighbourhood(store, stems, new, single)
        except sqlite3.Error:  # a broken cache: start it over; the full path below refills it
            stems.reset()
    if local is None:
        claims, lexical = load_claim_records(store), None
        if stems is not None:
            try:
                _fill(store, stems, claims)
            except sqlite3.Error:
                stems.reset()
    else:
        claims, lexical = local
    report.loaded = len(claims)
    batch = WriteBatch()
    now = now_iso()
    report.superseded = _supersede(claims, new_ids, single, batch)
    superseded = {row["dst"] for row in batch.rels.get("SUPERSEDES", [])}
    pairs = [(claims[i], claims[j]) for i, j in candidate_pairs(claims, new_ids, PER_SUBJECT, NEIGHBOURS, MAX_DF, lexical)
             if claims[i].id not in superseded and claims[j].id not in superseded]
    report.candidates = len(pairs)
    found = [(a, b, f) for (a, b), f in zip(pairs, judge.judge(pairs), strict=True) if f is not None]
    existing = {(r["a"], r["b"]) for r in contradictions_among(
        store, {c.id for a, b, _ in found for c in (a, b)})} if found else set()
    for a, b, finding in found:
        if (a.id, b.id) in existing or (b.id, a.id) in existing:
            continue
        batch.relate("CONTRADICTS", {"src": a.id, "dst": b.id, "reason": finding.reason, "confidence": finding.confidence,
                                     "method": finding.method, "detected_at": now})
        report.found += 1
    mark_claims_checked(store, batch, new_ids, now)
    store.write(batch)
    return report


def _graph(store: Store) -> tuple[int, str]:
    """How many claims the graph has (of any status), and what a stem index for it is built for."""
    row = claim_total_and_first(store)
    return int(row["n"]), f"{STEMMER} {row['first']}"  # claims are never deleted: the first one dates the graph


def _fill(store: Store, index: StemIndex, claims: Sequence[ClaimRecord]) -> None:
    """Make the stem index cover every claim in the graph, given every live claim's record."""
    total, identity = _graph(store)
    if index.identity() != identity:  # a new index, another stemmer or another graph
        index.clear(identity)
    index.add((c.id, c.stems) for c in claims)
    if index.count() == total:  # the index only holds claims of this graph: the same claims
        return
    known = index.ids()
    rows = all_claim_texts(store)  # not live: retracted, superseded, ...
    index.add((r["id"], content_stems(r["text"] or "")) for r in rows if r["id"] not in known)


def _neighbourhood(store: Store, index: StemIndex, new: Mapping[str, str],
                   single_valued: set[str]) -> tuple[list[ClaimRecord], dict[str, list[str]]] | None:
    """What the full path would use for these new claims, loading only their neighbourhood: the
    records of the new claims, of the first PER_SUBJECT claims of their subjects in candidate
    order, of every claim of a new claim's (subject, single-valued predicate) (`_supersede` sees
    whole groups) and of their lexical neighbours; and the lexical neighbours. None when the new
    claims are too many, or the stem index does not cover the graph: the full path runs."""
    live = count_live_claims(store)
    if len(new) > INCREMENTAL_MAX_NEW or len(new) >= INCREMENTAL_MAX_SHARE * live:
        return None
    total, identity = _graph(store)
    if index.identity() != identity:
        return None
    new_stems = {cid: content_stems(text) for cid, text in sorted(new.items())}
    index.add(new_stems.items())
    if index.count() != total:  # claims stored before the index existed, or lost with it
        return None
    # Stems in more than MAX_DF + (total - live) claims are in more than MAX_DF live ones.
    wanted = sorted({s for stems in new_stems.values() for s in stems})
    stored = index.df(wanted)
    postings = index.postings([s for s in wanted if stored[s] - (total - live) <= MAX_DF])
    ask = sorted(set(new).union(*postings.values()))
    rows = {r["id"]: (r["subject"], r["predicate"] or "")  # live claims with a subject: the full path's
            for r in live_claim_subjects(store, ask)}
    fresh = {cid: new_stems[cid] for cid in sorted(new) if cid in rows}
    lexical = lexical_neighbours(fresh, {s: [c for c in ids if c in rows] for s, ids in postings.items()}, live,
                                 NEIGHBOURS, MAX_DF)
    needed = set(fresh).union(*lexical.values())
    by_subject: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in live_claims_of_subjects(store, {rows[cid][0] for cid in fresh}):
        by_subject[r["subject"]].append((r["id"], r["predicate"] or ""))
    for cid in fresh:
        subject, predicate = rows[cid]
        same = sorted((p != predicate, other) for other, p in by_subject[subject] if other != cid)
        needed.update(other for _, other in same[:PER_SUBJECT])
        if predicate in single_valued:
            needed.update(other for other, p in by_subject[subject] if p == predicate)
    return load_claim_records(store, sorted(needed), new_stems), lexical


def lexical_neighbours(claims: Mapping[str, Iterable[str]], postings: Mapping[str, Sequence[str]], rows: int,
                       k: int = 20, max_df: int = 500) -> dict[str, list[str]]:
    """`CandidateIndex.neighbours_of` for some claims (id -> content stems), given the postings of
    their stems over the rows, i.e. the live claims (a stem without postings: too common):
    up to k claims sharing >= 2 stems that at most max_df rows have, best sum of the shared
    stems' idf first (added in stem order, as the sparse product does), ties by id."""
    n = max(1, rows)
    idf = {s: math.log(n / len(ids)) for s, ids in postings.items() if 0 < len(ids) <= max_df}
    out: dict[str, list[str]] = {}
    for cid, stems in claims.items():
        scores: dict[str, float] = {}
        shared: Counter[str] = Counter()
        for s in sorted(set(stems)):
            if s in idf:
                for other in postings[s]:
                    scores[other] = scores.get(other, 0.0) + idf[s]
                    shared[other] += 1
        ranked = sorted((o for o in scores if shared[o] >= 2 and o != cid), key=lambda o: (-scores[o], o))
        out[cid] = ranked[:k]
    return out


def _supersede(claims: Sequence[ClaimRecord], new_ids: set[str], single_valued: set[str], batch: WriteBatch) -> int:
    """For declared single-valued predicates, the claim valid later supersedes the earlier ones."""
    if not single_valued:
        return 0
    groups: dict[tuple[str, str], list[ClaimRecord]] = defaultdict(list)
    for claim in claims:
        if claim.predicate in single_valued:
            groups[(claim.subject, claim.predicate)].append(claim)
    count = 0
    for group in groups.values():
        if len(group) < 2 or not any(c.id in new_ids for c in group):
            continue
        ordered = sorted(group, key=lambda c: (c.valid_from or "", c.recorded_at, c.id))
        latest = ordered[-1]
        for older in ordered[:-1]:
            batch.relate("SUPERSEDES", {"src": latest.id, "dst": older.id,
                                        "reason": f"{latest.predicate} is single-valued; valid from {latest.valid_from or latest.recorded_at}"})
            batch.update("Claim", {"id": older.id, "status": "superseded"})
            count += 1
    return count

