"""What the game loop hands to an onlooker (the web page): a frozen view of the game, and the onlooker's interface.

The data flows one way: the loop builds a :class:`GameView` after each line of its
log (the verdict has reached the LEDs and the journal by then) and gives it to
its :class:`Spectator`, which must return at once (the web server copies a
reference and wakes its own thread; it never blocks the loop). Requests coming
back (a confirm, undo or new game from the page) are not calls into the loop:
they go into the loop's event queue, as the panel's buttons do
(:meth:`companion.referee.game.Companion.request`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

from .log import LogEntry

#: The log kinds that are a verdict of the referee on a confirm press.
VERDICT_KINDS = ("accepted", "rejected", "unreadable", "unchanged", "question")
#: How many of the latest log lines a view carries.
RECENT = 12


@dataclass(frozen=True)
class VerdictView:
    """The last verdict: its kind, the diagnosis (or the turn), where the pointer LEDs point."""

    kind: str
    text: str
    ply: int | None
    turn: str | None
    squares: tuple[int, ...]
    points: tuple[int, ...]
    note: str | None = None  # the note on an accepted turn


@dataclass(frozen=True)
class GameView:
    """The game as the referee holds it, at one moment. Immutable: safe to hand to another thread."""

    seq: int                      # grows by one with every view of this loop
    game_id: int | None
    phase: str                    # setup, check, playing, over
    step: str                     # idle, waiting, asking
    position: str                 # the referee's position string
    start: str                    # the position the game began from
    turns: tuple[str, ...]        # the accepted turns in force, in order
    options: tuple[str, ...]      # the rule options of the game (empty: the original rules)
    starting_side: str            # "white" or "black": who begins a new game
    result: str | None            # "white wins" / "black wins" once the game is over
    reason: str | None            # why it is over
    last_verdict: VerdictView | None
    blank: tuple[int, ...]        # batteries left on their blank side, to be turned back
    status: str                   # the loop's status line
    recent: tuple[LogEntry, ...]  # the latest log lines, oldest first


def last_verdict(log: list[LogEntry]) -> VerdictView | None:
    """The latest verdict in the log, with the R-23 note that followed an accepted turn."""
    note = None
    for entry in reversed(log[-64:]):
        if entry.kind == "note" and note is None:
            note = entry.text
        if entry.kind in VERDICT_KINDS:
            kept = note if entry.kind == "accepted" and note is not None and f"turn {entry.ply}:" in note else None
            return VerdictView(entry.kind, entry.text, entry.ply, entry.turn, tuple(entry.squares),
                               tuple(entry.points), kept)
    return None


class Spectator(Protocol):
    """An onlooker of the game loop. Every method returns at once and never raises into the loop."""

    def take_requests(self, request: Callable[[tuple], bool]) -> None:
        """The loop's door for requests (confirm, undo, new game), given once at the loop's start."""

    def game_changed(self, view: GameView) -> None:
        """A new view of the game (after every log line)."""

    def frame_seen(self, image: Any, calibration: Any, reading: Any) -> None:
        """The latest camera frame, with the calibration and the vision reading (None before the setup)."""


class VerdictWatch:
    """An onlooker in front of another (the web page's hub): hands every call on, then calls ``on_verdict(view)``
    once for each new verdict. The tests and the latency benchmark check or time the page there (and may hold
    the game, as a slow player would); the hub itself never waits."""

    def __init__(self, inner: Spectator, on_verdict: Callable[[GameView], None]) -> None:
        self.inner = inner
        self.on_verdict = on_verdict
        self.last: VerdictView | None = None

    def take_requests(self, request: Callable[[tuple], bool]) -> None:
        self.inner.take_requests(request)

    def frame_seen(self, image: Any, calibration: Any, reading: Any) -> None:
        self.inner.frame_seen(image, calibration, reading)

    def game_changed(self, view: GameView) -> None:
        self.inner.game_changed(view)
        if view.last_verdict is not None and view.last_verdict != self.last:
            self.last = view.last_verdict
            self.on_verdict(view)
