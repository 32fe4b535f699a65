"""What a question asks for (kg/retrieve/question.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kg.retrieve.question import SHAPES, parse_question, stem, terms, tokenize


def test_inflections_meet() -> None:
    assert {stem(w) for w in ("weigh", "weighed", "weighs", "weighing", "weight")} == {"weigh"}
    assert stem("based") == stem("base") and stem("times") == stem("time")
    assert terms("The machine weighed 27 tonnes") >= {"weigh", "machin"} and "the" not in terms("the")


def test_answer_kinds_and_topic_words() -> None:
    cases = {"How much did ENIAC weigh?": "quantity", "How many tubes did it use?": "quantity",
             "When was EDVAC delivered?": "date", "In what year was he born?": "date", "Who designed Colossus?": "person",
             "Where was ENIAC built?": "place", "Which city hosted it?": "place", "What is a transistor?": "definition",
             "Tell me about ENIAC": "", "What happens when water boils?": ""}
    assert {q: parse_question(q).kind for q in cases} == cases
    assert parse_question("How much did ENIAC weigh?").topic_words == {"weigh"}  # not the name, not the frame


def test_a_claim_answers_with_the_words_and_a_value_of_the_kind_asked() -> None:
    q = parse_question("How much did ENIAC weigh?")
    assert q.answers("ENIAC weighed about 27 tonnes.", "quantity")
    assert not q.answers("ENIAC was unveiled on February 15, 1946.", "date")  # not about weight
    assert not q.answers("ENIAC's weight is disputed.", "fact")  # no amount
    who = parse_question("Who designed Colossus?")
    assert who.answers("Colossus was designed by Tommy Flowers.", "relation")
    assert not who.answers("Colossus was designed in secret.", "fact")  # no name the question lacks
    assert not who.answers("Design work on Colossus began in 1943.", "date")  # a sentence's first word is no name
    assert not parse_question("How much did ENIAC weigh?").answers("ENIAC was one of the heaviest machines to weigh.")
    assert not parse_question("How tall is the Eiffel Tower?").answers("The Eiffel Tower opened in 1889.", "date")
    assert parse_question("What is ENIAC?").answers("ENIAC was the first general-purpose computer.", "definition")
    assert parse_question("Where is Zürich?").words == {"zürich"}  # one word, not "z" and "rich"
    when = parse_question("When was EDVAC delivered?")
    assert when.answers("EDVAC was delivered in August 1949.", "date")


@given(st.text(max_size=80))
def test_parse_question_never_fails_and_its_words_are_the_texts(text: str) -> None:
    q = parse_question(text)
    assert q.topic_words <= q.words == frozenset(terms(text))
    assert q.kind in ("", "definition", "quantity", "date", "person", "place")
    assert q.shape in SHAPES and q.tokens == tokenize(text) and q.name_words <= q.words


def test_both_questions_are_property_checks_not_value_comparisons() -> None:
    from kg.retrieve.strategies.both import property_words

    assert parse_question("Are Medici and Senet both board games?").shape == "both"
    same = parse_question("Are Nantong and Jingdezhen both in the same province?")
    assert (same.shape, same.compares) == ("same", "province")
    assert parse_question("Who were both directors?").shape != "both"  # not a yes/no question
    q = parse_question("Are Medici and Senet both board games?")
    assert property_words(q, ["Medici", "Senet"]) == {stem("board"), stem("games")}


def test_every_question_has_one_shape_from_the_closed_set() -> None:
    cases = {"What is ENIAC?": "definition", "Are Medici and Senet both board games?": "both",
             "Are Port Ellis and Dunmore in the same province?": "same",
             "Who created the soap opera Kate Ramsay is from?": "bridge", "How much did ENIAC weigh?": "bridge",
             "Tell me about ENIAC": "open", "ENIAC?": "open"}
    assert {q: parse_question(q).shape for q in cases} == cases


def test_the_parse_holds_the_names_and_tokens_once() -> None:
    q = parse_question("Who created the soap opera 'Neighbours', which Kate Ramsay is from?")
    assert q.tokens[:6] == ("Who", "created", "the", "soap", "opera", "Neighbours")
    assert q.names == ("Neighbours", "Kate Ramsay")
    assert q.name_words == {"neighbour", "kate", "ramsay"} and q.topic_words == {stem("created"), "soap", "opera"}


def test_a_relative_who_asks_for_no_person() -> None:
    assert parse_question("What show does a retired player, who missed a season, host?").kind == ""
    assert parse_question("Scott Howell is a consultant who worked with the mayor of what city?").kind == "place"
    assert {parse_question(q).kind for q in ("Who designed Colossus?", "The drama was created by who?",
                                             "A musician whose godfather is whom?", "To whom did she write?")} == {"person"}


def test_a_claim_answers_the_second_hop_with_what_the_first_claim_lacks() -> None:
    q = parse_question("Mira Holt is a character from a radio drama created by who?")
    lead = "Mira Holt is a fictional character from the radio drama Harbour Lights."
    assert q.answers_after("Harbour Lights was created by the producer Edith Crane.", "relation", lead)
    assert not q.answers("Harbour Lights was created by the producer Edith Crane.", "relation")  # alone: half the words
    assert not q.answers_after("Harbour Lights is a radio drama by Edith Crane.", "relation", lead)  # adds no word
    assert not q.answers_after("Harbour Lights was created in a fishing town.", "fact", lead)  # no person


def test_a_second_hop_needs_a_third_of_the_topic_words_with_the_first_claim() -> None:
    q = parse_question("Jon Luther was the chairman of a restaurant holding company headquartered in what city?")
    lead = "Jon Luther was the chairman of Dunkin Brands."
    assert q.answers_after("Dunkin Brands is headquartered in Canton, Massachusetts.", "relation", lead)
    assert not q.answers_after("Dunkin Brands is headquartered there.", "fact", lead)  # no place
    assert not q.answers_after("Dunkin Brands opened in Canton, Massachusetts.", "fact", lead)  # adds no topic word


def test_with_no_kind_asked_a_second_hop_adds_two_of_the_questions_words() -> None:
    q = parse_question("Ada Finch starred in a drama first broadcast by which station?")
    assert q.kind == ""
    lead = "The role that made her famous was Mira Holt in Harbour Lights."
    assert q.answers_after("Harbour Lights was first broadcast by Radio Anglia.", "relation", lead)
    assert not q.answers_after("Mira Holt is a character from the radio drama Harbour Lights.", "definition", lead)


def test_nouns_meet_their_verbs() -> None:
    assert stem("production") == stem("produced") == stem("producer")
    assert stem("director") == stem("directed") and stem("creator") == stem("created") and stem("inventor") == stem("invented")
    assert stem("actor") != stem("act")  # too short to tell an agent noun from a word ending in "tor"


def test_a_same_question_names_the_property_and_a_claim_its_value() -> None:
    from kg.retrieve.question import property_value

    assert parse_question("Are Nantong and Jingdezhen situated in the same province ?").compares == "province"
    assert parse_question("Who played in the same band as Ulrich?").compares == ""  # not a yes/no question
    assert property_value("Nantong is a prefecture-level city in Jiangsu province, China.", "province", "Nantong") == "Jiangsu"
    assert property_value("Marian Gold is the singer of the German band Alphaville.", "band", "Marian Gold") == "Alphaville"
    assert property_value("It is a city in the state of Ohio.", "state") == "Ohio"
    assert property_value("It is an airport in Louisiana, United States.", "state") == ""


def test_property_value_prefers_the_things_own_name_over_a_container() -> None:
    from kg.retrieve.question import property_value

    assert property_value("Lyon is in the Rhône department of France.", "department", "Lyon") == "Rhône"
    assert property_value("Nanjing is the capital of the province of Jiangsu.", "province", "Nanjing") == "Jiangsu"
    assert property_value("The Data team of Acme builds models.", "team", "Data team") == ""


def test_indirect_who_questions_ask_for_a_person() -> None:
    for text in ("Tell me who founded Acme?", "Do you know who wrote Dune?", "Name the person who designed ENIAC."):
        assert parse_question(text).kind == "person", text
    assert parse_question("What show does a player, who missed a season, host?").kind == ""


def test_a_claim_answers_only_about_what_the_question_names() -> None:
    q = parse_question("Which country is Oakland in?")
    assert q.kind == "place" and not q.topic_words  # "country" is the frame, Oakland a name
    assert q.answers("Oakland is a city in California, United States.", "fact")
    assert not q.answers("Botswana is a landlocked country located in Southern Africa.", "fact")  # not about Oakland
    who = parse_question("Who was the mother of Nikos Aliagas?")
    assert (who.kind, who.shape) == ("person", "bridge")  # no definition question: it asks for the mother
    assert parse_question("What is the capital of Denmark?").kind == "place"


def test_a_claim_about_the_thing_named_holds_a_value_of_the_kind_asked() -> None:
    q = parse_question("When did Manon Balletti die?")
    lifespan = "Manon Balletti (1740 – 1776) was the daughter of Italian actors."
    assert not q.answers(lifespan, "fact") and q.holds_value(lifespan, "fact")  # no word of dying, but a date
    assert not q.holds_value("Carlo Goldoni wrote comedies in 1750.", "fact")  # not about Manon
    assert not parse_question("Tell me about Manon Balletti").holds_value(lifespan, "fact")  # no kind asked
