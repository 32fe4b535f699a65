"""The house rules of README's layout section: imports flow one way between stages (function-level
imports count), no cycles, the served faces read through kg/api, Cypher only under kg/graph/, at
most 12 modules directly in kg/, no dead code."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Lower layers never import higher ones. Inside a layer, modules may import each other (no cycles).
LAYERS = [
    ("kg", "kg.text", "kg.names", "kg.errors", "kg.config", "kg.models", "kg.kb", "kg.cache", "kg.embed", "kg.lookup"),
    ("kg.graph",), ("kg.extract",), ("kg.compile",), ("kg.llm",), ("kg.retrieve",), ("exporters",),
    ("kg.maintain",), ("kg.learn",), ("kg.share",), ("kg.api",), ("kg.serve",), ("kg.cli",),
]
CYPHER = re.compile(r"\b(MATCH|MERGE|CREATE|UNWIND|COPY)\s*[(\[]|\bMATCH\s+\(")


def modules() -> dict[str, Path]:
    found = {}
    for base in ("kg", "exporters"):
        for path in (ROOT / base).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def layer(module: str) -> int:
    for rank, prefixes in enumerate(LAYERS):
        if module in prefixes or any(module.startswith(p + ".") for p in prefixes if p != "kg"):
            return rank
    raise AssertionError(f"{module} is in no layer of tests/test_house.py: add it")


def imports(found: dict[str, Path]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in found}
    for module, path in found.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                targets = [base, *(f"{base}.{a.name}" for a in node.names)]
            for target in targets:
                while target and target not in found:
                    target = target.rpartition(".")[0]
                if target and target != module and not module.startswith(target + "."):
                    edges[module].add(target)
    return edges


def test_imports_flow_one_way_without_cycles() -> None:
    found = modules()
    edges = imports(found)
    upward = sorted(f"{m} -> {t}" for m, targets in edges.items() for t in targets if layer(t) > layer(m))
    assert upward == []
    seen: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(module: str, path: list[str]) -> None:
        seen[module] = 1
        for target in sorted(edges[module]):
            assert seen.get(target) != 1, f"import cycle: {' -> '.join([*path, module, target])}"
            if target not in seen:
                visit(target, [*path, module])
        seen[module] = 2

    for module in sorted(found):
        if module not in seen:
            visit(module, [])


def test_faces_read_through_the_api() -> None:
    """The served faces (pages, JSON, MCP) read the graph only through kg/api (as the CLI does):
    nothing under kg/serve imports kg.graph, function-level imports included."""
    found = modules()
    edges = imports(found)
    reaching = sorted(f"{m} -> {t}" for m, targets in edges.items() if m.startswith("kg.serve")
                      for t in targets if t == "kg.graph" or t.startswith("kg.graph."))
    assert reaching == []


def test_cypher_only_under_kg_graph() -> None:
    outside = []
    for module, path in modules().items():
        if module.startswith("kg.graph"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):  # docstrings, --help texts and `kg cypher` examples are prose
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body.pop(0)
            if isinstance(node, ast.Call):
                node.keywords = [k for k in node.keywords if k.arg != "help"]
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "kg cypher" in node.value:
                node.value = ""
        if CYPHER.search(ast.unparse(tree)):
            outside.append(module)
    assert outside == []


def test_few_modules_directly_in_kg() -> None:
    top = [p.name for p in (ROOT / "kg").glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= 12, sorted(top)


def test_no_dead_code() -> None:
    """vulture with the project's config ([tool.vulture] in pyproject.toml) finds nothing."""
    pytest.importorskip("vulture")
    found = subprocess.run([sys.executable, "-m", "vulture"], cwd=ROOT, capture_output=True, text=True)
    assert found.returncode == 0, found.stdout + found.stderr
