"""`kg mcp`: a Model Context Protocol server (the official `mcp` SDK, imported only here) over
KgTools. Tool names are a contract: agents' configs and prompts name them. A KgError becomes a
ToolError, whose message reaches the model; nothing else is printed on stdout. Every read runs in
a worker process under the served limits of [limits] (kg/graph/guard.py): a call that passes them
gets an error, and the next call a new worker."""

from __future__ import annotations

import contextlib
import json
import threading
import weakref
from typing import Any

from kg import api
from kg.embed import check_embedder
from kg.errors import ConfigError, KgError
from kg.kb import KnowledgeBase
from kg.retrieve.settings import DEFAULT_MODE
from kg.serve.mcp.tools import KgTools, instructions
from kg.serve.vectors import Vectors

READ_TOOLS = ("kg_search", "kg_query", "kg_entity", "kg_claim", "kg_page", "kg_cypher", "kg_status", "kg_lint")


def build_server(kb: KnowledgeBase, allow_writes: bool = False, embedder: str | None = None,
                 timeout: float | None = None, reader: Any = None, mode_for: Any = None) -> Any:
    """The MCPServer for one knowledge base; `allow_writes` adds kg_compile and saving answers;
    `timeout` (seconds) overrides [limits] serve_timeout_seconds for every call. `reader`: a ReadPool
    to share (`kg serve`: the web pages' pool, which the caller closes); else one of its own. `mode_for`:
    the search mode a call runs in, from the one it asks for (KgTools.mode_for)."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.types import ToolAnnotations
    except ImportError as exc:
        raise ConfigError(f"kg mcp needs the mcp package ({exc}). Install it: pip install 'mcp>=2.3,<3'.") from exc

    check_embedder(embedder or kb.config().search.embedder, installed=True)
    own = reader is None
    if own:
        # Two workers: one may spend minutes embedding the knowledge base for vector search, in the
        # background (kg/serve/vectors.py), while the other answers; searches run as BM25 until then.
        reader = api.reader(kb, served=True, timeout=timeout, size=2)
        if mode_for is None:
            mode_for = Vectors(kb, reader, embedder, DEFAULT_MODE).mode_for
    tools = KgTools(kb, allow_writes, embedder, reader, mode_for)
    server: Any = MCPServer("kg", instructions=instructions(tools), version=_version(), log_level="WARNING")
    if own:
        weakref.finalize(server, reader.close)  # its workers go with it
    call = _Caller()
    _add_read_tools(server, tools, call, ToolAnnotations(read_only_hint=True, open_world_hint=False))
    if allow_writes:
        _add_write_tools(server, tools, call, ToolAnnotations(read_only_hint=False, destructive_hint=False))
    _add_resources(server, tools)
    return server


class _Caller:
    """Runs a tool: one JSON text block (compact: what the size bound counts), or a ToolError for the
    model. The SDK runs tools in threads. Reads run in the pool's workers, as many at once as it has;
    a write (kg_compile, saving an answer) opens Kuzu here, one at a time (one database per process)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def __call__(self, fn: Any, *args: Any, writes: bool = False, **kwargs: Any) -> str:
        from mcp.server.mcpserver.exceptions import ToolError

        try:
            with self.lock if writes else contextlib.nullcontext():
                return json.dumps(fn(*args, **kwargs), ensure_ascii=False, default=str)
        except KgError as exc:
            raise ToolError(str(exc)) from exc
        except ValueError as exc:  # e.g. a NUL byte in a path
            raise ToolError(f"Bad argument: {exc}") from exc


def _add_read_tools(server: Any, tools: KgTools, call: _Caller, reads: Any) -> None:
    @server.tool(name="kg_search", annotations=reads, structured_output=False)
    def kg_search(query: str, mode: str | None = None, limit: int = 10, cursor: str | None = None) -> str:
        """Search claims, source chunks and filed answers. mode: bm25, vector or hybrid (default: the
        one `kg search` and `kg query` use). limit: 1 to 50 hits; pass next_cursor to page on. Each hit has kind, id, title,
        its text (at most 300 characters), score, wiki page, citation and source span (source_path, char_start,
        char_end): the hits of `kg search --json`."""
        return call(tools.search, query, mode, limit, cursor)

    @server.tool(name="kg_query", annotations=reads if not tools.allow_writes else None, structured_output=False)
    def kg_query(question: str, budget: int = 2000, save: bool = False, form: str = "page") -> str:
        """Answer a question from the knowledge base with citations (what `kg query --json` prints):
        the answer text with [n] markers and, per citation, the claim, its page and source spans.
        budget: tokens the navigator may read. save: file the answer into the wiki (needs --allow-writes).
        form: page | table (a markdown comparison table) | chart (the plotted values as a table; the PNG
        is drawn beside a saved answer) | canvas | slides | auto (picked from the question)."""
        return call(tools.query, question, budget, save, None, form, writes=save)

    @server.tool(name="kg_entity", annotations=reads, structured_output=False)
    def kg_entity(name: str, max_claims: int = 20, cursor: str | None = None) -> str:
        """An entity by name, alias or id: type, aliases, merges, its sources, its live claims a page at
        a time (max_claims, then next_cursor) and its neighbours. An unknown name suggests close ones."""
        return call(tools.entity, name, max_claims, cursor)

    @server.tool(name="kg_claim", annotations=reads, structured_output=False)
    def kg_claim(claim_id: str) -> str:
        """A claim with every evidence span: the quote cut from raw/ now, and whether the source still
        has the hash it was compiled from (state: verified, changed, missing); its entities and contradictions."""
        return call(tools.claim, claim_id)

    @server.tool(name="kg_page", annotations=reads, structured_output=False)
    def kg_page(path: str, from_line: int = 1, max_lines: int = 200) -> str:
        """A wiki page (path inside wiki/, e.g. index.md or entities/<id>.md) in a window of lines;
        next_from_line continues it."""
        return call(tools.page, path, from_line, max_lines)

    @server.tool(name="kg_cypher", annotations=reads, structured_output=False)
    def kg_cypher(query: str, params: dict[str, Any] | None = None, limit: int = 100) -> str:
        """Read-only Cypher over the graph (schema in the README: Source, Entity, Claim, Chunk; ABOUT,
        EXTRACTED_FROM, MENTIONS, CONTRADICTS, ALIAS_OF...). Rows are capped (limit, and the reply size);
        `truncated` says when. A query that writes is refused."""
        return call(tools.cypher, query, params, limit)

    @server.tool(name="kg_status", annotations=reads, structured_output=False)
    def kg_status() -> str:
        """Counts, sources new, changed or vanished since the last compile, and the extractor in use."""
        return call(tools.status)

    @server.tool(name="kg_lint", annotations=reads, structured_output=False)
    def kg_lint() -> str:
        """Check the knowledge base: contradictions, stale claims, broken links, orphans, gaps."""
        return call(tools.lint)


def _add_write_tools(server: Any, tools: KgTools, call: _Caller, writes: Any) -> None:
    @server.tool(name="kg_compile", annotations=writes, structured_output=False)
    def kg_compile(paths: list[str] | None = None, dry_run: bool = False) -> str:
        """Compile new and changed sources of raw/ (or only `paths` there) and render the wiki.
        dry_run: say what would be compiled and which pages rewritten, change nothing."""
        return call(tools.compile, paths, dry_run, writes=True)


def _add_resources(server: Any, tools: KgTools) -> None:
    from mcp.server.mcpserver.exceptions import ResourceNotFoundError

    @server.resource("kg://page/{+path}", mime_type="text/markdown")
    def page_resource(path: str) -> str:
        """A wiki page, whole (use kg_page for a window of a long one)."""
        try:
            return tools.wiki_file(path).read_text(encoding="utf-8")
        except (KgError, ValueError) as exc:
            raise ResourceNotFoundError(str(exc)) from exc

    @server.resource("kg://claim/{claim_id}", mime_type="application/json")
    def claim_resource(claim_id: str) -> str:
        """A claim with its evidence (as kg_claim)."""
        try:
            return json.dumps(tools.claim(claim_id), ensure_ascii=False, default=str)
        except KgError as exc:
            raise ResourceNotFoundError(str(exc)) from exc


def _version() -> str:
    from kg import __version__

    return str(__version__)
