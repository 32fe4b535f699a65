"""A shard's compiled knowledge as Arrow tables, for `kg bundle export` (kg/share/bundle.py).

What a bundle holds is the live state of the graph: sources still in raw/ (compiled or failed; not
removed), claims not retracted (live or superseded), their live evidence (the evidence of a
source's current version), their ABOUT edges, the entities that are live or that an exported claim
is about or a live source mentions, the contradictions between exported claims, and what each live
source says of each name it mentions (its MENTIONS edges, from which `kg merge` resolves entities
as a compile does). Timestamps of this machine's compiles
(ingested_at, compiled_at, file_stat, detected_at) are left out: they are not knowledge. Every
table has the explicit schema below, so an empty table keeps its column types.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from kg.graph.schema import NODES
from kg.graph.store import Store

_STR, _INT, _DBL = pa.string(), pa.int64(), pa.float64()

SOURCE_COLUMNS = ["path", "sha256", "slug", "title", "kind", "bytes", "authority", "status", "error", "extractor",
                  "chunks", "unverified"]
ENTITY_COLUMNS = ["id", "name", "type", "aliases", "summary", "status", "key"]
CLAIM_COLUMNS = [name for name, _ in NODES["Claim"] if name != "terms"]  # derived again where a bundle is merged

SCHEMAS: dict[str, pa.Schema] = {
    "sources": pa.schema([("path", _STR), ("sha256", _STR), ("slug", _STR), ("title", _STR), ("kind", _STR),
                          ("bytes", _INT), ("authority", _INT), ("status", _STR), ("error", _STR),
                          ("extractor", _STR), ("chunks", _INT), ("unverified", _INT)]),
    "entities": pa.schema([("id", _STR), ("name", _STR), ("type", _STR), ("aliases", pa.list_(_STR)),
                           ("summary", _STR), ("status", _STR), ("key", _STR)]),
    "claims": pa.schema([("id", _STR), ("text", _STR), ("claim_type", _STR), ("predicate", _STR), ("object", _STR),
                         ("value", _DBL), ("unit", _STR), ("polarity", _INT), ("confidence", _DBL),
                         ("extractor", _STR), ("prompt_version", _STR), ("valid_from", _STR), ("valid_to", _STR),
                         ("recorded_at", _STR), ("retracted_at", _STR), ("status", _STR), ("checked_at", _STR)]),
    "evidence": pa.schema([("claim_id", _STR), ("source_path", _STR), ("source_sha256", _STR), ("quote", _STR),
                           ("char_start", _INT), ("char_end", _INT)]),
    "about": pa.schema([("claim_id", _STR), ("entity_id", _STR), ("role", _STR)]),
    "contradictions": pa.schema([("a", _STR), ("b", _STR), ("reason", _STR), ("confidence", _DBL), ("method", _STR)]),
    # what each source says of each name (its MENTIONS edge): what `kg merge` resolves entities from
    "mentions": pa.schema([("source_path", _STR), ("entity_id", _STR), ("count", _INT), ("name", _STR),
                           ("type", _STR), ("description", _STR), ("aliases", pa.list_(_STR)), ("role", _STR)]),
}
# The row order of each table (its bytes must not depend on the order Kuzu returns rows in).
SORT_KEYS: dict[str, list[str]] = {
    "sources": ["path"],
    "entities": ["id"],
    "claims": ["id"],
    "evidence": ["claim_id", "source_path", "char_start", "char_end", "source_sha256", "quote"],
    "about": ["claim_id", "entity_id", "role"],
    "contradictions": ["a", "b", "method", "reason"],
    "mentions": ["source_path", "entity_id"],
}

_LIVE_SOURCE = "s.status <> 'removed'"
_KEPT_CLAIM = "c.status <> 'retracted'"


def _read(store: Store, name: str, cypher: str) -> pa.Table:
    schema = SCHEMAS[name]
    got = store.table(cypher)
    columns = [got.column(f.name).cast(f.type) if got.num_rows else pa.chunked_array([], f.type) for f in schema]
    table = pa.Table.from_arrays(columns, schema=schema)
    return table.sort_by([(key, "ascending") for key in SORT_KEYS[name]]).combine_chunks()


def shard_tables(store: Store) -> dict[str, pa.Table]:
    """{name: table} of the six bundle tables (schemas in SCHEMAS), rows sorted by SORT_KEYS."""
    tables = {
        "sources": _read(store, "sources", f"MATCH (s:Source) WHERE {_LIVE_SOURCE} RETURN "
                         + ", ".join(f"s.{c} AS {c}" for c in SOURCE_COLUMNS)),
        "claims": _read(store, "claims", f"MATCH (c:Claim) WHERE {_KEPT_CLAIM} RETURN "
                        + ", ".join(f"c.{c} AS {c}" for c in CLAIM_COLUMNS)),
        "evidence": _read(store, "evidence", "MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) "
                          f"WHERE {_KEPT_CLAIM} AND {_LIVE_SOURCE} AND x.retracted_at = '' "
                          "RETURN c.id AS claim_id, s.path AS source_path, x.source_sha256 AS source_sha256, "
                          "x.quote AS quote, x.char_start AS char_start, x.char_end AS char_end"),
        "about": _read(store, "about", f"MATCH (c:Claim)-[r:ABOUT]->(e:Entity) WHERE {_KEPT_CLAIM} "
                       "RETURN c.id AS claim_id, e.id AS entity_id, r.role AS role"),
        "contradictions": _read(store, "contradictions", "MATCH (c:Claim)-[r:CONTRADICTS]->(d:Claim) "
                                f"WHERE {_KEPT_CLAIM} AND d.status <> 'retracted' RETURN c.id AS a, d.id AS b, "
                                "r.reason AS reason, r.confidence AS confidence, r.method AS method"),
        "mentions": _read(store, "mentions", f"MATCH (s:Source)-[m:MENTIONS]->(e:Entity) WHERE {_LIVE_SOURCE} "
                          "RETURN s.path AS source_path, e.id AS entity_id, m.count AS count, m.name AS name, "
                          "m.type AS type, m.description AS description, m.aliases AS aliases, m.role AS role"),
    }
    entities = _read(store, "entities", "MATCH (e:Entity) RETURN " + ", ".join(f"e.{c} AS {c}" for c in ENTITY_COLUMNS))
    about_ids = pa.array(sorted(set(tables["about"].column("entity_id").to_pylist())
                                | set(tables["mentions"].column("entity_id").to_pylist())), _STR)
    keep = pc.or_(pc.equal(entities.column("status"), "live"), pc.is_in(entities.column("id"), value_set=about_ids))
    tables["entities"] = entities.filter(pc.fill_null(keep, False))
    return {name: tables[name] for name in SCHEMAS}


def source_holders(store: Store) -> list[dict[str, Any]]:
    """Path, sha256, status, authority, kind and file_stat of every Source (a source a `kg merge` wrote has
    file_stat 'shard:<id>': the shard that holds it), for a merge to compare a bundle with."""
    return store.query("MATCH (s:Source) RETURN s.path AS path, s.sha256 AS sha256, s.status AS status, "
                       "s.authority AS authority, s.kind AS kind, s.title AS title, s.file_stat AS file_stat "
                       "ORDER BY s.path")
