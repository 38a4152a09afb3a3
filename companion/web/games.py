"""The journal's games on the page: a list, a game turn by turn, its record to download (docs/record-format.md).

The journal is opened read-only for every request, in a worker thread (SQLite
reads beside the game loop's writes); these routes never change a game.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, Callable

from aiohttp import web

from ..drawing import svg_board
from ..record import GameText, RecordError, format_record
from ..referee.journal import GameRecord, Journal, JournalError
from ..referee.journal_json import game_json, parse_game_id, summary_json
from ..rules.errors import NotationError
from ..rules.position import Position
from .keys import SCRUB, journal_of
from .replies import Refused, json_reply


def routes(app: web.Application) -> None:
    app.router.add_get("/api/games", game_list)
    app.router.add_get("/api/games/{id}", game)
    app.router.add_get("/api/games/{id}/ply/{ply}", ply)
    app.router.add_get("/api/games/{id}/record", record)


async def _read(request: web.Request, fn: Callable[[Journal], Any]) -> Any:
    path: Path | None = journal_of(request.app)
    if path is None:
        raise Refused(404, "this page has no journal")

    def work() -> Any:
        with Journal(path, readonly=True) as journal:
            return fn(journal)

    try:
        return await asyncio.get_running_loop().run_in_executor(None, work)
    except JournalError as exc:
        text = str(exc)
        if text.startswith("no game"):  # the journal's path stays on the server
            raise Refused(404, text.split(" in journal")[0] + " in the journal") from None
        # the whole message for the operator; the browser's without the journal's path (replies.guard)
        print(f"netzwerk web: {request.method} {request.raw_path}: {text}", file=sys.stderr, flush=True)
        raise Refused(503, text) from None


def _game_id(request: web.Request) -> int:
    try:
        return parse_game_id(request.match_info["id"])
    except ValueError as exc:
        raise Refused(400, str(exc)) from None


async def _game(request: web.Request) -> GameRecord:
    game_id = _game_id(request)
    return await _read(request, lambda j: j.game(game_id))


async def game_list(request: web.Request) -> web.Response:
    games = await _read(request, lambda j: j.games())
    return json_reply(request.app[SCRUB].deep([summary_json(g) for g in reversed(games)]))


async def game(request: web.Request) -> web.Response:
    return json_reply(request.app[SCRUB].deep(game_json(await _game(request))))


async def ply(request: web.Request) -> web.Response:
    """The board after ``ply`` turns of the game (0: its start), as the replay shows it."""
    text = request.match_info["ply"]
    if not text.isascii() or not text.isdigit() or len(text) > 6:
        raise Refused(400, f"bad ply {text!r}: expected a number 0 .. the game's turns")
    n = int(text)
    g = await _game(request)
    if n > len(g.turns):
        raise Refused(404, f"game {g.id} has {len(g.turns)} turns: no ply {n}")
    position = g.turns[n - 1].after if n else g.start_position
    try:
        pos = Position.from_string(position)
    except NotationError as exc:
        raise Refused(500, f"game {g.id}, ply {n}: the journal's position cannot be read ({exc})") from None
    return json_reply({"game": g.id, "ply": n, "plies": len(g.turns), "turn": g.turns[n - 1].turn if n else None,
                       "side": g.turns[n - 1].before.split()[-1] if n else None, "position": position,
                       "board_svg": svg_board(pos)})


async def record(request: web.Request) -> web.Response:
    g = await _game(request)
    try:
        text = format_record(GameText.from_game(g))
    except RecordError as exc:
        raise Refused(500, f"game {g.id}: no record can be written ({exc})") from None
    return web.Response(text=text, content_type="text/plain", charset="utf-8",
                        headers={"Content-Disposition": f'attachment; filename="netzwerk-game-{g.id}.txt"',
                                 "Cache-Control": "no-store"})
