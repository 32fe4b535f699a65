"""Sources as people keep them: PDF, Word, PowerPoint, Excel, EPUB and saved web pages, converted
to markdown by maintained libraries (pdfminer.six for PDF, markitdown for the Office formats and
EPUB, trafilatura for the main text of a web page).

raw/ keeps the original file; its sha256 is the source's hash. The converted text is derived
data, cached by (sha256, converter, version) under .kg/converted/, so an unchanged file is never
converted twice and a converter upgrade converts again. Quotes and character spans refer to the
converted text. A PDF's pages are kept apart by form feeds (pdfminer's page breaks), so a span's
page is the number of form feeds before it, plus one.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import zipfile
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from kg.errors import SourceError

# suffix -> format; the formats a converter turns into markdown
CONVERTED_SUFFIXES = {".pdf": "pdf", ".docx": "docx", ".pptx": "pptx", ".xlsx": "xlsx", ".epub": "epub",
                      ".html": "html", ".htm": "html"}
ZIP_FORMATS = {"docx", "pptx", "xlsx", "epub"}  # zip archives: checked for zip bombs first
MAX_EXPANDED_BYTES = 256 * 1024 * 1024  # what a zip-based document may expand to
MAX_RATIO = 200  # and how much more than its compressed size any member may be
PAGE_BREAK = "\f"
NORMALIZED = 1  # the version of `normalize`, part of the cache key: a change converts again
_SLIDE = re.compile(r"^<!-- Slide number: (\d+) -->$", re.MULTILINE)
_HEADING_THEN_TEXT = re.compile(r"^(#{1,6} [^\n]*)\n(?=[^\n])", re.MULTILINE)


@dataclass(frozen=True)
class Converted:
    text: str
    converter: str  # "pdfminer.six 20260107", "markitdown 0.1.9", "trafilatura 2.3.1"
    format: str


def converter_of(fmt: str) -> str:
    """The converter (name and version) that turns this format into markdown."""
    package = {"html": "trafilatura", "pdf": "pdfminer.six"}.get(fmt, "markitdown")
    try:
        return f"{package} {version(package)}"
    except PackageNotFoundError:
        raise SourceError(f"Converting {fmt.upper()} needs the {package} package, which is not installed: "
                          f"pip install {package}") from None


def page_of(text: str, offset: int) -> int:
    """The 1-based page of a character offset in a converted PDF's text."""
    return text.count(PAGE_BREAK, 0, offset) + 1


def convert(rel: str, data: bytes, cache: Path | None = None) -> Converted:
    """The markdown text of a document (from the cache when this file was converted by this
    converter before). Raises SourceError with what went wrong and what to do."""
    fmt = CONVERTED_SUFFIXES[Path(rel).suffix.lower()]
    converter = converter_of(fmt)
    digest = hashlib.sha256(data).hexdigest()
    cached = cache / digest[:2] / f"{digest}.{fmt}.{converter.replace(' ', '-')}.n{NORMALIZED}.md" if cache else None
    if cached is not None and cached.is_file():
        return Converted(cached.read_text(encoding="utf-8"), converter, fmt)
    if fmt in ZIP_FORMATS:
        check_zip(rel, data)
    text = _html(rel, data) if fmt == "html" else _pdf(rel, data) if fmt == "pdf" else _markitdown(rel, data, fmt)
    text = normalize(text.replace("\r\n", "\n").replace("\x00", ""))
    if not text.replace(PAGE_BREAK, "").strip():
        if fmt == "pdf":
            raise SourceError(f"{rel}: the PDF has no text layer (a scan?). OCR is not configured in kg: run the file "
                              "through an OCR tool (e.g. ocrmypdf) and put the result in raw/ instead.")
        raise SourceError(f"{rel}: the {fmt.upper()} converted to no text. Check the file opens and holds text.")
    if cached is not None:
        try:
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_name(f".{cached.name}.{os.getpid()}.tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(cached)
        except OSError:
            pass  # a cache that cannot be written costs a conversion next time, nothing else
    return Converted(text, converter, fmt)


def normalize(markdown: str) -> str:
    """Converter output as kg's markdown reader expects it: a slide's number comment becomes a
    "## Slide N" heading, and a heading line is followed by a blank line (converters often put
    the text right under it, where it would be read as part of the heading)."""
    return _HEADING_THEN_TEXT.sub(r"\1\n\n", _SLIDE.sub(r"## Slide \1", markdown))


def check_zip(rel: str, data: bytes) -> None:
    """Refuse a zip-based document that is not a zip, or that would expand past the limits."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise SourceError(f"{rel}: not a valid document (the zip container cannot be read: {exc}). "
                          "Open and save it again, or remove it from raw/.") from None
    total = sum(m.file_size for m in members)
    worst = max((m.file_size / max(1, m.compress_size) for m in members), default=0.0)
    if total > MAX_EXPANDED_BYTES or (worst > MAX_RATIO and total > 16 * 1024 * 1024):
        raise SourceError(f"{rel}: refused: its zip container expands to {total:,} bytes (at most "
                          f"{MAX_EXPANDED_BYTES:,}; compression ratio up to {worst:.0f}x). A document that large is "
                          "likely a zip bomb; if it is genuine, convert it to markdown yourself.")


def _pdf(rel: str, data: bytes) -> str:
    """A PDF's text by pdfminer.six, page breaks kept as form feeds. (markitdown's PDF converter
    runs pdfplumber's form detection first: on a real spec it glued 20% of the words together and
    dropped the page breaks; pdfminer alone, which it falls back to, glued 0.6%.)"""
    from pdfminer.high_level import extract_text

    try:
        return str(extract_text(io.BytesIO(data)))
    except Exception as exc:
        raise SourceError(f"{rel}: could not convert the PDF ({_reason(exc)}). If it opens elsewhere, save it "
                          "again (or print it to a new PDF); the other sources were compiled.") from None


_CONVERTERS = {"docx": "DocxConverter", "pptx": "PptxConverter", "xlsx": "XlsxConverter",
               "epub": "EpubConverter"}


def _markitdown(rel: str, data: bytes, fmt: str) -> str:
    """markitdown's converter for this format alone (MarkItDown.convert would fall back to reading
    a broken PDF as plain text)."""
    from markitdown import StreamInfo, converters

    converter = getattr(converters, _CONVERTERS[fmt])()
    try:
        result = converter.convert(io.BytesIO(data), StreamInfo(extension=f".{fmt}"))
    except Exception as exc:  # the libraries raise many kinds; say which file and why
        raise SourceError(f"{rel}: could not convert the {fmt.upper()} ({_reason(exc)}). If it opens elsewhere, save "
                          "it again (or export it to PDF or markdown); the other sources were compiled.") from None
    return result.markdown or ""


def _reason(exc: BaseException) -> str:
    seen: BaseException | None = exc
    while seen is not None:
        name = type(seen).__name__
        if "Encrypt" in name or "Password" in name:
            return "it is encrypted: remove the password and add it again"
        seen = seen.__cause__ or seen.__context__
        if seen is exc:
            break
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return (f"{type(exc).__name__}: {text}" if text else f"{type(exc).__name__}: the file is damaged")[:200]


def _html(rel: str, data: bytes) -> str:
    """The main text of a web page as markdown (trafilatura: menus, footers and ads left out);
    the page's title as its first heading."""
    import trafilatura

    try:
        text = trafilatura.extract(data, output_format="markdown", include_comments=False, include_tables=True,
                                   include_links=False, with_metadata=False, deduplicate=False,
                                   favor_precision=True)  # no menus or sidebars, even around a short article
        meta = trafilatura.extract_metadata(data)
    except Exception as exc:
        raise SourceError(f"{rel}: could not read the web page ({_reason(exc)}).") from None
    title = " ".join((meta.title or "").split()) if meta is not None else ""
    body = text or ""
    return f"# {title}\n\n{body}\n" if title and not body.lstrip().startswith("#") else body
