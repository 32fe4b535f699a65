"""Contradictions and supersession between claims, found at compile time.

Candidates, never all pairs: claims about the same subject, after resolution (the subject's
group, kg/compile/groups.py), that share content words, and claims whose sentences open alike
(`_statement_keys`). Two claims about different things are never compared by value or date, and
whether a pair is a candidate depends only on the two claims and their groups, so the findings
do not depend on the order the sources arrived in. A judge decides each
candidate pair; `RuleJudge` is the offline one. Findings become CONTRADICTS edges. Declared
single-valued predicates are resolved by validity instead: the claim valid later SUPERSEDES
the earlier one (ties by id, never by arrival).

Cost: a bulk compile loads and stems every live claim; a small one loads the claims of its new
claims' groups.
"""

from __future__ import annotations

import functools
import re
from abc import ABC, abstractmethod
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from kg.extract.facets import all_dates, date_facets, measures
from kg.graph.claims import (
    count_live_claims,
    drop_contradictions_of,
    live_claim_rows,
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
encourage vulnerable vulnerability presence present support improve restore lead
activation elevation stimulation induction promotion augmentation""".split()
DOWN_WORDS = """decrease reduce inhibit lower less fewer suppress impede impair prevent downregulate antagonize delay
diminish attenuate disrupt remove removal block dispensable loss lose weaken hinder immune resist resistant abolish
slow slower smaller fall fell decline drop negative deplete depletion protect protective absence absent
reduction""".split()
# Pairs of opposite terms that are not directions of effect.
ANTONYMS = [tuple(pair.split("/")) for pair in """central/peripheral inner/outer early/late acute/chronic benign/malignant
male/female maximum/minimum before/after upper/lower safe/unsafe effective/ineffective successful/unsuccessful
sufficient/insufficient necessary/unnecessary common/rare first/last major/minor all/none always/never
increased/decreased same/different similar/different identical/different short/long old/young
improve/worsen better/worse benefit/harm beneficial/harmful repair/worsen restore/worsen prevent/worsen successful/ineffective
effective/unsuccessful""".split()]
# Words that say which figure a number is ("the record high" is not "the average high"): two
# claims that both have such words and not the same ones are about different figures.
SCOPE_WORDS = set("""record average mean median typical maximum minimum max min peak highest lowest hottest coldest
warmest wettest driest total combined overall cumulative annual annually yearly monthly weekly daily hourly seasonal
summer winter spring autumn season estimated projected planned expected forecast initial final current former
original later earlier metropolitan metro urban rural city county state national nationwide international domestic
worldwide global regional local per each alone only including excluding gross net nominal real adjusted
larger smaller bigger greater wider longer shorter higher lower whole entire part partial half""".split())
# Words that tell instances apart ("the 45th election" / "the 53rd election", "his second album").
ORDINALS = set("""first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth last previous
next latest""".split())
_ORDINAL = re.compile(r"\b\d+(?:st|nd|rd|th)\b")
# Events a thing has once: two different dates for one of these disagree. Other dated claims
# ("released", "held", "published" of one of many) are not compared by date.
ONCE_WORDS = """born birth died death founded foundation established establishment opened closed built completed
launched premiered debuted discovered invented dissolved formed incorporated abolished demolished created
inaugurated buried married retired first""".split()
# Count nouns of a study's sample ("19 patients", "2,745 controls"): how many took part is a fact
# of one study, not a value of what it studied.
SAMPLE_UNITS = {"patient", "case", "control", "participant", "subject", "volunteer", "respondent", "individual",
                "enrollee", "recruit", "sample", "specimen"}
# Words too vague to say what a number measures ("up to 40 cm" / "up to 5 cm").
VAGUE = {"up", "down", "out", "off", "over", "under", "just", "only", "than", "total", "least", "most", "some", "each",
         "vs", "versu", "compar", "p", "ci", "iqr", "interval", "confidenc", "ratio", "rang"}
_PROPER = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)*\b")
_SYMBOL = re.compile(r"(?<![\w-])(?=\w*[A-Z]\w*[A-Z0-9])[A-Za-z0-9]\w*")  # "PSP", "B12", "CDK6"
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_CALENDAR = set("""january february march april may june july august september october november december monday tuesday
wednesday thursday friday saturday sunday""".split())

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


ONCE = {stem(w) for w in ONCE_WORDS}


def content_stems(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.lower().replace("n't", " not")) if w not in CLAIM_STOPWORDS and w not in NEGATIONS]


def _lexicon(words: list[str]) -> tuple[set[str], tuple[str, ...]]:
    stems = {stem(w) for w in words}
    return stems, tuple(s for s in stems if len(s) >= 6)  # long stems also match longer forms


UP, UP_PREFIXES = _lexicon(UP_WORDS)
DOWN, DOWN_PREFIXES = _lexicon(DOWN_WORDS)


_ANTONYM_STEMS = [(stem(left), stem(right)) for left, right in ANTONYMS]
# Words of degree and certainty, and opposite terms: what a statement is about without them.
DEGREE_WORDS = """known significant significantly substantial substantially strongly highly markedly slightly
greatly largely partly partially fully completely very""".split()
_DEGREE = {stem(w) for w in DEGREE_WORDS} | {s for pair in _ANTONYM_STEMS for s in pair}


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
    keys = {(m.unit, s) for m in measures(text) for s in _stems(m.what)}
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
    group: str = ""  # the canonical entity of the subject's group (kg/compile/groups.py); default: the subject

    def __post_init__(self) -> None:
        if not self.stems:
            self.stems = content_stems(self.text)
        # Derived once per claim, not once per candidate pair.
        self.stem_set = frozenset(self.stems)
        self.core = frozenset(s for s in self.stem_set if not _stem_direction(s))
        self.negated = _negated(self.text)
        self.has_number = any(ch.isdigit() for ch in self.text)
        self.attributes = _attributes(self.text) if self.has_number else frozenset()
        self.group = self.group or self.subject
        self.entity_groups = frozenset(self.entities) | {self.group}  # set again by candidate_pairs
        self.qualifiers = _qualifiers(self.text)
        self.statement_keys = _statement_keys(self.text, self.stems)


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


def _qualifiers(text: str) -> tuple[frozenset[str], ...]:
    """What narrows a claim down besides its subject: (years, scope words, proper names, ordinals).
    The first word is capitalised anyway: a name only when possessive ("Salk's vaccine")."""
    words = {w.lower() for w in _WORD.findall(text.lower())}
    first = _PROPER.match(text.lstrip())
    skip = first.end() + (len(text) - len(text.lstrip())) if first and not text.lstrip()[first.end():].startswith(("'s", "’s")) else 0
    names = {m.lower() for m in _PROPER.findall(text, skip)} | {m.lower() for m in _SYMBOL.findall(text)}
    names = names - CLAIM_STOPWORDS - _CALENDAR
    ordinals = (words & ORDINALS) | set(_ORDINAL.findall(text.lower()))
    return frozenset(_YEAR.findall(text)), frozenset(words & SCOPE_WORDS), frozenset(names), frozenset(ordinals)


def compatible(a: ClaimRecord, b: ClaimRecord, years: bool = True, scopes: bool = True) -> bool:
    """Whether two claims about one thing speak of the same case: not different years (for a
    value), not different scopes ("record" / "average", "annual" / "warm season") or instances
    ("45th" / "53rd"), not each naming something the other does not ("in Israel" / "in the
    Altai", "Thai" / "Canadian citizens")."""
    ya, sa, na, oa = a.qualifiers
    yb, sb, nb, ob = b.qualifiers
    if a.group == b.group:  # the names of the subject itself ("Salk" in "Salk's vaccine") tell nothing apart
        subject_words = set(a.subject.split("-")) | set(b.subject.split("-"))
        na, nb = na - subject_words, nb - subject_words
    if years and ya and yb and not ya & yb:
        return False
    if scopes and ((sa and sb and sa != sb) or (oa and ob and oa != ob)):
        return False
    return not (na - nb and nb - na)


def _strength(similarity: float, threshold: float) -> float:
    """0.6 for two claims just similar enough for a rule, up to 1 for the same words."""
    return 0.6 + 0.4 * (similarity - threshold) / (1 - threshold) if threshold < 1 else 1.0


class RuleJudge(ContradictionJudge):
    """Offline rules, each on two claims about the same subject (after resolution) saying the same
    thing two ways: different values or dates for the same attribute in the same case, a negated
    near-duplicate, opposite directions of the same effect, opposite terms, a comparison turned
    round. Each finding's confidence says how strong its evidence is (see `weak`)."""

    method = "rules"

    def __init__(self, similarity: float = 0.6, direction_similarity: float = 0.5, value_similarity: float = 0.0) -> None:
        self.similarity = similarity  # shared content a negated near-duplicate needs
        self.direction_similarity = direction_similarity  # ... opposite directions of one effect need
        self.value_similarity = value_similarity  # ... two values of one attribute need

    def judge(self, pairs: Sequence[tuple[ClaimRecord, ClaimRecord]]) -> list[Finding | None]:
        return [self.judge_one(a, b) for a, b in pairs]

    def judge_one(self, a: ClaimRecord, b: ClaimRecord) -> Finding | None:
        same = a.group == b.group
        if not same and not (a.group in b.entity_groups and b.group in a.entity_groups) and not (
                a.statement_keys & b.statement_keys):
            return None  # claims about different things never conflict
        if len({*a.sources, *b.sources}) == 1:  # one text giving two figures speaks of two cases
            return None
        confidence = min(a.confidence, b.confidence) ** 0.5
        core = _jaccard(a.core, b.core)
        # Two figures for one attribute disagree only in claims that say largely the same thing:
        # sentences about different studies, cohorts or instances share a word, not a statement.
        if same and a.has_number and b.has_number and core >= self.value_similarity:
            found = self._values(a, b, confidence)
            if found:
                return found
        elif same and a.has_number and b.has_number:
            found = self._dates(a, b, confidence)
            if found:
                return found
        sa, sb = a.stem_set, b.stem_set
        shared = len(a.core & b.core)
        neg_a, neg_b = a.negated, b.negated
        only_a, only_b = sa - sb, sb - sa
        dir_a, dir_b = _direction(only_a), _direction(only_b)
        if (dir_a and dir_b and dir_a != dir_b and neg_a == neg_b and core >= self.direction_similarity
                and shared >= 3 and compatible(a, b, scopes=False)):
            return Finding(a.id, b.id, "opposite directions of the same effect",
                           round(confidence * _strength(core, self.direction_similarity), 2), self.method)
        if _reversed_comparison(a.text, b.text) and compatible(a, b, scopes=False):
            return Finding(a.id, b.id, "the same comparison the other way round", round(confidence * 0.9, 2), self.method)
        if core < self.similarity or not compatible(a, b, scopes=False):
            return None
        for left, right in _ANTONYM_STEMS if neg_a == neg_b else ():  # "not dependent" is "independent"
            if (left in only_a and right in only_b) or (right in only_a and left in only_b):
                return Finding(a.id, b.id, f"opposite terms: {left} / {right}",
                               round(confidence * _strength(core, self.similarity), 2), self.method)
        negated_term = _prefix_negation(only_a, only_b) if neg_a == neg_b else ""
        if negated_term:
            return Finding(a.id, b.id, f"opposite terms: {negated_term}",
                           round(confidence * _strength(core, self.similarity), 2), self.method)
        # "X increases Y" / "X does not decrease Y" agree; a negation against anything else
        # ("X is important for Y" / "X is not required for Y") disagrees.
        if neg_a != neg_b and not (dir_a and dir_b and dir_a != dir_b):
            return Finding(a.id, b.id, "one claim negates the other", round(confidence * _strength(core, self.similarity), 2),
                           self.method)
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
                shared = (_stems(ma.what) & _stems(mb.what)) - VAGUE
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
                shared = _stems(pred_a) & _stems(pred_b)
                if len(shared) >= min(2, len(_stems(pred_a)), len(_stems(pred_b))) and shared & ONCE and not any(
                    x.startswith(y) or y.startswith(x) for x in dates_a for y in dates_b
                ) and compatible(a, b, years=False):
                    what = " ".join(sorted(shared))
                    exact = len(iso_a) >= 7 and len(iso_b) >= 7
                    return Finding(a.id, b.id, f"different dates for {what}: {iso_a} vs {iso_b}",
                                   round(confidence * (0.9 if exact else 0.8), 2), "rules")
        return None


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


_COMPARISON = re.compile(r" (?:than|compared (?:to|with)|versus|vs\.?) ")


def _reversed_comparison(a: str, b: str) -> bool:
    """"X is more effective than Y" against "Y is more effective than X" (or "compared to")."""
    parts_a, parts_b = _COMPARISON.split(a, 1), _COMPARISON.split(b, 1)
    if len(parts_a) < 2 or len(parts_b) < 2:
        return False
    left_a, right_a = (set(content_stems(part)) for part in parts_a)
    left_b, right_b = (set(content_stems(part)) for part in parts_b)
    common = left_a & left_b  # the comparison itself ("more effective")
    first_a, first_b = left_a - common, left_b - common
    if not first_a or not first_b:
        return False
    return len(first_a & right_b) >= 0.6 * len(first_a) and len(first_b & right_a) >= 0.6 * len(first_b)


def _statement_keys(text: str, stems: Sequence[str]) -> frozenset[tuple[str, ...]]:
    """What a claim's sentence is about, read from its words rather than from the extractor's choice
    of subject: its first content word ("Pyridostatin induces ..."), and for a comparison the first
    words on either side ("X is more effective than Y" and "Y ... than X" share a key). Two claims
    with a key in common are compared by the rules that need a near-duplicate statement."""
    keys: set[tuple[str, ...]] = {("lead", stems[0])} if stems else set()
    # Every word but those of direction, opposition and degree: "The generation of ROS contributes to
    # ..." / "The removal of ROS contributes to ...", "OCT3/4 interacts with ..." / "no known interaction".
    said = {s for s in stems if not _stem_direction(s)} - _DEGREE
    if len(said) >= 3:
        keys.add(("said", *sorted(said)))
    parts = _COMPARISON.split(text, 1)
    if len(parts) == 2:
        left, right = content_stems(parts[0]), content_stems(parts[1])
        if left and right:
            keys.add(("compared", *sorted((left[0], right[0]))))
    return frozenset(keys)


def _similar_pairs(claims: Sequence[ClaimRecord], rows: Sequence[int], fresh: Sequence[int], min_shared: int,
                   pairs: set[tuple[int, int]]) -> None:
    """Add the pairs of a fresh claim and another claim of `rows` sharing `min_shared` content stems."""
    postings: dict[str, list[int]] = defaultdict(list)
    for i in rows:
        for s in claims[i].stem_set:
            postings[s].append(i)
    for i in fresh:
        shared: Counter[int] = Counter()
        for s in claims[i].stem_set:
            shared.update(postings[s])
        pairs.update((min(i, j), max(i, j)) for j, n in shared.items() if n >= min_shared and j != i)


def candidate_pairs(claims: Sequence[ClaimRecord], new_ids: set[str], canonical: Mapping[str, str],
                    min_shared: int = MIN_SHARED) -> list[tuple[int, int]]:
    """Index pairs (i < j) to judge: each new claim with the claims about its subject's group (the
    entity and everything grouped with it, kg/compile/groups.py) that share at least `min_shared`
    content stems with it or measure or date the same thing, and with the claims about another
    thing it names that name its subject in turn ("A requires B" / "B is unrelated to A", "X is
    more effective than Y" / "Y is more effective than X"), which covers claims whose sentences say
    the same thing about two subjects. A relation of the two claims and their
    groups only, so the same pairs are found whichever claim arrived first; `claims` sorted by id."""
    for claim in claims:
        claim.group = canonical.get(claim.subject, claim.subject)
        claim.entity_groups = frozenset(canonical.get(e, e) for e in claim.entities)
    by_group: dict[str, list[int]] = defaultdict(list)
    for i, claim in enumerate(claims):
        by_group[claim.group].append(i)
    # Claims saying the same thing about subjects that name each other are found below, by group:
    # a pass over claims sharing a statement key found no pair the group pass misses (it asked for
    # one stem more) and was quadratic in a key's claims (a sentence pattern repeated by 50k
    # sources: hours and 14 GB).
    pairs: set[tuple[int, int]] = set()
    for rows in by_group.values():
        fresh = [i for i in rows if claims[i].id in new_ids]
        if not fresh:
            continue
        _similar_pairs(claims, rows, fresh, min_shared, pairs)
        measured: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for i in rows:
            for key in claims[i].attributes:
                measured[key].append(i)
        for i in fresh:
            for key in claims[i].attributes:  # the same thing measured or dated: one word is enough
                pairs.update((min(i, j), max(i, j)) for j in measured[key] if j != i)
            claim = claims[i]
            for other_group in claim.entity_groups - {claim.group}:  # each names the other's subject
                pairs.update((min(i, j), max(i, j)) for j in by_group.get(other_group, ())
                             if claim.group in claims[j].entity_groups and len(claim.stem_set & claims[j].stem_set) >= min_shared)
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
           min_confidence: float = 0.0) -> ContradictionReport:
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
        fresh = load_claim_records(store, sorted(new_ids))
        heads = {canonical.get(e, e) for c in fresh for e in (c.subject, *c.entities)}  # and what they name
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
    found = [(a, b, f) for (a, b), f in zip(pairs, judge.judge(pairs), strict=True)
             if f is not None and f.confidence >= min_confidence]
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
