"""Small updates and id lookups go row by row (keyed statements), large ones through one
LOAD FROM / UNWIND: both must leave the same graph and give the same answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kg.graph import store as store_module
from kg.graph.store import SMALL_BATCH, Store, WriteBatch


def source(i: int) -> dict[str, Any]:
    return {"path": f"s{i:03d}.md", "slug": f"s{i:03d}", "sha256": "a" * 64, "title": f"S {i}", "kind": "markdown",
            "bytes": 10 + i, "authority": 0, "ingested_at": "t0", "compiled_at": "t0", "status": "compiled",
            "error": None, "extractor": "heuristic", "chunks": 1, "unverified": 0, "file_stat": f"{10 + i}:1:1"}


def claim(i: int) -> dict[str, Any]:
    return {"id": f"c{i:03d}", "text": f"claim {i}", "claim_type": "fact", "predicate": "is", "object": None,
            "value": float(i), "unit": None, "polarity": 1, "confidence": 0.5, "extractor": "heuristic",
            "prompt_version": "v", "valid_from": None, "valid_to": None, "recorded_at": "t0", "retracted_at": None,
            "status": "live"}


def graph_after(path: Path, small: int, n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]], set[str]]:
    """Create n sources and claims, update them all in one batch, look the ids up."""
    store_module.SMALL_BATCH = small
    with Store(path) as store:
        batch = WriteBatch()
        for i in range(n):
            batch.add("Source", source(i))
            batch.add("Claim", claim(i))
        store.write(batch)
        batch = WriteBatch()
        for i in range(n):
            row = {**source(i), "sha256": "b" * 64, "bytes": 99, "error": "e" if i % 2 else None,
                   "file_stat": None if i % 3 else "1:2:3", "compiled_at": "t1", "title": f"T {i}"}
            if i % 2:  # rows of one batch may SET different columns
                del row["title"], row["slug"]
            batch.update("Source", row)
            batch.update("Claim", {"id": f"c{i:03d}", "status": "retracted" if i % 2 else "live",
                                   "retracted_at": "t1" if i % 2 else None, "value": i + 1, "confidence": 1})
        batch.update("Claim", {"id": "missing", "status": "retracted", "retracted_at": "t1", "value": 0, "confidence": 0})
        for i in range(n):
            batch.relate("EXTRACTED_FROM", {"src": f"c{i:03d}", "dst": f"s{(i * 7) % n:03d}.md", "quote": f"q {i}",
                                            "char_start": i, "char_end": 2 * i + 1, "source_sha256": "a" * 64,
                                            "recorded_at": "t1", "retracted_at": None if i % 2 else "t2"})
        batch.relate("EXTRACTED_FROM", {"src": "missing", "dst": "s000.md", "quote": "q", "char_start": 0, "char_end": 1,
                                        "source_sha256": "a", "recorded_at": "t1", "retracted_at": None})
        store.write(batch)
        sources = store.query("MATCH (s:Source) RETURN s.* ORDER BY s.path")
        claims = store.query("MATCH (c:Claim) RETURN c.* ORDER BY c.id")
        claims += store.query("MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) RETURN c.id, s.path, x.quote, x.char_start, "
                              "x.char_end, x.source_sha256, x.recorded_at, x.retracted_at ORDER BY c.id")
        found = store.existing_ids("Claim", [f"c{i:03d}" for i in range(0, n + 3, 2)] + ["c000"])
    return sources, claims, found


@pytest.mark.parametrize("n", [3, SMALL_BATCH])
def test_row_by_row_and_load_from_write_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    monkeypatch.setattr(store_module, "SMALL_BATCH", SMALL_BATCH)
    by_row = graph_after(tmp_path / "a.kuzu", SMALL_BATCH, n)
    by_load = graph_after(tmp_path / "b.kuzu", 0, n)
    assert by_row == by_load
    sources, claims, found = by_row
    assert [s["s.sha256"] for s in sources] == ["b" * 64] * n and sources[1]["s.error"] == "e"
    assert [s["s.title"] for s in sources] == [f"S {i}" if i % 2 else f"T {i}" for i in range(n)]
    assert claims[0]["c.value"] == 1.0 and isinstance(claims[0]["c.value"], float) and claims[1]["c.retracted_at"] == "t1"
    assert found == {f"c{i:03d}" for i in range(0, n, 2)}
    evidence = [c for c in claims if "x.quote" in c]
    assert len(evidence) == n and evidence[1]["x.quote"] == "q 1" and evidence[1]["x.retracted_at"] == ""
    assert evidence[0]["x.retracted_at"] == "t2" and evidence[2]["x.char_end"] == 5


@pytest.mark.parametrize("keyed", [0, 1000])
def test_offsets_find_the_rows_by_primary_key_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          keyed: int) -> None:
    monkeypatch.setattr(store_module, "KEYED_LOOKUPS", keyed)  # 0: one UNWIND join; 1000: one lookup per key
    with Store(tmp_path / "g.kuzu") as store:
        batch = WriteBatch()
        for i in range(40):
            batch.add("Claim", claim(i))
        store.write(batch)
        wanted = ["c007", "c031", "c007", "missing"]
        offsets = store.offsets("Claim", wanted)
        rows = store.query("MATCH (c:Claim) WHERE offset(id(c)) IN $o RETURN c.id AS id ORDER BY id", {"o": offsets})
        assert [r["id"] for r in rows] == ["c007", "c031"]
        assert offsets == sorted(offsets) and len(offsets) == 2
        assert store.offsets("Claim", []) == store.offsets("Claim", ["missing"]) == [-1]
        assert store.query("MATCH (c:Claim) WHERE offset(id(c)) IN $o RETURN count(*) AS n", {"o": [-1]})[0]["n"] == 0


def test_edges_between_claims_are_known_absent_only_until_a_write(tmp_path: Path) -> None:
    """`has_edges` is asked once between writes (reads of contradictions are skipped while there are
    none), a write makes the store ask again, and an empty batch writes nothing at all."""
    from kg.graph.pages import contradiction_rows, linked_claims
    from kg.graph.store import CLAIM_LINKS

    with Store(tmp_path / "g.kuzu") as store:
        batch = WriteBatch()
        for i in range(3):
            batch.add("Claim", claim(i))
        store.write(batch)
        offsets = store.offsets("Claim", ["c000", "c001", "c002"])
        assert not store.has_edges(CLAIM_LINKS)
        assert contradiction_rows(store, offsets) == [] and linked_claims(store, offsets) == {}
        wal = store.wal_bytes()
        store.write(WriteBatch())  # nothing to write: no transaction
        assert store.wal_bytes() == wal and not store.has_edges(CLAIM_LINKS)
        batch = WriteBatch()
        batch.relate("CONTRADICTS", {"src": "c000", "dst": "c001", "reason": "r", "confidence": 0.9, "method": "rule",
                                     "detected_at": "t1"})
        store.write(batch)
        assert store.has_edges(CLAIM_LINKS)
        assert [(r["a"], r["b"]) for r in contradiction_rows(store, store.offsets("Claim", ["c001"]))] == [("c000", "c001")]
        assert set(linked_claims(store, store.offsets("Claim", ["c000"]))) == {"c001"}


def test_keys_known_before_the_offset_cache_is_forgotten_are_still_found(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Past OFFSET_CACHE keys the cache is forgotten; the keys it held must still be in the answer
    (existing_ids read the cache after it was cleared: rows taken for new, a duplicated primary key)."""
    monkeypatch.setattr(store_module, "OFFSET_CACHE", 3)
    ids = [f"c{i:03d}" for i in range(6)]
    with Store(tmp_path / "g") as store:
        batch = WriteBatch()
        for i in range(6):
            batch.add("Claim", claim(i))
        store.write(batch)
        store.offsets("Claim", ids[:4])
        assert store.existing_ids("Claim", ids) == set(ids)
        store.offsets("Claim", ids[:4])
        assert len(store.offsets("Claim", ids)) == 6
