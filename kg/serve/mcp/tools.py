"""What `kg mcp` serves, as plain functions over the library calls the CLI makes: every reply a
JSON-able dict no larger than `MAX_REPLY_CHARS`, paged with opaque cursors, saying when it was cut.

Every read of the graph runs through `reader` (a kg.graph.guard.ReadPool under the served limits
of [limits]: a worker process stopped past its time or memory), so no call can take the server
down; the reply is shaped here, from results already bounded in the worker. Without a reader
(tests, scripts) the reads run in this process.

Each call opens the graph and closes it (Kuzu 0.11.3: while any process holds the graph open, no
other can open it to write), so `kg compile` runs between calls; a call that meets a compile gets
DatabaseLocked naming it. Errors are KgError with a message for the model (kg/serve/mcp/server.py
turns them into tool errors)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg import api
from kg.errors import ConfigError, KgError, QueryError
from kg.kb import KnowledgeBase
from kg.serve.reading import MAX_SEARCH_LIMIT, MODES, TOOL_PATIENCE, patient_read

# Claude Code warns above 10k tokens and cuts at 25k: 40,000 characters (~10k tokens) per reply.
MAX_REPLY_CHARS = 40_000
MAX_SNIPPET = 300
MAX_CYPHER_ROWS = 1000
MAX_PAGE_LINES = 400
MAX_OFFSET = 10_000  # how far a cursor may page into search hits or an entity's claims


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str))  # as kg/serve/mcp/server.py sends it


def _offset(cursor: str | None) -> int:
    if cursor in (None, ""):
        return 0
    try:
        offset = int(str(cursor))
    except ValueError:
        offset = -1
    if not 0 <= offset <= MAX_OFFSET:
        raise QueryError(f"cursor {cursor!r} is not one this server gave; pass the next_cursor of the previous reply, or none.")
    return offset


def _search_cursor(cursor: str) -> tuple[str, int, int]:
    """(mode, window, offset) of a kg_search cursor, as `KgTools.search` writes it."""
    mode, _, rest = str(cursor).partition(".")
    window_text, _, offset_text = rest.partition(".")
    try:
        window, offset = int(window_text), int(offset_text)
    except ValueError:
        window = offset = -1
    if mode not in MODES or not 1 <= window <= MAX_SEARCH_LIMIT or not 0 <= offset <= MAX_OFFSET:
        raise QueryError(f"cursor {cursor!r} is not one this server gave; pass the next_cursor of the previous reply, or none.")
    return mode, window, offset


def _fit(items: list[Any], budget: int) -> tuple[list[Any], bool]:
    """The longest prefix of `items` whose JSON fits in `budget` characters (at least none)."""
    kept: list[Any] = []
    used = 0
    for item in items:
        used += _size(item) + 2
        if used > budget:
            return kept, True
        kept.append(item)
    return kept, False


def _clip_text(text: str, size: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= size else (text[: size - 1] + "…", True)


@dataclass
class KgTools:
    """The tools of one knowledge base. `allow_writes`: compile and filing answers are allowed."""

    kb: KnowledgeBase
    allow_writes: bool = False
    embedder: str | None = None  # None: [search] embedder in kg.toml
    reader: Any = None  # a ReadPool: every graph read runs there (see the module's docs)
    # the mode a search or question runs in, from the one asked for (`kg serve`: BM25 until its vectors are ready)
    mode_for: Callable[[str | None], str | None] | None = None

    def _read(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return patient_read(self.reader, TOOL_PATIENCE, fn, *args, **kwargs)

    # reading -----------------------------------------------------------------------------------

    def search(self, query: str, mode: str | None = None, limit: int = 10, cursor: str | None = None) -> dict[str, Any]:
        if not query.strip():
            raise QueryError("query is empty: pass the words to look for.")
        if mode is not None and mode not in MODES:
            raise QueryError(f"mode {mode!r} is not one of {', '.join(MODES)}.")
        if not 1 <= limit <= MAX_SEARCH_LIMIT:
            raise QueryError(f"limit must be between 1 and {MAX_SEARCH_LIMIT} (got {limit}); page with cursor for more.")
        if cursor in (None, ""):
            mode = self.mode_for(mode) if self.mode_for is not None else mode
            offset, window = 0, limit
        else:  # the pages of one search keep its mode and order (Searcher.search_page); `mode` is not read
            mode, window, offset = _search_cursor(cursor)
            mode = self.mode_for(mode) if self.mode_for is not None else mode  # vectors still not ready: refused
        result = self._read(api.search_kb, self.kb, query, mode, embedder=self.embedder, progress=_keep_alive,
                            page=(offset, limit, window))
        data = result.as_dict(max_text=MAX_SNIPPET)  # the shape `kg search --json` prints, texts cut
        kept, cut = _fit(data["hits"], MAX_REPLY_CHARS - 500)
        more = bool(kept) and (cut or result.more)
        return {**data, "hits": kept, "truncated": cut,
                "next_cursor": f"{result.mode}.{window}.{offset + len(kept)}" if more else None}

    def query(self, question: str, budget: int = 2000, save: bool = False, mode: str | None = None,
              form: str = "page") -> dict[str, Any]:
        if not question.strip():
            raise QueryError("question is empty: ask something in plain words.")
        if form not in api.ANSWER_FORMS:
            raise QueryError(f"form must be one of {', '.join(api.ANSWER_FORMS)} (got {form!r}).")
        if not api.MIN_BUDGET <= budget <= api.MAX_BUDGET:
            raise QueryError(f"budget must be between {api.MIN_BUDGET} and {api.MAX_BUDGET} tokens (got {budget}).")
        if save:
            self._writable("saving an answer")
        mode = self.mode_for(mode) if self.mode_for is not None else mode
        result = self._read(api.answer_question, self.kb, question, budget, self.embedder, mode=mode,
                            progress=_keep_alive, form=form)
        if save:
            result.saved_page = api.save_answer_kb(self.kb, result.answer, result.page_body())
        reply = result.as_dict()
        reply["answer"], cut = _clip_text(reply["answer"], MAX_REPLY_CHARS // 2)
        reply["citations"], cut_citations = _fit(reply["citations"], MAX_REPLY_CHARS // 2 - 2000)
        reply["truncated"] = cut or cut_citations
        return reply

    def entity(self, name: str, max_claims: int = 20, cursor: str | None = None) -> dict[str, Any]:
        if not name.strip():
            raise QueryError("name is empty: pass an entity's name or id.")
        api.check_text(name, "The entity name", api.MAX_NAME_CHARS, name=True)
        if not 1 <= max_claims <= 200:
            raise QueryError(f"max_claims must be between 1 and 200 (got {max_claims}).")
        offset = _offset(cursor)
        entity, sources, total, claims, neighbours = self._read(api.entity_with_claims, self.kb, name, offset, max_claims)
        reply = {"entity": entity, "sources": sources[:100], "sources_total": len(sources),
                 "page": f"entities/{entity['alias_of'][0]['id'] if entity['alias_of'] else entity['id']}.md",
                 "claims_total": total, "neighbours": neighbours}
        kept, cut = _fit(claims, MAX_REPLY_CHARS - _size(reply) - 500)
        reply["claims"] = kept
        reply["truncated"] = cut
        reply["next_cursor"] = str(offset + len(kept)) if offset + len(kept) < total and kept else None
        return reply

    def claim(self, claim_id: str) -> dict[str, Any]:
        if not claim_id.strip():
            raise QueryError("claim_id is empty: pass a claim id (the ^c… block id on wiki pages).")
        reply = self._read(api.claim_show, self.kb, claim_id.strip().lstrip("^")).as_dict()
        for ev in reply.get("evidence", []):
            for key in ("quote", "current_text"):
                if isinstance(ev.get(key), str):
                    ev[key], _ = _clip_text(ev[key], 4000)
        return reply

    def page(self, path: str, from_line: int = 1, max_lines: int = 200) -> dict[str, Any]:
        file = self.wiki_file(path)
        if from_line < 1 or not 1 <= max_lines <= MAX_PAGE_LINES:
            raise QueryError(f"from_line must be 1 or more and max_lines between 1 and {MAX_PAGE_LINES}.")
        lines = file.read_text(encoding="utf-8").splitlines()
        window = lines[from_line - 1 : from_line - 1 + max_lines]
        text, cut = "\n".join(window), False
        budget = MAX_REPLY_CHARS - 1000
        if len(text) > budget:
            kept: list[str] = []
            used = 0
            for line in window:
                used += len(line) + 1
                if used > budget:
                    if not kept:  # one line longer than a reply: cut it, and still move on
                        kept.append(_clip_text(line, budget)[0])
                    break
                kept.append(line)
            window, text, cut = kept, "\n".join(kept), True
        last = from_line - 1 + len(window)
        return {"path": file.relative_to(self.kb.wiki).as_posix(), "from_line": from_line, "to_line": last,
                "total_lines": len(lines), "text": text, "truncated": cut,
                "next_from_line": last + 1 if last < len(lines) else None}

    def wiki_file(self, path: str) -> Path:
        """A page of wiki/ by its path there ("entities/eniac.md", "index" works too); nothing outside."""
        api.check_text(path, "The page path", api.MAX_NAME_CHARS, name=True)
        clean = path.strip().lstrip("/")
        if not clean:
            raise QueryError("path is empty: pass a wiki page such as index.md or entities/<id>.md.")
        if not clean.endswith(".md"):
            clean += ".md"
        wiki = self.kb.wiki.resolve()
        file = (wiki / clean).resolve()
        if wiki not in file.parents:
            raise QueryError(f"{path!r} is outside the wiki: pass a path inside wiki/, such as entities/<id>.md.")
        if not file.is_file():
            raise QueryError(f"No wiki page {clean!r}. Start at index.md, or find pages with kg_search.")
        return file

    def cypher(self, query: str, params: dict[str, Any] | None = None, limit: int = 100) -> dict[str, Any]:
        if not query.strip():
            raise QueryError("query is empty: pass a Cypher query that reads the graph (the schema is in the README).")
        if not 1 <= limit <= MAX_CYPHER_ROWS:
            raise QueryError(f"limit must be between 1 and {MAX_CYPHER_ROWS} (got {limit}).")
        refused = _file_access(query)
        if refused:
            raise QueryError(f"{refused} reads or writes files outside the graph: this server only reads the graph. "
                             "Ask the person to run it with `kg cypher` if it is needed.")
        try:
            rows = self._read(api.cypher, self.kb, query, params or {}, write=False, max_rows=limit,
                              max_bytes=MAX_REPLY_CHARS * 4)
        except QueryError as exc:
            message = str(exc).replace(" Add --write to run a query that changes the graph.", "")
            if "read-only" in message.lower().replace("read only", "read-only"):
                message += " This server only reads the graph: writes go through kg compile and kg entity merge."
            raise QueryError(message) from exc
        kept, cut = _fit(list(rows), MAX_REPLY_CHARS - 500)
        return {"rows": json.loads(json.dumps(kept, ensure_ascii=False, default=str)), "returned": len(kept),
                "truncated": cut or rows.truncated}

    def status(self) -> dict[str, Any]:
        reply = self._read(api.status, self.kb).as_dict()
        for key in ("new", "changed", "vanished"):
            reply[f"{key}_total"] = len(reply[key])
            reply[key] = reply[key][:100]
        return reply

    def lint(self, max_findings: int = 100) -> dict[str, Any]:
        report = self._read(api.lint_kb, self.kb).as_dict()
        findings = report.get("findings", [])
        kept, cut = _fit(findings[:max_findings], MAX_REPLY_CHARS - 2000)
        report["findings"] = kept
        report["truncated"] = cut or len(findings) > len(kept)
        return report

    # writing (only with --allow-writes) --------------------------------------------------------

    def compile(self, paths: list[str] | None = None, dry_run: bool = False) -> dict[str, Any]:
        self._writable("compiling")
        only = api.select_sources(self.kb, paths) if paths else None
        if dry_run:
            return api.explain(self.kb, only)
        report, rendered = api.compile_kb(self.kb, None, only=only)
        data = report.as_dict()
        if rendered is not None:
            data["rendered_pages"], data["rewritten_pages"] = rendered.pages, rendered.written
        kept, cut = _fit(sorted(data.get("failed", {}).items()), 10_000)
        data["failed"], data["truncated"] = dict(kept), cut
        return json.loads(json.dumps(data, default=str))

    def _writable(self, what: str) -> None:
        if not self.allow_writes:
            raise ConfigError(f"{what} changes the knowledge base: this server was started without --allow-writes.")


# Kuzu clauses that reach files (LOAD FROM, COPY ... TO, EXPORT/IMPORT DATABASE, ATTACH, INSTALL,
# LOAD extensions) or call functions: a read-only database still runs them.
_FILE_CLAUSES = re.compile(r"\b(LOAD|COPY|EXPORT|IMPORT|ATTACH|DETACH|INSTALL|CALL|USE)\b", re.IGNORECASE)
_LITERALS = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`|//[^\n]*|/\*.*?\*/""", re.DOTALL)


def _file_access(query: str) -> str | None:
    """The first clause of `query` (outside strings, names and comments) that reaches files."""
    found = _FILE_CLAUSES.search(_LITERALS.sub(" ", query))
    return found.group(1).upper() if found else None


def _keep_alive(done: int, total: int, embedded: int) -> None:
    """A first vector search reports its embedding here: each report restarts the call's clock
    (kg/graph/guard.py), so embedding the knowledge base once is not stopped as a slow read."""


def instructions(tools: KgTools) -> str:
    """What the server tells an agent, built from the live knowledge base."""
    try:
        st = tools.status()
        counts = st["counts"]
        state = (f"{counts.get('Source', 0)} sources, {counts.get('Entity', 0)} entities, {counts.get('Claim', 0)} claims, "
                 f"{counts.get('Contradiction', 0)} open contradictions"
                 + ("; not compiled yet" if not st.get("compiled", True) else ""))
    except KgError as exc:
        state = f"state unknown ({exc})"
    writes = ("kg_compile and kg_query(save=true) change it." if tools.allow_writes else
              "This server only reads: compiling and filing answers need `kg mcp --allow-writes`.")
    return (f"kg knowledge base at {tools.kb.root}: {state}. Its wiki is generated from a graph of claims, each "
            "with evidence spans in raw/ sources. To answer from it: kg_search (claims, source passages, answers) or kg_query "
            "for a cited answer; open what you find with kg_page (wiki pages, index.md first), kg_entity (an entity "
            "and its claims) and kg_claim (a claim's evidence quote, checked against its source). Cite claims as "
            "the citation links the tools return ([[sources/<slug>#^<claim id>|Title]]) or as raw/<path> with the "
            "character span. kg_cypher runs read-only Cypher (schema in the README). Replies are bounded: when "
            f"`truncated` is true or `next_cursor` is set, call again with the cursor. {writes}")
