"""Loopback fake LLM servers for the tests: Anthropic Messages (+ Message Batches) and OpenAI
chat completions, on 127.0.0.1 with an OS-chosen port, driven by the real SDK clients.

Every request is recorded (path, headers, JSON body). Replies come from a script (a list of
`Reply` consumed in order) and, when the script is empty, from `responder(body)`, which by
default runs kg's offline heuristic extractor on the chunk found between <chunk> tags, so a
reply is realistic and its quotes are verbatim. Questions of the LLM judges (numbered
`<pair number="n">` blocks, kg/llm/judges.py) get `judge_reply`: "compatible" / "different" for
every pair, unless a test passes its own verdict function.

The OpenAI fake knows the ways a request holds a reply to a schema (`structured_mode`):
`response_format` json_schema, llama-cpp-python's json_object + schema, a forced tool call (the
reply then comes as the tool call's arguments) and bare JSON mode. `accepts` lists the ones it
takes; any other is refused as its server would (llama-cpp-python: HTTP 422 for json_schema).
`Reply.finish_reason` ("length") fakes a reply cut off at the token limit.

Token accounting (what the fake reports as usage): ceil(characters / 4) of the JSON-serialised
request parts the model would read: `system`, `messages` and `tools` (Anthropic) or `messages`
and `response_format` (OpenAI); output tokens are ceil(characters / 4) of the reply's JSON.
For Anthropic, the prefix up to a system block marked cache_control (tools + system) is
reported as cache write the first time it is seen and as cache read afterwards (input_tokens
then counts only the rest). The real API's minimum cacheable prefix is not modelled.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from kg.extract import ExtractionContext
from kg.extract.heuristic import HeuristicExtractor
from kg.models import Chunk


def approx_tokens(value: Any) -> int:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return math.ceil(len(text) / 4) if text else 0


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict -> JSON; str/bytes sent raw; None -> the responder's reply
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    content: Any = None  # for 200 replies: the tool input (Anthropic) or message text (OpenAI)
    finish_reason: str = ""  # OpenAI: "length" for a reply cut off at max_tokens ("" -> "stop" / "tool_calls")


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


_CHUNK = re.compile(r"<chunk>\n(.*)\n</chunk>", re.S)
_TITLE = re.compile(r"^Source title: (.*)$", re.M)


def user_text(body: dict[str, Any]) -> str:
    for message in body.get("messages", []):
        if message.get("role") == "user":
            content = message["content"]
            if isinstance(content, list):
                return "".join(part.get("text", "") for part in content if isinstance(part, dict))
            return str(content)
    return ""


_PAIR = re.compile(r'<pair number="(\d+)">\n(.*?)\n</pair>', re.S)


def is_judge_request(body: dict[str, Any]) -> bool:
    return bool(_PAIR.search(user_text(body)))


def judge_pairs(body: dict[str, Any]) -> list[tuple[int, str]]:
    """(number, text) of each pair a judge request asks about."""
    return [(int(n), text) for n, text in _PAIR.findall(user_text(body))]


def judge_reply(body: dict[str, Any], verdict: Callable[[str], str] | None = None) -> dict[str, Any]:
    """One verdict per pair asked: `verdict(pair text)`, by default the harmless answer."""
    entity = "same entity" in user_text(body)
    default = "different" if entity else "compatible"
    return {"verdicts": [{"pair": n, "verdict": verdict(text) if verdict else default, "reason": "fake verdict",
                          "confidence": 0.9} for n, text in judge_pairs(body)]}


def heuristic_reply(body: dict[str, Any]) -> dict[str, Any]:
    """What a good model would return: the offline extractor's result for the chunk."""
    if is_judge_request(body):
        return judge_reply(body)
    text = user_text(body)
    chunk = _CHUNK.search(text)
    title = _TITLE.search(text)
    chunk_text = chunk.group(1) if chunk else ""
    ctx = ExtractionContext("fake.md", title.group(1) if title else "")
    result = HeuristicExtractor().extract_chunk(Chunk("fake.md", 0, chunk_text, 0, len(chunk_text)), ctx)
    return result.model_dump(mode="json", exclude_defaults=True)


class FakeServer:
    kind = "base"

    def __init__(self, responder: Callable[[dict[str, Any]], Any] = heuristic_reply) -> None:
        self.responder = responder
        self.script: list[Reply] = []
        self.requests: list[Recorded] = []
        self.input_tokens = 0
        self.output_tokens = 0
        self.cache_read_tokens = 0
        self.cache_write_tokens = 0
        self.lock = threading.Lock()
        #: rec -> Reply to force one (e.g. fail every request about one source), else None
        self.override: Callable[[Recorded], Reply | None] | None = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                rec = Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with server.lock:
                    server.requests.append(rec)
                    scripted = server.script.pop(0) if server.script and self._scripted(rec) else None
                if scripted is None and server.override is not None and self._scripted(rec):
                    scripted = server.override(rec)
                status, payload, headers = server.route(rec, scripted)
                if scripted and scripted.delay:
                    time.sleep(scripted.delay)
                data = payload if isinstance(payload, bytes) else (
                    payload.encode() if isinstance(payload, str) else json.dumps(payload).encode())
                try:
                    self.send_response(status)
                    ctype = headers.pop("content-type", "application/json")
                    self.send_header("content-type", ctype)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _scripted(self, rec: Recorded) -> bool:
                return server.scripted_path(rec)

            do_GET = _handle
            do_POST = _handle

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> FakeServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def scripted_path(self, rec: Recorded) -> bool:
        return True

    def route(self, rec: Recorded, scripted: Reply | None) -> tuple[int, Any, dict[str, str]]:
        raise NotImplementedError

    def calls(self, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.path.split("?")[0] == path]

    def _error(self, reply: Reply) -> tuple[int, Any, dict[str, str]]:
        body = reply.body if reply.body is not None else {"type": "error", "error": {"type": "api_error", "message": f"fake {reply.status}"}}
        return reply.status, body, dict(reply.headers)


class FakeAnthropic(FakeServer):
    """POST /v1/messages, and the Message Batches API under /v1/messages/batches."""

    kind = "anthropic"

    def __init__(self, responder: Callable[[dict[str, Any]], Any] = heuristic_reply, polls_before_end: int = 1) -> None:
        super().__init__(responder)
        self.seen_systems: set[str] = set()
        self.batches: dict[str, dict[str, Any]] = {}
        self.polls_before_end = polls_before_end

    def scripted_path(self, rec: Recorded) -> bool:
        return rec.path.split("?")[0] == "/v1/messages"

    def message(self, body: dict[str, Any], content: Any, msg_id: str = "msg_fake", cut_off: bool = False) -> dict[str, Any]:
        if content is None:
            content = self.responder(body)
        # The cacheable prefix is tools + system (Anthropic's order: tools, system, messages),
        # up to and including the last system block marked cache_control.
        system = body.get("system")
        blocks = system if isinstance(system, list) else ([{"type": "text", "text": system}] if system else [])
        marked = [i for i, block in enumerate(blocks) if block.get("cache_control")]
        prefix = approx_tokens(body.get("tools", [])) if marked else 0
        prefix += sum(approx_tokens(b.get("text", "")) for b in blocks[: marked[-1] + 1]) if marked else 0
        uncached_system = sum(approx_tokens(b.get("text", "")) for b in blocks[(marked[-1] + 1) if marked else 0 :])
        rest = approx_tokens(body.get("messages", [])) + uncached_system + (0 if marked else approx_tokens(body.get("tools", [])))
        cached = prefix
        key = json.dumps([body.get("tools", []), blocks], sort_keys=True)
        with self.lock:
            hit = key in self.seen_systems
            self.seen_systems.add(key)
        read, write = (cached, 0) if hit else (0, cached)
        tools = body.get("tools") or []
        if tools:
            blocks_out: list[dict[str, Any]] = [{"type": "tool_use", "id": "toolu_fake", "name": tools[0]["name"], "input": content}]
        else:
            blocks_out = [{"type": "text", "text": json.dumps(content)}]
        out = approx_tokens(content)
        with self.lock:
            self.input_tokens += rest
            self.output_tokens += out
            self.cache_read_tokens += read
            self.cache_write_tokens += write
        return {
            "id": msg_id, "type": "message", "role": "assistant", "model": body.get("model", "fake"),
            "content": blocks_out, "stop_reason": "max_tokens" if cut_off else "tool_use" if tools else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": rest, "output_tokens": out, "cache_read_input_tokens": read,
                      "cache_creation_input_tokens": write},
        }

    def route(self, rec: Recorded, scripted: Reply | None) -> tuple[int, Any, dict[str, str]]:
        path = rec.path.split("?")[0]
        if path == "/v1/messages":
            reply = scripted or Reply()
            if reply.status != 200:
                return self._error(reply)
            if reply.body is not None:
                return 200, reply.body, dict(reply.headers)
            return 200, self.message(rec.body, reply.content, cut_off=reply.finish_reason == "length"), dict(reply.headers)
        if path == "/v1/messages/batches" and rec.method == "POST":
            batch_id = f"msgbatch_{len(self.batches) + 1:04d}"
            self.batches[batch_id] = {"requests": rec.body["requests"], "polls": 0}
            return 200, self._batch(batch_id, ended=False), {}
        match = re.fullmatch(r"/v1/messages/batches/([^/]+)(/results)?", path)
        if match and match.group(1) in self.batches:
            batch_id = match.group(1)
            state = self.batches[batch_id]
            if match.group(2):
                lines = []
                for req in state["requests"]:
                    message = self.message(req["params"], None, msg_id=f"msg_{req['custom_id']}")
                    lines.append(json.dumps({"custom_id": req["custom_id"], "result": {"type": "succeeded", "message": message}}))
                return 200, "\n".join(lines) + "\n", {"content-type": "application/binary"}
            state["polls"] += 1
            return 200, self._batch(batch_id, ended=state["polls"] > self.polls_before_end), {}
        return 404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {path}"}}, {}

    def _batch(self, batch_id: str, ended: bool) -> dict[str, Any]:
        n = len(self.batches[batch_id]["requests"])
        return {
            "id": batch_id, "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
            "request_counts": {"processing": 0 if ended else n, "succeeded": n if ended else 0, "errored": 0,
                               "canceled": 0, "expired": 0},
            "created_at": "2026-01-01T00:00:00Z", "expires_at": "2026-01-02T00:00:00Z",
            "ended_at": "2026-01-01T00:10:00Z" if ended else None,
            "results_url": f"{self.url}/v1/messages/batches/{batch_id}/results" if ended else None,
            "archived_at": None, "cancel_initiated_at": None,
        }


STRUCTURED_MODES = ("json_schema", "json_object+schema", "tools", "json")


def structured_mode(body: dict[str, Any]) -> str:
    """How an OpenAI chat request holds its reply to a schema: one of STRUCTURED_MODES, or "none"."""
    if body.get("tools") and isinstance(body.get("tool_choice"), dict):
        return "tools"
    response_format = body.get("response_format") or {}
    kind = response_format.get("type")
    if kind == "json_schema" and (response_format.get("json_schema") or {}).get("schema"):
        return "json_schema"
    if kind == "json_object":
        return "json_object+schema" if response_format.get("schema") else "json"
    return "none"


def request_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a request sends (in response_format or its forced tool), or None."""
    mode = structured_mode(body)
    if mode == "tools":
        return body["tools"][0]["function"]["parameters"]
    if mode == "json_schema":
        return body["response_format"]["json_schema"]["schema"]
    if mode == "json_object+schema":
        return body["response_format"]["schema"]
    return None


class FakeOpenAI(FakeServer):
    """POST /v1/chat/completions. `Reply.content` is the raw message text (fences, <think>...).

    `accepts`: the structured modes it takes (default all); a request in another is refused with
    `reject_status` (default 500 and a validation message naming response_format, as
    llama-cpp-python's server refuses json_schema). `thinking_switches`:
    False refuses a request carrying chat_template_kwargs or reasoning_effort (HTTP 400)."""

    kind = "openai"

    def __init__(self, responder: Callable[[dict[str, Any]], Any] = heuristic_reply,
                 accepts: tuple[str, ...] = STRUCTURED_MODES, reject_status: int = 500,
                 thinking_switches: bool = True) -> None:
        super().__init__(responder)
        self.accepts = accepts
        self.reject_status = reject_status
        self.thinking_switches = thinking_switches

    def chat_calls(self) -> list[Recorded]:
        return self.calls("/v1/chat/completions")

    def refusal(self, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]] | None:
        mode = structured_mode(body)
        if mode not in self.accepts:
            message = (f"1 validation error: {{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                       f"'msg': \"Input should be 'text' or 'json_object'\", 'input': '{mode}'}}")
            return self.reject_status, {"error": {"message": message, "type": "internal_server_error"}}, {}
        if not self.thinking_switches and ("chat_template_kwargs" in body or "reasoning_effort" in body):
            return 400, {"error": {"message": "Unrecognized request argument supplied: chat_template_kwargs",
                                   "type": "invalid_request_error"}}, {}
        return None

    def route(self, rec: Recorded, scripted: Reply | None) -> tuple[int, Any, dict[str, str]]:
        path = rec.path.split("?")[0]
        if path != "/v1/chat/completions":
            return 404, {"error": {"message": f"no route {path}", "type": "invalid_request_error"}}, {}
        if (refused := self.refusal(rec.body)) is not None:
            if scripted is not None:  # a refusal consumes no scripted reply
                with self.lock:
                    self.script.insert(0, scripted)
            return refused
        reply = scripted or Reply()
        if reply.status != 200:
            body = reply.body if reply.body is not None else {"error": {"message": f"fake {reply.status}", "type": "server_error"}}
            return reply.status, body, dict(reply.headers)
        if reply.body is not None:
            return 200, reply.body, dict(reply.headers)
        content = reply.content if reply.content is not None else json.dumps(self.responder(rec.body))
        if not isinstance(content, str):
            content = json.dumps(content)
        prompt = (approx_tokens(rec.body.get("messages", [])) + approx_tokens(rec.body.get("response_format") or "")
                  + approx_tokens(rec.body.get("tools") or ""))
        out = approx_tokens(content)
        with self.lock:
            self.input_tokens += prompt
            self.output_tokens += out
        message: dict[str, Any] = {"role": "assistant", "content": content}
        finish = reply.finish_reason or "stop"
        if structured_mode(rec.body) == "tools":
            name = rec.body["tool_choice"]["function"]["name"]
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_fake", "type": "function", "function": {"name": name, "arguments": content}}]}
            finish = reply.finish_reason or "tool_calls"
        return 200, {
            "id": "chatcmpl-fake", "object": "chat.completion", "created": 1_700_000_000,
            "model": rec.body.get("model", "fake"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out},
        }, dict(reply.headers)
