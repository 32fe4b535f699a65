"""Names in technical prose (issue 46): what READMEs, docs, release notes and clipped articles about
software write in code, in lower case or across a line wrap, which the capitalised-name rules
(kg/extract/name_rules.py) never see. Each rule has its examples and counterexamples in
tests/test_tech_names.py (each regex its own in kg/extract/data/patterns.toml) and its contribution
by halves in benchmarks/README.md.

The text: a line wrapped inside a paragraph is a space, as markdown renders it
(`soften_line_breaks`: "Mateusz\\nPaprocki"); reStructuredText's link references are text, not code
(`rst_links_as_text`: "`Sorted Containers`_"); code is not prose (`prose`: "python" in `python -m
pip` says nothing of how the prose writes "Python").

The names (`technical_names`), each found where the text says it names software:
- a code span holding one identifier beside a kind word ("the `distro` package", "`asyncio` and
  `trio` backends"), after "install", in an install command (its installer and package), or opening
  an item of a dependency list (`code_names`);
- reStructuredText references (`rst_references`, `rst_bare_references`: "Zipline_") and link texts
  their target ends in or is hosted at (`link_names`: "[flake8](https://flake8.pycqa.org/)");
- lowercase words between "the" and a kind of software when shaped as a package's name ("the
  python-lz4 package"), before a version constraint ("pandas >= 1.5") and,
  where code is shown, listed by example ("type checkers such as mypy") or with a capital inside
  ("macOS");
- account handles ("@tiangolo").
Code expressions (calls, options, paths, constants, file names) are never names. What a name is
stays the type model's (kg/extract/type_model.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from kg.extract import gazetteer
from kg.extract import matcher as M
from kg.extract import patterns as P
from kg.extract import vocab as V
from kg.extract.matcher import is_verb
from kg.extract.patterns import identifier
from kg.names import strip_accents
from kg.text import PlainText

# A wrapped line is this long at least (hard wraps fall at 60-80 columns); shorter lines stand alone
# (a list of names, one a line, in a note that renders its line breaks).
WRAPPED_LINE = 40

# The regexes and word lists (kind_words, link_words, ...) are data: kg/extract/data/patterns.toml, words.toml.
# What the words of a name, or around it, say (data/token_rules.toml).


def soften_line_breaks(plain: PlainText, markdown: str) -> PlainText:
    """`plain` with each line break inside a paragraph a space, when the line it ends is a wrapped
    line (WRAPPED_LINE characters or more) and neither line is a heading or a reStructuredText
    underline. The text keeps its length, so offsets into the markdown stay right."""
    text = plain.text
    chars = list(text)
    for i, char in enumerate(text):
        if char != "\n" or (i > 0 and text[i - 1] == "\n") or (i + 1 < len(text) and text[i + 1] == "\n"):
            continue
        at = plain.offsets[i]
        if at >= len(markdown) or markdown[at] != "\n":
            continue
        line = markdown[markdown.rfind("\n", 0, at) + 1 : at]
        following = markdown[at + 1 : (markdown.find("\n", at + 1) + 1 or len(markdown) + 1) - 1]
        shown = text[text.rfind("\n", 0, i) + 1 : i]  # the line as read, without link targets
        if len(shown.strip()) < WRAPPED_LINE or _not_prose(line) or _not_prose(following) or not following.strip():
            continue
        chars[i] = " "
    plain.text = "".join(chars)
    return plain


def _not_prose(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(("#", "|", "```", "~~~")) or bool(re.fullmatch(r"([=~^*+#-])\1{2,}", stripped))


def named_as_software(name: str, found_by_rule: bool, around: Iterable[str]) -> bool:
    """Whether a name the type model calls a product has the evidence a word of English needs: a
    technical-name rule above found it, or the words around it say it is software (a kind word right
    after it, "the pandas library", or heading what the text says it is, "chevron is a templating
    library", unless the text writes it after "a", as a noun: "A profiler is a tool"). Short of
    that, a word WordNet lists or its past tense ("A compile is a pure step", a table's `person`,
    "**bundled**") or one the text writes after an article ("the wiki") is a common noun, not a
    program's name; so is a capitalised one ("Short", "Increase the speed", "Performance
    Comparison") that the text capitalises only where a sentence, line or heading starts, never
    after another word ("built on Click", "the Python ecosystem", "Rich, Typer"), and one that no
    sentence names at all: a table's first cell, unless its column's header is a kind word ("| Library
    |"). (The type model learnt lower case from the
    names these rules find, which are programs'; `around` is its context features:
    kg/extract/type_model.py `around`.)"""
    words = strip_accents(name).split()  # "naïve" reads as "naive" does
    if not words or not all(re.fullmatch(r"[A-Za-z][a-z0-9_.-]*", w) for w in words):
        return True
    around = set(around)
    english = all(gazetteer.common_word(w) or gazetteer.past_tense(w.lower()) for w in words)  # "compile", "bundled"
    kinds = {feature.split(":", 1)[0] for feature in around
             if feature.split(":", 1)[0] in ("R1", "desc") and feature.split(":", 1)[1] in V.KIND_WORDS}
    if "R1" in kinds or ("desc" in kinds and not around & {"L1:a", "L1:an"}):
        return True
    if found_by_rule:
        return True
    if not any(feature.startswith("L1:") for feature in around) and any(f.startswith("desc:") for f in around):
        # named in no sentence, only in a table's first column, whose header says what it holds ("|
        # Dataset |", "| arguana | 573.91 |"): a product where the column is of programs (above) or
        # of models, which the vocabulary's product covers too ("| Model |")
        return bool(around & {"desc:model", "desc:models"})
    if name[:1].isupper():
        return not english or any(_WRITTEN_AFTER.fullmatch(feature) for feature in around)
    return not (english or around & {"L1:the", "L1:a", "L1:an"})


# A mention's word before it ("built on Click", "the Python ecosystem") or a list's comma ("Rich,
# Typer"): the name is capitalised where no sentence starts.
_WRITTEN_AFTER = re.compile(r"L1:(?:,|[a-z0-9][\w'’-]*)")


def enumeration(text: str) -> bool:
    """A list of things, not one thing's name: three items or more between commas, or two whose last
    holds an "and" / "or" ("disease, gene or protein, cell type, organism, chemical", "Linux, macOS
    and Windows"); not a place qualified by its region ("Westmere, New York")."""
    items = [item.strip() for item in text.split(",")]
    return all(items) and (len(items) >= 3 or (len(items) == 2 and bool(re.search(r"(?:^|\s)(?:and|or)\s", items[1]))))


def names_a_file(name: str) -> bool:
    """A file or folder of the text ("claims.parquet", "broken/"): a concept, whatever a table or a
    code span around it makes it look like."""
    return name.endswith("/") or bool(P.pattern("file_name").fullmatch(name))


def _kind_after(text: str, end: int) -> bool:
    """A kind word follows `end`, perhaps after one modifier ("`trio` async framework")."""
    words = re.match(r"[ \t\n]+([A-Za-z-]+)(?:[ \t\n]+([A-Za-z-]+))?", text[end:])
    return words is not None and M.rule("kind_after")([w for w in words.groups() if w])


def _kind_before(text: str, start: int) -> bool:
    """A kind word just before `start` ("the package `h11`"), but one that follows what it names."""
    window = text[max(0, start - 30) : start].rsplit("\n\n", 1)[-1]  # not across a block: "## Backends\n\n- `x`"
    before = re.search(r"([A-Za-z]+)[ \t\n]+$", window)
    return before is not None and before.group(1).lower() in V.KIND_WORDS_BEFORE


def _coordinated(plain: PlainText) -> dict[int, int]:
    """Code span index -> the index of the code span that ends its list ("`asyncio` and `trio`")."""
    ends: dict[int, int] = {}
    for n in range(len(plain.code) - 1, -1, -1):
        ends[n] = ends[n + 1] if n + 1 < len(plain.code) and _joined(plain, n) else n
    return ends


def _joined(plain: PlainText, n: int) -> bool:
    """Code spans `n` and `n + 1` are items of one list ("`asyncio` and `trio`")."""
    between = plain.text[plain.code[n][1] : plain.code[n + 1][0]]
    return bool(P.pattern("list_join").match(between)) and len(between) <= 7


def code_names(plain: PlainText) -> Iterator[str]:
    """Names in code spans: an identifier with a kind word beside it (or beside the list it ends) or
    after "install", an installer and its package, the packages of a dependency list."""
    text = plain.text
    ends = _coordinated(plain)
    for n, (start, end) in enumerate(plain.code):
        inner = text[start:end].strip()
        for match in P.pattern("install_command").finditer(inner):
            yield from (name for name in (match.group(1), match.group(3)) if identifier(name))
        if (alone := P.pattern("installer").fullmatch(inner)):  # "add `--verbose` to the `pip install`"
            yield alone.group(1)
        last = plain.code[ends[n]]
        if identifier(inner) and (_kind_after(text, last[1]) or _kind_before(text, start) or _installed(plain, n)):
            yield inner
    yield from _listed_dependencies(plain)


def _installed(plain: PlainText, n: int) -> bool:
    """The code span `n`, or the list it is in, follows "install" ("To install `Sphinx` and
    `sphinx_rtd_theme`, use ...")."""
    first = n
    while first > 0 and _joined(plain, first - 1):
        first -= 1
    return bool(re.search(r"\binstall(?:s|ed|ing)?[ \t\n]+(?:the[ \t\n]+)?$", plain.text[max(0, plain.code[first][0] - 30) :
                                                                                 plain.code[first][0]]))


def _listed_dependencies(plain: PlainText) -> Iterator[str]:
    """A list's items that open with a package in code and its description ("* `h11` - HTTP/1.1
    support."), under a line that introduces dependencies ("relies on these excellent libraries:",
    "as well as these optional installs:"); not a function's arguments ("requires the following:")."""
    text = plain.text
    starts = {start for start, _ in plain.code}
    for start, end in plain.code:
        inner = text[start:end]
        if not (text[max(0, start - 2) : start] == "\n\n" or start == 0) or not re.match(r"[ \t]*[-–—:][ \t]", text[end:]):
            continue
        if not P.pattern("package_name").fullmatch(inner):
            continue
        window = text[max(0, start - 2000) : start]
        intro = list(re.finditer(r"^([^\n]*):[ \t]*$", window, re.MULTILINE))
        if not intro or not P.pattern("dependency_words").search(intro[-1].group(1)):
            continue
        # between the introduction and the item, only items of the same list: blocks opening with code
        offset = start - len(window)
        blocks = [m.start() + offset for m in re.finditer(r"(?:(?<=\n\n)|^)(?=\S)", window[intro[-1].end():])]
        if all(at + intro[-1].end() in starts for at in blocks):
            yield inner


def rst_references(markdown: str) -> Iterator[str]:
    """reStructuredText's link references that name one thing: `` `Zipline`_ ``, `` `pip
    <https://pip.pypa.io/>`_ `` (a text of several words is found as capitalised text is)."""
    for match in P.pattern("rst_reference").finditer(markdown):
        shown = re.sub(r"\s*<[^>]*>$", "", match.group(1)).strip()
        if identifier(shown) and shown.lower() not in V.LINK_WORDS:
            yield shown


def rst_links_as_text(plain: PlainText, markdown: str) -> PlainText:
    """`plain` with reStructuredText's link references (`` `Sorted Containers`_ ``) read as text,
    not code, their targets (" <https://...>") blanked: the text keeps its length."""
    chars = list(plain.text)
    code = []
    for start, end in plain.code:
        md_end = plain.wrap_ends.get(end, -1)
        if md_end > 0 and markdown.startswith("_", md_end) and not markdown.startswith("``", md_end - 2):
            target = re.search(r"\s*<[^>\n]*>$", plain.text[start:end])
            if target:
                chars[start + target.start() : end] = " " * (end - start - target.start())
            after = end
            while after < len(chars) and chars[after] == "_":  # the reference's own underscores
                chars[after] = " "
                after += 1
            continue
        code.append((start, end))
    for match in P.pattern("rst_bare_reference").finditer(plain.text):  # "asyncio_": the underscore is no part of the name
        chars[match.end(1)] = " "
    plain.text, plain.code = "".join(chars), code
    return plain


def link_names(markdown: str) -> Iterator[str]:
    """A link's text that its target ends in or is hosted at: `[lxml](https://github.com/lxml/lxml)`,
    `[cuDNN](https://developer.nvidia.com/cudnn)`, "[`cookiecutter`](.../cookiecutter)",
    `[flake8](https://flake8.pycqa.org/)`, `[calmcode.io](https://calmcode.io/rich/)`."""
    for match in P.pattern("md_link").finditer(markdown):
        shown, target = match.group(2).strip(), match.group(3)
        host, *rest = re.split(r"[/#?]", target.split("://", 1)[1])
        path = [p for p in rest if p]
        last = re.sub(r"\.(?:html?|git|md)$", "", path[-1]) if path else ""
        host = host.lower().removeprefix("www.")
        labels = host.split(".")[:-1]  # "flake8.pycqa.org": flake8, pycqa (not the top-level "org")
        named = shown.lower() == last.lower() or shown.lower() == host or shown.lower() in labels
        if named and M.rule("link_name")([shown]):
            yield shown


def rst_bare_references(markdown: str) -> Iterator[str]:
    """reStructuredText's references without backquotes: "either asyncio_ or Trio_", "the
    functools_ and itertools_ modules" (not "__init__", "snake_case_", nor in code or in markdown's
    "_emphasised phrase_"); not a link's word for itself ("the documentation_ online", "here_")."""
    for match in P.pattern("rst_bare_reference").finditer(P.pattern("no_reference").sub(" ", markdown)):
        if match.group(1).lower() not in V.LINK_WORDS:
            yield match.group(1)


def mixed_case_names(plain: PlainText, in_code: frozenset[int]) -> Iterator[str]:
    """In a text that shows code, a word of prose that opens in lower case and has a capital inside:
    "macOS", "jusText", "cuDNN", "hOCR", "reStructuredText"; not a function's name ("setTimeout",
    "getElementById") or a unit ("750 kHz", "kWh"), nor where no code is shown: the sciences write
    "mRNA", "cAMP", "iPSCs"."""
    if not plain.code:
        return
    for match in P.pattern("mixed_case").finditer(plain.text):
        word = match.group(1)
        prefix = re.match(r"[a-z]+", word)
        unit = re.search(r"\d[ \t]*$", plain.text[max(0, match.start() - 3) : match.start()]) or \
            re.fullmatch(r"[a-zµ][A-Z][a-z]{1,2}", word)  # "750 kHz", "kWh", "mAh": a unit
        if match.start() not in in_code and prefix and prefix.group(0) not in V.CODE_PREFIXES \
                and not is_verb(prefix.group(0)) and not unit:
            yield word


def prose_names(plain: PlainText, in_code: frozenset[int]) -> Iterator[str]:
    """A lowercase word of prose between "the" and a kind of software, shaped as a package's name
    ("the python-lz4 package", "the h11 library"); not a noun before its head ("the test suite",
    "the database library", "the regex module": a word of English, for all this module can tell)."""
    for match in re.finditer(r"\b[Tt]he[ \t\n]+([a-z][a-z0-9]*(?:[._-][a-z0-9]+)*)(?=[ \t\n])", plain.text):
        word = match.group(1)
        if match.start(1) not in in_code and M.rule("package_shaped")([word]) and _kind_after(plain.text, match.end(1)):
            yield word


def _found_in_prose(plain: PlainText, in_code: frozenset[int], pattern: re.Pattern[str], rule: M.Rule) -> Iterator[str]:
    """What `pattern`'s first group finds outside code that the token `rule` takes for a name: a word
    that a version constraint follows ("pandas >= 1.5", "pip 24.2+"; not "version 1.2+", "about 2.5
    minutes"), an account handle ("@tiangolo"; not "me@example.org", "@types/node", "@2x")."""
    for match in pattern.finditer(plain.text):
        if match.start() not in in_code and rule([match.group(1)]):
            yield match.group(1)


def exemplified_names(plain: PlainText, in_code: frozenset[int]) -> Iterator[str]:
    """In a text that shows code, the lowercase words a kind of software lists by example: "static
    type checkers such as mypy and pyright", "some shells, such as zsh"; not common nouns ("tools
    such as linters and formatters", "libraries like these"), nor where no code is shown
    ("applications such as email")."""
    if not plain.code:
        return
    for match in P.pattern("exemplified").finditer(plain.text):
        if match.group(1).lower() not in V.SOFTWARE_PLURALS or match.start(2) in in_code:
            continue
        members = re.split(r"[ \t]*(?:,|\band\b|\bor\b|\betc\b\.?)[ \t]*", match.group(2))
        for n, member in enumerate(members):
            # the list's last member ends where the sentence goes on: "mypy and pyright read ..."
            word = (member.split() or [""])[0] if n == len(members) - 1 and n > 0 else member.strip()
            if M.rule("listed_software")([word]):
                yield word


def technical_names(plain: PlainText, markdown: str) -> list[str]:
    """All names the patterns above find in a chunk, in order of first appearance, once each."""
    in_code = frozenset(i for start, end in plain.code for i in range(start, end))
    found = [*code_names(plain), *rst_references(markdown), *rst_bare_references(markdown), *link_names(markdown),
             *prose_names(plain, in_code),
             *_found_in_prose(plain, in_code, P.pattern("versioned"), M.rule("versioned_name")), *exemplified_names(plain, in_code),
             *mixed_case_names(plain, in_code), *_found_in_prose(plain, in_code, P.pattern("handle"), M.rule("handle_name"))]
    return list(dict.fromkeys(found))


def prose(plain: PlainText) -> str:
    """The plain text with its code spans blanked: what the chunk writes in prose ("python" in
    `python -m pip` says nothing of how the prose writes "Python")."""
    chars = list(plain.text)
    for start, end in plain.code:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def after_opener(span: str, name: str, rest: str) -> bool:
    """Whether `name` follows a determiner that its capitalised span began with and modifies the
    lowercase noun after it ("These Python libraries", "The Pallets organization"): the determiner
    took the sentence's capital, so the name's own capital is a name's. Not before a verb ("The
    Army wanted", "The Report was"): a capitalised common noun may be a body's short name there."""
    words = span.split()
    count = len(name.split())
    following = re.match(r"[ \t]+([a-z][a-z-]*)\b", rest)
    return len(words) > count and " ".join(words[-count:]) == name and following is not None and \
        M.rule("opener_of_name")([*words[:-count], following.group(1)])

