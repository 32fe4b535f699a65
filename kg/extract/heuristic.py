"""The offline extractor: deterministic rules, no model, no network.

Pass 1 discovers entities in a chunk (headings, [[links]], bold terms, acronym definitions,
capitalised multi-word names, defined lowercase terms). Pass 2 finds every mention of
them sentence by sentence and turns each substantive sentence into one typed claim whose
evidence quote is the sentence itself, cut verbatim from the markdown.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field

from kg.extract import ExtractionContext, Extractor, gazetteer
from kg.extract import vocab as V
from kg.extract.entity_types import DEFAULT as DEFAULT_TYPE
from kg.extract.entity_types import (
    context_votes,
    decide,
    listed_together,
    name_votes,
    proper_name,
    typed,
)
from kg.extract.facets import (
    CONJUNCTIONS,
    NUMBER,
    first_date,
    inside_year,
    parse_number,
    unit_of,
    validity,
)
from kg.extract.filters import not_a_name
from kg.extract.reference import Reference, fit, reference_at_start, referent, standalone
from kg.models import Chunk, ClaimType, ExtractedClaim, ExtractedEntity, ExtractionResult
from kg.names import name_key, name_variants
from kg.text import PlainText, sentences, to_plain

# The type a discovery rule knows a name to have: a quoted title, a role's holder, an office; a
# nationality above all ("the Swedish government": what follows does not make it a person).
GIVEN_WEIGHT = 3.0
GIVEN_WEIGHTS = {"nationality": 6.0}
TITLE_WORDS = 6  # a heading of this many words with function words among them is a document's title, a work

# Capital letters, Latin-1 and Latin Extended-A included ("Çaykur Rizespor", "Łódź").
_UPPER = "A-Z" + "".join(c for c in map(chr, range(0xC0, 0x250)) if c.isupper())
# A name's words: an abbreviation ("U.S. Route 20", "St. Louis River"), a possessive that is part
# of a name ("People's Republic"; otherwise 's ends a name: "Cambridge's EDSAC" is two), an
# initial ("Bruce R. Lindsey") or a capitalised word.
_CAP_TOKEN = (
    rf"(?:(?:[{_UPPER}]\.){{2,}}|(?:St|Mt|Ft|Jr|Sr|Co|Bros|Inc|Ltd)\.|"
    rf"(?:{'|'.join(sorted(V.NAMING_POSSESSORS))})['’]s(?=[ \t]+[{_UPPER}])|"
    rf"[{_UPPER}]\.(?=\s)|[{_UPPER}][\w&-]*(?:['’](?!s\b)\w+)*"
    # a hyphen written with spaces around it, as tokenised text has it, continues a name through a
    # lowercase word that another hyphen or a capital follows ("Book - of - the - Month Club", "Blu -
    # ray Disc") or through a short last syllable ("Kim Jong - un"); a dash does not ("FK Teleoptik - a")
    rf"(?:[ \t]+-[ \t]+(?!(?:{'|'.join(sorted(V.HYPHEN_SUFFIXES))})\b)"
    rf"(?:[a-z]\w*(?=[ \t]+-[ \t]+\w)|(?!(?:{'|'.join(sorted(V.HYPHEN_STOPS))})\b)"
    rf"(?:[a-z]\w*(?=[ \t]+[{_UPPER}])|[a-z]\w{{0,3}}(?=[ \t]*[.,;:()]|[ \t]*$))))*)"
)
# Between a name's words: spaces, lowercase particles ("Sogn og Fjordane", "Zell am See"), "&"
# ("Mumford & Sons") or a spaced hyphen ("Charles - Édouard").
# A quoted nickname between a person's names: 'Wilfried "Willi" Schneider' (not 'to Mary "Hello" Then').
_NICKNAME = rf"[\"“][{_UPPER}][\w.'’-]*[\"”](?=[ \t\xa0]+(?!(?:{'|'.join(sorted(w.capitalize() for w in V.STOP_CAPS))})\b))"
_JOIN = (rf"(?:[ \t\xa0]+(?:(?:{'|'.join(sorted(V.NAME_PARTICLES))}|&|{_NICKNAME})[ \t\xa0]+)*"
         r"|[ \t\xa0]+[-–][ \t\xa0]+)")
_MONTH_NAMES = "|".join(m.capitalize() for m in V.MONTHS)
# A date is no part of a name: "Uerdingen – November 14", "the Storting 31 July", "Anoia 800 m"
_NOT_JOINED = rf"(?!(?:{_MONTH_NAMES})[ \t]+\d)"
_NUMBER_ENDS = rf"(?![ \t]+(?:{_MONTH_NAMES}|m|km|mi|ft|kg|t|MW|GW|kW|km2|sq|per|percent|%)(?![\w-]))"
_CAP_SEQ = re.compile(
    rf"(?<![\w'’-])(?:\d+(?:st|nd|rd|th)[ \t]+)?{_CAP_TOKEN}(?:{_JOIN}{_NOT_JOINED}{_CAP_TOKEN})*"  # "20th Century Fox"
    # "Intel 4004", "Mark 1": a number only at the end, and not a year ("Sweden 1994" is two things)
    rf"(?:[ \t]+(?!(?:1[0-9]{{3}}|20[0-9]{{2}})(?![\w]))\d+(?!\d)[A-Za-z]?(?![\w,.]\d){_NUMBER_ENDS})?"
)
_YEAR_FIRST = re.compile(rf"(?<![\w'’.,-])\d{{4}}(?:[–-]\d{{2,4}})?[ \t]+(?={_CAP_TOKEN})")  # "2016–17 Ranji Trophy"


def _name_spans(sentence: str) -> list[tuple[int, int]]:
    """Where the capitalised names of a sentence are: _CAP_SEQ's matches, a year before one kept
    (dropped later unless the name is an event's), and two joined by "for"/"on" after an
    institution or award ("Committee on Antarctic Names")."""
    spans: list[tuple[int, int]] = []
    years = {m.end(): m.start() for m in _YEAR_FIRST.finditer(sentence)}
    for match in _CAP_SEQ.finditer(sentence):
        start, end = years.get(match.start(), match.start()), match.end()
        if spans:
            gap = sentence[spans[-1][1] : start]
            last = sentence[spans[-1][0] : spans[-1][1]].split()[-1].lower()
            if last in _JOINED_BY_FOR and re.fullmatch(r"[ \t]+(?:for|on)[ \t]+(?:the[ \t]+)?", gap):
                spans[-1] = (spans[-1][0], end)
                continue
            if gap.startswith(",") and gap[1:].strip(" \t") == "" and _CORPORATE.fullmatch(sentence[start:end]):
                spans[-1] = (spans[-1][0], end)  # "Atari, Inc.", "Grand Wing Servo - Tech Co., Ltd."
                continue
            following = sentence[start:end].split()
            if gap in (" and ", " & ") and _joined_by_and(sentence[spans[-1][0] : spans[-1][1]].split(), following,
                                                           sentence[: spans[-1][0]]):
                spans[-1] = (spans[-1][0], end)
                continue
            owner = sentence[spans[-1][0] : spans[-1][1]].split()
            if (re.fullmatch(r"['’]s[ \t]+", gap) and following[-1].lower() in V.POSSESSED_HEADS
                    and (len(following) == 1 or owner[0].lower().strip(".") in ("st", "saint"))):
                # "St. Patrick's Academy", "Martha's River"; not "New York's Central Park"
                spans[-1] = (spans[-1][0], end)
                continue
        spans.append((start, end))
    return [(start, _extended_end(sentence, start, end)) for start, end in spans]


_TRAILING_YEAR = re.compile(r"[ \t]+(?:1[5-9][0-9]{2}|20[0-9]{2})(?![\w'’-]|[.,]\d)")


def _extended_end(sentence: str, start: int, end: int) -> int:
    """A year after an event's name belongs to it: "Eurovision Song Contest 1995", "UEFA Euro 2008"."""
    words = sentence[start:end].split()
    year = _TRAILING_YEAR.match(sentence, end)
    if year and (words[-1].lower() in _YEAR_NAMED or words[0] == "Miss"):
        return year.end()
    return end


def _joined_by_and(before: list[str], after: list[str], prefix: str) -> bool:
    """Two capitalised spans around "and" are one name: "Lewis and Clark Expedition" (one word, then a
    name its head ends), "Academy of Sciences and Humanities" (an institution of one field, then another)."""
    if prefix.rstrip().endswith(","):
        return False  # "Paris, Lyon and Lille Railway": a list
    if before and before[0].lower() in _ALWAYS_TRIMMED:
        before = before[1:]  # "The Lewis and Clark Expedition"
    if len(before) == 1 and after[-1].lower() in V.AND_HEADS and before[0][1:].islower() and "of" not in after:
        return True
    return (len(before) >= 3 and before[-2] in ("of", "for") and before[-1].lower() in V.FIELDS
            and len(after) == 1 and after[0].lower() in V.FIELDS)


# Capitalised mid-sentence yet no part of a name: "the" (names are compared without it anyway),
# pronouns and conjunctions after a missed sentence break.
_ALWAYS_TRIMMED = {"the", "a", "an", "he", "she", "it", "they", "we", "i", "this", "that", "and", "but", "or", "so",
                   "in", "on", "at", "of", "for", "with", "to", "as", "by", "from"}
_ORDINAL_WORDS = {"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}
_NOT_NAME_ENDS = {"he", "she", "it", "they", "we", "his", "her", "its", "their", "this", "that", "these", "those",
                  "there", "after", "before", "when", "while", "then", "but", "and", "or", "so", "-", "&"}
_YEAR_NAMED = {"euro", "olympics", "games", "championship", "championships", "cup", "open", "tour", "awards", "award",
               "election", "elections", "season", "festival", "world", "grand", "prix", "series", "census", "summit",
               "trophy", "draft", "tournament", "final", "finals", "league", "paralympics", "marathon", "expo",
               "act", "uprising", "riots", "earthquake", "hurricane", "floods", "contest", "show", "rally"}
# "Grammy Award for Best Latin Pop Album", "Advisory Committee on Antarctic Names": one name
_JOINED_BY_FOR = {"award", "awards", "prize", "medal", "committee", "commission", "council", "hospital", "institute",
                  "centre", "center", "society", "association", "foundation", "fund", "school", "academy", "office",
                  "ministry", "department", "museum", "league", "union", "party", "movement", "campaign", "order"}
_CORPORATE = re.compile(r"(?:Inc|Ltd|LLC|Corp|Co|PLC|plc|AG|GmbH|LLP|L\.P|S\.A|D\.C)\.?")  # and "Washington, D.C."
_COMMA_QUALIFIED = re.compile(rf"([{_UPPER}][^,()]{{0,60}}?), ((?:[{_UPPER}][\w.’'-]*)(?: [{_UPPER}][\w.’'-]*){{0,2}})")
_QUOTED = re.compile(r'(?:"([^"\n]{1,80})"|“([^”\n]{1,80})”)')
_ACRONYM = re.compile(r"\(([A-Z][A-Za-z0-9&]{1,9}?)(s?)\)")
_DEFINED_TERM = re.compile(
    r"^(?:The|A|An)\s+([a-z][\w-]*(?:\s+[a-z][\w-]*){0,3})\s+(?:is|are|was|were)\s+(?:a|an|the)\b"
)
_GENERIC_NOUNS = set(["machine", "system", "device", "computer", "process", "method", "result", "study", "paper", "team", "work", "way", "thing", "one", "idea", "approach", "problem"])
_WORD = re.compile(r"[A-Za-z][\w'’-]*")
_COMPARATIVE = re.compile(r"\b((?:more|less|fewer)\s+\w+|\w+er)\s+than\b", re.IGNORECASE)
_QUALIFIER = re.compile(r"^(.*?)\s*\(([^()]+)\)$")
_HEADING_LINE = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_STRONG_HEDGES = tuple(h for h in V.HEDGES if h not in {"about", "around", "nearly", "almost", "roughly", "approximately", "estimated", "estimate"})


@functools.lru_cache(maxsize=64)
def _phrase_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w])(?:{'|'.join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))})(?![\w])")


def _has(text: str, phrases: tuple[str, ...]) -> str | None:
    """The first of `phrases` that occurs in `text` as whole words (one compiled regex per list)."""
    found = _phrase_pattern(phrases).search(text.lower())
    return found.group(0) if found else None


@dataclass
class _Entity:
    name: str
    type: str = DEFAULT_TYPE
    aliases: set[str] = field(default_factory=set)
    description: str = ""
    votes: dict[str, float] = field(default_factory=dict)  # type -> weight of the rules voting for it
    voted: set[tuple[str, str]] = field(default_factory=set)  # (name, rule) pairs counted once

    def vote(self, type_: str, weight: float) -> None:
        if typed(type_):
            self.votes[type_] = self.votes.get(type_, 0.0) + weight
            self.type = decide(self.votes)

    def vote_once(self, name: str, rule: str, type_: str, weight: float) -> None:
        """A vote that a name earns once, however often it is added: its form says the same each time."""
        if (name, rule) not in self.voted:
            self.voted.add((name, rule))
            self.vote(type_, weight)

    def absorb(self, other: _Entity) -> None:
        """Take the votes of an entity folded into this one."""
        for type_, weight in sorted(other.votes.items()):
            self.vote(type_, weight)


@dataclass
class _Mention:
    start: int
    end: int
    key: str


class _Registry:
    """The chunk's entities, keyed by normalised name; aliases point at canonical keys."""

    def __init__(self) -> None:
        self.entities: dict[str, _Entity] = {}
        self.alias_to_key: dict[str, str] = {}
        self.kept: set[str] = set()  # keys of names inside longer names, kept though never mentioned alone

    def key_of(self, name: str) -> str | None:
        for key in name_variants(name_key(name)):  # "Transistors" -> "transistor"
            found = self.alias_to_key.get(key, key if key in self.entities else None)
            if found:
                return found
        return None

    def add(self, name: str, type_: str = "", alias: str | None = None) -> str | None:
        """The key of `name`'s entity (added if new), or None for no name. `type_`: what the rule
        that found it knows it to be ("nationality", "work", ...); its form votes too (entity_types)."""
        name = " ".join(name.split()).strip(" .,;:")
        key = name_key(name)
        if not key or len(key) < 2 or len(name) > 120 or key in V.STOP_CAPS or not_a_name(name):
            return None
        existing = self.key_of(name)
        if existing is None and alias and name_key(alias) in self.alias_to_key:
            # "Electronic Numerical Integrator and Computer (ENIAC)" after "ENIAC": one entity.
            existing = self.alias_to_key[name_key(alias)]
            self.entities[existing].aliases.add(name)
            self.alias_to_key[key] = existing
            return existing
        if existing is None:
            self.entities[key] = _Entity(name)
            self.alias_to_key[key] = key
            existing = key
        entity = self.entities[existing]
        entity.vote_once(name, "found as", type_, GIVEN_WEIGHTS.get(type_, GIVEN_WEIGHT))
        if (name, "") not in entity.voted:
            entity.voted.add((name, ""))
            for _rule, voted_type, weight in name_votes(name):
                entity.vote(voted_type, weight)
        if alias and name_key(alias) and name_key(alias) != existing:
            entity.aliases.add(" ".join(alias.split()))
            self.alias_to_key.setdefault(name_key(alias), existing)
        return existing


def _acronym_matches(words: list[str], acronym: str) -> int:
    """How many trailing `words` spell `acronym` by initials (0 when they do not)."""
    letters = [c.lower() for c in acronym if c.isalpha()]
    i, used = len(letters) - 1, 0
    for word in reversed(words):
        if i < 0:
            break
        initial = word[0].lower()
        if initial == letters[i]:
            i -= 1
        elif word.lower() not in {"and", "of", "the", "for", "in", "on", "to", "a"}:
            return 0
        used += 1
    return used if i < 0 else 0


class HeuristicExtractor(Extractor):
    name = "heuristic"
    # 2: subjects of pronouns and descriptions resolved; standalone text. 3: names' boundaries
    # ("X of Y", "A and B Railroad", possessive places, nicknames, spaced hyphens), full names folded.
    # 4: types from names, gazetteers and context (kg/extract/entity_types.py), no "named";
    # statistical notation, lone roman numerals and modifier fragments are no entities
    version = "heuristic-4"

    def extract_chunk(self, chunk: Chunk, context: ExtractionContext) -> ExtractionResult:
        plain = to_plain(chunk.text)
        spans = sentences(plain.text)
        registry = _Registry()
        headings = self._headings(chunk, registry)
        self._discover(plain, spans, registry)
        finder = _MentionFinder(registry)
        mentions = [finder.find(plain.text[start:end]) for start, end in spans]
        _vote_by_context(plain.text, spans, mentions, registry)
        claims: list[ExtractedClaim] = []
        topic_for = _TopicTracker(headings)
        # (end, subject key, last person named) of the paragraph's last sentence with a name
        previous: tuple[int, str, str | None] | None = None
        for (start, end), mentioned in zip(spans, mentions, strict=True):
            md_start, md_end = plain.source_span(start, end)
            if topic_for.is_heading(md_start, md_end):
                continue
            # who "It ...", "He ...", "The machine ..." can be: the paragraph's last subject, the
            # last person it named, the nearest heading's entity (kg/extract/reference.py)
            candidates = [topic_for(md_start, registry)]
            if previous and "\n\n" not in plain.text[previous[0] : start]:
                candidates = [previous[1], previous[2], *candidates]
            referents = [k for k in dict.fromkeys(candidates) if k and k in registry.entities]
            claim = self._claim(plain, start, end, chunk.text[md_start:md_end], finder, registry, referents)
            # the last person named, or a name that may be one ("Aurangzeb"), for a "He" to come
            person = next((m.key for m in reversed(mentioned) if registry.entities[m.key].type == "person"), None) or \
                next((m.key for m in reversed(mentioned) if fit(_HE, registry.entities[m.key].type,
                                                                 registry.entities[m.key].name)), None) or \
                (previous[2] if previous else None)
            if claim:
                claims.append(claim)
                previous = (end, registry.key_of(claim.subject) or "", person)
            elif mentioned:
                previous = (end, mentioned[0].key, person)  # "So, the Eniac." sets the subject of what follows
        claims.extend(self._table_claims(chunk.text, plain, registry, finder))
        used = {name_key(n) for c in claims for n in (c.subject, c.object_entity, *c.mentions) if n}
        used |= {key for _, _, key in headings if key}
        entities = [
            ExtractedEntity(name=e.name, type=e.type, aliases=sorted(e.aliases), description=e.description)
            for key, e in registry.entities.items()
            if key in used or key in registry.kept or e.aliases or e.description
        ]
        return ExtractionResult(entities=entities, claims=claims)

    # pass 1: discovery ---------------------------------------------------------------------

    def _headings(self, chunk: Chunk, registry: _Registry) -> list[tuple[int, int, str | None]]:
        """Headings in the chunk as (markdown start, end, entity key or None for generic ones)."""
        found = []
        for heading in chunk.headings:
            found.append((-1, -1, self._heading_entity(heading, registry)))
        for match in _HEADING_LINE.finditer(chunk.text):
            found.append((match.start(), match.end(), self._heading_entity(to_plain(match.group(1)).text, registry)))
        return found

    @staticmethod
    def _heading_entity(heading: str, registry: _Registry) -> str | None:
        text = " ".join(heading.split()).strip()
        if not text or name_key(text) in V.GENERIC_HEADINGS or len(text) > 100:
            return None
        place = _COMMA_QUALIFIED.fullmatch(text)
        if place:  # a page title "Westmere, New York": the name is "Westmere", the title an alias
            return registry.add(place.group(1), "place" if gazetteer.is_place(place.group(2)) else "", alias=text)
        if len(text.split()) >= TITLE_WORDS and "(" not in text and re.search(r" (?:a|an|the|of|in|on|for|and|to|with) ", text):
            return registry.add(text, "work")  # a document's title: "Quantifying Transmission Investment in Malaria Parasites"
        return _add_term(text, registry)

    def _discover(self, plain: PlainText, spans: list[tuple[int, int]], registry: _Registry) -> None:
        text = plain.text
        code = plain.code
        in_code = lambda s, e: any(cs <= s < ce or cs < e <= ce for cs, ce in code)  # noqa: E731
        for start, end, target in plain.links:
            shown = text[start:end]
            key = _add_term(target, registry, text[max(0, start - 20) : start])
            if key and name_key(shown) != key:
                registry.add(registry.entities[key].name, registry.entities[key].type, alias=shown)
        for start, end in plain.strong:
            term = text[start:end].strip()
            if 1 <= len(term.split()) <= 8 and not in_code(start, end) and re.search(r"[A-Za-z]", term):
                _add_term(term, registry, text[max(0, start - 20) : start])
        for match in _ACRONYM.finditer(text):
            acronym = match.group(1)
            if sum(c.isupper() for c in acronym) < 2:
                continue
            words = _WORD.findall(text[max(0, match.start() - 120) : match.start()])
            used = _acronym_matches(words[-(len(acronym) + 3) :], acronym)
            if used:
                long_form = " ".join(words[-used:])
                registry.add(long_form, "", alias=acronym)
        for match in _QUOTED.finditer(text):  # a quoted title: "I Understand", "Aprite le finestre"
            title = _quoted_title(match.group(1) or match.group(2) or "")
            if not title or in_code(match.start(), match.end()):
                continue
            nickname = " " not in title and bool(
                re.search(rf"[{_UPPER}][\w.]*[ \t]$", text[max(0, match.start() - 40) : match.start()])
                and re.match(rf"[ \t][{_UPPER}]", text[match.end() : match.end() + 2]))
            if not nickname:  # 'Jon "Bowzer" Bauman': a nickname, part of the name around it
                registry.add(title, "work" if " " in title else "")  # one quoted word is as often a term: "NETosis"
        mid_sentence_caps: set[str] = set()
        candidates: list[tuple[str, bool]] = []
        for start, end in spans:
            sentence = text[start:end]
            for m_start, m_end in _name_spans(sentence):
                if in_code(start + m_start, start + m_end):
                    continue
                before_name = sentence[:m_start].rstrip()
                opens = not before_name or before_name[-1] in "\"“”‘'([:;—–-" or before_name.endswith(("...", " -"))
                participle = opens and _participle_phrase(sentence[m_end:])
                name, tail = _split_of(self._trim_name(sentence[m_start:m_end], opens, participle))
                if tail:  # "Kansas City Chiefs of the National Football League": two names
                    registry.add(tail, "")
                name, known_type, inner, inner_type = _split_name(name)
                # "German Chancellor Angela Merkel", "Governor of Texas": a name in the name
                if inner and (kept := registry.add(inner, inner_type or "")):
                    registry.kept.add(kept)
                if not name:
                    continue
                if known_type:  # what follows a role; no person when a study's ("General Practice Patient Survey")
                    person_head = known_type == "person" and name.split()[-1].lower() in V.NOT_PERSON_HEADS
                    registry.add(name, "" if person_head else known_type)
                    continue
                opening = sentence[:m_start].strip(" \t\"“”‘’'([")  # a quote or bracket before it
                at_start = opening == "" or opening.lower() in V.STOP_CAPS
                after = re.sub(r"^\s*\([^)]*\)", "", sentence[m_end:])  # "Wangliang (望梁) is a town"
                follows = after.split()[:1]
                if not at_start or (follows and follows[0] in ("is", "was", "are", "were", "has", "had")):
                    mid_sentence_caps.add(name_key(name))  # "Colossus was ..." is a name
                candidates.append((name, at_start))
            defined = _DEFINED_TERM.match(sentence)
            if defined and defined.group(1).split()[-1] not in _GENERIC_NOUNS and defined.group(1).split()[0] not in V.STOP_CAPS:
                registry.add(defined.group(1), "concept")
        lowercase_words = {w for w in re.findall(r"(?<![\w'’-])[a-z][a-z-]+", text)}
        for name, at_start in candidates:
            if name.lower() in V.NATIONALITIES or (name.endswith("s") and name[:-1].lower() in V.NATIONALITIES):
                registry.add(name, "nationality")
                continue
            parts = re.split(r"[ \t]*[-–][ \t]*", name)
            if len(parts) > 1 and all(part.lower() in V.NATIONALITIES for part in parts):
                for part in parts:  # "African-American", "German - Jewish": two nationalities
                    registry.add(part, "nationality")
                continue
            single = " " not in name
            if name.strip(".") in V.GENERIC_ABBREVIATIONS:
                continue  # "a TV series", "an MBA from", "320 BCE"
            if all(w.lower().strip(".") in V.ROLES or w.lower() in V.ROLE_MODIFIERS for w in name.split()):
                continue  # "Prime minister Benazir Bhutto", "Brigadier General": a role, not a name
            plain_word = name[1:].islower() and not any(c.isdigit() for c in name)
            if single and plain_word and (
                (at_start and name_key(name) not in mid_sentence_caps)  # a capitalised sentence opener
                or name.lower() in lowercase_words  # a common word ("Report", "Draft")
                or name.lower() in V.DEMONYMS
            ):
                continue
            registry.add(name, "")
        _fold_surnames(registry)

    @staticmethod
    def _trim_name(name: str, opens: bool = True, participle: bool = False) -> str:
        """`opens`: the name opens its sentence (or follows a quote, bracket or colon), where any word
        is capitalised; mid-sentence, a capitalised "My" or "Two" is the name's ("the BBC's My Family").
        `participle`: a participle may open it, a phrase a comma ends ("Joining SC Freiburg in 2016, ...")."""
        words = name.replace("’", "'").split()
        # a capitalised particle starts a name ("Los Angeles", "La Paz", "Le Monde"); "The" does not
        while words and (((opens or words[0].lower() in _ALWAYS_TRIMMED) and words[0].lower().strip(".") in V.STOP_CAPS)
                         or _is_section_label(words[0])):
            if len(words) > 1 and words[1][:1].isupper() and (
                    words[0].lower() in _ORDINAL_WORDS or words[0].lower().strip(".") in ("saint", "st")):
                break  # "Second Vatican Council", "Saint Lucia", "St. Louis" (a sentence's "First, ..." has its comma)
            words.pop(0)
        while words and (words[0] in ("-", "–") or words[0][0] in "(\"“" or words[0] in ("of", "and", "the")):
            # "Two - thirds", "The (Austrian) Ost", 'The "Boss" of New Jersey': what is left is no name's start
            words = words[2:] if words[0] in ("-", "–") else words[1:]
        if participle and len(words) > 1 and words[0].lower().endswith("ing") and _is_verb(words[0]):
            words.pop(0)  # "Joining SC Freiburg in 2016, he ...": a participle opens the sentence
        while words and (words[-1].lower() in V.NAME_PARTICLES or words[-1].lower() in _NOT_NAME_ENDS):
            words.pop()  # "River Plate He moved ...": a sentence the splitter missed
        if words and re.fullmatch(r"\d{4}(?:[–-]\d{2,4})?", words[0]) and not any(w.lower() in _YEAR_NAMED for w in words[1:]):
            words.pop(0)  # a year names "2002 Winter Olympics", not "1998 Toyota"
        if not words:
            return ""
        name = " ".join(words)
        name = re.sub(r"'s?$", "", name)
        lowered = [w.lower().strip(".,") for w in words]
        if all(w in V.MONTHS or w in V.WEEKDAYS or w.isdigit() for w in lowered):
            return ""
        if len(words) == 1 and (lowered[0] in V.SECTION_WORDS or lowered[0] in V.MONTHS or len(name) < 2):
            return ""
        if words[0].lower().strip(".") in V.MONTHS and len(words) > 1 and words[1].isdigit():
            return ""
        return name

    # pass 2: claims ------------------------------------------------------------------------

    def _claim(
        self, plain: PlainText, start: int, end: int, quote: str, finder: _MentionFinder,
        registry: _Registry, referents: list[str],
    ) -> ExtractedClaim | None:
        sentence = " ".join(plain.text[start:end].split())
        words = sentence.split()
        if (len(words) < 3 or (len(words) == 3 and not _is_verb(words[1]))) or sentence.endswith("?") or len(sentence) > 1200 or not re.search(r"[a-z]", sentence):
            return None
        mentions = finder.find(sentence)
        # A name in brackets is an aside ("(relative risk 0.56; 95% CI ...)"), never the subject.
        # A nationality ("American physicist ...") is never the subject either.
        outside = [m for m in mentions if sentence.count("(", 0, m.start) <= sentence.count(")", 0, m.start)
                   and registry.entities[m.key].type != "nationality"]
        first_word = words[0].lower().strip(",")
        reference = reference_at_start(words, _is_verb) or _fronted_pronoun(sentence)
        topic = referents[0] if referents else None
        if reference is not None:
            fitting = referent(reference, [(k, registry.entities[k].type, registry.entities[k].name) for k in referents])
            if fitting is None:  # nothing at hand fits ("He" after a band): keep the subject, name it as a prefix
                reference = Reference(reference.kind, reference.words, reference.wants, False)
            topic = fitting or topic
            if fitting and reference.wants == "person":
                registry.entities[fitting].vote("person", PRONOUN_WEIGHT)  # "He ..." after "Kipling": a person
        if outside and first_word not in V.PRONOUN_STARTS and reference is None:
            subject_key: str | None = outside[0].key
            subject_end = outside[0].end
            for mention in mentions:  # "Program Counter (PC)": the bracketed alias is the subject too
                if mention.start >= subject_end and mention.key == subject_key and \
                        sentence[subject_end : mention.start].strip() in ("(", ",", ""):
                    subject_end = mention.end + (sentence[mention.end : mention.end + 1] == ")")
        else:
            subject_key, subject_end = topic, 0
            if subject_key is None and outside:
                subject_key, subject_end = outside[0].key, outside[0].end
        if subject_key is None:
            phrase = _leading_noun_phrase(words)
            subject_key = registry.add(phrase, "concept") if phrase else None
            if subject_key is None:
                return None
            finder = _MentionFinder(registry)
            mentions = finder.find(sentence)
            subject_end = next((m.end for m in mentions if m.key == subject_key), 0)
        subject = registry.entities[subject_key].name
        names_subject = any(m.key == subject_key for m in mentions)
        text = standalone(sentence, subject, reference if subject_end == 0 else None, names_subject)
        others = [registry.entities[m.key].name for m in mentions if m.key != subject_key]
        others = list(dict.fromkeys(others))
        rest = re.sub(r"^\s*\([^)]*\)", "", sentence[subject_end:])  # "Wangliang (望梁) is a town"
        fields = _classify(sentence, rest, mentions, subject_key, registry)
        confidence = _BASE_CONFIDENCE[fields["claim_type"]]
        if _has(sentence, _STRONG_HEDGES):
            confidence = min(confidence, 0.45)
        elif _has(sentence, ("about", "around", "nearly", "almost", "roughly", "approximately", "estimated")):
            confidence -= 0.1
        if subject_end == 0 and not names_subject:
            confidence -= 0.1  # the subject was resolved, not read
        negated = _has(sentence, V.NEGATIONS) is not None or "n't" in sentence.lower()
        if fields["claim_type"] == ClaimType.definition and not registry.entities[subject_key].description:
            registry.entities[subject_key].description = sentence[:300]
        valid_from, valid_to = validity(sentence)
        return ExtractedClaim(
            claim_type=fields["claim_type"],
            subject=subject,
            predicate=fields.get("predicate") or "states",
            object=fields.get("object", "")[:300],
            object_entity=fields.get("object_entity"),
            value=fields.get("value"),
            unit=fields.get("unit", ""),
            polarity=-1 if negated and "not only" not in sentence.lower() else 1,
            confidence=round(max(0.05, min(confidence, 0.95)), 2),
            text=text,
            quotes=[quote],
            mentions=others,
            valid_from=valid_from,
            valid_to=valid_to,
        )

    def _table_claims(self, markdown: str, plain: PlainText, registry: _Registry, finder: _MentionFinder) -> list[ExtractedClaim]:
        """A markdown table row -> one claim per cell: (first cell, column header, cell)."""
        claims: list[ExtractedClaim] = []
        header: list[str] | None = None
        for row_start, row_end in plain.tables:
            line = markdown[row_start:row_end]
            cells = [to_plain(c).text.strip() for c in line.strip().strip("|").split("|")]
            if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                continue
            if header is None or (row_start > 0 and markdown[: row_start].rstrip(" \t").endswith("\n\n")):
                header = cells
                continue
            if not cells or not cells[0] or len(cells) < 2:
                continue
            key = registry.add(cells[0], "")
            if key is None:
                continue
            for column, cell in zip(header[1:], cells[1:], strict=False):
                if not cell or not column:
                    continue
                text = f"{registry.entities[key].name} {column}: {cell}"
                fields = _classify(text, f" {cell}", finder.find(cell), key, registry)
                claims.append(
                    ExtractedClaim(
                        claim_type=fields["claim_type"] if fields["claim_type"] in (ClaimType.quantity, ClaimType.date) else ClaimType.fact,
                        subject=registry.entities[key].name,
                        predicate=_predicate(column.split()) or "has",
                        object=cell,
                        value=fields.get("value"),
                        unit=fields.get("unit", ""),
                        confidence=0.75,
                        text=text,
                        quotes=[line.strip()],
                    )
                )
        return claims


def _vote_by_context(text: str, spans: list[tuple[int, int]], mentions: list[list[_Mention]], registry: _Registry) -> None:
    """Every mention's context votes for its entity's type (entity_types.CONTEXT_RULES)."""
    for (start, end), found in zip(spans, mentions, strict=True):
        sentence = text[start:end]
        for mention in found:
            name = sentence[mention.start : mention.end]
            after = sentence[mention.end :]
            possessive = re.search(r"['’]s?$", name)
            if possessive:  # "Kipling's wife": the possessive belongs to what follows
                name, after = name[: possessive.start()], name[possessive.start() :] + after
            entity = registry.entities[mention.key]
            for _, type_, weight in context_votes(sentence[: mention.start], name, after):
                entity.vote(type_, weight)
    # Names listed together are of a kind ("Nokia, Intel and Taito"): the typed ones vote for the others.
    for (start, end), found in zip(spans, mentions, strict=True):
        for run in listed_together(text[start:end], [(m.start, m.end) for m in found]):
            members = [registry.entities[found[i].key] for i in run]
            if not all(proper_name(m.name) for m in members):
                continue  # symbols and codes ("VCAM-1", "Cdks") carry no kind for their neighbours
            kinds = Counter(m.type for m in members if typed(m.type))
            if len(kinds) != 1:
                continue  # nothing typed, or the typed ones disagree
            kind, count = next(iter(kinds.items()))
            if kind not in LISTED_KINDS and count < 2:
                continue
            for member in members:
                if not typed(member.type):
                    member.vote(kind, LIST_WEIGHT * count)


PRONOUN_WEIGHT = 2.0
_HE = Reference("pronoun", 1, "person", True)
LIST_WEIGHT = 1.0
# The kinds one typed name passes on to the names listed with it: places and organisations are
# listed with their like; a list with one person is as often of people and works, or people and
# bands (Re-DocRED's first half), so other kinds pass on when two names of the list agree.
LISTED_KINDS = frozenset({"place", "organization"})

_BASE_CONFIDENCE = {
    ClaimType.definition: 0.85, ClaimType.quantity: 0.8, ClaimType.date: 0.8, ClaimType.relation: 0.75,
    ClaimType.causal: 0.7, ClaimType.comparison: 0.7, ClaimType.fact: 0.65, ClaimType.opinion: 0.4,
}


class _MentionFinder:
    """One regex over every name and alias in the chunk; longest name wins."""

    def __init__(self, registry: _Registry) -> None:
        self.registry = registry
        names = sorted(
            {n for e in registry.entities.values() for n in (e.name, *e.aliases)}, key=lambda n: (-len(n), n)
        )
        # Acronyms and one-word names match exactly; "Program counter" also matches "program counter".
        # One alternation, longest name first, so "Intel 4004" wins over "Intel".
        parts = []
        for n in names:
            if not any(c.isupper() for c in n[1:]) and (" " in n or not n[0].isupper()):
                if len(n) >= 3:
                    parts.append(f"(?i:{re.escape(n)}(?:e?s)?)")
            else:
                parts.append(f"{re.escape(n)}(?:['’]s?)?")
        self.pattern = re.compile(rf"(?<![\w-])(?:{'|'.join(parts)})(?![\w-])") if parts else None

    def find(self, sentence: str) -> list[_Mention]:
        if self.pattern is None:
            return []
        found = []
        for match in self.pattern.finditer(sentence):
            text = re.sub(r"['’]s?$", "", match.group(0))
            key = self.registry.key_of(text) or self.registry.key_of(re.sub(r"e?s$", "", text))
            if key:
                found.append(_Mention(match.start(), match.end(), key))
        return found


class _TopicTracker:
    """Which entity a sentence is about when it does not name one: the nearest heading's."""

    def __init__(self, headings: list[tuple[int, int, str | None]]) -> None:
        self.headings = headings

    def __call__(self, md_offset: int, registry: _Registry) -> str | None:
        topic = None
        for start, _, key in self.headings:
            if start <= md_offset and key:
                topic = key
        # A heading entity may have been folded into another one since: follow its name.
        return registry.alias_to_key.get(topic) if topic else None

    def is_heading(self, md_start: int, md_end: int) -> bool:
        return any(start <= md_start < end for start, end, _ in self.headings if start >= 0)


def _participle_phrase(rest: str) -> bool:
    """Whether a comma ends the phrase after a name, with no verb before it: "Joining SC Freiburg
    in 2016, he ..." (a participle phrase), not "Finding Nemo was released in 2003, ..." (a title)."""
    phrase = re.match(r"([^,.;:!?]{0,60}),", rest)
    return phrase is not None and not any(_is_verb(word) for word in phrase.group(1).split())


def _is_verb(word: str) -> bool:
    w = word.lower().strip(".,;:")
    if w in V.AUXILIARIES - {"a", "an", "the", "of", "to", "in", "on", "at", "for", "with", "as", "by", "that", "which", "who"}:
        return True
    for suffix in ("", "s", "es", "ed", "d", "ing"):
        if suffix and w.endswith(suffix) and w[: -len(suffix)] in V.COMMON_VERBS:
            return True
        if w in V.COMMON_VERBS:
            return True
    return w.endswith("ies") and w[:-3] + "y" in V.COMMON_VERBS


def _leading_noun_phrase(words: list[str]) -> str | None:
    """"Human embryonic stem cells give rise to ..." -> "Human embryonic stem cells"."""
    phrase: list[str] = []
    while words and _is_section_label(words[0]):  # "RESULTS The ..."
        words = words[1:]
    ended = False  # at a verb or a clause's end within the first seven words
    for word in words[:7]:
        if _is_verb(word) or not re.search(r"[A-Za-z]", word) or word.endswith((",", ";", ":")):
            if word.endswith((",", ";", ":")) and not _is_verb(word):
                phrase.append(word.rstrip(",;:"))
            ended = True
            break
        phrase.append(word)
    while phrase and phrase[0].lower() in V.STOP_CAPS:
        phrase.pop(0)
    if not ended or len(phrase) > 6 or (phrase and phrase[-1].lower() in _CUT_WORDS):
        phrase = _head(phrase)
    if not phrase or len(phrase) > 6 or phrase[-1].lower() in V.NAME_PARTICLES:
        return None
    return " ".join(phrase).strip("\"'()[]")


_CUT_WORDS = {"in", "on", "at", "by", "for", "from", "with", "without", "into", "to", "via", "among", "upon", "during",
              "after", "before", "under", "over", "between", "through", "who", "which", "that", "whose", "whom", "of"}


def _head(phrase: list[str]) -> list[str]:
    """The head of a subject too long to be a name: "Differentiation of progenitor cells | to myeloid
    cells", "Students | who perform poorly ...". Cut before the first preposition or relative word
    (a first "of" stays when what it leaves is short); nothing when one word would be left."""
    cuts = [i for i, word in enumerate(phrase) if i and word.lower() in _CUT_WORDS]
    later = [i for i in cuts if phrase[i].lower() != "of" or i > 4]
    cut = later[0] if later and later[0] <= 6 else (cuts[0] if cuts else len(phrase))
    # One word left ("Patients | with ...", "Students | who ...") is too generic a subject: claims
    # of unrelated texts would meet on it.
    return phrase[:cut] if cut >= 2 else []


def _predicate(words: list[str]) -> str:
    kept = [w.lower().strip(".,;:'’\"()") for w in words]
    kept = [w for w in kept if w and w.isalpha() and w not in V.AUXILIARIES and w not in V.PRONOUN_STARTS and w not in CONJUNCTIONS][:3]
    return "_".join(kept)


def _add_term(term: str, registry: _Registry, before: str = "") -> str | None:
    """Add a linked or bold term; "Name (ACR)" and "Name (qualifier)" keep the part in brackets as an alias."""
    text = " ".join(term.split())
    qualified = _QUALIFIER.match(text)
    if qualified and qualified.group(1):
        inner = qualified.group(2).strip()
        if re.fullmatch(r"[A-Z][A-Za-z0-9&]{1,9}", inner) and sum(c.isupper() for c in inner) >= 2:
            return registry.add(qualified.group(1), "", alias=inner)
        type_ = "work" if inner.lower() in V.WORK_QUALIFIERS else ""
        return registry.add(qualified.group(1), type_, alias=text)
    return registry.add(text, "")


_PRONOUN_OPENERS = {"i", "we", "you", "he", "she", "it", "they", "this", "that", "there", "what", "how", "why"}


_FRONTED = re.compile(r"^(?:Unlike|Like|Apart from|Besides|After|Before|Despite|As with|Compared with|Compared to|"
                      r"Following|Alongside)\b[^,;]{1,80},\s+(it|he|she|they|its|his|her|their)\s")


def _fronted_pronoun(sentence: str) -> Reference | None:
    """"Unlike ENIAC, it was ...": a fronted phrase names something else, the pronoun is the subject."""
    found = _FRONTED.match(sentence)
    if not found:
        return None
    pronoun = found.group(1)
    wants = "person" if pronoun in ("he", "she", "his", "her") else "thing" if pronoun in ("it", "its") else ""
    return Reference("pronoun", 1, wants, False)  # named as a prefix: the pronoun is mid-sentence


def _quoted_title(inner: str) -> str | None:
    """A quoted span that reads as a title: 1-8 words, capitalised, not a quoted sentence ("We will
    win" is speech; "I Understand" and "Aprite le finestre" are titles)."""
    inner = inner.strip(" ,.;:")
    words = inner.split()
    if not 1 <= len(words) <= 8 or not inner[:1].isupper() or re.search(r"[.!?;:]\s", inner):
        return None
    title_case = all(w[:1].isupper() or len(w) <= 3 for w in words)
    if not title_case and (words[0].lower() in _PRONOUN_OPENERS or len(words) > 4):
        return None
    if len(words) == 1 and words[0].lower() in V.STOP_CAPS:
        return None
    return inner


# Words that make "<word> of X" one name: institutions, places, events, offices, works' heads.
_OF_HEADS = V.ORG_WORDS | V.PLACE_WORDS | V.EVENT_WORDS | V.ROLES | {
    "house", "states", "republic", "kingdom", "union", "federation", "emirates", "church", "order", "league",
    "people", "duchy", "principality", "isle", "gulf", "cape", "strait", "straits", "sea", "port", "board",
    "court", "history", "list", "age", "book", "life", "knights", "sisters", "brothers", "daughters", "sons",
    "friends", "hall", "tower", "castle", "palace", "temple", "basilica", "abbey", "archdiocese", "diocese",
    "dynasty", "empire", "siege", "treaty", "act", "bill", "declaration", "convention", "charter", "statute",
    "lord", "lady", "lords", "master", "masters", "son", "daughter", "legend", "tale", "tales", "return",
    "rise", "fall", "night", "day", "days", "year", "land", "city", "town", "province", "county", "district",
    "region", "state", "center", "centre", "institute", "school", "college", "faculty", "department"}


_REGNAL = re.compile(r"[IVX]{1,5}")


def _split_of(name: str) -> tuple[str, str]:
    """"Kansas City Chiefs of the National Football League", "Charles VII of France", "Prince Eugene of
    Savoy" -> two names; not "Bank of America", "House of Commons", "Battle of Hastings" (the word
    before "of" heads one name), nor "National Register of Historic Places" (without "the", "X of Y"
    is one name unless X is a ruler's)."""
    words = name.split()
    if "of" not in words:
        return name, ""
    at = words.index("of")
    head, rest = words[:at], words[at + 1 :]
    if len(head) < 2 or not rest or not rest[-1][:1].isupper():
        return name, ""
    if rest[0].lower() == "the":
        rest = rest[1:]
    elif not (_REGNAL.fullmatch(head[-1]) or any(w.lower() in V.ROLES for w in head[:-1])
              or (len(rest) == 1 and rest[0].lower() in V.NATIONALITIES)):
        return name, ""  # only a ruler's name ("Gustav III", "King James III") or "of Bulgarian" splits
    if len(head) < 2 or not rest or not rest[0][:1].isupper() or head[-1].lower().strip(".,") in _OF_HEADS:
        return name, ""
    if any(w.lower() in V.NAME_PARTICLES - {"of", "the"} for w in head):
        return name, ""  # "Charles de Gaulle of ..." is rare; keep what is unclear whole
    return " ".join(head), " ".join(rest)


def _split_name(name: str) -> tuple[str, str, str, str]:
    """(name, type it is known to have, another name in it, that one's type): "Vice Admiral James
    Greer" -> ("James Greer", "person", "", ""); "German Chancellor Angela Merkel" -> ("Angela Merkel",
    "person", "German", "nationality"); "Speaker of the House of Commons" -> (itself, "office",
    "House of Commons", "") (an office is a name of its own, and so is what it is of)."""
    words = name.split()
    nationality = ""
    if len(words) > 2 and words[0].lower() in V.NATIONALITIES and words[1].lower().strip(".") in V.ROLES:
        nationality, words = words[0], words[1:]  # not "Soviet Union", "British Army"
    roles = 0
    while roles < len(words) - 1:
        if words[roles].lower().strip(".") in V.ROLES:
            roles += 1
        elif roles and roles + 2 < len(words) and words[roles] in ("-", "–"):
            roles += 2  # "Prince - elector John Sigismund", "Lieutenant - General Sir ...": a hyphenated role
        else:
            break
    if not roles:
        return " ".join(words), "", nationality, "nationality" if nationality else ""
    rest = words[roles:]
    if rest[0] == "of" and len(rest) > 1:  # "Governor of Texas", "Speaker of the House of Commons"
        if not all(w.lower().strip(".") in V.OFFICES for w in words[:roles]):
            return name, "", "", ""
        rest = rest[2:] if rest[1] in ("the", "The") and len(rest) > 2 else rest[1:]
        office = " ".join(words)
        return (office, "office", " ".join(rest), "") if rest[0][:1].isupper() else (name, "", "", "")
    lowered = [w.lower() for w in rest]
    person_like = len(rest) >= 2 and "of" not in lowered and not any(
        w in V.ORG_WORDS or w in V.PLACE_WORDS or w in V.EVENT_WORDS for w in lowered)
    if person_like:
        return " ".join(rest), "person", nationality, "nationality" if nationality else ""
    return " ".join(words), "", nationality, "nationality" if nationality else ""


def _is_section_label(word: str) -> bool:
    """"CONCLUSIONS A significant proportion ...": a structured abstract's label, not part of a name."""
    return word.isupper() and word.lower().strip(":.") in V.SECTION_WORDS


_SURNAME = re.compile(r"[A-Z][A-Za-z'’.-]*[a-z.][A-Za-z'’.-]*")  # "Turing", "McDonald", "O'Brien", "Jr." (not "RNA", "BC1")


def _fold_surnames(registry: _Registry) -> None:
    """A lone surname ("Turing", "Neumann") becomes an alias of the one full name ending in it;
    only names that read as a person's ("BC1 RNA" does not make "RNA" a surname)."""
    by_last: dict[str, list[str]] = {}
    for key, entity in registry.entities.items():
        words = entity.name.split()
        if (len(words) >= 2 and entity.type in ("person", DEFAULT_TYPE) and not any(w.lower() in ("of", "the") for w in words)
                and words[0].lower() not in V.NAME_PARTICLES  # "Von Neumann" is a surname, not a full name
                and _SURNAME.fullmatch(words[-1])
                and all(_SURNAME.fullmatch(w) or w.lower() in V.NAME_PARTICLES or re.fullmatch(r"[A-Z]\.", w) for w in words)):
            by_last.setdefault(name_key(words[-1]), []).append(key)
    _fold_full_names(registry, by_last)
    for key in list(registry.entities):
        entity = registry.entities[key]
        words = entity.name.split()
        # "Neumann", or "Von Neumann" (particles before a surname) for "John von Neumann"
        lone = len(words) == 1 or all(w.lower() in V.NAME_PARTICLES for w in words[:-1])
        owners = by_last.get(name_key(words[-1]) if words else key, [])
        if not lone or len(owners) != 1 or owners[0] == key:
            continue
        owner = registry.entities[owners[0]]
        owner.aliases.add(entity.name)
        owner.aliases.update(entity.aliases)
        owner.absorb(entity)
        if owner.name.split()[0].lower() in gazetteer.first_names():  # "Turing" -> "Alan Turing"; not "Misregulated CDKs"
            owner.vote_once(owner.name, "surname folded", "person", GIVEN_WEIGHT)
        del registry.entities[key]
        for alias, target in list(registry.alias_to_key.items()):
            if target == key:
                registry.alias_to_key[alias] = owners[0]


def _fold_full_names(registry: _Registry, by_last: dict[str, list[str]]) -> None:
    """A person's full name ("Christopher Edward Nolan") becomes an alias of the one shorter name with
    its first and last words ("Christopher Nolan", often the page's heading), so the claims of the
    first sentence and of the rest of the page have one subject. `by_last` loses the folded names."""
    for last, keys in by_last.items():
        if len(keys) < 2:
            continue
        words_of = {key: registry.entities[key].name.split() for key in keys}
        shorter = {long: [k for k in keys if 2 <= len(words_of[k]) < len(words_of[long])
                          and words_of[k][0] == words_of[long][0] and _is_subsequence(words_of[k], words_of[long])]
                   for long in keys}
        longer = {short: [long for long in keys if short in shorter[long]] for short in keys}
        for long_key in sorted(keys, key=lambda k: (-len(words_of[k]), k)):
            # one short name, and one full name for it: "John Henry Smith" and "John Paul Smith" are two
            if len(shorter[long_key]) != 1 or len(longer[shorter[long_key][0]]) != 1:
                continue
            shorter[long_key] = [k for k in shorter[long_key] if k in registry.entities]
            if not shorter[long_key]:
                continue
            owner = registry.entities[shorter[long_key][0]]
            folded = registry.entities.pop(long_key)
            owner.aliases.add(folded.name)
            owner.aliases.update(folded.aliases)
            owner.absorb(folded)
            for alias, target in list(registry.alias_to_key.items()):
                if target == long_key:
                    registry.alias_to_key[alias] = shorter[long_key][0]
        by_last[last] = [k for k in keys if k in registry.entities]


def _is_subsequence(part: list[str], whole: list[str]) -> bool:
    remaining = iter(whole)
    return all(word in remaining for word in part)


def _classify(sentence: str, rest: str, mentions: list[_Mention], subject_key: str, registry: _Registry) -> dict:
    """Claim type, predicate, object, value and unit of a sentence, by precedence of cues."""
    lowered = sentence.lower()
    masked = list(sentence)  # entity names never become predicate words
    for mention in mentions:
        masked[mention.start : mention.end] = "#" * (mention.end - mention.start)
    rest_start = len(sentence) - len(rest)
    predicate_text = "".join(masked)[rest_start:]
    rest_words = predicate_text.split()
    fields: dict = {"object": rest.strip(" ,;:.")}
    later = [m for m in mentions if m.key != subject_key and m.start >= len(sentence) - len(rest)]
    if later:
        fields["object_entity"] = registry.entities[later[0].key].name
    definition = re.match(r"^\s*,?\s*(?:is|are|was|were)\s+(?:(?:also|not|never)\s+)?(?:an?|the)\s+(.+)$", rest) or re.match(
        r"^\s*,?\s*(?:refers to|is defined as|means|is known as|is called)\s+(.+)$", rest
    )
    number = next((m for m in NUMBER.finditer(rest) if not inside_year(m) and unit_of(m)[0]), None)
    date = first_date(rest)
    if _has(sentence, V.OPINION_MARKERS):
        fields.update(claim_type=ClaimType.opinion, predicate=_predicate(rest_words[:4]))
    elif definition:
        fields.update(claim_type=ClaimType.definition, predicate="is_a", object=definition.group(1).strip(" .")[:300])
    elif number:
        unit, _ = unit_of(number)
        fields.update(
            claim_type=ClaimType.quantity, value=parse_number(number), unit=unit,
            predicate=_predicate(predicate_text[: number.start()].split()) or "has",
        )
    elif date:
        value, iso, at = date
        fields.update(claim_type=ClaimType.date, value=float(value), unit="year", object=iso,
                      predicate=_predicate(predicate_text[:at].split()) or "dated")
    elif marker := _has(lowered, V.CAUSAL_MARKERS):
        fields.update(claim_type=ClaimType.causal, predicate=marker.replace(" ", "_"))
    elif (comparative := _COMPARATIVE.search(sentence)) or _has(lowered, V.COMPARISON_MARKERS):
        predicate = (comparative.group(1).lower().replace(" ", "_") + "_than") if comparative else "compared_with"
        fields.update(claim_type=ClaimType.comparison, predicate=predicate)
    elif later and (verb := _predicate(predicate_text[: later[0].start - rest_start].split())):
        fields.update(claim_type=ClaimType.relation, predicate=verb)
    else:
        fields.update(claim_type=ClaimType.fact, predicate=_predicate(rest_words[:3]))
    return fields


