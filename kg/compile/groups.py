"""Which entities are one thing, recomputed for the names a compile touched (issue 15).

The groups are the connected components of symmetric rules over pairs of live entities (those
some live source mentions):

- alias: a source declares one name an alias of the other ("British Broadcasting Corporation
  (BBC)"); initials alone never join names, nor does an alias declared for different names
  ("ED": "erectile dysfunction", "emergency department");
- plain form: the same key without a title and in the singular ("Dr. Alan Turing", "EF3s");
- fuzzy: keys of 8+ characters with a string similarity >= 0.92 that differ in no number
  ("Harvard Mark I" / "Harvard Mark II" stay apart);
- llm: the entity judge (kg/llm/judges.py), when configured, says "same" for a pair whose
  similarity is ambiguous (0.8 <= s < 0.92);
- manual: `kg entity merge` (a Decision row); `kg entity unmerge` keeps an entity apart.

Each group's canonical entity has the most sources naming it, then the smallest id; every other
member gets one ALIAS_OF edge to it (the method and score of the rule that reached it first from
the canonical, in id order). Since each rule depends only on the pair (and the judge's cached
verdict), the groups are a function of the set of names: recomputing the groups of the touched
entities, with every entity a rule links them to and the groups of those, gives what computing
every group from scratch would.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kg.compile.resolve import (
    MIN_TYPE_MENTIONS,
    MIN_TYPE_SHARE,
    TITLE_WORDS,
    UNTYPED,
    EntityJudge,
    EntityRecord,
    Judgement,
    entity_id,
    plain_form,
    specific,
)
from kg.extract.gazetteer import demonym_country, is_demonym
from kg.graph.claims import uncheck_claims_about
from kg.graph.entities import (
    decision_rows,
    entity_mentions,
    group_edges_of,
    live_entity_keys,
    set_groups,
)
from kg.graph.pages import entity_rows
from kg.graph.store import Store, WriteBatch
from kg.models import ExtractedEntity
from kg.names import name_key

FUZZY_THRESHOLD = 0.92
AMBIGUOUS_FLOOR = 0.8
FUZZY_MIN_CHARS = 8
BLOCK_LIMIT = 500  # a word shared by more names than this narrows nothing down
_NUMBERISH = re.compile(r"^(\d+\w*|[ivxlcdm]+)$")
RULE_ORDER = {"manual": 0, "alias": 1, "plain": 2, "fuzzy": 3, "llm": 4}


def differ_in_numbers(a: str, b: str) -> bool:
    """Whether two keys differ in a number or a roman numeral (edition, model, sequel)."""
    return any(_NUMBERISH.match(w) for w in set(a.split()) ^ set(b.split()))


def similarity(a: str, b: str) -> float:
    """difflib's ratio, the same whichever key comes first."""
    first, second = sorted((a, b))
    return difflib.SequenceMatcher(None, first, second).ratio()


def plain_form_keys(key: str) -> list[str]:
    """Every key whose plain form may equal this key's: with or without a title, in the singular
    or a plural (the caller checks `plain_form`)."""
    base = plain_form(key)
    forms = {base, base + "s", base + "es"}
    if base.endswith("y"):
        forms.add(base[:-1] + "ies")
    return sorted({f"{title} {form}".strip() for title in ("", *TITLE_WORDS) for form in forms} | {key})


class KeyIndex:
    """The keys of every live entity: membership, and word blocking for the fuzzy rule. Words
    are found by searching one string of all keys (memoised) until many are asked, then indexed."""

    SEARCH_LIMIT = 32

    def __init__(self, keys: dict[str, str]) -> None:
        self.id_of = keys  # key -> entity id
        self.ids = set(keys.values())
        self._text: str | None = None
        self._hits: dict[str, set[str] | None] = {}
        self._words: dict[str, set[str]] | None = None

    def keys_with(self, word: str) -> set[str] | None:
        """The keys containing `word`, or None when more than BLOCK_LIMIT do."""
        if self._words is None and word not in self._hits and len(self._hits) >= self.SEARCH_LIMIT:
            words: dict[str, set[str]] = defaultdict(set)
            for key in self.id_of:
                for w in set(key.split()):
                    words[w].add(key)
            self._words, self._hits, self._text = dict(words), {}, None
        if self._words is not None:
            found = self._words.get(word, set())
            return found if len(found) <= BLOCK_LIMIT else None
        if word not in self._hits:
            self._hits[word] = self._search(word)
        return self._hits[word]

    def _search(self, word: str) -> set[str] | None:
        if self._text is None:
            self._text = " " + " \n ".join(self.id_of) + " \n" if self.id_of else ""
        text, needle, found = self._text, f" {word} ", set()
        at = text.find(needle)
        while at >= 0:  # keys have no newlines: each line is " key "
            start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
            found.add(text[start + 1 : end - 1])
            if len(found) > BLOCK_LIMIT:
                return None
            at = text.find(needle, end)
        return found

    def similar(self, key: str, floor: float) -> list[tuple[float, str]]:
        """Keys with a similarity >= floor to `key` (8+ characters, sharing a word), best first."""
        if len(key) < FUZZY_MIN_CHARS:
            return []
        candidates: set[str] = set()
        for word in set(key.split()):
            if (keys := self.keys_with(word)) is not None:
                candidates |= keys
        found = []
        for other in sorted(candidates):
            if other == key or len(other) < FUZZY_MIN_CHARS or abs(len(other) - len(key)) > 3:
                continue
            first, second = sorted((key, other))
            matcher = difflib.SequenceMatcher(None, first, second)
            if matcher.quick_ratio() >= floor and (score := matcher.ratio()) >= floor:
                found.append((score, other))
        return sorted(found, key=lambda t: (-t[0], t[1]))


@dataclass
class Node:
    """A live entity as its mentions describe it."""

    id: str
    key: str
    sources: int = 0  # sources naming it (not only declaring it as an alias)
    links: set[str] = field(default_factory=set)  # entities an alias declaration joins it to
    names: dict[str, int] = field(default_factory=dict)  # surface form -> sources using it
    types: dict[str, int] = field(default_factory=dict)
    descriptions: list[tuple[str, str]] = field(default_factory=list)  # (source path, description)
    aliases: set[str] = field(default_factory=set)  # surface forms declared as aliases of it
    declared_by: dict[str, str] = field(default_factory=dict)  # entity declaring it an alias -> that name's plain form

    @property
    def ambiguous(self) -> bool:
        """Declared an alias of different names ("ED": "erectile dysfunction" in one source,
        "emergency department" in another): it joins neither."""
        # "Argentine" and "Argentinian" declaring "Argentina" are one name
        return len({demonym_country(form) or form for form in self.declared_by.values()}) > 1

    def attributes(self) -> dict[str, object]:
        """The entity's row, from its mentions: the surface form most sources use (ties: the
        smallest), the most common specific type (when at least MIN_TYPE_SHARE of the mentions
        give it, and two of five or more, else "concept"), the description of the first source (by path) that has one, and
        every other name declared or used for it."""
        name = min(self.names, key=lambda n: (-self.names[n], n)) if self.names else self.key
        typed = {t: n for t, n in self.types.items() if specific(t)}
        type_ = min(typed, key=lambda t: (-typed[t], t)) if typed else UNTYPED
        total = sum(self.types.values())
        if typed and (typed[type_] < MIN_TYPE_SHARE * total or (total >= 5 and typed[type_] < MIN_TYPE_MENTIONS)):
            type_ = UNTYPED
        summary = min(self.descriptions)[1] if self.descriptions else ""
        seen = {name.casefold()}
        aliases = []
        for other in sorted({*self.aliases, *self.names}):
            if other.casefold() not in seen:
                seen.add(other.casefold())
                aliases.append(other)
        return {"id": self.id, "name": name, "type": type_, "summary": summary, "aliases": aliases, "status": "live"}


@dataclass
class Regrouped:
    """What a regroup changed: entities whose ALIAS_OF edge changed, with their canonical entity
    before and after, and the canonicals of the groups they left or joined."""

    moved: dict[str, tuple[str, str]] = field(default_factory=dict)  # entity -> (old canonical, new)
    groups: set[str] = field(default_factory=set)
    touched: int = 0


def _nodes(store: Store, ids: Iterable[str]) -> dict[str, Node]:
    """Live entities among `ids`, with what their mentions say."""
    nodes: dict[str, Node] = {}
    for row in entity_mentions(store, sorted(set(ids))):
        node = nodes.get(row["id"])
        if node is None:
            node = nodes[row["id"]] = Node(row["id"], row["key"])
        for alias in row["aliases"] or []:  # a name's declared aliases, or the names declaring an alias
            key = name_key(alias)
            if key and key != node.key:
                node.links.add(entity_id(key))
                if row["role"] == "name":
                    node.aliases.add(alias)
                else:
                    node.declared_by[entity_id(key)] = plain_form(key)
        type_ = row["type"] or UNTYPED
        node.types[type_] = node.types.get(type_, 0) + 1  # a declared alias is the same thing: its type counts
        if row["role"] == "name":
            node.sources += 1
            node.names[row["name"]] = node.names.get(row["name"], 0) + 1
            if row["description"]:
                node.descriptions.append((row["path"], row["description"]))
        elif not node.names:
            node.aliases.add(row["name"])
    for node in nodes.values():
        if not node.names:  # only ever declared as an alias: known by that name
            node.names = {min(node.aliases): 0} if node.aliases else {}
            node.aliases -= set(node.names)
    return nodes


def regroup(store: Store, touched: Iterable[str], judge: EntityJudge | None = None,
            keys: KeyIndex | None = None) -> tuple[WriteBatch, Regrouped]:
    """The writes that bring the groups of the `touched` entities (and every entity a rule links
    them to) to what the rules say, and the touched entities' rows to what their mentions say."""
    touched = set(touched)
    report = Regrouped(touched=len(touched))
    batch = WriteBatch()
    if not touched:
        return batch, report
    keys = keys or KeyIndex(live_entity_keys(store))
    old = group_edges_of(store, touched)  # entity -> (canonical, method, score) in their groups today
    nodes = _nodes(store, touched | set(old))
    edges: dict[tuple[str, str], tuple[str, float]] = {}
    questions: set[tuple[str, str]] = set()
    frontier = sorted(nodes)
    while frontier:  # until every entity a rule reaches is in, with its group
        reached: set[str] = set()
        for entity in frontier:
            for other, method, score in _partners(nodes[entity], keys, judge is not None):
                pair = (min(entity, other), max(entity, other))
                if method == "ask":
                    questions.add(pair)
                elif pair not in edges or RULE_ORDER[method] < RULE_ORDER[edges[pair][0]]:
                    edges[pair] = (method, score)
                reached.add(other)
        outside = reached - set(nodes)
        if not outside:
            break
        old.update(group_edges_of(store, outside))
        added = _nodes(store, outside | (set(old) - set(nodes)))
        nodes.update(added)
        frontier = sorted(added)
    for (a, b), verdict in _ask(judge, nodes, sorted(p for p in questions if p[0] in nodes and p[1] in nodes)).items():
        if verdict is not None and verdict.verdict == "same" and (a, b) not in edges:
            edges[(a, b)] = ("llm", round(verdict.confidence, 3))
    edges = {pair: rule for pair, rule in edges.items() if pair[0] in nodes and pair[1] in nodes
             and not (rule[0] == "alias" and _ambiguous_alias(nodes[pair[0]], nodes[pair[1]]))}
    _decide(store, nodes, edges)
    new = _components(nodes, edges)
    changed: dict[str, tuple[str, str, float] | None] = {}
    for entity in sorted(set(old) | set(nodes)):
        before = old.get(entity)
        before = None if before is None or before[0] == entity else before
        after = new.get(entity)
        after = None if after is None or after[0] == entity else after
        if before != after:
            changed[entity] = after
            report.moved[entity] = (before[0] if before else entity, after[0] if after else entity)
            report.groups |= set(report.moved[entity])
    set_groups(batch, changed)
    if changed:  # their claims' candidate pairs changed: contradiction detection checks them again
        uncheck_claims_about(store, batch, sorted(changed))
    # The touched entities' rows, SET where their mentions changed them: most of an edit's entities
    # read as they did, and a batch left empty is not written (no transaction, no WAL sync).
    stored = {row["id"]: row for row in entity_rows(store, store.offsets("Entity", touched))}
    for entity in sorted(touched):
        row = nodes[entity].attributes() if entity in nodes else {"id": entity, "status": "retired"}
        if entity not in stored or any(stored[entity].get(column) != value for column, value in row.items()):
            batch.update("Entity", row)
    return batch, report


def _ambiguous_alias(a: Node, b: Node) -> bool:
    return (a.ambiguous and b.id in a.declared_by) or (b.ambiguous and a.id in b.declared_by)


def _partners(node: Node, keys: KeyIndex, asking: bool) -> list[tuple[str, str, float]]:
    """(other entity, rule, score) for every live entity a rule links `node` to; rule "ask":
    a pair for the judge."""
    out = [(other, "alias", 1.0) for other in sorted(node.links) if other in keys.ids]
    base = plain_form(node.key)
    out += [(keys.id_of[key], "plain", 1.0) for key in plain_form_keys(node.key)
            if key != node.key and key in keys.id_of and plain_form(key) == base]
    for score, other_key in keys.similar(node.key, AMBIGUOUS_FLOOR if asking else FUZZY_THRESHOLD):
        if not differ_in_numbers(node.key, other_key):
            out.append((keys.id_of[other_key], "fuzzy" if score >= FUZZY_THRESHOLD else "ask", round(score, 3)))
    return out


def _decide(store: Store, nodes: dict[str, Node], edges: dict[tuple[str, str], tuple[str, float]]) -> None:
    """Apply what a person decided (`kg entity merge` / `unmerge`) to the rule edges."""
    apart, manual = set(), []
    for row in decision_rows(store, sorted(nodes)):
        if row["merged_into"]:
            manual.append((row["entity"], row["merged_into"]))
        else:
            apart.add(row["entity"])
    for pair in [p for p in edges if p[0] in apart or p[1] in apart]:
        del edges[pair]
    for entity, target in manual:
        if entity in nodes and target in nodes:
            edges[(min(entity, target), max(entity, target))] = ("manual", 1.0)


def _components(nodes: dict[str, Node], edges: dict[tuple[str, str], tuple[str, float]]
                ) -> dict[str, tuple[str, str, float]]:
    """Each entity's (canonical entity, method, score): the canonical is no demonym if it can be,
    has the most sources naming it, then the smallest id; a member's method and score are those of the edge that reached it
    first, breadth first from the canonical in id order."""
    neighbours: dict[str, list[str]] = defaultdict(list)
    for a, b in sorted(edges):
        neighbours[a].append(b)
        neighbours[b].append(a)
    out: dict[str, tuple[str, str, float]] = {}
    for start in sorted(nodes):
        if start in out:
            continue
        component, stack = {start}, [start]
        while stack:
            for other in neighbours[stack.pop()]:
                if other not in component:
                    component.add(other)
                    stack.append(other)
        # a country's page over its demonym's ("United States", not "American", however many say it)
        head = min(component, key=lambda e: (is_demonym(nodes[e].key), -nodes[e].sources, e))
        out[head] = (head, "", 0.0)
        frontier = [head]
        while frontier:
            following = []
            for current in frontier:
                for other in sorted(neighbours[current]):
                    if other not in out:
                        method, score = edges[(min(current, other), max(current, other))]
                        out[other] = (head, method, score)
                        following.append(other)
            frontier = following
    return out


def _ask(judge: EntityJudge | None, nodes: dict[str, Node], pairs: Sequence[tuple[str, str]]
         ) -> dict[tuple[str, str], Judgement | None]:
    if judge is None or not pairs:
        return {}
    asked = []
    for a, b in pairs:
        first, second = nodes[a].attributes(), nodes[b].attributes()
        asked.append((ExtractedEntity.model_validate({"name": str(first["name"]), "type": str(first["type"]),
                                                      "description": str(first["summary"])}),  # an old type: concept
                      EntityRecord(b, str(second["name"]), str(second["type"]), list(second["aliases"]),  # type: ignore[call-overload]
                                   str(second["summary"]))))
    return dict(zip(pairs, judge.judge(asked), strict=True))
