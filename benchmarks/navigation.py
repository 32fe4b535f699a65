"""Index navigation against search as the knowledge base grows (issue 17).

For each size N, a synthetic knowledge base (benchmarks/synthetic.py, scale.py's seeded generator: N sources
about N/2 entities, two sources per entity) is compiled offline and its wiki rendered; then
questions whose answers are in known sources ("How much revenue did <entity> report in <year>?",
gold: the sources about that entity, answer: "<X> million dollars") are answered by

  wiki nav b=B   benchmarks/wiki_nav.py: wiki files only (index.md, sub-indexes, pages), at budget B
  bm25           bm25s over the raw sources (each is one chunk), the top 5 handed over
  kg query       kg.retrieve.navigate.Navigator, BM25 search, budget 600 (what `kg query` reads)

reporting recall@5 of the gold sources, answer-found (the answer string occurs in what the mode
read or handed over) and tokens per question. Also: the wiki's shape (exporters/shape.py: index.md
bytes, the largest page, pages over 256 KB, entity and source pages within three links), the
full render time, and one source edited then `api.compile_kb` (compile + incremental render):
seconds and wiki files rewritten.

    .venv/bin/python benchmarks/navigation.py --sizes 1000,10000
    .venv/bin/python benchmarks/navigation.py --sizes 1000,10000,50000 --questions 100
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import answer_found, out_path, tokens, write_json
from synthetic import generate, make_entities
from wiki_nav import WikiNavigator

DEFAULT_OUT = out_path("navigation.json")


def source_path(i: int) -> str:
    return f"part{i // 1000:03d}/s{i:06d}.md"


def make_questions(n: int, seed: int, count: int) -> list[dict[str, Any]]:
    """Questions about the revenue sentence of synthetic.make_source: one per sampled main entity."""
    rng = random.Random(seed)
    entities = make_entities(max(50, n // 2), rng)  # the generator's first draw: the same entities
    pick = random.Random(seed + 1)
    questions = []
    for idx in sorted(pick.sample(range(min(len(entities), n)), min(count, len(entities), n))):
        name = entities[idx][0]
        year = 1950 + idx % 70
        gold = {source_path(i) for i in range(idx, n, len(entities))}
        questions.append({"question": f"How much revenue did {name} report in {year}?",
                          "answer": f"{1 + (idx * 13) % 900} million dollars", "gold": gold})
    return questions


def evaluate(name: str, fn: Any, questions: list[dict[str, Any]]) -> dict[str, Any]:
    recall, found, read, lat = [], [], [], []
    for q in questions:
        started = time.perf_counter()
        ranked, spent, text = fn(q["question"])
        lat.append((time.perf_counter() - started) * 1000)
        recall.append(len(set(ranked[:5]) & q["gold"]) / len(q["gold"]))
        found.append(1.0 if answer_found(q["answer"], text) else 0.0)
        read.append(float(spent))
    out = {"mode": name, "recall@5": round(statistics.fmean(recall), 4),
           "answer_found": round(statistics.fmean(found), 4), "tokens": round(statistics.fmean(read), 1),
           "latency_p50_ms": round(statistics.median(lat), 2)}
    print(f"    {name:<16} recall@5 {out['recall@5']:.3f}  answer found {out['answer_found']:.3f}  "
          f"tokens {out['tokens']:,.0f}  p50 {out['latency_p50_ms']:.1f} ms", file=sys.stderr)
    return out


def run_size(n: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    import bm25s

    from exporters.shape import wiki_shape
    from kg import api
    from kg.graph.fts import ensure_indexes
    from kg.graph.store import Store
    from kg.kb import KnowledgeBase, init
    from kg.retrieve.navigate import Navigator

    root = work / f"kb-{n}"
    reused = args.reuse and (root / ".kg").is_dir()
    if reused:  # kept by an earlier run with --keep: its compile is not timed again
        kb = KnowledgeBase(root)
        compile_s = float("nan")
    else:
        kb, _ = init(root)
        generate(kb.raw, n, args.seed)
        started = time.perf_counter()
        api.compile_kb(kb, extractor="heuristic", render=False)
        compile_s = time.perf_counter() - started
    started = time.perf_counter()
    api.render_kb(kb)
    render_s = time.perf_counter() - started
    shape = wiki_shape(kb.wiki)
    print(f"  N={n:,}: compile {compile_s:.1f} s, render {render_s:.1f} s; index.md {shape['index_bytes']:,} B, "
          f"largest page {shape['largest_page']['bytes']:,} B, {shape['within_three_links']:,} of "
          f"{shape['content_pages']:,} pages within three links", file=sys.stderr)

    edited = kb.raw / source_path(n // 3)
    edited.write_text(edited.read_text(encoding="utf-8") + "\nThe archive was reopened in 1999.\n", encoding="utf-8")
    started = time.perf_counter()
    _, rendered = api.compile_kb(kb, extractor="heuristic")
    edit = {"seconds": round(time.perf_counter() - started, 3), "pages_rendered": rendered.pages if rendered else 0,
            "files_written": rendered.written if rendered else 0}
    print(f"    one-source edit: {edit['seconds']:.2f} s, {edit['files_written']} files written", file=sys.stderr)

    questions = make_questions(n, args.seed, args.questions)
    paths = sorted(p.relative_to(kb.raw).as_posix() for p in kb.raw.rglob("*.md"))
    texts = [(kb.raw / p).read_text(encoding="utf-8") for p in paths]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)

    def bm25(question: str) -> tuple[list[str], int, str]:
        docs, _ = retriever.retrieve(bm25s.tokenize([question], stopwords="en", show_progress=False), k=10,
                                     show_progress=False)
        top = [int(i) for i in docs[0]]
        handed = "\n".join(texts[i] for i in top[:5])
        return [paths[i] for i in top], tokens(handed), handed

    modes = [evaluate("bm25", bm25, questions)]
    nav = WikiNavigator(kb.wiki)
    for budget in args.budgets:
        def wiki(question: str, budget: int = budget) -> tuple[list[str], int, str]:
            res = nav(question, budget)
            return res.ranked, res.tokens, res.text
        modes.append(evaluate(f"wiki nav b={budget}", wiki, questions))
    ensure_indexes(kb.db_path)
    with Store(kb.db_path, read_only=True) as store:
        navigator = Navigator(store, None)

        def kg_query(question: str) -> tuple[list[str], int, str]:
            res = navigator.navigate(question, 600, "bm25")
            text = "\n".join(claim.text for claim in res.claims)  # the claims it read
            return list(res.source_paths), int(res.tokens_read), text
        modes.append(evaluate("kg query b=600", kg_query, questions))
    return {"sources": n, "compile_seconds": round(compile_s, 2), "render_seconds": round(render_s, 2),
            "wiki": shape, "edit": edit, "questions": len(questions), "modes": modes}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Wiki navigation vs search on synthetic knowledge bases (offline).")
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated source counts (default 1000,10000)")
    parser.add_argument("--questions", type=int, default=100, help="questions per size (default 100)")
    parser.add_argument("--budgets", default="4000,16000", help="wiki navigator token budgets (default 4000,16000)")
    parser.add_argument("--seed", type=int, default=7, help="generator seed (default 7, as scale.py)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--workdir", type=Path, default=None, help="make the knowledge bases here")
    parser.add_argument("--keep", action="store_true", help="keep the knowledge bases")
    parser.add_argument("--reuse", action="store_true",
                        help="reuse knowledge bases kept in --workdir by an earlier run (compile not timed)")
    args = parser.parse_args(argv)
    args.budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    work = args.workdir or Path(tempfile.mkdtemp(prefix="kg-navigation-"))
    work.mkdir(parents=True, exist_ok=True)
    runs = []
    try:
        for n in (int(s) for s in args.sizes.split(",") if s.strip()):
            runs.append(run_size(n, args, work))
            write_json(args.out, {"runs": runs}, default=sorted)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("\n| sources | mode | recall@5 | answer found | tokens/question |\n|---|---|---|---|---|")
    for run in runs:
        for m in run["modes"]:
            print(f"| {run['sources']:,} | {m['mode']} | {m['recall@5']:.3f} | {m['answer_found']:.3f} | {m['tokens']:,.0f} |")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
