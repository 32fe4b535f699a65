"""Choosing an extractor backend from kg.toml, the environment and the command line."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from kg.cache import ResponseCache
from kg.config import Config
from kg.errors import ConfigError
from kg.extractors import Extractor

if TYPE_CHECKING:
    from kg.ledger import Ledger

EXTRACTORS = ("heuristic", "anthropic", "openai")


def extractor_name(config: Config, override: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """`--extractor` wins, then kg.toml; "auto" means anthropic when ANTHROPIC_API_KEY is set."""
    env = os.environ if env is None else env
    name = (override or config.compile.extractor or "auto").lower()
    if name == "auto":
        name = config.llm.provider or ("anthropic" if env.get("ANTHROPIC_API_KEY") else "heuristic")
    if name not in EXTRACTORS:
        raise ConfigError(f"Unknown extractor {name!r}. Choose one of: {', '.join(EXTRACTORS)}.")
    return name


def make_extractor(
    config: Config, override: str | None = None, cache: ResponseCache | None = None,
    ledger: Ledger | None = None, env: Mapping[str, str] | None = None,
) -> Extractor:
    """The backend by name. LLM SDKs are imported here, lazily, never at `import kg` time.

    `ledger` collects the LLM backends' token counts and cost (see kg/ledger.py).
    """
    name = extractor_name(config, override, env)
    if name == "heuristic":
        from kg.extractors.heuristic import HeuristicExtractor

        return HeuristicExtractor(cache)
    if name == "anthropic":
        from kg.extractors.anthropic_backend import AnthropicExtractor

        return AnthropicExtractor(config.llm, cache, ledger, env=env)
    if name == "openai":
        from kg.extractors.openai_backend import OpenAIExtractor

        return OpenAIExtractor(config.llm, cache, ledger, env=env)
    raise ConfigError(f"Unknown extractor {name!r}. Choose one of: {', '.join(EXTRACTORS)}.")
