"""The prompt registry: versioned Jinja templates in prompts/, each paired with its reply model.

A template defines two macros: `system()` (the same for every request, so providers can cache
it) and `user(...)`: `user(chunk_text, source_title, headings, known_entities)` for extraction,
`user(pairs)` for the LLM judges (kg/llm/judges.py), `user(question, claims)` for synthesised
answers (kg/retrieve/answer.py). The prompt version is a short hash of the template text and of
the reply model's JSON schema; it is stored on every claim and is part of the reply-cache keys
of extraction and the judges, so editing either one recompiles with fresh replies.

Templates live in the repository's `prompts/` folder; an installed wheel carries them as
`kg/_prompts` (see `[tool.hatch.build.targets.wheel.force-include]` in pyproject.toml).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kg.errors import ConfigError
from kg.models import (
    CardDrafts,
    ContradictionVerdicts,
    EntityVerdicts,
    ExtractionResult,
    SynthesisedAnswer,
)

#: prompt name -> (template file, the pydantic model the reply must validate against)
REGISTRY: dict[str, tuple[str, type[BaseModel]]] = {
    "extract": ("extract_v2.md.j2", ExtractionResult),
    "contradict": ("contradict_v1.md.j2", ContradictionVerdicts),  # kg/llm/judges.py
    "entity": ("entity_v1.md.j2", EntityVerdicts),  # kg/llm/judges.py
    "answer": ("answer_v1.md.j2", SynthesisedAnswer),  # kg/retrieve/answer.py
    "cards": ("cards_v1.md.j2", CardDrafts),  # kg/learn/writer.py
}


def prompts_dir() -> Path:
    """`kg/_prompts` in an installed wheel, else the repository's `prompts/` folder."""
    package = Path(__file__).resolve().parent.parent  # kg/
    for candidate in (package / "_prompts", package.parent / "prompts"):
        if candidate.is_dir():
            return candidate
    raise ConfigError(
        f"kg's prompt templates are missing (looked in {package / '_prompts'} and {package.parent / 'prompts'}). "
        "Reinstall kg (`pip install -e .` from the repository)."
    )


@dataclass(frozen=True)
class RenderedPrompt:
    system: str
    user: str


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    filename: str
    text: str
    response_model: type[BaseModel]

    @property
    def version(self) -> str:
        """`<file stem>-<12 hex>`: a hash of the template text and the reply schema."""
        schema = json.dumps(self.response_model.model_json_schema(), sort_keys=True)
        digest = hashlib.sha256(f"{self.text}\x1f{schema}".encode()).hexdigest()[:12]
        stem = self.filename.split(".", 1)[0]
        return f"{stem}-{digest}"

    def render(
        self, chunk_text: str, source_title: str, headings: tuple[str, ...] = (), known_entities: tuple[str, ...] = (),
    ) -> RenderedPrompt:
        """The extraction prompt's arguments; other prompts use `render_with`."""
        return self.render_with(chunk_text=chunk_text, source_title=source_title, headings=list(headings),
                                known_entities=list(known_entities))

    def render_with(self, **kwargs: Any) -> RenderedPrompt:
        """`system()` and `user(**kwargs)`: each template's `user` macro names its own arguments."""
        module = _compiled(self.text).module
        system = str(module.system()).strip()
        user = str(module.user(**kwargs)).strip()
        return RenderedPrompt(system, user)


@cache
def _compiled(text: str) -> Any:
    import jinja2

    env = jinja2.Environment(autoescape=False, keep_trailing_newline=False, undefined=jinja2.StrictUndefined)
    return env.from_string(text)


@cache
def get_prompt(name: str = "extract") -> PromptTemplate:
    if name not in REGISTRY:
        raise ConfigError(f"Unknown prompt {name!r}. Known prompts: {', '.join(sorted(REGISTRY))}.")
    filename, model = REGISTRY[name]
    path = prompts_dir() / filename
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"Cannot read the prompt template {path} ({exc}). Reinstall kg.") from exc
    return PromptTemplate(name, filename, text, model)
