"""Turns refereed on unseen set designs: the any-set reader and the referee together, as in a game.

    python benchmarks/referee_anyset.py                      # 25 designs x 2 cameras x 20 turns
    python benchmarks/referee_anyset.py --design-base 9200000 --designs 25 --cameras 2 --turns 20

``benchmarks/vision_anyset.py`` counts frames the reader claims with every
field sure. A game is refereed differently: the referee takes the reading's
doubtful fields with the rules as a prior (a field the camera is unsure of is
tried in each state it plausibly has; exactly one legal turn fitting settles
it, several make a question the players answer with the confirm button,
none an "unreadable" that asks them to look at the board). This benchmark
plays that: per set-up (a design of ``vision.designs`` under one camera and
lamp, marker-less calibration on its start frame with ``--white-side``, as a
user does), a game of the hints' greedy player against itself, each turn
photographed by the synthetic camera, read, judged by the referee, and the
true turn then accepted (as the players would after a question or a look at
the board) and learned by the reader. A battery left standing keeps its side
unless it is turned (a quarter of them a turn), as in
``benchmarks/vision_anyset.py``'s game.

Per turn the verdict is one of: **accepted right** (the true turn, nobody
asked), **asked** (a question whose candidates hold the true turn: a
confirm press settles it), **unreadable** (the players are asked to check
the board; nothing is claimed), or **wrong** (an accepted or rejected
verdict, or a question, that does not hold the true turn: a misread that
reached the referee). Design seeds: 9,200,000+ by default, a block never
looked at while developing.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.vision_anyset import START, camera_seed, game_sides  # noqa: E402
from companion.hints.players import GreedyPlayer  # noqa: E402
from companion.referee.referee import ACCEPTED, QUESTION, UNREADABLE, Referee  # noqa: E402
from companion.rules.engine import apply_turn  # noqa: E402
from companion.rules.options import ORIGINAL  # noqa: E402
from companion.rules.position import Placement  # noqa: E402
from companion.vision_bridge import layout_from_position, table_reading  # noqa: E402
from vision.anyset.calibration import calibrate, white_side_of  # noqa: E402
from vision.anyset.reader import BoardReader  # noqa: E402
from vision.errors import VisionError  # noqa: E402
from vision.render import render  # noqa: E402

KINDS = ("accepted right", "asked", "unreadable", "wrong")


def one_setup(args: tuple[int, int, int]) -> dict:
    """Calibrate one set-up and referee a game of up to ``turns`` turns on it."""
    design, k, turns = args
    seed = camera_seed(design, k)
    start = render(START, seed, design=design, markers=False, printed=[True] * 49)
    out: dict = {"design": design, "camera": k, "accepted": False, "why": None, "turns": [], "wrong": [],
                 "unreadable": []}
    try:
        cal = calibrate(start.image, START, white_side=white_side_of(start.homography))
    except VisionError as exc:
        out["why"] = str(exc)
        return out
    out["accepted"] = True
    reader = BoardReader(cal)
    referee = Referee(rules=ORIGINAL)
    player = GreedyPlayer()
    rng = random.Random(seed)
    side_rng = np.random.default_rng([seed, 2])
    layout, sides = START, [True] * 49
    for ply in range(turns):
        if referee.status.over:
            break
        before = referee.position
        turn = player.choose(before, ORIGINAL, rng)
        after = apply_turn(before, turn, ORIGINAL)
        new_layout = layout_from_position(after)
        sides = game_sides(side_rng, layout, sides, new_layout)
        shot = render(new_layout, seed, design=design, markers=False, frame=200 + ply, printed=sides)
        verdict = referee.judge(table_reading(reader.read(shot.image)))
        truth = Placement.of(after)
        take = None
        if verdict.kind == ACCEPTED and verdict.board == truth:
            kind, take = "accepted right", verdict
        elif verdict.kind == QUESTION and any(c.board == truth for c in verdict.candidates):
            kind, take = "asked", next(c for c in verdict.candidates if c.board == truth)
        elif verdict.kind == UNREADABLE:
            kind = "unreadable"
            out["unreadable"].append(verdict.line())
        else:
            kind = "wrong"
            out["wrong"].append(f"design {design} camera {k} turn {ply + 1} ({turn}): {verdict.line()}")
        out["turns"].append(kind)
        if take is None:                       # the players check the board: the true turn is played
            take = referee.judge_board(truth)
        referee.accept(take)
        reader.learn_bare(shot.image, new_layout)
        layout = new_layout
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--design-base", type=int, default=9_200_000)
    ap.add_argument("--designs", type=int, default=25)
    ap.add_argument("--cameras", type=int, default=2)
    ap.add_argument("--turns", type=int, default=20, help="turns a game at most (default 20)")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    a = ap.parse_args(argv)
    if min(a.designs, a.cameras, a.turns, a.workers) < 1:
        ap.error("--designs, --cameras, --turns and --workers must be at least 1")
    jobs = [(a.design_base + d, k, a.turns) for d in range(a.designs) for k in range(a.cameras)]
    t = time.time()
    with ProcessPoolExecutor(a.workers) as pool:
        results = list(pool.map(one_setup, jobs, chunksize=1))
    acc = [r for r in results if r["accepted"]]
    print(f"designs {a.design_base}..{a.design_base + a.designs - 1}, {a.cameras} cameras each: "
          f"{len(results)} set-ups ({time.time() - t:.0f} s)")
    print(f"  start set-ups accepted: {len(acc)} of {len(results)}")
    for r in results:
        if not r["accepted"]:
            print(f"    refused design {r['design']} camera {r['camera']}: {r['why'][:150]}")
    turns = [kind for r in acc for kind in r["turns"]]
    print(f"turns refereed: {len(turns)} in {len(acc)} games")
    for kind in KINDS:
        n = turns.count(kind)
        print(f"  {kind}: {n} = {100 * n / max(len(turns), 1):.1f}%")
    for r in acc:
        for line in r["wrong"]:
            print(f"    {line}")
    # where the unreadable turns lie: a few set-ups, or spread thinly
    spread = sorted((r for r in acc if r["unreadable"]), key=lambda r: -len(r["unreadable"]))
    if spread:
        print("  unreadable turns by set-up (the first one's verdict):")
        for r in spread:
            print(f"    design {r['design']} camera {r['camera']}: {len(r['unreadable'])} of {len(r['turns'])}; "
                  f"{r['unreadable'][0][:160]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
