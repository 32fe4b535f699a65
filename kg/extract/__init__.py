"""Extractor backends: text chunk -> ExtractionResult.

Each backend implements one method, `extract_chunk`. The base class owns what all share:
looping over chunks and the reply cache keyed by (backend, version, model, chunk text).
The backends: `HeuristicExtractor` (kg/extract/heuristic.py, offline) and `LlmExtractor`
(kg/llm/extractor.py, over the one LLM client of kg/llm/client.py).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

from kg.cache import ResponseCache, content_key
from kg.errors import SourceError
from kg.models import Chunk, ExtractionResult

#: The words every empty extraction's message carries after the source's path (`kg status` finds them).
EMPTY_EXTRACTION = "empty extraction"


class EmptyExtraction(SourceError):
    """A model gave no claims, asked twice, for chunks of a source that state something (the
    offline extractor finds claims there): the source fails rather than pass as compiled."""

    def __init__(self, source: str, chunks: Sequence[int], offline_claims: int, extractor: str,
                 of: int | None = None) -> None:
        self.source = source
        self.chunks = list(chunks)
        self.offline_claims = offline_claims
        where = f"chunk {self.chunks[0]}" if len(self.chunks) == 1 else f"chunks {', '.join(map(str, self.chunks))}"
        total = f" of {of}" if of else ""
        super().__init__(
            f"{source}: {EMPTY_EXTRACTION}: {extractor} gave no claims (none whose quote is in the text) for "
            f"{where}{total}, asked twice, though the offline extractor finds {offline_claims} there. Next: try a larger model (`kg doctor --model` scores "
            "one), or set [llm] fallback = \"heuristic\" in kg.toml to extract such chunks offline.")


@dataclass(frozen=True)
class ExtractionContext:
    """What an extractor may know besides the chunk itself."""

    source_path: str
    source_title: str
    known_entities: tuple[str, ...] = ()
    frontmatter: dict[str, object] = field(default_factory=dict)


class Extractor(ABC):
    name: str = "extractor"
    #: Stored on every claim as `prompt_version`; change it when output for the same input changes.
    version: str = "0"
    model: str = ""
    #: Whether replies are worth caching (an LLM call is; a regex pass is not).
    cacheable: bool = False
    #: Whether the compiler should look up graph entities the source mentions (an LLM reuses their names).
    wants_known_entities: bool = False

    def __init__(self, cache: ResponseCache | None = None) -> None:
        self.cache = cache

    @abstractmethod
    def extract_chunk(self, chunk: Chunk, context: ExtractionContext) -> ExtractionResult:
        """Extract entities and claims from one chunk. Quotes must be copied from chunk.text."""

    def extract(self, chunks: Sequence[Chunk], context: ExtractionContext) -> list[ExtractionResult]:
        return [self._cached(chunk, context) for chunk in chunks]

    def cache_key(self, chunk: Chunk) -> str:
        return content_key(self.name, self.version, self.model, chunk.text)

    def _cached(self, chunk: Chunk, context: ExtractionContext) -> ExtractionResult:
        if not (self.cacheable and self.cache is not None):
            return self.extract_chunk(chunk, context)
        key = self.cache_key(chunk)
        hit = self.cache.get(key)
        if hit is not None:
            return ExtractionResult.model_validate(hit)
        result = self.extract_chunk(chunk, context)
        self.cache.put(key, result.model_dump(mode="json"))
        return result

    @property
    def label(self) -> str:
        return f"{self.name}:{self.model}" if self.model else self.name
