"""Sets and maps of strings laid out as hash tables in bytes, looked up where they lie (the bytes of
a file) instead of being rebuilt as Python objects: a process that asks a few thousand questions
of 400,000 names pays for those questions only, not for building a frozenset of them (issue 46:
reading the gazetteer tables took a one-edit compile 0.15 s of CPU and 60 MB).

`dumps(value)` lays out a value: every frozenset of strings and dict of strings to strings in it
(inside tuples too) becomes a hash table, unless it is small; anything else is kept as `marshal`
writes it.
`loads(buffer)` gives the value back with each table as a read-only `FileSet` or `FileMap`, equal
to what was laid out and asked the same way (`in`, `get`, `[]`, `len`, iteration).

A table: a header (keys, slots), the slots (where the entry of the key whose CRC-32 leads there
lies; open addressing, half full) and the entries (the key's UTF-8 bytes and a NUL; in a map, the
value's and a NUL). Strings holding a NUL are kept by marshal.
"""

from __future__ import annotations

import marshal
import struct
import zlib
from collections.abc import Iterable, Iterator, Mapping, Set
from typing import Any

_PAIR = struct.Struct("<II")  # a table's header: its keys, its slots
_SLOT = struct.Struct("<I")  # where a key's entry lies in its table (0: an empty slot)
_LENGTH = struct.Struct("<Q")  # the skeleton's length
_MISSING = object()


def dumps(value: Any, smallest: int = 4096) -> bytes:
    """The bytes `loads` reads back as `value`. Sets and maps of fewer than `smallest` keys are
    kept by marshal: built whole, they cost less than asking a table in the file a few times."""
    tables: list[bytes] = []
    offset = [0]

    def shape(part: Any) -> Any:
        if type(part) is frozenset and len(part) >= smallest and all(_text(k) for k in part):
            return ("set", place(_table(sorted(part), None)))
        if type(part) is dict and len(part) >= smallest and all(_text(k) and _text(v) for k, v in part.items()):
            return ("map", place(_table(sorted(part), part)))
        if type(part) is tuple:
            return ("tuple", tuple(shape(p) for p in part))
        return ("value", part)

    def place(table: bytes) -> int:
        at = offset[0]
        table += b"\0" * (-len(table) % 8)
        tables.append(table)
        offset[0] += len(table)
        return at

    skeleton = marshal.dumps(shape(value))
    head = _LENGTH.pack(len(skeleton)) + skeleton
    return head + b"\0" * (-len(head) % 8) + b"".join(tables)


def loads(buffer: Any, start: int = 0) -> Any:
    """The value laid out by `dumps` at `start` of `buffer` (bytes, which the tables keep reading
    from). Raises ValueError, EOFError, TypeError or struct.error for bytes that are
    not one."""
    (length,) = _LENGTH.unpack_from(buffer, start)
    skeleton = marshal.loads(buffer[start + 8 : start + 8 + length])
    base = start + 8 + length
    base += -(base - start) % 8

    def build(shape: Any) -> Any:
        kind, part = shape
        if kind == "set":
            return FileSet(buffer, base + part)
        if kind == "map":
            return FileMap(buffer, base + part)
        if kind == "tuple":
            return tuple(build(p) for p in part)
        if kind == "value":
            return part
        raise ValueError(f"not a laid-out value: {kind!r}")

    return build(skeleton)


def _text(value: object) -> bool:
    """A string an entry can hold (NUL ends one)."""
    return type(value) is str and "\0" not in value


def _table(keys: list[str], values: dict[str, str] | None) -> bytes:
    slots = 2 * len(keys) + 1
    table = [0] * slots
    entries = bytearray()
    first = _PAIR.size + _SLOT.size * slots
    for key in keys:
        encoded = key.encode("utf-8", "surrogatepass") + b"\0"
        i = zlib.crc32(encoded) % slots
        while table[i]:
            i = (i + 1) % slots
        table[i] = first + len(entries)
        entries += encoded + (values[key].encode("utf-8", "surrogatepass") + b"\0" if values is not None else b"")
    return _PAIR.pack(len(keys), slots) + struct.pack(f"<{slots}I", *table) + bytes(entries)


_REMEMBERED = 200_000  # answers a table keeps before it starts again


class _Table:
    """A hash table laid out at `base` of `buffer`; what each key was asked is remembered."""

    _values = False  # whether each key is followed by a value

    def __init__(self, buffer: Any, base: int) -> None:
        self._buffer, self._base = buffer, base
        self._count, self._slots = _PAIR.unpack_from(buffer, base)
        if self._slots != 2 * self._count + 1:
            raise ValueError("not a laid-out table")
        self._answers: dict[str, Any] = {}

    def _find(self, key: str) -> Any:
        """The key's value as bytes (b"" in a set), or _MISSING."""
        encoded = key.encode("utf-8", "surrogatepass") + b"\0"
        if b"\0" in encoded[:-1]:
            return _MISSING
        buffer, slots, first = self._buffer, self._slots, self._base + _PAIR.size
        i = zlib.crc32(encoded) % slots
        while True:
            (at,) = _SLOT.unpack_from(buffer, first + _SLOT.size * i)
            if not at:
                return _MISSING
            start = self._base + at
            if buffer[start : start + len(encoded)] == encoded:
                start += len(encoded)
                return buffer[start : buffer.find(b"\0", start)] if self._values else b""
            i = (i + 1) % slots

    def _lookup(self, key: Any) -> Any:
        """The key's value ("" in a set) decoded, or _MISSING; remembered."""
        if not isinstance(key, str):
            return _MISSING
        key = str(key)  # a subclass (numpy's str_) asks as the plain string
        answer = self._answers.get(key)
        if answer is None:
            if len(self._answers) >= _REMEMBERED:
                self._answers.clear()  # a long-lived server asks ever more names: memory stays bounded
            found: Any = self._find(key)
            answer = self._answers[key] = found if found is _MISSING else found.decode("utf-8", "surrogatepass")
        return answer

    def _entries(self) -> Iterator[tuple[str, str]]:
        buffer = self._buffer
        at = self._base + _PAIR.size + _SLOT.size * self._slots
        for _ in range(self._count):
            end = buffer.find(b"\0", at)
            key = buffer[at:end].decode("utf-8", "surrogatepass")
            at = end + 1
            if self._values:
                end = buffer.find(b"\0", at)
                yield key, buffer[at:end].decode("utf-8", "surrogatepass")
                at = end + 1
            else:
                yield key, ""

    def __len__(self) -> int:
        return self._count


class FileSet(_Table, Set[str]):
    """A frozenset of strings, read in place."""

    def __contains__(self, key: object) -> bool:
        return self._lookup(key) is not _MISSING

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self._entries())

    @classmethod
    def _from_iterable(cls, items: Iterable[Any]) -> frozenset[Any]:  # what set operations give
        return frozenset(items)

    def __repr__(self) -> str:
        return f"FileSet({self._count} keys)"


class FileMap(_Table, Mapping[str, str]):
    """A dict of strings to strings, read in place."""

    _values = True

    def __getitem__(self, key: str) -> str:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        found = self._lookup(key)
        return default if found is _MISSING else found

    def __contains__(self, key: object) -> bool:
        return self._lookup(key) is not _MISSING

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self._entries())

    def __repr__(self) -> str:
        return f"FileMap({self._count} keys)"
