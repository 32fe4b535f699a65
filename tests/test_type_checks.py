"""The checks of a source's own words against the type model's type (kg/extract/type_checks.py)."""

from __future__ import annotations

from kg.extract import ExtractionContext
from kg.extract.heuristic import HeuristicExtractor
from kg.extract.type_checks import checked_type
from kg.models import Chunk


def _types(*texts: str) -> dict[str, str]:
    chunks = [Chunk(source_path="a.md", index=i, text=t, start=0, end=len(t)) for i, t in enumerate(texts)]
    results = HeuristicExtractor().extract(chunks, ExtractionContext("a.md", "a"))
    return {e.name: e.type for r in results for e in r.entities}


def test_a_name_described_as_a_company_is_no_person() -> None:
    assert checked_type("person", {"desc:maker": 1.0, "gaz:first-name": 1.0}, False) == "organization"
    assert checked_type("person", {"desc:engineer": 1.0}, False) == "person"
    types = _types("The chip was designed for Kavora, a Finnish camera maker that had asked Tellium to build a "
                   "set of parts for its cameras. Kavora's engineer Ilse Marr worked with the team.")
    assert types.get("Kavora") == "organization"


def test_a_name_where_people_work_is_no_person() -> None:
    assert checked_type("person", {"L1:at": 1.0, "gaz:first-name": 1.0}, False) == "concept"
    assert checked_type("person", {"L1:at": 1.0, "R1:'s": 1.0}, False) == "person"  # "at Smith's house"
    types = _types("The Zeta 2 was built by Hollis Grant, which had bought the Eckert Computer Corporation in 1950. "
                   "Margaret Lowe worked at Dunmore Labs and later at Hollis Grant, where she wrote the first "
                   "compiler. Hollis Grant sold 40 machines.")
    assert types.get("Hollis Grant") != "person"
    assert types.get("Margaret Lowe") == "person"


def test_a_town_in_a_text_about_software_needs_a_place_context() -> None:
    town = {"gaz:town": 1.0, "gaz:place": 1.0, "words:1": 1.0, "L1:uses": 1.0}
    assert checked_type("place", town, True) == "concept"
    assert checked_type("place", town, False) == "place"  # prose with no code: the gazetteer stands
    assert checked_type("place", {**town, "L1:in": 1.0}, True) == "place"
    assert checked_type("place", {**town, "gaz:country": 1.0}, True) == "place"
    assert checked_type("place", {"gaz:place": 1.0, "words:1": 1.0}, True) == "place"  # a region's, no town's
    code = "```python\nprint('x')\n```\n"
    types = _types(f"# Notes\n\nAnsible renders its files with Jinja, and so does Salt. Jinja is a templating "
                   f"engine for Python.\n\n{code}")
    assert types.get("Jinja") != "place"
    moved = _types(f"# Notes\n\nShe moved to Jinja in 1990 and opened a shop in Jinja.\n\n{code}")
    assert moved.get("Jinja") in ("place", None)
