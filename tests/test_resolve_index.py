"""Name keys computed fast are name_key's, and the key index's word blocking (kg/compile/groups.py)
answers the same whether it searches the keys or has indexed their words."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from kg.compile.groups import BLOCK_LIMIT, KeyIndex
from kg.compile.resolve import fast_name_key
from kg.names import name_key

ascii_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=40)
names = st.one_of(
    ascii_text,
    st.text(alphabet=string.ascii_letters + string.digits + " -_'.&+#:()", max_size=40),
    st.text(max_size=30),
    st.sampled_from(["The Beatles", "the", "The ", "A", "a b", "An apple", "an", "Anne", "The The", "the-the",
                     "theatre", "a-ha", "A. Turing", "ENIAC's", "O'Brien", "rock'n'roll", "C++", "AT&T", "C#",
                     "  spaced   out  ", "tab\tsep", "x\x1fy", "dots...", "_under_score_", "--", "Café", "ŒUVRE"]),
)


@settings(max_examples=2000)
@given(names)
def test_fast_name_key_is_name_key(name: str) -> None:
    assert fast_name_key(name) == name_key(name)


def test_fast_name_key_on_every_pair_of_ascii_characters() -> None:
    chars = [chr(c) for c in range(128)]
    column = [name for a in chars for b in chars for name in (a + b, f"the{a}{b}x", f"{a}an {b}", f" a{a}{b} ")]
    assert [fast_name_key(name) for name in column] == [name_key(name) for name in column]


def test_a_word_in_too_many_names_blocks_nothing() -> None:
    keys = {f"report {i} of acme": f"e{i}" for i in range(BLOCK_LIMIT)}
    index = KeyIndex(keys)
    assert len(index.keys_with("report") or ()) == BLOCK_LIMIT  # at the limit: still blocks
    assert index.keys_with("7") == {"report 7 of acme"}
    bigger = KeyIndex({**keys, "report z of acme": "z"})
    assert bigger.keys_with("report") is None and bigger.keys_with("acme") is None


def test_many_word_lookups_switch_to_a_word_dict_with_the_same_answers() -> None:
    keys = {f"word{i} shared{i % 7} common": f"e{i}" for i in range(3 * KeyIndex.SEARCH_LIMIT)}
    expected: dict[str, set[str]] = {}
    for key in keys:
        for word in key.split():
            expected.setdefault(word, set()).add(key)
    index = KeyIndex(keys)
    words = [*sorted(expected), "missing"]
    answers = [index.keys_with(w) for w in words]
    assert index._words is not None  # switched part-way
    assert answers == [expected.get(w, set()) for w in words]
    assert [index.keys_with(w) for w in words] == answers


def test_similar_keys_are_found_either_way_round() -> None:
    index = KeyIndex({"bletchley park": "a", "bletchly park": "b", "harvard mark i": "c", "harvard mark ii": "d"})
    assert [k for _, k in index.similar("bletchly park", 0.92)] == ["bletchley park"]
    assert [k for _, k in index.similar("bletchley park", 0.92)] == ["bletchly park"]
