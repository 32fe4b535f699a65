"""`kg compile --engine ray` (issue 20 item 3): extraction on Ray workers, one writer, the same graph and wiki.

Ray starts once for the module (local, 2 CPUs); the tests that need it skip when it is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kg.compile.engine import RayEngine
from kg.graph.store import Store
from kg.kb import KnowledgeBase, init
from tests.conftest import EXAMPLES, is_log, tree_digest
from tests.conftest import run_cli as run

ROOT = Path(__file__).resolve().parent.parent



@pytest.fixture(scope="module")
def ray_local() -> Iterator[None]:
    ray = pytest.importorskip("ray")
    old = os.environ.get("PYTHONPATH")
    # workers are new processes: they import kg from this checkout, as the driver does
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *([old] if old else [])])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def example_kb(root: Path) -> KnowledgeBase:
    kb, _ = init(root)
    for note in sorted(EXAMPLES.iterdir()):
        shutil.copyfile(note, kb.raw / note.name)
    (kb.raw / "empty.md").write_text("", encoding="utf-8")  # fails on either engine, with the same message
    return kb


def graph(kb: KnowledgeBase) -> dict[str, object]:
    with Store(kb.db_path, read_only=True) as store:
        def ids(query: str) -> list[str]:
            return sorted(r["id"] for r in store.query(query))

        return {
            "entities": ids("MATCH (e:Entity) RETURN e.id AS id"),
            "claims": ids("MATCH (c:Claim) WHERE c.status = 'live' RETURN c.id AS id"),
            "evidence": sorted((r["c"], r["s"], r["a"], r["b"]) for r in store.query(
                "MATCH (c:Claim)-[e:EXTRACTED_FROM]->(s:Source) "
                "RETURN c.id AS c, s.path AS s, e.char_start AS a, e.char_end AS b")),
            "sources": sorted((r["p"], r["st"], r["sha"], r["err"]) for r in store.query(
                "MATCH (s:Source) RETURN s.path AS p, s.status AS st, s.sha256 AS sha, s.error AS err")),
        }


def wiki(kb: KnowledgeBase) -> dict[str, str]:
    return {page: digest for page, digest in tree_digest(kb.wiki).items() if not is_log(page)}


@pytest.mark.usefixtures("ray_local")
def test_ray_compile_is_a_plain_compile(tmp_path: Path) -> None:
    plain, fanned = example_kb(tmp_path / "plain"), example_kb(tmp_path / "ray")
    code, out_plain = run("compile", "--kb", str(plain.root), "-x", "heuristic", "--json")
    assert code == 1, out_plain  # empty.md failed, the others compiled
    code, out_ray = run("compile", "--kb", str(fanned.root), "-x", "heuristic", "--engine", "ray", "--json")
    assert code == 1, out_ray
    assert graph(plain) == graph(fanned)
    assert len(graph(plain)["claims"]) > 50  # type: ignore[arg-type]
    # byte-identical wiki (log pages carry the compile's time)
    assert wiki(plain) == wiki(fanned)
    assert len(wiki(plain)) > 30
    # an edit then recompiles the same way
    for kb in (plain, fanned):
        (kb.raw / "eniac.md").write_text((kb.raw / "eniac.md").read_text(encoding="utf-8")
                                         + "\nENIAC was retired in 1955.\n", encoding="utf-8")
    assert run("compile", "--kb", str(plain.root), "-x", "heuristic")[0] == 1
    assert run("compile", "--kb", str(fanned.root), "-x", "heuristic", "--engine", "ray")[0] == 1
    assert graph(plain) == graph(fanned)
    assert wiki(plain) == wiki(fanned)


@pytest.mark.usefixtures("ray_local")
def test_ray_compile_of_100_hotpotqa_passages_is_a_plain_compile(tmp_path: Path) -> None:
    """Issue 20's check: `kg compile --engine ray` on 100 passages gives the same wiki as `kg compile`."""
    data = Path(os.environ.get("KG_DATA_DIR") or ROOT.parent / "shared" / "data") / "hotpotqa-100" / "corpus.jsonl"
    if not data.is_file():
        pytest.skip(f"no benchmark data at {data} (set KG_DATA_DIR)")
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()[:100]]
    kbs = []
    for name in ("plain", "ray"):
        kb, _ = init(tmp_path / name)
        for row in rows:
            (kb.raw / f"{row['id']}.md").write_text(f"# {row['title']}\n\n{row['text']}\n", encoding="utf-8")
        kbs.append(kb)
    assert run("compile", "--kb", str(kbs[0].root), "-x", "heuristic", "-q")[0] == 0
    assert run("compile", "--kb", str(kbs[1].root), "-x", "heuristic", "-q", "--engine", "ray")[0] == 0
    assert graph(kbs[0]) == graph(kbs[1])
    assert wiki(kbs[0]) == wiki(kbs[1])


@pytest.mark.usefixtures("ray_local")
def test_ray_engine_yields_in_order_with_few_tasks_in_flight() -> None:
    engine = RayEngine(group=3, window=2)
    assert list(engine.map(str, range(50))) == [str(i) for i in range(50)]
    assert list(engine.map(str, [])) == []
    engine.close()  # started by the fixture: left running


def test_ray_missing_says_how_to_install(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    code, output = run("compile", "--kb", str(kb.root), "-x", "heuristic", "--engine", "ray")
    assert code == 2, output
    assert "pip install 'kg[ray]'" in output
    assert not kb.db_path.exists() or "Source" not in output


def test_ray_refuses_an_llm_extractor_and_unknown_engines(kb: KnowledgeBase) -> None:
    code, output = run("compile", "--kb", str(kb.root), "-x", "anthropic", "--engine", "ray")
    assert code == 2, output
    assert "heuristic extractor only" in output
    code, output = run("compile", "--kb", str(kb.root), "--engine", "spark")
    assert code == 2, output
    assert "unknown engine" in output
    code, output = run("compile", "--kb", str(kb.root), "--address", "10.0.0.1:6379")
    assert code == 2, output
    assert "--engine ray" in output


def test_an_address_where_nothing_answers_fails_at_once(kb: KnowledgeBase) -> None:
    import socket

    with socket.socket() as probe:  # a free loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code, output = run("compile", "--kb", str(kb.root), "-x", "heuristic", "--engine", "ray",
                       "--address", f"127.0.0.1:{port}")
    assert code == 2, output
    assert "nothing answers at" in output
