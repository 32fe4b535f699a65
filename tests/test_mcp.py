"""Issue 16: `kg mcp`, through the official MCP client: in memory for every tool and bad arguments,
over stdio end to end, beside a running compile."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from kg import api
from kg.kb import KnowledgeBase
from kg.serve.mcp import READ_TOOLS, build_server
from kg.serve.mcp.tools import MAX_REPLY_CHARS, KgTools
from tests.conftest import tree_digest

KG = str(Path(sys.executable).with_name("kg"))


def session(server: Any, work: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(server) as client:
            return await work(client)

    return anyio.run(main)


def calls(server: Any, *requests: tuple[str, dict[str, Any]]) -> list[Any]:
    async def work(client: Client) -> list[Any]:
        return [await client.call_tool(name, args) for name, args in requests]

    return session(server, work)


def reply(result: Any) -> dict[str, Any]:
    """A tool's reply: one compact JSON text block (what the size bound counts)."""
    assert not result.is_error, result.content[0].text
    assert len(result.content) == 1 and len(result.content[0].text) <= MAX_REPLY_CHARS
    return json.loads(result.content[0].text)  # type: ignore[no-any-return]


def error(result: Any) -> str:
    assert result.is_error
    return result.content[0].text  # type: ignore[no-any-return]


def test_search_pages_neither_repeat_nor_skip(compiled: KnowledgeBase) -> None:
    """Paging kg_search with next_cursor walks one order: the first page is `kg search -k limit`'s hits, no
    hit comes twice, and the pages together are what one deep page gives (Searcher.search_page)."""
    server = build_server(compiled)
    query = "computer memory program"

    async def walk(client: Client) -> list[dict[str, Any]]:
        pages, cursor = [], None
        for _ in range(40):
            args: dict[str, Any] = {"query": query, "limit": 3, "mode": "bm25"}
            if cursor:
                args["cursor"] = cursor
            pages.append(reply(await client.call_tool("kg_search", args)))
            cursor = pages[-1]["next_cursor"]
            if cursor is None:
                break
        return pages

    pages = session(server, walk)
    keys = [(h["kind"], h["id"]) for p in pages for h in p["hits"]]
    assert len(pages) > 3 and len(keys) == len(set(keys))
    first = api.search_kb(compiled, query, "bm25", 3)
    assert [(h["kind"], h["id"]) for h in pages[0]["hits"]] == [(h.kind, h.id) for h in first.hits]
    deep = api.search_kb(compiled, query, "bm25", page=(0, len(keys), 3))
    assert keys == [(h.kind, h.id) for h in deep.hits]
    assert error(calls(server, ("kg_search", {"query": query, "cursor": "bm25.3.-1"}))[0]).count("next_cursor")


def test_a_cursor_asks_the_server_for_its_mode_again(compiled: KnowledgeBase) -> None:
    """A cursor names its search's mode, but a server whose vectors are not ready still refuses a vector
    page (`mode_for`), as it refuses a first page: no read worker embeds the knowledge base unasked."""
    asked: list[str | None] = []

    def mode_for(mode: str | None) -> str:
        asked.append(mode)
        if mode in ("vector", "hybrid"):
            raise RuntimeError("vectors are not ready")
        return mode or "bm25"

    tools = KgTools(compiled, mode_for=mode_for)
    with pytest.raises(RuntimeError, match="not ready"):
        tools.search("computer", cursor="hybrid.3.3")
    assert asked == ["hybrid"] and tools.search("computer", cursor="bm25.3.3")["hits"]


def test_tools_listed_and_write_tools_only_when_allowed(compiled: KnowledgeBase) -> None:
    async def names(client: Client) -> list[str]:
        return sorted(t.name for t in (await client.list_tools()).tools)

    assert session(build_server(compiled), names) == sorted(READ_TOOLS)
    assert session(build_server(compiled, allow_writes=True), names) == sorted((*READ_TOOLS, "kg_compile"))


def test_every_read_tool_answers_through_the_library(compiled: KnowledgeBase) -> None:
    server = build_server(compiled)
    search, query, entity, status, lint, page = calls(
        server, ("kg_search", {"query": "Electronic Numerical Integrator and Computer", "limit": 5}),
        ("kg_query", {"question": "How much did ENIAC weigh?"}), ("kg_entity", {"name": "ENIAC", "max_claims": 3}),
        ("kg_status", {}), ("kg_lint", {}), ("kg_page", {"path": "index.md", "max_lines": 5}))
    hits = reply(search)["hits"]
    assert hits and any("eniac" in h["page"] for h in hits) and all(len(h["text"]) <= 300 for h in hits)
    assert reply(query)["citations"] and "ENIAC" in reply(query)["answer"]
    found = reply(entity)
    assert found["entity"]["id"] == "eniac" and len(found["claims"]) == 3 and found["next_cursor"] == "3"
    assert found["claims_total"] > 3 and found["neighbours"]
    assert reply(status)["counts"]["Claim"] > 0 and "findings" in reply(lint)
    window = reply(page)
    assert window["to_line"] == 5 and window["next_from_line"] == 6 and window["text"].startswith("---")
    claim_id = next(h["id"] for h in reply(calls(server, ("kg_search", {"query": "ENIAC weighed", "limit": 10}))[0])["hits"]
                    if h["kind"] == "claim")
    claim = reply(calls(server, ("kg_claim", {"claim_id": claim_id}))[0])
    assert claim["evidence"] and claim["evidence"][0]["state"] == "verified" and claim["evidence"][0]["quote"]
    more = reply(calls(server, ("kg_entity", {"name": "eniac", "max_claims": 3, "cursor": "3"}))[0])
    assert {c["id"] for c in more["claims"]}.isdisjoint({c["id"] for c in found["claims"]})


def test_bad_arguments_get_messages_for_the_model(compiled: KnowledgeBase) -> None:
    before = (tree_digest(compiled.wiki), tree_digest(compiled.raw))
    results = calls(build_server(compiled),
                    ("kg_search", {"query": "  "}), ("kg_search", {"query": "ENIAC", "limit": 10_000}),
                    ("kg_search", {"query": "ENIAC", "cursor": "minus one"}), ("kg_claim", {"claim_id": "c0000"}),
                    ("kg_cypher", {"query": "MATCH (n RETURN n"}), ("kg_cypher", {"query": "CREATE (e:Entity {id: 'x'})"}),
                    ("kg_page", {"path": "../kg.toml"}), ("kg_page", {"path": "/etc/passwd"}),
                    ("kg_entity", {"name": "Eniak"}), ("kg_query", {"question": "x", "save": True}))
    messages = [error(r) for r in results]
    assert "query is empty" in messages[0] and "between 1 and 50" in messages[1] and "cursor" in messages[2]
    assert "c0000" in messages[3]
    assert "Cypher failed" in messages[4]
    assert "read-only" in messages[5] and "only reads" in messages[5]
    assert "outside the wiki" in messages[6] and ("outside the wiki" in messages[7] or "No wiki page" in messages[7])
    assert "Close names: ENIAC" in messages[8]
    assert "--allow-writes" in messages[9]
    assert (tree_digest(compiled.wiki), tree_digest(compiled.raw)) == before  # nothing was written


def test_kg_query_takes_the_forms_of_kg_query(compiled: KnowledgeBase) -> None:
    table, bad = calls(build_server(compiled),
                       ("kg_query", {"question": "Compare ENIAC and the Manchester Baby", "form": "auto"}),
                       ("kg_query", {"question": "Compare ENIAC and the Manchester Baby", "form": "poster"}))
    data = reply(table)
    assert data["form"] == "table" and "| [[entities/eniac" in data["answer"].replace("| | ", "| ")
    assert data["navigation"]["explain"]  # why each claim was read travels with the answer
    assert "form must be one of" in error(bad) and "poster" in error(bad)


def test_replies_are_bounded_and_say_when_cut(compiled: KnowledgeBase) -> None:
    server = build_server(compiled)
    every_claim, few = calls(server, ("kg_cypher", {"query": "MATCH (c:Claim) RETURN c.*", "limit": 1000}),
                             ("kg_cypher", {"query": "MATCH (c:Claim) RETURN c.id AS id ORDER BY id", "limit": 3}))
    rows = reply(every_claim)  # at most MAX_REPLY_CHARS, one text block
    assert rows["truncated"] and 0 < rows["returned"] < 1000
    assert reply(few)["returned"] == 3 and reply(few)["truncated"]
    lint, search = calls(server, ("kg_lint", {}), ("kg_search", {"query": "computer memory program", "limit": 50}))
    assert reply(lint) and reply(search)["hits"]


def test_a_line_longer_than_a_reply_is_cut_and_paging_moves_on(fresh: KnowledgeBase) -> None:
    (fresh.wiki / "long.md").write_text("short\n" + "x" * 60_000 + "\nlast\n", encoding="utf-8")
    server = build_server(fresh)
    first, second = calls(server, ("kg_page", {"path": "long.md", "from_line": 2}), ("kg_page", {"path": "long.md", "from_line": 3}))
    assert reply(first)["truncated"] and reply(first)["next_from_line"] == 3
    assert reply(second)["text"] == "last"


def test_cypher_that_reaches_files_is_refused(compiled: KnowledgeBase, tmp_path: Path) -> None:
    target = tmp_path / "evil.csv"
    results = calls(build_server(compiled),
                    ("kg_cypher", {"query": "LOAD FROM '/etc/passwd' (file_format='csv', header=false, delim=':') RETURN *"}),
                    ("kg_cypher", {"query": f"COPY (RETURN 'echo pwned' AS x) TO '{target}' (header=false)"}),
                    ("kg_cypher", {"query": "MATCH (c:Claim) WHERE c.text CONTAINS 'load from' RETURN count(*) AS n"}))
    assert "LOAD reads or writes files" in error(results[0]) and "COPY" in error(results[1])
    assert not target.exists()
    assert reply(results[2])["rows"][0]["n"] == 0  # the words inside a string are not clauses


def test_parallel_calls_after_a_small_compile_are_served_one_at_a_time(fresh: KnowledgeBase) -> None:
    """The SDK runs tools in threads; Kuzu allows one database per file per process. After a small
    compile the first search rebuilds the search indexes: parallel calls must not open the graph twice."""
    (fresh.raw / "extra.md").write_text("# Zuse Z3\n\nThe Zuse Z3 was completed in 1941 in Berlin.\n", encoding="utf-8")
    api.compile_kb(fresh, "heuristic")
    server = build_server(fresh, timeout=180)  # the first search embeds the graph: slow on a loaded machine

    async def work(client: Client) -> list[Any]:
        results: list[Any] = []

        async def one(name: str, args: dict[str, Any]) -> None:
            results.append(await client.call_tool(name, args))

        async with anyio.create_task_group() as group:
            for n in range(6):
                group.start_soon(one, "kg_search" if n % 2 else "kg_status", {"query": "Zuse Z3 Berlin"} if n % 2 else {})
        return results

    results = session(server, work)
    assert len(results) == 6 and all(not r.is_error for r in results), [r.content[0].text for r in results if r.is_error]
    assert api.status(fresh).counts["Claim"] > 0  # the graph still opens


def test_resources_pages_and_claims(compiled: KnowledgeBase) -> None:
    claim_id = api.cypher(compiled, "MATCH (c:Claim) RETURN c.id AS id ORDER BY id LIMIT 1")[0]["id"]

    async def read(client: Client) -> tuple[str, str]:
        page = await client.read_resource("kg://page/entities/eniac.md")
        claim = await client.read_resource(f"kg://claim/{claim_id}")
        return page.contents[0].text, claim.contents[0].text  # type: ignore[union-attr]

    page, claim = session(build_server(compiled), read)
    assert page.startswith("---") and "# ENIAC" in page
    assert json.loads(claim)["claim"]["id"] == claim_id


def test_a_call_during_a_compile_says_so_and_asks_to_retry(fresh: KnowledgeBase) -> None:
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from kg.graph.store import Store
        store = Store(__import__("pathlib").Path({str(fresh.db_path)!r}))
        print("ready", flush=True)
        sys.stdin.readline()
        store.close()
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        message = error(calls(build_server(fresh), ("kg_status", {}))[0])
        assert "in use by process" in message and "run your command again" in message
    finally:
        # A line, not end of file: a read worker forked meanwhile holds a copy of the pipe's end.
        holder.communicate("done\n", timeout=60)
    assert reply(calls(build_server(fresh), ("kg_status", {}))[0])["counts"]["Claim"] > 0


def test_stdio_end_to_end_with_a_compile_while_the_server_is_up(fresh: KnowledgeBase, tmp_path: Path) -> None:
    params = StdioServerParameters(command=KG, args=["mcp", "--kb", str(fresh.root)])
    note = fresh.raw / "zanzibar.md"

    async def work(client: Client) -> dict[str, Any]:
        listed = sorted(t.name for t in (await client.list_tools()).tools)
        found = json.loads((await client.call_tool("kg_search", {"query": "program counter", "limit": 3})).content[0].text)
        note.write_text("# Zanzibar Engine\n\nThe Zanzibar Engine computed tide tables in 1931.\n", encoding="utf-8")
        compiled = await anyio.to_thread.run_sync(lambda: subprocess.run(
            [KG, "compile", "-q", "--kb", str(fresh.root)], capture_output=True, text=True))
        after = json.loads((await client.call_tool("kg_search", {"query": "Zanzibar tide tables", "limit": 3})).content[0].text)
        return {"listed": listed, "found": found, "compile": compiled.returncode, "stderr": compiled.stderr, "after": after}

    result = session(params, work)
    assert result["listed"] == sorted(READ_TOOLS)
    assert result["found"]["hits"]
    assert result["compile"] == 0, result["stderr"]
    assert any("Zanzibar" in h["text"] for h in result["after"]["hits"])


def test_init_writes_claude_md_once(tmp_path: Path) -> None:
    kb, created = api.init_kb(tmp_path / "kb")
    assert (kb.root / "CLAUDE.md").read_text(encoding="utf-8") == "@AGENTS.md\n" and "CLAUDE.md" in created
    (kb.root / "CLAUDE.md").write_text("mine\n", encoding="utf-8")
    api.init_kb(tmp_path / "kb")
    assert (kb.root / "CLAUDE.md").read_text(encoding="utf-8") == "mine\n"
    assert "kg_search" in (kb.root / "AGENTS.md").read_text(encoding="utf-8")
    shutil.rmtree(tmp_path / "kb")


@pytest.mark.parametrize("flag", ["--help"])
def test_cli_help_names_the_tools(flag: str) -> None:
    from typer.testing import CliRunner

    from kg.cli import app

    result = CliRunner().invoke(app, ["mcp", flag])
    assert result.exit_code == 0 and "kg_search" in result.output and "--allow-writes" in result.output
