"""Issue 15: the same raw/ gives the same graph and wiki (the log aside), whatever order the sources
arrived in and however they were split between compiles. The many-history run is
`python benchmarks/determinism.py`."""

from __future__ import annotations

import hashlib
import itertools
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg import api
from kg.kb import KnowledgeBase, init
from tests.conftest import EXAMPLES, is_log, load_benchmark

NOTES = sorted(p.name for p in EXAMPLES.iterdir())


QUERIES: dict[str, str] = dict(load_benchmark("determinism").GRAPH_QUERIES)


def state(kb: KnowledgeBase) -> tuple[dict[str, str], dict[str, Any]]:
    pages = {p.relative_to(kb.wiki).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in sorted(kb.wiki.rglob("*")) if p.is_file() and not is_log(p.relative_to(kb.wiki).as_posix())}
    return pages, {name: api.cypher(kb, query) for name, query in QUERIES.items()}


def compile_history(root: Path, slices: list[list[str]]) -> tuple[dict[str, str], dict[str, Any]]:
    shutil.rmtree(root, ignore_errors=True)
    kb, _ = init(root)
    for part in slices:
        for name in part:
            shutil.copyfile(EXAMPLES / name, kb.raw / name)
        api.compile_kb(kb, "heuristic")
    return state(kb)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], dict[str, Any]]:
    return compile_history(tmp_path_factory.mktemp("one") / "kb", [NOTES])


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.permutations(NOTES), st.lists(st.integers(1, len(NOTES) - 1), max_size=4, unique=True))
def test_any_order_and_split_gives_one_compiles_graph_and_wiki(
        tmp_path_factory: pytest.TempPathFactory, reference: tuple[dict[str, str], dict[str, Any]],
        order: list[str], cuts: list[int]) -> None:
    bounds = [0, *sorted(cuts), len(order)]
    slices = [order[a:b] for a, b in itertools.pairwise(bounds)]
    pages, graph = compile_history(tmp_path_factory.mktemp("history") / "kb", slices)
    ref_pages, ref_graph = reference
    assert {t: rows for t, rows in graph.items() if rows != ref_graph[t]} == {}
    assert sorted(p for p in set(pages) | set(ref_pages) if pages.get(p) != ref_pages.get(p)) == []
