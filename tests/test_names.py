from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from kg.names import _folded_key, name_key, slugify, unique_slug
from kg.text import CJK_BMP_CHARS, CJK_RUN


@given(st.text(max_size=300))
def test_slug_is_a_safe_file_name(text: str) -> None:
    slug = slugify(text)
    assert re.fullmatch(f"[a-z0-9{CJK_BMP_CHARS}]+(-[a-z0-9{CJK_BMP_CHARS}]+)*", slug)
    assert 0 < len(slug) <= 80 and len(slug.encode("utf-8")) <= 240
    if not CJK_RUN.search(unicodedata.normalize("NFKC", text)):  # "⼀" (a Kangxi radical) is the CJK letter 一
        assert slug.isascii()
    assert slug.split("-")[0] not in {"con", "prn", "aux", "nul"} and not re.fullmatch(r"(com|lpt)\d", slug.split("-")[0])


def test_cjk_names_keep_their_letters_in_slugs_and_keys() -> None:
    assert slugify("三体") == "三体" and slugify("LLM Wiki 工作流") == "llm-wiki-工作流"
    assert slugify("《三体》 / Vol. 2") == "三体-vol-2"
    assert name_key("ガラス") != name_key("カラス")  # a voicing mark is no accent
    assert name_key("한국") == "한국"


@given(st.text(alphabet=st.sampled_from("三体ガラスカ한국 abc-"), max_size=120))
def test_cjk_slugs_are_safe_file_names(text: str) -> None:
    slug = slugify(text)
    assert 0 < len(slug) <= 80 and "/" not in slug and slug.strip("-") == slug


def test_slug_examples() -> None:
    assert slugify("../x") == "x"
    assert slugify("a/b") == "a-b"
    assert slugify("CON") == "x-con"
    assert slugify("[[x|y]]") == "x-y"
    assert slugify("C++") == "c-plus-plus"
    assert slugify("") .startswith("x-")
    long = slugify("word " * 100)
    assert len(long) <= 80 and long != slugify("word " * 99)


@given(st.lists(st.text(min_size=1, max_size=40), max_size=40))
def test_unique_slugs_never_collide(names: list[str]) -> None:
    taken: set[str] = set()
    for name in names:
        slug = unique_slug(name, taken, identity=name + str(len(taken)))
        assert slug not in taken
        taken.add(slug)


def test_case_differences_share_a_slug_but_unique_slug_separates_them() -> None:
    taken = {slugify("Apple")}
    assert unique_slug("APPLE", taken, identity="APPLE") != "apple"


def test_name_key_folds_case_possessive_article_and_hyphen() -> None:
    assert name_key("von Neumann's") == name_key("Von Neumann")
    assert name_key("ENIAC’s") == "eniac"
    assert name_key("The Manchester Baby") == "manchester baby"
    assert name_key("Stored-program computer") == "stored program computer"
    assert name_key("Café") == "cafe"


@given(st.one_of(st.text(max_size=40), st.text(alphabet=st.characters(max_codepoint=127), max_size=40),
                 st.from_regex(r"(?:The |A |An |the |a )?[A-Za-z0-9]{1,8}(?: [A-Za-z0-9]{1,8}){0,4}", fullmatch=True)))
def test_name_key_fast_path_agrees_with_the_general_one(name: str) -> None:
    assert name_key(name) == _folded_key(name)


def test_in_context_names_the_subject_only_when_the_sentence_does_not() -> None:
    from kg.names import in_context

    assert in_context("It weighed about 27 tonnes.", "ENIAC") == "ENIAC: It weighed about 27 tonnes."
    assert in_context("ENIAC weighed about 27 tonnes.", "ENIAC") == "ENIAC weighed about 27 tonnes."
    assert in_context("Karpathy argued that agents need memory.", "Andrej Karpathy").startswith("Karpathy")
    assert in_context("It weighed a lot.", "") == "It weighed a lot."


def test_one_encoding_of_a_kana_name_one_key_and_slug() -> None:
    """Decomposed (macOS) and half-width kana are the same name as the composed full-width one."""
    composed, decomposed, half_width = "ガンダム", "カ\u3099ンダム", "ｶﾞﾝﾀﾞﾑ"
    assert name_key(decomposed) == name_key(half_width) == name_key(composed) != name_key("カンダム")
    assert slugify(decomposed) == slugify(half_width) == slugify(composed) == "ガンダム"
    assert name_key("Café Noir") == "cafe noir" and slugify("Café ﬁve") == "cafe-five"  # Latin as before


def test_a_cjk_letter_beyond_the_bmp_keeps_names_apart_in_slugs() -> None:
    assert slugify("𠮷野家") != slugify("野家") and slugify("𠮷野家").startswith("野家-")
