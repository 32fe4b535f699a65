"""Who gets in: a host other than loopback needs a token; with a token every request (pages, API,
/mcp) carries `Authorization: Bearer <token>` or the session cookie the login page sets, compared in
constant time. The token never travels in a URL (the login form posts it), so no access log shows it.

The session cookie holds an HMAC of the token, not the token: changing the token signs everyone out.
Without a token (loopback only) requests must name a loopback host, so a web page elsewhere cannot
reach the server through a DNS name that resolves to 127.0.0.1 (DNS rebinding). /mcp is checked by
the MCP SDK's own transport security instead (`mcp_security`: Host, and Origin too).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from kg.errors import ConfigError

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings

SESSION_COOKIE = "kg_session"
SESSION_SECONDS = 30 * 24 * 3600
MIN_TOKEN_CHARS = 16
OPEN_PATHS = ("/login", "/static/")  # the login form and the package's own CSS and scripts
MAX_LOGIN_BODY = 4096
LOOPBACK_NAMES = ("localhost",)
MCP_PATH = "/mcp"  # its Host and Origin are checked by the MCP SDK (mcp_security)
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                                 b"img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
                                 b"form-action 'self'"),
]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def is_loopback(host: str) -> bool:
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, token: str | None) -> None:
    """ConfigError (exit 2) for a server others could reach without a token, or a token too short."""
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(f"The token is {len(token)} characters long; use at least {MIN_TOKEN_CHARS} (make one with "
                          "`python -c \"import secrets; print(secrets.token_urlsafe(32))\"`).")
    if token is None and not is_loopback(host):
        raise ConfigError(f"--host {host} would serve the knowledge base to the network without a token: anyone who "
                          "reaches this machine could read it. Give one with KG_TOKEN (or --token), or serve on "
                          "127.0.0.1 (the default).")


def mcp_security(host: str) -> TransportSecuritySettings | None:
    """The MCP SDK's DNS-rebinding check for /mcp on a loopback server: the Host a client reaches it
    by, and the Origin of a browser page, must be loopback names. The SDK makes these settings itself
    for 127.0.0.1, localhost and ::1; given here for any loopback address kg may bind."""
    from mcp.server.transport_security import TransportSecuritySettings

    if not is_loopback(host):
        return None  # served to the network: a token is required (check_exposure), any Host is fine
    bound = f"[{host.strip('[]')}]" if ":" in host else host
    names = sorted({"127.0.0.1", "localhost", "[::1]", bound})
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=[f"{n}:*" for n in names],
                                     allowed_origins=[f"http://{n}:*" for n in names])


def session_value(token: str) -> str:
    return hmac.new(token.encode("utf-8"), b"kg serve session v1", hashlib.sha256).hexdigest()


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value).decode("latin-1")
    return ""


def _cookie(scope: Scope, name: str) -> str:
    for part in _header(scope, b"cookie").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return ""


def _is_mcp(path: str) -> bool:
    return path == MCP_PATH or path.startswith(MCP_PATH + "/")


def _host_name(scope: Scope) -> str:
    host = _header(scope, b"host")
    return host[: host.index("]") + 1] if host.startswith("[") else host.rsplit(":", 1)[0] if ":" in host else host


class Gate:
    """ASGI middleware: the token (or the session cookie), the loopback Host check, security headers."""

    def __init__(self, app: App, token: str | None, site: str = "kg") -> None:
        self.app = app
        self.site = site
        self.token = token.encode("utf-8") if token else None
        self.session = session_value(token).encode("ascii") if token else None

    def allowed(self, scope: Scope) -> bool:
        if self.token is None or self.session is None:
            return True
        scheme, _, given = _header(scope, b"authorization").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode("utf-8"), self.token):
            return True
        return hmac.compare_digest(_cookie(scope, SESSION_COOKIE).encode("utf-8"), self.session)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # kg's own Host check rather than Starlette's TrustedHostMiddleware, which does not do the same:
        # it answers 400 "Invalid host header", where a misdirected request is 421 (as the MCP SDK
        # answers) with a message saying where the server answers; it takes a list of names, where
        # any loopback address is one (127.0.0.0/8, ::1 however written); and it cannot be off for a
        # server with a token. /mcp is left to the MCP SDK, which checks it already (mcp_security).
        if self.token is None and not _is_mcp(scope["path"]) and not is_loopback(_host_name(scope)):
            await _plain(send, 421, "This server answers on a loopback address only (127.0.0.1 or localhost).")
            return
        if not self.allowed(scope) and not scope["path"].startswith(OPEN_PATHS):
            await _unauthorized(scope, send, self.site)
            return

        async def with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {key.lower() for key, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []), *(h for h in SECURITY_HEADERS if h[0] not in present)]
            await send(message)

        await self.app(scope, receive, with_headers)


async def _plain(send: Send, status: int, text: str, headers: list[tuple[bytes, bytes]] | None = None,
                 content_type: bytes = b"text/plain; charset=utf-8") -> None:
    body = text.encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
                            *(headers or []), *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})


async def _unauthorized(scope: Scope, send: Send, site: str) -> None:
    """401: the login page for a browser (the page it asked for comes after), JSON for a program."""
    challenge = [(b"www-authenticate", b'Bearer realm="kg"'), (b"cache-control", b"no-store")]
    if "text/html" in _header(scope, b"accept") and scope["method"] == "GET":
        from kg.serve.web.render import page

        wanted = scope["path"] + ("?" + scope["query_string"].decode("latin-1") if scope.get("query_string") else "")
        await _plain(send, 401, page("login.html", site=site, next=safe_next(wanted), failed=False), challenge,
                     b"text/html; charset=utf-8")
        return
    message = {"error": "This knowledge base needs its token: send `Authorization: Bearer <token>`, or sign in at /login."}
    await _plain(send, 401, json.dumps(message), challenge, b"application/json")


def safe_next(path: str) -> str:
    """A path on this server to go to after signing in (never another site)."""
    return path if path.startswith("/") and not path.startswith("//") and "\\" not in path else "/"


def login_form(body: bytes) -> tuple[str, str]:
    """(token, next) from the login form's urlencoded body."""
    fields = parse_qs(body[:MAX_LOGIN_BODY].decode("utf-8", errors="replace"), max_num_fields=4)
    return fields.get("token", [""])[0], safe_next(fields.get("next", ["/"])[0])
