"""The rules engine: the robot phase, battery moves, turns, game status, outcome sets.

Everything here follows ``docs/rules.md``; rulings are cited as R-n where
they are implemented.  A single robot move (where it goes, what it passes,
its cost) is :mod:`.robot_moves`'s, where a robot draws energy is
:mod:`.energy`'s, who may move a battery is :mod:`.control`'s; this module
puts them together into phases and turns.  Internally squares, points and
pieces are bitmasks (:mod:`.masks`) so that search stays fast; the public
functions take and return :class:`~companion.rules.position.Position` and
:class:`~companion.rules.moves.Turn`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, NamedTuple

from .battery_moves import BATTERY_RAYS, battery_steps, line_label, line_of_battery_move
from .control import control_counts, may_move, movable_batteries
from .energy import energy_message, hall_violation, sources_by_square, unsplit_message
from .errors import IllegalTurn
from .geometry import BLACK, WHITE, Color, point_name, square_name
from .masks import LAYER, POINTS, bits, layered, mask_of, points_of, stacks_of
from .moves import BatteryMove, RobotMove, Turn
from .options import ORIGINAL, Rules
from .position import Position
from .robot_moves import (
    BACKWARD,
    DIAGONAL,
    ENEMY_IN_WAY,
    ROBOT_RAYS,
    Step,
    judge_move,
    move_cost,
    move_label,
    robot_steps,
)

# --------------------------------------------------------------------------
# the robot phase: moves in sequence, energy as a b-matching (section 2.1, R-2, R-14)


class PhaseState(NamedTuple):
    own: int
    enemy: int
    moved: int  # current squares of robots that have moved
    demands: tuple[tuple[int, int], ...]  # (start square, cost), in move order
    subsets: tuple[tuple[int, int], ...]  # (union of sources, total cost) of every subset of demands


@dataclass(frozen=True)
class PhaseContext:
    color: Color
    rules: Rules
    batteries: int  # layered (masks.layered): a stack's batteries are bits of their own
    sources: tuple[int, ...]  # per start square: batteries it may draw from

    @classmethod
    def of(cls, pos: Position, rules: Rules) -> "PhaseContext":
        """The robot phase's context; R-19: a position with a stack needs ``stacking``."""
        if pos.stacks:
            rules.check_stacks(pos.stacks)
        color = pos.to_move
        own = mask_of(pos.robots(color))
        enemy = mask_of(pos.robots(color.other))
        batteries = layered(pos.batteries, pos.stacks)
        return cls(color, rules, batteries, sources_by_square(own, enemy, batteries, rules))


def initial_state(pos: Position) -> PhaseState:
    c = pos.to_move
    return PhaseState(mask_of(pos.robots(c)), mask_of(pos.robots(c.other)), 0, (), ((0, 0),))


def successors(st: PhaseState, ctx: PhaseContext) -> Iterator[tuple[Step, PhaseState]]:
    """Every legal next robot move from a robot-phase state, energy checked."""
    movable = st.own & ~st.moved
    assignable = ctx.rules.energy_assignable
    for sq in bits(movable):
        src = ctx.sources[sq]
        cap = src.bit_count()
        if cap == 0:
            continue
        # Energy left for this robot given the robots already moved: the
        # tightest bound over subsets sharing its sources.
        for step in robot_steps(st.own, st.enemy, sq, ctx.color, cap, ctx.rules, ctx.batteries):
            ok = True
            new_subsets = []
            for union, total in st.subsets:
                u = union | src
                t = total + step.cost
                if u.bit_count() < t:
                    ok = False
                    break
                new_subsets.append((u, t))
            if not ok:
                continue
            if assignable is not None and st.demands and not assignable(
                [(ctx.sources[s], c) for s, c in st.demands] + [(src, step.cost)]
            ):
                continue
            bit_from, bit_to = 1 << sq, 1 << step.dst
            yield step, PhaseState(
                (st.own & ~bit_from) | bit_to,
                st.enemy & ~bit_to,
                st.moved | bit_to,
                st.demands + ((sq, step.cost),),
                st.subsets + tuple(new_subsets),
            )


def state_key(st: PhaseState) -> tuple:
    return (st.own, st.enemy, st.moved, tuple(sorted(st.demands)))


# --------------------------------------------------------------------------
# capture availability


def _capture_candidates(st: PhaseState, ctx: PhaseContext) -> bool:
    """Cheap necessary condition for any capture: some own robot sees an enemy
    along a legal ray within the energy it could ever have, ignoring own robots
    in between except for their cost."""
    for sq in bits(st.own & ~st.moved):
        cap = ctx.sources[sq].bit_count()
        if cap < 2:
            continue
        for ray in ROBOT_RAYS[ctx.color][sq]:
            for n, t in enumerate(ray, 1):
                if move_cost(n, 0, True) > cap:
                    break
                if st.enemy >> t & 1:
                    return True
    return False


def capture_available(pos: Position, rules: Rules = ORIGINAL) -> RobotMove | None:
    """R-8: a capture is available when some legal robot phase of this turn
    (any order, energy met, other options respected) contains a capture,
    including one that an earlier move of the same turn makes possible.

    Returns one such capture move (the capture itself), or None.
    """
    return _first_capture(initial_state(pos), PhaseContext.of(pos, rules))


def missed_capture(pos: Position, rules: Rules, captured: bool) -> RobotMove | None:
    """R-7 (``must-capture``): a robot phase played in ``pos`` that ``captured``
    nothing although a capture was available (R-8) breaks the option; returns
    such an available capture, or None when the phase is fine (the profile's
    ``capture_owed`` hook, :mod:`.variants.must_capture`)."""
    if captured:
        return None
    return rules.capture_owed(lambda: capture_available(pos, rules))


def _first_capture(st: PhaseState, ctx: PhaseContext) -> RobotMove | None:
    """A capture that some legal continuation of the robot phase from ``st`` makes, or None."""
    if not _capture_candidates(st, ctx):
        return None
    seen = set()
    stack = [st]
    while stack:
        cur = stack.pop()
        for step, nxt in successors(cur, ctx):
            if step.capture:
                return RobotMove(step.src, step.dst, True)
            key = state_key(nxt)
            if key not in seen:
                seen.add(key)
                if _capture_candidates(nxt, ctx):
                    stack.append(nxt)
    return None


# --------------------------------------------------------------------------
# legal single moves and the no-legal-move rule


def legal_robot_moves(pos: Position, rules: Rules = ORIGINAL) -> list[tuple[RobotMove, int]]:
    """Every legal first robot move of the position's side to move, with its cost.

    With ``must-capture`` (R-7, R-8) and a capture available, a first move is
    kept only if it captures or a capture can still follow it in this turn.
    """
    ctx = PhaseContext.of(pos, rules)
    st = initial_state(pos)
    steps = rules.keep_capturing(list(successors(st, ctx)), lambda sn: sn[0].capture or _capture_reachable(sn[1], ctx))
    return [(RobotMove(s.src, s.dst, s.capture), s.cost) for s, _ in steps]


def _capture_reachable(st: PhaseState, ctx: PhaseContext) -> bool:
    """Can some continuation of the robot phase from ``st`` capture?"""
    return _first_capture(st, ctx) is not None


def has_legal_robot_move(pos: Position, rules: Rules = ORIGINAL) -> bool:
    """Can the side to move make any legal robot move (R-18)?

    Under ``must-capture`` a legal robot phase exists exactly when a single
    legal move exists (a capture, if available, is itself a legal phase), so
    the plain single-move test is the right one for every profile.
    """
    ctx = PhaseContext.of(pos, rules)
    st = initial_state(pos)
    for _ in successors(st, ctx):
        return True
    return False


# --------------------------------------------------------------------------
# game status (section 3, R-5, R-6, R-15, R-18)


@dataclass(frozen=True, slots=True)
class GameStatus:
    result: str  # "ongoing", "white wins", "black wins"
    winner: Color | None
    reason: str

    @property
    def over(self) -> bool:
        return self.winner is not None

    def __str__(self) -> str:
        return f"{self.result}: {self.reason}" if self.reason else self.result


def _needed_on_target(n: int) -> int:
    return (n + 1) // 2


def target_row_met(pos: Position, color: Color) -> bool:
    """Section 3: with n robots left, at least ceil(n/2) on the target row (never for n = 0, R-15)."""
    robots = pos.robots(color)
    n = len(robots)
    if n == 0:
        return False
    on_target = sum(1 for s in robots if s // 6 == color.target_rank)
    return on_target >= _needed_on_target(n)


def _win_reason(pos: Position, color: Color) -> str | None:
    if not pos.robots(color.other) and pos.robots(color):
        return f"{color.label} has captured every {color.other.label} robot"
    if not pos.robots(color.other) and not pos.robots(color):
        return "no robots are left on the board"
    if target_row_met(pos, color):
        robots = pos.robots(color)
        on = sorted(s for s in robots if s // 6 == color.target_rank)
        return (
            f"{color.label} has {len(on)} of {len(robots)} robots on the target row "
            f"(rank {color.target_rank + 1}: {', '.join(square_name(s) for s in on)}), "
            f"{_needed_on_target(len(robots))} needed"
        )
    return None


def status(pos: Position, rules: Rules = ORIGINAL) -> GameStatus:
    """Who has won, judged at the end of the turn that led to ``pos``.

    R-5/R-15: capture-all and the target-row rule are judged for both
    players; if both meet one, the player who just moved
    (``pos.to_move.other``) wins.  Only if nobody has won so is R-18 applied:
    if the player to move has no legal robot move, the player who just moved
    wins.  R-6: a won position is terminal (see :func:`apply_turn`).
    """
    mover = pos.to_move.other  # who just moved
    reasons = {c: _win_reason(pos, c) for c in (WHITE, BLACK)}
    winners = [c for c in (WHITE, BLACK) if reasons[c]]
    if len(winners) == 2:
        return GameStatus(
            f"{mover} wins",
            mover,
            f"both players meet a win condition and {mover.label} just moved (R-5): {reasons[mover]}",
        )
    if winners:
        w = winners[0]
        return GameStatus(f"{w} wins", w, str(reasons[w]))
    if not has_legal_robot_move(pos, rules):
        stuck = pos.to_move
        return GameStatus(
            f"{mover} wins",
            mover,
            f"{stuck.label} to move has no legal robot move (no energy or every move blocked) (R-18)",
        )
    return GameStatus("ongoing", None, f"{pos.to_move.label} to move")


# --------------------------------------------------------------------------
# applying a turn


def _check_robot_move(
    st: PhaseState, ctx: PhaseContext, m: RobotMove, labels: list[tuple[int, int, str]]
) -> tuple[Step, PhaseState]:
    color = ctx.color
    own_bit = 1 << m.src
    text = str(m)
    if not st.own & own_bit:
        if st.enemy & own_bit:
            raise IllegalTurn(
                f"{text}: the robot on {square_name(m.src)} is {color.other.label}'s; {color.label} moves own robots only",
                squares=(m.src,),
            )
        raise IllegalTurn(f"{text}: no {color.label} robot on {square_name(m.src)}", squares=(m.src,))
    if st.moved & own_bit:
        raise IllegalTurn(
            f"{text}: the robot on {square_name(m.src)} has already moved this turn (each robot moves at most once, R-2/R-14)",
            squares=(m.src,),
        )
    if m.src == m.dst:
        raise IllegalTurn(f"{text}: a move must cover at least one square (R-13)", squares=(m.src,))
    check = judge_move(m.src, m.dst, color, st.own, st.enemy, m.capture, ctx.batteries, ctx.rules)
    if check.fault == DIAGONAL:
        raise IllegalTurn(f"{text}: robots move in a straight line, never diagonally", squares=(m.src, m.dst))
    if check.fault == BACKWARD:
        raise IllegalTurn(f"{text}: robots never move backward", squares=(m.src, m.dst))
    dst_bit = 1 << m.dst
    if m.capture and not st.enemy & dst_bit:
        what = "an own robot" if st.own & dst_bit else "an empty square"
        raise IllegalTurn(f"{text}: 'x' marks a capture but {square_name(m.dst)} holds {what} (R-13)", squares=(m.dst,))
    if not m.capture and st.enemy & dst_bit:
        raise IllegalTurn(
            f"{text}: {square_name(m.dst)} holds a {color.other.label} robot: write a capture as "
            f"'{square_name(m.src)}x{square_name(m.dst)}' (R-13)",
            squares=(m.dst,),
        )
    if st.own & dst_bit:
        raise IllegalTurn(f"{text}: {square_name(m.dst)} is occupied by an own robot", squares=(m.dst,))
    if check.fault == ENEMY_IN_WAY:
        raise IllegalTurn(
            f"{text}: it would pass over the {color.other.label} robot on {square_name(check.at)} "
            "(robots may jump only own robots)",
            squares=(m.src, check.at),
        )
    if check.fault is not None:  # STRONGER_VICTIM
        raise IllegalTurn(
            f"{text}: strength-capture: the victim on {square_name(m.dst)} has strength {check.victim}, "
            f"more than the attacker's {check.attacker} on {square_name(m.src)} (R-9)",
            squares=(m.src, m.dst),
        )
    cost = check.cost
    step = Step(m.src, m.dst, m.capture, cost, check.jumped_own, check.jumped_enemy)
    src = ctx.sources[m.src]
    subsets = []
    for union, total in st.subsets:
        subsets.append((union | src, total + cost))
    all_demands = list(labels) + [(m.src, cost, move_label(m.src, m.dst))]
    bad = hall_violation([(ctx.sources[s], c) for s, c, _ in all_demands])
    if bad is not None:
        chosen = [d for i, d in enumerate(all_demands) if bad[0] >> i & 1]
        raise IllegalTurn(energy_message(chosen, ctx.sources, ctx.rules), squares=tuple(s for s, _, _ in chosen))
    assignable = ctx.rules.energy_assignable
    if assignable is not None and not assignable([(ctx.sources[s], c) for s, c, _ in all_demands]):
        raise IllegalTurn(unsplit_message(all_demands, ctx.sources), squares=tuple(s for s, _, _ in all_demands))
    return step, PhaseState(
        (st.own & ~own_bit) | dst_bit,
        st.enemy & ~dst_bit,
        st.moved | dst_bit,
        st.demands + ((m.src, cost),),
        st.subsets + tuple(subsets),
    )


def _check_battery_move(
    batteries: int, moved: int, used_lines: int, own: int, enemy: int, m: BatteryMove, color: Color, rules: Rules
) -> tuple[int, int, int]:
    text = str(m)
    sb, db = 1 << m.src, 1 << m.dst
    if not batteries & sb:
        raise IllegalTurn(f"{text}: no battery on {point_name(m.src)}", points=(m.src,))
    if moved & sb:
        if batteries >> (LAYER + m.src) & 1:
            raise IllegalTurn(
                f"{text}: the battery on top of the stack on {point_name(m.src)} has already moved this turn: "
                "nothing leaves that stack for the rest of the turn (R-4, R-20)",
                points=(m.src,),
            )
        raise IllegalTurn(
            f"{text}: the battery on {point_name(m.src)} has already moved this turn (each battery moves at most once, R-4)",
            points=(m.src,),
        )
    o, e = control_counts(own, enemy, m.src)
    if not may_move(own, enemy, m.src, rules):
        raise IllegalTurn(
            f"battery {point_name(m.src)} moved but {color.label} does not control it "
            f"({o} {color.label} vs {e} {color.other.label} robot{'s' if e != 1 else ''} around it"
            + (f", {why}, R-11" if (why := rules.control_shortfall(o, e)) else "")
            + ")",
            points=(m.src,),
        )
    line = line_of_battery_move(m.src, m.dst)
    if m.src == m.dst or line is None:
        raise IllegalTurn(
            f"{text}: a battery moves along one energy line to the next empty point", points=(m.src, m.dst)
        )
    if rules.closed_lines(used_lines) >> line & 1:
        raise IllegalTurn(
            f"{text}: energy line {line_label(line)} carried two battery moves (one per line per turn)",
            points=(m.src, m.dst),
        )
    # where a battery may go along that line: exactly the first empty point, or a stacking step
    ray = None
    for ln, r in BATTERY_RAYS[m.src]:
        if m.dst in r:
            ray = r
            break
    assert ray is not None
    fault = rules.destination_fault(batteries, m.src, m.dst, ray)
    if fault is not None:
        raise IllegalTurn(f"{text}: {fault[0]}", points=fault[1])
    # the battery now on top of dst has moved; one uncovered on src has not
    return rules.place(batteries, m.src, m.dst), (moved & ~sb) | db, used_lines | (1 << line)


def _play_robot_phase(
    pos: Position, moves: tuple[RobotMove, ...], rules: Rules
) -> tuple[PhaseContext, PhaseState, bool]:
    """The robot moves played in order, each checked (:class:`IllegalTurn` otherwise): the phase's
    context, its final state (``demands``: start square and cost of every move) and whether it captured."""
    ctx = PhaseContext.of(pos, rules)
    st = initial_state(pos)
    captured = False
    labels: list[tuple[int, int, str]] = []
    for m in moves:
        step, st = _check_robot_move(st, ctx, m, labels)
        labels.append((m.src, step.cost, move_label(m.src, m.dst)))
        captured |= step.capture
    return ctx, st, captured


def robot_phase_demands(
    pos: Position, turn: Turn, rules: Rules = ORIGINAL
) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """The energy the robot moves of ``turn`` draw: the energy sources of every start square
    (:func:`.energy.sources_by_square`, layered) and, per move in order, (start square, cost)
    as :func:`.robot_moves.robot_steps` and :func:`.robot_moves.move_cost` give it.

    Raises :class:`IllegalTurn` when the robot moves are not a legal robot phase."""
    ctx, st, _ = _play_robot_phase(pos, turn.robot_moves, rules)
    return ctx.sources, st.demands


def robot_phase_cost(pos: Position, turn: Turn, rules: Rules = ORIGINAL) -> int | None:
    """Energy spent by the robot moves of ``turn`` (None if they are not a legal robot phase)."""
    ctx = PhaseContext.of(pos, rules)
    st = initial_state(pos)
    cost = 0
    for mv in turn.robot_moves:
        for step, nxt in successors(st, ctx):
            if step.src == mv.src and step.dst == mv.dst:
                cost += step.cost
                st = nxt
                break
        else:
            return None
    return cost


def apply_turn(pos: Position, turn: Turn | str, rules: Rules = ORIGINAL) -> Position:
    """Play ``turn`` on ``pos`` and return the new position (the other side to move).

    Raises :class:`IllegalTurn` with a reason naming the move and the rule.
    R-6: a position in which the game is already decided accepts no turn.
    """
    if isinstance(turn, str):
        turn = Turn.parse(turn)
    st_status = status(pos, rules)
    if st_status.over:
        raise IllegalTurn(f"the game is over: {st_status.result} ({st_status.reason}) (R-6)")
    ctx, st, captured = _play_robot_phase(pos, turn.robot_moves, rules)
    cap = missed_capture(pos, rules, captured)
    if cap is not None:
        raise IllegalTurn(
            f"must-capture: a capture was available ({cap}) but the robot phase captured nothing (R-7, R-8)",
            squares=(cap.src, cap.dst),
        )
    batteries = ctx.batteries
    moved = 0
    used = 0
    for m in turn.battery_moves:
        batteries, moved, used = _check_battery_move(batteries, moved, used, st.own, st.enemy, m, ctx.color, rules)
    own, enemy = st.own, st.enemy
    white, black = (own, enemy) if ctx.color is WHITE else (enemy, own)
    return Position(
        frozenset(bits(white)), frozenset(bits(black)), frozenset(bits(points_of(batteries))), ctx.color.other,
        stacks_of(batteries),
    )


def is_legal(pos: Position, turn: Turn | str, rules: Rules = ORIGINAL) -> bool:
    try:
        apply_turn(pos, turn, rules)
    except IllegalTurn:
        return False
    return True


# --------------------------------------------------------------------------
# outcome sets


def robot_phase_outcomes(pos: Position, rules: Rules = ORIGINAL) -> set[tuple[frozenset[int], frozenset[int]]]:
    """R-16: the distinct robot placements (white squares, black squares) after
    a legal robot phase of at least one move; under ``must-capture`` only the
    capturing ones when any exists.  Pure move generation: the game being
    over is not asked."""
    color = pos.to_move
    ctx = PhaseContext.of(pos, rules)
    start = initial_state(pos)
    seen = {state_key(start)}
    stack = [start]
    placements: set[tuple[int, int]] = set()
    while stack:
        st = stack.pop()
        for _, nxt in successors(st, ctx):
            key = state_key(nxt)
            if key in seen:
                continue
            seen.add(key)
            placements.add((nxt.own, nxt.enemy))
            stack.append(nxt)
    enemy0 = mask_of(pos.robots(color.other))
    out = set()
    for own, enemy in rules.keep_capturing(list(placements), lambda p: p[1] != enemy0):
        w, b = (own, enemy) if color is WHITE else (enemy, own)
        out.add((frozenset(bits(w)), frozenset(bits(b))))
    return out


def _battery_phase_masks(own: int, enemy: int, batteries: int, rules: Rules) -> set[int]:
    """The layered battery placements (R-16, R-22: with heights) after a legal battery phase."""
    movable0 = movable_batteries(own, enemy, batteries & POINTS, rules)
    line_used, place, left_movable = rules.line_used, rules.place, rules.left_movable
    results = {batteries}
    start = (batteries, movable0, 0)
    seen = {start}
    stack = [start]
    while stack:
        bats, movable, used = stack.pop()
        for p, q, line in battery_steps(bats, movable, used, rules):
            nb = place(bats, p, q)
            state = (nb, left_movable(movable, nb, p, q), line_used(used, line))
            if state not in seen:
                seen.add(state)
                results.add(nb)
                stack.append(state)
    return results


def battery_phase_outcomes(pos: Position, rules: Rules = ORIGINAL) -> set[frozenset[int]]:
    """R-16: the distinct battery placements after a legal battery phase of
    zero or more moves, with the position's robots as they stand and its side
    to move moving batteries: the occupied points of each.  With stacks
    (R-22, placements with heights) see :func:`battery_phase_layouts`."""
    return {frozenset(bits(points_of(m))) for m in battery_phase_layouts(pos, rules)}


def battery_phase_layouts(pos: Position, rules: Rules = ORIGINAL) -> set[int]:
    """R-16, R-22: the distinct battery placements with heights, as layered
    ints (:func:`.masks.layered`; :func:`.masks.points_of` and
    :func:`.masks.stacks_of` read them)."""
    if pos.stacks:
        rules.check_stacks(pos.stacks)
    color = pos.to_move
    own = mask_of(pos.robots(color))
    enemy = mask_of(pos.robots(color.other))
    return _battery_phase_masks(own, enemy, layered(pos.batteries, pos.stacks), rules)


# --------------------------------------------------------------------------
# random legal turns (self-play, tests, benchmarks, the demo's players)


def random_turn(pos: Position, rng, rules: Rules = ORIGINAL, *, stop: float = 0.5, battery_stop: float = 0.5) -> Turn:
    """A random legal turn: a random walk through the robot phase, then the battery phase.

    ``rng`` is a :class:`random.Random`.  After each move the walk stops
    with probability ``stop`` (``battery_stop`` for batteries).  Under
    ``must-capture`` the robot phase captures whenever a capture is
    available.  Raises :class:`IllegalTurn` if the side to move has no legal
    robot move.
    """
    ctx = PhaseContext.of(pos, rules)
    need_capture = missed_capture(pos, rules, False) is not None
    for _attempt in range(200):
        st = initial_state(pos)
        moves: list[RobotMove] = []
        captured = False
        while True:
            succ = list(successors(st, ctx))
            if need_capture and not captured:
                succ = [(s, n) for s, n in succ if s.capture or _capture_reachable(n, ctx)]
            if not succ:
                break
            step, st = rng.choice(succ)
            moves.append(RobotMove(step.src, step.dst, step.capture))
            captured |= step.capture
            if (not need_capture or captured) and rng.random() < stop:
                break
        if not moves:
            raise IllegalTurn(f"{pos.to_move.label} has no legal robot move")
        if need_capture and not captured:
            continue
        break
    own, enemy = st.own, st.enemy
    movable = movable_batteries(own, enemy, ctx.batteries & POINTS, rules)
    bmoves = random_battery_moves(ctx.batteries, movable, rules, rng, stop=battery_stop)
    return Turn(tuple(moves), tuple(bmoves))


def random_battery_moves(bats: int, movable: int, rules: Rules, rng, *, stop: float = 0.5) -> tuple[BatteryMove, ...]:
    """A random legal battery phase: ``movable`` are the batteries the mover
    controls (after the robot phase); after each move the walk stops with
    probability ``stop``."""
    used = 0
    moves: list[BatteryMove] = []
    while rng.random() >= stop:
        options = list(battery_steps(bats, movable, used, rules))
        if not options:
            break
        p, q, line = rng.choice(options)
        bats = rules.place(bats, p, q)
        movable = rules.left_movable(movable, bats, p, q)
        used = rules.line_used(used, line)
        moves.append(BatteryMove(p, q))
    return tuple(moves)
