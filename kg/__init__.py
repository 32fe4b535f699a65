"""kg: a knowledge compiler.

Raw sources -> chunk -> extract -> verify -> resolve -> store (Kuzu) -> render (markdown wiki).
The package is a library first; `kg.cli` is a thin typer layer over the functions below, which
are loaded on first use (so that `import kg` stays fast and loads no database or model):

    import kg
    base = kg.KnowledgeBase.find()
    report, rendered = kg.compile_kb(base)
    result = kg.navigate(base, "How many vacuum tubes did ENIAC use?", budget=2000)
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# name -> the module that defines it (tests/test_surface.py keeps this list and the modules in step)
_SURFACE = {
    # knowledge bases and what each command does (kg/api.py)
    "KnowledgeBase": "kg.kb",
    "init_kb": "kg.api",
    "ingest": "kg.api",
    "compile_kb": "kg.api",
    "render_kb": "kg.api",
    "status": "kg.api",
    "cypher": "kg.api",
    "search_kb": "kg.api",
    "query_kb": "kg.api",
    "lint_kb": "kg.api",
    "claim_show": "kg.api",
    "entity_show": "kg.api",
    "entity_merge": "kg.api",
    "compact_kb": "kg.api",
    "explain": "kg.api",
    "doctor": "kg.maintain.doctor",
    "rebuild": "kg.maintain.doctor",
    "navigate": "kg.retrieve.navigate",
    # the graph, and the backends a program can plug in
    "Store": "kg.graph.store",
    "Extractor": "kg.extract",
    "Embedder": "kg.embed",
    # errors
    "KgError": "kg.errors",
    "ConfigError": "kg.errors",
    "NotAKnowledgeBase": "kg.errors",
    "SourceError": "kg.errors",
    "StoreError": "kg.errors",
    "DatabaseLocked": "kg.errors",
    "ExtractionError": "kg.errors",
    "QueryError": "kg.errors",
}
__all__ = ["__version__", *_SURFACE]


def __getattr__(name: str) -> Any:
    if name in _SURFACE:
        value = getattr(importlib.import_module(_SURFACE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kg' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
