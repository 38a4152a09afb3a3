"""One line of the game loop's log (what ``netzwerk run`` prints and the service logs)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..rules.geometry import point_name, square_name


@dataclass(frozen=True)
class LogEntry:
    """One line of the game's log: ``kind`` is accepted, rejected, unreadable, unchanged,
    win, undo, hint, control, new-game, check, camera, setup, warning, energy, note, sides, question,
    chosen or info."""

    at: float
    kind: str
    text: str
    ply: int | None = None
    turn: str | None = None
    squares: tuple[int, ...] = ()
    points: tuple[int, ...] = ()

    def line(self) -> str:
        where = [square_name(s) for s in self.squares] + [point_name(p) for p in self.points]
        at = f" [pointer: {' '.join(where)}]" if where else ""
        return f"{self.kind:>10}  {self.text}{at}"


def gist(message: str | None) -> str | None:
    """A message with its numbers blotted out ("5 bad frames", "6 bad frames": one message)."""
    return None if message is None else re.sub(r"\d+(\.\d+)?", "#", message)
