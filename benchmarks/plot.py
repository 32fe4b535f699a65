"""PNG charts from the benchmark JSON files (issue 7).

  benchmarks/out/retrieval.png   recall@5 (with its 95% CI) vs tokens read per question, per mode
  benchmarks/out/scale.png       seconds vs number of sources (log-log): compile, render,
                                 incremental one-source edit, with an N log N guide

    .venv/bin/python benchmarks/plot.py
    .venv/bin/python benchmarks/plot.py --retrieval benchmarks/out/retrieval.json --scale benchmarks/out/scale.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from harness import OUT_DIR as OUT


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Draw the retrieval and scale charts (PNG) from the benchmark JSON.")
    parser.add_argument("--retrieval", type=Path, default=OUT / "retrieval.json", help="retrieval.py JSON")
    parser.add_argument("--scale", type=Path, default=OUT / "scale.json", help="scale.py JSON")
    parser.add_argument("--out-dir", type=Path, default=OUT, help="where the PNGs go (default benchmarks/out)")
    return parser.parse_args(argv)


def plot_retrieval(data: dict[str, Any], path: Path) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 6), dpi=110)
    modes = data["modes"]
    baseline = next((m for m in modes if m["mode"] == "bm25"), None)
    cmap = plt.get_cmap("tab20")
    for n, m in enumerate(modes):
        lo, hi = m["recall@5_ci95"]
        raw = m["mode"] in ("bm25", "dense", "hybrid")
        ax.errorbar(m["tokens"], m["recall@5"], yerr=[[m["recall@5"] - lo], [hi - m["recall@5"]]],
                    fmt="o" if raw else "s", color=cmap((2 * n + n // 10) % 20), capsize=3, markersize=8, alpha=0.9,
                    label=f"{m['mode']}: R@5 {m['recall@5']:.3f}, {m['tokens']:.0f} tok"
                          + (" (raw chunks)" if raw else ""))
    ax.axhline(0.90, color="grey", linestyle="--", linewidth=1)
    ax.text(ax.get_xlim()[1], 0.902, "goal: recall@5 0.90 ", fontsize=8, color="grey", va="bottom", ha="right")
    if baseline:
        ax.axvline(baseline["tokens"], color="grey", linestyle=":", linewidth=1)
        ax.text(baseline["tokens"], ax.get_ylim()[0], " BM25 top-5 tokens", fontsize=8, color="grey", rotation=90,
                va="bottom")
    ax.set_xscale("log")
    ax.set_xlabel("tokens read per question (characters / 4, log scale)")
    ax.set_ylabel("recall@5 of gold passages (95% bootstrap CI)")
    ax.set_title(f"Retrieval on {Path(data['data']).name}: {data['questions']} questions, "
                 f"{data['passages']:,} passages\ncircles = retrieval over raw chunks, squares = kg (wiki / graph)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_scale(data: dict[str, Any], path: Path) -> None:
    import matplotlib.pyplot as plt

    runs = [r for r in data["runs"] if "error" not in r]
    if not runs:
        return
    ns = [r["n"] for r in runs]
    growth = data.get("summary", {}).get("growth", {})
    fig, ax = plt.subplots(figsize=(9, 6), dpi=110)
    series = [
        ("compile_seconds", "compile (all sources)", "o-"),
        ("render_seconds", "render (whole wiki)", "s-"),
        ("incremental_with_render_seconds", "1-source edit, compile + render (median)", "v-"),
        ("incremental_with_render_mean_seconds", "1-source edit, mean (WAL checkpoints included)", "d-"),
        ("incremental_process_seconds", "1-source edit, `kg compile` process", "^-"),
        ("named_edit_seconds", "1-source edit named, `kg compile PATH` (median)", "P-"),
        ("named_edit_process_seconds", "1-source edit named, `kg compile PATH` process", "X-"),
    ]
    for key, label, style in series:
        if not all(key in r for r in runs):  # older result files lack the newer series
            continue
        exp = growth.get(key, {}).get("exponent")
        ax.plot(ns, [r[key] for r in runs], style, label=f"{label} (exponent {exp:.2f})" if exp is not None else label)
    # N log N guide through the first compile point
    first = runs[0]
    scale = first["compile_seconds"] / (ns[0] * math.log(ns[0]))
    ax.plot(ns, [scale * n * math.log(n) for n in ns], "k:", label="N log N (through first compile)")
    ax.plot(ns, [first["incremental_with_render_seconds"]] * len(ns), color="grey", linestyle="--", linewidth=1,
            label="flat (target for a 1-source edit)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sources (N, log scale)")
    ax.set_ylabel("seconds (log scale)")
    ax.set_title(f"kg scale on synthetic knowledge bases ({data['machine']['cpus']} CPUs, kuzu {data['machine'].get('kuzu', '?')})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    wrote = []
    if args.retrieval.is_file():
        target = args.out_dir / "retrieval.png"
        plot_retrieval(json.loads(args.retrieval.read_text(encoding="utf-8")), target)
        wrote.append(target)
    else:
        print(f"no {args.retrieval}; run benchmarks/retrieval.py first", file=sys.stderr)
    if args.scale.is_file():
        target = args.out_dir / "scale.png"
        plot_scale(json.loads(args.scale.read_text(encoding="utf-8")), target)
        wrote.append(target)
    else:
        print(f"no {args.scale}; run benchmarks/scale.py first", file=sys.stderr)
    for p in wrote:
        print(f"wrote {p}")
    return 0 if wrote else 1


if __name__ == "__main__":
    sys.exit(main())
