"""What the camera reports: the state of every square and every point."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .geometry import N_POINTS, N_SQUARES, point_name, square_name


class SquareState(str, Enum):
    EMPTY = "empty"
    WHITE = "white"
    BLACK = "black"


class PointState(str, Enum):
    EMPTY = "empty"
    BATTERY = "battery"


SQUARE_STATES: tuple[SquareState, ...] = (SquareState.EMPTY, SquareState.WHITE, SquareState.BLACK)
POINT_STATES: tuple[PointState, ...] = (PointState.EMPTY, PointState.BATTERY)


@dataclass(frozen=True)
class BoardLayout:
    """36 square states (index ``rank*6+file``) and 49 point states (index ``row*7+col``)."""

    squares: tuple[SquareState, ...]
    points: tuple[PointState, ...]

    def __post_init__(self) -> None:
        if len(self.squares) != N_SQUARES:
            raise ValueError(f"a board layout needs {N_SQUARES} square states, got {len(self.squares)}")
        if len(self.points) != N_POINTS:
            raise ValueError(f"a board layout needs {N_POINTS} point states, got {len(self.points)}")
        # (members pass as they are: the enum's look-up by value costs ~1 us each, 85 per reading)
        object.__setattr__(self, "squares", tuple(s if type(s) is SquareState else SquareState(s) for s in self.squares))
        object.__setattr__(self, "points", tuple(p if type(p) is PointState else PointState(p) for p in self.points))

    @classmethod
    def from_sets(cls, white=(), black=(), batteries=()) -> "BoardLayout":
        """Build from square / point index collections."""
        white, black, batteries = set(white), set(black), set(batteries)
        if white & black:
            raise ValueError(f"squares {sorted(white & black)} hold a White and a Black robot")
        squares = tuple(
            SquareState.WHITE if i in white else SquareState.BLACK if i in black else SquareState.EMPTY
            for i in range(N_SQUARES)
        )
        points = tuple(PointState.BATTERY if i in batteries else PointState.EMPTY for i in range(N_POINTS))
        return cls(squares, points)

    @property
    def white(self) -> frozenset[int]:
        return frozenset(i for i, s in enumerate(self.squares) if s is SquareState.WHITE)

    @property
    def black(self) -> frozenset[int]:
        return frozenset(i for i, s in enumerate(self.squares) if s is SquareState.BLACK)

    @property
    def batteries(self) -> frozenset[int]:
        return frozenset(i for i, p in enumerate(self.points) if p is PointState.BATTERY)

    def differences(self, other: "BoardLayout") -> list[str]:
        """Names of the fields where two layouts differ (e.g. ``['c3', 'D4']``)."""
        out = [square_name(i) for i in range(N_SQUARES) if self.squares[i] != other.squares[i]]
        out += [point_name(i) for i in range(N_POINTS) if self.points[i] != other.points[i]]
        return out

    def to_text(self) -> str:
        """A small top view (rank 6 on top), for humans: W/B/. on squares, o on batteries."""
        lines = []
        for row in range(6, -1, -1):
            lines.append(" ".join("o" if self.points[row * 7 + c] is PointState.BATTERY else "+" for c in range(7)))
            if row > 0:
                rank = row - 1
                cells = {SquareState.WHITE: "W", SquareState.BLACK: "B", SquareState.EMPTY: " "}
                lines.append(" " + " ".join(cells[self.squares[rank * 6 + f]] for f in range(6)))
        return "\n".join(lines)
