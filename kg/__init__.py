"""kg: a knowledge compiler.

Raw sources -> chunk -> extract -> verify -> resolve -> store (Kuzu) -> render (markdown wiki).
The package is a library first; :mod:`kg.cli` is a thin typer layer over it.
"""

__version__ = "0.1.0"
