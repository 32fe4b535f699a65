"""What the CLI commands do, as plain functions over a KnowledgeBase. No printing here."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.backends import extractor_name, make_extractor
from kg.cache import ResponseCache
from kg.compiler import Compiler, CompileReport, load_source_states, plan_compile
from kg.errors import QueryError
from kg.kb import KnowledgeBase
from kg.sources import IngestReport, ingest_paths
from kg.store import Store


def open_store(kb: KnowledgeBase, read_only: bool = False) -> Store:
    return Store(kb.db_path, read_only=read_only)


def compile_kb(kb: KnowledgeBase, extractor: str | None = None, progress: Any = None, render: bool = True,
               on_plan: Any = None) -> tuple[CompileReport, Any]:
    """Compile new and changed sources, then render the wiki if anything changed (or it is missing)."""
    config = kb.config()
    cache = ResponseCache(kb.state / "cache.sqlite")
    try:
        backend = make_extractor(config, extractor, cache)
        with open_store(kb) as store:
            compiler = Compiler(kb, store, backend, config)
            plan = compiler.plan()
            if on_plan:
                on_plan(plan)
            report = compiler.compile(plan, progress)
            rendered = None
            if render and (report.changed_anything or not (kb.wiki / "index.md").exists()):
                rendered = render_with(store, kb)
            return report, rendered
    finally:
        cache.close()


def render_with(store: Store, kb: KnowledgeBase) -> Any:
    from exporters.wiki import render_wiki

    return render_wiki(store, kb.wiki)


def render_kb(kb: KnowledgeBase) -> Any:
    with open_store(kb) as store:
        return render_with(store, kb)


def ingest(kb: KnowledgeBase, paths: list[Path]) -> IngestReport:
    return ingest_paths(kb.raw, paths)


@dataclass
class Status:
    root: str
    extractor: str
    counts: dict[str, int]
    changed: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    vanished: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    compiled: bool = True

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def status(kb: KnowledgeBase) -> Status:
    config = kb.config()
    name = extractor_name(config)
    if not kb.db_path.exists():
        plan = plan_compile(kb.raw, {})
        return Status(str(kb.root), name, {"Source": 0, "Entity": 0, "Claim": 0, "Page": 0, "Contradiction": 0},
                      new=plan.new, compiled=False)
    with open_store(kb, read_only=True) as store:
        states = load_source_states(store)
        counts = store.counts()
        failed = {r["path"]: r["error"] for r in store.query(
            "MATCH (s:Source) WHERE s.status = 'failed' RETURN s.path AS path, s.error AS error ORDER BY s.path")}
    plan = plan_compile(kb.raw, states)
    return Status(str(kb.root), name, counts, changed=plan.changed, new=plan.new, vanished=plan.vanished, failed=failed)


def cypher(kb: KnowledgeBase, query: str, params: dict[str, Any] | None = None, write: bool = False) -> list[dict[str, Any]]:
    """Run Cypher. Read-only unless `write`: the database is opened read-only, so writes fail."""
    with open_store(kb, read_only=not write) as store:
        try:
            return store.query(query, params or {})
        except QueryError as exc:
            hint = " Add --write to run a query that changes the graph." if not write and "read-only" in str(exc).lower().replace("read only", "read-only") else ""
            raise QueryError(f"Cypher failed: {exc}{hint}") from exc


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
