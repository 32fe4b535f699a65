"""Entity resolution across sources, cheapest tier first:

1. exact normalised name or known alias (case, accents, possessives, articles, hyphens);
2. rules: plural/singular, titles ("Dr.", "Mr."), acronyms of a known multi-word name;
3. fuzzy string similarity for names long enough to judge, among names sharing a word;
4. embedding similarity, when an embedder is given;
5. an `EntityJudge` (the LLM, kg/llm/judges.py), when one is given, for the ambiguous cases only: a
   name close to a known one but below the fuzzy threshold (`ambiguous_floor` <= score <
   `fuzzy_threshold`), or the same name with a different specific type. "same" merges (method
   "llm", score = the judge's confidence); "different" and "unsure" keep the entities apart.

Tier 1 reuses the entity. Tiers 2-4 create the new entity and record an ALIAS_OF edge to the
match (method and score), so the merge shows in the wiki and can be audited and undone with
`kg entity unmerge`. A name whose specific type differs (a "Mercury" planet and a "Mercury"
element) stays a separate entity. The index lives in memory for one compile, loaded once.
"""

from __future__ import annotations

import difflib
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from kg.compile.bulk import gc_paused
from kg.embed import Embedder
from kg.models import ExtractedEntity
from kg.names import name_key, name_variants, unique_slug

GENERIC_TYPES = {"named", "concept", "thing", "other", ""}
# Keys of the graph's EntityKey rows (kg/compile/entity_keys.py): a name or alias key, or an acronym.
NAME_KEY, ACRONYM_KEY = "name:", "acronym:"
_TITLES = re.compile(r"^(mr|mrs|ms|dr|prof|professor|sir|dame|lord|lady|st|saint|president|general|captain)\.?\s+")


@dataclass
class EntityRecord:
    id: str
    name: str
    type: str
    aliases: list[str] = field(default_factory=list)
    summary: str = ""
    status: str = "live"


@dataclass(frozen=True)
class AliasLink:
    """A merge decided by a tier above exact matching: `alias` ALIAS_OF `canonical`."""

    alias: str
    canonical: str
    method: str
    score: float


@dataclass(frozen=True)
class Judgement:
    verdict: str  # "same" | "different" | "unsure"
    confidence: float
    reason: str = ""


class EntityJudge(ABC):
    @abstractmethod
    def judge(self, pairs: Sequence[tuple[ExtractedEntity, EntityRecord]]) -> list[Judgement | None]:
        """For each (new name, known entity) pair: are they the same thing? None means unsure."""


# fast_name_key: ASCII letters and digits and "&+#" stay, "-", "_" and whitespace become spaces,
# all other ASCII is dropped (what name_key does to an ASCII name without an apostrophe).
_ASCII_KEY = {
    c: (chr(c).lower() if chr(c).isalnum() or chr(c) in "&+#" else " " if chr(c) in "-_" or chr(c).isspace() else None)
    for c in range(128)
}
_ARTICLES = ("the ", "a ", "an ")


def fast_name_key(name: str) -> str:
    """`name_key(name)`, several times faster for the common ASCII name. Loading the index keys
    every name and alias of every entity, so this was most of the cost of loading it. The
    result is always name_key's (tests/test_resolve_index.py): keep the two in step."""
    if not name.isascii() or "'" in name:
        return name_key(name)
    key = " ".join(name.translate(_ASCII_KEY).split())
    return key.split(" ", 1)[1] if key.startswith(_ARTICLES) else key


_BULK_KEY = {**_ASCII_KEY, ord("\n"): "\n"}
_BULK_SPACES = re.compile(r"  +")
_BULK_ARTICLE = re.compile(r"^(?:the|a|an) ", re.MULTILINE)


def fast_name_keys(names: Sequence[str]) -> list[str]:
    """`[fast_name_key(n) for n in names]`, the simple names all at once: one line each in one
    string, so that translating, squeezing spaces and dropping articles run once, in C."""
    if not names:
        return []
    odd = [i for i, name in enumerate(names) if not name.isascii() or "'" in name or "\n" in name]
    simple = list(names)
    for i in odd:
        simple[i] = ""
    text = _BULK_SPACES.sub(" ", "\n".join(simple).translate(_BULK_KEY))
    keys = _BULK_ARTICLE.sub("", text.replace(" \n", "\n").replace("\n ", "\n").strip(" ")).split("\n")
    for i in odd:
        keys[i] = name_key(names[i])
    return keys


_NUMBERISH = re.compile(r"^(\d+\w*|[ivxlcdm]+)$")


def _differ_in_numbers(a: str, b: str) -> bool:
    """Whether two keys differ in a number or a roman numeral (edition, model, sequel)."""
    words_a, words_b = set(a.split()), set(b.split())
    return any(_NUMBERISH.match(w) for w in words_a ^ words_b)


def _words_of(keys: Iterable[str]) -> dict[str, set[str]]:
    """word -> the keys containing it."""
    words: dict[str, set[str]] = {}
    for key in keys:
        for word in set(key.split()):
            if word in words:
                words[word].add(key)
            else:
                words[word] = {key}
    return words


def acronym_of(key: str) -> str | None:
    """The initials a multi-word name key answers to as an acronym ("ENIAC" style), if any."""
    words = key.split()
    return "".join(w[0] for w in words if w not in ("of", "and", "the", "for")) if len(words) >= 2 else None


class LazyDict(dict[str, Any]):
    """A dict that asks `fetch` for a key it does not hold (None: there is none), once per key.
    `setdefault` keeps what `fetch` finds: the graph's value wins over a new one."""

    def __init__(self, fetch: Callable[[str], Any]) -> None:
        super().__init__()
        self._fetch = fetch
        self._absent: set[str] = set()

    def __missing__(self, key: str) -> Any:
        if key not in self._absent:
            value = self._fetch(key)
            if value is not None:
                self[key] = value
                return value
            self._absent.add(key)
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key, _NOTHING) is not _NOTHING

    def setdefault(self, key: str, default: Any = None) -> Any:
        value = self.get(key, _NOTHING)
        if value is _NOTHING:
            self[key] = value = default
        return value


class LazySet(set[str]):
    """A set that asks `exists` about an item it does not hold, once per item."""

    def __init__(self, exists: Callable[[str], bool]) -> None:
        super().__init__()
        self._exists = exists
        self._absent: set[str] = set()

    def __contains__(self, item: object) -> bool:
        if not isinstance(item, str) or set.__contains__(self, item):
            return set.__contains__(self, item)
        if item in self._absent:
            return False
        if self._exists(item):
            self.add(item)
            return True
        self._absent.add(item)
        return False


_NOTHING = object()


def _specific(type_: str) -> bool:
    return type_ not in GENERIC_TYPES


class EntityIndex:
    def __init__(self, embedder: Embedder | None = None, fuzzy_threshold: float = 0.92, embedding_threshold: float = 0.9,
                 judge: EntityJudge | None = None, ambiguous_floor: float = 0.8) -> None:
        self.records: dict[str, EntityRecord] = {}
        self.by_key: dict[str, str] = {}
        # Blocking for the fuzzy tier: word -> the name keys containing it (see by_word), kept in
        # two parts so that loading the graph's entities does not have to split every key:
        self._loaded_key_list: list[str] = []  # keys registered by from_columns, searched for words
        self._load_keys: Callable[[], list[str]] | None = None  # or, for a lazy index, how to get them
        self._loaded_text: str | None = None  # " key \n" per loaded key, made on the first search
        self._loaded_hits: dict[str, set[str] | None] = {}  # word -> loaded keys with it (None: too many)
        self._loaded_words: dict[str, set[str]] | None = None  # all of them, once searching is not worth it
        self._later_words: dict[str, set[str]] = {}  # word -> keys registered one by one since
        self._acronyms: dict[str, str] = {}  # see acronyms
        # (entity id, its name's key) registered but not yet in acronyms, built on first use
        self._unindexed: list[tuple[str, str]] = []
        self.canonical: dict[str, str] = {}  # merged entity -> the entity it is an alias of
        self.slugs: set[str] = set()
        self.links: list[AliasLink] = []  # merges made during this compile
        # EntityKey rows (kg/compile/entity_keys.py) this compile's new names, aliases and acronyms ask for:
        # key -> the smallest entity id claiming it; the compiler writes them with the entities.
        self.key_claims: dict[str, str] = {}
        self.embedder = embedder
        self.fuzzy_threshold = fuzzy_threshold
        self.embedding_threshold = embedding_threshold
        self.judge = judge
        self.ambiguous_floor = ambiguous_floor

    @classmethod
    def from_rows(cls, rows: list[dict[str, Any]], alias_edges: list[dict[str, Any]] | None = None,
                  embedder: Embedder | None = None, judge: EntityJudge | None = None) -> EntityIndex:
        return cls.from_columns(
            [r["id"] for r in rows], [r["name"] for r in rows], [r["type"] for r in rows],
            [list(r["aliases"] or []) for r in rows], [r["summary"] for r in rows], [r["status"] for r in rows],
            [(edge["src"], edge["dst"]) for edge in alias_edges or []], embedder=embedder, judge=judge,
        )

    @classmethod
    def from_columns(cls, ids: Sequence[str], names: Sequence[str], types: Sequence[str],
                     aliases: Sequence[list[str] | None], summaries: Sequence[str | None],
                     statuses: Sequence[str | None], alias_edges: Iterable[tuple[str, str]] = (),
                     embedder: Embedder | None = None, judge: EntityJudge | None = None) -> EntityIndex:
        """The index of the entities in the graph, one column per property (`aliases` lists are
        kept, not copied). The same index as registering them one by one in id order, built a
        column at a time. ALIAS_OF edges (src, dst): src merged into dst."""
        index = cls(embedder, judge=judge)
        for src, dst in alias_edges:
            index.canonical[src] = dst
        with gc_paused():
            if list(ids) != sorted(ids):
                order = sorted(range(len(ids)), key=ids.__getitem__)
                ids, names, types = [ids[i] for i in order], [names[i] for i in order], [types[i] for i in order]
                aliases, summaries = [aliases[i] for i in order], [summaries[i] for i in order]
                statuses = [statuses[i] for i in order]
            known = [a or [] for a in aliases]
            index.records = dict(zip(ids, map(EntityRecord, ids, names, types, known,
                                              [s or "" for s in summaries], [s or "live" for s in statuses]),
                                     strict=True))
            index.slugs.update(ids)
            name_keys = fast_name_keys(names)
            alias_keys = fast_name_keys(list(chain.from_iterable(known)))
            # by_key: each key to the first entity (in id order) with it as name or alias key
            count = len(ids)
            first = dict(zip(reversed(name_keys), range(count - 1, -1, -1), strict=True))  # last write wins
            owners = [at for at, names_of in enumerate(known) for _ in names_of]
            for key, at in zip(alias_keys, owners, strict=True):
                if at < first.get(key, count):
                    first[key] = at
            first.pop("", None)
            index.by_key = {key: ids[at] for key, at in first.items()}
            index._loaded_key_list = list(filter(None, chain(name_keys, alias_keys)))
            index._unindexed = list(zip(ids, name_keys, strict=True))
        return index

    @classmethod
    def lazy(cls, fetch_key: Callable[[str], str | None], fetch_record: Callable[[str], EntityRecord | None],
             load_keys: Callable[[], list[str]], alias_edges: Iterable[tuple[str, str]] = (),
             judge: EntityJudge | None = None) -> EntityIndex:
        """An index that reads the graph only for what it is asked: an EntityKey row per name
        key or acronym looked up (`fetch_key` of "name:<key>" / "acronym:<ABC>": the smallest
        entity id with it, what loading every entity gives), an entity's record when it is found
        (`fetch_record`), and every name key only if the fuzzy tier needs them (`load_keys`).
        It resolves as `from_columns` over every entity does (tests/test_entity_keys.py); for a
        compile of a few sources it costs milliseconds instead of reading every entity."""
        index = cls(judge=judge)
        index.canonical.update(alias_edges)
        index.by_key = LazyDict(lambda key: fetch_key(NAME_KEY + key))
        index.records = LazyDict(fetch_record)
        index.slugs = LazySet(lambda entity_id: fetch_record(entity_id) is not None)
        index._acronyms = LazyDict(lambda acronym: fetch_key(ACRONYM_KEY + acronym))
        index._load_keys = load_keys
        return index

    @property
    def _loaded_keys(self) -> list[str]:
        if self._load_keys is not None:
            self._loaded_key_list, self._load_keys = self._load_keys(), None
        return self._loaded_key_list

    def graph_keys(self) -> dict[str, str]:
        """The EntityKey rows of the entities loaded (`from_columns`; before any is registered)."""
        rows = {NAME_KEY + key: entity_id for key, entity_id in self.by_key.items()}
        rows.update((ACRONYM_KEY + acronym, entity_id) for acronym, entity_id in self.acronyms.items())
        return rows

    def _claim_key(self, key: str, entity_id: str) -> None:
        if (claimed := self.key_claims.get(key)) is None or entity_id < claimed:
            self.key_claims[key] = entity_id

    # Blocking: a word shared by more than this many known names narrows nothing down.
    BLOCK_LIMIT = 500
    # Words looked up by searching the loaded keys before indexing all their words instead (a
    # search costs a pass over the keys, ~1/50 of indexing their words; a one-source compile
    # asks for a handful of words, a bulk one for thousands).
    SEARCH_LIMIT = 32

    def _keys_with(self, word: str) -> set[str] | None:
        """by_word.get(word, set()), or None when that has more than BLOCK_LIMIT keys.

        Loaded keys are first found by searching one string of them all for " word " (memoised),
        which costs far less than splitting every key into a word dict when a compile loads
        the graph and then resolves the few names of one source."""
        if self._loaded_words is None and word not in self._loaded_hits and len(self._loaded_hits) >= self.SEARCH_LIMIT:
            self._loaded_words = _words_of(self._loaded_keys)
            self._loaded_hits.clear()
            self._loaded_text = None
        hits: set[str] | None
        if self._loaded_words is not None:
            hits = self._loaded_words.get(word, set())
            if len(hits) > self.BLOCK_LIMIT:
                hits = None
        elif word in self._loaded_hits:
            hits = self._loaded_hits[word]
        else:
            hits = self._loaded_hits[word] = self._search_loaded(word)
        later = self._later_words.get(word)
        if hits is None or not later:
            return hits
        union = hits | later
        return union if len(union) <= self.BLOCK_LIMIT else None

    def _search_loaded(self, word: str) -> set[str] | None:
        if self._loaded_text is None:
            self._loaded_text = " " + " \n ".join(self._loaded_keys) + " \n" if self._loaded_keys else ""
        text, needle, found = self._loaded_text, f" {word} ", set()
        at = text.find(needle)
        while at >= 0:  # keys have no newlines: each line is " key "
            start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
            found.add(text[start + 1 : end - 1])
            if len(found) > self.BLOCK_LIMIT:
                return None
            at = text.find(needle, end)
        return found

    @property
    def by_word(self) -> dict[str, set[str]]:
        """word -> the name keys (of names and aliases when registered) containing it. Built on
        each access: resolution itself uses `_keys_with`."""
        words = _words_of(self._loaded_keys)
        for word, keys in self._later_words.items():
            words.setdefault(word, set()).update(keys)
        return words

    @property
    def acronyms(self) -> dict[str, str]:
        """Initials of multi-word names -> entity id (the first registered wins)."""
        if self._unindexed:  # add the entities registered since the last use, in order
            for record_id, key in self._unindexed:
                if (acronym := acronym_of(key)) is not None:
                    self._acronyms.setdefault(acronym, record_id)
            self._unindexed.clear()
        return self._acronyms

    def resolve_id(self, entity_id: str) -> str:
        """Follow ALIAS_OF edges to the canonical entity (cycles cannot be created; guard anyway)."""
        seen = set()
        while entity_id in self.canonical and entity_id not in seen:
            seen.add(entity_id)
            entity_id = self.canonical[entity_id]
        return entity_id

    def _register(self, record: EntityRecord) -> None:
        self.records[record.id] = record
        self.slugs.add(record.id)
        keys = [fast_name_key(name) for name in (record.name, *record.aliases)]
        for key in keys:
            if key:
                self.by_key.setdefault(key, record.id)
                self._claim_key(NAME_KEY + key, record.id)
                for word in set(key.split()):
                    self._later_words.setdefault(word, set()).add(key)
        self._unindexed.append((record.id, keys[0]))
        if (acronym := acronym_of(keys[0])) is not None:
            self._claim_key(ACRONYM_KEY + acronym, record.id)

    def mentioned_in(self, text: str, limit: int = 100, max_words: int = 5) -> list[str]:
        """Canonical names of known entities that `text` mentions (word n-grams looked up by key)."""
        words = re.findall(r"[\w'’&+#-]+", text)
        found: dict[str, None] = {}
        for size in range(max_words, 0, -1):
            for i in range(len(words) - size + 1):
                entity_id = self.by_key.get(fast_name_key(" ".join(words[i : i + size])))
                if entity_id is not None:
                    found.setdefault(self.records[self.resolve_id(entity_id)].name, None)
                    if len(found) >= limit:
                        return list(found)
        return list(found)

    def lookup(self, name: str) -> str | None:
        """Tier 1: exact normalised name or alias, and plural/singular (no new merge needed)."""
        key = fast_name_key(name)
        if not key:
            return None
        for variant in name_variants(key):
            if variant in self.by_key:
                return self.resolve_id(self.by_key[variant])
        return None

    def _rules(self, name: str) -> tuple[str, float] | None:
        key = fast_name_key(name)
        untitled = _TITLES.sub("", key)
        if untitled != key and (found := self.lookup(untitled)):
            return found, 1.0
        compact = key.replace(" ", "")
        if name.isupper() and 2 <= len(compact) <= 6 and compact in self.acronyms:
            return self.resolve_id(self.acronyms[compact]), 0.9
        return None

    def _similar(self, name: str, floor: float) -> list[tuple[float, str]]:
        """Known name keys with a string similarity >= floor, best first."""
        key = fast_name_key(name)
        if len(key) < 8:
            return []
        candidates: set[str] = set()
        for word in set(key.split()):
            keys = self._keys_with(word)
            if keys is not None:  # a very common word blocks nothing useful
                candidates |= keys
        found = []
        for other in sorted(candidates):
            if abs(len(other) - len(key)) > 3 or other == key:
                continue
            matcher = difflib.SequenceMatcher(None, key, other)
            if matcher.quick_ratio() < floor:
                continue
            score = matcher.ratio()
            if score >= floor:
                found.append((score, other))
        return sorted(found, key=lambda t: (-t[0], t[1]))

    def _fuzzy(self, name: str) -> tuple[str, float] | None:
        key = fast_name_key(name)
        # "Harvard Mark I" / "Harvard Mark II", "Apollo 11" / "Apollo 13": numbers make different things.
        best = [(s, k) for s, k in self._similar(name, self.fuzzy_threshold) if not _differ_in_numbers(key, k)][:1]
        return (self.resolve_id(self.by_key[best[0][1]]), round(best[0][0], 3)) if best else None

    def _embedded(self, name: str) -> tuple[str, float] | None:
        if self.embedder is None or not self.records:
            return None
        ids = sorted(self.records)
        matrix = self.embedder.embed([self.records[i].name for i in ids])
        scores = matrix @ self.embedder.embed([name])[0]
        best = int(np.argmax(scores))
        if float(scores[best]) >= self.embedding_threshold:
            return self.resolve_id(ids[best]), round(float(scores[best]), 3)
        return None

    def _found(self, entity: ExtractedEntity) -> str | None:
        return self.lookup(entity.name) or next((self.lookup(a) for a in entity.aliases if self.lookup(a)), None)

    def _type_clash(self, entity: ExtractedEntity, found: str) -> bool:
        return _specific(entity.type) and _specific(self.records[found].type) and entity.type != self.records[found].type

    def _questions(self, entity: ExtractedEntity, found: str | None) -> list[str]:
        """Known entities the judge should compare `entity` with (ambiguous cases only)."""
        if self.judge is None:
            return []
        if found is not None:
            return [found] if self._type_clash(entity, found) and self.lookup(f"{entity.name} ({entity.type})") is None else []
        near: list[str] = []
        for score, key in self._similar(entity.name, self.ambiguous_floor):
            other = self.resolve_id(self.by_key[key])
            if score < self.fuzzy_threshold and other not in near:
                near.append(other)
        return near[:3]

    def prejudge(self, entities: Sequence[ExtractedEntity]) -> None:
        """Ask the judge about the ambiguous cases of many entities in one batch (it caches the
        verdicts, so `resolve` then asks nothing). Optional: `resolve` asks on its own."""
        if self.judge is None:
            return
        pairs: dict[tuple[str, str], tuple[ExtractedEntity, EntityRecord]] = {}
        for entity in entities:
            found = self._found(entity)
            if found is None and any(tier(entity.name) for tier in (self._rules, self._fuzzy, self._embedded)):
                continue
            for other in self._questions(entity, found):
                pairs.setdefault((fast_name_key(entity.name), other), (entity, self.records[other]))
        if pairs:
            self.judge.judge(list(pairs.values()))

    def _judged_same(self, entity: ExtractedEntity, candidates: list[str]) -> tuple[str, float] | None:
        if self.judge is None or not candidates:
            return None
        answers = self.judge.judge([(entity, self.records[c]) for c in candidates])
        same = [(a.confidence, c) for c, a in zip(candidates, answers, strict=True) if a is not None and a.verdict == "same"]
        if not same:
            return None
        confidence, chosen = max(same, key=lambda t: (t[0], t[1]))
        return chosen, round(confidence, 3)

    def _link(self, record_id: str, canonical: str, method: str, score: float) -> None:
        self.canonical[record_id] = canonical
        self.links.append(AliasLink(record_id, canonical, method, score))

    def resolve(self, entity: ExtractedEntity) -> tuple[str, str]:
        """(entity id, what happened: "new" | "updated" | "same")."""
        found = self._found(entity)
        if found is not None and self._type_clash(entity, found):
            typed = f"{entity.name} ({entity.type})"
            clash = found
            found = self.lookup(typed)  # a different thing with the same name: its own entity
            if found is None:
                same = self._judged_same(entity, self._questions(entity, clash))
                record_id = self._create(entity, name=entity.name, identity=fast_name_key(typed), alias=typed)
                if same is not None:
                    self._link(record_id, same[0], "llm", same[1])
                return record_id, "new"
        if found is None:
            for method, tier in (("rules", self._rules), ("fuzzy", self._fuzzy), ("embedding", self._embedded)):
                match = tier(entity.name)
                if match:
                    record_id = self._create(entity)
                    self._link(record_id, match[0], method, match[1])
                    return record_id, "new"
            same = self._judged_same(entity, self._questions(entity, None))
            record_id = self._create(entity)
            if same is not None:
                self._link(record_id, same[0], "llm", same[1])
            return record_id, "new"
        return found, self._update(self.records[found], entity)

    def _create(self, entity: ExtractedEntity, name: str | None = None, identity: str | None = None,
                alias: str | None = None) -> str:
        name = name or entity.name
        aliases = {a for a in entity.aliases if fast_name_key(a) != fast_name_key(name)}
        if alias:
            aliases.add(alias)
        record = EntityRecord(
            id=unique_slug(name, self.slugs, identity=identity or fast_name_key(name)),
            name=name, type=entity.type, aliases=sorted(aliases), summary=entity.description,
        )
        self._register(record)
        return record.id

    def _update(self, record: EntityRecord, entity: ExtractedEntity) -> str:
        changed = False
        known = {fast_name_key(n) for n in (record.name, *record.aliases)}
        for name in (entity.name, *entity.aliases):
            if fast_name_key(name) and fast_name_key(name) not in known:
                record.aliases.append(name)
                known.add(fast_name_key(name))
                self.by_key.setdefault(fast_name_key(name), record.id)
                self._claim_key(NAME_KEY + fast_name_key(name), record.id)
                changed = True
        if not record.summary and entity.description:
            record.summary = entity.description
            changed = True
        if record.type in GENERIC_TYPES and _specific(entity.type):
            record.type = entity.type
            changed = True
        if record.status != "live":
            record.status = "live"
            changed = True
        return "updated" if changed else "same"
