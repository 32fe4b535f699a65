"""What a question asks for, and whether a claim answers it.

A question is reduced to its content words, stemmed so that "weigh", "weight" and "weighed"
meet, and to the kind of answer its wh-words ask for: "how much / how many" a quantity,
"when / what year" a date, "who" a person, "where / what city" a place. A claim answers when it
shares the question's content words beyond the names in it, and holds something of the kind
asked for that the question does not already say.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from kg.names import name_key
from kg.text import LINK_STOPWORDS, QUESTION_STOPWORDS

_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script: "Zürich" is one word
_YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})s?\b")
_MONTH = re.compile(r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b", re.I)
# an amount: a number that is not a year ("opened in 1889" is a date), or a number word ("one" and
# "once" are too often no amount: "one of the heaviest")
_NUMBER = re.compile(r"\b(?!(?:1[0-9]{3}|20[0-9]{2})s?\b)\d[\d,.]*\b|\b(?:two|three|four|five|six|seven|eight|nine|ten|"
                     r"eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|twice)\b", re.I)
_NAME = re.compile(r"\b[A-Z][\w'’-]+(?:\s+(?:[A-Z][\w'’.-]*|of|de|van|von|the))*")
_KINDS: list[tuple[str, re.Pattern[str]]] = [
    ("quantity", re.compile(r"\bhow (?:much|many|long|far|old|tall|high|big|large|heavy|fast|deep|wide)\b|"
                            r"\bwhat (?:percentage|proportion|number|amount|population|size)\b", re.I)),
    ("date", re.compile(r"^\W*when\b|\bwhen (?:did|was|were|is|are|does|do|will|had|has)\b|"
                        r"\b(?:what|which|in what|in which) (?:year|date|decade|century|month|day)\b", re.I)),
    # "who" that asks (first, after a preposition, or last), not a relative "who" after a noun: "What
    # show does a player, who missed a season, host?" asks for a show
    # an indirect question asks too: "Tell me who founded Acme", "Name the person who designed ENIAC"
    ("person", re.compile(r"^\W*(?:who|whom|whose)\b|\b(?:by|to|with|for|from|of|is|was|are|were)\s+(?:who|whom)\b|"
                          r"\b(?:me|know|knows|out|wonder|tell|find|name|list|person|people|one|everyone|someone|"
                          r"anyone)\s+(?:who|whom)\b|\b(?:who|whom)\W*$", re.I)),
    ("place", re.compile(r"\bwhere\b|\b(?:what|which|in what|in which) (?:city|country|state|town|county|province|"
                         r"region|place|location|continent|island|village)\b", re.I)),
]
# Words of a question that say what kind of answer it wants rather than what it is about.
_FRAME = frozenset("much many long far old tall high big large heavy fast deep wide year date decade century month "
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
_DEFINITION = re.compile(r"^\W*(?:what|who)\s+(?:is|are|was|were)\s+[^?]{1,80}\??\s*$", re.I)


def terms(text: str) -> set[str]:
    """Content words of a text, stemmed."""
    return {stem(w) for w in _WORD.findall(text.casefold()) if w not in _STOP and len(w) > 1}


@dataclass(frozen=True)
class Question:
    text: str
    kind: str  # definition | quantity | date | person | place | "" (anything)
    words: frozenset[str]  # content words, stemmed
    topic_words: frozenset[str]  # content words that are not about the kind of answer ("weigh")

    def answers(self, claim_text: str, claim_type: str = "") -> bool:
        """Whether a claim states what the question asks: it shares the question's topic words
        (at least half of them, at least one) and holds something of the kind asked for that the
        question does not say."""
        if self.kind == "definition":
            return claim_type == "definition"
        wanted = self.topic_words
        if wanted:
            shared = len(wanted & terms(claim_text))
            if shared == 0 or shared * 2 < len(wanted):
                return False
        elif not self.kind:
            return False
        return self.kind == "" or self.holds_kind(claim_text, claim_type)

    def answers_after(self, claim_text: str, claim_type: str, known_text: str) -> bool:
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
        # a third of the topic words, not half: the rest often describe the bridge ("a restaurant holding
        # company"), which a third claim would say (chosen on all 100 questions: both halves gain)
        if len(own - known) < max(adds, 1) or len(own | (self.topic_words & known)) * 3 < len(self.topic_words):
            return False
        # a value neither the question nor the first claim says: not the bridge's own name
        return self.kind == "" or self.holds_kind(claim_text, claim_type, known_text)

    @property
    def name_words(self) -> frozenset[str]:
        """The words of the names in the question ("Kate", "Ramsay"): what a first hop starts from."""
        return frozenset(w for w in self.words - self.topic_words if w not in _FRAME)

    @property
    def judged(self) -> bool:
        """Whether `answers` can tell anything: the question has topic words or asks for a kind."""
        return bool(self.topic_words or self.kind)

    def holds_kind(self, claim_text: str, claim_type: str = "", known_text: str = "") -> bool:
        new = _strip(claim_text, f"{self.text} {known_text}")
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


def is_both_question(text: str) -> bool:
    """"Are A and B both C?": a yes/no question about two things sharing a property (not "both in the
    same state": that compares values, which a property check cannot)."""
    return bool(_BOTH.match(text)) and not re.search(r"\bsame\b", text, re.I)  # "the same state" compares values


_SAME = re.compile(r"^\W*(?:are|is|were|was|do|does|did)\b.*\bthe same ([a-z]+)\b", re.I)
_NAMED = r"[A-Z][\w'’.-]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w'’.-]*)*"


def same_property(text: str) -> str:
    """"Are Nantong and Jingdezhen in the same province?" -> "province": what a yes/no question compares
    the values of ("" for any other question)."""
    match = _SAME.match(text)
    return match.group(1).casefold() if match else ""


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


def property_words(question: Question, names: list[str]) -> set[str]:
    """The property a "both" question asks about: its words less the names of the things compared
    (a capitalised adjective such as "British" stays a property word)."""
    named = {w for name in names for w in terms(name)}
    return {w for w in terms(question.text) if w not in named and w not in {"both", "also", "same"} and w not in _FRAME}


def parse_question(text: str) -> Question:
    """The question's answer kind and words; its topic words leave out the frame ("how much",
    "what year") and the names in it (capitalised past the first word): "How much did ENIAC
    weigh?" is about "weigh"."""
    kind = "definition" if _DEFINITION.match(text) and len(text.split()) <= 8 else \
        next((name for name, pattern in _KINDS if pattern.search(text)), "")
    words = frozenset(terms(text))
    tokens = re.findall(r"[\w'’-]+", text)
    named = {stem(w) for t in tokens[1:] if t[:1].isupper() or t[:1].isdigit() for w in _WORD.findall(t.casefold())}
    return Question(text, kind, words, frozenset(w for w in words if w not in _FRAME and w not in named))


def _strip(claim_text: str, question: str) -> str:
    """The claim without the words the question already has (what it adds)."""
    known = {w.casefold() for w in re.findall(r"[\w'’-]+", question)}
    return " ".join(w for w in re.findall(r"[\w'’.,-]+", claim_text) if w.casefold().strip(".,") not in known)
