"""Contradictions and supersession between claims, found at compile time.

Candidates, never all pairs (kg/compile/candidates.py): claims that say nearly the same thing
about the same things, whoever the extractor made their subject, and claims about one subject
group that measure or date the same thing. A judge decides each candidate pair; `RuleJudge` is
the offline one. Findings become CONTRADICTS edges. Declared single-valued predicates are
resolved by validity instead: the claim valid later SUPERSEDES the earlier one (ties by id,
never by arrival).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.compile import candidates
from kg.compile.candidates import KeyIndex, buckets, keys_of, pairs_of
from kg.compile.claimtext import (
    ANTONYM_STEMS,
    ONCE,
    ClaimRecord,
    comparison_sides,
    jaccard,
    ratios,
    stems_of,
    superlative,
)
from kg.extract.facets import all_dates, date_facets, measures
from kg.graph.claims import (
    contradiction_edges_of,
    count_live_claims,
    departed_claims,
    drop_contradictions_of,
    live_claim_rows,
    live_claims_of_subjects,
    mark_claims_checked,
    mark_claims_departed,
    unchecked_live_claims,
)
from kg.graph.entities import alias_edge_rows
from kg.graph.store import Store, WriteBatch, now_iso
from kg.kb import CLAIM_KEYS_FILE

# Count nouns of a study's sample ("19 patients", "2,745 controls"): how many took part is a fact
# of one study, not a value of what it studied.
SAMPLE_UNITS = {"patient", "case", "control", "participant", "subject", "volunteer", "respondent", "individual",
                "enrollee", "recruit", "sample", "specimen"}
# Words too vague to say what a number measures ("up to 40 cm" / "up to 5 cm").
VAGUE = {"up", "down", "out", "off", "over", "under", "just", "only", "than", "total", "least", "most", "some", "each",
         "vs", "versu", "compar", "p", "ci", "iqr", "interval", "confidenc", "ratio", "rang"}
# Detection loads only the changed claims' neighbourhood when they are at most this many and less
# than this share of the live claims; otherwise every live claim is loaded.
INCREMENTAL_MAX_NEW = 2000
INCREMENTAL_MAX_SHARE = 0.2
# Terms two claims of opposite directions must share (besides `direction_similarity`).
MIN_EFFECT_TERMS = 2
# Bumped with every change of what `RuleJudge` finds: the next detection judges every live claim again.
RULES_VERSION = "rules 3"


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


def compatible(a: ClaimRecord, b: ClaimRecord, years: bool = True, scopes: bool = True, numbers: bool = False) -> bool:
    """Whether two claims about one thing speak of the same case: not different years (for a
    value), not different scopes ("record" / "average", "annual" / "warm season") or instances
    ("45th" / "53rd"), not each naming something the other does not ("in Israel" / "in the
    Altai", "Thai" / "Canadian citizens"), and with `numbers`, not each giving a number the other
    does not ("HD 38" / "HD 39", "at 3 and 6 years" / "at 18 months")."""
    qa, qb = a.qualifiers, b.qualifiers
    na, nb = qa.names, qb.names
    if a.group == b.group:  # the names of the subject itself ("Salk" in "Salk's vaccine") tell nothing apart
        subject_words = set(a.subject.split("-")) | set(b.subject.split("-"))
        na, nb = na - subject_words, nb - subject_words
    if years and qa.years and qb.years and not qa.years & qb.years:
        return False
    if scopes and ((qa.scopes and qb.scopes and qa.scopes != qb.scopes) or (qa.ordinals and qb.ordinals and qa.ordinals != qb.ordinals)):
        return False
    if numbers and qa.numbers - qb.numbers and qb.numbers - qa.numbers:
        return False
    return not (na - nb and nb - na)


def _strength(similarity: float, threshold: float) -> float:
    """0.6 for two claims just similar enough for a rule, up to 1 for the same words."""
    return 0.6 + 0.4 * (similarity - threshold) / (1 - threshold) if threshold < 1 else 1.0


class RuleJudge(ContradictionJudge):
    """Offline rules, each on two claims about the same thing saying it two ways: different values
    or dates for the same attribute in the same case (one subject group only), a negated
    near-duplicate ("X affects Y" / "X has no effect on Y", "remained stable" / "has risen"),
    opposite directions of the same effect ("X increases Y" / "X reduces Y"), opposite terms, a
    comparison turned round. Claims about different subjects are compared only when they say
    nearly the same thing (`comparable`). Each finding's confidence says how strong its evidence is."""

    method = "rules"

    def __init__(self, similarity: float = 0.6, direction_similarity: float = 0.4, value_similarity: float = 0.0,
                 term_similarity: float = 0.4, effect_similarity: float = 0.4) -> None:
        self.similarity = similarity  # shared content (`said`) a negated near-duplicate needs
        self.effect_similarity = effect_similarity  # ... a denied effect needs ("X has no effect on Y" / "X reduces Y")
        self.direction_similarity = direction_similarity  # ... opposite directions of one effect need (`core`)
        self.value_similarity = value_similarity  # ... two values of one attribute need
        self.term_similarity = term_similarity  # ... two claims about different subjects need to be compared

    def judge(self, pairs: Sequence[tuple[ClaimRecord, ClaimRecord]]) -> list[Finding | None]:
        return [self.judge_one(a, b) for a, b in pairs]

    def comparable(self, a: ClaimRecord, b: ClaimRecord) -> bool:
        """About the same thing: one subject group, subjects that name each other ("A requires B" /
        "B is unrelated to A"), or sentences saying nearly the same thing about the same things
        whatever their subjects, neither likening its subject to another thing ("Like the HD 39, it ...")."""
        if a.group == b.group or (a.group in b.entity_groups and b.group in a.entity_groups):
            return True
        return (not a.likened and not b.likened and len(a.said & b.said) >= 3
                and jaccard(a.said, b.said) >= self.term_similarity)

    def judge_one(self, a: ClaimRecord, b: ClaimRecord) -> Finding | None:
        if not self.comparable(a, b):
            return None  # claims about different things never conflict
        if len({*a.sources, *b.sources}) == 1:  # one text giving two figures speaks of two cases
            return None
        confidence = min(a.confidence, b.confidence) ** 0.5
        if a.group == b.group and a.has_number and b.has_number:
            # Two figures for one attribute disagree only in claims that say largely the same thing:
            # sentences about different studies, cohorts or instances share a word, not a statement.
            found = (self._values(a, b, confidence) if jaccard(a.core, b.core) >= self.value_similarity
                     else self._dates(a, b, confidence))
            if found:
                return found
        return self._statements(a, b, confidence)

    def _statements(self, a: ClaimRecord, b: ClaimRecord, confidence: float) -> Finding | None:
        """The same statement made two ways that cannot both hold."""
        core = jaccard(a.core, b.core)
        neg_a, neg_b = a.negated, b.negated
        only_a, only_b = a.stem_set - b.stem_set, b.stem_set - a.stem_set
        dir_a, dir_b = _direction(a, only_a), _direction(b, only_b)
        opposite = bool(dir_a and dir_b and dir_a != dir_b)
        # Two shared terms are a whole statement of effect: what acts and what it acts on
        # ("Insulin raises glucose" / "Insulin lowers glucose").
        if (opposite and neg_a == neg_b and core >= self.direction_similarity and len(a.core & b.core) >= MIN_EFFECT_TERMS
                and compatible(a, b, scopes=False)):
            return Finding(a.id, b.id, "opposite directions of the same effect",
                           round(confidence * _strength(core, self.direction_similarity), 2), self.method)
        if _reversed_comparison(a.text, b.text) and compatible(a, b, scopes=False):
            return Finding(a.id, b.id, "the same comparison the other way round", round(confidence * 0.9, 2), self.method)
        found = self._one_of_a_kind(a, b, confidence)
        if found:
            return found
        # What both say, without the words of relation and presentation ("X affects Y" / "X has no
        # effect on Y"); two statements of an effect may say it in fewer shared words.
        said = jaccard(a.said, b.said)
        effects = a.statement.effect and b.statement.effect
        threshold = self.effect_similarity if effects else self.similarity
        if said < threshold or not compatible(a, b, scopes=False, numbers=True):
            return None
        # Confidence from all the words, which the words of relation also tell apart ("reduces" / "does not alter").
        strength = round(confidence * _strength(max(threshold, (said + core) / 2), threshold), 2)
        for left, right in ANTONYM_STEMS if neg_a == neg_b else ():  # "not dependent" is "independent"
            if (left in only_a and right in only_b) or (right in only_a and left in only_b):
                return Finding(a.id, b.id, f"opposite terms: {left} / {right}", strength, self.method)
        negated_term = _prefix_negation(only_a, only_b) if neg_a == neg_b else ""
        if negated_term:
            return Finding(a.id, b.id, f"opposite terms: {negated_term}", strength, self.method)
        # "X increases Y" / "X does not decrease Y" agree; a negation against anything else
        # ("X is important for Y" / "X is not required for Y") disagrees, when the negated claim
        # denies what the other asserts (`_denies`).
        if neg_a != neg_b and not opposite and _denies(*((a, b) if neg_a else (b, a))):
            reason = "one claim denies the effect the other states" if effects else "one claim negates the other"
            return Finding(a.id, b.id, reason, strength, self.method)
        return None

    @staticmethod
    def _one_of_a_kind(a: ClaimRecord, b: ClaimRecord, confidence: float) -> Finding | None:
        """Two different answers for what is most or first of its kind ("The most prevalent adverse
        events to X are gastrointestinal" / "... are cardiovascular"), or two different shares
        for the same thing ("One in five trials ..." / "One in two trials ..."), about one subject."""
        if a.group != b.group or a.negated or b.negated or not compatible(a, b, scopes=False):
            return None
        sup_a, sup_b = superlative(a.text), superlative(b.text)
        if sup_a and sup_b and sup_a[0] == sup_b[0] and not sup_a[1] & sup_b[1]:
            return Finding(a.id, b.id, f"different answers for the {' '.join(sorted(sup_a[0]))}",
                           round(confidence * 0.8, 2), "rules")
        share_a, share_b = ratios(a.text), ratios(b.text)
        if len(share_a) == len(share_b) == 1 and share_a != share_b and a.statement.content == b.statement.content:
            return Finding(a.id, b.id, f"different shares: {share_a[0]:.2g} vs {share_b[0]:.2g}",
                           round(confidence * 0.9, 2), "rules")
        return None

    @staticmethod
    def _values(a: ClaimRecord, b: ClaimRecord, confidence: float) -> Finding | None:
        """The same attribute (what is measured, its unit, the words that follow) in the same case,
        with values further apart than the precision the text states ("about 58 m" and "60 m"
        agree), or different dates for the same event."""
        if a.negated or b.negated:  # "there was no X in 2009" states no value
            return None
        found_a, found_b = measures(a.text), measures(b.text)
        # A sentence giving several figures in one unit ("9.6% in women and 5.3% in men", "aged 20
        # to 29 ... aged 70") speaks of several cases: none of them is the thing's one value.
        several = {m.unit for m in found_a if any(n.unit == m.unit and n.value != m.value for n in found_a)}
        several |= {m.unit for m in found_b if any(n.unit == m.unit and n.value != m.value for n in found_b)}
        for ma in found_a:
            if ma.unit in several or ma.unit in SAMPLE_UNITS:
                continue
            for mb in found_b:
                shared = (stems_of(ma.what) & stems_of(mb.what)) - VAGUE
                if ma.unit != mb.unit or not shared or ma.agrees(mb):
                    continue
                if ma.after and mb.after and not set(ma.after) & set(mb.after):
                    continue  # "390 episodes of the series" / "392 episodes in the franchise"
                if not compatible(a, b):
                    return None
                gap = abs(ma.value - mb.value) / max(ma.tolerance, mb.tolerance, 1e-9)
                what = " ".join(sorted(shared))
                reason = f"different values for {what}: {ma.value:g} vs {mb.value:g} {ma.unit}"
                return Finding(a.id, b.id, reason, round(confidence * (1.0 if gap >= 4 else 0.7), 2), "rules")
        return RuleJudge._dates(a, b, confidence)

    @staticmethod
    def _dates(a: ClaimRecord, b: ClaimRecord, confidence: float) -> Finding | None:
        """Different dates for an event a thing has once (born, founded, completed...)."""
        if a.negated or b.negated:
            return None
        dates_a, dates_b = all_dates(a.text), all_dates(b.text)
        for pred_a, iso_a in date_facets(a.text):
            for pred_b, iso_b in date_facets(b.text):
                shared = stems_of(pred_a) & stems_of(pred_b)
                if len(shared) >= min(2, len(stems_of(pred_a)), len(stems_of(pred_b))) and shared & ONCE and not any(
                    x.startswith(y) or y.startswith(x) for x in dates_a for y in dates_b
                ) and compatible(a, b, years=False):
                    what = " ".join(sorted(shared))
                    exact = len(iso_a) >= 7 and len(iso_b) >= 7
                    return Finding(a.id, b.id, f"different dates for {what}: {iso_a} vs {iso_b}",
                                   round(confidence * (0.9 if exact else 0.8), 2), "rules")
        return None


def _direction(claim: ClaimRecord, only: Set[str]) -> int:
    """The direction of effect the words only this claim has state ("suppresses degradation of X"
    raises X); where they state both, that of its verbs ("BCL-2 activation antagonizes ...":
    antagonizes, not activation)."""
    effects = [(sign, verb) for s, sign, verb in claim.statement.effects if s in only]
    if len({sign for sign, _ in effects}) > 1:
        effects = [(sign, verb) for sign, verb in effects if verb]
    score = sum(sign for sign, _ in effects)
    return (score > 0) - (score < 0)


def _denies(negative: ClaimRecord, positive: ClaimRecord) -> bool:
    """Whether the negated claim denies what the other asserts: not an effect the other does not
    state ("X has no effect on Y" / "X targets Y"), nor more than a word the other does not say
    (wording: "RANK-RANKL pathway signalling"), never a name; and the other says at most a word
    more than it ("unwanted side effects") unless it states an effect."""
    if negative.statement.effect and not positive.statement.effect:
        return False
    extra = negative.statement.content - positive.statement.content
    if len(extra) > 1 or extra & negative.qualifiers.names:
        return False
    return len(positive.statement.content - negative.statement.content) <= 1 or positive.statement.effect


_NEGATING_PREFIXES = ("non-", "non", "un", "in", "im", "ir", "il", "dis")


def _prefix_negation(only_a: Set[str], only_b: Set[str]) -> str:
    """A word in one claim and the same word negated by a prefix in the other ("UCP1-dependent" /
    "UCP1-independent", "effective" / "ineffective"), as "word / negated word"; else ""."""
    for x, y in ((only_a, only_b), (only_b, only_a)):
        for word in y:
            head, _, last = word.rpartition("-")
            for prefix in _NEGATING_PREFIXES:
                if last.startswith(prefix) and len(last) - len(prefix) >= 4:
                    base = (head + "-" if head else "") + last[len(prefix):]
                    if base in x:
                        return f"{base} / {word}"
    return ""


def _reversed_comparison(a: str, b: str) -> bool:
    """"X is more effective than Y" against "Y is more effective than X" (or "compared to")."""
    sides_a, sides_b = comparison_sides(a), comparison_sides(b)
    if sides_a is None or sides_b is None:
        return False
    (left_a, right_a), (left_b, right_b) = sides_a, sides_b
    common = left_a & left_b  # the comparison itself ("more effective")
    first_a, first_b = left_a - common, left_b - common
    if not first_a or not first_b:
        return False
    return len(first_a & right_b) >= 0.6 * len(first_a) and len(first_b & right_a) >= 0.6 * len(first_b)


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
        values: dict[str, Any] = {k: (v if v is not None else _WHEN_NULL[k]) for k, v in r.items()}
        values["sources"] = tuple(sorted({p for p in values["sources"] if p}))
        values["entities"] = frozenset(values["entities"])
        records.append(ClaimRecord(**values, stems=list(known.get(r["id"], ()))))
    return records


# What a NULL column of live_claim_rows stands for.
_WHEN_NULL: dict[str, Any] = {"id": "", "text": "", "subject": "", "predicate": "", "claim_type": "fact", "polarity": 1,
                              "object": "", "confidence": 0.5, "authority": 0, "valid_from": None, "recorded_at": "",
                              "sources": (), "entities": ()}


@dataclass
class ContradictionReport:
    candidates: int = 0
    found: int = 0
    superseded: int = 0
    loaded: int = 0  # claim records loaded: every live claim, or the neighbourhood of the changed ones
    rechecked: int = 0  # claims judged again: the changed ones, and those a key's bucket crossing MAX_BUCKET touched


@dataclass
class _Neighbourhood:
    """What one detection judges: the claims loaded (by id), the claims whose pairs are judged
    again, their candidate pairs, and the supersessions found."""

    claims: dict[str, ClaimRecord]
    recheck: set[str]
    pairs: set[tuple[str, str]]
    supersessions: list[tuple[ClaimRecord, ClaimRecord, str]]


def detect(store: Store, judge: ContradictionJudge | None = None, single_valued: Sequence[str] = (),
           min_confidence: float = 0.0, keys_path: Path | None = None,
           before_write: Callable[[set[str]], None] | None = None) -> ContradictionReport:
    """Judge the candidate pairs (kg/compile/candidates.py) of the live claims not checked yet (new,
    their subject changed groups, or their evidence changed) and of the claims whose candidates
    changed with them (a key's bucket crossing MAX_BUCKET as claims arrived or left); record
    CONTRADICTS / SUPERSEDES edges (a re-checked claim's findings replace its old ones) and mark
    the claims checked, in one transaction. The claim keys live in `keys_path` (default: beside
    the graph, .kg/claim-keys.sqlite): a few changed claims load only the claims sharing a key
    with them; many, or an index that does not match the graph, load every live claim.
    `before_write(claim ids)`: told, before the write, which claims gain, lose or change a
    contradiction (their pages change, whichever sources changed)."""
    judge = judge or RuleJudge()
    report = ContradictionReport()
    new_ids = {r["id"] for r in unchecked_live_claims(store)}
    gone_ids = {r["id"] for r in departed_claims(store)}
    if not new_ids and not gone_ids:
        return report
    canonical = {r["src"]: r["dst"] for r in alias_edge_rows(store)}
    live = count_live_claims(store)
    with KeyIndex(keys_path or store.path.with_name(CLAIM_KEYS_FILE), salt=RULES_VERSION) as index:
        near = None
        if not index.rebuilt and len(new_ids) <= INCREMENTAL_MAX_NEW and len(new_ids) < INCREMENTAL_MAX_SHARE * live:
            near = _neighbourhood(store, index, new_ids, gone_ids, canonical, set(single_valued), live)
        if near is None:
            near = _everything(store, index, canonical, set(single_valued))
        report.loaded, report.rechecked = len(near.claims), len(near.recheck)
        batch = WriteBatch()
        now = now_iso()
        superseded = _record_supersessions(batch, near.supersessions)
        pairs = [(near.claims[a], near.claims[b]) for a, b in sorted(near.pairs)]
        report.candidates, report.superseded = len(pairs), len(superseded)
        found = [(a, b, f) for (a, b), f in zip(pairs, judge.judge(pairs), strict=True)
                 if f is not None and f.confidence >= min_confidence]
        # A claim checked again: its findings are made anew; a claim that left: it has none (a
        # contradiction is between live claims, and one that comes back is checked again).
        dropped = near.recheck | gone_ids | superseded
        before = {_edge(r["a"], r["b"], r["reason"], r["confidence"], r["method"])
                  for r in contradiction_edges_of(store, dropped)}
        if before:  # else the deletes would match nothing: two statements fewer to plan
            drop_contradictions_of(store, batch, dropped)
        for a, b, finding in found:
            batch.relate("CONTRADICTS", {"src": a.id, "dst": b.id, "reason": finding.reason,
                                         "confidence": finding.confidence, "method": finding.method, "detected_at": now})
        report.found = len(found)
        after = {_edge(a.id, b.id, f.reason, f.confidence, f.method) for a, b, f in found}
        if before_write is not None:
            before_write({claim for edge in before ^ after for claim in edge[:2]})
        mark_claims_checked(store, batch, near.recheck, now)
        mark_claims_departed(store, batch, gone_ids | superseded)
        store.write(batch)
        index.settle()  # after the graph write: a kill before it leaves the departures to the next detection
    return report


def _edge(a: str, b: str, reason: str, confidence: float, method: str) -> tuple[str, str, str, float, str]:
    return (min(a, b), max(a, b), reason, round(float(confidence), 6), method)


def _everything(store: Store, index: KeyIndex, canonical: Mapping[str, str], single: set[str]) -> _Neighbourhood:
    """Every live claim loaded, keyed again and judged again (many changes, or a new index)."""
    claims = load_claim_records(store)
    for claim in claims:
        claim.regroup(canonical)
    supersessions = _supersede(claims, {c.id for c in claims}, single, canonical)
    superseded = {older.id for _, older, _ in supersessions}
    live = {c.id: c for c in claims if c.id not in superseded}
    keys = keys_of(list(live.values()))
    index.rebuild(keys)
    by_id = {c.id: c for c in claims}
    return _Neighbourhood(by_id, set(live), pairs_of(live, keys, buckets(keys), live), supersessions)


def _neighbourhood(store: Store, index: KeyIndex, new_ids: set[str], gone_ids: set[str], canonical: Mapping[str, str],
                   single: set[str], live: int) -> _Neighbourhood | None:
    """The changed claims and the claims sharing a key with them; None when the index does not
    hold the graph's live claims (then every claim is loaded)."""
    fresh = load_claim_records(store, sorted(new_ids))
    for claim in fresh:
        claim.regroup(canonical)
    supersessions = _supersede(_with_rivals(store, fresh, canonical, single), new_ids, single, canonical) if single else []
    superseded = {older.id for _, older, _ in supersessions}
    keys = keys_of([c for c in fresh if c.id not in superseded])
    index.stage(keys, gone_ids | superseded)
    if index.live_count() != live - len(superseded):
        return None
    leaving = index.keys_of(new_ids | gone_ids | superseded, leaving=True)
    touched = set().union(*keys.values(), *leaving.values())
    members = index.members(touched)
    added = Counter(k for found in keys.values() for k in found)
    removed = Counter(k for found in leaving.values() for k in found)
    recheck = set(keys)
    bound = candidates.MAX_BUCKET
    for key in touched:  # a bucket that may have opened or closed: its claims' candidates changed
        size = len(members.get(key, ()))
        if size <= bound < size + removed[key] or size - added[key] <= bound < size:
            recheck.update(members[key])
    keys.update(index.keys_of(recheck - set(keys)))
    members.update(index.members(set().union(*keys.values()) - set(members)))
    needed = set(recheck).union(*(members[k] for c in recheck for k in keys[c] if len(members[k]) <= bound))
    claims = {c.id: c for c in fresh}
    for claim in load_claim_records(store, sorted(needed - set(claims))):
        claim.regroup(canonical)
        claims[claim.id] = claim
    return _Neighbourhood(claims, recheck, pairs_of(claims, keys, members, recheck), supersessions)


def _with_rivals(store: Store, fresh: Sequence[ClaimRecord], canonical: Mapping[str, str],
                 single: set[str]) -> list[ClaimRecord]:
    """The new claims and the live claims of a single-valued predicate about the same groups."""
    heads = {c.group for c in fresh if c.predicate in single}
    if not heads:
        return list(fresh)
    groups: dict[str, set[str]] = defaultdict(set)
    for entity, head in canonical.items():
        groups[head].add(entity)
    subjects = heads.union(*(groups[h] for h in heads))
    rivals = {r["id"] for r in live_claims_of_subjects(store, subjects) if r["predicate"] in single}
    known = {c.id for c in fresh}
    loaded = load_claim_records(store, sorted(rivals - known))
    for claim in loaded:
        claim.regroup(canonical)
    return sorted([*fresh, *loaded], key=lambda c: c.id)


def _supersede(claims: Sequence[ClaimRecord], new_ids: set[str], single_valued: set[str],
               canonical: Mapping[str, str]) -> list[tuple[ClaimRecord, ClaimRecord, str]]:
    """For declared single-valued predicates, one claim of each (subject group, predicate) stands
    and supersedes the others: the one from the source of highest authority, then the one valid
    latest (valid_from), then the largest id. Never by arrival: the same claim stands in every
    history. (standing, superseded, reason) for each group with a new claim."""
    if not single_valued:
        return []
    groups: dict[tuple[str, str], list[ClaimRecord]] = defaultdict(list)
    for claim in claims:
        if claim.predicate in single_valued:
            groups[(canonical.get(claim.subject, claim.subject), claim.predicate)].append(claim)
    found = []
    for group in groups.values():
        if len(group) < 2 or not any(c.id in new_ids for c in group):
            continue
        ordered = sorted(group, key=lambda c: (c.authority, c.valid_from or "", c.id))
        latest = ordered[-1]
        for older in ordered[:-1]:
            why = ("its source has higher authority" if latest.authority > older.authority else
                   f"valid from {latest.valid_from}" if (latest.valid_from or "") > (older.valid_from or "") else
                   "no authority or date tells them apart: the same one stands every time")
            found.append((latest, older, f"{latest.predicate} is single-valued; {why}"))
    return found


def _record_supersessions(batch: WriteBatch, supersessions: Sequence[tuple[ClaimRecord, ClaimRecord, str]]) -> set[str]:
    for latest, older, reason in supersessions:
        batch.relate("SUPERSEDES", {"src": latest.id, "dst": older.id, "reason": reason})
        batch.update("Claim", {"id": older.id, "status": "superseded"})
    return {older.id for _, older, _ in supersessions}
