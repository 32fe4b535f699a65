"""Calls that write the knowledge base: init, ingest, compile (and what it would do), render,
compact, entity merges, shard merges. The compile pipeline loads only with them (a read
command starts without it)."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.api.stores import open_store
from kg.errors import ConfigError, GraphOutdated, KgError
from kg.kb import KnowledgeBase, init

if TYPE_CHECKING:  # the modules behind these types load only with the commands that use them
    from exporters.wiki import RenderReport
    from kg.compile.engine import Engine
    from kg.compile.pipeline import CompileReport
    from kg.compile.sources import IngestReport
    from kg.graph.store import CompactReport, Store
    from kg.share.merge import MergeReport


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
    from kg.compile.sources import SUPPORTED_SUFFIXES, in_selection

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
    from kg.api.learning import card_writer
    from kg.cache import ResponseCache
    from kg.compile.bulk import gc_paused
    from kg.compile.pipeline import CompileReport, plan_compile
    from kg.llm.backends import make_compiler
    from kg.llm.ledger import save_run

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



def explain(kb: KnowledgeBase, only: Sequence[str] | None = None) -> dict[str, Any]:
    """What a compile would do, before doing it: the plan and the pages it would rewrite
    (estimated from the graph as it is: the changed sources' pages, the entities they touch,
    pages linked to or from those, and index, log and contradictions)."""
    from exporters.incremental import blast_radius
    from exporters.indexes import listing_pages
    from exporters.logpages import latest_parts
    from kg.compile.pipeline import load_source_states, plan_compile

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



def entity_merge(kb: KnowledgeBase, alias: str, target: str | None = None) -> dict[str, Any]:
    """`target` given: merge alias into it; else undo the merges of `alias`. Re-renders the wiki."""
    from kg.cache import ResponseCache
    from kg.llm.backends import make_entity_judge
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
    from kg.compile.sources import ingest_paths

    urls = [str(p) for p in paths if isinstance(p, str) and is_url(p)]
    report = ingest_paths(kb.raw, [Path(p) for p in paths if not (isinstance(p, str) and is_url(p))])
    for url in urls:
        rel, new = fetch_into(kb.raw, url, kb.config().compile.max_source_bytes)
        (report.copied if new else report.already_present).append(rel)
    return report



def merge_kb(kb: KnowledgeBase, folders: Sequence[Path], authority: Sequence[str] = ()) -> tuple[MergeReport, RenderReport | None]:
    """`kg merge`: shard bundles into this knowledge base (kg/share/merge.py), then the wiki.

    Every bundle is verified and every shard's key checked before anything is written; the
    sources go through the compiler's writer and whole-graph steps as a compile's do, marked
    pending until rendered (as in compile_kb)."""
    from kg.cache import ResponseCache
    from kg.llm.backends import make_compiler
    from kg.llm.ledger import save_run
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
