"""What the benchmark scripts share: the data folder, corpora, timing, memory, percentiles and
the JSON result.

Scripts are run as `python benchmarks/NAME.py`; Python puts benchmarks/ on sys.path, so they
`from harness import ...` (and kg comes from the installed package, `pip install -e .`).
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

REPO = Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "benchmarks" / "out"
KG_EXE = str(Path(sys.executable).with_name("kg"))  # the `kg` of the running venv


# the data folder ---------------------------------------------------------------------------


def data_dir() -> Path:
    """$KG_DATA_DIR, else ../shared/data beside the repo; exits naming the variable when absent."""
    env = os.environ.get("KG_DATA_DIR")
    base = Path(env) if env else REPO.parent / "shared" / "data"
    if not base.is_dir():
        where = f"KG_DATA_DIR={env}" if env else f"{base} (the default when KG_DATA_DIR is unset)"
        sys.exit(f"No data folder at {where}. Set KG_DATA_DIR to the folder holding hotpotqa-100/, "
                 "scifact/ and redocred-dev/.")
    return base


def read_jsonl(path: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file (blank lines skipped), the first `limit` only when given."""
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if limit is not None and len(rows) >= limit:
                break
            if line.strip():
                rows.append(json.loads(line))
    return rows


def scifact_markdown(doc: dict[str, Any], strip: bool = True) -> str:
    """One SciFact abstract as a markdown source: its title as the heading, its sentences joined.
    strip=False keeps the spaces some sentences carry at their ends (the bytes that the
    contradiction and MCP latency figures were measured on)."""
    if not strip:
        return f"# {doc['title']}\n\n{' '.join(doc['sentences'])}\n"
    body = " ".join(s.strip() for s in doc["sentences"])
    return f"# {doc['title'].strip()}\n\n{body}\n"


def write_scifact(raw: Path, docs: list[dict[str, Any]]) -> tuple[int, int]:
    """One markdown file per abstract, named by doc_id; returns (bytes, words)."""
    total_bytes = total_words = 0
    for doc in docs:
        text = scifact_markdown(doc)
        data = text.encode("utf-8")
        (raw / f"{doc['doc_id']}.md").write_bytes(data)
        total_bytes += len(data)
        total_words += len(text.split())
    return total_bytes, total_words


def hotpot_markdown(row: dict[str, Any]) -> str:
    """One hotpotqa passage as a markdown source."""
    return f"# {row['title']}\n\n{row['text']}\n"


def hotpot_passages(count: int, skip: int = 0) -> list[dict[str, Any]]:
    """hotpotqa-100's passages `skip` to `skip + count`, in file order."""
    return read_jsonl(data_dir() / "hotpotqa-100" / "corpus.jsonl", skip + count)[skip:]


def compile_hotpot(root: Path, passages: int) -> float:
    """A knowledge base at root of hotpotqa-100's first passages (p0001.md, ...) compiled by a
    `kg compile` process with the offline extractor; returns its seconds."""
    rows = hotpot_passages(passages)
    return kg_compile_sources(root, {f"p{i + 1:04d}.md": hotpot_markdown(row) for i, row in enumerate(rows)})


def kg_compile_sources(root: Path, sources: dict[str, str]) -> float:
    """A knowledge base made with `kg init` at root, the sources (name -> markdown) written to
    raw/, compiled by a `kg compile` process with the offline extractor; returns its seconds."""
    subprocess.run([KG_EXE, "init", str(root)], check=True, capture_output=True)
    for name, text in sources.items():
        (root / "raw" / name).write_text(text, encoding="utf-8")
    return run_seconds([KG_EXE, "compile", "-q", "--kb", str(root), "-x", "heuristic"])


# timing ------------------------------------------------------------------------------------


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """fn's value and its wall seconds."""
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def best_ms(fn: Callable[[], Any], repeats: int) -> float:
    """The fastest of `repeats` calls, in milliseconds."""
    return min(timed(fn)[1] for _ in range(repeats)) * 1000


def run_seconds(cmd: list[str]) -> float:
    """Wall seconds of a command run to completion (its output captured; a failure raises)."""
    return timed(lambda: subprocess.run(cmd, check=True, capture_output=True))[1]


# memory ------------------------------------------------------------------------------------


def rusage_mb(usage: resource.struct_rusage) -> float:
    """ru_maxrss in MB (KB on Linux, bytes on macOS)."""
    peak = usage.ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    """Peak resident set size so far of this process (or RUSAGE_CHILDREN), in MB."""
    return rusage_mb(resource.getrusage(who))


def tree_mb(pid: int) -> float:
    """Resident memory now of a process and all its descendants, in MB; 0 once it is gone."""
    import psutil  # here, so that importing the harness adds nothing to the peak RSS a script measures

    try:
        root = psutil.Process(pid)
        return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)]) / 2**20
    except psutil.Error:
        return 0.0


class PeakTree:
    """The highest resident memory of a process tree, sampled in a thread until stopped."""

    def __init__(self, pid: int, every: float = 0.05) -> None:
        self.pid, self.every, self.mb, self._done = pid, every, 0.0, threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while not self._done.is_set():
            self.mb = max(self.mb, tree_mb(self.pid))
            time.sleep(self.every)

    def stop(self) -> float:
        self._done.set()
        return round(self.mb)


def disk_bytes(path: Path) -> int:
    """Bytes of a file, or of every file under a folder; 0 when absent."""
    if path.is_file():
        return path.stat().st_size
    if not path.exists():
        return 0
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# statistics --------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1), linear interpolation between closest ranks (numpy's default); 0 when empty."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    pos = (len(ordered) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def nearest_rank(values: list[float], q: float) -> float:
    """The q-quantile (0..1) as the value at the rounded rank, no interpolation; 0 when empty."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def loglog_slope(ns: list[int], ys: list[float]) -> float | None:
    """The exponent b of a least-squares fit y ~ a n^b (log-log), points with y <= 0 left out;
    None under two points or when every n is the same."""
    points = [(math.log(n), math.log(y)) for n, y in zip(ns, ys, strict=True) if y > 0]
    if len(points) < 2:
        return None
    mx = sum(p[0] for p in points) / len(points)
    my = sum(p[1] for p in points) / len(points)
    sxx = sum((p[0] - mx) ** 2 for p in points)
    if sxx == 0:
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in points) / sxx


# answers -----------------------------------------------------------------------------------


def tokens(text: str) -> int:
    """Tokens read, estimated as four characters each."""
    return (len(text) + 3) // 4


def normalise(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.casefold()))


def answer_found(answer: str, text: str) -> bool:
    """Whether the gold answer string (normalised: lower case, letters and digits) occurs in the text."""
    wanted = normalise(answer)
    return bool(wanted) and f" {wanted} " in f" {normalise(text)} "


# the result --------------------------------------------------------------------------------


def machine(kuzu: bool = False) -> dict[str, Any]:
    """Where the figures were measured."""
    info: dict[str, Any] = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    if kuzu:
        from importlib.metadata import version

        info["kuzu"] = version("kuzu")
    return info


def out_path(name: str) -> Path:
    """The default result file of a benchmark: benchmarks/out/NAME."""
    return OUT_DIR / name


def write_json(path: Path, result: Any, *, sort_keys: bool = False, default: Callable[[Any], Any] | None = None,
               ensure_ascii: bool = True) -> None:
    """Write a result as indented JSON (with a final newline), making its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result, indent=2, sort_keys=sort_keys, default=default, ensure_ascii=ensure_ascii)
    path.write_text(text + "\n", encoding="utf-8")
