"""Helpers for the `kg serve` tests: the app run by uvicorn in a thread on a free port, and plain
HTTP requests (urllib) that return the status instead of raising."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kg.kb import KnowledgeBase
from kg.serve.web.app import bind, build_app
from kg.serve.web.site import ServeOptions


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    def json(self) -> Any:
        return json.loads(self.body)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def request(url: str, headers: dict[str, str] | None = None, data: bytes | None = None, method: str | None = None,
            timeout: float = 60) -> Reply:
    req = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with _OPENER.open(req, timeout=timeout) as resp:
            return Reply(resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read())
    except urllib.error.HTTPError as exc:
        return Reply(exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read())


@contextlib.contextmanager
def served(kb: KnowledgeBase, **options: Any) -> Iterator[str]:
    """The app on a free loopback port, served by uvicorn in a thread; yields its base URL."""
    import uvicorn

    # the hashing embedder (the package's deterministic fake): vector search without loading MiniLM
    settings = ServeOptions(**{"port": 0, "readers": 2, "embedder": "hashing", **options})
    app = build_app(kb, settings)
    sock = bind(settings.host, 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started, "the test server did not start"
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1200,1000")


@contextlib.contextmanager
def headless_chromium(chromium: str, chromedriver: str) -> Iterator[Any]:
    """A Selenium driver of the OS's headless Chromium with its own throwaway profile, collecting
    the browser console (tests/test_serve_browser.py, benchmarks/serve.py)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="kg-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.binary_location = chromium
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait_for(driver: Any, css: str, seconds: float) -> list[Any]:
    """The elements matching `css`, waiting up to `seconds` for at least one."""
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + seconds
    while True:
        found = driver.find_elements(By.CSS_SELECTOR, css)
        if found or time.monotonic() > deadline:
            return found  # type: ignore[no-any-return]
        time.sleep(0.02)
