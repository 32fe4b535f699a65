"""`kg merge BUNDLE...` (issue 20, part 2): shard bundles into a central knowledge base.

Every bundle is verified first (kg/share/bundle.py), and refused, with nothing written, when it
fails, is of a newer format, or names a shard id that another bundle of the same merge, or an
earlier merge (`.kg/shards.json`), signed with another key.

The central graph is written the way a compile writes it: each bundle source is one source of a
compile plan (new, changed, or vanished when a re-exported bundle no longer has it), and what the
source says (its claims, their entity links, its evidence spans, what it says of each name: the
bundle's `mentions` table) goes through the compiler's own writer (`Compiler.write_records`);
then the same whole-graph steps run (entity groups of the touched names, contradiction detection,
the render). Entity ids are functions of names and claim ids of (subject, type, predicate, text),
so a merge of a partition of sources holds the entity ids and live claim ids of one compile of all
of them, and the order of bundles does not matter (all sources of a merge are written in path
order, as one compile writes raw/).

A merged source keeps its path; its row's `file_stat` is `shard:<id>` (it is not a file of this
raw/, so `kg compile` leaves it alone), and its page says which shard holds it.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from kg.compile.pipeline import (
    SHARD_MARK,
    CompilePlan,
    Compiler,
    CompileReport,
    CompileRun,
    SourceRows,
    SourceState,
    is_merged,
)
from kg.compile.resolve import Mention
from kg.errors import BundleError, ConfigError
from kg.extract import ExtractionContext, Extractor
from kg.graph.shard import source_holders
from kg.graph.store import WriteBatch, now_iso
from kg.kb import KnowledgeBase
from kg.models import Chunk, ExtractionResult
from kg.names import unique_slug
from kg.share.bundle import TABLES, file_name, verify

REGISTRY = "shards.json"  # under .kg/: {shard id: {"keyid": ..., "authority": N or null}}


def registry_path(kb: KnowledgeBase) -> Path:
    return kb.state / REGISTRY


def load_registry(kb: KnowledgeBase) -> dict[str, dict[str, Any]]:
    path = registry_path(kb)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path} cannot be read ({exc}): it records which key signed each shard merged before. "
                          "Restore it from a backup of .kg/ (kg will not guess the keys).") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} is not a JSON object of shards; restore it from a backup of .kg/.")
    return data


def save_registry(kb: KnowledgeBase, registry: Mapping[str, Mapping[str, Any]]) -> None:
    path = registry_path(kb)
    tmp = path.with_name(f".{REGISTRY}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(registry, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


@dataclass
class Bundle:
    folder: Path
    shard_id: str
    keyid: str
    tables: dict[str, pa.Table] = field(default_factory=dict, repr=False)


@dataclass
class MergeReport:
    bundles: list[dict[str, Any]] = field(default_factory=list)  # shard, keyid, folder, sources
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    compile: CompileReport | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bundles": self.bundles, "new": self.new, "changed": self.changed,
                               "unchanged": self.unchanged, "removed": self.removed}
        if self.compile is not None:
            got = self.compile.as_dict()
            out.update({k: got[k] for k in ("claims_added", "entities_added", "contradictions_found", "superseded",
                                            "seconds")})
        return out


def parse_authority(items: Iterable[str]) -> dict[str, int]:
    """`--authority SHARD=N` options -> {shard: N}."""
    out: dict[str, int] = {}
    for item in items:
        shard, sep, value = item.partition("=")
        try:
            number = int(value)
        except ValueError:
            number = None
        if not sep or not shard or number is None:
            raise ConfigError(f"--authority {item!r}: give SHARD=N, such as lab-a=2 (N an integer).")
        out[shard] = number
    return out


def load_bundles(kb: KnowledgeBase, folders: Sequence[Path]) -> list[Bundle]:
    """Verify every bundle and check its shard id's key; raise BundleError naming every problem."""
    if not folders:
        raise ConfigError("Name at least one bundle folder (written by `kg bundle export`).")
    problems: list[str] = []
    bundles: list[Bundle] = []
    for folder in folders:
        report = verify(folder)
        if not report.valid:
            problems.extend(f"{folder}: {line}" for line in report.failures)
            continue
        bundles.append(Bundle(folder, report.shard_id, report.keyid))
    by_shard: dict[str, Bundle] = {}
    for b in bundles:
        other = by_shard.setdefault(b.shard_id, b)
        if other is b:
            continue
        if other.keyid != b.keyid:
            problems.append(f"{other.folder} and {b.folder} both claim shard {b.shard_id!r} but are signed by different "
                            f"keys ({other.keyid[:16]}... and {b.keyid[:16]}...): one of them is not that shard's. "
                            "Find out which, and merge only that one.")
        else:
            problems.append(f"{other.folder} and {b.folder} are both bundles of shard {b.shard_id!r}: a merge takes "
                            "one bundle per shard (the newest replaces the earlier one). Name only one of them.")
    registry = load_registry(kb)
    for b in bundles:
        known = registry.get(b.shard_id, {}).get("keyid")
        if known and known != b.keyid:
            problems.append(f"{b.folder}: shard {b.shard_id!r} was merged before signed by key id {known[:16]}..., "
                            f"this bundle by {b.keyid[:16]}...: refused (it may not be that shard's). If the shard "
                            f"really changed its key, remove its entry from {registry_path(kb)} and merge again.")
    if problems:
        raise BundleError("Nothing was merged:\n" + "\n".join(problems))
    for b in bundles:
        try:
            b.tables = {name: pq.read_table(b.folder / file_name(name)) for name in TABLES}
        except (pa.ArrowException, OSError) as exc:
            raise BundleError(f"Nothing was merged: {b.folder} cannot be read ({exc}).") from exc
    return bundles


@dataclass
class SourceRecords:
    """What one bundle source says, in the compiler writer's shape (Compiler.write_records)."""

    shard: str
    row: dict[str, Any]  # the source's row, as the bundle has it (path, sha256, title, kind, ...)
    claims: dict[str, dict[str, Any]] = field(default_factory=dict)
    about: list[dict[str, Any]] = field(default_factory=list)
    related: list[dict[str, Any]] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    mentions: dict[str, Mention] = field(default_factory=dict)


CLAIM_FIELDS = ("id", "text", "claim_type", "predicate", "object", "value", "unit", "polarity", "confidence",
                "extractor", "prompt_version", "valid_from", "valid_to")


def source_records(bundle: Bundle, authority: int | None) -> dict[str, SourceRecords]:
    """{path: records} of every source of a bundle."""
    t = bundle.tables
    claims = {row["id"]: row for row in t["claims"].to_pylist()}
    keys = {row["id"]: row["key"] for row in t["entities"].to_pylist()}
    about: dict[str, list[dict[str, Any]]] = {}
    for row in t["about"].to_pylist():
        about.setdefault(row["claim_id"], []).append(row)
    out: dict[str, SourceRecords] = {}
    for row in t["sources"].to_pylist():
        if authority is not None:
            row["authority"] = authority
        out[row["path"]] = SourceRecords(bundle.shard_id, row)
    for ev in t["evidence"].to_pylist():
        rec = out.get(ev["source_path"])
        cid = ev["claim_id"]
        if rec is None or cid not in claims:
            raise BundleError(f"Nothing was merged: {bundle.folder} has evidence of claim {cid} from "
                              f"{ev['source_path']}, which its sources or claims do not hold.")
        rec.evidence.append({"src": cid, "dst": ev["source_path"], "source_sha256": ev["source_sha256"],
                             "quote": ev["quote"], "char_start": ev["char_start"], "char_end": ev["char_end"],
                             "retracted_at": None})
        if cid in rec.claims:
            continue
        rec.claims[cid] = {name: claims[cid][name] for name in CLAIM_FIELDS} | {"retracted_at": None, "status": "live"}
        links = sorted(about.get(cid, []), key=lambda r: (r["role"] != "subject", r["entity_id"]))
        rec.about.extend({"src": cid, "dst": r["entity_id"], "role": r["role"]} for r in links)
        subject = next((r["entity_id"] for r in links if r["role"] == "subject"), None)
        rec.related.extend({"src": subject, "dst": r["entity_id"], "predicate": claims[cid]["predicate"],
                            "claim_id": cid} for r in links if r["role"] == "object" and subject is not None)
    for m in t["mentions"].to_pylist():
        rec = out.get(m["source_path"])
        if rec is None or m["entity_id"] not in keys:
            raise BundleError(f"Nothing was merged: {bundle.folder} says {m['source_path']} mentions "
                              f"{m['entity_id']}, which its sources or entities do not hold.")
        rec.mentions[m["entity_id"]] = Mention(keys[m["entity_id"]], m["name"], m["type"], m["description"] or "",
                                               list(m["aliases"] or []), int(m["count"] or 0), m["role"] == "alias")
    return out


class _Replay(Extractor):
    """The merge's stand-in extractor: bundles carry extraction results, nothing is extracted."""

    name = "bundle"

    def extract_chunk(self, chunk: Chunk, context: ExtractionContext) -> ExtractionResult:
        raise NotImplementedError("a merge extracts nothing")


class MergeCompiler(Compiler):
    """A Compiler whose sources come from bundles: the plan, batches, writer, removal, regroup and
    contradiction detection are the compiler's; only reading a source is replaced."""

    def __init__(self, base: Compiler, records: Mapping[str, SourceRecords]) -> None:
        super().__init__(base.kb, base.store, _Replay(), base.config, base.judge, base.entity_judge)
        self.records = records

    def extractions(self, todo: Sequence[str], keys: Any) -> Iterator[None]:
        return itertools.repeat(None)  # nothing to read or extract: the bundles say it

    def _compile_source(self, path: str, state: SourceState | None, run: CompileRun, batch: WriteBatch,
                        work: Any = None) -> None:
        now = now_iso()
        rec, report = self.records[path], run.report
        slug = state.slug if state else unique_slug(Path(path).with_suffix("").as_posix(), run.slugs, identity=path)
        run.slugs.add(slug)
        if state is not None:
            from kg.graph.sources import retract_source_evidence

            retract_source_evidence(batch, path, now)
        src = rec.row
        failed = src["status"] == "failed"
        if not failed:
            evidence = [row | {"recorded_at": now} for row in rec.evidence]
            claims = {cid: row | {"recorded_at": now} for cid, row in rec.claims.items()}
            self.write_records(path, SourceRows(claims, rec.about, rec.related, evidence, rec.mentions), run, batch, now)
            report.compiled += 1
        else:
            report.failed[path] = f"failed in shard {rec.shard}: {src['error']}"
        op = "fail" if failed else "ingest" if state is None or state.status == "removed" else "update"
        batch.add("LogEntry", {"seq": run.seq, "at": now, "op": op, "subject": path,
                               "detail": f"merged from shard {rec.shard}, sha256 {src['sha256'][:12]}"})
        row = {"path": path, "slug": slug, "sha256": src["sha256"], "title": src["title"], "kind": src["kind"],
               "bytes": src["bytes"], "authority": src["authority"] or 0, "ingested_at": now, "compiled_at": now,
               "status": "failed" if failed else "compiled", "error": src["error"] or None,
               "extractor": src["extractor"] or "", "chunks": src["chunks"] or 0, "unverified": src["unverified"] or 0,
               "file_stat": SHARD_MARK + rec.shard}
        self.put_source(batch, state, row)
        run.seq += 1

    def _remove_source(self, path: str, batch: WriteBatch, seq: int) -> int:
        from kg.graph.sources import mark_source_removed, retract_source_evidence

        now = now_iso()
        retract_source_evidence(batch, path, now)
        mark_source_removed(batch, path, now)
        batch.add("LogEntry", {"seq": seq, "at": now, "op": "remove", "subject": path,
                               "detail": "no longer in its shard's bundle"})
        return seq + 1


def plan_merge(base: Compiler, bundles: Sequence[Bundle], authority: Mapping[str, int],
               report: MergeReport) -> tuple[CompilePlan, dict[str, SourceRecords]]:
    """The compile plan of a merge, checked against the central graph (raises before any write)."""
    registry = load_registry(base.kb)
    records: dict[str, SourceRecords] = {}
    problems: list[str] = []
    for b in bundles:
        chosen = authority.get(b.shard_id, registry.get(b.shard_id, {}).get("authority"))
        recs = source_records(b, chosen)
        for path, rec in recs.items():
            if path in records:
                problems.append(f"{path} is in the bundles of shards {records[path].shard!r} and {b.shard_id!r}: a source "
                                "belongs to one shard. Remove it from one of them, export again and merge.")
            records[path] = rec
        report.bundles.append({"shard": b.shard_id, "keyid": b.keyid, "folder": str(b.folder), "sources": len(recs)})
    shards = {b.shard_id for b in bundles}
    plan = CompilePlan()
    holders = {row["path"]: row for row in source_holders(base.store)}
    for path, rec in sorted(records.items()):
        held = holders.get(path)
        if held is None or held["status"] == "removed":
            plan.new.append(path)
            continue
        owner = str(held["file_stat"])[len(SHARD_MARK):] if is_merged(held["file_stat"]) else None
        if owner != rec.shard:
            where = f"shard {owner!r}" if owner is not None else "this knowledge base's raw/"
            problems.append(f"{path} (shard {rec.shard!r}) is already a source of {where}: a source belongs to one "
                            "shard. Remove it from one of them and merge again.")
            continue
        row = rec.row
        same = (held["sha256"] == row["sha256"] and held["status"] == row["status"]
                and (held["authority"] or 0) == (row["authority"] or 0) and held["kind"] == row["kind"]
                and held["title"] == row["title"])
        (plan.unchanged if same else plan.changed).append(path)
    for path, held in sorted(holders.items()):
        if (held["status"] != "removed" and is_merged(held["file_stat"]) and path not in records
                and str(held["file_stat"])[len(SHARD_MARK):] in shards):
            plan.vanished.append(path)
    if problems:
        raise BundleError("Nothing was merged:\n" + "\n".join(problems))
    report.new, report.changed, report.unchanged, report.removed = (len(plan.new), len(plan.changed),
                                                                    len(plan.unchanged), len(plan.vanished))
    return plan, records


def record_shards(kb: KnowledgeBase, bundles: Sequence[Bundle], authority: Mapping[str, int]) -> None:
    """Remember each merged shard's key id (and --authority) in .kg/shards.json."""
    registry = load_registry(kb)
    for b in bundles:
        entry = dict(registry.get(b.shard_id, {}))
        entry["keyid"] = b.keyid
        if b.shard_id in authority:
            entry["authority"] = authority[b.shard_id]
        registry[b.shard_id] = entry
    save_registry(kb, registry)


def check_authority(bundles: Sequence[Bundle], authority: Mapping[str, int]) -> None:
    shards = {b.shard_id for b in bundles}
    if stray := sorted(set(authority) - shards):
        raise ConfigError(f"--authority names {', '.join(stray)}, which no bundle of this merge is; the shards here are "
                          f"{', '.join(sorted(shards))}.")
