"""Contradictions and supersession between claims, found at compile time.

Candidates, never all pairs: claims about the same subject, after resolution (the subject's
group, kg/compile/groups.py), that share content words. Two claims about different things are
never compared, and whether a pair is a candidate depends only on the two claims and their
groups, so the findings do not depend on the order the sources arrived in. A judge decides each
candidate pair; `RuleJudge` is the offline one. Findings become CONTRADICTS edges. Declared
single-valued predicates are resolved by validity instead: the claim valid later SUPERSEDES
the earlier one (ties by id, never by arrival).

Cost: a bulk compile loads and stems every live claim; a small one loads the claims of its new
claims' groups.
"""

from __future__ import annotations

import functools
import hashlib
import re
from abc import ABC, abstractmethod
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from kg.extract.facets import date_facets, quantity_facets
from kg.graph.claims import (
    count_live_claims,
    drop_contradictions_of,
    live_claim_rows,
    live_claim_subjects,
    live_claims_of_subjects,
    mark_claims_checked,
    unchecked_live_claims,
)
from kg.graph.entities import alias_edge_rows
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

MIN_SHARED = 2  # content stems two claims about one group share before they are judged
# Detection loads only the new claims' groups when they are at most this many and less than this
# share of the live claims; otherwise every live claim is loaded.
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


@functools.lru_cache(maxsize=200_000)
def _attributes(text: str) -> frozenset[tuple[str, ...]]:
    """What a claim measures or dates: (unit, word stem) of each quantity, ("date", word stem) of
    its date; two claims that share one may disagree on its value."""
    keys = {(unit, s) for pred, _, unit in quantity_facets(text) for s in _stems(pred)}
    keys |= {("date", s) for pred, _ in date_facets(text) for s in _stems(pred)}
    return frozenset(keys)


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
        self.attributes = _attributes(self.text) if self.has_number else frozenset()


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


def candidate_pairs(claims: Sequence[ClaimRecord], new_ids: set[str], canonical: Mapping[str, str],
                    min_shared: int = MIN_SHARED) -> list[tuple[int, int]]:
    """Index pairs (i < j) to judge: each new claim with the claims about its subject's group (the
    entity and everything grouped with it, kg/compile/groups.py) that share at least `min_shared`
    content stems with it. A relation of the two claims and their groups only, so the same pairs
    are found whichever claim arrived first; `claims` sorted by id."""
    by_group: dict[str, list[int]] = defaultdict(list)
    for i, claim in enumerate(claims):
        by_group[canonical.get(claim.subject, claim.subject)].append(i)
    pairs: set[tuple[int, int]] = set()
    for rows in by_group.values():
        fresh = [i for i in rows if claims[i].id in new_ids]
        if not fresh or len(rows) < 2:
            continue
        postings: dict[str, list[int]] = defaultdict(list)
        measured: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for i in rows:
            for s in claims[i].stem_set:
                postings[s].append(i)
            for key in claims[i].attributes:
                measured[key].append(i)
        for i in fresh:
            shared: Counter[int] = Counter()
            for s in claims[i].stem_set:
                shared.update(postings[s])
            pairs.update((min(i, j), max(i, j)) for j, n in shared.items() if n >= min_shared and j != i)
            for key in claims[i].attributes:  # the same thing measured or dated: one word is enough
                pairs.update((min(i, j), max(i, j)) for j in measured[key] if j != i)
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


def detect(store: Store, judge: ContradictionJudge | None = None, single_valued: Sequence[str] = ()) -> ContradictionReport:
    """Judge the candidate pairs of the live claims not checked yet (new, or their subject changed
    groups) against the live claims of their subjects' groups; record CONTRADICTS / SUPERSEDES
    edges (a re-checked claim's findings replace its old ones) and mark the claims checked, in
    one transaction. A few claims in a large graph load only their groups' claims."""
    judge = judge or RuleJudge()
    report = ContradictionReport()
    new_ids = {r["id"] for r in unchecked_live_claims(store)}
    if not new_ids:
        return report
    canonical = {r["src"]: r["dst"] for r in alias_edge_rows(store)}
    members: dict[str, set[str]] = defaultdict(set)
    for entity, head in canonical.items():
        members[head].add(entity)
    single = set(single_valued)
    if len(new_ids) > INCREMENTAL_MAX_NEW or len(new_ids) >= INCREMENTAL_MAX_SHARE * count_live_claims(store):
        claims = load_claim_records(store)
    else:  # the new claims' groups only: every claim a candidate pair or a supersession can involve
        heads = {canonical.get(r["subject"], r["subject"]) for r in live_claim_subjects(store, new_ids)}
        group = set(heads).union(*(members[h] for h in heads))
        related = {r["id"] for r in live_claims_of_subjects(store, group)}
        claims = load_claim_records(store, sorted(new_ids | related))
    report.loaded = len(claims)
    batch = WriteBatch()
    now = now_iso()
    report.superseded = _supersede(claims, new_ids, single, batch, canonical)
    superseded = {row["dst"] for row in batch.rels.get("SUPERSEDES", [])}
    pairs = [(claims[i], claims[j]) for i, j in candidate_pairs(claims, new_ids, canonical)
             if claims[i].id not in superseded and claims[j].id not in superseded]
    report.candidates = len(pairs)
    found = [(a, b, f) for (a, b), f in zip(pairs, judge.judge(pairs), strict=True) if f is not None]
    drop_contradictions_of(store, batch, new_ids)  # a claim checked again: its findings are made anew
    for a, b, finding in found:
        batch.relate("CONTRADICTS", {"src": a.id, "dst": b.id, "reason": finding.reason, "confidence": finding.confidence,
                                     "method": finding.method, "detected_at": now})
        report.found += 1
    mark_claims_checked(store, batch, new_ids, now)
    store.write(batch)
    return report


def _supersede(claims: Sequence[ClaimRecord], new_ids: set[str], single_valued: set[str], batch: WriteBatch,
               canonical: Mapping[str, str]) -> int:
    """For declared single-valued predicates, one claim of each (subject group, predicate) stands
    and supersedes the others: the one from the source of highest authority, then the one valid
    latest (valid_from), then the largest id. Never by arrival: the same claim stands in every history."""
    if not single_valued:
        return 0
    groups: dict[tuple[str, str], list[ClaimRecord]] = defaultdict(list)
    for claim in claims:
        if claim.predicate in single_valued:
            groups[(canonical.get(claim.subject, claim.subject), claim.predicate)].append(claim)
    count = 0
    for group in groups.values():
        if len(group) < 2 or not any(c.id in new_ids for c in group):
            continue
        ordered = sorted(group, key=lambda c: (c.authority, c.valid_from or "", c.id))
        latest = ordered[-1]
        for older in ordered[:-1]:
            why = ("its source has higher authority" if latest.authority > older.authority else
                   f"valid from {latest.valid_from}" if (latest.valid_from or "") > (older.valid_from or "") else
                   "no authority or date tells them apart: the same one stands every time")
            batch.relate("SUPERSEDES", {"src": latest.id, "dst": older.id,
                                        "reason": f"{latest.predicate} is single-valued; {why}"})
            batch.update("Claim", {"id": older.id, "status": "superseded"})
            count += 1
    return count
