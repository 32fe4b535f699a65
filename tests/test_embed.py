from __future__ import annotations

from pathlib import Path

import numpy as np

from kg.embed import HashingEmbedder, MiniLMEmbedder, VectorCache, top_k


def test_hashing_embedder_is_deterministic_normalised_and_cached(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "v.sqlite")
    embedder = HashingEmbedder(cache)
    texts = ["ENIAC weighed 27 tonnes", "Colossus read paper tape", "ENIAC weighed 27 tonnes"]
    first = embedder.embed(texts)
    assert first.shape == (3, 384) and np.allclose(np.linalg.norm(first, axis=1), 1.0)
    assert embedder.embedded == 2  # the duplicate is embedded once
    again = HashingEmbedder(VectorCache(tmp_path / "v.sqlite"))
    assert np.array_equal(again.embed(texts), first) and again.embedded == 0


def test_top_k_orders_by_cosine() -> None:
    embedder = HashingEmbedder()
    matrix = embedder.embed(["the transistor replaced vacuum tubes", "bananas are yellow", "vacuum tubes were replaced"])
    hits = top_k(embedder.embed(["vacuum tubes replaced"])[0], matrix, 2)
    assert [i for i, _ in hits] == [2, 0]


def test_minilm_loads_offline_from_the_package() -> None:
    embedder = MiniLMEmbedder()
    vectors = embedder.embed(["The program counter holds the next address.", "The PC points at the next instruction.",
                              "Bananas are rich in potassium."])
    assert vectors.shape == (3, 384)
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2]) + 0.2
