"""Answers to questions, built on a `NavigationResult`, and filing them back into the graph.

- Offline (no LLM configured): an extractive answer, the most relevant claims grouped by the
  entity they are about, each with its citation. It says plainly that it is extractive.
- With an LLM: the same `LlmClient` extraction uses (kg/llm/client.py) asks, with the versioned
  prompt prompts/answer_v1.md.j2, for a `SynthesisedAnswer` whose `claim_ids` are the claims it
  relies on; its retries and ledger apply. An id that is not among the claims it was given
  fails validation and the client sends the error back (a re-ask); so every citation
  resolves to a claim, its wiki page and its source span.
- `save_answer` writes a `Page` (kind "answer") with CITES edges to the claims and PAGE_ABOUT
  edges to their entities (replacing an earlier answer to the same question, kg/graph/answers.py),
  and a LogEntry (op "answer"); the wiki renders it to `wiki/answers/<id>.md` from the stored
  body, so re-renders are byte-identical.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from kg.config import Config
from kg.errors import LlmCallFailed
from kg.graph.answers import replace_page
from kg.graph.store import Store, WriteBatch, now_iso
from kg.names import slugify
from kg.retrieve.results import ClaimRef, NavigationResult

if TYPE_CHECKING:  # the LLM half loads the client (pydantic, the prompts) in its calls: an offline answer has none
    from kg.llm.client import LlmClient
    from kg.llm.ledger import Ledger, Usage
    from kg.llm.prompts import RenderedPrompt

EXTRACTIVE_NOTE = ("Extractive answer: no LLM is configured, so these are the wiki's own claims most relevant "
                   "to the question, grouped by what they are about. Nothing here is synthesised.")
MAX_CLAIMS = 8


@dataclass
class Answer:
    question: str
    mode: str  # extractive | llm
    text: str  # markdown, with [n] citation markers
    claims: list[ClaimRef]  # cited, in citation order
    tokens_read: int
    model: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    head: str = ""  # the note above the answer, when its form says more than extractive or llm does
    fallback: str = ""  # why an LLM's reply was set aside for the extractive answer ("" when it was not)

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
        head = self.head or ("Synthesised by an LLM from the claims below." if self.mode == "llm" else EXTRACTIVE_NOTE)
        return f"> {head}\n\n{self.text.strip()}\n\n## Citations\n\n{self.sources_md() or '- none'}\n"

    def as_dict(self) -> dict[str, Any]:
        return {
            "question": self.question, "mode": self.mode, "answer": self.text, "model": self.model,
            "llm_reply_unusable": self.fallback or None,
            "tokens_read": self.tokens_read, "usage": self.usage,
            "citations": [{"n": n, "claim_id": c.id, "text": c.text, "page": f"entities/{c.subject}" if c.subject else "",
                           "link": c.link(), "sources": [{"path": s.source_path, "page": f"sources/{s.source_slug}",
                                                          "char_start": s.char_start, "char_end": s.char_end,
                                                          "quote": s.quote} for s in c.citations]}
                          for n, c in enumerate(self.claims, 1)],
        }


_KIND_NAMES = {"definition": "a definition", "quantity": "an amount", "date": "a date", "person": "a person", "place": "a place"}


def extractive_answer(nav: NavigationResult, max_claims: int = MAX_CLAIMS) -> Answer:
    """The claims that answer first (kg/retrieve/question.py), grouped by what they are about, then
    the other claims read; says when no claim answers, and which cited claims contradict each other."""
    chosen = [c for c in nav.claims if c.answers][:max_claims]
    chosen += [c for c in nav.claims if not c.answers][: max_claims - len(chosen)]
    if not chosen:
        text = "The wiki has no claims that answer this question. Add sources about it to raw/ and run `kg compile`."
        return Answer(nav.question, "extractive", text, [], nav.tokens_read)
    parts = []
    if not chosen[0].answers and nav.judged and not nav.verdict:
        wanted = f" ({_KIND_NAMES[nav.answer_kind]})" if nav.answer_kind in _KIND_NAMES else ""
        parts += [f"None of the claims found states what the question asks{wanted}; the closest ones:", ""]
    # the claims that answer, grouped by subject, first; then the others ("Also relevant")
    groups: dict[tuple[bool, str], list[ClaimRef]] = {}
    for claim in chosen:
        groups.setdefault((claim.answers, claim.subject or ""), []).append(claim)
    chosen = [c for claims in groups.values() for c in claims]  # numbered in the order shown
    numbers = {c.id: n for n, c in enumerate(chosen, 1)}
    if nav.verdict:
        parts += [_verdict_line(nav, numbers), ""]
    for (answers, subject), claims in groups.items():  # first-seen order: the group of the best claim first
        if not answers and chosen[0].answers and claims[0] is next(c for c in chosen if not c.answers):
            parts.append("Also relevant:\n")
        name = claims[0].subject_name or subject
        parts.append(f"**[[entities/{subject}|{_label(name)}]]**" if subject else "**Other**")
        parts.extend(f"- {_inline(c.text)} [{numbers[c.id]}]" for c in claims)
        parts.append("")
    conflicts = [(numbers[a], numbers[b], conf) for a, b, conf in nav.contradictions if a in numbers and b in numbers]
    pairs = {(min(a, b), max(a, b)): c for a, b, c in sorted(conflicts)}  # a pair once, either direction
    for (first, second), confidence in sorted(pairs.items()):
        parts.append(f"Claims [{first}] and [{second}] contradict each other (confidence {confidence:.2f}): "
                     "see [[contradictions]].")
    return Answer(nav.question, "extractive", "\n".join(parts).rstrip() + "\n", chosen, nav.tokens_read)


def _verdict_line(nav: NavigationResult, numbers: dict[str, int]) -> str:
    """"Yes: ..." / "No: ..." for a yes/no question, from the claims found about each thing."""
    verdict = nav.verdict
    assert verdict is not None
    prop = " ".join(verdict.prop)
    if verdict.shape == "same":  # "the same province": each one's, as its claim says
        said = "; ".join(f"{c.name}: {c.value}" + (f" [{numbers[c.claim]}]" if c.claim in numbers else "")
                         for c in verdict.compared)
        return f"**{verdict.answer.capitalize()}**, as far as the wiki says: the {prop} of each: {said}."
    if verdict.answer == "yes":
        cited = ", ".join(f"{c.name} [{numbers[c.claim]}]" if c.claim in numbers else c.name for c in verdict.compared)
        return f"**Yes**, as far as the wiki says: a claim about each holds \"{prop}\": {cited}."
    missing = ", ".join(c.name for c in verdict.compared if not c.claim)
    return f"**No**, as far as the wiki says: no claim about {missing} holds \"{prop}\"."


@dataclass
class QueryResult:
    """What `kg query` returns: the answer, the navigation behind it, and the page it was filed to.
    `as_dict` is its one JSON shape (`kg query --json`, the MCP `kg_query` tool, `kg serve`)."""

    answer: Answer
    navigation: NavigationResult
    saved_page: str | None = None
    form: str = "page"  # page | table | chart | canvas | slides (exporters/forms.py)
    body: str = ""  # the page body of a form other than page: its markdown and the data its file is drawn from
    fallback: str = ""  # the form asked for that the claims could not fill ("" when given)

    def page_body(self) -> str:
        """What a saved answer's page holds."""
        return self.body or self.answer.markdown()

    def as_dict(self) -> dict[str, Any]:
        return {**self.answer.as_dict(), "form": self.form, "form_not_filled": self.fallback or None,
                "saved_page": f"answers/{self.saved_page}" if self.saved_page else None,
                "navigation": self.navigation.as_dict()}


# the LLM path ---------------------------------------------------------------------------------

ANSWER_MAX_TOKENS = 2048  # a few sentences and a list of ids; lowered by a smaller [llm] max_tokens


class AnswerFailed(LlmCallFailed):
    """The LLM could not answer after all retries (the CLI prints the message, no traceback)."""


def answer_prompt(nav: NavigationResult) -> RenderedPrompt:
    """prompts/answer_v1.md.j2 with the question and the claims read, each with its id."""
    from kg.llm.prompts import get_prompt

    claims = [{"id": c.id, "about": c.subject_name, "text": _inline(c.text)} for c in nav.claims]
    return get_prompt("answer").render_with(question=nav.question, claims=claims)


def make_answer_client(config: Config, provider: str, env: Mapping[str, str] | None = None,
                       ledger: Ledger | None = None) -> tuple[LlmClient, str]:
    """The LLM client of `provider` (the same one extraction and the judges use), and its model."""
    from kg.llm.backends import make_client

    client = make_client(config.llm, provider, env, ledger)
    return client, client.model


def llm_answer(nav: NavigationResult, client: LlmClient, model: str = "", provider: str = "",
               max_retries: int | None = None, max_tokens: int = ANSWER_MAX_TOKENS) -> Answer:
    """Synthesise through `client`: `ask` with the `answer` prompt, inside `call` (the SDK retries transient
    failures, tokens in the ledger, a final failure raises `AnswerFailed`). Cited ids are
    validated against the claims given (`max_retries` validation re-asks; default [llm]
    validation_retries). `model` and `provider`, when given, must be the client's own."""
    from kg.llm.client import Advice
    from kg.llm.ledger import Usage
    from kg.models import SynthesisedAnswer

    advice = Advice(busy="run the query again later, or use --offline for an extractive answer",
                    other="run the query again, or use --offline for an extractive answer")
    if (model and model != client.model) or (provider and provider != client.name):
        raise ValueError(f"llm_answer: {provider}:{model} is not the client's {client.label}")
    if not nav.claims:
        return extractive_answer(nav)
    asker = client.using(validation_retries=max_retries, max_tokens=min(max_tokens, client.config.max_tokens))
    prompt = answer_prompt(nav)
    context = {"claim_ids": [c.id for c in nav.claims]}
    spent = Usage()

    def request() -> tuple[SynthesisedAnswer, Usage]:
        reply, usage = asker.ask(prompt, SynthesisedAnswer, context)
        spent.add(usage)
        return reply, usage

    try:
        result = asker.call(request, "The LLM answer", AnswerFailed, advice)
    except AnswerFailed as exc:
        if exc.reason == "error":
            raise  # the server failed, refused or could not be reached: the clear error stands
        return unusable_reply_answer(nav, client.label, exc, spent)
    by_id = {c.id: c for c in nav.claims}
    cited = [by_id[i] for i in result.claim_ids]
    for i in re.findall(r"\[(c[0-9a-f]{6,})\]", result.answer):  # cited inline but not listed
        if i in by_id and by_id[i] not in cited:
            cited.append(by_id[i])
    numbers = {c.id: n for n, c in enumerate(cited, 1)}
    text = re.sub(r"\[(c[0-9a-f]{6,})\]", lambda m: f"[{numbers[m.group(1)]}]" if m.group(1) in numbers else "", result.answer)
    counts = {k: v for k, v in asdict(spent).items() if v and k != "requests"}
    return Answer(nav.question, "llm", text, cited, nav.tokens_read, model=client.model, usage=counts)


def unusable_reply_answer(nav: NavigationResult, label: str, failure: AnswerFailed, spent: Usage) -> Answer:
    """The extractive answer, when the model answered but never in the reply's form (prose instead
    of the reply model, a reply cut off at its limit) after the re-asks: the claims found are still
    worth showing, and the page says why nothing was synthesised."""
    answer = extractive_answer(nav)
    why = "cut off at its token limit" if failure.reason == "cut_off" else "not in the form asked for"
    answer.head = (f"Extractive answer: the model ({label}) replied, but its reply was {why} after the re-asks. "
                   "These are the wiki's own claims most relevant to the question, grouped by what they are about. "
                   "Nothing here is synthesised.")
    answer.fallback = str(failure).splitlines()[0]
    answer.usage = {k: v for k, v in asdict(spent).items() if v and k != "requests"}
    return answer


# filing back ----------------------------------------------------------------------------------


def page_id(question: str) -> str:
    """The same question always files to the same page (a newer answer replaces it)."""
    return slugify(question, max_length=60)


def save_answer(store: Store, answer: Answer, body: str | None = None) -> str:
    pid = page_id(answer.question)
    body = body or answer.markdown()
    now = now_iso()
    batch = WriteBatch()
    replace_page(batch, pid)
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
