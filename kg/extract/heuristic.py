"""The offline extractor: deterministic rules and a small shipped type model, no network.

Pass 1 discovers entities in a chunk (headings, [[links]], bold terms, acronym definitions,
capitalised multi-word names, defined lowercase terms). Pass 2 finds every mention of
them sentence by sentence and turns each substantive sentence into one typed claim whose
evidence quote is the sentence itself, cut verbatim from the markdown. The rules' type votes are
features of the type model (kg/extract/type_model.py), which gives each entity its stored type.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import cast

from kg.extract import ExtractionContext, Extractor, cjk_names, gazetteer, type_model
from kg.extract import matcher as M
from kg.extract import patterns as P
from kg.extract import vocab as V
from kg.extract.entity_types import (
    GENERAL_PROSE_RULES,
    ONCE_PER_NAME,
    abbreviated,
    context_votes,
    list_kind,
    listable_name,
    listed_together,
    person_shaped,
    scientific,
    typed,
)
from kg.extract.facets import (
    NUMBER,
    first_date,
    inside_year,
    parse_number,
    unit_of,
    validity,
)
from kg.extract.matcher import is_verb
from kg.extract.name_parts import vote_by_name_parts
from kg.extract.name_rules import (
    SPLIT_RULES,
    Candidate,
    Where,
    candidate_verdict,
    fold_names,
    in_order,
    name_spans,
    participle_phrase,
    phase,
    trim_name,
)
from kg.extract.negation import denies
from kg.extract.reference import Reference, fit, reference_at_start, referent
from kg.extract.registry import GIVEN_WEIGHT, Entity, Registry
from kg.extract.tech_names import (
    after_opener,
    enumeration,
    named_as_software,
    names_a_file,
    prose,
    rst_links_as_text,
    soften_line_breaks,
    technical_names,
)
from kg.extract.type_checks import checked_type
from kg.models import (
    Chunk,
    ClaimType,
    EntityType,
    ExtractedClaim,
    ExtractedEntity,
    ExtractionResult,
)
from kg.names import name_key
from kg.text import CJK_RUN, PlainText, has_cjk, sentences, to_plain

_DOCUMENT_TITLE = M.rule("document_title")
_OPENING_MODIFIER = M.rule("opening_modifier")
_NOT_A_QUOTED_TITLE = M.rule("not_a_quoted_title")
_LONG_QUOTE = M.rule("long_quote")
_NO_CLAIM = M.rule("no_claim")
_SECTION_LABELS = M.rule("section_labels")

_COMMA_QUALIFIED = P.pattern("comma_qualified")
_QUOTED = P.pattern("quoted")
_CJK_QUOTED = P.pattern("cjk_quoted")
_ACRONYM = P.pattern("acronym")
_DEFINED_TERM = P.pattern("defined_term")
_WORD = re.compile(r"[A-Za-z][\w'’-]*")
_LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f]")  # a letter of the Latin script (with accents)
_COMPARATIVE = P.pattern("comparative")
_QUALIFIER = P.pattern("qualifier")
_HEADING_LINE = P.pattern("heading_line")
# A claim's cues: a phrase of a words.toml list, in the sentence in lower case.
_STRONG_HEDGE = P.pattern("strong_hedge")
_SOFT_HEDGE = P.pattern("soft_hedge")
_OPINION = P.pattern("opinion_marker")
_CAUSAL = P.pattern("causal_marker")
_COMPARISON = P.pattern("comparison_marker")
_LOWERCASE_WORD = P.pattern("lowercase_word")
_DEFINITION = P.pattern("definition")
_DEFINITION_PHRASE = P.pattern("definition_phrase")
_LEADING_ASIDE = P.pattern("leading_aside")  # "Wangliang (望梁) is a town"
_POSSESSIVE = P.pattern("possessive_end")
_BEFORE_NICKNAME = P.pattern("before_nickname")
_AFTER_NICKNAME = P.pattern("after_nickname")
_BRACKETED_ACRONYM = P.pattern("bracketed_acronym")
_TABLE_RULE = P.pattern("table_rule")
_CLAUSE_MARK = P.pattern("clause_mark")
_FENCED_BLOCK = P.pattern("fenced_block")
_TITLE_LABEL = P.pattern("title_label")
_NEGATIVE_INSTRUCTION = P.pattern("imperative_cue")  # "Don't ...", "Never ...": as negation.py reads them


@dataclass
class _Mention:
    start: int
    end: int
    key: str


def _acronym_matches(words: list[str], acronym: str) -> int:
    """How many trailing `words` spell `acronym` by initials (0 when they do not), or, for a proper
    name and an acronym in capitals, by initials and letters inside its words in order ("Saint Lucia
    Air and Seaports Authority (SLASPA)", "European Quality Improvement System (EQUIS)", "Association
    of MBAs (AMBA)"; not "Polycomb Group (PcG)", a family of genes a body's kind word would type)."""
    letters = [c.lower() for c in acronym if c.isalpha()]
    i, used = len(letters) - 1, 0
    for word in reversed(words):
        if i < 0:
            break
        initial = word[0].lower()
        if initial == letters[i]:
            i -= 1
        elif word.lower() not in V.ACRONYM_SKIPS:
            break  # no initials: perhaps letters inside the words
        used += 1
    if i < 0:
        return used
    return _proper_acronym(words, letters) if acronym.isupper() else 0  # not "PcG", "MeSH"


def _proper_acronym(words: list[str], letters: list[str]) -> int:
    """How many trailing `words`, each capitalised but the skipped ones, spell `letters` with each
    word's initial and then letters inside it in order (0 when none do)."""

    def spell(end: int, upto: int) -> int | None:  # words[:end] spelling letters[:upto]: words used
        if upto == 0:
            return 0
        if end == 0 or len(words) - end > len(letters) + 2:
            return None
        word = words[end - 1]
        if word.lower() in V.ACRONYM_SKIPS and (rest := spell(end - 1, upto)) is not None:
            return rest + 1
        if not word[:1].isupper():
            return None
        lowered = word.lower()
        for start in range(upto - 1, -1, -1):  # this word spells letters[start:upto], fewest first
            if lowered[0] == letters[start] and in_order(letters[start + 1 : upto], lowered[1:]):
                rest = spell(end - 1, start)
                if rest is not None:
                    return rest + 1
        return None

    found = spell(len(words), len(letters)) or 0
    if found == 1 and (gazetteer.is_place(words[-1]) or gazetteer.is_city(words[-1]) or gazetteer.is_town(words[-1])):
        return 0  # "Paris (PA)", "Seattle (SEA)": a state's or an airport's code, not the place's
    return found  # "Tuberculosis (TB)", "Glioblastoma (GBM)"


@dataclass
class _ChunkFinds:
    """One chunk's claims and kept entities, before their types (which pool the source's chunks)."""

    claims: list[ExtractedClaim]
    kept: list[Entity]
    related: list[set[str]]  # per kept entity: the rules' types of the chunk's names sharing a word with it
    science: bool
    software: set[str]  # keys of the names a technical-name rule found (kg/extract/tech_names.py)
    technical: bool = False  # the chunk shows code (inline or in blocks)


def _related_kinds(kept: list[Entity], registry: Registry) -> list[set[str]]:
    typed_by_word: dict[str, list[Entity]] = {}  # a capitalised word -> the rule-typed names holding it
    for entity in registry.entities.values():
        if typed(entity.type):
            for word in set(entity.name.split()):
                if word[:1].isupper() and len(word) > 2:
                    typed_by_word.setdefault(word, []).append(entity)
    return [{other.type for word in set(entity.name.split()) for other in typed_by_word.get(word, ()) if other is not entity}
            for entity in kept]


@dataclass
class _Pooled:
    """What a source's chunks say of one name, for the type model."""

    name: str
    evidence: Counter[str] = field(default_factory=Counter)
    around: set[str] = field(default_factory=set)
    decided: set[str] = field(default_factory=set)
    related: set[str] = field(default_factory=set)
    science: bool = False
    mentions: int = 0
    software: bool = False  # a technical-name rule found it in some chunk

    def add(self, entity: Entity, related: set[str], science: bool, software: bool) -> None:
        self.software |= software
        self.evidence.update(entity.evidence)
        self.around |= entity.around
        self.decided.add(entity.type)
        self.related |= related
        self.science |= science
        self.mentions += entity.mentions

    def lend(self, alone: _Pooled) -> None:
        """A lone family name's contexts are its full name's too ("Karpathy agreed")."""
        self.evidence.update(alone.evidence)
        self.around |= alone.around
        self.mentions += alone.mentions

    def features(self) -> dict[str, float]:
        return type_model.entity_features(self.name, self.evidence, self.around, sorted(self.decided), self.related,
                                          self.science, self.mentions)


def _family_owners(pooled: dict[str, _Pooled]) -> dict[str, str]:
    """Each one-word name's key -> the key of the one name of two or more capitalised words in the
    source ending in it (none when two do: "John Smith", "Jane Smith")."""
    ending: dict[str, list[str]] = {}
    for key, found in pooled.items():
        words = found.name.split()
        if len(words) >= 2 and all(w[:1].isupper() for w in words):
            ending.setdefault(name_key(words[-1]), []).append(key)
    return {key: ending[key][0] for key, found in pooled.items()
            if len(found.name.split()) == 1 and len(ending.get(key, ())) == 1}


class HeuristicExtractor(Extractor):
    name = "heuristic"
    # 2: subjects of pronouns and descriptions resolved; standalone text. 3: names' boundaries
    # ("X of Y", "A and B Railroad", possessive places, nicknames, spaced hyphens), full names folded.
    # 4: types from names, gazetteers and context (kg/extract/entity_types.py), no "named";
    # statistical notation, lone roman numerals and modifier fragments are no entities
    # 5: a demonym is its country's place ("American" -> alias "United States") or a language;
    # religions, nucleic acids, protein families, binomials, towns, lists' kinds; a subject without a
    # name: six words besides its determiner, a leading participle or gerund ("Diminished ovarian
    # reserve is"), a relative clause's verb, a bracketed aside ends it, a one-word head with its
    # first modifier ("Students who perform poorly")
    # 7: names WordNet files as people, places, organisations, writings and wars, and the people of
    # its places; call signs, clubs' prefixes, industries' words, a body's branch, roles and
    # possessions after a body, networks' shows, leagues' seasons, distances from a place, pinyin
    # names, rulers' numbers, qualified demonyms, a plural kind before a list, initials in lists
    # 8: a list's majority kind; types from the parts of typed names (kg/extract/name_parts.py);
    # WordNet's peoples and faithful; towns of 1,000; acronyms spelt inside a proper long form
    # 9: a claim's text is its sentence (no subject glued on); polarity -1 only where the sentence
    # denies its own predicate (kg/extract/negation.py); CJK sentences, names and bigram keys; the
    # stored type is a learned model's over the rules' votes, a concept below its threshold
    # (kg/extract/type_model.py)
    # 12: a name after the sentence's verb is no subject; lone given names and accented names fold;
    # type checks from the source's own words (kg/extract/type_checks.py); titles only where they read
    # as names; 17 type rules that added nothing gone; the type model hashes into 2^18 features
    version = "heuristic-13"

    def extract_chunk(self, chunk: Chunk, context: ExtractionContext) -> ExtractionResult:
        return self._typed([self._untyped(chunk)])[0]

    def extract(self, chunks: Sequence[Chunk], context: ExtractionContext) -> list[ExtractionResult]:
        """The chunks of one source, each entity typed over all the source's mentions of it: one
        confident context ("Remington Rand sold 46 UNIVAC I systems") types the name wherever the
        source uses it. Only the source's own chunks count, so an edit re-extracts one source."""
        return self._typed([self._untyped(chunk) for chunk in chunks])

    def _untyped(self, chunk: Chunk) -> _ChunkFinds:
        plain = rst_links_as_text(soften_line_breaks(to_plain(chunk.text), chunk.text), chunk.text)
        spans = _split_at_headings(sentences(plain.text), plain, chunk.text)
        registry = Registry()
        headings = self._headings(chunk, registry)
        # the words the chunk writes in lower case, but those it writes in code too: a program's name
        # ("wrap calls with `tenacity`", so "tenacity" in a title is no evidence against "Tenacity was ...")
        in_code = {word for start, end in plain.code for word in _LOWERCASE_WORD.findall(plain.text[start:end])}
        lowercase = frozenset(_LOWERCASE_WORD.findall(prose(plain))) - in_code
        software = self._discover(plain, spans, registry, chunk.text, lowercase)
        finder = _MentionFinder(registry)
        mentions = [finder.find(plain.text[start:end]) for start, end in spans]
        labels = _section_labels(headings, plain, spans, mentions, registry)
        headings = [(start, end, None if key in labels else key) for start, end, key in headings]
        titles = _title_keys(chunk, headings, registry)
        sections = {key for _, _, key in headings if key}
        headings = _named_sections(headings, titles, plain, spans, mentions, registry, lowercase)
        # a section's heading that names nothing ("## v0.9.0 (2026-04-02)") is no entity for its alias
        unnamed = sections - {key for _, _, key in headings if key} - titles
        _vote_by_context(plain.text, spans, mentions, registry)
        claims: list[ExtractedClaim] = []
        topic_for = _TopicTracker(headings)
        # (end, markdown end, subject key, last person named) of the paragraph's last sentence with a name
        previous: tuple[int, int, str, str | None] | None = None
        for (start, end), mentioned in zip(spans, mentions, strict=True):
            md_start, md_end = plain.source_span(start, end)
            if topic_for.is_heading(md_start, md_end):
                continue
            # who "It ...", "He ...", "The machine ..." can be: the paragraph's last subject, the
            # last person it named, the nearest heading's entity (kg/extract/reference.py)
            heading = topic_for(md_start, registry)
            candidates = [heading]
            same_paragraph = previous is not None and "\n\n" not in plain.text[previous[0] : start]
            if previous and same_paragraph:
                candidates = [previous[2], previous[3], *candidates]
            referents = [k for k in dict.fromkeys(candidates) if k and k in registry.entities]
            # A sentence that neither names nor refers to its subject is about its paragraph's subject,
            # unless it opens a line of its own after a sentence's end, as a note's lines do ("Hannah
            # asked ...\nStripe webhooks failed ..."); else about the heading's topic
            continues = previous is not None and same_paragraph and not _new_line(chunk.text, previous[1], md_start)
            topic = next((k for k in (previous[2] if previous and continues else None, heading)
                          if k and k in registry.entities), None)
            claim = self._claim(plain, start, end, chunk.text[md_start:md_end], finder, registry, referents, topic)
            # the last person named, or a name that may be one ("Aurangzeb"), for a "He" to come
            person = next((m.key for m in reversed(mentioned) if registry.entities[m.key].type == "person"), None) or \
                next((m.key for m in reversed(mentioned) if fit(_HE, registry.entities[m.key].type,
                                                                 registry.entities[m.key].name)), None) or \
                (previous[3] if previous else None)
            if claim:
                claims.append(claim)
                previous = (end, md_end, registry.key_of(claim.subject) or "", person)
            elif mentioned:
                previous = (end, md_end, mentioned[0].key, person)  # "So, the Eniac." sets the subject of what follows
        claims.extend(self._table_claims(chunk.text, plain, registry, finder))
        used = {name_key(n) for c in claims for n in (c.subject, c.object_entity, *c.mentions) if n}
        used |= titles
        kept = [e for key, e in registry.entities.items() if key in used or key in registry.kept or e.description
                or (e.aliases and key not in unnamed)]
        return _ChunkFinds(claims, kept, _related_kinds(kept, registry), scientific(plain.text), software,
                           bool(plain.code))

    def _typed(self, finds: list[_ChunkFinds]) -> list[ExtractionResult]:
        """Each kept entity's type from the type model (kg/extract/type_model.py) over the evidence
        of every chunk naming it, and of a lone family name ending its full name ("Karpathy" said,
        "Andrej Karpathy" typed); the rules' decision is one feature (`type_model.final_type`: which
        kinds stay the rules')."""
        pooled: dict[str, _Pooled] = {}
        for found in finds:
            for entity, related in zip(found.kept, found.related, strict=True):
                key = name_key(entity.name)
                pooled.setdefault(key, _Pooled(entity.name)).add(entity, related, found.science, key in found.software)
        owners = _family_owners(pooled)
        for key, full in owners.items():
            pooled[full].lend(pooled[key])
        features = {key: names.features() for key, names in pooled.items()}
        features.update({key: features[full] for key, full in owners.items()})  # one name, one type
        technical = any(found.technical for found in finds)
        results = []
        for found in finds:
            entities = []
            for entity in found.kept:
                key = name_key(entity.name)
                type_ = checked_type(self.final_type(entity, features[key]), features[key], technical)
                if type_ == "product" and not named_as_software(pooled[key].name, pooled[key].software, pooled[key].around):
                    type_ = "concept"  # "A compile is ...", a table's `person`: a word of English, not a program's name
                entities.append(ExtractedEntity(name=entity.name, type=cast(EntityType, type_),
                                                aliases=entity.declared_aliases(), description=entity.description))
            results.append(ExtractionResult(entities=entities, claims=found.claims))
        return results

    def final_type(self, entity: Entity, features: dict[str, float]) -> str:
        if names_a_file(entity.name):  # a table of a note's files, a path in code: never a product or a body
            return "concept"
        if has_cjk(entity.name) and not _LATIN_LETTER.search(entity.name):  # "東京の研究会メモ" was a product: the model knows
            # English names, its features read Latin script; a Japanese dictionary's proper noun keeps its tag
            tagged = [t for t in ("person", "place", "organization") if f"{cjk_names.DICTIONARY}={t}" in entity.evidence]
            return type_model.final_type(tagged[0] if len(tagged) == 1 else "concept", entity.type)
        return type_model.final_type(type_model.shipped().classify(features)[0], entity.type)

    # pass 1: discovery ---------------------------------------------------------------------

    def _headings(self, chunk: Chunk, registry: Registry) -> list[tuple[int, int, str | None]]:
        """Headings in the chunk as (markdown start, end, entity key or None for generic ones)."""
        found = []
        for heading in chunk.headings:
            found.append((-1, -1, self._heading_entity(heading, registry)))
        fenced = [m.span() for m in _FENCED_BLOCK.finditer(chunk.text)]
        for match in _HEADING_LINE.finditer(chunk.text):
            if any(start <= match.start() < end for start, end in fenced):
                continue  # a comment in code ("# Create your corpus here"), no heading
            found.append((match.start(), match.end(), self._heading_entity(to_plain(match.group(1)).text, registry)))
        return found

    @staticmethod
    def _heading_entity(heading: str, registry: Registry) -> str | None:
        text = " ".join(heading.split()).strip()
        if not text or name_key(text) in V.GENERIC_HEADINGS or len(text) > 100:
            return None
        place = _COMMA_QUALIFIED.fullmatch(text)
        if place:  # a page title "Westmere, New York": the name is "Westmere", the title an alias
            return registry.add(place.group(1), "place" if gazetteer.is_place(place.group(2)) else "", alias=text)
        named, colon, subtitle = text.partition(": ")
        if colon and (title := _labelled_title(named, subtitle)):
            return registry.add(title, "", alias=text)  # "Reading group: Thinking, Fast and Slow": the book
        if _DOCUMENT_TITLE(text.split()):
            return registry.add(text, "work")  # a document's title: "Quantifying Transmission Investment in Malaria Parasites"
        if colon and subtitle and len(named.split()) <= 4 and _reads_as_name(named) and \
                name_key(named) not in V.GENERIC_HEADINGS and not _TITLE_LABEL.fullmatch(named) and \
                not (named[1:].islower() and " " not in named and gazetteer.english_word(named)):
            return registry.add(named, "", alias=text)  # "kg: a knowledge compiler": the note is about kg
        return _add_term(text, registry)

    def _discover(self, plain: PlainText, spans: list[tuple[int, int]], registry: Registry, markdown: str,
                  lowercase_words: frozenset[str]) -> set[str]:
        """Names marked up (links, bold, acronym definitions, quoted titles), capitalised names
        through the name rules' phases (kg/extract/name_rules.py), defined lowercase terms, names
        that technical prose writes in code or lower case (kg/extract/tech_names.py): the keys of
        those are returned."""
        in_code = _CodeSpans(plain.code)
        for _, rule in MARKED_RULES:
            rule(plain, registry, in_code)
        candidates, capitalised = self._capitalised_names(plain.text, spans, registry, in_code)
        software = set()
        for name in technical_names(plain, markdown):
            if key := registry.add(name):
                registry.kept.add(key)
                software.add(key)
        mid_sentence = frozenset(capitalised)
        in_chunk = frozenset(registry.entities) | {name_key(name) for name, _, _ in candidates}
        for name, at_start, before_verb in candidates:
            found = Candidate(name, at_start, name_key(name) in capitalised, lowercase_words, mid_sentence, before_verb,
                              in_chunk)
            for kept_name, type_ in candidate_verdict(found):
                registry.add(kept_name, type_)
        fold_names(registry)
        return software

    @staticmethod
    def _capitalised_names(text: str, spans: list[tuple[int, int]], registry: Registry, in_code: _CodeSpans
                           ) -> tuple[list[tuple[str, bool, bool]], set[str]]:
        """The capitalised names of each sentence, joined, trimmed and split: those a split knows the
        type of are added; the others are returned as (name, opens its sentence, a preposition follows it there) for the candidate
        rules, with the keys of those the chunk capitalises mid-sentence or as a subject."""
        capitalised: set[str] = set()
        candidates: list[tuple[str, bool, bool]] = []
        for start, end in spans:
            sentence = text[start:end]
            # CJK letters part words as line ends do (no name runs over one): "Nexon开发了这个游戏" names Nexon,
            # not the clause; "Python和Java" two names
            for m_start, m_end in name_spans(CJK_RUN.sub(lambda run: "\n" * len(run.group()), sentence)):
                if in_code(start + m_start, start + m_end):
                    continue
                before_name = sentence[:m_start].rstrip()
                opens = not before_name or before_name[-1] in "\"“”‘'([:;—–-" or before_name.endswith(("...", " -"))
                name, known_type = _split(trim_name(sentence[m_start:m_end], Where(opens, opens and participle_phrase(
                    sentence[m_end:]))), registry)
                if not name:
                    continue
                if known_type:  # what follows a role; no person when a study's ("General Practice Patient Survey")
                    person_head = known_type == "person" and name.split()[-1].lower() in V.NOT_PERSON_HEADS
                    registry.add(name, "" if person_head else known_type)
                    continue
                opening = sentence[:m_start].strip(" \t\"“”‘’'([-*•")  # a quote, a bracket or a list's mark before it
                at_start = (opening == "" or opening.lower() in V.STOP_CAPS) and not after_opener(
                    sentence[m_start:m_end], name, sentence[m_end:])
                after = _LEADING_ASIDE.sub("", sentence[m_end:])
                follows = after.split()[:1]
                if not at_start or (follows and follows[0] in ("is", "was", "are", "were", "has", "had")) or \
                        (follows and name.lower() in gazetteer.first_names() and _said(follows[0])):
                    capitalised.add(name_key(name))  # "Colossus was ...", "Anna says ..." is a name
                verb_object = not opening and sentence[m_start:m_end].split()[:1] == name.split()[:1] and \
                    bool(follows) and follows[0].lower() in _AFTER_AN_OBJECT  # not "After the Mutiny of ... in"
                candidates.append((name, at_start, verb_object))
            defined = _DEFINED_TERM.match(sentence)
            if defined and defined.group(1).split()[-1] not in V.GENERIC_NOUNS and defined.group(1).split()[0] not in V.STOP_CAPS:
                registry.add(defined.group(1), "concept")
        return candidates, capitalised

    # pass 2: claims ------------------------------------------------------------------------

    def _claim(
        self, plain: PlainText, start: int, end: int, quote: str, finder: _MentionFinder,
        registry: Registry, referents: list[str], topic: str | None,
    ) -> ExtractedClaim | None:
        sentence = " ".join(plain.text[start:end].split())
        words = sentence.split()
        # Chinese or Japanese (no spaces between words, no capitals), when CJK letters say more than Latin
        # ones: not "Wangliang (望梁) is a town"
        cjk_letters = sum(len(run) for run in CJK_RUN.findall(sentence))
        cjk = cjk_letters > 0 and 3 * cjk_letters >= len(re.findall(r"[A-Za-z]", sentence))
        if cjk and (len(sentence) < 6 or sentence.endswith(("?", "？"))):
            return None
        if (not cjk and (_NO_CLAIM(words) or sentence.endswith("?") or not re.search(r"[a-z]", sentence))) or len(sentence) > 1200:
            return None
        mentions = finder.find(sentence)
        # A name in brackets is an aside ("(relative risk 0.56; 95% CI ...)"), never the subject.
        # A nationality ("American physicist ...") is never the subject either.
        outside = [m for m in mentions if sentence.count("(", 0, m.start) <= sentence.count(")", 0, m.start)
                   and not registry.entities[m.key].demonym]
        first_word = words[0].lower().strip(",")
        reference = reference_at_start(words, is_verb) or _fronted_pronoun(sentence)
        if reference is not None:
            topic = referents[0] if referents else None
            fitting = referent(reference, [(k, registry.entities[k].type, registry.entities[k].name) for k in referents])
            topic = fitting or topic  # nothing at hand fits ("He" after a band): the topic stays the subject
            if fitting and reference.wants == "person":
                registry.entities[fitting].vote("person", PRONOUN_WEIGHT, "pronoun")  # "He ..." after "Kipling": a person
        if reference is None and topic is not None and _subjectless(words) and not _fronted_phrase(words):
            topic = None  # "Fixed a crash when ...", "Soften the peppers": the writer's doing, not the topic's
        object_name: _Mention | None = None
        if reference is None:
            outside, object_name = _subject_names(sentence, words, outside, topic is not None)
        if cjk and topic is not None:  # "我上周在上海的书店买了...": a name inside a CJK sentence is no subject of it
            outside = [m for m in outside if _cjk_subject(sentence, m.start, m.end)]
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
        if subject_key is None and cjk:
            return None  # no leading noun phrase to read without word boundaries
        if subject_key is None:
            subject_key = _phrase_subject(words, object_name, registry)
            if subject_key is None:
                return None
            finder = _MentionFinder(registry)
            mentions = finder.find(sentence)
            subject_end = next((m.end for m in mentions if m.key == subject_key), 0)
        subject = registry.entities[subject_key].name
        names_subject = any(m.key == subject_key for m in mentions)
        others = [registry.entities[m.key].name for m in mentions if m.key != subject_key]
        others = list(dict.fromkeys(others))
        rest = _LEADING_ASIDE.sub("", sentence[subject_end:])
        fields = _classify(sentence, rest, mentions, subject_key, registry)
        confidence = _confidence(sentence, fields["claim_type"], resolved=subject_end == 0 and not names_subject)
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
            polarity=-1 if denies(sentence) else 1,
            confidence=round(max(0.05, min(confidence, 0.95)), 2),
            text=sentence,  # the source's own sentence: a subject it does not name is only the subject
            quotes=[quote],
            mentions=others,
            valid_from=valid_from,
            valid_to=valid_to,
        )

    def _table_claims(self, markdown: str, plain: PlainText, registry: Registry, finder: _MentionFinder) -> list[ExtractedClaim]:
        """A markdown table row -> one claim per cell: (first cell, column header, cell)."""
        claims: list[ExtractedClaim] = []
        header: list[str] | None = None
        for row_start, row_end in plain.tables:
            line = markdown[row_start:row_end]
            cells = [to_plain(c).text.strip() for c in line.strip().strip("|").split("|")]
            if all(_TABLE_RULE.fullmatch(c) for c in cells if c):
                continue
            if header is None or (row_start > 0 and markdown[: row_start].rstrip(" \t").endswith("\n\n")):
                header = cells
                continue
            if not cells or not cells[0] or len(cells) < 2 or enumeration(cells[0]):
                continue  # a first cell listing kinds ("disease, gene or protein, ...") is no subject
            # a CJK first cell names a thing only when the text marks it (a heading, bold, a link, 「」):
            # a comparison table's rows are features ("可版本控制", "Token 效率高")
            key = registry.key_of(cells[0]) if has_cjk(cells[0]) else registry.add(cells[0], "")
            if key is None:
                continue
            kind = re.findall(r"[a-z]+", header[0].lower())
            if kind:  # the first column's header says what its cells are: "| Library |", "| Dataset |"
                registry.entities[key].around.add(f"desc:{kind[-1]}")
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


def _labelled_title(label: str, rest: str) -> str | None:
    """The name after a label of common words in sentence case that says what kind of note this is
    ("Reading group: Thinking, Fast and Slow", 'Notes: "Attention Is All You Need" (Vaswani et al.,
    2017)', "Reading notes: BERT"), without its quotes and a closing aside in brackets; None when the
    label is itself a name ("kg: a knowledge compiler") or what follows it does not read as one."""
    words = label.split()
    if not words or len(words) > 3 or not all(w.islower() for w in [words[0][1:], *words[1:]] if w) or \
            not all(gazetteer.english_word(w) for w in words):
        return None
    qualified = _QUALIFIER.fullmatch(rest)
    title = (qualified.group(1) if qualified and qualified.group(1) else rest).strip()
    quoted = _QUOTED.search(title)
    title = (quoted.group(1) or quoted.group(2)) if quoted and quoted.span() == (0, len(title)) else title
    return title if title[:1].isupper() and len(title.split()) <= 8 and _reads_as_name(title) else None


def _title_keys(chunk: Chunk, headings: list[tuple[int, int, str | None]], registry: Registry) -> set[str]:
    """The entities of a chunk's titles, kept though no claim names them: its outermost enclosing
    heading and its level-1 headings, where the title reads as a name (`_reads_as_name`). A section's
    heading ("Installation", "Key Features", "Running the tests") is an entity only where a claim
    names it, as any name is."""
    in_text = {key: chunk.text.startswith("# ", start) for start, _, key in headings if start >= 0 and key}
    return {key for n, (start, _, key) in enumerate(headings) if key and (
        (start < 0 and n == 0 and in_text.get(key, True)) or (start >= 0 and in_text[key]))
        and (entity := registry.entities.get(registry.alias_to_key.get(key, key))) and _reads_as_name(entity.name)}


def _reads_as_name(title: str) -> bool:
    """Whether a note's title names what the note is about, so that its sentences without a name of
    their own are about it: a name, its words capitalised but the small ones ("Alan Turing", "Moore
    School of Electrical Engineering", "Intel 4004"), or a short term ("Instruction pipelining"); not
    a phrase in sentence case with a function word or a comma or colon in it ("Rendering config files
    with Jinja", "Platform sync, 4 March"), which says what the note does, not whom it is about. (A
    name before a subtitle, "kg: a knowledge compiler", is the title's entity: `_heading_entity`.)"""
    words = title.split()
    if first_date(title) or all(w.lower().strip(",") in V.WEEKDAYS or w.lower().strip(",") in V.MONTHS or
                                w.strip(",").isdigit() for w in words):
        return False  # a journal's day ("Sunday", "4 March", "2026-05-11"): what it holds is no date's
    lowered = [w.lower().strip(",.") for w in words]
    if any((a in V.MONTHS and b.isdigit()) or (a.isdigit() and b in V.MONTHS) for a, b in pairwise(lowered)):
        return False  # a dated note ("Standup, 12 May", "Planning May 3"): a meeting's, not a thing's
    small = V.FUNCTION_WORDS | V.PREPOSITIONS | V.CONJUNCTIONS
    if all(w[:1].isupper() or w[:1].isdigit() or w.lower() in small for w in words):
        return True
    return len(words) <= 4 and not re.search(r"[,:;!?]", title) and not any(w.lower() in small for w in words)


def _split_at_headings(spans: list[tuple[int, int]], plain: PlainText, markdown: str) -> list[tuple[int, int]]:
    """The sentences, a heading's line cut off the text it runs into ("## Notes\nPriya said ...": a
    heading with no blank line after it is no part of the sentence, which is read on its own)."""
    headings = [m.span() for m in _HEADING_LINE.finditer(markdown)]
    split = []
    for start, end in spans:
        while (line_end := plain.text.find("\n", start, end)) >= 0 and \
                any(s <= plain.source_span(start, line_end)[0] < e for s, e in headings):
            split.append((start, line_end))
            start = line_end + 1
        split.append((start, end))
    return [(start, end) for start, end in split if plain.text[start:end].strip()]


def _new_line(markdown: str, previous_end: int, start: int) -> bool:
    """Whether a sentence opens a line of its own after the sentence before it ended its line."""
    between = markdown[previous_end:start]
    return "\n" in between and markdown[:previous_end].rstrip()[-1:] in ".!?:;)"


def _body_keys(headings: list[tuple[int, int, str | None]], plain: PlainText, spans: list[tuple[int, int]],
               mentions: list[list[_Mention]]) -> set[str]:
    """The keys of the names the text outside its headings mentions."""
    return {m.key for (start, end), found in zip(spans, mentions, strict=True)
            if not any(s <= plain.source_span(start, end)[0] < e for s, e, _ in headings if s >= 0) for m in found}


def _section_labels(headings: list[tuple[int, int, str | None]], plain: PlainText, spans: list[tuple[int, int]],
                    mentions: list[list[_Mention]], registry: Registry) -> set[str]:
    """The headings' keys that label what a note or section holds, not a thing it is about: a plural
    of common words in sentence case ("Ingredients", "Decisions", "Release notes", "Action items";
    not "Fort Anis", "Instruction pipelining") that the text outside the headings never names."""
    in_body = _body_keys(headings, plain, spans, mentions)
    labels = set()
    for _, _, key in headings:
        entity = registry.entities.get(registry.alias_to_key.get(key, key)) if key else None
        if key is None or entity is None or registry.key_of(entity.name) in in_body:
            continue
        words = entity.name.split()
        last = words[-1].lower()
        plural = last.endswith("s") and not last.endswith(("ss", "us", "is")) and \
            (gazetteer.common_word(last[:-1]) or (last.endswith("es") and gazetteer.common_word(last[:-2])))
        if plural and all(w[1:].islower() for w in words) and all(w.islower() for w in words[1:]) and \
                all(gazetteer.english_word(w) for w in words):
            labels.add(key)
    return labels


def _named_sections(headings: list[tuple[int, int, str | None]], titles: set[str], plain: PlainText,
                    spans: list[tuple[int, int]], mentions: list[list[_Mention]], registry: Registry,
                    lowercase: frozenset[str]) -> list[tuple[int, int, str | None]]:
    """The headings, a section's heading without its entity unless it reads as a name: the text
    outside headings names it, or its words are capitalised and none of them is written in lower
    case in the chunk ("## Colossus", not "## Installation", "## Running the tests", "## 2.0.1")."""
    in_body = _body_keys(headings, plain, spans, mentions)
    named = []
    for start, end, key in headings:
        if key and key not in titles and key not in in_body:
            entity = registry.entities.get(registry.alias_to_key.get(key, key))
            words = entity.name.split() if entity else []
            if not words or not all(w[:1].isupper() and w.lower() not in lowercase for w in words) or len(words) > 4 \
                    or not _reads_as_name(entity.name if entity else ""):
                key = None
        named.append((start, end, key))
    return named


class _CodeSpans:
    """Whether a span of the plain text overlaps code (no names are read there)."""

    def __init__(self, code: list[tuple[int, int]]) -> None:
        self.code = code

    def __call__(self, start: int, end: int) -> bool:
        return any(cs <= start < ce or cs < end <= ce for cs, ce in self.code)


def _split(name: str, registry: Registry) -> tuple[str, str]:
    """The SPLIT_RULES in order: (what is left of the name, the type a rule knows it to have); the
    names found inside it are added ("Kansas City Chiefs of the National Football League",
    "German Chancellor Angela Merkel"), kept when a rule says so though never mentioned alone."""
    known = ""
    for _, rule in SPLIT_RULES:
        part = rule(name)
        if part.inner and (key := registry.add(part.inner, part.inner_type)) and part.keep:
            registry.kept.add(key)
        name, known = part.name, part.type or known
    return name, known


def _vote_by_context(text: str, spans: list[tuple[int, int]], mentions: list[list[_Mention]], registry: Registry) -> None:
    """Every mention's context votes for its entity's type (entity_types.CONTEXT_RULES)."""
    science = scientific(text)
    for (start, end), found in zip(spans, mentions, strict=True):
        sentence = text[start:end]
        for mention in found:
            name = sentence[mention.start : mention.end]
            after = sentence[mention.end :]
            possessive = _POSSESSIVE.search(name)
            if possessive:  # "Kipling's wife": the possessive belongs to what follows
                name, after = name[: possessive.start()], name[possessive.start() :] + after
            entity = registry.entities[mention.key]
            entity.around |= type_model.around(sentence[: mention.start], after)
            entity.mentions += 1
            for rule, type_, weight in context_votes(sentence[: mention.start], name, after):
                if rule in GENERAL_PROSE_RULES and science:
                    continue  # "Aire", "Golgi" in an abstract: a gene's, an organelle's
                if rule in ONCE_PER_NAME:
                    entity.vote_once(name, rule, type_, weight)
                else:
                    entity.vote(type_, weight, rule)
    # Names listed together are of a kind ("Nokia, Intel and Taito"): the typed ones vote for the others.
    for (start, end), found in zip(spans, mentions, strict=True):
        sentence = text[start:end]
        for run in listed_together(sentence, [(m.start, m.end) for m in found]):
            members = [registry.entities[found[i].key] for i in run]
            said = list_kind(sentence[: found[run[0]].start], sentence[found[run[-1]].end :])
            if said:  # "bands such as A, B and C", "the Oder and Olza rivers": what they all are
                for member in members:
                    member.vote(said, LIST_KIND_WEIGHT, "list_kind")
                continue
            with_acronyms = not all(listable_name(m.name) for m in members)
            if with_acronyms and (science or not all(listable_name(m.name, acronyms=True) for m in members)):
                continue  # symbols and codes ("VCAM-1", "Cdks") carry no kind for their neighbours
            # with acronyms, only names in words say the kind ("ATP and ADP": "the ATP" is no body's)
            kinds = Counter(m.type for m in members if typed(m.type) and not (with_acronyms and not listable_name(m.name)))
            if not kinds:
                continue
            (kind, count), *others = kinds.most_common()
            if others and (count < 2 or count < LIST_MAJORITY * sum(n for _, n in others)):
                continue  # the typed ones disagree, and no kind holds most of the list
            if with_acronyms and kind != "organization":
                continue  # "BMI and ASCAP" are bodies; "CA, CT and PA", "BBC One and BBC Two" no places
            alike = kind in LISTED_KINDS or count >= 2
            for i, member in zip(run, members, strict=True):
                if abbreviated(text, start + found[i].start, start + found[i].end):
                    continue  # "R.P. Hausinger, Proc. Natl. Acad. Sci.": a journal's abbreviation ends the list
                if not typed(member.type) and (alike or (kind == "person" and person_shaped(member.name))):
                    member.vote(kind, LIST_WEIGHT * count, "listed_with")  # one person: only to names that read as people's
    vote_by_name_parts(registry.entities.values(), general_prose=not science)


# Names the text marks up, in the order they are read: links, bold, acronym definitions, CJK and
# quoted titles (a phase of its own, as name_rules' are: benchmarks/rule_ablation.py switches each off).
MARKED_RULES: list[tuple[str, Callable[[PlainText, Registry, _CodeSpans], None]]] = []
marked_rule = phase(MARKED_RULES)


@marked_rule
def link(plain: PlainText, registry: Registry, in_code: _CodeSpans) -> None:
    """[[ENIAC]], [the machine](ENIAC.md): the target is a name, the text shown an alias."""
    text = plain.text
    for start, end, target in plain.links:
        shown = text[start:end]
        key = _add_term(target, registry, text[max(0, start - 20) : start])
        if key and name_key(shown) != key:
            registry.add(registry.entities[key].name, registry.entities[key].type, alias=shown)


@marked_rule
def bold(plain: PlainText, registry: Registry, in_code: _CodeSpans) -> None:
    """**Program counter**: a bold term of one to eight words; a possessive's ending is no part of the
    name, nor an account's "@" ("**@ggerganov's** library": ggerganov)."""
    text = plain.text
    for start, end in plain.strong:
        term = re.sub(r"(?<=\w)['’]s$", "", text[start:end].strip())
        term = re.sub(r"^@(?=[A-Za-z0-9][\w-]*$)", "", term)
        if 1 <= len(term.split()) <= 8 and not in_code(start, end) and (re.search(r"[A-Za-z]", term) or _cjk_title(term)):
            _add_term(term, registry, text[max(0, start - 20) : start])


@marked_rule
def acronym_definition(plain: PlainText, registry: Registry, in_code: _CodeSpans) -> None:
    """"Electronic Numerical Integrator and Computer (ENIAC)": the long form, the acronym its alias."""
    text = plain.text
    for match in _ACRONYM.finditer(text):
        acronym = match.group(1)
        if sum(c.isupper() for c in acronym) < 2:
            continue
        words = _WORD.findall(text[max(0, match.start() - 120) : match.start()])
        used = _acronym_matches(words[-(len(acronym) + 3) :], acronym)
        if used:
            registry.add(" ".join(words[-used:]), "", alias=acronym)


@marked_rule
def cjk_quoted(plain: PlainText, registry: Registry, in_code: _CodeSpans) -> None:
    """《三体》, 「東京タワー」, 『源氏物語』: a CJK title (in 《》 a work's)."""
    for match in _CJK_QUOTED.finditer(plain.text):
        if match.group(1) == "「" and cjk_names.is_clause(match.group(2)):
            continue  # 「...ことはない」: a saying, not a title (『』 and 《》 titles may hold a verb: 『吾輩は猫である』)
        if (title := _cjk_title(match.group(2))) and not in_code(match.start(), match.end()):
            registry.add(title, "work" if match.group(1) == "《" else "")


@marked_rule
def dictionary_names(plain: PlainText, registry: Registry, in_code: _CodeSpans) -> None:
    """田中さん, 東京, トヨタ; 中国, 台北: names the dictionaries know in CJK text (kg/extract/cjk_names.py:
    janome's proper nouns in Japanese, a text with kana; a gazetteer's places in Chinese), typed as
    they say (their evidence `cjk_names.DICTIONARY`: `final_type` keeps it)."""
    if not has_cjk(plain.text):
        return
    japanese = cjk_names.has_kana(plain.text)
    for line in re.finditer(r"[^\n]+", plain.text):
        for name, type_ in _outside_code(line, cjk_names.names(line.group(), japanese), in_code):
            key = registry.add(name, "")
            if key:
                registry.entities[key].vote_once(name, cjk_names.DICTIONARY, type_, GIVEN_WEIGHT)


def _outside_code(line: re.Match[str], found: list[tuple[str, str]], in_code: _CodeSpans) -> list[tuple[str, str]]:
    """Those of a line's names, found in order, that no code span holds (``我住在`北京`的时候``)."""
    kept, at = [], 0
    for name, type_ in found:
        start = line.group().find(name, at)
        if start < 0:
            continue
        at = start + len(name)
        if not in_code(line.start() + start, line.start() + at):
            kept.append((name, type_))
    return kept


@marked_rule
def quoted_title(plain: PlainText, registry: Registry, in_code: _CodeSpans) -> None:
    """"I Understand", "Aprite le finestre": a quoted title (of several words, a work's); not
    'Jon "Bowzer" Bauman', a nickname, part of the name around it."""
    text = plain.text
    for match in _QUOTED.finditer(text):
        title = _quoted_title(match.group(1) or match.group(2) or "")
        if not title or in_code(match.start(), match.end()):
            continue
        nickname = " " not in title and bool(
            _BEFORE_NICKNAME.search(text[max(0, match.start() - 40) : match.start()])
            and _AFTER_NICKNAME.match(text[match.end() : match.end() + 2]))
        if not nickname:
            registry.add(title, "work" if " " in title else "")  # one quoted word is as often a term: "NETosis"


PRONOUN_WEIGHT = 2.0
_HE = Reference("pronoun", 1, "person")
LIST_WEIGHT = 1.0
# A list whose typed names disagree passes on the kind of two or more of them that outnumber the rest
# two to one ("It stars Jane Fonda, Susannah York, Red Buttons, Bruce Dern": "York" a place).
LIST_MAJORITY = 2.0
LIST_KIND_WEIGHT = 2.5  # a kind the sentence names for the whole list, as such_as does for one name
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

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        names = sorted(
            {n for e in registry.entities.values() for n in (e.name, *e.aliases, *e.surfaces)}, key=lambda n: (-len(n), n)
        )
        # Acronyms and one-word names match exactly; "Program counter" also matches "program counter".
        # One alternation, longest name first, so "Intel 4004" wins over "Intel".
        parts, cjk_parts = [], []
        for n in names:
            if has_cjk(n):  # no word boundaries in CJK text: "ENIAC是" and "计算机的" name them
                cjk_parts.append(re.escape(n))
            elif not any(c.isupper() for c in n[1:]) and (" " in n or not n[0].isupper()):
                if len(n) >= 3:
                    parts.append(f"(?i:{re.escape(n)}(?:e?s)?)")
            else:
                parts.append(f"{re.escape(n)}(?:['’]s?)?")
        self.latin = re.compile(rf"(?<![\w-])(?:{'|'.join(parts)})(?![\w-])") if parts else None
        heads = "|".join(map(re.escape, sorted(V.CHINESE_BODY_HEADS)))  # not "北京" of "北京大学"
        self.cjk = re.compile(f"(?:{'|'.join(cjk_parts)})(?!{heads})") if cjk_parts else None

    def find(self, sentence: str) -> list[_Mention]:
        """The names in `sentence`, in order. Latin names are looked for with CJK letters read as line ends,
        as no word of their script ("用Python写", "GitHubに"; not "New东York"); CJK names anywhere."""
        matches: list[re.Match[str]] = []
        if self.cjk is not None:
            matches += self.cjk.finditer(sentence)
        if self.latin is not None:
            spaced = CJK_RUN.sub(lambda run: "\n" * len(run.group()), sentence) if has_cjk(sentence) else sentence
            taken = [(m.start(), m.end()) for m in matches]
            matches += [m for m in self.latin.finditer(spaced) if not any(a < m.end() and m.start() < b for a, b in taken)]
        found = []
        for match in sorted(matches, key=lambda m: m.start()):
            text = _POSSESSIVE.sub("", match.group(0))
            key = self.registry.key_of(text) or self.registry.key_of(re.sub(r"e?s$", "", text))
            if key:
                found.append(_Mention(match.start(), match.end(), key))
        return found


class _TopicTracker:
    """Which entity a sentence is about when it does not name one: the nearest heading's."""

    def __init__(self, headings: list[tuple[int, int, str | None]]) -> None:
        self.headings = headings

    def __call__(self, md_offset: int, registry: Registry) -> str | None:
        topic = None
        for start, _, key in self.headings:
            if start <= md_offset and key:
                topic = key
        # A heading entity may have been folded into another one since: follow its name.
        return registry.alias_to_key.get(topic) if topic else None

    def is_heading(self, md_start: int, md_end: int) -> bool:
        return any(start <= md_start < end for start, end, _ in self.headings if start >= 0)


def _leading_noun_phrase(words: list[str]) -> str | None:
    """"Human embryonic stem cells give rise to ..." -> "Human embryonic stem cells"."""
    phrase: list[str] = []
    if labels := _SECTION_LABELS.find(words):  # "RESULTS The ..."
        words = words[labels[1] :]
    # The window is the phrase's own first six words and a seventh for its verb: its determiners
    # ("The", "A", "These") are dropped below and take no place in it. Where a longer subject ends
    # is looked for further on, so that its head can be told ("Students who ... | are").
    lead = next((i for i, word in enumerate(words) if word.lower() not in V.DETERMINERS), len(words))
    if lead < len(words) and words[lead].lower() in V.SUBORDINATORS:
        return None  # "Whether the plan works is unclear": a clause, not a noun phrase, comes first
    modifier = _OPENING_MODIFIER(words[lead : lead + 2])
    ended = False  # at a verb or a clause's end
    in_clause = False  # right after "who", "which", "that", or in the verb that follows it
    if lead < len(words) and words[lead].lower() in V.SUBJECT_PRONOUNS:
        return None  # "I wrap calls with ...": the writer, no noun phrase
    for i, word in enumerate(words[: lead + 12]):
        if i > lead and word.lower() in V.SUBJECT_PRONOUNS and i + 1 < len(words) and _verb_form(words[i + 1]):
            # "The tool I keep using | works well": a clause on its head, then the sentence's verb;
            # without one ("A small pattern I keep copying"), the phrase is no subject
            main = next((j for j in range(i + 2, min(len(words), lead + 8)) if _finite_verb(words[j])), None)
            head = words[i - 1].lower()
            if main is None or len(words[lead:main]) > 6 or head.endswith("ly") or words[i + 1].lower() in V.AUXILIARIES:
                return None  # nor "Optionally you may install ...": an adverb, a modal, no head and its clause
            return " ".join(words[lead:main])
        # a verb only a verb, or a past tense after a plural, ends a phrase of nouns and modifiers
        # ("Fixed costs | dominate", "Stripe webhooks | failed"); after a preposition the phrase is
        # read to its head as before ("Bistability in developmental pathways refers ...")
        plain_phrase = not any(w.lower() in V.CUT_WORDS for w in words[lead:i])
        verb = (is_verb(word) or (i > lead and plain_phrase and (_finite_verb(word) or _past_after_plural(words, i)))) \
            and not (i == lead and modifier) and not word.endswith((",", ";", ":"))
        if verb and in_clause:
            phrase.append(word)  # "Cells that express CD4 | are ...": the relative clause's verb
            continue
        in_clause = i > lead and word.lower() in V.RELATIVE_WORDS
        if verb or not re.search(r"[A-Za-z]", word) or word.endswith((",", ";", ":")) or (i > lead and _aside(words[i:])):
            if word.endswith(":") and i <= lead + 1 and all(gazetteer.english_word(w.strip(":")) for w in words[lead : i + 1]):
                # a label before its text ("New: dark mode", "Source: clipped from ..."), no subject; a
                # term before its gloss is one ("bfloat16: an alternative to float16")
                return None
            if word.endswith((",", ";", ":")) and not is_verb(word) and not _aside(words[i:]):
                if modifier:
                    return None  # "Located near the river, the town ...": a participle's clause
                if i == lead and gazetteer.english_word(word.rstrip(",;:")):
                    return None  # "Okay, good morning", "However, ...": a word before the sentence, no subject
                phrase.append(word.rstrip(",;:"))
            ended = True
            break
        phrase.append(word)
    while phrase and phrase[0].lower() in V.STOP_CAPS:
        phrase.pop(0)
    if not ended or len(phrase) > 6 or (phrase and phrase[-1].lower() in V.LOOSE_ENDS) or \
            any(w.lower() in V.CUT_WORDS and w[:1].isupper() for w in phrase[1:]):  # "strong_em_symbol | In markdown,"
        # a group ("Students who ...") only where the subject is seen to end, and not after a
        # fronted phrase ("In order to ...")
        phrase = _head(phrase, ended and not (lead < len(words) and words[lead].lower() in V.STOP_CAPS))
    if not phrase or len(phrase) > 6 or phrase[-1].lower() in V.NAME_PARTICLES:
        return None
    if all(w.lower().strip(",.") in V.WEEKDAYS or w.lower().strip(",.") in V.MONTHS or w.isdigit() for w in phrase):
        return None  # "Sunday was Sintra": a date is when, not what the sentence is about
    return " ".join(phrase).strip("\"'()[]")


def _subject_names(sentence: str, words: list[str], outside: list[_Mention], has_topic: bool
                   ) -> tuple[list[_Mention], _Mention | None]:
    """The names outside brackets that may be a sentence's subject, in the order they are tried, and
    the name read as the object of a verb before it instead, if any (for a sentence with no pronoun
    or description to resolve)."""
    first_word = words[0].lower().strip(",")
    if len(outside) > 1 and first_word in _FRONTING_WORDS and "," in sentence:
        # "Unlike PostgreSQL or MySQL, SQLite does not ...": the fronted comparison names other
        # things; the name right after its comma, before a verb, is the subject
        comma = sentence.index(",")
        after = [m for m in outside if m.start > comma]
        then = sentence[after[0].end :].split()[:1] if after else []
        if after and outside[0].start > 0 and sentence[comma + 1 : after[0].start].strip().lower() in ("", "the") \
                and then and (is_verb(then[0]) or _said(then[0]) or _finite_verb(then[0])):
            outside = after + [m for m in outside if m.start < comma]
    if outside and _verb_before(sentence[: outside[0].start]) and \
            (has_topic or ((first_word in _ARTICLES or gazetteer.past_tense(first_word)) and not _subjectless(words))) \
            and not _by_the_writer(words):
        # "The big model reaches 28.4 BLEU", "The source code is hosted on GitHub": the sentence's
        # subject is no name it has (the topic's, or its own noun phrase's, if it has one)
        return [], outside[0]
    return outside, None


def _phrase_subject(words: list[str], object_name: _Mention | None, registry: Registry) -> str | None:
    """The key of a sentence's own leading noun phrase as its subject (a concept), or of the name
    read as its object when that phrase is none or too generic to name ("The following list is ...",
    "An example of X is ..."); None when there is neither."""
    phrase = None if _subjectless(words) else _leading_noun_phrase(words)
    generic = phrase is None or (" " not in phrase and phrase.islower()) or \
        any(w.lower() in V.CUT_WORDS for w in phrase.split())
    key = registry.add(phrase, "concept") if phrase and not (generic and object_name) else None
    if key is None and object_name is not None:
        return object_name.key  # no phrase to read, or one generic word: the name is all there is
    return key


def _confidence(sentence: str, claim_type: ClaimType, resolved: bool) -> float:
    """A claim's confidence before clamping: its type's, capped by a strong hedge ("arguably"),
    lowered by a soft one ("about") and where the subject was resolved rather than read."""
    confidence = _BASE_CONFIDENCE[claim_type]
    if _STRONG_HEDGE.search(sentence.lower()):
        confidence = min(confidence, 0.45)
    elif _SOFT_HEDGE.search(sentence.lower()):
        confidence -= 0.1
    return confidence - 0.1 if resolved else confidence


def _cjk_subject(sentence: str, start: int, end: int) -> bool:
    """Whether a name reads as a CJK sentence's subject: it opens the sentence, or a topic or subject
    particle follows it ("清水寺は", "田中さんが", "ENIAC是")."""
    after = sentence[end:].lstrip()
    return not sentence[:start].strip(" \t\"'“”「『《(（*-•") or after.startswith(tuple(V.CJK_SUBJECT_MARKERS))


def _verb_before(opening: str) -> bool:
    """Whether the words before a sentence's first name, after a fronted phrase's comma, hold a verb
    (its first word aside: "Born in ..."): then that name is the verb's object, not the subject ("The
    big model reaches | 28.4 BLEU"). Re-DocRED, claim subject and mention pairs that are gold
    relations: 2,258 -> 2,302."""
    words = opening.rsplit(",", 1)[-1].split()
    # a participle after a determiner modifies the name ("The improved Mark 2 had ..."): no verb
    return any(is_verb(word) and words[i].lower() not in V.DETERMINERS for i, word in enumerate(words[1:]))


def _verb_form(word: str) -> bool:
    """A verb as written after its subject: "keep", "collected", "have" (not "(NADH:" after "complex I")."""
    lowered = word.lower()
    return is_verb(word) or gazetteer.verb(lowered) or gazetteer.past_tense(lowered)


def _said(word: str) -> bool:
    """A verb's past tense or third person after a subject ("said", "says", "thinks", "went")."""
    lowered = word.lower().strip(".,;:")
    return lowered not in V.ENDS_A_PHRASE and (gazetteer.past_tense(lowered) or gazetteer.third_person(lowered) or (
        is_verb(lowered) and lowered.endswith(("s", "ed"))) or lowered in V.IRREGULAR_PAST)




def _finite_verb(word: str) -> bool:
    """A verb as a sentence's own: a common verb's form or a word only a verb ("dominate",
    "dominates"), not a gerund ("using") nor a noun that may be a verb ("option", "bug")."""
    lowered = word.lower().strip(".,;:")
    if lowered.endswith("ing"):
        return False
    if is_verb(lowered):
        return True
    if lowered in V.IRREGULAR_PAST:
        return not gazetteer.noun_files(lowered)  # "broke", "went"; not "saw", "left"
    base = lowered if gazetteer.verb(lowered) else next(
        (lowered[: -len(s)] for s in ("es", "s") if lowered.endswith(s) and gazetteer.verb(lowered[: -len(s)])), None)
    return base is not None and not gazetteer.noun_files(lowered) and not gazetteer.noun_files(base)


def _past_after_plural(words: list[str], i: int) -> bool:
    """Whether words[i] is a past tense after a plural noun, with no verb after it in its clause: the
    sentence's verb ("Stripe webhooks | failed for 40 minutes because ..."), not a participle before
    the verb ("Students enrolled in the trial | showed ...")."""
    before = words[i - 1].lower()
    if not gazetteer.past_tense(words[i].lower().strip(".,;:")) or not before.endswith("s") or before.endswith("ss"):
        return False
    for word in words[i + 1 :]:
        if word.lower() in _CLAUSE_OPENERS or word.endswith((",", ";", ":")):
            break
        if word.lower() not in V.ENDS_A_PHRASE and _finite_verb(word):  # "about" ends a phrase, as a verb does
            return False
    return True


# What opens a subject of the sentence's own ("The source code is hosted on GitHub"; a participle too:
# "Fixed schemas are not required ... STRICT"), not an adverb or a gerund ("Alternatively, ...",
# "Representing words ... has become"): where a note has no topic, only such a subject displaces a
# name after the verb.
_ARTICLES = frozenset({"the", "a", "an", "our", "my", "your"})


def _by_the_writer(words: list[str]) -> bool:
    """Whether the writer is the sentence's subject, perhaps after a fronted phrase ("Next month we read
    X", "On Saturday we took ..."): what it names after the verb is what the note says it is about."""
    return any(word.lower() in ("i", "we") and i + 1 < len(words) and _verb_form(words[i + 1].strip(",;:."))
               for i, word in enumerate(words[:4]))


def _fronted_phrase(words: list[str]) -> bool:
    """Whether a phrase a comma ends opens the sentence and a subject follows it ("Founded in 1754, it
    is ...", "Like other marsupials ..., the quokka is ...")."""
    comma = next((i for i, word in enumerate(words) if word.endswith(",")), None)
    if comma is None or comma + 1 >= len(words):
        return False
    after = words[comma + 1]
    return after[:1].isupper() or after.lower() in V.SUBJECT_PRONOUNS | V.DETERMINERS | V.PRONOUN_STARTS


def _subjectless(words: list[str]) -> bool:
    """A sentence with no subject to read: an instruction, a bare verb before its object's determiner
    ("Download a single file", "Compile the bundled notes"), or a note's or changelog's past tense
    ("Fixed the build", "Added timeline option", "Finished reading X"): before a determiner, or with no
    verb after it in its clause (which "Diminished ovarian reserve is ..." has: a participle in its
    subject)."""
    first = words[0].lower().strip(",;:")
    past = bool(gazetteer.past_tense(first)) or first in V.IRREGULAR_PAST  # "Fixed ...", "Bought ..."
    if first == "please":
        return True  # "Please add the tag to your question"
    if _NEGATIVE_INSTRUCTION.match(" ".join(words[:2])):
        return True  # "Don't retry on 4xx errors", "Never commit secrets"
    if len(words) > 1 and words[1].lower() in V.DETERMINERS and (past or gazetteer.verb(first)):
        return True
    clause = []  # the words up to the first clause's end: "Fixed bug in X where file would not be written"
    for word in words[1:]:
        if word.lower() in _CLAUSE_OPENERS or word.endswith((",", ";", ":")):
            break
        clause.append(word)
    # "Fixed costs dominate the budget": a verb after the participle's noun, before any preposition,
    # is the sentence's own (not "Detailed info on failing assert statements")
    nouns = next((clause[1:i] for i, word in enumerate(clause) if word.lower() in V.CUT_WORDS), clause[1:])
    return past and not any(is_verb(word) and not word.lower().endswith("ing") for word in clause) and \
        not any(_finite_verb(word) for word in nouns)


# What follows an opening verb's object ("Called Mum | in the afternoon", "Keep Redis | out of ..."):
# a preposition, an adverb's particle or a determiner, not a verb or a comma ("The Castle of Crupet, a ...").
_AFTER_AN_OBJECT = V.CUT_WORDS | V.DETERMINERS | frozenset({"about", "out", "up", "off", "back", "down", "again", "along",
                                                            "across", "around", "near", "past", "towards", "toward",
                                                            "today", "tomorrow", "yesterday", "soon", "later"})
_CLAUSE_OPENERS = frozenset({"where", "when", "which", "that", "who", "because", "so", "to", "if", "while", "and",
                             "but", "or", "as", "since", "until", "unless", "after", "before"})


def _aside(words: list[str]) -> bool:
    """Whether `words` open a bracketed aside that ends a noun phrase: "Induced pluripotent stem
    cells | (iPSCs) can ...", not "(ER)-positive" nor "(SSBs) and body weight"."""
    if not words or words[0][:1] not in "([":
        return False
    depth = 0
    for i, word in enumerate(words[:12]):
        depth += word.count("(") + word.count("[") - word.count(")") - word.count("]")
        if depth <= 0:
            if not re.fullmatch(r".*[)\]][,;:.]?", word):
                return False  # "(ER)-positive": part of a word
            after = words[i + 1].lower() if i + 1 < len(words) else ""
            return after not in V.CUT_WORDS and after not in V.CONJUNCTIONS
    return False


def _head(phrase: list[str], group: bool = False) -> list[str]:
    """The head of a subject too long to be a name: "Differentiation of progenitor cells | to myeloid
    cells". Cut before the first preposition, relative word or bracket (a first "of" stays when
    what it leaves is short)."""
    cuts = [i for i, word in enumerate(phrase) if i and (word.lower() in V.CUT_WORDS or word[:1] in ("(", "["))]
    later = [i for i in cuts if phrase[i].lower() != "of" or i > 4]
    cut = later[0] if later and later[0] <= 6 else (cuts[0] if cuts else len(phrase))
    if cut >= 2:
        return phrase[:cut]
    # One word ("Students", "Patients") is too generic a subject: claims of unrelated texts would
    # meet on it. With its first modifier, up to the next preposition or relative word, it names
    # a group: "Students who perform poorly | in ...", "Patients with diabetes | in ...".
    end = next((i for i in cuts if i > cut + 1), 0)
    return phrase[:end] if group and cut == 1 and end <= 6 and len(phrase) > 1 and phrase[1].lower() != "to" else []


def _predicate(words: list[str]) -> str:
    kept = [w.lower().strip(".,;:'’\"()") for w in words]
    # a CJK word is no English verb: "OpenAI 和 Anthropic ..." had the predicate 和 ("and")
    kept = [w for w in kept if w and w.isalpha() and not has_cjk(w) and w not in V.NOT_CONTENT and w not in V.PRONOUN_STARTS and w not in V.CONJUNCTIONS][:3]
    return "_".join(kept)


def _add_term(term: str, registry: Registry, before: str = "") -> str | None:
    """Add a linked or bold term; "Name (ACR)" and "Name (qualifier)" keep the part in brackets as an alias."""
    text = " ".join(term.split())
    qualified = _QUALIFIER.match(text)
    if qualified and qualified.group(1):
        inner = qualified.group(2).strip()
        if _BRACKETED_ACRONYM.fullmatch(inner) and sum(c.isupper() for c in inner) >= 2:
            return registry.add(qualified.group(1), "", alias=inner)
        type_ = "work" if inner.lower() in V.WORK_QUALIFIERS else ""
        return registry.add(qualified.group(1), type_, alias=text)
    return registry.add(text, "")


_FRONTED = P.pattern("fronted_pronoun")
_FRONTED_ADVERBIAL = P.pattern("fronted_adverbial")
# The first words of a fronted adverbial: a preposition or an adverb of time or place.
_ADVERBIAL_OPENERS = frozenset({"at", "in", "on", "during", "by", "from", "within", "under", "later", "then", "soon",
                                "afterwards", "eventually", "meanwhile", "there", "here", "today", "now", "once"})


# The first words of a fronted comparison a comma ends, before the sentence's subject. (Other fronted
# phrases, "After leaving WWE, DeMott ...", name the subject there too, but moving it cost Re-DocRED's
# claim subject and mention pairs that are gold relations: 2,328 -> 2,324.)
_FRONTING_WORDS = frozenset({"unlike", "like", "compared", "besides", "apart"})


def _fronted_pronoun(sentence: str) -> Reference | None:
    """"Unlike ENIAC, it was ...", "Later, at Eckert and Mauchly's company, she wrote ...": a fronted
    phrase names something else, the pronoun is the subject."""
    found = _FRONTED.match(sentence)
    if found:
        pronoun = found.group(1)
    else:  # "Later, at Eckert and Mauchly's company, she wrote ...": an adverbial, with no verb of its own
        found = _FRONTED_ADVERBIAL.match(sentence)
        if not found:
            return None
        front = found.group(1).split()
        if front[0].lower().strip(",") not in _ADVERBIAL_OPENERS or any(is_verb(w) for w in front):
            return None
        pronoun = found.group(2)
    wants = "person" if pronoun in ("he", "she", "his", "her") else "thing" if pronoun in ("it", "its") else ""
    return Reference("pronoun", 1, wants)


def _cjk_title(inner: str) -> str | None:
    """A CJK name marked up (in 「」『』《》 or bold): CJK, at most 30 characters, no clause in it (no
    sentence or clause punctuation: 「我们走吧，好吗」 is speech)."""
    inner = inner.strip()
    if not has_cjk(inner) or len(inner) > 30 or _CLAUSE_MARK.search(inner):
        return None
    return inner


def _quoted_title(inner: str) -> str | None:
    """A quoted span that reads as a title: 1-8 words, capitalised, not a quoted sentence
    (data/token_rules.toml: not_a_quoted_title, long_quote)."""
    inner = inner.strip(" ,.;:")
    words = inner.split()
    return inner if 1 <= len(words) <= 8 and not _NOT_A_QUOTED_TITLE(words) and not _LONG_QUOTE(words) else None


def _classify(sentence: str, rest: str, mentions: list[_Mention], subject_key: str, registry: Registry) -> dict:
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
    definition = _DEFINITION.match(rest) or _DEFINITION_PHRASE.match(rest)
    number = next((m for m in NUMBER.finditer(rest) if not inside_year(m) and unit_of(m)[0]), None)
    date = first_date(rest)
    if _OPINION.search(lowered):
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
    elif marker := _CAUSAL.search(lowered):
        fields.update(claim_type=ClaimType.causal, predicate=marker.group(0).replace(" ", "_"))
    elif (comparative := _COMPARATIVE.search(sentence)) or _COMPARISON.search(lowered):
        predicate = (comparative.group(1).lower().replace(" ", "_") + "_than") if comparative else "compared_with"
        fields.update(claim_type=ClaimType.comparison, predicate=predicate)
    elif later and (verb := _predicate(predicate_text[: later[0].start - rest_start].split())):
        fields.update(claim_type=ClaimType.relation, predicate=verb)
    else:
        fields.update(claim_type=ClaimType.fact, predicate=_predicate(rest_words[:3]))
    return fields


