"""Training data for the verdict (vision/anyset/verdict.py): the reader's evidence on every field, with the truth.

Each *set-up* is one design (``sample_design(seed)``, now and then pushed
into a hard corner or given the tallest robots and a tilted camera) under one
camera and lamp, calibrated as a user would (marker-less, told which image
edge White's start row faces). Then the reader, as shipped, reads

* ``--frames`` single frames of random boards against the calibration frame
  (the reader as ``vision read`` uses it), each set up from scratch: every
  piece set down anew (``render(placement=...)``; before 6 December 2026 a
  piece on a field where the start had one of its kind stood exactly where
  that one had, which taught the verdict that such a field never changes), and
* a game of ``--frames`` boards, each a turn or two after the one before, the
  reader learning every board (as ``run`` uses it),

now and then under changed light, a new lamp reflection, softer focus or a
hand. For every frame it keeps the evidence the reader hands to the verdict
(``BoardReader.last_evidence``: ``verdict.SQUARE_FEATURES`` and
``POINT_FEATURES``) and the truth: what stands on each field, which robot
colour, how much of each point and square the camera sees (a point a tall
robot hides is "cannot tell", never the layout's answer) and which fields a
hand covers.

The design seeds must be ones the field classifier's nets never trained on
(their evidence would be surer than on a user's set): the nets used render
seeds 1,014,000-1,015,599 and 3,000,000-3,999,999; the benchmark's blocks
are 5,000,000+ (development), 9,000,000+ and the fresh blocks 10,000,000 to
19,999,999. The verdict's data uses 20,000,000+ (``--seed-base``).

Deterministic from the seeds: ``python -m training.verdictdata --seed-base
20000000 --designs 400 --out part.npz`` gives the same file on any machine
(the workers only split the set-ups between them).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from multiprocessing import Pool
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")     # one thread a worker: the workers are the parallelism

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# the benchmark's render seed of a design's camera, its check of a found grid and its model of the
# batteries' sides in a game (R-23): the verdict's data is made as the benchmark's frames are
from benchmarks.vision_anyset import _corner_error, camera_seed, game_sides  # noqa: E402
from fileio.paths import FileRefused, writable_output  # noqa: E402
from training.fielddata import START, _covered, changed_layout, hard_design, random_layout, tall_design  # noqa: E402
from vision.anyset.calibration import calibrate, white_side_of  # noqa: E402
from vision.anyset.patches import PatchCutter  # noqa: E402
from vision.anyset.reader import BoardReader  # noqa: E402
from vision.anyset.verdict import POINT_FEATURES, SQUARE_FEATURES  # noqa: E402
from vision.designs import sample_design  # noqa: E402
from vision.errors import VisionError  # noqa: E402
from vision.render import render  # noqa: E402

CAMERAS = 2            # cameras (and lamps) per design
LIGHT_CHANGE = 0.2     # share of the frames whose light changed since the calibration frame
GLARE = 0.05           # ... with a new lamp reflection
BLUR = 0.05            # ... out of focus a little
HAND = 0.06            # ... with a hand over the board
HIDDEN_VIEW = 0.5      # a point whose battery the camera would see less than half of: "cannot tell"
HIDDEN_SQUARE = 0.5    # a square whose middle the camera sees less than half of: "cannot tell"


def _rng(*parts: object) -> np.random.Generator:
    return np.random.default_rng(int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "little"))


def _look(design: int, hard: float, tall: float):
    """The set's look and the camera's extra view options of design seed ``design``."""
    d = sample_design(design)
    view = {}
    if _rng("verdict-hard", design).random() < hard:
        d = hard_design(d, _rng("verdict-hard-look", design))
    trng = _rng("verdict-tall", design)
    if trng.random() < tall:
        d, tilt = tall_design(d, trng)
        view["tilt"] = tilt
    return d, view


def _conditions(rng: np.random.Generator, base) -> dict:
    """Changes of a frame against the calibration frame: the light, a lamp reflection, the focus."""
    cond = {}
    if rng.random() < LIGHT_CHANGE:
        cond["light"] = float(base.light * rng.uniform(0.8, 1.2))
        cond["color_temp"] = float(np.clip(base.color_temp + rng.uniform(-0.2, 0.2), -1, 1))
    if rng.random() < GLARE:
        cond["glare"] = float(rng.uniform(0.2, 0.5))
    if rng.random() < BLUR:
        cond["blur"] = float(rng.uniform(0.5, 1.5))
    return cond



def setup_rows(args: tuple[int, int, int, float, float]) -> dict[str, np.ndarray] | None:
    """The evidence and truth of every frame one set-up's reader reads; None where the set-up's
    calibration is refused or finds the wrong grid (no frame of it is read)."""
    design, camera, frames, hard, tall = args
    seed = camera_seed(design, camera)
    look, view = _look(design, hard, tall)
    rng = _rng("verdict-frames", seed)
    start = render(START, seed, design=look, markers=False, printed=[True] * 49, **view)
    try:
        cal = calibrate(start.image, START, white_side=white_side_of(start.homography))
    except VisionError:
        return None
    side = np.linalg.norm(start.corners_px[0] - start.corners_px[1]) / 6
    if _corner_error(cal.H, start.homography) > 0.3 * side:
        return None
    cutter = PatchCutter(start.homography, start.image.shape[1::-1])
    rows: dict[str, list] = {k: [] for k in ("S", "P", "robot", "white", "battery", "seen_s", "seen_p", "mode", "frame",
                                             "hand")}

    def add(reader: BoardReader, shot, bare, mode: int, f: int) -> None:
        ev = reader.last_evidence
        cov_s, cov_p = (_covered(cutter, shot.image, bare.image) if bare is not None
                        else (np.zeros(36, bool), np.zeros(49, bool)))
        rows["S"].append(ev.squares.astype(np.float32))
        rows["P"].append(ev.points.astype(np.float32))
        rows["robot"].append([s.value != "empty" for s in shot.layout.squares])
        rows["white"].append([s.value == "white" for s in shot.layout.squares])
        rows["battery"].append([p.value == "battery" for p in shot.layout.points])
        rows["seen_s"].append((np.asarray(shot.visible_squares) >= HIDDEN_SQUARE) & ~cov_s)
        rows["seen_p"].append((np.asarray(shot.point_view) >= HIDDEN_VIEW) & ~cov_p)
        rows["mode"].append(mode)
        rows["frame"].append(f)
        rows["hand"].append(bare is not None)

    def shoot(layout, frame: int, printed=None, placement=None):
        cond = _conditions(rng, start.conditions)
        hand = bool(rng.random() < HAND)
        shot = render(layout, seed, design=look, markers=False, frame=frame, printed=printed, hand=hand,
                      placement=placement, **view, **cond)
        bare = (render(layout, seed, design=look, markers=False, frame=frame, printed=printed, placement=placement,
                       **view, **cond) if hand else None)
        return shot, bare

    # the evidence does not depend on the verdict (it is what the verdict weighs): the readers gather it
    # without asking one (judge=False), so a verdict model to be replaced, or none, changes nothing in it
    reader = BoardReader(cal, adapt=False, judge=False)
    for f in range(frames):
        shot, bare = shoot(random_layout(rng), f + 1, placement=f + 1)   # a position set up from scratch
        reader.read(shot.image)
        add(reader, shot, bare, 0, f)
    reader = BoardReader(cal, judge=False)
    board, sides = START, [True] * 49
    for f in range(frames):
        before = board
        board = changed_layout(rng, board)
        sides = game_sides(rng, before, sides, board)
        shot, bare = shoot(board, 100 + f, sides)
        reader.read(shot.image)
        add(reader, shot, bare, 1, f)
        if bare is None:
            reader.learn_bare(shot.image, board)      # the referee accepted this board (a hand's frame is no turn)
    out = {k: np.asarray(v) for k, v in rows.items()}
    out["design"] = np.full(len(out["mode"]), design)
    out["camera"] = np.full(len(out["mode"]), camera)
    return out


def generate(seed_base: int, designs: int, first: int = 0, frames: int = 6, cameras: int = CAMERAS,
             hard: float = 0.0, tall: float = 0.0, workers: int = 2) -> tuple[dict[str, np.ndarray], int]:
    jobs = [(seed_base + first + d, k, frames, hard, tall) for d in range(designs) for k in range(cameras)]
    with Pool(workers) as pool:
        parts = pool.map(setup_rows, jobs, chunksize=1)
    kept = [p for p in parts if p is not None]
    data = {k: np.concatenate([p[k] for p in kept]) for k in kept[0]}
    data["square_features"] = np.array(SQUARE_FEATURES)
    data["point_features"] = np.array(POINT_FEATURES)
    return data, len(parts) - len(kept)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed-base", type=int, default=20_000_000, help="first design seed (see the module's text)")
    ap.add_argument("--designs", type=int, default=400)
    ap.add_argument("--first", type=int, default=0, help="first design after the base (a data set made in parts)")
    ap.add_argument("--cameras", type=int, default=CAMERAS)
    ap.add_argument("--frames", type=int, default=6, help="single frames, and boards of the game, per set-up")
    ap.add_argument("--hard", type=float, default=0.2, help="share of the designs pushed into a hard corner: 0..1")
    ap.add_argument("--tall", type=float, default=0.1, help="share with the tallest robots, the camera tilted: 0..1")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    for name in ("hard", "tall"):
        if not 0.0 <= getattr(a, name) <= 1.0:
            ap.error(f"--{name} {getattr(a, name)}: a share from 0 to 1")
    for name in ("designs", "cameras", "frames", "workers"):
        if getattr(a, name) < 1:
            ap.error(f"--{name} {getattr(a, name)}: at least 1")
    try:
        out = writable_output(a.out, "--out", suffixes=(".npz",))
    except FileRefused as exc:
        ap.error(str(exc))
    t = time.time()
    data, refused = generate(a.seed_base, a.designs, a.first, a.frames, a.cameras, a.hard, a.tall, a.workers)
    np.savez_compressed(out, **data)
    print(f"{a.designs} designs x {a.cameras} cameras ({refused} set-ups refused or mislocated, left out): "
          f"{len(data['mode'])} frames -> {out} in {time.time() - t:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
