"""`kg ingest URL`: fetch a web page (or a PDF, or text) once and keep the original under
raw/web/, with a sidecar <file>.url.json saying where and when it came from. It is compiled like
any saved page from then on; kg never fetches it again by itself."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from kg.compile.sources import sha256_bytes
from kg.errors import SourceError
from kg.names import slugify

FETCH_TIMEOUT = 30.0
TYPES = {"text/html": ".html", "application/xhtml+xml": ".html", "application/pdf": ".pdf", "text/plain": ".txt",
         "text/markdown": ".md"}


def is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def fetch_into(raw: Path, url: str, max_bytes: int) -> tuple[str, bool]:
    """Fetch `url` into raw/web/; returns (path in raw/, whether it was new). An existing file of
    the same URL with other bytes is not overwritten: SourceError says how to refresh it."""
    import httpx2 as httpx  # the HTTP client anthropic's SDK depends on

    try:
        client = httpx.Client(follow_redirects=True, timeout=FETCH_TIMEOUT,
                              headers={"User-Agent": "kg (knowledge compiler; one fetch per ingest)"})
        with client, client.stream("GET", url) as response:
            if response.status_code >= 400:
                raise SourceError(f"{url}: the server answered {response.status_code} {response.reason_phrase}. "
                                  "Check the address, or save the page from a browser and ingest the file.")
            content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            suffix = TYPES.get(content_type)
            if suffix is None:
                raise SourceError(f"{url}: kg does not read {content_type or 'untyped'} content. Download it "
                                  "and convert it yourself, or ingest a page that links to it.")
            data = bytearray()
            for part in response.iter_bytes():
                data += part
                if len(data) > max_bytes:
                    raise SourceError(f"{url}: larger than max_source_bytes ({max_bytes:,}); raise it in kg.toml "
                                      "[compile] or save a smaller document.")
            final_url = str(response.url)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise SourceError(f"{url}: could not fetch it ({type(exc).__name__}: {exc}). Check the address and the "
                          "network, or save the page from a browser and ingest the file.") from None
    parts = urlsplit(url)
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:8]  # distinct URLs, distinct files
    stem = f"{slugify(f'{parts.netloc} {parts.path} {parts.query}'.strip(), max_length=70)}-{digest}"
    target = raw / "web" / f"{stem}{'' if stem.endswith(suffix) else suffix}"
    rel = target.relative_to(raw).as_posix()
    if target.exists():
        if target.read_bytes() == bytes(data):
            return rel, False
        raise SourceError(f"raw/{rel} already holds an earlier fetch of {url} with other content; kg never "
                          "overwrites raw/. Delete it (and its .url.json) to fetch the page again.")
    target.parent.mkdir(parents=True, exist_ok=True)
    sidecar = {"url": url, "final_url": final_url, "fetched_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
               "content_type": content_type, "sha256": sha256_bytes(bytes(data))}
    target.with_name(target.name + ".url.json").write_text(json.dumps(sidecar, indent=2) + "\n", encoding="utf-8")
    target.write_bytes(bytes(data))
    return rel, True
