"""Turn generation for search: robot phases with their move sequences, then battery phases that matter.

The full turn space is far too big to search (start position: 2,524 robot
outcomes times thousands of battery outcomes), so a turn is built in two
stages:

1. :func:`robot_outcomes` lists the distinct robot placements a legal robot
   phase can reach (R-16), each with a shortest move sequence, using the
   engine's own successor generator (energy checked as a b-matching).  Under
   ``must-capture`` only capturing phases are kept when one exists (R-7, R-8).
   A move limit makes a cheaper, partial list for inner search nodes.
2. :func:`battery_chains` grows battery phases greedily on the evaluation:
   each step adds the single battery move (of a battery the mover controls,
   to the next empty point, one per line unless ``no-line-limit``) that
   improves the position most -- which is how batteries get taken away from
   enemy robots, brought to own robots and moved off contested points.

:func:`winning_robot_phase` is a narrow search for a robot phase that wins at
once (target row or capture-all), cheap enough for every inner node.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

from ..rules.control import movable_batteries
from ..rules.battery_moves import BATTERY_RAYS, battery_steps
from ..rules.masks import POINTS
from ..rules.engine import _capture_reachable, state_key, successors
from ..rules.robot_moves import Step
from ..rules.moves import BatteryMove, RobotMove, Turn
from ..rules.options import Rules
from .board import Board, has_won, phase_context, phase_start


class RobotOutcome(NamedTuple):
    own: int  # mover's robots after the phase
    enemy: int  # opponent's robots after the phase
    steps: tuple[Step, ...]  # a shortest legal move sequence reaching it


class BatteryPhase(NamedTuple):
    bats: int
    moves: tuple[tuple[int, int], ...]  # (from point, to point)


def robot_outcomes(board: Board, rules: Rules, *, max_moves: int = 6, max_states: int = 0) -> tuple[list[RobotOutcome], bool]:
    """The robot-phase outcomes of ``board`` with a shortest move sequence each.

    Returns (outcomes, complete).  ``complete`` is False when ``max_moves``
    or ``max_states`` cut the enumeration short.  Under ``must-capture`` the
    list holds only capturing outcomes whenever a capture is available.
    """
    own0, enemy0 = board.own, board.enemy
    ctx = phase_context(own0, enemy0, board.bats, board.side, rules)
    start = phase_start(own0, enemy0)
    seen = {state_key(start)}
    found: dict[tuple[int, int], tuple[Step, ...]] = {}
    queue = deque([(start, ())])
    complete = True
    while queue:
        st, path = queue.popleft()
        depth = len(path) + 1
        for step, nxt in successors(st, ctx):
            key = state_key(nxt)
            if key in seen:
                continue
            seen.add(key)
            p2 = path + (step,)
            placement = (nxt.own, nxt.enemy)
            if placement not in found:
                found[placement] = p2
            if depth < max_moves:
                queue.append((nxt, p2))
            elif nxt.own & ~nxt.moved:
                complete = False  # unmoved robots left beyond the move limit
        if max_states and len(seen) > max_states:
            complete = complete and not queue
            break
    if not complete:
        # multi-capture phases beyond the move limit: captures only, any number of them
        stack = [(start, ())]
        nodes = 0
        cseen = {state_key(start)}
        while stack and nodes < 2000:
            st, path = stack.pop()
            for step, nxt in successors(st, ctx):
                nodes += 1
                if not step.capture:
                    continue
                key = state_key(nxt)
                if key in cseen:
                    continue
                cseen.add(key)
                p2 = path + (step,)
                found.setdefault((nxt.own, nxt.enemy), p2)
                stack.append((nxt, p2))
    outcomes = [RobotOutcome(o, e, p) for (o, e), p in found.items()]
    outcomes = rules.keep_capturing(
        outcomes, lambda o: o.enemy != enemy0, None if complete else lambda: capturing_outcomes(board, rules)
    )
    return outcomes, complete


def grown_robot_phases(board: Board, rules: Rules, value, *, beam: int = 3, max_moves: int = 6) -> dict[tuple[int, int], tuple[float, tuple[Step, ...]]]:
    """Robot phases grown move by move on the evaluation (a beam search).

    Level 1 is every single legal move; each further level extends the
    ``beam`` best phases of the level before by one more move (any robot not
    moved yet).  ``value(own, enemy) -> float`` rates a placement for the
    mover.  This finds the many-robot advances that an exhaustive list
    limited to short phases misses, at a fraction of the full enumeration's
    cost.  Returns {placement: (value, moves)}.
    """
    ctx = phase_context(board.own, board.enemy, board.bats, board.side, rules)
    start = phase_start(board.own, board.enemy)
    found: dict[tuple[int, int], tuple[float, tuple[Step, ...]]] = {}
    seen = {state_key(start)}
    level = [(start, ())]
    for _ in range(max_moves):
        grown = []
        for st, path in level:
            for step, nxt in successors(st, ctx):
                key = state_key(nxt)
                if key in seen:
                    continue
                seen.add(key)
                p2 = path + (step,)
                placement = (nxt.own, nxt.enemy)
                hit = found.get(placement)
                if hit is None:
                    hit = (value(nxt.own, nxt.enemy), p2)
                    found[placement] = hit
                grown.append((hit[0], nxt, p2))
        if not grown:
            break
        grown.sort(key=lambda t: t[0], reverse=True)
        level = [(st, p) for _, st, p in grown[:beam]]
    return found


def capturing_outcomes(board: Board, rules: Rules, limit: int = 64) -> list[RobotOutcome]:
    """Robot phases that capture (for ``must-capture`` when a cut enumeration found none, R-8)."""
    ctx = phase_context(board.own, board.enemy, board.bats, board.side, rules)
    start = phase_start(board.own, board.enemy)
    out: dict[tuple[int, int], tuple[Step, ...]] = {}
    seen = {state_key(start)}
    stack = [(start, ())]
    while stack and len(out) < limit:
        st, path = stack.pop()
        for step, nxt in successors(st, ctx):
            key = state_key(nxt)
            if key in seen:
                continue
            seen.add(key)
            p2 = path + (step,)
            if step.capture or nxt.enemy != board.enemy:
                out.setdefault((nxt.own, nxt.enemy), p2)
                stack.append((nxt, p2))
            elif _capture_reachable(nxt, ctx):
                stack.append((nxt, p2))
    return [RobotOutcome(o, e, p) for (o, e), p in out.items()]


def winning_robot_phase(board: Board, rules: Rules, *, max_nodes: int = 4000) -> RobotOutcome | None:
    """A robot phase after which the mover has won (target row or capture-all), or None.

    Searches only moves that matter for an immediate win: moves landing on
    the target rank and captures.  Under ``must-capture`` a winning phase
    without a capture is not returned when a capture was available, so the
    result is always legal (the caller verifies it anyway).
    """
    side = board.side
    target = side.target_rank
    ctx = phase_context(board.own, board.enemy, board.bats, side, rules)
    start = phase_start(board.own, board.enemy)
    seen = {state_key(start)}
    stack = [(start, ())]
    nodes = 0
    while stack and nodes < max_nodes:
        st, path = stack.pop()
        for step, nxt in successors(st, ctx):
            nodes += 1
            if not (step.capture or (step.dst // 6 == target and step.src // 6 != target)):
                continue
            key = state_key(nxt)
            if key in seen:
                continue
            seen.add(key)
            p2 = path + (step,)
            if has_won(nxt.own, nxt.enemy, side):
                if nxt.enemy == board.enemy and rules.capture_owed(lambda: True):
                    continue  # a capture may be compulsory; leave this to the full generator
                return RobotOutcome(nxt.own, nxt.enemy, p2)
            stack.append((nxt, p2))
    return None


def battery_chains(own: int, enemy: int, bats: int, rules: Rules, score, *, max_len: int = 3, min_gain: float = 0.25) -> list[BatteryPhase]:
    """Battery phases grown greedily: [no move, best 1 move, best 2 moves, ...].

    ``score(bats) -> float`` rates the battery placement for the mover
    (higher is better); a chain stops when no single move gains ``min_gain``.
    """
    out = [BatteryPhase(bats, ())]
    movable = movable_batteries(own, enemy, bats & POINTS, rules)
    place, left_movable = rules.place, rules.left_movable
    if not movable:
        return out
    used = 0
    moves: tuple[tuple[int, int], ...] = ()
    current = score(bats)
    for _ in range(max_len):
        best = None
        for p, q, line in battery_steps(bats, movable, used, rules):
            nb = place(bats, p, q)
            v = score(nb)
            if best is None or v > best[0]:
                best = (v, p, q, line, nb)
        if best is None or best[0] < current + min_gain:
            break
        current, p, q, line, bats = best
        movable = left_movable(movable, bats, p, q)
        used = rules.line_used(used, line)
        moves = moves + ((p, q),)
        out.append(BatteryPhase(bats, moves))
    return out


def replay(board: Board, rules: Rules, steps: tuple[Step, ...], battery: tuple[tuple[int, int], ...]) -> tuple[int, int, int] | None:
    """(own, enemy, bats) after playing a turn found on another board, or None if it is illegal here.

    Each robot move must be one of the engine's legal successors (energy
    met), a non-capturing phase is refused under ``must-capture`` when a
    capture is available (R-7, R-8), and each battery move must move a
    battery the mover controls after the robot phase to the next empty point,
    once per battery and (unless ``no-line-limit``) once per line.
    """
    ctx = phase_context(board.own, board.enemy, board.bats, board.side, rules)
    st = phase_start(board.own, board.enemy)
    start = st
    captured = False
    for want in steps:
        # only the robot on want.src may move in this look-up (the others count as moved)
        only = st._replace(moved=st.moved | (st.own & ~(1 << want.src)))
        for step, nxt in successors(only, ctx):
            if step.dst == want.dst:
                st = nxt._replace(moved=st.moved | (1 << step.dst))
                captured |= step.capture
                break
        else:
            return None
    if not captured and rules.capture_owed(lambda: _capture_reachable(start, ctx) or None):
        return None
    bats = board.bats
    movable = movable_batteries(st.own, st.enemy, bats & POINTS, rules)
    used = 0
    for p, q in battery:
        if not movable >> p & 1:
            return None
        for line, ray in BATTERY_RAYS[p]:
            if q in ray:
                break
        else:
            return None
        if rules.closed_lines(used) >> line & 1:
            return None
        if rules.destination_fault(bats, p, q, ray) is not None:
            return None
        nb = rules.place(bats, p, q)
        movable = rules.left_movable(movable, nb, p, q)
        bats = nb
        used |= 1 << line
    return st.own, st.enemy, bats


def make_turn(steps: tuple[Step, ...], battery: tuple[tuple[int, int], ...] = ()) -> Turn:
    return Turn(
        tuple(RobotMove(s.src, s.dst, s.capture) for s in steps),
        tuple(BatteryMove(p, q) for p, q in battery),
    )
