"""Any OpenAI-compatible chat server (Ollama, LM Studio, vLLM, OpenAI) through instructor.

`OpenAIClient` is the `LlmClient` (kg/llm/client.py) for these servers. Small local models call
tools unreliably, so it uses instructor's JSON mode (`response_format: json_object` plus the
schema in the system message) and cleans the reply before instructor parses it:
`<think>...</think>` blocks and Markdown code fences are removed. A reply that is empty or fails
validation is re-asked by instructor (bounded by `[llm] validation_retries`), then fails with a
clear message.

`base_url` and `model` come from kg.toml (`OPENAI_BASE_URL` is the SDK's fallback); the key
from `OPENAI_API_KEY`. Local servers need no key: a placeholder is sent then.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from kg.config import LlmConfig
from kg.errors import ConfigError
from kg.llm.client import COMPILE_ADVICE, Advice, LlmClient, M, root_cause, usage_after
from kg.llm.ledger import Ledger, Usage
from kg.llm.prompts import RenderedPrompt

_THINK = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|\Z)", re.S | re.I)
_FENCE = re.compile(r"^\s*```[\w-]*\s*\n(.*?)\n?\s*```\s*$", re.S)


def clean_reply(text: str | None) -> str:
    """Drop <think> blocks and a surrounding code fence; keep the JSON object."""
    if not text:
        return ""
    text = _THINK.sub("", text).strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    elif "```" in text:
        inner = re.search(r"```[\w-]*\s*\n(.*?)```", text, re.S)
        if inner:
            text = inner.group(1).strip()
    if text and not text.startswith("{"):
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            text = text[start : end + 1]
    return text


def sdk_client(config: LlmConfig, env: Mapping[str, str] | None = None) -> Any:
    """The `openai.OpenAI` client (no SDK retries: kg's policy is the only one)."""
    import openai

    env = os.environ if env is None else env
    if not config.model:
        raise ConfigError(
            "The openai provider needs a model: set [llm] model = \"...\" (and base_url for a local server, "
            "e.g. \"http://localhost:11434/v1\" for Ollama) in kg.toml."
        )
    base_url = config.base_url or env.get("OPENAI_BASE_URL") or None
    key = env.get("OPENAI_API_KEY") or "not-needed"  # local servers ignore it
    return openai.OpenAI(api_key=key, base_url=base_url, timeout=config.timeout_seconds, max_retries=0)


class OpenAIClient(LlmClient):
    name = "openai"

    def __init__(self, config: LlmConfig, ledger: Ledger | None = None, sleep: Callable[[float], None] | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        super().__init__(config, ledger, sleep)
        import instructor

        self.raw_client = sdk_client(config, env)
        self.instructor = self.watch(instructor.from_openai(self.raw_client, mode=instructor.Mode.JSON))
        self.instructor.on("completion:response", self._clean)

    @staticmethod
    def _clean(response: Any, *args: Any, **kwargs: Any) -> None:
        """Runs before instructor parses the reply: tolerate local models' habits."""
        for choice in getattr(response, "choices", None) or []:
            message = getattr(choice, "message", None)
            if message is not None and isinstance(message.content, str | None):
                message.content = clean_reply(message.content)

    def ask(self, prompt: RenderedPrompt, response_model: type[M], context: dict[str, Any] | None = None) -> tuple[M, Usage]:
        extra: dict[str, Any] = {"context": context} if context is not None else {}
        result = self.instructor.chat.completions.create(
            model=self.model,
            max_tokens=self.config.max_tokens,
            messages=[{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}],
            response_model=response_model,
            max_retries=self.config.validation_retries,
            **extra,
        )
        return result, usage_after(result)

    def hint(self, exc: BaseException, advice: Advice = COMPILE_ADVICE) -> str:
        last = getattr(exc, "last_completion", None)
        choices = getattr(last, "choices", None) or []
        if choices and not (getattr(choices[0].message, "content", "") or "").strip():
            return "the model kept returning empty replies; check that it is loaded and can answer in JSON, or try a larger model"
        if type(root_cause(exc)).__name__ in {"ValidationError", "JSONDecodeError"}:
            return "the model's replies did not match the schema; try a larger model or raise [llm] validation_retries"
        return super().hint(exc, advice)
