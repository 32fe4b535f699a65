"""What a claim's sentence says, read from its words alone: its content stems, the direction of
the effect it states, whether it is negated, what it measures or dates, what narrows it down
(years, scopes, names, ordinals, numbers), and `said`: the terms that name what it is about,
which two statements of the same thing share whoever the extractor made their subject
("Energy balance requires hypothalamic glutamate neurotransmission" / "Hypothalamic glutamate
neurotransmission is unrelated to energy balance"). Pure functions of the text; `ClaimRecord`
derives them once per claim. Read by candidates (kg/compile/candidates.py) and the judges
(kg/compile/contradict.py)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kg.extract.facets import date_facets, measures
from kg.text import CJK_CHARS, CLAIM_STOPWORDS, word_tokens

WORD = re.compile(r"[a-z0-9][a-z0-9-]*")
_WORD_OR_CJK = re.compile(rf"[a-z0-9][a-z0-9-]*|[{CJK_CHARS}]+")
NEGATIONS = {"not", "no", "never", "neither", "nor", "cannot", "none", "without", "lack", "lacks", "lacking",
             "unrelated", "fails", "fail", "failed", "absent", "n't", "incapable", "unable"}
# Saying that a thing stayed as it was negates that it changed ("remained stable" / "has risen").
STEADY = {"stable", "unchanged", "unaltered", "unaffected", "constant", "steady"}
# Words that state a direction of effect; opposite signs on otherwise similar claims disagree.
# Matched on stems (see `stem`), so "enhances", "enhanced" and "enhancement" all count.
UP_WORDS = """increase enhance promote raise higher more greater activate stimulate induce upregulate catalyze
accelerate elevate augment boost perpetuate generate generation essential require gain strengthen facilitate
exacerbate susceptible susceptibility faster larger bigger rise rose risen grow grew grown positive cause
encourage vulnerable vulnerability presence present support improve restore lead elicit evoke provoke trigger triggers
activation elevation stimulation induction promotion augmentation""".split()
DOWN_WORDS = """decrease reduce inhibit lower less fewer suppress impede impair prevent downregulate antagonize delay
diminish attenuate disrupt remove removal block dispensable loss lose weaken hinder immune resist resistant abolish
slow slower smaller fall fell fallen decline drop negative deplete depletion protect protective absence absent
reduction degrade""".split()
# Words that say an effect or a relation exists, without its direction: "X affects Y", "X has no
# effect on Y", "X is associated with Y", "no known interaction between X and Y", "X is critical
# for Y". They say how a statement is made, not what it is about, so `said` leaves them out
# (but not "side effects" or "adverse effects": things, not a relation).
RELATION_WORDS = """affect affects affected effect effects impact impacts influence influences influenced alter alters
altered alteration change changes changed modulate modulates modulated modulation regulate regulates regulated
associate associated association associations relate related relation relationship relationships link links linked
correlate correlates correlated correlation role roles involve involves involved involvement interact interacts
interaction interactions connected connection predict predicts predicted predictive predictor contribute contributes
contributed contribution mediate mediates mediated responsible important importance critical crucial vital key""".split()
_THINGS = {"side", "adverse", "toxic", "special", "visual", "sound", "greenhouse", "placebo"}  # "side effects"
# Verbs that present a statement rather than state it ("X shows no benefit", "X plays a role").
LIGHT_WORDS = """show shows showed shown demonstrate demonstrates demonstrated display displays exhibit exhibits reveal
reveals represent represents play plays remain remains remained appear appears seem seems""".split()
# Nouns that measure what follows them: "reduces the incidence of adverse events" says what
# "reduces adverse events" says.
QUANTITY_WORDS = """incidence rate rates level levels risk risks number frequency amount amounts concentration
concentrations prevalence occurrence likelihood odds chance proportion percentage""".split()
# Words of time and quantity that narrow a statement down rather than say what it is about.
MEASURE_WORDS = """year years month months week weeks day days hour hours minute minutes most one two three four
five six seven eight nine ten hundred thousand""".split()
# Function words the claim stopwords leave in.
FUNCTION_WORDS = """between among amongst within upon via through throughout across against per toward towards
whether other another own such certain various several many much addition additionally contrast furthermore
moreover however thus therefore hence indeed finally""".split()
# Pairs of opposite terms that are not directions of effect.
ANTONYMS = [tuple(pair.split("/")) for pair in """central/peripheral inner/outer early/late acute/chronic benign/malignant
male/female maximum/minimum before/after upper/lower safe/unsafe effective/ineffective successful/unsuccessful
sufficient/insufficient necessary/unnecessary common/rare first/last major/minor all/none always/never
increased/decreased same/different similar/different identical/different short/long old/young
improve/worsen better/worse benefit/harm beneficial/harmful repair/worsen restore/worsen prevent/worsen successful/ineffective
effective/unsuccessful improve/exacerbate rescue/exacerbate alleviate/exacerbate ameliorate/exacerbate alleviate/worsen
ameliorate/worsen alleviate/aggravate improve/aggravate""".split()]
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
# Words of degree and certainty: what a statement is about without them.
DEGREE_WORDS = """known significant significantly substantial substantially strongly highly markedly slightly
greatly largely partly partially fully completely very""".split()
_PROPER = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)*\b")
_SYMBOL = re.compile(r"(?<![\w-])(?=\w*[A-Z]\w*[A-Z0-9])[A-Za-z0-9]\w*")  # "PSP", "B12", "CDK6"
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\d)")
_DIGIT = re.compile(r"\d")
_CALENDAR = set("""january february march april may june july august september october november december monday tuesday
wednesday thursday friday saturday sunday""".split())
# "Like the HD 39, it was ...": a sentence likening its subject to another thing is not about that thing.
_LIKENED = re.compile(r"(?:^|[:;]\s*)(?:un)?like\s", re.I)


@functools.lru_cache(maxsize=500_000)
def stem(word: str) -> str:
    for suffix in ("ations", "ation", "ments", "ment", "ings", "ing", "ions", "ion", "ies", "es", "ed", "er", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            base = word[: -len(suffix)]
            # "reprogramming" / "reprogram", "stopped" / "stop": one of a doubled final consonant
            if suffix in ("ing", "ings", "ed", "er") and base[-1] == base[-2] and base[-1] not in "aeiouls":
                return base[:-1]
            return base
    return word


def words(text: str) -> list[str]:
    """Latin words, and the character bigrams of CJK runs (kg/text.py `word_tokens`)."""
    return word_tokens(text.lower().replace("n't", " not"), _WORD_OR_CJK)


def content_stems(text: str) -> list[str]:
    return [stem(w) for w in words(text) if w not in CLAIM_STOPWORDS and w not in NEGATIONS]


def _lexicon(items: Iterable[str]) -> tuple[set[str], tuple[str, ...]]:
    # A verb in -ate also as its noun in -ation, which stems shorter ("upregulate" / "upregulation").
    stems = {stem(w) for w in items} | {stem(w[:-3] + "ation") for w in items if w.endswith("ate")}
    return stems, tuple(s for s in stems if len(s) >= 6)  # long stems also match longer forms


UP, UP_PREFIXES = _lexicon(UP_WORDS)
DOWN, DOWN_PREFIXES = _lexicon(DOWN_WORDS)
ONCE = {stem(w) for w in ONCE_WORDS}
ANTONYM_STEMS = [(stem(left), stem(right)) for left, right in ANTONYMS]
# What a statement is about without degree, certainty or opposite terms.
_DEGREE_ONLY = {stem(w) for w in DEGREE_WORDS}
DEGREE = _DEGREE_ONLY | {s for pair in ANTONYM_STEMS for s in pair}
RELATION = {stem(w) for w in RELATION_WORDS}
LIGHT = {stem(w) for w in LIGHT_WORDS}
_STEADY = {stem(w) for w in STEADY}
MEASURE = {stem(w) for w in MEASURE_WORDS}
_FUNCTION = set(FUNCTION_WORDS)
QUANTITY = {stem(w) for w in QUANTITY_WORDS}
_RELATED = ("correlat", "associat", "relat", "effect", "impact", "influenc", "regulat", "predict", "outcom", "result",
            "respons", "consequenc")
_NOMINAL = ("tion", "sion", "ment", "ance", "ence", "ity", "ness")


@functools.lru_cache(maxsize=100_000)
def stem_direction(s: str) -> int:
    if s in UP or s.startswith(UP_PREFIXES):
        return 1
    return -1 if s in DOWN or s.startswith(DOWN_PREFIXES) else 0


def direction(stems: Iterable[str]) -> int:
    score = sum(stem_direction(s) for s in stems)
    return (score > 0) - (score < 0)


@functools.lru_cache(maxsize=200_000)
def negated(text: str) -> bool:
    found = set(words(text))
    return bool(found & (NEGATIONS | STEADY)) and "not only" not in text.lower()


@dataclass(frozen=True)
class Statement:
    """How a claim states what it states. `said`: what it is about (its content stems without
    directions, words of degree, relation or presentation, and values: "27", "400mg", not "DUSP4"); `content`: `said`
    without opposite terms and words of time; `effect`: whether it states an effect or a relation
    (a direction, a relation, importance or efficacy); `effects`: (stem, direction, is a verb) of
    each direction word, a verb's times that of a direction word right after it, which it takes
    ("suppresses degradation of X" raises X)."""

    said: frozenset[str]
    content: frozenset[str]
    effect: bool
    effects: tuple[tuple[str, int, bool], ...]
    neutral: frozenset[str]  # direction words that here name a thing ("immune cells"): no direction


# Direction words that are names of things in most of their uses: "immune cells", "HPV-positive
# women", "a positive test" state no effect; "immune to X", "positively correlated" do.
_CONTEXTUAL = {stem("immune"): ("to",), stem("positive"): _RELATED, stem("negative"): _RELATED}


def _names_a_thing(found: Sequence[str], i: int) -> bool:
    following = _CONTEXTUAL.get(stem(found[i]))
    return following is not None and not (i + 1 < len(found) and found[i + 1].startswith(following))


@functools.lru_cache(maxsize=200_000)
def statement(text: str) -> Statement:
    found = words(text)
    said: set[str] = set()
    turns: list[tuple[int, str, bool]] = []  # (position, stem, verbal) of each direction word
    neutral: set[str] = set()
    effect = False
    for i, w in enumerate(found):
        if w in CLAIM_STOPWORDS or w in NEGATIONS or w in _FUNCTION:
            continue
        s = stem(w)
        if stem_direction(s) and _names_a_thing(found, i):
            neutral.add(s)
            said.add(s)
        elif stem_direction(s):
            effect = True
            turns.append((i, s, not w.endswith(_NOMINAL)))
        elif s in RELATION and not (i and found[i - 1] in _THINGS):
            effect = True
        elif s in DEGREE and s not in _DEGREE_ONLY:
            effect = True  # opposite terms: "effective" / "ineffective", "benefit" / "harm"
            said.add(s)
        elif s not in _DEGREE_ONLY and s not in LIGHT and s not in _STEADY and s not in QUANTITY and not s[0].isdigit():  # "27", "400mg": values
            said.add(s)
    # Parts of hyphenated words count apart ("RANK-RANKL" / "RANK-RANK-Ligand (RANKL)").
    content = frozenset(p for s in said if s not in MEASURE and s not in DEGREE for p in s.split("-") if p)
    effects: list[tuple[str, int, bool]] = []
    taken = -1
    for n, (i, s, is_verb) in enumerate(turns):
        if n == taken:
            continue  # the object of the verb before it
        after = turns[n + 1] if n + 1 < len(turns) else None
        if is_verb and after and all(w in CLAIM_STOPWORDS for w in found[i + 1 : after[0]]):
            sign = stem_direction(s) * stem_direction(after[1])
            effects += [(s, sign, True), (after[1], sign, True)]  # which of the two differs, the pair says it
            taken = n + 1
        else:
            effects.append((s, stem_direction(s), is_verb))
    return Statement(frozenset(said), content, effect, tuple(effects), frozenset(neutral - {t[0] for t in turns}))


@functools.lru_cache(maxsize=200_000)
def attributes(text: str) -> frozenset[tuple[str, ...]]:
    """What a claim measures or dates: (unit, word stem) of each quantity, ("date", word stem) of
    its date; two claims that share one may disagree on its value."""
    keys = {(m.unit, s) for m in measures(text) for s in stems_of(m.what)}
    keys |= {("date", s) for pred, _ in date_facets(text) for s in stems_of(pred)}
    return frozenset(keys)


def stems_of(phrase: str) -> set[str]:
    return {stem(w) for w in phrase.split() if w not in CLAIM_STOPWORDS}


@dataclass(frozen=True)
class Qualifiers:
    """What narrows a claim down besides its subject."""

    years: frozenset[str]
    scopes: frozenset[str]
    names: frozenset[str]
    ordinals: frozenset[str]
    numbers: frozenset[str]  # other numbers: "HD 38" / "HD 39", "at 3 and 6 years"


@functools.lru_cache(maxsize=200_000)
def qualifiers(text: str) -> Qualifiers:
    """Years, scope words, proper names, ordinals and other numbers. The first word is
    capitalised anyway: a name only when possessive ("Salk's vaccine")."""
    found = {w.lower() for w in WORD.findall(text.lower())}
    first = _PROPER.match(text.lstrip())
    skip = first.end() + (len(text) - len(text.lstrip())) if first and not text.lstrip()[first.end():].startswith(("'s", "’s")) else 0
    names = {m.lower() for m in _PROPER.findall(text, skip)} | {m.lower() for m in _SYMBOL.findall(text)}
    names = names - CLAIM_STOPWORDS - _CALENDAR
    ordinals = (found & ORDINALS) | set(_ORDINAL.findall(text.lower()))
    years = frozenset(_YEAR.findall(text))
    numbers = frozenset(n for n in _NUMBER.findall(text) if n not in years)
    return Qualifiers(years, frozenset(found & SCOPE_WORDS), frozenset(names), frozenset(ordinals), numbers)


# "The most prevalent adverse events to Semaglutide are gastrointestinal": a head naming the one
# thing that is most of its kind, then what it is. Not "primary", "main" or "leading": a study's
# "primary outcome" is a role in its design, one per study.
SUPERLATIVES = """most least predominant peak highest lowest largest smallest biggest greatest commonest longest
shortest oldest youngest earliest latest best worst""".split()
_SUPERLATIVE = re.compile(r"^(?P<head>(?:[\w'’-]+\s+)*?(?:the|its|their)\s+(?:" + "|".join(SUPERLATIVES) + r")\b.*?)\s+"
                          r"(?P<verb>is|are|was|were|occurs?|occurred|remains?|remained)\s+(?P<tail>.+)$", re.I)
# A study reports what it found in the past tense ("The highest dose was 10 mg": of that study);
# what holds in general is said in the present ("The peak incidence of fractures occurs in ...").
_PRESENT = {"is", "are", "occur", "occurs", "remain", "remains"}
# what a superlative without a name ranges over: "the peak incidence of hip fractures", "the most
# common cause among children"; without it ("the largest trial") it is some study's own
_RANGE = re.compile(r"\b(?:of|in|among|for)\s+(?:the\s+|a\s+|an\s+)?[a-z][a-z-]{2,}", re.I)


@functools.lru_cache(maxsize=200_000)
def superlative(text: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """(head, what it is) as content stems for "the <superlative> ... is/are ..." at the start of a
    sentence ("The most common cause of X is Y"), when the head names what it is about (a
    proper name or symbol: of two studies' "highest dose was", neither says which study) or the
    sentence states it in the present tense, as a general fact, over a range it names ("of
    fractures", "among children"); else None."""
    match = _SUPERLATIVE.match(text.strip())
    if not match or re.search(r"\bone of\b", match["head"], re.I):
        return None
    if not qualifiers(match["head"]).names and (match["verb"].lower() not in _PRESENT or not _RANGE.search(match["head"])):
        return None  # "The highest dose is well tolerated": of which doses? Only "... of fractures" says
    head, tail = statement(match["head"]).content, statement(match["tail"]).content
    return (head, tail) if head and tail else None


_NUMERALS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}
_RATIO = re.compile(r"\b(\d+|" + "|".join(_NUMERALS) + r")\s+(?:in|out of)\s+(\d+|" + "|".join(_NUMERALS) + r")\b", re.I)


@functools.lru_cache(maxsize=200_000)
def ratios(text: str) -> tuple[float, ...]:
    """Each "one in five", "3 out of 10" of a sentence, as a number."""
    found = []
    for top, bottom in _RATIO.findall(text):
        num = int(top) if top.isdigit() else _NUMERALS[top.lower()]
        den = int(bottom) if bottom.isdigit() else _NUMERALS[bottom.lower()]
        if den and num <= den:
            found.append(num / den)
    return tuple(found)


_COMPARISON = re.compile(r" (?:than|compared (?:to|with)|versus|vs\.?) ")


def comparison_sides(text: str) -> tuple[set[str], set[str]] | None:
    """The content stems either side of "than", "compared to/with" or "versus", or None."""
    parts = _COMPARISON.split(text, 1)
    if len(parts) < 2:
        return None
    return set(content_stems(parts[0])), set(content_stems(parts[1]))


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
    # Derived once per claim, not once per candidate pair (in __post_init__).
    stem_set: frozenset[str] = field(init=False)
    statement: Statement = field(init=False)
    said: frozenset[str] = field(init=False)
    has_number: bool = field(init=False)
    attributes: frozenset[tuple[str, ...]] = field(init=False)
    entity_groups: frozenset[str] = field(init=False)  # set again from the groups by `regroup`

    def __post_init__(self) -> None:
        if not self.stems:
            self.stems = content_stems(self.text)
        # Derived once per claim, not once per candidate pair; what only a judged pair needs, when asked.
        self.stem_set = frozenset(self.stems)
        self.statement = statement(self.text)
        self.said = self.statement.said
        self.has_number = _DIGIT.search(self.text) is not None
        self.attributes = attributes(self.text) if self.has_number else frozenset()
        self.group = self.group or self.subject
        self.entity_groups = frozenset(self.entities) | {self.group}  # set again from the groups by `regroup`

    @functools.cached_property
    def core(self) -> frozenset[str]:
        """Content stems without directions of effect (nor nouns of quantity: "the incidence of X" is X)."""
        return frozenset(s for s in self.stem_set if (not stem_direction(s) or s in self.statement.neutral)
                         and s not in QUANTITY)

    @functools.cached_property
    def negated(self) -> bool:
        return negated(self.text)

    @functools.cached_property
    def qualifiers(self) -> Qualifiers:
        return qualifiers(self.text)

    @functools.cached_property
    def likened(self) -> bool:
        return bool(_LIKENED.search(self.text))

    def regroup(self, canonical: Mapping[str, str]) -> None:
        """Read the subject's and the named entities' groups from `canonical` (entity -> its group's head)."""
        self.group = canonical.get(self.subject, self.subject)
        self.entity_groups = frozenset(canonical.get(e, e) for e in self.entities) | {self.group}


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


