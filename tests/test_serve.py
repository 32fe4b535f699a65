"""Issue 38: `kg serve` on the example notes, through real HTTP (uvicorn on a free port): pages
rendered from the graph, JSON in the CLI's shapes, MCP over streamable HTTP, the token, escaping of
what sources say, 503 while a writer holds the graph, and a compile beside a running server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
import urllib.parse
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from kg import api
from kg.errors import ConfigError
from kg.kb import KnowledgeBase
from kg.serve.mcp import READ_TOOLS
from kg.serve.web.auth import SESSION_COOKIE, check_exposure, is_loopback
from tests.conftest import run_cli
from tests.serving import request, served

TOKEN = "correct-horse-battery-staple-42"
KG = str(Path(sys.executable).with_name("kg"))


def cli_json(*args: str) -> Any:
    code, output = run_cli(*args, "--json")
    assert code == 0, output
    return json.loads(output)


def test_pages_render_from_the_graph(compiled: KnowledgeBase) -> None:
    with served(compiled) as url:
        home = request(url + "/")
        assert home.status == 200 and '<input type="search" name="q"' in home.text and "/entities/eniac" in home.text
        found = request(url + "/search?q=ENIAC")
        assert found.status == 200 and 'class="entity" href="/entities/eniac"' in found.text
        page = request(url + "/entities/eniac")
        assert page.status == 200 and "<h1>ENIAC</h1>" in page.text
        graph = json.loads(re.search(r'id="graph-data">(.*?)</script>', page.text, re.S).group(1))  # type: ignore[union-attr]
        ids = [n["id"] for n in graph["nodes"]]
        assert ids[0] == "eniac" and 1 < len(ids) <= 31 and all(e["source"] in ids and e["target"] in ids for e in graph["edges"])
        link = re.search(r'class="source" href="(/sources/[^"#]+)#(c[0-9a-f]+)"', page.text)
        assert link is not None
        source = request(url + link.group(1))
        marks = re.findall(r'<mark data-claims="([^"]*)">', source.text)
        assert source.status == 200 and any(link.group(2) in m.split() for m in marks)
        assert f'id="{link.group(2)}"' in source.text  # the anchor the link scrolls to
        claim = request(url + f"/claims/{link.group(2)}")
        assert claim.status == 200 and "verified" in claim.text
        for path in ("/contradictions", "/log", "/sources", "/entities?type=person", "/entities/ENIAC"):
            reply = request(url + path)
            assert reply.status in (200, 302), (path, reply.status)
        assert request(url + "/entities/ENIAC").headers["location"] == "/entities/eniac"  # a name finds its page
        contradictions = request(url + "/contradictions").text
        assert contradictions.count("contradicts</p>") == api.status(compiled).counts["Contradiction"]


def test_lists_are_paged(fresh: KnowledgeBase) -> None:
    lines = "\n".join(f"- The [[Widget {n:03d}]] was built in {1900 + n}." for n in range(130))
    (fresh.raw / "widgets.md").write_text(f"# Widgets\n\n{lines}\n", encoding="utf-8")
    api.compile_kb(fresh, "heuristic")
    kinds = {r["type"]: r["n"] for r in api.cypher(fresh, "MATCH (e:Entity) WHERE e.name STARTS WITH 'Widget 1' "
                                                          "RETURN e.type AS type, count(*) AS n")}
    kind = max(kinds, key=kinds.__getitem__)
    with served(fresh) as url:
        first = request(url + f"/entities?type={kind}")
        assert first.status == 200 and f'rel="next" href="?type={kind}&amp;page=2"' in first.text
        assert first.text.count('<li><a href="/entities/') == 100
        second = request(url + f"/entities?type={kind}&page=2")
        assert second.status == 200 and 'rel="prev"' in second.text and "page 2 of" in second.text
        assert request(url + "/log?page=0").status == 400 and request(url + "/log?page=x").status == 400


def test_json_has_the_shapes_of_the_cli(compiled: KnowledgeBase) -> None:
    root = str(compiled.root)
    with served(compiled) as url:
        search = request(url + "/api/search?q=vacuum+tubes&mode=bm25&k=5").json()
        assert search == cli_json("search", "vacuum tubes", "--mode", "bm25", "-k", "5", "--kb", root)
        assert request(url + "/api/entity/eniac").json() == cli_json("entity", "show", "eniac", "--kb", root)
        claim_id = search["hits"][0]["id"] if search["hits"][0]["kind"] == "claim" else \
            next(h["id"] for h in search["hits"] if h["kind"] == "claim")
        assert request(url + f"/api/claim/{claim_id}").json() == cli_json("claim", "show", claim_id, "--kb", root)
        answer = request(url + "/api/query?q=How+much+did+ENIAC+weigh%3F&mode=bm25").json()
        assert answer == cli_json("query", "How much did ENIAC weigh?", "--mode", "bm25", "--kb", root)


def test_vector_search_once_the_server_has_embedded_the_graph(compiled: KnowledgeBase) -> None:
    """The server embeds the graph in the background as it starts (kg/serve/vectors.py); then
    a search in the default mode (hybrid) answers as `kg search` does."""
    root = str(compiled.root)
    with served(compiled) as url:
        deadline = time.monotonic() + 60
        while (found := request(url + "/api/search?q=vacuum+tubes&k=5").json())["mode"] != "hybrid":
            assert found["mode"] == "bm25" and time.monotonic() < deadline, found
            time.sleep(0.2)
        assert found == cli_json("search", "vacuum tubes", "--mode", "hybrid", "--embedder", "hashing", "-k", "5",
                                 "--kb", root)
        assert request(url + "/api/search?q=vacuum+tubes&k=5&mode=vector").json()["mode"] == "vector"


def test_bad_requests_get_a_status_and_a_message(compiled: KnowledgeBase) -> None:
    with served(compiled) as url:
        cases = {"/api/search?q=": 400, "/api/search?q=x&k=500": 400, "/api/search?q=x&mode=magic": 400,
                 f"/api/search?q={'a' * 5001}": 400, "/api/entity/no-such-thing": 404, "/api/claim/c0000": 404,
                 "/api/entity/%01%02": 400, "/entities/no-such-thing": 404, "/sources/nope": 404, "/claims/c0000": 404,
                 "/answers/nope": 404}
        for path, status in cases.items():
            reply = request(url + path)
            assert reply.status == status, (path, reply.status, reply.text[:300])
            if path.startswith("/api/"):
                assert reply.json()["error"]
        assert request(url + "/", {"Host": "evil.example"}).status == 421  # DNS rebinding to a loopback server
        mcp_post = {"Host": "evil.example", "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        assert request(url + "/mcp", mcp_post, b"{}").status == 421  # the same, checked by the MCP SDK
        mcp_post = {**mcp_post, "Host": url.removeprefix("http://"), "Origin": "http://evil.example"}
        assert request(url + "/mcp", mcp_post, b"{}").status == 403  # a page elsewhere posting to /mcp


def test_what_sources_say_is_escaped(fresh: KnowledgeBase) -> None:
    evil = "<script>alert(1)</script>"
    (fresh.raw / "evil.md").write_text(f"# Mallory {evil} <img src=x onerror=alert(2)>\n\nMallory Corp was founded in 1999 "
                                       f"by Eve {evil}. Mallory Corp sold <b>tubes</b> to ENIAC.\n", encoding="utf-8")
    api.compile_kb(fresh, "heuristic")
    with served(fresh) as url:
        pages = [request(url + "/search?q=Mallory").text, request(url + "/sources/evil").text,
                 request(url + "/entities/mallory-corp").text, request(url + "/entities/eniac").text,
                 request(url + "/search?q=" + urllib.parse.quote(evil)).text]
    for text in pages:
        assert "<script>alert" not in text and "<img src=x" not in text and "<b>tubes" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[1]
    assert "Mallory" in pages[0] and "/entities/mallory-corp" in pages[0]


def test_filed_answers_render_as_html(fresh: KnowledgeBase) -> None:
    answer = api.answer_question(fresh, "How much did ENIAC weigh?", mode="bm25").answer
    page_id = api.save_answer_kb(fresh, answer)
    with served(fresh) as url:
        page = request(url + f"/answers/{page_id}")
    assert page.status == 200 and "<p>" in page.text and 'href="/sources/' in page.text and "[[" not in page.text


def test_saved_answers_show_in_their_forms(fresh: KnowledgeBase) -> None:
    """A table as an HTML table, a chart as its image, a canvas as a download; the form's data unseen."""
    pages = {}
    for form, question in (("table", "Compare ENIAC and the Manchester Baby"),
                           ("chart", "When were ENIAC, UNIVAC I and the Manchester Baby built?"),
                           ("canvas", "Compare EDVAC and UNIVAC I")):
        result = api.answer_question(fresh, question, mode="bm25", form=form)
        assert result.form == form
        pages[form] = api.save_answer_kb(fresh, result.answer, result.page_body())
    with served(fresh) as url:
        table = request(url + f"/answers/{pages['table']}")
        chart = request(url + f"/answers/{pages['chart']}")
        png = request(url + f"/answers/{pages['chart']}.png")
        canvas = request(url + f"/answers/{pages['canvas']}.canvas")
        missing = request(url + f"/answers/{pages['table']}.png")
    assert table.status == 200 and "<table>" in table.text and 'href="/entities/eniac"' in table.text
    assert "kg-form" not in table.text and "\\|" not in table.text
    assert chart.status == 200 and f'src="/answers/{pages["chart"]}.png"' in chart.text
    assert png.status == 200 and png.headers["content-type"] == "image/png"
    assert png.body == (fresh.wiki / "answers" / f"{pages['chart']}.png").read_bytes()  # what kg render draws
    assert canvas.status == 200 and "attachment" in canvas.headers["content-disposition"]
    assert canvas.json()["nodes"] and canvas.body == (fresh.wiki / "answers" / f"{pages['canvas']}.canvas").read_bytes()
    assert missing.status == 404


def test_a_host_beyond_loopback_needs_a_token() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and not is_loopback("0.0.0.0")
    check_exposure("127.0.0.1", None)
    check_exposure("0.0.0.0", TOKEN)
    with pytest.raises(ConfigError, match="without a token"):
        check_exposure("0.0.0.0", None)
    with pytest.raises(ConfigError, match="at least 16"):
        check_exposure("127.0.0.1", "short")


def test_cli_refuses_an_open_host_without_a_token(compiled: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KG_TOKEN", raising=False)
    code, output = run_cli("serve", "--host", "0.0.0.0", "--kb", str(compiled.root))
    assert code == 2 and "without a token" in output
    code, output = run_cli("serve", "--kb", str(compiled.root), "--token", "short")
    assert code == 2 and "at least 16" in output


def test_with_a_token_every_request_needs_it(compiled: KnowledgeBase) -> None:
    with served(compiled, token=TOKEN) as url:
        for path in ("/", "/api/search?q=ENIAC", "/entities/eniac", "/mcp"):
            assert request(url + path).status == 401
            assert request(url + path, {"Authorization": "Bearer wrong-token-of-some-length"}).status == 401
        assert request(url + "/api/search?q=ENIAC", {"Authorization": f"Bearer {TOKEN}"}).status == 200
        browser = request(url + "/entities/eniac", {"Accept": "text/html"})
        assert browser.status == 401 and 'action="/login"' in browser.text and 'value="/entities/eniac"' in browser.text
        wrong = request(url + "/login", data=b"token=nope&next=/entities/eniac", method="POST")
        assert wrong.status == 401 and SESSION_COOKIE not in wrong.headers.get("set-cookie", "")
        form = urllib.parse.urlencode({"token": TOKEN, "next": "/entities/eniac"}).encode()
        signed = request(url + "/login", data=form, method="POST")
        assert signed.status == 303 and signed.headers["location"] == "/entities/eniac"
        cookie = signed.headers["set-cookie"]
        assert "HttpOnly" in cookie and "samesite=strict" in cookie.lower() and TOKEN not in cookie
        session = cookie.split(";")[0]
        assert request(url + "/entities/eniac", {"Cookie": session}).status == 200
        assert request(url + "/entities/eniac", {"Cookie": f"{SESSION_COOKIE}=forged"}).status == 401
        offsite = request(url + "/login", data=b"token=" + TOKEN.encode() + b"&next=//evil.example/", method="POST")
        assert offsite.headers["location"] == "/"


def _mcp(url: str, work: Any, token: str | None = None) -> Any:
    async def main() -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else None
        transport = streamable_http_client(url + "/mcp", http_client=create_mcp_http_client(headers=headers))
        async with Client(transport) as client:
            return await work(client)

    return anyio.run(main)


def test_mcp_over_http_lists_the_read_tools_and_calls_them(compiled: KnowledgeBase) -> None:
    async def work(client: Client) -> tuple[list[str], dict[str, Any]]:
        names = sorted(t.name for t in (await client.list_tools()).tools)
        found = await client.call_tool("kg_search", {"query": "ENIAC", "limit": 3})
        return names, json.loads(found.content[0].text)  # type: ignore[union-attr]

    with served(compiled, token=TOKEN) as url:
        names, found = _mcp(url, work, TOKEN)
    assert names == sorted(READ_TOOLS) and "kg_compile" not in names
    assert found["hits"] and len(found["hits"]) <= 3


def test_a_read_while_a_writer_holds_the_graph_gets_503_and_retry_after(fresh: KnowledgeBase) -> None:
    """The server's read worker holds the graph open between reads; a writer (here a process that
    opens it for writing and waits) gets in all the same, and reads meanwhile get 503."""
    with served(fresh) as url:
        assert request(url + "/api/search?q=ENIAC").status == 200  # a worker now keeps the graph open
        holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from pathlib import Path
            from kg.graph.store import Store
            store = Store(Path({str(fresh.db_path)!r}))
            print("ready", flush=True)
            sys.stdin.read()
            store.close()
            """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
            locked = request(url + "/api/search?q=ENIAC")
            assert locked.status == 503 and locked.headers["retry-after"] == "5" and "in use by process" in locked.json()["error"]
            page = request(url + "/entities/eniac")
            assert page.status == 503 and 'http-equiv="refresh"' in page.text
        finally:
            holder.communicate("", timeout=60)
        assert request(url + "/api/search?q=ENIAC").status == 200  # the next read, after the writer, works


def test_served_over_the_cli_beside_a_compile(fresh: KnowledgeBase) -> None:
    """`kg serve` as a process: a compile while it runs succeeds, its search then finds the new
    source, and the token is never in its output."""
    env = {**os.environ, "KG_TOKEN": TOKEN}
    server = subprocess.Popen([KG, "serve", "--kb", str(fresh.root), "--port", "0", "--readers", "2", "--embedder", "hashing"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert server.stderr is not None
        line = server.stderr.readline()
        url = re.search(r"at (http://\S+) ", line).group(1)  # type: ignore[union-attr]
        auth = {"Authorization": f"Bearer {TOKEN}"}
        assert request(url + "/api/search?q=ENIAC", auth).status == 200
        (fresh.raw / "zanzibar.md").write_text("# Zanzibar Engine\n\nThe Zanzibar Engine computed tide tables in 1931.\n",
                                              encoding="utf-8")
        compiled = subprocess.run([KG, "compile", "-q", "--kb", str(fresh.root)], capture_output=True, text=True, timeout=300)
        assert compiled.returncode == 0, compiled.stderr
        found = request(url + "/api/search?q=Zanzibar+tide", auth)
        assert found.status == 200, found.text
        hits = found.json()["hits"]
        assert any("Zanzibar" in h["text"] for h in hits)
        assert request(url + "/api/search?q=x", {"Authorization": "Bearer wrong"}).status == 401
    finally:
        server.terminate()
        out, rest = server.communicate(timeout=60)
    assert server.returncode == 0 and TOKEN not in line + out + rest and "GET /api/search" in out + rest
