"""The search of :mod:`.search` driven by the compiled core (:mod:`.fastcore`).

:class:`FastSearcher` is the same iterative-deepening alpha-beta as
:class:`~.search.Searcher` -- same move ordering, killer replies, best turn
of the previous iteration first, partial iterations, the same count of board
evaluations -- but each node's candidate turns come from the compiled
:func:`~.fastcore.candidates` as numpy rows instead of Python objects, and
killer replies are replayed and valued in compiled code.  Given the same node
budget it returns the same turn as the Python searcher (tested); it is just
much faster, so within a time budget it searches deeper.

The tree walk itself stays in Python: generating a node's turns costs more
than walking to it (about 60% against 25% of a search's time when profiled),
so compiling the walk as well would gain at most about a third.
"""

from __future__ import annotations

import time

import numpy as np

from ..rules.robot_moves import Step
from ..rules.options import Rules
from .board import WIN, Board
from .search import Candidate, SearchLimits, SearchState, SearchStats, deepen
from .turngen import BatteryPhase, RobotOutcome


class Kids:
    """A node's candidate turns: values (best first), the boards they lead to, the rows."""

    __slots__ = ("vals", "rows", "placements", "other", "index")

    def __init__(self, vals: list[float], rows: np.ndarray, side: int) -> None:
        from .fastcore import ROW_KEY

        self.vals = vals
        self.rows = rows
        self.placements = rows[:, :ROW_KEY].tolist()
        self.other = 1 - side
        self.index = None  # child board -> position, built on demand

    def __len__(self) -> int:
        return len(self.vals)

    def child(self, i: int) -> tuple:
        """The board after candidate ``i``: (own, enemy, batteries, side) of the other side to move
        (the batteries layered as the rules' ints, :func:`.fastcore.join_batteries`)."""
        o, e, b, b2, b3 = self.placements[i]
        return (e, o, _join(b, b2, b3) if b2 else b, self.other)

    def find(self, child: tuple) -> int:
        if self.index is None:
            self.index = {}
            for i in range(len(self.vals)):
                self.index.setdefault(self.child(i), i)
        return self.index.get(child, -1)


def row_candidate(value: float, row, side_color) -> Candidate:
    """A Python :class:`~.search.Candidate` (with its move sequence) from a compiled row."""
    from . import fastcore as fc

    r = [int(x) for x in row]
    steps = tuple(
        Step(r[fc.ROW_STEPS + 6 * i], r[fc.ROW_STEPS + 6 * i + 1], bool(r[fc.ROW_STEPS + 6 * i + 2]),
             r[fc.ROW_STEPS + 6 * i + 3], r[fc.ROW_STEPS + 6 * i + 4], r[fc.ROW_STEPS + 6 * i + 5])
        for i in range(r[fc.ROW_NSTEPS])
    )
    moves = tuple((r[fc.ROW_BAT + 2 * i], r[fc.ROW_BAT + 2 * i + 1]) for i in range(r[fc.ROW_NBAT]))
    bats = fc.join_batteries(r[fc.ROW_BATS], r[fc.ROW_BATS2], r[fc.ROW_BATS3])
    return Candidate(float(value), RobotOutcome(r[fc.ROW_OWN], r[fc.ROW_ENEMY], steps), BatteryPhase(bats, moves))


def fast_candidates(board: Board, rules: Rules, *, root: bool, limits: SearchLimits, stats: SearchStats | None = None) -> list[Candidate]:
    """:func:`.search.candidates` computed by the compiled core (same list, same order, same values)."""
    from . import fastcore as fc

    side = fc.color_index(board.side)
    vals, rows, nodes = _call(fc, (board.own, board.enemy, board.bats, side), fc.flags_of(rules), root, limits)
    if stats is not None:
        stats.nodes += nodes
    return [row_candidate(v, rows[i], board.side) for i, v in enumerate(vals.tolist())]


def _join(bats: int, b2: int, b3: int) -> int:
    from .fastcore import join_batteries

    return join_batteries(bats, b2, b3)


def _call(fc, key: tuple, flags: int, root: bool, lim: SearchLimits):
    own, enemy, bats, side = key
    b1, b2, b3 = fc.split_batteries(bats)
    return fc.candidates(
        own, enemy, b1, b2, b3, side, flags, root,
        lim.root_robot_keep if root else lim.inner_robot_keep,
        lim.root_chain if root else lim.inner_chain,
        lim.inner_moves, lim.inner_states, lim.inner_beam if not root else 0, lim.inner_beam_moves,
    )


DEFAULT_LIMITS = SearchLimits(max_depth=12, reply_plies=1)
"""The compiled search's limits when none are given: what its speed buys.  The
opponent's first reply gets the strong generator (with :data:`EXACT_REPLY` the
root generator, greedy's own list), and iterations go up to 12 turns deep.  The
Python search keeps ``SearchLimits()``: at its speed a strong reply cost a turn
of depth."""


EXACT_REPLY = True
"""Whether the strong plies use the root generator (every robot-phase outcome, the best 18
with battery phases of up to 3 moves: greedy's own list) instead of the beam-grown reply
generator.  Compiled, it costs about 1 ms a node (the cheap inner list about 0.1 ms), and
it only runs at the opponent's first reply; it models the opponent's best static replies
exactly, so a forced win the search reports cannot be refuted by a reply greedy would see."""


class FastSearcher(SearchState):
    """Iterative-deepening alpha-beta over the compiled core's candidates (see the module text)."""

    def __init__(self, rules: Rules, limits: SearchLimits | None = None, exact_reply: bool | None = None) -> None:
        """``exact_reply``: the opponent's replies at the strong plies (``limits.reply_plies``) come
        from the root generator, greedy's own (every robot-phase outcome), instead of the
        beam-grown ``reply_*`` one; default :data:`EXACT_REPLY`."""
        from . import fastcore, jit

        unknown = [v.name for v in rules.variants if v.jit_flag & ~fastcore.COMPILED_FLAGS]
        if unknown:
            raise NotImplementedError(f"the compiled core does not know the option {unknown[0]}: the Python search plays it")
        jit.ensure_warm()  # compile or load every entry point now, not in the middle of the first search
        super().__init__(rules, limits or DEFAULT_LIMITS)
        self.fc = fastcore
        self.flags = fastcore.flags_of(rules)
        self.exact_reply = EXACT_REPLY if exact_reply is None else exact_reply

    def _generate(self, key: tuple, limits: SearchLimits, root: bool = False) -> Kids:
        vals, rows, nodes = _call(self.fc, key, self.flags, root, limits)
        self.stats.nodes += nodes
        self.stats.expansions += 1
        return Kids(vals.tolist(), rows, key[3])

    def _children(self, key: tuple) -> Kids:
        c = self._cache.get(key)
        if c is None:
            self._check_budget()
            c = self._generate(key, self.limits)
            self._cache[key] = c
        return c

    def _strong_children(self, key: tuple) -> Kids:
        c = self._strong_cache.get(key)
        if c is None:
            cheap = self._children(key)
            self._check_budget()
            if self.exact_reply:
                c = self._generate(key, self.limits, root=True)
            else:
                c = self._generate(key, self._strong_limits)
            if len(c) and c.vals[0] < WIN:
                key_cols = self.fc.ROW_KEY
                have = {tuple(int(x) for x in r) for r in c.rows[:, :key_cols]}
                extra = [i for i, r in enumerate(cheap.rows[:, :key_cols].tolist()) if tuple(r) not in have]
                if extra:
                    vals = np.array(c.vals + [cheap.vals[i] for i in extra])
                    rows = np.concatenate([c.rows, cheap.rows[extra]])
                    order = np.argsort(-vals, kind="mergesort")
                    c = Kids(vals[order].tolist(), rows[order], key[3])
            self._strong_cache[key] = c
        return c

    def _negamax(self, key: tuple, depth: int, alpha: float, beta: float, ply: int = 1) -> float:
        lim = self.limits
        strong = ply % 2 == 1 and ply <= lim.reply_plies
        if depth == 1 and lim.killers and key not in self._cache:
            own, enemy, bats, side = key
            b1, b2, b3 = self.fc.split_batteries(bats)
            for _entry, row in self._killers.get(ply, ()):
                ok, v = self.fc.replay_value(own, enemy, b1, b2, b3, side, self.flags, row)
                if not ok:
                    continue
                self.stats.nodes += 1
                if v >= beta:
                    self.stats.killer_cuts += 1
                    return v
        if strong:
            if depth == 1 and lim.reply_lazy:
                kids = self._children(key)
                if len(kids) and kids.vals[0] >= beta:
                    return kids.vals[0]
            kids = self._strong_children(key)
        else:
            kids = self._children(key)
        if not len(kids):
            return -WIN
        vals = kids.vals
        if depth == 1 or vals[0] >= WIN:
            self._killer(ply, kids, 0)
            return vals[0]
        best = -WIN * 2
        best_kid = (kids, 0)
        first = self._hash_move.get(key) if lim.hash_move else None
        if first is not None and not (first[0] is kids and first[1] == 0):
            if first[0] is kids:
                fi = first[1]
            else:
                fi = kids.find(first[0].child(first[1]))
            if fi == 0:
                seq = [(kids, i) for i in range(len(vals))]
            elif fi > 0:
                seq = [(kids, fi)] + [(kids, i) for i in range(len(vals)) if i != fi]
            else:
                seq = [first] + [(kids, i) for i in range(len(vals))]
        else:
            seq = [(kids, i) for i in range(len(vals))]
        for src, i in seq:
            v0 = src.vals[i]
            if v0 >= WIN or v0 <= -WIN:
                v = v0
            else:
                v = -self._negamax(src.child(i), depth - 1, -beta, -alpha, ply + 1)
            if v > best:
                best, best_kid = v, (src, i)
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        self._killer(ply, best_kid[0], best_kid[1])
        if lim.hash_move:
            self._hash_move[key] = best_kid
        return best

    def _killer(self, ply: int, kids: Kids, i: int) -> None:
        if not self.limits.killers:
            return
        row = kids.rows[i]
        entry = row[self.fc.ROW_KEY:].tobytes()
        old = self._killers.get(ply, [])
        if old and old[0][0] == entry:
            return
        self._killers[ply] = [(entry, row)] + [k for k in old if k[0] != entry][: self.limits.killers - 1]

    def search(self, board: Board, budget: float, nodes: int | None = None) -> tuple[Candidate, float]:
        """The best root candidate and its value, as :meth:`.search.Searcher.search`."""
        t0 = self._start(budget, nodes)
        side = self.fc.color_index(board.side)
        rkey = (board.own, board.enemy, board.bats, side)
        roots = self._generate(rkey, self.limits, root=True)
        self.stats.root_candidates = len(roots)
        best, best_value = 0, roots.vals[0]
        self.stats.depth = 1
        if best_value >= WIN or len(roots) == 1:
            self.stats.elapsed = time.perf_counter() - t0
            return row_candidate(best_value, roots.rows[0], board.side), best_value
        best, best_value = deepen(
            list(range(len(roots))), roots.vals.__getitem__,
            lambda i, depth, alpha: -self._negamax(roots.child(i), depth, -WIN * 2, -alpha),
            best, best_value, self.limits.max_depth, self.stats,
        )
        self.stats.elapsed = time.perf_counter() - t0
        return row_candidate(best_value, roots.rows[best], board.side), best_value
