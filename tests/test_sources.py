from __future__ import annotations

from pathlib import Path

import pytest

from kg.compile.sources import ingest_paths, parse_frontmatter, parse_source, read_source
from kg.errors import SourceError


def test_empty_binary_and_bad_utf8_are_clear_errors() -> None:
    with pytest.raises(SourceError, match="empty"):
        parse_source("a.md", b"  \n", {})
    with pytest.raises(SourceError, match="binary"):
        parse_source("a.md", b"PK\x03\x04\x00\x00", {})
    with pytest.raises(SourceError, match=r"UTF-8 \(byte 6, line 2\)"):
        parse_source("a.md", b"hello\n\xff\xfe", {})


def test_too_big_is_an_error_that_names_the_setting(tmp_path: Path) -> None:
    (tmp_path / "big.md").write_text("x" * 100)
    with pytest.raises(SourceError, match="max_source_bytes"):
        read_source(tmp_path, tmp_path / "big.md", max_bytes=50)


def test_title_from_frontmatter_then_heading_then_file_name() -> None:
    assert parse_source("n.md", b"---\ntitle: 'A: \"b\"'\n---\n# H\n", {}).title == 'A: "b"'
    assert parse_source("n.md", b"intro\n\n## Heading *one*\n", {}).title == "Heading *one*"
    assert parse_source("my-note.txt", b"# not a heading in text\n", {}).title == "My note"


def test_frontmatter_lists_and_authority() -> None:
    text = "---\ntags: [a, b]\naliases:\n  - X\n  - 'Y'\nauthority: 2\n---\nbody"
    assert parse_frontmatter(text) == {"tags": ["a", "b"], "aliases": ["X", "Y"], "authority": "2"}
    assert parse_source("n.md", text.encode(), {}).authority == 2
    assert parse_source("papers/p.md", b"body", {"papers/*": 3}).authority == 3


def test_ingest_copies_never_overwrites_and_reports(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a.md").write_text("original")
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.md").write_text("different")
    (src / "b.md").write_text("new")
    (src / "c.png").write_bytes(b"\x89PNG")  # not a format kg reads (PDF is, issue 25)
    report = ingest_paths(raw, [src])
    assert report.copied == ["in/b.md"] or report.copied == ["b.md"] or "in/b.md" in report.copied
    assert (raw / "a.md").read_text() == "original"
    assert any(p.endswith("c.png") for p in report.unsupported)
    report2 = ingest_paths(raw, [src / "a.md"])
    assert report2.conflicts == ["a.md"]
    assert (raw / "a.md").read_text() == "original"
    with pytest.raises(SourceError, match="no such file"):
        ingest_paths(raw, [tmp_path / "missing.md"])
