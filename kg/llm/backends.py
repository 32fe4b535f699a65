"""Choosing an extractor backend (and the judges that go with it) from kg.toml, the environment
and the command line."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from kg.cache import ResponseCache
from kg.compile.pipeline import Compiler
from kg.config import Config
from kg.errors import ConfigError
from kg.extract import Extractor
from kg.graph.store import Store
from kg.kb import KnowledgeBase

if TYPE_CHECKING:
    from kg.compile.contradict import ContradictionJudge
    from kg.compile.resolve import EntityJudge
    from kg.llm.ledger import Ledger

EXTRACTORS = ("heuristic", "anthropic", "openai")
LLM_BACKENDS = ("anthropic", "openai")


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

    `ledger` collects the LLM backends' token counts and cost (see kg/llm/ledger.py).
    """
    name = extractor_name(config, override, env)
    if name == "heuristic":
        from kg.extract.heuristic import HeuristicExtractor

        return HeuristicExtractor(cache)
    if name == "anthropic":
        from kg.llm.anthropic_api import AnthropicExtractor

        return AnthropicExtractor(config.llm, cache, ledger, env=env)
    if name == "openai":
        from kg.llm.openai_api import OpenAIExtractor

        return OpenAIExtractor(config.llm, cache, ledger, env=env)
    raise ConfigError(f"Unknown extractor {name!r}. Choose one of: {', '.join(EXTRACTORS)}.")


def make_judge(
    config: Config, override: str | None = None, cache: ResponseCache | None = None,
    ledger: Ledger | None = None, env: Mapping[str, str] | None = None,
) -> ContradictionJudge:
    """The contradiction judge for the extractor `override`/kg.toml selects: the offline rules, or,
    with an LLM backend, the rules plus the LLM judge (kg/llm/judges.py) on the remaining candidates."""
    from kg.compile.contradict import RuleJudge

    name = extractor_name(config, override, env)
    if name not in LLM_BACKENDS or not config.llm.judges:
        return RuleJudge()
    from kg.llm.client import LlmExtractor
    from kg.llm.judges import CombinedJudge, LlmContradictionJudge

    backend = make_extractor(config, name, None, ledger, env)
    assert isinstance(backend, LlmExtractor)
    return CombinedJudge(LlmContradictionJudge(backend, cache))


def make_entity_judge(
    config: Config, override: str | None = None, cache: ResponseCache | None = None,
    ledger: Ledger | None = None, env: Mapping[str, str] | None = None,
) -> EntityJudge | None:
    """The LLM judge for ambiguous entity-resolution cases, or None offline (rules only)."""
    name = extractor_name(config, override, env)
    if name not in LLM_BACKENDS or not config.llm.judges:
        return None
    from kg.llm.client import LlmExtractor
    from kg.llm.judges import LlmEntityJudge

    backend = make_extractor(config, name, None, ledger, env)
    assert isinstance(backend, LlmExtractor)
    return LlmEntityJudge(backend, cache)


def make_compiler(kb: KnowledgeBase, store: Store, config: Config, extractor: str | None,
                  cache: ResponseCache) -> Compiler:
    """A Compiler with the configured (or `extractor`) backend and its judges."""
    return Compiler(kb, store, make_extractor(config, extractor, cache), config,
                    judge=make_judge(config, extractor, cache), entity_judge=make_entity_judge(config, extractor, cache))
