"""The token and cost ledger of one run, and the price table it is priced with.

Prices are USD per million tokens. Defaults cover common models; `[llm.prices."model"]` in
kg.toml overrides or adds entries. A model with no known price is counted in tokens and
priced at 0 (the summary says so). Batch requests are priced at half (Anthropic's discount).

`estimate_tokens` is the approximation used by `kg compile --dry-run` and by the tests'
fake servers: ceil(characters / 4), the usual rule of thumb for English text and JSON.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

CHARS_PER_TOKEN = 4

#: USD per million tokens: input, output, cache_read, cache_write. Matched by longest prefix.
#: Only list-prices known to kg's authors are here; add others in kg.toml [llm.prices].
DEFAULT_PRICES: dict[str, dict[str, float]] = {
    "claude-opus-4-0": {"input": 15.0, "output": 75.0, "cache_read": 1.5, "cache_write": 18.75},
    "claude-opus-4-1": {"input": 15.0, "output": 75.0, "cache_read": 1.5, "cache_write": 18.75},
    "claude-opus-4-5": {"input": 5.0, "output": 25.0, "cache_read": 0.5, "cache_write": 6.25},
    "claude-sonnet-4": {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75},
    "claude-3-7-sonnet": {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75},
    "claude-3-5-sonnet": {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75},
    "claude-haiku-4": {"input": 1.0, "output": 5.0, "cache_read": 0.1, "cache_write": 1.25},
    "claude-3-5-haiku": {"input": 0.8, "output": 4.0, "cache_read": 0.08, "cache_write": 1.0},
    "gpt-4o-mini": {"input": 0.15, "output": 0.6, "cache_read": 0.075, "cache_write": 0.0},
    "gpt-4o": {"input": 2.5, "output": 10.0, "cache_read": 1.25, "cache_write": 0.0},
    "gpt-4.1-mini": {"input": 0.4, "output": 1.6, "cache_read": 0.1, "cache_write": 0.0},
    "gpt-4.1": {"input": 2.0, "output": 8.0, "cache_read": 0.5, "cache_write": 0.0},
}
BATCH_DISCOUNT = 0.5


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / 4): a documented approximation, not a real tokenizer."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


@dataclass(frozen=True)
class Price:
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    known: bool = True


def price_for(model: str, overrides: Mapping[str, Mapping[str, float]] | None = None) -> Price:
    table = {**DEFAULT_PRICES, **{k: dict(v) for k, v in (overrides or {}).items()}}
    matches = [k for k in table if model.startswith(k)]
    if not matches:
        return Price(known=False)
    row = table[model] if model in table else table[max(matches, key=len)]
    return Price(input=float(row.get("input", 0.0)), output=float(row.get("output", 0.0)),
                 cache_read=float(row.get("cache_read", 0.0)), cache_write=float(row.get("cache_write", 0.0)))


@dataclass
class Usage:
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.requests += other.requests
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens

    def cost(self, price: Price, discount: float = 1.0) -> float:
        total = (self.input_tokens * price.input + self.output_tokens * price.output
                 + self.cache_read_tokens * price.cache_read + self.cache_write_tokens * price.cache_write)
        return total * discount / 1_000_000

    @classmethod
    def from_response(cls, usage: Any, requests: int = 1) -> Usage:
        """From an Anthropic `Usage` or an OpenAI `CompletionUsage` (or None)."""
        if usage is None:
            return cls(requests=requests)
        if hasattr(usage, "prompt_tokens"):  # OpenAI: prompt_tokens includes cached tokens
            details = getattr(usage, "prompt_tokens_details", None)
            cached = int(getattr(details, "cached_tokens", 0) or 0)
            return cls(requests, int(usage.prompt_tokens or 0) - cached, int(usage.completion_tokens or 0), cached, 0)
        return cls(
            requests,
            int(getattr(usage, "input_tokens", 0) or 0),
            int(getattr(usage, "output_tokens", 0) or 0),
            int(getattr(usage, "cache_read_input_tokens", 0) or 0),
            int(getattr(usage, "cache_creation_input_tokens", 0) or 0),
        )


@dataclass
class Ledger:
    """Thread-safe running totals per model; `cache_hits` counts chunks answered from the cache.

    Besides tokens it keeps what a run's replies were worth: how each model's replies were held
    to the schema (`structured`: "json_schema", "tools", ... or "json", unconstrained), how many
    replies came and how many of them did not parse against the schema, the chunks a model gave
    no claims for (`empty`, per source) and the chunks the offline extractor did instead
    (`fallbacks`, per source, with the reason)."""

    prices: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    by_model: dict[str, Usage] = field(default_factory=dict)
    batch_models: set[str] = field(default_factory=set)
    cache_hits: int = 0
    estimated: bool = False
    structured: dict[str, str] = field(default_factory=dict)
    replies: int = 0
    invalid_replies: int = 0
    empty: dict[str, list[int]] = field(default_factory=dict)
    fallbacks: dict[str, dict[int, str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, model: str, usage: Usage, batch: bool = False) -> None:
        with self._lock:
            self.by_model.setdefault(model, Usage()).add(usage)
            if batch:
                self.batch_models.add(model)

    def hit(self) -> None:
        with self._lock:
            self.cache_hits += 1

    def reply(self, valid: bool) -> None:
        """One reply of a model arrived; `valid`: it parsed against the schema."""
        with self._lock:
            self.replies += 1
            self.invalid_replies += 0 if valid else 1

    def held_by(self, model: str, mode: str) -> None:
        """The way `model`'s replies were held to the schema (the last one a server accepted)."""
        with self._lock:
            self.structured[model] = mode

    def empty_chunk(self, source: str, chunk: int) -> None:
        """The model gave no claims for chunk number `chunk` (from 1) of `source`, asked twice."""
        with self._lock:
            chunks = self.empty.setdefault(source, [])
            if chunk not in chunks:
                chunks.append(chunk)
                chunks.sort()

    def fallback(self, source: str, chunk: int, reason: str) -> None:
        """The offline extractor made chunk number `chunk` of `source`'s claims, because `reason`."""
        with self._lock:
            self.fallbacks.setdefault(source, {})[chunk] = reason

    @property
    def total(self) -> Usage:
        total = Usage()
        for usage in self.by_model.values():
            total.add(usage)
        return total

    def cost(self) -> float:
        return sum(
            usage.cost(price_for(model, self.prices), BATCH_DISCOUNT if model in self.batch_models else 1.0)
            for model, usage in self.by_model.items()
        )

    def unpriced(self) -> list[str]:
        return sorted(m for m in self.by_model if not price_for(m, self.prices).known)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self.total), "cache_hits": self.cache_hits, "cost_usd": round(self.cost(), 6),
                "estimated": self.estimated, "unpriced_models": self.unpriced(),
                "by_model": {m: asdict(u) for m, u in sorted(self.by_model.items())},
                "structured": dict(sorted(self.structured.items())),
                "replies": self.replies, "invalid_replies": self.invalid_replies,
                "empty_extractions": {s: list(c) for s, c in sorted(self.empty.items())},
                "fallback_chunks": {s: {str(n): r for n, r in sorted(c.items())} for s, c in sorted(self.fallbacks.items())}}

    @property
    def active(self) -> bool:
        return bool(self.by_model or self.cache_hits)

    def reset(self) -> None:
        with self._lock:
            self.by_model.clear()
            self.batch_models.clear()
            self.cache_hits = 0
            self.structured.clear()
            self.replies = self.invalid_replies = 0
            self.empty.clear()
            self.fallbacks.clear()

    def unconstrained(self) -> list[str]:
        """Models whose server accepted no schema or tool: their replies were bare JSON mode."""
        return sorted(m for m, mode in self.structured.items() if mode == "json")

    def summary(self) -> str:
        t = self.total
        what = "estimated " if self.estimated else ""
        line = (f"LLM {what}usage: {t.requests} request(s), {t.input_tokens:,} input + {t.output_tokens:,} output tokens"
                f" ({t.cache_read_tokens:,} cache read, {t.cache_write_tokens:,} cache write), "
                f"{self.cache_hits} chunk(s) from cache, {what}cost ${self.cost():.4f}")
        if missing := self.unpriced():
            line += f" (no price for {', '.join(missing)}: add [llm.prices] to kg.toml)"
        if bare := self.unconstrained():
            line += (f"; replies of {', '.join(bare)} were unconstrained: the server accepted no JSON schema or "
                     "tool, only bare JSON mode (a small model may then answer anything)")
        elif held := sorted(set(self.structured.values())):
            line += f"; replies held to the schema by {', '.join(held)}"
        if self.fallbacks:
            chunks = sum(len(c) for c in self.fallbacks.values())
            line += f"; {chunks} chunk(s) of {len(self.fallbacks)} source(s) extracted offline ([llm] fallback)"
        return line


_RUN = Ledger()


def run_ledger(prices: Mapping[str, Mapping[str, float]] | None = None) -> Ledger:
    """The process's ledger, used by LLM backends built without one (e.g. by kg.api), so the
    CLI can show the run's usage after `kg compile`. `prices` updates its price table."""
    if prices:
        _RUN.prices = {**_RUN.prices, **prices}
    return _RUN


def save_run(path: Path) -> None:
    """Keep the run's ledger and the running total in `path` (.kg/ledger.json), when an LLM was used."""
    ledger = run_ledger()
    if not ledger.active:
        return
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        saved = {}
    last = ledger.as_dict()
    total = saved.get("total", {})
    for key in ("requests", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cache_hits",
                "cost_usd"):
        total[key] = round(total.get(key, 0) + last.get(key, 0), 6)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"last_run": last, "total": total}, indent=2, sort_keys=True), encoding="utf-8")
    tmp.replace(path)
