"""Chinese and Japanese text (issue 47): one tokenizer (CJK bigrams) everywhere text is matched,
sentences split at CJK punctuation, entities from marked-up CJK names, and a mixed note end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from kg import api
from kg.cli import app
from kg.compile.claimtext import words
from kg.compile.verify import ChunkVerifier
from kg.graph.schema import search_terms
from kg.kb import KnowledgeBase
from kg.models import Chunk
from kg.retrieve.question import parse_question, terms
from kg.retrieve.search import fts_query
from kg.text import cjk_terms, has_cjk, index_terms, sentences, word_tokens
from tests.test_heuristic import extract

MIXED = """# LLM Wiki 工作流

**Obsidian** 是一个笔记软件。我们用 [[Claude Code]] 写循环，每天写循环两次。《三体》是刘慈欣的小说。

## 对比

| 特性 | 说明 |
|---|---|
| 可版本控制 | 是 |
| Token 效率高 | 是 |

「知识编译器」把笔记变成维基。写循环很重要！
"""


@given(st.text(st.characters(codec="latin-1")))
def test_text_without_cjk_is_tokenised_as_before(text: str) -> None:
    assert word_tokens(text) == re.findall(r"\w+", text)
    assert cjk_terms(text) == ""


def test_cjk_runs_become_overlapping_bigrams() -> None:
    assert word_tokens("GPT模型 写循环 and 日") == ["GPT", "模型", "写循", "循环", "and", "日"]
    assert word_tokens("東京タワー") == ["東京", "京タ", "タワ", "ワー"]
    assert cjk_terms("Token 效率高") == "效率 率高"
    assert fts_query("写循环?") == "写循 循环"
    assert search_terms("Page", {"title": "三体", "body": "小说"}) == "三体 小说"


def test_the_question_parser_and_claim_keys_read_cjk_bigrams() -> None:
    assert terms("尤金袋鼠分布在哪些地区？") >= {"袋鼠", "分布", "地区"}
    assert parse_question("尤金袋鼠分布在哪些地区？").topic_words >= {"袋鼠", "地区"}
    assert words("ENIAC weighed 27 tons; 它重27吨") == ["eniac", "weighed", "27", "tons", "它重", "27", "吨"]
    assert terms("How much did ENIAC weigh?") == frozenset({"eniac", "weigh"})


def test_sentences_end_at_cjk_punctuation() -> None:
    text = "梅雨は気象現象である。雨季の一種！「本当？」と彼は言った。本当に？Then ENIAC. It was big."
    assert [text[a:b] for a, b in sentences(text)] == [
        "梅雨は気象現象である。", "雨季の一種！", "「本当？」と彼は言った。", "本当に？", "Then ENIAC.", "It was big."]


def test_marked_cjk_names_are_entities_and_table_rows_are_not() -> None:
    result = extract(MIXED)
    names = {e.name for e in result.entities}
    assert {"三体", "知识编译器", "Obsidian", "Claude Code"} <= names
    assert not names & {"可版本控制", "Token 效率高", "是"}
    claim = next(c for c in result.claims if "刘慈欣" in c.text)
    assert claim.subject == "三体" and claim.quotes == ["《三体》是刘慈欣的小说。"]


def test_a_mixed_note_compiles_searches_and_answers_in_cjk(kb: KnowledgeBase) -> None:
    (kb.raw / "wiki.md").write_text(MIXED, encoding="utf-8")
    api.compile_kb(kb, "heuristic")
    santi = (kb.wiki / "entities" / "三体.md").read_text(encoding="utf-8")  # a page Obsidian opens as 三体
    assert "《三体》是刘慈欣的小说。" in santi
    assert (kb.wiki / "entities" / "知识编译器.md").is_file()
    assert "[[entities/三体|三体]]" in (kb.wiki / "index.md").read_text(encoding="utf-8")
    assert not list((kb.wiki / "entities").glob("*效率*"))
    runner = CliRunner()
    found = runner.invoke(app, ["search", "写循环", "--kb", str(kb.root), "--mode", "bm25", "--json"])
    assert found.exit_code == 0, found.output
    hits = json.loads(found.stdout)["hits"]
    assert hits and all("写循环" in h["text"] for h in hits[:2])
    hybrid = runner.invoke(app, ["search", "写循环", "--kb", str(kb.root), "--embedder", "hashing", "--json"])
    assert hybrid.exit_code == 0, hybrid.output  # an ASCII-only embedder is left out of a CJK query's ranking
    assert [(h["id"], h["ranks"]) for h in json.loads(hybrid.stdout)["hits"]] == [(h["id"], h["ranks"]) for h in hits]
    answer = runner.invoke(app, ["query", "三体是谁的小说？", "--kb", str(kb.root), "--mode", "bm25", "--offline"])
    assert answer.exit_code == 0, answer.output
    assert "刘慈欣" in answer.stdout


def test_quotes_are_found_across_cjk_punctuation_and_spacing() -> None:
    text = "我们用 Claude Code 写循环，每天（两次）。「知识」很重要。"
    verifier = ChunkVerifier(Chunk("a.md", 0, text, 0, len(text)))
    found = verifier.locate("用Claude Code写循环,每天(两次)。")
    assert found is not None and found.quote == "用 Claude Code 写循环，每天（两次）。"
    assert verifier.locate("“知识”很重要") is not None
    assert verifier.locate("用 Claude Cod 写") is None


def test_kg_serve_shows_cjk_pages(kb: KnowledgeBase) -> None:
    from urllib.parse import quote

    from tests.serving import request, served

    (kb.raw / "wiki.md").write_text(MIXED, encoding="utf-8")
    api.compile_kb(kb, "heuristic")
    with served(kb) as url:
        found = request(url + "/search?mode=bm25&q=" + quote("刘慈欣的小说"))
        assert found.status == 200 and f'href="/entities/{quote("三体", safe="")}"' in found.text
        page = request(url + "/entities/" + quote("三体"))
        assert page.status == 200 and "<h1>三体</h1>" in page.text and "《三体》是刘慈欣的小说。" in page.text


def test_the_cjk_benchmark_baseline_and_halves() -> None:
    from tests.conftest import load_benchmark

    cjk = load_benchmark("cjk")
    assert cjk.halves([1.0, 0.0, 1.0, 1.0]) == {"first_half": 0.5, "second_half": 1.0, "all": 0.75}
    ranked = cjk.bigram_bm25(["a.md", "b.md", "c.md"], ["# 梅雨\n\n梅雨は雨季の一種である。", "# 東京\n\n東京は日本の首都である。",
                                                      "# ENIAC\n\nENIAC was a computer."])
    assert ranked("日本の首都はどこか")[0] == "b.md" and ranked("ENIAC computer")[0] == "c.md"


def test_a_schema_7_graph_is_copied_with_the_terms_of_its_cjk_text(tmp_path: Path) -> None:
    import kuzu

    from kg.graph.schema import HISTORY, SCHEMA_VERSION, create_statements
    from kg.graph.store import Store

    path = tmp_path / "g.kuzu"
    db = kuzu.Database(str(path))
    conn = kuzu.Connection(db)
    for statement in create_statements():  # the schema of version 7: no terms columns
        conn.execute(statement.replace(", terms STRING", ""))
    for version, name in HISTORY[:7]:
        conn.execute("CREATE (:Migration {version: $v, name: $n, applied_at: 't'})", {"v": version, "n": name})
    conn.execute("CREATE (:Claim {id: 'c1', text: '三体是小说。', status: 'live', retracted_at: '', checked_at: ''})")
    conn.execute("CREATE (:Chunk {id: 'k1', source_path: 'a.md', idx: 0, text: 'ENIAC 写循环', char_start: 0, char_end: 9})")
    conn.execute("CHECKPOINT")
    conn.close()
    db.close()
    with Store(path) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.query("MATCH (c:Claim) RETURN c.terms AS t") == [{"t": "三体 体是 是小 小说"}]
        assert store.query("MATCH (k:Chunk) RETURN k.terms AS t") == [{"t": "写循 循环"}]


def test_a_latin_sentence_with_a_cjk_name_is_read_as_latin() -> None:
    result = extract("# Wangliang\n\nWangliang (望梁) is a town in Guangdong. 望梁是广东的一个镇。\n")
    assert [c.subject for c in result.claims] == ["Wangliang", "Wangliang"]


@given(st.text(alphabet=st.sampled_from(" \n\t三体ab.「」"), max_size=40))
def test_a_chunk_that_opens_with_white_space_is_verified_like_any_other(text: str) -> None:
    """A chunk may open with blank lines (a README's second chunk did): its quotes are still found."""
    verifier = ChunkVerifier(Chunk("a.md", 0, text, 0, len(text)))
    stripped = text.strip()
    if len("".join(stripped.split())) >= 3:  # shorter quotes are never located, by design
        assert verifier.locate(stripped) is not None


def test_words_and_numbers_written_against_cjk_text_are_search_terms() -> None:
    # a whitespace index reads "1979年の第35回" and "（Gustav" as one word each: the terms carry what a query asks
    assert cjk_terms("1979年の第35回総選挙、ILOの見解（Gustav Mahler, 1860年）") == (
        "1979 年の の第 35 回総 総選 選挙 ilo の見 見解 gustav 1860 年")
    assert cjk_terms("ENIAC 写循环, naïve “café”") == "写循 循环"  # Latin words between white spaces stay the text's


@given(st.text(alphabet=st.sampled_from(" \n三体ab1é,（）、。「」-"), max_size=40))
def test_every_query_token_of_a_cjk_text_is_indexed(text: str) -> None:
    # what `fts_query` asks for is in the terms or in a stretch of the text without CJK, which Kuzu indexes itself
    latin = {w for stretch in text.casefold().split() if not re.search("[三体（）、。「」]", stretch) for w in word_tokens(stretch)}
    indexed = set(index_terms(text).split()) | latin
    if re.search(r"[三体]", text):
        assert set(fts_query(text).split()) <= indexed


def test_a_japanese_passage_is_found_by_the_latin_words_written_against_it(kb: KnowledgeBase) -> None:
    (kb.raw / "a.md").write_text("# マーラー\n\nグスタフ・マーラー（Gustav Mahler）は作曲家。\n", encoding="utf-8")
    (kb.raw / "b.md").write_text("# 労働\n\n公務員の労働基本権制約に関するILOの見解は十分認識している。\n", encoding="utf-8")
    (kb.raw / "c.md").write_text("# ILO\n\nThe ILO is a United Nations agency. Gustav wrote to it.\n", encoding="utf-8")
    api.compile_kb(kb, "heuristic")
    assert {h.source_path for h in api.search_kb(kb, "Gustav", "bm25").hits} == {"a.md", "c.md"}
    assert {h.source_path for h in api.search_kb(kb, "ILOの見解", "bm25").hits} >= {"b.md"}
    assert api.search_kb(kb, "ILOの見解", "bm25").hits[0].source_path == "b.md"


def test_a_schema_8_graph_is_copied_with_the_terms_of_schema_9(tmp_path: Path) -> None:
    import kuzu

    from kg.graph.schema import HISTORY, SCHEMA_VERSION, create_statements
    from kg.graph.store import Store

    path = tmp_path / "g.kuzu"
    db = kuzu.Database(str(path))
    conn = kuzu.Connection(db)
    for statement in create_statements():
        conn.execute(statement)
    for version, name in HISTORY[:8]:
        conn.execute("CREATE (:Migration {version: $v, name: $n, applied_at: 't'})", {"v": version, "n": name})
    conn.execute("CREATE (:Claim {id: 'c1', text: 'ENIAC是1946年的。', terms: '是1 46 年的', status: 'live', "
                 "retracted_at: '', checked_at: ''})")
    conn.execute("CHECKPOINT")
    conn.close()
    db.close()
    with Store(path) as store:
        assert store.schema_version() == SCHEMA_VERSION == 9
        assert store.query("MATCH (c:Claim) RETURN c.terms AS t") == [{"t": "eniac 是 1946 年的 zzcmgj"}]


def test_a_name_in_cjk_script_is_never_given_a_type_the_model_cannot_read() -> None:
    # The type model learned from English names (shape, WordNet, gazetteers, words around): on a CJK
    # name its guess is noise, and a note's title was typed a product.
    note = "# 東京の研究会メモ\n\n『吾輩は猫である』は夏目漱石の小説である。Andrej Karpathy 在 2025 年提出了想法。\n"
    types = {e.name: e.type for e in extract(note).entities}
    assert types.get("東京の研究会メモ", "concept") == "concept" and types.get("吾輩は猫である") == "concept"
    assert types.get("Andrej Karpathy") == "person"


def test_a_cjk_word_after_a_latin_name_is_not_taken_for_its_predicate() -> None:
    result = extract("OpenAI 和 Anthropic 都提供了 API。Andrej Karpathy 在 2025 年提出了想法。\n\n"
                     "The ENIAC computed firing tables for the Army in 1946.")
    predicates = {c.text[:6]: c.predicate for c in result.claims}
    assert predicates["OpenAI"] == "states" and not has_cjk(predicates["Andrej"]), predicates
    assert predicates["The EN"] == "computed_firing_tables"
