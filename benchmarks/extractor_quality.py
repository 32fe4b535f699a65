"""Quality of the offline (heuristic) extractor on HotpotQA passages (issue 2).

One source per passage of ../shared/data/hotpotqa-100/corpus.jsonl (994 Wikipedia
passages, `{id, title, text}`), run through the same steps as kg's compiler
(parse_source -> chunk_text -> extractor.extract -> ChunkVerifier), without a database:

(a) title recall: how often the passage's own title is found as an entity of that
    passage. A title counts as found when `kg.names.name_key` of an entity's name or of
    one of its aliases equals the key of the title, or of the title without a trailing
    parenthetical ("Hell (film)" -> "Hell"). Two settings:
      heading    the source is "# {title}\\n\\n{text}"
      text-only  the source is the text alone (file named <id>.md, so no title leaks in)
    Also reported as diagnostics: a looser "partial" match (title key and an entity key
    contain one another) and how often the title occurs in the text at all (the ceiling
    for the text-only setting).
(b) claims per source: min, p10, median, mean, p90, max, share with zero claims, and
    the claim types, for claims as extracted and for claims that pass verification
    (evidence quote found in the chunk, subject among the chunk's entities), which is
    what the compiler stores.

    .venv/bin/python benchmarks/extractor_quality.py
    .venv/bin/python benchmarks/extractor_quality.py --limit 200 --misses 20
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "benchmarks" / "out" / "extractor_quality.json"
_TRAILING_PARENS = re.compile(r"\s*\([^()]*\)\s*$")
SETTINGS = ("heading", "text-only")


def default_corpus() -> Path:
    data_dir = os.environ.get("KG_DATA_DIR")
    base = Path(data_dir) if data_dir else REPO.parent / "shared" / "data"
    return base / "hotpotqa-100" / "corpus.jsonl"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Measure the offline heuristic extractor on HotpotQA passages: title recall "
                    "and claims per source.",
    )
    parser.add_argument(
        "--corpus", type=Path, default=None,
        help="hotpotqa corpus.jsonl (default: $KG_DATA_DIR/hotpotqa-100/corpus.jsonl, "
             "else ../shared/data/hotpotqa-100/corpus.jsonl beside the repo)",
    )
    parser.add_argument("--limit", type=int, default=None, help="use only the first N passages")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON results (default {DEFAULT_OUT.relative_to(REPO)})")
    parser.add_argument("--misses", type=int, default=10, help="how many example misses to print (default 10)")
    parser.add_argument("--chunk-chars", type=int, default=None,
                        help="chunk size (default: kg's default [compile] chunk_chars)")
    return parser.parse_args(argv)


# statistics --------------------------------------------------------------------------------


def percentile(sorted_values: list[int], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not sorted_values:
        return 0.0
    pos = (len(sorted_values) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def distribution(values: list[int]) -> dict[str, float]:
    s = sorted(values)
    n = len(s)
    return {
        "sources": n,
        "total": sum(s),
        "min": s[0] if s else 0,
        "p10": round(percentile(s, 0.10), 2),
        "median": round(percentile(s, 0.50), 2),
        "mean": round(sum(s) / n, 3) if n else 0.0,
        "p90": round(percentile(s, 0.90), 2),
        "max": s[-1] if s else 0,
        "zero_share": round(sum(1 for v in s if v == 0) / n, 4) if n else 0.0,
    }


def type_shares(counter: Counter[str]) -> dict[str, dict[str, float]]:
    total = sum(counter.values()) or 1
    return {k: {"count": v, "share": round(v / total, 4)} for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))}


# extraction --------------------------------------------------------------------------------


def title_keys(title: str) -> set[str]:
    from kg.names import name_key

    keys = {name_key(title)}
    stripped = _TRAILING_PARENS.sub("", title).strip()
    if stripped:
        keys.add(name_key(stripped))
    return {k for k in keys if k}


def extract_source(rel: str, text: str, extractor: Any, chunk_chars: int) -> dict[str, Any]:
    """Run the compiler's front half on one source; returns entities and claim figures."""
    from kg.compile.chunk import chunk_text
    from kg.compile.sources import parse_source
    from kg.compile.verify import ChunkVerifier
    from kg.extract import ExtractionContext
    from kg.names import name_key

    doc = parse_source(rel, text.encode("utf-8"), {})
    chunks = chunk_text(doc.path, doc.text, chunk_chars)
    context = ExtractionContext(doc.path, doc.title, frontmatter=doc.frontmatter)
    results = extractor.extract(chunks, context)
    entities: dict[str, dict[str, Any]] = {}
    extracted: Counter[str] = Counter()
    verified: Counter[str] = Counter()
    for chunk, result in zip(chunks, results, strict=True):
        verifier = ChunkVerifier(chunk)
        local = set()
        for entity in result.entities:
            record = entities.setdefault(entity.name, {"name": entity.name, "type": entity.type, "aliases": set()})
            record["aliases"].update(entity.aliases)
            local.update(name_key(n) for n in (entity.name, *entity.aliases))
        for claim in result.claims:
            extracted[claim.claim_type.value] += 1
            if verifier.verify(claim) and name_key(claim.subject) in local:
                verified[claim.claim_type.value] += 1
    return {
        "doc_title": doc.title,
        "chunks": len(chunks),
        "entities": [{"name": e["name"], "type": e["type"], "aliases": sorted(e["aliases"])} for e in entities.values()],
        "claims_extracted": extracted,
        "claims_verified": verified,
    }


def title_match(title: str, entities: list[dict[str, Any]]) -> tuple[bool, bool]:
    """(exact key match, partial match) of the title against entity names and aliases."""
    from kg.names import name_key

    wanted = title_keys(title)
    keys = {name_key(n) for e in entities for n in (e["name"], *e["aliases"])} - {""}
    exact = bool(wanted & keys)
    partial = exact or any(
        (w in k or k in w) and min(len(w), len(k)) >= 3 for w in wanted for k in keys
    )
    return exact, partial


def title_in_text(title: str, text: str) -> bool:
    lowered = text.casefold()
    candidates = {title, _TRAILING_PARENS.sub("", title).strip()}
    return any(c and c.casefold() in lowered for c in candidates)


# the run -----------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from kg.config import CompileConfig
    from kg.extract.heuristic import HeuristicExtractor

    corpus = (args.corpus or default_corpus()).resolve()
    if not corpus.is_file():
        sys.exit(f"HotpotQA corpus not found at {corpus}. Pass --corpus PATH or set KG_DATA_DIR.")
    passages = []
    with corpus.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                passages.append(json.loads(line))
    passages.sort(key=lambda p: p["id"])
    if args.limit is not None:
        passages = passages[: args.limit]

    chunk_chars = args.chunk_chars or CompileConfig().chunk_chars
    extractor = HeuristicExtractor(None)
    started = time.perf_counter()
    per_setting: dict[str, Any] = {}
    rows: dict[str, list[dict[str, Any]]] = {s: [] for s in SETTINGS}
    errors: dict[str, list[dict[str, Any]]] = {s: [] for s in SETTINGS}
    in_text = sum(title_in_text(p["title"], p["text"]) for p in passages)
    for setting in SETTINGS:
        exact = partial = 0
        extracted_counts: list[int] = []
        verified_counts: list[int] = []
        extracted_types: Counter[str] = Counter()
        verified_types: Counter[str] = Counter()
        entity_counts: list[int] = []
        for p in passages:
            text = f"# {p['title']}\n\n{p['text']}\n" if setting == "heading" else f"{p['text']}\n"
            try:
                out = extract_source(f"{p['id']}.md", text, extractor, chunk_chars)
            except Exception as exc:  # an extractor bug: report it, go on with the others
                errors[setting].append({"id": p["id"], "title": p["title"], "error": f"{type(exc).__name__}: {exc}"})
                continue
            hit, near = title_match(p["title"], out["entities"])
            exact += hit
            partial += near
            extracted_counts.append(sum(out["claims_extracted"].values()))
            verified_counts.append(sum(out["claims_verified"].values()))
            extracted_types.update(out["claims_extracted"])
            verified_types.update(out["claims_verified"])
            entity_counts.append(len(out["entities"]))
            rows[setting].append({"id": p["id"], "title": p["title"], "text": p["text"], "found": hit,
                                  "partial": near, "entities": out["entities"]})
        n = len(passages)  # a passage the extractor crashed on counts as a miss
        per_setting[setting] = {
            "extractor_errors": len(errors[setting]),
            "title_found": exact,
            "title_recall": round(exact / n, 4) if n else 0.0,
            "title_partial": partial,
            "title_partial_recall": round(partial / n, 4) if n else 0.0,
            "entities_per_source": distribution(entity_counts),
            "claims_per_source": distribution(verified_counts),
            "claims_per_source_extracted": distribution(extracted_counts),
            "claim_types": type_shares(verified_types),
            "claim_types_extracted": type_shares(extracted_types),
        }
    seconds = time.perf_counter() - started

    misses = pick_misses(rows, args.misses)
    results = {
        "corpus": str(corpus),
        "passages": len(passages),
        "extractor": f"{extractor.label} ({extractor.version})",
        "chunk_chars": chunk_chars,
        "title_occurs_in_text": in_text,
        "title_occurs_in_text_share": round(in_text / len(passages), 4) if passages else 0.0,
        "settings": per_setting,
        "seconds": round(seconds, 2),
        "example_misses": [{k: v for k, v in m.items() if k != "text"} | {"text_start": m["text"][:160]}
                           for m in misses],
        "misses": {s: [r["title"] for r in rows[s] if not r["found"]] for s in SETTINGS},
        "errors": errors,
    }
    return results, misses


def pick_misses(rows: dict[str, list[dict[str, Any]]], count: int) -> list[dict[str, Any]]:
    """Evenly spaced misses of the heading setting (then text-only), deterministic."""
    picked: list[dict[str, Any]] = []
    for setting in SETTINGS:
        misses = [dict(r, setting=setting) for r in rows[setting] if not r["found"]]
        need = count - len(picked)
        if need <= 0 or not misses:
            continue
        if len(misses) <= need:
            picked.extend(misses)
        else:
            step = len(misses) / need
            picked.extend(misses[int(i * step)] for i in range(need))
    return picked


# output ------------------------------------------------------------------------------------


def print_report(r: dict[str, Any], misses: list[dict[str, Any]]) -> None:
    n = r["passages"]
    print(f"\nheuristic extractor on {r['corpus']}: {n} passages, {r['extractor']}, {r['seconds']} s")
    print(f"the title occurs verbatim in the passage text: {r['title_occurs_in_text']}/{n} "
          f"({r['title_occurs_in_text_share']:.1%})\n")
    head = f"  {'':<34}" + "".join(f"{s:>14}" for s in SETTINGS)
    print(head)

    def line(label: str, get: Any) -> None:
        print(f"  {label:<34}" + "".join(f"{get(r['settings'][s]):>14}" for s in SETTINGS))

    line("extractor raised (passages)", lambda s: f"{s['extractor_errors']}")
    line("title found as entity (exact key)", lambda s: f"{s['title_found']} {s['title_recall']:.1%}")
    line("title found (partial key match)", lambda s: f"{s['title_partial']} {s['title_partial_recall']:.1%}")
    line("entities per source, median", lambda s: f"{s['entities_per_source']['median']:g}")
    for key, label in (("claims_per_source", "claims/source (verified)"),
                       ("claims_per_source_extracted", "claims/source (extracted)")):
        print(f"  {label}")
        for stat in ("min", "p10", "median", "mean", "p90", "max", "total"):
            line(f"    {stat}", lambda s, k=key, st=stat: f"{s[k][st]:g}")
        line("    share with zero claims", lambda s, k=key: f"{s[k]['zero_share']:.1%}")
    print("  claim types (verified)")
    types = sorted({t for s in SETTINGS for t in r["settings"][s]["claim_types"]},
                   key=lambda t: -r["settings"]["heading"]["claim_types"].get(t, {"count": 0})["count"])
    for t in types:
        line(f"    {t}", lambda s, t=t: "{count} {share:.1%}".format(**s["claim_types"].get(t, {"count": 0, "share": 0.0})))

    for setting in SETTINGS:
        for e in r["errors"][setting]:
            print(f"  extractor error [{setting}] {e['id']} {e['title']!r}: {e['error']}")
    print(f"\n{len(misses)} example misses (title vs entities found):")
    for m in misses:
        names = [e["name"] + (f" ({', '.join(e['aliases'])})" if e["aliases"] else "") for e in m["entities"]]
        shown = "; ".join(names[:12]) + (f"; ... +{len(names) - 12}" if len(names) > 12 else "")
        print(f"- [{m['setting']}] {m['id']} title {m['title']!r}")
        print(f"    entities: {shown or '(none)'}")
        print(f"    text: {m['text'][:140]!r}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    results, misses = run(args)
    print_report(results, misses)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
