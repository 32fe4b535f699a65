"""What kind of thing a name is, for the offline extractor (issue 34).

Each rule below is a named function that votes for a type with a weight; an entity's type is
the one with the most weight over its names and mentions (`decide`), "concept" when nothing
voted. Name rules read the name alone (a head word, a corporate suffix, a gazetteer, a first
name); context rules read the sentence around a mention (a definition or apposition, "born in
X", "X (born 1950)"). Reference resolution adds a vote for a person when "He" or "She" refers to
a name (kg/extract/heuristic.py). The rules are general patterns of English prose; their weights
were chosen on one half of Re-DocRED and checked on the other (benchmarks/README.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from kg.extract import gazetteer
from kg.extract import vocab as V

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


def name_votes(name: str) -> list[tuple[str, str, float]]:
    """(rule, type, weight) of every name rule that applies to `name`."""
    words = name.split()
    if not words:
        return []
    lowered = [w.lower().strip(".,'’") for w in words]
    out = []
    for rule in NAME_RULES:
        type_ = rule.applies(words, lowered)
        if type_:
            out.append((rule.name, type_, rule.weight))
    return out


ONCE_PER_NAME: frozenset[str] = frozenset()  # filled below: the rules registered with once=True


def context_votes(before: str, name: str, after: str) -> list[tuple[str, str, float]]:
    """(rule, type, weight) of every context rule that applies to one mention of `name`."""
    out = []
    for rule in CONTEXT_RULES:
        type_ = rule.applies(before, name, after)
        if type_:
            out.append((rule.name, type_, rule.weight))
    return out


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
        return None if named or not _title_case(words[-2]) else "organization"
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
    if lowered[-1] in _INSTRUMENT_HEADS:
        return None  # "Medical College Admission Test", "Harvard Alumni Study": a test's, a study's name
    for at in range(len(words) - 1, 0, -1):  # the last kind word: "U.S. Route 20", "Loyola University Chicago"
        kind = _head_kind(lowered[at])
        if kind and (words[at][:1].isupper() or kind in SCIENCE_KINDS):  # "dendritic cells": common nouns
            return kind
    if lowered[0] in V.CLUB_PREFIXES and _title_case(words[1]) and not gazetteer.common_word(words[1]):
        return "organization"  # "SC Freiburg", "EK Zell am See" (not "SV VSMCs", "KS Test", "SD Highway 34")
    return _opening_body(words, lowered)


@name_rule(2)
def industry_head(words: list[str], lowered: list[str]) -> str | None:
    """"Nippon Steel", "Greengrass Television", "Tolo TV", "Walt Disney Productions": an industry's
    word ending the name (vocab.INDUSTRY_HEADS; not in the middle: "Lutheran Service Book"), not
    after one common word ("Power Electronics", "Thin Films"), nor a demonym ("American TV"), nor
    in a term WordNet lists ("Stainless Steel"); weaker than a quoted title ("Hard Steel" is a song)."""
    if len(words) < 2 or lowered[-1] not in V.INDUSTRY_HEADS or gazetteer.is_demonym(words[0]):
        return None
    if any(w in ("of", "as") for w in lowered) or gazetteer.common_word(" ".join(lowered)):
        return None  # "Quality of Service", "Stainless Steel", "Cable Television": WordNet's own terms
    if len(words) == 2 and not _ACRONYM.fullmatch(words[0]) and gazetteer.common_word(words[0]):
        return None  # "Power Electronics", "Thin Films", "Cognitive Radio": a field's, not a firm's
    return "organization"


# The last words of the names of tests and studies, whatever kind word they hold ("Medical
# College Admission Test", "British Heart Foundation Family Heart Study").
_INSTRUMENT_HEADS = frozenset({"test", "tests", "study", "studies", "questionnaire", "inventory", "scale", "score",
                               "assay", "trial", "trials"})  # not "survey": "United States Geological Survey" is a body


def _opening_body(words: list[str], lowered: list[str]) -> str | None:
    """"Association to Advance Collegiate Schools of Business", "Committee to Protect Journalists":
    an organisation's kind word, then "to" or "against" and what it is for (not "Bank Holiday
    Monday", "Group Therapy Session")."""
    if len(words) < 3 or not _title_case(words[0]) or lowered[1] not in ("to", "against"):
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
    if lowered[-1] not in _DIRECTIONS:
        return None
    if gazetteer.is_place(rest):
        return "place"  # "Sydney North", "Victoria West"
    # a city's only when it is no given name: "Oliver North", "Jackson West" are people
    return "place" if gazetteer.is_city(rest) and lowered[0] not in gazetteer.first_names() else None


_DIRECTIONS = frozenset({"north", "south", "east", "west", "central", "northeast", "northwest", "southeast", "southwest"})


@name_rule(3)
def party(words: list[str], lowered: list[str]) -> str | None:
    """"a Republican member", "the Liberal candidate", "Tories": a political party by the word its
    members are called (vocab.PARTIES)."""
    return "organization" if len(words) == 1 and _title_case(words[0]) and lowered[0] in V.PARTIES else None


_NUCLEIC_ACID = re.compile(r"(?:c|ds|ss|m|mt|nc|lnc|mi|si|sh|t|r|sn|sno|pi|circ|g|cf|ct|e)?(?:DNA|RNA)s?")


@name_rule(3)
def nucleic_acid(words: list[str], lowered: list[str]) -> str | None:
    """"DNA", "mRNA", "siRNAs", "mtDNA": a nucleic acid, a molecule (a chemical)."""
    return "chemical" if len(words) == 1 and _NUCLEIC_ACID.fullmatch(words[0]) else None


_MARKER = re.compile(r"(?:CD\d{1,3}[a-z]?|IL-?\d{1,2}[A-Z]?)")


@name_rule(3)
def protein_family(words: list[str], lowered: list[str]) -> str | None:
    """"CD4", "CD45", "IL-6", "IL17A": a cluster-of-differentiation marker or an interleukin (HGNC's
    families), a protein."""
    return "gene or protein" if len(words) == 1 and _MARKER.fullmatch(words[0]) else None


_DISEASE_END = re.compile(r"[a-z]{3,}(?:itis|a?emia)|[a-z]{5,}pathy")  # "arthritis", "ischemia", "neuropathy"
_TUMOUR_END = re.compile(r"[a-z]{4,}omas?")  # "melanoma", "carcinomas" (a common noun: "Oklahoma" is no tumour)


@name_rule(2)
def disease_suffix(words: list[str], lowered: list[str]) -> str | None:
    """A name ending in a disease's suffix: "rheumatoid arthritis", "hepatocellular carcinoma"."""
    if _DISEASE_END.fullmatch(words[-1]):  # lower case: "Caenorhabditis" is a genus
        return "disease"
    return "disease" if _TUMOUR_END.fullmatch(words[-1]) else None


@name_rule(3)
def hyphen_head(words: list[str], lowered: list[str]) -> str | None:
    """"T-cell", "B-cells": a one-word compound whose last part is a kind."""
    if len(words) != 1 or "-" not in lowered[0]:
        return None
    head = lowered[0].rsplit("-", 1)[1]
    return _head_kind(head) if head else None


@name_rule(3.5)
def known_place(words: list[str], lowered: list[str]) -> str | None:
    """A country, subdivision, capital, continent, US state or county the gazetteers list."""
    if len(words) == 1 and not (_title_case(words[0]) or words[0].isupper()):
        return None  # "HeLa", "CpG": no place is written so
    return "place" if gazetteer.is_place(" ".join(words)) else None


@name_rule(1.5)
def known_city(words: list[str], lowered: list[str]) -> str | None:
    """A city of 15,000 people or more named by one word (many share it with a person: "Florence",
    "Dante"), written as a place's name is ("HeLa" is a cell line)."""
    return "place" if len(words) == 1 and _title_case(words[0]) and gazetteer.is_city(words[0]) else None


@name_rule(1.5)
def qualified_demonym(words: list[str], lowered: list[str]) -> str | None:
    """"Soviet Russian", "East Prussian", "Flemish Belgian", "Ancient Egyptian": a demonym after a
    direction, an age or another demonym is that people's, weakly a place as a demonym is."""
    if len(words) < 2 or (not gazetteer.is_demonym(words[-1], plural=False) and not gazetteer.is_wordnet_demonym(words[-1])):
        return None
    if gazetteer.is_demonym(" ".join(words)) or gazetteer.is_place(" ".join(words)) or lowered[-1] in V.LANGUAGES_ONLY:
        return None  # countryinfo's own ("South African"), a place ("Central African Republic"), a language ("Indian Hindi")
    ok = all(w in _DEMONYM_QUALIFIERS or gazetteer.is_demonym(words[i], plural=False) for i, w in enumerate(lowered[:-1]))
    return "place" if ok else None


_DEMONYM_QUALIFIERS = frozenset(V.PLACE_PARTS | {"ancient", "modern", "medieval", "native", "early", "late"})


@name_rule(3)
def known_city_name(words: list[str], lowered: list[str]) -> str | None:
    """A city of 15,000 people or more named by several words ("San Francisco", "Bahir Dar")."""
    return "place" if len(words) > 1 and gazetteer.is_city(" ".join(words)) else None


@name_rule(3)
def team_name(words: list[str], lowered: list[str]) -> str | None:
    """"Edmonton Oilers", "Fort Wayne Zollner Pistons": a place, then a plural, names a team."""
    if len(words) < 2 or not re.fullmatch(r"[A-Z][a-z]+[^s]s", words[-1]) or _head_kind(lowered[-1]):
        return None  # "Lindi Regions", "Murmansk Oblasts": places of a kind, no team
    if lowered[0] in gazetteer.first_names() and lowered[-1] in gazetteer.last_names():
        return None  # "Lawrence Summers": a given name, then a family name
    return "organization" if any(gazetteer.is_place(" ".join(words[:n])) or gazetteer.is_city(" ".join(words[:n]))
                                 for n in range(1, len(words))) else None


def _person_words(words: list[str]) -> bool:
    """Capitalised names, particles, hyphens and initials only ("Anne - Marguerite du Noyer"), no
    word saying it is something else ("River Liffey", "Paisley Park") and no country at the end
    ("Bell Canada", "Nazi Germany")."""
    if not all(_NAME_WORD.fullmatch(w) or _INITIAL.fullmatch(w) or w in ("-", "–") or w.lower() in V.NAME_PARTICLES
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
    if not 2 <= len(words) <= 6 or lowered[0] not in gazetteer.first_names() or not _title_case(words[0]):
        return None
    if gazetteer.common_word(lowered[-1]) and lowered[-1] not in gazetteer.last_names():
        return None  # "Claude Code", "Joy Division": a word of English after the given name, no family name
    return "person" if _person_words(words) and _surname_case(words[-1]) else None  # not "Pol IVb"


@name_rule(1.5)
def family_name(words: list[str], lowered: list[str]) -> str | None:
    """"Tituss Burgess", "Husain Haqqani": names ending in a family name."""
    if not 2 <= len(words) <= 4 or lowered[-1] not in gazetteer.last_names():
        return None
    if not _NAME_WORD.fullmatch(words[0]) or (_ADJECTIVE_END.search(lowered[0]) and lowered[0] not in gazetteer.first_names()):
        return None  # "Familial Barrett", "Editorial Comment", "Multivariate Cox": a word, then a name
    return "person" if _person_words(words) else None


@name_rule(2)
def chinese_name(words: list[str], lowered: list[str]) -> str | None:
    """"Zhu Rongji", "Zhang Yimou", "Liang Qichao": a Chinese family name, then a given name of one
    or two pinyin syllables (not "Song Dynasty", "Long Island", "Ma Bell")."""
    if len(words) != 2 or lowered[0] not in gazetteer.chinese_family_names() or not _title_case(words[1]):
        return None
    if lowered[1] in gazetteer.english_words() or not _PINYIN_NAME.fullmatch(lowered[1]):
        return None
    if gazetteer.common_word(words[1]) or gazetteer.common_word(" ".join(lowered)):
        return None  # "Feng Shui", "Yin Yang": English has the words
    return "person"


# A syllable of pinyin: an initial, then a final ("rong", "ji", "qiu", "ying").
_PINYIN = (r"(?:zh|ch|sh|[bpmfdtnlgkhjqxrzcsyw])?(?:iang|iong|uang|ang|eng|ing|ong|ian|iao|uai|uan|ai|ei|ao|ou|an|en|"
           r"in|un|ia|ie|iu|ua|uo|ue|ui|er|a|o|e|i|u|ü)")
_PINYIN_NAME = re.compile(rf"{_PINYIN}(?:[-']?{_PINYIN})?")


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
    acronym = bool(_ACRONYM.fullmatch(head[0]))
    if not (gazetteer.is_country(tail) or lowered[-1] in _REACHES or (acronym and gazetteer.is_city(tail))):
        return None
    if (len(tail) < 3 and not gazetteer.is_place(tail)) or lowered[-1] in gazetteer.last_names():
        return None  # "Objective To"; "Geena Davis": a family name that is also a place's
    if len(head) == 2 and lowered[1] not in V.INDUSTRY_HEADS and V.KIND_HEADS.get(lowered[1]) != "organization":
        return None  # "Nevil Shute Norway": two names
    first = head[0]
    if not (acronym or _title_case(first)) or len(first) < 3 or gazetteer.common_word(first):
        return None  # "Methods Global", "V Leiden"
    lowered_first = first.lower()
    if lowered_first in gazetteer.first_names() or lowered_first in V.PLACE_PARTS or lowered_first in V.NAME_TITLES or \
            gazetteer.is_place(first) or gazetteer.is_city(first) or gazetteer.is_town(first) or gazetteer.is_demonym(first):
        return None
    return "organization"


_REACHES = {"worldwide", "international", "global"}


# Endings of English adjectives and participles, which given names outside the lists seldom have.
# (Not "-al", "-ed", "-ing", "-ant": "Kajal", "Saeed", "Xiaoming", "Prashant" are given names.)
_ADJECTIVE_END = re.compile(r"\w{3}(?:ial|ical|ive|ate|ated|ized|ised|ted|ic|ous|ary|ory|ible|able)$")
# Endings of English abstract nouns, which no person's name words have ("Gene Expression Omnibus").
_ABSTRACT_NOUN_END = re.compile(r"\w{3}(?:tion|sion|ology|ism|ality|ivity|bility)s?$")  # not "Garrity", "Guinness"


def abstract_noun(word: str) -> bool:
    """An English abstract noun by its ending ("Expression", "Observations"), which no person's name
    has, unless it is a known family name."""
    lowered = word.lower()
    return bool(_ABSTRACT_NOUN_END.search(lowered)) and lowered not in gazetteer.last_names()


@name_rule(2)
def regnal_number(words: list[str], lowered: list[str]) -> str | None:
    """"Elizabeth II", "John D. Rockefeller III": a given name and a ruler's number (not "Pol II",
    "Myosin II")."""
    if len(words) < 2 or not _REGNAL.fullmatch(words[-1]) or not _person_words(words[:-1]):
        return None
    if len(words[0]) < 4 or not _title_case(words[0]):
        return None
    if lowered[0] in gazetteer.first_names():
        return "person"
    # a ruler's one name in no list ("Bayezid II", "Pharasmanes I"; not "Harvard Mark II"): no
    # word, place or science name's
    if len(words) != 2 or not words[0].isalpha() or gazetteer.common_word(words[0]) or gazetteer.is_place(words[0]) or \
            (words[0] in gazetteer.wordnet_names() and gazetteer.wordnet_instances().get(words[0]) != "person") or \
            _SCIENCE_WORD_END.search(lowered[0]) or _ADJECTIVE_END.search(lowered[0]) or lowered[0].endswith("est"):
        return None  # "C-terminal RNase III", "Whitehall II" (WordNet's street: a study), "Dirtiest Girl I"
    return "person"


# Endings of the names of enzymes, proteins and compounds ("Caspase III", "Angiotensin II").
_SCIENCE_WORD_END = re.compile(r"(?:ase|in|ine|gen|ol|one|ide|ate|yl|on)$")


@name_rule(2)
def titled_name(words: list[str], lowered: list[str]) -> str | None:
    """"Emperor Gojong", "Sir Basil Brooke", "Elector Frederick III": a title, then a person's names."""
    if len(words) < 2 or lowered[0] not in V.NAME_TITLES or not _title_case(words[0]):
        return None
    rest = words[1:-1] if _REGNAL.fullmatch(words[-1]) and len(words) > 2 else words[1:]
    if _PLURAL.fullmatch(rest[-1]) or rest[-1].lower() in gazetteer.english_words() or gazetteer.is_place(" ".join(words)) \
            or gazetteer.is_city(" ".join(words)):
        return None  # "Emperor Penguins", "King Cobra", "Prince Albert" (a city)
    return "person" if _person_words(rest) and all(_surname_case(w) or _INITIAL.fullmatch(w) for w in rest) else None


@name_rule(2)
def initials(words: list[str], lowered: list[str]) -> str | None:
    """"John W. Mauchly", "J. R. R. Tolkien": initials among capitalised names."""
    initials = sum(bool(_INITIAL.fullmatch(w)) for w in words[:-1])
    if not 2 <= len(words) <= 5 or not initials or not _person_words(words) or not _NAME_WORD.fullmatch(words[-1]):
        return None
    # two initials, or one beside a given or family name ("W. Thompson", "H. Jon Benjamin"; "S. Typhi",
    # "J. Biol" abbreviate a genus, a journal)
    named = [w.lower() for w in words if not _INITIAL.fullmatch(w)]
    if initials >= 2 or lowered[0] in gazetteer.first_names() or (named and named[0] in gazetteer.first_names()):
        return "person"
    return "person" if len(lowered[-1]) >= 5 and lowered[-1] in gazetteer.last_names() else None  # not "J. Mol", "N. Engl"


@name_rule(1.5)
def name_particle(words: list[str], lowered: list[str]) -> str | None:
    """"Ludwig van Beethoven", "Charles de Gaulle": a particle between given name and surname."""
    inner = lowered[1:-1]
    return "person" if 3 <= len(words) <= 4 and any(w in V.SURNAME_PARTICLES for w in inner) else None


_PLURAL = re.compile(r"\S+[^s]s")  # one word in the plural: "Penguins", "Tregs" (not "Congress")
_NAME_WORD = re.compile(r"[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’-]*[a-zß-öø-ÿā-ž][\w'’-]*")  # "Nakamura", "O'Brien", "McDonald"
_INITIAL = re.compile(r"[A-Z]\.")
_REGNAL = re.compile(r"(?=[IVX])X{0,3}(?:IX|IV|V?I{0,3})")


# context rules -------------------------------------------------------------------------------

_COPULA = re.compile(r"^\s*(?:\([^()]*\)\s*)?,?\s*(?:is|was|are|were|has been|had been|became|remains)\s+"
                     r"(?:also\s+|now\s+|currently\s+|still\s+|not\s+)?(?:an?|the|one of the)\s+(.{3,200})")
_APPOSITION = re.compile(r"^\s*,\s*(?:an?|the)\s+([^,;()]{3,200})")
# Where a description's head phrase ends ("and", "or" join two heads: "a television and film
# production company"; "-based" is a compound before the head: "a Río de la Plata - based music band").
_DESCRIPTION_END = re.compile(r"\b(?:who|whom|which|that|whose|where|when|in|of|on|at|from|for|by|with|to|but|"
                              r"(?<![-‐]\s)(?<![-‐])based|located|founded|formed|established|born|directed|written|produced|released|"
                              r"published|created|known|named|situated|operated|owned|built|set)\b|[,;:()]")


def kind_of(description: str) -> str | None:
    """The type a description's head noun names: "an American rock band formed in ..." -> the last
    kind noun before the description's first preposition, relative word or comma; none when a name
    follows the noun ("the contralto Kerstin Thorborg" describes the name after it)."""
    head = _DESCRIPTION_END.split(description, maxsplit=1)[0]
    for conjunct in _COORDINATION.split(head):  # "a restaurant chain and international franchise": the first head
        words = re.findall(r"[\w'’-]+", conjunct)
        lowered = [w.lower() for w in words]
        kinds = [(i, kind) for i, w in enumerate(lowered) if (kind := _kind_noun(w, lowered[i - 1] if i else ""))]
        if kinds:
            return None if any(w[:1].isupper() for w in words[kinds[-1][0] + 1 :]) else kinds[-1][1]
    return None


_COORDINATION = re.compile(r"(?<![\w-])(?:and|or)(?![\w-])")


def _kind_noun(word: str, previous: str) -> str | None:
    """The kind `word` names, in the singular, or with the word before it ("radio station")."""
    for form in (f"{previous} {word}", word, word[:-1] if word.endswith("s") else "",
                 word[:-3] + "y" if word.endswith("ies") else "", word[:-2] if word.endswith("es") else ""):
        if form and form in V.KIND_NOUNS:
            return V.KIND_NOUNS[form]
    return None


_DETERMINERS = frozenset({"a", "an", "the"})
_FUNCTION_WORDS = frozenset("""
    in on at and or but nor from to during since until where when while for with as by between near before after
    under over into onto through throughout against among within without about upon via which who whom whose that
    than then so yet if is are was were be been being has have had do does did will would shall should can could
    may might must also not never still later now once again only just even both either neither
    """.split())


def heads_its_phrase(after: str) -> bool:
    """Whether the name is a noun phrase of its own, not a modifier of a noun after it ("KLF2 mRNA",
    "NMDA receptor", "Treg cells", "Type 2 diabetes"): the sentence goes on with punctuation, another
    name, a function word or a verb."""
    found = re.match(r"\s*([A-Za-z][\w'’-]*)", after)
    if not found or not after[:1].isspace():
        return True
    word = found.group(1)
    return word[:1].isupper() or word in _FUNCTION_WORDS or _verb_like(word) or (
        gazetteer.past_tense(word) and bool(_FINITE_OBJECT.match(after[found.end() :])))


# What follows a verb in the past tense with a subject before it ("Hitler invaded Poland", "Rachel
# signed an exclusive deal"; not a participle's agent or place: "H3K56 acetylated by p300").
_FINITE_OBJECT = re.compile(r"\s*(?:[.,;:)]|$|(?:a|an|the|his|her|its|their|him|them|it|[A-Z]\w*)\b)")


def _verb_like(word: str) -> bool:
    w = word.lower()
    return any(w.endswith(suffix) and w[: len(w) - len(suffix)] in V.COMMON_VERBS for suffix in ("", "s", "es", "ed", "d", "ing")) \
        or (w.endswith("ies") and w[:-3] + "y" in V.COMMON_VERBS)


def _opens_sentence(before: str) -> bool:
    return before.strip(" \t\"“'‘(").lower() in ("", "the", "a", "an")


@context_rule(4)
def definition(before: str, name: str, after: str) -> str | None:
    """"Leeds is a city in West Yorkshire", "Queen are a British rock band": what a sentence
    opening with the name says it is."""
    found = _COPULA.match(after) if _opens_sentence(before) else None
    return kind_of(found.group(1)) if found else None


_AFTER_PREPOSITION = re.compile(r"\b(?:in|at|on|of|from|to|near|into|by|with)(?:\s+the)?\s*$", re.IGNORECASE)


@context_rule(3)
def apposition(before: str, name: str, after: str) -> str | None:
    """"Trajan, a Roman emperor, ...": a description set off by commas after the name (after a
    preposition only a title: "born in Münsingen, the third child of ..." describes the sentence's
    subject, "presented to Zhou Enlai, the Premier of China" the name)."""
    found = _APPOSITION.match(after)
    if not found or any(w in _FUNCTION_WORDS - _DETERMINERS or _verb_like(w) for w in found.group(1).split()[:6]):
        return None  # "In small RCTs, a single-sequence method may not ...": the sentence's subject, no apposition
    kind = kind_of(found.group(1))
    if _AFTER_PREPOSITION.search(before) and not (kind == "person" and _title_phrase(found.group(1))):
        return None  # "bodies of Republican Venice, the Council of Ten": a name; "In Moscow, the President met"
    return kind


def _title_phrase(description: str) -> bool:
    """"Premier of China", "President of the United States": capitalised words and joints only."""
    words = description.strip().rstrip(".").split()
    return bool(words) and all(w[:1].isupper() or w in ("of", "the", "and", "for") for w in words)


_DESCRIBED = re.compile(r"(?:^|(\S+)\s)([a-z][a-z-]+)(\s+of(?:\s+the)?)?\s*$")
_PREPOSITIONS = frozenset("in on at of by for with from to into onto via".split())


@context_rule(3)
def described_before(before: str, name: str, after: str) -> str | None:
    """"the band Queen", "electronic music band Ladytron", "the city of Kiel", "her husband Tom":
    a kind noun right before the name (before "of", only a place's), which is no verb ("We show X")
    and follows no preposition ("in yeast X"); a work's after "the" or a possessive ("a novel X" is new)."""
    found = _DESCRIBED.search(before) if heads_its_phrase(after) else None
    if not found or _verb_like(found.group(2)) or (found.group(1) or "").lower() in _PREPOSITIONS:
        return None  # "We show NHEJ", "in yeast NHEJ": no description of the name
    kind, previous = V.KIND_NOUNS.get(found.group(2)), (found.group(1) or "").lower()
    if found.group(2) == "general":
        return None  # "a general TSC/TIC marker": an adjective in lower case, the rank is "General X"
    if kind == "organization" and _SYMBOL.fullmatch(name):
        return None  # "ion channel Piezo2", "the network Wnt3a": a gene's symbol, no body's name
    if found.group(3) and kind != "place":
        return None  # "the city of Kiel", not "administration of FTY720"
    if kind == "work" and previous in ("a", "an", ""):
        return None  # "the novel Dune", not "a novel F4 population"
    return kind


_SYMBOL = re.compile(r"[A-Za-z]+\d[\w.-]*")  # letters, then a digit: "Piezo2", "Kir2.1", "Wnt3a"
_SETS = frozenset({"group", "unit", "division", "family", "society"})  # "the placebo group": a set, no body
def _surname_case(word: str) -> bool:
    """Written as a family name is: "Nakamura", "McDonald", "O'Brien", "MacLeod", "Ajayi-Adeniran"
    (not "IVb", "DNase", "Z-scores": a hyphen joins names, not a name and a word)."""
    if any(part[:1].islower() for part in word.split("-")[1:]):
        return False
    return _title_case(word) or bool(_PREFIXED_SURNAME.fullmatch(word))


# Family names with a capital inside after a prefix ("McDonald", "DeStefano", "LaMarr", "DiCaprio").
_PREFIXED_SURNAME = re.compile(r"(?:Mc|Mac|Fitz|De|Di|Da|Du|La|Le)[A-Z][a-z]+")


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
    return all(_title_case(w) or w.lower() in V.NAME_PARTICLES for w in name.split())


def listable_name(name: str, acronyms: bool = False) -> bool:
    """A name whose kind its list's other names can tell: proper words and initials ("Ganpat G.
    Shinde"; not symbols and codes, "VCAM-1", "Cdks": their neighbours are as often of other kinds),
    and with `acronyms`, acronyms of letters ("BMI and ASCAP"; in an abstract "TAZ", "SUNY" are as
    often a gene's)."""
    return all(_title_case(w) or _surname_case(w) or w.lower() in V.NAME_PARTICLES or _INITIAL.fullmatch(w)
               or (acronyms and w.isalpha() and w.isupper() and 2 <= len(w) <= 6) for w in name.split())


def abbreviated(text: str, start: int, end: int) -> bool:
    """A name with a stop right after it, then a short word with its stop, a number or a lower-case
    word: an abbreviation ("Proc. Natl. Acad. Sci.", "J. Bacteriol. 172"), not a name ending a list
    ("... between Zealand and Funen. The bridge ...")."""
    return bool(_ABBREVIATION_AFTER.match(text, end))


_NAME_OF_ITS_OWN = re.compile(r"^['’]s?\s+[A-Z]")
_ABBREVIATION_AFTER = re.compile(r"\.\s*(?:[A-Z][a-z]{0,4}\.|\d|[a-z])")


def _title_case(word: str) -> bool:
    """Written as a proper name is: a capital, then lower case ("Łódź", "Baden-Württemberg",
    "O'Brien"), not "HeLa", "CpG" or "IgE"."""
    parts = [p for p in re.split(r"[-'’]", word) if p]
    return word[:1].isupper() and bool(parts) and all(p.isalpha() and (len(p) == 1 or p[1:].islower()) for p in parts)


_EPONYM = re.compile(r"^['’]s?\s+(?!(?:wife|husband|son|daughter|father|mother|brother|sister|family|death|birth|"
                     r"life|career|children|widow|friend)\b)[a-z]")


@context_rule(1, once=True)
def lone_first_name(before: str, name: str, after: str) -> str | None:
    """"Thomas", "Lena": a given name alone is a person unless something says otherwise (a weak
    default: once per name, so that "China" four times does not outvote the gazetteer), when it
    heads its phrase ("Candida albicans" is a yeast), is long enough to tell ("Pol", "Cas") and
    names no eponym ("Fisher's exact test", "Graves' disease": a test's, a disease's name)."""
    if " " in name or len(name) < 4 or not _title_case(name) or name.lower() not in gazetteer.first_names() or \
            _THE.search(before):
        return None  # "the Constant and DASH scores": a person's name alone takes no article
    return "person" if heads_its_phrase(after) and not _EPONYM.match(after) else None


@context_rule(1.5, once=True)
def known_instance(before: str, name: str, after: str) -> str | None:
    """A proper name WordNet files as an instance of one type (kg.extract.gazetteer.wordnet_instances):
    a place ("Siberia", "Yorkshire"), an organisation ("NATO", "Greenpeace"), a writing
    ("Mahabharata"), a war ("Korean War"), a person named in full ("Chiang Kai-shek"); general prose
    only, where a gene's or an organelle's name is seldom a river's or a man's ("Aire", "Golgi").
    A person's one name is for the context to confirm (known_person)."""
    type_ = gazetteer.wordnet_instances().get(name)
    if not type_ or (type_ == "person" and " " not in name) or _NAME_OF_ITS_OWN.match(after):
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
    return "person" if heads_its_phrase(after) and not _EPONYM.match(after) else None


_PLACE_BEFORE = re.compile(r"\b(?:born|died|raised|located|situated|based|headquartered|buried|lives|lived|"
                           r"grew up|settled|emigrated|moved|relocated)\s+(?:in|at|to|near)(?:\s+the)?\s*$|"
                           r"\b(?:near|outside|(?:north|south|east|west|northeast|northwest|southeast|southwest)"
                           r"(?:ern)?\s+(?:part\s+)?of|capital\s+of|suburb\s+of|outskirts\s+of)\s*$|"
                           r"\b(?:(?:bordered|bounded)\s+(?:on\s+the\s+\w+\s+)?by|on\s+the\s+(?:north|south|east|west)\w*\s+by|"
                           r"(?:flows|flowed|flowing|runs|running)\s+(?:through|into|past))(?:\s+the)?\s*$|"
                           # "a native of Livilivi", "stationed at Rabaul", "(11 October 1874, in Liegnitz":
                           # where people come from, are sent, were born in a life's dates
                           r"\b(?:natives?|residents?|inhabitants?)\s+of\s*$|\bstationed\s+(?:in|at)\s*$|"
                           r"\(\s*(?:born\s+[\w ,]{0,25}|\d{1,2}\s+[A-Z][a-z]+\s+|[A-Z][a-z]+\s+\d{1,2},\s+)\d{3,4},?\s+in\s*$")


@context_rule(2)
def place_preposition(before: str, name: str, after: str) -> str | None:
    """"born in Leeds", "north of Kiel", "the capital of Syria", "bordered on the east by Semien
    Wollo", "flows through Simmering"."""
    return "place" if _PLACE_BEFORE.search(before) and heads_its_phrase(after) else None


@context_rule(2)
def place_distance(before: str, name: str, after: str) -> str | None:
    """"Pasłęk, east of Elbląg", "Aldoth, three - quarters of a mile to the south - east", "Tarns,
    two miles away": where a name is said to lie from another place."""
    if not _DISTANCE_AFTER.match(after) or _may_be_person(name):
        return None  # "She walked with Tom, a mile from home"
    return "place"


_NUMBER_WORD = r"(?:[\d.,]+|a|one|two|three|four|five|six|seven|eight|nine|ten|half|a\s+half)"
_DISTANCE_AFTER = re.compile(
    rf"^\s*,\s+(?:(?:about|some|approximately|roughly|just)\s+)?(?:{_NUMBER_WORD}(?:[\s-]+(?:and|quarters?|of|a|half))*"
    r"[\s-]+(?:miles?|kilometres?|kilometers?|km|mi)\b|(?:north|south|east|west)(?:[\s-]*(?:east|west))?(?:ern)?\s+of\b)")


_IN = re.compile(r"\b(?:in|across|throughout)(?:\s+the)?\s*$")
_EPITHET = re.compile(r"^\s+([a-z]{3,}(?:ii|ae|iae|ensis|oides|gaster|orum)|coli|sapiens|musculus|elegans|aureus|"
                      r"cerevisiae|thaliana|falciparum|vivax|tuberculosis|pneumoniae|albicans|subtilis|typhimurium|"
                      r"melanogaster|norvegicus|pombe|laevis|rerio|aeruginosa|pylori|mutans|fumigatus|gondii|"
                      r"japonicum|mansoni|brucei|cruzi|donovani|enterica|faecalis|difficile)\b")


@context_rule(3)
def binomial(before: str, name: str, after: str) -> str | None:
    """"Escherichia coli", "Caenorhabditis elegans", "Drosophila melanogaster": a genus, then a Latin
    species epithet (a Latin genitive or a model organism's epithet: "Kaplan analysis", "Harvard
    campus" are none), names an organism (the genus alone is the name found)."""
    if " " in name or not _title_case(name) or len(name) < 5:
        return None
    return "organism" if _EPITHET.match(after) else None


_AT_TOWN = re.compile(r"\b(?:in|at|near|outside|(into|past|between))\s*$")  # not "through", "via" a label


@context_rule(2)
def town_preposition(before: str, name: str, after: str) -> str | None:
    """"in Münsingen", "at Tarnowskie Góry", "past Redstone": a town of 1,000 people or more
    GeoNames lists, after a place's preposition (alone, "Florence" and "Kimball" are as often
    people; "through Geffen", "via Sony" a label); after "into", "past" or "between", not a name
    people have ("between Sharon and Abbas")."""
    found = _AT_TOWN.search(before)
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
    if len(words) < 2 or not _IN.search(before) or not heads_its_phrase(after):
        return None
    return "place" if all(_title_case(w) for w in words) else None


@context_rule(2)
def place_pair(before: str, name: str, after: str) -> str | None:
    """"Springfield, Illinois", "Miami Shores, Florida": a place and the place it is in."""
    found = re.match(r"^,\s+([A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,2})", after)
    if not found or not gazetteer.is_place(found.group(1)) or gazetteer.is_place(name):
        return None
    if found.group(1).lower() in gazetteer.first_names() and any(rule in _GIVEN_NAME_RULES for rule, _, _ in name_votes(name)):
        return None  # "the brothers John D. Rockefeller III, Nelson, ...": people listed, no place's
    return "place"


# Name rules that see a given name, an initial or a title ("Downtown Little Rock" ends in a family
# name too, but is a place's).
_GIVEN_NAME_RULES = frozenset({"first_name", "initials", "regnal_number", "titled_name", "name_particle"})


_ORG_BEFORE = re.compile(r"\b(?:[Jj]oined|[Jj]oining|signed\s+(?:a\s+\w+\s+)?(?:with|for)|(?:played|plays|playing)\s+(?:for|with)|"
                         r"founded|co-founded|worked\s+for|works\s+for|employed\s+by|acquired\s+by|subsidiary\s+of|"
                         r"chairman\s+of|CEO\s+of|loaned\s+(?:him\s+|her\s+)?to|transferred\s+to|released\s+(?:it\s+)?(?:on|through)|"
                         r"on\s+loan\s+(?:to|at|from)|signed\s+(?:to|by)|drafted\s+by|studied\s+at|educated\s+at|"
                         r"graduated\s+from|graduate\s+of|enrolled\s+at|taught\s+at|professor\s+at|lecturer\s+at|"
                         r"(?:debut|appearances?|spells?|stints?|career|seasons?)\s+(?:for|with|at)|"
                         r"acquisition\s+of|merged\s+with|merger\s+with|bought\s+out|contracted\s+by|"
                         r"(?P<role>(?:manager|head\s+coach|coach|members?|founding\s+member|co-founder)\s+of))"
                         r"(?:\s+the)?\s*$")


@context_rule(2)
def organization_verb(before: str, name: str, after: str) -> str | None:
    """"joined Idealab", "played for Partick Thistle", "signed with Sonic Images", "studied at the
    Paris Conservatoire", "loan spells with Treze", "its acquisition of Xamarin"."""
    found = _ORG_BEFORE.search(before)
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


_RELATIVE = re.compile(r"^\s*,\s*(who|whom|whose|where)\b")  # with its comma: "patients with CVD who ..." is no person


@context_rule(2)
def relative_word(before: str, name: str, after: str) -> str | None:
    """"Thabo Mbeki, who ...", "Volhynia, where ...": the relative word a clause about the name opens with."""
    found = _RELATIVE.match(after)
    if not found or re.search(r"\b(?:with|without|of|among)(?:\s+the)?\s*$", before):
        return None  # "patients with SpA, who ...": the clause is about the noun before "with"
    return "place" if found.group(1) == "where" else "person"


_LISTED = re.compile(r"^(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)$")


def listed_together(sentence: str, spans: list[tuple[int, int]]) -> list[list[int]]:
    """Runs of names a sentence lists ("Nokia, Intel and Taito"): indexes into `spans`, which are
    (start, end) of the mentions in order; a run has two or more."""
    runs: list[list[int]] = []
    for i in range(len(spans)):
        if i and _LISTED.match(sentence[spans[i - 1][1] : spans[i][0]]):
            runs[-1].append(i)
        else:
            runs.append([i])
    return [run for run in runs if len(run) > 1]


_SUCH_AS = re.compile(r"\b([a-z][a-z-]+)\s*,?\s+(?:such\s+as|including|notably|especially)\s*:?\s*$")
# A plural kind noun right before a list, in a noun phrase ("the Danish engineering firms COWI and
# Ramboll") or alone ("special effects companies Weta Workshop and Weta Digital", "the receptors
# CXCR4 and CXCR7"); not a verb in the third person ("The film stars A and B", "the team plays
# Arsenal and Chelsea", "the festival hosts Radiohead and Coldplay"), nor ion channels.
_PLURAL_BEFORE = re.compile(r"(?:\b(?:[Tt]he|[Tt]hese|[Tt]hose|two|three|four|five|several|both|other|rival|fellow)\s+"
                            r"(?:[\w'’-]+\s+){0,3}?|(?<![\w'’-])(?=[a-z]))"
                            r"(?!(?:stars|features|includes|channels|plays|hosts|houses|records|"
                            r"films|books|parks|stations|shows|signs|lists|names|leads|heads|joins|beats|faces|"
                            r"meets|visits|owns|runs|covers|tours|sells|buys|funds|backs)\s)([a-z][a-z-]*s)\s+$")
_PLURAL_AFTER = re.compile(r"^\s+([a-z][a-z-]*s)\b")


def _plural_kind(word: str) -> str | None:
    """The kind a plural noun names ("bands", "rivers", "companies"); None for a singular."""
    return _kind_noun(word, "") if word.endswith("s") and not word.endswith("ss") else None


def _plural_before(before: str) -> re.Match[str] | None:
    """A plural kind right before a list; with no determiner, only after a lower-case word that is no
    pronoun ("effects companies Weta", "by hurricanes Floyd"), or after a name when the plural is
    no verb's ("Bollywood actresses Shabana Azmi and Tanuja"; not "Obama attacks Clinton and
    Sanders", "He judges Crufts and Westminster": a verb after its subject)."""
    found = _PLURAL_BEFORE.search(before)
    if not found or found.start() < found.start(1):
        return found  # a determiner opens it
    previous = before[: found.start(1)].split()[-1:]
    if not previous or previous[0].lower() in _PRONOUNS:
        return None
    if previous[0][:1].islower():
        return found
    # after a name, a verb's third person as often ("Obama attacks"): only a word that is no verb's
    return None if gazetteer.third_person(found.group(1)) else found


_PRONOUNS = frozenset({"he", "she", "it", "they", "we", "you", "i", "who", "which", "that"})


def list_kind(before: str, after: str) -> str | None:
    """The kind a list of names is of: a plural kind noun before it ("bands such as A, B and C")
    or right after it ("the Oder and Olza rivers", "the Brintnell and Hollick - Kenyon neighbourhoods")."""
    found = _SUCH_AS.search(before) or _plural_before(before)
    kind = _plural_kind(found.group(1)) if found else None
    if kind:
        return kind
    found = _PLURAL_AFTER.match(after)
    plural = found.group(1) if found else ""
    if not found or plural[:-1] in _SETS or plural[:-3] + "y" in _SETS:
        return None  # "the LNS and MMN groups", "the two families": a study's arms, no bodies
    return _plural_kind(found.group(1))


_ACRONYM = re.compile(r"[A-Z]{2,6}")


_SCIENCE_WORD = re.compile(r"[a-z]+")
_STATISTICS = re.compile(r"\(\s*[nN]\s*=\s*\d|\b[Pp]\s*[<=>≤]\s*0?\.\d|\b95\s*%\s*(?:CI|confidence interval)")


def scientific(text: str) -> bool:
    """Whether text reads as science: a study's statistics ("(n = 33)", "P < 0.05", "95% CI") or two
    or more kind nouns of the sciences ("cells", "protein", "disease", "virus")."""
    if _STATISTICS.search(text):
        return True  # "(n = 33)", "P < 0.05", "95% CI": a study's figures
    count = 0  # repeats count: "the disease ... the disease" is a text about one
    for word in _SCIENCE_WORD.findall(text):
        noun = word if word in V.KIND_NOUNS else word[:-1] if word.endswith("s") else ""
        if V.KIND_NOUNS.get(noun) in SCIENCE_KINDS:
            count += 1
            if count >= 2:
                return True
    return False


_THE = re.compile(r"\bthe\s*$", re.IGNORECASE)
_WHERE_THE = re.compile(r"\b(?:in|into|across|throughout|through|near|around)\s+the\s*$", re.IGNORECASE)


@context_rule(1, once=True)
def article_before(before: str, name: str, after: str) -> str | None:
    """"the BBC", "the Supremes", "the Chicago Tribune": a proper name English writes with "the"
    is an organisation's more often than any other's (people never take it; places that do are
    mostly in the gazetteers, which outvote this)."""
    if not _THE.search(before) or _WHERE_THE.search(before) or not heads_its_phrase(after):
        return None  # "in the Levant", "across the Americas": a region's
    head = name.split(" of ")[0].split()[-1].lower()  # "Declaration" of "Declaration of Helsinki"
    if " " not in name or not proper_name(name) or name.split()[-1].lower() in V.NOT_BODY_HEADS or \
            head in V.NOT_BODY_HEADS:
        return None  # "the Wnt", "the odds ratio": no proper name of its own; "the Potsdam Agreement": no body
    if _RUN_ON_THE.search(before):
        return None  # "Pirates of the Caribbean The Curse of the Black Pearl": a title's second part
    if (_opens_sentence(before) or before.endswith("The ")) and (after.lstrip().startswith(":") or _TITLE_GOES_ON.match(after)):
        return None  # "The Fundamental Problem: Need for ...", "The Risk Factors and Life Expectancy Study": a title's words
    return "organization"


_RUN_ON_THE = re.compile(r"[A-Z][a-z][\w'’-]*\s+The\s*$")  # not a section's label: "BACKGROUND The"
_TITLE_GOES_ON = re.compile(r"^\s+(?:(?:and|&)\s+[A-Z][\w'’-]*\s+[A-Z]|The\s+[A-Z])")  # "... The Declaration": a heading run on


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
        len(words) > 1 and all(_title_case(w) or _ACRONYM.fullmatch(w) for w in words))


ONCE_PER_NAME = frozenset(rule.name for rule in CONTEXT_RULES if rule.once)
# Rules for general prose only: the extractor skips them in scientific text (scientific()), where a
# gene's or an organelle's name is seldom the river or the man WordNet knows ("Aire", "Golgi").
GENERAL_PROSE_RULES = frozenset({"known_instance", "known_person"})


_LANGUAGE_BEFORE = re.compile(r"\b(?:in|into|speaks?|spoke|spoken|speaking|fluent\s+in|learn(?:s|ed|t)?)\s*$", re.IGNORECASE)
_LANGUAGE_AFTER = re.compile(r"^\s*(?:-\s*)?(?:language|languages|speaking|speakers?|translation|dialect|dialects|"
                             r"spelling|pronunciation|dubbed|dub|subtitles)\b")
_LANGUAGE_WORD = re.compile(r"^\s+(?:word|words|name|names|term|terms)\s+(?:for|of|is|was|means|meaning)\b")


@context_rule(7)
def language_use(before: str, name: str, after: str) -> str | None:
    """"written in German.", "the French word for", "a Spanish-language film", "English-speaking": a
    demonym that names its people's language (not "in German territory", "in Swiss and Finnish
    patients": a nationality's)."""
    if not gazetteer.is_demonym(name, plural=False):
        return None  # a people ("in Czechs", "Hungarians") is never a language
    if _LANGUAGE_AFTER.match(after) or _LANGUAGE_WORD.match(after) or \
            (_LANGUAGE_BEFORE.search(before) and re.match(r"\s*(?:[.,;:)]|$)", after)):
        return "language"  # "in German." but not "in Swiss and Finnish patients"
    return None

