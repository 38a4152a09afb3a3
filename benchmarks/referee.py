"""``netzwerk run`` figures: confirm-button press -> verdict on the LEDs, over a simulated game.

    python benchmarks/referee.py [--seed 1] [--size 960x720] [--presses 200] [--plies 40] [--option NAME ...]
                                 [--reader classic|any]

Games of engine self-play (the hints' greedy player) are played on the
synthetic camera's table (setup ``--seed``), with a slipped robot every
fifth turn (an illegal board, then the corrected one), one game after another
(the players' draws seeded 0, 1, 2, ...) until at least ``--presses`` confirm
presses were measured. The companion is the game loop of
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
journal + panel). ``--reader``: the board reader the companion calibrates
with (the synthetic table's default is the classic reader, as in the demo;
``any`` is the any-set reader a real camera's calibration uses by default).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# as `netzwerk` does (companion/cli/__init__.py): one BLAS thread for the camera reader's small products
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.cameras import SimCamera  # noqa: E402
from companion.vision_bridge import calibrator, default_reader  # noqa: E402
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

VERDICTS = ("accepted", "rejected", "unreadable", "unchanged", "question")


class TimedReader:
    """Wraps the vision reader to time each read; everything else is the reader's own (its
    calibration, ``learn_bare``: the loop teaches it the bare board after each accepted turn, as
    in ``netzwerk run``)."""

    def __init__(self, reader) -> None:  # noqa: ANN001
        self.reader = reader
        self.last = 0.0

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self.reader, name)

    def read(self, image):  # noqa: ANN001, ANN201
        t = time.perf_counter()
        try:
            return self.reader.read(image)
        finally:
            self.last = time.perf_counter() - t


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


@dataclass
class Figures:
    """What the presses measured, over every game played."""

    total: list[float] = field(default_factory=list)  # press -> verdict on the LEDs, seconds
    reads: list[float] = field(default_factory=list)  # the vision read of the judged frame
    judged: list[float] = field(default_factory=list)  # the referee's judgement
    kinds: list[str] = field(default_factory=list)
    games: list[str] = field(default_factory=list)
    rendered: int = 0
    read: int = 0


def play_game(seed: int, game: int, size: tuple[int, int], plies: int, rules: Rules, timings: LoopTimings,
              figures: Figures, enough: int, reader: str = "classic") -> None:
    """Game ``game`` on camera setup ``seed``; adds every press's figures; stops at ``enough`` presses.
    ``reader``: the board reader the companion calibrates with."""
    readers: list[TimedReader] = []

    def make_reader(cal):  # noqa: ANN001, ANN202
        readers.append(TimedReader(default_reader(cal)))
        return readers[-1]

    with tempfile.TemporaryDirectory() as tmp:
        clock = ManualClock()
        panel = Panel(None, MockPanelFactory(), clock=clock)
        camera = SimCamera(seed=seed, size=size, clock=clock.now)
        journal = Journal(Path(tmp) / "journal.sqlite")
        logged: list[float] = []  # wall time at which each log entry was made (the LEDs are set just before)
        comp = Companion(panel, camera, journal, rules=rules, timings=timings, make_reader=make_reader,
                         calibrate=calibrator(reader), on_log=lambda entry: logged.append(time.perf_counter()))
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
            raise RuntimeError(f"camera setup {seed}: the companion did not get ready: "
                               + "; ".join(e.text for e in comp.log[-3:]))
        player = GreedyPlayer()
        rng = random.Random(seed if game == 0 else seed * 1000 + game)  # game 0: the draws of the earlier one-game runs

        def timed_press() -> str:
            side = comp.referee.position.to_move.name.lower()
            n = len(comp.log)
            n_judged = len(judge_times)
            pin = panel.button_pin(f"confirm_{side}")
            t0 = time.perf_counter()
            pin.drive_low()
            clock.advance(0.1)
            pin.drive_high()
            done: list = []
            for _ in range(200):
                comp.tick()
                done = [(i, e) for i, e in enumerate(comp.log[n:], n) if e.kind in VERDICTS]
                if done:
                    break
            if not done:
                raise RuntimeError(f"camera setup {seed}: no verdict within 200 ticks of a press")
            index, entry = done[0]
            figures.total.append(logged[index] - t0)
            figures.reads.append(readers[-1].last)
            figures.judged.append(judge_times[-1] if len(judge_times) > n_judged else 0.0)
            figures.kinds.append(entry.kind)
            return entry.kind

        ply = 0
        while comp.phase != OVER and ply < plies and len(figures.total) < enough:
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
            if comp.pending is None and comp.referee.position is not pos:
                # the slip's press was unreadable and kept reading ("check the board"): it took the
                # corrected board without a second press, as at the table
                comp.run_for(0.2)
                continue
            if timed_press() == "question":  # the player waits for their turn on the pointer, then confirms
                for _ in range(4):
                    q = comp.question
                    if q is None or q.shown.board == Placement.of(apply_turn(pos, turn, rules)):
                        break
                    comp.run_for(timings.question_seconds)
                if comp.question is not None:
                    timed_press()
            comp.run_for(0.2)
        figures.games.append(f"game {game}: {ply} turns, {comp.phase}")
        figures.rendered += camera.renders
        figures.read += comp.frames_read
        comp.close()
        panel.close()
        journal.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1, help="the first game's camera setup (default 1)")
    ap.add_argument("--size", default="960x720", help="frame size WxH (default 960x720)")
    ap.add_argument("--presses", type=int, default=200, help="measure at least this many presses (default 200)")
    ap.add_argument("--plies", type=int, default=40, help="a game stops after this many turns (default 40)")
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--reader", choices=("classic", "any"), default="classic",
                    help="the board reader the companion calibrates with (default classic, as the demo's table)")
    args = ap.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        ap.error(f"--size must be WxH, e.g. 960x720, not {args.size!r}")
    if not (64 <= w <= 4096 and 48 <= h <= 4096) or args.presses < 1 or args.plies < 1:
        ap.error("--size between 64x48 and 4096x4096, --presses and --plies at least 1")
    rules = Rules.from_names(args.option)
    timings = LoopTimings(stable_seconds=0.5, confirm_timeout=10.0, poll_interval=0.1, calibration_retry=0.5)
    figures = Figures()
    game = 0
    while len(figures.total) < args.presses:
        play_game(args.seed, game, (w, h), args.plies, rules, timings, figures, args.presses, args.reader)
        game += 1

    ms = [t * 1000 for t in figures.total]
    kinds = figures.kinds
    rest = [(t - r - j) * 1000 for t, r, j in zip(figures.total, figures.reads, figures.judged)]
    print(f"confirm press -> verdict on the LEDs, {len(ms)} presses over {len(figures.games)} games "
          f"({kinds.count('accepted')} accepted, {kinds.count('rejected')} rejected, "
          f"{kinds.count('question')} questions, "
          f"{len(ms) - kinds.count('accepted') - kinds.count('rejected') - kinds.count('question')} other), "
          f"synthetic camera {w}x{h}, setup {args.seed}, rules {rules.name}, reader {args.reader}")
    print(f"  total: median {statistics.median(ms):.1f} ms, p95 {pct(ms, 0.95):.1f} ms, max {max(ms):.1f} ms "
          f"(targets: median <= 25 ms, p95 <= 15 ms on a 2-core dev machine)")
    print(f"  parts: vision read median {statistics.median(figures.reads) * 1000:.1f} ms; referee judge median "
          f"{statistics.median(figures.judged) * 1000:.1f} ms (p95 {pct(figures.judged, 0.95) * 1000:.1f}); "
          f"button + journal + panel median {statistics.median(rest):.1f} ms")
    for kind in VERDICTS:
        of_kind = [t for t, k in zip(ms, kinds) if k == kind]
        if of_kind:
            print(f"  {kind}: {len(of_kind)} presses, median {statistics.median(of_kind):.1f} ms, "
                  f"p95 {pct(of_kind, 0.95):.1f} ms")
    print(f"  games: {'; '.join(figures.games)}; {figures.rendered} frames rendered, {figures.read} read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
