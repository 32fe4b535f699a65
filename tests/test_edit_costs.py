"""What a one-edit compile no longer pays for (issue 46): pandas, imported by pyarrow and Kuzu only
to ask whether kg's rows are pandas objects; templates compiled in every process; a folder of
pages listed once per page asked about."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from exporters import wiki
from exporters.incremental import continuation_files, folders_listed_once


def test_a_graph_write_imports_no_pandas_and_pandas_still_works_after(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from kg.graph.store import Store, WriteBatch\n"
        "with Store(Path(sys.argv[1])) as store:\n"
        "    batch = WriteBatch()\n"
        "    for n in range(40):\n"
        "        batch.add('Entity', {'id': f'e{n}', 'name': f'E {n}', 'type': 'concept', 'aliases': ['x'] * (n % 3),\n"
        "                             'summary': None, 'status': 'live', 'created_at': 't'})\n"
        "    store.write(batch)\n"
        "    assert 'pandas' not in sys.modules, 'a write imported pandas'\n"
        "    rows = store.query('MATCH (e:Entity) RETURN e.id AS id, e.aliases AS aliases ORDER BY e.id')\n"
        "    assert len(rows) == 40 and rows[1] == {'id': 'e1', 'aliases': ['x']}\n"
        "    import pandas, pyarrow\n"  # whoever needs pandas later gets it, and pyarrow works with it
        "    frame = store.table('MATCH (e:Entity) RETURN e.id AS id').to_pandas()\n"
        "    assert len(pyarrow.Table.from_pandas(frame)) == 40 and len(pyarrow.array(frame['id'])) == 40\n"
        "    batch = WriteBatch()\n"
        "    batch.add('Entity', {'id': 'late', 'name': 'Late', 'type': 'concept', 'aliases': [], 'summary': None,\n"
        "                         'status': 'live', 'created_at': 't'})\n"
        "    store.write(batch)\n"
        "    assert sys.modules['pandas'] is pandas\n"
    )
    subprocess.run([sys.executable, "-c", probe, str(tmp_path / "g.kuzu")], check=True)


def test_templates_are_compiled_once_and_render_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_CACHE_DIR", str(tmp_path / "cache"))
    wiki._compiled_templates.cache_clear()
    values = {"title": "T", "group": "g", "entries": 1, "folder": "f", "leaves": [], "parent": None}
    cold = wiki.environment().get_template("index_list.md.j2").render(**values)
    kept = list((tmp_path / "cache").glob("templates-*/*"))
    assert kept
    assert wiki.environment().get_template("index_list.md.j2").render(**values) == cold  # from the file
    for path in kept:
        path.write_bytes(path.read_bytes()[:40])  # cut: compiled anew, no error
    assert wiki.environment().get_template("index_list.md.j2").render(**values) == cold
    wiki._compiled_templates.cache_clear()


def test_templates_render_where_no_cache_folder_can_be_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("KG_CACHE_DIR", str(tmp_path / "file"))
    wiki._compiled_templates.cache_clear()
    assert wiki.environment().bytecode_cache is None
    assert wiki.environment().get_template("index_list.md.j2").render(
        title="T", group="g", entries=1, folder="f", leaves=[], parent=None)
    wiki._compiled_templates.cache_clear()


def test_continuation_parts_listed_once_are_the_parts_listed_each_time(tmp_path: Path) -> None:
    folder = tmp_path / "entities"
    folder.mkdir()
    for name in ("a.md", "a.2.md", "a.10.md", "a.3.md", "a.x.md", "a.b.2.md", "a..md", "b.2.md", "ab.2.md", "a.2.txt"):
        (folder / name).write_text("")
    pages = ["entities/a", "entities/a.b", "entities/b", "entities/ab", "entities/c", "missing/a"]
    each_time = {page: continuation_files(tmp_path, page) for page in pages}
    assert [p.name for p in each_time["entities/a"]] == ["a.2.md", "a.3.md", "a.10.md"]
    with folders_listed_once():
        assert {page: continuation_files(tmp_path, page) for page in pages} == each_time
        (folder / "c.2.md").write_text("")  # not seen until the block ends (renders write after it)
        assert continuation_files(tmp_path, "entities/c") == []
    assert continuation_files(tmp_path, "entities/c") == [folder / "c.2.md"]


def test_pandas_stays_visible_while_another_thread_runs() -> None:
    """kg serve's and kg watch's threads may import pandas during a write: it is hidden only when
    no other thread (a progress bar's redraw aside) runs."""
    import threading

    from kg.graph.store import _other_threads

    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, daemon=True)
    worker.start()
    try:
        assert _other_threads()
    finally:
        stop.set()
        worker.join()
