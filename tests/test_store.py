from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.errors import DatabaseLocked, QueryError, StoreError
from kg.graph.schema import HISTORY
from kg.graph.store import Store, WriteBatch


def test_migrations_are_recorded_and_idempotent(tmp_path: Path) -> None:
    with Store(tmp_path / "g.kuzu") as store:
        versions = [r["v"] for r in store.query("MATCH (m:Migration) RETURN m.version AS v ORDER BY v")]
        assert versions == [v for v, _ in HISTORY]
        assert store.migrate() == []


names = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True), st.tuples(names, st.lists(names, max_size=3)), min_size=1, max_size=8))
def test_entities_round_trip(tmp_path_factory: pytest.TempPathFactory, entities: dict[str, tuple[str, list[str]]]) -> None:
    path = tmp_path_factory.mktemp("rt") / "g.kuzu"
    rows = [{"id": k, "name": n, "type": "concept", "aliases": a, "summary": None, "status": "live", "created_at": "t"}
            for k, (n, a) in sorted(entities.items())]
    with Store(path) as store:
        batch = WriteBatch()
        for row in rows:
            batch.add("Entity", row)
        store.write(batch)
        back = store.query("MATCH (e:Entity) RETURN e.id AS id, e.name AS name, e.type AS type, e.aliases AS aliases, "
                           "e.summary AS summary, e.status AS status, e.created_at AS created_at ORDER BY e.id")
    assert back == [{**row, "summary": ""} for row in rows]  # updated text columns are never NULL (schema.py)


def test_failed_batch_writes_nothing(tmp_path: Path) -> None:
    with Store(tmp_path / "g.kuzu") as store:
        batch = WriteBatch()
        batch.add("Entity", {"id": "a", "name": "A", "type": "x", "aliases": [], "status": "live"})
        batch.add("Entity", {"id": "a", "name": "dup", "type": "x", "aliases": [], "status": "live"})
        with pytest.raises(QueryError):
            store.write(batch)
        assert store.query("MATCH (e:Entity) RETURN count(e) AS c")[0]["c"] == 0


def test_read_only_refuses_writes_and_missing_graph(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="kg compile"):
        Store(tmp_path / "none.kuzu", read_only=True)
    Store(tmp_path / "g.kuzu").close()
    with Store(tmp_path / "g.kuzu", read_only=True) as store, pytest.raises(QueryError):
        store.query("CREATE (:Entity {id: 'x'})")


def test_second_process_gets_a_clear_message_naming_the_holder(tmp_path: Path) -> None:
    path = tmp_path / "g.kuzu"
    holder = subprocess.Popen(
        [sys.executable, "-c", f"from kg.graph.store import Store; import time; from pathlib import Path; s = Store(Path({str(path)!r})); print('ready', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(DatabaseLocked, match=rf"process {holder.pid}"):
            Store(path, read_only=True)
    finally:
        holder.kill()
        holder.wait()
    # the lock of a dead process is stale: cleared on the next open
    with Store(path) as store:
        assert store.schema_version() == HISTORY[-1][0]


def test_a_parameterised_query_is_prepared_once_and_reused(tmp_path: Path) -> None:
    # Kuzu 0.11.3 leaks native memory on each execute(text, params); a reused prepared statement does not.
    with Store(tmp_path / "g.kuzu") as store:
        store._prepared.clear()
        query = "MATCH (s:Source {path: $p}) RETURN s.slug AS slug"
        for i in range(5):
            assert store.query(query, {"p": f"missing-{i}"}) == []
        assert list(store._prepared) == [query]
        assert store.query("MATCH (s:Source) RETURN count(*) AS n") == [{"n": 0}]  # no parameters: not cached
        assert list(store._prepared) == [query]


def test_a_writer_remembers_node_offsets_only_until_its_next_write(tmp_path: Path) -> None:
    """Between writes an offset is looked up once; any write (a node made under a key asked before,
    one deleted) makes the store ask again, and what it answers is the graph's."""
    def entity(key: str) -> dict[str, object]:
        return {"id": key, "name": key, "type": "concept", "aliases": [], "status": "live"}

    def asked(store: Store) -> int:
        return sum(1 for q in store._prepared if q.startswith("MATCH (n:Entity {id: $k})"))

    with Store(tmp_path / "g.kuzu") as store:
        batch = WriteBatch()
        batch.add("Entity", entity("a"))
        store.write(batch)
        truth = "MATCH (n:Entity) WHERE n.id IN $k RETURN offset(id(n)) AS o ORDER BY o"
        assert store.offsets("Entity", ["a", "b"]) == [r["o"] for r in store.query(truth, {"k": ["a", "b"]})]
        store._prepared.clear()
        store.offsets("Entity", ["b", "a"])
        assert asked(store) == 0  # both known, "b" as absent: no lookup
        store.query("MATCH (e:Entity) RETURN count(*) AS n")  # a read forgets nothing
        store.offsets("Entity", ["a"])
        assert asked(store) == 0
        batch = WriteBatch()
        batch.add("Entity", entity("b"))
        store.write(batch)
        assert store.offsets("Entity", ["a", "b"]) == [r["o"] for r in store.query(truth, {"k": ["a", "b"]})]
        assert len(store.offsets("Entity", ["a", "b"])) == 2
        store.query("MATCH (e:Entity {id: 'a'}) DETACH DELETE e")
        assert store.offsets("Entity", ["a", "b"]) == [r["o"] for r in store.query(truth, {"k": ["a", "b"]})]
        assert len(store.offsets("Entity", ["a", "b"])) == 1


def test_small_changes_stay_in_the_wal_until_it_grows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer closes without checkpointing while the WAL is small; readers and the next writer
    replay it. Past CLOSE_CHECKPOINT_KB, or after a schema change, the close checkpoints; a WAL
    beside a deleted graph is dropped."""
    from kg.graph import store as store_module

    path = tmp_path / "g.kuzu"
    wal = Path(f"{path}.wal")
    entity = {"name": "A", "type": "concept", "aliases": [], "summary": None, "status": "live", "created_at": "t"}
    Store(path).close()  # creates the schema: DDL is always checkpointed
    assert not wal.exists() or wal.stat().st_size == 0
    with Store(path) as store:
        store.write(WriteBatch(nodes={"Entity": [{"id": "a", **entity}]}))
    assert 0 < wal.stat().st_size < store_module.CLOSE_CHECKPOINT_KB * 1024
    with Store(path, read_only=True) as store:
        assert store.query("MATCH (e:Entity) RETURN e.id AS id") == [{"id": "a"}]
    monkeypatch.setattr(store_module, "CLOSE_CHECKPOINT_KB", 0)
    with Store(path) as store:
        store.write(WriteBatch(nodes={"Entity": [{"id": "b", **entity}]}))
    assert not wal.exists() or wal.stat().st_size == 0
    with Store(path, read_only=True) as store:
        assert [r["id"] for r in store.query("MATCH (e:Entity) RETURN e.id AS id ORDER BY id")] == ["a", "b"]
    monkeypatch.setattr(store_module, "CLOSE_CHECKPOINT_KB", 256)
    with Store(path) as store:
        store.write(WriteBatch(nodes={"Entity": [{"id": "c", **entity}]}))
    assert wal.stat().st_size > 0
    path.unlink()  # the graph is lost, its WAL is not: a new graph starts empty
    with Store(path) as store:
        assert store.query("MATCH (e:Entity) RETURN count(*) AS n") == [{"n": 0}]
