"""What kind of thing a name is, for the offline extractor (issue 34).

Each rule below is a named function that votes for a type with a weight, or a token rule of
data/token_rules.toml (phase "type": a pattern of the name's words, its type and weight); an
entity's type is the one with the most weight over its names and mentions (`decide`), "concept"
when nothing voted. The regexes the rules read are patterns of data/patterns.toml. Name rules
read the name alone (a head word, a corporate suffix, a gazetteer, a first name); context rules
read the sentence around a mention (a definition or apposition, "born in X"). Reference resolution adds a vote for a person when "He" or "She" refers to
a name (kg/extract/heuristic.py). The rules are general patterns of English prose; their weights
were chosen on one half of Re-DocRED and checked on the other (benchmarks/README.md).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from kg.extract import gazetteer
from kg.extract import matcher as M
from kg.extract import patterns as P
from kg.extract import vocab as V
from kg.extract.matcher import common_verb, title_case

# Types a reader can navigate by, in the order ties are broken; anything else is a concept.
TYPES = ("organization", "place", "person", "event", "work", "product", "nationality", "language", "religion", "office",
         "disease", "gene or protein", "cell type", "organism", "chemical")
SCIENCE_KINDS = frozenset({"disease", "gene or protein", "cell type", "organism", "chemical"})
UNTYPED = frozenset({"concept", "thing", "named", "other", ""})  # "named": graphs from before heuristic-4
DEFAULT = "concept"


def common_head(name: str) -> bool:
    """A name whose last word is a common noun in lower case ("DNA damage response", "ion
    channel"): no organisation's."""
    words = name.split()
    return len(words) > 1 and words[-1].isalpha() and words[-1].islower()


def typed(type_: str) -> bool:
    return type_ not in UNTYPED


@dataclass(frozen=True)
class Rule:
    name: str
    weight: float
    applies: Callable[..., str | None]
    once: bool = False  # counted once per name, however often the context recurs (a weak default)


NAME_RULES: list[Rule] = []
CONTEXT_RULES: list[Rule] = []


def name_rule(weight: float) -> Callable[[Callable[[list[str], list[str]], str | None]], Callable[..., str | None]]:
    """Register a rule reading the name alone: (its words, the same lowercased) -> type."""
    def register(fn: Callable[[list[str], list[str]], str | None]) -> Callable[..., str | None]:
        NAME_RULES.append(Rule(fn.__name__, weight, fn))
        return fn
    return register


def context_rule(weight: float, once: bool = False) -> Callable[[Callable[[str, str, str], str | None]], Callable[..., str | None]]:
    """Register a rule reading a mention in its sentence: (text before, the name, text after) -> type;
    `once`: its vote counts once per name, not once per mention."""
    def register(fn: Callable[[str, str, str], str | None]) -> Callable[..., str | None]:
        CONTEXT_RULES.append(Rule(fn.__name__, weight, fn, once))
        return fn
    return register


@functools.lru_cache(maxsize=100_000)
def name_votes(name: str) -> tuple[tuple[str, str, float], ...]:
    """(rule, type, weight) of every name rule that applies to `name` (the same wherever it stands:
    remembered, as a source names many names more than once)."""
    words = name.split()
    lowered = [w.lower().strip(".,'’") for w in words]
    return tuple((rule.name, type_, rule.weight) for rule in NAME_RULES if words and (type_ := rule.applies(words, lowered)))


CONTEXT_CHARS = 200  # what a context rule reads on each side of a mention


def context_votes(before: str, name: str, after: str) -> list[tuple[str, str, float]]:
    """(rule, type, weight) of every context rule that applies to one mention of `name`. Each side is
    cut to CONTEXT_CHARS at a space: the rules read a few words, and a pattern anchored at the end
    of a long CJK sentence (no spaces) tried every start (20 s for a sentence of 4,800 characters)."""
    if len(before) > CONTEXT_CHARS:
        before = before[-CONTEXT_CHARS:].partition(" ")[2]
    if len(after) > CONTEXT_CHARS:
        after = after[:CONTEXT_CHARS].rpartition(" ")[0]
    return [(rule.name, type_, rule.weight) for rule in CONTEXT_RULES if (type_ := rule.applies(before, name, after))]


def decide(votes: dict[str, float]) -> str:
    """The type with the most weight (ties: the first of TYPES), DEFAULT when none."""
    best = max(votes.values(), default=0.0)
    if best <= 0:
        return DEFAULT
    return min((t for t, w in votes.items() if w == best), key=lambda t: (TYPES.index(t) if t in TYPES else len(TYPES), t))


# name rules ----------------------------------------------------------------------------------


@name_rule(4)
def corporate_suffix(words: list[str], lowered: list[str]) -> str | None:
    """"Atari, Inc.", "Warner Bros.", "Manchester United F.C.": a company's or club's legal suffix."""
    if len(words) < 2:
        return None
    if lowered[-1] in V.CLUB_SUFFIXES:
        named = lowered[-2] in gazetteer.last_names() or lowered[-2] in gazetteer.first_names()
        return None if named or not title_case(words[-2]) else "organization"
    return "organization" if lowered[-1] in V.CORPORATE_SUFFIXES else None


@name_rule(3)
def kind_head(words: list[str], lowered: list[str]) -> str | None:
    """A word of the name says what it is: the last ("Oakwood Cemetery", "Harvard University"), the
    one before "of" ("Battle of Hastings", "University of Kent") or a leading one ("Mount Elbert")."""
    if len(words) < 2 or gazetteer.is_place(" ".join(words)):
        return None  # "Soviet Union": the gazetteer knows the whole name better than its last word
    if lowered[-1] in ("church", "churches") and _denomination(lowered[:-1]):
        return "organization"  # "Catholic Church", "Russian Orthodox Church": a body (not "First Baptist Church")
    joint = next((i for i, w in enumerate(lowered[1:], 1) if w in ("of", "on", "for")), None)
    if joint is not None and lowered[joint - 1] in V.KIND_HEADS:  # "University of Kent", "Committee on ..."
        head = lowered[joint - 1]  # (singular: "Schools of Thought", "Orders of Magnitude" are none)
        if head == "church" and joint + 1 < len(lowered) and lowered[joint + 1] in V.DEDICATIONS:
            return "place"  # "Church of Saint Francis of Assisi", "Church of Our Lady": a building
        return V.KINDS_BEFORE_OF.get(head, V.KIND_HEADS[head])
    if lowered[0] in V.LEADING_KINDS:
        return V.LEADING_KINDS[lowered[0]]
    if lowered[0] in V.ROAD_PREFIXES and words[1].isdigit():
        return "place"  # "Interstate 680": a road
    if lowered[-1] == "cdp":
        return "place"  # "Kahului CDP": a census-designated place
    if joint is not None:
        return _opening_body(words, lowered)  # "Speaker of the House of Commons": another name's after "of"
    if lowered[-1] in V.INSTRUMENT_HEADS:
        return None  # "Medical College Admission Test", "Harvard Alumni Study": a test's, a study's name
    for at in range(len(words) - 1, 0, -1):  # the last kind word: "U.S. Route 20", "Loyola University Chicago"
        kind = _head_kind(lowered[at])
        if kind and (words[at][:1].isupper() or kind in SCIENCE_KINDS):  # "dendritic cells": common nouns
            return kind
    if lowered[0] in V.CLUB_PREFIXES and title_case(words[1]) and not gazetteer.common_word(words[1]):
        return "organization"  # "SC Freiburg", "EK Zell am See" (not "SV VSMCs", "KS Test", "SD Highway 34")
    return _opening_body(words, lowered)


def _opening_body(words: list[str], lowered: list[str]) -> str | None:
    """"Association to Advance Collegiate Schools of Business", "Committee to Protect Journalists":
    an organisation's kind word, then "to" or "against" and what it is for (not "Bank Holiday
    Monday", "Group Therapy Session")."""
    if len(words) < 3 or not title_case(words[0]) or lowered[1] not in ("to", "against"):
        return None
    return "organization" if _head_kind(lowered[0]) == "organization" else None


def _denomination(words: list[str]) -> bool:
    """Words that name a church as a body: a religion's, with its people's or a church family's
    adjectives ("Roman Catholic", "Russian Orthodox", "Free"), no founder's, place's or saint's."""
    return any(w in V.RELIGIONS for w in words) and all(
        w in V.RELIGIONS or w in V.CHURCH_FAMILIES or gazetteer.is_demonym(w) for w in words)


def _head_kind(word: str) -> str | None:
    """The kind a name's word says, in the singular too ("Pacific Oceans")."""
    for form in (word, word[:-1] if word.endswith("s") else "", word[:-3] + "y" if word.endswith("ies") else ""):
        if form in V.KIND_HEADS:
            return V.KIND_HEADS[form]
    return None


@name_rule(3)
def part_of_place(words: list[str], lowered: list[str]) -> str | None:
    """"Southern Sudan", "East Asia", "Greater Caucasus", "Dublin West", "Canada East": a part of a
    known place or city."""
    if len(words) < 2:
        return None
    if lowered[0] in V.PLACE_PARTS and gazetteer.is_place(" ".join(words[1:])):
        return "place"
    rest = " ".join(words[:-1])
    if lowered[-1] not in V.DIRECTIONS:
        return None
    if gazetteer.is_place(rest):
        return "place"  # "Sydney North", "Victoria West"
    # a city's only when it is no given name: "Oliver North", "Jackson West" are people
    return "place" if gazetteer.is_city(rest) and lowered[0] not in gazetteer.first_names() else None


@name_rule(3)
def hyphen_head(words: list[str], lowered: list[str]) -> str | None:
    """"T-cell", "B-cells": a one-word compound whose last part is a kind."""
    if len(words) != 1 or "-" not in lowered[0]:
        return None
    head = lowered[0].rsplit("-", 1)[1]
    return _head_kind(head) if head else None


@name_rule(1.5)
def qualified_demonym(words: list[str], lowered: list[str]) -> str | None:
    """"Soviet Russian", "East Prussian", "Flemish Belgian", "Ancient Egyptian": a demonym after a
    direction, an age or another demonym is that people's, weakly a place as a demonym is."""
    if len(words) < 2 or (not gazetteer.is_demonym(words[-1], plural=False) and not gazetteer.is_wordnet_demonym(words[-1])):
        return None
    if gazetteer.is_demonym(" ".join(words)) or gazetteer.is_place(" ".join(words)) or lowered[-1] in V.LANGUAGES_ONLY:
        return None  # countryinfo's own ("South African"), a place ("Central African Republic"), a language ("Indian Hindi")
    ok = all(w in V.DEMONYM_QUALIFIERS or gazetteer.is_demonym(words[i], plural=False) for i, w in enumerate(lowered[:-1]))
    return "place" if ok else None


@name_rule(3)
def team_name(words: list[str], lowered: list[str]) -> str | None:
    """"Edmonton Oilers", "Fort Wayne Zollner Pistons": a place, then a plural, names a team."""
    if len(words) < 2 or not P.pattern("team_plural").fullmatch(words[-1]) or _head_kind(lowered[-1]):
        return None  # "Lindi Regions", "Murmansk Oblasts": places of a kind, no team
    if lowered[0] in gazetteer.first_names() and lowered[-1] in gazetteer.last_names():
        return None  # "Lawrence Summers": a given name, then a family name
    return "organization" if any(gazetteer.is_place(" ".join(words[:n])) or gazetteer.is_city(" ".join(words[:n]))
                                 for n in range(1, len(words))) else None


def _person_words(words: list[str]) -> bool:
    """Capitalised names, particles, hyphens and initials only ("Anne - Marguerite du Noyer"), no
    word saying it is something else ("River Liffey", "Paisley Park") and no country at the end
    ("Bell Canada", "Nazi Germany")."""
    if not all(P.pattern("name_word").fullmatch(w) or P.pattern("initial").fullmatch(w) or w in ("-", "–") or w.lower() in V.NAME_PARTICLES
               for w in words):
        return False
    if any(abstract_noun(w) for w in words[1:]):
        return False  # "Gene Expression Omnibus"
    last, first = words[-1].lower(), words[0].lower()
    if last in V.KIND_HEADS or last in V.NOT_PERSON_HEADS or first in V.LEADING_KINDS or first in V.NATIONALITIES:
        return False  # "Paisley Park", "Gene Ontology", "River Liffey", "Swedish Riksdag"
    return len(words) < 2 or not gazetteer.is_country(words[-1])


@name_rule(2)
def first_name(words: list[str], lowered: list[str]) -> str | None:
    """"Kaori Nakamura", "Jean - Nicolas Marrigues": a given name, then more names."""
    if not 2 <= len(words) <= 6 or lowered[0] not in gazetteer.first_names() or not title_case(words[0]):
        return None
    return "person" if _person_words(words) and _surname_case(words[-1]) else None  # not "Pol IVb"


@name_rule(1.5)
def family_name(words: list[str], lowered: list[str]) -> str | None:
    """"Tituss Burgess", "Husain Haqqani": names ending in a family name."""
    if not 2 <= len(words) <= 4 or lowered[-1] not in gazetteer.last_names():
        return None
    if not P.pattern("name_word").fullmatch(words[0]) or (P.pattern("adjective_end").search(lowered[0]) and lowered[0] not in gazetteer.first_names()):
        return None  # "Familial Barrett", "Editorial Comment", "Multivariate Cox": a word, then a name
    return "person" if _person_words(words) else None


@name_rule(1.5)
def body_of_place(words: list[str], lowered: list[str]) -> str | None:
    """"Nintendo Australia", "Endemol USA", "CNN Worldwide": a body's own
    name, then the country or reach of its branch, weakly; a city only after an acronym ("NEAS
    Brisbane"). The body's name is one word (or a word and an industry's: "Sony Music") that is no
    English word, place, people, given name or title ("Greater London", "Paris Hilton", "Kowloon Hong
    Kong"; a person's name before a city's: "Hiro Hamada", "Denyce Lawton")."""
    if len(words) < 2 or len(words) > 3 or gazetteer.is_place(" ".join(words)):
        return None
    head, tail = words[:-1], words[-1]
    acronym = bool(P.pattern("acronym_word").fullmatch(head[0]))
    if not (gazetteer.is_country(tail) or lowered[-1] in V.REACHES or (acronym and gazetteer.is_city(tail))):
        return None
    if (len(tail) < 3 and not gazetteer.is_place(tail)) or lowered[-1] in gazetteer.last_names():
        return None  # "Objective To"; "Geena Davis": a family name that is also a place's
    if len(head) == 2 and lowered[1] not in V.INDUSTRY_HEADS and V.KIND_HEADS.get(lowered[1]) != "organization":
        return None  # "Nevil Shute Norway": two names
    first = head[0]
    if not (acronym or title_case(first)) or len(first) < 3 or gazetteer.common_word(first):
        return None  # "Methods Global", "V Leiden"
    lowered_first = first.lower()
    if lowered_first in gazetteer.first_names() or lowered_first in V.PLACE_PARTS or lowered_first in V.NAME_TITLES or \
            gazetteer.is_place(first) or gazetteer.is_city(first) or gazetteer.is_town(first) or gazetteer.is_demonym(first):
        return None
    return "organization"


def abstract_noun(word: str) -> bool:
    """An English abstract noun by its ending ("Expression", "Observations"), which no person's name
    has, unless it is a known family name."""
    lowered = word.lower()
    return bool(P.pattern("abstract_noun_end").search(lowered)) and lowered not in gazetteer.last_names()


@name_rule(2)
def regnal_number(words: list[str], lowered: list[str]) -> str | None:
    """"Elizabeth II", "John D. Rockefeller III": a given name and a ruler's number (not "Pol II",
    "Myosin II")."""
    if len(words) < 2 or not P.pattern("regnal").fullmatch(words[-1]) or not _person_words(words[:-1]):
        return None
    if len(words[0]) < 4 or not title_case(words[0]):
        return None
    if lowered[0] in gazetteer.first_names():
        return "person"
    # a ruler's one name in no list ("Bayezid II", "Pharasmanes I"; not "Harvard Mark II"): no
    # word, place or science name's
    if len(words) != 2 or not words[0].isalpha() or gazetteer.common_word(words[0]) or gazetteer.is_place(words[0]) or \
            (words[0] in gazetteer.wordnet_names() and gazetteer.wordnet_instances().get(words[0]) != "person") or \
            P.pattern("science_word_end").search(lowered[0]) or P.pattern("adjective_end").search(lowered[0]) or lowered[0].endswith("est"):
        return None  # "C-terminal RNase III", "Whitehall II" (WordNet's street: a study), "Dirtiest Girl I"
    return "person"


@name_rule(2)
def titled_name(words: list[str], lowered: list[str]) -> str | None:
    """"Emperor Gojong", "Sir Basil Brooke", "Elector Frederick III": a title, then a person's names."""
    if len(words) < 2 or lowered[0] not in V.NAME_TITLES or not title_case(words[0]):
        return None
    rest = words[1:-1] if P.pattern("regnal").fullmatch(words[-1]) and len(words) > 2 else words[1:]
    if P.pattern("plural_word").fullmatch(rest[-1]) or rest[-1].lower() in gazetteer.english_words() or gazetteer.is_place(" ".join(words)) \
            or gazetteer.is_city(" ".join(words)):
        return None  # "Emperor Penguins", "King Cobra", "Prince Albert" (a city)
    return "person" if _person_words(rest) and all(_surname_case(w) or P.pattern("initial").fullmatch(w) for w in rest) else None


@name_rule(2)
def initials(words: list[str], lowered: list[str]) -> str | None:
    """"John W. Mauchly", "J. R. R. Tolkien": initials among capitalised names."""
    initials = sum(bool(P.pattern("initial").fullmatch(w)) for w in words[:-1])
    if not 2 <= len(words) <= 5 or not initials or not _person_words(words) or not P.pattern("name_word").fullmatch(words[-1]):
        return None
    # two initials, or one beside a given or family name ("W. Thompson", "H. Jon Benjamin"; "S. Typhi",
    # "J. Biol" abbreviate a genus, a journal)
    named = [w.lower() for w in words if not P.pattern("initial").fullmatch(w)]
    if initials >= 2 or lowered[0] in gazetteer.first_names() or (named and named[0] in gazetteer.first_names()):
        return "person"
    return "person" if len(lowered[-1]) >= 5 and lowered[-1] in gazetteer.last_names() else None  # not "J. Mol", "N. Engl"


def _token_vote(rule: M.Rule, type_: str, words: list[str], lowered: list[str]) -> str | None:
    return type_ if rule(words) else None


# The name rules that are patterns of words: the `type` rules of data/token_rules.toml.
NAME_RULES += [Rule(name, spec["weight"], functools.partial(_token_vote, M.rule(name), spec["type"]))
               for name, spec in M.specs().items() if spec.get("phase") == "type"]


# context rules -------------------------------------------------------------------------------


def kind_of(description: str) -> str | None:
    """The type a description's head noun names: "an American rock band formed in ..." -> the last
    kind noun before the description's first preposition, relative word or comma; none when a name
    follows the noun ("the contralto Kerstin Thorborg" describes the name after it)."""
    head = P.pattern("description_end").split(description, maxsplit=1)[0]
    for conjunct in P.pattern("coordination").split(head):  # "a restaurant chain and international franchise": the first head
        words = re.findall(r"[\w'’-]+", conjunct)
        lowered = [w.lower() for w in words]
        kinds = [(i, kind) for i, w in enumerate(lowered) if (kind := _kind_noun(w, lowered[i - 1] if i else ""))]
        if kinds:
            return None if any(w[:1].isupper() for w in words[kinds[-1][0] + 1 :]) else kinds[-1][1]
    return None


def _kind_noun(word: str, previous: str) -> str | None:
    """The kind `word` names, in the singular, or with the word before it ("radio station")."""
    for form in (f"{previous} {word}", word, word[:-1] if word.endswith("s") else "",
                 word[:-3] + "y" if word.endswith("ies") else "", word[:-2] if word.endswith("es") else ""):
        if form and form in V.KIND_NOUNS:
            return V.KIND_NOUNS[form]
    return None


def heads_its_phrase(after: str) -> bool:
    """Whether the name is a noun phrase of its own, not a modifier of a noun after it ("KLF2 mRNA",
    "NMDA receptor", "Treg cells", "Type 2 diabetes"): the sentence goes on with punctuation, another
    name, a function word or a verb."""
    found = P.pattern("next_word").match(after)
    if not found or not after[:1].isspace():
        return True
    word = found.group(1)
    return word[:1].isupper() or word in V.PHRASE_JOINTS or common_verb(word.lower()) or (
        gazetteer.past_tense(word) and bool(P.pattern("finite_object").match(after[found.end() :])))


def _opens_sentence(before: str) -> bool:
    return before.strip(" \t\"“'‘(").lower() in ("", "the", "a", "an")


@context_rule(4)
def definition(before: str, name: str, after: str) -> str | None:
    """"Leeds is a city in West Yorkshire", "Queen are a British rock band": what a sentence
    opening with the name says it is."""
    found = P.pattern("copula").match(after) if _opens_sentence(before) else None
    return kind_of(found.group(1)) if found else None


@context_rule(3)
def apposition(before: str, name: str, after: str) -> str | None:
    """"Trajan, a Roman emperor, ...": a description set off by commas after the name (after a
    preposition only a title: "born in Münsingen, the third child of ..." describes the sentence's
    subject, "presented to Zhou Enlai, the Premier of China" the name)."""
    found = P.pattern("apposition").match(after)
    if not found or any(w in V.PHRASE_JOINTS or common_verb(w.lower()) for w in found.group(1).split()[:6]):
        return None  # "In small RCTs, a single-sequence method may not ...": the sentence's subject, no apposition
    kind = kind_of(found.group(1))
    if P.pattern("preposition_before_name").search(before) and not (kind == "person" and _title_phrase(found.group(1))):
        return None  # "bodies of Republican Venice, the Council of Ten": a name; "In Moscow, the President met"
    return kind


def _title_phrase(description: str) -> bool:
    """"Premier of China", "President of the United States": capitalised words and joints only."""
    words = description.strip().rstrip(".").split()
    return bool(words) and all(w[:1].isupper() or w in ("of", "the", "and", "for") for w in words)


@context_rule(3)
def described_before(before: str, name: str, after: str) -> str | None:
    """"the band Queen", "electronic music band Ladytron", "the city of Kiel", "her husband Tom":
    a kind noun right before the name (before "of", only a place's), which is no verb ("We show X")
    and follows no preposition ("in yeast X"); a work's after "the" or a possessive ("a novel X" is new)."""
    found = P.pattern("described").search(before) if heads_its_phrase(after) else None
    if not found or common_verb(found.group(2).lower()) or (found.group(1) or "").lower() in V.DESCRIPTION_PREPOSITIONS:
        return None  # "We show NHEJ", "in yeast NHEJ": no description of the name
    kind, previous = V.KIND_NOUNS.get(found.group(2)), (found.group(1) or "").lower()
    if found.group(2) == "general":
        return None  # "a general TSC/TIC marker": an adjective in lower case, the rank is "General X"
    if kind == "organization" and P.pattern("symbol").fullmatch(name):
        return None  # "ion channel Piezo2", "the network Wnt3a": a gene's symbol, no body's name
    if found.group(3) and kind != "place":
        return None  # "the city of Kiel", not "administration of FTY720"
    if kind == "work" and previous in ("a", "an", ""):
        return None  # "the novel Dune", not "a novel F4 population"
    return kind


def _surname_case(word: str) -> bool:
    """Written as a family name is: "Nakamura", "McDonald", "O'Brien", "MacLeod", "Ajayi-Adeniran"
    (not "IVb", "DNase", "Z-scores": a hyphen joins names, not a name and a word)."""
    if any(part[:1].islower() for part in word.split("-")[1:]):
        return False
    return title_case(word) or bool(P.pattern("prefixed_surname").fullmatch(word))


def person_shaped(name: str) -> bool:
    """Two to four capitalised names, no kind word, no country ("Nasser Taghvai", not "Naked Eyes
    Records", "Avex Taiwan")."""
    words = name.split()
    return 2 <= len(words) <= 4 and _person_words(words) and all(_surname_case(w) for w in words if len(w) > 2)


def reads_as_person(name: str) -> bool:
    """A given name first and a family name last ("Alan Turing"; not "Pol IVb", "Misregulated CDKs")."""
    words = name.split()
    return len(words) >= 2 and words[0].lower() in gazetteer.first_names() and _surname_case(words[-1])


def proper_name(name: str) -> bool:
    """Every word written as a proper name's, particles aside ("Ludwig van Beethoven", "Nokia")."""
    return all(title_case(w) or w.lower() in V.NAME_PARTICLES for w in name.split())


def listable_name(name: str, acronyms: bool = False) -> bool:
    """A name whose kind its list's other names can tell: proper words and initials ("Ganpat G.
    Shinde"; not symbols and codes, "VCAM-1", "Cdks": their neighbours are as often of other kinds),
    and with `acronyms`, acronyms of letters ("BMI and ASCAP"; in an abstract "TAZ", "SUNY" are as
    often a gene's)."""
    return all(title_case(w) or _surname_case(w) or w.lower() in V.NAME_PARTICLES or P.pattern("initial").fullmatch(w)
               or (acronyms and w.isalpha() and w.isupper() and 2 <= len(w) <= 6) for w in name.split())


def abbreviated(text: str, start: int, end: int) -> bool:
    """A name with a stop right after it, then a short word with its stop, a number or a lower-case
    word: an abbreviation ("Proc. Natl. Acad. Sci.", "J. Bacteriol. 172"), not a name ending a list
    ("... between Zealand and Funen. The bridge ...")."""
    return bool(P.pattern("abbreviation_after").match(text, end))


@context_rule(1, once=True)
def lone_first_name(before: str, name: str, after: str) -> str | None:
    """"Thomas", "Lena": a given name alone is a person unless something says otherwise (a weak
    default: once per name, so that "China" four times does not outvote the gazetteer), when it
    heads its phrase ("Candida albicans" is a yeast), is long enough to tell ("Pol", "Cas") and
    names no eponym ("Fisher's exact test", "Graves' disease": a test's, a disease's name)."""
    if " " in name or len(name) < 4 or not title_case(name) or name.lower() not in gazetteer.first_names() or \
            P.pattern("the_before").search(before):
        return None  # "the Constant and DASH scores": a person's name alone takes no article
    return "person" if heads_its_phrase(after) and not P.pattern("eponym").match(after) else None


@context_rule(1.5, once=True)
def known_instance(before: str, name: str, after: str) -> str | None:
    """A proper name WordNet files as an instance of one type (kg.extract.gazetteer.wordnet_instances):
    a place ("Siberia", "Yorkshire"), an organisation ("NATO", "Greenpeace"), a writing
    ("Mahabharata"), a war ("Korean War"), a person named in full ("Chiang Kai-shek"); general prose
    only, where a gene's or an organelle's name is seldom a river's or a man's ("Aire", "Golgi").
    A person's one name is for the context to confirm (known_person)."""
    type_ = gazetteer.wordnet_instances().get(name)
    if not type_ or (type_ == "person" and " " not in name) or P.pattern("name_of_its_own").match(after):
        return None  # "St. James's University Clinic": the possessive opens another name
    if gazetteer.is_place(name) or (" " not in name and gazetteer.is_city(name)):
        return None  # the place gazetteers have spoken ("York": the city before the house)
    return type_


@context_rule(1.5, once=True)
def known_person(before: str, name: str, after: str) -> str | None:
    """"Plautus", "Voltaire", "Mahler": one name WordNet files as a person's, where it heads its
    phrase and names no eponym ("Parkinson's disease", "Golgi apparatus", "Krebs cycle" are not
    about the men)."""
    if " " in name or gazetteer.wordnet_instances().get(name) != "person" or gazetteer.is_place(name) \
            or gazetteer.is_city(name):
        return None
    return "person" if heads_its_phrase(after) and not P.pattern("eponym").match(after) else None


@context_rule(2)
def place_preposition(before: str, name: str, after: str) -> str | None:
    """"born in Leeds", "north of Kiel", "the capital of Syria", "bordered on the east by Semien
    Wollo", "flows through Simmering"."""
    return "place" if P.pattern("place_before").search(before) and heads_its_phrase(after) else None


@context_rule(2)
def place_distance(before: str, name: str, after: str) -> str | None:
    """"Pasłęk, east of Elbląg", "Aldoth, three - quarters of a mile to the south - east", "Tarns,
    two miles away": where a name is said to lie from another place."""
    if not P.pattern("distance_after").match(after) or _may_be_person(name):
        return None  # "She walked with Tom, a mile from home"
    return "place"


@context_rule(3)
def binomial(before: str, name: str, after: str) -> str | None:
    """"Escherichia coli", "Caenorhabditis elegans", "Drosophila melanogaster": a genus, then a Latin
    species epithet (a Latin genitive or a model organism's epithet: "Kaplan analysis", "Harvard
    campus" are none), names an organism (the genus alone is the name found)."""
    if " " in name or not title_case(name) or len(name) < 5:
        return None
    return "organism" if P.pattern("epithet").match(after) else None


@context_rule(2)
def town_preposition(before: str, name: str, after: str) -> str | None:
    """"in Münsingen", "at Tarnowskie Góry", "past Redstone": a town of 1,000 people or more
    GeoNames lists, after a place's preposition (alone, "Florence" and "Kimball" are as often
    people; "through Geffen", "via Sony" a label); after "into", "past" or "between", not a name
    people have ("between Sharon and Abbas")."""
    found = P.pattern("at_town").search(before)
    if not found or not proper_name(name) or not heads_its_phrase(after):
        return None
    if found.group(1) and (name.lower() in gazetteer.first_names() or name.lower() in gazetteer.last_names()):
        return None  # "talks between Sharon and Abbas", "ran into Murphy": people as often
    if gazetteer.is_language(name) or gazetteer.is_demonym(name):
        return None  # "in English": the town of English, Indiana is seldom meant
    return "place" if gazetteer.is_town(name) else None


@context_rule(0.5)
def in_place(before: str, name: str, after: str) -> str | None:
    """"in Miami Shores", "in Old Bohumín": a name of several proper words after "in" is a place more
    often than not (one word is as often an organism or a database: "in Drosophila", "in Embase")."""
    words = name.split()
    if len(words) < 2 or not P.pattern("in_before").search(before) or not heads_its_phrase(after):
        return None
    return "place" if all(title_case(w) for w in words) else None


@context_rule(2)
def place_pair(before: str, name: str, after: str) -> str | None:
    """"Springfield, Illinois", "Miami Shores, Florida": a place and the place it is in."""
    found = P.pattern("place_after_comma").match(after)
    if not found or not gazetteer.is_place(found.group(1)) or gazetteer.is_place(name):
        return None
    if found.group(1).lower() in gazetteer.first_names() and any(rule in _GIVEN_NAME_RULES for rule, _, _ in name_votes(name)):
        return None  # "the brothers John D. Rockefeller III, Nelson, ...": people listed, no place's
    return "place"


# Name rules that see a given name, an initial or a title ("Downtown Little Rock" ends in a family
# name too, but is a place's).
_GIVEN_NAME_RULES = frozenset({"first_name", "initials", "regnal_number", "titled_name", "name_particle"})


@context_rule(2)
def organization_verb(before: str, name: str, after: str) -> str | None:
    """"joined Idealab", "played for Partick Thistle", "signed with Sonic Images", "studied at the
    Paris Conservatoire", "loan spells with Treze", "its acquisition of Xamarin"."""
    found = P.pattern("organization_before").search(before)
    if not found or not heads_its_phrase(after):
        return None
    if found.group("role") and not _reads_as_body(name):
        return None  # "the manager of Beyonce": a role is held for people too
    return "organization"


def _reads_as_body(name: str) -> bool:
    """A name that can be a body's and reads as no person's, people's or place's: proper words or
    an acronym, no given or family name, no person WordNet knows ("Putin", "Zhukov" are in no
    list of names but WordNet's), no city's."""
    if not name.strip() or not _body_name(name) or gazetteer.is_demonym(name) or gazetteer.is_place(name):
        return False
    if _may_be_person(name) or gazetteer.wordnet_instances().get(name) == "person" or gazetteer.is_city(name):
        return False
    return not any(rule in _GIVEN_NAME_RULES or rule == "family_name" for rule, _, _ in name_votes(name))


@context_rule(2)
def relative_word(before: str, name: str, after: str) -> str | None:
    """"Thabo Mbeki, who ...", "Volhynia, where ...": the relative word a clause about the name opens with."""
    found = P.pattern("relative_after").match(after)
    if not found or P.pattern("with_before").search(before):
        return None  # "patients with SpA, who ...": the clause is about the noun before "with"
    return "place" if found.group(1) == "where" else "person"


def listed_together(sentence: str, spans: list[tuple[int, int]]) -> list[list[int]]:
    """Runs of names a sentence lists ("Nokia, Intel and Taito"): indexes into `spans`, which are
    (start, end) of the mentions in order; a run has two or more."""
    runs: list[list[int]] = []
    for i in range(len(spans)):
        if i and P.pattern("listed").match(sentence[spans[i - 1][1] : spans[i][0]]):
            runs[-1].append(i)
        else:
            runs.append([i])
    return [run for run in runs if len(run) > 1]


def _plural_kind(word: str) -> str | None:
    """The kind a plural noun names ("bands", "rivers", "companies"); None for a singular."""
    return _kind_noun(word, "") if word.endswith("s") and not word.endswith("ss") else None


def _plural_before(before: str) -> re.Match[str] | None:
    """A plural kind right before a list; with no determiner, only after a lower-case word that is no
    pronoun ("effects companies Weta", "by hurricanes Floyd"), or after a name when the plural is
    no verb's ("Bollywood actresses Shabana Azmi and Tanuja"; not "Obama attacks Clinton and
    Sanders", "He judges Crufts and Westminster": a verb after its subject)."""
    found = P.pattern("plural_before").search(before)
    if not found or found.start() < found.start(1):
        return found  # a determiner opens it
    previous = before[: found.start(1)].split()[-1:]
    if not previous or previous[0].lower() in V.LIST_PRONOUNS:
        return None
    if previous[0][:1].islower():
        return found
    # after a name, a verb's third person as often ("Obama attacks"): only a word that is no verb's
    return None if gazetteer.third_person(found.group(1)) else found


def list_kind(before: str, after: str) -> str | None:
    """The kind a list of names is of: a plural kind noun before it ("bands such as A, B and C")
    or right after it ("the Oder and Olza rivers", "the Brintnell and Hollick - Kenyon neighbourhoods")."""
    found = P.pattern("such_as").search(before) or _plural_before(before)
    kind = _plural_kind(found.group(1)) if found else None
    if kind:
        return kind
    found = P.pattern("plural_after").match(after)
    plural = found.group(1) if found else ""
    if not found or plural[:-1] in V.STUDY_SETS or plural[:-3] + "y" in V.STUDY_SETS:
        return None  # "the LNS and MMN groups", "the two families": a study's arms, no bodies
    return _plural_kind(found.group(1))


def scientific(text: str) -> bool:
    """Whether text reads as science: a study's statistics ("(n = 33)", "P < 0.05", "95% CI") or two
    or more kind nouns of the sciences ("cells", "protein", "disease", "virus")."""
    if P.pattern("study_statistics").search(text):
        return True  # "(n = 33)", "P < 0.05", "95% CI": a study's figures
    count = 0  # repeats count: "the disease ... the disease" is a text about one
    for word in re.findall(r"[a-z]+", text):
        noun = word if word in V.KIND_NOUNS else word[:-1] if word.endswith("s") else ""
        if V.KIND_NOUNS.get(noun) in SCIENCE_KINDS:
            count += 1
            if count >= 2:
                return True
    return False


@context_rule(1, once=True)
def article_before(before: str, name: str, after: str) -> str | None:
    """"the BBC", "the Supremes", "the Chicago Tribune": a proper name English writes with "the"
    is an organisation's more often than any other's (people never take it; places that do are
    mostly in the gazetteers, which outvote this)."""
    if not P.pattern("the_before").search(before) or P.pattern("where_the_before").search(before) or not heads_its_phrase(after):
        return None  # "in the Levant", "across the Americas": a region's
    head = name.split(" of ")[0].split()[-1].lower()  # "Declaration" of "Declaration of Helsinki"
    if " " not in name or not proper_name(name) or name.split()[-1].lower() in V.NOT_BODY_HEADS or \
            head in V.NOT_BODY_HEADS:
        return None  # "the Wnt", "the odds ratio": no proper name of its own; "the Potsdam Agreement": no body
    if P.pattern("run_on_the").search(before):
        return None  # "Pirates of the Caribbean The Curse of the Black Pearl": a title's second part
    if (_opens_sentence(before) or before.endswith("The ")) and (after.lstrip().startswith(":") or P.pattern("title_goes_on").match(after)):
        return None  # "The Fundamental Problem: Need for ...", "The Risk Factors and Life Expectancy Study": a title's words
    return "organization"


def _may_be_person(name: str) -> bool:
    """Reads as a person's name, or is a given or family name alone ("produced by Chambers")."""
    lowered = name.lower()
    return person_shaped(name) or reads_as_person(name) or lowered in gazetteer.first_names() \
        or lowered in gazetteer.last_names()


def _body_name(name: str) -> bool:
    """Written as an organisation's name: proper words ("Nettwerk"), an acronym of letters only
    ("BPI"; not "IL-6", "CD4"), or words of both ("BBC One", "CNN Worldwide")."""
    words = name.split()
    return proper_name(name) or (name.isalpha() and name.isupper() and len(name) >= 2) or (
        len(words) > 1 and all(title_case(w) or P.pattern("acronym_word").fullmatch(w) for w in words))


ONCE_PER_NAME = frozenset(rule.name for rule in CONTEXT_RULES if rule.once)
# Rules for general prose only: the extractor skips them in scientific text (scientific()), where a
# gene's or an organelle's name is seldom the river or the man WordNet knows ("Aire", "Golgi").
GENERAL_PROSE_RULES = frozenset({"known_instance", "known_person"})


@context_rule(7)
def language_use(before: str, name: str, after: str) -> str | None:
    """"written in German.", "the French word for", "a Spanish-language film", "English-speaking": a
    demonym that names its people's language (not "in German territory", "in Swiss and Finnish
    patients": a nationality's)."""
    if not gazetteer.is_demonym(name, plural=False):
        return None  # a people ("in Czechs", "Hungarians") is never a language
    if P.pattern("language_after").match(after) or P.pattern("language_word").match(after) or \
            (P.pattern("language_before").search(before) and P.pattern("clause_ends").match(after)):
        return "language"  # "in German." but not "in Swiss and Finnish patients"
    return None

