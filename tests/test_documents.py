"""Issue 25: PDF, Word, PowerPoint, Excel and web pages as sources, converted by maintained
libraries; and `kg ingest URL` against a loopback server."""

from __future__ import annotations

import http.server
import io
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg import api
from kg.cli import app
from kg.compile.convert import convert, page_of
from kg.errors import SourceError
from kg.kb import KnowledgeBase, init
from tests.conftest import tree_digest
from tests.documents import make_docx, make_html, make_pdf, make_pptx, make_xlsx

runner = CliRunner()
PAPER = [["Abstract", "ENIAC was the first general-purpose electronic computer.",
          "It weighed about 27 tonnes and used 17,468 vacuum tubes."],
         ["Results", "John Mauchly and J. Presper Eckert designed ENIAC at the University of Pennsylvania in 1945."]]


def documents(raw: Path) -> None:
    (raw / "paper.pdf").write_bytes(make_pdf(PAPER))
    (raw / "hopper.docx").write_bytes(make_docx([("Heading1", "Grace Hopper"), ("", "Grace Hopper was an American computer scientist."),
                                                 ("", "She wrote the A-0 compiler in 1952.")]))
    (raw / "transistor.pptx").write_bytes(make_pptx([("The transistor", ["The transistor was invented at Bell Labs in 1947.",
                                                                         "Transistors replaced vacuum tubes in computers by 1960."])]))
    (raw / "machines.xlsx").write_bytes(make_xlsx([["Machine", "Year"], ["ENIAC", 1945], ["UNIVAC I", 1951]]))
    (raw / "eniac.html").write_bytes(make_html("ENIAC", [
        "ENIAC was the first programmable, electronic, general-purpose digital computer, completed in 1945.",
        "It was built at the University of Pennsylvania by John Mauchly and J. Presper Eckert."]))


@pytest.fixture
def docs_kb(tmp_path: Path) -> KnowledgeBase:
    kb, _ = init(tmp_path / "kb")
    documents(kb.raw)
    return kb


def test_documents_compile_into_source_pages_with_verified_claims(docs_kb: KnowledgeBase) -> None:
    (docs_kb.raw / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a PDF")
    before = tree_digest(docs_kb.raw)
    report, _ = api.compile_kb(docs_kb)
    assert report.compiled == 5 and set(report.failed) == {"broken.pdf"}
    assert "could not convert the PDF" in report.failed["broken.pdf"]
    assert tree_digest(docs_kb.raw) == before  # raw/ is read, never written
    for page, kind, words in (("paper", "pdf (pdfminer.six", "27 tonnes"), ("hopper", "docx (markitdown", "A-0 compiler"),
                              ("transistor", "pptx (markitdown", "Bell Labs"), ("machines", "xlsx (markitdown", "1951"),
                              ("eniac", "html (trafilatura", "general-purpose digital computer")):
        text = (docs_kb.wiki / f"sources/{page}.md").read_text()
        assert f'kind: "{kind}' in text and "Converted to markdown by" in text and words in text, page
        assert "^c" in text, page  # claims with block ids
    assert "Menu item" not in (docs_kb.wiki / "sources/eniac.md").read_text()  # the page's menus are not claims
    for row in api.cypher(docs_kb, "MATCH (c:Claim)-[e:EXTRACTED_FROM]->(s:Source) RETURN c.id AS id, s.path AS path"):
        checked = api.claim_show(docs_kb, row["id"])
        assert all(ev.state == "verified" for ev in checked.evidence), row
    mauchly = next(r["id"] for r in api.cypher(docs_kb, "MATCH (c:Claim)-[:EXTRACTED_FROM]->(s:Source {path: 'paper.pdf'}) "
                                                        "WHERE c.text CONTAINS 'Mauchly' RETURN c.id AS id"))
    assert api.claim_show(docs_kb, mauchly).evidence[0].page == 2  # a PDF citation gives its page
    shown = runner.invoke(app, ["claim", "show", mauchly, "--kb", str(docs_kb.root)])
    assert "(page 2)" in shown.output


def test_conversions_are_cached_and_deterministic(docs_kb: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api.compile_kb(docs_kb)
    cached = sorted(p.name for p in docs_kb.converted_path.rglob("*.md"))
    assert len(cached) == 5 and any(".pdf.pdfminer.six-" in name for name in cached)
    import kg.compile.convert as module

    def no_conversion(*args: object) -> str:
        raise AssertionError("converted again")

    monkeypatch.setattr(module, "_markitdown", no_conversion)
    monkeypatch.setattr(module, "_html", no_conversion)
    monkeypatch.setattr(module, "_pdf", no_conversion)
    (docs_kb.raw / "hopper.docx").touch()
    api.compile_kb(docs_kb, only=["hopper.docx"])  # unchanged bytes: from the cache
    monkeypatch.undo()
    twin, _ = init(tmp_path / "twin")
    for path in sorted(docs_kb.raw.iterdir(), reverse=True):  # the same bytes, arriving in another order
        (twin.raw / path.name).write_bytes(path.read_bytes())
    api.compile_kb(twin)
    assert ({p: d for p, d in tree_digest(twin.wiki).items() if not p.startswith("log")}
            == {p: d for p, d in tree_digest(docs_kb.wiki).items() if not p.startswith("log")})


def _zip_with(member: str, data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, data)
    return out.getvalue()


def test_bad_documents_get_a_clear_message_each() -> None:
    cases = {
        "secret.pdf": (make_pdf([["A secret sentence."]], encrypt=True), "encrypted"),
        "scan.pdf": (make_pdf([[]]), "OCR is not configured"),
        "cut.pdf": (make_pdf(PAPER)[:300], "could not convert the PDF"),
        "notzip.docx": (b"PK but not a zip at all", "not a valid document"),
        "bomb.docx": (_zip_with("word/document.xml", b"\0" * (300 * 1024 * 1024)), "zip bomb"),
        "empty.pptx": (make_pptx([]), "converted to no text"),
    }
    for name, (data, message) in cases.items():
        with pytest.raises(SourceError, match=message):
            convert(name, data)


def test_page_numbers_follow_the_form_feeds() -> None:
    text = convert("paper.pdf", make_pdf(PAPER)).text
    assert page_of(text, text.index("ENIAC was")) == 1 and page_of(text, text.index("John Mauchly")) == 2


@pytest.fixture
def web() -> Iterator[str]:
    pages = {"/wiki/ENIAC": ("text/html; charset=utf-8", make_html("ENIAC", [
                 "ENIAC was the first programmable, electronic, general-purpose digital computer, completed in 1945.",
                 "It weighed about 27 tonnes."])),
             "/paper.pdf": ("application/pdf", make_pdf(PAPER)),
             "/image.png": ("image/png", b"\x89PNG....")}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path not in pages:
                self.send_error(404)
                return
            kind, body = pages[self.path]
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_ingest_url_fetches_once_and_compiles(tmp_path: Path, web: str) -> None:
    kb, _ = init(tmp_path / "kb")
    result = runner.invoke(app, ["ingest", f"{web}/wiki/ENIAC", f"{web}/paper.pdf", "--kb", str(kb.root)])
    assert result.exit_code == 0, result.output
    saved = sorted(p.relative_to(kb.raw).as_posix() for p in kb.raw.rglob("*") if p.is_file())
    html = next(p for p in saved if p.endswith(".html"))
    assert html.startswith("web/") and f"{html}.url.json" in saved and any(p.endswith(".pdf") for p in saved)
    assert f'"url": "{web}/wiki/ENIAC"' in (kb.raw / f"{html}.url.json").read_text()
    page = (kb.wiki / f"sources/{Path(html).with_suffix('').as_posix().replace('/', '-')}.md").read_text()
    assert "27 tonnes" in page and "html (trafilatura" in page
    again = runner.invoke(app, ["ingest", f"{web}/wiki/ENIAC", "--kb", str(kb.root), "--no-compile"])
    assert again.exit_code == 0 and "already there" in again.output
    for url, message in ((f"{web}/missing", "404"), (f"{web}/image.png", "does not read image/png")):
        bad = runner.invoke(app, ["ingest", url, "--kb", str(kb.root), "--no-compile"])
        assert bad.exit_code != 0 and message in bad.output, bad.output
