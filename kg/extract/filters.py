"""Names that are no entities, whatever rule found them (issue 34): statistical notation, roman
numerals standing alone, and modifier fragments. The claims that mention them stay; only no
entity (and no page) is made for them. Each rule is a named function, in the order they run.
"""

from __future__ import annotations

from collections.abc import Callable

from kg.extract import patterns as P
from kg.extract import vocab as V

FILTERS: list[tuple[str, Callable[[str], bool]]] = []


def name_filter(fn: Callable[[str], bool]) -> Callable[[str], bool]:
    FILTERS.append((fn.__name__, fn))
    return fn


def not_a_name(name: str) -> str | None:
    """The first filter that says `name` is no entity, or None."""
    return next((rule for rule, applies in FILTERS if applies(name)), None)


@name_filter
def statistical_notation(name: str) -> bool:
    """"95% CI", "OR 1.2", "HR = 0.91", "(SD 12)": the notation of statistics."""
    return name.strip(".") in V.STATISTICAL_NOTATION


_ROMAN = P.pattern("roman_numeral")


@name_filter
def roman_numeral(name: str) -> bool:
    """"phase II", "class III": a numeral alone names nothing ("World War II" keeps its own)."""
    return bool(_ROMAN.fullmatch(name.strip(".")))


# A compound's last part that makes it a modifier: "DNA-based", "IL-6-dependent", "HIV-infected",
# "serum-free", "T-cell-like", "C-terminal".
_MODIFIER = P.pattern("modifier_fragment")


@name_filter
def modifier_fragment(name: str) -> bool:
    """"DNA-based", "X-dependent", "Y-free": one hyphenated word that modifies a noun, no name."""
    return " " not in name and bool(_MODIFIER.fullmatch(name))
