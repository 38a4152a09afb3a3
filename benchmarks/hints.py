"""Hint engine figures: latency, nodes per second, and arena scores with 95% CIs.

    .venv/bin/python benchmarks/hints.py                      # the full run (long: see --help)
    .venv/bin/python benchmarks/hints.py --games-random 10 --games-greedy 10 --time 0.3

Prints one line per figure.  Arena games run ``--jobs`` at a time (one
search per core keeps the per-turn budget honest on a 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from companion.rules.engine import apply_turn, status  # noqa: E402
from companion.hints import DEFAULT_BUDGET, RandomPlayer  # noqa: E402
from companion.hints.arena import run_arena  # noqa: E402
from companion.hints.board import Board  # noqa: E402
from companion.hints import jit  # noqa: E402
from companion.hints.players import make_searcher  # noqa: E402
from companion.rules.position import Position  # noqa: E402
from companion.rules.options import Rules  # noqa: E402


def sample_positions(count: int, seed: int, rules: Rules) -> list[Position]:
    rng = random.Random(seed)
    player = RandomPlayer()
    out = [Position.start()]
    while len(out) < count:
        pos = Position.start()
        for _ in range(rng.randrange(1, 12)):
            nxt = apply_turn(pos, player.choose(pos, rules, rng), rules)
            if status(nxt, rules).over:
                break
            pos = nxt
        out.append(pos)
    return out


def latency(count: int, budget: float, seed: int, rules: Rules) -> None:
    times, nps, depths, nodes = [], [], [], []
    for pos in sample_positions(count, seed, rules):
        s = make_searcher(rules)
        t0 = time.perf_counter()
        s.search(Board.of(pos), budget)
        times.append(time.perf_counter() - t0)
        nps.append(s.stats.nodes_per_second)
        depths.append(s.stats.depth)
        nodes.append(s.stats.nodes)
    print(
        f"hint latency at {budget:g} s budget over {count} positions: mean {statistics.mean(times):.3f} s, "
        f"max {max(times):.3f} s; depth mean {statistics.mean(depths):.2f} (max {max(depths)}); "
        f"nodes mean {statistics.mean(nodes):,.0f}, {statistics.mean(nps):,.0f} nodes/s (board evaluations)",
        flush=True,
    )


def arena(first: str, second: str, games: int, budget: float, seed: int, jobs: int, rules: Rules, nodes: int | None = None) -> None:
    t0 = time.perf_counter()
    r = run_arena(first, second, games, rules=rules, budget=budget, seed=seed, jobs=jobs, nodes=nodes)
    turns = [g.turns for g in r.games]
    print(
        f"{r.summary()}; {budget:g} s per search turn{f' (at most {nodes:,} nodes)' if nodes else ''}, {jobs} job(s), seed {seed}, "
        f"mean game {statistics.mean(turns):.1f} turns, {time.perf_counter() - t0:.0f} s wall",
        flush=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time", type=float, default=DEFAULT_BUDGET, help="search budget per turn in seconds (default 1)")
    ap.add_argument("--games-random", type=int, default=100, help="search vs random games (default 100, 0 skips)")
    ap.add_argument("--games-greedy", type=int, default=200, help="search vs greedy games (default 200, 0 skips)")
    ap.add_argument("--latency-positions", type=int, default=20, help="positions for the latency figure (0 skips)")
    ap.add_argument("--jobs", type=int, default=2, help="games in parallel (default 2)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=None, help="also cap each search at about N board evaluations (load-independent)")
    ap.add_argument("--option", action="append", default=[], help="rule option (repeatable)")
    ap.add_argument("--no-jit", action="store_true", help="the Python search (as NETZWERK_NO_JIT=1)")
    args = ap.parse_args()
    if args.no_jit:
        os.environ["NETZWERK_NO_JIT"] = "1"
    rules = Rules.from_names(args.option)
    core = "compiled (numba)" if jit.available() else f"python ({jit.why_not()})"
    print(f"# hints benchmark: python {platform.python_version()}, {os.cpu_count()} cpus, rules {rules.name}, search core {core}", flush=True)
    if jit.available():
        print(f"core warm-up (compile, or load numba's cache): {jit.warm_up():.2f} s", flush=True)
    if args.latency_positions:
        latency(args.latency_positions, args.time, args.seed, rules)
    if args.games_random:
        arena("search", "random", args.games_random, args.time, args.seed, args.jobs, rules, args.nodes)
    if args.games_greedy:
        arena("search", "greedy", args.games_greedy, args.time, args.seed, args.jobs, rules, args.nodes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
