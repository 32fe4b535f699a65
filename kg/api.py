"""What the CLI commands do, as plain functions over a KnowledgeBase. No printing here."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.cache import ResponseCache
from kg.compile.bulk import gc_paused
from kg.compile.engine import Engine
from kg.compile.pipeline import CompileReport, load_source_states, plan_compile
from kg.compile.sources import SUPPORTED_SUFFIXES, IngestReport, in_selection, ingest_paths
from kg.errors import ConfigError, GraphOutdated, KgError, QueryError
from kg.extract import EMPTY_EXTRACTION
from kg.graph.journal import Journal
from kg.graph.sources import failed_sources
from kg.graph.store import Store
from kg.kb import KnowledgeBase, init
from kg.llm.backends import extractor_name, make_compiler, make_entity_judge
from kg.llm.ledger import save_run
from kg.maintain.provenance import stale_claims

if TYPE_CHECKING:  # the modules behind these types load only with the commands that use them
    from exporters.wiki import RenderReport
    from kg.embed import Embedder
    from kg.graph.guard import Limits, ReadPool
    from kg.graph.store import CompactReport
    from kg.learn.export import ExportReport as LearnExport
    from kg.maintain.lint import LintReport
    from kg.maintain.provenance import ClaimReport
    from kg.share.bundle import ExportReport as BundleExport
    from kg.share.bundle import VerifyReport
    from kg.share.merge import MergeReport


def open_store(kb: KnowledgeBase, read_only: bool = False) -> Store:
    """The graph; opened for writing, with the journal that keeps what cannot be recomputed."""
    return Store(kb.db_path, read_only=read_only, journal=None if read_only else Journal(kb.journal_path))


def init_kb(root: Path) -> tuple[KnowledgeBase, list[str]]:
    """`kg init`: the folders, kg.toml, AGENTS.md (exporters/templates/AGENTS.md) and CLAUDE.md
    (Claude Code reads CLAUDE.md; it imports AGENTS.md). Safe to re-run: nothing is overwritten."""
    from exporters.render import agents_md

    return init(root, {"AGENTS.md": agents_md(), "CLAUDE.md": "@AGENTS.md\n"})


def select_sources(kb: KnowledgeBase, paths: Sequence[str | Path] | None) -> list[str] | None:
    """Files or folders named on a command line -> paths relative to raw/ (None: all of raw/).

    A path is taken relative to the current folder when that lands in raw/, else relative to raw/.
    It need not exist: a deleted source is compiled as removed."""
    if not paths:
        return None
    raw = Path(os.path.abspath(kb.raw))
    selected = set()
    for given in paths:
        full = Path(os.path.abspath(given))
        if not full.is_relative_to(raw):
            full = Path(os.path.abspath(raw / given))
        if not full.is_relative_to(raw):
            raise ConfigError(f"{given} is not in raw/ ({kb.raw}); kg compiles only files in raw/. "
                          "Add new files with `kg ingest PATH`.")
        rel = full.relative_to(raw).as_posix()
        if rel == ".":
            return None
        selected.add(rel)
    return sorted(selected)


def _check_selection(kb: KnowledgeBase, only: Sequence[str], plan: Any) -> None:
    """Every path asked for names a source (on disk or in the graph): a typo must not pass as
    'nothing to compile'."""
    planned = [*plan.new, *plan.changed, *plan.unchanged, *plan.vanished, *plan.retry]
    named = set(planned)
    for rel in only:
        if rel not in named and not any(in_selection(path, [rel]) for path in planned):
            what = "has no source kg reads" if (kb.raw / rel).is_dir() else \
                f"is not a source kg reads ({', '.join(sorted(SUPPORTED_SUFFIXES))})" if (kb.raw / rel).exists() else \
                "does not exist and was never compiled"
            raise ConfigError(f"raw/{rel} {what}. Name files or folders in raw/ ({kb.raw}), or no path to compile all of it.")


def compile_kb(kb: KnowledgeBase, extractor: str | None = None, progress: Any = None, render: bool = True,
               on_plan: Any = None, only: Sequence[str] | None = None,
               engine: Engine | None = None) -> tuple[CompileReport, Any]:
    """Compile new and changed sources, then re-render the pages that depend on them.

    `only`: paths relative to raw/ (see select_sources); the sources at or under them are
    compiled, and the rest of raw/ is not even looked at (a one-file edit at 50k sources skips
    stat-ing the other files and reading their rows).

    `engine`: where each source's extraction runs (kg/compile/engine.py; default: this process).
    Whichever it is, this process writes the results in the same order: the same graph and wiki.

    A marker in .kg/ records which sources changed before anything is written, and is removed
    only after the wiki has been rendered: a compile killed half-way renders on the next run.
    """
    config = kb.config()
    try:
        opened = open_store(kb)
    except GraphOutdated:  # made by an older kg: built again from raw/ (replies from the cache)
        from kg.maintain.doctor import rebuild

        rebuilt = rebuild(kb, "the graph was made by an older kg", extractor, progress)
        report = CompileReport(plan_compile(kb.raw), compiled=rebuilt.sources, failed=rebuilt.failed,
                               claims_added=rebuilt.claims, entities_added=rebuilt.entities, seconds=rebuilt.seconds)
        return report, None
    cache = ResponseCache(kb.cache_path)
    try:
        with opened as store:
            compiler = make_compiler(kb, store, config, extractor, cache)
            if engine is not None:
                compiler.engine = engine
            plan = compiler.plan(only)
            if only is not None:
                _check_selection(kb, only, plan)
            if on_plan:
                on_plan(plan)
            sources, entities = kb.pending()  # left by a compile that was killed before its render
            sources |= set(plan.to_compile) | set(plan.vanished)
            if sources or entities:
                kb.mark_pending(sources, entities)
            # A small compile makes little garbage but, at 50k sources, holds ~10^6 objects (sources,
            # entities) that each collection of the oldest generation walks: ~0.1 s per edit. Paused.
            small = len(sources) < config.compile.index_rebuild_sources
            with gc_paused() if small else nullcontext():
                report = compiler.compile(plan, progress, pending=entities, mark=pending_marker(kb, sources, entities))
                save_run(kb.ledger_path)
                sources, entities = kb.pending()
                rendered = None
                if render and (sources or entities or not (kb.wiki / "index.md").exists()):
                    rendered = render_kb_wiki(store, kb, sources, entities)
                    if (kb.learning / "cards.jsonl").is_file():  # the person uses cards: keep them current
                        from kg.learn.deck import update_learning

                        try:
                            with card_writer(kb, offline=extractor == "heuristic") as writer:
                                update_learning(kb, store, rendered.entities, writer)
                        except KgError as exc:  # the compile and render stand; `kg cards` remakes them
                            logging.getLogger("kg").warning("learning/ cards not updated (%s); run `kg cards`", exc)
            return report, rendered
    finally:
        cache.close()


def pending_marker(kb: KnowledgeBase, sources: set[str], entities: set[str]) -> Callable[..., None]:
    """The `mark` of a compile: records what the wiki will have to show, before each write; the
    sources it is told of are added to those already recorded."""
    extra: set[str] = set()

    def mark(touched: set[str], more: Iterable[str] = ()) -> None:
        extra.update(more)
        kb.mark_pending(sources | extra, entities | touched)

    return mark


def render_kb_wiki(store: Store, kb: KnowledgeBase, changed_sources: set[str] | None = None,
                   changed_entities: Iterable[str] = ()) -> RenderReport:
    from exporters.render import (
        render_kb_wiki as render,  # jinja: loaded only by commands that render
    )

    return render(store, kb, changed_sources, changed_entities)


def compact_kb(kb: KnowledgeBase) -> CompactReport:
    """Rewrite the graph file without the dead data Kuzu keeps after updates (kg/graph/store.py compact)."""
    from kg.errors import StoreError
    from kg.graph.store import compact

    if not kb.db_path.exists():
        raise StoreError("No graph yet. Run `kg compile` first.")
    return compact(kb.db_path)


def render_kb(kb: KnowledgeBase) -> RenderReport:
    with open_store(kb) as store:
        return render_kb_wiki(store, kb)


def claim_show(kb: KnowledgeBase, claim_id: str) -> ClaimReport:
    """A claim with its evidence cut from raw/ (hash-checked), entities and contradictions."""
    from kg.maintain.provenance import claim_report

    check_text(claim_id, "The claim id", MAX_NAME_CHARS, name=True)
    with open_store(kb, read_only=True) as store:
        return claim_report(store, kb.raw, claim_id, kb.converted_path)


def explain(kb: KnowledgeBase, only: Sequence[str] | None = None) -> dict[str, Any]:
    """What a compile would do, before doing it: the plan and the pages it would rewrite
    (estimated from the graph as it is: the changed sources' pages, the entities they touch,
    pages linked to or from those, and index, log and contradictions)."""
    from exporters.incremental import blast_radius
    from exporters.indexes import listing_pages
    from exporters.logpages import latest_parts

    if not kb.db_path.exists():
        plan = plan_compile(kb.raw, only=only)
        return {"plan": plan.as_dict(), "pages": ["(everything: first compile)"]}
    with open_store(kb, read_only=True) as store:
        plan = plan_compile(kb.raw, load_source_states(store, only), only)
        changed = set(plan.to_compile) | set(plan.vanished)
        pages = sorted(blast_radius(store, changed, kb.wiki).all_pages()) if changed else []
    if changed:
        pages += [*sorted(listing_pages(kb.wiki, set(pages))), "contradictions", "index", "log"]
        pages += latest_parts(kb.wiki, datetime.now(UTC).strftime("%Y-%m"))
    return {"plan": plan.as_dict(), "pages": pages}


def entity_show(kb: KnowledgeBase, ref: str) -> dict[str, Any]:
    from kg.maintain import entities

    check_text(ref, "The entity name", MAX_NAME_CHARS, name=True)
    with open_store(kb, read_only=True) as store:
        return entities.show(store, ref)


def entity_merge(kb: KnowledgeBase, alias: str, target: str | None = None) -> dict[str, Any]:
    """`target` given: merge alias into it; else undo the merges of `alias`. Re-renders the wiki."""
    from kg.maintain import entities

    config = kb.config()
    cache = ResponseCache(kb.cache_path)
    try:
        judge = make_entity_judge(config, None, cache)  # the groups are the compile's: the same judge
        with open_store(kb) as store:
            result = entities.merge(store, alias, target, judge) if target else entities.unmerge(store, alias, judge)
            render_kb_wiki(store, kb)
    finally:
        cache.close()
    return result


def ingest(kb: KnowledgeBase, paths: Sequence[str | Path]) -> IngestReport:
    """Copy files or folders into raw/, and fetch URLs into raw/web/ (kg/compile/fetch.py)."""
    from kg.compile.fetch import fetch_into, is_url

    urls = [str(p) for p in paths if isinstance(p, str) and is_url(p)]
    report = ingest_paths(kb.raw, [Path(p) for p in paths if not (isinstance(p, str) and is_url(p))])
    for url in urls:
        rel, new = fetch_into(kb.raw, url, kb.config().compile.max_source_bytes)
        (report.copied if new else report.already_present).append(rel)
    return report


@dataclass
class Status:
    root: str
    extractor: str
    counts: dict[str, int]
    changed: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    vanished: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    stale_claims: int = 0  # live claims whose source changed or vanished on disk since compiled
    llm_usage: dict[str, Any] = field(default_factory=dict)  # .kg/ledger.json: last run and running total
    compiled: bool = True
    past_freshness: int = 0  # sources older than their [freshness] limit (kg lint lists them)
    empty_extractions: list[str] = field(default_factory=list)  # failed: the LLM gave no claims for them

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def status(kb: KnowledgeBase) -> Status:
    from kg.maintain.freshness import overdue_sources

    config = kb.config()
    name = extractor_name(config)
    overdue = len(overdue_sources(kb.raw, config))
    if not kb.db_path.exists():
        plan = plan_compile(kb.raw)
        return Status(str(kb.root), name, {"Source": 0, "Entity": 0, "Claim": 0, "Page": 0, "Contradiction": 0},
                      new=plan.new, compiled=False, past_freshness=overdue)
    with open_store(kb, read_only=True) as store:
        states = load_source_states(store)
        counts = store.counts()
        failed = {r["path"]: r["error"] for r in failed_sources(store)}
        plan = plan_compile(kb.raw, states)
        stale = stale_claims(store, plan.changed + plan.vanished)
    try:
        usage = json.loads(kb.ledger_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        usage = {}
    empty = sorted(path for path, error in failed.items() if f": {EMPTY_EXTRACTION}: " in (error or ""))
    return Status(str(kb.root), name, counts, changed=plan.changed, new=plan.new, vanished=plan.vanished, failed=failed,
                  stale_claims=len(stale), llm_usage=usage, past_freshness=overdue, empty_extractions=empty)


class CypherRows(list[dict[str, Any]]):
    """Rows of a Cypher query (dicts keyed by the RETURN names), as many as the row and size caps let
    through; `columns` in order, `truncated` when more were left unread."""

    def __init__(self, rows: Iterable[dict[str, Any]] = (), columns: Sequence[str] = (), truncated: bool = False) -> None:
        super().__init__(rows)
        self.columns = list(columns)
        self.truncated = truncated


def cypher(kb: KnowledgeBase, query: str, params: dict[str, Any] | None = None, write: bool = False,
           max_rows: int = 100_000, max_bytes: int = 256 * 2**20) -> CypherRows:
    """Run Cypher. Read-only unless `write`: the database is opened read-only, so writes fail.
    Rows are fetched until `max_rows` or about `max_bytes`, never converted whole."""
    check_text(query, "The Cypher query", MAX_CYPHER_CHARS)
    if params is not None and len(json.dumps(params, default=str)) > MAX_CYPHER_CHARS:
        raise QueryError(f"The query's parameters are over {MAX_CYPHER_CHARS:,} characters: pass less, "
                         "or match on keys the graph already holds.")
    with open_store(kb, read_only=not write) as store:
        try:
            columns, rows, cut = store.rows(query, params or {}, max_rows, max_bytes)
        except QueryError as exc:
            hint = " Add --write to run a query that changes the graph." if not write and "read-only" in str(exc).lower().replace("read only", "read-only") else ""
            raise QueryError(f"Cypher failed: {exc}{hint}") from exc
    return CypherRows((dict(zip(columns, row, strict=True)) for row in rows), columns, cut)


def parse_param(text: str) -> tuple[str, Any]:
    """`name=value`; value is parsed as JSON when it can be (numbers, lists), else kept as a string."""
    if "=" not in text:
        raise QueryError(f"--param {text!r} must look like name=value.")
    name, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return name.strip(), value


# limits on every read (issue 32) ---------------------------------------------------------------

MAX_CYPHER_CHARS = 100_000  # a Cypher query (and its parameters, as JSON)
MAX_TEXT_CHARS = 5_000  # a search string or a question: a long paragraph, not a document
MAX_NAME_CHARS = 1_000  # an entity name, a claim id, a wiki page path
MIN_BUDGET, MAX_BUDGET = 200, 50_000  # tokens kg query's navigator may read


def check_text(value: str, what: str, limit: int, name: bool = False) -> str:
    """`value` when it is within `limit` characters (and, for a `name`, holds no control characters)."""
    if len(value) > limit:
        raise QueryError(f"{what} is {len(value):,} characters long; at most {limit:,} are accepted. "
                         "Shorten it to what matters.")
    if name and any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in value):
        raise QueryError(f"{what} holds control characters; pass the name as it is written on a page.")
    return value


def read_limits(kb: KnowledgeBase, served: bool = False, timeout: float | None = None) -> Limits:
    """The limits of one read: [limits] in kg.toml for the CLI (`served`: for kg mcp and kg serve),
    `timeout` (seconds) overriding the time limit."""
    from kg.graph.guard import Limits

    cfg = kb.config().limits
    prefix = "serve_" if served else ""
    seconds = cfg.serve_timeout_seconds if served else cfg.timeout_seconds
    time_setting = f"[limits] {prefix}timeout_seconds in kg.toml"
    if timeout is not None:
        seconds, time_setting = timeout, "--timeout" if not served else "the call's timeout"
    return Limits(seconds, cfg.serve_memory_mb if served else cfg.memory_mb, time_setting,
                  f"[limits] {prefix}memory_mb in kg.toml")


def reader(kb: KnowledgeBase, served: bool = False, timeout: float | None = None, size: int = 1,
           idle_seconds: float | None = None) -> ReadPool:
    """A ReadPool (kg/graph/guard.py) for `size` concurrent reads under this knowledge base's limits;
    `idle_seconds`: how long an idle worker waits for work before it exits (default: the pool's)."""
    from kg.graph.guard import IDLE_SECONDS, ReadPool

    return ReadPool(read_limits(kb, served, timeout), size, IDLE_SECONDS if idle_seconds is None else idle_seconds)


def bounded(kb: KnowledgeBase, timeout: float | None, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` once, in a worker process under the CLI's limits (kg cypher, search, query)."""
    with reader(kb, timeout=timeout) as pool:
        return pool.call(fn, *args, **kwargs)


# search, query, lint (issue 6) ----------------------------------------------------------------


PREPARE_BATCH = 16  # texts per model call when embedding everything: a quarter of the memory of 64, as fast on a CPU
_KEPT_EMBEDDERS: dict[tuple[str, str], Any] = {}  # a read worker's embedders: (vectors file, name) -> Embedder


def _embedder(kb: KnowledgeBase, name: str) -> Embedder:
    """An embedder whose vectors are cached in .kg/vectors.sqlite, once per content hash. A read
    worker that keeps its graph open (kg/graph/kept.py) keeps it too: its model loads once."""
    from kg.embed import VectorCache, make_embedder
    from kg.graph.kept import keeping

    if not keeping():
        return make_embedder(name, VectorCache(kb.vectors_path))
    place = (str(kb.vectors_path), name)
    if place not in _KEPT_EMBEDDERS:
        _KEPT_EMBEDDERS[place] = make_embedder(name, VectorCache(kb.vectors_path))
    return _KEPT_EMBEDDERS[place]


def _done_with(emb: Any) -> None:
    if emb is not None and emb.cache is not None and all(emb is not e for e in _KEPT_EMBEDDERS.values()):
        emb.cache.close()


def prepare_vectors(kb: KnowledgeBase, embedder: str = "minilm", progress: Any = None) -> int:
    """Embed what vector search covers and .kg/vectors.sqlite lacks, as a first vector search would
    (`kg serve` does it as it starts, beside its pages). The graph is closed while the texts are
    embedded (minutes for a large one): a compile gets in meanwhile. Returns the texts embedded."""
    from kg.graph import kept
    from kg.graph.store import Store
    from kg.retrieve.search import VECTOR_SLICE, Searcher

    emb = _embedder(kb, embedder)
    before, batch = emb.embedded, emb.batch_size
    emb.batch_size = min(batch, PREPARE_BATCH)
    try:
        with Store(kb.db_path, read_only=True) as store:  # no search index needed: the first search builds them
            _, texts = Searcher(store, emb).corpus()
        kept.release(kb.db_path)  # a read worker would hold it until its next call
        for start in range(0, len(texts), VECTOR_SLICE):
            emb.embed(texts[start : start + VECTOR_SLICE])  # each slice kept in the cache as it is done
            if progress is not None:
                progress(min(start + VECTOR_SLICE, len(texts)), len(texts), emb.embedded - before)
        return int(emb.embedded - before)
    finally:
        emb.batch_size = batch
        _done_with(emb)


def search_kb(kb: KnowledgeBase, text: str, mode: str | None = None, k: int = 10, expand: bool = False,
              embedder: str = "minilm", progress: Any = None, on_rebuild: Any = None) -> Any:
    """`progress(done, total, embedded)`: see Searcher (the first vector search embeds everything);
    `on_rebuild()`: the search indexes are being built first (see kg.retrieve.search.indexed_store).
    `mode` None: the one default (kg/retrieve/settings.py DEFAULT_MODE)."""
    from kg.graph.fts import indexed_store
    from kg.retrieve.search import Searcher
    from kg.retrieve.settings import DEFAULT_MODE

    mode = mode or DEFAULT_MODE

    check_text(text, "The search text", MAX_TEXT_CHARS)
    if not text.strip():
        raise QueryError("The search text is empty: pass the words to look for.")
    emb = _embedder(kb, embedder) if mode != "bm25" else None
    try:
        with indexed_store(kb.db_path, on_rebuild=on_rebuild) as store:  # a small compile leaves them to the first search
            return Searcher(store, emb, progress).search(text, mode, k, expand)
    finally:
        _done_with(emb)


def query_kb(kb: KnowledgeBase, question: str, budget: int = 2000, save: bool = False, embedder: str = "minilm",
             offline: bool = False, mode: str | None = None, progress: Any = None,
             on_rebuild: Any = None, form: str = "page") -> Any:
    """Navigate, answer (LLM when configured, else extractive) in a form, optionally file the answer back.

    Returns a `QueryResult` (kg/retrieve/answer.py): the answer, the navigation, the saved page id or None.
    """
    result = answer_question(kb, question, budget, embedder, offline, mode, progress, on_rebuild, form)
    if save:
        result.saved_page = save_answer_kb(kb, result.answer, result.page_body())
    return result


ANSWER_FORMS = ("auto", "page", "table", "chart", "canvas", "slides")


def answer_question(kb: KnowledgeBase, question: str, budget: int = 2000, embedder: str = "minilm",
                    offline: bool = False, mode: str | None = None, progress: Any = None,
                    on_rebuild: Any = None, form: str = "page") -> Any:
    """The read half of `kg query`: a QueryResult in `form` (ANSWER_FORMS; exporters/forms.py),
    not filed back. Writes nothing but the LLM ledger."""
    from kg.graph.fts import indexed_store
    from kg.retrieve.answer import QueryResult, extractive_answer, llm_answer, make_answer_client
    from kg.retrieve.navigate import Navigator
    from kg.retrieve.search import Searcher
    from kg.retrieve.settings import DEFAULT_MODE
    from kg.retrieve.walk import GraphWalk

    check_text(question, "The question", MAX_TEXT_CHARS)
    if form not in ANSWER_FORMS:
        raise ConfigError(f"Unknown answer form {form!r}: use one of {', '.join(ANSWER_FORMS)}.")
    if not question.strip():
        raise QueryError("The question is empty: ask something in plain words, such as 'Who built ENIAC?'.")
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise QueryError(f"The budget must be between {MIN_BUDGET} and {MAX_BUDGET:,} tokens (got {budget}).")
    mode = mode or DEFAULT_MODE  # the one default of kg query, kg search and the MCP tools
    config = kb.config()
    provider = "heuristic" if offline else extractor_name(config)
    emb = _embedder(kb, embedder) if mode != "bm25" else None
    try:
        with indexed_store(kb.db_path, on_rebuild=on_rebuild) as store:  # see search_kb
            walk = GraphWalk(store, cache=kb.walk_graph_path)  # saved between processes: kg/retrieve/walk.py
            nav = Navigator(store, emb, Searcher(store, emb, progress), walk).navigate(question, budget, mode)
            if provider == "heuristic":
                result = QueryResult(extractive_answer(nav), nav)
            else:
                client, model = make_answer_client(config, provider)
                answer = llm_answer(nav, client, model, provider, max_retries=config.llm.validation_retries)
                save_run(kb.ledger_path)  # what the answer cost joins the ledger `kg status` shows
                result = QueryResult(answer, nav)
            if form == "page":
                return result
            from exporters.forms import shape

            return shape(store, result, form)
    finally:
        _done_with(emb)


def save_answer_kb(kb: KnowledgeBase, answer: Any, body: str | None = None) -> str:
    """File an answer back (`kg query --save`): its page (`body`: the page of its form, see
    QueryResult.page_body) and the file its form draws, index.md, log.md. Returns the page id."""
    from exporters.answers import companion_files
    from exporters.incremental import write_in_place
    from kg.graph.fts import indexed_store
    from kg.retrieve.answer import save_answer

    with indexed_store(kb.db_path, writable=True, journal=kb.journal_path) as store:
        page = save_answer(store, answer, body)
        render_kb_wiki(store, kb, {s.source_path for c in answer.claims for s in c.citations})
    # the form's file: drawn from the page just rendered, any other form's file of this page removed
    page_file = kb.wiki / "answers" / f"{page}.md"
    drawn = companion_files(page, body or "", page_file.read_text(encoding="utf-8")) if page_file.is_file() else {}
    stale = [rel for suffix in (".png", ".canvas", ".slides.md") if (rel := f"answers/{page}{suffix}") not in drawn]
    write_in_place(drawn, kb.wiki, remove=[rel for rel in stale if (kb.wiki / rel).exists()])
    return page


def form_file(result: Any) -> tuple[str, str | bytes] | None:
    """(suffix, content) of the file an answer's form draws (chart PNG, canvas, Marp deck), or None."""
    from exporters.answers import companion_files
    from kg.retrieve.answer import page_id

    pid = page_id(result.answer.question)
    drawn = companion_files(pid, result.body, f"# {result.answer.question}\n\n{result.page_body()}")
    for rel, content in drawn.items():
        return rel.removeprefix(f"answers/{pid}"), content
    return None


def lint_kb(kb: KnowledgeBase, fix: bool = False) -> LintReport:
    """Check the graph and the wiki; with `fix`, recompile stale sources and re-render, then check again."""
    from kg.maintain.lint import lint

    if not kb.db_path.exists():
        from kg.errors import StoreError

        raise StoreError("No graph yet. Run `kg compile` first.")
    with open_store(kb, read_only=True) as store:
        report = lint(kb, store)
    if not fix:
        return report
    fixed: list[str] = []
    stale = {f.subject for f in report.findings if f.check in ("stale", "uncompiled")}
    if stale:
        compiled, _ = compile_kb(kb)
        fixed.append(f"recompiled: {compiled.compiled} source(s) compiled, {len(compiled.plan.vanished)} removed "
                     f"({', '.join(sorted(stale))})")
    if any(f.check in ("wiki-outdated", "broken-link") and f.fixable for f in report.findings) or stale:
        rendered = render_kb(kb)
        fixed.append(f"re-rendered the wiki: {rendered.pages} pages")
    with open_store(kb, read_only=True) as store:
        after = lint(kb, store)
    after.fixed = fixed
    return after



# the learning layer (issue 19) -----------------------------------------------------------------

def _graph_store(kb: KnowledgeBase) -> Store:
    if not kb.db_path.exists():
        raise QueryError("No graph yet. Run `kg compile` first.")
    return open_store(kb, read_only=True)


@contextmanager
def card_writer(kb: KnowledgeBase, offline: bool = False) -> Iterator[Any]:
    """The LLM card writer when an LLM is configured (as for extraction), else None."""
    config = kb.config()
    provider = extractor_name(config)
    if offline or provider == "heuristic":
        yield None
        return
    from kg.learn.writer import LlmCardWriter
    from kg.llm.backends import make_client

    cache = ResponseCache(kb.cache_path)
    try:
        yield LlmCardWriter(make_client(config.llm, provider), cache)
    finally:
        cache.close()
        save_run(kb.ledger_path)


def cards_kb(kb: KnowledgeBase, offline: bool = False) -> dict[str, Any]:
    """Write learning/cards.jsonl, cards.md and gaps.md from the graph (cards by an LLM when one is
    configured and `offline` is not set)."""
    from kg.learn.deck import write_learning

    with _graph_store(kb) as store, card_writer(kb, offline) as writer:
        return write_learning(kb, store, writer=writer)


def review_due(kb: KnowledgeBase, now: Any = None, limit: int | None = None) -> dict[str, Any]:
    """The due cards (learning/cards.jsonl is written first if there is none)."""
    from kg.learn.cards import CARDS_JSONL
    from kg.learn.deck import due

    if not (kb.learning / CARDS_JSONL).is_file():
        cards_kb(kb)
    return due(kb, now, limit)


def review_rate(kb: KnowledgeBase, ratings: list[tuple[str, str]], at: str | None = None) -> list[dict[str, Any]]:
    """Record ratings [(card id, again|hard|good|easy)]: all checked, then each appended and synced."""
    from kg.learn.deck import rate

    return rate(kb, ratings, at)


def _export_target(kb: KnowledgeBase, path: Path) -> Path:
    target = path.expanduser().resolve()
    for folder, why in ((kb.raw, "is never written by kg"), (kb.insights, "is never written by kg"),
                        (kb.learning, "holds your review history and the generated cards"),
                        (kb.state, "holds the graph and the reply cache")):
        if target == folder.resolve() or folder.resolve() in target.parents:
            raise ConfigError(f"Refusing to write {path}: {folder.name}/ {why}. Choose a path outside it.")
    if target.is_dir():
        raise ConfigError(f"{path} is a folder: give a file name.")
    return target


def write_export(kb: KnowledgeBase, path: Path, content: str | bytes) -> Path:
    """Write an export to `path`, never into raw/, insights/, learning/ or .kg/."""
    from kg.learn.export import write_file

    target = _export_target(kb, path)
    write_file(target, content.encode("utf-8") if isinstance(content, str) else content)
    return target


def export_anki(kb: KnowledgeBase, path: Path) -> LearnExport:
    from kg.learn.deck import load_cards
    from kg.learn.export import anki

    target = _export_target(kb, path)
    if not (kb.learning / "cards.jsonl").is_file():
        cards_kb(kb)
    return anki(load_cards(kb), f"kg: {kb.root.name}", target)


def export_finetune(kb: KnowledgeBase, path: Path, fmt: str, min_confidence: float = 0.0,
                    include_contradicted: bool = False) -> LearnExport:
    from exporters.pages import load_wiki_graph
    from kg.learn.cards import build_cards
    from kg.learn.export import finetune

    target = _export_target(kb, path)
    if not 0.0 <= min_confidence <= 1.0:
        raise ConfigError(f"--min-confidence {min_confidence} is outside 0..1.")
    with _graph_store(kb) as store:
        graph = load_wiki_graph(store)
    return finetune(build_cards(graph), graph, target, fmt, min_confidence, include_contradicted)


def export_slides(kb: KnowledgeBase, page: str, path: Path) -> LearnExport:
    from kg.learn.export import slides

    target = _export_target(kb, path)
    name = page.strip().removeprefix("wiki/").removesuffix(".md")
    source = (kb.wiki / f"{name}.md").resolve()
    if kb.wiki.resolve() not in source.parents or not source.is_file():
        raise QueryError(f"No wiki page {page!r}: give an entity or answer page such as entities/<id> or answers/<id>.")
    return slides(source.read_text(encoding="utf-8"), name, target)


def export_canvas(kb: KnowledgeBase, entity: str, path: Path, hops: int = 1) -> LearnExport:
    """An entity's neighbourhood as a JSON Canvas file (what Obsidian opens as .canvas)."""
    from kg.learn.export import canvas
    from kg.maintain.entities import find_entity

    check_text(entity, "The entity name", MAX_NAME_CHARS, name=True)
    if not 0 <= hops <= 3:
        raise ConfigError(f"--hops {hops} is outside 0..3: a wider neighbourhood is no longer readable as a canvas.")
    target = _export_target(kb, path)
    with _graph_store(kb) as store:
        return canvas(store, find_entity(store, entity)["id"], hops, target)


def bundle_keygen(folder: Path | None = None) -> tuple[Path, Path, str]:
    """A new Ed25519 key pair for signing bundles: (private key, public key, key id)."""
    from kg.share.bundle import keygen

    return keygen(folder)


def bundle_export(kb: KnowledgeBase, folder: Path, key: Path | None = None, shard_id: str | None = None) -> BundleExport:
    """The knowledge base's compiled knowledge as a signed shard bundle in folder (new or empty)."""
    from kg.share.bundle import export

    return export(kb, folder, key, shard_id)


def bundle_verify(folder: Path, key: Path | None = None) -> VerifyReport:
    """Check a bundle's format, signature, file digests and evidence sources (a report, never raises)."""
    from kg.share.bundle import verify

    return verify(folder, key)


def merge_kb(kb: KnowledgeBase, folders: Sequence[Path], authority: Sequence[str] = ()) -> tuple[MergeReport, RenderReport | None]:
    """`kg merge`: shard bundles into this knowledge base (kg/share/merge.py), then the wiki.

    Every bundle is verified and every shard's key checked before anything is written; the
    sources go through the compiler's writer and whole-graph steps as a compile's do, marked
    pending until rendered (as in compile_kb)."""
    from kg.share import merge

    shares = merge.parse_authority(authority)
    bundles = merge.load_bundles(kb, folders)
    merge.check_authority(bundles, shares)
    config = kb.config()
    report = merge.MergeReport()
    cache = ResponseCache(kb.cache_path)
    try:
        with open_store(kb) as store:
            base = make_compiler(kb, store, config, None, cache)
            plan, records = merge.plan_merge(base, bundles, shares, report)
            compiler = merge.MergeCompiler(base, records)
            sources, entities = kb.pending()
            sources |= set(plan.to_compile) | set(plan.vanished)
            if sources or entities:
                kb.mark_pending(sources, entities)
            report.compile = compiler.compile(plan, pending=entities, mark=pending_marker(kb, sources, entities))
            merge.record_shards(kb, bundles, shares)
            save_run(kb.ledger_path)
            sources, entities = kb.pending()
            rendered = None
            if sources or entities or not (kb.wiki / "index.md").exists():
                rendered = render_kb_wiki(store, kb, sources, entities)
            return report, rendered
    finally:
        cache.close()
