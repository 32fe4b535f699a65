"""A chart answer's PNG, drawn by matplotlib's Agg backend, byte-identical for the same data.

What varies between runs otherwise is left out: no timestamp or software version in the PNG's
metadata, the font is the DejaVu Sans matplotlib ships (not whatever the system has), hashes of
ids are not used. Years are drawn as a timeline (one dot per claim on a year axis), other amounts
as horizontal bars, one per claim, labelled with the entity and the claim's verb.
"""

from __future__ import annotations

import io
from typing import Any

WIDTH_INCHES = 8.0
ROW_INCHES = 0.45
DPI = 100


def chart_png(title: str, unit: str, points: list[tuple[str, float]]) -> bytes:
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    with matplotlib.rc_context({"font.family": "DejaVu Sans"}):
        height = max(2.5, 1.4 + ROW_INCHES * len(points))
        figure = Figure(figsize=(WIDTH_INCHES, height), dpi=DPI)
        axes = figure.add_subplot()
        labels = [_short(label) for label, _ in points][::-1]
        values = [value for _, value in points][::-1]
        rows = list(range(len(points)))
        if unit == "year":
            axes.scatter(values, rows, color="#2f6690", zorder=3)
            axes.set_xlabel("year")
            axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        else:
            axes.barh(rows, values, color="#2f6690", zorder=3)
            axes.set_xlabel(unit)
        axes.set_yticks(rows, labels)
        axes.grid(axis="x", color="#dddddd", zorder=0)
        axes.set_title(_short(title, 80))
        figure.tight_layout()
        buffer = io.BytesIO()
        metadata: dict[str, Any] = {"Software": None}
        figure.savefig(buffer, format="png", metadata=metadata)
    return buffer.getvalue()


def _short(text: str, size: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= size else text[: size - 1].rstrip() + "…"
