"""Markdown -> plain text with an offset map back to the markdown, and sentence splitting.

Extraction runs on the plain view; evidence quotes are cut from the markdown through the
offset map, so every quote is verbatim source text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

HARD_BREAK = "\n\n"

_MARKUP = re.compile(
    r"(?P<fence>^[ \t]{0,3}(?:```|~~~)[^\n]*\n.*?(?:^[ \t]{0,3}(?:```|~~~)[ \t]*$|\Z))"
    r"|(?P<table>^[ \t]*\|[^\n]*\|[ \t]*$)"
    r"|(?P<block>^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d{1,3}[.)][ \t]+|>[ \t]?))"
    r"|(?P<blank>\n[ \t]*\n)"
    r"|(?P<image>!\[[^\]\n]*\]\([^)\n]*\))"
    r"|(?P<wiki>\[\[(?P<wtarget>[^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|(?P<walias>[^\]\n]+))?\]\])"
    r"|(?P<link>\[(?P<ltext>[^\]\n]+)\]\([^)\n]*\))"
    r"|(?P<code>`+)(?P<ctext>[^`\n]+?)(?P=code)"
    r"|(?P<strong>\*\*|__)(?P<stext>[^\n]+?)(?P=strong)"
    r"|(?P<em>(?<![\w*])\*(?![\s*])|(?<![\w_])_(?![\s_]))(?P<etext>[^\n*_`]+?)(?P=em)(?![\w])"
    r"|(?P<html></?[A-Za-z][^>\n]*>)"
    r"|(?P<url>https?://[^\s)>\]]+)",
    re.MULTILINE | re.DOTALL,
)
# Inside a link's text or a bold or emphasised phrase, only inline markup: "[`bfloat16`](...)",
# "**[platform.claude.com](...)**" read as their text, the code a code span.
_INLINE = re.compile(_MARKUP.pattern.split("|(?P<image>", 1)[0].split("(?P<fence>", 1)[0] + "(?P<image>"
                     + _MARKUP.pattern.split("|(?P<image>", 1)[1], re.MULTILINE | re.DOTALL)


@dataclass
class PlainText:
    """`text` is the plain view; `offsets[i]` is the markdown index of plain character i."""

    text: str
    offsets: list[int]
    links: list[tuple[int, int, str]] = field(default_factory=list)  # plain span -> link target
    strong: list[tuple[int, int]] = field(default_factory=list)  # bold spans (defined terms)
    code: list[tuple[int, int]] = field(default_factory=list)  # code spans: never entities
    tables: list[tuple[int, int]] = field(default_factory=list)  # markdown spans of table rows
    # Markup wrapped around inline text: plain start/end -> markdown start/end of the markup,
    # so a quote that starts or ends at a link or bold term includes its brackets or stars.
    wrap_starts: dict[int, int] = field(default_factory=dict)
    wrap_ends: dict[int, int] = field(default_factory=dict)

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """The markdown span covering plain text[start:end]."""
        return (
            self.wrap_starts.get(start, self.offsets[start]),
            self.wrap_ends.get(end, self.offsets[end - 1] + 1),
        )


def to_plain(markdown: str) -> PlainText:
    parts: list[str] = []
    offsets: list[int] = []
    plain = PlainText("", offsets)
    length = 0

    def emit(text: str, start: int, synthetic: bool = False) -> None:
        nonlocal length
        parts.append(text)
        if synthetic:
            offsets.extend([start] * len(text))
        else:
            offsets.extend(range(start, start + len(text)))
        length += len(text)

    def convert(markup: re.Pattern[str], start: int, end: int) -> None:
        """markdown[start:end] as plain text; a link's or a bold phrase's own text again, inline."""
        pos = start
        for match in markup.finditer(markdown, start, end):
            if match.start() > pos:
                emit(markdown[pos : match.start()], pos)
            wrapped_from = length
            group = match.groupdict()  # the inline pattern has no block groups
            kind = match.lastgroup if match.lastgroup in {"fence", "table", "block", "blank", "image", "html", "url"} else None
            if group.get("fence") is not None or group.get("blank") is not None or group.get("block") is not None:
                emit(HARD_BREAK, match.start(), synthetic=True)
            elif group.get("table") is not None:
                plain.tables.append((match.start(), match.end()))
                emit(HARD_BREAK, match.start(), synthetic=True)
            elif group.get("wiki") is not None:
                target = match.group("wtarget").strip()
                shown = (match.group("walias") or match.group("wtarget")).strip()
                at = match.start("walias") if match.group("walias") else match.start("wtarget")
                at += len(markdown[at:]) - len(markdown[at:].lstrip())
                begin = length
                emit(shown, at)
                plain.links.append((begin, length, target))
            elif group.get("link") is not None:
                convert(_INLINE, match.start("ltext"), match.end("ltext"))
            elif group.get("code") is not None:
                begin = length
                emit(match.group("ctext"), match.start("ctext"))
                plain.code.append((begin, length))
            elif group.get("strong") is not None:
                begin = length
                convert(_INLINE, match.start("stext"), match.end("stext"))
                plain.strong.append((begin, length))
            elif group.get("em") is not None:
                convert(_INLINE, match.start("etext"), match.end("etext"))
            elif kind in {"image", "html", "url"}:
                emit(" ", match.start(), synthetic=True)
            if match.lastgroup in {"wiki", "wtarget", "walias", "link", "ltext", "code", "ctext", "strong", "stext", "em", "etext"}:
                # the outermost markup's ends ("**[x](u)**": from the stars), inner markup runs first
                plain.wrap_starts[wrapped_from] = min(plain.wrap_starts.get(wrapped_from, match.start()), match.start())
                plain.wrap_ends[length] = max(plain.wrap_ends.get(length, match.end()), match.end())
            pos = match.end()
        if pos < end:
            emit(markdown[pos:end], pos)

    convert(_MARKUP, 0, len(markdown))
    plain.text = "".join(parts)
    offsets.append(len(markdown))
    return plain


_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "al", "fig", "figs",
    "no", "nos", "inc", "ltd", "co", "corp", "approx", "ca", "cf", "u.s", "u.k", "vol", "pp", "ed", "eds",
    "gen", "col", "lt", "sgt", "capt", "rev", "hon", "mt", "ft", "jan", "feb", "mar", "apr", "jun", "jul",
    "aug", "sep", "sept", "oct", "nov", "dec", "est", "dept", "univ", "assn", "bros", "op",
}
_CJK_LETTER = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
# A Latin sentence ends at . ! ? before a space and a capital, a digit or a CJK letter; a CJK one at
# 。！？ (and the half-width ｡, and ! ? right after a CJK letter), with no space after, taking the
# closing quotes and brackets that follow, unless a quotation goes on ("「本当？」と"). Not at ；:
# like ";" it joins clauses of one sentence.
_END = re.compile(rf"[.!?]+[\"'”’)\]]*(?=\s+[\"'“‘(\[「『]?[A-Z0-9{_CJK_LETTER}])"
                  rf"|(?>(?:[。｡！？]|(?<=[{_CJK_LETTER}])[!?])+[」』）〕】》\"'”’)\]]*)(?![とっ、，,])")


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of the plain view: blocks split at hard breaks, then at sentence ends."""
    spans: list[tuple[int, int]] = []
    for block in re.finditer(r"(?:(?!\n[ \t]*\n).)+", text, re.DOTALL):
        start = block.start()
        for end_match in _END.finditer(text, block.start(), block.end()):
            word = re.search(r"([\w.]+)[.!?]+[\"'”’)\]]*$", text[start : end_match.end()])
            token = word.group(1).lower() if word else ""
            if text[end_match.start()] == "." and (token in _ABBREVIATIONS or re.fullmatch(r"[a-z]", token)):
                continue  # "Dr. Smith", "J. Presper Eckert"
            spans.append(_trim(text, start, end_match.end()))
            start = end_match.end()
        spans.append(_trim(text, start, block.end()))
    return [(s, e) for s, e in spans if e > s]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


# Stopwords. Three lists, because each was tuned with the benchmark of its use and changing one
# changes what it measures (benchmarks/README.md): words of a question that never point at a page
# (kg/retrieve/navigate.py), words never worth linking to an entity in a question even when one
# carries the name (kg/retrieve/walk.py), and words that say nothing about what a claim states
# (kg/compile/claimtext.py; part of the claim-key index's identity, so a change rebuilds it).
QUESTION_STOPWORDS = frozenset((
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its "
    "of on or so such than that the their them then there these they this to was were what when where which "
    "who whom why will with would you your about after before between during more most much many not no "
    "other some only also very use used using"
).split())
LINK_STOPWORDS = frozenset(
    "a an the of in on at to for from by with and or but is are was were be been being which who whom "
    "whose what when where why how that this these those it its as than then there their they he she "
    "his her him them do does did has have had not no yes both either same also one first name named "
    "known other another more most many much any all some into about after before during between over "
    "under what's whats which's".split())
CLAIM_STOPWORDS = frozenset(["a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "from", "with", "as", "and", "or", "but", "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "do", "does", "did", "its", "it", "this", "that", "these", "those", "which", "who", "whom", "their", "his", "her", "they", "he", "she", "we", "i", "than", "then", "there", "here", "into", "onto", "over", "under", "about", "after", "before", "during", "while", "when", "where", "also", "such", "can", "could", "may", "might", "will", "would", "shall", "should", "must", "very", "so", "some", "any", "each", "both", "all"])



# CJK ----------------------------------------------------------------------------------------
# Chinese and Japanese are written without spaces, and Korean's spaced words carry particles: a
# whitespace or \w+ tokeniser makes a whole clause one token. Runs of Han, kana and Hangul become
# overlapping character bigrams instead ("写循环" -> "写循", "循环"; a lone character stays itself),
# as good as word segmentation for retrieval (Kwok, SIGIR '97) and needing no dictionary. Every
# place that matches text (search indexes and their queries, questions, claim keys) goes through
# `word_tokens` or `cjk_terms`, at index time and query time alike; text with no CJK is untouched.
# (the Basic Multilingual Plane's, three bytes each in UTF-8: what a file name may hold, kg/names.py)
CJK_BMP_CHARS = (
    "\u1100-\u11ff\u3005\u3007\u3040-\u309f\u30a0-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)
CJK_CHARS = CJK_BMP_CHARS + "\U00020000-\U0003134f"
CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
_WORD_TOKEN = re.compile(r"\w+")


def has_cjk(text: str) -> bool:
    return CJK_RUN.search(text) is not None


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of one CJK run; a single character is its own token."""
    return [run] if len(run) < 2 else [run[i : i + 2] for i in range(len(run) - 1)]


def split_cjk(word: str) -> list[str]:
    """One word-token as tokens: itself when it has no CJK, else its CJK runs as bigrams and the
    pieces between them ("GPT模型" -> "GPT", "模型") as they are."""
    if not CJK_RUN.search(word):
        return [word]
    out: list[str] = []
    pos = 0
    for run in CJK_RUN.finditer(word):
        if run.start() > pos:
            out.append(word[pos : run.start()])
        out.extend(cjk_bigrams(run.group()))
        pos = run.end()
    if pos < len(word):
        out.append(word[pos:])
    return out


def word_tokens(text: str, word: re.Pattern[str] = _WORD_TOKEN) -> list[str]:
    """The tokens of `text`: the matches of `word` (\\w+ unless given), each CJK run within one split
    into bigrams. Text without CJK gives exactly `word.findall(text)`."""
    found = word.findall(text)
    if not CJK_RUN.search(text):
        return found
    return [piece for w in found for piece in split_cjk(w)]


# a stretch between white spaces that holds a CJK letter or CJK / full-width punctuation ("（Gustav")
_GLUED = re.compile(f"\\S*[{CJK_CHARS}\u3000-\u303f\uff00-\uffef]\\S*")


def cjk_terms(text: str) -> str:
    """The tokens a whitespace full-text index (Kuzu's) misses in a text with CJK, joined by spaces ('' when
    it has none): the column it reads beside the text itself. They are the `word_tokens` of every stretch
    between white spaces that holds a CJK letter or punctuation: its CJK bigrams, and the words and numbers
    written against them ("ILOの" -> "ilo", "の"; "（Gustav" -> "gustav"), which a query (`word_tokens` too)
    asks for. Text without CJK: ''. (Numbers are also spelt in letters: `number_terms`.)"""
    if not has_cjk(text):
        return ""
    return " ".join(t for glued in _GLUED.findall(text.casefold()) for t in word_tokens(glued))


# Kuzu 0.11.3's full-text index drops the digits of every token, in texts and queries alike ("1979"
# finds nothing, "gpt4" is "gpt"), so a token with digits is also indexed and asked for spelt in
# letters: "zz" and a consonant per digit (a token without vowels is left whole by its Porter stemmer).
_DIGIT_LETTERS = "bcdfghjklm"


def number_terms(tokens: list[str]) -> list[str]:
    """The letter spellings of the tokens that hold digits ("1979" -> "zzcmkm", "gpt4" -> "zzgptg")."""
    return ["zz" + "".join(_DIGIT_LETTERS[unicodedata.decimal(c)] if c.isdecimal() else c for c in token)
            for token in tokens if any(c.isdecimal() for c in token)]


def index_terms(text: str) -> str:
    """The `terms` column a full-text index reads beside a text: what it would miss of it, the CJK
    tokens (`cjk_terms`) and the numbers spelt in letters (`number_terms`); '' when there are none."""
    numbers = number_terms(word_tokens(text.casefold()))
    return " ".join(t for t in (cjk_terms(text), *numbers) if t)
