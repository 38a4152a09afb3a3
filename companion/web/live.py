"""The live game: the page's files, ``GET /api/state``, the live updates (server-sent events), a hint on request."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any, Awaitable, Callable

from aiohttp import web

from ..drawing import svg_board
from ..rules.geometry import point_name, square_name
from ..rules.options import OPTIONS, Rules
from ..rules.position import Position
from .hub import Hub
from .keys import HUB, SCRUB, SETTINGS, hints_of
from .replies import Refused, json_reply
from .settings import WebSettings

#: The page's files (package data: nothing comes from the internet).
STATIC = {"index.html": "text/html", "app.js": "text/javascript", "app.css": "text/css"}
#: A live client that has not taken an update for this long is let go.
WRITE_TIMEOUT = 10.0
#: A comment line this often keeps the connection open through proxies and finds vanished clients.
KEEPALIVE = 15.0
#: The hint's time budget (the page's hint is computed beside the game, one at a time).
HINT_SECONDS = 1.0


def static_files() -> dict[str, bytes]:
    base = resources.files("companion.web") / "static"
    return {name: (base / name).read_bytes() for name in STATIC}


def routes(app: web.Application) -> None:
    files = static_files()

    def serve(name: str) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handler(request: web.Request) -> web.Response:
            return web.Response(body=files[name], content_type=STATIC[name], charset="utf-8",
                                headers={"Cache-Control": "no-cache"})
        return handler

    app.router.add_get("/", serve("index.html"))
    for name in ("app.js", "app.css"):
        app.router.add_get(f"/static/{name}", serve(name))
    app.router.add_get("/api/state", state)
    app.router.add_get("/api/config", config)
    app.router.add_get("/api/events", events)
    app.router.add_post("/api/hint", hint)


def _hub(request: web.Request) -> Hub:
    return request.app[HUB]


async def state(request: web.Request) -> web.Response:
    current = _hub(request).state()
    if current is None:
        raise Refused(503, "the game loop has not started yet: try again in a moment")
    return json_reply(current)


async def config(request: web.Request) -> web.Response:
    settings: WebSettings = request.app[SETTINGS]
    return json_reply({"controls": settings.controls, "setup": settings.passphrase is not None,
                       "options": list(OPTIONS), "max_clients": _hub(request).max_clients})


async def events(request: web.Request) -> web.StreamResponse:
    """The live game as server-sent events: the whole state at once, then every change."""
    hub = _hub(request)
    client = hub.join()
    if client is None:
        raise Refused(503, f"{hub.max_clients} browsers follow the game already ([web] max_clients): "
                           "try again later")
    try:
        newest = hub.message()  # before the answer begins: a fault here is still an error answer
        if newest is not None:
            client.offer(*newest)  # the whole state at once; a change meanwhile follows through the queue
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store",
                                               "X-Accel-Buffering": "no"})
        await response.prepare(request)
        while True:
            try:
                message = await asyncio.wait_for(client.queue.get(), KEEPALIVE)
            except TimeoutError:
                message = b": still here\n\n"
            if message is None:  # the server is stopping: why (event: bye), then the end
                await asyncio.wait_for(response.write_eof(client.farewell), WRITE_TIMEOUT)
                break
            await asyncio.wait_for(response.write(message), WRITE_TIMEOUT)
    except (TimeoutError, ConnectionError):
        pass  # a client that stopped reading, or went away
    finally:
        hub.leave(client)
    return response


class HintDesk:
    """Hints for the page: one at a time in a thread of their own, the last one kept per position."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="netzwerk-web-hint")
        self.lock = asyncio.Lock()
        self.cache: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}

    async def ask(self, position: str, options: tuple[str, ...]) -> dict[str, Any]:
        key = (position, options)
        async with self.lock:
            if key not in self.cache:
                loop = asyncio.get_running_loop()
                self.cache = {key: await loop.run_in_executor(self.pool, _hint, position, options)}
            return self.cache[key]

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def _hint(position: str, options: tuple[str, ...]) -> dict[str, Any]:
    from ..hints.players import hint as engine_hint

    pos = Position.from_string(position)
    try:
        h = engine_hint(pos, Rules.from_names(options), budget=HINT_SECONDS)
    except Exception as exc:  # the game is over, or no engine: said, not raised
        return {"turn": None, "reason": f"no hint: {exc}"}
    squares = [s for m in h.turn.robot_moves for s in (m.src, m.dst)]
    points = [p for m in h.turn.battery_moves for p in (m.src, m.dst)]
    return {"turn": str(h.turn), "reason": h.reason, "side": pos.to_move.name.lower(),
            "squares": [square_name(s) for s in squares], "points": [point_name(p) for p in points],
            "board_svg": svg_board(pos, marks_squares=squares, marks_points=points)}


async def hint(request: web.Request) -> web.Response:
    """A hint for the side to move: read-only (the game does not change), computed beside the game."""
    current = _hub(request).state()
    if current is None:
        raise Refused(503, "the game loop has not started yet: try again in a moment")
    if current["result"] is not None or current["phase"] != "playing":
        return json_reply({"turn": None, "reason": "no hint: no game is being played"})
    found = await hints_of(request.app).ask(current["position"], tuple(current["options"]))
    return json_reply(request.app[SCRUB].deep(found))  # "no hint: ..." may name a file (the engine's cache)
