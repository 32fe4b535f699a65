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

With --types, the type rules of kg/extract/entity_types.py instead (their votes are features of the
learned type model, kg/extract/type_model.py): each rule, or each family of related rules
(TYPE_FAMILIES), has its vote features ("rule:NAME=type") taken out of train_types.py's examples,
the model is retrained by its document folds (each fold's fit starting from the all-rules fit of
that fold: the same optimum, found sooner) and each group's held-out type precision and typed right
(people, organisations and places) are compared with all votes in:
  keep     removing it lowers some group's precision or typed right by more than NOISE and more
           than EDGE_NAMES names' share of the group (tech's two names nearest a threshold fall
           with most rows, whatever is taken out), or the figures over all groups' entities
           together by more than POOLED_NOISE
  none     otherwise: the model learns what it said from the gazetteers, WordNet, the name's shape
           and the words around; it goes
The rules' other effects (the type they decide within a chunk: the "decided:" feature, "He" and
"She", a list's kind) are not taken out here; train_types.py on the extractor without them checks
those. Rules whose type is stored as they say (type_model.RULE_KINDS: a disease, a cell type, an
organism) are not votes alone and are not switched off.

    .venv/bin/python benchmarks/rule_ablation.py --types --examples /tmp/ex.pkl  # ~30 min
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


# Type rules switched off together: they read the same thing (a person's name forms, WordNet's
# peoples, what bodies do); every other rule alone.
TYPE_FAMILIES: dict[str, tuple[str, ...]] = {
    "person name forms": ("initials", "name_particle", "titled_name", "regnal_number", "chinese_name"),
    "place name forms": ("known_city_name", "part_of_place", "qualified_demonym"),
    "body name forms": ("corporate_suffix", "industry_head", "team_name", "body_of_place", "party"),
    "science name forms": ("nucleic_acid", "protein_family"),
    "peoples": ("known_people", "known_group", "people_after"),
    "person context": ("title_before", "person_verb", "creator_by"),
    "place context": ("place_preposition", "place_distance"),
    "what bodies do": ("agent_body", "maker_by", "body_role_after"),
    "the body": ("institution_word", "acronym_article"),
}
# Rules whose type is stored as they say (type_model.RULE_KINDS), not votes alone.
STORED_TYPE_RULES = frozenset({"disease_suffix", "hyphen_head", "binomial"})
NOISE = 0.005  # a group's figure moves this much when a threshold moves one step of its grid
EDGE_NAMES = 2
POOLED_NOISE = 0.001


def type_rule_families() -> dict[str, tuple[str, ...]]:
    """Family -> the registered type rules it switches off; every registered rule is in one, or stored."""
    from kg.extract import entity_types

    registered = [rule.name for rule in (*entity_types.NAME_RULES, *entity_types.CONTEXT_RULES)]
    families = {name: rules for name, rules in TYPE_FAMILIES.items() if set(rules) <= set(registered)}
    grouped = {rule for rules in families.values() for rule in rules}
    families.update({rule: (rule,) for rule in registered if rule not in grouped and rule not in STORED_TYPE_RULES})
    return families


def held_out_figures(examples: list[Any], figures: dict[str, Counter[str]], drop: frozenset[str],
                     starts: dict[int, Any] | None) -> tuple[dict[str, dict[str, float]], dict[int, Any]]:
    """Each group's type precision and typed right by train_types.py's document folds, with the
    votes of the rules in `drop` taken out; and each fold's fitted model (`starts` for the next)."""
    import numpy as np
    import train_types as T
    from sklearn.linear_model import LogisticRegression

    kept = [T.Example(e.group, e.names, {f: v for f, v in e.features.items()
                                         if not (f.startswith("rule:") and f[5:].split("=")[0] in drop)},
                      e.rule_type, e.label, e.matched, e.fold) for e in examples]
    classes = sorted({e.label for e in kept})
    matrix = T.design(kept, T.HASH_SIZE)
    labels = np.array([e.label for e in kept])
    folds = np.array([e.fold for e in kept])
    held_out = np.zeros((len(kept), len(classes)))
    models = {}
    for fold in sorted(set(folds.tolist())):
        model = LogisticRegression(C=T.C, max_iter=500, tol=1e-4, warm_start=starts is not None)
        if starts is not None:
            model.coef_, model.intercept_ = starts[fold].coef_.copy(), starts[fold].intercept_.copy()
        model.fit(matrix[folds != fold], labels[folds != fold])
        models[fold] = model
        order = [list(model.classes_).index(c) for c in classes]
        held_out[folds == fold] = model.predict_proba(matrix[folds == fold])[:, order]
    out = {}
    for group in sorted({e.group for e in kept}):
        mine = [i for i, e in enumerate(kept) if e.group == group]
        others = [i for i, e in enumerate(kept) if e.group != group]
        limits = T.thresholds([kept[i] for i in others], held_out[others], classes, T.PRECISION)
        chosen = [kept[i] for i in mine]
        scored = T.score(chosen, T.decide(chosen, held_out[mine], classes, limits), figures[group])  # as train_types.py
        decided = T.decide(chosen, held_out[mine], classes, limits)
        out[group] = {figure: scored[figure] for figure in ("type_precision", "typed_right", "typed", "bodies")}
        out[group]["right"] = sum(e.label == p for e, p in zip(chosen, decided, strict=True) if p != "concept")
        out[group]["bodies_right"] = sum(e.label == p for e, p in zip(chosen, decided, strict=True) if e.label in T.BODIES)
    return out, models


def pooled(figures: dict[str, dict[str, float]]) -> dict[str, float]:
    """Type precision and typed right over every group's entities together."""
    total = {k: sum(f[k] for f in figures.values()) for k in ("right", "typed", "bodies_right", "bodies")}
    return {"type_precision": round(total["right"] / total["typed"], 4), "typed_right": round(total["bodies_right"] / total["bodies"], 4)}


def type_verdict(base: dict[str, dict[str, float]], without: dict[str, dict[str, float]]) -> str:
    """keep or none (see above), from the figures with the rules (`base`) and without them."""
    counts = {"type_precision": "typed", "typed_right": "bodies"}
    for group, figures in base.items():
        for figure, count in counts.items():
            if round(figures[figure] - without[group][figure], 4) > max(NOISE, EDGE_NAMES / max(figures[count], 1)):
                return "keep"
    with_all, with_fewer = pooled(base), pooled(without)
    return "keep" if any(round(with_all[f] - with_fewer[f], 4) > POOLED_NOISE for f in counts) else "none"


def type_ablation(examples_path: Path | None, out: Path) -> int:
    import pickle

    import train_types as T

    started = time.perf_counter()
    if examples_path and examples_path.is_file():
        class Examples(pickle.Unpickler):  # written by train_types.py run as a script, or by this one
            def find_class(self, module: str, name: str) -> Any:
                return getattr(T, name) if name in ("Example", "Document") else super().find_class(module, name)

        with examples_path.open("rb") as stream:
            examples, figures = Examples(stream).load()
    else:
        examples, figures = T.extract_examples(T.load_documents(data_dir()))
        if examples_path:
            examples_path.write_bytes(pickle.dumps((examples, figures)))
    examples = [e for e in examples if e.matched]
    base, starts = held_out_figures(examples, figures, frozenset(), None)
    print(f"{'family':<20} {'verdict':<7} {'all groups':>15}  " + "  ".join(f"{g[:10]:>13}" for g in base), flush=True)
    print(f"{'(all votes in)':<20} {'':<7} {pooled(base)['type_precision']:.4f}/{pooled(base)['typed_right']:.4f}  " + "  ".join(
        f"{f['type_precision']:.3f}/{f['typed_right']:.3f}" for f in base.values()), flush=True)
    rows = []
    for family, rules in type_rule_families().items():
        fired = sum(any(f.startswith("rule:") and f[5:].split("=")[0] in rules for f in e.features) for e in examples)
        without, _ = held_out_figures(examples, figures, frozenset(rules), starts)
        delta = {g: {f: round(base[g][f] - without[g][f], 3) for f in ("type_precision", "typed_right")} for g in base}
        all_in, fewer = pooled(base), pooled(without)
        together = {f: round(all_in[f] - fewer[f], 4) for f in all_in}
        rows.append({"family": family, "rules": list(rules), "verdict": type_verdict(base, without), "examples_voted": fired,
                     "pooled_contribution": together, "contribution": delta, "without": without})
        print(f"{family[:20]:<20} {rows[-1]['verdict']:<7} {together['type_precision']:+.4f}/{together['typed_right']:+.4f}  " + "  ".join(
            f"{d['type_precision']:+.3f}/{d['typed_right']:+.3f}" for d in delta.values()) + f"  ({fired} voted)", flush=True)
    write_json(out, {"all_votes": base, "families": rows, "noise": NOISE, "edge_names": EDGE_NAMES, "pooled_noise": POOLED_NOISE, "examples": len(examples),
                     "seconds": round(time.perf_counter() - started, 1)}, sort_keys=True)
    print(f"contribution: type precision / typed right with the rules minus without, per group; wrote {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="use only the first N documents of each group")
    parser.add_argument("--out", type=Path, default=None,
                        help="the JSON report (default benchmarks/out/rule_ablation.json, with --types type_rule_ablation.json)")
    parser.add_argument("--types", action="store_true", help="switch off the type rules' votes instead (see above)")
    parser.add_argument("--examples", type=Path, default=None,
                        help="with --types: train_types.py's examples file, read when present, written otherwise")
    args = parser.parse_args(argv)
    if args.types:
        return type_ablation(args.examples, args.out or OUT_DIR / "type_rule_ablation.json")
    args.out = args.out or OUT_DIR / "rule_ablation.json"
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
