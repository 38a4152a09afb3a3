"""Alpha-beta search over whole turns, within a time budget.

A node is a :class:`~companion.hints.board.Board`; its children are the
turns of :func:`candidates` (robot phase, then a battery phase grown on the
evaluation).  Every candidate carries the value of the board it leads to, so
a depth-1 search is a greedy player and deeper iterations refine it
(iterative deepening, best-first move ordering from the previous iteration,
alpha-beta cuts).  Decided games are ``±WIN``: immediate wins are found by a
dedicated narrow search at every node (target row, capture-all) and by the
battery phase's terminal check (starving the opponent, R-18).

The root lists every robot-phase outcome (exact); inner nodes use a cheaper
list (robot phases of at most ``inner_moves`` moves) plus the win search.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable, NamedTuple, TypeVar

from ..rules.geometry import Color
from ..rules.options import Rules
from .board import WIN, Board, winner_after
from .evaluate import evaluate
from .turngen import BatteryPhase, RobotOutcome, battery_chains, grown_robot_phases, replay, robot_outcomes, winning_robot_phase


class Candidate(NamedTuple):
    value: float  # for the mover, of the board after this turn (static, or ±WIN)
    robots: RobotOutcome
    battery: BatteryPhase

    def child(self, board: Board) -> Board:
        return Board(self.robots.enemy, self.robots.own, self.battery.bats, board.side.other)


@dataclass
class SearchLimits:
    root_robot_keep: int = 18
    root_chain: int = 3
    inner_robot_keep: int = 6
    inner_chain: int = 2
    inner_moves: int = 1
    inner_states: int = 4000
    inner_beam: int = 3  # >0: inner nodes also get robot phases grown move by move (beam width)
    inner_beam_moves: int = 6
    # the opponent's replies at plies 1, 3, ... up to reply_plies get a stronger generator
    reply_plies: int = 0
    reply_beam: int = 6
    reply_keep: int = 18
    reply_chain: int = 3
    reply_moves: int = 2
    hash_move: bool = True  # interior nodes search the best turn of the previous iteration first
    killers: int = 1  # >0: at a leaf's parent, first try this many replies that were best at the same ply
    reply_lazy: bool = True  # at a leaf's parent, try the cheap list first: if it already refutes, stop
    max_depth: int = 8  # deepest iteration; a quick position uses the rest of its budget on the next one


@dataclass
class SearchStats:
    nodes: int = 0  # boards evaluated (leaf evaluations and terminal checks)
    expansions: int = 0  # nodes whose turns were generated
    depth: int = 0  # deepest completed iteration
    elapsed: float = 0.0
    root_candidates: int = 0
    killer_cuts: int = 0  # leaf parents refuted by a remembered reply, without generating their turns
    partial: bool = False  # the deepest iteration was cut by the clock (its searched moves count)

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.elapsed if self.elapsed > 0 else 0.0


class _Timeout(Exception):
    pass


T = TypeVar("T")


def value_after(own: int, enemy: int, bats: int, mover: Color, rules: Rules) -> float:
    """Value for ``mover`` of the board after its turn: ±WIN if decided, else the evaluation."""
    w = winner_after(own, enemy, bats, mover, rules)
    if w is not None:
        return WIN if w is mover else -WIN
    return -evaluate(enemy, own, bats, mover.other, rules)


def candidates(board: Board, rules: Rules, *, root: bool, limits: SearchLimits, stats: SearchStats | None = None) -> list[Candidate]:
    """The turns worth searching for the side to move, best first (by the value after them)."""
    side = board.side
    bats0 = board.bats
    nothing = BatteryPhase(bats0, ())
    win = winning_robot_phase(board, rules)
    if win is not None:
        return [Candidate(WIN, win, nothing)]
    if root:
        outcomes, _ = robot_outcomes(board, rules)
    else:
        outcomes, _ = robot_outcomes(board, rules, max_moves=limits.inner_moves, max_states=limits.inner_states)
    scored = []
    for o in outcomes:
        v = value_after(o.own, o.enemy, bats0, side, rules)
        if v >= WIN:
            return [Candidate(v, o, nothing)]
        scored.append((v, o))
    if not root and limits.inner_beam:
        have = {(o.own, o.enemy) for o in outcomes}
        # the outcomes are all capturing ones only where a capture was owed
        must = outcomes and all(o.enemy != board.enemy for o in outcomes) and rules.capture_owed(lambda: True)
        grown = grown_robot_phases(
            board, rules, lambda own, enemy: value_after(own, enemy, bats0, side, rules),
            beam=limits.inner_beam, max_moves=limits.inner_beam_moves,
        )
        for (own, enemy), (v, steps) in grown.items():
            if (own, enemy) in have or (must and enemy == board.enemy):
                continue
            if v >= WIN:
                return [Candidate(v, RobotOutcome(own, enemy, steps), nothing)]
            scored.append((v, RobotOutcome(own, enemy, steps)))
    if stats is not None:
        stats.nodes += len(scored)
    scored.sort(key=lambda t: t[0], reverse=True)
    keep = limits.root_robot_keep if root else limits.inner_robot_keep
    chain = limits.root_chain if root else limits.inner_chain
    out: list[Candidate] = []
    for v, o in scored[:keep]:
        evals = 0

        def score(nb: int, o=o) -> float:
            nonlocal evals
            evals += 1
            return value_after(o.own, o.enemy, nb, side, rules)

        for bp in battery_chains(o.own, o.enemy, bats0, rules, score, max_len=chain):
            val = v if not bp.moves else score(bp.bats)
            out.append(Candidate(val, o, bp))
            if val >= WIN:
                if stats is not None:
                    stats.nodes += evals
                return [Candidate(val, o, bp)]
        if stats is not None:
            stats.nodes += evals
    if not out:  # every robot outcome beyond the cut: keep the best plain one
        out = [Candidate(v, o, nothing) for v, o in scored[:1]]
    out.sort(key=lambda c: c.value, reverse=True)
    return out


class SearchState:
    """What both searchers (this module's and :class:`.fastsearch.FastSearcher`) keep: the limits,
    the budget of the current search, its statistics and its per-search tables."""

    def __init__(self, rules: Rules, limits: SearchLimits) -> None:
        self.rules = rules
        self.limits = limits
        self.stats = SearchStats()
        self._deadline = 0.0
        self._node_limit = 0
        self._cache: dict = {}         # node -> its children (the cheap inner generator)
        self._strong_cache: dict = {}  # node -> its children (the strong reply generator)
        self._killers: dict[int, list] = {}
        self._hash_move: dict = {}
        # the opponent's replies at the strong plies: the inner generator with the reply_* limits
        self._strong_limits = replace(
            limits, inner_beam=limits.reply_beam, inner_robot_keep=limits.reply_keep,
            inner_chain=limits.reply_chain, inner_moves=limits.reply_moves,
        )

    def _start(self, budget: float, nodes: int | None) -> float:
        """Begin a search of ``budget`` seconds (and ``nodes`` evaluations, if given): fresh
        tables and statistics. Returns the start time."""
        t0 = time.perf_counter()
        self._deadline = t0 + budget
        self._node_limit = nodes or 0
        self._cache.clear()
        self._strong_cache.clear()
        self._killers.clear()
        self._hash_move.clear()
        self.stats = SearchStats()
        return t0

    def _check_budget(self) -> None:
        if time.perf_counter() > self._deadline or (self._node_limit and self.stats.nodes > self._node_limit):
            raise _Timeout


class Searcher(SearchState):
    """Iterative-deepening alpha-beta over :func:`candidates`."""

    def __init__(self, rules: Rules, limits: SearchLimits | None = None) -> None:
        super().__init__(rules, limits or SearchLimits())

    def _children(self, board: Board) -> list[Candidate]:
        c = self._cache.get(board)
        if c is None:
            self._check_budget()
            c = candidates(board, self.rules, root=False, limits=self.limits, stats=self.stats)
            self.stats.expansions += 1
            self._cache[board] = c
        return c

    def _strong_children(self, board: Board) -> list[Candidate]:
        """The stronger reply list (beam-grown robot phases, more kept, longer battery phases), merged with the cheap one."""
        c = self._strong_cache.get(board)
        if c is None:
            cheap = self._children(board)
            self._check_budget()
            c = candidates(board, self.rules, root=False, limits=self._strong_limits, stats=self.stats)
            self.stats.expansions += 1
            if c and c[0].value < WIN:
                have = {(k.robots.own, k.robots.enemy, k.battery.bats) for k in c}
                c = c + [k for k in cheap if (k.robots.own, k.robots.enemy, k.battery.bats) not in have]
                c.sort(key=lambda k: k.value, reverse=True)
            self._strong_cache[board] = c
        return c

    def _negamax(self, board: Board, depth: int, alpha: float, beta: float, ply: int = 1) -> float:
        """Value for the side to move of a non-terminal board, searched ``depth`` turns deep.

        ``ply`` is the distance from the root (1: the opponent's reply).
        """
        strong = ply % 2 == 1 and ply <= self.limits.reply_plies
        if depth == 1 and self.limits.killers and board not in self._cache:
            # a reply that refuted a sibling often refutes this one too: try it before generating
            side = board.side
            for steps, battery in self._killers.get(ply, ()):
                r = replay(board, self.rules, steps, battery)
                if r is None:
                    continue
                self.stats.nodes += 1
                v = value_after(r[0], r[1], r[2], side, self.rules)
                if v >= beta:
                    self.stats.killer_cuts += 1
                    return v
        if strong:
            if depth == 1 and self.limits.reply_lazy:
                kids = self._children(board)
                if kids and kids[0].value >= beta:
                    return kids[0].value  # the cheap list already refutes: a fail-high bound
            kids = self._strong_children(board)
        else:
            kids = self._children(board)
        if not kids:
            return -WIN
        if depth == 1 or kids[0].value >= WIN:
            self._killer(ply, kids[0])
            return kids[0].value
        best = -WIN * 2
        best_kid = kids[0]
        first = self._hash_move.get(board) if self.limits.hash_move else None
        if first is not None and first is not kids[0]:
            kids = [first] + [k for k in kids if k is not first]  # the best turn of the last iteration first
        for c in kids:
            if abs(c.value) >= WIN:
                v = c.value
            else:
                v = -self._negamax(c.child(board), depth - 1, -beta, -alpha, ply + 1)
            if v > best:
                best, best_kid = v, c
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        self._killer(ply, best_kid)
        if self.limits.hash_move:
            self._hash_move[board] = best_kid
        return best

    def _killer(self, ply: int, c: Candidate) -> None:
        if not self.limits.killers:
            return
        entry = (c.robots.steps, c.battery.moves)
        old = self._killers.get(ply, [])
        if old and old[0] == entry:
            return
        self._killers[ply] = [entry] + [k for k in old if k != entry][: self.limits.killers - 1]

    def search(self, board: Board, budget: float, nodes: int | None = None) -> tuple[Candidate, float]:
        """The best root candidate and its value, searching for about ``budget`` seconds.

        ``nodes``, if given, also stops the search after about that many
        board evaluations: a budget that does not depend on the machine's
        speed or load (for reproducible experiments).
        """
        t0 = self._start(budget, nodes)
        roots = candidates(board, self.rules, root=True, limits=self.limits, stats=self.stats)
        self.stats.expansions += 1
        self.stats.root_candidates = len(roots)
        best, best_value = roots[0], roots[0].value
        self.stats.depth = 1
        if best_value >= WIN or len(roots) == 1:
            self.stats.elapsed = time.perf_counter() - t0
            return best, best_value
        best, best_value = deepen(
            list(roots), lambda c: c.value,
            lambda c, depth, alpha: -self._negamax(c.child(board), depth, -WIN * 2, -alpha),
            best, best_value, self.limits.max_depth, self.stats,
        )
        self.stats.elapsed = time.perf_counter() - t0
        return best, best_value


def deepen(order: list[T], static: Callable[[T], float], descend: Callable[[T, int, float], float],
           best: T, best_value: float, max_depth: int, stats: SearchStats) -> tuple[T, float]:
    """Iterative deepening over the root turns ``order`` (best first), shared by both searchers.

    ``static(turn)`` is a turn's own value (±WIN: decided, not searched),
    ``descend(turn, depth, alpha)`` its value for the mover searched ``depth``
    more turns deep with the root's ``alpha``. Iterations 2..``max_depth``, each
    ordered best first by the last; a decided value ends them. When the budget
    (:class:`_Timeout`) cuts an iteration, its best turn still counts if the
    previously best one was searched first. Returns the best turn and its value;
    ``stats.depth``/``partial`` say how deep it got.
    """
    try:
        for depth in range(2, max_depth + 1):
            alpha = -WIN * 2
            scored: list[tuple[float, T]] = []
            it_best, it_value = None, -WIN * 2
            for c in order:
                v0 = static(c)
                if abs(v0) >= WIN:
                    v = v0
                else:
                    try:
                        v = descend(c, depth - 1, alpha)
                    except _Timeout:
                        # a partial iteration still improves on the last one if its
                        # first (previously best) move was searched
                        if it_best is not None:
                            best, best_value = it_best, it_value
                            stats.depth = depth
                            stats.partial = True
                        raise
                scored.append((v, c))
                if v > it_value:
                    it_best, it_value = c, v
                    alpha = max(alpha, v)
            best, best_value = it_best, it_value
            stats.depth = depth
            if best_value >= WIN or best_value <= -WIN:
                break
            # best-first order for the next iteration (stable: ties keep the old order)
            scored.sort(key=lambda t: t[0], reverse=True)
            order = [c for _, c in scored]
    except _Timeout:
        pass
    return best, best_value
