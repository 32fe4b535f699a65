"""Numbers with units and dates in a sentence: what claims are typed by (kg/extract/heuristic.py)
and what the contradiction rules compare (kg/compile/contradict.py)."""

from __future__ import annotations

import functools
import re

from kg.extract import vocab as V

NUMBER = re.compile(
    r"(?<![\w.,])(?P<cur>[$€£])?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s*(?P<mult>thousand|million|billion|trillion)\b)?"
    r"(?:\s*(?P<unit>%|[A-Za-zµμ°²]+(?:\s+[A-Za-z]+)?))?"
)
_MONTH = "|".join(m.capitalize() for m in V.MONTHS)
_DATE_MDY = re.compile(rf"\b({_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")
_DATE_DMY = re.compile(rf"\b(\d{{1,2}})\s+({_MONTH})\s+(\d{{4}})\b")
_DATE_MY = re.compile(rf"\b({_MONTH})\s+(\d{{4}})\b")
_YEAR = re.compile(r"(?<![\w,.$€£])(1[0-9]{3}|20[0-9]{2})(s?)(?![\w,]|\.\d)")
_RANGE = re.compile(r"\b(?:from|between)\s+(\d{4})\s+(?:to|and|until|-|–)\s+(\d{4})\b")
_SINCE = re.compile(r"\bsince\s+(\d{4})\b")
_UNTIL = re.compile(r"\b(?:until|till)\s+(\d{4})\b")
PREPOSITIONS = {"until", "till", "since", "from", "between", "during", "through", "into", "per"}
CONJUNCTIONS = {"and", "or", "but", "nor", "yet", "so", "while", "whereas"}


def parse_number(match: re.Match[str]) -> float:
    value = float(match.group("num").replace(",", ""))
    if match.group("mult"):
        value *= V.MULTIPLIERS[match.group("mult")]
    return value


def unit_of(match: re.Match[str]) -> tuple[str, bool]:
    """(canonical unit, known?) for a number match; count nouns become their own unit."""
    if match.group("cur"):
        return V.UNIT_LOOKUP[match.group("cur")], True
    raw = (match.group("unit") or "").strip()
    if not raw:
        return "", False
    lowered = raw.lower()
    if lowered in V.UNIT_LOOKUP:
        return V.UNIT_LOOKUP[lowered], True
    first = lowered.split()[0]
    if first in V.UNIT_LOOKUP:
        return V.UNIT_LOOKUP[first], True
    if raw.split()[0] in V.UNIT_LOOKUP:
        return V.UNIT_LOOKUP[raw.split()[0]], True
    nouns = [w for w in lowered.split() if w.isalpha() and w not in V.AUXILIARIES and w not in V.STOP_CAPS]
    if not nouns or nouns[0] != lowered.split()[0]:
        return "", False
    if nouns[0].endswith("s") and not nouns[0].endswith("ss"):
        nouns = nouns[:1]  # "2,300 transistors made ...": a plural noun ends the unit
    noun = " ".join(nouns)
    return (noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun), False


def inside_year(match: re.Match[str]) -> bool:
    """A bare 4-digit year is a date, not a quantity, unless a real unit follows it."""
    num = match.group("num")
    if re.fullmatch(r"1\d{3}|20\d{2}", num) and not match.group("cur"):
        if (match.group("unit") or "").startswith("s"):
            return True  # "the 1970s"
        _, known = unit_of(match)
        return not known
    return False


def first_date(text: str) -> tuple[int, str, int] | None:
    """(year, ISO date, offset) of the first date in text."""
    best: tuple[int, str, int] | None = None
    for pattern, kind in ((_DATE_MDY, "mdy"), (_DATE_DMY, "dmy"), (_DATE_MY, "my"), (_YEAR, "y")):
        match = pattern.search(text)
        if not match or (best and best[2] <= match.start()):
            continue
        if kind == "mdy":
            month, day, year = V.MONTHS[match.group(1).lower()], int(match.group(2)), int(match.group(3))
            iso = f"{year:04d}-{month:02d}-{day:02d}"
        elif kind == "dmy":
            day, month, year = int(match.group(1)), V.MONTHS[match.group(2).lower()], int(match.group(3))
            iso = f"{year:04d}-{month:02d}-{day:02d}"
        elif kind == "my":
            month, year = V.MONTHS[match.group(1).lower()], int(match.group(2))
            iso = f"{year:04d}-{month:02d}"
        else:
            year = int(match.group(1))
            iso = f"{year}s" if match.group(2) else str(year)
        best = (year, iso, match.start())
    return best


def validity(sentence: str) -> tuple[str | None, str | None]:
    if match := _RANGE.search(sentence):
        return match.group(1), match.group(2)
    since, until = _SINCE.search(sentence), _UNTIL.search(sentence)
    return (since.group(1) if since else None), (until.group(1) if until else None)


@functools.lru_cache(maxsize=200_000)
def quantity_facets(text: str) -> list[tuple[str, float, str]]:
    """Every (predicate word, value, unit) in a sentence: "weighed about 27 tonnes" -> ("weighed", 27.0, "t").

    Used by the contradiction rules, which compare all quantities of two claims, not only the
    one a claim was typed by.
    """
    facets = []
    for match in NUMBER.finditer(text):
        if inside_year(match):
            continue
        unit, _ = unit_of(match)
        if not unit:
            continue
        facets.append((" ".join(words_before(text, match.start())), parse_number(match), unit))
    return facets


def words_before(text: str, at: int, window: int = 4) -> list[str]:
    """Content words just before a number or date: what is being measured (names excluded:
    "X was born in 1905" and "a survey of X in 1950" share X, not what is dated)."""
    before = [w.strip(".,;:'’\"()") for w in text[:at].split()[-window:]]
    return [w.lower() for w in before if w.isalpha() and not w[0].isupper() and w.lower() not in V.AUXILIARIES
            and w.lower() not in CONJUNCTIONS and w.lower() not in V.MONTHS and w.lower() not in PREPOSITIONS]


@functools.lru_cache(maxsize=200_000)
def date_facets(text: str) -> list[tuple[str, str]]:
    """(predicate word, ISO date) for the first date of a sentence, or nothing."""
    found = first_date(text)
    if not found:
        return []
    _, iso, at = found
    return [(" ".join(words_before(text, at, 5)), iso)]
