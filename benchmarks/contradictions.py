"""Contradiction detection benchmark (issues 4, 23 and 35): how many known conflicts are found, why
the others are missed, how many flags a careful reader would call a conflict, and how many flags
ordinary text gets. Offline rules by default; `--llm URL` also asks an OpenAI-compatible server.

1. SciFact's gold pairs (contradiction_pairs_train.jsonl: one claim supported, the other
   contradicted by the same abstract), in two settings, each claim compiled as its own source:
   - "pairs": only the claims of the gold pairs. Recall, precision against the gold pairs, both
     on all pairs and on the two halves of the abstracts (sorted by doc_id, alternately), and every
     miss by its cause: no claim extracted from one of the two sentences, never a candidate pair
     (kg/compile/candidates.py), or judged no.
   - "claims": every training claim (claims_train.jsonl), as a reader would compile them: recall,
     the flags that are a gold pair or labelled a conflict in benchmarks/fixtures/contradiction_labels.jsonl
     (precision), those labelled "no conflict", those not labelled yet, and the rate of flags
     between claims one abstract supports (should be 0).
2. Flags per 1,000 claims on ordinary text: hotpotqa-100's 994 Wikipedia passages (encyclopedic
   paragraphs) and SciFact's 5,183 abstracts, each compiled into a fresh knowledge base. Every flag
   goes to benchmarks/out/flags-<corpus>.jsonl; `--sample N` writes N unlabelled ones (seeded) to
   benchmarks/out/to-label-<corpus>.jsonl for labelling by hand.

    .venv/bin/python benchmarks/contradictions.py                    # everything (about 4 minutes)
    .venv/bin/python benchmarks/contradictions.py --only pairs       # or claims / hotpotqa / scifact
    .venv/bin/python benchmarks/contradictions.py --only pairs --llm http://127.0.0.1:8112/v1 --llm-model gemma
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import OUT_DIR as OUT
from harness import REPO, data_dir, hotpot_markdown, read_jsonl, scifact_markdown, write_json

from kg import api
from kg.compile.candidates import candidate_pairs
from kg.compile.contradict import ContradictionJudge, load_claim_records
from kg.graph.entities import alias_edge_rows
from kg.kb import KnowledgeBase, init

LABELS = REPO / "benchmarks" / "fixtures" / "contradiction_labels.jsonl"
FLAGS = ("MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) WHERE a.status = 'live' AND b.status = 'live' "
         "RETURN a.id AS a_id, b.id AS b_id, a.text AS a, b.text AS b, r.reason AS reason, r.confidence AS confidence")
Labels = dict[tuple[str, str], dict[str, Any]]


def pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def compiled(texts: dict[str, str], work: Path, judge: ContradictionJudge | None = None) -> tuple[KnowledgeBase, float]:
    """A knowledge base of these sources compiled offline (heuristic extractor), with `judge`
    instead of the configured one when given; and the seconds the compile took."""
    kb, _ = init(work / "kb")
    for name, text in texts.items():
        (kb.raw / name).write_text(text, encoding="utf-8")
    started = time.perf_counter()
    if judge is None:
        api.compile_kb(kb, "heuristic", render=False)
    else:
        from kg.compile.pipeline import Compiler
        from kg.extract.heuristic import HeuristicExtractor

        with api.open_store(kb) as store:
            Compiler(kb, store, HeuristicExtractor(), kb.config(), judge=judge).compile()
    return kb, time.perf_counter() - started


def corpus_texts(corpus: str) -> dict[str, str]:
    if corpus == "hotpotqa":
        rows = read_jsonl(data_dir() / "hotpotqa-100" / "corpus.jsonl")
        return {f"p{i:04d}.md": hotpot_markdown(r) for i, r in enumerate(rows)}
    rows = read_jsonl(data_dir() / "scifact" / "corpus.jsonl")
    return {f"{r['doc_id']}.md": scifact_markdown(r, strip=False) for r in rows}


def corpus_flags(corpus: str, weak: float, labels: Labels, sample: int, seed: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix=f"kg-contradictions-{corpus}-"))
    try:
        kb, seconds = compiled(corpus_texts(corpus), work)
        claims = api.cypher(kb, "MATCH (c:Claim) WHERE c.status = 'live' RETURN count(*) AS n")[0]["n"]
        flags = api.cypher(kb, FLAGS)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    strong = [f for f in flags if f["confidence"] >= weak]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"flags-{corpus}.jsonl").write_text("".join(json.dumps(f, sort_keys=True) + "\n" for f in flags), encoding="utf-8")
    scored = [labels[pair_key(f["a"], f["b"])] for f in strong if pair_key(f["a"], f["b"]) in labels]
    correct = sum(1 for label in scored if label["label"] == "conflict")
    unlabelled = [f for f in strong if pair_key(f["a"], f["b"]) not in labels]
    if sample:
        chosen = random.Random(seed).sample(unlabelled, min(sample, len(unlabelled)))
        (OUT / f"to-label-{corpus}.jsonl").write_text(
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


def gold_pairs(pairs_path: Path, abstracts: int | None = None) -> tuple[dict[int, str], dict[frozenset[int], str]]:
    """The texts of the gold pairs' claims by id, and each pair with its abstract's doc_id (of the
    first `abstracts` abstracts by doc_id when given: a quick run, e.g. with a slow local model)."""
    texts: dict[int, str] = {}
    gold: dict[frozenset[int], str] = {}
    rows = read_jsonl(pairs_path)
    kept = sorted({str(r["doc_id"]) for r in rows})[:abstracts] if abstracts else None
    for row in rows:
        if kept is not None and str(row["doc_id"]) not in kept:
            continue
        texts[row["support_id"]], texts[row["contradict_id"]] = row["support"], row["contradict"]
        gold[frozenset((row["support_id"], row["contradict_id"]))] = str(row["doc_id"])
    return texts, gold


def supported_pairs(claims_path: Path) -> set[frozenset[int]]:
    """Pairs of claims that the same abstract supports (so they should not contradict)."""
    by_doc: dict[str, set[int]] = {}
    for row in read_jsonl(claims_path):
        for doc_id, evidence in (row.get("evidence") or {}).items():
            if any(e.get("label") == "SUPPORT" for e in evidence):
                by_doc.setdefault(doc_id, set()).add(row["id"])
    return {frozenset((a, b)) for ids in by_doc.values() for a in ids for b in ids if a < b}


def claim_of(path: str) -> int:
    return int(path.removeprefix("claim-").removesuffix(".txt"))


def judged(texts: dict[int, str], weak: float, judge: ContradictionJudge | None) -> dict[str, Any]:
    """Compile each claim as its own source; the flags between sources (claim ids), the candidate
    pairs between them (recomputed from the live claims, as a full detection does), the claims
    that gave no claim, and the seconds the compile took."""
    work = Path(tempfile.mkdtemp(prefix="kg-contradictions-pairs-"))
    try:
        kb, seconds = compiled({f"claim-{i}.txt": t + "\n" for i, t in texts.items()}, work, judge)
        edges = api.cypher(kb, "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim), (a)-[:EXTRACTED_FROM]->(s:Source), "
                               "(b)-[:EXTRACTED_FROM]->(t:Source) WHERE a.status = 'live' AND b.status = 'live' "
                               "RETURN DISTINCT s.path AS a, t.path AS b, r.reason AS reason, r.confidence AS confidence")
        with api.open_store(kb, read_only=True) as store:
            records = load_claim_records(store)
            canonical = {r["src"]: r["dst"] for r in alias_edge_rows(store)}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    flags: dict[frozenset[int], dict[str, Any]] = {}
    for e in edges:
        if e["a"] != e["b"] and e["confidence"] >= weak:
            flags.setdefault(frozenset((claim_of(e["a"]), claim_of(e["b"]))), e)
    candidates = set()
    for i, j in candidate_pairs(records, {r.id for r in records}, canonical):
        candidates |= {frozenset((claim_of(x), claim_of(y))) for x in records[i].sources for y in records[j].sources if x != y}
    extracted = {claim_of(p) for r in records for p in r.sources}
    return {"flags": flags, "candidates": candidates, "extracted": extracted, "seconds": seconds}


def recall_by_cause(gold: dict[frozenset[int], str], run: dict[str, Any]) -> dict[str, Any]:
    """Recall on all gold pairs and on each half of the abstracts, and the misses by cause."""
    docs = sorted(set(gold.values()))
    halves = {"first half": set(docs[0::2]), "second half": set(docs[1::2])}
    found = {pair for pair in gold if pair in run["flags"]}
    out: dict[str, Any] = {"gold_pairs": len(gold), "found": len(found), "recall": round(len(found) / len(gold), 3)}
    for name, half in halves.items():
        pairs = [p for p, doc in gold.items() if doc in half]
        hits = sum(1 for p in pairs if p in found)
        out[name] = {"pairs": len(pairs), "found": hits, "recall": round(hits / max(1, len(pairs)), 3)}
    missed = [p for p in gold if p not in found]
    no_claim = [p for p in missed if not p <= run["extracted"]]
    never = [p for p in missed if p <= run["extracted"] and p not in run["candidates"]]
    out["missed"] = {"no claim extracted": len(no_claim), "never a candidate": len(never),
                     "judged no": len(missed) - len(no_claim) - len(never)}
    return out


def pairs_only(pairs_path: Path, weak: float, labels: Labels, judge: ContradictionJudge | None,
               abstracts: int | None = None) -> dict[str, Any]:
    """Setting "pairs": the gold pairs' claims alone."""
    texts, gold = gold_pairs(pairs_path, abstracts)
    run = judged(texts, weak, judge)
    out = recall_by_cause(gold, run)
    flags = run["flags"]
    hits = sum(1 for p in flags if p in gold)
    other = [p for p in flags if p not in gold]
    labelled = [labels[pair_key(*(texts[i] for i in p))]["label"] for p in other if pair_key(*(texts[i] for i in p)) in labels]
    out.update({"claims": len(texts), "flags": len(flags), "precision": round(hits / len(flags), 3) if flags else None,
                "other_flags_labelled_conflict": labelled.count("conflict"), "other_flags_unlabelled": len(other) - len(labelled),
                "seconds_per_1000_claims": round(1000 * run["seconds"] / len(texts), 2)})
    return out


def all_claims(pairs_path: Path, weak: float, labels: Labels, judge: ContradictionJudge | None) -> dict[str, Any]:
    """Setting "claims": every training claim compiled, as a reader would."""
    texts, gold = gold_pairs(pairs_path)
    claims_path = pairs_path.parent / "claims_train.jsonl"
    texts.update({r["id"]: r["claim"] for r in read_jsonl(claims_path)})
    supported = supported_pairs(claims_path) - set(gold)
    run = judged(texts, weak, judge)
    out = recall_by_cause(gold, run)
    flagged = [{"a": texts[min(p)], "b": texts[max(p)], "reason": e["reason"], "confidence": e["confidence"],
                "gold": p in gold} for p, e in sorted(run["flags"].items(), key=lambda item: sorted(item[0]))]
    verdicts = [("gold" if f["gold"] else labels.get(pair_key(f["a"], f["b"]), {}).get("label", "unlabelled"))
                for f in flagged]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "flags-scifact-claims.jsonl").write_text(
        "".join(json.dumps({**f, "label": v}, sort_keys=True) + "\n" for f, v in zip(flagged, verdicts, strict=True)),
        encoding="utf-8")
    right = verdicts.count("gold") + verdicts.count("conflict")
    judged_flags = right + verdicts.count("no conflict")
    out.update({"claims": len(texts), "flags": len(flagged), "gold_or_labelled_conflict": right,
                "labelled_no_conflict": verdicts.count("no conflict"), "unlabelled": verdicts.count("unlabelled"),
                "precision": round(right / judged_flags, 3) if judged_flags else None,
                "supported_pairs": len(supported),
                "flags_between_supported_pairs": sum(1 for p in supported if p in run["flags"]),
                "seconds_per_1000_claims": round(1000 * run["seconds"] / len(texts), 2)})
    return out


def llm_judge(base_url: str, model: str, max_tokens: int) -> ContradictionJudge:
    """The rules plus the LLM judge (kg/llm/judges.py) through an OpenAI-compatible server."""
    from kg.config import LlmConfig
    from kg.llm.backends import make_client
    from kg.llm.judges import CombinedJudge, LlmContradictionJudge

    client = make_client(LlmConfig(provider="openai", model=model, base_url=base_url, concurrency=1,
                                   timeout_seconds=600, max_retries=1, max_tokens=max_tokens), "openai", env={"OPENAI_API_KEY": "local"})
    return CombinedJudge(LlmContradictionJudge(client, batch_size=5))


def report_pairs(name: str, r: dict[str, Any]) -> None:
    halves = ", ".join(f"{h} {r[h]['recall']} ({r[h]['found']} of {r[h]['pairs']})" for h in ("first half", "second half"))
    print(f"SciFact train {name}: recall {r['recall']} ({r['found']} of {r['gold_pairs']}; {halves}), precision "
          f"{r['precision']} over {r['flags']} flags; missed: {r['missed']}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("pairs", "claims", "hotpotqa", "scifact"), default=None)
    parser.add_argument("--weak", type=float, default=0.5, help="findings below this confidence are weak (not counted)")
    parser.add_argument("--sample", type=int, default=0, help="write this many unlabelled flags per corpus to label")
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--llm", metavar="URL", help="also ask this OpenAI-compatible server (base URL, e.g. .../v1)")
    parser.add_argument("--llm-model", default="local", help="the model name to send with --llm")
    parser.add_argument("--llm-max-tokens", type=int, default=1024, help="reply budget per request of 5 pairs with --llm")
    parser.add_argument("--abstracts", type=int, default=None,
                        help='"pairs" only: the gold pairs of the first N abstracts by doc_id (a quick run)')
    parser.add_argument("--out", type=Path, default=OUT / "contradictions.json")
    args = parser.parse_args(argv)
    labels = {pair_key(r["a"], r["b"]): r for r in read_jsonl(LABELS)} if LABELS.exists() else {}
    judge: Callable[[], ContradictionJudge | None] = (lambda: llm_judge(args.llm, args.llm_model, args.llm_max_tokens)) if args.llm else (lambda: None)
    result: dict[str, Any] = {"weak_below": args.weak, "labels": len(labels), "judge": "rules+llm" if args.llm else "rules"}
    pairs_path = data_dir() / "scifact" / "contradiction_pairs_train.jsonl"
    if args.only in (None, "pairs"):
        result["pairs"] = pairs_only(pairs_path, args.weak, labels, judge(), args.abstracts)
        report_pairs("pairs, their claims alone", result["pairs"])
    if args.only in (None, "claims"):
        result["claims"] = r = all_claims(pairs_path, args.weak, labels, judge())
        report_pairs("pairs among every training claim", r)
        print(f"  flags: {r['flags']}, a gold pair or labelled a conflict {r['gold_or_labelled_conflict']}, labelled no "
              f"conflict {r['labelled_no_conflict']}, unlabelled {r['unlabelled']}; between claims one abstract supports: "
              f"{r['flags_between_supported_pairs']} of {r['supported_pairs']}", flush=True)
    for corpus in ("hotpotqa", "scifact"):
        if args.only in (None, corpus):
            result[corpus] = r = corpus_flags(corpus, args.weak, labels, args.sample, args.seed)
            print(f"{corpus}: {r['flags']} flags among {r['live_claims']:,} live claims ({r['flags_per_1000_claims']} per "
                  f"1,000; {r['weak_flags']} weak not counted); labelled {r['labelled']}, of which "
                  f"{r['labelled_conflicts']} conflicts; by reason {r['reasons']}", flush=True)
    write_json(args.out, result)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
