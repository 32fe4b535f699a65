"""Reads of the graph for search, navigation and the graph walk.

The Cypher that kg/retrieve runs (search.py, navigate.py, walk.py) lives here, as functions
that take a `Store` and plain parameters and return rows (dicts), Arrow tables or ids; the
retrieval stages build their results (hits, claim references, the walk's graph) from them.

Kuzu 0.11.3 workarounds kept here: ids are turned into node offsets (`Store.offsets`, keyed
lookups through the primary-key index) and queries filter with `WHERE offset(id(n)) IN $o`,
because `n.id IN $ids` tests every row against the list and `UNWIND $ids AS i MATCH (n {id: i})`
is planned as a scan and hash join over the whole table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kg.graph.fts import FTS_INDEXES
from kg.graph.store import Store

if TYPE_CHECKING:
    import pyarrow as pa  # Arrow reads are for bulk work; pyarrow itself is kuzu's to load

Row = dict[str, Any]


# search: BM25 -------------------------------------------------------------------------------

# what a table's full-text hits are filtered by (retracted claims are not found)
_FTS_WHERE = {"Claim": "WHERE node.status = 'live' ", "Chunk": "", "Page": ""}


def has_pages(store: Store) -> bool:
    """Whether the graph holds any answer page."""
    return bool(store.query("MATCH (p:Page) RETURN p.id LIMIT 1"))


def fts_rows(store: Store, table: str, words: str, top: int) -> list[Row]:
    """BM25 hits (id, score) of `table`'s full-text index for the query words, at most `top`."""
    name, _ = FTS_INDEXES[table]
    where = _FTS_WHERE[table]
    return store.query(
        f"CALL QUERY_FTS_INDEX('{table}', '{name}', $q, top := $k) WITH node, score {where}"
        "RETURN node.id AS id, score", {"q": words, "k": top})


# search: vectors ----------------------------------------------------------------------------

# kind -> the texts vector search covers (columns id, text, and a claim's subject's name), in a fixed order
_CORPUS = {
    "claim": "MATCH (c:Claim) WHERE c.status = 'live' OPTIONAL MATCH (c)-[:ABOUT {role: 'subject'}]->(e:Entity) "
             "RETURN c.id AS id, c.text AS text, coalesce(e.name, '') AS subject ORDER BY id",
    "chunk": "MATCH (s:Source)-[:HAS_CHUNK]->(k:Chunk) WHERE s.status = 'compiled' AND k.sha256 = s.sha256 "
             "RETURN k.id AS id, k.text AS text ORDER BY id",
    "page": "MATCH (p:Page) RETURN p.id AS id, p.title + '\n' + coalesce(p.body, '') AS text ORDER BY id",
}
CORPUS_KINDS = tuple(_CORPUS)


def corpus_rows(store: Store, kind: str) -> list[Row]:
    """Ids and texts (id, text, by id) of one kind that vector search covers: live claims (and the
    name of each one's subject: subject), current chunks of compiled sources, or answer pages
    (title and body). Row by row: as fast as through Arrow, and a question then needs no pyarrow."""
    return store.query(_CORPUS[kind])


# search: hit details ------------------------------------------------------------------------


def chunk_rows(store: Store, ids: Sequence[str]) -> list[Row]:
    """Current chunks of compiled sources among `ids`: id, text, cs, ce, path, slug, title."""
    return store.query(
        "MATCH (s:Source)-[:HAS_CHUNK]->(k:Chunk) WHERE offset(id(k)) IN $o "
        "AND s.status = 'compiled' AND s.sha256 = k.sha256 RETURN k.id AS id, k.text AS text, "
        "k.char_start AS cs, k.char_end AS ce, s.path AS path, s.slug AS slug, s.title AS title",
        {"o": store.offsets("Chunk", ids)})


def page_rows(store: Store, ids: Sequence[str]) -> list[Row]:
    """Answer pages among `ids`: id, title, kind, body."""
    return store.query("MATCH (p:Page) WHERE p.id IN $ids RETURN p.id AS id, p.title AS title, "
                       "p.kind AS kind, p.body AS body", {"ids": ids})


# Templates filled with a WHERE condition on `c`: for every live claim, or for claims by offset.
_CLAIM_ROWS = ("MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) WHERE {where} AND x.retracted_at = '' "
               "RETURN c.id AS id, c.text AS text, c.confidence AS conf, s.path AS path, s.slug AS slug, "
               "s.title AS title, x.char_start AS cs, x.char_end AS ce")
_ABOUT_ROWS = "MATCH (c:Claim)-[a:ABOUT]->(e:Entity) WHERE {where} RETURN c.id AS id, e.id AS e, a.role AS role"


def live_claim_evidence_rows(store: Store) -> list[Row]:
    """Every live claim's live evidence: id, text, conf, path, slug, title, cs, ce (one bulk read)."""
    return store.table(_CLAIM_ROWS.format(where="c.status = 'live'")).to_pylist()


def live_claim_about_rows(store: Store) -> list[Row]:
    """Every live claim's entities: id, e, role (one bulk read)."""
    return store.table(_ABOUT_ROWS.format(where="c.status = 'live'")).to_pylist()


def claim_evidence_and_about_rows(store: Store, ids: Sequence[str]) -> tuple[list[Row], list[Row]]:
    """For claims `ids`: their live evidence rows (id, text, conf, path, slug, title, cs, ce; a claim
    without live evidence gets one row with NULL path, slug, title, cs and ce), and their entity
    rows (id, e, role)."""
    where = {"o": store.offsets("Claim", ids)}  # keyed lookups: `c.id IN $ids` tests every claim
    rows = store.query(_CLAIM_ROWS.format(where="offset(id(c)) IN $o"), where)
    if missing := sorted(set(ids) - {r["id"] for r in rows}):  # claims without live evidence
        rows += store.query("MATCH (c:Claim) WHERE offset(id(c)) IN $o RETURN c.id AS id, c.text AS text, "
                            "c.confidence AS conf, NULL AS path, NULL AS slug, NULL AS title, "
                            "NULL AS cs, NULL AS ce", {"o": store.offsets("Claim", missing)})
    about = store.query(_ABOUT_ROWS.format(where="offset(id(c)) IN $o"), where)
    return rows, about


# search: expansion --------------------------------------------------------------------------


def source_top_entity_ids(store: Store, path: str) -> list[str]:
    """Ids of the (at most 5) entities the source at `path` mentions most."""
    return [r["e"] for r in store.query(
        "MATCH (s:Source {path: $p})-[m:MENTIONS]->(e:Entity) RETURN e.id AS e ORDER BY m.count DESC, e.id LIMIT 5",
        {"p": path})]


def page_entity_ids(store: Store, page_id: str) -> list[str]:
    """Ids of the entities an answer page is about."""
    return [r["id"] for r in store.query(  # `ORDER BY e` with `e.id AS e` orders the node: Kuzu refuses
        "MATCH (:Page {id: $id})-[:PAGE_ABOUT]->(e:Entity) RETURN e.id AS id ORDER BY id", {"id": page_id})]


def entity_live_claim_ids(store: Store, entity: str, limit: int) -> list[str]:
    """Ids of the live claims about `entity`, most confident first, at most `limit`."""
    rows = store.query(
        "MATCH (c:Claim)-[:ABOUT]->(:Entity {id: $e}) WHERE c.status = 'live' "
        "RETURN c.id AS id ORDER BY c.confidence DESC, c.id LIMIT $n", {"e": entity, "n": limit})
    return [r["id"] for r in rows]


def mentioning_source_rows(store: Store, entity: str, limit: int) -> list[Row]:
    """Compiled sources that mention `entity` most, at most `limit`: path, slug, title."""
    return store.query(
        "MATCH (s:Source)-[m:MENTIONS]->(:Entity {id: $e}) WHERE s.status = 'compiled' "
        "RETURN s.path AS path, s.slug AS slug, s.title AS title ORDER BY m.count DESC, s.path LIMIT $n",
        {"e": entity, "n": limit})


# navigation ---------------------------------------------------------------------------------


def entity_page_rows(store: Store) -> list[Row]:
    """Entities that have a page (at least one claim): id, name, aliases, summary, type. Row by row,
    not through Arrow: as fast here (measured at 50k rows), and a question then needs no pyarrow."""
    return store.query(
        "MATCH (e:Entity) WHERE EXISTS { MATCH (:Claim)-[:ABOUT]->(e) } "
        "RETURN e.id AS id, e.name AS name, e.aliases AS aliases, e.summary AS summary, e.type AS type")


def entity_claim_rows(store: Store, entities: Sequence[str]) -> list[Row]:
    """Live claims about these entities: eid, id, text, conf, type, polarity, role (by eid, id)."""
    return store.query(
        "MATCH (c:Claim)-[a:ABOUT]->(e:Entity) WHERE offset(id(e)) IN $o AND c.status = 'live' "
        "RETURN e.id AS eid, c.id AS id, c.text AS text, c.confidence AS conf, c.claim_type AS type, "
        "c.polarity AS polarity, a.role AS role ORDER BY eid, id",
        {"o": store.offsets("Entity", entities)})


def source_claim_rows(store: Store, paths: Sequence[str], entities: Sequence[str] | set[str],
                      whole_up_to: int = 0) -> list[Row]:
    """Live claims with live evidence in these sources about one of `entities` (eid that entity),
    and the other live claims of those with at most `whole_up_to` chunks (eid None): path, eid, id,
    text, conf, type, polarity (by path, id, eid)."""
    paths_at = store.offsets("Source", paths)
    about = store.query(
        "MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) WHERE offset(id(s)) IN $paths AND c.status = 'live' "
        "AND x.retracted_at = '' MATCH (c)-[:ABOUT]->(e:Entity) WHERE offset(id(e)) IN $ids "
        "RETURN s.path AS path, e.id AS eid, c.id AS id, c.text AS text, c.confidence AS conf, c.claim_type AS type, "
        "c.polarity AS polarity",
        {"paths": paths_at, "ids": store.offsets("Entity", entities)}) if entities else []
    # no join with ABOUT here: measured 2 ms against 10 ms per question with it
    seen = {r["id"] for r in about}
    whole = [dict(r, eid=None) for r in store.query(
        "MATCH (s:Source)<-[x:EXTRACTED_FROM]-(c:Claim) WHERE offset(id(s)) IN $paths AND s.chunks <= $n "
        "AND c.status = 'live' AND x.retracted_at = '' "
        "RETURN s.path AS path, c.id AS id, c.text AS text, c.confidence AS conf, c.claim_type AS type, "
        "c.polarity AS polarity",
        {"paths": paths_at, "n": whole_up_to}) if r["id"] not in seen] if whole_up_to > 0 else []
    return sorted(about + whole, key=lambda r: (r["path"], r["id"], r["eid"] or ""))


def source_live_claim_rows(store: Store, paths: Sequence[str], max_chunks: int) -> list[Row]:
    """Every live claim with live evidence in those of these sources with at most `max_chunks` chunks,
    once per source: path, chunks (the source's), id, text, conf, type, polarity (by path, id). No join
    with ABOUT: reading a claim's entities from the source side took three times as long as the claims alone."""
    rows = store.query(
        "MATCH (s:Source)<-[x:EXTRACTED_FROM]-(c:Claim) WHERE offset(id(s)) IN $paths AND s.chunks <= $n "
        "AND c.status = 'live' AND x.retracted_at = '' RETURN DISTINCT s.path AS path, s.chunks AS chunks, "
        "c.id AS id, c.text AS text, c.confidence AS conf, c.claim_type AS type, c.polarity AS polarity",
        {"paths": store.offsets("Source", paths), "n": max_chunks})
    return sorted(rows, key=lambda r: (r["path"], r["id"]))


def claim_entity_and_citation_rows(store: Store, ids: Sequence[str]) -> tuple[list[Row], list[Row]]:
    """For claims `ids`: one row per claim and entity it is about (id, text, conf, type, e, name, role;
    e, name and role NULL for a claim about none), and their live evidence (id, path, slug, title,
    cs, ce, quote; by id, path, cs)."""
    where = {"o": store.offsets("Claim", ids)}  # keyed lookups: `c.id IN $ids` tests every claim
    # two queries joined here: an OPTIONAL MATCH of the entities took twice as long as both together
    about: dict[str, list[Row]] = {}
    for r in store.query("MATCH (c:Claim)-[a:ABOUT]->(e:Entity) WHERE offset(id(c)) IN $o "
                         "RETURN c.id AS id, e.id AS e, e.name AS name, a.role AS role", where):
        about.setdefault(r["id"], []).append(r)
    none = [{"e": None, "name": None, "role": None}]
    rows = [{**claim, "e": r["e"], "name": r["name"], "role": r["role"]}
            for claim in store.query("MATCH (c:Claim) WHERE offset(id(c)) IN $o RETURN c.id AS id, c.text AS text, "
                                     "c.confidence AS conf, c.claim_type AS type", where)
            for r in about.get(claim["id"], none)]
    citations = store.query(
        "MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) WHERE offset(id(c)) IN $o AND x.retracted_at = '' "
        "RETURN c.id AS id, s.path AS path, s.slug AS slug, s.title AS title, x.char_start AS cs, "
        "x.char_end AS ce, x.quote AS quote ORDER BY id, path, cs", where)
    return rows, citations


def has_contradictions(store: Store) -> bool:
    """Whether the graph has any CONTRADICTS edge."""
    return bool(store.query("MATCH ()-[r:CONTRADICTS]->() RETURN r LIMIT 1"))


def contradiction_rows(store: Store, ids: Sequence[str]) -> list[Row]:
    """CONTRADICTS edges between two of these claims: first, second, confidence."""
    if len(ids) < 2:
        return []
    offsets = store.offsets("Claim", ids)
    return store.query(
        "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) WHERE offset(id(a)) IN $o AND offset(id(b)) IN $o "
        "RETURN a.id AS first, b.id AS second, r.confidence AS confidence ORDER BY first, second", {"o": offsets})


def source_slugs(store: Store, paths: Sequence[str]) -> dict[str, str]:
    """{path: slug} of the sources at these paths."""
    rows = store.query("MATCH (s:Source) WHERE offset(id(s)) IN $o RETURN s.path AS path, s.slug AS slug",
                       {"o": store.offsets("Source", paths)})
    return {r["path"]: r["slug"] for r in rows}


# the graph walk (bulk Arrow reads) ----------------------------------------------------------


def entity_name_table(store: Store) -> pa.Table:
    """Every entity: columns id, name, aliases, type, by id."""
    return store.table("MATCH (e:Entity) RETURN e.id AS id, e.name AS name, e.aliases AS aliases, e.type AS type "
                       "ORDER BY id")


def compiled_source_table(store: Store) -> pa.Table:
    """Every compiled source: columns path, title, by path."""
    return store.table("MATCH (s:Source) WHERE s.status = 'compiled' RETURN s.path AS path, s.title AS title "
                       "ORDER BY path")


def mention_table(store: Store) -> pa.Table:
    """Every MENTIONS edge: columns s (source path), e (entity id), n (count)."""
    return store.table("MATCH (s:Source)-[m:MENTIONS]->(e:Entity) RETURN s.path AS s, e.id AS e, m.count AS n")


def retracted_claim_ids(store: Store) -> set[str]:
    """Ids of the retracted claims."""
    return set(store.table("MATCH (c:Claim) WHERE c.status = 'retracted' RETURN c.id AS id").column("id").to_pylist())


def related_table(store: Store) -> pa.Table:
    """Every RELATED edge: columns a, b (entity ids), c (the claim it came from)."""
    return store.table("MATCH (a:Entity)-[r:RELATED]->(b:Entity) RETURN a.id AS a, b.id AS b, r.claim_id AS c")


def alias_table(store: Store) -> pa.Table:
    """Every ALIAS_OF edge: columns a (alias entity id), b (target entity id)."""
    return store.table("MATCH (a:Entity)-[:ALIAS_OF]->(b:Entity) RETURN a.id AS a, b.id AS b")
