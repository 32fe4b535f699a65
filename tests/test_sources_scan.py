"""`scan` walks raw/ with os.scandir; it must find what the rglob version found, in the same order."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.compile.sources import (
    is_supported,
    scan,
    scan_files,
    sha256_bytes,
    sha256_file,
    stat_signature,
)


def rglob_scan(raw: Path) -> list[Path]:
    """`scan` as it was before os.scandir (the reference)."""
    if not raw.is_dir():
        return []
    found = [
        p
        for p in raw.rglob("*")
        if p.is_file() and is_supported(p) and not any(part.startswith(".") for part in p.relative_to(raw).parts)
    ]
    return sorted(found, key=lambda p: p.relative_to(raw).as_posix())


def write(path: Path, text: str = "x") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_scan_order_hidden_suffixes_and_symlinks(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    for rel in ("b.md", "a.md", "a-b.md", "a/b.md", "a/a.MD", "a/c.Markdown", "a/notes.txt", "A.md", "z/y/x/deep.md",
                "a.b/c.md", "_x.md", "1.md", "é.md", "a/zz.md"):
        write(raw / rel)
    for rel in (".hidden.md", ".git/config.md", "a/.obsidian/w.md", "x.pdf", "x.", "x.md.bak", "a/.md", "noext"):
        write(raw / rel)
    (raw / "empty-dir").mkdir()
    (raw / "folder.md").mkdir()  # a folder with a supported suffix is not a file
    outside = tmp_path / "outside"
    write(outside / "linked.md")
    write(outside / "target.md")
    (raw / "dirlink").symlink_to(outside, target_is_directory=True)  # not descended into (as rglob)
    (raw / "filelink.md").symlink_to(outside / "target.md")  # a symlink to a file is a file
    (raw / "broken.md").symlink_to(tmp_path / "missing.md")

    expected = rglob_scan(raw)
    assert scan(raw) == expected
    rels = [p.relative_to(raw).as_posix() for p in expected]
    assert rels == sorted(rels)
    assert "filelink.md" in rels and "a/a.MD" in rels and "a-b.md" in rels
    assert not any(r.startswith(("dirlink", "broken", ".")) or "/." in r for r in rels)
    found = scan_files(raw)
    assert [rel for rel, _, _ in found] == rels
    assert [path for _, path, _ in found] == [str(p) for p in expected]
    for _, path, stat in found:
        assert stat_signature(stat) == stat_signature(os.stat(path))


def test_scan_of_a_missing_or_empty_folder(tmp_path: Path) -> None:
    assert scan(tmp_path / "missing") == [] and scan_files(tmp_path / "missing") == []
    (tmp_path / "raw").mkdir()
    assert scan(tmp_path / "raw") == []


segment = st.sampled_from(["a", "b", "B", "a-b", "a.b", "_", ".h", "x y", "é", "1", "a0"])
suffix = st.sampled_from([".md", ".txt", ".MD", ".markdown", ".pdf", "", ".md~"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.lists(segment, max_size=3), segment, suffix), max_size=25))
def test_scan_equals_rglob_on_random_trees(tmp_path_factory: pytest.TempPathFactory,
                                           files: list[tuple[list[str], str, str]]) -> None:
    raw = tmp_path_factory.mktemp("tree") / "raw"
    raw.mkdir()
    for folders, stem, ext in files:
        path = raw.joinpath(*folders, stem + ext)
        if any(p.is_file() for p in [path, *path.parents]) or path.is_dir():
            continue  # a file where a folder is wanted, or the reverse
        write(path)
    assert scan(raw) == rglob_scan(raw)


def test_sha256_file_equals_sha256_of_the_bytes(tmp_path: Path) -> None:
    data = os.urandom(300_000)
    (tmp_path / "f.md").write_bytes(data)
    assert sha256_file(tmp_path / "f.md") == sha256_file(str(tmp_path / "f.md")) == sha256_bytes(data)
