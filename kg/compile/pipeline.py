"""The compiler: wires chunk -> extract -> verify -> resolve -> store for each source.

`Compiler(kb, store, extractor, config)` takes every stage as an argument, so a test can
swap any of them. Sources are written in batches, each batch one transaction: a crash
loses at most the batch in flight, and the next compile redoes it.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from kg.compile.bulk import gc_paused
from kg.compile.chunk import chunk_text
from kg.compile.contradict import ContradictionJudge, RuleJudge, detect
from kg.compile.engine import Engine, LocalEngine
from kg.compile.groups import KeyIndex, Regrouped, regroup
from kg.compile.resolve import (
    EntityJudge,
    Mention,
    SourceEntities,
    fast_name_key,
    lone_family_names,
)
from kg.compile.sources import (
    in_selection,
    read_source,
    scan_files,
    scan_selected,
    sha256_bytes,
    sha256_file,
    stat_signature,
)
from kg.compile.verify import ChunkVerifier
from kg.config import Config
from kg.errors import ConfigError, KgError, SourceError
from kg.extract import EmptyExtraction, ExtractionContext, Extractor
from kg.graph.claims import claim_source_paths
from kg.graph.entities import all_entity_ids, entity_names, live_entity_keys, mentioned_by
from kg.graph.fts import add_chunks, drop_indexes, refresh_indexes
from kg.graph.sources import (
    SELECTED_PATHS_QUERIED,
    mark_source_removed,
    retract_source_evidence,
    source_slugs,
    source_state_table,
)
from kg.graph.store import Store, WriteBatch, now_iso
from kg.kb import KnowledgeBase
from kg.models import Chunk, ExtractedEntity, SourceDoc
from kg.names import name_key, unique_slug

Progress = Callable[[str, int], None]  # (source path just done, sources done so far)


@dataclass
class SourceState:
    path: str
    sha256: str
    status: str
    slug: str
    file_stat: str | None = None  # stat signature of the bytes hashed into sha256 (kg/graph/store.py migration 4)
    title: str | None = None


@dataclass
class CompilePlan:
    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    vanished: list[str] = field(default_factory=list)
    retry: list[str] = field(default_factory=list)  # failed before, same bytes: try again
    # unchanged sources whose stat changed (touched, copied) but not their bytes: the stat to
    # record, so that the next plan does not read them again
    restat: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def to_compile(self) -> list[str]:
        return sorted(self.new + self.changed + self.retry)

    def as_dict(self) -> dict[str, list[str]]:
        return {"new": self.new, "changed": self.changed, "unchanged": self.unchanged, "vanished": self.vanished, "retry": self.retry}


@dataclass
class CompileReport:
    plan: CompilePlan
    compiled: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    claims_added: int = 0
    entities_added: int = 0
    unverified: int = 0
    contradictions: int = 0
    superseded: int = 0
    seconds: float = 0.0
    new_claim_ids: set[str] = field(default_factory=set)
    regrouped: Regrouped = field(default_factory=Regrouped)  # entity groups the compile changed
    # sources an LLM gave no claims for, with the chunk numbers (from 1): failed (EmptyExtraction)
    empty: dict[str, list[int]] = field(default_factory=dict)
    # sources with chunks extracted offline by an LLM extractor's fallback: how many chunks
    fallbacks: dict[str, int] = field(default_factory=dict)

    @property
    def changed_anything(self) -> bool:
        return bool(self.plan.to_compile or self.plan.vanished)

    def as_dict(self) -> dict[str, Any]:
        return {
            "new": len(self.plan.new), "changed": len(self.plan.changed), "unchanged": len(self.plan.unchanged),
            "removed": len(self.plan.vanished), "compiled": self.compiled, "failed": self.failed,
            "claims_added": self.claims_added, "entities_added": self.entities_added,
            "unverified_quotes": self.unverified, "contradictions_found": self.contradictions,
            "superseded": self.superseded, "seconds": round(self.seconds, 3),
            "empty_extractions": {p: list(c) for p, c in sorted(self.empty.items())},
            "fallback_chunks": dict(sorted(self.fallbacks.items())),
        }


def claim_id(subject_id: str, claim_type: str, predicate: str, text: str) -> str:
    """Same statement about the same entity -> same claim, whichever source says it."""
    normal = " ".join(text.casefold().split())
    return "c" + hashlib.sha256(f"{subject_id}\x1f{claim_type}\x1f{predicate}\x1f{normal}".encode()).hexdigest()[:15]


class SourceStates(Mapping[str, SourceState]):
    """The graph's Source rows, kept as columns: a plan compares every file on disk with them, and
    50k `SourceState` objects (and the columns it does not compare) cost more than the compare.
    A `SourceState` is made only for the paths asked for."""

    FIELDS = ("path", "sha256", "status", "slug", "file_stat", "title")

    def __init__(self, table: pa.Table | None = None, partial: bool = False) -> None:
        self.partial = partial  # only the rows of some paths (load_source_states's `only`)
        self._table = table  # None: no sources
        self._columns: dict[str, Sequence[Any]] = {}  # the columns read whole so far
        self.paths: list[str] = list(self.column("path"))
        self.rows = dict(zip(self.paths, range(len(self.paths)), strict=True))

    def column(self, name: str) -> Sequence[Any]:
        if name not in self._columns:
            self._columns[name] = self._table.column(name).to_pylist() if self._table is not None else []
        return self._columns[name]

    def value(self, name: str, row: int) -> Any:
        if name in self._columns or self._table is None:
            return self.column(name)[row]
        return self._table.column(name)[row].as_py()

    def __getitem__(self, path: str) -> SourceState:
        row = self.rows[path]
        return SourceState(*(self.value(name, row) for name in self.FIELDS))

    def __contains__(self, path: object) -> bool:
        return path in self.rows

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)


def load_source_states(store: Store, only: Sequence[str] | None = None) -> SourceStates:
    """Every source's row, or (`only`: paths relative to raw/) the rows at or under those paths."""
    table = source_state_table(store, only)
    with gc_paused():
        return SourceStates(table=table, partial=only is not None and len(only) <= SELECTED_PATHS_QUERIED)


# A file's stat is trusted to stand for the bytes read after it only when its mtime (and
# ctime) are older than the read by this margin. An edit within the same timestamp tick as the
# previous one (a second, or two on FAT; milliseconds on ext4) keeps size and mtime: git's
# "racy clean" problem. Such a file gets no recorded stat, so it is hashed until its stat is
# old enough to be recorded. The margin also absorbs some clock skew of network file systems.
RACY_NS = 3_000_000_000


def trusted_signature(stat: os.stat_result | None, before_ns: int) -> str | None:
    """The stat signature to record for bytes read after wall-clock time `before_ns`, or None
    when the stat cannot vouch for them (too recent, or in the future)."""
    if stat is None or max(stat.st_mtime_ns, stat.st_ctime_ns) >= before_ns - RACY_NS:
        return None
    return stat_signature(stat)


SHARD_MARK = "shard:"  # Source.file_stat of a source a `kg merge` wrote: 'shard:<id>' (README "Shard bundles")


def is_merged(file_stat: str | None) -> bool:
    """Whether a Source row came from a shard's bundle (`kg merge`), not from raw/."""
    return bool(file_stat) and str(file_stat).startswith(SHARD_MARK)


def plan_compile(raw: Path, states: SourceStates | None = None, only: Sequence[str] | None = None) -> CompilePlan:
    """New, changed, unchanged, vanished and failed-before sources: all of raw/, or (`only`: paths
    relative to raw/, files or folders) those at or under these paths, the others left alone.

    A known file is read and hashed only when its stat differs from the one recorded with its
    sha256 (git's index check): an edit changes size, mtime or ctime; a recorded stat was
    taken before the bytes were read and is recorded only when old enough (`RACY_NS`).
    """
    states = states if states is not None else SourceStates()
    plan = CompilePlan()
    before = time.time_ns()  # before any stat below, so before every read
    rows, statuses, file_stats = states.rows, states.column("status"), states.column("file_stat")
    on_disk = set()
    with gc_paused():  # many small objects, no garbage (see kg/compile/resolve.py gc_paused)
        for rel, path, stat in scan_files(raw) if only is None else scan_selected(raw, only):
            on_disk.add(rel)
            row = rows.get(rel)
            if row is None or statuses[row] == "removed":
                plan.new.append(rel)
                continue
            if file_stats[row] != stat_signature(stat):  # None (no trusted stat) differs too
                if states.value("sha256", row) != sha256_file(path):
                    plan.changed.append(rel)
                    continue
                if statuses[row] != "failed" and (signature := trusted_signature(stat, before)) is not None:
                    plan.restat[rel] = signature
            if statuses[row] == "failed":
                plan.retry.append(rel)
            else:
                plan.unchanged.append(rel)
    # A source a `kg merge` wrote (file_stat 'shard:<id>', kg/share/merge.py) is held by its shard, not raw/.
    plan.vanished = sorted(p for p, status, file_stat in zip(states.paths, statuses, file_stats, strict=True)
                           if status != "removed" and p not in on_disk and not is_merged(file_stat)
                           and (only is None or in_selection(p, only)))
    return plan


def source_error(path: str, exc: Exception, extractor: str) -> SourceError:
    """Any failure of one source as the SourceError its row and the report carry."""
    if isinstance(exc, SourceError):
        return exc
    if isinstance(exc, KgError):
        return SourceError(f"{path}: {exc}")
    # a bug in a backend: say so plainly, keep going
    return SourceError(f"{path}: the {extractor} extractor failed ({type(exc).__name__}: {exc}). "
                       "Please report this with the file; the other sources were compiled.")


@dataclass
class Extracted:
    """What one source says, worked out without the graph (`SourceWork`): the writer adds the
    timestamps (rows' `recorded_at` is None until then) and writes it."""

    path: str
    before: int  # wall-clock ns before the stat, itself before the read (trusted_signature)
    stat: os.stat_result | None
    error: str | None = None  # why the source failed (a SourceError's message)
    doc: SourceDoc | None = None  # without its text (the chunks carry it)
    chunks: list[Chunk] = field(default_factory=list)
    claims: dict[str, dict[str, Any]] = field(default_factory=dict)
    about: list[dict[str, Any]] = field(default_factory=list)
    related: list[dict[str, Any]] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    mentions: dict[str, Mention] = field(default_factory=dict)
    unverified: int = 0
    empty: list[int] = field(default_factory=list)  # chunks (from 1) an LLM gave no claims for (EmptyExtraction)
    fallbacks: int = 0  # chunks another extractor made (an LLM extractor's offline fallback)


@dataclass(frozen=True)
class SourceWork:
    """The pure per-source step: read -> chunk -> extract -> verify -> claims by id, for a path
    relative to raw/. It reads raw/ (and the converted-document cache) and nothing of the graph,
    so an engine may run it in another process (kg/compile/engine.py); `known_names` (an LLM
    extractor's view of the graph's names) is given only in the writer's process."""

    raw: Path
    converted: Path
    max_bytes: int
    authority: dict[str, int]
    chunk_chars: int
    extractor: Extractor
    known_names: Callable[[str], Sequence[str]] | None = None

    def __call__(self, path: str) -> Extracted:
        before = time.time_ns()
        try:  # the stat recorded with the row is taken before the bytes are read (see plan_compile)
            stat: os.stat_result | None = os.stat(self.raw / path)
        except OSError:
            stat = None
        try:
            doc = read_source(self.raw, self.raw / path, self.max_bytes, self.authority, self.converted)
            return self.extract(doc, Extracted(path, before, stat))
        except Exception as exc:  # one source's failure never stops the others
            empty = list(exc.chunks) if isinstance(exc, EmptyExtraction) else []
            return Extracted(path, before, stat, error=str(source_error(path, exc, self.extractor.name)), empty=empty)

    def extract(self, doc: SourceDoc, out: Extracted) -> Extracted:
        chunks = chunk_text(doc.path, doc.text, self.chunk_chars)
        names = tuple(self.known_names(doc.text)) if self.known_names is not None else ()
        context = ExtractionContext(doc.path, doc.title, known_entities=names, frontmatter=doc.frontmatter)
        results = self.extractor.extract(chunks, context)
        entities = SourceEntities()
        unverified = 0
        claims = out.claims
        # "Karpathy" alone, in an article that names "Andrej Karpathy": an alias of that one person
        family_names = lone_family_names(e for r in results for e in r.entities)
        for chunk, result in zip(chunks, results, strict=True):
            verifier = ChunkVerifier(chunk)
            label, version = result.maker or (self.extractor.label, self.extractor.version)
            out.fallbacks += result.maker is not None
            local: dict[str, str] = {}
            for entity in result.entities:
                if (full_name := family_names.get(name_key(entity.name))) is not None:
                    entity = ExtractedEntity(name=full_name, type="person", description=entity.description,
                                             aliases=[entity.name, *entity.aliases])
                entity_id = entities.add(entity)
                if entity_id is None:
                    continue
                for name in (entity.name, *entity.aliases):
                    local.setdefault(name_key(name), entity_id)
            for claim in result.claims:
                spans = verifier.verify(claim)
                if not spans:
                    unverified += 1
                    continue
                subject = local.get(name_key(claim.subject))
                if subject is None:
                    unverified += 1
                    continue
                cid = claim_id(subject, claim.claim_type.value, claim.predicate, claim.text)
                roles = {subject: "subject"}
                if claim.object_entity and (obj := local.get(name_key(claim.object_entity))):
                    roles.setdefault(obj, "object")
                for name in claim.mentions:
                    if (other := local.get(name_key(name))) is not None:
                        roles.setdefault(other, "mention")
                for entity_id in roles:
                    entities.count(entity_id)
                for span in spans:
                    out.evidence.append({"src": cid, "dst": doc.path, "source_sha256": doc.sha256, "quote": span.quote,
                                         "char_start": span.char_start, "char_end": span.char_end,
                                         "recorded_at": None, "retracted_at": None})
                if cid in claims:
                    continue
                claims[cid] = {
                    "id": cid, "text": claim.text, "claim_type": claim.claim_type.value, "predicate": claim.predicate,
                    "object": claim.object, "value": claim.value, "unit": claim.unit, "polarity": claim.polarity,
                    "confidence": claim.confidence, "extractor": label,
                    "prompt_version": version, "valid_from": claim.valid_from,
                    "valid_to": claim.valid_to, "recorded_at": None, "retracted_at": None, "status": "live",
                }
                out.about.extend({"src": cid, "dst": e, "role": r} for e, r in roles.items())
                if claim.object_entity and roles.get(local.get(name_key(claim.object_entity), ""), "") == "object":
                    out.related.append({"src": subject, "dst": local[name_key(claim.object_entity)],
                                        "predicate": claim.predicate, "claim_id": cid})
        out.doc = dataclasses.replace(doc, text="")
        out.chunks = chunks
        out.mentions = dict(entities.mentions)
        out.unverified = unverified
        return out



@dataclass
class SourceRows:
    """What one source says, as rows: its claims by id, their ABOUT and RELATED rows, its evidence
    spans, and its mentions by entity id."""

    claims: dict[str, dict[str, Any]]
    about: list[dict[str, Any]]
    related: list[dict[str, Any]]
    evidence: list[dict[str, Any]]
    mentions: Mapping[str, Mention]


@dataclass
class CompileRun:
    """What one compile carries from source to source."""

    report: CompileReport
    keys: KeyIndex | None  # every live name, for an extractor shown the known names (an LLM)
    known: set[str] | None  # every entity id (a bulk compile), else None: looked up per source
    slugs: set[str]  # source slugs taken, for naming new sources
    seq: int  # the next log entry's number
    created: set[str] = field(default_factory=set)  # entities written by this compile

class Compiler:
    def __init__(self, kb: KnowledgeBase, store: Store, extractor: Extractor, config: Config | None = None,
                 judge: ContradictionJudge | None = None, entity_judge: EntityJudge | None = None,
                 engine: Engine | None = None) -> None:
        self.kb = kb
        self.store = store
        self.extractor = extractor
        self.config = config or kb.config()
        self.judge = judge or RuleJudge()
        self.entity_judge = entity_judge  # ambiguous entity-resolution cases (kg/compile/resolve.py); None: rules only
        self.engine: Engine = engine or LocalEngine()  # where SourceWork runs (kg/compile/engine.py)
        self._planned: tuple[CompilePlan, SourceStates] | None = None

    def plan(self, only: Sequence[str] | None = None) -> CompilePlan:
        """What to compile: all of raw/, or the sources at or under `only` (paths relative to raw/)."""
        states = load_source_states(self.store, only)
        plan = plan_compile(self.kb.raw, states, only)
        self._planned = (plan, states)  # `compile(plan)` reuses the states instead of reloading them
        return plan

    def compile(self, plan: CompilePlan | None = None, progress: Progress | None = None,
                pending: Iterable[str] = (), mark: Callable[..., None] | None = None) -> CompileReport:
        """Compile the plan. `pending`: entities whose groups an earlier compile left to redo
        (killed before its regroup); `mark(entities, sources=())` is told, before each write, which
        entities' groups and pages this compile will redo (and, from contradiction detection, the
        sources whose claims gain or lose a contradiction), so that a kill leaves them to the next one."""
        started = time.perf_counter()
        if plan is not None and self._planned is not None and self._planned[0] is plan:
            states = self._planned[1]
        else:
            states = load_source_states(self.store)
        self._planned = None  # the states go stale with the writes below
        plan = plan or plan_compile(self.kb.raw, states)
        report = CompileReport(plan)
        if plan.restat:  # touched but unchanged files: record their new stat, so the next plan skips them
            batch = WriteBatch()
            for path, signature in sorted(plan.restat.items()):
                batch.update("Source", {"path": path, "file_stat": signature})
            self.store.write(batch)
        todo = plan.to_compile
        # Entities whose mentions change: those of every source compiled or removed, before and after.
        touched: set[str] = set(pending)
        for path in [*todo, *plan.vanished]:
            if path in states:
                touched.update(mentioned_by(self.store, path))
        mark = mark or (lambda entities, sources=(): None)
        bulk = len(todo) >= self.config.compile.index_rebuild_sources
        # Every live name, for an extractor that is shown the known names of a source (an LLM).
        keys = KeyIndex(live_entity_keys(self.store)) if todo and self.extractor.wants_known_entities else None
        # Which entities exist: all of them read at once for a bulk compile, else looked up per source.
        known = all_entity_ids(self.store) if bulk else None
        # Source slugs, for naming new sources: only read when there are some (50k strings at 50k).
        slugs: set[str] = set()
        if any(path not in states for path in todo):
            slugs = set(states.column("slug") if not states.partial else source_slugs(self.store))
        run = CompileRun(report, keys, known, slugs, self.store.next_log_seq())
        if todo or plan.vanished:
            drop_indexes(self.store, ("Claim", "Chunk"))  # rebuilt below; see kg/graph/fts.py
        size = max(1, self.config.compile.batch_sources)
        done = 0
        works = self.extractions(todo, keys)  # in todo's order, whichever engine runs them
        for offset in range(0, len(todo), size):
            batch = WriteBatch()
            for path in todo[offset : offset + size]:
                self._compile_source(path, states.get(path), run, batch, next(works))
                done += 1
                if progress:
                    progress(path, done)
            touched.update(row["dst"] for row in batch.rels.get("MENTIONS", []))
            mark(touched)
            self.store.write(batch)
        if plan.vanished:
            batch = WriteBatch()
            for path in plan.vanished:
                run.seq = self._remove_source(path, batch, run.seq)
            mark(touched)
            self.store.write(batch)
        regroup_batch, report.regrouped = regroup(self.store, touched, self.entity_judge)
        mark(touched | report.regrouped.groups)
        self.store.write(regroup_batch)
        if len(todo) >= self.config.compile.index_rebuild_sources:
            self.store.checkpoint()  # a bulk compile's last writes leave memory before detection needs it
        def pages_change(claims: set[str]) -> None:  # contradictions changed: the pages of their sources
            mark(touched | report.regrouped.groups, set(claim_source_paths(self.store, claims)))

        found = detect(self.store, self.judge, self.config.single_valued, self.config.min_confidence,
                       before_write=pages_change)
        # Full-text indexes (kg/retrieve/search.py) cannot be updated in place on Kuzu 0.11.3: a rebuild costs
        # 0.3 s on a handful of sources (each CREATE_FTS_INDEX has a fixed cost) and seconds on a large
        # graph. Rebuild now after a bulk change; after a small one leave them dropped: the next
        # `kg search` / `kg query` rebuilds them, so an edit-compile loop stays fast at any size.
        if len(todo) + len(plan.vanished) >= self.config.compile.index_rebuild_sources:
            refresh_indexes(self.store, ("Claim", "Chunk"))
        report.contradictions, report.superseded = found.found, found.superseded
        report.seconds = time.perf_counter() - started
        return report

    # one source ----------------------------------------------------------------------------

    def extractions(self, todo: Sequence[str], keys: KeyIndex | None) -> Iterator[Extracted | None]:
        """Each source's pure work (`SourceWork`), in todo's order, run by the engine. A remote
        engine gets the extractor without its reply cache and no view of the graph, so only an
        extractor that needs neither runs there (the heuristic one)."""
        extractor = self.extractor
        if self.engine.remote:
            if extractor.cacheable or extractor.wants_known_entities:
                raise ConfigError(
                    f"--engine {self.engine.name} runs the offline heuristic extractor only: the {extractor.name} "
                    "extractor writes a reply cache and is shown the graph's known names, which workers do not "
                    f"share with the writer. Use -x heuristic, or leave out --engine {self.engine.name}.")
            extractor = copy.copy(extractor)
            extractor.cache = None  # a live SQLite handle: not sent (and not used by a non-cacheable extractor)
        return self.engine.map(self.source_work(extractor, keys), todo)

    def source_work(self, extractor: Extractor, keys: KeyIndex | None) -> SourceWork:
        names = (functools.partial(self._known_names, keys=keys)
                 if extractor.wants_known_entities and not self.engine.remote else None)
        return SourceWork(self.kb.raw, self.kb.converted_path, self.config.compile.max_source_bytes,
                          self.config.authority, self.config.compile.chunk_chars, extractor, names)

    def _compile_source(self, path: str, state: SourceState | None, run: CompileRun, batch: WriteBatch,
                        work: Extracted | None = None) -> None:
        now = now_iso()
        report, seq = run.report, run.seq
        slug = state.slug if state else unique_slug(Path(path).with_suffix("").as_posix(), run.slugs, identity=path)
        run.slugs.add(slug)
        if state is not None:
            retract_source_evidence(batch, path, now)
        if work is None:  # no engine ran it: done here
            work = self.source_work(self.extractor, run.keys)(path)
        stat = work.stat
        if work.empty:
            report.empty[path] = list(work.empty)
        if work.fallbacks:
            report.fallbacks[path] = work.fallbacks
        try:
            if work.error is not None:
                raise SourceError(work.error)
            source_row, unverified = self._write_extracted(work, slug, run, batch, now)
        except Exception as exc:  # one source's failure never stops the others
            exc = source_error(path, exc, self.extractor.name)
            report.failed[path] = str(exc)
            data = (self.kb.raw / path).read_bytes() if (self.kb.raw / path).exists() else b""
            source_row = {
                "path": path, "slug": slug, "sha256": sha256_bytes(data), "title": Path(path).stem, "kind": "unknown",
                "bytes": len(data), "authority": 0, "ingested_at": now, "compiled_at": now, "status": "failed",
                "error": str(exc), "extractor": self.extractor.label, "chunks": 0, "unverified": 0,
            }
            batch.add("LogEntry", {"seq": seq, "at": now, "op": "fail", "subject": path, "detail": str(exc)})
        else:
            report.compiled += 1
            report.unverified += unverified
            op = "ingest" if state is None or state.status == "removed" else "update"
            detail = f"{source_row['chunks']} chunks, sha256 {source_row['sha256'][:12]}"
            batch.add("LogEntry", {"seq": seq, "at": now, "op": op, "subject": path, "detail": detail})
        same_size = stat is not None and stat.st_size == source_row["bytes"]
        source_row["file_stat"] = trusted_signature(stat, work.before) if same_size else None
        self.put_source(batch, state, source_row)
        run.seq = seq + 1

    def put_source(self, batch: WriteBatch, state: SourceState | None, source_row: dict[str, Any]) -> None:
        """Queue a compiled (or failed) source's row: created, or its changed columns SET."""
        if state is None:
            batch.add("Source", source_row)
        else:
            # SET only what can differ: Kuzu 0.11.3 rewrites a string column's whole node group
            # (131k rows) at the next checkpoint for any SET in it, and keeps the old data.
            del source_row["ingested_at"], source_row["slug"]
            if source_row["title"] == state.title:
                del source_row["title"]
            batch.update("Source", source_row)

    def _write_extracted(self, work: Extracted, slug: str, run: CompileRun, batch: WriteBatch,
                         now: str) -> tuple[dict[str, Any], int]:
        doc = work.doc
        assert doc is not None
        claims = work.claims
        for row in claims.values():
            row["recorded_at"] = now
        for row in work.evidence:
            row["recorded_at"] = now
        self.write_records(doc.path, SourceRows(claims, work.about, work.related, work.evidence, work.mentions),
                           run, batch, now)
        source_row = {
            "path": doc.path, "slug": slug, "sha256": doc.sha256, "title": doc.title, "kind": doc.kind,
            "bytes": doc.bytes, "authority": doc.authority, "ingested_at": now, "compiled_at": now,
            "status": "compiled", "error": None, "extractor": self.extractor.label, "chunks": len(work.chunks),
            "unverified": work.unverified,
        }
        add_chunks(batch, doc.path, doc.sha256, work.chunks)  # search: the source's text, replacing old chunks
        return source_row, work.unverified

    def write_records(self, path: str, rows: SourceRows, run: CompileRun, batch: WriteBatch, now: str) -> None:
        """Queue what one source says in batch: claims new to the graph are created, known ones made live
        again, entities new to the graph created from what this source says of them. A compile's
        extraction and `kg merge`'s bundle records (kg/share/merge.py) both write through here."""
        claims, mentions, report, created = rows.claims, rows.mentions, run.report, run.created
        batched = set(batch_ids(batch, "Claim"))  # written by an earlier source of this batch: that one's rows stand
        claims = {cid: row for cid, row in claims.items() if cid not in batched}
        existing = self.store.existing_ids("Claim", sorted(claims))
        for cid in sorted(claims):
            if cid in existing:  # live again, or with changed evidence: contradiction detection sees it again
                batch.update("Claim", {"id": cid, "status": "live", "retracted_at": None, "checked_at": ""})
            else:
                batch.add("Claim", claims[cid])
                report.claims_added += 1
                report.new_claim_ids.add(cid)
        fresh = {cid for cid in claims if cid not in existing}
        for row in rows.about:
            if row["src"] in fresh:
                batch.relate("ABOUT", row)
        for row in rows.related:
            if row["claim_id"] in fresh:
                batch.relate("RELATED", row)
        for row in rows.evidence:
            batch.relate("EXTRACTED_FROM", row)
        fresh_entities = sorted(e for e in mentions if e not in created)
        exists = (run.known.__contains__ if run.known is not None else
                  self.store.existing_ids("Entity", fresh_entities).__contains__)
        for entity_id in fresh_entities:
            if not exists(entity_id):
                mention = mentions[entity_id]
                batch.add("Entity", {"id": entity_id, "key": mention.key, "name": mention.name, "type": mention.type,
                                     "aliases": [], "summary": mention.description, "status": "live",
                                     "created_at": now})
                report.entities_added += 1
            created.add(entity_id)
        for entity_id, mention in sorted(mentions.items()):
            batch.relate("MENTIONS", mention.row(path, entity_id))

    # removal -------------------------------------------------------------------------------

    def _known_names(self, text: str, keys: KeyIndex | None, limit: int = 100, max_words: int = 5) -> list[str]:
        """Names of known entities the text mentions (word n-grams looked up by key), for an
        extractor that is shown them so that it reuses their names (the LLM extractors)."""
        if keys is None:
            return []
        words = re.findall(r"[\w'’&+#-]+", text)
        found: dict[str, None] = {}
        for size in range(max_words, 0, -1):
            for i in range(len(words) - size + 1):
                entity = keys.id_of.get(fast_name_key(" ".join(words[i : i + size])))
                if entity is not None and len(found) < limit:
                    found.setdefault(entity, None)
        names = entity_names(self.store, list(found))
        return [names[e] for e in found if e in names]

    def _remove_source(self, path: str, batch: WriteBatch, seq: int) -> int:
        now = now_iso()
        retract_source_evidence(batch, path, now)
        mark_source_removed(batch, path, now)
        batch.add("LogEntry", {"seq": seq, "at": now, "op": "remove", "subject": path, "detail": "deleted from raw/"})
        return seq + 1


def batch_ids(batch: WriteBatch, table: str) -> Sequence[str]:
    return [row["id"] for row in batch.nodes.get(table, [])]
