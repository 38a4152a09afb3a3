"""What the page may ask of the game, behind the passphrase: confirm, undo, new game; the camera's setup view.

Every one is a POST whose JSON body carries the passphrase (a link or an image
on another site cannot make one: a cross-site JSON POST needs the page's own
script), compared in constant time (``hmac.compare_digest``); a wrong one waits
half a second before the refusal. Controls are off unless ``[web] controls`` is
true. A request goes into the game loop's event queue as a button press does
(:meth:`companion.referee.game.Companion.request`): the loop takes it between two
frames and the page sees the outcome in the live updates.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from typing import Any

from aiohttp import web

from ..rules.errors import NotationError
from ..rules.options import new_game_choice
from .hub import Hub
from .keys import HUB, LIMITS, SCRUB, SETTINGS
from .replies import Refused, json_reply
from .settings import WebSettings

#: The pause before a refusal for a wrong passphrase (guessing stays slow; other requests go on).
WRONG_PASSPHRASE_PAUSE = 0.5
#: The widest camera picture the setup view sends.
SETUP_WIDTH = 960


def routes(app: web.Application) -> None:
    app.router.add_post("/api/control/confirm", confirm)
    app.router.add_post("/api/control/undo", undo)
    app.router.add_post("/api/control/new-game", new_game)
    app.router.add_post("/api/setup/frame", setup_frame)


async def _body(request: web.Request) -> dict[str, Any]:
    if request.content_type != "application/json":
        raise Refused(415, "send a JSON body (Content-Type: application/json) with the passphrase")
    seconds = request.app[LIMITS].body
    try:
        raw = await asyncio.wait_for(request.read(), seconds)  # at most the app's client_max_size, else 413
    except TimeoutError:
        raise Refused(408, f"the request body did not arrive within {seconds:g} s") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise Refused(400, "the request body is not UTF-8") from None
    except (ValueError, RecursionError):
        raise Refused(400, "the request body is not JSON") from None
    if not isinstance(data, dict):
        raise Refused(400, 'the request body must be a JSON object, e.g. {"passphrase": "..."}')
    return data


async def _allowed(request: web.Request, *, control: bool) -> dict[str, Any]:
    settings: WebSettings = request.app[SETTINGS]
    if control and not settings.controls:
        raise Refused(403, "the page's controls are off ([web] controls = false in the config)")
    if settings.passphrase is None:
        raise Refused(403, "no passphrase is configured ([web] passphrase): this needs one")
    data = await _body(request)
    given = data.get("passphrase")
    if not isinstance(given, str) or not given:
        raise Refused(403, "the passphrase is missing: this request needs it")
    if not hmac.compare_digest(given.encode("utf-8", "surrogatepass"), settings.passphrase.encode("utf-8")):
        await asyncio.sleep(WRONG_PASSPHRASE_PAUSE)
        raise Refused(403, "wrong passphrase")
    return data


def _send(request: web.Request, event: tuple, what: str) -> web.Response:
    hub: Hub = request.app[HUB]
    if not hub.request(event):
        raise Refused(503, "no game loop takes requests now")
    return json_reply({"ok": True, "sent": what}, 202)


async def confirm(request: web.Request) -> web.Response:
    data = await _allowed(request, control=True)
    side = data.get("side")
    if side is None:
        raise Refused(400, 'no side to confirm for ("side": "white" or "black"): the game is over, or not begun')
    if side not in ("white", "black"):
        raise Refused(400, f'side must be "white" or "black" (the player confirming), not {json.dumps(side)}')
    return _send(request, ("confirm", side), f"confirm for {side}")


async def undo(request: web.Request) -> web.Response:
    await _allowed(request, control=True)
    return _send(request, ("undo",), "undo")


async def new_game(request: web.Request) -> web.Response:
    data = await _allowed(request, control=True)
    try:  # the one check of a new game's options and side (the game loop's inbox makes it too)
        options, side = new_game_choice(data.get("options", []), data.get("starting_side", "white"))
    except NotationError as exc:
        raise Refused(400, str(exc)) from None
    return _send(request, ("new_game", options, side),
                 f"new game ({' '.join(options) or 'original rules'}, {side} begins): set up the start position")


async def setup_frame(request: web.Request) -> web.Response:
    """The latest camera frame with the grid and the reading drawn on it (what `netzwerk vision overlay` draws)."""
    await _allowed(request, control=False)
    hub: Hub = request.app[HUB]
    shot = hub.frame
    if shot is None:
        raise Refused(503, "no camera frame yet")
    jpeg, note = await asyncio.get_running_loop().run_in_executor(None, _picture, shot)
    note = request.app[SCRUB](note)
    return web.Response(body=jpeg, content_type="image/jpeg",
                        headers={"Cache-Control": "no-store", "X-Netzwerk-Reading": note})


def _picture(shot: Any) -> tuple[bytes, str]:
    import cv2

    image = shot.image
    if shot.calibration is not None and shot.reading is not None:
        from vision.overlay import draw_overlay

        image = draw_overlay(image, shot.calibration, shot.reading)
        note = "readable" if shot.reading.readable else f"not readable: {shot.reading.reason}"
    else:
        note = "not calibrated yet: the grid is drawn once the start position is calibrated"
    h, w = image.shape[:2]
    if w > SETUP_WIDTH:
        image = cv2.resize(image, (SETUP_WIDTH, round(h * SETUP_WIDTH / w)), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise Refused(500, "the camera picture could not be encoded")
    return data.tobytes(), " ".join(note.encode("ascii", "replace").decode("ascii").split())[:200]
