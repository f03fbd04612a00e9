"""Request bodies, read within a limit and parsed into clear refusals.

The limit is enforced while the body arrives (a declared ``Content-Length``
over it is refused unread), so an oversized upload costs no more memory
than the limit. JSON nested too deeply for the parser is a refusal (400),
not a server error.
"""

from __future__ import annotations

import json

from trappola.web.errors import WebError
from trappola.web.guard import media_type

#: Largest body of an API call (a table to open, an action).
JSON_LIMIT = 64 * 1024


def _megabytes(n: int) -> str:
    return f"{n // (1024 * 1024)} MB" if n >= 1024 * 1024 else f"{n // 1024} kB"


async def read_limited(request, limit: int, what: str = "the request body") -> bytearray:
    """The body of ``request``, at most ``limit`` bytes; ``WebError`` 413
    as soon as it is known to be larger."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise WebError(f"{what} is larger than {_megabytes(limit)}", 413)
    body = bytearray()
    async for chunk in request.stream():
        if len(body) + len(chunk) > limit:
            raise WebError(f"{what} is larger than {_megabytes(limit)}", 413)
        body += chunk
    return body


def parse_json(data, what: str = "the request body"):
    """``json.loads`` with its failures as ``ValueError`` messages: not
    UTF-8, not JSON (where), nested too deeply."""
    if isinstance(data, (bytes, bytearray)):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{what} is not UTF-8 text") from None
    try:
        return json.loads(data)
    except json.JSONDecodeError as e:
        raise ValueError(f"{what} is not JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None
    except RecursionError:
        raise ValueError(f"{what} is nested too deeply") from None
    except ValueError:  # a number of more digits than Python converts (its message names its own setting)
        raise ValueError(f"{what} holds a number too long to read") from None


async def json_object(request) -> dict:
    """The body of an API call: a JSON object of at most ``JSON_LIMIT``
    bytes, declared as ``application/json``; else ``WebError``."""
    if media_type(request.headers.get("content-type")) != "application/json":
        raise WebError("the request body must be a JSON object sent as application/json", 415)
    body = await read_limited(request, JSON_LIMIT)
    try:
        value = parse_json(body)
    except ValueError as e:
        raise WebError(f"{e}; it must be a JSON object") from None
    if not isinstance(value, dict):
        raise WebError("the request body must be a JSON object")
    return value
