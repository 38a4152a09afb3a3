"""The printed and blank sides of the batteries (R-23, docs/rules.md section 6): a players' aid, never a rule.

At the start of a turn every battery should show its printed side; in the
robot phase a player turns each battery he draws on to its blank side; the
next player turns them back before his own turn.  When the camera can tell
the sides, the companion compares, on the turn it explained:

* the batteries that went from printed to blank since the last accepted
  board (the *turned* ones) should be exactly a set that pays the moved
  robots' costs, each on a corner of the start square of a moved robot it
  pays for (:func:`check_sides`).  A battery drawn on and then moved in the
  battery phase is judged at the point it started the turn on.  A battery
  that was already blank then and still is says nothing, nor does one whose
  side the camera cannot tell at either end; one that shows its printed side
  after the turn was not drawn on.  In a stack only the top battery's side
  can be seen: the others are not judged.  A mismatch is a note on the
  accepted turn, never a rejection.
* the batteries left blank after the turn are the next player's to turn back
  (:attr:`SidesCheck.left_blank`, :func:`turn_back_message`).

The energy is the rules package's own: the costs and sources of the robot
moves come from :func:`.engine.robot_phase_demands` (the step and cost rules of
:mod:`.robot_moves`, the sources of :mod:`.energy`), and whether the batteries
that may have paid suffice is :func:`.energy.hall_violation`.  Under
``stack-unsplit`` a stack's points all go to one robot (R-21); only the top of
a stack is ever judged here, so this check does not add that condition.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from .energy import hall_violation
from .engine import robot_phase_demands
from .geometry import point_name, square_name
from .masks import CORNER_LAYERS, LAYER, bits, layered
from .moves import Turn
from .options import ORIGINAL, Rules
from .position import Position
from .robot_moves import move_label

PRINTED = "printed"
BLANK = "blank"
#: Per point, the side its (top) battery shows: :data:`PRINTED` or :data:`BLANK`; a point
#: missing from the mapping is unknown (no battery, or the camera cannot tell).
Sides = Mapping[int, str]


@dataclass(frozen=True, slots=True)
class SidesCheck:
    """What R-23 says about one accepted turn.

    ``note``: the mismatch between the turned batteries and the energy the moves
    used, or None; ``squares``/``points``: where that note points (points as the
    batteries stand after the turn); ``turned``: the batteries turned from printed
    to blank, by the point they started the turn on; ``left_blank``: the points
    whose top battery shows its blank side after the turn (to be turned back)."""

    note: str | None = None
    squares: tuple[int, ...] = ()
    points: tuple[int, ...] = ()
    turned: tuple[int, ...] = ()
    left_blank: tuple[int, ...] = ()


def left_blank(after_sides: Sides) -> tuple[int, ...]:
    """The points whose battery shows its blank side: the next player turns them back (R-23)."""
    return tuple(sorted(p for p, s in after_sides.items() if s == BLANK))


def _names(points: list[int]) -> str:
    names = [point_name(p) for p in points]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def turn_back_message(points: tuple[int, ...] | list[int]) -> str:
    """``turn C3 back to its printed side`` (R-23), for the player about to move."""
    pts = sorted(points)
    if len(pts) == 1:
        return f"turn {point_name(pts[0])} back to its printed side"
    return f"turn {_names(pts)} back to their printed sides"


def _whereabouts(before: Position, turn: Turn) -> tuple[dict[int, int], dict[int, int], dict[int, tuple[int, int]]]:
    """Follow every battery through the battery phase.  Each battery is named by its layered bit
    at the start of the turn (:func:`.masks.layered`); returns per battery the point it started
    on, the point it stands on after the turn, and (the point it is the top of at the start, the
    point it is the top of after the turn), -1 where it is covered.  A battery move takes the top
    battery of its point onto the top of the other (R-20)."""
    piles: dict[int, list[int]] = {p: [p + k * LAYER for k in range(before.height(p))] for p in before.batteries}
    start = {b: p for p, pile in piles.items() for b in pile}
    top_then = {pile[-1]: p for p, pile in piles.items()}
    for m in turn.battery_moves:
        b = piles[m.src].pop()
        if not piles[m.src]:
            del piles[m.src]
        piles.setdefault(m.dst, []).append(b)
    now = {b: q for q, pile in piles.items() for b in pile}
    top_now = {pile[-1]: q for q, pile in piles.items()}
    return start, now, {b: (top_then.get(b, -1), top_now.get(b, -1)) for b in start}


def _fits(turned: tuple[int, ...], optional: int, demands: tuple[tuple[int, int], ...]) -> bool:
    """Can every battery of ``turned`` pay one point to a moved robot beside it, and the robots'
    remaining costs come from ``optional`` (batteries whose sides do not say), each robot getting
    exactly its cost and each battery giving at most one point?"""

    @lru_cache(maxsize=None)
    def place(k: int, need: tuple[int, ...]) -> bool:
        if k == len(turned):
            rest = [(src & optional, n) for (src, _), n in zip(demands, need) if n > 0]
            return hall_violation(rest) is None
        b = turned[k]
        for i, (src, _) in enumerate(demands):
            if need[i] > 0 and src >> b & 1:
                if place(k + 1, need[:i] + (need[i] - 1,) + need[i + 1:]):
                    return True
        return False

    return place(0, tuple(c for _, c in demands))


def check_sides(before: Position, turn: Turn, before_sides: Sides, after_sides: Sides,
                rules: Rules = ORIGINAL) -> SidesCheck:
    """R-23 on the accepted ``turn`` from ``before``: ``before_sides`` as the camera saw the last
    accepted board, ``after_sides`` as it sees the board after the turn (points as they stand then).

    Raises :class:`.errors.IllegalTurn` when ``turn`` is not legal from ``before``."""
    sources, moves = robot_phase_demands(before, turn, rules)
    demands = tuple((sources[sq], cost) for sq, cost in moves)
    labels = [move_label(m.src, m.dst) for m in turn.robot_moves]
    start, now, tops = _whereabouts(before, turn)
    everything = layered(before.batteries, before.stacks)
    turned: list[int] = []
    printed_after = 0
    for b in bits(everything):
        top_then, top_now = tops[b]
        seen_then = before_sides.get(top_then) if top_then >= 0 else None
        seen_now = after_sides.get(top_now) if top_now >= 0 else None
        if seen_now == PRINTED:
            printed_after |= 1 << b  # not drawn on (a battery drawn on shows its blank side)
        elif seen_now == BLANK and seen_then == PRINTED:
            turned.append(b)
    optional = everything & ~printed_after & ~sum(1 << b for b in turned)
    blank = left_blank(after_sides)
    turned_points = tuple(start[b] for b in turned)

    def name(b: int) -> str:
        return point_name(start[b]) if start[b] == now[b] else f"{point_name(start[b])} (now on {point_name(now[b])})"

    def names(bs: list[int]) -> str:
        shown = [name(b) for b in bs]
        return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]

    notes: list[str] = []
    squares: list[int] = []
    points: list[int] = []
    stray = [b for b in turned if not any(src >> b & 1 for src, _ in demands)]
    beside = 0
    for sq, _ in moves:
        beside |= CORNER_LAYERS[sq]
    far = [b for b in stray if not beside >> b & 1]
    barred = [b for b in stray if beside >> b & 1]  # beside a moved robot, but not a battery it may draw on
    if far:
        one = len(far) == 1
        notes.append(f"{names(far)} {'is' if one else 'are'} turned but no moved robot stands beside "
                     f"{'it' if one else 'them'}")
    if barred:
        one = len(barred) == 1
        notes.append(f"{names(barred)} {'is' if one else 'are'} turned but {'is not one' if one else 'are not'} "
                     f"of the batteries{rules.energy_restriction}: no moved robot may draw on {'it' if one else 'them'}")
    points += [now[b] for b in far + barred]
    rest = tuple(b for b in turned if b not in stray)
    if not _fits(rest, optional, demands):
        over = _overturned(rest, demands)
        short = None if over is not None else _short(rest, optional, demands)
        if over is not None:
            robots, xs = over
            spent = sum(demands[i][1] for i in robots)
            who = " and ".join(labels[i] for i in robots)
            one = len(xs) == 1
            notes.append(f"{names(xs)} {'is' if one else 'are'} turned but {'the robot' if len(robots) == 1 else 'the robots'} "
                         f"beside {'it' if one else 'them'} ({who}) used only {spent} energy")
            points += [now[b] for b in xs]
        elif short is not None:
            robots, have, unseen = short
            need = sum(demands[i][1] for i in robots)
            who = " and ".join(labels[i] for i in robots)
            where = " and ".join(square_name(moves[i][0]) for i in robots)
            verb = "used" if len(robots) == 1 else "used together"
            if not have:
                turned_text = f"no battery beside {where} was turned"
            else:
                turned_text = (f"only {len(have)} batter{'y' if len(have) == 1 else 'ies'} beside {where} "
                               f"{'was' if len(have) == 1 else 'were'} turned ({names(have)})")
            also = f" ({unseen} more unseen or already blank)" if unseen else ""
            notes.append(f"{who} {verb} {need} energy but {turned_text}{also}: "
                         "turn each battery you draw on to its blank side")
            squares += [turn.robot_moves[i].dst for i in robots]
            points += [now[b] for b in have]
        else:
            spent = ", ".join(f"{labels[i]} {c}" for i, (_, c) in enumerate(demands))
            notes.append(f"the turned batteries ({names(list(rest))}) cannot be the energy of the moves ({spent})")
            points += [now[b] for b in rest]
    return SidesCheck("; ".join(notes) if notes else None, tuple(dict.fromkeys(squares)),
                      tuple(dict.fromkeys(points)), turned_points, blank)


def _subsets(n: int):
    """Non-empty subsets of range(n), smallest first."""
    for k in range(1, n + 1):
        yield from itertools.combinations(range(n), k)


def _overturned(turned: tuple[int, ...], demands: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], list[int]] | None:
    """The smallest set of robots whose beside-only turned batteries outnumber their costs: those
    batteries cannot all have paid them (each battery pays one point, a robot takes its cost)."""
    for robots in _subsets(len(demands)):
        beside = 0
        for i in robots:
            beside |= demands[i][0]
        others = 0
        for j in range(len(demands)):
            if j not in robots:
                others |= demands[j][0]
        xs = [b for b in turned if beside >> b & 1 and not others >> b & 1]
        if len(xs) > sum(demands[i][1] for i in robots):
            return robots, xs
    return None


def _short(turned: tuple[int, ...], optional: int, demands: tuple[tuple[int, int], ...]
           ) -> tuple[tuple[int, ...], list[int], int] | None:
    """The smallest set of robots that used more energy than the batteries beside them that may
    have given it (turned, or unseen or already blank): (robots, their turned ones, unseen count)."""
    mask = optional | sum(1 << b for b in turned)
    for robots in _subsets(len(demands)):
        beside = 0
        for i in robots:
            beside |= demands[i][0]
        if (beside & mask).bit_count() < sum(demands[i][1] for i in robots):
            have = [b for b in turned if beside >> b & 1]
            return robots, have, (beside & optional).bit_count()
    return None


def paying_batteries(before: Position, turn: Turn, rules: Rules = ORIGINAL) -> tuple[int, ...]:
    """The start points of one set of batteries that pays the robot moves of ``turn``: the ones a
    careful player turns to their blank side (a point appears once per battery of it that pays)."""
    sources, moves = robot_phase_demands(before, turn, rules)
    need = [c for _, c in moves]
    taken = 0
    out: list[int] = []

    def give(i: int) -> bool:
        if i == len(moves):
            return True
        if need[i] == 0:
            return give(i + 1)
        nonlocal taken
        for b in bits(sources[moves[i][0]] & ~taken):
            taken |= 1 << b
            need[i] -= 1
            out.append(b)
            if give(i):
                return True
            out.pop()
            need[i] += 1
            taken &= ~(1 << b)
        return False

    if not give(0):  # pragma: no cover - a legal robot phase always has its energy
        raise ValueError("no battery set pays these moves")
    return tuple(b % LAYER for b in out)
