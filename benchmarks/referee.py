"""``netzwerk run`` figures: confirm-button press -> verdict on the LEDs, over a simulated game.

    python benchmarks/referee.py [--seed 1] [--size 960x720] [--plies 40] [--option NAME ...]

A game of engine self-play (the hints' greedy player) is played on the
synthetic camera's table, with a slipped robot every fifth turn (an illegal
board, then the corrected one). The companion is the game loop of
``netzwerk run`` (``companion.referee.game.Companion``) on mock pins with a virtual
clock: between turns it watches the board as it would on the Pi (the board is
still for longer than ``stable_seconds`` before the press, as when a player
takes the hand away and reaches for the button).

Measured in wall time, per press: from driving the confirm button's pin low
(the press; held 0.1 s of the virtual clock, then released) until the panel
shows the verdict (green, red or amber: the moment the loop logs it, right
after setting the LEDs), i.e. the button logic, one fresh frame read by
``vision``, the referee's judgement, the journal commit (fsync) and the panel. Rendering the frame is not counted (a real camera delivers
frames on its own). Printed: median, p95, max, and the parts (read, judge +
journal + panel).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

# as `netzwerk` does (companion/cli/__init__.py): one BLAS thread for the camera reader's small products
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.cameras import SimCamera  # noqa: E402
from companion.demo import slip_of  # noqa: E402
from companion.rules.engine import apply_turn  # noqa: E402
from companion.referee.game import OVER, PLAYING, Companion, LoopTimings  # noqa: E402
from companion.hints.players import GreedyPlayer  # noqa: E402
from companion.referee.journal import Journal  # noqa: E402
from companion.rules.position import Placement  # noqa: E402
from companion.rules.options import Rules  # noqa: E402
from hardware.mockpins import MockPanelFactory  # noqa: E402
from hardware.panel import Panel  # noqa: E402
from hardware.timing import ManualClock  # noqa: E402

VERDICTS = ("accepted", "rejected", "unreadable", "unchanged")


class TimedReader:
    """Wraps the vision reader to time each read."""

    def __init__(self, reader) -> None:  # noqa: ANN001
        self.reader = reader
        self.last = 0.0

    def read(self, image):  # noqa: ANN001, ANN201
        t = time.perf_counter()
        try:
            return self.reader.read(image)
        finally:
            self.last = time.perf_counter() - t


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--size", default="960x720", help="frame size WxH (default 960x720)")
    ap.add_argument("--plies", type=int, default=40, help="stop after this many turns (default 40)")
    ap.add_argument("--option", action="append", default=[])
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.lower().split("x"))
    rules = Rules.from_names(args.option)
    timings = LoopTimings(stable_seconds=0.5, confirm_timeout=10.0, poll_interval=0.1, calibration_retry=0.5)

    from vision.reader import BoardReader

    readers: list[TimedReader] = []

    def make_reader(cal):  # noqa: ANN001, ANN202
        readers.append(TimedReader(BoardReader(cal)))
        return readers[-1]

    with tempfile.TemporaryDirectory() as tmp:
        clock = ManualClock()
        panel = Panel(None, MockPanelFactory(), clock=clock)
        camera = SimCamera(seed=args.seed, size=(w, h), clock=clock.now)
        journal = Journal(Path(tmp) / "journal.sqlite")
        logged: list[float] = []  # wall time at which each log entry was made (the LEDs are set just before)
        comp = Companion(panel, camera, journal, rules=rules, timings=timings, make_reader=make_reader,
                         on_log=lambda entry: logged.append(time.perf_counter()))
        judge_times: list[float] = []

        def timed(judge):  # noqa: ANN001, ANN202
            def timed_judge(reading):  # noqa: ANN001, ANN202
                t = time.perf_counter()
                try:
                    return judge(reading)
                finally:
                    judge_times.append(time.perf_counter() - t)
            return timed_judge

        comp.run_for(5.0)
        comp.referee.judge = timed(comp.referee.judge)  # the game's referee (replaced only by a new game)
        if comp.phase != PLAYING:
            print("the companion did not get ready:", "; ".join(e.text for e in comp.log[-3:]))
            return 1
        player = GreedyPlayer()
        rng = random.Random(args.seed)
        total, reads, rest, kinds = [], [], [], []

        def timed_press() -> str:
            side = comp.referee.position.to_move.name.lower()
            n = len(comp.log)
            pin = panel.button_pin(f"confirm_{side}")
            t0 = time.perf_counter()
            pin.drive_low()
            clock.advance(0.1)
            pin.drive_high()
            for _ in range(200):
                comp.tick()
                done = [(i, e) for i, e in enumerate(comp.log[n:], n) if e.kind in VERDICTS]
                if done:
                    break
            index, entry = done[0]
            t1 = logged[index]
            done = [entry]
            total.append(t1 - t0)
            read = readers[-1].last
            reads.append(read)
            rest.append(t1 - t0 - read)
            kinds.append(done[0].kind)
            judged.append(judge_times[-1] if judge_times else 0.0)
            return done[0].kind

        ply = 0
        judged: list[float] = []
        while comp.phase != OVER and ply < args.plies:
            ply += 1
            pos = comp.referee.position
            turn = player.choose(pos, rules, rng)
            if ply % 5 == 3:
                slip = slip_of(pos, turn, rules, rng)
                if slip is not None:
                    camera.show(slip[0])
                    comp.run_for(timings.stable_seconds + 0.3)
                    timed_press()
            camera.show(Placement.of(apply_turn(pos, turn, rules)))
            comp.run_for(timings.stable_seconds + 0.3)
            timed_press()
            comp.run_for(0.2)
        comp.close()
        panel.close()
        journal.close()

    ms = [t * 1000 for t in total]
    print(f"confirm press -> verdict on the LEDs, {len(ms)} presses ({kinds.count('accepted')} accepted, "
          f"{kinds.count('rejected')} rejected, {len(ms) - kinds.count('accepted') - kinds.count('rejected')} other), "
          f"synthetic camera {w}x{h}, seed {args.seed}, rules {rules.name}")
    print(f"  total: median {statistics.median(ms):.1f} ms, p95 {pct(ms, 0.95):.1f} ms, max {max(ms):.1f} ms "
          f"(target: median <= 25 ms on a 2-core dev machine)")
    print(f"  parts: vision read median {statistics.median(reads) * 1000:.1f} ms; referee judge median "
          f"{statistics.median(judged) * 1000:.1f} ms (p95 {pct(judged, 0.95) * 1000:.1f}); button + journal + panel "
          f"median {statistics.median([r - j for r, j in zip(rest, judged)]) * 1000:.1f} ms")
    print(f"  game: {ply} turns played, {comp.phase}, {camera.renders} frames rendered, {comp.frames_read} read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
