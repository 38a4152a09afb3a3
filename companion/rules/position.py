"""The immutable position and its string format (docs/rules.md, section 5).

``<robots> <batteries> <side>`` -- e.g. the start position
``BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w``.  In the batteries
field ``y`` is a stack of two batteries and ``z`` a stack of three (R-19);
a position holds them whatever the rules profile, and the rules operations
refuse them without the option ``stacking``
(:meth:`companion.rules.options.Rules.check_stacks`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from .errors import NotationError
from .geometry import (
    AROUND,
    BLACK,
    WHITE,
    Color,
    Point,
    Square,
    point_name,
    square_name,
)

START_STRING = "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"
BATTERY_COUNT = 14
MAX_ROBOTS = 6


@dataclass(frozen=True, slots=True)
class Position:
    """Robots, batteries and the side to move. Hashable, immutable.

    ``white`` / ``black`` are frozensets of square indices, ``batteries`` a
    frozenset of point indices (see :mod:`companion.rules.geometry`): the
    points holding at least one battery.  ``stacks`` are the points holding
    more than one (R-19), as (point, height) with height 2 or 3; the
    batteries are counted one by one (14 in all).
    """

    white: frozenset[Square]
    black: frozenset[Square]
    batteries: frozenset[Point]
    to_move: Color = WHITE
    stacks: frozenset[tuple[Point, int]] = frozenset()

    def __post_init__(self) -> None:
        if self.white & self.black:
            both = ", ".join(square_name(s) for s in sorted(self.white & self.black))
            raise NotationError(f"two robots on one square: {both}")
        for name, robots in (("White", self.white), ("Black", self.black)):
            if len(robots) > MAX_ROBOTS:
                raise NotationError(f"{len(robots)} {name} robots: at most {MAX_ROBOTS}")
            if any(not 0 <= s < 36 for s in robots):
                raise NotationError(f"{name} robot off the board")
        _check_stacks(self.batteries, self.stacks)
        if battery_count(self.batteries, self.stacks) != BATTERY_COUNT:
            raise NotationError(
                f"{battery_count(self.batteries, self.stacks)} batteries on the board: there must be exactly {BATTERY_COUNT}"
            )
        if any(not 0 <= p < 49 for p in self.batteries):
            raise NotationError("battery off the board")

    # -- construction -------------------------------------------------
    @classmethod
    def start(cls, to_move: Color = WHITE) -> "Position":
        """The start position (docs/rules.md, section 1); R-1: the starting side is configurable."""
        return cls.from_string(START_STRING).with_side(to_move)

    @classmethod
    def from_string(cls, text: str) -> "Position":
        """Parse a position string; R-17: runs of whitespace separate the fields."""
        if not isinstance(text, str):
            raise NotationError(f"a position string must be text, not {type(text).__name__}")
        fields = text.split()
        if len(fields) != 3:
            raise NotationError(
                f"position {text.strip()!r} has {len(fields)} field(s): expected 3 "
                "(robots, batteries, side)"
            )
        white, black = parse_robots(fields[0])
        batteries, stacks = parse_battery_stacks(fields[1])
        side = fields[2]
        if side == "w":
            to_move = WHITE
        elif side == "b":
            to_move = BLACK
        else:
            raise NotationError(f"bad side {side!r}: expected 'w' or 'b'")
        return cls(white, black, batteries, to_move, stacks)

    # -- queries ------------------------------------------------------
    def robots(self, color: Color) -> frozenset[Square]:
        return self.white if color is WHITE else self.black

    def piece_at(self, sq: Square) -> Color | None:
        if sq in self.white:
            return WHITE
        if sq in self.black:
            return BLACK
        return None

    def has_battery(self, pt: Point) -> bool:
        return pt in self.batteries

    def height(self, pt: Point) -> int:
        """How many batteries stand on ``pt`` (0 to 3)."""
        return height_at(self.batteries, self.stacks, pt)

    def robots_around(self, pt: Point) -> tuple[int, int]:
        """(White robots, Black robots) on the squares around a point."""
        w = sum(1 for s in AROUND[pt] if s in self.white)
        b = sum(1 for s in AROUND[pt] if s in self.black)
        return w, b

    def with_side(self, to_move: Color) -> "Position":
        return Position(self.white, self.black, self.batteries, to_move, self.stacks)

    def placement_key(self) -> tuple:
        """Everything but the side to move (what the camera sees); the stacks
        only when there are any, so that a board without stacks keeps its key."""
        if self.stacks:
            return (self.white, self.black, self.batteries, self.stacks)
        return (self.white, self.black, self.batteries)

    # -- formatting ---------------------------------------------------
    def robots_field(self) -> str:
        return format_robots(self.white, self.black)

    def batteries_field(self) -> str:
        return format_batteries(self.batteries, self.stacks)

    def to_string(self) -> str:
        """The canonical position string (R-17: digits merged)."""
        return f"{self.robots_field()} {self.batteries_field()} {self.to_move.value}"

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"Position({self.to_string()!r})"

    def __iter__(self) -> Iterator[Square]:  # pragma: no cover - convenience
        return iter(sorted(self.white | self.black))


def _parse_rows(field: str, *, what: str, count: int, width: int, pieces: dict[str, str]) -> list[list[str | None]]:
    rows = field.split("/")
    if len(rows) != count:
        raise NotationError(f"{what} field {field!r} has {len(rows)} {'ranks' if width == 6 else 'lines'}: expected {count}")
    out: list[list[str | None]] = []
    unit = "rank" if width == 6 else "line"
    for i, row in enumerate(rows):
        label = f"{unit} {count - i}"
        cells: list[str | None] = []
        for ch in row:
            if ch in pieces:
                cells.append(pieces[ch])
            elif ch.isdigit() and ch.isascii():
                n = int(ch)
                if n < 1 or n > width:
                    raise NotationError(f"bad digit {ch!r} in {label} {row!r}: must be 1 to {width}")
                cells.extend([None] * n)
            else:
                raise NotationError(f"bad character {ch!r} in {label} {row!r}")
        if len(cells) != width:
            raise NotationError(f"{label} {row!r} covers {len(cells)} {'squares' if width == 6 else 'points'}: expected exactly {width}")
        out.append(cells)
    return out


def parse_robots(field: str) -> tuple[frozenset[Square], frozenset[Square]]:
    """The robots field: ranks 6 down to 1, ``W``/``B``/digits."""
    rows = _parse_rows(field, what="robots", count=6, width=6, pieces={"W": "W", "B": "B"})
    white: set[int] = set()
    black: set[int] = set()
    for i, row in enumerate(rows):
        rank = 5 - i
        for f, cell in enumerate(row):
            if cell == "W":
                white.add(rank * 6 + f)
            elif cell == "B":
                black.add(rank * 6 + f)
    for name, robots in (("White", white), ("Black", black)):
        if len(robots) > MAX_ROBOTS:
            raise NotationError(f"robots field {field!r} has {len(robots)} {name} robots: at most {MAX_ROBOTS}")
    return frozenset(white), frozenset(black)


#: the batteries field's letters: a battery, a stack of two, a stack of three (R-19)
HEIGHT_OF = {"x": 1, "y": 2, "z": 3}
LETTER_OF = {h: ch for ch, h in HEIGHT_OF.items()}


def _battery_cells(field: str) -> tuple[frozenset[Point], frozenset[tuple[Point, int]]]:
    rows = _parse_rows(field, what="batteries", count=7, width=7, pieces={ch: ch for ch in HEIGHT_OF})
    cells = {(6 - i) * 7 + c: HEIGHT_OF[cell] for i, row in enumerate(rows) for c, cell in enumerate(row) if cell}
    return frozenset(cells), frozenset((p, h) for p, h in cells.items() if h > 1)


def parse_battery_stacks(field: str) -> tuple[frozenset[Point], frozenset[tuple[Point, int]]]:
    """The batteries field: lines 7 down to 1, ``x``/``y``/``z``/digits; the
    occupied points and the stacks (R-19), exactly 14 batteries counted one by one."""
    pts, stacks = _battery_cells(field)
    n = battery_count(pts, stacks)
    if n != BATTERY_COUNT:
        raise NotationError(
            f"batteries field {field!r} has {n} batteries: there must be exactly {BATTERY_COUNT}"
        )
    return pts, stacks


def parse_batteries(field: str) -> frozenset[Point]:
    """The batteries field's occupied points (see :func:`parse_battery_stacks`)."""
    return parse_battery_stacks(field)[0]


def battery_count(batteries: frozenset[Point], stacks: frozenset[tuple[Point, int]]) -> int:
    """The batteries counted one by one: a stack of three counts three (R-19)."""
    return len(batteries) + sum(h - 1 for _, h in stacks)


def height_at(batteries: frozenset[Point], stacks: frozenset[tuple[Point, int]], pt: Point) -> int:
    if pt not in batteries:
        return 0
    for p, h in stacks:
        if p == pt:
            return h
    return 1


def _check_stacks(batteries: frozenset[Point], stacks: frozenset[tuple[Point, int]]) -> None:
    seen = set()
    for p, h in stacks:
        if h not in (2, 3):
            raise NotationError(f"a stack of {h} batteries on {point_name(p)}: a stack holds 2 or 3 (R-19)")
        if p not in batteries:
            raise NotationError(f"a stack on {point_name(p)}, which holds no battery")
        if p in seen:
            raise NotationError(f"two stacks on {point_name(p)}")
        seen.add(p)


def stack_text(stacks: frozenset[tuple[Point, int]]) -> str:
    """``C3 (2), E5 (3)``: the stacks of a position, for messages."""
    return ", ".join(f"{point_name(p)} ({h})" for p, h in sorted(stacks))


def _format_rows(width: int, count: int, cell) -> str:
    rows = []
    for i in range(count):
        row_index = count - 1 - i
        s, run = [], 0
        for c in range(width):
            ch = cell(row_index, c)
            if ch is None:
                run += 1
            else:
                if run:
                    s.append(str(run))
                    run = 0
                s.append(ch)
        if run:
            s.append(str(run))
        rows.append("".join(s))
    return "/".join(rows)


def format_robots(white: frozenset[Square], black: frozenset[Square]) -> str:
    def cell(rank: int, f: int) -> str | None:
        sq = rank * 6 + f
        return "W" if sq in white else "B" if sq in black else None

    return _format_rows(6, 6, cell)


def format_batteries(batteries: frozenset[Point], stacks: frozenset[tuple[Point, int]] = frozenset()) -> str:
    heights = dict(stacks)

    def cell(row: int, c: int) -> str | None:
        p = row * 7 + c
        return LETTER_OF[heights.get(p, 1)] if p in batteries else None

    return _format_rows(7, 7, cell)


def describe_square(pos: Position, sq: Square) -> str:
    c = pos.piece_at(sq)
    return f"{c.label} robot {square_name(sq)}" if c else f"empty square {square_name(sq)}"


def describe_point(pos: Position, pt: Point) -> str:
    h = pos.height(pt)
    if h > 1:
        return f"stack of {h} batteries {point_name(pt)}"
    return f"battery {point_name(pt)}" if h else f"empty point {point_name(pt)}"


@dataclass(frozen=True, slots=True)
class Placement:
    """What is on the board, without the position's validity checks.

    A camera reading may be impossible (13 batteries, 7 robots of a colour):
    :func:`companion.rules.explain.explain` takes a Placement so that it can
    diagnose such boards instead of refusing them.
    """

    white: frozenset[Square]
    black: frozenset[Square]
    batteries: frozenset[Point]
    stacks: frozenset[tuple[Point, int]] = frozenset()

    @classmethod
    def from_fields(cls, robots: str, batteries: str) -> "Placement":
        """Parse the robots and batteries fields, checking only their syntax."""
        rows = _parse_rows(robots, what="robots", count=6, width=6, pieces={"W": "W", "B": "B"})
        white = frozenset((5 - i) * 6 + f for i, row in enumerate(rows) for f, c in enumerate(row) if c == "W")
        black = frozenset((5 - i) * 6 + f for i, row in enumerate(rows) for f, c in enumerate(row) if c == "B")
        bats, stacks = _battery_cells(batteries)
        return cls(white, black, bats, stacks)

    @classmethod
    def from_string(cls, text: str) -> "Placement":
        """Parse ``<robots> <batteries> [side]`` leniently (the side, if given, is ignored)."""
        fields = text.split()
        if len(fields) not in (2, 3):
            raise NotationError(
                f"board {text.strip()!r} has {len(fields)} field(s): expected robots and batteries (and a side)"
            )
        if len(fields) == 3 and fields[2] not in ("w", "b"):
            raise NotationError(f"bad side {fields[2]!r}: expected 'w' or 'b'")
        return cls.from_fields(fields[0], fields[1])

    @classmethod
    def of(cls, pos: "Position | Placement") -> "Placement":
        if isinstance(pos, Placement):
            return pos
        return cls(pos.white, pos.black, pos.batteries, pos.stacks)

    def robots(self, color: Color) -> frozenset[Square]:
        return self.white if color is WHITE else self.black

    def battery_count(self) -> int:
        return battery_count(self.batteries, self.stacks)

    def height(self, pt: Point) -> int:
        return height_at(self.batteries, self.stacks, pt)

    def fields(self) -> str:
        return f"{format_robots(self.white, self.black)} {format_batteries(self.batteries, self.stacks)}"

    def __str__(self) -> str:
        return self.fields()
