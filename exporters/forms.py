"""Answers in the forms the wiki pattern names (`kg query --form`): a page, a comparison table, a
chart, a canvas or a slide deck, each built from the graph's claims and citing them.

- table: the entities the question names as columns, the attributes their claims share as rows
  (a predicate or a unit two of them share, then one row per kind of claim), each cell's claims
  numbered into the citations; an empty cell stays visible as a dash.
- chart: the numeric claims about those entities (values with one unit, or dates as years) that
  the question asks about, drawn by matplotlib (exporters/chart.py), the plotted values and their
  citations as a table beneath.
- canvas: JSON Canvas 1.0 of the claims the answer cites (exporters/canvas.py).
- slides: the answer page as a Marp deck (the deck `kg export slides` writes).

A form's data is kept in its page body as a comment (`<!-- kg-form ... -->`), so a render
rebuilds the chart or canvas from the page alone, byte for byte (exporters/answers.py).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from exporters import canvas as canvas_doc
from exporters.pages import ClaimView, WikiGraph, load_subgraph
from kg.graph.store import Store
from kg.retrieve.answer import Answer, QueryResult, page_id
from kg.retrieve.results import Citation, ClaimRef, NavigationResult

PER_CELL = 3  # claims shown in one table cell; the entity page lists the rest
MAX_COLUMNS = 6
MAX_POINTS = 24
_SPEC = re.compile(r"\n<!-- kg-form (\w+) (.*?) -->\s*\Z", re.DOTALL)
_TIME_WORDS = re.compile(r"\b(?:over time|by year|per year|each year|timeline|trend|history of|since|between \d{4})\b", re.I)
_ROWS_BY_TYPE = [("definition", "What it is"), ("date", "Dates"), ("quantity", "Amounts"), ("relation", "Relations"),
                 ("comparison", "Comparisons"), ("causal", "Causes and effects"), ("opinion", "Opinions"),
                 ("fact", "Other statements")]
_LABEL_CHARS = 90


NOTES = {
    "table": "A comparison built from the wiki's claims: one column per entity, one row per attribute their claims "
             "share; a dash is a gap the wiki does not fill.",
    "chart": "The numeric claims the question asks about, drawn from the wiki; the values and their citations are "
             "in the table below.",
    "canvas": "The claims this answer cites, drawn as a canvas.",
}


def shape(store: Store, result: QueryResult, form: str) -> QueryResult:
    """The query's answer in `form` (or the form `auto` picks). A form the claims cannot fill (a
    table with fewer than two entities, a chart with no numbers) falls back to the page, and says so."""
    nav, answer = result.navigation, result.answer
    if form == "slides":
        return QueryResult(answer, nav, result.saved_page, form="slides", body=Shaped("slides", answer).body())
    cited = {e for c in answer.claims for e in (c.subject, *c.entities) if e}
    slugs = {s.source_slug for c in answer.claims for s in c.citations}
    graph = load_subgraph(store, set(nav.linked) | cited, slugs)
    named = named_entities(graph, nav)
    wanted = pick_form(nav.answer_kind, len(named), nav.question) if form == "auto" else form
    if wanted == "page" or (not answer.claims and wanted != "table"):
        return QueryResult(answer, nav, result.saved_page, form="page", fallback=wanted if wanted != "page" else "")
    columns = columns_of(graph, named, answer)
    if wanted == "table":
        shaped = table(graph, columns, answer, NOTES["table"])
    elif wanted == "chart":
        shaped = chart(graph, columns, answer, _words(nav.question), nav.answer_kind, NOTES["chart"])
    else:
        shaped = answer_canvas(graph, answer, NOTES["canvas"])
    fallback = wanted if shaped.form != wanted else ""
    return QueryResult(shaped.answer, nav, result.saved_page, form=shaped.form, body=shaped.body(), fallback=fallback)


def pick_form(kind: str, named: int, question: str) -> str:
    """`--form auto`: a quantity or date over several named entities or over time is a chart; two
    or more named entities a table; anything else a page."""
    if kind in ("quantity", "date") and (named >= 2 or _TIME_WORDS.search(question)):
        return "chart"
    return "table" if named >= 2 else "page"


def named_entities(graph: WikiGraph, nav: NavigationResult) -> list[str]:
    """The entities the question names, in the order it names them: proper names only (a concept
    the question's words link to, "film", is none), and not a name inside another named one
    ("Manchester" in "Manchester Baby")."""
    lower = not any(c.isupper() for c in nav.question[1:])  # typed all in lower case: names are not capitalised
    named = [e for e, _ in nav.linked_order()
             if e in graph.entities and _proper(graph.entities[e], nav.question, lower)]
    words = {e: _name_words(graph.entities[e]) for e in named}
    named = [e for e in named if not any(o != e and words[e] < words[o] for o in named)]
    question = nav.question.casefold()
    return sorted(named, key=lambda e: (_position(question, graph.entities[e]), e))


def columns_of(graph: WikiGraph, named: list[str], answer: Answer) -> list[str]:
    """The table's or chart's entities: those the question names, else the subjects the answer cites most."""
    if len(named) >= 2:
        return named[:MAX_COLUMNS]
    counts = Counter(c.subject for c in answer.claims if c.subject and c.subject in graph.entities)
    cited = sorted(counts, key=lambda e: (-counts[e], e))
    return list(dict.fromkeys([*named, *cited]))[:MAX_COLUMNS]


def _proper(entity: dict[str, Any], question: str, lower: bool) -> bool:
    """A proper name the question writes as such: capitalised, and spelt with its capitals in the
    question ("magazines" does not name the entity "Magazines")."""
    names = [n for n in (entity["name"], *(entity.get("aliases") or [])) if n and not n[0].islower()]
    if lower:
        return any(n.casefold() in question.casefold() for n in names)
    return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", question) for n in names)


def _name_words(entity: dict[str, Any]) -> frozenset[str]:
    return frozenset(w.casefold() for w in re.findall(r"\w+", entity["name"]))


def _position(question: str, entity: dict[str, Any]) -> int:
    """Where the question first names the entity (by name or alias); past its end when nowhere."""
    found = [question.find(n.casefold()) for n in (entity["name"], *(entity.get("aliases") or []))]
    return min((i for i in found if i >= 0), default=len(question))


@dataclass
class Shaped:
    """An answer in a form: its markdown (the page body) and the claims it cites, in citation order."""

    form: str
    answer: Answer
    spec: dict[str, Any] = field(default_factory=dict)  # what rebuilds the chart or canvas

    def body(self) -> str:
        """The page body: the answer's markdown, with the form's data as a trailing comment."""
        text = self.answer.markdown()
        if self.form != "page":
            data = json.dumps(self.spec, sort_keys=True, ensure_ascii=False).replace("--", "-\\u002d")  # no "-->" inside
            text += f"\n<!-- kg-form {self.form} {data} -->\n"
        return text


def form_spec(body: str) -> tuple[str, dict[str, Any]] | None:
    """(form, data) kept in a saved page body, or None for a plain page."""
    match = _SPEC.search(body or "")
    if not match:
        return None
    try:
        return match.group(1), json.loads(match.group(2))
    except json.JSONDecodeError:
        return None


class Numbers:
    """Citation numbers, given in order of first use."""

    def __init__(self) -> None:
        self.order: list[str] = []

    def __call__(self, claim_id: str) -> int:
        if claim_id not in self.order:
            self.order.append(claim_id)
        return self.order.index(claim_id) + 1


def table(graph: WikiGraph, entities: list[str], answer: Answer, note: str) -> Shaped:
    entities = [e for e in entities if e in graph.entities]
    if len(entities) < 2:
        return Shaped("page", answer)
    claims = {e: [graph.claims[c] for c in graph.claims_of_entity.get(e, [])
                  if c in graph.claims and graph.claims[c].subject == e] for e in entities}
    numbers = Numbers()
    rows: list[tuple[str, list[list[ClaimView]]]] = []
    used: set[str] = set()
    for label, pick in _shared_rows(claims, entities):
        cells = [[c for c in claims[e] if pick(c) and c.id not in used][:PER_CELL] for e in entities]
        if sum(1 for cell in cells if cell) >= 2:
            rows.append((label, cells))
            used |= {c.id for cell in cells for c in cell}
    for claim_type, label in _ROWS_BY_TYPE:
        cells = [[c for c in claims[e] if c.claim_type == claim_type and c.id not in used][:PER_CELL] for e in entities]
        if any(cells):
            rows.append((label, cells))
    names = [_cell_text(graph.entities[e]["name"]) for e in entities]
    lines = ["| | " + " | ".join(f"[[entities/{e}\\|{n}]]" for e, n in zip(entities, names, strict=True)) + " |",
             "|---" * (len(entities) + 1) + "|"]
    for label, cells in rows:
        shown = [" <br> ".join(f"{_cell_text(_gist(c))} [{numbers(c.id)}]" for c in cell) or "—" for cell in cells]
        lines.append(f"| **{label}** | " + " | ".join(shown) + " |")
    if not rows:
        return Shaped("page", answer)
    return Shaped("table", _cited(answer, "\n".join(lines) + "\n", graph, numbers.order, note))


# What a question's words ask to measure, as the units kg normalises amounts to (kg/extract/vocab.py)
DIMENSIONS = [
    ({"heavy", "heavier", "weigh", "weighed", "weight", "mass"}, {"t", "kg", "g", "mg", "lb"}),
    ({"tall", "taller", "high", "higher", "long", "longer", "far", "wide", "deep", "distance", "length", "height"},
     {"km", "m", "cm", "mm", "nm", "µm", "mi", "ft", "in"}),
    ({"big", "bigger", "large", "larger", "area"}, {"sq ft", "m2"}),
    ({"fast", "faster", "speed", "clock", "frequency"}, {"Hz", "kHz", "MHz", "GHz"}),
    ({"power", "powerful", "consume", "consumed"}, {"W", "kW", "MW"}),
    ({"memory", "storage", "store", "hold"}, {"bit", "byte", "KB", "MB", "GB"}),
    ({"cost", "costs", "price", "expensive", "cheap", "paid", "revenue"}, {"USD", "EUR", "GBP"}),
    ({"population", "inhabitants", "populous"}, {"people"}),
]
DATES = "date"  # the group of date claims: plotted as years on a timeline


def chart_points(graph: WikiGraph, entities: list[str], question_words: set[str],
                 kind: str = "") -> tuple[str, list[tuple[str, float, str]]]:
    """(unit, [(label, value, claim id)]): the numeric claims about the entities in the one unit the
    question's words point at (else the unit most of them share); a date question plots dates
    (as years), a quantity question amounts only."""
    groups: dict[str, list[ClaimView]] = defaultdict(list)
    for entity_id in entities:
        for claim_id in graph.claims_of_entity.get(entity_id, []):
            claim = graph.claims.get(claim_id)
            if claim is None or claim.value is None or claim.subject != entity_id or claim.polarity < 0:
                continue
            unit = DATES if claim.claim_type == "date" else (claim.unit or "")
            if unit and (kind != "date" or unit == DATES) and (kind != "quantity" or unit != DATES):
                groups[unit].append(claim)
    if not groups:
        return "", []
    measured = set().union(*(units for words, units in DIMENSIONS if words & question_words))

    def fit(unit: str) -> tuple[bool, int, int, int, str]:
        words = {w for c in groups[unit] for w in _words(f"{c.predicate} {c.text} {unit}")}
        return (unit not in measured, -len(words & question_words), -len({c.subject for c in groups[unit]}),
                -len(groups[unit]), unit)

    unit = min(groups, key=fit)
    points = []
    for claim in sorted(groups[unit], key=lambda c: (entities.index(c.subject or ""), float(c.value or 0), c.id))[:MAX_POINTS]:
        name = graph.entities[claim.subject or ""]["name"]
        verb = claim.predicate.replace("_", " ") if claim.predicate and claim.predicate not in {"states", "has"} else ""
        points.append((f"{name}: {verb}" if verb else name, float(claim.value or 0), claim.id))
    return ("year" if unit == DATES else unit), points


def chart(graph: WikiGraph, entities: list[str], answer: Answer, question_words: set[str], kind: str,
          note: str) -> Shaped:
    unit, points = chart_points(graph, entities, question_words, kind)
    if not points:
        return Shaped("page", answer)
    numbers = Numbers()
    lines = ["| | value | unit | claim |", "|---|---|---|---|"]
    for label, value, claim_id in points:
        lines.append(f"| {_cell_text(label)} | {value:.12g} | {unit} | [{numbers(claim_id)}] |")
    spec = {"title": answer.question, "unit": unit, "points": [[label, value] for label, value, _ in points]}
    text = f"![[answers/{page_id(answer.question)}.png]]\n\n" + "\n".join(lines) + "\n"
    return Shaped("chart", _cited(answer, text, graph, numbers.order, note), spec)


def answer_canvas(graph: WikiGraph, answer: Answer, note: str) -> Shaped:
    cited = [graph.claims[c.id] for c in answer.claims if c.id in graph.claims]
    if not cited:
        return Shaped("page", answer)
    subjects = list(dict.fromkeys(c.subject for c in cited if c.subject and c.subject in graph.entities))
    others = sorted({e for c in cited for e, _ in c.entities if e in graph.entities} - set(subjects))
    document = canvas_doc.claims_canvas(graph, answer.question, subjects, others, cited)
    text = f"Open [[answers/{page_id(answer.question)}.canvas]] in Obsidian to see them as a canvas.\n\n{answer.text}"
    return Shaped("canvas", _cited(answer, text, graph, [c.id for c in cited], note), {"canvas": document})


def _shared_rows(claims: dict[str, list[ClaimView]], entities: list[str]) -> list[tuple[str, Any]]:
    """Rows for a predicate or a unit that two or more of the entities' claims share."""
    predicates: dict[str, set[str]] = defaultdict(set)
    units: dict[str, set[str]] = defaultdict(set)
    for entity_id in entities:
        for claim in claims[entity_id]:
            if claim.predicate and claim.predicate not in {"states", "is_a", "because", "has"}:
                predicates[claim.predicate].add(entity_id)
            if claim.claim_type == "quantity" and claim.unit:
                units[claim.unit].add(entity_id)
    rows: list[tuple[str, Any]] = []
    for predicate in sorted(p for p, seen in predicates.items() if len(seen) >= 2):
        rows.append((predicate.replace("_", " ").capitalize(), lambda c, p=predicate: c.predicate == p))
    for unit in sorted(u for u, seen in units.items() if len(seen) >= 2):
        rows.append((f"Amounts in {unit}", lambda c, u=unit: c.claim_type == "quantity" and c.unit == u))
    return rows


def _gist(claim: ClaimView) -> str:
    """What a cell shows of a claim: a date or amount with its verb, else the claim's text, cut."""
    verb = claim.predicate.replace("_", " ") if claim.predicate not in {"", "states", "has", "is_a"} else ""
    denied = "not " if claim.polarity < 0 else ""  # "ENIAC was not the first ...": never shown as "first ..."
    if claim.claim_type == "date" and claim.object:
        return f"{denied}{verb}: {claim.object}" if verb else f"{denied}{claim.object}"
    if claim.claim_type == "definition" and claim.object:
        return f"{denied}{claim.object}"
    text = " ".join(claim.text.split())
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1].rstrip() + "…"


def _cell_text(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|").replace("[[", "\\[\\[").replace("<", "&lt;")


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W\d_]{3,}", text)}


def _cited(answer: Answer, text: str, graph: WikiGraph, claim_ids: list[str], note: str) -> Answer:
    known = {c.id: c for c in answer.claims}
    refs = [known.get(c) or claim_ref(graph, graph.claims[c]) for c in claim_ids if c in known or c in graph.claims]
    return Answer(answer.question, answer.mode, text, refs, answer.tokens_read, answer.model, dict(answer.usage), head=note)


def claim_ref(graph: WikiGraph, claim: ClaimView) -> ClaimRef:
    """A graph claim as an answer cites it."""
    subject = claim.subject or ""
    citations = [Citation(e.source_path, e.source_slug, e.source_title, e.char_start, e.char_end, e.quote)
                 for e in claim.evidence if not e.retracted]
    return ClaimRef(claim.id, claim.text, claim.confidence, claim.subject,
                    graph.entities.get(subject, {}).get("name", subject), 0.0, citations,
                    sorted({e for e, _ in claim.entities}), claim_type=claim.claim_type)
