"""The web table's door: which requests reach the app at all (an ASGI middleware).

The server runs on the person's machine, and any web page the person visits can send requests to
it, so a request is trusted only when it comes from the table's own page:

- **Host.** The ``Host`` header must name the address the server is bound to, ``localhost``, or
  an IP address (:class:`Hosts`): a page on another name that a DNS trick points at this machine
  (DNS rebinding) is refused, so it can read no answer.
- **Changes come from the page.** A request that changes something (``POST``, ``DELETE``) must
  carry the server's secret in the ``X-Card-Envs-Token`` header: the page is served with it, and
  another page can neither read it nor send a custom header without the browser asking first (a
  question this server never answers yes to). Its ``Origin``, when the browser sends one, must be
  the page's own, and its body, if it has one, ``application/json`` (what a plain form or a
  ``no-cors`` request cannot send).
- **An access token off this machine.** A server bound to an address other people can reach
  (``--host 0.0.0.0``) also needs an access token on every request: the URL it prints
  (``/?token=...``, which leaves a cookie for this site only) or ``Authorization: Bearer ...``.
- **Size.** A body larger than :data:`card_envs.web.limits.MAX_BODY` is refused from its
  ``Content-Length`` before it is read, and while it streams in if it has none.
- **Headers on every answer:** the page may not be framed (``X-Frame-Options: DENY``, CSP
  ``frame-ancestors 'none'``), answers are not sniffed as another type (``nosniff``), the page
  loads scripts, styles and connections from this server only, and no answer is cached.

A refusal is a JSON ``{"error": one line}`` with 403 (401 without the access token, 413 for a
body too large); the app never sees the request, so nothing changes.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import socket
from typing import Any, Iterable
from urllib.parse import parse_qs, urlsplit

from card_envs.web.limits import MAX_BODY

TOKEN_HEADER = "x-card-envs-token"
ACCESS_COOKIE = "card_envs_access"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("0.0.0.0", "::", "")
SAFE_METHODS = ("GET", "HEAD")
SECURITY_HEADERS = [
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy",
     b"default-src 'self'; img-src 'self' data: blob:; script-src 'self'; style-src 'self'; connect-src 'self'; "
     b"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a bind address) is reachable from this machine only."""
    if host in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Hosts:
    """The names a request's ``Host`` header may give: ``localhost``, any IP address (a DNS
    rebinding page always sends a name, never an address), the address the server is bound to,
    ``extra`` names (``--allow-host``) and, for a server bound to every interface, this machine's
    own host names."""

    def __init__(self, bound: str = "127.0.0.1", extra: Iterable[str] = ()):
        names = {"localhost", bound.strip("[]").lower()} | {h.strip().lower() for h in extra if h.strip()}
        if bound in WILDCARDS:
            for name in (socket.gethostname(), socket.getfqdn()):
                if name:
                    names.add(name.lower())
        self.names = frozenset(n for n in names if n)

    def allows(self, host_header: str) -> bool:
        try:
            name = urlsplit("//" + host_header).hostname
        except ValueError:
            return False
        if not name:
            return False
        if name in self.names:
            return True
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return False


class Guard:
    """The middleware (see the module docstring). ``secret``: the page's secret for requests that
    change something; ``access_token``: required on every request where given."""

    def __init__(self, app: Any, *, secret: str, hosts: Hosts, access_token: str | None = None,
                 max_body: int = MAX_BODY):
        self.app = app
        self.secret = secret
        self.hosts = hosts
        self.access_token = access_token
        self.max_body = int(max_body)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = _headers(scope)
        send = _with_security_headers(send)
        host = headers.get("host", "")
        if not self.hosts.allows(host):
            return await _refuse(send, 403, f"Host {host[:80]!r} is not this server's address: the web table answers "
                                            "requests to localhost or its own address only")
        if self.access_token is not None:
            granted = await self._access(scope, headers, send)
            if granted is not True:
                return granted
        method = scope["method"]
        if method not in SAFE_METHODS:
            refusal = self._refusal(scope, headers, host)
            if refusal:
                return await _refuse(send, 403, refusal)
            length = headers.get("content-length")
            if length is not None and (not length.isdigit() or int(length) > self.max_body):
                return await _refuse(send, 413, f"the request body is larger than {self.max_body} bytes")
            body = bytearray()
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                body += message.get("body", b"")
                if len(body) > self.max_body:
                    return await _refuse(send, 413, f"the request body is larger than {self.max_body} bytes")
                if not message.get("more_body", False):
                    break
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if (body or kind) and kind != "application/json":
                return await _refuse(send, 403, f"a request body must be application/json, not {kind or 'untyped'!r}")
            receive = _replay(bytes(body), receive)
        return await self.app(scope, receive, send)

    def _refusal(self, scope, headers: dict[str, str], host: str) -> str | None:
        """Why a request that changes something is not from the table's own page, or None."""
        origin = headers.get("origin")
        if origin is not None and origin != f"{scope.get('scheme', 'http')}://{host}":
            return f"Origin {origin[:80]!r} is not this page's: only the web table's own page may change its tables"
        if headers.get("sec-fetch-site") in ("cross-site", "same-site"):
            return "a request from another site: only the web table's own page may change its tables"
        given = headers.get(TOKEN_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.secret.encode()):
            return ("the request lacks the page's secret (the X-Card-Envs-Token header): only the web table's own "
                    "page, or a script given the secret, may change its tables")
        return None

    async def _access(self, scope, headers: dict[str, str], send):
        """True when the request carries the access token; else the refusal (or, for the page
        opened with ``?token=``, the redirect that leaves the cookie) was sent."""
        token = self.access_token
        cookies = _cookies(headers.get("cookie", ""))
        bearer = headers.get("authorization", "")
        if hmac.compare_digest(cookies.get(ACCESS_COOKIE, "").encode(), token.encode()) or (
                bearer.lower().startswith("bearer ") and hmac.compare_digest(bearer[7:].strip().encode(), token.encode())):
            return True
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if scope["path"] == "/" and scope["method"] == "GET" and hmac.compare_digest(
                (query.get("token") or [""])[0].encode(), token.encode()):
            await send({"type": "http.response.start", "status": 303, "headers": [
                (b"location", b"/"), (b"content-length", b"0"),
                (b"set-cookie", f"{ACCESS_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict".encode())]})
            await send({"type": "http.response.body", "body": b""})
            return None
        await _refuse(send, 401, "this web table needs its access token: open the address the server printed "
                                 "(http://HOST:PORT/?token=...)")
        return None


def _headers(scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        name = key.decode("latin-1").lower()
        out.setdefault(name, value.decode("latin-1"))  # the first of repeated headers
    return out


def _cookies(text: str) -> dict[str, str]:
    out = {}
    for part in text.split(";"):
        key, _, value = part.strip().partition("=")
        if key:
            out.setdefault(key, value)
    return out


def _with_security_headers(send):
    async def wrapped(message):
        if message["type"] == "http.response.start":
            names = {k.lower() for k, _ in message.get("headers", [])}
            message = dict(message, headers=list(message.get("headers", []))
                           + [(k, v) for k, v in SECURITY_HEADERS if k not in names])
        await send(message)

    return wrapped


def _replay(body: bytes, receive):
    sent = False

    async def again():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


async def _refuse(send, status: int, text: str) -> None:
    body = json.dumps({"error": text}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
