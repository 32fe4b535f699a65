"""Brute-force numpy cosine search vs Kuzu's vector index, at our sizes (issue 4 asked to measure
before choosing). Random unit vectors of all-MiniLM-L6-v2's size (384); 10 nearest neighbours.

    .venv/bin/python benchmarks/vectors.py [--n 10000] [--sizes 10000,50000,100000]
"""

from __future__ import annotations

import argparse
import importlib.util  # noqa: F401  (kuzu's LOAD FROM on Arrow needs it loaded)
import tempfile
import time
from pathlib import Path

import kuzu
import numpy as np
import pyarrow as pa
from harness import out_path, write_json


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="numpy brute force vs Kuzu vector index (query latency, build time)")
    parser.add_argument("--n", type=int, default=10_000, help="rows for the Kuzu index (its build is slow)")
    parser.add_argument("--sizes", default="10000,50000,100000", help="rows for numpy brute force")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--out", type=Path, default=out_path("vectors.json"))
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    dim = 384

    def unit(n: int) -> np.ndarray:
        m = rng.standard_normal((n, dim)).astype(np.float32)
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    x = unit(args.n)
    queries = x[: args.queries] + 0.01
    with tempfile.TemporaryDirectory() as tmp:
        db = kuzu.Database(str(Path(tmp) / "v.kuzu"))
        conn = kuzu.Connection(db)
        conn.execute(f"CREATE NODE TABLE V(id INT64 PRIMARY KEY, vec FLOAT[{dim}])")
        table = pa.table({"id": np.arange(args.n), "vec": pa.array(list(x), type=pa.list_(pa.float32(), dim))})
        conn.execute("LOAD FROM $t CREATE (:V {id: id, vec: vec})", {"t": table})
        started = time.perf_counter()
        conn.execute("CALL CREATE_VECTOR_INDEX('V', 'vidx', 'vec', metric := 'cosine')")
        build = time.perf_counter() - started
        started = time.perf_counter()
        for q in queries:
            conn.execute("CALL QUERY_VECTOR_INDEX('V', 'vidx', $q, 10) RETURN node.id", {"q": q.tolist()}).get_all()
        kuzu_ms = (time.perf_counter() - started) / len(queries) * 1000
        conn.close()
        db.close()
    result = {"dim": dim, "kuzu_rows": args.n, "kuzu_build_seconds": round(build, 2), "kuzu_query_ms": round(kuzu_ms, 2), "numpy_query_ms": {}}
    for n in (int(s) for s in args.sizes.split(",")):
        matrix = unit(n)
        started = time.perf_counter()
        for q in queries:
            scores = matrix @ q
            np.argpartition(-scores, 10)[:10]
        result["numpy_query_ms"][n] = round((time.perf_counter() - started) / len(queries) * 1000, 2)
    print(f"Kuzu vector index, {args.n:,} rows: build {build:.1f} s, query {kuzu_ms:.1f} ms")
    for n, ms in result["numpy_query_ms"].items():
        print(f"numpy brute force, {n:,} rows: query {ms:.1f} ms")
    write_json(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
