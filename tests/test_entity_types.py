"""Entity types of the offline extractor (issue 34): each rule by name, and typed names in ordinary prose."""

from __future__ import annotations

import pytest

from kg.compile.groups import Node
from kg.extract import ExtractionContext, entity_types, gazetteer
from kg.extract.heuristic import HeuristicExtractor
from kg.extract.name_parts import vote_by_name_parts
from kg.extract.registry import Entity
from kg.models import Chunk, ExtractionResult

# rule name -> (name, expected type): what each name rule reads from a name alone
NAME_CASES = {
    "corporate_suffix": ("Atari Inc", "organization"),
    "kind_head": ("Oakwood Cemetery", "place"),
    "part_of_place": ("Southern Sudan", "place"),
    "disease_suffix": ("rheumatoid arthritis", "disease"),
    "hyphen_head": ("T-cell", "cell type"),
    "known_place": ("Bolivia", "place"),
    "known_city": ("Leeds", "place"),
    "known_city_name": ("San Francisco", "place"),
    "team_name": ("Edmonton Oilers", "organization"),
    "first_name": ("Guillaume Apollinaire", "person"),
    "family_name": ("Tituss Burgess", "person"),
    "regnal_number": ("Bayezid II", "person"),
    "initials": ("J. R. R. Tolkien", "person"),
    "name_particle": ("Ludwig van Beethoven", "person"),
    "nucleic_acid": ("mRNA", "chemical"),
    "protein_family": ("IL-6", "gene or protein"),
    "party": ("Republican", "organization"),
    "titled_name": ("Emperor Gojong", "person"),
    "industry_head": ("Nippon Steel", "organization"),
    "chinese_name": ("Zhu Rongji", "person"),
    "body_of_place": ("Nintendo Australia", "organization"),
    "qualified_demonym": ("Soviet Russian", "place"),
}
# rule name -> (text before, name, text after, expected type): what a mention's sentence says
CONTEXT_CASES = {
    "definition": ("", "Ladytron", " are an English electronic music band formed in Liverpool.", "organization"),
    "apposition": ("In 1938 ", "Trajan", ", a Roman emperor, built a bridge.", "person"),
    "described_before": ("It was released by the record label ", "Nettwerk", ".", "organization"),
    "lone_first_name": ("The prize went to ", "Thomas", " in 1950.", "person"),
    "place_preposition": ("She was born in ", "Buchach", " in 1920.", "place"),
    "in_place": ("The festival is held in ", "Miami Shores", ", near the coast.", "place"),
    "place_pair": ("He moved to ", "Westmere", ", New York, in 1950.", "place"),
    "organization_verb": ("In 2003 he joined ", "Idealab", " as a partner.", "organization"),
    "relative_word": ("The song was sung by ", "Thabo Mbeki", ", who was then president.", "person"),
    "article_before": ("She sang with the ", "Miami Sound Machine", " in 1985.", "organization"),
    "language_use": ("The novel was written in ", "German", ".", "language"),
    "binomial": ("Cells of ", "Caenorhabditis", " elegans were counted.", "organism"),
    "town_preposition": ("He lived in ", "Münsingen", ", a small town.", "place"),
    "known_person": ("The comedy was written by ", "Plautus", ".", "person"),
    "place_distance": ("The county contains three towns: ", "Pasłęk", ", east of Elbląg, and Tolkmicko.", "place"),
    "known_instance": ("It lies in ", "Siberia", ".", "place"),
}


def test_every_rule_has_a_case() -> None:
    """Adding or removing a rule is one function and one row here."""
    assert {rule.name for rule in entity_types.NAME_RULES} == set(NAME_CASES)
    assert {rule.name for rule in entity_types.CONTEXT_RULES} == set(CONTEXT_CASES)


@pytest.mark.parametrize("rule", sorted(NAME_CASES))
def test_name_rule(rule: str) -> None:
    name, expected = NAME_CASES[rule]
    assert (rule, expected) in [(r, t) for r, t, _ in entity_types.name_votes(name)]


@pytest.mark.parametrize("rule", sorted(CONTEXT_CASES))
def test_context_rule(rule: str) -> None:
    before, name, after, expected = CONTEXT_CASES[rule]
    assert (rule, expected) in [(r, t) for r, t, _ in entity_types.context_votes(before, name, after)]


@pytest.mark.parametrize(("before", "name", "after", "not_this"), [
    ("Born in Venjan, ", "Sweden", ", the contralto Kerstin Thorborg sang.", "person"),  # describes the name after it
    ("He was born in ", "Münsingen", ", the third child of a merchant.", "person"),  # describes the sentence's subject
    ("Mutations in ", "Drosophila", " cells were counted.", "place"),  # a modifier, not a place
    ("It grew close to ", "Ion Antonescu", ".", "place"),
    ("They settled in the ", "Levant", " after the war.", "organization"),  # "in the X": a region's
    ("It was ended by the ", "Potsdam Agreement", " in 1945.", "organization"),  # an agreement is no body
    ("We measured the ", "Wnt", " in mice.", "organization"),  # one word: as often a gene's or a symbol's
    ("It was lower in the ", "odds ratio", " than expected.", "organization"),  # no proper name
    ("The song was written by ", "Iron and Wine", " in 2011.", "person"),  # a band: not read as a name
    ("Its results were ", "DNA", "-based.", "place"),  # a place's compounds are a proper name's
    ("It was found in ", "Swiss", " and Finnish patients.", "language"),  # a nationality's, not a language's
    ("It differed in ", "Czechs", ".", "language"),  # a people is no language
    ("The test of ", "Fisher", "'s exact test was used.", "person"),  # an eponym
    ("Bands ", "Kamikaze", " played on.", "organization"),  # no "such as"
    ("Cells of ", "Drosophila", " cells were counted.", "organism"),  # no epithet after it
    ("They buy it from ", "Parndorf", " farmers daily.", "place"),  # a modifier, no place of its own
    ("We ran a ", "Kaplan", " analysis of survival.", "organism"),  # no Latin epithet
    ("They toured the ", "Harvard", " campus twice.", "organism"),
    ("It was the American ", "French", " version of the show.", "language"),  # a version is no language
    ("It was a gift to ", "Florence", ".", "place"),  # "to": as often a person's
    ("Patients who acquired ", "HIV", " were treated.", "organization"),  # acquiring is no company's only
    ("It was produced by ", "Chambers", " and Steve Power.", "organization"),  # a family name: as often a person
    ("", "Congress", " met in 1790.", "organization"),  # opening a sentence, a capital says nothing
    ("The drug was approved by the ", "Agency", " in 2004.", "organization"),  # refers back to a name
    ("It changed since Natsal-1 (1990-91) and ", "Natsal-2", " (1999-2001).", "person"),  # a survey's years
    ("The brothers were ", "John D. Rockefeller III", ", Nelson, Laurance and David.", "place"),  # a list
    ("Patients had a sitting office ", "DBP", " of 90-109 mmHg.", "organization"),  # an office is as often a room
    ("161 TYROSINE TOXICITY 162 General ", "Nutritional Observations", " . . .", "person"),  # a heading
    ("Penicillin is produced by ", "Penicillium", " in culture.", "organization"),  # a genus makes things too
    ("Patients received ", "Diet", " counselling.", "organization"),  # a modifier
    ("In ", "Moscow", ", the President met his aides.", "person"),  # a fronted phrase, no apposition
    ("SSEA-1 may be a general ", "TSC", "/TIC enrichment marker.", "person"),  # "general": an adjective
    ("The ", "Fundamental Problem", ": Need for Assay Sensitivity.", "organization"),  # a title's words
    ("Mechanosensitive ion channel ", "Piezo2", " is important for touch.", "organization"),  # a symbol
    ("One of the bodies of ", "Republican Venice", ", the Council of Ten, met.", "organization"),  # a name of its own
    ("Patients with ", "Parkinson", "'s disease were seen.", "person"),  # an eponym
    ("We use the ", "CPI", " series.", "organization"),  # no show of a network's
    ("Last night the ", "JFK", " documentary was shown.", "organization"),
    ("It was a ", "Kurdish", " leader's speech.", "organization"),  # a people's leader
    ("He met ", "Ramona", ", two years later.", "place"),  # years are no distance
    ("It was developed for ", "Windows", " in 1995.", "organization"),  # a product is developed for
    ("Later, ", "Putin", " spokesman Dmitry Peskov denied it.", "organization"),  # people have spokesmen
    ("By October, ", "Zhukov", "'s headquarters had moved.", "organization"),  # a person WordNet knows
    ("Later, ", "Biden", " spokesman Ian Sams said so.", "organization"),
    ("The results were shown on ", "Figure", " 2.", "organization"),  # "shown on" is no broadcast
    ("US air strikes on ", "Raqqa", " continued.", "organization"),  # "air" the noun
    ("It aired live on ", "Christmas Day", ".", "organization"),  # "aired on" only right before the name
    ("The service is deployed to ", "Heroku", ".", "place"),  # software is deployed, not only troops
    ("She walked with ", "Tom", ", a mile from home.", "place"),  # a person, a distance away
    ("(Smith et al 2010, in ", "Nature", ").", "place"),  # a citation's year, no life's dates
    ("He was the manager of ", "Beyonce", ".", "organization"),  # a role held for a person
    ("Our ", "AI", " team met on Monday.", "organization"),  # a team of a field, no league's
    ("The ", "RFC", " draft was approved.", "organization"),
    ("Proteins pass the ", "Golgi", " apparatus.", "person"),  # a modifier
    ("Patients attending the ", "St. James", "'s University Clinic", "person"),  # the possessive opens a name
    ("In one study, each patient was administered the ", "MMPI", ".", "organization"),  # a test given
    ("METHODS The ", "Risk Factors", " and Life Expectancy Study, is a cohort.", "organization"),  # a title goes on
    ("It raises a Golgi export signal in one ", "Kir", " channel.", "organization"),  # an ion channel
])

def test_context_that_says_otherwise(before: str, name: str, after: str, not_this: str) -> None:
    assert not_this not in [t for _, t, _ in entity_types.context_votes(before, name, after)]


@pytest.mark.parametrize(("name", "rule"), [
    ("Saint Lucia", "titled_name"), ("General Electric", "titled_name"), ("Captain America", "titled_name"),
    ("S. Typhi", "initials"), ("J. Biol", "initials"),  # a genus's, a journal's abbreviation
    ("Liberal Democrats", "party"),  # a party's full name has its kind word's rules
    ("Familial Barrett", "family_name"), ("Editorial Comment", "family_name"),  # a word, then a name
    ("Gene Expression Omnibus", "first_name"),  # an abstract noun is no name's word
    ("Lawrence Summers", "team_name"),  # a given name and a family name, no team
    ("Oliver North", "part_of_place"),  # a given name, then a family name
    ("NK Cells", "corporate_suffix"), ("Kim SK", "corporate_suffix"), ("Park JK", "corporate_suffix"),  # initials
    ("Medical College Admission Test", "kind_head"), ("Framingham Heart Study", "kind_head"),  # a test's, a study's
    ("Quality of Service", "industry_head"), ("Stainless Steel", "industry_head"),  # WordNet's own terms
    ("Power Electronics", "industry_head"), ("Thin Films", "industry_head"),  # fields: all common words
    ("Lutheran Service Book", "industry_head"), ("American TV", "industry_head"),  # a book's; a demonym's
    ("Geena Davis", "body_of_place"), ("Hiro Hamada", "body_of_place"), ("Greater London", "body_of_place"),
    ("Nevil Shute Norway", "body_of_place"), ("Objective To", "body_of_place"),  # people; a place; a word
    ("South African", "qualified_demonym"), ("Indian Hindi", "qualified_demonym"),  # countryinfo's own; a language
    ("Caspase III", "regnal_number"), ("Angiotensin II", "regnal_number"), ("Phase II", "regnal_number"),  # no rulers
    ("C-terminal RNase III", "regnal_number"), ("Dirtiest Girl I", "regnal_number"), ("Harvard Mark II", "regnal_number"),
    ("Whitehall II", "regnal_number"),
    ("Feng Shui", "chinese_name"), ("Yin Yang", "chinese_name"),  # English has the words
    ("Song Dynasty", "chinese_name"), ("Ma Bell", "chinese_name"), ("Sun Microsystems", "chinese_name"),  # no pinyin
    ("Schools of Thought", "kind_head"), ("Emperor Penguins", "titled_name"),  # plurals
])
def test_rules_that_do_not_read_every_name(name: str, rule: str) -> None:
    assert rule in {r.name for r in entity_types.NAME_RULES}  # a renamed rule fails here, not silently
    assert rule not in [r for r, _, _ in entity_types.name_votes(name)]


def test_club_prefixes_and_suffixes_need_a_proper_name() -> None:
    """"SC Freiburg", "Beşiktaş JK" are clubs; a state's code or initials before or after words are not."""
    def kinds(name: str) -> set[str]:
        return {t for _, t, _ in entity_types.name_votes(name)}
    assert "organization" in kinds("SC Freiburg") and "organization" in kinds("Beşiktaş JK")
    assert "organization" not in kinds("SD Highway 34") | kinds("KS Test") | kinds("NK Cells") | kinds("Kim SK")


def test_an_abbreviation_ends_a_list() -> None:
    """"R.P. Hausinger, Proc. Natl. Acad. Sci.": a journal's abbreviation takes no kind from the
    authors before it; a short name ending a sentence is still a name ("Zealand and Funen. The")."""
    cited = "(I.-S. Park, M.B. Carr, and R.P. Hausinger, Proc. Natl. Acad. Sci. USA 91:3233, 1994)"
    ended = "It lies between Zealand and Funen. The bridge opened in 1998."
    assert entity_types.abbreviated(cited, cited.index("Proc"), cited.index("Proc") + 4)
    journal = "(Smith, R.P. Hausinger and J. Bacteriol. 172, 1990)"
    assert entity_types.abbreviated(journal, journal.index("J. B"), journal.index("J. B") + 12)
    assert not entity_types.abbreviated(ended, ended.index("Funen"), ended.index("Funen") + 5)


def test_a_weak_default_counts_once_per_name() -> None:
    """"the Soviet Union" said five times is still a place: the article's vote counts once, the
    gazetteer's outweighs it."""
    text = " ".join(f"In {year} the Soviet Union signed a treaty." for year in range(1950, 1955))
    types = {e.name: e.type for e in _extract(f"# Notes\n\n{text}\n").entities}
    assert types.get("Soviet Union") == "place"
    assert "article_before" in entity_types.ONCE_PER_NAME


def test_a_name_is_no_person_when_it_says_it_is_something_else() -> None:
    for name in ("River Liffey", "Paisley Park", "Swedish Riksdag", "Bell Canada", "North America"):
        assert "person" not in [t for _, t, _ in entity_types.name_votes(name)] or \
            entity_types.decide({t: w for _, t, w in entity_types.name_votes(name)}) != "person", name


def test_decide_takes_the_heaviest_type_and_concept_when_none() -> None:
    assert entity_types.decide({}) == "concept"
    assert entity_types.decide({"place": 3.5, "person": 1.0}) == "place"
    assert entity_types.decide({"place": 2.0, "person": 2.0}) == "place"  # ties: the order of TYPES


def test_gazetteers_come_from_packages() -> None:
    assert gazetteer.is_place("Germany") and gazetteer.is_place("U.S.") and gazetteer.is_place("Texas")
    assert gazetteer.is_country("Bolivia") and not gazetteer.is_country("Texas")
    assert gazetteer.is_city("Leeds") and not gazetteer.is_place("IT")  # ISO codes are no names
    assert gazetteer.demonyms()["german"] == "Germany"
    assert {"guillaume", "thomas", "angela"} <= gazetteer.first_names()
    assert "burgess" in gazetteer.last_names()
    # the UN geoscheme's regions, a joint one by its parts too
    assert all(gazetteer.is_place(n) for n in ("Americas", "Melanesia", "Western Asia", "Latin America", "Caribbean"))
    # GeoNames' first-level divisions in English, less given names and words
    assert all(gazetteer.is_place(n) for n in ("Lombardy", "Catalonia", "Penang", "Lapland"))
    assert not any(gazetteer.is_place(n) for n in ("Vladimir", "Diana", "Capital", "Oriental", "NCT"))
    # WordNet's instances and bodies, exactly as written
    known = gazetteer.wordnet_instances()
    assert {n: known.get(n) for n in ("Voltaire", "Yorkshire", "Greenpeace", "NATO", "Korean War", "Mahabharata")} == {
        "Voltaire": "person", "Yorkshire": "place", "Greenpeace": "organization", "NATO": "organization",
        "Korean War": "event", "Mahabharata": "work"}
    assert not {"siberia", "MA", "Sirius", "Orion"} & set(known)  # as written; short abbreviations; stars
    # left out: two types (a city and a man, a god and a planet), words in lower case, a one-word
    # battle, a kind of group, a people or dynasty (no organisation), a zodiac sign
    assert not {"Washington", "Mars", "Truth", "Amazon", "Verdun", "Minoan civilization", "Maori", "Ming",
                "Third World", "Gemini"} & set(known)
    assert gazetteer.wordnet_demonyms()["venetian"] == "Venice" and gazetteer.is_wordnet_demonym("Irishmen")
    assert not gazetteer.is_wordnet_demonym("Finn") and not gazetteer.is_wordnet_demonym("Cambrian")
    assert gazetteer.past_tense("invaded") and gazetteer.past_tense("stopped") and not gazetteer.past_tense("red")
    assert gazetteer.common_word("Methods") and not gazetteer.common_word("Nintendo")
    assert all(map(gazetteer.english_word, ["Founded", "Varieties", "Having", "Highest", "Among", "Behaviorally", "Stopped"]))
    assert not any(map(gazetteer.english_word, ["Qdrant", "Tolkien", "Vanuatu", "Wałęsa"]))
    assert {"zhu", "liang"} <= gazetteer.chinese_family_names()
    assert gazetteer.wordnet_group("Utes") is None  # "ute", a utility vehicle: a word first
    assert [gazetteer.wordnet_group(n) for n in ("Nahuatl", "Mongols", "Augustinians", "Hindu")] == \
        ["nationality", "nationality", "religion", "religion"]
    assert gazetteer.is_language("Assamese") and not gazetteer.is_language("Yale")  # ISO 639-1 only


# ordinary prose -> the types a reader expects of its names
TYPED_PROSE = [
    ("Ada Lovelace was an English mathematician. She worked with Charles Babbage in London.",
     {"Ada Lovelace": "person", "Charles Babbage": "person", "London": "place", "English": "place"}),
    ("Ladytron are an English electronic music band. Their album was released by Nettwerk Records.",
     {"Ladytron": "organization", "Nettwerk Records": "organization"}),
    ("Buchach is a town in Ukraine. It lies on the Strypa River, north of the Carpathian Mountains.",
     {"Buchach": "place", "Ukraine": "place", "Strypa River": "place", "Carpathian Mountains": "place"}),
    ("The Battle of Hastings was fought in 1066. The Eurovision Song Contest 1995 was held in Dublin.",
     {"Battle of Hastings": "event", "Eurovision Song Contest 1995": "event", "Dublin": "place"}),
    ("The throne of the Mughal Empire passed to Aurangzeb in 1658. He was born in Dahod.",
     {"Aurangzeb": "person", "Mughal Empire": "place", "Dahod": "place"}),
    ('She starred in the film "Finding Nemo" with Albert Brooks, who voiced Marlin.',
     {"Finding Nemo": "work", "Albert Brooks": "person"}),
    ("Rheumatoid arthritis affects the joints. The dendritic cells are a kind of immune cell.",
     {"Rheumatoid arthritis": "disease", "dendritic cells": "cell type"}),
    ("The Edmonton Oilers and the Leicester Tigers played in the final.",
     {"Edmonton Oilers": "organization", "Leicester Tigers": "organization"}),
    ("He was born in Moscow, in the Soviet Union. He studied at Harvard and taught in Berlin.",
     {"Moscow": "place", "Soviet Union": "place", "Harvard": "organization", "Berlin": "place"}),
    ("Her French name is Jeanne. The confluence of the Oder and Olza rivers lies north of the town.",
     {"French": "language", "Oder": "place", "Olza": "place"}),
    ("The cast included Jane Fonda, Nasser Taghvai and Kimi Räikkönen.",  # one person passes on to people's names
     {"Jane Fonda": "person", "Nasser Taghvai": "person", "Kimi Räikkönen": "person"}),
    ("Pol II and Pol IVb bind DNA. IVb was cut.", {"Pol IVb": "concept"}),  # a folded surname needs a person's name
    ("The Catholic Church owns the Church of Saint Francis. He was a Republican member of the Senate for Ohio.",
     {"Catholic Church": "organization", "Church of Saint Francis": "place", "Republican": "organization",
      "Senate": "organization"}),
    ("The zone is bordered on the east by Semien Wollo and the Lindi Regions. It was part of the Soviet Union.",
     {"Semien Wollo": "place", "Lindi Regions": "place", "Soviet Union": "place"}),
    ("She was a TD for Dublin West. The school is accredited by the Association to Advance Collegiate Schools of Business (AACSB).",
     {"Dublin West": "place", "Association to Advance Collegiate Schools of Business": "organization"}),
    ("It was presented to Zhou Enlai, the Premier of China, and to W. Thompson. Sega released it.",
     {"Zhou Enlai": "person", "W. Thompson": "person"}),
    ("Damage to the BBB was measured in mice. The protein crossed the BBB, and cells died.",  # science
     {"BBB": "concept"}),
    ("The free trade area (FTA) was proposed in 1997. It was opposed by the FTA.",  # defined
     {"free trade area": "concept"}),
    ("The film starred Alec Guinness and Bob Holness. 50 Cent (born July 6, 1975) is a rapper.",
     {"Alec Guinness": "person", "Bob Holness": "person"}),  # "-ness" ends family names too
    ("The DNA damage response (DDR) is a network of kinases. Women took a lipid-based nutrient supplement "
     "(LNS). Weight differed between the LNS and MMN groups.",  # a lower-case head, a study's arms: no bodies
     {"DNA damage response": "concept", "lipid-based nutrient supplement": "concept"}),
    ("Myx binds the bacterial RNA polymerase (RNAP). It blocks the RNAP in vitro.",  # the text defines it
     {"RNAP": "concept"}),
    ("The comedies of Plautus and Voltaire are read in Yorkshire. Greenpeace was founded in 1971.",
     {"Plautus": "person", "Voltaire": "person", "Greenpeace": "organization"}),  # names WordNet knows
    ("It was designed by the Danish engineering firms COWI and Ramboll. The broadcast of the programmes on BBC One, "
     "in 2013, ended. He played for teams such as: FC Brașov, Dinamo București and Rapid București.",
     {"COWI": "organization", "Ramboll": "organization",
      "Dinamo București": "organization", "Rapid București": "organization"}),
    ("A native of Livilivi, he was born (11 October 1874, in Liegnitz) and stationed at Rabaul. The cast included "
     "Mane Pahelwan and Sakribai. He became the manager of Galatasaray. Interstate 680 runs north.",
     {"Livilivi": "place", "Liegnitz": "place", "Rabaul": "place",  # "The cast included Mane Pahelwan": below
      "Galatasaray": "organization", "Interstate 680": "place"}),  # the person threshold since heuristic-12
    ("It was written by Mane Pahelwan, Ganpat G. Shinde, P. Jairaj and Sakribai Bhosle.",  # initials in a list
     {"Sakribai Bhosle": "person", "Ganpat G. Shinde": "person"}),
    ("Bajofondo is a Río de la Plata - based music band. Cinema Verity was a British independent television and "
     "film production company. Pizza Hut is an American restaurant chain and international franchise.",
     {"Bajofondo": "organization", "Cinema Verity": "organization", "Pizza Hut": "organization"}),
    ("It was written shortly before Hitler invaded Poland.",  # a verb in the past tense: the name heads its phrase
     {"Hitler": "person"}),
    ("DNA damage in Escherichia coli was measured by PCR. CD4 cells secrete IL-10.",
     {"DNA": "chemical", "Escherichia": "organism", "CD4": "gene or protein", "IL-10": "gene or protein"}),
    # a list's typed names that disagree pass on the kind most of them have; a prefixed family name is listable
    ("It stars Jane Fonda, Michael Sarrazin, Susannah York, Red Buttons and Bruce Dern. It was written by "
     "Underwood, Chris DeStefano and Hillary Lindsey.",
     {"Red Buttons": "person", "Chris DeStefano": "person"}),
    # a part of a typed name of the chunk (kg/extract/name_parts.py): a family name, a longer form, a
    # qualified place, a body's own word
    ("Çağlar Söyüncü joined in 2016. Söyüncü is a defender. The town of Bohumín lies on the Oder. "
     "Old Bohumín is older. He joined FK Teleoptik in 2009, and the games by Teleoptik sold well.",
     {"Çağlar Söyüncü": "person", "Söyüncü": None, "Old Bohumín": "place", "Teleoptik": "organization"}),  # folded
    ("Wałęsa is a Polish politician. In 1990, Chrysostom Wałęsa wrote a book.", {"Chrysostom Wałęsa": "person"}),
    # no part of a name is taken for it when it is an English word, a language, or in an abstract
    ("The Assamese Language Society met. Assamese is spoken in Assam.", {"Assamese": "concept"}),
    # a plural kind right before a list, with no determiner; a verb is none
    ("It hired the Wellington - based special effects companies Weta Workshop and Weta Digital. The coast was hit "
     "by hurricanes Floyd and Fran. The film stars Amitabh Bachchan and Tanuja.",
     {"Weta Workshop": "organization", "Weta Digital": "organization", "Floyd": "event", "Tanuja": "concept"}),
    # a town of 1,000 people after a place's preposition; a language's name is no town ("English", Indiana)
    ("He retired to the monastery at Ligugé in 1899. The book was written in English. The river flows past "
     "Plentywood. The album was released through Geffen.",  # a label's preposition
     {"Ligugé": "place", "English": "language", "Plentywood": "place", "Geffen": "organization"}),
    # a heading run into its text splits at a capitalised "The"; a declaration is no body
    ("The Ethics of Placebo Controls The Declaration of Helsinki The Declaration of Helsinki (8) is an international "
     "document. He won the Medal of Honor.",
     {"Ethics of Placebo Controls": "concept", "Declaration of Helsinki": "concept", "Medal of Honor": "concept"}),
    # a given name alone after "the" is no person's ("the Constant and DASH scores")
    ("The main outcome measures were the Constant and Disabilities of the Arm scores.", {"Constant": "concept"}),
    # a person's kin and friends named as a list's kind; a drug's antagonist is none
    ("Sonic must stop him with some of his friends, such as Tails, Amy, and Knuckles. The CXCR4 antagonist "
     "AMD3100 blocked it.", {"Tails": "person", "Knuckles": "person", "AMD3100": "concept"}),
    # review fixes: a verb after its subject is no plural kind; "the Google people" are no people; a
    # team's name is no people's; a given name after "between" is no town; a title's second part no body
    ("Obama attacks Clinton and Sanders. The Google people met the Yoruba people and the Abazins tribe. He "
     "pitched for the Yankees. The talks between Sharon and Abbas failed. The road runs past Redstone, then "
     "east. He starred in Pirates of the Caribbean The Curse of the Black Pearl in 2003.",
     {"Sanders": "person", "Yankees": "concept",
      "Sharon": "person", "Redstone": "place", "Curse of the Black Pearl": "concept"}),
    # acronyms take a body's kind from a name in words of their list, in general prose, and no other kind
    ("The songs were licensed by BMI, ASCAP and Harry Fox Agency. It has offices in CA, CT and Pennsylvania. "
     "The angles of the heads change between the ADP.vanadate and no-nucleotide states. The dynein binds the "
     "ATP, and ATP and ADP bindings matter. They failed to consume 67% of the RDA for iron.",
     {"BMI": "organization", "ASCAP": "organization", "CA": "concept", "ADP": "concept", "RDA": "concept"}),
]


class _RuleTypes(HeuristicExtractor):
    """The rules' decision, which the type model reads as a feature (kg/extract/type_model.py): these
    rows pin the rules; the stored type is the model's (tests/test_type_model.py)."""

    def final_type(self, entity: Entity, features: dict[str, float]) -> str:
        return entity.type


def _extract(text: str) -> ExtractionResult:
    chunk = Chunk(source_path="t.md", index=0, text=text, start=0, end=len(text))
    return _RuleTypes(None).extract_chunk(chunk, ExtractionContext("t.md", "t"))


@pytest.mark.parametrize(("text", "expected"), TYPED_PROSE)
def test_typed_names_in_ordinary_prose(text: str, expected: dict[str, str | None]) -> None:
    types = {e.name: e.type for e in _extract(f"# Notes\n\n{text}\n").entities}
    assert {name: types.get(name) for name in expected} == expected


def test_a_type_needs_a_share_of_the_mentions() -> None:
    """One stray vote among many untyped mentions does not type an entity; a declared alias's type counts."""
    node = Node("dna", "dna", types={"concept": 400, "organization": 30})
    assert node.attributes()["type"] == "concept"
    node = Node("copd", "copd", types={"concept": 30, "disease": 8})
    assert node.attributes()["type"] == "disease"


def test_a_demonym_names_its_country() -> None:
    """"a German skeleton racer": the demonym is a place, declaring its country's name, so the graph
    joins it to the country's page (kg/compile/groups.py); the most populous country of a shared
    demonym; a demonym for a language is no place and declares nothing."""
    entities = {e.name: e for e in _extract("# Notes\n\nSchneider is a German skeleton racer. He won in Canada.\n").entities}
    assert entities["German"].type == "place" and "Germany" in entities["German"].aliases
    assert gazetteer.demonym_country("Americans") == "United States"
    assert gazetteer.demonym_country("European") == "Europe"
    assert gazetteer.is_demonym("Zambian") and not gazetteer.is_demonym("Gibraltar")
    entities = {e.name: e for e in _extract("# Notes\n\nThe book was translated into German.\n").entities}
    assert entities["German"].type == "language" and entities["German"].aliases == []


def test_a_demonym_is_never_the_subject() -> None:
    claims = _extract("# Notes\n\nAmerican troops landed in Normandy in 1944.\n").claims
    assert claims and all(c.subject != "American" for c in claims)


def test_one_stray_vote_among_five_mentions_types_nothing() -> None:
    assert Node("pearson", "pearson", types={"concept": 4, "person": 1}).attributes()["type"] == "concept"
    assert Node("pearson", "pearson", types={"concept": 6, "person": 2}).attributes()["type"] == "person"
    assert Node("kiel", "kiel", types={"concept": 3, "place": 1}).attributes()["type"] == "place"  # few mentions: one tells


def test_a_people_without_a_country_stays_a_nationality_and_an_epithet_is_no_religion() -> None:
    entities = {e.name: e for e in _extract("# Notes\n\nThe Kurdish poet Ahmad Khani wrote in 1692.\n").entities}
    assert entities["Kurdish"].type == "nationality" and entities["Kurdish"].aliases == []
    assert "religion" not in [t for _, t, _ in entity_types.name_votes("John the Baptist")]
    assert gazetteer.is_demonym("Americans") and not gazetteer.is_demonym("Americans", plural=False)


def test_a_hyphen_joins_names_not_a_name_and_a_word() -> None:
    assert "person" not in [t for _, t, _ in entity_types.name_votes("Delta Z-scores")]
    assert entity_types.reads_as_person("Anne Ajayi-Adeniran") and not entity_types.reads_as_person("Pol IVb")
    assert entity_types.person_shaped("Nasser Taghvai") and not entity_types.person_shaped("Avex Taiwan")


def test_scientific_text_is_told_by_its_kind_nouns() -> None:
    assert entity_types.scientific("IL-6 is a cytokine that T cells secrete; the protein binds its receptor.")
    assert not entity_types.scientific("The BBC aired the series in 1990. It was produced in London by Cineflix.")
    assert not entity_types.scientific("One cell of the prison held him.")  # one kind noun is no register
    assert entity_types.scientific("Compared with the EPO (n = 33) and Control (n = 32) groups, it fell.")


def test_a_body_is_named_by_a_proper_word_last() -> None:
    from kg.extract.registry import Entity

    response, who = Entity("DNA damage response"), Entity("World Health Organization")
    for entity in (response, who):
        entity.vote("organization", 3.0)
    assert (response.type, who.type) == ("concept", "organization")  # "... is a network of kinases"


def test_a_role_before_a_heading_makes_no_person() -> None:
    from kg.extract.name_rules import split_role

    assert split_role("Vice Admiral James Greer").type == "person"
    assert split_role("General Nutritional Observations").type == ""  # a contents page's heading


def _typed(name: str, type_: str) -> Entity:
    entity = Entity(name)
    entity.vote(type_, 1.0)
    return entity


def test_a_name_part_takes_the_one_type_its_relatives_agree_on() -> None:
    """Only untyped names take a type; an English word, a conflict or an abstract's body takes none,
    and a type taken this way is passed on no further."""
    names = ["Light", "Smeaton", "Heathrow", "Kimber", "Oettinger"]
    entities = [_typed("Extra Light", "person"), _typed("Oliphant Smeaton", "person"),
                _typed("Heathrow Airport Holdings", "organization"), _typed("Heathrow Airport", "place"),
                _typed("Kimber Cars", "organization"), *map(Entity, names)]
    vote_by_name_parts(entities, general_prose=True)
    types = {e.name: e.type for e in entities}
    assert [types[n] for n in names] == ["concept", "person", "concept", "organization", "concept"]
    assert types["Heathrow Airport"] == "place"
    # a part typed here passes on no further; a body's name of three words lends no type to its last word
    entities = [_typed("Zlatovar Glacier", "place"), Entity("Zlatovar"), Entity("Old Zlatovar"),
                _typed("Zorvik Plamen Trobex", "organization"), Entity("Trobex"), Entity("Zorvik")]
    vote_by_name_parts(entities, general_prose=True)
    assert [e.type for e in entities[1:3]] == ["place", "concept"]
    assert [e.type for e in entities[4:]] == ["concept", "organization"]
    abstract = [_typed("Atherosclerosis Society", "organization"), Entity("Atherosclerosis")]
    vote_by_name_parts(abstract, general_prose=False)
    assert abstract[1].type == "concept"


def test_an_acronym_defined_by_letters_inside_a_proper_name_is_its_alias() -> None:
    """"Saint Lucia Air and Seaports Authority (SLASPA)": initials and letters inside capitalised words,
    in order; a lower-case long form or a mixed-case acronym still needs initials ("tumor necrosis
    factor (TNF)"; "Polycomb Group (PcG)" is a family of genes, which "Group" would make a body)."""
    result = _extract("# Notes\n\nThe airport is managed by the Saint Lucia Air and Seaports Authority (SLASPA). "
                      "The school is accredited by the Association of MBAs (AMBA). Levels of tumor necrosis "
                      "factor (TNF) rose, and the SLASPA and the AMBA grew. The Polycomb Group (PcG) binds.\n")
    aliases = {e.name: set(e.aliases) for e in result.entities}
    assert "SLASPA" in aliases["Saint Lucia Air and Seaports Authority"]
    assert "AMBA" in aliases["Association of MBAs"]
    assert "TNF" in aliases["tumor necrosis factor"]
    assert not {"SLASPA", "AMBA"} & set(aliases)
    assert not any("PcG" in names for names in aliases.values())  # a mixed-case acronym needs initials
    result = _extract("# Notes\n\nHe moved to Paris (PA) and then to Seattle (SEA). The PA grew.\n")
    assert all(not e.aliases for e in result.entities)  # a place's code is no acronym of its name
    result = _extract("# Notes\n\nTuberculosis (TB) kills. The TB rate rose in Ohio.\n")
    assert [e.aliases for e in result.entities if e.name == "Tuberculosis"] == [["TB"]]
