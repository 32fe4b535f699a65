"""A small persistent key -> JSON cache (SQLite), for LLM replies and embeddings.

Keys are content hashes, so a recompile of unchanged input is answered from here.

Also the user's cache folder, for what kg derives from its installed packages alone (gazetteer
tables, compiled templates) and keeps between processes whatever the knowledge base.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any


def user_cache_dir() -> Path | None:
    """$KG_CACHE_DIR, else $XDG_CACHE_HOME/kg, else ~/.cache/kg; None when no home folder is known."""
    base = os.environ.get("KG_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    try:
        return Path(xdg) / "kg" if xdg else Path.home() / ".cache" / "kg"
    except RuntimeError:
        return None


def content_key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x1f")
    return digest.hexdigest()


class ResponseCache:
    def __init__(self, path: Path | None) -> None:
        """`path=None` keeps the cache in memory (tests, dry runs)."""
        target = ":memory:" if path is None else str(path)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(target, timeout=30, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self._db.commit()

    def get(self, key: str) -> Any | None:
        row = self._db.execute("SELECT value FROM cache WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: Any) -> None:
        self._db.execute("INSERT OR REPLACE INTO cache (key, value) VALUES (?, ?)", (key, json.dumps(value)))
        self._db.commit()

    def __len__(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM cache").fetchone()[0])

    def close(self) -> None:
        self._db.close()
