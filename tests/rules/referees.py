"""Two referees behind one small interface, so that every hand-worked rules
test runs against the engine *and* against the naive oracle (which checks the
oracle itself before it is trusted for the big cross-checks).

Also the board-building helper used by the hand-worked tests.
"""

from __future__ import annotations

from typing import Iterable

import naive
from companion.rules.geometry import AROUND, CORNERS, Color, parse_point, parse_square
from companion.rules.position import Position


class Illegal(Exception):
    """Either referee's verdict that a turn is illegal."""


class EngineReferee:
    name = "engine"

    @staticmethod
    def rules(options: Iterable[str] = ()):
        from companion.rules.options import Rules

        options = list(options)
        return Rules.from_names(options) if options else Rules()

    def apply(self, pos: Position, turn: str, options: Iterable[str] = ()) -> Position:
        from companion.rules.engine import apply_turn
        from companion.rules.errors import IllegalTurn

        try:
            return apply_turn(pos, turn, self.rules(options))
        except IllegalTurn as e:
            assert isinstance(e.reason, str) and e.reason.strip(), "IllegalTurn without a reason"
            raise Illegal(e.reason) from e

    def result(self, pos: Position, options: Iterable[str] = ()) -> str:
        from companion.rules.engine import status

        st = status(pos, self.rules(options))
        assert st.result in {"ongoing", "white wins", "black wins"}, st.result
        expected_winner = {"ongoing": None, "white wins": Color.WHITE, "black wins": Color.BLACK}[st.result]
        assert st.winner is expected_winner, (st.result, st.winner)
        assert isinstance(st.reason, str)
        return st.result

    def robot_outcomes(self, pos: Position, options: Iterable[str] = ()) -> set:
        from companion.rules.engine import robot_phase_outcomes

        return set(robot_phase_outcomes(pos, self.rules(options)))

    def battery_outcomes(self, pos: Position, options: Iterable[str] = ()) -> set:
        from companion.rules.engine import battery_phase_outcomes

        return set(battery_phase_outcomes(pos, self.rules(options)))


class NaiveReferee:
    name = "naive"

    def apply(self, pos: Position, turn: str, options: Iterable[str] = ()) -> Position:
        try:
            return naive.apply(pos, turn, options)
        except naive.NaiveIllegal as e:
            raise Illegal(str(e)) from e

    def result(self, pos: Position, options: Iterable[str] = ()) -> str:
        return naive.status(pos, options).result

    def robot_outcomes(self, pos: Position, options: Iterable[str] = ()) -> set:
        return naive.robot_outcomes(pos, options)

    def battery_outcomes(self, pos: Position, options: Iterable[str] = ()) -> set:
        return naive.battery_outcomes(pos, options)


REFEREES = {"engine": EngineReferee(), "naive": NaiveReferee()}

# Where spare batteries are parked (to make 14): far corners first.
_PARKING = [parse_point(n) for n in (
    "G7 F7 E7 D7 C7 B7 A7 G1 F1 E1 D1 C1 B1 A1 G6 G5 G4 G3 G2 A6 A5 A4 A3 A2"
).split()]


def board(white: str = "", black: str = "", bats: str = "", side: str = "w", *,
          fill: bool = True, keep_empty: str = "") -> Position:
    """Build a position from square/point names, e.g.
    ``board("c2 f1", "a6", "C2 G1")``. With ``fill`` the batteries are topped
    up to 14 on parking points that touch no robot (so they give no energy,
    no strength and nobody controls them) and are not listed in ``keep_empty``."""
    w = frozenset(parse_square(s) for s in white.split())
    b = frozenset(parse_square(s) for s in black.split())
    pts = {parse_point(p) for p in bats.split()}
    assert len(pts) == len(bats.split()), "battery listed twice"
    if fill:
        robots = w | b
        blocked = {parse_point(p) for p in keep_empty.split()}
        for p in _PARKING:
            if len(pts) >= 14:
                break
            if p in pts or p in blocked or any(s in robots for s in AROUND[p]):
                continue
            pts.add(p)
        assert len(pts) == 14, f"could not park batteries around {white!r} / {black!r}"
        for s in robots:
            assert len(set(CORNERS[s]) & (pts - {parse_point(p) for p in bats.split()})) == 0
    return Position(w, b, frozenset(pts), Color(side))
