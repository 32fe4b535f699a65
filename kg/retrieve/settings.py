"""Every weight and limit of `kg query`'s navigator, in one frozen object.

Where each value comes from is said beside it. "CV" means checked by cross-validation on halves:
the values listed were tried on the even- and the odd-positioned questions of hotpotqa-100 and of
the Re-DocRED question set (benchmarks/redocred_questions.py), answer found and recall@5 at a
budget of 600, and the value kept is at least as good as the others on all four halves (on a tie,
the value that does least that the unit tests' examples still need: a rule tuned on all 100
hotpotqa questions once that ties is neutralised). "design" means a value set by what it is for, never tuned. The figures
are in benchmarks/README.md (retrieval.py); each value's cross-validation in session 11 of
`git show f9f9c0e:benchmarks/README.md`.
"""

from __future__ import annotations

from dataclasses import dataclass

SEARCH_MODES = ("bm25", "vector", "hybrid")
# The one default search mode of `kg query`, `kg search`, the MCP tools and `kg serve`: hybrid (BM25 and
# MiniLM vectors fused). On the question set kg was not tuned on (Re-DocRED) the navigator states the answer
# more often with it than with BM25 alone, on both halves (0.77 against 0.75), as dense retrieval does on
# held-out multi-hop questions over raw passages; on hotpotqa-100, whose rules were tuned with BM25, less
# (0.85 against 0.88). benchmarks/README.md, retrieval.py. `--mode bm25` needs no model and no first
# embedding of every claim (minutes on a large knowledge base).
DEFAULT_MODE = "hybrid"


@dataclass(frozen=True)
class NavigatorSettings:
    # search and the walk
    search_hits: int = 12  # design: hits of the search engine a question reads (a screenful)
    snippet_chars: int = 400  # design: characters of a chunk or page hit read (a paragraph)
    walk_depth: int = 20  # design: sources the walk ranks (four times the five read most)
    prior_sources: int = 10  # the search's best sources that seed the walk ... (CV among 5, 10, 20: 5 gains a half, loses one)
    prior_weight: float = 0.25  # ... with this share of the names' restart mass (CV among 0.25, 0.5, 1: 0.25)
    walk_entities: int = 10  # design: reached entities that count towards the entity ranking
    # how a search hit at 1-based rank r votes for its sources and entities: 1 / (r + hit_rank_offset)
    hit_rank_offset: float = 2.0  # design: reciprocal rank, softened so hit 1 is not worth two of hit 2
    other_entity_share: float = 1 / 3  # design: a claim hit's other entities count a third of its subject
    chunk_hit_weight: float = 1.5  # design: a chunk hit is a passage, a claim hit one sentence of it
    name_weight_per_word: float = 0.25  # design: a name of n words linked weighs 1 + 0.25 (n - 1)
    # claims: candidates and their score
    drill_entities: int = 8  # design: entity pages whose claims are candidates
    source_evidence: int = 5  # design: top sources whose claims are candidates (the top 5 the answer cites)
    whole_source_chunks: int = 4  # design: a source of at most this many chunks gives all its claims
    hit_bonus_offset: float = 1.0  # design: a claim hit at rank r adds 1 / (r + 1)
    confidence_weight: float = 0.1  # design: confidence breaks ties, it does not rank
    entity_weight: float = 0.2  # design: the claim's entity's rank, a fifth of the word overlap
    source_weight: float = 0.5  # design: a claim of the top source at rank r adds 0.5 / (r + 1)
    # when no claim answers: one about a thing the question names holding a value of the kind asked, read
    # first among the closest (CV among 0, 0.5, 1: 0.5 and 1 tie, both gain on the Re-DocRED halves)
    value_weight: float = 0.5
    answer_weight: float = 1.0  # design: a claim that states what is asked outranks any overlap
    source_answer_weight: float = 0.5  # design: an answer in the best sources beats one elsewhere
    candidate_claims: int = 60  # design: claims ranked for reading (a budget of 2,000 reads about 25)
    kept_claims: int = 25  # design: claims read at most, whatever the budget
    index_share: float = 0.5  # design: index lines and hit snippets read with at most half the budget
    # the second hop (strategies/bridge.py)
    first_hop: int = 3  # the best claims that lead on to a second hop ... (CV among 2, 3, 5: 3)
    openings: int = 2  # ... and the best claims of the (at most) 2 sources the question names by title ...
    # (CV among 0 and 2: 2) ... this many each (CV among 1, 3, 6: a tie; 1 misses the link a person's short
    # page gives after its definition, tests/test_query.py, so 3)
    opening_claims: int = 3
    hub_degree: int = 100  # design: no hop through an entity with more neighbours (or the top 0.1%)
    hop_topic_share: float = 1 / 3  # a hop's two claims hold this share of the topic words (CV among 1/3, 1/2: 1/3)
    bridge_answers: int = 3  # design: second-hop answers kept at most
    hop_sources: int = 2  # the sources of the best 2 second-hop answers ... (CV among 1, 2: 2)
    hop_source_rank: int = 5  # ... rank at least 5th: in the top 5 (CV among 2nd-5th: a tie, so the least move)
    # what is shown
    result_entities: int = 10  # design: entity pages listed in a result
    result_sources: int = 10  # design: source pages listed in a result


DEFAULT_SETTINGS = NavigatorSettings()
