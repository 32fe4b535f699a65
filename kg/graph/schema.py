"""The graph's schema, declared once: the CREATE statements of a new graph, the Arrow schemas of
batched writes and the columns a rewrite copies all come from the tables below.

Why a new graph is created whole instead of by replaying ALTERs, and why some STRING columns are
never NULL: Kuzu 0.11.3 corrupts a STRING column when values are SET on rows where it was NULL
and the change is checkpointed before more rows join the node group; every later scan of the
column segfaults (issue 24: `Source.file_stat`, added by `ALTER TABLE ... ADD`, NULL for a file
read too soon after it was written, SET on the next compile). A column added by ALTER, with or
without a DEFAULT, broke the same way when SET; a column created with its table and written ''
instead of NULL never did. So: no ALTER ADD, ever (a schema change rewrites the graph, see
kg/graph/rewrite.py), and every STRING column that is SET after its row was created is listed in
NEVER_NULL, where '' (UNSET) stands for "no value".
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from kg.text import index_terms

if TYPE_CHECKING:
    import pyarrow as pa

SCHEMA_VERSION = 9
# Graphs older than this cannot be upgraded by a copy: kg compile rebuilds them from raw/ (the
# reply cache and the journal keep what cannot be recomputed).
REBUILD_BELOW = 7

# Every schema version, for the Migration table: (version, what changed).
HISTORY: list[tuple[int, str]] = [
    (1, "initial schema"),
    (2, "claims remember when contradiction detection last saw them"),
    (3, "search: source chunks in the graph; answer pages linked to entities"),
    (4, "sources remember the stat of the file they were hashed from"),
    (5, "entity keys: resolve a few names without reading every entity"),
    (6, "rewritten: updated text columns are never NULL, no column added by ALTER (a Kuzu 0.11.3 crash)"),
    (7, "entities are a function of their names: Entity.key, what each source says on MENTIONS, Decision"),
    (8, "search: the CJK bigrams of claims, chunks and answer pages (`terms`), beside their text"),
    (9, "search: `terms` also hold the words written against CJK text and every number spelt in letters (recomputed)"),
]

S, INT, D, SL = "STRING", "INT64", "DOUBLE", "STRING[]"

# Node tables: the first column is the primary key.
NODES: dict[str, list[tuple[str, str]]] = {
    "Migration": [("version", INT), ("name", S), ("applied_at", S)],
    "Source": [("path", S), ("slug", S), ("sha256", S), ("title", S), ("kind", S), ("bytes", INT), ("authority", INT),
               ("ingested_at", S), ("compiled_at", S), ("status", S), ("error", S), ("extractor", S), ("chunks", INT),
               ("unverified", INT), ("file_stat", S)],
    "Entity": [("id", S), ("name", S), ("type", S), ("aliases", SL), ("summary", S), ("status", S), ("created_at", S),
               ("key", S)],
    "Claim": [("id", S), ("text", S), ("claim_type", S), ("predicate", S), ("object", S), ("value", D), ("unit", S),
              ("polarity", INT), ("confidence", D), ("extractor", S), ("prompt_version", S), ("valid_from", S),
              ("valid_to", S), ("recorded_at", S), ("retracted_at", S), ("status", S), ("checked_at", S), ("terms", S)],
    "Page": [("id", S), ("kind", S), ("title", S), ("body", S), ("body_sha256", S), ("created_at", S), ("terms", S)],
    "LogEntry": [("seq", INT), ("at", S), ("op", S), ("subject", S), ("detail", S)],
    "Chunk": [("id", S), ("source_path", S), ("idx", INT), ("text", S), ("char_start", INT), ("char_end", INT),
              ("sha256", S), ("terms", S)],
    # what a person decided with `kg entity merge` (merged_into: the target) or `unmerge` ('': kept apart)
    "Decision": [("entity", S), ("merged_into", S), ("at", S)],
}
# Relationship tables: (from table, to table, properties).
RELS: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "ABOUT": ("Claim", "Entity", [("role", S)]),
    "EXTRACTED_FROM": ("Claim", "Source", [("source_sha256", S), ("quote", S), ("char_start", INT), ("char_end", INT),
                                           ("recorded_at", S), ("retracted_at", S)]),
    # what the source says about the name: its surface form, type, description, and the aliases it
    # declares (role "name"), or, for an alias (role "alias"), the names that declare it
    "MENTIONS": ("Source", "Entity", [("count", INT), ("name", S), ("type", S), ("description", S), ("aliases", SL),
                                      ("role", S)]),
    "RELATED": ("Entity", "Entity", [("predicate", S), ("claim_id", S)]),
    "CONTRADICTS": ("Claim", "Claim", [("reason", S), ("confidence", D), ("method", S), ("detected_at", S)]),
    "SUPERSEDES": ("Claim", "Claim", [("reason", S)]),
    "ALIAS_OF": ("Entity", "Entity", [("method", S), ("score", D)]),
    "CITES": ("Page", "Claim", []),
    "HAS_CHUNK": ("Source", "Chunk", []),
    "PAGE_ABOUT": ("Page", "Entity", []),
}
# Columns derived from others when a row is written (or copied by a rewrite): the CJK bigrams of the
# text a full-text index reads and the numbers spelt in letters (kg/text.py `index_terms`; Kuzu's FTS
# splits at whitespace only and drops digits).
SEARCH_TERMS: dict[str, tuple[str, ...]] = {"Claim": ("text",), "Chunk": ("text",), "Page": ("title", "body")}
KEYS: dict[str, str] = {table: columns[0][0] for table, columns in NODES.items()}

UNSET = ""
# The STRING columns that are SET after their row was created: never NULL (see the module doc).
NEVER_NULL: dict[str, tuple[str, ...]] = {
    "Source": ("slug", "sha256", "title", "kind", "ingested_at", "compiled_at", "status", "error", "extractor", "file_stat"),
    "Entity": ("name", "type", "summary", "status"),
    "Claim": ("status", "retracted_at", "checked_at"),
    "Decision": ("merged_into", "at"),
    "EXTRACTED_FROM": ("retracted_at",),
}


def create_statements() -> list[str]:
    """The DDL of a new graph at SCHEMA_VERSION."""
    out = []
    for table, columns in NODES.items():
        cols = ", ".join(f"{name} {kind}" + (" PRIMARY KEY" if i == 0 else "") for i, (name, kind) in enumerate(columns))
        out.append(f"CREATE NODE TABLE {table}({cols})")
    for table, (src, dst, props) in RELS.items():
        out.append(f"CREATE REL TABLE {table}(FROM {src} TO {dst}" + "".join(f", {n} {k}" for n, k in props) + ")")
    return out


@functools.cache
def arrow_schema(table: str) -> pa.Schema:
    """The Arrow schema of batched writes: a node table's columns, or `src`, `dst` and a
    relationship's properties (explicit, so that all-null columns keep their type)."""
    import pyarrow as pa  # for writes only: a read starts without it

    arrow = {S: pa.string(), INT: pa.int64(), D: pa.float64(), SL: pa.list_(pa.string())}
    if table in NODES:
        return pa.schema([(name, arrow[kind]) for name, kind in NODES[table]])
    props = RELS[table][2]
    return pa.schema([("src", arrow[S]), ("dst", arrow[S]), *((name, arrow[kind]) for name, kind in props)])


def search_terms(table: str, row: dict[str, object]) -> str:
    """The `terms` column of a row of a SEARCH_TERMS table: what Kuzu's index misses of its text, CJK
    tokens and numbers (kg/text.py `index_terms`)."""
    return index_terms("\n".join(str(row.get(c) or "") for c in SEARCH_TERMS[table]))
