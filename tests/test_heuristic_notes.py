"""The offline extractor on the text people compile (issue 46): meeting notes, journals, changelogs,
gists, paper and reading-group notes, recipes. One row per case seen wrong on such notes: a wrong
subject, a garbled name or a missing claim."""

from __future__ import annotations

import pytest

from kg.compile.chunk import chunk_text
from kg.extract import ExtractionContext
from kg.extract.heuristic import HeuristicExtractor
from kg.models import ExtractionResult
from kg.names import name_key


def extract(text: str) -> ExtractionResult:
    results = HeuristicExtractor().extract(chunk_text("n.md", text), ExtractionContext("n.md", "n"))
    return ExtractionResult(entities=[e for r in results for e in r.entities], claims=[c for r in results for c in r.claims])


def subjects(result: ExtractionResult) -> dict[str, str]:
    """Each claim's sentence -> its subject."""
    return {c.text: c.subject for c in result.claims}


def names(result: ExtractionResult) -> set[str]:
    return {e.name for e in result.entities} | {a for e in result.entities for a in e.aliases}


# (text, {sentence: its subject, or None for no claim})
SUBJECTS: dict[str, tuple[str, dict[str, str | None]]] = {
    # a participle adjective opens a subject whose verb is no common one
    "participle_subject": ("Fixed costs dominate the budget.\n", {"Fixed costs dominate the budget.": "Fixed costs"}),
    "participle_subject_before_a_name": ("Fixed schemas are not required unless a table is declared STRICT.\n",
                                         {"Fixed schemas are not required unless a table is declared STRICT.": "Fixed schemas"}),
    # a clause on the subject's head, then the sentence's own verb
    "clause_on_the_head": ("The tool I keep using works well.\n",
                           {"The tool I keep using works well.": "tool I keep using"}),
    # a changelog's lines are no claims about the word "Changelog"
    "changelog_lines": ("# Changelog\n\n## 2.3.0\n- Fixed a crash when the config file is empty.\n"
                        "- The CLI now respects NO_COLOR.\n",
                        {"Fixed a crash when the config file is empty.": None, "The CLI now respects NO_COLOR.": "CLI"}),
    # a note's line with no name of its own is not about the last line's person
    "meeting_lines": ("# Platform sync, 4 March\n\nAttendees: Priya Raman, Hannah Becker\n\n## Notes\n"
                      "Hannah asked whether Grafana alerts fired; they did not.\n"
                      "Stripe webhooks failed for about 40 minutes because a certificate expired.\n",
                      {"Stripe webhooks failed for about 40 minutes because a certificate expired.": "Stripe webhooks"}),
    # a heading with no blank line after it is no part of the sentence that follows
    "heading_run_into_text": ("Attendees: Priya Raman, Wei Zhang\n\n## Notes\nPriya said the Postgres upgrade went "
                              "smoothly.\n", {"Priya said the Postgres upgrade went smoothly.": "Priya Raman"}),
    # a section heading that labels what it holds is no subject of its lines
    "section_label": ("# Shakshuka\n\nShakshuka is a dish of eggs.\n\n## Ingredients\n- 1 tin of chopped tomatoes\n",
                      {"1 tin of chopped tomatoes": "Shakshuka"}),
    "title_label": ("# Release notes\n\n- Removed the legacy sync engine.\n- New: dark mode for every page.\n",
                    {"Removed the legacy sync engine.": None, "New: dark mode for every page.": None}),
    # a term before its gloss is the subject, unlike a label of English words
    "term_gloss": ("- bfloat16: an alternative to the standard float16 format\n",
                   {"bfloat16: an alternative to the standard float16 format": "bfloat16"}),
    # an opening adverb is no subject, where no note's topic is at hand either
    "opening_adverb": ("Alternatively, the tool can be used directly with the Perl Module TM.\n",
                       {"Alternatively, the tool can be used directly with the Perl Module TM.": "Perl Module TM"}),
    # a given name that is also a word of English, before "says"
    "given_name_says": ("Anna says the version at Honey & Co in London uses preserved lemon.\n",
                        {"Anna says the version at Honey & Co in London uses preserved lemon.": "Anna"}),
    # a name after the verb is no subject where the sentence has one of its own
    "name_after_the_verb": ("# Why SQLite is the most deployed database\n\nThe source code is hosted on GitHub at last.\n",
                            {"The source code is hosted on GitHub at last.": "source code"}),
    # a fronted comparison names other things than the subject
    "fronted_comparison": ("Unlike PostgreSQL or MySQL, SQLite does not run as a separate server process.\n",
                           {"Unlike PostgreSQL or MySQL, SQLite does not run as a separate server process.": "SQLite"}),
    # a dated note's title is no topic of its nameless lines
    "dated_title": ("# Standup, 12 May\n\nAttendees: Lukas Meier, Sofia Rossi\n\nThe new release broke 300 checkouts "
                    "after lunch.\n", {"The new release broke 300 checkouts after lunch.": "new release"}),
    # what the writer did names what the line is about, not the note's title
    "by_the_writer": ('# Reading group: Thinking, Fast and Slow\n\nDaniel Kahneman describes two systems.\n\n'
                      'Next month we read "The Undoing Project" by Michael Lewis.\n',
                      {'Next month we read "The Undoing Project" by Michael Lewis.': "The Undoing Project"}),
    # a polite instruction has no subject of its own: "Please" is none, nor a phrase it opens
    "please": ("# Watchdog\n\nWatchdog comes with a script.\n\nPlease type the help command at the shell prompt.\n"
               "Please add the tag to your question on Stack Overflow.\n",
               {"Please type the help command at the shell prompt.": None,
                "Please add the tag to your question on Stack Overflow.": "Stack Overflow"}),
}


@pytest.mark.parametrize("case", sorted(SUBJECTS))
def test_subjects_of_notes(case: str) -> None:
    text, expected = SUBJECTS[case]
    found = subjects(extract(text))
    for sentence, subject in expected.items():
        assert found.get(sentence) == subject, f"{case}: {sentence!r} -> {found.get(sentence)!r}"


# (text, names that must be found, names that must not)
NAMES: dict[str, tuple[str, set[str], set[str]]] = {
    # an opening verb and its object are not one name
    "opening_verb": ("Called Mum in the afternoon.\nKeep Redis out of the critical path.\nAsk Vercel about the plan.\n"
                     "Updated Electron to version 30.\n", {"Mum", "Redis", "Vercel", "Electron"},
                     {"Called Mum", "Keep Redis", "Ask Vercel", "Updated Electron"}),
    # a name the text writes in lower case only where it writes code (and a title) opens a sentence
    "name_in_code": ("# Retrying with httpx and tenacity\n\nI wrap calls with `tenacity`.\n\n"
                     "Tenacity was written by Julien Danjou.\n", {"Tenacity", "Julien Danjou"}, set()),
    # "in" joins an award and its field
    "award_in_field": ("Kahneman received the Nobel Memorial Prize in Economic Sciences in 2002.\n",
                       {"Nobel Memorial Prize in Economic Sciences"}, {"Economic Sciences"}),
    # a title after a label of common words is the note's name
    "labelled_title": ("# Reading group: Thinking, Fast and Slow\n\nDaniel Kahneman describes two systems.\n",
                       {"Thinking, Fast and Slow"}, {"Reading group"}),
    "labelled_paper": ('# Notes: "Attention Is All You Need" (Vaswani et al., 2017)\n\nThe paper introduces the '
                       "Transformer.\n", {"Attention Is All You Need"}, set()),
    # a version's section heading names nothing, its date in brackets notwithstanding
    "version_heading": ("# Release notes\n\n## v0.9.0 (2026-04-02)\n- Updated Electron to version 30.\n", {"Electron"},
                        {"v0.9.0", "v0.9.0 (2026-04-02)"}),
    # an irregular past opens a note's line: "Met" is no part of the name, "Bought ..." no subject
    "irregular_past": ("Met Leo for coffee at Monmouth in Borough Market.\nBought new running shoes.\n", {"Leo"},
                       {"Met Leo", "Bought new running shoes"}),
    "writer_is_no_phrase": ("I wrap calls with retries every day.\n", set(), {"wrap"}),
    "date_is_no_subject": ("# Lisbon, long weekend\n\nSunday was Sintra: Pena Palace was packed.\n", {"Sintra"},
                           {"Sunday"}),
}


@pytest.mark.parametrize("case", sorted(NAMES))
def test_names_in_notes(case: str) -> None:
    text, present, absent = NAMES[case]
    found = {name_key(n) for n in names(extract(text))}
    assert {name_key(n) for n in present} <= found, f"{case}: {sorted(found)}"
    assert not {name_key(n) for n in absent} & found, f"{case}: {sorted(found)}"
