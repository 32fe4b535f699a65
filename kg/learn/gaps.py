"""learning/gaps.md: what to read next, ranked: entities many sources mention without a page,
questions the wiki answers thinly, claims resting on one weak source, stale sources, open
contradictions and saved answers with thin support. Built from kg lint's checks."""

from __future__ import annotations

import re

from exporters.pages import WikiGraph
from kg.kb import KnowledgeBase
from kg.maintain.lint import (
    LintFinding,
    LintReport,
    check_contradictions,
    check_freshness,
    check_gaps,
    check_missing_pages,
    check_single_low_confidence,
)

GAPS_MD = "gaps.md"
THIN_ANSWER_CITATIONS = 2
_SOURCE_LINK = re.compile(r"\[\[sources/[^\]|#]+")
# order of the sections: what most needs a new source first
SECTIONS = [("missing-page", "Mentioned often, no page yet"), ("gap", "Questions the wiki answers thinly"),
            ("thin-answer", "Saved answers with thin support"), ("contradiction", "Open contradictions"),
            ("weak-claim", "Claims resting on one weak source"), ("freshness", "Sources past their freshness limit")]
PER_SECTION = 50


def gap_findings(kb: KnowledgeBase, g: WikiGraph) -> list[LintFinding]:
    report = LintReport()
    check_missing_pages(g, report)
    check_gaps(g, report)
    check_contradictions(g, report)
    check_single_low_confidence(g, report)
    check_freshness(kb, g, report)
    for page in sorted((p for p in g.pages if p.get("kind") == "answer"), key=lambda p: p["id"]):
        cited = len(set(_SOURCE_LINK.findall(page.get("body") or "")))
        if cited < THIN_ANSWER_CITATIONS:
            report.add(LintFinding("thin-answer", "info", f"answers/{page['id']}",
                                   f"“{page['title']}” cites {cited} source(s)",
                                   "add sources on it to raw/, `kg compile`, then ask again with `kg query --save`"))
    return report.findings


def gaps_markdown(findings: list[LintFinding]) -> str:
    lines = ["---", "type: gaps", f"gaps: {len(findings)}", "---", "# What to read next", "",
             "Ranked: sections in order of what most needs a new source; within a section, as `kg lint` orders them.", ""]
    for check, title in SECTIONS:
        rows = [f for f in findings if f.check == check]
        if not rows:
            continue
        lines += [f"## {title} ({len(rows)})", ""]
        lines += [f"- {f.subject}: {' '.join(f.message.split())} — {f.fix}" for f in rows[:PER_SECTION]]
        if len(rows) > PER_SECTION:
            lines.append(f"- … {len(rows) - PER_SECTION} more: `kg lint --json`")
        lines.append("")
    if len(lines) == 8:
        lines += ["Nothing stands out: no gaps found.", ""]
    return "\n".join(lines)
