"""Robot moves (docs/rules.md, section 2.1): where a robot may go, what it may pass, what a move costs.

The one home of these rules:

* :func:`move_cost` -- one point a square, +1 a robot jumped over, +1 for a
  capture (R-12, R-24);
* :func:`strength` -- a square's strength for ``strength-capture`` (R-9);
* :func:`robot_steps` -- the generator of single moves with their costs,
  behind apply, explain, outcomes, status and the hints' Python search;
* :func:`judge_move` -- one written or seen move judged against these rules,
  for apply's reasons and explain's diagnoses.

What a move may pass over is the profile's ``passable`` hook (own robots,
:class:`.variants.base.Variant`; enemy ones too under ``jump-enemies``, R-12,
:mod:`.variants.jump_enemies`), which captures it may make its
``may_capture`` (``strength-capture``, R-9, :mod:`.variants.strength_capture`).
The hints' evaluation asks those hooks and :func:`move_cost` too, and the
hints' compiled core (``companion/hints/fastcore.py``) compiles these very
functions with numba.  Energy is :mod:`.energy`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, NamedTuple

from .geometry import BLACK, WHITE, Color, Square, square_name
from .masks import CORNER_LAYERS, grid_ray

if TYPE_CHECKING:
    from .options import Rules

#: ROBOT_RAYS[color][sq] -> the rays a robot may move along: forward, left, right (section 2.1).
ROBOT_RAYS: dict[Color, tuple[tuple[tuple[int, ...], ...], ...]] = {
    c: tuple(
        tuple(r for r in (grid_ray(s, 6, 0, c.forward), grid_ray(s, 6, -1, 0), grid_ray(s, 6, 1, 0)) if r)
        for s in range(36)
    )
    for c in (WHITE, BLACK)
}

# faults of a single move, in the order :func:`judge_move` looks for them
DIAGONAL = "diagonal"
BACKWARD = "backward"
ENEMY_IN_WAY = "enemy in the way"
STRONGER_VICTIM = "stronger victim"


def move_cost(squares: int, jumped: int, capture: bool) -> int:
    """The energy a move costs: one point for each of the ``squares`` travelled,
    +1 for each robot ``jumped`` over (own ones; enemy ones under
    ``jump-enemies``, R-12), +1 if it ``capture``s.

    The German rulebook's examples: 1 square 1, 2 squares 2, capture the
    adjacent enemy 2, jump the adjacent own robot 3, jump it and capture the
    enemy behind it 4.  R-24: the English text's "jump over own robot on next
    space = 2 batteries" is a misprint; it is 3 here.  Compiled as it stands
    by the hints' core."""
    return squares + jumped + (1 if capture else 0)


#: :func:`move_cost` of every move on the board, looked up at ``squares << 3 | jumped`` (at most 6
#: squares, 5 robots jumped): the generator's inner loop reads the one home's costs from these
#: tables instead of calling it for every square it looks at
_PLAIN_COST = tuple(move_cost(i >> 3, i & 7, False) for i in range(64))
_CAPTURE_COST = tuple(move_cost(i >> 3, i & 7, True) for i in range(64))


def strength(batteries: int, sq: Square) -> int:
    """R-9: a square's strength is the number of batteries on its four corners
    (R-21: every battery of a stack; ``batteries`` layered, :func:`.masks.layered`)."""
    return (CORNER_LAYERS[sq] & batteries).bit_count()


class Step(NamedTuple):
    """One legal single robot move in the current state, with its cost."""

    src: int
    dst: int
    capture: bool
    cost: int
    jumped_own: int
    jumped_enemy: int


def straight_path(src: Square, dst: Square) -> list[Square] | None:
    """The squares strictly between ``src`` and ``dst`` on their common file or
    rank, or None when they share neither (a diagonal or cornered move)."""
    fs, rs, fd, rd = src % 6, src // 6, dst % 6, dst // 6
    if fs != fd and rs != rd:
        return None
    df = (fd > fs) - (fd < fs)
    dr = (rd > rs) - (rd < rs)
    path = []
    f, r = fs + df, rs + dr
    while (f, r) != (fd, rd):
        path.append(r * 6 + f)
        f, r = f + df, r + dr
    return path


def robot_steps(own: int, enemy: int, sq: int, color: Color, cap: int, rules: Rules, batteries: int) -> Iterator[Step]:
    """Single moves of the robot on ``sq`` costing at most ``cap`` energy.

    Forward or sideways in a straight line over N >= 1 squares, over robots
    it may pass (the profile's ``passable``), landing on an empty square or
    capturing an enemy (the profile's ``may_capture``); a capture ends the move.  Costs are
    :func:`move_cost`'s (read from its tables).
    """
    if cap <= 0:
        return
    over = rules.passable(own, enemy)
    may_capture = rules.may_capture
    occupied = own | enemy
    for ray in ROBOT_RAYS[color][sq]:
        jo = je = 0
        n = 0
        for t in ray:
            n += 1
            base = _PLAIN_COST[n << 3 | (jo + je)]
            if base > cap:
                break
            bit = 1 << t
            if not occupied & bit:
                yield Step(sq, t, False, base, jo, je)
                continue
            if enemy & bit:
                cost = _CAPTURE_COST[n << 3 | (jo + je)]
                if cost <= cap and may_capture(batteries, sq, t):
                    yield Step(sq, t, True, cost, jo, je)
            if not over & bit:
                break
            if own & bit:
                jo += 1
            else:
                je += 1


@dataclass(frozen=True, slots=True)
class MoveCheck:
    """A single robot move judged by :func:`judge_move`.

    ``fault`` is None or the first rule it breaks (``DIAGONAL``, ``BACKWARD``,
    ``ENEMY_IN_WAY`` at square ``at``, ``STRONGER_VICTIM`` with the
    ``attacker`` and ``victim`` strengths); ``cost`` and the jump counts are
    set when it is straight and forward or sideways.
    """

    fault: str | None
    cost: int = 0
    jumped_own: int = 0
    jumped_enemy: int = 0
    at: int = -1
    attacker: int = 0
    victim: int = 0


def judge_move(
    src: Square, dst: Square, color: Color, own: int, enemy: int, capture: bool, batteries: int, rules: Rules
) -> MoveCheck:
    """The move ``src``-``dst`` of a ``color`` robot among robots ``own`` and
    ``enemy`` (the squares it passes are judged by them), capturing or not,
    against the rules of this module.  Energy is not judged here."""
    path = straight_path(src, dst)
    if path is None:
        return MoveCheck(DIAGONAL)
    if src % 6 == dst % 6 and (dst // 6 - src // 6) * color.forward < 0:
        return MoveCheck(BACKWARD)
    over = rules.passable(own, enemy)
    jo = sum(1 for s in path if own >> s & 1)
    je = sum(1 for s in path if enemy >> s & 1)
    cost = move_cost(len(path) + 1, jo + je, capture)
    blocked = next((s for s in path if ((own | enemy) & ~over) >> s & 1), None)
    if blocked is not None:
        return MoveCheck(ENEMY_IN_WAY, cost, jo, je, at=blocked)
    if capture and not rules.may_capture(batteries, src, dst):
        return MoveCheck(STRONGER_VICTIM, cost, jo, je, attacker=strength(batteries, src), victim=strength(batteries, dst))
    return MoveCheck(None, cost, jo, je)


def move_label(src: int, dst: int) -> str:
    return f"{square_name(src)}\u2192{square_name(dst)}"
