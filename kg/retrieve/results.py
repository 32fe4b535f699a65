"""What navigation returns: the claims read with their citations, the pages and sources ranked, what
was read, and the strategies' evidence. `NavigationResult.as_dict` is its one JSON shape (`kg query
--json`, the MCP `kg_query` tool and `kg serve` print it inside kg/retrieve/answer.py's `QueryResult`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kg.names import in_context
from kg.retrieve.strategies.base import Verdict

COUNTING = "ceil(characters / 4) of every text the navigator read"


@dataclass
class Citation:
    source_path: str
    source_slug: str
    source_title: str
    char_start: int
    char_end: int
    quote: str

    @property
    def link(self) -> str:
        return f"[[sources/{self.source_slug}|{label(self.source_title)}]]"


@dataclass
class ClaimRef:
    id: str
    text: str
    confidence: float
    subject: str | None
    subject_name: str
    score: float
    citations: list[Citation] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    answers: bool = False  # states what the question asks (its words, and a value of the kind asked for)
    claim_type: str = ""

    @property
    def in_context(self) -> str:
        """The text with its subject's name, when the sentence does not name it (kg.names.in_context)."""
        return in_context(self.text, self.subject_name)

    def link(self) -> str:
        """The claim's block in its first source page (Obsidian block reference)."""
        if not self.citations:
            return f"[[entities/{self.subject}|{label(self.subject_name)}]]" if self.subject else ""
        c = self.citations[0]
        return f"[[sources/{c.source_slug}#^{self.id}|{label(c.source_title)}]]"


@dataclass
class Read:
    kind: str  # index | hit | claim | span
    ref: str
    tokens: int
    source: str = ""  # the source path the text came from (hits of chunks, claims, spans)


@dataclass
class Found:
    """Why a claim was read (`kg query --explain`): its final score and each way it was found."""

    claim: str
    score: float
    ways: list[str]  # "search hit 2 (bm25)", "entity page eniac (1.00)", "source 1: raw/eniac.md", ...

    def as_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "score": round(self.score, 4), "found_by": self.ways}


@dataclass
class NavigationResult:
    question: str
    budget: int
    pages: list[str]  # wiki pages chosen, best first (entities/x, sources/y, answers/z)
    source_paths: list[str]  # sources (paths under raw/), best first
    claims: list[ClaimRef]  # claims read, most relevant first
    tokens_read: int
    reads: list[Read] = field(default_factory=list)
    entity_names: dict[str, str] = field(default_factory=dict)
    counting: str = COUNTING
    answer_kind: str = ""  # the kind of value asked for: definition, quantity, date, person, place, or "" (anything)
    shape: str = "open"  # the question's shape: definition, both, same, bridge, open (kg/retrieve/question.py)
    search_mode: str = ""  # bm25 | vector | hybrid
    contradictions: list[tuple[str, str, float]] = field(default_factory=list)  # among the claims read
    judged: bool = True  # whether claims could be told to answer or not (a question with words or a kind)
    verdict: Verdict | None = None  # a yes/no question's answer, as far as the claims say
    linked: dict[str, float] = field(default_factory=dict)  # entities the question names -> link weight
    found: list[Found] = field(default_factory=list)  # why each claim read was read, in reading order

    @property
    def sources_read(self) -> list[str]:
        """Sources some read text came from, in reading order."""
        return list(dict.fromkeys(r.source for r in self.reads if r.source))

    def as_dict(self) -> dict[str, Any]:
        """The navigation as JSON: what was asked and read, and what was found (the claims themselves
        are the answer's citations, see QueryResult)."""
        return {"question": self.question, "shape": self.shape, "answer_kind": self.answer_kind,
                "search_mode": self.search_mode, "budget": self.budget, "tokens_read": self.tokens_read,
                "counting": self.counting, "pages": self.pages, "source_paths": self.source_paths,
                "verdict": self.verdict.as_dict() if self.verdict else None,
                "contradictions": [list(c) for c in self.contradictions],
                "linked": [{"entity": e, "weight": round(w, 4)} for e, w in self.linked_order()],
                "explain": [f.as_dict() for f in self.found]}

    def linked_order(self) -> list[tuple[str, float]]:
        """The entities the question names, the most strongly linked first."""
        return sorted(self.linked.items(), key=lambda item: (-item[1], item[0]))

    def trace(self) -> dict[str, Any]:
        """Everything, reads and claims included (for comparing two runs)."""
        return asdict(self)


def label(value: object) -> str:
    """Text safe inside an Obsidian link's label."""
    text = " ".join(str(value or "").split())
    return text.replace("|", "¦").replace("[", "(").replace("]", ")")
