"""The board check of the game loop: the board must show an expected position before play goes on.

A check runs for a purpose (:mod:`companion.referee.phases`): the start of the
first game or of a new one, the journal's position after a restart, the
position an undo went back to. Until the stable reading shows the expected
board the loop shows amber and the pointer at the first differing field;
an unsure reading the rules cannot tell from the expected board counts as
showing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from hardware.pointer import targets_at

from ..rules.position import Placement, Position
from .boards import count_differences, first_difference
from .phases import NEW_GAME, RESUME, START, UNDO
from .reading import TableReading

NAMES = {START: "the start position", NEW_GAME: "the start position",
         RESUME: "the journal's position", UNDO: "the position before the undone turn"}


@dataclass(frozen=True)
class Mismatch:
    """Why the board does not pass the check: the signal's key (said once), text and pointer."""

    key: tuple
    text: str
    squares: tuple[int, ...] = ()
    points: tuple[int, ...] = ()


@dataclass
class BoardCheck:
    """What the board must show (``expected``) and why (``purpose``)."""

    purpose: str
    expected: Placement

    @property
    def name(self) -> str:
        """The expected board's name in the log."""
        return NAMES[self.purpose]

    @property
    def for_new_game(self) -> bool:
        """Does the check wait for the start of a new game (no game is being played)?"""
        return self.purpose in (START, NEW_GAME)

    @property
    def setup_name(self) -> str:
        """The expected board's name in the log while the camera is calibrated from it at setup."""
        return "the start position" if self.for_new_game else "the position of the journal"

    def recalibration_target(self, checking: bool, position: Position) -> tuple[Placement, str]:
        """The board a recalibration mid-game expects, and its name in the log: during the check
        (``checking``) the board the check expects, else the last accepted board (``position``)."""
        if checking:
            return self.expected, "the start position" if self.for_new_game else "the last accepted board"
        return Placement.of(position), "the last accepted board"

    def look(self, board: Placement | None, reading: TableReading, min_field_prob: float) -> Mismatch | None:
        """None when the stable reading (``board``: its board, None if unreadable) shows the
        expected board; else what to signal."""
        guess = reading.guess
        if board is None and reading.only_unsure and guess is not None:
            if reading.shows(self.expected, min_field_prob):
                return None
            return self._differs(guess)
        if board is None:
            return Mismatch(("check-unreadable", reading.reason), f"cannot read the board: {reading.reason}",
                            reading.unsure_squares, reading.unsure_points)
        if board == self.expected:
            return None
        return self._differs(board)

    def _differs(self, board: Placement) -> Mismatch:
        text, squares, points = first_difference(self.expected, board)
        n = count_differences(self.expected, board)
        return Mismatch(("check", squares, points, n),
                        f"the board does not match {self.name} ({n} field{'s' if n != 1 else ''} differ): {text}",
                        squares, points)


class CheckSignal:
    """The check's lasting signal: amber, the pointer blinking at the fields, the line in the log
    and the status line, shown once per distinct key (a mismatch, a journal that refuses the new
    game); :meth:`reset` lets the next one show again (after other signals took the panel).

    ``panel``: the loop's panel; ``log(kind, text, **where)`` and ``status(text)``: the loop's log
    and systemd status line."""

    def __init__(self, panel: Any, log: Callable[..., None], status: Callable[[str], None]) -> None:
        self.panel = panel
        self.log = log
        self.status = status
        self.key: tuple | None = None

    def show(self, key: tuple, text: str, squares: tuple[int, ...] = (), points: tuple[int, ...] = ()) -> None:
        if key == self.key:
            return
        self.key = key
        self.panel.signal_unreadable()
        if squares or points:
            self.panel.show_sequence(targets_at(tuple(squares), tuple(points), blink=True))
        else:
            self.panel.clear_pointer()
        self.log("check", text, squares=tuple(squares), points=tuple(points))
        self.status(text)

    def reset(self) -> None:
        self.key = None
