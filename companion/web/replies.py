"""The server's answers that are not the page: JSON errors that name what was wrong, and the guard around every route."""

from __future__ import annotations

import json
import sys
from typing import Any, Awaitable, Callable

from aiohttp import web

from .keys import MAX_BODY, SCRUB


class Refused(Exception):
    """A request refused: its HTTP status and one line saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def json_reply(data: Any, status: int = 200) -> web.Response:
    return web.Response(text=json.dumps(data, separators=(",", ":")), status=status, content_type="application/json",
                        headers={"Cache-Control": "no-store"})


def error_reply(status: int, message: str) -> web.Response:
    return json_reply({"error": message}, status)


_PLAIN = {
    400: "bad request",
    404: "no such page: see / for the page and docs/readme-web.md for the API",
    405: "this address does not take that method (state-changing requests are POSTs, pages GETs)",
    413: "the request body is too large",
    415: "send JSON (Content-Type: application/json)",
}


#: Every answer: the page's own files only (no outside script, style or frame), never framed by another site.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
                               "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


async def security_headers(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.update(SECURITY_HEADERS)


@web.middleware
async def guard(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    """Every refusal as JSON with a message (no server path in it); an unexpected fault as a 500 with its name,
    never a traceback page."""
    scrub = request.app[SCRUB]
    try:
        return await handler(request)
    except Refused as exc:
        return error_reply(exc.status, scrub(exc.message))
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        text = _PLAIN.get(exc.status, exc.reason)
        if exc.status == 413:
            text = f"{text} (at most {request.app[MAX_BODY]} bytes)"
        return error_reply(exc.status, scrub(text))
    except (ConnectionResetError, ConnectionError):
        raise
    except Exception as exc:  # a fault of ours: said on stderr in one line, the server and the game go on
        print(f"netzwerk web: {request.method} {request.raw_path}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return error_reply(500, f"the server failed on this request ({type(exc).__name__}); the game goes on")
