"""Who may talk to the app: the server runs on the user's machine, so a
page from another site must not be able to use it.

Every request must name this server in its ``Host`` header (one of
``hosts``: by default ``localhost``, ``127.0.0.1`` and ``::1``, any port),
which defeats DNS rebinding: another site's name, pointed at this machine,
arrives with its own name as ``Host``. Requests to ``/api/`` from a browser
must come from the page itself: an ``Origin`` header, when present, must be
this server (``http://`` + ``Host``), and ``Sec-Fetch-Site``, when present,
``same-origin`` or ``none``. A ``POST`` must declare a JSON body
(``application/json``, or ``application/x-ndjson`` for a saved-games
file): those are not types a cross-origin form or ``no-cors`` fetch may
send without the browser asking first, and this app never answers such a
question (there is no CORS), so the browser never sends the request.

Every answer, a refusal included, forbids framing (``X-Frame-Options:
DENY`` and ``frame-ancestors 'none'``: another site's page cannot show the
table and trick a click through it) and any script but the page's own
files (``SECURITY_HEADERS``).
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.responses import JSONResponse

#: Host names every server accepts: this machine.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
#: The body types a POST to the API may declare.
BODY_TYPES = ("application/json", "application/x-ndjson")
_FETCH_SITES = ("same-origin", "none")
#: The Content-Security-Policy of every answer: the page's own files only, no inline script, no framing.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: Headers added to every answer.
SECURITY_HEADERS = (
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


def host_name(host: str) -> str:
    """The name in a ``Host`` header, without its port or IPv6 brackets, in
    lower case (``"[::1]:8000"`` -> ``"::1"``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def media_type(content_type: str | None) -> str:
    """``"application/json"`` from ``"Application/JSON; charset=utf-8"``."""
    return (content_type or "").partition(";")[0].strip().lower()


class Guard:
    """ASGI middleware refusing, before the app sees them, requests with a
    foreign ``Host``, API requests from another origin, and API posts
    without a JSON body type (see the module docstring). ``hosts``: the
    accepted host names besides ``LOCAL_HOSTS``."""

    def __init__(self, app, hosts=()):
        self.app = app
        self.hosts = frozenset(LOCAL_HOSTS) | {host_name(h) for h in hosts}

    def refusal(self, method: str, path: str, headers: Headers) -> tuple[int, str] | None:
        """(status, message) for a request to refuse, else None."""
        host = headers.get("host")
        if not host or host_name(host) not in self.hosts:
            return 421, (
                f"this server answers only to {', '.join(sorted(self.hosts))}, not to the host {host!r}; "
                "to answer to another name, start it with --allow-host NAME"
            )
        if not path.startswith("/api/"):
            return None
        origin = headers.get("origin")
        if origin is not None and origin.strip().lower() not in (f"http://{host.lower()}", f"https://{host.lower()}"):
            return 403, "requests from another site's page are refused"
        site = headers.get("sec-fetch-site")
        if site is not None and site.strip().lower() not in _FETCH_SITES:
            return 403, "requests from another site's page are refused"
        if method == "POST" and media_type(headers.get("content-type")) not in BODY_TYPES:
            return 415, f"the request body must be declared as {' or '.join(BODY_TYPES)}"
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        if scope["type"] == "http":
            send = _with_headers(send)
        refused = self.refusal(scope.get("method", "GET"), scope["path"], Headers(scope=scope))
        if refused is None:
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":  # the app has none; close without accepting
            return await send({"type": "websocket.close", "code": 1008})
        status, message = refused
        await JSONResponse({"detail": message}, status_code=status)(scope, receive, send)


def _with_headers(send):
    """``send`` adding ``SECURITY_HEADERS`` to the start of a response."""

    async def sending(message):
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
        await send(message)

    return sending
