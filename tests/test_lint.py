"""Lint: findings with severity, subject and fix; exit codes; safe --fix; insights/ never written."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kg import api
from kg.cli import app
from kg.kb import KnowledgeBase
from tests.conftest import tree_digest


def checks(report: object) -> set[str]:
    return {f.check for f in report.findings}  # type: ignore[attr-defined]


def test_clean_example_has_no_errors_but_reports_warnings(compiled: KnowledgeBase) -> None:
    report = api.lint_kb(compiled)
    assert report.errors == 0
    assert {"contradiction", "gap"} <= checks(report)
    for finding in report.findings:
        assert finding.severity in ("error", "warning", "info") and finding.subject and finding.fix
    contradiction = next(f for f in report.findings if f.check == "contradiction")
    assert contradiction.subject.startswith("claim ") and "authority" in contradiction.fix


def test_stale_and_edited_wiki_are_errors_and_fix_repairs_them(fresh: KnowledgeBase) -> None:
    insight = fresh.insights / "mine.md"
    insight.write_text("See [[ENIAC]] and [[entities/eniac]] and [[Nonexistent Machine]].\n")
    (fresh.raw / "eniac.md").write_text((fresh.raw / "eniac.md").read_text() + "\nENIAC was restored in 1997.\n")
    (fresh.raw / "colossus.md").unlink()
    page = fresh.wiki / "entities" / "edvac.md"
    page.write_text(page.read_text() + "\nhand edit [[entities/no-such-page]]\n")
    raw_before, insights_before = tree_digest(fresh.raw), tree_digest(fresh.insights)

    report = api.lint_kb(fresh)
    stale = {f.subject for f in report.findings if f.check == "stale"}
    assert stale == {"raw/eniac.md", "raw/colossus.md"}
    assert any(f.check == "wiki-outdated" and f.subject == "wiki/entities/edvac.md" for f in report.findings)
    broken = [f for f in report.findings if f.check == "broken-link"]
    assert any(f.subject == "wiki/entities/edvac.md" and f.severity == "error" for f in broken)
    insight_links = [f for f in broken if f.subject == "insights/mine.md"]
    assert len(insight_links) == 1 and "Nonexistent Machine" in insight_links[0].message
    assert not insight_links[0].fixable and insight_links[0].severity == "warning"
    assert report.errors > 0

    fixed = api.lint_kb(fresh, fix=True)
    assert fixed.fixed and any("recompiled" in line for line in fixed.fixed)
    assert fixed.errors == 0, [f for f in fixed.findings if f.severity == "error"]
    assert "hand edit" not in page.read_text()
    assert tree_digest(fresh.raw) == raw_before and tree_digest(fresh.insights) == insights_before


def test_duplicates_missing_pages_and_weak_claims(kb: KnowledgeBase) -> None:
    (kb.raw / "a.md").write_text("# Difference Engine\n\nThe Difference Engine was designed by Charles Babbage.\n"
                                 "The Difference Engines might possibly have been rather slow.\n")
    (kb.raw / "b.md").write_text("# DifferenceEngine\n\nThe DifferenceEngine was a mechanical calculator.\n")
    api.compile_kb(kb, "heuristic")
    report = api.lint_kb(kb)
    dup = [f for f in report.findings if f.check == "duplicate"]
    assert dup and "kg entity merge" in dup[0].fix
    assert any(f.check == "weak-claim" and "one source" in f.message for f in report.findings)


def test_cli_lint_exit_codes_and_json(fresh: KnowledgeBase) -> None:
    runner = CliRunner()
    clean = runner.invoke(app, ["lint", "--kb", str(fresh.root), "--json"])
    assert clean.exit_code == 0, clean.output
    data = json.loads(clean.stdout)
    assert data["errors"] == 0 and data["counts"]["gap"] >= 1
    (fresh.wiki / "index.md").write_text("tampered\n")
    dirty = runner.invoke(app, ["lint", "--kb", str(fresh.root)])
    assert dirty.exit_code == 1 and "wiki-outdated" in dirty.stdout and "fix:" in dirty.stdout
    repaired = runner.invoke(app, ["lint", "--kb", str(fresh.root), "--fix"])
    assert repaired.exit_code == 0 and "fixed: re-rendered" in repaired.stdout


def test_lint_without_graph_says_what_to_do(kb: KnowledgeBase) -> None:
    result = CliRunner().invoke(app, ["lint", "--kb", str(kb.root)])
    assert result.exit_code == 1 and "kg compile" in result.output
