"""Answers to questions, built on a `NavigationResult`, and filing them back into the graph.

- Offline (no LLM configured): an extractive answer, the most relevant claims grouped by the
  entity they are about, each with its citation. It says plainly that it is extractive.
- With an LLM backend: instructor asks for a `SynthesisedAnswer` whose `claim_ids` are the
  claims it relies on. An id that is not among the claims it was given fails validation and
  instructor sends the error back (a retry); so every citation resolves to a claim, its wiki
  page and its source span.
- `save_answer` writes a `Page` (kind "answer") with CITES edges to the claims and PAGE_ABOUT
  edges to their entities, and a LogEntry (op "answer"); the wiki renders it to
  `wiki/answers/<id>.md` from the stored body, so re-renders are byte-identical.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, ValidationInfo, field_validator

from kg.config import Config
from kg.errors import ConfigError, KgError
from kg.graph.store import Store, WriteBatch, now_iso
from kg.names import slugify
from kg.retrieve.navigate import ClaimRef, NavigationResult

EXTRACTIVE_NOTE = ("Extractive answer: no LLM is configured, so these are the wiki's own claims most relevant "
                   "to the question, grouped by what they are about. Nothing here is synthesised.")
MAX_CLAIMS = 8


class SynthesisedAnswer(BaseModel):
    """What the LLM must return."""

    answer: str = Field(description="The answer in a few sentences of markdown. Cite claims inline as [claim id], "
                                    "e.g. [c0123456789abcde]. Say so if the claims do not answer the question.")
    claim_ids: list[str] = Field(description="Ids of every claim the answer relies on, from the list given.")

    @field_validator("claim_ids")
    @classmethod
    def _known(cls, ids: list[str], info: ValidationInfo) -> list[str]:
        allowed = set((info.context or {}).get("claim_ids", ()))
        unknown = [i for i in ids if i not in allowed]
        if unknown:
            raise ValueError(f"unknown claim ids {unknown}: cite only ids from the list of claims given")
        if not ids:
            raise ValueError("cite at least one claim id from the list given")
        return list(dict.fromkeys(ids))


@dataclass
class Answer:
    question: str
    mode: str  # extractive | llm
    text: str  # markdown, with [n] citation markers
    claims: list[ClaimRef]  # cited, in citation order
    tokens_read: int
    model: str = ""
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def entities(self) -> list[str]:
        return sorted({e for c in self.claims for e in c.entities})

    def sources_md(self) -> str:
        lines = []
        for n, claim in enumerate(self.claims, 1):
            cites = "; ".join(f"{c.link}, chars {c.char_start}–{c.char_end}" for c in claim.citations) or "no live source"
            entity = f" · [[entities/{claim.subject}|{_label(claim.subject_name)}]]" if claim.subject else ""
            lines.append(f"{n}. {_inline(claim.text)} — {claim.link()} (`{claim.id}`, confidence "
                         f"{claim.confidence:.2f}){entity}; {cites}")
        return "\n".join(lines)

    def markdown(self) -> str:
        """The body saved in the Page and rendered to wiki/answers/<id>.md."""
        head = "Synthesised by an LLM from the claims below." if self.mode == "llm" else EXTRACTIVE_NOTE
        return f"> {head}\n\n{self.text.strip()}\n\n## Citations\n\n{self.sources_md() or '- none'}\n"

    def as_dict(self) -> dict[str, Any]:
        return {
            "question": self.question, "mode": self.mode, "answer": self.text, "model": self.model,
            "tokens_read": self.tokens_read, "usage": self.usage,
            "citations": [{"n": n, "claim_id": c.id, "text": c.text, "page": f"entities/{c.subject}" if c.subject else "",
                           "link": c.link(), "sources": [{"path": s.source_path, "page": f"sources/{s.source_slug}",
                                                          "char_start": s.char_start, "char_end": s.char_end,
                                                          "quote": s.quote} for s in c.citations]}
                          for n, c in enumerate(self.claims, 1)],
        }


def extractive_answer(nav: NavigationResult, max_claims: int = MAX_CLAIMS) -> Answer:
    chosen = nav.claims[:max_claims]
    if not chosen:
        text = "The wiki has no claims that answer this question. Add sources about it to raw/ and run `kg compile`."
        return Answer(nav.question, "extractive", text, [], nav.tokens_read)
    groups: dict[str, list[ClaimRef]] = {}
    for claim in chosen:
        groups.setdefault(claim.subject or "", []).append(claim)
    numbers = {c.id: n for n, c in enumerate(chosen, 1)}
    parts = []
    for subject, claims in groups.items():  # first-seen order: the group of the best claim first
        name = claims[0].subject_name or subject
        parts.append(f"**[[entities/{subject}|{_label(name)}]]**" if subject else "**Other**")
        parts.extend(f"- {_inline(c.text)} [{numbers[c.id]}]" for c in claims)
        parts.append("")
    return Answer(nav.question, "extractive", "\n".join(parts), chosen, nav.tokens_read)


# the LLM path ---------------------------------------------------------------------------------

SYSTEM = ("You answer questions from a knowledge base, using only the numbered claims given. Cite the claims "
          "you rely on by id, inline as [claim id], and list their ids in claim_ids. If the claims do not answer "
          "the question, say so briefly.")


def llm_prompt(nav: NavigationResult) -> str:
    lines = [f"Question: {nav.question}", "", "Claims:"]
    for claim in nav.claims:
        about = f" (about {claim.subject_name})" if claim.subject_name else ""
        lines.append(f"- [{claim.id}]{about} {_inline(claim.text)}")
    return "\n".join(lines)


def make_answer_client(config: Config, provider: str, env: Mapping[str, str] | None = None) -> tuple[Any, str]:
    """An instructor client for the configured provider, and the model name."""
    import instructor

    env = os.environ if env is None else env
    if provider == "anthropic":
        from kg.llm.anthropic_api import DEFAULT_MODEL, make_client

        return instructor.from_anthropic(make_client(config.llm, env), mode=instructor.Mode.TOOLS), config.llm.model or DEFAULT_MODEL
    if provider == "openai":
        from kg.llm import openai_api as openai_backend

        model = config.llm.model or getattr(openai_backend, "DEFAULT_MODEL", "")
        if not model:
            raise ConfigError("Set [llm] model in kg.toml for the openai provider.")
        return instructor.from_openai(openai_backend.make_client(config.llm, env), mode=instructor.Mode.JSON), model
    raise ConfigError(f"No LLM answer backend for {provider!r}.")


def llm_answer(nav: NavigationResult, client: Any, model: str, provider: str = "anthropic",
               max_retries: int = 2, max_tokens: int = 2048) -> Answer:
    """Synthesise through instructor; cited ids are validated against the claims given."""
    if not nav.claims:
        return extractive_answer(nav)
    kwargs: dict[str, Any] = {
        "model": model, "response_model": SynthesisedAnswer, "max_retries": max_retries,
        "context": {"claim_ids": [c.id for c in nav.claims]},
        "messages": [{"role": "user", "content": llm_prompt(nav)}],
    }
    if provider == "anthropic":
        kwargs["system"] = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
        kwargs["max_tokens"] = max_tokens
    else:
        kwargs["messages"].insert(0, {"role": "system", "content": SYSTEM})
    try:
        result: SynthesisedAnswer = client.messages.create(**kwargs) if provider == "anthropic" else \
            client.chat.completions.create(**kwargs)
    except Exception as exc:  # instructor gave up, or the service failed
        raise KgError(f"The LLM could not answer ({type(exc).__name__}: {str(exc).splitlines()[0][:200]}). "
                      "Run the query again, or use --offline for an extractive answer.") from exc
    by_id = {c.id: c for c in nav.claims}
    cited = [by_id[i] for i in result.claim_ids]
    for i in re.findall(r"\[(c[0-9a-f]{6,})\]", result.answer):  # cited inline but not listed
        if i in by_id and by_id[i] not in cited:
            cited.append(by_id[i])
    numbers = {c.id: n for n, c in enumerate(cited, 1)}
    text = re.sub(r"\[(c[0-9a-f]{6,})\]", lambda m: f"[{numbers[m.group(1)]}]" if m.group(1) in numbers else "", result.answer)
    usage = getattr(result, "_raw_response", None)
    tokens = getattr(usage, "usage", None)
    counts = {k: int(getattr(tokens, k, 0) or 0) for k in ("input_tokens", "output_tokens", "prompt_tokens",
                                                              "completion_tokens") if getattr(tokens, k, None)}
    return Answer(nav.question, "llm", text, cited, nav.tokens_read, model=model, usage=counts)


# filing back ----------------------------------------------------------------------------------


def page_id(question: str) -> str:
    """The same question always files to the same page (a newer answer replaces it)."""
    return slugify(question, max_length=60)


def save_answer(store: Store, answer: Answer) -> str:
    pid = page_id(answer.question)
    body = answer.markdown()
    now = now_iso()
    batch = WriteBatch()
    batch.statements.append(("MATCH (p:Page {id: $id}) DETACH DELETE p", {"id": pid}))
    batch.add("Page", {"id": pid, "kind": "answer", "title": answer.question, "body": body,
                       "body_sha256": hashlib.sha256(body.encode()).hexdigest(), "created_at": now})
    for claim in answer.claims:
        batch.relate("CITES", {"src": pid, "dst": claim.id})
    for entity in answer.entities:
        batch.relate("PAGE_ABOUT", {"src": pid, "dst": entity})
    batch.add("LogEntry", {"seq": store.next_log_seq(), "at": now, "op": "answer", "subject": answer.question,
                           "detail": f"{answer.mode} answer citing {len(answer.claims)} claim(s); "
                                     f"{answer.tokens_read} tokens read; wiki/answers/{pid}.md"})
    from kg.graph.fts import drop_indexes, refresh_indexes

    drop_indexes(store, ["Page"])  # Kuzu's FTS and writes: see kg/retrieve/search.py
    store.write(batch)
    refresh_indexes(store, ["Page"])
    return pid


def _inline(text: str) -> str:
    text = " ".join(str(text).split())
    return text.replace("[[", "\\[\\[").replace("]]", "\\]\\]").replace("<", "&lt;")


def _label(value: object) -> str:
    text = " ".join(str(value or "").split())
    return text.replace("|", "¦").replace("[", "(").replace("]", ")")
