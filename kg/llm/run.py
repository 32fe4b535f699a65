"""The LLM parts of `kg compile`: `--dry-run` (estimate, no calls), `--batch` (Message Batches),
and the run's token/cost summary. Plain functions over a KnowledgeBase; no printing here.

Estimates use kg/llm/ledger.py's approximation, ceil(characters / 4), for everything sent: the
system prompt, the user message (title, section, known entities, the chunk) and the reply
schema (tool or JSON schema; the openai provider also states it in the system prompt). Output tokens are a rough guess, twice the chunk's tokens plus
100: a reply repeats each quote verbatim and adds a sentence and fields per claim (the tests'
fake, which answers with the heuristic extractor's output, measures about 4x on the examples). Chunks already in the reply cache cost
nothing. For Anthropic, the system prompt + tool are written to the prompt cache once per
run and read from it for every further chunk.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kg.cache import ResponseCache, content_key
from kg.compile.pipeline import load_source_states, plan_compile
from kg.errors import ConfigError
from kg.kb import KnowledgeBase
from kg.llm.anthropic_api import DEFAULT_MODEL as ANTHROPIC_DEFAULT_MODEL
from kg.llm.backends import extractor_name, make_extractor
from kg.llm.batch import BatchReport, pending_chunks, run_batch
from kg.llm.ledger import BATCH_DISCOUNT, Ledger, Usage, estimate_tokens, price_for, run_ledger
from kg.llm.prompts import get_prompt

DEFAULT_MODELS = {"anthropic": ANTHROPIC_DEFAULT_MODEL, "openai": ""}


@dataclass
class Estimate:
    extractor: str
    model: str
    sources: int = 0
    chunks: int = 0
    cached_chunks: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    batch_cost_usd: float = 0.0
    per_chunk_overhead_tokens: int = 0  # prompt tokens sent besides the chunk text itself
    priced: bool = True

    def as_dict(self) -> dict[str, Any]:
        data = self.__dict__.copy()
        data["usage"] = self.usage.__dict__.copy()
        data["cost_usd"] = round(self.cost_usd, 6)
        data["batch_cost_usd"] = round(self.batch_cost_usd, 6)
        return data

    def summary(self) -> str:
        if self.extractor == "heuristic":
            return f"Dry run: {self.sources} source(s), {self.chunks} chunk(s); the heuristic extractor makes no LLM calls (cost $0)."
        u = self.usage
        price = f"${self.cost_usd:.4f} (with --batch ${self.batch_cost_usd:.4f})" if self.priced else \
            "unknown (no price for this model: add [llm.prices] to kg.toml)"
        return (f"Dry run ({self.extractor}:{self.model}): {self.sources} source(s), {self.chunks} chunk(s), "
                f"{self.cached_chunks} already cached; about {u.requests} request(s), "
                f"{u.input_tokens + u.cache_read_tokens + u.cache_write_tokens:,} input tokens "
                f"({u.cache_read_tokens:,} from the prompt cache) and {u.output_tokens:,} output tokens; "
                f"estimated cost {price}. Prompt overhead per chunk: about {self.per_chunk_overhead_tokens} tokens. "
                "Nothing was sent.")


def _pending(kb: KnowledgeBase, only: Sequence[str] | None = None) -> list[str]:
    from kg.graph.store import Store

    if not kb.db_path.exists():
        return plan_compile(kb.raw, only=only).to_compile
    with Store(kb.db_path, read_only=True) as store:
        return plan_compile(kb.raw, load_source_states(store, only), only).to_compile


def estimate(kb: KnowledgeBase, override: str | None = None, only: Sequence[str] | None = None) -> Estimate:
    """What `kg compile` would send, without sending anything (no API key needed)."""
    config = kb.config()
    name = extractor_name(config, override)
    paths = _pending(kb, only)
    model = config.llm.model or DEFAULT_MODELS.get(name, "")
    est = Estimate(name, model, sources=len(paths))
    items = pending_chunks(kb, config, paths)
    est.chunks = len(items)
    if name == "heuristic":
        return est
    prompt = get_prompt("extract")
    schema = get_prompt("extract").response_model.model_json_schema()
    schema_tokens = estimate_tokens(json.dumps(schema, separators=(",", ":")))
    cache = ResponseCache(kb.cache_path) if kb.cache_path.exists() else None
    seen: set[str] = set()
    overheads: list[int] = []
    try:
        for chunk, context in items:
            key = content_key(name, prompt.version, model, chunk.text)
            if key in seen or (cache is not None and cache.get(key) is not None):
                est.cached_chunks += 1
                continue
            seen.add(key)
            rendered = prompt.render(chunk.text, context.source_title, chunk.headings, context.known_entities)
            # the openai provider sends the schema twice: in the system prompt and in response_format (or the tool)
            system = estimate_tokens(rendered.system) + schema_tokens * (2 if name == "openai" else 1)
            user = estimate_tokens(rendered.user)
            overheads.append(system + user - estimate_tokens(chunk.text))
            est.usage.requests += 1
            if name == "anthropic":
                if est.usage.cache_write_tokens == 0:
                    est.usage.cache_write_tokens += system
                else:
                    est.usage.cache_read_tokens += system
                est.usage.input_tokens += user
            else:
                est.usage.input_tokens += system + user
            est.usage.output_tokens += 2 * estimate_tokens(chunk.text) + 100
    finally:
        if cache is not None:
            cache.close()
    est.per_chunk_overhead_tokens = round(sum(overheads) / len(overheads)) if overheads else 0
    price = price_for(model, config.llm.prices)
    est.priced = price.known
    est.cost_usd = est.usage.cost(price)
    est.batch_cost_usd = est.usage.cost(price, BATCH_DISCOUNT)
    return est


def prefetch_batch(kb: KnowledgeBase, override: str | None = None, ledger: Ledger | None = None,
                   sleep: Any = None, only: Sequence[str] | None = None) -> BatchReport:
    """`kg compile --batch`, step one: extract every pending chunk through the Message Batches
    API into the reply cache. The ordinary compile that follows then makes no requests for them."""
    from kg.llm.extractor import LlmExtractor

    config = kb.config()
    if extractor_name(config, override) != "anthropic":
        raise ConfigError("--batch uses the Anthropic Message Batches API: use it with --extractor anthropic.")
    cache = ResponseCache(kb.cache_path)
    try:
        extractor = make_extractor(config, "anthropic", cache, ledger)
        assert isinstance(extractor, LlmExtractor)
        items = pending_chunks(kb, config, _pending(kb, only))
        return run_batch(extractor, items, **({"sleep": sleep} if sleep else {}))
    finally:
        cache.close()


def run_summary() -> str | None:
    """The token/cost line for the run just finished, or None when no LLM was involved."""
    ledger = run_ledger()
    return ledger.summary() if ledger.active else None
