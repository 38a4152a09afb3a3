"""Turn inference: which legal turn turns the board ``before`` into ``after``?

The camera sees only two boards.  Robots of a colour look alike, batteries
look alike, and a piece may move into a spot vacated earlier in the same
turn (hidden chains), so the difference of the two boards is not the turn.

:func:`explain` searches the robot phase and the battery phase separately
(they only meet in the robots standing after the robot phase) with a
breadth-first search whose every move must land where the after-board has a
piece of that kind: a robot or a battery moves at most once a turn (R-2,
R-4, R-14), so its landing spot is its final spot.  The shortest legal turn
is returned.

When no legal turn exists, a *diagnosis* names pieces and rules.  It comes
from the closest near-legal explanation: every pairing of vacated with newly
occupied spots is scored by the rules it breaks, and the pairing breaking
the fewest is described.
"""

from __future__ import annotations

import itertools
from typing import Callable
from dataclasses import dataclass

from .control import control_counts, may_move, movable_batteries
from .energy import energy_message, hall_violation
from .battery_moves import BATTERY_RAYS, battery_steps, line_label, line_of_battery_move
from .engine import ORIGINAL, PhaseContext, capture_available, initial_state, missed_capture, state_key, status, successors
from .geometry import BLACK, WHITE, Color, point_name, square_name
from .masks import LAYER, POINTS, bits, height, layered, mask_of
from .moves import BatteryMove, RobotMove, Turn
from .options import Rules
from .position import BATTERY_COUNT, MAX_ROBOTS, Placement, Position
from .robot_moves import BACKWARD, DIAGONAL, ENEMY_IN_WAY, MoveCheck, judge_move, move_label

#: Pairings are scored exhaustively up to this many moved pieces of a kind;
#: beyond it, spots are paired greedily by distance.
MAX_EXHAUSTIVE = 6


@dataclass(frozen=True, slots=True)
class Problem:
    """One broken rule of a near-legal explanation, with the pieces it concerns."""

    message: str
    squares: tuple[int, ...] = ()
    points: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Explanation:
    """The result of :func:`explain`: a legal ``turn``, or the ``problems`` of the closest explanation."""

    turn: Turn | None
    problems: tuple[Problem, ...] = ()
    after: Position | None = None

    @property
    def legal(self) -> bool:
        return self.turn is not None

    @property
    def diagnosis(self) -> str | None:
        if self.turn is not None:
            return None
        return "; ".join(p.message for p in self.problems)

    @property
    def squares(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(s for p in self.problems for s in p.squares))

    @property
    def points(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(q for p in self.problems for q in p.points))

    def __str__(self) -> str:
        return str(self.turn) if self.turn is not None else f"illegal: {self.diagnosis}"


def explain(before: Position, after: Position | Placement, rules: Rules = ORIGINAL, *,
            diagnose: bool = True) -> Explanation:
    """A legal turn turning ``before`` into ``after``, or a diagnosis.

    ``after`` may be a :class:`Position` (its side must be the other player's)
    or a raw :class:`Placement` as read by the camera. ``diagnose=False``: whether a legal turn
    exists (and which) only; an illegal board's problems are not worked out beyond one line saying
    which phase no legal move reaches (the diagnosis of an illegal robot phase is most of the work:
    about 8 ms of a board's 9, against 0.2 ms for the search that finds a legal one). The referee
    asks so of the readings it tries beside the likeliest.
    """
    mover = before.to_move
    board = Placement.of(after)
    problems: list[Problem] = []
    rules.check_position(before)  # stacks, before or after, need the option stacking
    rules.check_position(board)

    st = status(before, rules)
    if st.over:
        return Explanation(None, (Problem(f"the game is over: {st.result} ({st.reason}); no further turn (R-6)"),))
    if isinstance(after, Position) and after.to_move is not mover.other:
        problems.append(
            Problem(f"the position after {mover.label}'s turn must have {mover.other.label} to move, not {after.to_move.label}")
        )

    # --- counts: a misread or tampered board
    nb = board.battery_count()
    if nb != BATTERY_COUNT:
        if nb < BATTERY_COUNT:
            miss = BATTERY_COUNT - nb
            full = _onto_full_stack(before, board, rules) if miss == 1 else None
            if full is not None:
                problems.append(full)
            else:
                problems.append(Problem(
                    f"{nb} batteries on the board: {'one is' if miss == 1 else f'{miss} are'} missing or misread"
                ))
        else:
            extra = nb - BATTERY_COUNT
            problems.append(Problem(
                f"{nb} batteries on the board: {'one' if extra == 1 else extra} too many (misread, or a piece added)"
            ))
    for c in (WHITE, BLACK):
        if len(board.robots(c)) > MAX_ROBOTS:
            problems.append(Problem(f"{len(board.robots(c))} {c.label} robots on the board: at most {MAX_ROBOTS} exist"))
    if board.white & board.black:
        problems.append(Problem("a square reads as both colours", squares=tuple(sorted(board.white & board.black))))
    if problems:
        return Explanation(None, tuple(problems))

    problems += _robot_count_problems(before, board, mover)
    robot_moves: tuple[RobotMove, ...] | None = None
    if not problems:
        robot_moves, robot_problems = _explain_robot_phase(before, board, rules, diagnose)
        problems += robot_problems
    if problems and not diagnose:
        return Explanation(None, tuple(problems))

    battery_moves, battery_problems = _explain_battery_phase(before, board, rules, diagnose)
    problems += battery_problems

    if problems or robot_moves is None:
        if not problems:  # pragma: no cover - defensive: the robot search always reports
            problems.append(Problem("no legal robot phase reaches this board"))
        return Explanation(None, tuple(problems))
    turn = Turn(robot_moves, battery_moves or ())
    after_pos = Position(board.white, board.black, board.batteries, mover.other, board.stacks)
    return Explanation(turn, (), after_pos)


def _onto_full_stack(before: Position, board: Placement, rules: Rules) -> Problem | None:
    """R-19: one battery gone from a point beside a stack of three along a line (a stacking
    step's target, R-20), that stack unchanged: the battery was put on a stack that takes no more,
    and a fourth battery cannot be seen or written.  The stack is named by the profile's
    ``destination_fault`` (``C3 holds three batteries: nothing can be put on it``)."""
    start = layered(before.batteries, before.stacks)
    left = [p for p in before.batteries if board.height(p) == before.height(p) - 1]
    if len(left) != 1 or any(board.height(p) > before.height(p) for p in board.batteries):
        return None
    p = left[0]
    for _line, ray in BATTERY_RAYS[p]:
        q = ray[0]
        if before.height(q) == 3 and board.height(q) == 3:
            fault = rules.destination_fault(start, p, q, ray)
            if fault is not None:
                return Problem(
                    f"{fault[0]}; the battery that left {point_name(p)} is not on the board "
                    f"({board.battery_count()} batteries)",
                    points=(p, q),
                )
    return None


# --------------------------------------------------------------------------
# robots


def _robot_count_problems(before: Position, board: Placement, mover: Color) -> list[Problem]:
    """Enemy robots never move in the mover's turn; own robots are never removed or added."""
    out: list[Problem] = []
    enemy = mover.other
    e_before, e_after = before.robots(enemy), board.robots(enemy)
    o_before, o_after = before.robots(mover), board.robots(mover)
    appeared = sorted(e_after - e_before)
    vanished = sorted(e_before - e_after)
    # an enemy robot that vanished may have been captured: its square now holds an own robot
    uncaptured = [s for s in vanished if s not in o_after]
    for s in appeared:
        if uncaptured:
            src = min(uncaptured, key=lambda u: (abs(u % 6 - s % 6) + abs(u // 6 - s // 6), u))
            uncaptured.remove(src)
            out.append(Problem(
                f"{enemy.label} robot {square_name(src)} moved to {square_name(s)} during {mover.label}'s turn",
                squares=(src, s),
            ))
        else:
            out.append(Problem(f"a {enemy.label} robot appeared on {square_name(s)} during {mover.label}'s turn",
                               squares=(s,)))
    for s in uncaptured:
        out.append(Problem(
            f"{enemy.label} robot {square_name(s)} is gone but no {mover.label} robot took its square "
            "(a capturing robot ends its move on the captured robot's square)",
            squares=(s,),
        ))
    if len(o_after) > len(o_before):
        new = sorted(o_after - o_before)
        out.append(Problem(
            f"{len(o_after)} {mover.label} robots where there were {len(o_before)}: a robot appeared "
            f"({', '.join(square_name(s) for s in new)})",
            squares=tuple(new),
        ))
    elif len(o_after) < len(o_before):
        gone = sorted(o_before - o_after)
        out.append(Problem(
            f"{len(o_before) - len(o_after)} {mover.label} robot(s) missing "
            f"({', '.join(square_name(s) for s in gone)}): a player's own robots are never removed in their turn",
            squares=tuple(gone),
        ))
    return out


def _explain_robot_phase(
    before: Position, board: Placement, rules: Rules, diagnose: bool = True
) -> tuple[tuple[RobotMove, ...] | None, list[Problem]]:
    mover = before.to_move
    target_own = mask_of(board.robots(mover))
    target_enemy = mask_of(board.robots(mover.other))
    ctx = PhaseContext.of(before, rules)
    start = initial_state(before)
    if start.own == target_own and start.enemy == target_enemy:
        return None, [Problem(f"no {mover.label} robot moved: a turn moves at least one robot, then batteries")]

    found = _bfs_robot_phase(start, ctx, target_own, target_enemy)
    if found is not None:
        cap = missed_capture(before, rules, any(m.capture for m in found))
        if cap is not None:
            return None, [Problem(
                f"must-capture: a capture was available ({cap}) but no robot captured (R-7, R-8)",
                squares=(cap.src, cap.dst),
            )]
        return found, []
    if not diagnose:
        return None, [Problem(f"no legal {mover.label} robot phase reaches this board")]
    return None, _diagnose_robot_phase(before, board, rules, ctx)


def _bfs_robot_phase(start, ctx, target_own: int, target_enemy: int) -> tuple[RobotMove, ...] | None:
    """Shortest legal robot phase from ``start`` to the target placement."""
    # a robot standing where the after-board has none must move: one with no
    # energy source at all never can
    stuck = 0
    for sq in range(36):
        if not ctx.sources[sq]:
            stuck |= 1 << sq
    if start.own & ~target_own & stuck:
        return None
    frontier = [(start, ())]
    seen = {state_key(start)}
    while frontier:
        nxt_frontier = []
        for st, path in frontier:
            for step, nxt in successors(st, ctx):
                # a robot moves once, so every landing is final
                if not target_own >> step.dst & 1:
                    continue
                key = state_key(nxt)
                if key in seen:
                    continue
                seen.add(key)
                npath = path + (RobotMove(step.src, step.dst, step.capture),)
                if nxt.own == target_own and nxt.enemy == target_enemy:
                    return npath
                nxt_frontier.append((nxt, npath))
        frontier = nxt_frontier
    return None


def _pairings(sources: list[int], targets: list[int], dist) -> list[list[tuple[int, int]]]:
    if len(sources) <= MAX_EXHAUSTIVE:
        return [list(zip(sources, perm)) for perm in itertools.permutations(targets)]
    # greedy by distance for very large differences (a tampered board)
    left = list(targets)
    pairs = []
    for s in sources:
        t = min(left, key=lambda x: (dist(s, x), x))
        left.remove(t)
        pairs.append((s, t))
    return [pairs]


def _diagnose_robot_phase(before: Position, board: Placement, rules: Rules, ctx) -> list[Problem]:
    mover = before.to_move
    own_b, own_a = before.robots(mover), board.robots(mover)
    enemy_b = mask_of(before.robots(mover.other))
    vacated = sorted(own_b - own_a)
    arrived = sorted(own_a - own_b)
    stayers = mask_of(own_b & own_a)
    best: list[Problem] | None = None
    best_pairing: list[tuple[int, int]] = []

    def dist(a: int, b: int) -> int:
        return abs(a % 6 - b % 6) + abs(a // 6 - b // 6)

    judged: dict[tuple[int, int], MoveCheck] = {}

    def judge(s: int, t: int) -> MoveCheck:
        """The move ``s``-``t`` (a capture where an enemy stood) judged once, however many pairings hold it."""
        check = judged.get((s, t))
        if check is None:
            check = judged[s, t] = judge_move(s, t, mover, stayers, enemy_b, bool(enemy_b >> t & 1), ctx.batteries, rules)
        return check

    for pairing in _pairings(vacated, arrived, dist):
        probs: list[Problem] = []
        demands: list[tuple[int, int, str]] = []
        for s, t in pairing:
            label = move_label(s, t)
            check = judge(s, t)
            if check.fault == DIAGONAL:
                probs.append(Problem(f"robot {label} moved diagonally or around a corner: robots move in a straight line", (s, t)))
                continue
            if check.fault == BACKWARD:
                probs.append(Problem(f"robot {label} moved backward: robots move only forward or sideways", (s, t)))
                continue
            if check.fault == ENEMY_IN_WAY:
                probs.append(Problem(
                    f"robot {label} passed over the {mover.other.label} robot on {square_name(check.at)}: "
                    "robots may jump only own robots",
                    (s, check.at, t),
                ))
                continue
            if check.fault is not None:  # STRONGER_VICTIM
                probs.append(Problem(
                    f"robot {label} captured a robot of strength {check.victim} with strength {check.attacker}: "
                    "strength-capture allows only victims not stronger than the attacker (R-9)",
                    (s, t),
                ))
                continue
            demands.append((s, check.cost, label))
        if demands:
            bad = hall_violation([(ctx.sources[s], c) for s, c, _ in demands])
            if bad is not None:
                chosen = [d for i, d in enumerate(demands) if bad[0] >> i & 1]
                probs.append(Problem(energy_message(chosen, ctx.sources, rules), tuple(s for s, _, _ in chosen)))
        if not probs:
            probs = _order_problems(before, pairing, rules, ctx)
        if best is None or len(probs) < len(best):
            best = probs
            best_pairing = pairing
            if len(best) == 1 and len(pairing) == 1:
                break
    if best is not None and len(best) == 1:
        unsure = _unknown_culprit(best_pairing, vacated, mover, judge) \
            or _crowded_squares(best_pairing, vacated, arrived, mover, judge)
        if unsure is not None:
            return [unsure]
    return best or [Problem("no legal robot phase turns the board before into this board")]


def _fault_phrase(src: int, dst: int, check, enemy: Color) -> str:
    """Why the move ``src``-``dst`` cannot be a robot's move, in a few words (after "from X it ...")."""
    if check.fault == DIAGONAL:
        diagonal = abs(src % 6 - dst % 6) == abs(src // 6 - dst // 6)
        return "is a diagonal move" if diagonal else "is no straight line"
    if check.fault == BACKWARD:
        return "is a backward move"
    if check.fault == ENEMY_IN_WAY:
        return f"passes over the {enemy.label} robot on {square_name(check.at)}"
    return f"captures a stronger robot (strength {check.victim} against {check.attacker}, R-9)"


def _unknown_culprit(pairing, vacated: list[int], mover: Color, judge: Callable[[int, int], MoveCheck]) -> Problem | None:
    """When the one broken rule is a robot set down where no robot that left its square can have
    got: the board shows *which square* is wrong, not *which robot* went there. Then the square is
    what is certain (the pointer shows it) and every robot that left is named as a candidate.
    None when one robot alone fits (only one left its square) or another robot may have reached
    the square by a legal move (the fault is then not certain to lie there).  ``judge(s, t)``:
    the move ``s``-``t`` judged by the rules of a single move."""
    faulty = [(s, t) for s, t in pairing if judge(s, t).fault]
    if len(faulty) != 1 or len(vacated) < 2:
        return None
    _, target = faulty[0]
    phrases: dict[str, list[int]] = {}
    for s in vacated:
        check = judge(s, target)
        if check.fault is None:
            return None
        phrases.setdefault(_fault_phrase(s, target, check, mover.other), []).append(s)
    reasons = "; ".join(f"from {' or from '.join(square_name(s) for s in sources)} it {phrase}"
                        for phrase, sources in phrases.items())
    return Problem(f"the {mover.label} robot on {square_name(target)} cannot have got there: {reasons}", (target,))


def _crowded_squares(pairing, vacated: list[int], arrived: list[int], mover: Color,
                     judge: Callable[[int, int], MoveCheck]) -> Problem | None:
    """When the one broken rule is a robot set down where it cannot have got, but which one is
    not knowable: the squares reached by fewer of the robots that left than robots stand there
    now (two new robots only one vacated square reaches by a legal move). Those squares are what
    is certain (the pointer shows them); the robots that may have gone there are named. None when
    the pairing's fault is not one robot's move, or no such squares exist."""
    faulty = [(s, t) for s, t in pairing if judge(s, t).fault]
    if len(faulty) != 1 or len(vacated) < 2 or len(arrived) > MAX_EXHAUSTIVE:
        return None
    reach = {t: {s for s in vacated if judge(s, t).fault is None} for t in arrived}
    for size in range(2, len(arrived) + 1):
        for group in itertools.combinations(arrived, size):
            sources = sorted(set().union(*(reach[t] for t in group)))
            if len(sources) < size:
                squares = _names(group)
                both = "both" if size == 2 else "all"
                if not sources:
                    who = "no robot that left its square reaches any of them by a legal move"
                elif len(sources) == 1:
                    who = f"only the robot from {square_name(sources[0])} reaches {'either' if size == 2 else 'any'} " \
                          "of them by a legal move"
                else:
                    who = f"only the robots from {_names(sources)} reach any of them by a legal move"
                return Problem(f"the {mover.label} robots on {squares} cannot {both} have got there: {who}",
                               tuple(group))
    return None


def _names(squares) -> str:
    names = [square_name(s) for s in squares]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _order_problems(before: Position, pairing: list[tuple[int, int]], rules: Rules, ctx) -> list[Problem]:
    """Each move of ``pairing`` is fine on its own: find why no order of them is legal."""
    from .engine import IllegalTurn, _check_robot_move

    best: list[Problem] | None = None
    orders = itertools.permutations(pairing) if len(pairing) <= 4 else [tuple(pairing)]
    for order in orders:
        st = initial_state(before)
        labels: list[tuple[int, int, str]] = []
        try:
            for s, t in order:
                cap = bool(st.enemy >> t & 1)
                m = RobotMove(s, t, cap)
                step, st = _check_robot_move(st, ctx, m, labels)
                labels.append((s, step.cost, move_label(s, t)))
        except IllegalTurn as exc:
            probs = [Problem(exc.reason, exc.squares, exc.points)]
            if best is None:
                best = probs
            continue
        cap = rules.capture_owed(lambda: capture_available(before, rules))
        if cap is not None:
            return [Problem(f"must-capture: a capture was available ({cap}) but no robot captured (R-7, R-8)",
                            (cap.src, cap.dst))]
        return [Problem("these robot moves are legal one by one, but no legal order of them reaches this board")]
    return best or [Problem("no legal robot phase reaches this board")]


# --------------------------------------------------------------------------
# batteries


def _explain_battery_phase(
    before: Position, board: Placement, rules: Rules, diagnose: bool = True
) -> tuple[tuple[BatteryMove, ...] | None, list[Problem]]:
    mover = before.to_move
    own = mask_of(board.robots(mover))
    enemy = mask_of(board.robots(mover.other))
    start = layered(before.batteries, before.stacks)
    target = layered(board.batteries, board.stacks)
    if start == target:
        return (), []
    if board.battery_count() != BATTERY_COUNT:
        return None, []
    found = _bfs_battery_phase(start, target, own, enemy, rules)
    if found is not None:
        return found, []
    if not diagnose:
        return None, [Problem(f"no legal {mover.label} battery phase reaches this board")]
    return None, _diagnose_battery_phase(before, board, rules, own, enemy)


def _bfs_battery_phase(start: int, target: int, own: int, enemy: int, rules: Rules) -> tuple[BatteryMove, ...] | None:
    movable0 = movable_batteries(own, enemy, start & POINTS, rules)
    # points with more batteries than the after-board shows must lose their top, so must be movable
    if _excess(start, target) & ~movable0:
        return None
    line_used, place, left_movable = rules.line_used, rules.place, rules.left_movable
    frontier = [((start, movable0, 0), ())]
    seen = {frontier[0][0]}
    while frontier:
        nxt_frontier = []
        for (bats, movable, used), path in frontier:
            for p, q, line in battery_steps(bats, movable, used, rules):
                if not target >> q & 1:
                    continue
                nb = place(bats, p, q)
                # a battery that moved stays on top of q for the rest of the turn: never above the after-board
                if _excess(nb, target) >> q & 1:
                    continue
                nmov = left_movable(movable, nb, p, q)
                # every battery still off target must still be movable
                if _excess(nb, target) & ~nmov:
                    continue
                state = (nb, nmov, line_used(used, line))
                if state in seen:
                    continue
                seen.add(state)
                npath = path + (BatteryMove(p, q),)
                if nb == target:
                    return npath
                nxt_frontier.append((state, npath))
        frontier = nxt_frontier
    return None


def _excess(bats: int, target: int) -> int:
    """The points where ``bats`` holds more batteries than ``target`` (both layered)."""
    x = bats & ~target
    return (x | x >> LAYER | x >> (2 * LAYER)) & POINTS


def _diagnose_battery_phase(before: Position, board: Placement, rules: Rules, own: int, enemy: int) -> list[Problem]:
    mover = before.to_move
    start = layered(before.batteries, before.stacks)
    target = layered(board.batteries, board.stacks)
    if (start | target) >> LAYER:
        # stacks: a point that lost (gained) k batteries appears k times
        diff = start ^ target
        changed = list(bits((diff | diff >> LAYER | diff >> (2 * LAYER)) & POINTS))
        vacated = sorted(p for p in changed for _ in range(height(start, p) - height(target, p)))
        arrived = sorted(p for p in changed for _ in range(height(target, p) - height(start, p)))
    else:
        vacated = sorted(bits(start & ~target))
        arrived = sorted(bits(target & ~start))

    def dist(a: int, b: int) -> int:
        return abs(a % 7 - b % 7) + abs(a // 7 - b // 7)

    best: list[Problem] | None = None
    judged: dict[tuple[int, int], tuple[list[Problem], int | None]] = {}

    def judge(p: int, q: int) -> tuple[list[Problem], int | None]:
        """What is wrong with a battery moving from ``p`` to ``q`` on its own, and the energy line it
        used (None: none); judged once, however many pairings hold the move."""
        hit = judged.get((p, q))
        if hit is not None:
            return hit
        probs: list[Problem] = []
        mv = f"{point_name(p)}\u2192{point_name(q)}"
        if not may_move(own, enemy, p, rules):
            o, e = control_counts(own, enemy, p)
            why = rules.control_shortfall(o, e)
            extra = f"; {why} (R-11)" if why else ""
            probs.append(Problem(
                f"battery {point_name(p)} moved but {mover.label} does not control it "
                f"({o} {mover.label} vs {e} {mover.other.label} robot{'s' if e != 1 else ''} around it{extra})",
                points=(p,),
            ))
        line = line_of_battery_move(p, q)
        if line is None:
            probs.append(Problem(
                f"battery {mv} did not move along one energy line: a battery moves straight to the next "
                "empty point, once per turn (R-4)",
                points=(p, q),
            ))
        else:
            step = 1 if q > p else -1
            stride = 7 if line < 7 else 1
            between = range(p + step * stride, q, step * stride)
            empty = [x for x in between if not start >> x & 1 and not target >> x & 1]
            if empty:
                probs.append(Problem(
                    f"battery {mv} passed the empty point {point_name(empty[0])}: a battery stops at the next "
                    "empty point (R-13)",
                    points=(p, empty[0]),
                ))
        hit = judged[p, q] = (probs, line)
        return hit

    for pairing in _pairings(vacated, arrived, dist):
        probs = []
        lines: dict[int, list[tuple[int, int]]] = {}
        for p, q in pairing:
            own_probs, line = judge(p, q)
            probs.extend(own_probs)
            if line is not None:
                lines.setdefault(line, []).append((p, q))
        for line, moves in sorted(lines.items()):
            if len(moves) > 1 and rules.closed_lines(1 << line):
                listed = ", ".join(f"{point_name(p)}\u2192{point_name(q)}" for p, q in moves)
                probs.append(Problem(
                    f"energy line {line_label(line)} carried {_count_word(len(moves))} battery moves ({listed}): "
                    "one battery move per energy line per turn",
                    points=tuple(x for mv in moves for x in mv),
                ))
        if not probs:
            probs = _battery_order_problems(start, pairing, own, enemy, mover, rules)
        if best is None or len(probs) < len(best):
            best = probs
    return best or [Problem("no legal battery phase reaches these batteries")]


def _count_word(n: int) -> str:
    return {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}.get(n, str(n))


def _battery_order_problems(start: int, pairing, own: int, enemy: int, mover: Color, rules: Rules) -> list[Problem]:
    from .engine import IllegalTurn, _check_battery_move

    best: list[Problem] | None = None
    orders = itertools.permutations(pairing) if len(pairing) <= 5 else [tuple(pairing)]
    for order in orders:
        bats, moved, used = start, 0, 0
        try:
            for p, q in order:
                bats, moved, used = _check_battery_move(bats, moved, used, own, enemy, BatteryMove(p, q), mover, rules)
        except IllegalTurn as exc:
            if best is None:
                best = [Problem(exc.reason, exc.squares, exc.points)]
            continue
        # a legal order is a legal battery phase, which the search finds first
        return [Problem("these battery moves are legal in some order but were not found (internal error)")]
    return best or [Problem("no legal battery phase reaches these batteries")]
