"""What bulk work over many objects needs."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Bulk loading makes many long-lived objects and no garbage: without this, the cyclic
    collector walks the growing heap again and again (a third of the load at 75k entities)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
