"""Documents as sources (issue 25): conversion time per page and per MB for each format, and
claims per source against the same text as markdown.

Documents are made offline (tests/documents.py) from real text: SciFact abstracts (one abstract
per PDF page, DOCX section, slide, spreadsheet row or web-page section). For each format, N
documents of P pages/sections each are converted cold (no cache) and timed; then a knowledge
base holding the documents and one holding the same abstracts as markdown are compiled offline,
and claims per source are compared.

    KG_DATA_DIR=../shared/data .venv/bin/python benchmarks/convert.py [--docs 10 --pages 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import data_dir, out_path, write_json

from kg import api
from kg.compile.convert import convert
from kg.kb import init
from tests.documents import (  # the repo root is on the path (pip install -e)
    make_docx,
    make_html,
    make_pdf,
    make_pptx,
    make_xlsx,
)

DEFAULT_OUT = out_path("convert.json")


def abstracts(data: Path, n: int) -> list[tuple[str, list[str]]]:
    rows = []
    with (data / "scifact" / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row.get("title") and row.get("sentences"):
                rows.append((str(row["title"]), [str(s) for s in row["sentences"]]))
            if len(rows) >= n:
                break
    return rows


def _wrap(sentence: str, width: int = 90) -> list[str]:
    words, lines, line = sentence.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*lines, line] if line else lines


MAKERS: dict[str, tuple[str, Callable[[list[tuple[str, list[str]]]], bytes]]] = {
    "pdf": (".pdf", lambda pages: make_pdf([[title] + [w for s in sents for w in _wrap(s)] for title, sents in pages])),
    "docx": (".docx", lambda pages: make_docx([p for title, sents in pages for p in [("Heading1", title)] + [("", s) for s in sents]])),
    "pptx": (".pptx", lambda pages: make_pptx([(title, sents) for title, sents in pages])),
    "xlsx": (".xlsx", lambda pages: make_xlsx([["Title", "Abstract"]] + [[title, " ".join(sents)] for title, sents in pages])),
    "html": (".html", lambda pages: make_html(pages[0][0], [" ".join(sents) for _, sents in pages])),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Conversion time and claims per source for each document format.")
    parser.add_argument("--docs", type=int, default=10, help="documents per format (default 10)")
    parser.add_argument("--pages", type=int, default=10, help="pages (abstracts) per document (default 10)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    data = data_dir()
    texts = abstracts(data, args.docs * args.pages)
    groups = [texts[i * args.pages:(i + 1) * args.pages] for i in range(args.docs)]
    work = Path(tempfile.mkdtemp(prefix="kg-convert-"))
    results: dict[str, Any] = {"docs": args.docs, "pages": args.pages, "formats": {}}
    docs_kb, _ = init(work / "docs")
    md_kb, _ = init(work / "markdown")
    for g, pages in enumerate(groups):
        body = "\n\n".join(f"## {title}\n\n" + " ".join(sents) for title, sents in pages)
        (md_kb.raw / f"doc{g:03d}.md").write_text(f"# Document {g}\n\n{body}\n", encoding="utf-8")
    for fmt, (suffix, make) in MAKERS.items():
        seconds, sizes = [], []
        for g, pages in enumerate(groups):
            blob = make(pages)
            (docs_kb.raw / f"{fmt}{g:03d}{suffix}").write_bytes(blob)
            started = time.perf_counter()
            convert(f"x{suffix}", blob)  # no cache: a cold conversion
            seconds.append(time.perf_counter() - started)
            sizes.append(len(blob))
        total, mb = sum(seconds), sum(sizes) / 1e6
        results["formats"][fmt] = {"seconds_per_doc": round(statistics.median(seconds), 4),
                                   "ms_per_page": round(1000 * total / (args.docs * args.pages), 2),
                                   "seconds_per_mb": round(total / mb, 3) if mb else None,
                                   "mean_bytes": round(statistics.fmean(sizes))}
    report, _ = api.compile_kb(docs_kb)
    api.compile_kb(md_kb)
    rows = api.cypher(docs_kb, "MATCH (c:Claim)-[:EXTRACTED_FROM]->(s:Source) WHERE c.status = 'live' "
                               "RETURN s.path AS path, count(c) AS n")
    md_claims = api.cypher(md_kb, "MATCH (c:Claim) WHERE c.status = 'live' RETURN count(c) AS n")[0]["n"]
    for fmt, (suffix, _) in MAKERS.items():
        n = sum(r["n"] for r in rows if str(r["path"]).endswith(suffix))
        results["formats"][fmt]["claims_per_source"] = round(n / args.docs, 1)
    results["markdown_claims_per_source"] = round(md_claims / args.docs, 1)
    results["failed"] = report.failed
    print(f"{args.docs} documents x {args.pages} pages (SciFact abstracts) per format; cold conversions")
    print("| format | ms per page | s per MB | s per document | claims per source |\n|---|---|---|---|---|")
    for fmt, r in results["formats"].items():
        print(f"| {fmt} | {r['ms_per_page']} | {r['seconds_per_mb']} | {r['seconds_per_doc']} | {r['claims_per_source']} |")
    print(f"| markdown (same text) | | | | {results['markdown_claims_per_source']} |")
    if report.failed:
        print(f"failed: {report.failed}")
    write_json(args.out, results)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
