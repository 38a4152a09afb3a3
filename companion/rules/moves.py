"""Moves and turns, and the turn string format (docs/rules.md, section 5).

``c1-c3`` robot move, ``d4xd5`` robot capture, ``C2-C4`` battery move; a turn
is its robot moves then its battery moves, in the order played.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import NotationError
from .geometry import (
    Point,
    Square,
    parse_point,
    parse_square,
    point_name,
    square_name,
)


@dataclass(frozen=True, slots=True)
class RobotMove:
    src: Square
    dst: Square
    capture: bool = False

    def __str__(self) -> str:
        return f"{square_name(self.src)}{'x' if self.capture else '-'}{square_name(self.dst)}"


@dataclass(frozen=True, slots=True)
class BatteryMove:
    src: Point
    dst: Point

    def __str__(self) -> str:
        return f"{point_name(self.src)}-{point_name(self.dst)}"


_ROBOT_TOKEN = re.compile(r"^([a-z]+\d+)([-x])([a-z]+\d+)$")
_BATTERY_TOKEN = re.compile(r"^([A-Z]+\d+)([-x])([A-Z]+\d+)$")
_ANY_TOKEN = re.compile(r"^([A-Za-z]+\d+)([-x])([A-Za-z]+\d+)$")


@dataclass(frozen=True, slots=True)
class Turn:
    """One whole turn: robot phase (at least one move) then battery phase."""

    robot_moves: tuple[RobotMove, ...]
    battery_moves: tuple[BatteryMove, ...] = ()

    def __post_init__(self) -> None:
        if not self.robot_moves:
            raise NotationError("a turn needs at least one robot move")

    @classmethod
    def parse(cls, text: str) -> "Turn":
        """Parse a turn string. R-17: runs of whitespace separate moves.

        Errors name the offending token, e.g. ``bad square 'g7' in turn 'c1-c2 g7-g8'``.
        """
        if not isinstance(text, str):
            raise NotationError(f"a turn string must be text, not {type(text).__name__}")
        tokens = text.split()
        shown = " ".join(tokens)
        if not tokens:
            raise NotationError("empty turn: a turn needs at least one robot move")
        robots: list[RobotMove] = []
        batteries: list[BatteryMove] = []
        for tok in tokens:
            m = _ANY_TOKEN.match(tok)
            if not m:
                raise NotationError(f"bad move {tok!r} in turn {shown!r}: expected e.g. 'c1-c2', 'd4xd5' or 'C2-C3'")
            a, sep, b = m.groups()
            if _ROBOT_TOKEN.match(tok):
                for name in (a, b):
                    try:
                        parse_square(name)
                    except NotationError:
                        raise NotationError(f"bad square {name!r} in turn {shown!r}") from None
                if batteries:
                    raise NotationError(
                        f"robot move {tok!r} after a battery move in turn {shown!r}: robots move first"
                    )
                robots.append(RobotMove(parse_square(a), parse_square(b), sep == "x"))
            elif _BATTERY_TOKEN.match(tok):
                for name in (a, b):
                    try:
                        parse_point(name)
                    except NotationError:
                        raise NotationError(f"bad point {name!r} in turn {shown!r}") from None
                if sep == "x":
                    raise NotationError(f"bad battery move {tok!r} in turn {shown!r}: batteries move with '-', they never capture")
                if not robots:
                    raise NotationError(
                        f"battery move {tok!r} with no robot move before it in turn {shown!r}: "
                        "a turn starts with at least one robot move"
                    )
                batteries.append(BatteryMove(parse_point(a), parse_point(b)))
            else:
                raise NotationError(
                    f"bad move {tok!r} in turn {shown!r}: it mixes a square (a1..f6) and a point (A1..G7)"
                )
        return cls(tuple(robots), tuple(batteries))

    def __str__(self) -> str:
        return " ".join([*(str(m) for m in self.robot_moves), *(str(m) for m in self.battery_moves)])
