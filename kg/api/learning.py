"""The learning layer (issue 19) and sharing (issue 31): review cards, exports of the knowledge
(Anki, fine-tuning sets, slides, canvases), signed shard bundles."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.api.limits import MAX_NAME_CHARS, check_text
from kg.api.stores import graph_store
from kg.errors import ConfigError, QueryError
from kg.kb import KnowledgeBase

if TYPE_CHECKING:  # the modules behind these types load only with the commands that use them
    from kg.learn.export import ExportReport as LearnExport
    from kg.share.bundle import ExportReport as BundleExport
    from kg.share.bundle import VerifyReport


@contextmanager
def card_writer(kb: KnowledgeBase, offline: bool = False) -> Iterator[Any]:
    """The LLM card writer when an LLM is configured (as for extraction), else None."""
    from kg.cache import ResponseCache
    from kg.llm.backends import extractor_name
    from kg.llm.ledger import save_run

    config = kb.config()
    provider = extractor_name(config)
    if offline or provider == "heuristic":
        yield None
        return
    from kg.learn.writer import LlmCardWriter
    from kg.llm.backends import make_client

    cache = ResponseCache(kb.cache_path)
    try:
        yield LlmCardWriter(make_client(config.llm, provider), cache)
    finally:
        cache.close()
        save_run(kb.ledger_path)


def cards_kb(kb: KnowledgeBase, offline: bool = False) -> dict[str, Any]:
    """Write learning/cards.jsonl, cards.md and gaps.md from the graph (cards by an LLM when one is
    configured and `offline` is not set)."""
    from kg.learn.deck import write_learning

    with graph_store(kb) as store, card_writer(kb, offline) as writer:
        return write_learning(kb, store, writer=writer)


def review_due(kb: KnowledgeBase, now: Any = None, limit: int | None = None) -> dict[str, Any]:
    """The due cards (learning/cards.jsonl is written first if there is none)."""
    from kg.learn.cards import CARDS_JSONL
    from kg.learn.deck import due

    if not (kb.learning / CARDS_JSONL).is_file():
        cards_kb(kb)
    return due(kb, now, limit)


def review_rate(kb: KnowledgeBase, ratings: list[tuple[str, str]], at: str | None = None) -> list[dict[str, Any]]:
    """Record ratings [(card id, again|hard|good|easy)]: all checked, then each appended and synced."""
    from kg.learn.deck import rate

    return rate(kb, ratings, at)


def _export_target(kb: KnowledgeBase, path: Path) -> Path:
    target = path.expanduser().resolve()
    for folder, why in ((kb.raw, "is never written by kg"), (kb.insights, "is never written by kg"),
                        (kb.learning, "holds your review history and the generated cards"),
                        (kb.state, "holds the graph and the reply cache")):
        if target == folder.resolve() or folder.resolve() in target.parents:
            raise ConfigError(f"Refusing to write {path}: {folder.name}/ {why}. Choose a path outside it.")
    if target.is_dir():
        raise ConfigError(f"{path} is a folder: give a file name.")
    return target


def export_anki(kb: KnowledgeBase, path: Path) -> LearnExport:
    from kg.learn.deck import load_cards
    from kg.learn.export import anki

    target = _export_target(kb, path)
    if not (kb.learning / "cards.jsonl").is_file():
        cards_kb(kb)
    return anki(load_cards(kb), f"kg: {kb.root.name}", target)


def export_finetune(kb: KnowledgeBase, path: Path, fmt: str, min_confidence: float = 0.0,
                    include_contradicted: bool = False) -> LearnExport:
    from exporters.pages import load_wiki_graph
    from kg.learn.cards import build_cards
    from kg.learn.export import finetune

    target = _export_target(kb, path)
    if not 0.0 <= min_confidence <= 1.0:
        raise ConfigError(f"--min-confidence {min_confidence} is outside 0..1.")
    with graph_store(kb) as store:
        graph = load_wiki_graph(store)
    return finetune(build_cards(graph), graph, target, fmt, min_confidence, include_contradicted)


def export_slides(kb: KnowledgeBase, page: str, path: Path) -> LearnExport:
    from kg.learn.export import slides

    target = _export_target(kb, path)
    name = page.strip().removeprefix("wiki/").removesuffix(".md")
    source = (kb.wiki / f"{name}.md").resolve()
    if kb.wiki.resolve() not in source.parents or not source.is_file():
        raise QueryError(f"No wiki page {page!r}: give an entity or answer page such as entities/<id> or answers/<id>.")
    return slides(source.read_text(encoding="utf-8"), name, target)


def write_export(kb: KnowledgeBase, path: Path, content: str | bytes) -> Path:
    """Write an export to `path`, never into raw/, insights/, learning/ or .kg/."""
    from kg.learn.export import write_file

    target = _export_target(kb, path)
    write_file(target, content.encode("utf-8") if isinstance(content, str) else content)
    return target


def export_canvas(kb: KnowledgeBase, entity: str, path: Path, hops: int = 1) -> LearnExport:
    """An entity's neighbourhood as a JSON Canvas file (what Obsidian opens as .canvas)."""
    from kg.learn.export import canvas
    from kg.maintain.entities import find_entity

    check_text(entity, "The entity name", MAX_NAME_CHARS, name=True)
    if not 0 <= hops <= 3:
        raise ConfigError(f"--hops {hops} is outside 0..3: a wider neighbourhood is no longer readable as a canvas.")
    target = _export_target(kb, path)
    with graph_store(kb) as store:
        return canvas(store, find_entity(store, entity)["id"], hops, target)


def bundle_keygen(folder: Path | None = None) -> tuple[Path, Path, str]:
    """A new Ed25519 key pair for signing bundles: (private key, public key, key id)."""
    from kg.share.bundle import keygen

    return keygen(folder)


def bundle_export(kb: KnowledgeBase, folder: Path, key: Path | None = None, shard_id: str | None = None) -> BundleExport:
    """The knowledge base's compiled knowledge as a signed shard bundle in folder (new or empty)."""
    from kg.share.bundle import export

    return export(kb, folder, key, shard_id)


def bundle_verify(folder: Path, key: Path | None = None) -> VerifyReport:
    """Check a bundle's format, signature, file digests and evidence sources (a report, never raises)."""
    from kg.share.bundle import verify

    return verify(folder, key)

