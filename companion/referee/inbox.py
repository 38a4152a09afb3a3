"""The game loop's inbox: the panel's button presses and the web page's requests, in the order they came.

Presses arrive on the panel's threads (gpiozero's callbacks) and requests on the web server's:
both only put an event here; the loop takes them between two frames (:meth:`Inbox.take`). An
event is a tuple: ``("confirm", side)``, ``("undo",)``, ``("hint",)``, ``("control",)``,
``("new_game",)`` or ``("new_game", options, starting_side)``, ``("stop",)``.
"""

from __future__ import annotations

import queue
from collections import deque
from typing import Any

from ..rules.errors import NotationError
from ..rules.options import new_game_choice


class Inbox:
    """Events for the loop; putting never blocks and is thread-safe."""

    def __init__(self) -> None:
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._backlog: deque = deque()  # taken off the queue while waiting, not handled yet

    def listen(self, panel: Any) -> None:
        """Put the panel's button presses here."""
        panel.on_confirm(lambda side: self._events.put(("confirm", side)))
        panel.on_undo(lambda: self._events.put(("undo",)))
        panel.on_hint(lambda: self._events.put(("hint",)))
        panel.on_control(lambda: self._events.put(("control",)))
        panel.on_new_game(lambda: self._events.put(("new_game",)))

    def put(self, event: tuple) -> None:
        self._events.put(event)

    def request(self, event: tuple) -> bool:
        """A request from outside the loop (the web page's controls), taken like a button press.

        ``("confirm", side)``, ``("undo",)``, ``("new_game", options, starting_side)`` (options: a list
        of rule option names; starting_side: "white" or "black"; None: as before). False for anything
        else, among them options :func:`companion.rules.options.new_game_choice` refuses (nothing is put)."""
        if not event or event[0] not in ("confirm", "undo", "new_game"):
            return False
        if event[0] == "confirm" and (len(event) != 2 or event[1] not in ("white", "black")):
            return False
        if event[0] == "new_game" and (len(event) not in (1, 3) or len(event) == 3 and not _new_game(*event[1:])):
            return False
        self._events.put(tuple(event))
        return True

    def wait(self, seconds: float) -> None:
        """Wait up to ``seconds`` (real time) for an event; one that comes ends the wait."""
        try:
            item = self._events.get(timeout=seconds) if seconds > 0 else self._events.get_nowait()
        except queue.Empty:
            return
        self._backlog.append(item)

    def take(self) -> tuple | None:
        """The next event, or None when there is none now."""
        if self._backlog:
            return self._backlog.popleft()
        try:
            return self._events.get_nowait()
        except queue.Empty:
            return None


def _new_game(options: Any, starting_side: Any) -> bool:
    """Are these a new game's options (None: none) and starting side (None: white, as before)
    (:func:`companion.rules.options.new_game_choice`)?"""
    try:
        new_game_choice(() if options is None else options, "white" if starting_side is None else starting_side)
    except NotationError:
        return False
    return True
