"""LLM judges: contradictions between claims, and ambiguous entity-resolution cases.

Both ask numbered pairs through the same `LlmClient` the extractor uses (kg/llm/client.py:
the one structured-output path `ask`, the SDKs' retries, the run's ledger), each with its
own versioned prompt in prompts/ (`contradict`, `entity`; see kg/llm/prompts.py):

- batched: up to `batch_size` pairs per request, run `[llm] concurrency` at a time;
- cached: every verdict is stored in the reply cache under hash(prompt name + version,
  provider, model, the pair's texts as sent), so a recompile of unchanged input makes zero
  requests, and a pair seen in another batch is not asked again;
- validated: the reply model rejects pair numbers that were not asked about (and repeats), so
  the client re-asks with the error; a pair left without a verdict counts as "unsure";
- never fatal: a batch that still fails after the retries is logged and its pairs count as
  "unsure", so the compile goes on with the rules' findings.

"unsure" is never recorded: not as a contradiction, not as a merge.

`CombinedJudge` keeps the offline rules' findings and asks the LLM only about the remaining
candidate pairs that share enough content words (`min_similarity`), since most candidates
(same subject, lexical neighbours) are plainly about different things.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from kg.cache import ResponseCache, content_key
from kg.compile.contradict import ClaimRecord, ContradictionJudge, Finding, RuleJudge
from kg.compile.resolve import EntityJudge, EntityRecord, Judgement
from kg.errors import ExtractionError, LlmCallFailed
from kg.llm.client import LlmClient
from kg.llm.prompts import PromptTemplate, get_prompt
from kg.models import ExtractedEntity

log = logging.getLogger(__name__)

BATCH_SIZE = 20


class JudgeFailed(LlmCallFailed, ExtractionError):
    """A batch of pairs could not be judged after all retries (logged; the pairs count as unsure)."""


@dataclass
class PairAsker:
    """Numbered pairs -> one verdict each, through one prompt and one LLM client."""

    client: LlmClient
    prompt: PromptTemplate
    cache: ResponseCache | None = None
    batch_size: int = BATCH_SIZE
    failures: list[str] = field(default_factory=list)  # one line per batch that failed for good
    requests: int = 0  # batches sent (cache misses)
    _memo: dict[str, dict[str, Any]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def key(self, item: dict[str, Any]) -> str:
        return content_key(self.prompt.name, self.prompt.version, self.client.name, self.client.model,
                           json.dumps(item, sort_keys=True, ensure_ascii=False))

    def ask(self, items: Sequence[dict[str, Any]]) -> list[dict[str, Any] | None]:
        """For each item (the pair's fields the template shows), {"verdict", "reason", "confidence"} or None."""
        keys = [self.key(item) for item in items]
        pending: dict[str, dict[str, Any]] = {}
        for key, item in zip(keys, items, strict=True):
            if key in self._memo or key in pending:
                continue
            hit = self.cache.get(key) if self.cache is not None else None
            if hit is not None:
                self._memo[key] = hit
            else:
                pending[key] = item
        todo = list(pending.items())  # in the order asked (deterministic)
        batches = [todo[i : i + self.batch_size] for i in range(0, len(todo), max(1, self.batch_size))]
        workers = min(max(1, self.client.config.concurrency), len(batches))
        if workers <= 1:
            for batch in batches:
                self._run(batch)
        elif batches:
            with ThreadPoolExecutor(workers, thread_name_prefix="kg-judge") as pool:
                list(pool.map(self._run, batches))
        return [self._memo.get(key) for key in keys]

    def _run(self, batch: list[tuple[str, dict[str, Any]]]) -> None:
        numbered = [{"number": n, **item} for n, (_, item) in enumerate(batch, start=1)]
        rendered = self.prompt.render_with(pairs=numbered)
        model = self.prompt.response_model
        context = {"pairs": list(range(1, len(batch) + 1))}
        with self._lock:
            self.requests += 1
        try:
            reply = self.client.call(lambda: self.client.ask(rendered, model, context=context),
                                     f"{self.prompt.name} judge, {len(batch)} pair(s)", JudgeFailed)
        except JudgeFailed as exc:
            log.warning("%s; those pairs count as unsure", exc)
            with self._lock:
                self.failures.append(str(exc))
            return
        by_number = {v.pair: v for v in getattr(reply, "verdicts", [])}
        with self._lock:
            for n, (key, _) in enumerate(batch, start=1):
                verdict = by_number.get(n)
                if verdict is None:
                    continue  # not answered: unsure, and asked again next time
                value = {"verdict": verdict.verdict, "reason": verdict.reason.strip(), "confidence": round(verdict.confidence, 3)}
                self._memo[key] = value
                if self.cache is not None:
                    self.cache.put(key, value)


class LlmContradictionJudge(ContradictionJudge):
    """Asks the LLM about every pair it is given; "contradicts" becomes a Finding (method "llm")."""

    method = "llm"

    def __init__(self, client: LlmClient, cache: ResponseCache | None = None, batch_size: int = BATCH_SIZE,
                 prompt: PromptTemplate | None = None) -> None:
        self.asker = PairAsker(client, prompt or get_prompt("contradict"), cache, batch_size)

    def answers(self, pairs: Sequence[tuple[ClaimRecord, ClaimRecord]]) -> list[dict[str, Any] | None]:
        """The verdict, reason and confidence for each pair (None: no verdict, counted as unsure)."""
        items = [{"a_text": a.text, "a_sources": list(a.sources), "b_text": b.text, "b_sources": list(b.sources)}
                 for a, b in pairs]
        return self.asker.ask(items)

    def judge(self, pairs: Sequence[tuple[ClaimRecord, ClaimRecord]]) -> list[Finding | None]:
        out: list[Finding | None] = []
        for (a, b), answer in zip(pairs, self.answers(pairs), strict=True):
            if answer is not None and answer["verdict"] == "contradicts":
                reason = answer["reason"] or "judged contradictory by the LLM"
                out.append(Finding(a.id, b.id, reason, float(answer["confidence"]), self.method))
            else:
                out.append(None)
        return out


def lexical_similarity(a: ClaimRecord, b: ClaimRecord) -> float:
    """Jaccard overlap of the two claims' content stems."""
    sa, sb = set(a.stems), set(b.stems)
    return len(sa & sb) / len(sa | sb) if sa and sb else 0.0


class CombinedJudge(ContradictionJudge):
    """The LLM confirms every candidate: the rules' findings, and the other candidates similar
    enough to matter. Its verdict decides ("compatible" overrules a rule; its reason is kept with
    the finding); where it has none ("unsure", or a batch that failed for good), the rules decide."""

    method = "rules+llm"

    def __init__(self, llm: LlmContradictionJudge, rules: ContradictionJudge | None = None,
                 min_similarity: float = 0.3) -> None:
        self.llm = llm
        self.rules = rules or RuleJudge()
        self.min_similarity = min_similarity
        self.asked = 0  # pairs passed to the LLM judge (cached or not) by the last call

    def judge(self, pairs: Sequence[tuple[ClaimRecord, ClaimRecord]]) -> list[Finding | None]:
        found = self.rules.judge(pairs)
        ask = [i for i, f in enumerate(found) if f is not None or lexical_similarity(*pairs[i]) >= self.min_similarity]
        self.asked = len(ask)
        for i, answer in zip(ask, self.llm.answers([pairs[i] for i in ask]) if ask else [], strict=True):
            if answer is None or answer["verdict"] == "unsure":
                continue  # no verdict: the rules' finding (or none) stands
            rule = found[i]
            if answer["verdict"] != "contradicts":
                found[i] = None
                continue
            a, b = pairs[i]
            reason = answer["reason"] or "judged contradictory by the LLM"
            found[i] = Finding(a.id, b.id, f"{rule.reason}; confirmed: {reason}" if rule else reason,
                               float(answer["confidence"]), self.method if rule else self.llm.method)
        return found


class LlmEntityJudge(EntityJudge):
    """Same thing or not, for ambiguous resolution cases (see kg/compile/groups.py)."""

    def __init__(self, client: LlmClient, cache: ResponseCache | None = None, batch_size: int = BATCH_SIZE,
                 prompt: PromptTemplate | None = None) -> None:
        self.asker = PairAsker(client, prompt or get_prompt("entity"), cache, batch_size)

    def judge(self, pairs: Sequence[tuple[ExtractedEntity, EntityRecord]]) -> list[Judgement | None]:
        items = [{"a_name": a.name, "a_type": a.type, "a_aliases": sorted(a.aliases), "a_description": a.description,
                  "b_name": b.name, "b_type": b.type, "b_aliases": sorted(b.aliases), "b_description": b.summary}
                 for a, b in pairs]
        return [Judgement(answer["verdict"], float(answer["confidence"]), answer["reason"]) if answer else None
                for answer in self.asker.ask(items)]
