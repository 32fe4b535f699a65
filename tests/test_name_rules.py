"""The offline extractor's name rules, one row per rule name (issue 37): text in, names out. Removing a
rule is one function (kg/extract/name_rules.py, kg/extract/filters.py, heuristic.MARKED_RULES) and one row here; the type
rules have theirs in tests/test_entity_types.py."""

from __future__ import annotations

import pytest

from kg.extract import ExtractionContext, filters, heuristic, name_rules
from kg.extract.heuristic import HeuristicExtractor
from kg.models import Chunk

# rule name -> (text, names the chunk's entities must have, names they must not have)
CASES: dict[str, tuple[str, set[str], set[str]]] = {
    # join
    "joined_by_for_or_on": ("In 1950 he sat on the Advisory Committee on Antarctic Names.",
                            {"Advisory Committee on Antarctic Names"}, {"Advisory Committee"}),
    "joined_by_in": ("In 2002 Kahneman received the Nobel Memorial Prize in Economic Sciences. He saw the Science "
                     "Museum in London.", {"Nobel Memorial Prize in Economic Sciences", "London"},
                     {"Economic Sciences", "Science Museum in London"}),
    "corporate_suffix": ("She worked for Atari, Inc. in California.", {"Atari, Inc"}, {"Inc"}),
    "joined_by_and": ("They followed the Lewis and Clark Expedition west. A replica is at the Science and Industry "
                      "Museum.", {"Lewis and Clark Expedition", "Science and Industry Museum"},
                      {"Clark Expedition", "Industry Museum"}),
    "naming_possessive": ("He was buried at St. Joseph's Cemetery in 1950.", {"St. Joseph's Cemetery"},
                          {"Cemetery"}),
    "event_year": ("Sweden won the Eurovision Song Contest 1995 in Dublin.", {"Eurovision Song Contest 1995"},
                   {"Eurovision Song Contest"}),
    # trim
    "sentence_opener": ("However Angela Merkel disagreed with him.", {"Angela Merkel"}, {"However Angela Merkel"}),
    "broken_start": ("A - Teens released the album in Sweden in 2004.", {"Sweden"}, {"A - Teens", "- Teens"}),
    "opening_participle": ("Joining SC Freiburg in 2016, he scored twice.", {"SC Freiburg"}, {"Joining SC Freiburg"}),
    "dangling_end": ("He played for Club Atletico River Plate He moved to Spain in 1990.",
                     {"Club Atletico River Plate"}, {"Club Atletico River Plate He"}),
    "leading_year": ("Its dealers sold the 1998 Toyota in Japan.", {"Toyota"}, {"1998 Toyota"}),
    "date_alone": ("On Monday the band split, and in March 1990 it reformed in Ohio.", {"Ohio"},
                   {"Monday", "March 1990", "March"}),
    # split
    "split_of": ("He played for the Kansas City Chiefs of the National Football League in 1990. In 2020 Andy Pavlo "
                 "of Carnegie Mellon University spoke.", {"Kansas City Chiefs", "National Football League", "Andy Pavlo",
                                                          "Carnegie Mellon University"},
                 {"Kansas City Chiefs of the National Football League", "Andy Pavlo of Carnegie Mellon University"}),
    "split_role": ("In 1990 Vice Admiral James Greer met Prime Minister Tony Blair.", {"James Greer", "Tony Blair"},
                   {"Vice Admiral James Greer", "Prime Minister Tony Blair"}),
    # filter: what a capitalised name becomes
    "nationality": ("In 1965 American physicist Richard Feynman won a prize.", {"American", "Richard Feynman"},
                    {"American physicist Richard Feynman"}),
    "nationality_pair": ("She is an African - American singer from Ohio.", {"African", "American"},
                         {"African - American"}),
    "inner_article": ("The Ethics of Placebo Controls The Declaration of Helsinki is a document. He saw Return of "
                      "The Jedi and Night of The Living Dead.", {"Ethics of Placebo Controls", "Declaration of Helsinki",
                                                                 "Return of The Jedi", "Night of The Living Dead"},
                      {"Ethics of Placebo Controls The Declaration of Helsinki"}),
    "generic_abbreviation": ("In 1990 he earned an MBA in Boston.", {"Boston"}, {"MBA"}),
    "role_alone": ("In 1990 the Brigadier General arrived in Paris.", {"Paris"}, {"Brigadier General"}),
    "opening_word": ("Visit Wolfsburg in May. It lies near Wolfsburg Castle; Wolfsburg has a canal.", {"Wolfsburg"},
                     {"Visit Wolfsburg"}),
    "common_word": ("Draft versions were kept in Ohio. A draft was sent to Texas. Varieties grew in Iowa. Stopped "
                    "trains waited. Qdrant, written in Rust, had the best filtering.", {"Ohio", "Texas", "Qdrant"},
                    {"Draft", "Varieties", "Stopped"}),
    # filter: any name, whatever found it
    "statistical_notation": ("The risk fell in Finland (HR 0.91, 95% CI 0.89-0.94; OR 1.2).", {"Finland"},
                             {"HR", "CI", "OR"}),
    "roman_numeral": ("Patients in class II did better in Ohio than those in class III.", {"Ohio"}, {"II", "III"}),
    "modifier_fragment": ("DNA-based tests from Ohio and IL-6-dependent signals were serum-free.", {"Ohio"},
                          {"DNA-based", "IL-6-dependent", "serum-free"}),
    # fold
    "full_name": ("# Christopher Nolan\n\nChristopher Edward Nolan is a film director. Christopher Nolan was born in "
                  "London.", {"Christopher Nolan", "Christopher Edward Nolan"}, set()),
    "lone_surname": ("In 1936 Alan Turing wrote a paper. Turing was born in London.", {"Alan Turing", "Turing"}, set()),
    "lone_given_name": ("Attendees: Priya Raman and Daniel Okafor. Priya said the plan works.", {"Priya Raman", "Priya"},
                        set()),
    # marked up (kg/extract/heuristic.py MARKED_RULES)
    "link": ("He used the [[program counter]] daily in 1950.", {"program counter"}, set()),
    "bold": ("The **stored program** idea spread in 1950.", {"stored program"}, {"stored program idea spread"}),
    "acronym_definition": ("In 1946 it was called the electronic numerical integrator and computer (ENIAC) by the press.",
                           {"electronic numerical integrator and computer", "ENIAC"}, set()),
    "opening_word_and_article": ("Together the ALU and the control unit form the CPU. The ALU adds.", {"ALU"},
                                 {"Together the ALU"}),
    "name_then_surname": ("Alan Turing was born in London. During the Second World War Turing worked at Bletchley Park.",
                          {"Second World War"}, {"Second World War Turing"}),
    "cjk_quoted": ("他在北京读了《三体》这本书。", {"三体"}, set()),
    "dictionary_names": ("田中さんは東京でトヨタの社員に会った。", {"田中", "東京", "トヨタ"}, {"田中さん"}),
    "quoted_title": ('She sang "I Understand" on the radio in 1965.', {"I Understand"}, {"Understand"}),
}
# Folding makes one entity of two names: the second is an alias of the first.
FOLDED = {"full_name": ("Christopher Nolan", "Christopher Edward Nolan"), "lone_surname": ("Alan Turing", "Turing"),
          "lone_given_name": ("Priya Raman", "Priya"),
          "acronym_definition": ("electronic numerical integrator and computer", "ENIAC")}


def _rule_names() -> list[str]:
    return [name for rules in (name_rules.JOIN_RULES, name_rules.EXTEND_RULES, name_rules.TRIM_RULES,
                               name_rules.SPLIT_RULES, name_rules.CANDIDATE_RULES, filters.FILTERS,
                               name_rules.FOLD_RULES, heuristic.MARKED_RULES) for name, _ in rules]


def test_every_rule_has_a_row() -> None:
    assert sorted(_rule_names()) == sorted(CASES)


def _entities(text: str) -> dict[str, set[str]]:
    source = text if text.startswith("#") else f"# Notes\n\n{text}\n"
    chunk = Chunk(source_path="t.md", index=0, text=source, start=0, end=len(source))
    result = HeuristicExtractor(None).extract_chunk(chunk, ExtractionContext("t.md", "t"))
    return {e.name: set(e.aliases) for e in result.entities}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule(rule: str) -> None:
    text, present, absent = CASES[rule]
    entities = _entities(text)
    names = set(entities) | {alias for aliases in entities.values() for alias in aliases}
    assert present <= names, f"{rule}: {sorted(names)}"
    assert not absent & names, f"{rule}: {sorted(names)}"
    if rule in FOLDED:
        owner, alias = FOLDED[rule]
        assert alias in entities.get(owner, set()) and alias not in entities


@pytest.mark.parametrize("rule", [name for name, _ in filters.FILTERS])
def test_filtered_names_leave_their_claims(rule: str) -> None:
    """Statistical notation, numerals and fragments make no entity; the sentences naming them stay claims."""
    text = CASES[rule][0]
    chunk = Chunk(source_path="t.md", index=0, text=f"# Trial\n\n{text}\n", start=0, end=len(text) + 10)
    result = HeuristicExtractor(None).extract_chunk(chunk, ExtractionContext("t.md", "t"))
    assert any(text in claim.quotes[0] for claim in result.claims)
    assert all(filters.not_a_name(name) == rule for name in CASES[rule][2])


def test_the_phases_run_in_order() -> None:
    """Trim rules run in their order: the opener goes before a year is dropped ("In 1998 Toyota")."""
    assert name_rules.trim_name("In 1998 Toyota") == "Toyota"
    assert name_rules.trim_name("2002 Winter Olympics", name_rules.Where(opens=False)) == "2002 Winter Olympics"
    assert name_rules.trim_name("March 1990") == ""


def test_a_dotted_initialism_keeps_its_last_dot() -> None:
    names = set(_entities("It was sold in the U.S. and abroad, then the U.K. bought one from Atari, Inc. in 1990."))
    assert {"U.S.", "U.K.", "Atari, Inc"} <= names and not names & {"U.S", "U.K"}
