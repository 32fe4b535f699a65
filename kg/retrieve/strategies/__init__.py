"""Strategies for shapes of question a general search cannot answer alone (see base.py)."""

from __future__ import annotations

from kg.retrieve.settings import DEFAULT_SETTINGS, NavigatorSettings
from kg.retrieve.strategies.base import (
    Bridged,
    Compared,
    Context,
    Evidence,
    Findings,
    HopAnswer,
    Strategy,
    Verdict,
)
from kg.retrieve.strategies.both import BothStrategy
from kg.retrieve.strategies.bridge import BridgeStrategy
from kg.retrieve.strategies.same import SameStrategy

__all__ = ["BothStrategy", "BridgeStrategy", "Bridged", "Compared", "Context", "Evidence", "Findings", "HopAnswer",
           "SameStrategy", "Strategy", "Verdict", "default_strategies"]


def default_strategies(settings: NavigatorSettings = DEFAULT_SETTINGS) -> tuple[Strategy, ...]:
    """The strategies `kg query` runs, in order: a verdict first, then the second hop."""
    return (BothStrategy(), SameStrategy(), BridgeStrategy(settings))
