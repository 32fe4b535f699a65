"""The library surface (kg.__all__) resolves, and `import kg` loads no database, template engine
or model."""

from __future__ import annotations

import subprocess
import sys

import kg


def test_every_name_of_the_surface_resolves() -> None:
    assert kg.__all__[0] == "__version__" and len(set(kg.__all__)) == len(kg.__all__)
    for name in kg.__all__[1:]:
        value = getattr(kg, name)
        assert getattr(value, "__name__", name) == name, name
    assert issubclass(kg.DatabaseLocked, kg.StoreError) and issubclass(kg.StoreError, kg.KgError)


def test_import_kg_is_light() -> None:
    code = "import sys, kg; print(sorted(m for m in ('kuzu', 'jinja2', 'torch', 'anthropic', 'numpy') if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"
