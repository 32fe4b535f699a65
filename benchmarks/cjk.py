"""Search and questions over Chinese and Japanese passages (issue 47).

For each data set (cmrc-trial: Chinese Wikipedia paragraphs; jsquad-valid: Japanese), every passage
is written as `raw/<id>.md` ("# {title}\\n\\n{text}") into a fresh knowledge base, compiled offline
(heuristic extractor), and each question is asked twice:

- `kg search` (kg.retrieve.search.Searcher, --mode bm25 unless --mode says otherwise): recall@1 and
  recall@5 of the gold passage's source among the sources of the top hits;
- `kg query` (offline, the extractive answer of kg.retrieve.answer over one Navigator): whether the
  gold answer occurs verbatim in the answer text;

against BM25 (bm25s) over overlapping character bigrams of the raw passages (kg/text.py
`word_tokens`, the tokenizer kg uses): recall@1 and @5. Figures are given for the first and second
half of the questions and overall. Results: printed, and written to benchmarks/out/cjk.json.

    .venv/bin/python benchmarks/cjk.py                      # both data sets, all questions
    .venv/bin/python benchmarks/cjk.py --limit 100 --sets cmrc-trial
    .venv/bin/python benchmarks/cjk.py --mode hybrid --embedder multilingual-e5-small
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import data_dir, machine, out_path, read_jsonl, write_json

SETS = ("cmrc-trial", "jsquad-valid")
DEPTH = 5


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="kg search / kg query over Chinese and Japanese passages vs bigram BM25.")
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated data sets (default {','.join(SETS)})")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions of each set")
    parser.add_argument("--mode", default="bm25", help="kg search mode: bm25 (default), hybrid or vector")
    parser.add_argument("--embedder", default="minilm", help="the embedder of hybrid and vector: minilm (default) or "
                        "multilingual-e5-small (kg/embed.py make_embedder's names)")
    parser.add_argument("--vector-weights", default="1", help="hybrid: the vector ranking's weights in the fusion to "
                        "measure, comma-separated (default 1, kg's; the corpus is embedded once for all)")
    parser.add_argument("--budget", type=int, default=2000, help="kg query's token budget (default 2000, kg's default)")
    parser.add_argument("--embed-cache", type=Path, default=None, help="SQLite cache of the vectors (kg.embed.VectorCache; "
                        "keyed by model and text): a second run embeds nothing again")
    parser.add_argument("--out", type=Path, default=out_path("cjk.json"), help="JSON results (default benchmarks/out/cjk.json)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return parser.parse_args(argv)


def halves(values: list[float]) -> dict[str, float | None]:
    """The mean of the first half, the second half and all of `values`."""
    middle = len(values) // 2

    def mean(part: list[float]) -> float | None:
        return round(sum(part) / len(part), 3) if part else None

    return {"first_half": mean(values[:middle]), "second_half": mean(values[middle:]), "all": mean(values)}


def bigram_bm25(paths: list[str], texts: list[str]) -> Any:
    """A function question -> source paths, best first: bm25s over kg's tokens of the raw passages."""
    import bm25s

    from kg.text import word_tokens

    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([" ".join(word_tokens(t.casefold())) for t in texts], stopwords=None,
                                   show_progress=False, token_pattern=r"\S+"), show_progress=False)

    def ranked(question: str) -> list[str]:
        tokens = bm25s.tokenize([" ".join(word_tokens(question.casefold()))], stopwords=None, show_progress=False,
                                token_pattern=r"\S+")
        docs, _ = retriever.retrieve(tokens, k=min(DEPTH, len(texts)), show_progress=False)
        return [paths[int(i)] for i in docs[0]]

    return ranked


def run_set(name: str, args: argparse.Namespace, log: Any) -> dict[str, Any]:
    from kg import api
    from kg import kb as kb_module
    from kg.embed import VectorCache, make_embedder
    from kg.graph.fts import ensure_indexes
    from kg.graph.store import Store
    from kg.retrieve.answer import extractive_answer
    from kg.retrieve.navigate import Navigator

    folder = data_dir() / name
    docs = read_jsonl(folder / "corpus.jsonl")
    questions = read_jsonl(folder / "questions.jsonl", args.limit)
    paths = {d["id"]: f"{d['id']}.md" for d in docs}
    texts = [f"# {d['title']}\n\n{d['text']}\n" for d in docs]
    baseline = bigram_bm25(list(paths.values()), texts)
    out: dict[str, Any] = {"passages": len(docs), "questions": len(questions)}
    with tempfile.TemporaryDirectory(prefix="kg-bench-cjk-") as tmp:
        kb, _ = kb_module.init(Path(tmp) / "kb")
        for d, text in zip(docs, texts, strict=True):
            (kb.raw / paths[d["id"]]).write_text(text, encoding="utf-8")
        started = time.perf_counter()
        api.compile_kb(kb, extractor="heuristic")
        out["compile_seconds"] = round(time.perf_counter() - started, 1)
        out["counts"] = api.status(kb).counts
        log(f"{name}: {len(docs)} passages compiled in {out['compile_seconds']} s: {out['counts']}")
        ensure_indexes(kb.db_path)
        cache = VectorCache(args.embed_cache) if args.embed_cache and args.mode != "bm25" else None
        embedder = make_embedder(args.embedder, cache) if args.mode != "bm25" else None
        weights = [float(w) for w in args.vector_weights.split(",") if w.strip()]
        by_weight: dict[float, dict[str, list[float]]] = {}
        misses: list[dict[str, Any]] = []
        with Store(kb.db_path, read_only=True) as store:
            navigator = Navigator(store, embedder)
            for weight, q in ((w, q) for w in weights for q in questions):
                navigator.searcher.vector_weight = weight
                rows = by_weight.setdefault(weight, {k: [] for k in ("search@1", "search@5", "query_answer", "bm25@1", "bm25@5")})
                gold = {paths[i] for i in q["supporting_ids"]}
                hits = navigator.searcher.search(q["question"], args.mode, k=DEPTH).hits
                found = [h.source_path for h in hits]
                answer = extractive_answer(navigator.navigate(q["question"], args.budget, args.mode)).text
                answered = any(a in answer for a in q.get("answers") or [q["answer"]])
                bm25 = baseline(q["question"])
                for key, value in (("search@1", bool(set(found[:1]) & gold)), ("search@5", bool(set(found) & gold)),
                                   ("query_answer", answered), ("bm25@1", bool(set(bm25[:1]) & gold)),
                                   ("bm25@5", bool(set(bm25) & gold))):
                    rows[key].append(float(value))
                if not answered and len(misses) < 10 and weight == weights[0]:
                    misses.append({"id": q["id"], "question": q["question"], "answer": q["answer"],
                                   "found": sorted(gold & set(found)) != [], "text": answer[:400]})
    out["recall"] = {key: halves(values) for key, values in by_weight[weights[0]].items()}
    if len(weights) > 1:
        out["recall_by_vector_weight"] = {str(w): {key: halves(values) for key, values in rows.items()}
                                          for w, rows in by_weight.items()}
    out["misses"] = misses
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    result: dict[str, Any] = {"machine": machine(), "search_mode": args.mode, "embedder": args.embedder, "budget": args.budget,
                              "limit": args.limit, "sets": {}}
    for name in (s.strip() for s in args.sets.split(",") if s.strip()):
        result["sets"][name] = run_set(name, args, log)
    print(f"{'set':14} {'measure':14} {'1st half':>9} {'2nd half':>9} {'all':>7}")
    for name, figures in result["sets"].items():
        for key, row in figures["recall"].items():
            print(f"{name:14} {key:14} {row['first_half']!s:>9} {row['second_half']!s:>9} {row['all']!s:>7}")
        for weight, rows in figures.get("recall_by_vector_weight", {}).items():
            for key, row in rows.items():
                print(f"{name:14} w={weight:<5} {key:14} {row['first_half']!s:>9} {row['second_half']!s:>9} {row['all']!s:>7}")
    write_json(args.out, result, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
