"""Cards written by an LLM (`kg cards` when one is configured): better questions than the
offline templates, and the applied kind, which templates cannot write.

One request per entity, through the one LLM client (kg/llm/client.py: re-asks, the SDKs' retries, the
ledger), with the versioned prompt prompts/cards_v1.md.j2 and its reply model
`kg.models.CardDrafts`: cited ids must be among the claims sent (the client re-asks otherwise).
Replies are cached in the reply cache under the prompt version, the model and the request, so
recompiles and repeated `kg cards` make no requests for unchanged entities. A request that fails
for good is reported and that entity keeps its template cards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from exporters.pages import ClaimView
from kg.cache import ResponseCache, content_key
from kg.errors import LlmCallFailed
from kg.llm.client import Advice, LlmClient
from kg.llm.prompts import get_prompt
from kg.models import CardDraft, CardDrafts

CLAIMS_PER_REQUEST = 20  # an entity's strongest claims sent (the cards cite a few)
CARD_ADVICE = Advice(
    busy="run `kg cards` again later (cards written so far are cached)",
    other="run `kg cards` again, or `kg cards --offline` for template cards only",
)


class CardsFailed(LlmCallFailed):
    """The cards of one entity could not be written after all retries (it keeps template cards)."""


@dataclass
class LlmCardWriter:
    client: LlmClient
    cache: ResponseCache | None = None
    failures: list[str] = field(default_factory=list)
    requests: int = 0

    @property
    def label(self) -> str:
        return get_prompt("cards").version

    def drafts(self, name: str, entity_type: str, claims: list[ClaimView]) -> list[CardDraft]:
        prompt = get_prompt("cards")
        shown = claims[:CLAIMS_PER_REQUEST]
        rendered = prompt.render_with(entity=name, entity_type=entity_type or "thing", claims=[
            {"id": c.id, "type": c.claim_type, "text": " ".join(c.text.split())} for c in shown])
        context = {"claim_ids": [c.id for c in shown]}
        key = content_key("cards", prompt.version, self.client.label, rendered.system, rendered.user)
        cached = self.cache.get(key) if self.cache is not None else None
        if cached is not None:
            return CardDrafts.model_validate(cached, context=context).cards
        try:
            reply = self.client.call(lambda: self.client.ask(rendered, CardDrafts, context),
                                     f"Cards for {name}", CardsFailed, CARD_ADVICE)
        except LlmCallFailed as exc:
            self.failures.append(str(exc))
            return []
        self.requests += 1
        if self.cache is not None:
            self.cache.put(key, reply.model_dump(mode="json"))
        return reply.cards
