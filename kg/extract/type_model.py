"""The offline extractor's learned entity types (issue 46): a multinomial logistic regression over
hashed features of an entity in its chunk, with a probability threshold per type below which the
entity stays a concept (a wrong type misleads a reader more than none).

The features: the type rules' votes (kg/extract/entity_types.py, as "rule=type" -> summed weight),
the gazetteers and WordNet (the name's own senses' files too), the name's shape, the words around its
mentions (the verb before a preposition, a description's head noun, and the WordNet files of the
nouns next to it: words the training never saw still tell a kind; the words before it in its
sentence as a bag: "acquired by", "an alliance including"; an owner's possessive: "Anthropic's
Claude"), the chunk's
other names (a word shared with a name the rules type) and how often the source names it. The
extractor pools an entity's features over every chunk of its source that names it (and a lone family
name's into its full name's): one confident context types the name throughout. The weights (kg/extract/type_weights.npz) are
trained by `python benchmarks/train_types.py` on ../shared/data; here they are only read, once, and
applied with numpy: one dot product per entity.
"""

from __future__ import annotations

import functools
import math
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kg.extract import gazetteer, tables

WEIGHTS = Path(__file__).with_name("type_weights.npz")
CONCEPT = "concept"
# Kinds of the sciences the training data does not label, which the rules tell by their own words (a
# disease's suffix, a cell's or an organism's word): the rules' type stands. Nationalities, languages,
# religions and offices are not given: the data labels them misc (and Re-DocRED a religion ORG), and
# given by the rules they cost every held-out group precision (benchmarks/README.md, train_types.py).
RULE_KINDS = frozenset({"disease", "cell type", "organism"})

# The value of the features that are the name's own words (its first, last and every word, the last's
# ending): above 1, the fit's L2 penalty holds them back less than the context's and the rules'
# features (a penalty on w*v is (w*v)^2 / v^2). Held out by document, 1.5 types more right in every
# group at the same precision; 0.5 fewer (benchmarks/README.md, train_types.py).
NAME_WORD_VALUE = 1.5
_NAME_WORDS = ("first:", "head:", "word:", "suffix3:")
_TOKEN = re.compile(r"[\w'’-]+|[^\w\s]")
_VERSION = re.compile(r"(?:v?\d+(?:\.\d+)+|\.js|\.py|\.net|\+\+|#)$", re.IGNORECASE)
_CAMEL = re.compile(r"[a-z][A-Z]")


def around(before: str, after: str) -> set[str]:
    """What one mention's sentence says of it: the lower-cased words (and punctuation) either side,
    one and two of each; the verb or noun before a preposition before it ("born in", "signed to",
    "written by": past an article); the head noun of a description after it ("X, a British band",
    "X is an American rapper"); and the WordNet files of those nouns and of the nouns next to it
    ("the band X", "X album"), so that words the training never saw still tell a kind."""
    left = [t.lower() for t in _TOKEN.findall(before[-80:])]
    right = [t.lower() for t in _TOKEN.findall(after[:60])][:2]
    out = {f"L1:{left[-1] if left else '^'}", f"R1:{right[0] if right else '$'}"}
    if len(left) >= 2:
        out.add(f"L2:{left[-2]} {left[-1]}")
    if len(right) == 2:
        out.add(f"R2:{right[0]} {right[1]}")
    bare = [t for t in left if t not in _ARTICLES]
    if len(bare) >= 2 and bare[-1] in _PREPOSITIONS:
        out.add(f"LP:{bare[-2]} {bare[-1]}")
    if bare and bare[-1].isalpha() and bare[-1] not in _PREPOSITIONS:
        out.update(f"L1-file:{kind}" for kind in gazetteer.noun_files(bare[-1])[:1])
    if right and right[0].isalpha():
        out.update(f"R1-file:{kind}" for kind in gazetteer.noun_files(right[0])[:1])
    # the words before it in its sentence (80 characters), as a bag: wherever they stand, those that
    # tell a kind ("acquired by", "an alliance including", "the company") the training weighs
    out.update(f"W:{t}" for t in left if t.isalpha() and t not in _ARTICLES)
    # and the words after it, to the clause's end: "X released their debut album", "X, who was
    # born in" (a pronoun's number and gender, a verb of bands or of people)
    out.update(f"WR:{t}" for t in _TOKEN.findall(_CLAUSE_END.split(after[:80], maxsplit=1)[0].lower())[:8]
               if t.isalpha() and t not in _ARTICLES - _OWNERS)
    if right and right[0] in _POSSESSIVE:  # "Google's search engine", "Anthropic's Claude": an owner
        owned = _TOKEN.findall(after[:60])[1:2]
        out.add("poss:" + ("name" if owned and owned[0][:1].isupper() else "word"))
        if owned and owned[0].isalpha():
            out.update(f"poss-file:{kind}" for kind in gazetteer.noun_files(owned[0])[:1])
    head = description_head(after)
    if head:
        out.add(f"desc:{head}")
        out.update(f"desc-file:{kind}" for kind in gazetteer.noun_files(head)[:2])
    return out


_CLAUSE_END = re.compile(r"[;:.!?]\s")
_OWNERS = frozenset({"his", "her", "its", "their"})
_POSSESSIVE = frozenset({"'s", "’s", "'", "’"})
_ARTICLES = frozenset({"the", "a", "an", "his", "her", "its", "their", "our", "my"})
_PREPOSITIONS = frozenset({"in", "at", "on", "of", "from", "to", "by", "with", "for", "into", "near", "as", "under",
                           "about", "against", "between", "through", "via", "like"})
_DESCRIPTION = re.compile(r"^\s*(?:\([^()]*\)\s*)?(?:,\s*|,?\s*(?:is|was|are|were|has been|had been|became|remains)\s+"
                          r"(?:also\s+|now\s+|still\s+)?)(?:an?|the|one of the)\s+([^,;:()]{3,120})")
_HEAD_END = re.compile(r"\b(?:who|whom|which|that|whose|where|when|in|of|on|at|from|for|by|with|to|and|or|but|"
                       r"based|located|founded|formed|established|born|known|named|written|directed|produced|released)\b")


def description_head(after: str) -> str | None:
    """The head noun of what the text says a name is, right after it: "X, a British rock band
    formed in ..." and "X is an American rapper" -> "band", "rapper" (the last lower-case word before
    the phrase's first preposition, relative word or conjunction)."""
    found = _DESCRIPTION.match(after)
    if not found:
        return None
    words = re.findall(r"[^\W\d_]+", _HEAD_END.split(found.group(1), maxsplit=1)[0])
    return words[-1].lower() if words and words[-1].islower() else None


def name_features(name: str) -> list[str]:
    """The name's shape and what the gazetteers and WordNet know of it."""
    words = name.split()
    if not words:
        return []
    last, first = words[-1], words[0]
    out = [f"words:{min(len(words), 4)}", f"head:{last.lower()}", f"first:{first.lower()}",
           f"suffix3:{last[-3:].lower()}", f"suffix2:{last[-2:].lower()}",
           "shape:" + "".join("A" if w.isupper() and len(w) > 1 else "C" if w[:1].isupper() else
                              "d" if w[:1].isdigit() else "l" for w in words[:4])]
    if any(c.isdigit() for c in name):
        out.append("digit")
    if "-" in name:
        out.append("hyphen")
    if any(_CAMEL.search(w[1:]) for w in words):
        out.append("camel")
    if _VERSION.search(name):
        out.append("version-like")
    if len(words) == 1 and name.isupper():
        out.append(f"acronym:{min(len(name), 5)}")
    if len(words) == 1:
        out.append("common-word" if gazetteer.common_word(name) else "no-word")
    for flag, known in (("place", gazetteer.is_place), ("country", gazetteer.is_country), ("city", gazetteer.is_city),
                        ("town", gazetteer.is_town), ("language", gazetteer.is_language),
                        ("demonym", gazetteer.is_demonym)):
        if known(name):
            out.append(f"gaz:{flag}")
    if first.lower() in gazetteer.first_names():
        out.append("gaz:first-name")
    if len(words) > 1 and last.lower() in gazetteer.last_names():
        out.append("gaz:last-name")
    if len(words) > 1:  # each word: "Rage Against the Machine", "Arctic Monkeys", "Institute"
        out.extend(f"word:{w.lower()}" for w in words[:6])
        if last.endswith("s") and not last.endswith("ss") and gazetteer.common_word(last[:-1]):
            out.append("plural-head")  # "Spice Girls", "Stone Roses": a band's, a team's
    if len(words) > 1:  # "Cheap Trick", "Faith No More": English words, as a band's or a work's name is
        common = sum(gazetteer.common_word(w) for w in words if w.isalpha())
        out.append(f"common-words:{'all' if common == len(words) else 'some' if common else 'none'}")
    instance = gazetteer.wordnet_instances().get(name)
    if instance:
        out.append(f"wordnet:{instance}")
    elif name in gazetteer.wordnet_names():
        out.append("wordnet:name")
    group = gazetteer.wordnet_group(name)
    if group:
        out.append(f"wordnet:{group}")
    out.extend(f"name-file:{kind}" for kind in gazetteer.noun_files(name))  # "Jupiter": object, person
    if len(words) > 1 and last.isalpha():
        out.extend(f"head-file:{kind}" for kind in gazetteer.noun_files(last)[:1])  # "... Hospital": artifact
    return out


def entity_features(name: str, evidence: Mapping[str, float], around_words: Iterable[str], decided: Iterable[str],
                    related: Iterable[str], scientific: bool, mentions: int = 1) -> dict[str, float]:
    """Every feature of one entity, by name -> value: the rules' votes (log-scaled summed weight),
    the types the rules decide (in each chunk of the source naming it), name features, context
    words, the kinds of the names it shares a word with, whether the chunk reads as an abstract, and
    how often the source mentions it (binned: a name said once is more often a passing concept)."""
    features = {"bias": 1.0, f"mentions:{mention_bin(mentions)}": 1.0}
    for kind in decided:
        features[f"decided:{kind}"] = 1.0
    for rule, weight in evidence.items():
        features[f"rule:{rule}"] = math.log1p(weight)
    for feature in name_features(name):
        features[feature] = NAME_WORD_VALUE if feature.startswith(_NAME_WORDS) else 1.0
    for feature in around_words:
        features[feature] = 1.0
    for kind in related:
        features[f"shares-word:{kind}"] = 1.0
    if scientific:
        features["scientific"] = 1.0
    return features


def mention_bin(mentions: int) -> str:
    return "1" if mentions <= 1 else "2-3" if mentions <= 3 else "4-9" if mentions <= 9 else "10+"


def bucket(feature: str, size: int) -> int:
    return zlib.crc32(feature.encode("utf-8")) % size


@dataclass(frozen=True)
class TypeModel:
    classes: tuple[str, ...]
    weights: np.ndarray  # (hash size, classes); or, with `rows`, (len(rows), classes)
    bias: np.ndarray  # (classes,)
    thresholds: dict[str, float]  # a type's least probability; below it the entity is a concept
    fingerprint: str  # of the training data (benchmarks/train_types.py)
    # The buckets `weights` holds, ascending, when it holds only those (the shipped model: 80k of
    # 262k buckets have a weight), and how many buckets features hash into; None: every bucket.
    rows: np.ndarray | None = None
    hash_size: int = 0

    def probabilities(self, features: Mapping[str, float]) -> np.ndarray:
        size = self.hash_size or self.weights.shape[0]
        ordered = sorted(features.items())  # a sum in a fixed order: the same features, the same bits
        rows = [bucket(f, size) for f, _ in ordered]
        values = np.asarray([v for _, v in ordered], dtype=np.float64)
        logits = self.bias.astype(np.float64) + values @ self.rows_of(rows).astype(np.float64)
        exp = np.exp(logits - logits.max())
        return exp / exp.sum()

    def rows_of(self, buckets: list[int]) -> np.ndarray:
        """The weights of these buckets, in order (a bucket without weights: zeros)."""
        if self.rows is None:
            return self.weights[buckets]
        if not len(self.rows):
            return np.zeros((len(buckets), self.weights.shape[1]), dtype=self.weights.dtype)
        wanted = np.asarray(buckets, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.rows, wanted), len(self.rows) - 1)
        found = self.rows[at] == wanted
        out = np.zeros((len(wanted), self.weights.shape[1]), dtype=self.weights.dtype)
        out[found] = self.weights[at[found]]
        return out

    def classify(self, features: Mapping[str, float]) -> tuple[str, float]:
        """(type, probability): the likeliest type, or concept when it is below its threshold."""
        probabilities = self.probabilities(features)
        best = int(np.argmax(probabilities))
        type_, probability = self.classes[best], float(probabilities[best])
        if type_ != CONCEPT and probability < self.thresholds.get(type_, 1.0):
            return CONCEPT, probability
        return type_, probability


def final_type(model_type: str, rule_type: str) -> str:
    """The stored type: a kind of the sciences only the rules know (a disease, a cell type), else the
    model's type or its abstention. A type the model does not give (below its threshold) is not taken
    from the rules instead: measured across the held-out groups, that costs more precision than it
    adds right types."""
    return rule_type if rule_type in RULE_KINDS else model_type


def load(path: Path) -> TypeModel:
    """A model written by `save` (kg/extract/type_weights.npz: only the hashed rows in use are stored)."""
    with np.load(path, allow_pickle=False) as data:
        size = int(data["hash_size"])
        classes = tuple(str(c) for c in data["classes"])
        weights = np.zeros((size, len(classes)), dtype=np.float32)
        weights[data["rows"]] = data["row_weights"].astype(np.float32)
        thresholds = dict(zip((str(c) for c in data["threshold_types"]), (float(t) for t in data["thresholds"]), strict=True))
        return TypeModel(classes, weights, data["bias"].astype(np.float32), thresholds, str(data["fingerprint"]))


def save(model: TypeModel, path: Path) -> None:
    rows = np.flatnonzero(np.abs(model.weights).sum(axis=1) > 0).astype(np.int32)
    types = sorted(model.thresholds)
    np.savez_compressed(
        path, hash_size=np.int64(model.weights.shape[0]), classes=np.array(model.classes), rows=rows,
        row_weights=model.weights[rows].astype(np.float16), bias=model.bias.astype(np.float32),
        threshold_types=np.array(types, dtype=str), thresholds=np.array([model.thresholds[t] for t in types]),
        fingerprint=np.array(model.fingerprint))


@functools.cache
def shipped() -> TypeModel:
    """The model shipped in the package, read once a process: unpacked once into the tables' cache
    folder (kg/extract/tables.py, keyed by kg/extract's bytes, these weights' included), then read
    as its arrays' bytes: only the buckets with a weight (80k of 262k), in float16 as the .npz
    stores them, 1.8 MB (all 262k buckets in float32, 9.4 MB, took 13 ms of CPU; inflating the .npz 12-45 ms)."""
    classes, size, rows, dtype, weights, bias, thresholds, fingerprint = tables.load("type_weights", _unpacked,
                                                                                    tables.folder())
    kept = np.frombuffer(rows, dtype=np.int32)
    return TypeModel(classes, np.frombuffer(weights, dtype=np.dtype(dtype)).reshape(len(kept), len(classes)),
                     np.frombuffer(bias, dtype=np.float32), dict(thresholds), fingerprint, kept, size)


def _unpacked() -> tuple[tuple[str, ...], int, bytes, str, bytes, bytes, tuple[tuple[str, float], ...], str]:
    """The shipped weights' buckets that have a weight, ascending, and their rows: in float16 when
    that holds them exactly (as `save` stores them), else float32 (as `load` gives them)."""
    model = load(WEIGHTS)
    rows = np.flatnonzero(np.abs(model.weights).sum(axis=1) > 0).astype(np.int32)
    weights = model.weights[rows].astype(np.float32)
    if np.array_equal(weights.astype(np.float16).astype(np.float32), weights):
        weights = weights.astype(np.float16)
    return (model.classes, model.weights.shape[0], rows.tobytes(), weights.dtype.str, weights.tobytes(),
            model.bias.astype(np.float32).tobytes(), tuple(model.thresholds.items()), model.fingerprint)
