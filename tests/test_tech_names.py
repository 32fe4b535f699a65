"""Names in technical prose (kg/extract/tech_names.py): each pattern with the examples it must find
and the counterexamples it must not, alone and through the offline extractor."""

from __future__ import annotations

import pytest

from kg.extract import ExtractionContext
from kg.extract import tech_names as T
from kg.extract.heuristic import HeuristicExtractor
from kg.models import Chunk
from kg.text import to_plain


def _found(markdown: str) -> list[str]:
    return T.technical_names(to_plain(markdown), markdown)


def _entities(markdown: str) -> set[str]:
    chunk = Chunk(source_path="t.md", index=0, text=markdown, start=0, end=len(markdown))
    result = HeuristicExtractor(None).extract_chunk(chunk, ExtractionContext("t.md", "t"))
    return {n for e in result.entities for n in (e.name, *e.aliases)}


# pattern -> (markdown, names it must find, names it must not)
CASES: dict[str, tuple[str, set[str], set[str]]] = {
    "kind word after a code span": (
        "The `distro` package reads it. Run the `uname` command. Call `load_dotenv()` first; set "
        "`PYINSTRUMENT_PROFILE_DIR` and the `--verbose` flag.",
        {"distro", "uname"}, {"load_dotenv()", "load_dotenv", "PYINSTRUMENT_PROFILE_DIR", "--verbose"}),
    "a list of code spans before a kind word": (
        "Compatible with `asyncio` and `trio` backends. Its `sort_field` holds a `str` value.",
        {"asyncio", "trio"}, {"sort_field", "str"}),
    "kind word before a code span": ("It depends on the package `h11` for parsing.\n\n## Backends\n\n- `heuristic` "
                                     "- offline.", {"h11"}, {"heuristic"}),
    "install command": (
        "Use `pip install -U websocket-client` or `npm install express`; `pip install starlette[full]` too; "
        "`pip install -r requirements.txt` reads a file.",
        {"pip", "websocket-client", "npm", "express", "starlette"}, {"-U", "starlette[full]", "requirements.txt"}),
    "reStructuredText link": (
        "Make sure you have `pip <https://pip.pypa.io/en/stable/>`_ and read `the docs "
        "<https://example.org/>`_; it is used by `Zipline`_. Run ``tox`` and ``make``.",
        {"pip", "Zipline"}, {"the docs", "tox", "make"}),
    "install before code spans": (
        "To install `python-socks` and `wsaccel`, use the extra. Add `--verbose` to the `pip install`. "
        "Set `timeout` to 5.", {"python-socks", "wsaccel", "pip"}, {"--verbose", "timeout"}),
    "a list of dependencies": (
        "The project relies on these excellent libraries:\n\n* `h11` - HTTP/1.1 support.\n"
        "* `backports.zstd` - Decoding for zstd.\n\nIts options:\n\n* `timeout` - seconds to wait.\n"
        "* `sort_field` - the field to sort by.\n\nIt requires the following (optional) arguments:\n\n"
        "* `url` - the address.\n\nIt uses these packages:\n\n* `numpy` - arrays.\n\nBackends are "
        "chosen at run time.\n\n* `heuristic` - offline.\n", {"h11", "backports.zstd", "numpy"},
        {"timeout", "sort_field", "url", "heuristic"}),
    "link text its target ends in": (
        "It was part of [lxml](https://github.com/lxml/lxml), see [the guide](https://example.org/guide) and "
        "[`cookiecutter`](https://github.com/cookiecutter/cookiecutter).",
        {"lxml", "cookiecutter"}, {"the guide"}),
    "link text its target is hosted at": (
        "Compatible with [flake8](https://flake8.pycqa.org/) and [calmcode.io](https://calmcode.io/rich/); "
        "read [org](https://example.org/), [docs](https://docs.python.org/) and [here](https://here.dev).",
        {"flake8", "calmcode.io"}, {"org", "docs", "here"}),
    "reStructuredText reference without backquotes": (
        "It works on top of either asyncio_ or Trio_, with the functools_ module. Call ``__init__`` "
        "or a_b_ in code: `x_`. It is _a whole phrase_ and _tools_.", {"asyncio", "Trio", "functools"},
        {"__init__", "init", "a_b", "x", "phrase", "tools"}),
    "a word with a capital inside": (
        "It runs on Linux, macOS and Windows with cuDNN, written in reStructuredText; call setTimeout "
        "or getElementById, not `setup()`, at 750 kHz and 3 kWh; edges have fromNode; \\nPaprocki.",
        {"macOS", "cuDNN", "reStructuredText"}, {"setTimeout", "getElementById", "kHz", "kWh", "fromNode", "nPaprocki"}),
    "a word a version constraint follows": (
        "It needs pandas >= 1.5, joblib (>= |JoblibMinVersion|), pip 24.2+ and macOS 10.8+; version 1.2+ "
        "took about 2.5 minutes; update jiter to v0.14.0; needs numpy >= 0.14.0. Goals: recall >= 0.6, "
        "p99 <= 1.5 s, answer >= 0.70 and render >= 1.5 s.", {"pandas", "joblib", "pip", "macOS", "numpy"},
        {"version", "about", "to", "recall", "p99", "answer", "render"}),
    "lowercase words a kind of software lists by example": (
        "Static type checkers such as mypy and pyright read `typing_extensions`; some shells, such as zsh, "
        "need quotes; tools such as linters and formatters, libraries like these.",
        {"mypy", "pyright", "zsh"}, {"linters", "formatters", "these"}),
    "lowercase word between 'the' and a kind word": (
        "Install the python-lz4 package and the h11 library. Use the standard library, the test suite, the "
        "database library, the `model` folder, the model backend and the largest module.",
        {"python-lz4", "h11"}, {"standard", "test", "database", "model", "largest"}),
    "account handle": (
        "Thanks to [@tiangolo](https://github.com/tiangolo) and @tinche; write to me@example.org; "
        "decorate with `@property`; add @types/node; use icon@2x and @2x.", {"tiangolo", "tinche"},
        {"example", "property", "me", "types", "2x"}),
}


@pytest.mark.parametrize("pattern", sorted(CASES))
def test_pattern(pattern: str) -> None:
    markdown, present, absent = CASES[pattern]
    found = set(_found(markdown))
    assert present <= found, f"{pattern}: {sorted(found)}"
    assert not absent & found, f"{pattern}: {sorted(found)}"


@pytest.mark.parametrize("pattern", sorted(CASES))
def test_pattern_through_the_extractor(pattern: str) -> None:
    """What a pattern finds is an entity of the chunk, whether or not a claim names it."""
    markdown, present, absent = CASES[pattern]
    names = _entities(f"# Notes\n\n{markdown}\n")
    assert present <= names, f"{pattern}: {sorted(names)}"
    if pattern != "a list of dependencies":  # a list item's first words are its claim's subject, as before
        assert not absent & names


def test_a_reference_in_restructuredtext_is_text() -> None:
    """`` `Sorted Containers`_ `` is a link, found as capitalised text is; its target and
    underscores are no part of the text."""
    markdown = "It is used by `Sorted Containers`_ and `Dask Distributed <https://distributed.dask.org>`__ today.\n"
    plain = T.rst_links_as_text(to_plain(markdown), markdown)
    assert plain.code == [] and "https" not in plain.text and "_" not in plain.text
    assert {"Sorted Containers", "Dask Distributed"} <= _entities(f"# Notes\n\n{markdown}")


def test_no_mixed_case_names_where_no_code_is_shown() -> None:
    """The sciences write "mRNA" and "cAMP" in prose that shows no code: no names by their shape."""
    assert not {"mRNA", "cAMP", "cDNA"} & set(_found("The mRNA and cAMP levels rose; we cloned cDNA and mbH.\n"))


def test_no_examples_by_kind_where_no_code_is_shown() -> None:
    assert "email" not in _found("Applications such as email and chat grew.\n")


def test_identifier() -> None:
    for word in ("asyncio", "pkg-config", "concurrent.futures", "lxml_html_clean", "h11", "C++", "llama.cpp"):
        assert T.identifier(word), word
    for text in ("--verbose", "load_dotenv()", "PYINSTRUMENT_PROFILE_DIR", "/etc/os-release", "x = 1", "script.py",
                 "README.md", "a b"):
        assert not T.identifier(text), text


WRAPPED = ("SymPy owes much to the work of its contributors, among them Mateusz\n"
           "Paprocki and Aaron Meurer, who wrote the first parts of the series code.\n")


def test_a_wrapped_line_is_a_space() -> None:
    plain = T.soften_line_breaks(to_plain(WRAPPED), WRAPPED)
    assert "Mateusz Paprocki" in plain.text
    assert len(plain.text) == len(to_plain(WRAPPED).text)  # offsets into the markdown stay right
    names = _entities(f"# Credits\n\n{WRAPPED}")
    assert "Mateusz Paprocki" in names and "Mateusz" not in names and "Paprocki" not in names


@pytest.mark.parametrize("markdown", [
    "Alice Smith\nBob Jones\n",  # short lines: one name a line, as a note that renders its breaks means them
    "# A heading that is long enough to be a wrapped line\nText follows it here.\n",
    "A reStructuredText title long enough to count as wrapped\n=========================================\n",
    "- [The Real Python Podcast](https://www.youtube.com/watch?v=abcdefghijk)\n  Narwhals: a talk\n",
])
def test_a_line_break_that_stays(markdown: str) -> None:
    plain = T.soften_line_breaks(to_plain(markdown), markdown)
    assert plain.text.count("\n") == to_plain(markdown).text.count("\n")


def test_code_is_not_prose() -> None:
    """`python -m pip` says nothing of how the prose writes Python: the word stays a name."""
    markdown = "# Tool\n\nThe tool needs Python 3.10 or later.\n\nRun `python -m pip install tool` to get it.\n"
    assert "Python" in _entities(markdown)
    assert "python" not in T.prose(to_plain(markdown))


def test_a_section_heading_is_an_entity_only_when_it_reads_as_a_name() -> None:
    """A README's sections ("Installation", "Running the tests") are no entities; the title is, and
    a section named by a name is ("Colossus"), as is one the text names ("Granian ... Granian")."""
    markdown = ("# Harness\n\nHarness runs tests of computers.\n\n## Installation\n\nIt installs with one "
                "command and needs no installation of extras.\n\n## Running the tests\n\nIt runs the tests in "
                "parallel.\n\n## Colossus\n\nIt ran the first tests in 1944.\n\n## Granian\n\nWe also tried "
                "Granian, a server.\n")
    names = _entities(markdown)
    assert {"Harness", "Colossus", "Granian"} <= names
    assert not {"Installation", "Running the tests"} & names


def test_a_capital_after_an_opener_is_a_names() -> None:
    """"These Python libraries": the determiner took the sentence's capital, "Python" keeps its own;
    not before a verb ("The Army wanted it")."""
    assert T.after_opener("These Python", "Python", " libraries do") and T.after_opener("The Pallets", "Pallets", " team")
    assert not T.after_opener("Python", "Python", " is") and not T.after_opener("However Python", "Python", " was")
    assert not T.after_opener("The Army", "Army", " wanted it") and not T.after_opener("The Report", "Report", ", late")
    assert "Python" in _entities("# Similar work\n\nThese Python libraries do the same.\n")
    eniac = "# ENIAC\n\nENIAC was built in 1945. The Army wanted it because firing tables took too long.\n"
    assert "Army" not in _entities(eniac)


def test_a_table_of_files_gives_files_no_product_type() -> None:
    """A README's table of its files made "claims.parquet" and "broken/" products; a file is a concept."""
    markdown = ("# Files\n\n| file | what |\n|---|---|\n| `claims.parquet` | one row per claim |\n"
                "| `cache.sqlite` | the reply cache |\n| `broken/` | graph files a rebuild moved aside |\n\n"
                "The `distro` package reads it; `pip` installs it.\n")
    chunk = Chunk(source_path="t.md", index=0, text=markdown, start=0, end=len(markdown))
    result = HeuristicExtractor(None).extract_chunk(chunk, ExtractionContext("t.md", "t"))
    types = {e.name: e.type for e in result.entities}
    files = {name for name in types if T.names_a_file(name)}
    assert files and all(types[name] == "concept" for name in files), types


@pytest.mark.parametrize("name", ["claims.parquet", "setup.py", "broken/", "journal.sqlite", "model.gguf"])
def test_files_and_folders_are_named_as_such(name: str) -> None:
    assert T.names_a_file(name)


@pytest.mark.parametrize("name", ["llama.cpp", "concurrent.futures", "Node.js", "socket.io", "pip", "FastAPI",
                                  "calmcode.io", "sentence-transformers/all-MiniLM-L6-v2"])
def test_software_with_a_dot_is_not_a_file(name: str) -> None:
    assert not T.names_a_file(name)


def test_a_word_of_english_needs_evidence_to_be_a_product() -> None:
    """The type model reads lower case as a program's (the names found above are): "A compile is a
    pure step", a table's `person` and "the wiki" made products. A rule's find, a kind word after it
    or a description with one is the evidence; a name that is no English word, with no article, keeps
    the model's type."""
    assert not T.named_as_software("compile", False, {"L1:^", "R1:is", "desc:step"})
    assert not T.named_as_software("person", False, {"L1:^"})
    assert not T.named_as_software("bundled", False, set())
    assert not T.named_as_software("wiki", False, {"L1:the", "R1:is"})
    assert T.named_as_software("pandas", False, {"L1:with", "R1:library"})
    assert T.named_as_software("chevron", False, {"L1:^", "desc:library"})
    assert T.named_as_software("torch", True, {"L1:the"})
    assert T.named_as_software("countryinfo", False, {"L1:^", "R1:1"})
    assert T.named_as_software("Kuzu", False, {"L1:^"})  # no English word: the model's own evidence
    assert not T.named_as_software("naïve", False, {"L1:the", "R1:baseline"})  # accents read as "naive" does


def test_a_capitalised_word_of_english_is_a_product_only_where_no_sentence_starts() -> None:
    """"Short: less code", "Increase the speed", a heading "Performance Comparison": capitalised
    because a line starts there, they were products; a word before the name ("built on Click") or a
    list's comma ("Rich, Typer") is capitalisation no sentence explains ("the Python ecosystem" too)."""
    assert not T.named_as_software("Short", False, {"L1:^", "R1::"})
    assert not T.named_as_software("Increase", False, {"L1::", "R2:the speed"})
    assert not T.named_as_software("Performance Comparison", False, {"L1:^"})
    assert T.named_as_software("Python", False, {"L1:the", "R1:ecosystem"})
    assert T.named_as_software("Click", False, {"L1:^", "L1:on"})
    assert T.named_as_software("Rich", False, {"L1:,"})
    assert T.named_as_software("Rich", False, {"L1:^", "desc:library"})


def test_a_name_no_sentence_names_needs_a_kind_word_to_be_a_product() -> None:
    """A table's first cell ("| arguana | 573.91 |" under "| Dataset |") is read in no sentence: its
    column's header is the evidence ("| Library |")."""
    assert not T.named_as_software("arguana", False, {"desc:dataset"})
    assert T.named_as_software("zorblib", False, {"desc:library"})
    assert T.named_as_software("zorb-v1.5-7b", False, {"desc:model"})
    markdown = ("# Results\n\n| Dataset | Speed |\n|---|---|\n| quillset | 573.91 |\n| zarnqa | 20.88 |\n\n"
                "| Library | Speed |\n|---|---|\n| fastzorb | 12 |\n")
    chunks = [Chunk(source_path="a.md", index=0, text=markdown, start=0, end=len(markdown))]
    types = {e.name: e.type for r in HeuristicExtractor().extract(chunks, ExtractionContext("a.md", "a"))
             for e in r.entities}
    assert types.get("quillset") != "product" and types.get("zarnqa") != "product", types


def test_a_noun_after_a_is_no_product_for_its_description() -> None:
    """"A profiler is a tool to ...": the description defines a noun the text writes after "a", not a name."""
    assert not T.named_as_software("profiler", False, {"L1:a", "R1:is", "desc:tool"})
    assert T.named_as_software("profiler", False, {"L1:^", "R1:is", "desc:tool"})


def test_no_product_from_a_word_of_english_through_the_extractor() -> None:
    markdown = ("# Notes\n\nA compile is a pure per-source step, then one writer. A compile killed at any "
                "point is repaired.\n\n| type | what |\n|---|---|\n| `person` | people by name |\n"
                "| `work` | titled works |\n\nThe wiki is an output. Obsidian opens the wiki.\n\n"
                "Install the `distro` package with `pip`.\n")
    chunk = Chunk(source_path="t.md", index=0, text=markdown, start=0, end=len(markdown))
    result = HeuristicExtractor(None).extract_chunk(chunk, ExtractionContext("t.md", "t"))
    types = {e.name.lower(): e.type for e in result.entities}
    assert {"compile", "person", "work"} <= set(types), types
    assert all(types[name] != "product" for name in ("compile", "person", "work", "wiki", "the wiki") if name in types)


@pytest.mark.parametrize("text", ["disease, gene or protein, cell type, organism, chemical", "Linux, macOS and Windows",
                                  "person, organization, place", "red, or blue"])
def test_an_enumeration_is_no_name(text: str) -> None:
    assert T.enumeration(text)


@pytest.mark.parametrize("text", ["Westmere, New York", "ENIAC", "Crosby, Stills", "Procter & Gamble", "a,"])
def test_one_name_is_no_enumeration(text: str) -> None:
    assert not T.enumeration(text)


def test_a_table_row_opening_with_a_list_has_no_subject() -> None:
    """A table whose first cell lists kinds made one garbled entity ("disease, gene or protein, cell
    type, ...", typed a cell type by its words); the row names no one thing."""
    markdown = ("# Kinds\n\n| kinds | source |\n|---|---|\n| disease, gene or protein, cell type, organism | the "
                "rules |\n| ENIAC | 1946 |\n")
    names = _entities(markdown)
    assert "ENIAC" in names and not any("," in name for name in names), names


def test_an_opening_word_of_english_is_no_part_of_the_name_after_it() -> None:
    """"Use Magika to ..." and a list's "- Monitor Ray apps" made "Use Magika" a product and "Monitor
    Ray" a person: an English first word before a name the chunk writes alone is the sentence's."""
    markdown = ("# Tools\n\nWe ship Magika and Ray in one image. Use Magika to tell file types apart.\n\n"
                "Learn more:\n\n- Monitor Ray apps with the dashboard.\n- Debug Ray apps with the debugger.\n\n"
                "Western Australia has no office; De Silva runs Western Australia's from Lisbon.\n")
    names = _entities(markdown)
    assert {"Magika", "Ray"} <= names and not {"Use Magika", "Monitor Ray", "Debug Ray"} & names, names
    assert "Western Australia" in names and "Australia" not in names  # a place's name keeps its first word
