"""Train the offline extractor's entity-type model (issue 46) and report it by held-out domain.

    .venv/bin/python benchmarks/train_types.py            # folds, then kg/extract/type_weights.npz
    .venv/bin/python benchmarks/train_types.py --dry-run  # the folds' report only
    .venv/bin/python benchmarks/train_types.py --dry-run --folds documents  # held out by document

Examples are the entities the heuristic extractor itself finds (its front half, chunk by chunk, as
the compiler runs it), each with the features kg/extract/type_model.py reads, labelled by the gold
entity one of its names equals (kg.names.name_key):
- ../shared/data/redocred-dev/docs.jsonl ("# title" then text): PER person, ORG organization, LOC
  place; MISC concept; TIME and NUM left out (MISC mixes works, events, awards and nationalities: as a class
  of its own it would teach nothing kg names; measured as concept). A people's adjective or name
  ("German", "Germans") is a concept, as CrossNER and CoNLL's news label it (misc), not a place.
- ../shared/data/crossner/{domain}-{train,dev}.jsonl (text alone): CROSSNER_TYPES below.
- benchmarks/fixtures/tech_entities.jsonl (hand-labelled technical prose in CrossNER's format: the
  genre people compile; most of the products).
- a name matching no gold entity: left out (`--unmatched concept` teaches them as concepts; measured:
  typed right lower in every group, type precision no higher).

Groups: the five CrossNER domains, the tech set and the two halves of Re-DocRED (by id). `--folds
groups` (the default) gives each group's figures from a model trained on the others (a genre never
seen); `--folds documents` from five folds of documents (crc32 of the id), each group in every fold
(new text of the genres trained on, as CrossNER's test splits are). Either way a group's thresholds
are chosen on the other groups' held-out probabilities (`thresholds`): per type the least at which
its precision is `--precision` over all their predictions and within GROUP_SLACK of it in each group
(so that it holds across genres, not only on their sum); otherwise the entity is a concept. The
shipped model is trained on all groups, its thresholds chosen on all held-out probabilities.

Per group: type precision (gold-matched entities typed right over those typed), the same over the
person / organization / place types given, typed right and untyped (gold person / organization /
place entities found: right type, left concept), name precision (entities whose name equals a gold
name), recall (gold entities some entity's name or alias equals), and extraction seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from harness import OUT_DIR, REPO, data_dir, read_jsonl, write_json

DOMAINS = ("ai", "science", "politics", "literature", "music")
TECH = REPO / "benchmarks" / "fixtures" / "tech_entities.jsonl"  # hand-labelled technical prose, CrossNER's format
REDOCRED_TYPES = {"PER": "person", "ORG": "organization", "LOC": "place"}
NAMED = ("PER", "ORG", "LOC", "MISC")  # TIME and NUM: no names (as extractor_quality.py scores Re-DocRED)
CROSSNER_TYPES = {
    **dict.fromkeys(("person", "researcher", "scientist", "politician", "writer", "musicalartist"), "person"),
    **dict.fromkeys(("organisation", "university", "politicalparty", "band"), "organization"),
    **dict.fromkeys(("location", "country"), "place"),
    **dict.fromkeys(("product", "programlang"), "product"),
    **dict.fromkeys(("book", "song", "album", "poem", "work"), "work"),
    **dict.fromkeys(("event", "election"), "event"),
    **dict.fromkeys(("chemicalcompound", "chemicalelement"), "chemical"),
    **dict.fromkeys(("protein", "enzyme"), "gene or protein"),
    "disease": "disease",
}  # every other kind (misc, algorithm, field, task, metrics, award, conference, journal, genre, ...): concept
BODIES = ("person", "organization", "place")
HASH_SIZE = 1 << 18  # 1 << 16 held 95k distinct features: collisions cost typed right 0.02-0.04 in every group
C = 1.0  # inverse regularisation: 0.1 and 1 tried by document folds; 1 types most right (benchmarks/README.md)
PRECISION = 0.93  # per type: a round target at which every group held out by document keeps 0.93 (they keep 0.936; at 0.92 music 0.915)
DOCUMENT_FOLDS = 5
GROUP_SLACK = 0.03  # how far below the precision one group's may fall (a group's few predictions vary)
GROUP_LEAST = 10  # predictions a group needs for its precision to count
GRID = tuple(round(0.30 + 0.01 * i, 2) for i in range(70))


@dataclass
class Document:
    group: str
    id: str
    source: str
    gold: list[tuple[set[str], str]]  # (name keys, kg type) of each gold entity


@dataclass
class Example:
    group: str
    names: set[str]  # name keys of the entity's name and aliases
    features: dict[str, float]
    rule_type: str
    label: str = "concept"
    matched: bool = False
    fold: int = 0  # the document's, for --folds documents


def redocred_type(kind: str, names: list[str]) -> str:
    """Re-DocRED's kind as kg's type; a people's adjective or name ("German", "Germans") is a
    concept, as CrossNER and CoNLL's news label it (misc), not the place Re-DocRED's LOC makes it."""
    from kg.extract import gazetteer

    if kind == "LOC" and all(gazetteer.is_demonym(n) or gazetteer.is_wordnet_demonym(n) for n in names):
        return "concept"
    return REDOCRED_TYPES.get(kind, "concept")


def load_documents(base: Path) -> list[Document]:
    from kg.names import name_key

    docs = []
    redocred = sorted(read_jsonl(base / "redocred-dev" / "docs.jsonl"), key=lambda d: d["id"])
    for n, doc in enumerate(redocred):
        gold = [({name_key(x) for x in e["names"]}, redocred_type(e["type"], e["names"])) for e in doc["entities"]
                if e["type"] in NAMED]
        group = "redocred-1" if n < (len(redocred) + 1) // 2 else "redocred-2"
        docs.append(Document(group, doc["id"], f"# {doc['title']}\n\n{doc['text']}\n", gold))
    crossner = [(domain, base / "crossner" / f"{domain}-{split}.jsonl") for domain in DOMAINS for split in ("train", "dev")]
    for group, path in [*crossner, ("tech", TECH)]:
        for doc in read_jsonl(path):
            gold = [({name_key(e["name"])}, CROSSNER_TYPES.get(e["kind"], "concept")) for e in doc["entities"]]
            docs.append(Document(group, doc["id"], f"{doc['text']}\n", gold))
    return docs


def extract_examples(docs: Sequence[Document]) -> tuple[list[Example], dict[str, Counter[str]]]:
    """Every entity the extractor keeps, with its features; and per group the name figures."""
    from kg.compile.chunk import chunk_text
    from kg.compile.sources import parse_source
    from kg.config import CompileConfig
    from kg.extract import ExtractionContext
    from kg.extract.heuristic import HeuristicExtractor
    from kg.extract.registry import Entity
    from kg.names import name_key

    class Recorder(HeuristicExtractor):
        def __init__(self) -> None:
            super().__init__(None)
            self.seen: list[tuple[Entity, dict[str, float]]] = []

        def final_type(self, entity: Entity, features: dict[str, float]) -> str:
            self.seen.append((entity, features))
            return entity.type

    extractor = Recorder()
    chunk_chars = CompileConfig().chunk_chars
    examples: list[Example] = []
    figures: dict[str, Counter[str]] = {}
    for doc in docs:
        started = time.process_time()
        parsed = parse_source(f"{doc.id}.md", doc.source.encode("utf-8"), {})
        chunks = chunk_text(parsed.path, parsed.text, chunk_chars)
        extractor.seen = []
        extractor.extract(chunks, ExtractionContext(parsed.path, parsed.title, frontmatter=parsed.frontmatter))
        counts = figures.setdefault(doc.group, Counter())
        counts["seconds"] += time.process_time() - started
        gold_keys = {k for keys, _ in doc.gold for k in keys}
        found_keys: set[str] = set()
        for entity, features in extractor.seen:
            names = {name_key(n) for n in (entity.name, *entity.aliases)} - {""}
            found_keys |= names
            example = Example(doc.group, names, features, entity.type, fold=zlib.crc32(doc.id.encode()) % DOCUMENT_FOLDS)
            for keys, type_ in doc.gold:
                if keys & names:
                    example.label, example.matched = type_, True
                    break
            examples.append(example)
            counts["entities"] += 1
            counts["name_hits"] += name_key(entity.name) in gold_keys
        counts["gold"] += len(doc.gold)
        counts["gold_found"] += sum(bool(keys & found_keys) for keys, _ in doc.gold)
    return examples, figures


def fingerprint(base: Path) -> str:
    digest = hashlib.sha256()
    for path in [base / "redocred-dev" / "docs.jsonl", *(base / "crossner" / f"{d}-{s}.jsonl" for d in DOMAINS
                                                          for s in ("train", "dev")), TECH]:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def design(examples: Sequence[Example], size: int) -> Any:
    from scipy.sparse import csr_matrix

    from kg.extract.type_model import bucket

    rows, cols, values = [], [], []
    for i, example in enumerate(examples):
        for feature, value in example.features.items():
            rows.append(i)
            cols.append(bucket(feature, size))
            values.append(value)
    return csr_matrix((values, (rows, cols)), shape=(len(examples), size), dtype=np.float64)


def fit(examples: Sequence[Example], classes: Sequence[str], size: int = HASH_SIZE, c: float = C) -> tuple[np.ndarray, np.ndarray]:
    """Weights (size, classes) and bias (classes,) of a multinomial logistic regression; a class with
    no example gets a bias no probability reaches."""
    from sklearn.linear_model import LogisticRegression

    labels = [e.label for e in examples]
    model = LogisticRegression(C=c, max_iter=500, tol=1e-4)
    model.fit(design(examples, size), labels)
    weights = np.zeros((size, len(classes)))
    bias = np.full(len(classes), -30.0)
    for j, label in enumerate(model.classes_):
        column = classes.index(label)
        weights[:, column] = model.coef_[j] if len(model.classes_) > 2 else (model.coef_[0] if j else -model.coef_[0])
        bias[column] = model.intercept_[j] if len(model.classes_) > 2 else (model.intercept_[0] if j else -model.intercept_[0])
    return weights, bias


def probabilities(examples: Sequence[Example], weights: np.ndarray, bias: np.ndarray, size: int = HASH_SIZE) -> np.ndarray:
    logits = design(examples, size) @ weights + bias
    logits -= logits.max(axis=1, keepdims=True)
    exp = np.exp(logits)
    return np.asarray(exp / exp.sum(axis=1, keepdims=True))


def thresholds(examples: Sequence[Example], probs: np.ndarray, classes: Sequence[str], precision: float,
               least: int = GROUP_LEAST, slack: float = GROUP_SLACK) -> dict[str, float]:
    """Per type the least threshold at which its predictions over gold-matched examples are right
    `precision` of the time, and at least `precision - slack` of the time in each group where
    it gives `least` or more (1.0: never given): a precision that holds across genres, not only
    on their sum."""
    best = probs.argmax(axis=1)
    groups = np.array([e.group for e in examples])
    matched = np.array([e.matched for e in examples])
    chosen = {}
    for j, type_ in enumerate(classes):
        if type_ == "concept":
            continue
        chosen[type_] = 1.0
        mask = (best == j) & matched
        right = np.array([e.label == type_ for e in examples])
        for threshold in GRID:
            given = mask & (probs[:, j] >= threshold)
            if not given.sum() or (right & given).sum() / given.sum() < precision:
                continue
            if all((right & given & (groups == g)).sum() >= (precision - slack) * n
                   for g in np.unique(groups) if (n := (given & (groups == g)).sum()) >= least):
                chosen[type_] = threshold
                break
    return chosen


def decide(examples: Sequence[Example], probs: np.ndarray, classes: Sequence[str], limits: dict[str, float]) -> list[str]:
    """The types the extractor stores (kg/extract/type_model.py `final_type`)."""
    from kg.extract.entity_types import typed
    from kg.extract.type_model import final_type

    out = []
    for example, row in zip(examples, probs, strict=True):
        j = int(row.argmax())
        type_ = classes[j] if classes[j] == "concept" or row[j] >= limits.get(classes[j], 1.0) else "concept"
        out.append(final_type(type_, example.rule_type if typed(example.rule_type) else "concept"))
    return out


def score(examples: Sequence[Example], predicted: Sequence[str], figures: Counter[str]) -> dict[str, Any]:
    matched = [(e, p) for e, p in zip(examples, predicted, strict=True) if e.matched]
    typed = [(e, p) for e, p in matched if p != "concept"]
    bodies = [(e, p) for e, p in matched if e.label in BODIES]
    unmatched_typed = sum(1 for e, p in zip(examples, predicted, strict=True) if not e.matched and p != "concept")

    def ratio(a: float, b: float) -> float:
        return round(a / b, 3) if b else 0.0

    said_body = [(e, p) for e, p in typed if p in BODIES]
    return {
        "type_precision": ratio(sum(e.label == p for e, p in typed), len(typed)),
        "body_precision": ratio(sum(e.label == p for e, p in said_body), len(said_body)),
        "typed": len(typed),
        "typed_right": ratio(sum(e.label == p for e, p in bodies), len(bodies)),
        "untyped": ratio(sum(p == "concept" for _, p in bodies), len(bodies)),
        "bodies": len(bodies),
        "unmatched_typed": unmatched_typed,
        "name_precision": ratio(figures["name_hits"], figures["entities"]),
        "recall": ratio(figures["gold_found"], figures["gold"]),
        "entities": figures["entities"],
        "extraction_cpu_seconds": round(figures["seconds"], 2),
    }


def rule_types(examples: Sequence[Example]) -> list[str]:
    """What the hand-weighted rules alone decide, scored the same way (the figures before issue 46)."""
    from kg.extract.entity_types import typed

    return [e.rule_type if typed(e.rule_type) else "concept" for e in examples]


def cross_validate(examples: list[Example], classes: list[str], figures: dict[str, Counter[str]],
                   precision: float, c: float, by: str = "groups", least: int = GROUP_LEAST,
                   saved: np.ndarray | None = None, slack: float = GROUP_SLACK) -> tuple[dict[str, Any], np.ndarray]:
    """Each example's probabilities from a model that did not see its group (`by` "groups": a new
    genre) or its document ("documents": five folds of documents, each group in every fold: new
    text of the genres trained on); each group's figures with thresholds chosen on the others.
    `saved`: those probabilities from an earlier run of the same folds (only thresholds are tried)."""
    groups = sorted({e.group for e in examples})
    held_out = np.zeros((len(examples), len(classes))) if saved is None else saved
    fold_of = [e.group if by == "groups" else e.fold for e in examples]
    for fold in sorted(set(fold_of), key=str) if saved is None else ():
        train = [e for e, f in zip(examples, fold_of, strict=True) if f != fold]
        weights, bias = fit(train, classes, c=c)
        index = [i for i, f in enumerate(fold_of) if f == fold]
        held_out[index] = probabilities([examples[i] for i in index], weights, bias)
    report: dict[str, Any] = {}
    for group in groups:
        index = [i for i, e in enumerate(examples) if e.group == group]
        others = [i for i, e in enumerate(examples) if e.group != group]
        limits = thresholds([examples[i] for i in others], held_out[others], classes, precision, least, slack)
        mine = [examples[i] for i in index]
        report[group] = {"model": score(mine, decide(mine, held_out[index], classes, limits), figures[group]),
                         "rules": score(mine, rule_types(mine), figures[group]), "thresholds": limits}
    return report, held_out


def print_report(report: dict[str, Any]) -> None:
    print(f"{'group':<12} {'':>6} {'type prec':>9} {'pop prec':>8} {'typed':>6} {'right':>6} {'untyped':>7} {'name prec':>9} "
          f"{'recall':>6} {'cpu s':>6}")
    for group, r in report.items():
        for who in ("rules", "model"):
            s = r[who]
            print(f"{group:<12} {who:>6} {s['type_precision']:>9.3f} {s['body_precision']:>8.3f} {s['typed']:>6} {s['typed_right']:>6.3f} "
                  f"{s['untyped']:>7.3f} {s['name_precision']:>9.3f} {s['recall']:>6.3f} {s['extraction_cpu_seconds']:>6}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="report the folds; write no weights")
    parser.add_argument("--unmatched", choices=("concept", "drop"), default="drop",
                        help="what an extracted name matching no gold entity teaches (default: drop; measured better)")
    parser.add_argument("--precision", type=float, default=PRECISION, help=f"per-type precision target (default {PRECISION})")
    parser.add_argument("--folds", choices=("groups", "documents"), default="groups",
                        help="hold out a whole group (a new genre; default) or documents (new text of known genres)")
    parser.add_argument("--group-least", type=int, default=GROUP_LEAST,
                        help=f"predictions a group needs for its precision to count (default {GROUP_LEAST})")
    parser.add_argument("--group-slack", type=float, default=GROUP_SLACK,
                        help=f"how far below the precision a group's may fall (default {GROUP_SLACK})")
    parser.add_argument("--held-out", type=Path, default=None,
                        help="held-out probabilities saved by an --examples run of the same folds: thresholds only, no fitting")
    parser.add_argument("--c", type=float, default=C, help=f"inverse regularisation strength (default {C})")
    parser.add_argument("--out", type=Path, default=OUT_DIR / "train_types.json")
    parser.add_argument("--examples", type=Path, default=None,
                        help="a file to keep the extracted examples in, read instead of extracting when present "
                             "(for trying settings; delete it when the extractor changes)")
    args = parser.parse_args(argv)
    sys.setrecursionlimit(10000)
    from kg.extract import type_model

    base = data_dir()
    started = time.perf_counter()
    if args.examples and args.examples.is_file():  # features extracted before, by this commit's extractor
        examples, figures = pickle.loads(args.examples.read_bytes())
    else:
        examples, figures = extract_examples(load_documents(base))
        if args.examples:
            args.examples.write_bytes(pickle.dumps((examples, figures)))
    print(f"{len(examples)} examples in {time.perf_counter() - started:.0f} s", flush=True)
    if args.unmatched == "drop":
        examples = [e for e in examples if e.matched]
    classes = sorted({e.label for e in examples})
    saved = np.load(args.held_out) if args.held_out else None
    report, held_out = cross_validate(examples, classes, figures, args.precision, args.c, args.folds, args.group_least, saved,
                                       args.group_slack)
    if args.examples:
        np.save(args.examples.with_suffix(f".{args.folds}.npy"), held_out)
    print_report(report)
    limits = thresholds(examples, held_out, classes, args.precision, args.group_least, args.group_slack)
    print("thresholds (all held-out probabilities):", json.dumps(limits))
    write_json(args.out, {"folds": report, "thresholds": limits, "classes": classes, "examples": len(examples),
                          "labels": dict(Counter(e.label for e in examples))}, sort_keys=True)
    if not args.dry_run:
        weights, bias = fit(examples, classes, c=args.c)
        model = type_model.TypeModel(tuple(classes), weights.astype(np.float32), bias.astype(np.float32), limits,
                                     fingerprint(base))
        type_model.save(model, type_model.WEIGHTS)
        print(f"wrote {type_model.WEIGHTS.relative_to(REPO)} ({type_model.WEIGHTS.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
