"""The compiled core (numba) against the Python reference, and the fallback without it.

The compiled generator, evaluation, win checks and replay must give exactly
the results of companion.rules.engine and the Python hints modules; the compiled
search must return what the Python search returns under the same node budget.
"""

from __future__ import annotations

import random
import subprocess
import threading
import sys
from dataclasses import replace

import numpy as np
import pytest

from companion.rules.energy import sources_by_square
from companion.rules.masks import layered, spread
from companion.rules.engine import PhaseContext, PhaseState, apply_turn, successors
from companion.rules.geometry import BLACK, WHITE
from companion.hints import evaluate as ev
from companion.hints import hint, jit
from companion.hints.board import Board, has_move, winner_after
from companion.hints.players import GreedyPlayer, make_searcher
from companion.hints.search import SearchLimits, SearchStats, Searcher, candidates, value_after
from companion.hints.turngen import make_turn, replay
from companion.rules.position import Position
from companion.rules.options import ORIGINAL, Rules
from hint_positions import COMPILED_OPTIONS

fc = pytest.importorskip("companion.hints.fastcore", reason="numba is not installed")
from companion.hints.fastsearch import FastSearcher, fast_candidates  # noqa: E402

from hint_positions import RULE_SETS
from hint_positions import random_positions as _random_positions

IDS = [r.name for r in RULE_SETS]


@pytest.fixture(autouse=True)
def _jit_on(monkeypatch):
    monkeypatch.delenv("NETZWERK_NO_JIT", raising=False)


def random_positions(rules: Rules, count: int, seed: int) -> list[Position]:
    return _random_positions(rules, count, seed, max_turns=18)


def _random_masks(rng: random.Random, rules: Rules = ORIGINAL):
    """Random robots and 14 batteries, layered (companion.rules.masks.layered); under ``stacking``
    with stacks of two and three now and then (R-19)."""
    sq = rng.sample(range(36), 12)
    own = sum(1 << x for x in sq[: rng.randrange(0, 7)])
    enemy = sum(1 << x for x in sq[6: 6 + rng.randrange(0, 7)])  # at most 6 robots a side, as on the board
    heights: dict[int, int] = {}
    points = rng.sample(range(49), 14)
    left = 14
    for p in points:
        if not left:
            break
        h = min(left, rng.choice([1, 1, 2, 3]) if "stacking" in rules.options else 1)
        heights[p] = h
        left -= h
    bats = layered(heights, [(p, h) for p, h in heights.items() if h > 1])
    return own, enemy, bats


def _split(bats: int) -> tuple[int, int, int]:
    return fc.split_batteries(bats)


def _as_tuples(cands):
    return [(c.value, c.robots.own, c.robots.enemy, c.battery.bats, c.robots.steps, c.battery.moves) for c in cands]


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_evaluation_and_win_checks_equal_the_python_ones(rules: Rules) -> None:
    flags = fc.flags_of(rules)
    rng = random.Random(11)
    for _ in range(600):
        own, enemy, bats = _random_masks(rng, rules)
        b1, b2, b3 = _split(bats)
        color = rng.choice([WHITE, BLACK])
        ci = fc.color_index(color)
        assert fc.side_score(own, enemy, b1, ci, flags) == ev._side_score(own, enemy, bats, color, rules)
        assert fc.capture_threats(own, enemy, b1, b2, b3, ci, flags) == ev._capture_threats(own, enemy, bats, color, rules)
        assert fc.has_move(own, enemy, b1, b2, b3, ci, flags) == has_move(own, enemy, bats, color, rules)
        w = winner_after(own, enemy, bats, color, rules)
        assert fc.winner_after(own, enemy, b1, b2, b3, ci, flags) == (0 if w is None else 1 if w is color else -1)
        if own and enemy:
            assert fc.evaluate(own, enemy, b1, b2, b3, ci, flags) == ev.evaluate(own, enemy, bats, color, rules)
        assert fc.value_after(own, enemy, b1, b2, b3, ci, flags) == value_after(own, enemy, bats, color, rules)


def _engine_steps(st: PhaseState, ctx: PhaseContext) -> list[tuple[int, ...]]:
    return [(s.src, s.dst, int(s.capture), s.cost, s.jumped_own, s.jumped_enemy, n.own, n.enemy, n.moved)
            for s, n in successors(st, ctx)]


def _compiled_steps(st: PhaseState, ctx: PhaseContext, flags: int) -> list[tuple[int, ...]]:
    b1, b2, b3 = _split(ctx.batteries)
    # judged at the start of the turn; the compiled ones are points (a stack's layers counted by energy_of)
    sources = np.array([x & fc.POINTS for x in ctx.sources], dtype=np.int64)
    dsq = np.zeros(6, dtype=np.int64)
    dcost = np.zeros(6, dtype=np.int64)
    for k, (sq, cost) in enumerate(st.demands):
        dsq[k], dcost[k] = sq, cost
    out = np.zeros((fc.U_MAX, 9), dtype=np.int64)
    n = fc.gen_successors(st.own, st.enemy, st.moved, len(st.demands), dsq, dcost, sources, fc.color_index(ctx.color),
                          flags, b1, b2, b3, out, np.zeros(64, dtype=np.int64), np.zeros(64, dtype=np.int64))
    return [tuple(int(x) for x in row) for row in out[:n]]


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_compiled_sources_and_steps_equal_the_rules(rules: Rules) -> None:
    """The compiled core against the rules package on random boards: the energy sources
    (R-10, energy.sources_by_square) and every next robot move with its cost, at the start
    of the robot phase and after one or two moves (energy shared with the moves before)."""
    flags = fc.flags_of(rules)
    rng = random.Random(5)
    compared = 0
    stacked = 0
    for _ in range(300):
        own, enemy, bats = _random_masks(rng, rules)
        stacked += bats != bats & fc.POINTS
        color = rng.choice([WHITE, BLACK])
        sources = np.zeros(36, dtype=np.int64)
        fc.make_sources(own, enemy, bats & fc.POINTS, flags, sources)
        # the compiled sources are points, every battery on them drawable: the layered ones spread over the stacks
        assert tuple(spread(int(x)) & bats for x in sources) == sources_by_square(own, enemy, bats, rules)
        ctx = PhaseContext(color, rules, bats, sources_by_square(own, enemy, bats, rules))
        st = PhaseState(own, enemy, 0, (), ((0, 0),))
        for _depth in range(3):
            expected = _engine_steps(st, ctx)
            assert _compiled_steps(st, ctx, flags) == expected, (own, enemy, bats, color, st.demands)
            compared += len(expected)
            nexts = list(successors(st, ctx))
            if not nexts:
                break
            st = rng.choice(nexts)[1]
    assert compared > 1000
    assert stacked > 100 or "stacking" not in rules.options


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_candidates_equal_the_python_generator(rules: Rules) -> None:
    """Same turns (robot moves with costs, battery moves), same order, same values, same evaluation count:
    at the root, at inner nodes and with the strong reply generator."""
    lim = SearchLimits()
    strong = replace(lim, inner_beam=lim.reply_beam, inner_robot_keep=lim.reply_keep, inner_chain=lim.reply_chain, inner_moves=lim.reply_moves)
    for i, pos in enumerate(random_positions(rules, 6, seed=31)):
        board = Board.of(pos)
        for root, limits in ((True, lim), (False, lim), (False, strong)):
            if root is False and limits is strong and i % 2:
                continue
            st_py, st_fc = SearchStats(), SearchStats()
            py = candidates(board, rules, root=root, limits=limits, stats=st_py)
            fast = fast_candidates(board, rules, root=root, limits=limits, stats=st_fc)
            assert _as_tuples(fast) == _as_tuples(py), (pos, root)
            assert st_fc.nodes == st_py.nodes
            for c in fast[:3]:
                apply_turn(pos, make_turn(c.robots.steps, c.battery.moves), rules)


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_replay_equals_the_python_replay(rules: Rules) -> None:
    """A turn generated on one board replayed on another: legal exactly when turngen.replay says so, same value."""
    flags = fc.flags_of(rules)
    rng = random.Random(3)
    positions = random_positions(rules, 5, seed=41)
    for pos, other in zip(positions, positions[1:] + positions[:1]):
        board, oboard = Board.of(pos), Board.of(other)
        cands = fast_candidates(board, rules, root=True, limits=SearchLimits())
        for c in rng.sample(cands, min(6, len(cands))):
            for target in (board, oboard):
                if target.side is not board.side:
                    continue
                r = replay(target, rules, c.robots.steps, c.battery.moves)
                row = [0] * fc.ROW_WIDTH
                row[fc.ROW_NSTEPS] = len(c.robots.steps)
                for k, s in enumerate(c.robots.steps):
                    row[fc.ROW_STEPS + 6 * k: fc.ROW_STEPS + 6 * k + 6] = [s.src, s.dst, int(s.capture), s.cost, s.jumped_own, s.jumped_enemy]
                row[fc.ROW_NBAT] = len(c.battery.moves)
                for k, (p, q) in enumerate(c.battery.moves):
                    row[fc.ROW_BAT + 2 * k: fc.ROW_BAT + 2 * k + 2] = [p, q]
                import numpy as np

                ok, v = fc.replay_value(target.own, target.enemy, *_split(target.bats), fc.color_index(target.side), flags,
                                        np.array(row, dtype=np.int64))
                assert ok == (r is not None)
                if ok:
                    assert v == value_after(r[0], r[1], r[2], target.side, rules)


@pytest.mark.parametrize("rules", [ORIGINAL, Rules.from_names(["must-capture"]), Rules.from_names(["jump-enemies", "no-line-limit"]), Rules.from_names(COMPILED_OPTIONS)], ids=lambda r: r.name)
def test_compiled_search_equals_the_python_search_under_a_node_budget(rules: Rules) -> None:
    """Same turn, value, depth and counts; with the Python search's limits and with the strong first reply."""
    for i, pos in enumerate(random_positions(rules, 2, seed=53)):
        board = Board.of(pos)
        limits = SearchLimits() if i == 0 else SearchLimits(max_depth=12, reply_plies=1)
        a, b = Searcher(rules, limits), FastSearcher(rules, limits, exact_reply=False)
        ca, va = a.search(board, 600.0, nodes=6000)
        cb, vb = b.search(board, 600.0, nodes=6000)
        assert (va, ca.robots.steps, ca.battery.moves) == (vb, cb.robots.steps, cb.battery.moves)
        sa, sb = a.stats, b.stats
        assert (sa.nodes, sa.expansions, sa.depth, sa.killer_cuts, sa.partial) == (sb.nodes, sb.expansions, sb.depth, sb.killer_cuts, sb.partial)


@pytest.mark.parametrize("exact", [False, True], ids=["beam-replies", "exact-replies"])
def test_strong_replies_give_legal_turns_in_the_compiled_search(exact: bool) -> None:
    limits = SearchLimits(reply_plies=1, max_depth=4)
    for rules in (ORIGINAL, Rules.from_names(["must-capture"]), Rules.from_names(COMPILED_OPTIONS)):
        for pos in random_positions(rules, 2, seed=61):
            s = FastSearcher(rules, limits, exact_reply=exact)
            best, _ = s.search(Board.of(pos), 600.0, nodes=20000)
            apply_turn(pos, make_turn(best.robots.steps, best.battery.moves), rules)


def test_exact_replies_include_greedys_turn() -> None:
    """With exact replies the opponent's first reply list is greedy's own list, so greedy's turn is in it."""
    rules = ORIGINAL
    for pos in random_positions(rules, 3, seed=67):
        s = FastSearcher(rules, SearchLimits(reply_plies=1), exact_reply=True)
        s._deadline = float("inf")
        board = Board.of(pos)
        key = (board.own, board.enemy, board.bats, fc.color_index(board.side))
        kids = s._strong_children(key)
        greedy = candidates(board, rules, root=True, limits=SearchLimits())
        have = {tuple(int(x) for x in kids.rows[i, :fc.ROW_KEY]) for i in range(len(kids))}
        assert (greedy[0].robots.own, greedy[0].robots.enemy, *_split(greedy[0].battery.bats)) in have
        assert kids.vals[0] == greedy[0].value


def test_hint_uses_the_compiled_search_and_the_env_var_switches_it_off(monkeypatch) -> None:
    pos = Position.start()
    assert jit.available() and isinstance(make_searcher(ORIGINAL), FastSearcher)
    assert isinstance(make_searcher(ORIGINAL, jit=False), Searcher)
    lim = SearchLimits()  # the same limits for both (the compiled search's defaults are stronger)
    h = hint(pos, ORIGINAL, budget=5.0, nodes=3000, limits=lim)
    monkeypatch.setenv("NETZWERK_NO_JIT", "1")
    assert not jit.available() and "NETZWERK_NO_JIT" in jit.why_not()
    assert type(make_searcher(ORIGINAL)) is Searcher
    with pytest.raises(RuntimeError):
        make_searcher(ORIGINAL, jit=True)
    h_py = hint(pos, ORIGINAL, budget=5.0, nodes=3000, limits=lim)
    assert (str(h.turn), h.value, h.depth, h.nodes) == (str(h_py.turn), h_py.value, h_py.depth, h_py.nodes)


def test_a_failing_compiled_search_falls_back_to_the_python_one(monkeypatch) -> None:
    def broken(self, *a, **k):
        raise RuntimeError("numba cache trouble")

    monkeypatch.setattr(FastSearcher, "search", broken)
    pos = Position.start()
    h = hint(pos, ORIGINAL, budget=5.0, nodes=2000)
    assert not h.fallback and h.depth >= 1
    apply_turn(pos, h.turn)
    monkeypatch.setattr(fc, "warm_up", broken)  # the core cannot even be loaded
    monkeypatch.setattr(jit, "_warm", threading.Event())  # as in a fresh process: not loaded yet
    assert type(make_searcher(ORIGINAL)) is Searcher
    apply_turn(pos, hint(pos, ORIGINAL, budget=5.0, nodes=2000).turn)
    monkeypatch.setattr(fc, "candidates", broken)
    apply_turn(pos, GreedyPlayer().choose(pos, ORIGINAL, random.Random(1)))


def test_hints_use_the_python_search_while_the_core_warms_up(monkeypatch) -> None:
    monkeypatch.setattr(jit._warming, "is_set", lambda: True)
    assert type(make_searcher(ORIGINAL)) is Searcher
    assert isinstance(make_searcher(ORIGINAL, jit=True), FastSearcher)


def test_greedy_plays_the_same_with_and_without_the_core() -> None:
    for rules in (ORIGINAL, Rules.from_names(["must-capture", "strength-capture"])):
        for pos in random_positions(rules, 3, seed=71):
            a = GreedyPlayer(jit=True).choose(pos, rules, random.Random(1))
            b = GreedyPlayer(jit=False).choose(pos, rules, random.Random(1))
            assert str(a) == str(b)


def test_without_numba_the_python_search_runs() -> None:
    """A process where numba cannot be imported falls back (no crash) and still hints."""
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "from companion.hints import jit, hint\n"
        "from companion.hints.players import make_searcher\n"
        "from companion.hints.search import Searcher\n"
        "from companion.rules.position import Position\n"
        "assert not jit.available() and 'numba' in jit.why_not(), jit.why_not()\n"
        "assert type(make_searcher(__import__('companion.rules.options', fromlist=['ORIGINAL']).ORIGINAL)) is Searcher\n"
        "assert jit.warm_up() is None\n"
        "print(hint(Position.start(), budget=0.2).turn)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "-" in r.stdout


def test_a_cache_that_cannot_be_placed_compiles_without_it(monkeypatch) -> None:
    calls = []

    def fake_njit(**kw):
        calls.append(kw)
        if kw.get("cache"):
            raise RuntimeError("cannot cache function: no locator available")
        return lambda fn: fn

    monkeypatch.setattr(fc, "njit", fake_njit)
    f = fc._jit(lambda x: x + 1)
    assert f(1) == 2 and [c["cache"] for c in calls] == [True, False]


def test_warm_up_runs() -> None:
    assert jit.warm_up() is not None


def test_compiling_in_a_child_process_fills_the_cache_this_process_loads():
    """netzwerk run's warm-up compiles in a child (no lock contention with the loop), then loads here."""
    from companion.hints import jit

    if not jit.available():
        pytest.skip(f"no compiled core: {jit.why_not()}")
    assert jit._compile_in_child(timeout=600) is True
    t = jit.warm_up_in_background()
    t.join(timeout=600)
    assert not t.is_alive() and not jit.warming()


def test_a_fresh_hint_loads_the_core_before_its_clock_starts():
    """The seconds a hint reports are its own search, not numba loading its cache."""
    from companion.hints import jit
    from companion.hints.players import make_searcher

    if not jit.available():
        pytest.skip(f"no compiled core: {jit.why_not()}")
    jit._warm.clear()
    make_searcher(Rules(), None)
    assert jit._warm.is_set()



@pytest.mark.parametrize("rules", [ORIGINAL, Rules.from_names(["stacking"]), Rules.from_names(["stacking", "no-line-limit"])],
                         ids=lambda r: r.name)
def test_compiled_battery_moves_equal_the_rules(rules: Rules) -> None:
    """The compiled battery moves, placing and what stays movable against the rules package's hooks
    (battery_moves.battery_steps, the profile's place and left_movable) on random boards with stacks."""
    from companion.rules.battery_moves import battery_steps

    flags = fc.flags_of(rules)
    stacking = bool(flags & fc.FLAG_ST)
    line_limit = not flags & fc.FLAG_NLL
    rng = random.Random(17)
    onto = 0
    for _ in range(300):
        _, _, bats = _random_masks(rng, rules)
        movable = bats & fc.POINTS & sum(1 << p for p in rng.sample(range(49), 30))
        used = sum(1 << line for line in rng.sample(range(14), rng.randrange(0, 4)))
        out = np.zeros((128, 3), dtype=np.int64)
        n = fc.battery_moves(*_split(bats), movable, used, line_limit, stacking, out)
        expected = list(battery_steps(bats, movable, used, rules))
        assert [tuple(int(x) for x in row) for row in out[:n]] == expected
        for p, q, _line in expected:
            after = rules.place(bats, p, q)
            assert fc.join_batteries(*fc.place_c(*_split(bats), p, q)) == after
            assert fc.left_movable_c(movable, after & fc.POINTS, p, q, stacking) == rules.left_movable(movable, after, p, q)
            onto += bool(bats >> q & 1)
    assert onto > 50 or not stacking


@pytest.mark.parametrize("side, option, count", [("w", "stacking", 1096), ("w", "stack-unsplit", 696),
                                                 ("b", "stacking", 2237), ("b", "stack-unsplit", 1922)])
def test_the_core_plays_stacking_and_stack_unsplit(side: str, option: str, count: int) -> None:
    """Under ``stacking`` and ``stack-unsplit`` the compiled search runs, its candidate turns are
    legal, and its robot-phase outcomes are R-22's hand-checked counts (``stack-unsplit`` leaves out
    the phases that split a stack between robots, R-21)."""
    rules = Rules.from_names([option])
    pos = Position.from_string(f"BBBBBB/6/6/6/6/WWWWWW 7/xyxxxx1/7/7/7/xxxzx2/7 {side}")
    assert isinstance(make_searcher(rules), FastSearcher)
    board = Board.of(pos)
    for c in fast_candidates(board, rules, root=True, limits=SearchLimits()):
        after = apply_turn(pos, make_turn(c.robots.steps, c.battery.moves), rules)
        assert Board.of(after).bats == c.battery.bats
    b1, b2, b3 = _split(board.bats)
    flags = fc.flags_of(rules)
    sources = np.empty(36, dtype=np.int64)
    fc.make_sources(board.own, board.enemy, b1, flags, sources)
    _, n, outs, complete = fc.robot_outcomes(board.own, board.enemy, b1, b2, b3, fc.color_index(board.side), flags,
                                            6, 0, fc.new_store(board.own, board.enemy), sources)
    assert complete and len(outs) == count


def test_compiled_steps_under_stack_unsplit_cut_what_the_rules_cut() -> None:
    """R-21 under ``stack-unsplit`` in the core (the rules' whole_points_assignable, compiled): on random
    boards with stacks, robot phases up to four moves deep, the compiled next moves equal the engine's,
    and the moves ``stacking`` allows but ``stack-unsplit`` does not (a stack's points to two robots)
    are many, so a core that ignored the option would fail here."""
    unsplit, stacking = Rules.from_names(["stack-unsplit"]), Rules.from_names(["stacking"])
    flags = fc.flags_of(unsplit)
    assert flags & fc.FLAG_SU and flags & fc.FLAG_ST
    rng = random.Random(29)
    cut = compared = 0
    for _ in range(500):
        own, enemy, bats = _random_masks(rng, unsplit)
        color = rng.choice([WHITE, BLACK])
        ctx = PhaseContext(color, unsplit, bats, sources_by_square(own, enemy, bats, unsplit))
        shared = PhaseContext(color, stacking, bats, ctx.sources)
        st = PhaseState(own, enemy, 0, (), ((0, 0),))
        for _depth in range(4):
            expected = _engine_steps(st, ctx)
            assert _compiled_steps(st, ctx, flags) == expected, (own, enemy, bats, color, st.demands)
            cut += len(_engine_steps(st, shared)) - len(expected)
            compared += len(expected)
            nexts = list(successors(st, ctx))
            if not nexts:
                break
            st = rng.choice(nexts)[1]
    assert compared > 1000 and cut > 20, (compared, cut)


def test_the_compiled_whole_points_rule_is_the_rules_own() -> None:
    """``whole_points_assignable`` compiled (numba) and as Python give the same answer on random units."""
    from companion.rules.variants.stacking import whole_points_assignable

    rng = random.Random(31)
    answers = set()
    for _ in range(3000):
        n, u = rng.randrange(0, 7), rng.randrange(0, 15)
        heights = [rng.choice([1, 1, 2, 3]) for _ in range(u)]
        touch = [rng.randrange(0, 1 << n) if n else 0 for _ in range(u)]
        costs = [rng.randrange(0, 8) for _ in range(n)]
        want = whole_points_assignable(heights, touch, costs, u, n)
        got = fc.whole_points_assignable_c(np.array(heights + [0], dtype=np.int64), np.array(touch + [0], dtype=np.int64),
                                           np.array(costs + [0], dtype=np.int64), u, n)
        assert got == want, (heights, touch, costs)
        answers.add(want)
    assert answers == {True, False}
