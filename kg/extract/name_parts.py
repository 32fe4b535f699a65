"""Types a name left untyped takes from a typed name of the same chunk it is part of, as a reader
does: "Söyüncü" after "Çağlar Söyüncü", "Old Bohumín" beside "Bohumín", "Eidos" after "Eidos
Interactive". Texts name a person, a place or a body in full once and by a part of the name after."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from kg.extract import gazetteer
from kg.extract import vocab as V
from kg.extract.entity_types import listable_name, person_shaped, typed
from kg.extract.registry import Entity

PART_WEIGHT = 1.0


def vote_by_name_parts(entities: Iterable[Entity], general_prose: bool) -> None:
    """Give each untyped entity the type its name's typed relatives in the chunk give it, when they
    give one type only:
    - a person's for the last one or two words of a typed person's name alone ("Söyüncü" after
      "Çağlar Söyüncü"), or for a longer form of a typed person's name ("Chrysostom Wałęsa" after
      "Wałęsa"), however other names end;
    - a place's name with a qualifier before it ("New Bohumín");
    - in general prose, a proper word (no English word) that a body's or a place's name of two or
      three words holds ("Eidos" of "Eidos Interactive", "Teleoptik" of "FK Teleoptik", "Nabesna"
      of "Nabesna Glacier"; in abstracts a body's name holds a disease or a method as often:
      "Atherosclerosis" of a society's). A word that both hold ("Heathrow Airport Holdings",
      "Heathrow Airport") takes neither."""
    entities = sorted(entities, key=lambda e: e.name)
    by_tail: dict[tuple[str, ...], list[Entity]] = defaultdict(list)  # every ending of a typed name
    by_word: dict[str, list[Entity]] = defaultdict(list)  # every word of a typed body's or place's name
    by_name: dict[tuple[str, ...], Entity] = {}
    for entity in entities:
        if not typed(entity.type):
            continue
        words = tuple(entity.name.split())
        by_name.setdefault(words, entity)
        for i in range(1, len(words)):
            by_tail[words[i:]].append(entity)
        if entity.type in ("organization", "place") and len(words) in (2, 3):
            for word in set(words):
                by_word[word].append(entity)
    found: list[tuple[Entity, str]] = []
    for entity in entities:
        words = tuple(entity.name.split())
        if typed(entity.type) or not words or not listable_name(entity.name):
            continue
        kinds = _kinds(words, by_tail, by_word, by_name, general_prose)
        if len(kinds) == 1:
            found.append((entity, kinds.pop()))
    for entity, kind in found:  # the indexes hold the names typed before: a type taken here passes on no further
        entity.vote(kind, PART_WEIGHT, "name_part")


def _kinds(words: tuple[str, ...], by_tail: dict[tuple[str, ...], list[Entity]], by_word: dict[str, list[Entity]],
           by_name: dict[tuple[str, ...], Entity], general_prose: bool) -> set[str]:
    kinds: set[str] = set()
    if len(words) <= 2 and not gazetteer.common_word(words[-1]) and \
            any(e.type == "person" for e in by_tail.get(words, [])):
        kinds.add("person")  # "Söyüncü", "Mbomio"; not "Light" of "Extra Light"
    if len(words) >= 2 and person_shaped(" ".join(words)):
        for i in range(1, len(words)):
            if (shorter := by_name.get(words[i:])) and shorter.type == "person" and \
                    not any(gazetteer.common_word(w) for w in words[:i]):
                kinds.add("person")  # "Chrysostom Blashkevich" after "Blashkevich"; not "Modern Languages George Windsor"
    if len(words) >= 2 and words[0].lower() in V.PLACE_QUALIFIERS and \
            (place := by_name.get(words[1:])) and place.type == "place":
        kinds.add("place")  # "New Bohumín"
    if general_prose and len(words) == 1 and _proper_word(words[0]):
        for named in by_word.get(words[0], []):  # "Eidos Interactive", "FK Teleoptik"; "Nabesna Glacier"
            if named.name.split()[-1] != words[0] or len(named.name.split()) == 2:
                kinds.add(named.type)
    return kinds


def _proper_word(word: str) -> bool:
    """A word only a name uses: no English word, no place's name nor its people's ("Eidos"; not
    "Music", "Texas", "Assamese")."""
    return not gazetteer.common_word(word) and word.lower() not in gazetteer.english_words() and \
        not gazetteer.is_place(word) and not gazetteer.is_city(word) and \
        not gazetteer.demonym_country(word) and not gazetteer.is_wordnet_demonym(word) and not gazetteer.is_language(word)
