"""Questions written from Re-DocRED's gold relations: a second, untuned check of `kg query`.

hotpotqa-100 is the only question set shared here, and kg's question rules were tuned on it. This
script writes another set in the hotpotqa-100 format (`corpus.jsonl`, `questions.jsonl`), for
`benchmarks/retrieval.py --data DIR`, from ../shared/data/redocred-dev:

- the corpus: the 500 Re-DocRED documents (Wikipedia introductions), one passage each, and with
  `--distractors` (default) the 994 hotpotqa passages beside them (1,494 passages in all);
- one-hop questions, one relation of a document's gold relations: "When was Ramey Idriss born?";
- two-hop questions, two relations chained through an entity (A r1 B, B r2 C), asked the way
  composed multi-hop questions are: "When was the director of Alien born?". Both relations are in
  the same document (Re-DocRED relations do not cross documents), so the second hop is within a
  passage: this measures whether the answer states the fact asked for through a description of
  the thing, not cross-passage retrieval.

Templates were written once, from the relation names, before any run of kg on them, and are not
tuned on the results. The gold answer is every name of the answer entity as the document writes
it (`answers`; `answer` is the longest); the gold passage is the document. Sampling is seeded: at
most one question per document and kind, at most 10 per relation chain, so that "region of the
region" chains do not dominate.

    .venv/bin/python benchmarks/redocred_questions.py --out /tmp/redocred-q
    .venv/bin/python benchmarks/retrieval.py --data /tmp/redocred-q --modes bm25,nav --nav-budgets 600
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

from harness import data_dir, read_jsonl

# r -> noun phrase for "the thing A stands in r to" (the first hop of a two-hop question)
DESCRIBE = {
    "P57": "the director of {}", "P50": "the author of {}", "P175": "the performer of {}",
    "P86": "the composer of {}", "P162": "the producer of {}", "P170": "the creator of {}",
    "P112": "the founder of {}", "P264": "the record label of {}", "P19": "the birthplace of {}",
    "P20": "the place where {} died", "P69": "the school {} attended", "P108": "the employer of {}",
    "P127": "the owner of {}", "P749": "the parent organization of {}", "P36": "the capital of {}",
    "P26": "the spouse of {}", "P22": "the father of {}", "P25": "the mother of {}",
    "P54": "the team {} played for", "P1441": "the work in which {} appears",
    "P131": "the region where {} is located", "P17": "the country {} is in",
    "P27": "the country {} is a citizen of", "P159": "the city where {} is headquartered",
}
# r -> the question about X
ASK = {
    "P569": "When was {} born?", "P570": "When did {} die?", "P19": "Where was {} born?",
    "P20": "Where did {} die?", "P571": "When was {} founded?", "P577": "When was {} released?",
    "P17": "Which country is {} in?", "P131": "In which region is {} located?",
    "P27": "Which country was {} a citizen of?", "P36": "What is the capital of {}?",
    "P159": "Where is {} headquartered?", "P57": "Who directed {}?", "P50": "Who wrote {}?",
    "P175": "Who performed {}?", "P86": "Who composed the music for {}?", "P162": "Who produced {}?",
    "P170": "Who created {}?", "P112": "Who founded {}?", "P264": "Which record label released {}?",
    "P69": "Where was {} educated?", "P108": "Who employed {}?", "P127": "Who owns {}?",
    "P749": "What is the parent organization of {}?", "P26": "Who was {} married to?",
    "P22": "Who was the father of {}?", "P25": "Who was the mother of {}?",
    "P54": "Which team did {} play for?", "P30": "Which continent is {} on?",
    "P37": "What is the official language of {}?", "P1441": "In which work does {} appear?",
    "P740": "Where was {} formed?",
}
PER_CHAIN = 10


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.casefold()))


def _name(entity: dict[str, Any]) -> str:
    """The longest name a document gives an entity (the most specific)."""
    return max(entity["names"], key=lambda n: (len(n), n))


def _fair(question: str, answers: list[str], subject: dict[str, Any]) -> bool:
    """The answer is not in the question, and the subject is a name (not a date or a number)."""
    q = f" {_norm(question)} "
    return subject["type"] not in ("TIME", "NUM") and not any(f" {_norm(a)} " in q for a in answers if _norm(a))


def candidates(doc: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(one-hop, two-hop) questions a document's relations make."""
    ents, rels = doc["entities"], doc["relations"]
    one, two = [], []
    by_head: dict[int, list[dict[str, Any]]] = {}
    for r in rels:
        by_head.setdefault(r["h"], []).append(r)
    for r in rels:
        if r["r"] in ASK:
            a, c = ents[r["h"]], ents[r["t"]]
            text = ASK[r["r"]].format(_name(a))
            if _fair(text, c["names"], a):
                one.append({"question": text, "answers": c["names"], "chain": r["r"], "type": "one-hop"})
    for r1 in rels:
        if r1["r"] not in DESCRIBE:
            continue
        for r2 in by_head.get(r1["t"], []):
            if r2["r"] not in ASK or r2["t"] in (r1["h"], r1["t"]):
                continue
            a, b, c = ents[r1["h"]], ents[r1["t"]], ents[r2["t"]]
            text = ASK[r2["r"]].format(DESCRIBE[r1["r"]].format(_name(a)))
            if _fair(text, c["names"], a) and _fair(text, c["names"] + b["names"], a):
                two.append({"question": text, "answers": c["names"], "chain": f"{r1['r']}>{r2['r']}", "type": "two-hop"})
    return one, two


def pick(pool: list[tuple[dict[str, Any], dict[str, Any]]], count: int, rng: random.Random) -> list[dict[str, Any]]:
    """At most one question per document and PER_CHAIN per relation chain, seeded."""
    rng.shuffle(pool)
    used: set[str] = set()
    chains: Counter[str] = Counter()
    out = []
    for doc, q in pool:
        if doc["id"] in used or chains[q["chain"]] >= PER_CHAIN:
            continue
        used.add(doc["id"])
        chains[q["chain"]] += 1
        out.append({**q, "supporting_titles": [doc["title"]], "answer": _name({"names": q["answers"]})})
        if len(out) == count:
            break
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None,
                        help="the shared data folder (default: $KG_DATA_DIR, else ../shared/data beside the repo)")
    parser.add_argument("--out", type=Path, required=True, help="folder to write corpus.jsonl and questions.jsonl into")
    parser.add_argument("--per-kind", type=int, default=100, help="questions of each kind (one-hop, two-hop)")
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--no-distractors", dest="distractors", action="store_false",
                        help="leave out the hotpotqa-100 passages")
    args = parser.parse_args(argv)
    data = args.data or data_dir()
    docs = read_jsonl(data / "redocred-dev" / "docs.jsonl")
    corpus = [{"id": d["id"], "title": d["title"], "text": d["text"]} for d in docs]
    titles = {d["title"] for d in docs}
    if args.distractors:
        for row in read_jsonl(data / "hotpotqa-100" / "corpus.jsonl"):
            if row["title"] not in titles:  # a title names one passage
                corpus.append({"id": row["id"], "title": row["title"], "text": row["text"]})
    rng = random.Random(args.seed)
    pools: tuple[list[Any], list[Any]] = ([], [])
    for doc in docs:
        for pool, found in zip(pools, candidates(doc), strict=True):
            pool.extend((doc, q) for q in found)
    questions = pick(pools[0], args.per_kind, rng) + pick(pools[1], args.per_kind, rng)
    for i, q in enumerate(questions):
        q["id"] = f"rq{i:03d}"
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row, sort_keys=True) + "\n" for row in corpus)
    with (args.out / "questions.jsonl").open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(q, sort_keys=True) + "\n" for q in questions)
    kinds = Counter(q["type"] for q in questions)
    print(f"wrote {len(corpus)} passages and {len(questions)} questions ({dict(kinds)}) to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
