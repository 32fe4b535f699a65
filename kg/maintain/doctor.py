"""`kg doctor` and `kg compile --rebuild`: check the graph where a crash cannot hurt, and rebuild
it from raw/, the reply cache and the journal, keeping the old file aside."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from exporters.render import render_kb_wiki
from kg.cache import ResponseCache
from kg.compile.groups import regroup
from kg.compile.resolve import EntityJudge
from kg.graph.answers import clear_log, replace_page
from kg.graph.entities import decide
from kg.graph.journal import Journal, ReplayReport, salvage
from kg.graph.probe import ProbeReport, probe
from kg.graph.store import Lock, Store, WriteBatch, now_iso
from kg.kb import KnowledgeBase
from kg.llm.backends import make_compiler
from kg.llm.ledger import run_ledger, save_run


@dataclass
class RebuildReport:
    reason: str
    kept_old_graph: str = ""  # where the old graph file was moved ("" when there was none)
    salvage_problem: str = ""  # why the journal could not be filled from the old graph ("" when it could)
    sources: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    claims: int = 0
    entities: int = 0
    replayed: ReplayReport = field(default_factory=ReplayReport)
    llm_requests: int = 0
    pages: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "replayed": self.replayed.as_dict()}


@dataclass
class DoctorReport:
    found: ProbeReport
    rebuilt: RebuildReport | None = None

    @property
    def healthy(self) -> bool:
        return self.found.ok

    def as_dict(self) -> dict[str, Any]:
        return {"healthy": self.healthy, "probe": self.found.as_dict(),
                "rebuilt": self.rebuilt.as_dict() if self.rebuilt else None}


def check(kb: KnowledgeBase) -> ProbeReport:
    """Read every column of every table of the graph in child processes (kg/graph/probe.py)."""
    Lock(kb.lock_path).raise_if_held()
    if not kb.db_path.exists():
        return ProbeReport()
    return probe(kb.db_path)


def doctor(kb: KnowledgeBase, repair: bool = True, extractor: str | None = None, progress: Any = None) -> DoctorReport:
    found = check(kb)
    report = DoctorReport(found)
    if not found.ok and repair:
        what = found.unopenable or f"reading {', '.join(f'{t}.{c}' for t, c in found.broken)} crashed"
        report.rebuilt = rebuild(kb, f"the graph could not be read: {what}", extractor, progress)
    return report


def rebuild(kb: KnowledgeBase, reason: str, extractor: str | None = None, progress: Any = None) -> RebuildReport:
    """A new graph from all of raw/ (LLM replies from the cache), then the journal's log, answers
    and merges; the old graph file is moved to .kg/broken/, never deleted."""
    started = time.perf_counter()
    report = RebuildReport(reason)
    lock = Lock(kb.lock_path)
    lock.acquire()
    journal = Journal(kb.journal_path)
    cache = ResponseCache(kb.cache_path)
    requests_before = run_ledger().total.requests
    try:
        if kb.db_path.exists():
            if not journal.filled:  # a journal that never saw this graph: copy what it can first
                journal.close()
                report.salvage_problem = salvage(kb.journal_path, kb.db_path)
                journal = Journal(kb.journal_path)
            report.kept_old_graph = _move_aside(kb)
        for path in kb.graph_caches():
            path.unlink(missing_ok=True)
        journal.mark_filled()  # from here on the journal is what the graph is rebuilt with
        with Store(kb.db_path) as store:  # no journal: what it replays is not copied back into it
            compiler = make_compiler(kb, store, kb.config(), extractor, cache)
            compiled = compiler.compile(compiler.plan(), progress)
            report.sources, report.failed = compiled.compiled, dict(compiled.failed)
            report.claims, report.entities = compiled.claims_added, compiled.entities_added
            report.replayed = replay(store, journal, compiler.entity_judge)
            entry = {"seq": store.next_log_seq(), "at": now_iso(), "op": "rebuild", "subject": "graph",
                     "detail": f"rebuilt from raw/: {reason}"}
            batch = WriteBatch()
            batch.add("LogEntry", entry)
            store.write(batch)
            journal.keep(batch.nodes, batch.rels)
            save_run(kb.ledger_path)
            report.pages = render_kb_wiki(store, kb).pages
        report.llm_requests = run_ledger().total.requests - requests_before
    finally:
        cache.close()
        journal.close()
        lock.release()
    report.seconds = time.perf_counter() - started
    return report


def _move_aside(kb: KnowledgeBase) -> str:
    folder = kb.broken_dir
    folder.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    target = folder / f"graph-{stamp}.kuzu"
    os.replace(kb.db_path, target)
    wal = kb.db_path.with_name(kb.db_path.name + ".wal")
    if wal.exists():
        os.replace(wal, target.with_name(target.name + ".wal"))
    return str(target.relative_to(kb.root))


def replay(store: Store, journal: Journal, judge: EntityJudge | None = None) -> ReplayReport:
    """Put the journal back into a rebuilt graph: the log (instead of the entries the rebuild's
    compile wrote), filed answers (citing the claims and entities that still exist), and what a
    person decided about entities (then their groups are recomputed)."""
    report = ReplayReport()
    batch = WriteBatch()
    clear_log(batch)
    for entry in journal.log_entries():
        batch.add("LogEntry", entry)
        report.log_entries += 1
    answers = journal.answers()
    decisions = journal.merges()
    claims = store.existing_ids("Claim", [c for _, cites, _ in answers for c in cites])
    entities = store.existing_ids("Entity", [e for _, _, about in answers for e in about]
                                  + [e for alias, target in decisions.items() for e in (alias, target) if e])
    for page, cites, about in answers:
        replace_page(batch, page["id"])
        batch.add("Page", page)
        for claim in cites:
            if claim in claims:
                batch.relate("CITES", {"src": page["id"], "dst": claim})
            else:
                report.skipped.append(f"answer {page['id']}: claim {claim} is gone")
        for entity in about:
            if entity in entities:
                batch.relate("PAGE_ABOUT", {"src": page["id"], "dst": entity})
        report.answers += 1
    now = now_iso()
    for alias, target in sorted(decisions.items()):
        if alias in entities and (not target or target in entities):
            decide(batch, alias, target, now, existing=False)
            report.merges += 1
        else:
            report.skipped.append(f"{'merge' if target else 'unmerge'} of {alias}: "
                                  f"{alias if alias not in entities else target} is gone")
    store.write(batch)
    regrouped, _ = regroup(store, [e for pair in decisions.items() for e in pair if e in entities], judge)
    store.write(regrouped)
    return report
