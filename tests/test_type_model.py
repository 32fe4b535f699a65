"""The offline extractor's learned entity types (kg/extract/type_model.py, benchmarks/train_types.py)."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from conftest import load_benchmark
from hypothesis import given
from hypothesis import strategies as st

from kg.extract import type_model
from kg.extract.heuristic import HeuristicExtractor
from kg.models import ENTITY_TYPES, ExtractedEntity


def test_shipped_weights_load_quickly_with_the_vocabulary_and_a_fingerprint() -> None:
    started = time.perf_counter()
    model = type_model.load(type_model.WEIGHTS)
    assert time.perf_counter() - started < 0.1
    assert set(model.classes) <= set(ENTITY_TYPES) and {"person", "organization", "place", "product", "concept"} <= set(model.classes)
    assert set(model.thresholds) == set(model.classes) - {"concept"}
    assert all(0.0 < t <= 1.0 for t in model.thresholds.values())
    assert len(model.fingerprint) == 16


def test_the_weights_were_trained_on_the_data_beside_the_checkout() -> None:
    train_types = load_benchmark("train_types")
    base = train_types.REPO.parent / "shared" / "data"
    if not (base / "crossner").is_dir():
        pytest.skip("../shared/data is not beside this checkout")
    assert type_model.shipped().fingerprint == train_types.fingerprint(base)


def _examples(train_types) -> list:  # type: ignore[no-untyped-def]
    rows = [("person", {"bias": 1.0, "gaz:first-name": 1.0, "L1:mr": 1.0}),
            ("person", {"bias": 1.0, "gaz:first-name": 1.0, "R1:was": 1.0}),
            ("product", {"bias": 1.0, "version-like": 1.0, "L1:using": 1.0}),
            ("product", {"bias": 1.0, "camel": 1.0, "L1:using": 1.0}),
            ("concept", {"bias": 1.0, "common-word": 1.0}),
            ("concept", {"bias": 1.0, "common-word": 1.0, "R1:was": 1.0})]
    return [train_types.Example("g", {f"n{i}"}, features, "concept", label, True) for i, (label, features) in enumerate(rows)]


def test_training_on_a_tiny_fixture_is_deterministic() -> None:
    train_types = load_benchmark("train_types")
    classes = ["concept", "person", "product"]
    first = train_types.fit(_examples(train_types), classes, size=64)
    second = train_types.fit(_examples(train_types), classes, size=64)
    assert np.array_equal(first[0], second[0]) and np.array_equal(first[1], second[1])
    probabilities = train_types.probabilities(_examples(train_types), *first, size=64)
    assert [classes[j] for j in probabilities.argmax(axis=1)] == [e.label for e in _examples(train_types)]


def test_a_type_below_its_threshold_is_a_concept() -> None:
    size = 8
    weights = np.zeros((size, 2), dtype=np.float32)
    weights[type_model.bucket("strong", size), 1] = 5.0
    weights[type_model.bucket("weak", size), 1] = 0.5
    model = type_model.TypeModel(("concept", "person"), weights, np.zeros(2, dtype=np.float32), {"person": 0.9}, "x")
    assert model.classify({"strong": 1.0})[0] == "person"
    assert model.classify({"weak": 1.0}) == ("concept", pytest.approx(1 / (1 + np.exp(-0.5))))


def test_a_saved_model_reads_back(tmp_path) -> None:  # type: ignore[no-untyped-def]
    weights = np.zeros((16, 2), dtype=np.float32)
    weights[3] = [0.5, -0.25]
    model = type_model.TypeModel(("concept", "place"), weights, np.array([0.1, -0.1], dtype=np.float32), {"place": 0.8}, "abc")
    type_model.save(model, tmp_path / "m.npz")
    back = type_model.load(tmp_path / "m.npz")
    assert back.classes == model.classes and back.thresholds == model.thresholds and back.fingerprint == "abc"
    assert np.array_equal(back.weights, weights) and np.allclose(back.bias, model.bias)


@pytest.mark.parametrize("exact_in_half", [True, False])
def test_the_shipped_form_keeps_the_weighted_buckets_only_and_gives_the_same_bits(tmp_path, monkeypatch,  # type: ignore[no-untyped-def]
                                                                                  exact_in_half: bool) -> None:
    """What `save` writes (benchmarks/train_types.py) is read by `shipped` as the buckets that have a
    weight: the same probabilities to the bit as the whole table `load` gives."""
    size = 64
    weights = np.zeros((size, 3), dtype=np.float32)
    weights[[2, 17, 40, 63]] = [[0.5, -0.25, 1.0], [2.0, 0.0, -3.5], [0.125, 0.75, -1.0], [1.5, -2.0, 0.0]]
    model = type_model.TypeModel(("concept", "person", "place"), weights, np.array([0.1, -0.1, 0.2], dtype=np.float32),
                                 {"person": 0.6, "place": 0.7}, "abc")
    path = tmp_path / "weights.npz"
    type_model.save(model, path)
    if not exact_in_half:  # a model saved with more precision than float16 (a later `save`) is kept as read
        with np.load(path) as data:
            arrays = {name: data[name] for name in data.files}
        arrays["row_weights"] = arrays["row_weights"].astype(np.float32) + np.float32(1e-4)
        np.savez_compressed(path, **arrays)
    monkeypatch.setattr(type_model, "WEIGHTS", path)
    monkeypatch.setenv("KG_CACHE_DIR", str(tmp_path / "cache"))
    type_model.shipped.cache_clear()
    try:
        shipped, whole = type_model.shipped(), type_model.load(path)
        assert shipped.rows is not None and shipped.rows.tolist() == [2, 17, 40, 63]
        assert shipped.weights.dtype == (np.float16 if exact_in_half else np.float32)
        assert (shipped.classes, shipped.thresholds, shipped.fingerprint) == (whole.classes, whole.thresholds, "abc")
        names = [f"f{i}" for i in range(300)]
        for n in range(1, 40):
            features = {name: 1.0 + (i % 3) / 2 for i, name in enumerate(names[n : n * 7])}
            assert shipped.probabilities(features).tobytes() == whole.probabilities(features).tobytes()
            assert shipped.classify(features) == whole.classify(features)
    finally:
        type_model.shipped.cache_clear()


def test_the_shipped_model_types_as_the_saved_weights_do() -> None:
    shipped, whole = type_model.shipped(), type_model.load(type_model.WEIGHTS)
    features = type_model.entity_features("Remington Rand", {"org-suffix": 1.0}, type_model.around("sold by ", " in 1950."),
                                          ["organization"], ["organization"], False, 3)
    assert shipped.rows is not None and len(shipped.rows) < whole.weights.shape[0] / 2
    assert shipped.probabilities(features).tobytes() == whole.probabilities(features).tobytes()


def test_an_unknown_type_reads_as_concept() -> None:
    assert ExtractedEntity(name="X", type="thing").type == "concept"
    assert ExtractedEntity(name="X", type="Organisation").type == "organization"
    assert ExtractedEntity(name="X", type="product").type == "product"


def test_the_offline_extractor_gives_only_the_vocabulary() -> None:
    from kg.extract import ExtractionContext
    from kg.models import Chunk

    text = ("Alan Turing worked at Bletchley Park in England. Colossus was a computer built by Tommy Flowers. "
            "Python is a programming language; the team wrote it in Python 3.12.")
    chunk = Chunk(source_path="a.md", index=0, text=text, start=0, end=len(text))
    result = HeuristicExtractor().extract_chunk(chunk, ExtractionContext("a.md", "a"))
    types = {e.name: e.type for e in result.entities}
    assert set(types.values()) <= set(ENTITY_TYPES)
    assert types.get("Alan Turing") == "person"


def _index_section(index: str, title: str) -> str:
    """The lines under one type's heading of index.md ('### [[indexes/...|Person]] (7)')."""
    match = re.search(rf"^### \[\[[^|\]]+\|{title}\]\][^\n]*\n(.*?)(?=^##)", index, re.MULTILINE | re.DOTALL)
    return match.group(1) if match else ""


def test_the_examples_index_lists_no_machine_among_people_or_bodies(compiled) -> None:  # type: ignore[no-untyped-def]
    index = (compiled.wiki / "index.md").read_text()
    machines = ("Colossus", "EDVAC", "ENIAC", "Manchester Baby", "UNIVAC", "Harvard Mark", "Automatic Computing Engine",
                "Intel 4004")
    people = _index_section(index, "Person")
    assert not [m for m in (*machines, "CPU", "ALU") if f"|{m}" in people], people
    bodies = _index_section(index, "Organization")  # "the ALU" still reads as a body's acronym: not pinned
    assert not [m for m in machines if f"|{m}" in bodies], bodies
    assert "Alan Turing" in _index_section(index, "Person")
    everyone = (compiled.wiki / "indexes" / "entities" / "person.md").read_text()
    assert "|Grace Hopper]]" in everyone and "|John von Neumann]]" in everyone  # a family name that is a word, a particle
    assert "|Whether]]" not in everyone  # a closed-class word opening a sentence was a "person"


def test_the_rules_keep_the_kinds_no_data_labels_and_nothing_else() -> None:
    assert type_model.final_type("concept", "disease") == "disease"  # "rheumatoid arthritis": a disease's suffix
    assert type_model.final_type("organization", "religion") == "organization"  # the data labels faiths misc or ORG
    assert type_model.final_type("concept", "nationality") == "concept"  # "French": misc in CrossNER and the news
    assert type_model.final_type("concept", "work") == "concept"  # the model abstains: no fallback to the rules
    assert type_model.final_type("person", "place") == "person"


@given(st.permutations([f"w:{i}" for i in range(17)]), st.lists(st.floats(0.1, 3.0), min_size=17, max_size=17))
def test_probabilities_do_not_depend_on_the_order_features_come_in(order: list[str], values: list[float]) -> None:
    """A set's order (a mention's neighbours) changes from one process to the next: the type must not."""
    model = type_model.shipped()
    features = dict(zip(sorted(order), values, strict=True))
    shuffled = {name: features[name] for name in order}
    assert model.probabilities(features).tobytes() == model.probabilities(shuffled).tobytes()


def test_a_description_after_a_name_gives_its_head_noun() -> None:
    assert type_model.description_head(", a British rock band formed in 1970.") == "band"
    assert type_model.description_head(" (born 1950) is an American rapper who") == "rapper"
    assert type_model.description_head(" gave a book to her.") is None  # no apposition, no copula
    assert type_model.description_head(", the Premier of China") is None  # a title: no lower-case head


def test_the_words_around_a_mention_carry_the_verb_before_its_preposition_and_wordnet_kinds() -> None:
    features = type_model.around("The album was written by the ", " and released.")
    assert {"LP:written by", "L1:the", "L2:by the"} <= features
    assert "L1-file:group" in type_model.around("He joined the band ", ".")  # "band": a group in WordNet
    assert {"desc:rapper", "desc-file:person"} <= type_model.around("", " is an American rapper.")


def test_the_words_before_a_mention_are_a_bag_and_an_owner_s_possessive_a_feature() -> None:
    features = type_model.around("Last week a new alliance including ", " was formed.")
    assert {"W:alliance", "W:including", "W:week"} <= features and "W:a" not in features  # no article
    assert not [f for f in type_model.around("", " sold 46 UNIVAC I systems.") if f.startswith("W:")]  # before only
    owned = type_model.around("", "'s search engine ranks pages.")
    assert {"poss:word", "poss-file:act"} & owned and "poss:word" in owned
    assert "poss:name" in type_model.around("", "’s Claude answered.")


def test_the_words_after_a_mention_to_its_clause_s_end_are_a_bag() -> None:
    features = type_model.around("", " released their debut album in 1990. They toured.")
    assert {"WR:released", "WR:their", "WR:debut", "WR:album"} <= features  # an owner's pronoun kept
    assert "WR:toured" not in features and "WR:the" not in type_model.around("", " joined the band.")


def test_each_word_of_a_longer_name_and_a_plural_head_are_features() -> None:
    features = type_model.name_features("Stone Roses")
    assert {"word:stone", "word:roses", "plural-head"} <= set(features)
    assert "plural-head" not in type_model.name_features("Harvard Business Press")  # "-ss": no plural
    assert not [f for f in type_model.name_features("Primus") if f.startswith("word:")]  # one word: its own features


def test_how_often_a_source_names_an_entity_is_a_feature() -> None:
    def bins(mentions: int) -> set[str]:
        features = type_model.entity_features("Acme", {}, (), ["concept"], (), False, mentions)
        return {f for f in features if f.startswith("mentions:")}

    assert [bins(n) for n in (1, 3, 9, 10)] == [{"mentions:1"}, {"mentions:2-3"}, {"mentions:4-9"}, {"mentions:10+"}]


def test_the_names_own_words_weigh_more_than_its_context_and_shape() -> None:
    features = type_model.entity_features("Faith No More", {}, {"W:band", "L1:the"}, ["concept"], (), False)
    words = {f for f in features if f.startswith(("first:", "head:", "word:", "suffix3:"))}
    assert words >= {"first:faith", "head:more", "word:no", "suffix3:ore"}
    assert {features[f] for f in words} == {type_model.NAME_WORD_VALUE} and type_model.NAME_WORD_VALUE > 1
    assert features["W:band"] == features["L1:the"] == features["words:3"] == 1.0  # context and shape: 1


class _Recorder(HeuristicExtractor):
    """The extractor, keeping the features each entity was typed by."""

    def __init__(self) -> None:
        super().__init__(None)
        self.features: dict[str, dict[str, float]] = {}

    def final_type(self, entity, features):  # type: ignore[no-untyped-def]
        self.features.setdefault(entity.name, features)
        assert self.features[entity.name] == features  # one name, one set of features in a source
        return super().final_type(entity, features)


def _chunks(*texts: str) -> list:  # type: ignore[type-arg]
    from kg.models import Chunk

    return [Chunk(source_path="a.md", index=i, text=t, start=0, end=len(t)) for i, t in enumerate(texts)]


def test_an_entity_is_typed_over_every_chunk_of_its_source_that_names_it() -> None:
    from kg.extract import ExtractionContext

    chunks = _chunks("Remington Rand sold 46 UNIVAC I systems to the Census Bureau and others.",
                     "Engineers at Remington Rand built the UNIVAC II later. Remington Rand hired many of them.")
    recorder = _Recorder()
    results = recorder.extract(chunks, ExtractionContext("a.md", "a"))
    pooled = recorder.features["Remington Rand"]
    assert "R1:sold" in pooled and "R1:built" in pooled and "mentions:2-3" in pooled
    types = [{e.name: e.type for e in r.entities}.get("Remington Rand") for r in results]
    assert types[0] == types[1]
    alone = _Recorder()  # a chunk extracted alone knows only its own mentions
    alone.extract_chunk(chunks[0], ExtractionContext("a.md", "a"))
    assert "R1:built" not in alone.features["Remington Rand"]


def test_a_lone_family_name_lends_its_contexts_to_the_full_name() -> None:
    from kg.extract import ExtractionContext

    chunks = _chunks("Andrej Karpathy wrote a post about it.", "In a later post, Karpathy said that the tool works well.")
    recorder = _Recorder()
    recorder.extract(chunks, ExtractionContext("a.md", "a"))
    assert "R1:said" in recorder.features["Andrej Karpathy"] and "mentions:2-3" in recorder.features["Andrej Karpathy"]


def test_a_lone_family_name_is_typed_as_its_full_name() -> None:
    """"Karpathy" and "Andrej Karpathy" in one source: one person, not a person and a concept."""
    from kg.extract import ExtractionContext

    chunks = _chunks("Andrej Karpathy wrote a post about it.", "In a later post, Karpathy said that the tool works well.")
    recorder = _Recorder()
    results = recorder.extract(chunks, ExtractionContext("a.md", "a"))
    assert recorder.features["Karpathy"] == recorder.features["Andrej Karpathy"]
    types = {e.name: e.type for r in results for e in r.entities}
    assert types.get("Karpathy", types["Andrej Karpathy"]) == types["Andrej Karpathy"]


def test_typing_over_a_source_is_deterministic() -> None:
    from kg.extract import ExtractionContext

    chunks = _chunks("OpenAI, Anthropic and Google formed a new alliance. OpenAI sold access to its models.",
                     "Sam Altman runs OpenAI. Google acquired DeepMind in 2014.")
    first = HeuristicExtractor().extract(chunks, ExtractionContext("a.md", "a"))
    second = HeuristicExtractor().extract(chunks, ExtractionContext("a.md", "a"))
    assert [r.model_dump() for r in first] == [r.model_dump() for r in second]
