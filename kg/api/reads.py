"""Reads every face makes (the CLI, the web pages' JSON, the MCP tools): a claim, an entity, the
state of the knowledge base, Cypher, search and questions, lint. Each opens the graph read-only
and returns a record (`as_dict` for JSON); in a face they run in a read worker (api.reader)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kg.api.limits import (
    MAX_BUDGET,
    MAX_CYPHER_CHARS,
    MAX_NAME_CHARS,
    MAX_TEXT_CHARS,
    MIN_BUDGET,
    check_text,
    loads,
)
from kg.api.stores import open_store
from kg.errors import ConfigError, QueryError
from kg.kb import KnowledgeBase

if TYPE_CHECKING:  # the modules behind these types load only with the calls that use them
    from kg.embed import Embedder
    from kg.maintain.lint import LintReport
    from kg.maintain.provenance import ClaimReport


def claim_show(kb: KnowledgeBase, claim_id: str) -> ClaimReport:
    """A claim with its evidence cut from raw/ (hash-checked), entities and contradictions."""
    from kg.maintain.provenance import claim_report

    check_text(claim_id, "The claim id", MAX_NAME_CHARS, name=True)
    with open_store(kb, read_only=True) as store:
        return claim_report(store, kb.raw, claim_id, kb.converted_path)


def entity_show(kb: KnowledgeBase, ref: str) -> dict[str, Any]:
    from kg.maintain import entities

    check_text(ref, "The entity name", MAX_NAME_CHARS, name=True)
    with open_store(kb, read_only=True) as store:
        return entities.show(store, ref)


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
    from kg.compile.pipeline import load_source_states, plan_compile
    from kg.extract import EMPTY_EXTRACTION
    from kg.graph.sources import failed_sources
    from kg.llm.backends import extractor_name
    from kg.maintain.freshness import overdue_sources
    from kg.maintain.provenance import stale_claims

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


# search, query, lint (issue 6) ----------------------------------------------------------------


PREPARE_BATCH = 16  # texts per model call when embedding everything: a quarter of the memory of 64, as fast on a CPU
_KEPT_EMBEDDERS: dict[tuple[str, str], Any] = {}  # a read worker's embedders: (vectors file, name) -> Embedder


def _embedder(kb: KnowledgeBase, name: str | None) -> Embedder:
    """An embedder whose vectors are cached in .kg/vectors.sqlite, once per content hash. A read
    worker that keeps its graph open (kg/graph/kept.py) keeps it too: its model loads once.
    `name` None: the one kg.toml chooses ([search] embedder; MiniLM when it says nothing)."""
    from kg.embed import VectorCache, make_embedder
    from kg.graph.kept import keeping

    name = name or kb.config().search.embedder
    if not keeping():
        return make_embedder(name, VectorCache(kb.vectors_path))
    place = (str(kb.vectors_path), name)
    if place not in _KEPT_EMBEDDERS:
        _KEPT_EMBEDDERS[place] = make_embedder(name, VectorCache(kb.vectors_path))
        _KEPT_EMBEDDERS[place].long_lived = True
    return _KEPT_EMBEDDERS[place]


def _done_with(emb: Any) -> None:
    if emb is not None and emb.cache is not None and all(emb is not e for e in _KEPT_EMBEDDERS.values()):
        emb.cache.close()


def prepare_vectors(kb: KnowledgeBase, embedder: str | None = None, progress: Any = None) -> int:
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


@loads("kg.graph.fts", "kg.retrieve.search", "kg.retrieve.settings")
def search_kb(kb: KnowledgeBase, text: str, mode: str | None = None, k: int = 10, expand: bool = False,
              embedder: str | None = None, progress: Any = None, on_rebuild: Any = None,
              page: tuple[int, int, int] | None = None) -> Any:
    """`progress(done, total, embedded)`: see Searcher (the first vector search embeds everything);
    `on_rebuild()`: the search indexes are being built first (see kg.retrieve.search.indexed_store).
    `mode` None: the one default (kg/retrieve/settings.py DEFAULT_MODE). `page` (offset, limit, window):
    that page of one fixed order of the hits (Searcher.search_page; `k` is not used), `more` set."""
    from kg.graph.fts import indexed_store
    from kg.retrieve.search import Searcher, SearchResult
    from kg.retrieve.settings import DEFAULT_MODE

    mode = mode or DEFAULT_MODE

    check_text(text, "The search text", MAX_TEXT_CHARS)
    if not text.strip():
        raise QueryError("The search text is empty: pass the words to look for.")
    emb = _embedder(kb, embedder) if mode != "bm25" else None
    try:
        with indexed_store(kb.db_path, on_rebuild=on_rebuild) as store:  # a small compile leaves them to the first search
            searcher = Searcher(store, emb, progress)
            if page is None:
                return searcher.search(text, mode, k, expand)
            hits, more = searcher.search_page(text, mode, *page)
            result = SearchResult(text, mode, hits, embedder=emb.name if emb else "")
            result.more = more
            return result
    finally:
        _done_with(emb)


def query_kb(kb: KnowledgeBase, question: str, budget: int = 2000, save: bool = False, embedder: str | None = None,
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


@loads("kg.graph.fts", "kg.retrieve.answer", "kg.retrieve.navigate", "kg.retrieve.search", "kg.retrieve.settings",
       "kg.retrieve.walk", "kg.llm.backends", "kg.llm.ledger")
def answer_question(kb: KnowledgeBase, question: str, budget: int = 2000, embedder: str | None = None,
                    offline: bool = False, mode: str | None = None, progress: Any = None,
                    on_rebuild: Any = None, form: str = "page") -> Any:
    """The read half of `kg query`: a QueryResult in `form` (ANSWER_FORMS; exporters/forms.py),
    not filed back. Writes nothing but the LLM ledger."""
    from kg.graph.fts import indexed_store
    from kg.llm.backends import extractor_name
    from kg.llm.ledger import save_run
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
            from exporters.forms import shape  # a form reads more of the graph: only when asked for

            return shape(store, result, form)
    finally:
        _done_with(emb)


def save_answer_kb(kb: KnowledgeBase, answer: Any, body: str | None = None) -> str:
    """File an answer back (`kg query --save`): its page (`body`: the page of its form, see
    QueryResult.page_body) and the file its form draws, index.md, log.md. Returns the page id."""
    from exporters.answers import ANSWER_FILES
    from exporters.incremental import write_in_place
    from exporters.wiki import drawn_files
    from kg.api.build import render_kb_wiki
    from kg.graph.fts import indexed_store
    from kg.retrieve.answer import save_answer

    with indexed_store(kb.db_path, writable=True, journal=kb.journal_path) as store:
        page = save_answer(store, answer, body)
        render_kb_wiki(store, kb, {s.source_path for c in answer.claims for s in c.citations})
    # the form's file (a render draws none for an edit), any other form's file of this page removed
    drawn = drawn_files({"id": page, "kind": "answer", "title": answer.question, "body": body or answer.markdown()})
    stale = [rel for suffix in ANSWER_FILES if (rel := f"answers/{page}{suffix}") not in drawn]
    write_in_place(drawn, kb.wiki, remove=[rel for rel in stale if (kb.wiki / rel).exists()])
    return page


def form_file(result: Any) -> tuple[str, str | bytes] | None:
    """(suffix, content) of the file an answer's form draws (chart PNG, canvas, Marp deck), or None."""
    if not result.body:  # a page draws no file: nothing to import (a read command starts fast)
        return None
    from exporters.wiki import drawn_files
    from kg.retrieve.answer import page_id

    pid = page_id(result.answer.question)
    drawn = drawn_files({"id": pid, "kind": "answer", "title": result.answer.question, "body": result.page_body()})
    for rel, content in drawn.items():
        return rel.removeprefix(f"answers/{pid}"), content
    return None


def lint_kb(kb: KnowledgeBase, fix: bool = False) -> LintReport:
    """Check the graph and the wiki; with `fix`, recompile stale sources and re-render, then check again."""
    from kg.api.build import compile_kb, render_kb
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


