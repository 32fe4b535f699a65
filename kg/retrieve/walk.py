"""A graph walk from the question to sources: entity linking, then personalised PageRank.

The graph is every Entity and compiled Source, with undirected weighted edges:

- Source–MENTIONS–Entity, weight 1 + log(1 + count);
- Entity–RELATED–Entity, weight 0.5 (edges whose claim was retracted are left out);
- Source–Entity "home" edges, weight 5.0, where the entity's name is the source's title: the
  entity a source is about is the strongest way into that source;
- Entity–ALIAS_OF–Entity, weight 1.0: a merge says both are the same thing (the weight was
  chosen on the odd-indexed hotpotqa-100 questions among 0, 1 and 5: 0 and 1 tie, 5 loses one).

Linking: word n-grams of the question (longest first, a word used once) whose
`kg.names.name_key` is an entity name or alias, or a source title (also without a trailing
parenthetical, "Mercury (planet)" -> "mercury"). A linked node is seeded with
n * 1/sqrt(1 + degree) (long names weigh more, hubs such as "film" less), times 0.1 when no
word of the n-gram starts with a capital or a digit (common nouns are weak evidence).

Personalised PageRank (damping 0.85, at most 30 power iterations) spreads the seeds' mass over
the graph; sources are ranked by the mass they end with, and the entities holding mass are
"reached". Kuzu 0.11.3's `page_rank` has no restart vector, so the walk is a sparse
matrix-vector product in numpy/scipy over edges read once with Arrow.

These settings are the ones of the walk first written in benchmarks/retrieval.py, ported as
they were (ALIAS_OF edges are new here); see "Retrieval" in
`git show f9f9c0e:benchmarks/README.md` for how they were chosen.
"""

from __future__ import annotations

import math
import os
import re
import zipfile
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kg.graph.retrieval import (
    alias_table,
    compiled_source_table,
    entity_name_table,
    mention_table,
    related_table,
    retracted_claim_ids,
)
from kg.graph.store import Store
from kg.names import name_key
from kg.retrieve.question import tokenize
from kg.text import LINK_STOPWORDS

_TRAILING_PARENTHETICAL = re.compile(r"\s*\([^()]*\)\s*$")

OFF_WALK_TYPES = frozenset({"nationality"})  # entity types that are not walked (see load_walk_graph)


@dataclass(frozen=True)
class WalkSettings:
    home_weight: float = 5.0        # Source–Entity edge when the entity's name is the source's title
    alias_weight: float = 1.0       # Entity–ALIAS_OF–Entity (new here; chosen on odd questions)
    related_weight: float = 0.5     # Entity–RELATED–Entity
    common_noun_weight: float = 0.1  # seed factor of an n-gram without a capital or digit
    damping: float = 0.85
    iterations: int = 30
    max_ngram: int = 6
    reached_mass: float = 1e-4      # an entity holding more mass than this is "reached"


@dataclass
class WalkResult:
    sources: list[tuple[str, float]]  # (source path, mass), best first, mass > 0
    entities: list[tuple[str, float]]  # (entity id, mass) reached, best first; linked ones always
    linked_entities: dict[str, float] = field(default_factory=dict)  # entity id -> seed weight
    linked_sources: dict[str, float] = field(default_factory=dict)  # source path -> seed weight (by title)

    @property
    def source_paths(self) -> list[str]:
        return [path for path, _ in self.sources]

    @property
    def entity_ids(self) -> list[str]:
        return [entity for entity, _ in self.entities]


class NameIndex:
    """name key -> graph nodes, as sorted keys and one array of nodes: looked up by binary search,
    and saved and loaded as arrays (below: cached_graph), not as a dict of 76k+ lists."""

    def __init__(self, keys: list[str], offsets: np.ndarray, nodes: np.ndarray) -> None:
        self.keys, self.offsets, self.nodes = keys, offsets, nodes

    @classmethod
    def build(cls, names: Mapping[str, Iterable[int]]) -> NameIndex:
        keys = sorted(names)
        lists = [sorted(names[key]) for key in keys]
        offsets = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum([len(nodes) for nodes in lists], out=offsets[1:])
        return cls(keys, offsets, np.fromiter((n for nodes in lists for n in nodes), dtype=np.int64, count=int(offsets[-1])))

    def get(self, key: str, default: list[int] | None = None) -> list[int] | None:
        i = bisect_left(self.keys, key)
        if i < len(self.keys) and self.keys[i] == key:
            return self.nodes[self.offsets[i] : self.offsets[i + 1]].tolist()
        return default

    def __len__(self) -> int:
        return len(self.keys)


class SparseRows:
    """A sparse matrix in compressed rows (scipy's CSR arrays: data, indices, indptr) that multiplies
    a vector with numpy alone: a question loads the saved graph without scipy (0.1 s a process).
    Each row's products are summed in stored order, as scipy's own product sums them."""

    def __init__(self, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, shape: tuple[int, int]) -> None:
        self.data, self.indices, self.indptr, self.shape = data, indices, indptr, shape
        self._rows = np.repeat(np.arange(shape[0]), np.diff(indptr))

    @classmethod
    def of(cls, matrix: Any) -> SparseRows:
        """From a scipy sparse matrix."""
        csr = matrix.tocsr()
        return cls(csr.data, csr.indices, csr.indptr, (int(csr.shape[0]), int(csr.shape[1])))

    def __matmul__(self, vector: np.ndarray) -> np.ndarray:
        return np.bincount(self._rows, weights=self.data * vector[self.indices], minlength=self.shape[0])

    def same(self, other: SparseRows) -> bool:
        return (self.shape == other.shape and np.array_equal(self.indptr, other.indptr)
                and np.array_equal(self.indices, other.indices) and np.array_equal(self.data, other.data))


@dataclass
class WalkGraph:
    """The walk's graph: node i < len(entity_ids) is an entity, the rest are sources."""

    entity_ids: list[str]
    entity_names: list[str]
    source_paths: list[str]
    names: NameIndex  # name key -> entity and source nodes (names, aliases, titles)
    degree: np.ndarray  # neighbours per node
    transition: SparseRows  # column-stochastic: transition[j, i] = w(i, j) / w(i)
    edge_count: int  # node pairs joined by an edge
    # The entities' names and aliases that are peoples' names ("American"; gazetteer.is_demonym), judged
    # as the graph is read and kept with it: a question then needs no gazetteer (0.3 s to load).
    demonyms: frozenset[str] = frozenset()

    @property
    def node_count(self) -> int:
        return len(self.entity_ids) + len(self.source_paths)


def question_ngrams(question: str | Sequence[str], max_n: int = 6) -> list[tuple[int, int, str]]:
    """(start, end, text) word n-grams of a question (its text, or its tokens from
    kg/retrieve/question.py's `tokenize`, the one tokeniser of questions), longest first, then left to right."""
    words = tokenize(question) if isinstance(question, str) else tuple(question)
    grams = []
    for n in range(min(max_n, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            grams.append((i, i + n, " ".join(words[i : i + n])))
    return grams


def title_keys(title: str) -> set[str]:
    """Name keys a source title is linked by: as written, and without a trailing parenthetical."""
    return {key for key in (name_key(title), name_key(_TRAILING_PARENTHETICAL.sub("", title))) if key}


def load_walk_graph(store: Store, settings: WalkSettings) -> WalkGraph:
    """Read entities, compiled sources and their edges (bulk Arrow reads: kg/graph/retrieval.py) into a
    sparse graph."""
    # only as the graph is read: a question finds it saved, and loads neither
    from scipy.sparse import coo_matrix

    from kg.extract.gazetteer import is_demonym

    entities = entity_name_table(store)
    sources = compiled_source_table(store)
    entity_ids: list[str] = entities.column("id").to_pylist()
    entity_names: list[str] = [name or "" for name in entities.column("name").to_pylist()]
    source_paths: list[str] = sources.column("path").to_pylist()
    entity_node = {entity: i for i, entity in enumerate(entity_ids)}
    source_node = {path: len(entity_ids) + i for i, path in enumerate(source_paths)}

    # Nationalities ("American", a place's demonym since heuristic-5) connect everything said about a
    # country's people: hubs that would draw the walk away from the question's own entities. They
    # stay out of it.
    alias_lists = entities.column("aliases").to_pylist()
    demonyms = frozenset(value for name, aliases in zip(entity_names, alias_lists, strict=True)
                         for value in (name, *(aliases or [])) if value and is_demonym(value))
    off_walk = {i for i, (type_, name) in enumerate(zip(entities.column("type").to_pylist(), entity_names, strict=True))
                if type_ in OFF_WALK_TYPES or name in demonyms}
    names: dict[str, set[int]] = defaultdict(set)
    for node, (name, aliases) in enumerate(zip(entity_names, alias_lists, strict=True)):
        if node in off_walk:
            continue
        for value in (name, *(aliases or [])):
            if key := name_key(value or ""):
                names[key].add(node)
    for path, title in zip(source_paths, sources.column("title").to_pylist(), strict=True):
        for key in title_keys(title or ""):
            names[key].add(source_node[path])

    rows: list[int] = []
    cols: list[int] = []
    weights: list[float] = []

    def edge(a: int, b: int, weight: float) -> None:
        if weight <= 0 or a in off_walk or b in off_walk:  # switched off: not even a neighbour (degree)
            return
        rows.append(a)
        cols.append(b)
        weights.append(weight)

    mentions = mention_table(store)
    for path, entity, count in zip(*(mentions.column(c).to_pylist() for c in ("s", "e", "n")), strict=True):
        if path in source_node:
            edge(source_node[path], entity_node[entity], 1.0 + math.log1p(count or 1))
    for node, name in enumerate(entity_names):  # an entity named like a source's title is its subject
        for source in names.get(name_key(name), ()):
            if source >= len(entity_ids):
                edge(source, node, settings.home_weight)
    retracted = retracted_claim_ids(store)
    related = related_table(store)
    for a, b, claim in zip(*(related.column(c).to_pylist() for c in ("a", "b", "c")), strict=True):
        if a != b and claim not in retracted:
            edge(entity_node[a], entity_node[b], settings.related_weight)
    aliases = alias_table(store)
    for a, b in zip(aliases.column("a").to_pylist(), aliases.column("b").to_pylist(), strict=True):
        if a != b:
            edge(entity_node[a], entity_node[b], settings.alias_weight)

    n = len(entity_ids) + len(source_paths)
    # symmetric: each edge both ways; duplicate (row, col) entries are summed by the conversion
    both_rows = np.array(rows + cols, dtype=np.int64)
    both_cols = np.array(cols + rows, dtype=np.int64)
    adjacency = coo_matrix((np.array(weights * 2, dtype=np.float64), (both_rows, both_cols)), shape=(n, n)).tocsr()
    out_weight = np.asarray(adjacency.sum(axis=1)).ravel()
    out_weight[out_weight == 0] = 1.0
    degree = np.diff(adjacency.indptr)
    transition = SparseRows.of(adjacency.multiply(1.0 / out_weight[:, None]).T.tocsr())
    return WalkGraph(entity_ids, entity_names, source_paths, NameIndex.build(names), degree, transition,
                 int(adjacency.nnz // 2), demonyms)


def sorted_quantile(ordered: np.ndarray, q: float) -> float:
    """`np.quantile(values, q)` (its default, linear method) of the sorted values: the same float,
    computed as numpy does, without np.quantile loading numpy.ma (15 ms a process) to ask whether
    the array is masked."""
    at = (len(ordered) - 1) * q
    if at >= len(ordered) - 1:
        return float(ordered[-1])
    low = math.floor(at)
    a, b, t = ordered[low], ordered[low + 1], at - low
    return float(a + (b - a) * t if t < 0.5 else b - (b - a) * (1 - t))


class GraphWalk:
    """Personalised PageRank from the entities a question names to the sources about them.

    The graph is read from the store on first use and kept: later changes to the store are
    not seen (make a new GraphWalk after a compile). With `cache` (a file), a graph read before
    from the same database files is loaded from it instead (below: cached_graph): 1.8 s -> 0.1 s at
    50k sources, which every `kg query` process pays once.
    """

    def __init__(self, store: Store, settings: WalkSettings | None = None, cache: Path | None = None) -> None:
        self.store = store
        self.settings = settings or WalkSettings()
        self.cache = cache
        self._graph: WalkGraph | None = None
        self._entity_node: dict[str, int] | None = None
        self._hub_degree: dict[float, int] = {}

    @property
    def graph(self) -> WalkGraph:
        if self._graph is None:
            if self.cache is None:
                self._graph = load_walk_graph(self.store, self.settings)
            else:
                self._graph = cached_graph(self.store, self.settings, self.cache)
        return self._graph

    def is_demonym(self, name: str) -> bool:
        """gazetteer.is_demonym of an entity's name or alias in this graph, as judged when it was read."""
        return name in self.graph.demonyms

    def entity_degree(self, entity: str) -> int:
        """Neighbours of an entity in the walk's graph (0 when it is not in it): how much of a hub it is."""
        if self._entity_node is None:
            self._entity_node = {e: i for i, e in enumerate(self.graph.entity_ids)}
        node = self._entity_node.get(entity)
        return 0 if node is None else int(self.graph.degree[node])

    def hub_degree(self, floor: int, share: float = 0.001) -> int:
        """The degree above which an entity is a hub: `floor`, or more in a graph so large that over
        `share` of its entities have more neighbours (hubs grow with the knowledge base)."""
        if share not in self._hub_degree:
            graph = self.graph
            degrees = graph.degree[: len(graph.entity_ids)]
            top = sorted_quantile(np.sort(degrees), 1.0 - share) if len(degrees) else 0.0
            self._hub_degree[share] = int(top)
        return max(floor, self._hub_degree[share])

    def titled_sources(self, name: str) -> list[str]:
        """Paths of the sources whose title (without a trailing parenthetical) is this name."""
        graph = self.graph
        n_e = len(graph.entity_ids)
        return [graph.source_paths[node - n_e] for node in graph.names.get(name_key(name), []) or [] if node >= n_e]

    def link(self, question: str | Sequence[str]) -> dict[int, float]:
        """Question n-grams -> entity and source nodes, weighted by length and specificity."""
        graph, settings = self.graph, self.settings
        seeds: dict[int, float] = {}
        covered: set[int] = set()
        for start, end, gram in question_ngrams(question, settings.max_ngram):
            key = name_key(gram)
            if not key or key in LINK_STOPWORDS or len(key) < 3 or any(i in covered for i in range(start, end)):
                continue
            nodes = graph.names.get(key)
            if not nodes:
                continue
            covered.update(range(start, end))
            named = any(word[:1].isupper() or word[:1].isdigit() for word in gram.split())
            factor = (end - start) * (1.0 if named else settings.common_noun_weight)
            for node in nodes:
                weight = factor / math.sqrt(1.0 + float(graph.degree[node]))
                seeds[node] = max(seeds.get(node, 0.0), weight)
        return seeds

    def walk(self, question: str | Sequence[str], depth: int = 10, source_prior: Mapping[str, float] | None = None,
             prior_weight: float = 1.0) -> WalkResult:
        """Rank sources for a question (at most `depth`).

        `source_prior` (source path -> non-negative weight, e.g. a retriever's top hits) adds
        restart mass on those sources: `prior_weight` times as much in total as the linked names
        have (HippoRAG 2 seeds its walk with dense passage hits this way). With no linked name,
        the walk starts from the prior alone.
        """
        graph, settings = self.graph, self.settings
        seeds = self.link(question)
        restart = np.zeros(graph.node_count)
        for node, weight in seeds.items():
            restart[node] += weight
        if source_prior:
            if restart.sum() > 0:
                restart /= restart.sum()
            prior = np.zeros(graph.node_count)
            offset = len(graph.entity_ids)
            position = {path: offset + i for i, path in enumerate(graph.source_paths)}
            for path, weight in source_prior.items():
                if path in position:
                    prior[position[path]] += max(weight, 0.0)
            if prior.sum() > 0:
                restart += prior_weight * prior / prior.sum()
        if restart.sum() == 0:
            return WalkResult([], [])
        restart /= restart.sum()
        mass = restart.copy()
        for _ in range(settings.iterations):
            step = (1 - settings.damping) * restart + settings.damping * (graph.transition @ mass)
            converged = np.abs(step - mass).sum() < 1e-8
            mass = step
            if converged:
                break
        n_e = len(graph.entity_ids)
        source_mass = mass[n_e:]
        order = np.argsort(-source_mass, kind="stable")[:depth]
        sources = [(graph.source_paths[i], float(source_mass[i])) for i in order if source_mass[i] > 0]
        reached = set(np.flatnonzero(mass[:n_e] > settings.reached_mass).tolist()) | {s for s in seeds if s < n_e}
        entities = sorted(((graph.entity_ids[i], float(mass[i])) for i in reached), key=lambda em: (-em[1], em[0]))
        return WalkResult(
            sources, entities,
            {graph.entity_ids[s]: w for s, w in sorted(seeds.items()) if s < n_e},
            {graph.source_paths[s - n_e]: w for s, w in sorted(seeds.items()) if s >= n_e},
        )


# The walk's graph saved between processes (.kg/walk-graph.npz) ---------------------------------
# The walk's graph saved between processes (`.kg/walk-graph.npz`).
#
# Reading it from the graph costs 1.8 s at 50k sources (five bulk reads and 280k name keys), and a
# `kg query` process reads it once per question. Saved as plain arrays (numpy, no pickle) with the
# database files' signature (`Store.file_signature`) and the walk settings; loaded only when both
# still match, else read again and saved again. A damaged or unwritable cache is read around.

FORMAT = "kg-walk-graph 3"  # 2: nationalities left out; 3: the names that are demonyms kept
_SEP = "\0"  # in no entity id, name, source path or name key


def stamp(store: Store, settings: WalkSettings) -> str:
    return f"{FORMAT} | {sorted(asdict(settings).items())} | {store.file_signature()}"


def cached_graph(store: Store, settings: WalkSettings, path: Path) -> WalkGraph:
    """The walk's graph: from `path` when saved for these database files and settings, else read
    from the store and saved there."""
    current = stamp(store, settings)
    graph = load(path, current)
    if graph is None:
        graph = load_walk_graph(store, settings)
        save(graph, path, current)
    return graph


def _text(strings: list[str]) -> np.ndarray:
    return np.frombuffer(_SEP.join(strings).encode("utf-8"), dtype=np.uint8)


def _strings(array: np.ndarray) -> list[str]:
    text = array.tobytes().decode("utf-8")
    return text.split(_SEP) if text else []


def save(graph: WalkGraph, path: Path, current: str) -> None:
    transition = graph.transition
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as handle:
            np.savez(handle, stamp=_text([current]), entity_ids=_text(graph.entity_ids),
                     entity_names=_text(graph.entity_names), source_paths=_text(graph.source_paths),
                     name_keys=_text(graph.names.keys), name_offsets=graph.names.offsets, name_nodes=graph.names.nodes,
                     degree=graph.degree, data=transition.data, indices=transition.indices, indptr=transition.indptr,
                     shape=np.array(transition.shape), edge_count=np.array([graph.edge_count]),
                     demonyms=_text(sorted(graph.demonyms)))
        os.replace(tmp, path)
    except OSError:  # a read-only or full disk: the next process reads the graph again
        tmp.unlink(missing_ok=True)


def load(path: Path, current: str) -> WalkGraph | None:
    try:
        with np.load(path, allow_pickle=False) as saved:
            if _strings(saved["stamp"]) != [current]:
                return None
            entity_ids, entity_names = _strings(saved["entity_ids"]), _strings(saved["entity_names"])
            keys, offsets = _strings(saved["name_keys"]), saved["name_offsets"]
            if len(entity_names) != len(entity_ids) or len(offsets) != len(keys) + 1:
                return None
            rows, cols = (int(n) for n in saved["shape"])
            transition = SparseRows(saved["data"], saved["indices"], saved["indptr"], (rows, cols))
            return WalkGraph(entity_ids, entity_names, _strings(saved["source_paths"]),
                         NameIndex(keys, offsets, saved["name_nodes"]), saved["degree"], transition,
                         int(saved["edge_count"][0]), frozenset(_strings(saved["demonyms"])))
    except (OSError, ValueError, KeyError, UnicodeDecodeError, zipfile.BadZipFile):
        return None
