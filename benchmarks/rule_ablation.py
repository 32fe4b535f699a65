"""What each name rule of the offline extractor adds (issue 46): every rule switched off in turn.

The name rules are the registered phases of kg/extract/name_rules.py (join, extend, trim, split,
candidate, fold), the filters of kg/extract/filters.py and the marked-up names of
kg/extract/heuristic.py (MARKED_RULES: links, bold, acronym definitions, quoted titles). With one rule removed from its phase's
list, the heuristic extractor runs over held-out groups and the name figures are compared with all
rules on:
- Re-DocRED's two halves by id (../shared/data/redocred-dev/docs.jsonl, "# title" then text, as
  extractor_quality.py --dataset redocred reads it; gold PER/ORG/LOC/MISC names);
- the five CrossNER domains (../shared/data/crossner/{domain}-{train,dev}.jsonl, text alone; every
  gold entity a name; the test splits stay held out).
name precision: entities whose canonical name equals a gold name (kg.names.name_key), over
entities; recall: gold entities one of whose names equals an entity's name or alias. A rule's
contribution is the figure with it minus the figure without it. Verdicts:
  keep     removing it lowers Re-DocRED name precision or recall on both halves
  none     removing it changes no figure in any group (Re-DocRED halves, CrossNER domains): it goes,
           unless a test of ordinary prose notices it (tests/test_heuristic.py)
  harmful  removing it lowers no figure and raises some
  mixed    otherwise (it helps somewhere, hurts elsewhere)

    .venv/bin/python benchmarks/rule_ablation.py            # ~15-35 min: prints a table, writes JSON
    .venv/bin/python benchmarks/rule_ablation.py --limit 50 # the first 50 documents of each group
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from harness import OUT_DIR, data_dir, read_jsonl, write_json

DOMAINS = ("ai", "science", "politics", "literature", "music")
NAMED = ("PER", "ORG", "LOC", "MISC")


def load_groups(base: Path, limit: int | None) -> dict[str, list[tuple[str, str, list[set[str]]]]]:
    """group -> [(id, source text, name keys of each gold entity)]."""
    from kg.names import name_key

    groups: dict[str, list[tuple[str, str, list[set[str]]]]] = {"redocred-1": [], "redocred-2": []}
    docs = sorted(read_jsonl(base / "redocred-dev" / "docs.jsonl"), key=lambda d: d["id"])
    for n, doc in enumerate(docs):
        gold = [{name_key(x) for x in e["names"]} - {""} for e in doc["entities"] if e["type"] in NAMED]
        groups["redocred-1" if n < (len(docs) + 1) // 2 else "redocred-2"].append(
            (doc["id"], f"# {doc['title']}\n\n{doc['text']}\n", gold))
    for domain in DOMAINS:
        groups[domain] = [(doc["id"], f"{doc['text']}\n", [{name_key(e["name"])} - {""} for e in doc["entities"]])
                          for split in ("train", "dev") for doc in read_jsonl(base / "crossner" / f"{domain}-{split}.jsonl")]
    return {group: docs[:limit] for group, docs in groups.items()}


def measure(groups: dict[str, list[tuple[str, str, list[set[str]]]]]) -> dict[str, dict[str, float]]:
    """Name precision and recall of each group, as the compiler would record the entities."""
    from extractor_quality import kg_document

    from kg.config import CompileConfig
    from kg.extract.heuristic import HeuristicExtractor
    from kg.names import name_key

    extractor = HeuristicExtractor(None)
    chunk_chars = CompileConfig().chunk_chars
    figures = {}
    for group, docs in groups.items():
        counts: Counter[str] = Counter()
        for doc_id, source, gold in docs:
            out = kg_document(f"{doc_id}.md", source, extractor, chunk_chars)
            names = {name_key(n) for e in out["entities"] for n in (e["name"], *e["aliases"])} - {""}
            gold_keys = set().union(*gold) if gold else set()
            counts["entities"] += len(out["entities"])
            counts["hits"] += sum(name_key(e["name"]) in gold_keys for e in out["entities"])
            counts["gold"] += len(gold)
            counts["found"] += sum(bool(keys & names) for keys in gold)
        figures[group] = {"name_precision": round(counts["hits"] / max(counts["entities"], 1), 4),
                          "recall": round(counts["found"] / max(counts["gold"], 1), 4),
                          "entities": counts["entities"]}
    return figures


def phases() -> dict[str, list[tuple[str, Any]]]:
    from kg.extract import filters, heuristic, name_rules

    return {"marked": heuristic.MARKED_RULES, "join": name_rules.JOIN_RULES, "extend": name_rules.EXTEND_RULES, "trim": name_rules.TRIM_RULES,
            "split": name_rules.SPLIT_RULES, "candidate": name_rules.CANDIDATE_RULES, "fold": name_rules.FOLD_RULES,
            "filter": filters.FILTERS}


def verdict(delta: dict[str, dict[str, float]]) -> str:
    """`delta`: group -> figure -> (with the rule) - (without it)."""
    if any(all(delta[half][figure] > 0 for half in ("redocred-1", "redocred-2")) for figure in ("name_precision", "recall")):
        return "keep"
    values = [value for figures in delta.values() for value in figures.values()]
    if all(value == 0 for value in values):
        return "none"
    if all(value <= 0 for value in values):
        return "harmful"
    return "mixed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="use only the first N documents of each group")
    parser.add_argument("--out", type=Path, default=OUT_DIR / "rule_ablation.json")
    args = parser.parse_args(argv)
    groups = load_groups(data_dir(), args.limit)
    started = time.perf_counter()
    base = measure(groups)
    rows = []
    for phase, rules in phases().items():
        every = list(rules)
        for name, rule in every:
            rules.remove((name, rule))
            try:
                without = measure(groups)
            finally:
                rules[:] = every
            delta = {g: {f: round(base[g][f] - without[g][f], 4) for f in ("name_precision", "recall")} for g in base}
            rows.append({"phase": phase, "rule": name, "verdict": verdict(delta), "contribution": delta,
                         "without": without})
            print(f"{phase:<9} {name:<26} {rows[-1]['verdict']:<8} " + "  ".join(
                f"{g} {d['name_precision']:+.4f}/{d['recall']:+.4f}" for g, d in delta.items()), flush=True)
    report = {"groups": {g: len(d) for g, d in groups.items()}, "all_rules": base, "rules": rows,
              "seconds": round(time.perf_counter() - started, 1)}
    write_json(args.out, report, sort_keys=True)
    print("\nall rules on: " + "  ".join(f"{g} {f['name_precision']:.4f}/{f['recall']:.4f}" for g, f in base.items()))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
