"""Signed shard bundles (issue 20): a knowledge base's compiled knowledge as Parquet files, an
in-toto Statement v1 with a SLSA provenance v1 predicate naming their digests and every source
they came from, signed as a DSSE envelope with an Ed25519 key.

Layout of a bundle folder (README "Shard bundles"):
    sources.parquet entities.parquet claims.parquet evidence.parquet about.parquet contradictions.parquet
    manifest.json      the statement (the exact bytes the envelope signs)
    bundle.dsse.json   the DSSE envelope
    key.pub            the signer's public key (PEM), for a first look; trust comes from --key

The same graph and key give the same bytes: rows sorted, fixed Parquet writer options, no
timestamps, a canonical JSON statement, and Ed25519 signatures are deterministic.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from kg import __version__
from kg.errors import ConfigError, KgError
from kg.graph.shard import SCHEMAS, shard_tables
from kg.graph.store import Store
from kg.kb import KnowledgeBase
from kg.share import dsse

FORMAT = 1  # the bundle format this kg writes and the newest it reads
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://slsa.dev/provenance/v1"
PAYLOAD_TYPE = "application/vnd.in-toto+json"
BUILD_TYPE = "urn:kg:bundle-export:v1"
ENVELOPE, MANIFEST, KEY = "bundle.dsse.json", "manifest.json", "key.pub"
TABLES = tuple(SCHEMAS)  # sources, entities, claims, evidence, about, mentions, contradictions
# Fixed writer options: the bytes depend on the rows and the pyarrow version only.
PARQUET_OPTIONS: dict[str, Any] = {
    "compression": "zstd", "compression_level": 3, "use_dictionary": True, "write_statistics": True,
    "version": "2.6", "data_page_version": "1.0", "row_group_size": 128 * 1024, "store_schema": True,
}
MAX_LISTED = 5  # evidence rows named in one failure line


def default_key_dir() -> Path:
    """Where `kg bundle keygen` puts a key pair and `kg bundle export` looks for one by default."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kg"


def file_name(table: str) -> str:
    return f"{table}.parquet"


def parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **PARQUET_OPTIONS)
    return sink.getvalue().to_pybytes()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_json(data: Any) -> bytes:
    return (json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


@dataclass
class ExportReport:
    path: Path
    shard_id: str
    keyid: str
    files: dict[str, str]  # name -> sha256
    rows: dict[str, int]  # table -> rows

    def as_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "shard_id": self.shard_id, "keyid": self.keyid, "format": FORMAT,
                "files": self.files, "rows": self.rows}


def _split_labels(labels: set[str]) -> tuple[list[str], list[str]]:
    """Extractor labels ("anthropic:claude-x", "heuristic") -> (extractor names, models)."""
    names = {label.partition(":")[0] for label in labels if label}
    models = {label.partition(":")[2] for label in labels if label and label.partition(":")[2]}
    return sorted(names), sorted(models)


def statement(tables: dict[str, pa.Table], digests: dict[str, str], shard_id: str) -> dict[str, Any]:
    """The in-toto Statement v1 (SLSA provenance v1 predicate) of a bundle's tables."""
    sources = tables["sources"]
    claims = tables["claims"]
    labels = {str(x) for x in sources.column("extractor").to_pylist() + claims.column("extractor").to_pylist() if x}
    extractors, models = _split_labels(labels)
    prompts = sorted({str(p) for p in claims.column("prompt_version").to_pylist() if p})
    dependencies = [{"uri": path, "digest": {"sha256": sha}}
                    for path, sha in zip(sources.column("path").to_pylist(), sources.column("sha256").to_pylist(),
                                         strict=True)]
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": name, "digest": {"sha256": digests[name]}} for name in sorted(digests)],
        "predicateType": PREDICATE_TYPE,
        "predicate": {
            "buildDefinition": {
                "buildType": BUILD_TYPE,
                "externalParameters": {"extractor": extractors, "model": models, "promptVersion": prompts,
                                       "kgVersion": __version__},
                "internalParameters": {"bundleFormat": FORMAT,
                                       "rows": {name: tables[name].num_rows for name in TABLES}},
                "resolvedDependencies": dependencies,
            },
            "runDetails": {"builder": {"id": shard_id, "version": {"kg": __version__}}},
        },
    }


def _check_target(kb: KnowledgeBase, folder: Path) -> Path:
    target = folder.expanduser().resolve()
    for inside, why in ((kb.raw, "is never written by kg"), (kb.insights, "is never written by kg"),
                        (kb.wiki, "is generated and replaced by every render"),
                        (kb.learning, "holds your review history"), (kb.state, "holds the graph")):
        if target == inside.resolve() or inside.resolve() in target.parents:
            raise ConfigError(f"Refusing to write a bundle into {folder}: {inside.name}/ {why}. Choose a folder outside it.")
    if target.exists() and not target.is_dir():
        raise ConfigError(f"{folder} is a file: give a new or empty folder for the bundle.")
    try:
        occupied = target.is_dir() and any(target.iterdir())
    except OSError as exc:
        raise ConfigError(f"Cannot read {folder} ({exc.strerror}): give a new or empty folder you can write.") from exc
    if occupied:
        raise ConfigError(f"{folder} is not empty: a bundle is written into a new or empty folder, so that nothing "
                          "else is mistaken for part of it. Give another folder, or empty this one.")
    return target


@contextmanager
def _staging(target: Path) -> Iterator[Path]:
    """A folder beside target that becomes target when the block succeeds (removed otherwise)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.parent / f".{target.name}.kg-bundle-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        yield staging
        if target.is_dir():
            target.rmdir()  # checked empty before
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def export(kb: KnowledgeBase, folder: Path, key_path: Path | None = None, shard_id: str | None = None) -> ExportReport:
    """Write kb's bundle into folder (new or empty), signed with the Ed25519 key at key_path."""
    target = _check_target(kb, folder)
    key = dsse.load_private(key_path or default_key_dir() / dsse.PRIVATE_KEY_FILE)
    shard = shard_id if shard_id is not None else (kb.config().shard_id or kb.root.name)
    if not shard.strip() or any(ch.isspace() for ch in shard):
        raise ConfigError(f"--shard-id {shard!r}: a shard id is a non-empty name without spaces, such as lab-a.")
    with Store(kb.db_path, read_only=True) as store:
        tables = shard_tables(store)
    blobs = {file_name(name): parquet_bytes(table) for name, table in tables.items()}
    digests = {name: _sha256(data) for name, data in blobs.items()}
    payload = canonical_json(statement(tables, digests, shard))
    envelope = dsse.sign(payload, PAYLOAD_TYPE, key)
    try:
        with _staging(target) as staging:
            for name, data in blobs.items():
                (staging / name).write_bytes(data)
            (staging / MANIFEST).write_bytes(payload)
            (staging / ENVELOPE).write_bytes(dsse.envelope_bytes(envelope))
            (staging / KEY).write_bytes(dsse.public_pem(key.public_key()))
    except OSError as exc:
        raise ConfigError(f"Cannot write the bundle into {folder} ({exc.strerror}): choose a writable folder.") from exc
    return ExportReport(path=target, shard_id=shard, keyid=dsse.key_id(key.public_key()), files=digests,
                        rows={name: t.num_rows for name, t in tables.items()})


@dataclass
class VerifyReport:
    path: Path
    failures: list[str] = field(default_factory=list)
    key: str = ""  # the public key file checked against
    key_from_bundle: bool = False
    keyid: str = ""
    shard_id: str = ""
    format: int | None = None
    files: int = 0

    @property
    def valid(self) -> bool:
        return not self.failures

    def as_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "valid": self.valid, "failures": self.failures, "key": self.key,
                "key_from_bundle": self.key_from_bundle, "keyid": self.keyid, "shard_id": self.shard_id,
                "format": self.format, "files": self.files}


def _get(data: Any, *keys: str) -> Any:
    for k in keys:
        data = data.get(k) if isinstance(data, dict) else None
    return data


REDO = "ask the shard for a fresh copy (or re-export it with `kg bundle export`)"


def verify(folder: Path, key_path: Path | None = None) -> VerifyReport:
    """Check a bundle: format version, DSSE signature, every file's digest, and that every evidence
    row's (source path, sha256) is among the statement's resolvedDependencies. Never raises for a
    bad bundle: each problem is a line in report.failures saying what failed and what to do."""
    report = VerifyReport(path=folder)
    opened = _open_statement(folder, report)
    if opened is None:
        return report
    stmt, payload_type, payload, signatures = opened
    _check_signature(folder, key_path, report, payload_type, payload, signatures)
    subjects = _subjects(stmt, report)
    intact = _intact_files(folder, subjects, report)
    _check_evidence_sources(folder, stmt, intact, report)
    return report


def _open_statement(folder: Path, report: VerifyReport) -> tuple[dict[str, Any], str, bytes, list[Any]] | None:
    """The signed statement, or None (with the failure recorded) when nothing further can be checked."""
    fail = report.failures.append
    if not folder.is_dir():
        fail(f"{folder} is not a folder: give the folder `kg bundle export` wrote.")
        return None
    try:
        envelope = json.loads((folder / ENVELOPE).read_bytes())
        payload_type, payload, signatures = dsse.parse(envelope)
    except FileNotFoundError:
        fail(f"{ENVELOPE} is missing: without the signed statement nothing can be checked; {REDO}.")
        return None
    except (OSError, ValueError) as exc:
        fail(f"{ENVELOPE} is not a DSSE envelope ({exc}): it was damaged or replaced; {REDO}.")
        return None
    if payload_type != PAYLOAD_TYPE:
        fail(f"{ENVELOPE}: payloadType is {payload_type!r}, not {PAYLOAD_TYPE!r}: this is not a kg bundle's statement.")
        return None
    try:
        stmt = json.loads(payload)
    except ValueError:
        fail(f"{ENVELOPE}: the signed payload is not JSON: the envelope was damaged; {REDO}.")
        return None
    fmt = _get(stmt, "predicate", "buildDefinition", "internalParameters", "bundleFormat")
    if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
        fail(f"{ENVELOPE}: the statement has no bundle format version: this is not a kg bundle; {REDO}.")
        return None
    report.format = fmt
    if fmt > FORMAT:
        fail(f"The bundle is format {fmt}, made by a newer kg; this kg {__version__} reads format {FORMAT} and "
             "older. Upgrade kg (pip install -U kg) and verify again.")
        return None
    report.shard_id = str(_get(stmt, "predicate", "runDetails", "builder", "id") or "")
    if stmt.get("_type") != STATEMENT_TYPE or stmt.get("predicateType") != PREDICATE_TYPE:
        fail(f"{ENVELOPE}: the statement is not an in-toto Statement v1 with a SLSA provenance v1 predicate; {REDO}.")
    return stmt, payload_type, payload, signatures


def _check_signature(folder: Path, key_path: Path | None, report: VerifyReport, payload_type: str, payload: bytes,
                     signatures: list[Any]) -> None:
    """The DSSE signature against --key (else the bundle's own key.pub), and manifest.json is the payload."""
    fail = report.failures.append
    report.key_from_bundle = key_path is None
    key_file = key_path if key_path is not None else folder / KEY
    report.key = str(key_file)
    try:
        public = dsse.load_public(key_file)
    except KgError as exc:
        fail(f"{exc}" if key_path is not None else f"{KEY} is missing or damaged ({exc}); pass --key PUB to check "
             "the signature against the signer's public key.")
        public = None
    if public is not None:
        report.keyid = dsse.key_id(public)
        if not dsse.verify(payload_type, payload, signatures, public):
            signed_by = ", ".join(sorted({k for k, _ in signatures if k})) or "no key id given"
            fail(f"The signature does not verify with {key_file} (key id {report.keyid}; the envelope names "
                 f"{signed_by}): the statement was altered, or signed by another key. Do not use this bundle; {REDO}.")
    try:
        if (folder / MANIFEST).read_bytes() != payload:
            fail(f"{MANIFEST} differs from the statement signed in {ENVELOPE}: it was edited; {REDO}.")
    except OSError:
        fail(f"{MANIFEST} is missing; {REDO} (the signed copy in {ENVELOPE} is what counts).")


def _subjects(stmt: dict[str, Any], report: VerifyReport) -> dict[str, str]:
    """File name -> sha256, as the statement lists them (malformed entries are failures)."""
    subjects: dict[str, str] = {}
    listed = stmt.get("subject")
    if not isinstance(listed, list):
        report.failures.append(f"{ENVELOPE}: the statement has no list of subjects; {REDO}.")
        listed = []
    for item in listed:
        name, digest = _get(item, "name"), _get(item, "digest", "sha256")
        if not isinstance(name, str) or not isinstance(digest, str) or "/" in name or "\\" in name or name in ("", ".", ".."):
            report.failures.append(f"{ENVELOPE}: a subject is malformed ({item!r}); {REDO}.")
            continue
        subjects[name] = digest
    return subjects


def _intact_files(folder: Path, subjects: dict[str, str], report: VerifyReport) -> set[str]:
    """The listed files whose digest and (for tables) columns are as signed; no file outside the list."""
    fail = report.failures.append
    intact: set[str] = set()
    for name, digest in sorted(subjects.items()):
        path = folder / name
        if not path.is_file():
            fail(f"{name} is missing (the signed statement lists it); {REDO}.")
            continue
        with path.open("rb") as fh:
            actual = hashlib.file_digest(fh, "sha256").hexdigest()
        if actual != digest:
            fail(f"{name} was altered: its sha256 is {actual}, the signed statement says {digest}. Do not load it; {REDO}.")
        else:
            intact.add(name)
    report.files = len(intact)
    for table in TABLES:  # a signed table of other columns (another kg, a faulty exporter) cannot be merged
        name = file_name(table)
        if name not in subjects:
            fail(f"The signed statement lists no {name}: the bundle is incomplete; {REDO}.")
        if name not in intact:
            continue
        try:
            columns = pq.read_schema(folder / name)
        except (pa.ArrowException, OSError) as exc:
            fail(f"{name} cannot be read as Parquet ({exc}); {REDO}.")
            intact.discard(name)
            continue
        if not columns.remove_metadata().equals(SCHEMAS[table]):
            fail(f"{name} does not have the columns of bundle format {FORMAT} (it has {', '.join(columns.names)}); "
                 f"{REDO} with this kg version.")
            intact.discard(name)
    for path in sorted(folder.iterdir()):
        if path.name not in subjects and path.name not in (ENVELOPE, MANIFEST, KEY):
            fail(f"{path.name} is not in the signed statement: remove it (nothing outside the statement is trusted).")
    return intact


def _check_evidence_sources(folder: Path, stmt: dict[str, Any], intact: set[str], report: VerifyReport) -> None:
    """Every evidence row's (source path, sha256) is among the statement's resolvedDependencies."""
    fail = report.failures.append
    dependencies = _get(stmt, "predicate", "buildDefinition", "resolvedDependencies")
    if not isinstance(dependencies, list):
        fail(f"{ENVELOPE}: the statement has no resolvedDependencies; {REDO}.")
        dependencies = []
    known = {(d.get("uri"), _get(d, "digest", "sha256")) for d in dependencies
             if isinstance(d, dict) and isinstance(d.get("uri"), str) and isinstance(_get(d, "digest", "sha256"), str)}
    if file_name("evidence") not in intact:
        return
    try:
        rows = pq.read_table(folder / file_name("evidence"), columns=["source_path", "source_sha256"]).to_pylist()
    except (pa.ArrowException, OSError) as exc:
        fail(f"{file_name('evidence')} cannot be read as Parquet ({exc}); {REDO}.")
        rows = []
    unknown = sorted({(r["source_path"], r["source_sha256"]) for r in rows} - known)
    if unknown:
        named = "; ".join(f"{p} @ {str(s)[:12]}" for p, s in unknown[:MAX_LISTED])
        more = f" and {len(unknown) - MAX_LISTED} more" if len(unknown) > MAX_LISTED else ""
        fail(f"{len(unknown)} evidence source version(s) are not among the statement's resolvedDependencies "
             f"({named}{more}): the bundle's evidence cites sources it does not declare; {REDO}.")


def keygen(folder: Path | None = None) -> tuple[Path, Path, str]:
    """A new Ed25519 key pair (private key mode 0600; an existing key is never overwritten)."""
    return dsse.keygen(folder or default_key_dir())

