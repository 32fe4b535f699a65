"""`kg query --form`: answers as tables, charts, canvases and slides, filed back in their form
(exporters/forms.py); `--explain`; an unusable model reply answered extractively (exit 0)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from fakes_llm import FakeOpenAI, Reply
from typer.testing import CliRunner

from exporters import canvas as canvas_doc
from exporters.forms import form_spec
from kg.cli import app
from kg.kb import KnowledgeBase

runner = CliRunner()
COMPARE = "Compare ENIAC and the Manchester Baby"
WHEN = "When were ENIAC, UNIVAC I and the Manchester Baby built?"
PNG = b"\x89PNG\r\n\x1a\n"


def _query(kb: KnowledgeBase, question: str, *args: str) -> dict:
    result = runner.invoke(app, ["query", question, "--mode", "bm25", "--kb", str(kb.root), "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _cells(answer: str) -> list[list[str]]:
    rows = [line for line in answer.splitlines() if line.startswith("| **")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", row)[2:-1]] for row in rows]


def test_a_comparison_is_a_table_with_one_column_per_named_entity_and_cited_cells(compiled: KnowledgeBase) -> None:
    data = _query(compiled, COMPARE, "--form", "auto")
    assert data["form"] == "table"
    header = next(line for line in data["answer"].splitlines() if line.startswith("| |"))
    assert re.findall(r"\[\[entities/([^\\|\]]+)", header) == ["eniac", "manchester-baby"]  # as the question names them
    cells = _cells(data["answer"])
    assert cells and all(len(row) == 2 for row in cells)
    numbers = {int(n) for row in cells for cell in row for n in re.findall(r"\[(\d+)\]", cell)}
    assert numbers == set(range(1, len(data["citations"]) + 1))  # every cell cites, every citation is in a cell
    assert all(cell == "—" or re.search(r"\[\d+\]$", cell) for row in cells for cell in row)  # gaps stay visible
    assert any(cell == "—" for row in cells for cell in row)
    assert "not first electronic computer" in data["answer"]  # "ENIAC was not the first ...": never "first ..."


def test_a_chart_is_a_png_byte_identical_on_a_rerun_with_its_values_beneath(compiled: KnowledgeBase, tmp_path: Path) -> None:
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    data = _query(compiled, WHEN, "--form", "auto", "--out", str(first))
    _query(compiled, WHEN, "--form", "chart", "--out", str(second))
    assert data["form"] == "chart" and data["navigation"]["answer_kind"] == "date"
    assert first.read_bytes().startswith(PNG) and first.read_bytes() == second.read_bytes()
    rows = [line for line in data["answer"].splitlines() if re.match(r"\| [^|]+ \| \d", line)]
    assert {r.split(":")[0].strip("| ") for r in rows} >= {"ENIAC", "UNIVAC I", "Manchester Baby"}
    assert all(1900 < float(r.split("|")[2]) < 2000 for r in rows)  # years, each cited
    assert len(rows) == len(data["citations"])


def test_auto_keeps_a_page_for_one_thing(compiled: KnowledgeBase) -> None:
    assert _query(compiled, "Who built ENIAC?", "--form", "auto")["form"] == "page"


def test_saved_forms_are_filed_linked_and_rebuilt_by_a_full_render(fresh: KnowledgeBase) -> None:
    for form, suffix in (("chart", ".png"), ("canvas", ".canvas"), ("slides", ".slides.md"), ("table", "")):
        question = WHEN if form == "chart" else COMPARE
        data = _query(fresh, question, "--form", form, "--save")
        page = fresh.wiki / f"{data['saved_page']}.md"
        assert page.is_file() and form_spec(page.read_text(encoding="utf-8").split("\n---\n", 1)[1])[0] == form
        if suffix:
            assert (fresh.wiki / f"{data['saved_page']}{suffix}").is_file()
    answers = fresh.wiki / "answers"
    compare = answers / "compare-eniac-and-the-manchester-baby"
    assert not compare.with_suffix(".canvas").exists() and not Path(f"{compare}.slides.md").exists()  # the table replaced them
    chart = answers / "when-were-eniac-univac-i-and-the-manchester-baby-built.png"
    before = chart.read_bytes()
    index = (fresh.wiki / "index.md").read_text(encoding="utf-8")
    assert "[[answers/compare-eniac-and-the-manchester-baby|" in index and "[[answers/when-were-eniac" in index
    eniac = (fresh.wiki / "entities" / "eniac.md").read_text(encoding="utf-8")
    assert "answers/compare-eniac-and-the-manchester-baby" in eniac  # a backlink from the entities it cites
    shutil.rmtree(answers)
    assert runner.invoke(app, ["render", "--kb", str(fresh.root)]).exit_code == 0
    assert chart.read_bytes() == before


def test_a_saved_canvas_is_valid_json_canvas_naming_existing_pages(fresh: KnowledgeBase) -> None:
    data = _query(fresh, COMPARE, "--form", "canvas", "--save")
    document = json.loads((fresh.wiki / f"{data['saved_page']}.canvas").read_text(encoding="utf-8"))
    assert canvas_doc.problems(document, fresh.wiki) == []
    cited = {c["claim_id"] for c in data["citations"]}
    assert {n["id"].removeprefix("claim-") for n in document["nodes"] if n["id"].startswith("claim-")} == cited
    assert any(n["type"] == "file" and n["file"].startswith("entities/") for n in document["nodes"])
    assert all(e.get("label") for e in document["edges"] if e["fromNode"].startswith("entity-"))  # predicates


def test_slides_are_a_marp_deck_of_the_answer(compiled: KnowledgeBase, tmp_path: Path) -> None:
    deck = tmp_path / "deck.md"
    _query(compiled, COMPARE, "--form", "slides", "--out", str(deck))
    text = deck.read_text(encoding="utf-8")
    assert text.startswith("---\nmarp: true\n") and f"# {COMPARE}" in text and "kg-form" not in text


def test_bad_forms_and_outputs_are_usage_errors(compiled: KnowledgeBase, tmp_path: Path) -> None:
    result = runner.invoke(app, ["query", COMPARE, "--form", "poster", "--mode", "bm25", "--kb", str(compiled.root)])
    assert result.exit_code == 2 and "poster" in result.output
    result = runner.invoke(app, ["query", "Who built ENIAC?", "--out", str(tmp_path / "x.png"), "--mode", "bm25",
                                 "--kb", str(compiled.root)])
    assert result.exit_code == 2 and "draws no file" in result.output
    result = runner.invoke(app, ["query", WHEN, "--form", "chart", "--out", str(compiled.raw / "x.png"), "--mode", "bm25",
                                 "--kb", str(compiled.root)])
    assert result.exit_code == 2 and not (compiled.raw / "x.png").exists()


def test_explain_says_how_each_cited_claim_was_found(compiled: KnowledgeBase) -> None:
    data = _query(compiled, "Who built ENIAC?")
    explained = {e["claim"]: e for e in data["navigation"]["explain"]}
    assert {c["claim_id"] for c in data["citations"]} <= set(explained)
    assert all(e["found_by"] and e["score"] > 0 for e in explained.values())
    assert data["navigation"]["linked"][0]["entity"] == "eniac"
    result = runner.invoke(app, ["query", "Who built ENIAC?", "--explain", "--mode", "bm25", "--kb", str(compiled.root)])
    assert result.exit_code == 0 and "## Why these claims" in result.output
    assert re.search(r"\[1\] `c[0-9a-f]+` score \d+\.\d+: .*(search hit|entity page)", result.output)


@pytest.mark.parametrize("reply", ["ENIAC was built by Eckert and Mauchly.", ""])
def test_a_model_that_never_replies_in_form_gets_the_extractive_answer_and_exit_0(fresh: KnowledgeBase, reply: str) -> None:
    with FakeOpenAI() as server:
        server.script += [Reply(content=reply)] * 12
        fresh.config_path.write_text(
            f'[compile]\nextractor = "openai"\n\n[llm]\nmodel = "tiny"\nbase_url = "{server.url}/v1"\n'
            "timeout_seconds = 5\nbackoff_seconds = 0.001\nmax_retries = 1\nvalidation_retries = 1\n", encoding="utf-8")
        result = runner.invoke(app, ["query", "Who built ENIAC?", "--mode", "bm25", "--kb", str(fresh.root), "--json"])
        assert server.requests  # the model was asked
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["mode"] == "extractive" and data["llm_reply_unusable"] and data["citations"]
    with FakeOpenAI() as server:
        server.script += [Reply(content=reply)] * 12
        fresh.config_path.write_text(fresh.config_path.read_text(encoding="utf-8").replace(
            re.search(r'base_url = "([^"]+)"', fresh.config_path.read_text(encoding="utf-8")).group(1),  # type: ignore[union-attr]
            f"{server.url}/v1"), encoding="utf-8")
        result = runner.invoke(app, ["query", "Who built ENIAC?", "--mode", "bm25", "--kb", str(fresh.root)])
    assert result.exit_code == 0 and "could not be used" in result.output
    assert "Extractive answer: the model (openai:tiny) replied" in result.output


def test_an_unreachable_model_keeps_its_clear_error(fresh: KnowledgeBase) -> None:
    fresh.config_path.write_text('[compile]\nextractor = "openai"\n\n[llm]\nmodel = "tiny"\n'
                                 'base_url = "http://127.0.0.1:9/v1"\ntimeout_seconds = 2\nbackoff_seconds = 0.001\n'
                                 "max_retries = 0\n", encoding="utf-8")
    result = runner.invoke(app, ["query", "Who built ENIAC?", "--mode", "bm25", "--kb", str(fresh.root)])
    assert result.exit_code == 1 and "--offline" in result.output


def test_form_data_survives_a_comment_closer_in_the_question() -> None:
    from exporters.forms import Shaped
    from kg.retrieve.answer import Answer

    shaped = Shaped("chart", Answer("Is a --> b?", "extractive", "text", [], 0), {"title": "Is a --> b? ---", "points": []})
    body = shaped.body()
    assert body.count("-->") == 1 and body.rstrip().endswith("-->")  # only the comment's own closer
    assert form_spec(body) == ("chart", {"title": "Is a --> b? ---", "points": []})


def test_a_deck_is_the_same_bytes_from_the_cli_and_from_the_wiki(fresh: KnowledgeBase, tmp_path: Path) -> None:
    question = "Compare *ENIAC* and the Manchester Baby [again]"
    deck = tmp_path / "deck.md"
    data = _query(fresh, question, "--form", "slides", "--save", "--out", str(deck))
    assert deck.read_bytes() == (fresh.wiki / f"{data['saved_page']}.slides.md").read_bytes()


def test_kg_compile_takes_no_answer_options() -> None:
    result = runner.invoke(app, ["compile", "--help"])
    assert result.exit_code == 0 and "--form" not in result.output and "--explain" in result.output
