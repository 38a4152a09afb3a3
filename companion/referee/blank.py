"""R-23, the batteries' sides: after an accepted turn the batteries the camera sees on their blank
side are pointed at and named for the next player ("turn C3 back to its printed side") until the
camera sees them printed side up or the next confirm press. Silent where the camera cannot tell a
side (the referee leaves such batteries out of the verdict's ``turn_back``)."""

from __future__ import annotations

from typing import Any, Callable

from hardware.pointer import targets_at

from ..rules.geometry import Color
from ..rules.sides import PRINTED, turn_back_message
from .reading import TableReading


class BlankBatteries:
    """The batteries the player to move should turn back to their printed side (``points``).

    ``panel``: the loop's panel (the pointer); ``log(kind, text, **where)``: the loop's log."""

    def __init__(self, panel: Any, log: Callable[..., None]) -> None:
        self.panel = panel
        self.log = log
        self.points: tuple[int, ...] = ()

    def show(self, points: tuple[int, ...], to_move: Color) -> None:
        """Point at the blank batteries and name them for the player to move."""
        self.points = tuple(points)
        if not points:
            return
        self.panel.show_sequence(targets_at(points=points))
        self.log("sides", f"{to_move.label}: {turn_back_message(points)}", points=points)

    def follow(self, reading: TableReading) -> None:
        """A stable reading during play: stop pointing at a battery once the camera sees it printed side up."""
        sides = reading.sides_of(set(self.points))
        left = tuple(p for p in self.points if sides.get(p) != PRINTED)
        if left == self.points:
            return
        self.points = left
        if left:
            self.panel.show_sequence(targets_at(points=left))
        else:
            self.panel.clear_pointer()
