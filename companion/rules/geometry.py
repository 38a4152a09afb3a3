"""Board geometry: squares, points, colours (docs/rules.md, section 1).

Like python-chess, squares and points are plain ints so that move generation
stays fast:

* a square is ``rank * 6 + file`` (``a1`` = 0, ``f1`` = 5, ``f6`` = 35);
* a point is ``row * 7 + col`` (``A1`` = 0, ``G1`` = 6, ``G7`` = 48).

Square (file f, rank r) has the corner points (f, r), (f+1, r), (f, r+1),
(f+1, r+1).
"""

from __future__ import annotations

import enum
from typing import Final

from .errors import NotationError

Square = int
Point = int

FILE_NAMES: Final = "abcdef"
RANK_NAMES: Final = "123456"
COL_NAMES: Final = "ABCDEFG"
ROW_NAMES: Final = "1234567"

SQUARES: Final = tuple(range(36))
POINTS: Final = tuple(range(49))

SQUARE_NAMES: Final = tuple(f + r for r in RANK_NAMES for f in FILE_NAMES)
POINT_NAMES: Final = tuple(c + r for r in ROW_NAMES for c in COL_NAMES)
_SQUARE_BY_NAME: Final = {n: i for i, n in enumerate(SQUARE_NAMES)}
_POINT_BY_NAME: Final = {n: i for i, n in enumerate(POINT_NAMES)}


class Color(enum.Enum):
    """A player. ``value`` is the letter of the position string's side field."""

    WHITE = "w"
    BLACK = "b"

    @property
    def other(self) -> "Color":
        return Color.BLACK if self is Color.WHITE else Color.WHITE

    @property
    def forward(self) -> int:
        """Rank step towards the target row: +1 for White, -1 for Black."""
        return 1 if self is Color.WHITE else -1

    @property
    def target_rank(self) -> int:
        """Rank index (0-based) of the target row: rank 6 for White, rank 1 for Black."""
        return 5 if self is Color.WHITE else 0

    @property
    def label(self) -> str:
        return "White" if self is Color.WHITE else "Black"

    def __str__(self) -> str:  # "white" / "black"
        return self.name.lower()


WHITE: Final = Color.WHITE
BLACK: Final = Color.BLACK


def square(file: int, rank: int) -> Square:
    """The square at 0-based ``file`` (a=0) and ``rank`` (1=0)."""
    if not (0 <= file < 6 and 0 <= rank < 6):
        raise NotationError(f"square off the board: file {file}, rank {rank}")
    return rank * 6 + file


def point(col: int, row: int) -> Point:
    """The point at 0-based ``col`` (A=0) and ``row`` (1=0)."""
    if not (0 <= col < 7 and 0 <= row < 7):
        raise NotationError(f"point off the board: col {col}, row {row}")
    return row * 7 + col


def square_file(sq: Square) -> int:
    return sq % 6


def square_rank(sq: Square) -> int:
    return sq // 6


def point_col(pt: Point) -> int:
    return pt % 7


def point_row(pt: Point) -> int:
    return pt // 7


def square_name(sq: Square) -> str:
    return SQUARE_NAMES[sq]


def point_name(pt: Point) -> str:
    return POINT_NAMES[pt]


def parse_square(name: str) -> Square:
    """``'c3'`` -> square index. Raises NotationError naming the token."""
    try:
        return _SQUARE_BY_NAME[name]
    except KeyError:
        raise NotationError(f"bad square {name!r}") from None


def parse_point(name: str) -> Point:
    """``'C3'`` -> point index. Raises NotationError naming the token."""
    try:
        return _POINT_BY_NAME[name]
    except KeyError:
        raise NotationError(f"bad point {name!r}") from None


def _corners(sq: Square) -> tuple[Point, ...]:
    f, r = sq % 6, sq // 6
    return (r * 7 + f, r * 7 + f + 1, (r + 1) * 7 + f, (r + 1) * 7 + f + 1)


def _around(pt: Point) -> tuple[Square, ...]:
    c, r = pt % 7, pt // 7
    out = []
    for f in (c - 1, c):
        for rk in (r - 1, r):
            if 0 <= f < 6 and 0 <= rk < 6:
                out.append(rk * 6 + f)
    return tuple(sorted(out))


#: CORNERS[sq] -> the four corner points of a square (its energy sources).
CORNERS: Final = tuple(_corners(sq) for sq in SQUARES)
#: AROUND[pt] -> the (up to four) squares around a point (its control area).
AROUND: Final = tuple(_around(pt) for pt in POINTS)
