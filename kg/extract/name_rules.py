"""The offline extractor's name rules, by phase, in the order they run (issue 37).

join    capitalised spans of a sentence that are one name     JOIN_RULES, then EXTEND_RULES
trim    words at a name's ends that are no part of it          TRIM_RULES
split   a name holding another name                             SPLIT_RULES
filter  what a found name becomes: an entity, or none          CANDIDATE_RULES (and kg/extract/filters.py
                                                                for any name, whatever found it)
fold    names of one thing in a chunk                           FOLD_RULES
type    what kind of thing it is                                kg/extract/entity_types.py

Each rule is registered by name in its phase's list: a token rule of data/token_rules.toml (the
join and trim rules, two candidate rules: patterns over words, run by kg/extract/matcher.py), or a
named function here for what is more than a pattern (splits, folds, the gazetteer's nationalities);
tests/test_name_rules.py holds a row (text in, names out) per rule name. The capitalised spans
themselves come from one regex (`cap_seq` in data/patterns.toml) filled from word lists:
particles, nicknames and spaced hyphens join words there.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from kg.extract import gazetteer
from kg.extract import matcher as M
from kg.extract import patterns as P
from kg.extract import vocab as V
from kg.extract.entity_types import DEFAULT as DEFAULT_TYPE
from kg.extract.entity_types import abstract_noun, reads_as_person
from kg.extract.registry import GIVEN_WEIGHT, Registry
from kg.names import name_key

F = TypeVar("F", bound=Callable[..., object])


def phase(rules: list[tuple[str, F]]) -> Callable[[F], F]:
    def register(fn: F) -> F:
        rules.append((fn.__name__, fn))
        return fn
    return register


# The capitalised runs of a sentence (patterns.toml: cap_seq, from cap_token, name_join, ...), and a
# year before one ("2016–17 Ranji Trophy").
CAP_SEQ = P.pattern("cap_seq")
_YEAR_FIRST = P.pattern("year_first")


# join --------------------------------------------------------------------------------------

class Pair:
    """Two capitalised spans of a sentence, one after the other, as the join rules read them: the left
    span's words, the gap between the spans as one token in bars ("| and |", "|, |"), the right
    span's words; and whether a list's comma comes before ("Paris, Lyon and Lille Railway")."""

    def __init__(self, sentence: str, left: tuple[int, int], right: tuple[int, int]) -> None:
        gap = sentence[left[1] : right[0]]
        self.words = [*sentence[left[0] : left[1]].split(), f"|{gap}|", *sentence[right[0] : right[1]].split()]
        self.said = _AFTER_COMMA if sentence[: left[0]].rstrip().endswith(",") else frozenset()


_AFTER_COMMA = frozenset({"after_comma"})


JOIN_RULES: list[tuple[str, Callable[[Pair], bool]]] = []


def name_spans(sentence: str) -> list[tuple[int, int]]:
    """Where the capitalised names of a sentence are: CAP_SEQ's matches (a year before one kept,
    dropped later unless the name is an event's), joined when a JOIN_RULE says two are one name,
    then extended by the EXTEND_RULES."""
    spans: list[tuple[int, int]] = []
    years = {m.end(): m.start() for m in _YEAR_FIRST.finditer(sentence)}
    for match in CAP_SEQ.finditer(sentence):
        start, end = years.get(match.start(), match.start()), match.end()
        if spans and any(rule(Pair(sentence, spans[-1], (start, end))) for _, rule in JOIN_RULES):
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    for _, extend in EXTEND_RULES:
        spans = [(start, extend(sentence, start, end)) for start, end in spans]
    return spans


def _token_join_rule(name: str) -> Callable[[Pair], bool]:
    rule = M.rule(name)
    return lambda pair: rule(pair.words, pair.said)


JOIN_RULES += [(name, _token_join_rule(name)) for name, spec in M.specs().items() if spec.get("phase") == "join"]


EXTEND_RULES: list[tuple[str, Callable[[str, int, int], int]]] = []
extend_rule = phase(EXTEND_RULES)
_TRAILING_YEAR = P.pattern("trailing_year")


@extend_rule
def event_year(sentence: str, start: int, end: int) -> int:
    """A year after an event's name belongs to it: "Eurovision Song Contest 1995", "UEFA Euro 2008"."""
    words = sentence[start:end].split()
    year = _TRAILING_YEAR.match(sentence, end)
    if year and (words[-1].lower() in V.YEAR_NAMED or words[0] == "Miss"):
        return year.end()
    return end


# trim --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Where:
    """Where a name stands. `opens`: it opens its sentence (or follows a quote, bracket or colon),
    where any word is capitalised; mid-sentence, a capitalised "My" or "Two" is the name's ("the
    BBC's My Family"). `participle`: a participle may open it, a phrase a comma ends ("Joining SC
    Freiburg in 2016, ...")."""

    opens: bool = True
    participle: bool = False
    said: frozenset[str] = field(init=False)  # what the token rules' `when` reads

    def __post_init__(self) -> None:
        object.__setattr__(self, "said", frozenset(f for f, on in (("opens", self.opens), ("participle", self.participle)) if on))


TRIM_RULES: list[tuple[str, Callable[[list[str], Where], list[str]]]] = []


def trim_name(name: str, where: Where = Where()) -> str:
    """The name without the words at its ends that are no part of it ("" when nothing is left): the
    TRIM_RULES in order, each on the words the one before left."""
    words = name.replace("’", "'").split()
    for _, rule in TRIM_RULES:
        words = rule(words, where)
        if not words:
            return ""
    return " ".join(words)


def _token_rule(name: str) -> Callable[[list[str], Where], list[str]]:
    """A trim or reject rule of data/token_rules.toml, on a name's words."""
    rule = M.rule(name)
    cut, repeat, reject = rule.spec.get("cut", 0), rule.spec.get("repeat", False), rule.spec["phase"] == "reject"

    def apply(words: list[str], where: Where) -> list[str]:
        while words and (found := rule.find(words, where.said)):
            if reject:
                return []
            start, end = found
            words = words[:start] + words[min(end, start + cut) if cut else end :]
            if not repeat or end == start:
                break
        return words

    return apply


TRIM_RULES += [(name, _token_rule(name)) for name, spec in M.specs().items() if spec.get("phase") in ("trim", "reject")]


# split -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Split:
    """What a split rule makes of a name: the name, the type it is known to have, and another name
    in it with that one's type ("" when none)."""

    name: str
    type: str = ""
    inner: str = ""
    inner_type: str = ""
    keep: bool = False  # the inner name is an entity though never mentioned alone


SPLIT_RULES: list[tuple[str, Callable[[str], Split]]] = []
split_rule = phase(SPLIT_RULES)
_REGNAL = P.pattern("regnal_number")


@split_rule
def split_of(name: str) -> Split:
    """"Kansas City Chiefs of the National Football League", "Charles VII of France", "Prince Eugene of
    Savoy" -> two names (the second as `inner`); not "Bank of America", "House of Commons", "Battle of
    Hastings" (the word before "of" heads one name), nor "National Register of Historic Places"
    (without "the", "X of Y" is one name unless X is a ruler's)."""
    words = name.split()
    if "of" not in words:
        return Split(name)
    at = words.index("of")
    head, rest = words[:at], words[at + 1 :]
    if len(head) < 2 or not rest or not rest[-1][:1].isupper():
        return Split(name)
    if rest[0].lower() == "the":
        rest = rest[1:]
    elif not (_REGNAL.fullmatch(head[-1]) or any(w.lower() in V.ROLES for w in head[:-1])
              or (len(rest) == 1 and rest[0].lower() in V.NATIONALITIES) or _persons(head)):
        return Split(name)  # only a ruler's ("Gustav III", "King James III"), a person's ("Andy Pavlo of
        # Carnegie Mellon University") or "of Bulgarian" splits
    if len(head) < 2 or not rest or not rest[0][:1].isupper() or head[-1].lower().strip(".,") in V.OF_HEADS:
        return Split(name)
    if any(w.lower() in V.NAME_PARTICLES - {"of", "the"} for w in head):
        return Split(name)  # "Charles de Gaulle of ..." is rare; keep what is unclear whole
    return Split(" ".join(head), inner=" ".join(rest))


def _persons(words: list[str]) -> bool:
    """A given name and a family name that are not also a place's or a kind's ("London Borough")."""
    last = words[-1]
    return reads_as_person(" ".join(words)) and not gazetteer.is_place(words[0]) and (
        last.lower() in gazetteer.last_names() or not gazetteer.common_word(last))


_NATIONAL_ROLE = M.rule("national_role")
_OFFICES = M.rule("offices")
_PERSON_AFTER_ROLE = M.rule("person_after_role")


@split_rule
def split_role(name: str) -> Split:
    """"Vice Admiral James Greer" -> "James Greer", a person; "German Chancellor Angela Merkel" ->
    "Angela Merkel", a person, and "German", a nationality; "Speaker of the House of Commons" -> itself,
    an office, and "House of Commons" (an office is a name of its own, and so is what it is of)."""
    words = name.split()
    nationality = ""
    if len(words) > 2 and _NATIONAL_ROLE(words):
        nationality, words = words[0], words[1:]  # not "Soviet Union", "British Army"
    national = "nationality" if nationality else ""
    roles = 0
    while roles < len(words) - 1:
        if words[roles].lower().strip(".") in V.ROLES:
            roles += 1
        elif roles and roles + 2 < len(words) and words[roles] in ("-", "–"):
            roles += 2  # "Prince - elector John Sigismund", "Lieutenant - General Sir ...": a hyphenated role
        else:
            break
    if not roles:
        return Split(" ".join(words), "", nationality, national, keep=True)
    rest = words[roles:]
    if rest[0] == "of" and len(rest) > 1:  # "Governor of Texas", "Speaker of the House of Commons"
        if not _OFFICES(words[:roles]):
            return Split(name)
        rest = rest[2:] if rest[1] in ("the", "The") and len(rest) > 2 else rest[1:]
        return Split(" ".join(words), "office", " ".join(rest), keep=True) if rest[0][:1].isupper() else Split(name)
    if _PERSON_AFTER_ROLE(rest) and not any(abstract_noun(w) for w in rest):  # not "General Nutritional Observations"
        return Split(" ".join(rest), "person", nationality, national, keep=True)
    return Split(" ".join(words), "", nationality, national, keep=True)


# filter ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    """A capitalised name found in a sentence, and what the chunk says of its words."""

    name: str
    at_start: bool  # it opens its sentence (after a quote, a bracket or a stop word)
    capitalised_mid_sentence: bool  # the chunk also has it capitalised mid-sentence, or as a subject
    lowercase_words: frozenset[str]  # the words the chunk writes in lower case
    names_mid_sentence: frozenset[str] = frozenset()  # keys of the names the chunk capitalises mid-sentence
    verb_object: bool = False  # it opens the sentence and a preposition or a particle follows it ("Called Mum | in")
    names_in_chunk: frozenset[str] = frozenset()  # keys of every name the chunk has (marked up or capitalised)


# A rule's verdict: None has no say; a list is what to add instead ([] for nothing).
Verdict = list[tuple[str, str]] | None
CANDIDATE_RULES: list[tuple[str, Callable[[Candidate], Verdict]]] = []
candidate_rule = phase(CANDIDATE_RULES)


@candidate_rule
def nationality(candidate: Candidate) -> Verdict:
    """"American", "Germans": a nationality, an entity of its own type ("a German skeleton racer")."""
    name = candidate.name
    if gazetteer.is_demonym(name) or (name.endswith("s") and gazetteer.is_demonym(name[:-1])):
        return [(name, "nationality")]
    return None


@candidate_rule
def nationality_pair(candidate: Candidate) -> Verdict:
    """"African-American", "German - Jewish": two nationalities, not one name."""
    parts = re.split(r"[ \t]*[-–][ \t]*", candidate.name)
    if len(parts) > 1 and all(gazetteer.is_demonym(part) for part in parts):
        return [(part, "nationality") for part in parts]
    if len(parts) == 2 and gazetteer.is_demonym(parts[0]) and parts[1].islower() and gazetteer.english_word(parts[1]):
        return [(parts[0], "nationality")]  # "Hungarian-born", "French-speaking": the nationality, then a word
    return None


@candidate_rule
def inner_article(candidate: Candidate) -> Verdict:
    """"Ethics of Placebo Controls The Declaration of Helsinki": a capitalised "The" inside a run of
    capitalised words opens another name (a heading run into its text), when both sides have two
    words or more (not "Winnie The Pooh", "Return of The Jedi") and it follows no function word
    ("Night of The Living Dead")."""
    words = candidate.name.split()
    cuts = [i for i, word in enumerate(words) if word == "The" and i > 0 and words[i - 1].lower() not in V.NAME_JOINERS]
    if not cuts:
        return None
    parts = [words[start + (start > 0):end] for start, end in zip([0, *cuts], [*cuts, len(words)], strict=True)]
    if any(len(part) < 2 for part in parts):
        return None
    return [(name, "") for name in dict.fromkeys(" ".join(part) for part in parts)]


# "a TV series", "Brigadier General": an abbreviation of a kind of thing, a role (data/token_rules.toml)
def _token_candidate_rule(name: str) -> Callable[[Candidate], Verdict]:
    rule = M.rule(name)
    return lambda candidate: [] if rule(candidate.name.split()) else None


CANDIDATE_RULES += [(name, _token_candidate_rule(name)) for name, spec in M.specs().items() if spec.get("phase") == "candidate"]


@candidate_rule
def opening_word(candidate: Candidate) -> Verdict:
    """"Use Magika to ...", "- Monitor Ray apps", "Supported Python versions are", "Called Mum in the
    afternoon", "Keep Redis out of ...": a sentence's (or a list item's) first word that is a verb
    WordNet lists, bare (an imperative) or in its past tense, before a name the chunk writes alone
    mid-sentence or that a preposition follows (the verb's object: "Called Mum | in"; not "The Castle
    of Crupet, a ...", "After Bloody Bay he ...", "State Highway 82 traverses"), is the sentence's
    word, not the name's. Not a gerund ("Rebuilding Russia", a title), an adjective ("Peninsular
    Malaysia", "National War Labor Board"), a particle, a given name ("Will Smith"), a place's name
    ("United Kingdom"), a name WordNet lists, nor one the chunk writes whole mid-sentence or as a
    subject ("Old Bohumín is")."""
    words = candidate.name.split()
    name = " ".join(words[1:])
    opening_verb = _OPENING_VERB(words) or (len(words) > 1 and words[0].lower() in V.IRREGULAR_PAST)  # "Met Leo for ..."
    if candidate.at_start and not candidate.capitalised_mid_sentence and opening_verb and \
            (name_key(name) in candidate.names_mid_sentence or candidate.verb_object) and \
            not gazetteer.is_place(candidate.name) and candidate.name not in gazetteer.wordnet_names():
        return [(name, "")]
    return None


_OPENING_VERB = M.rule("opening_verb")


@candidate_rule
def common_word(candidate: Candidate) -> Verdict:
    """One plain capitalised word that is a sentence's opener and nowhere else capitalised mid-sentence,
    a word the chunk writes in lower case too ("Report", "Draft"). (A demonym never reaches it: the
    nationality rule before it takes every one.)"""
    name = candidate.name
    if " " in name or not name[1:].islower() or any(c.isdigit() for c in name):
        return None
    if name_key(name) in _people_by_family(candidate.names_in_chunk):
        return None  # "Hopper did not coin the word": the family name of "Grace Hopper", written alone
    english = all(gazetteer.english_word(part) for part in name.split("-"))  # "Magnetic-core memory ..."
    if (candidate.at_start and not candidate.capitalised_mid_sentence and english) \
            or name.lower() in candidate.lowercase_words:
        return []  # an opener English does not know ("Qdrant, written in Rust, ...") is a name
    return None


@candidate_rule
def opening_word_and_article(candidate: Candidate) -> Verdict:
    """"Together the ALU and the control unit form ...": a sentence's opening word of English before
    a lower-case article is the sentence's, and so is the article, when the chunk names what follows
    on its own; the name is that. Not a given name's epithet ("Alexander the Great", "Winnie the
    Pooh"), nor a title ("Save the Children", "Sonic the Hedgehog")."""
    words = candidate.name.split()
    if len(words) < 3 or not candidate.at_start or candidate.capitalised_mid_sentence or words[1] not in ("the", "a", "an"):
        return None
    if words[0].lower() in gazetteer.first_names() or not gazetteer.english_word(words[0]):
        return None
    if name_key(" ".join(words[2:])) not in candidate.names_in_chunk:
        return None  # "Save the Children", "Meet the Press": a title, unless the chunk names what follows alone
    return [(" ".join(words[2:]), "")]


@candidate_rule
def name_then_surname(candidate: Candidate) -> Verdict:
    """"During the Second World War Turing worked ...": a thing's name of two words or more (its last
    a word of English) run into a person's family name, one the chunk writes mid-sentence after a
    given name ("Alan Turing"), is two names. Not a person's longer name ("Hillary Rodham Clinton"
    beside "Bill Clinton"), nor a title and the person's own given name ("President Barack Obama")."""
    words = candidate.name.split()
    if len(words) < 3 or not all(gazetteer.english_word(w) for w in words[:-1]) or \
            words[-2].lower() in gazetteer.first_names() or words[-2].lower() in gazetteer.last_names():
        return None  # "Hillary Rodham Clinton", "Earvin Magic Johnson": a person's names before the family name
    if gazetteer.english_word(words[-1]):
        return None  # "Carey Business School" beside "Lawrence School": no family name last
    last, whole = name_key(words[-1]), name_key(candidate.name)
    if not any(not whole.endswith(key) for key in _people_by_family(candidate.names_in_chunk).get(last, ())):
        return None
    return [(" ".join(words[:-1]), ""), (words[-1], "")]


@functools.lru_cache(maxsize=4)
def _people_by_family(keys: frozenset[str]) -> dict[str, list[str]]:
    """The chunk's names that open with a given name ("alan turing"), by their last word: one pass
    per chunk (its candidates share the set), not one per candidate."""
    found: dict[str, list[str]] = {}
    for key in sorted(keys):
        words = key.split()
        if len(words) >= 2 and words[0] in gazetteer.first_names():
            found.setdefault(words[-1], []).append(key)
    return found


def candidate_verdict(candidate: Candidate) -> list[tuple[str, str]]:
    """The names (and types) a candidate adds: the first CANDIDATE_RULE with a say, else itself."""
    for _, rule in CANDIDATE_RULES:
        verdict = rule(candidate)
        if verdict is not None:
            return verdict
    return [(candidate.name, "")]


# fold --------------------------------------------------------------------------------------

FOLD_RULES: list[tuple[str, Callable[[Registry, dict[str, list[str]]], None]]] = []
fold_rule = phase(FOLD_RULES)
_PERSON_NAME = M.rule("person_name_shape")  # "Alan Turing", "John von Neumann", "J. R. Tolkien"


def fold_names(registry: Registry) -> None:
    """The FOLD_RULES in order, over the full names that read as a person's, by last word."""
    by_last: dict[str, list[str]] = {}
    for key, entity in registry.entities.items():
        words = entity.name.split()
        if entity.type in ("person", DEFAULT_TYPE) and _PERSON_NAME(words):
            by_last.setdefault(name_key(words[-1]), []).append(key)
    for _, rule in FOLD_RULES:
        rule(registry, by_last)


@fold_rule
def full_name(registry: Registry, by_last: dict[str, list[str]]) -> None:
    """A person's full name ("Christopher Edward Nolan") becomes an alias of the one shorter name with
    its first and last words ("Christopher Nolan", often the page's heading), so the claims of the
    first sentence and of the rest of the page have one subject; "John Henry Smith" and "John Paul
    Smith" stay apart. `by_last` loses the folded names."""
    for last, keys in by_last.items():
        if len(keys) < 2:
            continue
        words_of = {key: registry.entities[key].name.split() for key in keys}
        shorter = {long: [k for k in keys if 2 <= len(words_of[k]) < len(words_of[long])
                          and words_of[k][0] == words_of[long][0] and in_order(words_of[k], words_of[long])]
                   for long in keys}
        longer = {short: [long for long in keys if short in shorter[long]] for short in keys}
        for long_key in sorted(keys, key=lambda k: (-len(words_of[k]), k)):
            if len(shorter[long_key]) != 1 or len(longer[shorter[long_key][0]]) != 1:
                continue
            shorter[long_key] = [k for k in shorter[long_key] if k in registry.entities]
            if shorter[long_key]:
                registry.fold(long_key, into=shorter[long_key][0])
        by_last[last] = [k for k in keys if k in registry.entities]


@fold_rule
def lone_surname(registry: Registry, by_last: dict[str, list[str]]) -> None:
    """A lone surname ("Turing", "Neumann", "Von Neumann") becomes an alias of the one full name
    ending in it; only names that read as a person's ("BC1 RNA" does not make "RNA" a surname)."""
    for key in list(registry.entities):
        words = registry.entities[key].name.split()
        lone = len(words) == 1 or all(w.lower() in V.NAME_PARTICLES for w in words[:-1])
        owners = by_last.get(name_key(words[-1]) if words else key, [])
        if not lone or len(owners) != 1 or owners[0] == key:
            continue
        registry.fold(key, into=owners[0])
        owner = registry.entities[owners[0]]
        if reads_as_person(owner.name):  # "Turing" -> "Alan Turing"; not "Misregulated CDKs", "Pol IVb"
            owner.vote_once(owner.name, "surname folded", "person", GIVEN_WEIGHT)


@fold_rule
def lone_given_name(registry: Registry, by_last: dict[str, list[str]]) -> None:
    """A lone given name ("Hannah", after "Attendees: Hannah Becker, ...") becomes an alias of the one
    full name it opens, as notes name a colleague once in full and then by first name; only a name
    the given-name lists hold ("Berlin" is no first name of "Berlin Wall"), and not where it may be
    something else: a place ("Georgia", "Victoria") or a name the rules type otherwise."""
    by_first: dict[str, list[str]] = {}
    for keys in by_last.values():
        for key in keys:
            words = registry.entities[key].name.split()
            if len(words) >= 2:
                by_first.setdefault(name_key(words[0]), []).append(key)
    for key in list(registry.entities):
        words = registry.entities[key].name.split()
        owners = by_first.get(name_key(words[0]), []) if len(words) == 1 else []
        if len(owners) == 1 and words[0].lower() in gazetteer.first_names() and \
                registry.entities[key].type in ("person", DEFAULT_TYPE) and \
                not (gazetteer.is_place(words[0]) or gazetteer.is_city(words[0])):
            registry.fold(key, into=owners[0])


def in_order(part: Sequence[str], whole: Sequence[str]) -> bool:
    """Whether `part`'s items are in `whole`, in order (a name's words in a longer name's, letters in a word)."""
    remaining = iter(whole)
    return all(item in remaining for item in part)


# words -------------------------------------------------------------------------------------

_UP_TO_COMMA = P.pattern("up_to_comma")
VERBLESS = M.rule("verbless")


def participle_phrase(rest: str) -> bool:
    """Whether a comma ends the phrase after a name, with no verb before it: "Joining SC Freiburg
    in 2016, he ..." (a participle phrase), not "Finding Nemo was released in 2003, ..." (a title)."""
    phrase = _UP_TO_COMMA.match(rest)
    return phrase is not None and VERBLESS(phrase.group(1).split())
