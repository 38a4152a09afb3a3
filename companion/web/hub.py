"""Between the game loop's thread and the web server's: the latest view and frame, the live clients.

The loop calls :meth:`Hub.game_changed` and :meth:`Hub.frame_seen` (the
:class:`companion.referee.view.Spectator` interface). Both only store a reference
and, for a view, wake the server's event loop once (``call_soon_threadsafe``,
which writes a byte to a non-blocking pipe): they never wait for the server, a
browser or a lock held across work. The server's thread turns the newest view
into JSON (only while a browser follows the game, or when one asks) and offers it
to every live client that has not had it yet: a client is never skipped because
another request (``GET /api/state``, a new browser) built the JSON first. A
client's queue is bounded, and a client that does not keep up loses the older
updates (each update is the whole state, so the newest is all it needs) or, when
it stops reading, the connection.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from ..referee.view import GameView
from .privacy import Scrubber
from .state import state_json

#: Updates waiting for one client at most; older ones are dropped for a newer one.
CLIENT_QUEUE = 4
#: What the live streams are told when the server stops on purpose (``netzwerk run`` stopped, the demo ended).
STOPPED = "the companion has stopped"


@dataclass(eq=False)
class Client:
    """One browser following the live game (server-sent events)."""

    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(CLIENT_QUEUE))
    dropped: int = 0
    seen: int = -1  # the seq of the newest update this client has been given
    farewell: bytes = b""  # the last event before the stream ends (the server is stopping: why)

    def offer(self, seq: int, message: bytes) -> None:
        """Queue the update ``seq`` unless the client has it (or a newer one) already; when the client is
        behind, its oldest waiting update makes room."""
        if seq <= self.seen:
            return
        self.seen = seq
        self._put(message)

    def end(self, farewell: bytes = b"") -> None:
        """The server is stopping: the stream ends after what is queued (the newest update kept) and
        ``farewell`` (an ``event: bye``)."""
        self.farewell = farewell
        self._put(None)

    def _put(self, message: bytes | None) -> None:
        if self.queue.full():
            self.queue.get_nowait()
            self.dropped += 1
        self.queue.put_nowait(message)


@dataclass(frozen=True)
class FrameShot:
    image: Any        # the camera frame (numpy, BGR)
    calibration: Any  # None before the setup
    reading: Any      # the vision reading of the frame (None before the setup)


class Hub:
    """The game loop's onlooker on the server's side. See the module docstring."""

    def __init__(self, max_clients: int) -> None:
        self.max_clients = max_clients
        self.clients: set[Client] = set()       # touched only in the server's thread
        self._lock = threading.Lock()           # guards the two fields below, held for an assignment
        self._view: GameView | None = None
        self._wake_pending = False
        self._frame: FrameShot | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._request: Callable[[tuple], bool] | None = None
        self._state: dict[str, Any] | None = None  # the JSON of the newest view sent (server's thread)
        self.scrub = Scrubber()  # the loop's texts without server paths (the server sets its own, knowing the journal)
        self._message: bytes = b""
        self.stop_reason = STOPPED  # what the live streams are told when the server stops (WebServer.stop)

    # -- the game loop's side (any thread, never blocking) ---------------------------------
    def take_requests(self, request: Callable[[tuple], bool]) -> None:
        self._request = request

    def game_changed(self, view: GameView) -> None:
        with self._lock:
            self._view = view
            wake = not self._wake_pending and self._loop is not None
            self._wake_pending = self._wake_pending or wake
            loop = self._loop
        if wake and loop is not None:
            try:
                loop.call_soon_threadsafe(self._fan_out)
            except RuntimeError:  # the server's loop has stopped: nobody to tell
                pass

    def frame_seen(self, image: Any, calibration: Any, reading: Any) -> None:
        self._frame = FrameShot(image, calibration, reading)

    # -- the server's side (its event loop's thread) ----------------------------------------
    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            self._loop = loop
            pending = self._view is not None
            self._wake_pending = pending
        if pending:
            loop.call_soon(self._fan_out)

    def detach(self) -> None:
        with self._lock:
            self._loop = None

    @property
    def frame(self) -> FrameShot | None:
        return self._frame

    def request(self, event: tuple) -> bool:
        """Hand a request to the game loop's queue; False when no loop takes requests."""
        return self._request is not None and self._request(event)

    def state(self) -> dict[str, Any] | None:
        """The JSON of the newest view (None before the loop has started)."""
        self._refresh()
        return self._state

    def message(self) -> tuple[int, bytes] | None:
        """The newest state as one server-sent event, with its seq (None before the loop has started)."""
        self._refresh()
        return (self._state["seq"], self._message) if self._state is not None else None

    def _refresh(self) -> None:
        with self._lock:
            view = self._view
            self._wake_pending = False
        if view is None or (self._state is not None and self._state["seq"] == view.seq):
            return
        self._state = state_json(view, self.scrub)
        data = json.dumps(self._state, separators=(",", ":"))
        self._message = f"event: state\nid: {view.seq}\ndata: {data}\n\n".encode("utf-8")

    def _fan_out(self) -> None:
        """The server's loop, woken by :meth:`game_changed`: the newest view to every live client."""
        if not self.clients:  # nobody follows the game: the JSON waits until someone asks
            with self._lock:
                self._wake_pending = False
            return
        newest = self.message()
        if newest is None:
            return
        for client in list(self.clients):
            client.offer(*newest)

    def join(self) -> Client | None:
        """A new live client, or None when ``max_clients`` follow the game already. Its first update
        (:meth:`Client.offer`) is the newest state, given by the caller."""
        if len(self.clients) >= self.max_clients:
            return None
        client = Client()
        self.clients.add(client)
        return client

    def leave(self, client: Client) -> None:
        self.clients.discard(client)

    def end_streams(self, reason: str | None = None) -> None:
        """The server is stopping on purpose: every live client's stream ends with an ``event: bye`` saying
        why, so that the page says the companion has stopped (not "reconnecting…" for ever)."""
        farewell = bye(reason or self.stop_reason)
        for client in list(self.clients):
            client.end(farewell)

    def no_more_requests(self) -> None:
        """The game loop has ended (the demo's game is over, its page stays up): the page's controls are
        answered "no game loop takes requests now"."""
        self._request = None


def bye(reason: str) -> bytes:
    """The event that ends a live stream on purpose: ``event: bye``, ``data: {"reason": ...}``."""
    return f"event: bye\ndata: {json.dumps({'reason': reason})}\n\n".encode("utf-8")
