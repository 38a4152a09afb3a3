"""A deliberately naive rules oracle, written straight from the rulings.

This module knows nothing of ``companion.rules.options``/``moves``/``engine``: it only
uses the board geometry and the position type, and re-derives everything from
``docs/rules.md`` so that the engine can be cross-checked against
an independent reading of the spec. It favours obviousness over speed:

* robot phases are enumerated move by move (every robot at most once, R-2/R-14),
  remembering *states* (placement, which robots moved, what each moved robot
  cost from which start square) rather than sequences;
* the energy rule is checked by brute force: try every way of handing distinct
  batteries on the corners of each moved robot's start square to the robots
  (each battery 1 point, each robot exactly its cost);
* battery phases are enumerated the same way (each battery at most once, R-4;
  each energy line at most once unless ``no-line-limit``).

Battery stacks (``stacking``, ``stack-unsplit``, R-19..R-22) are read from the
rulings as well, a point's batteries as a height: under ``stacking`` every
battery of a stack is one battery to hand out (energy, strength); under
``stack-unsplit`` each point's batteries go whole to one robot, tried for every
way of giving each robot whole points among its corners; a battery move is the
ordinary one (never over a stack) or the stacking step onto the adjacent point,
and a point a battery moved onto this turn gives up nothing more (its top
battery has moved).

Options are plain strings (the names of docs/rules.md, section 4).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from companion.rules.geometry import (
    AROUND,
    BLACK,
    CORNERS,
    WHITE,
    Color,
    point_name,
    square_name,
)
from companion.rules.position import Position

OPTIONS = (
    "must-capture",
    "contested-frozen",
    "strength-capture",
    "jump-enemies",
    "no-line-limit",
    "controlled-energy",
)

#: the stack options (R-19..R-22); ``stack-unsplit`` brings ``stacking`` with it
STACK_OPTIONS = ("stacking", "stack-unsplit")

Placement = tuple[frozenset[int], frozenset[int]]  # (white squares, black squares)


class NaiveIllegal(Exception):
    """The naive oracle's verdict that a turn is illegal (message = why)."""


# ---------------------------------------------------------------- geometry --

def sq_fr(sq: int) -> tuple[int, int]:
    return sq % 6, sq // 6


def fr_sq(f: int, r: int) -> int | None:
    if 0 <= f < 6 and 0 <= r < 6:
        return r * 6 + f
    return None


def pt_cr(pt: int) -> tuple[int, int]:
    return pt % 7, pt // 7


def cr_pt(c: int, r: int) -> int | None:
    if 0 <= c < 7 and 0 <= r < 7:
        return r * 7 + c
    return None


def robot_dirs(color: Color) -> list[tuple[int, int]]:
    """Forward and the two sideways directions as (file step, rank step)."""
    return [(0, 1 if color is WHITE else -1), (-1, 0), (1, 0)]


BATTERY_DIRS = [(0, 1), (0, -1), (-1, 0), (1, 0)]


def count_around(robots: Iterable[int], pt: int) -> int:
    rs = set(robots)
    return sum(1 for s in AROUND[pt] if s in rs)


def controls(mine: Iterable[int], theirs: Iterable[int], pt: int, *, strict: bool = False) -> bool:
    """Section 2.2 / R-3 (>= and at least one robot); R-11 with ``strict`` (>)."""
    m = count_around(mine, pt)
    t = count_around(theirs, pt)
    if m < 1:
        return False
    return m > t if strict else m >= t


def strength(batteries: frozenset[int], sq: int, stacks: frozenset[tuple[int, int]] = frozenset()) -> int:
    """R-9: batteries on the four corners of a square (R-21: every battery of a stack)."""
    high = dict(stacks)
    return sum(high.get(p, 1) for p in CORNERS[sq] if p in batteries)


def stacking(options: Iterable[str]) -> bool:
    return any(o in STACK_OPTIONS for o in options)


def heights(pos: Position) -> dict[int, int]:
    """Every point with batteries and how many stand on it (R-19)."""
    return {p: 1 for p in pos.batteries} | dict(pos.stacks)


def check_stacks(pos: Position, options: Iterable[str]) -> None:
    """R-19: without ``stacking`` a position holding a stack is not a game position."""
    if pos.stacks and not stacking(options):
        raise ValueError("stacks need the option stacking (R-19)")


def own_and_enemy(white, black, color: Color):
    return (white, black) if color is WHITE else (black, white)


def as_white_black(own, enemy, color: Color) -> Placement:
    return (frozenset(own), frozenset(enemy)) if color is WHITE else (frozenset(enemy), frozenset(own))


# ------------------------------------------------------------------ energy --

@lru_cache(maxsize=None)
def energy_ok(demands: frozenset[tuple[int, int]], available: frozenset[int]) -> bool:
    """Brute force: can distinct batteries from ``available`` on the corners of
    each start square pay each cost (one point per battery)?"""
    items = sorted(demands)

    def assign(i: int, used: frozenset[int]) -> bool:
        if i == len(items):
            return True
        start, cost = items[i]
        free = [p for p in CORNERS[start] if p in available and p not in used]
        for pick in itertools.combinations(free, cost):
            if assign(i + 1, used | frozenset(pick)):
                return True
        return False

    return assign(0, frozenset())


@lru_cache(maxsize=None)
def stacked_energy_ok(demands: frozenset[tuple[int, int]], available: frozenset[tuple[int, int]], unsplit: bool) -> bool:
    """Brute force with stacks (R-21): ``available`` are (point, height).

    ``stacking``: every battery of a stack is a battery of its own, one point
    to one robot; try every way of handing each robot exactly its cost in
    distinct batteries.  ``stack-unsplit``: each point gives all it holds to
    one robot (the rest is lost); try every way of giving each robot a set of
    whole points among its corners, no point twice, worth at least its cost."""
    items = sorted(demands)
    high = dict(available)
    if not unsplit:
        def assign(i: int, used: frozenset[tuple[int, int]]) -> bool:
            if i == len(items):
                return True
            start, cost = items[i]
            free = [(p, k) for p in CORNERS[start] if p in high for k in range(high[p]) if (p, k) not in used]
            return any(assign(i + 1, used | frozenset(pick)) for pick in itertools.combinations(free, cost))

        return assign(0, frozenset())

    def give(i: int, used: frozenset[int]) -> bool:
        if i == len(items):
            return True
        start, cost = items[i]
        free = [p for p in CORNERS[start] if p in high and p not in used]
        for n in range(len(free) + 1):
            for pick in itertools.combinations(free, n):
                if sum(high[p] for p in pick) >= cost and give(i + 1, used | frozenset(pick)):
                    return True
        return False

    return give(0, frozenset())


def phase_energy_ok(demands: frozenset[tuple[int, int]], pos: Position, available: frozenset[int],
                    options: frozenset[str]) -> bool:
    """The energy rule for a robot phase's demands: one battery one point (section 2.1), with
    stacks as R-21 says."""
    if not stacking(options):
        return energy_ok(demands, available)
    high = heights(pos)
    return stacked_energy_ok(demands, frozenset((p, high[p]) for p in available), "stack-unsplit" in options)


def energy_sources(pos: Position, options: frozenset[str]) -> frozenset[int]:
    """All batteries, or under ``controlled-energy`` (R-10) those the mover
    controls by the normal >= rule at the start of the turn."""
    if "controlled-energy" not in options:
        return pos.batteries
    own, enemy = own_and_enemy(pos.white, pos.black, pos.to_move)
    return frozenset(p for p in pos.batteries if controls(own, enemy, p))


# ------------------------------------------------------------- robot moves --

@dataclass(frozen=True)
class NaiveRobotMove:
    src: int
    dst: int
    capture: bool
    cost: int

    def __str__(self) -> str:
        return f"{square_name(self.src)}{'x' if self.capture else '-'}{square_name(self.dst)}"


def single_moves(own, enemy, moved, batteries, color: Color, options: frozenset[str],
                 stacks: frozenset[tuple[int, int]] = frozenset()):
    """Every straight forward/sideways move of an unmoved own robot, ignoring
    energy: yields NaiveRobotMove (cost per section 2.1, R-12)."""
    jump_enemies = "jump-enemies" in options
    for src in sorted(own):
        if src in moved:
            continue
        f0, r0 = sq_fr(src)
        for df, dr in robot_dirs(color):
            jumps = 0
            n = 0
            while True:
                n += 1
                dst = fr_sq(f0 + df * n, r0 + dr * n)
                if dst is None:
                    break
                if dst in enemy:
                    allowed = True
                    if "strength-capture" in options:
                        allowed = strength(batteries, dst, stacks) <= strength(batteries, src, stacks)
                    if allowed:
                        yield NaiveRobotMove(src, dst, True, n + jumps + 1)
                    if jump_enemies:
                        jumps += 1
                        continue
                    break
                if dst in own:
                    jumps += 1
                    continue
                yield NaiveRobotMove(src, dst, False, n + jumps)


@dataclass
class RobotPhaseResult:
    outcomes: dict[Placement, tuple[NaiveRobotMove, ...]]  # placement -> one witness sequence
    capture_available: bool


@lru_cache(maxsize=4096)
def _enumerate_robot_phases(pos: Position, options: frozenset[str]) -> RobotPhaseResult:
    check_stacks(pos, options)
    color = pos.to_move
    own0, enemy0 = own_and_enemy(pos.white, pos.black, color)
    available = energy_sources(pos, options)
    start = (frozenset(own0), frozenset(enemy0), frozenset(), frozenset())
    seen = {start}
    stack = [(start, ())]
    outcomes: dict[Placement, tuple[NaiveRobotMove, ...]] = {}
    while stack:
        (own, enemy, moved, demands), path = stack.pop()
        if path:
            key = as_white_black(own, enemy, color)
            if key not in outcomes:
                outcomes[key] = path
        for mv in single_moves(own, enemy, moved, pos.batteries, color, options, pos.stacks):
            new_demands = demands | {(mv.src, mv.cost)}
            if not phase_energy_ok(new_demands, pos, available, options):
                continue
            n_own = (own - {mv.src}) | {mv.dst}
            n_enemy = enemy - {mv.dst}
            n_moved = (moved - {mv.src}) | {mv.dst}  # moved robots, by where they stand now
            state = (n_own, n_enemy, n_moved, new_demands)
            if state not in seen:
                seen.add(state)
                stack.append((state, path + (mv,)))
    n_enemy0 = len(enemy0)
    capture_available = any(
        len(b if color is WHITE else w) < n_enemy0 for (w, b) in outcomes
    )
    return RobotPhaseResult(outcomes, capture_available)


@lru_cache(maxsize=4096)
def robot_phase(pos: Position, options: frozenset[str]) -> dict[Placement, tuple[NaiveRobotMove, ...]]:
    """R-16 robot-phase outcomes (with one witness sequence each); under
    ``must-capture`` only the capturing ones when any exists (R-7/R-8)."""
    res = _enumerate_robot_phases(pos, options)
    if "must-capture" in options and res.capture_available:
        n_enemy0 = len(pos.black if pos.to_move is WHITE else pos.white)
        return {
            k: v for k, v in res.outcomes.items()
            if len(k[1] if pos.to_move is WHITE else k[0]) < n_enemy0
        }
    return res.outcomes


def robot_outcomes(pos: Position, options: Iterable[str] = ()) -> set[Placement]:
    return set(robot_phase(pos, frozenset(options)))


def capture_available(pos: Position, options: Iterable[str] = ()) -> bool:
    return _enumerate_robot_phases(pos, frozenset(options)).capture_available


# ----------------------------------------------------------- battery moves --

@dataclass(frozen=True)
class NaiveBatteryMove:
    src: int
    dst: int
    line: str  # "row3" / "colD"

    def __str__(self) -> str:
        return f"{point_name(self.src)}-{point_name(self.dst)}"


def battery_destination(batteries: frozenset[int], src: int, d: tuple[int, int]) -> int | None:
    """Next empty point from ``src`` in direction ``d`` passing consecutive
    batteries; None when every point to the edge is occupied."""
    c, r = pt_cr(src)
    k = 1
    while True:
        q = cr_pt(c + d[0] * k, r + d[1] * k)
        if q is None:
            return None
        if q not in batteries:
            return q
        k += 1


def line_of(src: int, d: tuple[int, int]) -> str:
    c, r = pt_cr(src)
    return f"row{r + 1}" if d[1] == 0 else f"col{'ABCDEFG'[c]}"


def _ray(src: int, d: tuple[int, int]) -> tuple[int, ...]:
    c, r = pt_cr(src)
    out = []
    k = 1
    while (q := cr_pt(c + d[0] * k, r + d[1] * k)) is not None:
        out.append(q)
        k += 1
    return tuple(out)


# RAYS[pt] -> ((points along the ray in order), line index 0..13) per direction
_LINE_INDEX = {f"row{i + 1}": i for i in range(7)} | {f"col{c}": 7 + i for i, c in enumerate("ABCDEFG")}
RAYS = tuple(
    tuple((_ray(p, d), _LINE_INDEX[line_of(p, d)], d) for d in BATTERY_DIRS) for p in range(49)
)


def battery_phase(pos: Position, options: Iterable[str]) -> dict[frozenset[int], tuple[NaiveBatteryMove, ...]]:
    """R-16 battery-phase outcomes (with one witness each) for the side to move,
    robots as they stand in ``pos``. Only ``contested-frozen`` and
    ``no-line-limit`` concern the battery phase."""
    opts = frozenset(options) & {"contested-frozen", "no-line-limit"}
    return _battery_phase(pos, opts)


@lru_cache(maxsize=256)
def _battery_phase(pos: Position, options: frozenset[str]) -> dict[frozenset[int], tuple[NaiveBatteryMove, ...]]:
    # Same search as described in the module docstring; sets are bit masks
    # (bit p = point p, bit i = energy line i) only to keep the tests fast.
    own, enemy = own_and_enemy(pos.white, pos.black, pos.to_move)
    strict = "contested-frozen" in options
    line_limit = "no-line-limit" not in options
    movable = [p for p in range(49) if controls(own, enemy, p, strict=strict)]
    movable_mask = sum(1 << p for p in movable)
    bats0 = sum(1 << p for p in pos.batteries)
    start = (bats0, 0, 0)
    seen = {start}
    stack = [(start, ())]
    outcomes: dict[int, tuple] = {}
    while stack:
        state, path = stack.pop()
        bats, moved, lines = state
        if bats not in outcomes:
            outcomes[bats] = path
        for b in movable:
            bit = 1 << b
            if not bats & bit or moved & bit:
                continue
            for ray, line, d in RAYS[b]:
                if line_limit and lines >> line & 1:
                    continue
                dst = None
                for q in ray:  # next empty point, passing consecutive batteries
                    if not bats >> q & 1:
                        dst = q
                        break
                if dst is None:
                    continue
                nstate = (
                    (bats & ~bit) | (1 << dst),
                    # a moved battery only matters while it stands where it could move again
                    ((moved & ~bit) | (1 << dst)) & movable_mask,
                    (lines | (1 << line)) if line_limit else 0,
                )
                if nstate not in seen:
                    seen.add(nstate)
                    stack.append((nstate, path + ((b, dst, line_of(b, d)),)))
    return {
        frozenset(p for p in range(49) if m >> p & 1): tuple(NaiveBatteryMove(*t) for t in path)
        for m, path in outcomes.items()
    }


def battery_outcomes(pos: Position, options: Iterable[str] = ()) -> set[frozenset[int]]:
    return set(battery_phase(pos, frozenset(options)))


# ------------------------------------------------- battery moves with stacks --

def stacked_destinations(high: dict[int, int], src: int, d: tuple[int, int]) -> list[int]:
    """R-20: where the top battery of ``src`` may go in direction ``d`` (``high``: the
    height of every point with batteries): the stacking step onto the adjacent point
    when it holds one or two batteries, and the ordinary move to the next empty
    point, passing single batteries but never a stack."""
    ray = _ray(src, d)
    out = []
    if ray and high.get(ray[0], 0) in (1, 2):
        out.append(ray[0])
    for q in ray:
        h = high.get(q, 0)
        if h == 0:
            out.append(q)
            break
        if h >= 2:
            break
    return out


def _moved_onto(high: dict[int, int], src: int, dst: int) -> dict[int, int]:
    new = dict(high)
    new[src] -= 1
    if not new[src]:
        del new[src]
    new[dst] = new.get(dst, 0) + 1
    return new


def stacked_battery_outcomes(pos: Position, options: Iterable[str] = ()) -> set[frozenset[tuple[int, int]]]:
    """R-22: the battery placements with heights, as (point, height) for every point
    with batteries, after a legal battery phase of zero or more moves (robots as
    they stand in ``pos``, its side to move moving)."""
    return set(_stacked_battery_phase(pos, frozenset(options) & {"contested-frozen", "no-line-limit"}))


@lru_cache(maxsize=64)
def _stacked_battery_phase(pos: Position, options: frozenset[str]) -> dict[frozenset[tuple[int, int]], tuple]:
    own, enemy = own_and_enemy(pos.white, pos.black, pos.to_move)
    strict = "contested-frozen" in options
    line_limit = "no-line-limit" not in options
    movable = frozenset(p for p in range(49) if controls(own, enemy, p, strict=strict))
    # a state: the heights, the points whose top battery moved this turn (R-4, R-20: nothing
    # leaves them; only the movable ones matter), the energy lines used
    start = (frozenset(heights(pos).items()), frozenset(), frozenset())
    seen = {start}
    stack = [(start, ())]
    outcomes: dict[frozenset[tuple[int, int]], tuple] = {}
    while stack:
        state, path = stack.pop()
        placed, frozen, lines = state
        outcomes.setdefault(placed, path)
        high = dict(placed)
        for b in sorted(movable):
            if b not in high or b in frozen:
                continue
            for d in BATTERY_DIRS:
                line = line_of(b, d)
                if line_limit and line in lines:
                    continue
                for dst in stacked_destinations(high, b, d):
                    nstate = (
                        frozenset(_moved_onto(high, b, dst).items()),
                        (frozen | {dst}) & movable,
                        (lines | {line}) if line_limit else frozenset(),
                    )
                    if nstate not in seen:
                        seen.add(nstate)
                        stack.append((nstate, path + (NaiveBatteryMove(b, dst, line),)))
    return outcomes


# ------------------------------------------------------------------ status --

@dataclass(frozen=True)
class NaiveStatus:
    result: str  # "ongoing" / "white wins" / "black wins"
    winner: Color | None


def meets_target_row(robots: frozenset[int], color: Color) -> bool:
    """Section 3: at least ceil(n/2) of n >= 1 robots on the target row."""
    n = len(robots)
    if n == 0:
        return False
    target = 5 if color is WHITE else 0
    on_target = sum(1 for s in robots if s // 6 == target)
    return on_target >= math.ceil(n / 2)


def has_won_on_board(pos: Position, color: Color) -> bool:
    """Capture-all or the target-row rule (R-15)."""
    mine = pos.white if color is WHITE else pos.black
    theirs = pos.black if color is WHITE else pos.white
    return len(theirs) == 0 or meets_target_row(mine, color)


def status(pos: Position, options: Iterable[str] = ()) -> NaiveStatus:
    """Section 3, R-5, R-15, R-18: judged at the end of the turn of the player
    who just moved (the side *not* to move)."""
    opts = frozenset(options)
    just_moved = pos.to_move.other
    to_move = pos.to_move
    a = has_won_on_board(pos, just_moved)
    b = has_won_on_board(pos, to_move)
    if a:
        return NaiveStatus(f"{just_moved} wins", just_moved)
    if b:
        return NaiveStatus(f"{to_move} wins", to_move)
    if not robot_phase(pos, opts):
        return NaiveStatus(f"{just_moved} wins", just_moved)
    return NaiveStatus("ongoing", None)


# ------------------------------------------------------------- apply a turn --

def _parse_square(tok: str) -> int:
    if len(tok) != 2 or tok[0] not in "abcdef" or tok[1] not in "123456":
        raise ValueError(tok)
    return (int(tok[1]) - 1) * 6 + "abcdef".index(tok[0])


def _parse_point(tok: str) -> int:
    if len(tok) != 2 or tok[0] not in "ABCDEFG" or tok[1] not in "1234567":
        raise ValueError(tok)
    return (int(tok[1]) - 1) * 7 + "ABCDEFG".index(tok[0])


def apply(pos: Position, turn: str, options: Iterable[str] = ()) -> Position:
    """Apply a (well-formed) turn string naively; raise NaiveIllegal if the
    rules forbid it. The result has the other side to move."""
    opts = frozenset(options)
    check_stacks(pos, opts)
    if status(pos, opts).result != "ongoing":
        raise NaiveIllegal("game over (R-6)")
    color = pos.to_move
    own, enemy = own_and_enemy(pos.white, pos.black, color)
    own, enemy = set(own), set(enemy)
    moved: set[int] = set()
    demands: set[tuple[int, int]] = set()
    tokens = turn.split()
    robot_tokens = [t for t in tokens if t[0].islower()]
    battery_tokens = [t for t in tokens if t[0].isupper()]
    if tokens != robot_tokens + battery_tokens or not robot_tokens:
        raise NaiveIllegal("a turn is one or more robot moves, then battery moves")
    for tok in robot_tokens:
        sep = tok[2]
        src, dst = _parse_square(tok[:2]), _parse_square(tok[3:])
        if src not in own:
            raise NaiveIllegal(f"{tok}: no own robot on {tok[:2]}")
        if src in moved:
            raise NaiveIllegal(f"{tok}: that robot already moved (R-2/R-14)")
        found = None
        for mv in single_moves(frozenset(own), frozenset(enemy), frozenset(moved), pos.batteries, color, opts,
                               pos.stacks):
            if mv.src == src and mv.dst == dst:
                found = mv
        if found is None:
            raise NaiveIllegal(f"{tok}: not a legal move")
        if found.capture != (sep == "x"):
            raise NaiveIllegal(f"{tok}: notation does not match the board (R-13)")
        demands.add((src, found.cost))
        own.discard(src)
        own.add(dst)
        enemy.discard(dst)
        moved.add(dst)
    if not phase_energy_ok(frozenset(demands), pos, energy_sources(pos, opts), opts):
        raise NaiveIllegal("not enough energy")
    if "must-capture" in opts and capture_available(pos, opts):
        n_enemy0 = len(pos.black if color is WHITE else pos.white)
        if len(enemy) == n_enemy0:
            raise NaiveIllegal("a capture is available (must-capture)")
    w, b = as_white_black(own, enemy, color)
    if stacking(opts):
        return _apply_stacked_batteries(pos, w, b, battery_tokens, opts)
    bats = set(pos.batteries)
    strict = "contested-frozen" in opts
    bmoved: set[int] = set()
    lines: set[str] = set()
    for tok in battery_tokens:
        src, dst = _parse_point(tok[:2]), _parse_point(tok[3:])
        if tok[2] != "-":
            raise NaiveIllegal(f"{tok}: bad battery move")
        if src not in bats:
            raise NaiveIllegal(f"{tok}: no battery on {tok[:2]}")
        if src in bmoved:
            raise NaiveIllegal(f"{tok}: battery already moved (R-4)")
        mine = w if color is WHITE else b
        theirs = b if color is WHITE else w
        if not controls(mine, theirs, src, strict=strict):
            raise NaiveIllegal(f"{tok}: not controlled")
        ok = False
        for d in BATTERY_DIRS:
            if battery_destination(frozenset(bats), src, d) == dst:
                line = line_of(src, d)
                ok = True
                break
        if not ok:
            raise NaiveIllegal(f"{tok}: not the next empty point (R-13)")
        if "no-line-limit" not in opts and line in lines:
            raise NaiveIllegal(f"{tok}: energy line used twice")
        lines.add(line)
        bats.discard(src)
        bats.add(dst)
        bmoved.add(dst)
    return Position(w, b, frozenset(bats), color.other)


def _apply_stacked_batteries(pos: Position, w: frozenset[int], b: frozenset[int], tokens: list[str],
                             opts: frozenset[str]) -> Position:
    """The battery phase of :func:`apply` with stacks (R-19, R-20)."""
    color = pos.to_move
    mine, theirs = (w, b) if color is WHITE else (b, w)
    strict = "contested-frozen" in opts
    high = heights(pos)
    frozen: set[int] = set()
    lines: set[str] = set()
    for tok in tokens:
        src, dst = _parse_point(tok[:2]), _parse_point(tok[3:])
        if tok[2] != "-":
            raise NaiveIllegal(f"{tok}: bad battery move")
        if src not in high:
            raise NaiveIllegal(f"{tok}: no battery on {tok[:2]}")
        if src in frozen:
            raise NaiveIllegal(f"{tok}: the battery on top of {tok[:2]} moved this turn (R-4, R-20)")
        if not controls(mine, theirs, src, strict=strict):
            raise NaiveIllegal(f"{tok}: not controlled")
        line = next((line_of(src, d) for d in BATTERY_DIRS if dst in stacked_destinations(high, src, d)), None)
        if line is None:
            raise NaiveIllegal(f"{tok}: neither the next empty point nor a stacking step (R-13, R-20)")
        if "no-line-limit" not in opts and line in lines:
            raise NaiveIllegal(f"{tok}: energy line used twice")
        lines.add(line)
        high = _moved_onto(high, src, dst)
        frozen.add(dst)
    return Position(w, b, frozenset(high), color.other, frozenset((p, h) for p, h in high.items() if h > 1))


def witness_turn(pos: Position, robots: Placement, batteries: frozenset[int], options: Iterable[str] = ()) -> str:
    """A turn string (from the naive witnesses) turning ``pos`` into the given
    placements; KeyError if none."""
    opts = frozenset(options)
    rseq = robot_phase(pos, opts)[robots]
    mid = Position(robots[0], robots[1], pos.batteries, pos.to_move)
    bseq = battery_phase(mid, opts)[batteries]
    return " ".join(str(m) for m in (*rseq, *bseq))


def reachable(before: Position, after: Position, options: Iterable[str] = ()) -> bool:
    """Does some legal turn of ``before`` produce ``after``'s placements?"""
    opts = frozenset(options)
    if status(before, opts).result != "ongoing":
        return False
    key = (after.white, after.black)
    if key not in robot_phase(before, opts):
        return False
    mid = Position(after.white, after.black, before.batteries, before.to_move)
    return after.batteries in battery_phase(mid, opts)


# ------------------------------------------------------------ random play --

def single_battery_moves(pos: Position, bats: frozenset[int], moved: frozenset[int],
                         lines: frozenset[str], options: frozenset[str]) -> list[NaiveBatteryMove]:
    """The legal next battery moves of a battery phase in progress (robots as
    in ``pos``; ``moved`` = where the batteries moved so far stand now)."""
    own, enemy = own_and_enemy(pos.white, pos.black, pos.to_move)
    strict = "contested-frozen" in options
    out = []
    for b in sorted(bats - moved):
        if not controls(own, enemy, b, strict=strict):
            continue
        for d in BATTERY_DIRS:
            dst = battery_destination(bats, b, d)
            line = line_of(b, d)
            if dst is None or ("no-line-limit" not in options and line in lines):
                continue
            out.append(NaiveBatteryMove(b, dst, line))
    return out


def random_turn(pos: Position, options: Iterable[str], rng, *, uniform_batteries: bool = False) -> str | None:
    """A random legal turn string (None if the side to move has none): a
    robot phase chosen uniformly among the robot-phase outcomes, then either
    a battery phase chosen uniformly among the battery-phase outcomes
    (``uniform_batteries``) or a random walk of legal battery moves."""
    opts = frozenset(options)
    robot = robot_phase(pos, opts)
    if not robot:
        return None
    key = rng.choice(sorted(robot, key=lambda k: (sorted(k[0]), sorted(k[1]))))
    moves = [str(m) for m in robot[key]]
    mid = Position(key[0], key[1], pos.batteries, pos.to_move)
    if uniform_batteries:
        bat = battery_phase(mid, opts)
        pick = rng.choice(sorted(bat, key=sorted))
        moves += [str(m) for m in bat[pick]]
    else:
        bats, moved, lines = mid.batteries, frozenset(), frozenset()
        while rng.random() < 0.7:
            options_now = single_battery_moves(mid, bats, moved, lines, opts)
            if not options_now:
                break
            m = rng.choice(options_now)
            moves.append(str(m))
            bats = (bats - {m.src}) | {m.dst}
            moved = (moved - {m.src}) | {m.dst}
            lines = lines | {m.line}
    return " ".join(moves)


def random_walk_turn(pos: Position, options: Iterable[str], rng) -> tuple[str, Position] | None:
    """A cheap random legal turn (robot moves picked one at a time among the
    legal next moves whose energy can still be met, then battery moves the
    same way) and the position after it; None if no robot move is possible.
    Under must-capture, a capturing move is preferred while one exists (so
    the turn is legal: R-7/R-8 are checked by the caller via ``apply``)."""
    opts = frozenset(options)
    color = pos.to_move
    own, enemy = own_and_enemy(pos.white, pos.black, color)
    own, enemy = frozenset(own), frozenset(enemy)
    available = energy_sources(pos, opts)
    moved: frozenset[int] = frozenset()
    demands: frozenset[tuple[int, int]] = frozenset()
    moves: list[str] = []
    while not moves or rng.random() < 0.5:
        nxt = [m for m in single_moves(own, enemy, moved, pos.batteries, color, opts)
               if energy_ok(demands | {(m.src, m.cost)}, available)]
        if not nxt:
            break
        m = rng.choice(nxt)
        moves.append(str(m))
        demands = demands | {(m.src, m.cost)}
        own = (own - {m.src}) | {m.dst}
        enemy = enemy - {m.dst}
        moved = (moved - {m.src}) | {m.dst}
    if not moves:
        return None
    w, b = as_white_black(own, enemy, color)
    mid = Position(w, b, pos.batteries, color)
    bats, bmoved, lines = mid.batteries, frozenset(), frozenset()
    while rng.random() < 0.7:
        nxt_b = single_battery_moves(mid, bats, bmoved, lines, opts)
        if not nxt_b:
            break
        bm = rng.choice(nxt_b)
        moves.append(str(bm))
        bats = (bats - {bm.src}) | {bm.dst}
        bmoved = (bmoved - {bm.src}) | {bm.dst}
        lines = lines | {bm.line}
    return " ".join(moves), Position(w, b, bats, color.other)


def random_game_position(options: Iterable[str], rng, plies: int) -> Position:
    """Play up to ``plies`` cheap random legal turns from the start (stopping
    when the game is over on the board or the side to move is stuck) and
    return the position reached. ``must-capture`` is left out of the walk
    (checking it needs the full enumeration every ply); the positions are
    reachable under the other options given."""
    opts = frozenset(options) - {"must-capture"}
    pos = Position.start(BLACK if rng.random() < 0.2 else WHITE)
    for _ in range(plies):
        if has_won_on_board(pos, WHITE) or has_won_on_board(pos, BLACK):
            break
        res = random_walk_turn(pos, opts, rng)
        if res is None:
            break
        pos = res[1]
    return pos
