"""Answer forms through the CLI (issue 49): `kg query --form table|chart|canvas|slides --save` on
the bundled examples and on hotpotqa-100, compiled offline.

For each knowledge base: the questions (the examples: a fixed list written for their notes;
hotpotqa-100: its `comparison` questions, which name two things, e.g. "Are Christopher Nolan and
Sathish Kalathil both film directors?") are asked once per form as `kg query` processes with
`--save --json --mode bm25`, then checked as a reader would:

  table   the form kept (not fallen back to a page), one column per entity the question names
          (at least two), every non-empty cell cites a claim and every citation is in a cell
  chart   a PNG drawn beside the saved page, byte-identical when the question is asked again
  canvas  the saved .canvas passes JSON Canvas 1.0's checks against the wiki (exporters/canvas.py
          `problems`: ids, types, integer geometry, file nodes naming existing wiki files, edges
          naming existing nodes)
  slides  a Marp deck beside the saved page
  index   every saved answer listed in index.md or indexes/answers.md

    .venv/bin/python benchmarks/forms.py                 # examples and hotpotqa-100
    .venv/bin/python benchmarks/forms.py --questions 10  # hotpotqa questions asked (default 20)
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import (
    KG_EXE,
    REPO,
    compile_hotpot,
    data_dir,
    machine,
    out_path,
    read_jsonl,
    run_seconds,
    write_json,
)

from exporters.canvas import problems
from exporters.forms import form_spec

EXAMPLE_QUESTIONS = [
    "Compare ENIAC and the Manchester Baby",
    "Compare EDVAC and UNIVAC I",
    "When were ENIAC, UNIVAC I and the Manchester Baby built?",
    "How heavy were ENIAC and the Manchester Baby?",
    "Compare Alan Turing and John von Neumann",
]
FORMS = ("table", "chart", "canvas", "slides")


def ask(kb: Path, question: str, form: str) -> dict[str, Any]:
    done = subprocess.run([KG_EXE, "query", question, "--form", form, "--save", "--json", "--mode", "bm25",
                           "--kb", str(kb)], capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": (done.stderr or done.stdout).strip().splitlines()[-1:], "form": None}
    return json.loads(done.stdout)


def table_ok(data: dict[str, Any]) -> tuple[bool, str]:
    if data.get("form") != "table":
        return False, f"fell back to {data.get('form')}"
    header = next((line for line in data["answer"].splitlines() if line.startswith("| |")), "")
    columns = re.findall(r"\[\[entities/([^\\|\]]+)", header)
    if len(columns) < 2:
        return False, "fewer than two columns"
    rows = [[c.strip() for c in re.split(r"(?<!\\)\|", line)[2:-1]] for line in data["answer"].splitlines()
            if line.startswith("| **")]
    cited = {int(n) for row in rows for cell in row for n in re.findall(r"\[(\d+)\]", cell)}
    if any(len(row) != len(columns) for row in rows):
        return False, "a row with another number of cells"
    if any(cell != "—" and not re.search(r"\[\d+\]$", cell) for row in rows for cell in row):
        return False, "a cell without a citation"
    if cited != set(range(1, len(data["citations"]) + 1)):
        return False, "citations and cells disagree"
    return True, f"{len(columns)} columns, {len(rows)} rows"


def check(kb: Path, question: str, form: str) -> dict[str, Any]:
    data = ask(kb, question, form)
    row: dict[str, Any] = {"question": question, "asked": form, "form": data.get("form"), "ok": False}
    if data.get("error"):
        row["why"] = data["error"]
        return row
    page = data.get("saved_page") or ""
    wiki = kb / "wiki"
    if form == "table":
        row["ok"], row["why"] = table_ok(data)
    elif form == "chart":
        png = wiki / f"{page}.png"
        first = png.read_bytes() if png.is_file() else b""
        ask(kb, question, form)
        row["drawn"] = data["form"] == "chart" and first.startswith(b"\x89PNG") and png.read_bytes() == first
        honest = data["form"] == "page" and data.get("form_not_filled") == "chart"  # no numbers: says so, gives a page
        row["ok"] = row["drawn"] or honest
        row["why"] = (f"{len(first)} bytes, identical on a re-run" if row["drawn"] else
                      "no numeric claims: a page, saying so" if honest else f"form {data['form']}")
    elif form == "canvas":
        path = wiki / f"{page}.canvas"
        found = problems(json.loads(path.read_text(encoding="utf-8")), wiki) if path.is_file() else ["no .canvas"]
        row["ok"], row["why"] = data["form"] == "canvas" and not found, "; ".join(found[:3]) or "valid"
    else:
        deck = wiki / f"{page}.slides.md"
        row["ok"] = deck.is_file() and deck.read_text(encoding="utf-8").startswith("---\nmarp: true")
        row["why"] = "deck" if row["ok"] else "no deck"
    text = (wiki / f"{page}.md").read_text(encoding="utf-8") if (wiki / f"{page}.md").is_file() else ""
    found_form = form_spec(text.split("\n---\n", 1)[-1])
    row["saved_form"] = found_form[0] if found_form else "page"
    return row


def listed(kb: Path, pages: set[str]) -> int:
    wiki = kb / "wiki"
    index = "".join(p.read_text(encoding="utf-8") for p in [wiki / "index.md", *sorted((wiki / "indexes").glob("answers*.md"))]
                    if p.is_file())
    return sum(1 for page in pages if f"[[{page}|" in index)


def run_kb(name: str, kb: Path, questions: list[str]) -> dict[str, Any]:
    rows = []
    for question in questions:
        for form in FORMS:
            started = time.perf_counter()
            row = check(kb, question, form)
            row["seconds"] = round(time.perf_counter() - started, 2)
            rows.append(row)
            print(f"  {name:8} {form:7} {'ok ' if row['ok'] else 'NO '} {question[:60]!r}: {row.get('why')}", flush=True)
    pages = {f"answers/{p.stem}" for p in (kb / "wiki" / "answers").glob("*.md") if not p.name.endswith(".slides.md")}
    per_form = {form: {"asked": sum(1 for r in rows if r["asked"] == form),
                       "ok": sum(1 for r in rows if r["asked"] == form and r["ok"])} for form in FORMS}
    per_form["chart"]["drawn"] = sum(1 for r in rows if r.get("drawn"))
    return {"questions": len(questions), "per_form": per_form, "saved_pages": len(pages),
            "listed_in_index": listed(kb, pages), "rows": rows}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=20, help="hotpotqa comparison questions asked (default 20)")
    parser.add_argument("--out", type=Path, default=out_path("forms.json"))
    args = parser.parse_args(argv)
    result: dict[str, Any] = {"machine": machine(kuzu=True), "sets": {}}
    with tempfile.TemporaryDirectory() as tmp:
        examples = Path(tmp) / "examples"
        subprocess.run([KG_EXE, "init", str(examples)], check=True, capture_output=True)
        for note in sorted((REPO / "examples" / "notes").iterdir()):
            shutil.copyfile(note, examples / "raw" / note.name)
        seconds = run_seconds([KG_EXE, "compile", "-q", "--kb", str(examples), "-x", "heuristic"])
        print(f"examples compiled in {seconds:.1f} s", flush=True)
        result["sets"]["examples"] = run_kb("examples", examples, EXAMPLE_QUESTIONS)
        hotpot = Path(tmp) / "hotpot"
        seconds = compile_hotpot(hotpot, 994)
        print(f"hotpotqa-100 (994 passages) compiled in {seconds:.1f} s", flush=True)
        questions = [q["question"] for q in read_jsonl(data_dir() / "hotpotqa-100" / "questions.jsonl")
                     if q["type"] == "comparison"][: args.questions]
        result["sets"]["hotpotqa-100"] = run_kb("hotpot", hotpot, questions)
    print()
    print(f"{'set':14} {'questions':>9} " + " ".join(f"{f:>9}" for f in FORMS) + "  charts drawn  saved listed")
    for name, s in result["sets"].items():
        cells = " ".join(f"{s['per_form'][f]['ok']:>4}/{s['per_form'][f]['asked']:<4}" for f in FORMS)
        print(f"{name:14} {s['questions']:>9} {cells}  {s['per_form']['chart']['drawn']:>12} "
              f"{s['saved_pages']:>5} {s['listed_in_index']:>6}")
    write_json(args.out, result)
    print(f"wrote {args.out}")
    if any(s["listed_in_index"] != s["saved_pages"] for s in result["sets"].values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
