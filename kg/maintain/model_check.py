"""`kg doctor --model`: score the configured LLM on a small gold set before it compiles a library.

The gold set (kg/maintain/model_gold.json, shipped with kg) is the first five documents of
Re-DocRED's dev split (MIT): Wikipedia introductions with their gold entities. Each document is
compiled's way, "# {title}\\n\\n{text}" cut into chunks, and each chunk asked of the model exactly
as `kg compile` asks it (kg/llm/extractor.py `LlmExtractor.answer`: the token budget, the split of
a cut-off reply, the second ask after an empty one), without the reply cache and without the
offline fallback: what is scored is the model. The figures:

    schema_valid       share of the model's replies that parsed against the reply schema
    claims_per_chunk   claims per chunk in the final answers
    quotes_verified    share of those claims' quotes found in the chunk (white space and quote
                       characters normalised, as the compiler checks them)
    entity_recall      gold PER/ORG/LOC/MISC entities of which some name equals (kg.names.name_key)
                       a name or alias of an entity the model gave for the document
    seconds_per_chunk  wall-clock time per chunk, re-asks included

and a verdict: "unusable" (most replies do not parse, almost no claims, most quotes invented, or
almost no entities found: a compile would fail or store little), "weak" (usable, with losses a
user should know of: see the reason) or "fit". The offline heuristic extractor's figures on the
same documents are given beside them for comparison.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.compile.chunk import chunk_text
from kg.compile.verify import ChunkVerifier
from kg.errors import ConfigError
from kg.extract import ExtractionContext
from kg.extract.heuristic import HeuristicExtractor
from kg.kb import KnowledgeBase
from kg.llm.backends import LLM_BACKENDS, extractor_name, make_client
from kg.llm.extractor import ChunkExtractionFailed, LlmExtractor
from kg.llm.ledger import Ledger, run_ledger, save_run
from kg.models import Chunk, ExtractionResult
from kg.names import name_key

GOLD = Path(__file__).with_name("model_gold.json")
NAMED_TYPES = frozenset({"PER", "ORG", "LOC", "MISC"})

#: (figure, below this the model is unusable, below this weak, what falling short means)
THRESHOLDS: tuple[tuple[str, float, float, str], ...] = (
    ("schema_valid", 0.5, 0.9, "replies that do not parse against the schema are asked again or lost"),
    ("claims_per_chunk", 1.0, 3.0, "a gold chunk states several facts; few claims leave them out of the graph"),
    ("quotes_verified", 0.5, 0.8, "claims whose quote is not in the text are dropped by the compiler"),
    ("entity_recall", 0.25, 0.6, "gold entities missed get no page and no claims"),
)


@dataclass
class Figures:
    chunks: int = 0
    answered: int = 0  # chunks with a final answer (not failed)
    claims: int = 0
    quotes: int = 0
    quotes_found: int = 0
    gold_entities: int = 0
    gold_found: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"claims_per_chunk": round(self.claims / self.chunks, 3) if self.chunks else 0.0,
                "quotes_verified": round(self.quotes_found / self.quotes, 3) if self.quotes else 0.0,
                "entity_recall": round(self.gold_found / self.gold_entities, 3) if self.gold_entities else 0.0,
                "seconds_per_chunk": round(self.seconds / self.chunks, 3) if self.chunks else 0.0}


@dataclass
class ModelScore:
    label: str
    structured: str  # how the replies were held to the schema ("json": not at all)
    documents: int
    figures: Figures
    replies: int
    invalid_replies: int
    verdict: str = ""
    reason: str = ""
    failures: list[str] = field(default_factory=list)
    heuristic: dict[str, Any] = field(default_factory=dict)  # the offline extractor on the same documents
    usage: dict[str, Any] = field(default_factory=dict)

    @property
    def schema_valid(self) -> float:
        return round((self.replies - self.invalid_replies) / self.replies, 3) if self.replies else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"model": self.label, "structured": self.structured, "documents": self.documents,
                "chunks": self.figures.chunks, "answered_chunks": self.figures.answered,
                "replies": self.replies, "schema_valid": self.schema_valid, **self.figures.as_dict(),
                "verdict": self.verdict, "reason": self.reason, "failures": self.failures,
                "heuristic": self.heuristic, "usage": self.usage}


def gold_documents(path: Path = GOLD) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text(encoding="utf-8"))["documents"])


def judge(score: ModelScore) -> tuple[str, str]:
    """(verdict, reason) from the figures and THRESHOLDS."""
    if not score.figures.answered:
        return "unusable", "no chunk got an answer: " + (score.failures[0] if score.failures else "every request failed")
    figures = {"schema_valid": score.schema_valid, **score.figures.as_dict()}
    for level, column in (("unusable", 1), ("weak", 2)):
        short = [(row[0], float(row[column]), row[3]) for row in THRESHOLDS if figures[row[0]] < float(row[column])]
        if short:
            name, limit, why = short[0]
            more = f" (and {', '.join(n for n, _, _ in short[1:])} below their bar)" if len(short) > 1 else ""
            return level, f"{name} {figures[name]} is below {limit}: {why}{more}"
    if score.structured == "json":
        return "weak", "the server accepted no JSON schema or tool: replies are unconstrained (bare JSON mode)"
    return "fit", "every figure clears its bar"


def _score_document(doc: dict[str, Any], chunk_chars: int, figures: Figures, failures: list[str],
                    ask: Callable[[Chunk, ExtractionContext], ExtractionResult]) -> None:
    """Ask for each chunk of `doc` and add what the answers are worth to `figures`."""
    path = f"{doc['id']}.md"
    text = f"# {doc['title']}\n\n{doc['text']}"
    context = ExtractionContext(path, doc["title"])
    keys: set[str] = set()
    for chunk in chunk_text(path, text, chunk_chars):
        started = time.perf_counter()
        figures.chunks += 1
        try:
            result = ask(chunk, context)
        except ChunkExtractionFailed as exc:
            failures.append(str(exc))
            continue
        finally:
            figures.seconds += time.perf_counter() - started
        figures.answered += 1
        verifier = ChunkVerifier(chunk)
        figures.claims += len(result.claims)
        for claim in result.claims:
            figures.quotes += len(claim.quotes)
            figures.quotes_found += sum(1 for quote in claim.quotes if verifier.locate(quote) is not None)
        keys.update(name_key(name) for entity in result.entities for name in (entity.name, *entity.aliases))
    gold = [e for e in doc["entities"] if e["type"] in NAMED_TYPES]
    figures.gold_entities += len(gold)
    figures.gold_found += sum(1 for e in gold if any(name_key(n) in keys for n in e["names"]))


def score_model(kb: KnowledgeBase, override: str | None = None, progress: Any = None,
                documents: list[dict[str, Any]] | None = None, env: Any = None) -> ModelScore:
    """Ask the configured LLM to extract the gold documents and score its answers (see the module doc)."""
    config = kb.config()
    name = extractor_name(config, override, env)
    if name not in LLM_BACKENDS:
        raise ConfigError("kg doctor --model scores an LLM, and this knowledge base uses the offline heuristic "
                          "extractor: set [llm] provider and model in kg.toml (or pass -x anthropic|openai).")
    documents = gold_documents() if documents is None else documents
    ledger = Ledger(prices=config.llm.prices)
    client = make_client(config.llm, name, env, ledger).using(fallback="")
    extractor = LlmExtractor(client)  # no reply cache: every chunk is asked
    offline = HeuristicExtractor()

    def ask(chunk: Chunk, context: ExtractionContext) -> ExtractionResult:
        claims = offline.extract_chunk(chunk, context).claims
        return extractor.answer(chunk, context, claims[0].quotes[0] if claims else "")

    figures, baseline = Figures(), Figures()
    failures: list[str] = []
    for done, doc in enumerate(documents, 1):
        _score_document(doc, config.compile.chunk_chars, figures, failures, ask)
        _score_document(doc, config.compile.chunk_chars, baseline, [], offline.extract_chunk)
        if progress:
            progress(doc["id"], done)
    score = ModelScore(client.label, ledger.structured.get(client.model, ""), len(documents), figures,
                       ledger.replies, ledger.invalid_replies, failures=failures,
                       heuristic={k: v for k, v in baseline.as_dict().items() if k != "seconds_per_chunk"},
                       usage=ledger.as_dict())
    score.verdict, score.reason = judge(score)
    spent = run_ledger(config.llm.prices)  # what was spent goes to .kg/ledger.json like any run's
    for model, usage in ledger.by_model.items():
        spent.record(model, usage)
    save_run(kb.ledger_path)
    return score

