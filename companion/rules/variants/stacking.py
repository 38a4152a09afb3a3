"""Options ``stacking`` and ``stack-unsplit`` (German variant 3 and its alternative): battery stacks.

R-19: a point holds 0 to 3 batteries; a point with 2 or 3 is a *stack*.  The
batteries are still counted one by one (14 in all).  Without ``stacking`` a
rules operation refuses a position holding a stack (the original rules'
``check_stacks``); with it, stacks are part of the position.

R-20: a battery move is either (a) the ordinary move along a line to the
next empty point, passing over single batteries but never over a stack, or
(b) a *stacking step*: one point along a line onto the adjacent point when
it holds one or two batteries.  The destination tells the two apart.  Only
the top battery of a stack moves; a battery that moved this turn lies on
top of the stack it joined and may not move again (R-4), so nothing leaves
that stack for the rest of the turn, while another battery may still join it
below three.  The battery a leaving one uncovers has not moved and may move
later in the turn.  Control is judged at the point the battery leaves; a
stacking step uses its energy line like any move.

R-21: each battery of a stack on a corner of the robot's square gives one
point.  Under ``stacking`` the points of one stack may go to different
robots; under ``stack-unsplit`` every point a stack gives this turn goes to
the same robot.  Strength (``strength-capture``) counts every battery.

R-22: battery-phase outcomes are placements with heights.

The batteries are one int of layers (:func:`..masks.layered`): bit p for the
first battery on point p, ``LAYER + p`` for the second, ``2 * LAYER + p``
for the third, so that counting bits counts batteries.  Energy and strength
count the layers of a square's corners (the engine's energy sources are
layered; :func:`..robot_moves.strength` counts ``CORNER_LAYERS``), which is
R-21's sharing under ``stacking``; ``stack-unsplit`` adds
:meth:`StackUnsplit.energy_assignable`.
"""

from __future__ import annotations

from typing import Iterator

from ..battery_moves import BATTERY_RAYS
from ..geometry import Point, point_name
from ..masks import LAYER, POINTS, bits, height
from .base import Variant

_TWO = LAYER
_THREE = 2 * LAYER


class Stacking(Variant):
    name = "stacking"
    help = "up to three batteries on one point; a stack's energy may be shared among robots (R-19..R-22)"
    jit_flag = 64
    camera_gap = "the camera does not yet report how many batteries stand on a point"

    @staticmethod
    def check_stacks(stacks: frozenset[tuple[Point, int]]) -> None:
        """R-19: stacks are part of the position."""
        return None

    @staticmethod
    def battery_steps(bats: int, movable: int, closed: int) -> Iterator[tuple[int, int, int]]:
        """R-20: (a) to the next empty point, over single batteries only, and
        (b) the stacking step onto an adjacent point holding one or two."""
        for p in bits(movable):
            for line, ray in BATTERY_RAYS[p]:
                if closed >> line & 1:
                    continue
                first = ray[0]
                if bats >> first & 1 and not bats >> (_THREE + first) & 1:
                    yield p, first, line  # (b) a stacking step
                for q in ray:
                    if not bats >> q & 1:
                        yield p, q, line  # (a) the next empty point
                        break
                    if bats >> (_TWO + q) & 1:
                        break  # (a) never over a stack

    @staticmethod
    def place(bats: int, p: Point, q: Point) -> int:
        """R-20: the top battery of ``p`` goes on top of ``q``."""
        if bats >> (_THREE + p) & 1:
            bats &= ~(1 << (_THREE + p))
        elif bats >> (_TWO + p) & 1:
            bats &= ~(1 << (_TWO + p))
        else:
            bats &= ~(1 << p)
        if not bats >> q & 1:
            return bats | 1 << q
        if not bats >> (_TWO + q) & 1:
            return bats | 1 << (_TWO + q)
        return bats | 1 << (_THREE + q)

    @staticmethod
    def left_movable(movable: int, after: int, p: Point, q: Point) -> int:
        """R-20 and R-4: the battery on top of ``q`` has moved, so nothing
        leaves ``q`` this turn; the one uncovered on ``p`` (if any) has not
        moved and stays movable."""
        movable &= ~(1 << q)
        if not after >> p & 1:
            movable &= ~(1 << p)
        return movable

    @staticmethod
    def destination_fault(bats: int, src: Point, dst: Point, ray: tuple[int, ...]) -> tuple[str, tuple[int, ...]] | None:
        """R-20, and R-13 as it reads under ``stacking``: the next empty point
        (never past a stack), or the adjacent point for a stacking step."""
        first = ray[0]
        if dst == first and bats >> dst & 1:
            if bats >> (_THREE + dst) & 1:
                return f"{point_name(dst)} holds three batteries: nothing can be put on it (R-19)", (dst,)
            return None
        for q in ray:
            if not bats >> q & 1:
                if q == dst:
                    return None
                if bats >> first & 1 and not bats >> (_THREE + first) & 1:
                    return (
                        f"a battery moves to the next empty point, which is {point_name(q)}, "
                        f"or by a stacking step onto {point_name(first)} (R-13, R-20)",
                        (src, q),
                    )
                return f"a battery moves to the next empty point, which is {point_name(q)} (R-13)", (src, q)
            if bats >> (_TWO + q) & 1:
                if q == dst:
                    break
                return (
                    f"the stack on {point_name(q)} ({height(bats, q)} batteries) is in the way: "
                    "a battery never passes over a stack (R-20)",
                    (src, q),
                )
        if bats >> dst & 1 and dst != first:
            return f"a stacking step goes one point only, onto {point_name(first)} (R-20)", (src, dst)
        return "every point up to the edge is occupied, the battery cannot move that way", (src,)

    #: R-21: a stack's points may go to different robots (the layered sources' bit count says it all)
    energy_assignable = None


class StackUnsplit(Stacking):
    name = "stack-unsplit"
    help = "implies stacking; the energy a stack gives in a turn goes to one robot only (R-21)"
    jit_flag = 128

    @staticmethod
    def energy_assignable(demands: list[tuple[int, int]]) -> bool:
        """R-21 under ``stack-unsplit``: can each robot get its cost when every
        point's batteries (a single one or a whole stack) go to one robot?

        ``demands`` are (layered sources, cost) per moved robot.  The points
        they may draw from become units (biggest first), each with its height
        and the robots that touch it; :func:`whole_points_assignable` decides.
        """
        union = 0
        for src, _ in demands:
            union |= src
        units = sorted(((p, height(union, p)) for p in bits(union & POINTS)), key=lambda u: -u[1])
        heights = [h for _, h in units]
        touch = [sum(1 << i for i, (src, _) in enumerate(demands) if src >> p & 1) for p, _ in units]
        costs = [c for _, c in demands]
        return whole_points_assignable(heights, touch, costs, len(units), len(demands))


def whole_points_assignable(heights, touch, costs, n_units: int, n_robots: int) -> bool:
    """R-21 under ``stack-unsplit`` on plain numbers: can robot ``i`` get
    ``costs[i]`` points for every ``i < n_robots`` when each unit ``k <
    n_units`` (a point: ``heights[k]`` batteries, a single one or a stack)
    gives all its points to one robot among ``touch[k]`` (a bit per robot whose
    start square it is a corner of), or to none?  What a robot gets beyond its
    cost is lost for the turn.

    A depth-first search over the units, each given to a robot that still
    needs points (as much as it needs, at most its height) or to nobody,
    cutting a branch when the units left cannot cover the points still
    needed.  The demands are few (at most six robots, 14 batteries).  Written
    iteratively over indexable sequences of ints so that the hints' compiled
    core (``companion/hints/fastcore.py``) compiles this very function with
    numba: the rule has this one home.
    """
    need = [0] * (n_robots + 1)
    left = 0
    for i in range(n_robots):
        need[i] = costs[i]
        left += costs[i]
    if left <= 0:
        return True
    rest = [0] * (n_units + 1)  # rest[k]: the points of units k.. together
    for k in range(n_units - 1, -1, -1):
        rest[k] = rest[k + 1] + heights[k]
    tried = [-1] * (n_units + 1)  # the robot unit k went to (n_robots: nobody; -1: none yet)
    given = [0] * (n_units + 1)
    k = 0
    while k >= 0:
        i = tried[k]
        if 0 <= i < n_robots:  # take back what unit k gave, to try the next choice
            need[i] += given[k]
            left += given[k]
        if k == n_units or rest[k] < left:
            tried[k] = -1
            k -= 1
            continue
        i += 1
        while i < n_robots and not ((touch[k] >> i) & 1 and need[i] > 0):
            i += 1
        if i > n_robots:  # every choice of unit k tried
            tried[k] = -1
            k -= 1
            continue
        tried[k] = i
        if i < n_robots:
            g = heights[k] if heights[k] < need[i] else need[i]
            given[k] = g
            need[i] -= g
            left -= g
            if left <= 0:
                return True
        k += 1
        tried[k] = -1
    return False
