"""Index navigation as an agent without kg would do it (issue 17): read wiki files only, within a
token budget; no database, no embeddings, no search engine.

For a question, the navigator:

1. reads index.md, and takes from it the entry points: the source list and one list per entity
   type (their root pages);
2. looks up the question's word n-grams (names first: n-grams with a capital past the first word
   or a digit, longer first) the way one uses a dictionary: on each list's root page it picks the
   leaf whose name range holds the n-gram, and in that sorted leaf reads the lines a binary search
   looks at and WINDOW lines around the place (as an agent paging a file by line ranges would),
   keeping the entries whose name (or title) is the n-gram (kg.names.name_key on both sides), and
   sources whose title starts with it (at half weight);
   all the n-grams in the source list first, then those left in the entity lists, one list
   after the other until one has the name;
3. a source found by its title is a candidate passage; an entity found by its name has its page
   opened (front matter and summary: the first HEAD_CHARS characters), whose `sources:` list
   gives candidates, weighted down by how many sources it rests on;
4. after the source list, and again after the entity lists, reads the best candidates' source
   pages (SOURCE_PAGES in all), best first, while the budget lasts: what was found is opened
   before more is looked up.

Every file read counts ceil(characters / 4) tokens, index pages included; a file that does not
fit in what is left of the budget is skipped. Returns the ranked source paths (as in raw/), the
tokens read and the text read (for answer-found: whether the gold answer occurs in it).
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from kg.names import name_key, slugify
from kg.text import LINK_STOPWORDS

HEAD_CHARS = 1_500  # of an entity page: its front matter (sources), title and summary
MAX_LOOKUPS = 8  # n-grams looked up per question
PREFIX_WEIGHT = 0.5  # a source whose title starts with the name (not is the name)
WINDOW = 4  # lines of a sorted list read around the place a name would be
SOURCE_PAGES = 5  # best candidates whose source page is read
_LIST_LINK = re.compile(r"^(?:### |- )\[\[(indexes/[^|\]]+)\|", re.MULTILINE)
_LEAF = re.compile(r"^- \[\[(indexes/[^|\]]+)\|(.*?)\]\] \(\d+\)$", re.MULTILINE)
_ENTRY = re.compile(r"^- \[\[((?:entities|sources)/[^|\]]+)\|(.*?)\]\](.*)$", re.MULTILINE)
_PATH = re.compile(r"`([^`]+)`")
_FRONT_SOURCES = re.compile(r"^sources: \[(.*)\]$", re.MULTILINE)
_PARENTHETICAL = re.compile(r"\s*\([^()]*\)\s*$")
_EDGE = "\"'“”‘’?!.,;:()[]"
_CONNECTORS = {"of", "the", "de", "von", "van", "la", "le", "du", "da", "del", "der", "for"}
_QUESTION_WORDS = {"if", "are", "is", "was", "were", "what", "which", "who", "whom", "whose", "when", "where", "why",
                   "how", "did", "do", "does", "in", "on", "at", "the", "a", "an", "of", "for", "to", "by", "from",
                   "with", "has", "have", "had", "can", "could", "name", "according", "between", "since", "after",
                   "before", "during", "both", "this", "that", "these", "those", "as"}


@dataclass
class Reading:
    budget: int
    tokens: int = 0
    texts: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def read(self, navigator: WikiNavigator, page: str, chars: int | None = None) -> str | None:
        """The page's text (its first `chars`), counted once, or None if it does not fit or exists."""
        text = navigator.file(page)
        if text is None:
            return None
        text = text if chars is None else text[:chars]
        return text if self.charge(f"{page}:{chars}", text) else None

    def charge(self, key: str, text: str) -> bool:
        """Count `text` as read (once per key); False if it does not fit in the budget."""
        if key in self.seen:
            return True
        cost = math.ceil(len(text) / 4)
        if self.tokens + cost > self.budget:
            return False
        self.seen.add(key)
        self.tokens += cost
        self.texts.append(text)
        return True


@dataclass
class NavResult:
    ranked: list[str]
    tokens: int
    text: str


class WikiNavigator:
    def __init__(self, wiki: Path) -> None:
        self.wiki = wiki
        self._files: dict[str, str | None] = {}  # disk caches only: every question pays for what it reads
        self._entries: dict[str, list[tuple[str, str, str, str]]] = {}

    def file(self, page: str) -> str | None:
        if page not in self._files:
            path = self.wiki / f"{page}.md"
            self._files[page] = path.read_text(encoding="utf-8") if path.is_file() else None
        return self._files[page]

    def __call__(self, question: str, budget: int) -> NavResult:
        reading = Reading(budget)
        index = reading.read(self, "index") or ""
        lists = list(dict.fromkeys(_LIST_LINK.findall(index)))
        lists.sort(key=lambda page: page.startswith("indexes/sources"))  # the source list last
        scores: dict[str, float] = defaultdict(float)
        covered: set[int] = set()
        candidates = self._candidates(question)
        # titles first (a source found by its title is a passage), then entity names for what is left
        for phase in (lists[-1:], lists[:-1]):
            lookups = 0
            for start, end, gram in candidates:
                if any(i in covered for i in range(start, end)) or lookups >= MAX_LOOKUPS:
                    continue
                lookups += 1
                hits = self._lookup(reading, phase, gram, name_key(gram))
                for entry_page, rest, match in hits:
                    weight = match * (1.0 + 0.5 * (end - start))
                    if entry_page.startswith("sources/"):
                        path = _PATH.search(rest)
                        if path:
                            scores[path.group(1)] += 2.0 * weight
                    else:
                        sources = _front_sources(reading.read(self, entry_page, HEAD_CHARS) or "")
                        for path in sources:
                            scores[path] += weight / math.sqrt(len(sources))
                if hits:
                    covered.update(range(start, end))
            self._open_best(reading, scores)  # open what was found before looking further
        ranked = sorted(scores, key=lambda p: (-scores[p], p))
        return NavResult(ranked[:10], reading.tokens, "\n".join(reading.texts))

    def _open_best(self, reading: Reading, scores: dict[str, float]) -> None:
        """Read the source pages of the best candidates so far (SOURCE_PAGES in all)."""
        for path in sorted(scores, key=lambda p: (-scores[p], p))[:SOURCE_PAGES]:
            slug = self._slug_of(path)
            if slug:
                reading.read(self, f"sources/{slug}")

    def _candidates(self, question: str) -> list[tuple[int, int, str]]:
        """Name-like n-grams first (runs of capitalised words or numbers, joined by connectors such
        as "of" or "the"; the question's first word counts only when the run goes on), longest
        first; then the other content words."""
        words = [w.strip(_EDGE) for w in question.split()]
        capital = [bool(w) and (w[:1].isupper() or w[:1].isdigit()) and w.casefold() not in LINK_STOPWORDS
                   for w in words]
        if capital and words[0].casefold() in _QUESTION_WORDS:
            capital[0] = False  # a question's first word is capitalised anyway
        named: list[tuple[int, int, int, str]] = []
        for i in range(len(words)):
            if not capital[i]:
                continue
            for j in range(i + 1, min(len(words), i + 6) + 1):
                if not (capital[j - 1] or words[j - 1].casefold() in _CONNECTORS):
                    break
                if capital[j - 1]:
                    named.append((-(j - i), i, j, " ".join(words[i:j])))
        rest = [(-1, i, i + 1, w) for i, w in enumerate(words)
                if w and not capital[i] and w.casefold() not in LINK_STOPWORDS and len(name_key(w)) >= 3]
        return [(i, j, gram) for _, i, j, gram in sorted(named) + rest]

    def _lookup(self, reading: Reading, lists: list[str], gram: str, key: str) -> list[tuple[str, str, float]]:
        """Entries named `gram` in the lists: on each list's root page (read whole: it is the table
        of contents) the leaf whose name range would hold it, and in that sorted leaf a dictionary
        lookup: the lines a binary search reads, then WINDOW lines around the place (only those
        lines are counted). The lists are searched in order until one has the name."""
        hits: list[tuple[str, str, float]] = []
        for root_page in lists:
            if hits:
                break
            root = reading.read(self, root_page)
            if root is None:
                continue
            page, text = root_page, root
            while leaves := _LEAF.findall(text or ""):  # a list's page, or a range page: pick the range
                firsts = [label.split(" … ")[0].casefold() for _, label in leaves]
                page = leaves[max(0, bisect_right(firsts, gram.casefold()) - 1)][0]
                text = self.file(page) or ""
                if _LEAF.search(text) and reading.read(self, page) is None:
                    text = ""  # a range page that does not fit in the budget
            entries = self.entries(page)
            labels = [label.casefold() for _, label, _, _ in entries]
            at = bisect_left(labels, gram.casefold())
            lo, hi, probes = 0, len(labels), []
            while lo < hi:  # the lines a binary search looks at
                mid = (lo + hi) // 2
                probes.append(mid)
                lo, hi = (mid + 1, hi) if labels[mid] < gram.casefold() else (lo, mid)
            window = sorted(set(probes) | set(range(max(0, at - WINDOW // 2), min(len(entries), at + WINDOW // 2))))
            text = "\n".join(entries[i][3] for i in window)
            if not reading.charge(f"{page}@{at}", text):
                continue
            titles = root_page.startswith("indexes/sources")
            for i in window:
                entry_page, label, rest, _ = entries[i]
                label_key = name_key(label)
                if key in (label_key, name_key(_PARENTHETICAL.sub("", label))):
                    hits.append((entry_page, rest, 1.0))
                elif titles and label_key.startswith(key + " "):  # a title that starts with the name
                    hits.append((entry_page, rest, PREFIX_WEIGHT))
        return hits

    def entries(self, page: str) -> list[tuple[str, str, str, str]]:
        """(page, label, rest of line, line) of the entry lines of a list page, in its order."""
        if page not in self._entries:
            text = self.file(page) or ""
            self._entries[page] = [(m[1], m[2], m[3], m[0]) for m in _ENTRY.finditer(text)]
        return self._entries[page]

    def _slug_of(self, path: str) -> str | None:
        """The source page of a raw path: kg names it by the path without its suffix (slugified;
        a slug taken by another path gets a hash, and is then not found here)."""
        slug = slugify(Path(path).with_suffix("").as_posix())
        return slug if self.file(f"sources/{slug}") is not None else None


def _front_sources(head: str) -> list[str]:
    """The `sources:` list of an entity page's front matter (its items are JSON strings)."""
    match = _FRONT_SOURCES.search(head)
    if not match:
        return []
    try:
        return [str(path) for path in json.loads(f"[{match.group(1)}]")]
    except ValueError:
        return []
