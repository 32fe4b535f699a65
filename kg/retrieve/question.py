"""What a question asks for, parsed once, and whether a claim answers it.

`parse_question` reads the text once, with one tokeniser (`tokenize`: words as written), into an
immutable `ParsedQuestion`; nothing downstream reads the raw text again (only the search engine,
which takes it as its query). A question is reduced to:

- its tokens, and its content words stemmed so that "weigh", "weight" and "weighed" meet;
- the names it mentions (capitalised words past the first) and its topic words (the rest, less
  the frame: "how much", "what year");
- the kind of value its wh-words ask for: "how much / how many" a quantity, "when / what year" a
  date, "who" a person, "where / what city" a place, "What is X?" a definition;
- its shape, from a closed set: `definition` ("What is ENIAC?"), `both` ("Are A and B both C?"),
  `same` ("Are A and B in the same province?", with the property compared), `bridge` (a question
  with topic words, which a claim one entity away may answer), `open` (anything else).

A claim answers when it shares the question's topic words and holds something of the kind asked
for that the question does not already say. Each rule here is a pattern of English questions, not
of one data set; benchmarks/README.md has the measures.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Literal

from kg.names import name_key
from kg.text import LINK_STOPWORDS, QUESTION_STOPWORDS, word_tokens

_TOKEN = re.compile(r"[\w'’.-]+", re.UNICODE)  # a word as written: "stored-program", "U.S.", "Ramsay's"
_EDGE_PUNCT = ".,?!;:\"'’()-"
_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script, within a token: "Zürich" is one word
_YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})s?\b")
_MONTH = re.compile(r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b", re.I)
# an amount: a number that is not a year ("opened in 1889" is a date), or a number word ("one" and
# "once" are too often no amount: "one of the heaviest")
_NUMBER = re.compile(r"\b(?!(?:1[0-9]{3}|20[0-9]{2})s?\b)\d[\d,.]*\b|\b(?:two|three|four|five|six|seven|eight|nine|ten|"
                     r"eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|twice)\b", re.I)
_NAME = re.compile(r"\b[A-Z][\w'’-]+(?:\s+(?:[A-Z][\w'’.-]*|of|de|van|von|the))*")
Kind = Literal["definition", "quantity", "date", "person", "place", ""]
Shape = Literal["definition", "both", "same", "bridge", "open"]
SHAPES: tuple[Shape, ...] = ("definition", "both", "same", "bridge", "open")
_KINDS: list[tuple[Kind, re.Pattern[str]]] = [
    ("quantity", re.compile(r"\bhow (?:much|many|long|far|old|tall|high|big|large|heavy|fast|deep|wide)\b|"
                            r"\bwhat (?:(?:is|was|are|were) the )?(?:percentage|proportion|number|amount|population|size)\b", re.I)),
    ("date", re.compile(r"^\W*when\b|\bwhen (?:did|was|were|is|are|does|do|will|had|has)\b|"
                        r"\b(?:what|which|in what|in which) (?:(?:is|was) the )?(?:year|date|decade|century|month|day)\b", re.I)),
    # "who" that asks (first, after a preposition, or last), not a relative "who" after a noun: "What
    # show does a player, who missed a season, host?" asks for a show
    # an indirect question asks too: "Tell me who founded Acme", "Name the person who designed ENIAC"
    ("person", re.compile(r"^\W*(?:who|whom|whose)\b|\b(?:by|to|with|for|from|of|is|was|are|were)\s+(?:who|whom)\b|"
                          r"\b(?:me|know|knows|out|wonder|tell|find|name|list|person|people|one|everyone|someone|"
                          r"anyone)\s+(?:who|whom)\b|\b(?:who|whom)\W*$", re.I)),
    # "what is the city ...", "what is the capital of ..." too: a copula before the kind's noun
    ("place", re.compile(r"\bwhere\b|\b(?:what|which|in what|in which) (?:(?:is|was|are|were) the )?(?:city|country|state|"
                         r"town|county|province|region|place|location|continent|island|village|capital)\b", re.I)),
]
# Words of a question that say what kind of answer it wants rather than what it is about.
FRAME_WORDS = frozenset("much many long far old tall high big large heavy fast deep wide year date decade century month "
                   "day city country state town county province region place location continent island village "
                   "percentage proportion number amount name called".split())


@functools.lru_cache(maxsize=1)
def _snowball() -> Any:
    import Stemmer  # PyStemmer: the Snowball English stemmer, in C

    return Stemmer.Stemmer("english")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball's English stem, and a few nouns meet their verb as Snowball leaves them apart: "-ght"
    ("weight", "weighed" -> "weigh"), "-duction" ("production", "produced" -> "produc") and the
    agent "-tor" ("director", "directed" -> "direct"; "creator", "created" -> "creat")."""
    out: str = _snowball().stemWord(word.casefold())
    if out.endswith("ght"):
        return out[:-1]
    if out.endswith("duct") and word.casefold().endswith("duction"):
        return out[:-1]
    if out.endswith("tor") and len(out) > 5:
        return out[:-2]
    return out


_STOP = QUESTION_STOPWORDS | {"he", "she", "him", "his", "her", "hers", "made", "make", "makes", "one", "ones", "me",
                              "tell", "describe", "explain", "know", "please"}
# "What is ENIAC?", "Who was Alan Turing?": a definition answers
# not "Who was the mother of X?" nor "What is the capital of X?": those ask for the mother, the capital
_DEFINITION = re.compile(r"^\W*(?:what|who)\s+(?:is|are|was|were)\s+(?!(?:the|a|an)\s+(?:[\w'’-]+\s+){1,2}of\b)"
                         r"[^?]{1,80}\??\s*$", re.I)




def tokenize(text: str) -> tuple[str, ...]:
    """The one tokeniser of questions (and of the names spotted in claims): words as written, without
    the punctuation at their edges ("Holt?" -> "Holt", "'Neighbours'" -> "Neighbours")."""
    return tuple(t for t in (w.strip(_EDGE_PUNCT) for w in _TOKEN.findall(text)) if t)


def _pieces(tokens: tuple[str, ...]) -> list[str]:
    return [w for t in tokens for w in word_tokens(t.casefold(), _WORD)]


@functools.lru_cache(maxsize=65536)
def terms(text: str) -> frozenset[str]:
    """Content words of a text, stemmed: the letter and digit runs of `tokenize`'s tokens, found in one
    pass over the text (every such run lies inside a token, and a token's edges are never letters).
    Cached: the claims of the best pages come back question after question. CJK runs give their
    character bigrams (kg/text.py `word_tokens`), which no stemmer changes."""
    return frozenset(stem(w) for w in word_tokens(text.casefold(), _WORD) if w not in _STOP and len(w) > 1)


@dataclass(frozen=True)
class ParsedQuestion:
    text: str  # as asked: shown back, and the search engine's query
    tokens: tuple[str, ...]  # `tokenize(text)`
    kind: Kind  # the kind of value asked for ("" anything)
    shape: Shape
    words: frozenset[str]  # content words, stemmed
    topic_words: frozenset[str]  # content words that are neither names nor the frame ("weigh")
    names: tuple[str, ...]  # the capitalised runs past the first word, as written ("Kate Ramsay")
    name_words: frozenset[str]  # the content words of those names, less the frame: what a first hop starts from
    surface: frozenset[str]  # the tokens, case-folded: what a claim's value must not merely repeat
    compares: str = ""  # a `same` question's property ("province")

    def answers(self, claim_text: str, claim_type: str = "") -> bool:
        """Whether a claim states what the question asks: it shares the question's topic words
        (at least half of them, at least one) and holds something of the kind asked for that the
        question does not say."""
        words = terms(claim_text)
        if not self.about(words):
            return False
        if self.kind == "definition":
            return claim_type == "definition"
        wanted = self.topic_words
        if wanted:
            shared = len(wanted & words)
            if shared == 0 or shared * 2 < len(wanted):
                return False
        elif not self.kind:
            return False
        return self.kind == "" or self.holds_kind(claim_text, claim_type)

    def answers_after(self, claim_text: str, claim_type: str, known_text: str, share: float = 1 / 3) -> bool:
        """Whether a claim answers the question's second hop, after a first claim (`known_text`) that
        led to it: together they share the question's topic words (a third of them), the claim adds one
        of them the first lacks ("Neighbours was created by Reg Watson" after "Kate Ramsay is a
        character from the soap opera Neighbours", for "Kate Ramsay is from a soap opera created by
        who?"), and it holds something of the kind asked for."""
        if self.kind == "definition" or not self.topic_words:
            return False
        known = terms(known_text)
        own = self.topic_words & terms(claim_text)
        # with no kind of value to look for, one word more is too little evidence: two ("originally
        # broadcast"), or all the first claim left
        adds = min(1 if self.kind else 2, len(self.topic_words - known))
        # a share of the topic words (a third, not half: the rest often describe the bridge, "a restaurant
        # holding company", which a third claim would say)
        if len(own - known) < max(adds, 1) or len(own | (self.topic_words & known)) < share * len(self.topic_words):
            return False
        # a value neither the question nor the first claim says: not the bridge's own name
        return self.kind == "" or self.holds_kind(claim_text, claim_type, known_text)

    def holds_value(self, claim_text: str, claim_type: str = "") -> bool:
        """Whether a claim about a name the question mentions holds a value of the kind asked, whatever
        its other words ("Manon Balletti (1740 – 1776) was ..." for "When did Manon die?")."""
        if self.kind in ("", "definition") or not self.name_words & terms(claim_text):
            return False
        return self.holds_kind(claim_text, claim_type)

    def about(self, claim_words: set[str] | frozenset[str]) -> bool:
        """Whether a claim (its content words) is about what the question names: it shares a word of
        the question's names, or two of its topic words and half of them; a question that names nothing
        accepts any claim."""
        if not self.name_words or self.name_words & claim_words:
            return True
        shared = len(self.topic_words & claim_words)
        return shared >= 2 and shared * 2 >= len(self.topic_words)

    @property
    def judged(self) -> bool:
        """Whether `answers` can tell anything: the question has topic words or asks for a kind."""
        return bool(self.topic_words or self.kind)

    def holds_kind(self, claim_text: str, claim_type: str = "", known_text: str = "") -> bool:
        new = _strip(claim_text, self.surface | {t.casefold() for t in tokenize(known_text)})
        if self.kind == "quantity":
            return claim_type == "quantity" or bool(_NUMBER.search(new))
        if self.kind == "date":
            return claim_type == "date" or bool(_YEAR.search(new) or _MONTH.search(new))
        if self.kind in ("person", "place"):
            # a name: not a lone capitalised word opening the sentence ("Design work began ...")
            return any(m.group(0).split()[0].casefold() not in LINK_STOPWORDS
                       and (m.start() > 0 or sum(w[:1].isupper() for w in m.group(0).split()) >= 2)
                       for m in _NAME.finditer(new))
        return True


_BOTH = re.compile(r"^\W*(?:are|is|were|was|do|does|did)\b.*\bboth\b", re.I)
_SAME = re.compile(r"^\W*(?:are|is|were|was|do|does|did)\b.*\bthe same ([a-z]+)\b", re.I)
_NAMED = r"[A-Z][\w'’.-]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w'’.-]*)*"
# words of a "both" question that say it is one, not what property it asks about
BOTH_WORDS = frozenset({"both", "also", "same"})


def _shape(text: str, kind: Kind, topic_words: frozenset[str]) -> tuple[Shape, str]:
    """The question's shape and, for a `same` question, the property it compares."""
    if kind == "definition":
        return "definition", ""
    # "Are Nantong and Jingdezhen in the same province?" compares values; "both ... the same state" too
    if match := _SAME.match(text):
        return "same", match.group(1).casefold()
    if _BOTH.match(text):  # "Are A and B both C?": a yes/no question about two things sharing a property
        return "both", ""
    return ("bridge" if topic_words else "open"), ""


# words that open a question without naming anything ("Besides Little Rock, ...")
_OPENERS = frozenset("besides despite although though while since unlike like whether including following "
                     "according along among apart given unless until because".split())


def _opens_with_a_name(tokens: tuple[str, ...]) -> bool:
    """Whether the question's first word, capitalised as every first word is, starts a name: it is no
    function or question word, and a capitalised word follows it ("Kate Ramsay is ...") or it is an
    acronym ("NASA launched ...")."""
    first = tokens[0] if tokens else ""
    if not first[:1].isupper() or first.casefold() in _STOP | LINK_STOPWORDS | _OPENERS:
        return False
    return (first.isupper() and len(first) > 1) or (len(tokens) > 1 and tokens[1][:1].isupper())


@functools.lru_cache(maxsize=1)
def _frame_stems() -> frozenset[str]:
    """The frame words as `terms` gives them: stemmed ("country" -> "countri")."""
    return frozenset(stem(w) for w in FRAME_WORDS)


def _names(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """Runs of capitalised (or numeric) tokens past the first word (and from it, when it starts a
    name): the names a question mentions."""
    runs: list[list[str]] = []
    after_gap = True
    for token in tokens[0 if _opens_with_a_name(tokens) else 1 :]:
        if token[:1].isupper() or token[:1].isdigit():
            if after_gap:
                runs.append([])
            runs[-1].append(token)
            after_gap = False
        else:
            after_gap = True
    return tuple(" ".join(run) for run in runs)


def parse_question(text: str) -> ParsedQuestion:
    """The one parse of a question: tokens, kind, shape, words, names. Its topic words leave out the
    frame ("how much", "what year") and the names in it (capitalised past the first word): "How much
    did ENIAC weigh?" is about "weigh"."""
    tokens = tokenize(text)
    kind: Kind = "definition" if _DEFINITION.match(text) and len(text.split()) <= 8 else \
        next((name for name, pattern in _KINDS if pattern.search(text)), "")
    words = frozenset(terms(text))
    names = _names(tokens)
    named = {stem(w) for w in _pieces(tuple(w for name in names for w in name.split()))}
    frame = _frame_stems()
    topic = frozenset(w for w in words if w not in frame and w not in named)
    shape, compares = _shape(text, kind, topic)
    return ParsedQuestion(text, tokens, kind, shape, words, topic, names,
                          frozenset(w for w in words & named if w not in frame),
                          frozenset(t.casefold() for t in tokens), compares)


def property_value(claim_text: str, word: str, own_name: str = "") -> str:
    """The name a claim gives next to a property word: "the province of Jiangsu" and "a city in Jiangsu
    province" -> "Jiangsu" (for "province"); "" when none (or only the thing's own name)."""
    plural = rf"{re.escape(word.casefold())}s?"  # lower case: "United States" names no state
    # "the province of Jiangsu"; then the name after the word ("the German band Alphaville" is
    # Alphaville); then before it ("the Rhône department of France" is Rhône, not France)
    for pattern in (rf"\bthe\s+{plural}\s+of\s+({_NAMED})", rf"\b{plural}\s+({_NAMED})", rf"({_NAMED})\s+{plural}\b"):
        for match in re.finditer(pattern, claim_text):
            value = match.group(1).strip(" .,")
            if value and name_key(value) != name_key(own_name) and value.split()[0].casefold() not in LINK_STOPWORDS:
                return value
    return ""


def _strip(claim_text: str, known: frozenset[str] | set[str]) -> str:
    """The claim without the words the question (and a first claim) already have: what it adds."""
    return " ".join(w for w in re.findall(r"[\w'’.,-]+", claim_text) if w.casefold().strip(".,") not in known)
