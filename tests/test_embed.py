from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kg import api
from kg.embed import (
    HashingEmbedder,
    MiniLMEmbedder,
    MiniLMTorchEmbedder,
    VectorCache,
    _session,
    top_k,
)
from kg.kb import KnowledgeBase, init


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


def test_onnx_runtime_gives_the_models_numbers_under_its_own_cache_key(tmp_path: Path) -> None:
    """Issue 22: questions and documents go through onnxruntime, with the numbers sentence-transformers
    gives; vectors of the two runtimes never share a cache key."""
    texts = ["Who designed ENIAC?", "The Intel 4004 was clocked at 740 kHz. " * 80]  # the second is cut at 256 tokens
    onnx, torch_ = MiniLMEmbedder(), MiniLMTorchEmbedder()
    assert float(np.abs(onnx.embed(texts) - torch_.embed(texts)).max()) < 1e-5
    assert onnx.key(texts[0]) != torch_.key(texts[0])
    assert onnx.model_path().is_file()


def test_a_question_embedded_by_one_thread_is_the_same_bits() -> None:
    """A process whose first batch is one text (a question, its vectors cached) runs a session of
    one thread: its numbers are those of the pooled session, bit for bit (one cache serves both)."""
    texts = ["Who designed ENIAC?", "Which state highway runs east to west in Jefferson County?",
             "The Intel 4004 was clocked at 740 kHz. " * 80, "Bananas are rich in potassium."]
    single, pooled = MiniLMEmbedder(), MiniLMEmbedder()
    one_by_one = np.concatenate([single.embed_batch([text]) for text in texts])
    assert single._load()[0].get_session_options().intra_op_num_threads == 1
    assert pooled._load(len(texts))[0].get_session_options().intra_op_num_threads == 0
    assert np.array_equal(one_by_one, pooled.embed_batch(texts))
    assert np.array_equal(one_by_one, np.concatenate([pooled.embed_batch([text]) for text in texts]))



def test_a_kept_embedder_is_sized_for_bulk_work_whatever_its_first_batch() -> None:
    """kg serve's read worker keeps its embedder: a first question of one text must not leave it one
    thread for the re-embedding after a large compile."""
    kept = MiniLMEmbedder()
    kept.long_lived = True
    kept.embed_batch(["Who designed ENIAC?"])
    assert kept._load()[0].get_session_options().intra_op_num_threads == 0


def test_a_read_worker_keeps_a_long_lived_embedder(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    from kg.api import reads
    from kg.graph import kept

    monkeypatch.setattr(kept, "keeping", lambda: True)
    monkeypatch.setattr(reads, "_KEPT_EMBEDDERS", {})
    assert reads._embedder(kb, "hashing").long_lived
    monkeypatch.setattr(kept, "keeping", lambda: False)
    assert not reads._embedder(kb, "hashing").long_lived

def test_the_optimised_model_keeps_its_weights_apart_with_the_same_bits(tmp_path: Path) -> None:
    """The graph optimised once is saved with its weights in a file of their own (mapped, not
    copied, by each process that loads it); loaded, it gives the numbers of the session that made it."""
    import onnxruntime

    model = MiniLMEmbedder().model_path()
    MiniLMEmbedder().embed_batch(["made"])  # the exported model, once
    (tmp_path / model.name).symlink_to(model)  # the optimised files are written beside it
    made = _session(onnxruntime, tmp_path / model.name)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([model.name, f"{model.stem}.opt-ext.onnx", f"{model.stem}.opt-ext.data"])
    loaded = _session(onnxruntime, tmp_path / model.name, threads=1)
    ids = np.array([[101, 2040, 2881, 4372, 6305, 1029, 102]], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    assert np.array_equal(made.run(["hidden"], feed)[0], loaded.run(["hidden"], feed)[0])


def test_commands_that_need_no_model_import_no_runtime(tmp_path: Path) -> None:
    """`kg status`, `kg cypher`, `kg lint` and `kg --help` import neither torch nor the embedding runtime."""
    import subprocess
    import sys

    base, _ = init(tmp_path / "kb")
    (base.raw / "a.md").write_text("# ENIAC\n\nENIAC weighed 27 tonnes.\n", encoding="utf-8")
    api.compile_kb(base, "heuristic")
    heavy = ("torch", "sentence_transformers", "onnxruntime", "tokenizers", "transformers")
    for args in (["status"], ["cypher", "MATCH (e:Entity) RETURN count(*) AS n"], ["lint"], ["--help"]):
        probe = (f"import sys\nfrom kg.cli import app\ntry:\n    app({args!r})\nexcept SystemExit:\n    pass\n"
                 f"print(sorted(m for m in {heavy!r} if m in sys.modules))")
        done = subprocess.run([sys.executable, "-c", probe], cwd=base.root, capture_output=True, text=True)
        assert done.stdout.strip().splitlines()[-1] == "[]", (args, done.stdout[-300:], done.stderr[-300:])
