"""Choosing the LLM client, the extractor and the judges that go with it from kg.toml, the
environment and the command line.

`make_client` builds the one `LlmClient` (kg/llm/client.py) of a provider; the extractor
(kg/llm/extractor.py), both judges (kg/llm/judges.py) and answers (kg/retrieve/answer.py) all
send their requests through one. `make_compiler` shares a single client between the extractor
and the judges of a compile.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from kg.config import Config, LlmConfig
from kg.errors import ConfigError

if TYPE_CHECKING:  # `extractor_name` is all a question asks of this module: it loads no extractor (pydantic)
    from kg.cache import ResponseCache
    from kg.compile.contradict import ContradictionJudge
    from kg.compile.pipeline import Compiler
    from kg.compile.resolve import EntityJudge
    from kg.extract import Extractor
    from kg.graph.store import Store
    from kg.kb import KnowledgeBase
    from kg.llm.client import LlmClient
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


def make_client(config: LlmConfig, provider: str, env: Mapping[str, str] | None = None,
                ledger: Ledger | None = None) -> LlmClient:
    """The LLM client of `provider` ("anthropic" or "openai"). SDKs are imported here, lazily,
    never at `import kg` time. `ledger` defaults to the run's (kg/llm/ledger.py `run_ledger`)."""
    if provider == "anthropic":
        from kg.llm.anthropic_api import AnthropicClient

        return AnthropicClient(config, ledger, env)
    if provider == "openai":
        from kg.llm.openai_api import OpenAIClient

        return OpenAIClient(config, ledger, env)
    raise ConfigError(f"No LLM provider {provider!r}. Choose one of: {', '.join(LLM_BACKENDS)}.")


def make_extractor(
    config: Config, override: str | None = None, cache: ResponseCache | None = None,
    ledger: Ledger | None = None, env: Mapping[str, str] | None = None, client: LlmClient | None = None,
) -> Extractor:
    """The backend by name: the offline heuristic, or an `LlmExtractor` over `client` (built when None).

    `ledger` collects the LLM client's token counts and cost (see kg/llm/ledger.py).
    """
    name = extractor_name(config, override, env)
    if name == "heuristic":
        from kg.extract.heuristic import HeuristicExtractor

        return HeuristicExtractor(cache)
    from kg.llm.extractor import LlmExtractor

    return LlmExtractor(client or make_client(config.llm, name, env, ledger), cache)


def make_judge(
    config: Config, override: str | None = None, cache: ResponseCache | None = None,
    ledger: Ledger | None = None, env: Mapping[str, str] | None = None, client: LlmClient | None = None,
) -> ContradictionJudge:
    """The contradiction judge for the extractor `override`/kg.toml selects: the offline rules, or,
    with an LLM backend, the rules plus the LLM judge (kg/llm/judges.py) on the remaining candidates."""
    from kg.compile.contradict import RuleJudge

    name = extractor_name(config, override, env)
    if name not in LLM_BACKENDS or not config.llm.judges:
        return RuleJudge()
    from kg.llm.judges import CombinedJudge, LlmContradictionJudge

    return CombinedJudge(LlmContradictionJudge(client or make_client(config.llm, name, env, ledger), cache))


def make_entity_judge(
    config: Config, override: str | None = None, cache: ResponseCache | None = None,
    ledger: Ledger | None = None, env: Mapping[str, str] | None = None, client: LlmClient | None = None,
) -> EntityJudge | None:
    """The LLM judge for ambiguous entity-resolution cases, or None offline (rules only)."""
    name = extractor_name(config, override, env)
    if name not in LLM_BACKENDS or not config.llm.judges:
        return None
    from kg.llm.judges import LlmEntityJudge

    return LlmEntityJudge(client or make_client(config.llm, name, env, ledger), cache)


def make_compiler(kb: KnowledgeBase, store: Store, config: Config, extractor: str | None,
                  cache: ResponseCache) -> Compiler:
    """A Compiler with the configured (or `extractor`) backend and its judges, sharing one LLM client."""
    from kg.compile.pipeline import Compiler

    name = extractor_name(config, extractor)
    client = make_client(config.llm, name) if name in LLM_BACKENDS else None
    return Compiler(kb, store, make_extractor(config, name, cache, client=client), config,
                    judge=make_judge(config, name, cache, client=client),
                    entity_judge=make_entity_judge(config, name, cache, client=client))
