"""The offline extractor's learned entity types (issue 46): a multinomial logistic regression over
hashed features of an entity in its chunk, with a probability threshold per type below which the
entity stays a concept (a wrong type misleads a reader more than none).

The features: the type rules' votes (kg/extract/entity_types.py, as "rule=type" -> summed weight),
the gazetteers and WordNet, the name's shape, the words around its mentions, and the chunk's other
names (a word shared with a name the rules type). The weights (kg/extract/type_weights.npz) are
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

from kg.extract import gazetteer

WEIGHTS = Path(__file__).with_name("type_weights.npz")
CONCEPT = "concept"
# Kinds the training data does not label, which the rules tell by their own lists (WordNet's peoples and
# faithful, ISO 639-1, a disease's or a cell's word): the rules' type stands.
RULE_KINDS = frozenset({"nationality", "language", "religion", "office", "disease", "cell type", "organism"})

_TOKEN = re.compile(r"[\w'’-]+|[^\w\s]")
_VERSION = re.compile(r"(?:v?\d+(?:\.\d+)+|\.js|\.py|\.net|\+\+|#)$", re.IGNORECASE)
_CAMEL = re.compile(r"[a-z][A-Z]")


def around(before: str, after: str) -> set[str]:
    """The lower-cased words (and punctuation) either side of one mention: one and two of each."""
    left = [t.lower() for t in _TOKEN.findall(before[-60:])][-2:]
    right = [t.lower() for t in _TOKEN.findall(after[:60])][:2]
    out = {f"L1:{left[-1] if left else '^'}", f"R1:{right[0] if right else '$'}"}
    if len(left) == 2:
        out.add(f"L2:{left[0]} {left[1]}")
    if len(right) == 2:
        out.add(f"R2:{right[0]} {right[1]}")
    return out


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
    if first in gazetteer.first_names():
        out.append("gaz:first-name")
    if len(words) > 1 and last in gazetteer.last_names():
        out.append("gaz:last-name")
    instance = gazetteer.wordnet_instances().get(name)
    if instance:
        out.append(f"wordnet:{instance}")
    elif name in gazetteer.wordnet_names():
        out.append("wordnet:name")
    group = gazetteer.wordnet_group(name)
    if group:
        out.append(f"wordnet:{group}")
    return out


def entity_features(name: str, evidence: Mapping[str, float], around_words: Iterable[str], decided: str,
                    related: Iterable[str], scientific: bool) -> dict[str, float]:
    """Every feature of one entity, by name -> value: the rules' votes (log-scaled summed weight),
    the type the rules decide, name features, context words, the kinds of the names it shares a
    word with, and whether the chunk reads as an abstract."""
    features = {"bias": 1.0, f"decided:{decided}": 1.0}
    for rule, weight in evidence.items():
        features[f"rule:{rule}"] = math.log1p(weight)
    for feature in name_features(name):
        features[feature] = 1.0
    for feature in around_words:
        features[feature] = 1.0
    for kind in related:
        features[f"shares-word:{kind}"] = 1.0
    if scientific:
        features["scientific"] = 1.0
    return features


def bucket(feature: str, size: int) -> int:
    return zlib.crc32(feature.encode("utf-8")) % size


@dataclass(frozen=True)
class TypeModel:
    classes: tuple[str, ...]
    weights: np.ndarray  # (hash size, classes)
    bias: np.ndarray  # (classes,)
    thresholds: dict[str, float]  # a type's least probability; below it the entity is a concept
    fingerprint: str  # of the training data (benchmarks/train_types.py)

    def probabilities(self, features: Mapping[str, float]) -> np.ndarray:
        size = self.weights.shape[0]
        ordered = sorted(features.items())  # a sum in a fixed order: the same features, the same bits
        rows = [bucket(f, size) for f, _ in ordered]
        values = np.asarray([v for _, v in ordered], dtype=np.float64)
        logits = self.bias.astype(np.float64) + values @ self.weights[rows].astype(np.float64)
        exp = np.exp(logits - logits.max())
        return exp / exp.sum()

    def classify(self, features: Mapping[str, float]) -> tuple[str, float]:
        """(type, probability): the likeliest type, or concept when it is below its threshold."""
        probabilities = self.probabilities(features)
        best = int(np.argmax(probabilities))
        type_, probability = self.classes[best], float(probabilities[best])
        if type_ != CONCEPT and probability < self.thresholds.get(type_, 1.0):
            return CONCEPT, probability
        return type_, probability


def final_type(model_type: str, rule_type: str) -> str:
    """The stored type: a kind only the rules know (a language, a cell type), else the model's type
    or its abstention. A type the model never gives (no threshold reached the precision: products,
    works, chemicals, for want of examples) is not taken from the rules instead: measured across the
    held-out groups, that costs more precision than it adds right types."""
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
    """The model shipped in the package, read once a process."""
    return load(WEIGHTS)
