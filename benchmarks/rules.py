"""Rules-engine figures: explain() latency on legal and illegal boards, outcome enumeration rate.

    python benchmarks/rules.py [--turns 2000] [--seed 1] [--option NAME ...]
    python benchmarks/rules.py --side-by-side stacking [--turns 2000] [--seed 1]

Legal pairs come from self-play of random legal turns (engine.random_turn);
illegal after-boards are the same after-boards with one piece moved
elsewhere (kept only when no legal turn reaches them).

``--side-by-side PROFILE`` (``stacking``, ``stacking+no-line-limit``, ...) times
explain under the default profile and under PROFILE in one process, each pair of
boards of one profile right after the same-numbered pair of the other, so that a
busy machine slows both alike; the other figures follow for both profiles. The
machine's load average is printed at the start and the end: the issue's bar
(median <= 0.1 ms, p99 <= 1 ms legal, <= 2 ms illegal) is for an idle machine.
Each explain is timed twice, by the wall clock and by the CPU time of this
thread (``time.thread_time``): on a machine whose cores are busy with other work,
the wall clock also counts the waits for a core, the CPU time only the call's
own work (shared caches and clock speed still slow it).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.rules.engine import apply_turn, battery_phase_layouts, random_turn, robot_phase_outcomes, status  # noqa: E402
from companion.rules.explain import explain  # noqa: E402
from companion.rules.position import Position  # noqa: E402
from companion.rules.options import Rules  # noqa: E402


def self_play_pairs(n: int, rules: Rules, rng: random.Random):
    pairs = []
    while len(pairs) < n:
        pos = Position.start()
        for _ in range(60):
            if status(pos, rules).over:
                break
            after = apply_turn(pos, random_turn(pos, rng, rules), rules)
            pairs.append((pos, after))
            pos = after
    return pairs[:n]


def perturb(p: Position, rng: random.Random) -> Position:
    w, b, bat = set(p.white), set(p.black), set(p.batteries)
    stacks = dict(p.stacks)
    if rng.random() < 0.5 and (w or b):
        col = w if (rng.random() < 0.5 and w) or not b else b
        s = rng.choice(sorted(col))
        col.remove(s)
        col.add(rng.choice([x for x in range(36) if x not in w | b and x != s]))
    else:
        s = rng.choice(sorted(bat))
        bat.remove(s)
        t = rng.choice([x for x in range(49) if x not in bat and x != s])
        bat.add(t)
        stacks = {t if q == s else q: h for q, h in stacks.items()}  # a stack moves whole
    return Position(frozenset(w), frozenset(b), frozenset(bat), p.to_move, frozenset(stacks.items()))


def timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


def summary(name: str, times: list[float]) -> str:
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return (f"{name:<34} n={len(times):5d}  median {statistics.median(times) * 1e3:6.3f} ms  "
            f"p99 {p99 * 1e3:6.3f} ms  max {times[-1] * 1e3:6.3f} ms")


def load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average unknown"


def timed_both(fn, *args):
    """(result, wall seconds, thread CPU seconds)."""
    c = time.thread_time()
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t, time.thread_time() - c


def side_by_side(profile: str, turns: int, seed: int) -> int:
    """Explain under the default profile and ``profile`` interleaved pair by pair (see the module text)."""
    names = [n for n in profile.split("+") if n and n != "original"]
    profiles = [Rules(), Rules.from_names(names)]
    print(f"side by side: {profiles[0].name} and {profiles[1].name}; {load()}")
    pairs, bad = [], []
    for rules in profiles:
        rng = random.Random(seed)
        pairs.append(self_play_pairs(turns, rules, rng))
        bad.append([perturb(after, rng) for _, after in pairs[-1]])
    legal: list[list[float]] = [[], []]
    illegal: list[list[float]] = [[], []]
    legal_cpu: list[list[float]] = [[], []]
    illegal_cpu: list[list[float]] = [[], []]
    for i in range(turns):
        for k, rules in enumerate(profiles):
            before, after = pairs[k][i]
            ex, dt, cpu = timed_both(explain, before, after, rules)
            assert ex.legal, (before, after, ex.diagnosis)
            legal[k].append(dt)
            legal_cpu[k].append(cpu)
        for k, rules in enumerate(profiles):
            ex, dt, cpu = timed_both(explain, pairs[k][i][0], bad[k][i], rules)
            if not ex.legal:
                illegal[k].append(dt)
                illegal_cpu[k].append(cpu)
    for k, rules in enumerate(profiles):
        print(summary(f"{rules.name}: legal", legal[k]))
        print(summary(f"{rules.name}: illegal", illegal[k]))
    for k, rules in enumerate(profiles):
        print(summary(f"{rules.name}: legal, CPU", legal_cpu[k]))
        print(summary(f"{rules.name}: illegal, CPU", illegal_cpu[k]))
    for k, rules in enumerate(profiles):
        sample = [b for b, _ in pairs[k][:: max(1, turns // 200)]]
        t = time.perf_counter()
        n_out = sum(len(robot_phase_outcomes(pos, rules)) for pos in sample)
        dt = time.perf_counter() - t
        print(f"{rules.name}: robot-phase outcomes {n_out / dt:,.0f}/s", end="")
        t = time.perf_counter()
        n_out = sum(len(battery_phase_layouts(pos, rules)) for pos in sample[:50])
        dt = time.perf_counter() - t
        print(f", battery-phase outcomes {n_out / dt:,.0f}/s")
    start = Position.start()
    for rules in profiles:
        (r, dt_r), (b, dt_b) = timed(robot_phase_outcomes, start, rules), timed(battery_phase_layouts, start, rules)
        print(f"{rules.name}: start position {len(r)} robot outcomes in {dt_r * 1e3:.0f} ms, "
              f"{len(b)} battery outcomes in {dt_b * 1e3:.0f} ms")
    print(load())
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--side-by-side", metavar="PROFILE", help="explain under the default profile and PROFILE, interleaved")
    args = ap.parse_args()
    if args.side_by_side:
        return side_by_side(args.side_by_side, args.turns, args.seed)
    rules = Rules.from_names(args.option)
    rng = random.Random(args.seed)
    print(f"rules profile: {rules.name}")
    pairs = self_play_pairs(args.turns, rules, rng)

    legal_times = []
    for before, after in pairs:
        ex, dt = timed(explain, before, after, rules)
        assert ex.legal, (before, after, ex.diagnosis)
        legal_times.append(dt)
    print(summary("explain, legal turns", legal_times))

    illegal_times = []
    for before, after in pairs:
        bad = perturb(after, rng)
        ex, dt = timed(explain, before, bad, rules)
        if not ex.legal:
            illegal_times.append(dt)
    print(summary("explain, illegal boards", illegal_times))
    print(summary("explain, all", legal_times + illegal_times))

    sample = [b for b, _ in pairs[:: max(1, len(pairs) // 200)]]
    n_out = 0
    t = time.perf_counter()
    for pos in sample:
        n_out += len(robot_phase_outcomes(pos, rules))
    dt = time.perf_counter() - t
    print(f"robot-phase outcomes          {n_out} over {len(sample)} positions in {dt:.2f} s: {n_out / dt:,.0f} outcomes/s")
    n_out = 0
    t = time.perf_counter()
    for pos in sample[:50]:
        n_out += len(battery_phase_layouts(pos, rules))
    dt = time.perf_counter() - t
    print(f"battery-phase outcomes        {n_out} over {min(50, len(sample))} positions in {dt:.2f} s: {n_out / dt:,.0f} outcomes/s")
    start = Position.start()
    (r, dt_r), (b, dt_b) = timed(robot_phase_outcomes, start, rules), timed(battery_phase_layouts, start, rules)
    print(f"start position                {len(r)} robot outcomes in {dt_r * 1e3:.0f} ms, {len(b)} battery outcomes in {dt_b * 1e3:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
