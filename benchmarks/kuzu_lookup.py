"""How reading k known rows out of a Kuzu table grows with the table's size N.

An incremental compile touches a handful of claims, entities and sources, but reads them out of
tables of N rows. It stays flat as N grows only if reading k rows costs O(k), not O(N). This
measures, on Kuzu as installed, every way of asking for k rows we know of, on a table shaped
like kg's claims (`Claim(id STRING PRIMARY KEY, text STRING)`, each about one `Entity`):

- `in`: `MATCH (c:Claim) WHERE offset(id(c)) IN $offsets` returning 2 columns (what kg uses);
- `in-5-columns`: the same returning 5 string columns (Kuzu reads each returned column for every
  row it scans, not only for the k it keeps);
- `in-rel`: the same, then one hop to the claim's entity;
- `pk-in`: `WHERE c.id IN $keys` (primary keys in a list);
- `unwind-pk`: `UNWIND $keys AS k MATCH (c:Claim {id: k})` (primary keys, joined);
- `pk-each`: one `MATCH (c:Claim {id: $k})` query per key (the only indexed lookup);
- `pk-each-hop`: the same, then one hop to the claim's entity;
- `pk-union`: one query of k `MATCH (c:Claim {id: $ki})` parts joined by UNION ALL.

For each it prints the milliseconds per query at each N and the fitted exponent of N (0: flat,
1: a scan of the table), and writes benchmarks/out/kuzu_lookup.json.

    .venv/bin/python benchmarks/kuzu_lookup.py                # ~1 min: N = 20k, 100k, 200k
"""

from __future__ import annotations

import argparse
import importlib.util  # noqa: F401  (kuzu's LOAD FROM on Arrow needs importlib.util loaded)
import random
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import kuzu
from harness import best_ms, loglog_slope, out_path, write_json


def build(path: Path, n: int, seed: int) -> tuple[kuzu.Database, kuzu.Connection]:
    """N claims about N / 4 entities, bulk-loaded from Arrow tables (seconds, not minutes)."""
    import pyarrow as pa

    db = kuzu.Database(str(path))
    conn = kuzu.Connection(db)
    conn.execute("CREATE NODE TABLE Entity(id STRING PRIMARY KEY, name STRING)")
    conn.execute("CREATE NODE TABLE Claim(id STRING PRIMARY KEY, text STRING, predicate STRING, object STRING, status STRING)")
    conn.execute("CREATE REL TABLE ABOUT(FROM Claim TO Entity, role STRING)")
    rng = random.Random(seed)
    entities = max(1, n // 4)
    conn.execute("LOAD FROM $t CREATE (:Entity {id: id, name: name})", {"t": pa.table({
        "id": [f"e{i:07d}" for i in range(entities)], "name": [f"Entity {i}" for i in range(entities)]})})
    conn.execute("LOAD FROM $t CREATE (:Claim {id: id, text: text, predicate: predicate, object: object, status: status})",
                 {"t": pa.table({
                     "id": [f"c{i:015x}" for i in range(n)],
                     "text": [f"Claim {i} says something about entity {i % entities} in {1900 + rng.randrange(120)}."
                              for i in range(n)],
                     "predicate": [f"predicate {i % 97}" for i in range(n)],
                     "object": [f"object {i % 1013}" for i in range(n)],
                     "status": ["live"] * n,
                 })})
    conn.execute("COPY ABOUT FROM $t", {"t": pa.table({
        "from": [f"c{i:015x}" for i in range(n)], "to": [f"e{i % entities:07d}" for i in range(n)],
        "role": ["subject"] * n})})
    conn.execute("CHECKPOINT")
    return db, conn


def forms(conn: kuzu.Connection, keys: list[str], offsets: list[int]) -> dict[str, Callable[[], Any]]:
    def query(cypher: str, params: dict[str, Any]) -> Callable[[], Any]:
        return lambda: conn.execute(cypher, params).get_all()  # type: ignore[union-attr]

    with warnings.catch_warnings():  # prepared once, as kg/graph/store.py does (see Store._exec)
        warnings.simplefilter("ignore", DeprecationWarning)
        one = conn.prepare("MATCH (c:Claim {id: $k}) RETURN c.id, c.text")
        hop = conn.prepare("MATCH (c:Claim {id: $k})-[a:ABOUT]->(e:Entity) RETURN c.id, e.id, a.role")
    union = " UNION ALL ".join(f"MATCH (c:Claim {{id: $k{i}}}) RETURN c.id AS id, c.text AS text" for i in range(len(keys)))
    return {
        "in": query("MATCH (c:Claim) WHERE offset(id(c)) IN $o RETURN c.id, c.text", {"o": offsets}),
        "in-5-columns": query("MATCH (c:Claim) WHERE offset(id(c)) IN $o "
                              "RETURN c.id, c.text, c.predicate, c.object, c.status", {"o": offsets}),
        "in-rel": query("MATCH (c:Claim)-[a:ABOUT]->(e:Entity) WHERE offset(id(c)) IN $o RETURN c.id, e.id, a.role",
                        {"o": offsets}),
        "pk-in": query("MATCH (c:Claim) WHERE c.id IN $k RETURN c.id, c.text", {"k": keys}),
        "unwind-pk": query("UNWIND $k AS k MATCH (c:Claim {id: k}) RETURN c.id, c.text", {"k": keys}),
        "pk-each": lambda: [conn.execute(one, {"k": k}).get_all() for k in keys],  # type: ignore[union-attr]
        "pk-each-hop": lambda: [conn.execute(hop, {"k": k}).get_all() for k in keys],  # type: ignore[union-attr]
        "pk-union": query(union, {f"k{i}": k for i, k in enumerate(keys)}),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", default="20000,100000,200000", help="table sizes N, comma-separated")
    parser.add_argument("--keys", default="10,100", help="rows asked for, k, comma-separated")
    parser.add_argument("--repeats", type=int, default=5, help="best of this many runs per figure")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=out_path("kuzu_lookup.json"))
    args = parser.parse_args(argv)
    sizes, ks = [int(s) for s in args.sizes.split(",")], [int(k) for k in args.keys.split(",")]
    results: dict[str, dict[str, list[float]]] = {}
    work = Path(tempfile.mkdtemp(prefix="kg-kuzu-lookup-"))
    try:
        for n in sizes:
            started = time.perf_counter()
            db, conn = build(work / f"n{n}", n, args.seed)
            print(f"N={n:,}: built in {time.perf_counter() - started:.1f} s", flush=True)
            rng = random.Random(args.seed)
            for k in ks:
                rows = sorted(rng.sample(range(n), k))
                keys = [f"c{i:015x}" for i in rows]
                table = conn.execute("MATCH (c:Claim) WHERE c.id IN $k RETURN offset(id(c)) AS o", {"k": keys}).get_as_arrow()  # type: ignore[union-attr]
                offsets = table.column("o").to_pylist()
                for name, run in forms(conn, keys, offsets).items():
                    run()  # warm
                    results.setdefault(f"{name} k={k}", {}).setdefault("ms", []).append(round(best_ms(run, args.repeats), 2))
            conn.close()
            db.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n| form | {' | '.join(f'N={n:,} (ms)' for n in sizes)} | exponent of N |")
    print(f"|---|{'---:|' * len(sizes)}---:|")
    summary = {}
    for name, figures in results.items():
        slope = loglog_slope(sizes, [max(ms, 1e-6) for ms in figures["ms"]])
        exponent = round(slope, 2) if slope is not None else float("nan")
        summary[name] = {"ms": dict(zip(map(str, sizes), figures["ms"], strict=True)), "exponent": exponent}
        print(f"| {name} | {' | '.join(f'{ms:.2f}' for ms in figures['ms'])} | {exponent:.2f} |")
    write_json(args.out, {"kuzu": kuzu.__version__, "sizes": sizes, "keys": ks, "forms": summary})
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
