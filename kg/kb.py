"""A knowledge base on disk: where things live, and `kg init`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from kg.config import CONFIG_FILE, DEFAULT_CONFIG, Config
from kg.errors import NotAKnowledgeBase

LOCK_FILE = "lock.json"
CLAIM_KEYS_FILE = "claim-keys.sqlite"  # beside the graph: kg/compile/candidates.py
PENDING_ENTITY = "entity:"  # beside the graph: the process that holds the knowledge base



@dataclass(frozen=True)
class KnowledgeBase:
    root: Path

    @property
    def raw(self) -> Path:
        return self.root / "raw"

    @property
    def wiki(self) -> Path:
        return self.root / "wiki"

    @property
    def insights(self) -> Path:
        return self.root / "insights"

    @property
    def learning(self) -> Path:
        """Generated cards and gaps, and the person's review history (learning/reviews.jsonl)."""
        return self.root / "learning"

    @property
    def state(self) -> Path:
        return self.root / ".kg"

    # Every file kg keeps in .kg/ (README: "What lives in .kg/").
    @property
    def db_path(self) -> Path:
        return self.state / "graph.kuzu"

    @property
    def journal_path(self) -> Path:
        return self.state / "journal.sqlite"

    @property
    def claim_keys_path(self) -> Path:
        """The contradiction candidates' keys of the live claims: derived from the graph, safe to delete."""
        return self.state / CLAIM_KEYS_FILE

    @property
    def cache_path(self) -> Path:
        return self.state / "cache.sqlite"

    @property
    def ledger_path(self) -> Path:
        return self.state / "ledger.json"

    @property
    def vectors_path(self) -> Path:
        return self.state / "vectors.sqlite"

    @property
    def converted_path(self) -> Path:
        """Cache of documents converted to markdown (PDF, DOCX, ...): derived, safe to delete."""
        return self.state / "converted"

    @property
    def walk_graph_path(self) -> Path:
        return self.state / "walk-graph.npz"

    @property
    def pending_path(self) -> Path:
        return self.state / "render-pending.json"

    @property
    def lock_path(self) -> Path:
        return self.state / LOCK_FILE

    @property
    def broken_dir(self) -> Path:
        return self.state / "broken"

    def graph_caches(self) -> list[Path]:
        """Files derived from the graph as it is: stale once it is replaced."""
        return [self.walk_graph_path, self.pending_path]

    # What a compile changed and the wiki does not show yet: written before the compile writes,
    # removed after the render. Sources are raw/ paths; entities (whose groups are to be redone
    # and pages rendered) are prefixed "entity:".
    def pending(self) -> tuple[set[str], set[str]]:
        """(sources, entities) a compile changed that the wiki does not show yet."""
        try:
            items = set(json.loads(self.pending_path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return set(), set()
        entities = {i[len(PENDING_ENTITY):] for i in items if i.startswith(PENDING_ENTITY)}
        return {i for i in items if not i.startswith(PENDING_ENTITY)}, entities

    def mark_pending(self, sources: Iterable[str], entities: Iterable[str] = ()) -> None:
        items = sorted({*sources, *(PENDING_ENTITY + e for e in entities)})
        tmp = self.pending_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(items), encoding="utf-8")
        tmp.replace(self.pending_path)

    def clear_pending(self) -> None:
        self.pending_path.unlink(missing_ok=True)

    @property
    def config_path(self) -> Path:
        return self.root / CONFIG_FILE

    def config(self) -> Config:
        return Config.load(self.config_path)

    @classmethod
    def find(cls, start: Path | None = None) -> KnowledgeBase:
        """The knowledge base containing `start` (default: the current folder), like git."""
        here = (start or Path.cwd()).resolve()
        for folder in (here, *here.parents):
            if (folder / CONFIG_FILE).is_file():
                return cls(folder)
        raise NotAKnowledgeBase(
            f"No {CONFIG_FILE} found in {here} or any parent folder. "
            "Run `kg init` to create a knowledge base, or pass --kb DIR."
        )


def init(root: Path, files: Mapping[str, str] | None = None) -> tuple[KnowledgeBase, list[str]]:
    """Create the folders, kg.toml and `files` (name -> text, e.g. AGENTS.md); returns what was
    created. Idempotent: existing files are kept."""
    kb = KnowledgeBase(root.resolve())
    created: list[str] = []
    for folder in (kb.root, kb.raw, kb.wiki, kb.insights, kb.state):
        if not folder.exists():
            folder.mkdir(parents=True)
            created.append(str(folder.relative_to(kb.root.parent)) + "/")
    for path, text in ((kb.config_path, DEFAULT_CONFIG), *((kb.root / name, text) for name, text in (files or {}).items())):
        if not path.exists():
            path.write_text(text, encoding="utf-8")
            created.append(path.name)
    return kb, created
