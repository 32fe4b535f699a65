"""Small documents made here, offline, for the conversion tests and benchmarks/convert.py: a PDF
written by hand (text pages, Helvetica), a DOCX (its XML parts zipped), a PPTX (python-pptx), an
XLSX (openpyxl) and a saved web page with menus around its article."""

from __future__ import annotations

import io
import zipfile


def _pdf_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[str]], encrypt: bool = False) -> bytes:
    """A PDF with one text line per entry on each page (or, with no lines, an empty page: a "scan")."""
    objects: list[bytes] = []
    kids = []
    n_pages = len(pages)
    for i, lines in enumerate(pages):
        page_no, content_no = 4 + 2 * i, 5 + 2 * i
        kids.append(f"{page_no} 0 R")
        body = "BT /F1 11 Tf 14 TL 56 780 Td " + " ".join(f"({_pdf_string(line)}) Tj T*" for line in lines) + " ET"
        stream = body.encode("latin-1", "replace") if lines else b""
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> "
                       f"/Contents {content_no} 0 R >>".encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    head = [b"<< /Type /Catalog /Pages 2 0 R >>",
            f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {n_pages} >>".encode(),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"]
    all_objects = head + objects
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, obj in enumerate(all_objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + obj + b"\nendobj\n"
    trailer_extra = ""
    if encrypt:  # a Standard security handler entry with made-up keys: readers ask for a password
        offsets.append(len(out))
        number = len(all_objects) + 1
        out += (f"{number} 0 obj\n<< /Filter /Standard /V 2 /R 3 /Length 128 /P -44 /O <{'00' * 32}> "
                f"/U <{'11' * 32}> >>\nendobj\n").encode()
        trailer_extra = f" /Encrypt {number} 0 R /ID [<{'ab' * 16}> <{'ab' * 16}>]"
    xref = len(out)
    out += f"xref\n0 {len(offsets) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(offsets) + 1} /Root 1 0 R{trailer_extra} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def make_docx(paragraphs: list[tuple[str, str]]) -> bytes:
    """A Word document: (style, text) paragraphs, style "Heading1" or "" for body text."""
    from xml.sax.saxutils import escape

    def styled(style: str) -> str:
        return f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""

    body = "".join(f'<w:p>{styled(style)}<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r></w:p>'
                   for style, text in paragraphs)
    parts = {
        "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
        '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>',
        "_rels/.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
        "word/_rels/document.xml.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
        "word/styles.xml": '<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>',
        "word/document.xml": '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        f"<w:body>{body}</w:body></w:document>",
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts.items():
            archive.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), text)
    return out.getvalue()


def make_pptx(slides: list[tuple[str, list[str]]]) -> bytes:
    """A slide deck: (title, bullet lines) per slide."""
    from pptx import Presentation

    deck = Presentation()
    for title, bullets in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        frame = slide.placeholders[1].text_frame
        frame.text = bullets[0] if bullets else ""
        for line in bullets[1:]:
            frame.add_paragraph().text = line
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def make_xlsx(rows: list[list[object]]) -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def make_html(title: str, paragraphs: list[str]) -> bytes:
    """A saved encyclopedia-style page: navigation, a sidebar and a footer around the article."""
    menu = "".join(f'<li><a href="/wiki/Item_{i}">Menu item {i}</a></li>' for i in range(12))
    article = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title} - Wikipedia</title></head><body>"
            f"<header><nav><ul>{menu}</ul></nav><form><input name=\"search\" placeholder=\"Search Wikipedia\"></form></header>"
            f"<div id=\"mw-panel\"><ul><li>Main page</li><li>Contents</li><li>Random article</li><li>Donate</li></ul></div>"
            f"<main id=\"content\"><h1 id=\"firstHeading\">{title}</h1><div id=\"bodyContent\"><div class=\"mw-parser-output\">"
            f"{article}</div></div></main>"
            f"<footer><p>This page was last edited on 1 January 2026. Text is available under the Creative Commons "
            f"Attribution-ShareAlike License; additional terms may apply.</p><ul><li>Privacy policy</li><li>About Wikipedia</li>"
            f"</ul></footer></body></html>").encode()
