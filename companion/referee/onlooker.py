"""The game loop's onlooker (the web page): a view of the game after every change, the latest frame,
and the onlooker's faults said once.

The loop builds a frozen :class:`~companion.referee.view.GameView` after each line of its log
and whenever its phase or step changed without one, and hands it to its
:class:`~companion.referee.view.Spectator`, which returns at once. A fault of the onlooker is
logged once; the game goes on without it.
"""

from __future__ import annotations

from typing import Any, Callable

from ..rules.geometry import Color
from ..rules.options import Rules
from .log import LogEntry
from .phases import OVER
from .referee import Referee
from .view import RECENT, GameView, Spectator, last_verdict


class Onlooker:
    """The loop's side of a :class:`Spectator` (None: nobody looks on, nothing is built).

    ``log(kind, text)``: the loop's log (where a fault of the onlooker is said, once)."""

    def __init__(self, spectator: Spectator | None, log: Callable[[str, str], None]) -> None:
        self.spectator = spectator
        self._log = log
        self._views = 0  # the views built so far (a view's seq)
        self._published: tuple | None = None  # the key of the last view handed over
        self._failed = False

    def view(self, referee: Referee, rules: Rules, *, game_id: int | None, phase: str, step: str,
             starting_side: Color, log: list[LogEntry], blank: tuple[int, ...], status: str) -> GameView:
        """The game as the referee holds it now (cheap: strings and tuples the loop already has)."""
        st = referee.status
        over = phase == OVER and st.over
        self._views += 1
        return GameView(
            seq=self._views, game_id=game_id, phase=phase, step=step,
            position=referee.position.to_string(),
            start=(referee.history[0].before if referee.history else referee.position).to_string(),
            turns=tuple(str(t.turn) for t in referee.history), options=tuple(rules.names()),
            starting_side=starting_side.name.lower(),
            result=st.result if over else None, reason=st.reason if over else None,
            last_verdict=last_verdict(log), blank=tuple(blank),
            status=status, recent=tuple(log[-RECENT:]),
        )

    def publish(self, key: tuple, view: Callable[[], GameView]) -> None:
        """Hand the onlooker ``view()``; ``key`` says what the view shows (:meth:`stale` compares it)."""
        if self.spectator is None:
            return
        self._published = key
        try:
            self.spectator.game_changed(view())
        except Exception as exc:  # an onlooker's fault never stops the game
            self._trouble(exc)

    def stale(self, key: tuple) -> bool:
        """Has the game changed (``key``) since the onlooker's last view?"""
        return self.spectator is not None and key != self._published

    def frame_seen(self, image: Any, calibration: Any, reading: Any) -> None:
        """The latest camera frame, with the calibration and the vision reading (None before the setup)."""
        if self.spectator is None:
            return
        try:
            self.spectator.frame_seen(image, calibration, reading)
        except Exception as exc:
            self._trouble(exc)

    def _trouble(self, exc: Exception) -> None:
        if not self._failed:  # said once; the game goes on
            self._failed = True
            self._log("info", f"the onlooker (web page) failed: {type(exc).__name__}: {exc}; the game goes on")
