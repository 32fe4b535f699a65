"""Contradiction detection benchmark (issues 4 and 23): how many flags, how many of them a careful
reader would call a conflict, and how many known conflicts are found. Offline, rules only.

1. Flags per 1,000 claims: hotpotqa-100's 994 Wikipedia passages and SciFact's 5,183 abstracts,
   each compiled into a fresh knowledge base (one source per passage or abstract). Every flagged
   pair goes to benchmarks/out/flags-<corpus>.jsonl, strong and weak (a finding's confidence below
   `--weak`) counted apart.
2. Precision on labelled flags: benchmarks/fixtures/contradiction_labels.jsonl holds pairs labelled
   by reading them ({"a", "b", "label": "conflict" | "no conflict", "reason"}); the flags of this run
   that are labelled are scored. `--sample N` writes N unlabelled flags (seeded) to
   benchmarks/out/to-label-<corpus>.jsonl, for labelling by hand.
3. Recall on SciFact's gold pairs (contradiction_pairs_train.jsonl: one claim supported, the other
   contradicted by the same abstract), every training claim compiled as its own source; the rate
   of flags between claims the same abstract supports (should be 0); and every flag among those
   claims in benchmarks/out/flags-scifact-claims.jsonl, scored against the labels too.

    .venv/bin/python benchmarks/contradictions.py                 # everything (about 3 minutes)
    .venv/bin/python benchmarks/contradictions.py --only pairs    # or hotpotqa / scifact
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from kg import api
from kg.kb import KnowledgeBase, init

REPO = Path(__file__).resolve().parent.parent
LABELS = REPO / "benchmarks" / "fixtures" / "contradiction_labels.jsonl"
FLAGS = ("MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) WHERE a.status = 'live' AND b.status = 'live' "
         "RETURN a.id AS a_id, b.id AS b_id, a.text AS a, b.text AS b, r.reason AS reason, r.confidence AS confidence")


def data_dir() -> Path:
    return Path(os.environ.get("KG_DATA_DIR", REPO.parent / "shared" / "data"))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def compiled(texts: dict[str, str], work: Path) -> tuple[KnowledgeBase, float]:
    kb, _ = init(work / "kb")
    for name, text in texts.items():
        (kb.raw / name).write_text(text, encoding="utf-8")
    started = time.perf_counter()
    api.compile_kb(kb, "heuristic", render=False)
    return kb, time.perf_counter() - started


def corpus_texts(corpus: str) -> dict[str, str]:
    if corpus == "hotpotqa":
        rows = read_jsonl(data_dir() / "hotpotqa-100" / "corpus.jsonl")
        return {f"p{i:04d}.md": f"# {r['title']}\n\n{r['text']}\n" for i, r in enumerate(rows)}
    rows = read_jsonl(data_dir() / "scifact" / "corpus.jsonl")
    return {f"{r['doc_id']}.md": f"# {r['title']}\n\n{' '.join(r['sentences'])}\n" for r in rows}


def corpus_flags(corpus: str, weak: float, labels: dict[tuple[str, str], dict[str, Any]], sample: int,
                 seed: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix=f"kg-contradictions-{corpus}-"))
    try:
        kb, seconds = compiled(corpus_texts(corpus), work)
        claims = api.cypher(kb, "MATCH (c:Claim) WHERE c.status = 'live' RETURN count(*) AS n")[0]["n"]
        flags = api.cypher(kb, FLAGS)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    strong = [f for f in flags if f["confidence"] >= weak]
    out = REPO / "benchmarks" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"flags-{corpus}.jsonl").write_text("".join(json.dumps(f, sort_keys=True) + "\n" for f in flags), encoding="utf-8")
    scored = [labels[pair_key(f["a"], f["b"])] for f in strong if pair_key(f["a"], f["b"]) in labels]
    correct = sum(1 for label in scored if label["label"] == "conflict")
    unlabelled = [f for f in strong if pair_key(f["a"], f["b"]) not in labels]
    if sample:
        chosen = random.Random(seed).sample(unlabelled, min(sample, len(unlabelled)))
        (out / f"to-label-{corpus}.jsonl").write_text(
            "".join(json.dumps({"corpus": corpus, "a": f["a"], "b": f["b"], "flag": f["reason"],
                                "confidence": f["confidence"]}, sort_keys=True) + "\n" for f in chosen), encoding="utf-8")
    reasons: dict[str, int] = {}
    for f in strong:
        key = f["reason"].split(":")[0]
        reasons[key] = reasons.get(key, 0) + 1
    return {"corpus": corpus, "live_claims": claims, "flags": len(strong), "weak_flags": len(flags) - len(strong),
            "flags_per_1000_claims": round(1000 * len(strong) / max(1, claims), 2),
            "labelled": len(scored), "labelled_conflicts": correct,
            "precision_on_labelled": round(correct / len(scored), 3) if scored else None,
            "unlabelled": len(unlabelled), "reasons": dict(sorted(reasons.items())), "compile_seconds": round(seconds, 1)}


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


def gold_pairs(pairs_path: Path, max_supported: int, weak: float, labels: dict[tuple[str, str], dict[str, Any]]
               ) -> dict[str, Any]:
    rows = read_jsonl(pairs_path)
    texts: dict[int, str] = {}
    gold: set[frozenset[int]] = set()
    for row in rows:
        texts[row["support_id"]], texts[row["contradict_id"]] = row["support"], row["contradict"]
        gold.add(frozenset((row["support_id"], row["contradict_id"])))
    claims_path = pairs_path.parent / "claims_train.jsonl"
    supported_texts, supported = supported_pairs(claims_path, max_supported) if claims_path.exists() else ({}, set())
    supported -= gold
    texts.update(supported_texts)
    if claims_path.exists():  # every training claim: more pairs a reader can judge
        texts.update({r["id"]: r["claim"] for r in read_jsonl(claims_path)})
    work = Path(tempfile.mkdtemp(prefix="kg-contradictions-pairs-"))
    try:
        kb, seconds = compiled({f"claim-{i}.txt": t + "\n" for i, t in texts.items()}, work)
        edges = api.cypher(kb, "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim), (a)-[:EXTRACTED_FROM]->(s:Source), "
                               "(b)-[:EXTRACTED_FROM]->(t:Source) RETURN DISTINCT s.path AS a, t.path AS b, "
                               "r.reason AS reason, r.confidence AS confidence")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def claim_of(path: str) -> int:
        return int(path.removeprefix("claim-").removesuffix(".txt"))

    strong = [e for e in edges if e["a"] != e["b"] and e["confidence"] >= weak]
    found = {frozenset((claim_of(e["a"]), claim_of(e["b"]))) for e in strong}
    hits = found & gold
    flagged = [{"a": texts[claim_of(e["a"])], "b": texts[claim_of(e["b"])], "reason": e["reason"],
                "confidence": e["confidence"]} for e in strong]
    scored = [labels[pair_key(f["a"], f["b"])] for f in flagged if pair_key(f["a"], f["b"]) in labels]
    out = REPO / "benchmarks" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "flags-scifact-claims.jsonl").write_text("".join(json.dumps(f, sort_keys=True) + "\n" for f in flagged),
                                                    encoding="utf-8")
    precision = len(hits) / len(found) if found else 0.0
    recall = len(hits) / len(gold) if gold else 0.0
    return {"claims": len(texts), "gold_pairs": len(gold), "supported_pairs": len(supported), "edges_found": len(found),
            "true_positives": len(hits), "precision": round(precision, 3), "recall": round(recall, 3),
            "false_positive_rate_on_supported_pairs": round(len(found & supported) / len(supported), 3) if supported else None,
            "seconds_per_1000_claims": round(1000 * seconds / max(1, len(texts)), 2),
            "labelled": len(scored), "labelled_conflicts": sum(1 for r in scored if r["label"] == "conflict")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("pairs", "hotpotqa", "scifact"), default=None)
    parser.add_argument("--weak", type=float, default=0.5, help="findings below this confidence are weak (not counted)")
    parser.add_argument("--sample", type=int, default=0, help="write this many unlabelled flags per corpus to label")
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--max-supported-pairs", type=int, default=500)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out" / "contradictions.json")
    args = parser.parse_args(argv)
    labels = {pair_key(r["a"], r["b"]): r for r in read_jsonl(LABELS)} if LABELS.exists() else {}
    result: dict[str, Any] = {"weak_below": args.weak, "labels": len(labels)}
    for corpus in ("hotpotqa", "scifact"):
        if args.only in (None, corpus):
            result[corpus] = corpus_flags(corpus, args.weak, labels, args.sample, args.seed)
            r = result[corpus]
            print(f"{corpus}: {r['flags']} flags among {r['live_claims']:,} live claims ({r['flags_per_1000_claims']} per "
                  f"1,000; {r['weak_flags']} weak not counted); labelled {r['labelled']}, of which "
                  f"{r['labelled_conflicts']} conflicts (precision {r['precision_on_labelled']}); by reason {r['reasons']}",
                  flush=True)
    if args.only in (None, "pairs"):
        result["pairs"] = gold_pairs(data_dir() / "scifact" / "contradiction_pairs_train.jsonl", args.max_supported_pairs,
                                     args.weak, labels)
        r = result["pairs"]
        print(f"SciFact train pairs: recall {r['recall']} ({r['true_positives']} of {r['gold_pairs']}), precision "
              f"{r['precision']} against the gold pairs only, flags between claims one abstract supports: "
              f"{r['false_positive_rate_on_supported_pairs']}", flush=True)
    scored = [result[c] for c in ("hotpotqa", "scifact", "pairs") if c in result]
    labelled = sum(r["labelled"] for r in scored)
    if labelled:
        correct = sum(r["labelled_conflicts"] for r in scored)
        result["precision_on_labelled"] = round(correct / labelled, 3)
        print(f"precision on the {labelled} labelled flags (both corpora and the SciFact claims): "
              f"{result['precision_on_labelled']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
