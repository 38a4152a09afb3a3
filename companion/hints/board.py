"""The search's board: a position as four plain values (bitmasks and the side).

Search touches millions of boards, so it works on ``Board`` (a NamedTuple of
ints) instead of :class:`~companion.rules.position.Position`; the conversions are
here, together with the win rules of section 3 (R-5, R-15, R-18) on masks.
"""

from __future__ import annotations

from typing import NamedTuple

from ..rules.energy import drawable, sources_by_square
from ..rules.engine import PhaseContext, initial_state, successors
from ..rules.geometry import BLACK, WHITE, Color
from ..rules.masks import CORNER_MASK, POINTS, TARGET_RANK_MASK, bits, layered, mask_of, points_of, stacks_of
from ..rules.options import Rules
from ..rules.position import Position
from ..rules.robot_moves import ROBOT_RAYS

WIN = 1_000_000.0
"""The value of a won position (a lost one is ``-WIN``): the hint's "+inf"."""


class Board(NamedTuple):
    own: int  # robots of the side to move
    enemy: int  # robots of the other side
    bats: int  # batteries, layered (rules.masks.layered: a stack's batteries are bits of their own)
    side: Color  # the side to move

    @classmethod
    def of(cls, pos: Position) -> "Board":
        c = pos.to_move
        return cls(mask_of(pos.robots(c)), mask_of(pos.robots(c.other)), layered(pos.batteries, pos.stacks), c)

    def position(self) -> Position:
        white, black = (self.own, self.enemy) if self.side is WHITE else (self.enemy, self.own)
        return Position(
            frozenset(bits(white)), frozenset(bits(black)), frozenset(bits(points_of(self.bats))), self.side,
            stacks_of(self.bats),
        )

    def swapped(self) -> "Board":
        """The same placement with the other side to move."""
        return Board(self.enemy, self.own, self.bats, self.side.other)


def phase_context(own: int, enemy: int, bats: int, side: Color, rules: Rules) -> PhaseContext:
    """The engine's robot-phase context built straight from masks (energy sources by R-10)."""
    return PhaseContext(side, rules, bats, sources_by_square(own, enemy, bats, rules))


def phase_start(own: int, enemy: int):
    """The engine's initial robot-phase state for robots ``own`` against ``enemy``."""
    return _initial_state_masks(own, enemy)


def _initial_state_masks(own: int, enemy: int):
    # initial_state wants a Position; the state is a plain NamedTuple, so build it directly.
    st = _INITIAL_TEMPLATE
    return st._replace(own=own, enemy=enemy)


_INITIAL_TEMPLATE = initial_state(Position.start())


def needed(n: int) -> int:
    """Robots needed on the target row with ``n`` left: ceil(n/2)."""
    return (n + 1) // 2


_TARGET_W, _TARGET_B = TARGET_RANK_MASK[WHITE], TARGET_RANK_MASK[BLACK]


def meets_target(robots: int, color: Color) -> bool:
    n = robots.bit_count()
    return n > 0 and (robots & (_TARGET_W if color is WHITE else _TARGET_B)).bit_count() >= (n + 1) >> 1


def has_won(robots: int, enemy: int, color: Color) -> bool:
    """Section 3 / R-15 for one player: capture-all or the target-row rule."""
    if enemy == 0 and robots:
        return True
    return meets_target(robots, color)


_RAYS_W, _RAYS_B = ROBOT_RAYS[WHITE], ROBOT_RAYS[BLACK]
_BITS: dict[int, tuple[int, ...]] = {}


def squares_of(mask: int) -> tuple[int, ...]:
    """The set bits of ``mask`` as a tuple (cached: search meets the same masks again and again)."""
    r = _BITS.get(mask)
    if r is None:
        r = tuple(bits(mask))
        if len(_BITS) < 500_000:
            _BITS[mask] = r
    return r


def has_move(own: int, enemy: int, bats: int, side: Color, rules: Rules) -> bool:
    """R-18: can ``side`` (robots ``own``) make any legal robot move?

    Fast path: a robot touching a battery it may draw from (R-10) with an
    empty neighbour square forward or sideways has a 1-point move.  Otherwise
    the engine's successor generator decides.
    """
    allowed = drawable(own, enemy, bats & POINTS, rules)
    occupied = own | enemy
    rays = _RAYS_W if side is WHITE else _RAYS_B
    for sq in squares_of(own):
        if CORNER_MASK[sq] & allowed:
            for ray in rays[sq]:
                if not occupied >> ray[0] & 1:
                    return True
    ctx = phase_context(own, enemy, bats, side, rules)
    for _ in successors(phase_start(own, enemy), ctx):
        return True
    return False


def winner_after(mover_robots: int, other_robots: int, bats: int, mover: Color, rules: Rules) -> Color | None:
    """Who has won at the end of ``mover``'s turn (R-5, R-15, R-18), or None.

    ``mover_robots``/``other_robots`` are the robots as they stand after the
    turn; the other side is then to move.
    """
    white = mover is WHITE
    other = BLACK if white else WHITE
    if not other_robots:
        return mover  # capture-all (or, impossibly, no robots left at all)
    m_target, o_target = (_TARGET_W, _TARGET_B) if white else (_TARGET_B, _TARGET_W)
    n = mover_robots.bit_count()
    if n and (mover_robots & m_target).bit_count() >= (n + 1) >> 1:
        return mover
    if not mover_robots:
        return other
    n = other_robots.bit_count()
    if (other_robots & o_target).bit_count() >= (n + 1) >> 1:
        return other
    if not has_move(other_robots, mover_robots, bats, other, rules):
        return mover
    return None


def winner_of(board: Board, rules: Rules) -> Color | None:
    """The winner of a position (judged as at the end of the previous turn), or None."""
    return winner_after(board.enemy, board.own, board.bats, board.side.other, rules)
