"""Numbers with units and dates in a sentence: what claims are typed by (kg/extract/heuristic.py)
and what the contradiction rules compare (kg/compile/contradict.py)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from kg.extract import patterns as P
from kg.extract import vocab as V

NUMBER = P.pattern("number")


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
    for spelling in (lowered, lowered.split()[0], raw.split()[0]):  # the unit, its first word, as written
        if spelling in V.UNIT_LOOKUP:
            return V.UNIT_LOOKUP[spelling], True
    nouns = [w for w in lowered.split() if w.isalpha() and w not in V.NOT_CONTENT and w not in V.STOP_CAPS]
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


_DATES = ((P.pattern("date_mdy"), "mdy"), (P.pattern("date_dmy"), "dmy"), (P.pattern("date_my"), "my"), (P.pattern("year"), "y"))


def _dated(match: re.Match[str], kind: str) -> tuple[int, str]:
    """(year, ISO date) of a date pattern's match; `kind` names its groups in order (m, d, y)."""
    if kind == "y":
        return int(match.group(1)), match.group(1) + ("s" if match.group(2) else "")
    groups = dict(zip(kind, match.groups(), strict=True))
    year, month = int(groups["y"]), V.MONTHS[groups["m"].lower()]
    return year, f"{year:04d}-{month:02d}" + (f"-{int(groups['d']):02d}" if "d" in groups else "")


def first_date(text: str) -> tuple[int, str, int] | None:
    """(year, ISO date, offset) of the first date in text."""
    best: tuple[int, str, int] | None = None
    for pattern, kind in _DATES:
        match = pattern.search(text)
        if match and not (best and best[2] <= match.start()):
            best = (*_dated(match, kind), match.start())
    return best


@functools.lru_cache(maxsize=200_000)
def all_dates(text: str) -> tuple[str, ...]:
    """The ISO form of every year or date a sentence states (a range states both ends)."""
    return tuple(sorted({_dated(match, kind)[1] for pattern, kind in _DATES for match in pattern.finditer(text)}))


def validity(sentence: str) -> tuple[str | None, str | None]:
    if match := P.pattern("year_range").search(sentence):
        return match.group(1), match.group(2)
    since, until = P.pattern("since_year").search(sentence), P.pattern("until_year").search(sentence)
    return (since.group(1) if since else None), (until.group(1) if until else None)


@dataclass(frozen=True)
class Measure:
    """A number with its unit in a sentence, what it measures, and how precisely the text says it."""

    what: str  # the content words just before it ("weighed")
    value: float
    unit: str
    tolerance: float  # half its last significant digit, or 10% when the text says "about", "over", ...
    after: tuple[str, ...]  # content words right after it ("episodes of the original series" -> original, series)

    def agrees(self, other: Measure) -> bool:
        """Whether either value lies within the other's stated precision: "about 58 m" and "60 m"
        agree, "2 million" and "3 million" do not."""
        return abs(self.value - other.value) <= max(self.tolerance, other.tolerance)


def _tolerance(text: str, match: re.Match[str], value: float) -> float:
    digits = match.group("num").replace(",", "")
    step = 10.0 ** -len(digits.split(".", 1)[1]) if "." in digits else 1.0  # "60" says 60, not 55-65
    scale = value / float(digits) if float(digits) else 1.0  # "2.5 million": the step in millions
    before = [w.strip(".,;:()'\"").lower() for w in text[: match.start()].split()[-3:]]
    approximate = bool(V.APPROXIMATE & set(before)) or "~" in text[max(0, match.start() - 2) : match.start()]
    return max(step * scale / 2, 0.1 * abs(value) if approximate else 0.0)


def _words_after(text: str, end: int, window: int = 3) -> tuple[str, ...]:
    rest = P.pattern("stop_after").split(text[end:], maxsplit=1)[0]
    words = [w.strip("'\"").lower() for w in rest.split()[:window + 3]]
    return tuple(w for w in words if w.isalpha() and w not in V.NOT_CONTENT and w not in V.PREPOSITIONS
                 and w not in V.CONJUNCTIONS)[:window]


def _aside(text: str, match: re.Match[str]) -> bool:
    """A number that is not a statement's figure: inside brackets (a detail: a range, a count, an
    interval) or the level of a confidence interval ("95% CI")."""
    before = text[: match.start()]
    if before.count("(") > before.count(")") or before.count("[") > before.count("]"):
        return True
    return match.group("unit") == "%" and bool(P.pattern("statistic").match(text, match.end()))


def _bound(text: str, match: re.Match[str]) -> bool:
    """"more than 25%", "aged 50 years or older", "< 0.05": a bound holds for many values, it states none."""
    unit = match.group("unit") or ""
    end = match.end() if not unit or unit == "%" else match.start("unit") + len(unit.split()[0])
    return bool(P.pattern("bound_before").search(text[max(0, match.start() - 30) : match.start()])) or bool(
        P.pattern("bound_after").match(text, end))


def _range_end(text: str, match: re.Match[str]) -> bool:
    """"aged 20-74 years", "10 to 21 years": the end of a range is not a value."""
    return bool(P.pattern("range_start").search(text[max(0, match.start() - 40) : match.start()]))


def _label(text: str, match: re.Match[str]) -> bool:
    before = text[: match.start()].split()[-1:]
    return bool(before) and before[0].lower().strip("(") in V.LABEL_WORDS


@functools.lru_cache(maxsize=200_000)
def measures(text: str) -> tuple[Measure, ...]:
    """Every number with a unit in a sentence: "weighed about 27 tonnes" -> Measure("weighed", 27.0,
    "t", 2.7, ()). What the contradiction rules compare (they compare all quantities of two claims,
    not only the one a claim was typed by)."""
    found = []
    for match in NUMBER.finditer(text):
        if inside_year(match) or _aside(text, match) or _range_end(text, match) or _label(text, match) or _bound(text, match):
            continue
        unit, _ = unit_of(match)
        if not unit:
            continue
        value = parse_number(match)
        unit_word = (match.group("unit") or "").split()[0] if match.group("unit") else ""
        end = match.start("unit") + len(unit_word) if unit_word else match.end()  # not the word after it
        found.append(Measure(" ".join(words_before(text, match.start())), value, unit,
                             _tolerance(text, match, value), _words_after(text, end)))
    return tuple(found)


def words_before(text: str, at: int, window: int = 4) -> list[str]:
    """Content words just before a number or date: what is being measured (names excluded:
    "X was born in 1905" and "a survey of X in 1950" share X, not what is dated)."""
    before = [w.strip(".,;:'’\"()") for w in text[:at].split()[-window:]]
    return [w.lower() for w in before if w.isalpha() and not w[0].isupper() and w.lower() not in V.NOT_CONTENT
            and w.lower() not in V.CONJUNCTIONS and w.lower() not in V.MONTHS and w.lower() not in V.PREPOSITIONS]


@functools.lru_cache(maxsize=200_000)
def date_facets(text: str) -> list[tuple[str, str]]:
    """(predicate word, ISO date) for the first date of a sentence, or nothing."""
    found = first_date(text)
    if not found:
        return []
    _, iso, at = found
    return [(" ".join(words_before(text, at, 5)), iso)]
