from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from kg.graph.fts import ensure_indexes
from kg.kb import KnowledgeBase, init
from kg.llm.ledger import run_ledger

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "notes"
BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load_benchmark(name: str) -> ModuleType:
    """A benchmarks/NAME.py script as a module, with benchmarks/harness.py, which it imports as
    `harness` (run as a script, its folder is on sys.path; here it is loaded by path instead)."""
    for module_name in ("harness", name):
        if module_name in sys.modules:
            continue
        spec = importlib.util.spec_from_file_location(module_name, BENCHMARKS / f"{module_name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    base, _ = init(tmp_path / "kb")
    return base


@pytest.fixture
def example_kb(kb: KnowledgeBase) -> KnowledgeBase:
    for note in sorted(EXAMPLES.iterdir()):
        shutil.copyfile(note, kb.raw / note.name)
    return kb


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    """The example notes compiled offline, once per test module; tests that write use `fresh`."""
    base, _ = init(tmp_path_factory.mktemp("compiled") / "kb")
    for note in sorted(EXAMPLES.iterdir()):
        shutil.copyfile(note, base.raw / note.name)
    from kg import api

    api.compile_kb(base, "heuristic")
    ensure_indexes(base.db_path)  # as the first search would (a small compile leaves them dropped)
    return base


@pytest.fixture
def fresh(tmp_path: Path, compiled: KnowledgeBase) -> KnowledgeBase:
    """A private copy of the compiled example knowledge base, for tests that write."""
    shutil.copytree(compiled.root, tmp_path / "kb")
    return KnowledgeBase(tmp_path / "kb")


@pytest.fixture(autouse=True, scope="session")
def model_cache() -> Iterator[None]:
    """The exported ONNX model (kg.embed.model_cache_dir) goes to a temporary folder, not ~/.cache:
    exported once per machine for the tests (about 10 s), shared by the workers."""
    previous = os.environ.get("KG_CACHE_DIR")
    os.environ["KG_CACHE_DIR"] = str(Path(tempfile.gettempdir()) / f"kg-test-models-{os.getuid()}")
    yield
    if previous is None:
        os.environ.pop("KG_CACHE_DIR", None)
    else:
        os.environ["KG_CACHE_DIR"] = previous


@pytest.fixture(autouse=True)
def fresh_ledger() -> Iterator[None]:
    """The LLM token ledger is process-wide: every test starts and ends with an empty one. So is
    what each OpenAI-compatible server accepted (kg/llm/openai_api.py): a fake server's port may
    be another test's old one."""
    run_ledger().reset()
    _forget_servers()
    yield
    run_ledger().reset()
    _forget_servers()


def _forget_servers() -> None:
    module = sys.modules.get("kg.llm.openai_api")
    if module is not None:
        module._accepted.clear()


def is_log(page: str) -> bool:
    """log.md and the month pages under log/: entries carry the time of the compile."""
    return page == "log.md" or page.startswith("log/")


def tree_digest(folder: Path) -> dict[str, str]:
    """{relative path: sha256} of every file under folder."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def run_cli(*args: str) -> tuple[int, str]:
    """`kg ARGS` through typer's CliRunner: (exit code, stdout + stderr); a traceback fails the test."""
    from typer.testing import CliRunner

    from kg.cli import app

    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes is not None else "")
