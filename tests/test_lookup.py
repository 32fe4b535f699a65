"""Sets and maps of strings laid out as hash tables and read in place (kg/lookup.py): read back
equal to what was laid out, and asked the same way as a frozenset or dict."""

from __future__ import annotations

import marshal
import mmap
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg import lookup

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
values = st.recursive(st.one_of(st.frozensets(texts, max_size=30), st.dictionaries(texts, texts, max_size=30), texts,
                                st.integers()),
                      lambda inner: st.tuples(inner, inner), max_leaves=6)


def answers(value: object, asked: list[str]) -> object:
    """What a reader asks of a value: membership and lookups of each key, its size and its keys."""
    if isinstance(value, tuple):
        return tuple(answers(part, asked) for part in value)
    if isinstance(value, (frozenset, lookup.FileSet)):
        return [k in value for k in asked], len(value), sorted(value)
    if isinstance(value, (dict, lookup.FileMap)):
        return [(k in value, value.get(k), value.get(k, "-")) for k in asked], len(value), sorted(value.items())
    return value


@settings(max_examples=80, deadline=None)
@given(values, st.lists(texts, max_size=10))
def test_a_laid_out_value_reads_back_equal_and_answers_alike(value: object, asked: list[str]) -> None:
    keys = list(asked)
    parts = [value]
    while parts:  # ask for keys that are there too
        part = parts.pop()
        if isinstance(part, tuple):
            parts.extend(part)
        elif isinstance(part, (frozenset, dict)):
            keys.extend(list(part)[:3])
    back = lookup.loads(lookup.dumps(value, smallest=0))
    assert back == value and value == back
    assert answers(back, keys) == answers(value, keys)


def test_big_sets_and_maps_are_tables_small_ones_plain() -> None:
    towns = frozenset(f"town {i}" for i in range(5000))
    back = lookup.loads(lookup.dumps((towns, {"german": "Germany"}, {f"k{i}": str(i) for i in range(5000)})))
    assert isinstance(back[0], lookup.FileSet) and type(back[1]) is dict and isinstance(back[2], lookup.FileMap)
    assert "town 4999" in back[0] and "town 5000" not in back[0] and back[2]["k7"] == "7"
    with pytest.raises(KeyError):
        back[2]["k5000"]
    # set operations give frozensets, as a frozenset's do
    assert back[0] - {"town 1"} == towns - {"town 1"} and {"town 1", "x"} - back[0] == {"x"}
    assert {"town 1", "town 2"} <= back[0]


def test_strings_with_nul_and_other_values_are_kept_plain() -> None:
    value = (frozenset({"a\0b", "c"}), {"k": "v\0"}, frozenset({1, 2}), {"k": 1})
    back = lookup.loads(lookup.dumps(value, smallest=0))
    assert back == value and all(type(b) is type(v) for b, v in zip(back, value, strict=True))


def test_tables_read_a_mapped_file(tmp_path: Path) -> None:
    path = tmp_path / "t"
    path.write_bytes(b"head" + lookup.dumps(frozenset({"Ligugé", "Penang"}), smallest=0))
    with path.open("rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    back = lookup.loads(data, 4)
    assert "Ligugé" in back and "Lombardy" not in back and sorted(back) == ["Ligugé", "Penang"]


def test_bytes_that_are_no_laid_out_value_are_refused() -> None:
    skeleton = marshal.dumps(("nothing", 1))
    with pytest.raises(ValueError):
        lookup.loads(struct.pack("<Q", len(skeleton)) + skeleton)
    data = bytearray(lookup.dumps(frozenset({"a", "b"}), smallest=0))
    table = len(data) - 4 * 5 - 4 - 8  # the header of the last table: 2 keys, 5 slots, 4 bytes of entries
    assert struct.unpack_from("<II", data, table) == (2, 5)
    struct.pack_into("<II", data, table, 2, 4)
    with pytest.raises(ValueError):
        lookup.loads(bytes(data))
