"""Names that are no entities, whatever rule found them (issue 34): statistical notation, roman
numerals standing alone, and modifier fragments, the `filter` rules of data/token_rules.toml, in the
order they run. The claims that mention them stay; only no entity (and no page) is made for them.
"""

from __future__ import annotations

from collections.abc import Callable

from kg.extract import matcher as M

FILTERS: list[tuple[str, Callable[[list[str]], bool]]] = [
    (name, M.rule(name)) for name, spec in M.specs().items() if spec.get("phase") == "filter"]


def not_a_name(name: str) -> str | None:
    """The first filter that says `name` is no entity, or None."""
    words = name.split()
    return next((rule for rule, applies in FILTERS if applies(words)), None)
