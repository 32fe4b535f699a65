"""Names in Chinese and Japanese text that no markup marks: a CJK sentence has no spaces and no
capitals. Japanese: the proper nouns of janome's IPADIC dictionary, which tags each as a person's
(family or given name), a place's or an organisation's; janome is imported on first use, by a text
that holds kana. Chinese: the places of Faker's zh_CN and zh_TW address data (countries,
provinces, cities), longest first. jieba, tried on 15 cmrc-trial passages, tagged generic words and
pieces of transliterated names as places and organisations ("人民政府", "大海", "德克" of a Dutch
swimmer's name): about one name in four wrong, so Chinese people and organisations are left to
markup.

A name is kept only when it has two letters or more written in Han or katakana (a Latin name in
CJK text is the English rules').
"""

from __future__ import annotations

import functools
import re
from typing import Any

from kg.extract import vocab as V

DICTIONARY = "dictionary"  # the rule name of the votes cast for the dictionary's tags
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_KATAKANA = re.compile(r"[\u30a0-\u30ff\u30fc・]+")
_CJK_NAME = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\u30a0-\u30ff\u30fc・]{2,}")
# Japanese POS (IPADIC: 名詞,固有名詞,<kind>,<sub>) -> kg's type
_JA_KINDS = {"人名": "person", "地域": "place", "組織": "organization"}


def has_kana(text: str) -> bool:
    return _KANA.search(text) is not None


def is_clause(text: str) -> bool:
    """Whether a Japanese span holds a verb, an auxiliary or a sentence-final particle: speech or a
    thought quoted in 「」 ("私はブルックナーの弟子だったことはない"), not a name."""
    return has_kana(text) and any(t.part_of_speech.startswith(("動詞", "助動詞", "助詞,終助詞")) for t in _janome().tokenize(text))


@functools.cache
def _chinese_places() -> re.Pattern[str]:
    from faker.providers.address.zh_CN import Provider as Mainland
    from faker.providers.address.zh_TW import Provider as Taiwan

    places = {*Mainland.countries, *Mainland.provinces, *Mainland.cities, *Taiwan.cities}
    for province in Mainland.provinces:  # "山西省" is written "山西" too
        short = re.sub("(?:省|市|特别行政区|(?:维吾尔|壮族|回族)?自治区)$", "", province)
        if len(short) >= 2:
            places.add(short)
    return re.compile("|".join(re.escape(p) for p in sorted(places, key=lambda p: (-len(p), p)) if len(p) >= 2))


def names(text: str, japanese: bool) -> list[tuple[str, str]]:
    """(name, type) of each name the dictionaries know in `text`, in order (repeats kept): of a
    Japanese text, janome's proper nouns; of a Chinese one, the gazetteer's places, but not one that
    opens a longer name ("北京" of "北京大学", "长春" of "长春村")."""
    if japanese:
        found = _japanese(text)
    else:
        heads = tuple(V.CHINESE_BODY_HEADS)
        found = [(m.group(), "place") for m in _chinese_places().finditer(text) if not text.startswith(heads, m.end())]
    return [(name, type_) for name, type_ in found if _CJK_NAME.fullmatch(name)]


@functools.cache
def _janome() -> Any:
    from janome.tokenizer import Tokenizer

    return Tokenizer()


def _japanese(text: str) -> list[tuple[str, str]]:
    """A person is named in full (a family name and the given name after it, "山田" "太郎"; a foreign
    name in katakana joined by ・, "ポール・マッカートニー") or with an honorific after it ("田中" of
    "田中さん"): a lone name the dictionary calls a person's is as often an era's, a river's or a
    word's ("大治", "長江"), and kanji joined by ・ are a list ("小沢・鳩山"). A place runs on into an
    administrative suffix ("東京" "都"); other suffixes are not the name's ("油田" of "油田産")."""
    tokens = [(t.surface, t.part_of_speech.split(",")) for t in _janome().tokenize(text)]
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(tokens):
        surface, pos = tokens[i]
        kind = _JA_KINDS.get(pos[2]) if pos[:2] == ["名詞", "固有名詞"] else None
        if kind is None:
            i += 1
            continue
        name, j = surface, i + 1
        if kind == "person":
            parts = 1
            while j < len(tokens) and tokens[j][1][:3] == ["名詞", "固有名詞", "人名"]:
                name += tokens[j][0]  # 姓 + 名
                parts, j = parts + 1, j + 1
            while (j + 1 < len(tokens) and tokens[j][0] == "・" and _KATAKANA.fullmatch(name)
                   and _KATAKANA.fullmatch(tokens[j + 1][0])):
                name += "・" + tokens[j + 1][0]
                parts, j = parts + 1, j + 2
            honorific = j < len(tokens) and tokens[j][1][:3] == ["名詞", "接尾", "人名"]
            if (parts == 1 and not honorific) or (not honorific and _stray_kanji(tokens, j)) or _stray_kanji(tokens, i - 1):
                i = j  # a kanji the dictionary left out beside it: a rarer name's part ("丸山眞" of "丸山眞男")
                continue
        elif kind == "place" and j < len(tokens) and tokens[j][0] in V.JAPANESE_PLACE_SUFFIXES:
            name += tokens[j][0]
            j += 1
        if kind == "organization" and name.endswith(tuple(V.JAPANESE_PLACE_HEADS)):
            kind = "place"  # 清水寺, 大阪城: a temple, a castle
        out.append((name, kind))
        i = j
    return out


def _stray_kanji(tokens: list[tuple[str, list[str]]], at: int) -> bool:
    """Whether the token at `at` is one kanji of a word (not a particle, an auxiliary or a symbol)."""
    if not 0 <= at < len(tokens):
        return False
    surface, pos = tokens[at]
    return len(surface) == 1 and _HAN.fullmatch(surface) is not None and pos[0] not in ("助詞", "助動詞", "記号")
