"""Contradiction detection benchmark (issue 4).

Takes a file in the format of ../shared/data/scifact/contradiction_pairs_train.jsonl
({doc_id, support_id, support, contradict_id, contradict}), compiles every claim as its own
source into a fresh knowledge base (offline, rules only), and scores the CONTRADICTS edges:

- precision, recall and F1 against the gold (support, contradict) pairs; every edge between two
  benchmark claims that is not a gold pair counts as a false positive (some may be real
  disagreements the gold set does not list);
- the false-positive rate on pairs of claims that are both SUPPORTED by the same abstract
  (built from claims_train.jsonl beside the pairs file, or --claims);
- time per 1,000 claims (compile including detection).

    .venv/bin/python benchmarks/contradictions.py [PAIRS.jsonl] [--claims claims_train.jsonl]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from kg import api
from kg.kb import init

REPO = Path(__file__).resolve().parent.parent


def default_data() -> Path:
    return Path(os.environ.get("KG_DATA_DIR", REPO.parent / "shared" / "data")) / "scifact"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def supported_pairs(claims_path: Path, max_pairs: int) -> tuple[dict[int, str], set[frozenset[int]]]:
    """Pairs of claims that the same abstract supports (so they should not contradict)."""
    by_doc: dict[str, list[int]] = {}
    texts: dict[int, str] = {}
    for row in read_jsonl(claims_path):
        for doc_id, evidence in (row.get("evidence") or {}).items():
            if any(e.get("label") == "SUPPORT" for e in evidence):
                by_doc.setdefault(doc_id, []).append(row["id"])
                texts[row["id"]] = row["claim"]
    pairs: set[frozenset[int]] = set()
    for doc_id in sorted(by_doc):
        for a, b in itertools.combinations(sorted(set(by_doc[doc_id])), 2):
            pairs.add(frozenset((a, b)))
    chosen = set(sorted(pairs, key=lambda p: sorted(p))[:max_pairs])
    return {i: texts[i] for p in chosen for i in p}, chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Score kg's offline contradiction detection on SciFact-format pairs.")
    parser.add_argument("pairs", type=Path, nargs="?", default=None, help="pairs JSONL (default: scifact/contradiction_pairs_train.jsonl)")
    parser.add_argument("--claims", type=Path, default=None, help="claims JSONL for supported pairs (default: claims_train.jsonl beside PAIRS)")
    parser.add_argument("--max-supported-pairs", type=int, default=500)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out" / "contradictions.json")
    args = parser.parse_args(argv)
    pairs_path = args.pairs or default_data() / "contradiction_pairs_train.jsonl"
    claims_path = args.claims or pairs_path.parent / "claims_train.jsonl"
    rows = read_jsonl(pairs_path)
    texts: dict[int, str] = {}
    gold: set[frozenset[int]] = set()
    for row in rows:
        texts[row["support_id"]], texts[row["contradict_id"]] = row["support"], row["contradict"]
        gold.add(frozenset((row["support_id"], row["contradict_id"])))
    supported_texts, supported = ({}, set()) if not claims_path.exists() else supported_pairs(claims_path, args.max_supported_pairs)
    supported -= gold
    texts.update(supported_texts)
    workdir = Path(tempfile.mkdtemp(prefix="kg-contradictions-"))
    try:
        kb, _ = init(workdir / "kb")
        for claim_id, text in texts.items():
            (kb.raw / f"claim-{claim_id}.txt").write_text(text + "\n", encoding="utf-8")
        started = time.perf_counter()
        api.compile_kb(kb, render=False)
        seconds = time.perf_counter() - started
        edges = api.cypher(kb, "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim), (a)-[:EXTRACTED_FROM]->(s:Source), "
                               "(b)-[:EXTRACTED_FROM]->(t:Source) RETURN DISTINCT s.path AS a, t.path AS b, r.reason AS reason")
        claims_stored = api.cypher(kb, "MATCH (s:Source)<-[:EXTRACTED_FROM]-(c:Claim) RETURN count(DISTINCT s) AS n")[0]["n"]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    def claim_of(path: str) -> int:
        return int(path.removeprefix("claim-").removesuffix(".txt"))

    found = {frozenset((claim_of(e["a"]), claim_of(e["b"]))) for e in edges if e["a"] != e["b"]}
    true_positive = found & gold
    precision = len(true_positive) / len(found) if found else 0.0
    recall = len(true_positive) / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    false_on_supported = found & supported
    reasons: dict[str, int] = {}
    for e in edges:
        key = e["reason"].split(":")[0]
        reasons[key] = reasons.get(key, 0) + 1
    result = {
        "pairs_file": str(pairs_path), "claims": len(texts), "sources_with_claims": claims_stored,
        "gold_pairs": len(gold), "supported_pairs": len(supported), "edges_found": len(found),
        "true_positives": len(true_positive), "precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3),
        "false_positive_rate_on_supported_pairs": round(len(false_on_supported) / len(supported), 3) if supported else None,
        "seconds": round(seconds, 2), "seconds_per_1000_claims": round(1000 * seconds / max(1, len(texts)), 2),
        "reasons": dict(sorted(reasons.items())), "targets": {"precision": 0.6, "recall": 0.5},
    }
    print(f"{len(texts)} claims ({claims_stored} yielded a claim), {len(gold)} gold pairs, {len(supported)} supported pairs\n")
    print("| precision | recall | F1 | FP rate on supported pairs | s per 1,000 claims |")
    print("|---:|---:|---:|---:|---:|")
    print(f"| {precision:.3f} | {recall:.3f} | {f1:.3f} | {result['false_positive_rate_on_supported_pairs']} | {result['seconds_per_1000_claims']} |")
    print("\nedges by reason:", json.dumps(result["reasons"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
