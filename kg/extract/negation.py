"""Whether a sentence denies its own main predicate: the polarity of the offline extractor's claims.

A negation word alone says little about what a sentence asserts. "ENIAC was not a stored-program
machine" and "No association was found" deny what they state; these do not:

- an imperative: "Clean early, don't let the library grow rotten.", "Never commit secrets."
- what others said: "Karpathy said the model doesn't generalise.", "According to Smith, it is not
  ..." (the source reports a saying; its own finding is asserted: "We found that X did not ...")
- a new state: "The library is no longer maintained." asserts that it is unmaintained now
- a subordinate or relative clause, a quote or an aside: "A protein that does not bind ...",
  "If the cache is not warm, the first query waits.", '"It won't scale," he wrote.', "(not shown)"
- a contrast or a bound: "not only ... but", "memory, not compute", "no more than 5 ms",
  "whether or not", "It was not until 1950 that ...".

Read from the words alone (no parser): each negation word counts unless one of the cases above
holds for it, and the sentence denies its predicate when one counts.
"""

from __future__ import annotations

import re

from kg.extract import matcher as M
from kg.extract import patterns as P
from kg.extract import vocab as V
from kg.extract.name_rules import VERBLESS

_CUE = P.pattern("negation_cue")
# Spans whose words are not the sentence's own assertion: quotes and bracketed asides.
_QUOTED = P.pattern("negation_quoted")
# Fixed phrases with a negation word that assert, contrast or bound rather than deny.
_NOT_DENIAL = P.pattern("not_denial")
# Negations that open an imperative when nothing but an adverb comes before them in their clause.
_IMPERATIVE_CUE = P.pattern("imperative_cue")
_CLAUSE_END = P.pattern("clause_end")
# Subordinators: a clause they open before the main one ("If ..., ...") or after a noun.
_FRONTED = P.pattern("fronted_clause")
_COORDINATED = P.pattern("coordinated")
_ACCORDING = P.pattern("according_to")
_WORD = re.compile(r"[\w’'-]+")
_BRACKETED = P.pattern("bracketed_sentence")
_DO_BEFORE = P.pattern("do_before")
_CONTRAST_BEFORE = P.pattern("contrast_before")
_PREPOSITION_BEFORE = P.pattern("preposition_before")
# What the words before a negation say of it (data/token_rules.toml).
_NOUN_CLAUSE = M.rule("noun_clause")
_VERB_BEFORE_NOUN = M.rule("verb_before_noun")
_OWN_SPEAKER = M.rule("own_speaker")
_IMPERATIVE_OPENING = M.rule("imperative_opening")


def denies(sentence: str) -> bool:
    """Whether `sentence` denies its own main predicate (see the module's docstring)."""
    whole = _BRACKETED.fullmatch(sentence)  # "(He is not related to ...)": an aside, all of it
    text = _QUOTED.sub(lambda m: " " * len(m.group(0)), whole.group(1) if whole else sentence)
    masked = _NOT_DENIAL.sub(lambda m: " " * len(m.group(0)), text)
    according = _ACCORDING.match(text.strip())
    if according and not _owned(according.group(0)[len("according to"):]):
        return False  # "According to Smith, ...", not "According to our data, ..."
    fronted = _FRONTED.match(text.lstrip())
    fronted_end = (len(text) - len(text.lstrip()) + fronted.end()) if fronted else 0
    return any(_counts(text, cue.start(), fronted_end) for cue in _CUE.finditer(masked))


def _counts(text: str, at: int, fronted_end: int) -> bool:
    """Whether the negation at `at` is in the sentence's main clause, said by the source itself."""
    if at < fronted_end:
        return False  # "If the cache is not warm, ..."
    while at and text[at - 1].isalpha():
        at -= 1  # the start of "don't", "isn't"
    if do := _DO_BEFORE.search(text[:at]):
        at = do.start()  # "Do not run ..."
    before = text[:at]
    clause = _CLAUSE_END.split(before)[-1]
    if _IMPERATIVE_CUE.match(text, at) and _IMPERATIVE_OPENING([w.lower() for w in _WORD.findall(clause)]):
        return False  # "Clean early, don't let ...", "Never commit secrets."
    if _CONTRAST_BEFORE.search(before) and re.match(r"not\b", text[at:], re.IGNORECASE):
        return False  # "memory, not compute", "A but not B", "IL-10 and not TGF-β": a contrast
    if _PREPOSITION_BEFORE.search(before) and re.match(r"no\b", text[at:], re.IGNORECASE):
        return False  # "patients with no previous disease": what a noun phrase says of a thing
    # a main clause coordinated after another starts the scan afresh: "X was observed when ..., and no Y was found"
    boundaries = [m.end() for m in _COORDINATED.finditer(before, fronted_end) if not before.startswith("that ", m.end())]
    tokens = [(m.start(), m.group(0).lower()) for m in _WORD.finditer(before, max([fronted_end, *boundaries]))]
    words = [w for _, w in tokens]
    if _NOUN_CLAUSE(words) and _VERB_BEFORE_NOUN(words):
        return False  # "Milvus needed an operator we did not want": a clause of a noun without "that"
    for i in range(len(words) - 1, -1, -1):
        word, where = words[i], tokens[i][0]
        if word in V.SUBORDINATORS or (word == "that" and (i == 0 or words[i - 1] not in V.FINDING | {"and", "or", "but"})):
            if _closed(before, where, words[:i], words[i + 1 :]):
                continue  # "ENIAC, which was large, did not ...", "Users who try it don't ..."
            return False  # "a protein that does not bind", "..., because it is not ...": about something else
        if word == "that" and words[i - 1] in ("and", "or", "but"):
            continue  # "we show that X ..., and that Y has not ...": the first "that" says whose
        if word == "that":  # "We found that ...", "Smith argued that ..."
            return not (words[i - 1] in V.SAYING and not _owned(" ".join(words[: i - 1])))
        if word in V.SAYING and i + 1 < len(words) and not _owned(" ".join(words[:i])):
            return False  # "Karpathy said the model doesn't ...": someone else's saying
    return True


def _closed(before: str, where: int, ahead: list[str], inside: list[str]) -> bool:
    """Whether a relative clause opened at `where` has ended before the negation: an aside closed by
    a comma (", which was large, did not"), or a clause inside the subject, whose own verb comes
    before the negation ("Users who try it don't ...")."""
    if before[:where].rstrip().endswith(",") and "," in before[where:]:
        return True
    if inside and inside[-1] in V.AUXILIARIES:
        inside = inside[:-1]  # the negation's own auxiliary ("that does not")
    return bool(ahead) and VERBLESS(ahead) and not VERBLESS(inside)


def _owned(speaker: str) -> bool:
    """Whether the words before a verb of saying name the source itself ("We", "Our results")
    or nobody in particular (a sentence that opens with the verb)."""
    found = [w.lower() for w in _WORD.findall(speaker)]
    return not found or _OWN_SPEAKER(found)
