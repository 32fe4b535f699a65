"""Search latency benchmark (issue 6): p50/p95 of BM25 and hybrid search on SciFact.

Compiles the SciFact abstracts offline (heuristic extractor) into a fresh knowledge base
(or reuses one given with --kb), then times `Searcher.search` in one process for the
SciFact training claims used as queries. Excluded from the latencies, and reported
separately: loading the embedding model, and the first vector search (embedding every
claim/chunk not in the vector cache yet and loading the matrix). Also reported: the time
to rebuild the FTS indexes (what a compile that changed something pays), the warm
navigator (`kg.retrieve.navigate.Navigator.navigate`) latency, and a recall@10 proxy (a query's cited
abstract among the sources of the top 10 hits).

Target: p50 < 50 ms for BM25 and for hybrid.

    .venv/bin/python benchmarks/search.py                      # full corpus, hashing embedder
    .venv/bin/python benchmarks/search.py --embedder minilm    # MiniLM (first run embeds the corpus: minutes)
    .venv/bin/python benchmarks/search.py --limit 500 --queries 50
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import (
    data_dir,
    machine,
    nearest_rank,
    out_path,
    read_jsonl,
    scifact_markdown,
    write_json,
)

DEFAULT_OUT = out_path("search.json")
TARGET_P50_MS = 50.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Benchmark kg search latency on SciFact (offline).")
    p.add_argument("--corpus", type=Path, default=None, help="corpus.jsonl (default $KG_DATA_DIR/scifact/corpus.jsonl)")
    p.add_argument("--claims", type=Path, default=None, help="claims_train.jsonl used as queries (default beside the corpus)")
    p.add_argument("--kb", type=Path, default=None, help="reuse this compiled knowledge base instead of compiling")
    p.add_argument("--keep", action="store_true", help="keep the temporary knowledge base and print where it is")
    p.add_argument("--limit", type=int, default=None, help="first N abstracts only")
    p.add_argument("--queries", type=int, default=200, help="number of queries timed per mode")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--embedder", default="hashing", help="hashing (default) | minilm")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    return p.parse_args(argv)


def summary(ms: list[float]) -> dict[str, float]:
    return {"n": len(ms), "p50_ms": round(nearest_rank(ms, 0.5), 2), "p95_ms": round(nearest_rank(ms, 0.95), 2),
            "mean_ms": round(statistics.fmean(ms), 2) if ms else 0.0, "max_ms": round(max(ms, default=0.0), 2)}


def build_kb(root: Path, corpus: Path, limit: int | None) -> tuple[Any, float, int]:
    from kg import api
    from kg.kb import init

    kb, _ = init(root)
    docs = 0
    for doc in read_jsonl(corpus, limit):
        (kb.raw / f"{doc['doc_id']}.md").write_text(scifact_markdown(doc), encoding="utf-8")
        docs += 1
    started = time.perf_counter()
    api.compile_kb(kb, "heuristic")
    return kb, time.perf_counter() - started, docs


def load_queries(path: Path, n: int, known: set[str]) -> list[tuple[str, set[str]]]:
    out = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            cited = {f"{d}.md" for d in row.get("cited_doc_ids", [])}
            if cited & known:
                out.append((row["claim"], cited))
            if len(out) >= n:
                break
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    from kg.embed import VectorCache, make_embedder
    from kg.graph.fts import refresh_indexes
    from kg.graph.store import Store
    from kg.kb import KnowledgeBase
    from kg.retrieve.navigate import Navigator
    from kg.retrieve.search import Searcher

    corpus = args.corpus or data_dir() / "scifact" / "corpus.jsonl"
    claims = args.claims or corpus.parent / "claims_train.jsonl"
    tmp = None
    compile_seconds = None
    if args.kb:
        kb = KnowledgeBase(args.kb.resolve())
        docs = len(list(kb.raw.glob("*.md")))
    else:
        tmp = Path(tempfile.mkdtemp(prefix="kg-search-bench-"))
        print(f"compiling {corpus} ...", file=sys.stderr)
        kb, compile_seconds, docs = build_kb(tmp / "kb", corpus, args.limit)
    results: dict[str, Any] = {"corpus": str(corpus), "documents": docs, "k": args.k, "embedder": args.embedder,
                               "compile_seconds": round(compile_seconds, 2) if compile_seconds else None,
                               "machine": machine()}
    try:
        with Store(kb.db_path) as store:
            counts = {t: store.query(f"MATCH (n:{t}) RETURN count(n) AS n")[0]["n"] for t in ("Claim", "Chunk", "Page")}
            results["indexed"] = counts
            started = time.perf_counter()
            refresh_indexes(store)
            results["fts_rebuild_seconds"] = round(time.perf_counter() - started, 3)

            sources = {r["p"] for r in store.query("MATCH (s:Source) RETURN s.path AS p")}
            queries = load_queries(claims, args.queries, sources)
            results["queries"] = len(queries)

            cache = VectorCache(kb.state / "vectors.sqlite")
            embedder = make_embedder(args.embedder, cache)
            started = time.perf_counter()
            embedder.embed(["warm up the model"])  # model load, excluded
            results["model_load_seconds"] = round(time.perf_counter() - started, 2)
            searcher = Searcher(store, embedder)
            started = time.perf_counter()
            searcher.load_vectors()  # embed what is missing from the cache, build the matrix: excluded
            results["vector_warmup_seconds"] = round(time.perf_counter() - started, 2)
            results["vectors"] = int(searcher._matrix.shape[0]) if searcher._matrix is not None else 0

            for mode in ("bm25", "hybrid", "vector"):
                searcher.search(queries[0][0], mode, args.k)  # one warm-up query per mode
                times, found = [], 0
                for text, cited in queries:
                    started = time.perf_counter()
                    result = searcher.search(text, mode, args.k)
                    times.append((time.perf_counter() - started) * 1000)
                    found += bool(cited & {h.source_path for h in result.hits})
                results[mode] = {**summary(times), "recall_at_k": round(found / max(1, len(queries)), 3)}

            navigator = Navigator(store, embedder, searcher)
            navigator.context.names()  # load the name index once: excluded
            times, found, tokens = [], 0, []
            for text, cited in queries:
                started = time.perf_counter()
                nav = navigator.navigate(text, 2000)
                times.append((time.perf_counter() - started) * 1000)
                tokens.append(nav.tokens_read)
                found += bool(cited & set(nav.source_paths[:10]))
            results["navigate"] = {**summary(times), "recall_at_10_sources": round(found / max(1, len(queries)), 3),
                                   "mean_tokens_read": round(statistics.fmean(tokens), 1) if tokens else 0}
            cache.close()
    finally:
        if tmp is not None:
            if args.keep:
                print(f"kept the knowledge base at {tmp / 'kb'}", file=sys.stderr)
            else:
                shutil.rmtree(tmp, ignore_errors=True)
    results["targets"] = {"p50_ms": TARGET_P50_MS,
                          "bm25_met": results["bm25"]["p50_ms"] < TARGET_P50_MS,
                          "hybrid_met": results["hybrid"]["p50_ms"] < TARGET_P50_MS}
    return results


def table(results: dict[str, Any]) -> str:
    lines = [f"SciFact: {results['documents']} abstracts, {results['queries']} queries, k={results['k']}, "
             f"embedder {results['embedder']}; indexed {results['indexed']}",
             f"FTS rebuild {results['fts_rebuild_seconds']} s; model load {results['model_load_seconds']} s; "
             f"vector warm-up {results['vector_warmup_seconds']} s ({results['vectors']} vectors)",
             "", f"{'mode':<10}{'p50 ms':>10}{'p95 ms':>10}{'mean ms':>10}{'recall@k':>10}"]
    for mode in ("bm25", "hybrid", "vector", "navigate"):
        r = results[mode]
        recall = r.get("recall_at_k", r.get("recall_at_10_sources"))
        lines.append(f"{mode:<10}{r['p50_ms']:>10.2f}{r['p95_ms']:>10.2f}{r['mean_ms']:>10.2f}{recall:>10.3f}")
    lines.append(f"target p50 < {TARGET_P50_MS:.0f} ms: bm25 {'met' if results['targets']['bm25_met'] else 'MISSED'}, "
                 f"hybrid {'met' if results['targets']['hybrid_met'] else 'MISSED'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    results = run(args)
    print(table(results))
    write_json(args.out, results, sort_keys=True)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
