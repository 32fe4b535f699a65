from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from kg.kb import KnowledgeBase, init

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "notes"


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    base, _ = init(tmp_path / "kb")
    return base


@pytest.fixture
def example_kb(kb: KnowledgeBase) -> KnowledgeBase:
    for note in sorted(EXAMPLES.iterdir()):
        shutil.copyfile(note, kb.raw / note.name)
    return kb


def tree_digest(folder: Path) -> dict[str, str]:
    """{relative path: sha256} of every file under folder."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }
