"""explain of this tree's rules against an earlier commit's, in one process, call by call.

    python benchmarks/rules_ab.py [--against 1253c1d] [--turns 2000] [--seed 1] [--rounds 3] [--option NAME ...]

Whether a change of the rules code costs speed, measured so that a busy machine
slows both alike: the earlier commit's ``companion/rules`` package (from ``git
archive``; a commit from 1253c1d on, where the rules became a package) is
imported beside this tree's under another name, and each board pair of
``benchmarks/rules.py`` (self-play under the default profile or the ``--option``s
given, which the earlier commit must know; seed ``--seed``:
its legal turns and its perturbed, illegal after-boards) is explained by one
and then the other (the order alternating), ``--rounds`` times. Printed for
both: median and p99 of the wall clock and of the thread's CPU time, and the sum
over the pairs of each pair's fastest CPU time (the least disturbed figure).
The default ``--against`` is 1253c1d, the rules moved into the package before
one home per rule (issue 21).
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from rules import load, perturb, self_play_pairs  # noqa: E402  (benchmarks/rules.py)

from companion.rules.explain import explain as explain_now  # noqa: E402
from companion.rules.options import Rules  # noqa: E402


def rules_of(commit: str, into: Path) -> str:
    """Unpack ``companion/rules`` of ``commit`` as a package of its own under ``into``; its name."""
    name = "rules_then"
    archive = into / "rules.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", commit, "companion/rules"], stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    shutil.move(str(into / "companion" / "rules"), str(into / name))
    sys.path.insert(0, str(into))
    return name


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", default="1253c1d", help="the earlier commit (default: 1253c1d)")
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--option", action="append", default=[], help="a rule option of both profiles (repeatable)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    now_rules = Rules.from_names(args.option)
    pairs = self_play_pairs(args.turns, now_rules, rng)
    boards = [(b.to_string(), a.to_string(), perturb(a, rng).to_string()) for b, a in pairs]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            pkg = rules_of(args.against, Path(tmp))
        except (subprocess.CalledProcessError, OSError, KeyError) as exc:
            print(f"rules_ab: cannot unpack companion/rules of {args.against!r}: {exc}", file=sys.stderr)
            return 2
        then_explain = importlib.import_module(f"{pkg}.explain").explain
        then_pos = importlib.import_module(f"{pkg}.position").Position
        try:
            then_rules = importlib.import_module(f"{pkg}.options").Rules.from_names(args.option)
        except Exception as exc:
            print(f"rules_ab: {args.against} does not know the options {args.option}: {exc}", file=sys.stderr)
            return 2
        from companion.rules.position import Position

        sides = {
            "this tree": (explain_now, now_rules, [tuple(Position.from_string(x) for x in t) for t in boards]),
            args.against: (then_explain, then_rules, [tuple(then_pos.from_string(x) for x in t) for t in boards]),
        }
        wall = {k: {"legal": [], "illegal": []} for k in sides}
        cpu = {k: {"legal": [], "illegal": []} for k in sides}
        best = {k: {"legal": [float("inf")] * len(boards), "illegal": [float("inf")] * len(boards)} for k in sides}
        print(f"{len(boards)} pairs under {now_rules.name}, {args.rounds} rounds; {load()}")
        for rnd in range(args.rounds):
            for i in range(len(boards)):
                order = list(sides) if (i + rnd) % 2 == 0 else list(reversed(sides))
                for k in order:
                    fn, rules, ps = sides[k]
                    before, after, bad = ps[i]
                    for kind, board in (("legal", after), ("illegal", bad)):
                        c, t = time.thread_time(), time.perf_counter()
                        ex = fn(before, board, rules)
                        dt, dc = time.perf_counter() - t, time.thread_time() - c
                        if kind == "legal":
                            assert ex.legal, (k, before, board)
                        elif ex.legal:
                            continue
                        wall[k][kind].append(dt)
                        cpu[k][kind].append(dc)
                        best[k][kind][i] = min(best[k][kind][i], dc)
        for k in sides:
            for kind in ("legal", "illegal"):
                w, c = wall[k][kind], cpu[k][kind]
                total = sum(x for x in best[k][kind] if x != float("inf"))
                print(f"{k:>10} {kind:<7} n={len(w):5d}  wall median {statistics.median(w) * 1e3:.3f} ms p99 "
                      f"{pct(w, 0.99) * 1e3:.3f} ms  CPU median {statistics.median(c) * 1e3:.3f} ms p99 "
                      f"{pct(c, 0.99) * 1e3:.3f} ms  fastest per pair, summed {total * 1e3:.0f} ms")
        print(load())
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
