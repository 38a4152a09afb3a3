"""Training data for the field classifier: patches of rendered frames of many random designs.

Each *set-up* (one seed: a design, a camera, a lamp) is rendered in six
frames: a first board (the start position, or a random layout) and five
others (the first board a turn or two on, or random boards; sometimes a hand,
sometimes the light changed since the first frame). The trainer
(``training/train_fields.py``) pairs any two frames of a set-up: one is the
reference (what the reader holds as the last board it knows), the other the
frame now; every field of the frame now is one sample: its patch now, its
patch in the reference, what the reference showed there, and the truth.

Deterministic from the seed: ``python -m training.fielddata --seed 3 --setups 400 --out part0.npz``
gives the same file on any machine (the renderer is deterministic, the
workers only split the set-ups between them).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from functools import partial
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dataclasses import replace  # noqa: E402

from vision.designs import MIN_ROBOT_DELTA_E, Design, delta_e, sample_design  # noqa: E402
from vision.layout import BoardLayout  # noqa: E402
from vision.anyset.patches import FINE_POINT_PATCH, POINT_PATCH, PatchCutter  # noqa: E402
from vision.render import render  # noqa: E402

START = BoardLayout.from_sets(white=range(6), black=range(30, 36), batteries=list(range(7, 14)) + list(range(35, 42)))
FRAMES_PER_SETUP = 5      # frames after the first
HAND_SHARE = 0.08
HARD_NEAR_BOARD = 8.0   # hard_design: the least Delta E of a robot colour pushed towards the board's (15 before 3 December)
COVERED = 0.2          # share of a field's central patch under the hand that makes it "covered"
TURNED = 0.2           # the share of the first board's batteries a game frame turns over
RANDOM_PRINTED = 0.5   # P(printed) of a battery on a random board
BLANK_TURNED = 0.5     # the same two in the blank-heavy set-ups (--blank)
BLANK_RANDOM = 0.3


def _rng(*parts: object) -> np.random.Generator:
    return np.random.default_rng(int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "little"))


def random_layout(rng: np.random.Generator) -> BoardLayout:
    nw = int(rng.integers(0, 7))
    nb = int(rng.integers(0, 7))
    if nw + nb == 0:
        nw = 1
    sq = rng.permutation(36)
    nbat = int(rng.choice([rng.integers(0, 8), rng.integers(8, 16), rng.integers(14, 24)]))
    pts = rng.permutation(49)[:nbat]
    return BoardLayout.from_sets(white=sq[:nw], black=sq[nw:nw + nb], batteries=pts)


def changed_layout(rng: np.random.Generator, base: BoardLayout) -> BoardLayout:
    """``base`` after a turn or two: a few robots and batteries moved, one robot perhaps gone."""
    white, black, bats = set(base.white), set(base.black), set(base.batteries)
    for _ in range(int(rng.integers(1, 5))):
        kind = rng.random()
        if kind < 0.45 and (white or black):
            group = white if (white and (not black or rng.random() < 0.5)) else black
            q = int(rng.choice(sorted(group)))
            group.discard(q)
            free = [i for i in range(36) if i not in white and i not in black]
            if rng.random() < 0.85 and free:
                group.add(int(rng.choice(free)))
        elif bats:
            p = int(rng.choice(sorted(bats)))
            bats.discard(p)
            free = [i for i in range(49) if i not in bats]
            bats.add(int(rng.choice(free)))
    if not white and not black:
        white.add(int(rng.integers(0, 36)))
    return BoardLayout.from_sets(white=white, black=black, batteries=bats)


def _jitter(H: np.ndarray, rng: np.random.Generator, sigma_px: float) -> np.ndarray:
    """The homography as a localiser would find it: the field's corners off by ~sigma pixels."""
    src = np.array([[0, 0], [6, 0], [6, 6], [0, 6]], np.float32)
    dst = cv2.perspectiveTransform(src.reshape(-1, 1, 2).astype(np.float64), H).reshape(-1, 2)
    dst = dst + rng.normal(0, sigma_px, dst.shape)
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32)).astype(np.float64)


def _covered(cutter: PatchCutter, img_hand: np.ndarray, img_bare: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per square / point: is it under the hand (a strong difference between the frame with and without it)."""
    d = cv2.absdiff(img_hand, img_bare).max(axis=2)
    d = cv2.GaussianBlur(d, (0, 0), 2.0)
    m = ((d > 25).astype(np.uint8) * 255)[..., None].repeat(3, axis=2)
    sq, pt = cutter.cut(m)
    cs = slice(sq.shape[1] // 4, 3 * sq.shape[1] // 4)       # the central half of each patch
    cp = slice(pt.shape[1] // 4, 3 * pt.shape[1] // 4)
    return (sq[:, cs, cs, 0] > 127).mean(axis=(1, 2)) > COVERED, (pt[:, cp, cp, 0] > 127).mean(axis=(1, 2)) > COVERED


def hard_design(design: Design, rng: np.random.Generator) -> Design:
    """``design`` pushed into a corner the sampler reaches only now and then (each with even odds,
    at least one): batteries in the energy fields' own colour, on fields larger than they are;
    small batteries; one player's robots close to the board's colour (pale on pale, dark on dark,
    still at least ``far`` Delta E from it, from HARD_NEAR_BOARD on, and the two players apart as the
    sampler keeps them)."""
    while True:
        pushes = rng.random(3) < 0.5
        if pushes.any():
            break
    d = design
    if pushes[0]:
        if d.field_style not in ("disc", "ring", "ring_dot"):
            d = replace(d, field_style="disc", field_outline=None, field_color=d.line_color if rng.random() < 0.5
                        else tuple(int(v) for v in rng.integers(0, 256, 3)))
        radius = max(d.field_radius, float(rng.uniform(0.16, 0.3)))
        d = replace(d, field_radius=round(radius, 3),
                    battery_color=tuple(int(v) for v in np.clip(np.asarray(d.field_color) + rng.uniform(-12, 12, 3), 0, 255)))
    if pushes[1]:
        d = replace(d, battery_radius=round(float(rng.uniform(0.06, 0.1)), 3))
    if pushes[2]:
        far = float(rng.uniform(HARD_NEAR_BOARD, 26))
        which = "white_color" if rng.random() < 0.5 else "black_color"
        other = d.black_color if which == "white_color" else d.white_color
        board = np.asarray(d.board_color, np.float64)
        for _ in range(200):
            c = tuple(int(v) for v in np.clip(board + rng.normal(0, 25, 3), 0, 255))
            if far <= delta_e(c, d.board_color) <= far + 8 and delta_e(c, other) >= MIN_ROBOT_DELTA_E:
                d = replace(d, **{which: c})
                break
    return replace(d, name=f"{design.name} (hard)")


def tall_design(design: Design, rng: np.random.Generator) -> tuple[Design, float]:
    """``design`` with the tallest, widest robots the issue names (0.55-0.6 of a square tall,
    0.7-0.8 across) and a camera tilted 22-25 degrees (returned): points behind a robot that the
    view hides, which the sampler's designs and cameras (almost) never show, and which the nets
    must learn to call unseen (``pt_view``)."""
    d = replace(design, robot_height=round(float(rng.uniform(0.55, 0.6)), 3),
                robot_radius=round(float(rng.uniform(0.35, 0.4)), 3), name=f"{design.name} (tall)")
    return d, float(rng.uniform(22, 25))


def setup_samples(seed: int, size=(960, 720), hard: float = 0.0, tall: float = 0.0,
                  point_patch: int = POINT_PATCH, blank: float = 0.0, anew: float = 0.0) -> dict[str, np.ndarray]:
    """All frames of one set-up (seed), rendered at 960x720: the patches are resampled to a fixed
    scale anyway (a board fills 60-110 px per square at the camera's 1280x960, 45-80 here, both
    above the patches' 32 px per square), and it renders twice as fast.

    Frame 0 shows the set-up's first board (the start position in half the set-ups, a random
    board in the others), frames 1.. other boards of the same camera: in two of five the first
    board a turn or two on (a game), else random boards. The trainer pairs any two frames of a
    set-up (one as the reference, one as the frame now), so every frame without a hand serves as
    a reference too. In a share ``anew`` of the set-ups the boards that are not a game are set up
    from scratch (``render(placement=...)``: every piece set down anew, so a piece on a field where
    another frame had one of its kind does not stand exactly where that one stood, as on a re-set
    board); the others place a piece per field and kind, as the shipped nets' data did."""
    rng = _rng("fielddata", seed)
    first = START if rng.random() < 0.5 else random_layout(rng)
    first_printed = [True] * 49 if first is START else list(rng.random(49) < 0.5)
    # one set-up in ten is our first renderer's wooden set (with its corner markers), the rest random designs
    design = "random" if rng.random() >= 0.1 else None
    markers = design is None
    hrng = _rng("fielddata-hard", seed)   # its own stream: without --hard every set-up is as before
    if design is not None and hrng.random() < hard:
        design = hard_design(sample_design(seed), hrng)
    trng = _rng("fielddata-tall", seed)   # its own stream too: without --tall every set-up is as before
    view = {}
    if design is not None and trng.random() < tall:
        design, tilt = tall_design(sample_design(seed) if design == "random" else design, trng)
        view = {"tilt": tilt}
    # one set-up in eight has a strong lamp reflection that stays where it is in every frame,
    # the first one too (the reader's reference then holds it as well): a varnished or laminated
    # board under a desk lamp; the renderer's own reflections of a set-up are weaker
    static = {"glare": float(rng.uniform(0.35, 0.7))} if rng.random() < 0.125 else {}
    static.update(view)
    blank_heavy = bool(_rng("fielddata-blank", seed).random() < blank)   # its own stream as well
    turned, random_printed = (BLANK_TURNED, BLANK_RANDOM) if blank_heavy else (TURNED, RANDOM_PRINTED)
    set_anew = bool(_rng("fielddata-anew", seed).random() < anew)       # and so does this one
    ref = render(first, seed, design=design, markers=markers, size=size, printed=first_printed, **static)
    H = _jitter(ref.homography, rng, 0.7)
    cutter = PatchCutter(H, size, point_patch)
    out: dict[str, list] = {k: [] for k in ("sq", "pt", "sq_lab", "pt_lab", "printed", "sq_colour", "hand", "pt_view")}

    def add(fr, lay: BoardLayout, cov_s: np.ndarray, cov_p: np.ndarray, hand: bool) -> None:
        sq, pt = cutter.cut(fr.image)
        s_lab = np.array([0 if s.value == "empty" else 1 for s in lay.squares])
        p_lab = np.array([0 if p.value == "empty" else 1 for p in lay.points])
        s_lab[cov_s] = 2
        p_lab[cov_p] = 2
        out["sq"].append(sq)
        out["pt"].append(pt)
        out["sq_lab"].append(s_lab)
        out["sq_colour"].append(np.array([{"empty": 0, "white": 1, "black": 2}[s.value] for s in lay.squares]))
        out["pt_lab"].append(p_lab)
        out["printed"].append(np.array(fr.battery_printed, bool))
        out["pt_view"].append(np.array(fr.point_view, np.float16))   # how much of a battery there the camera sees
        out["hand"].append(hand)

    add(ref, first, np.zeros(36, bool), np.zeros(49, bool), False)
    for f in range(FRAMES_PER_SETUP):
        pick = rng.random()
        placement = None
        if pick < 0.4:         # a game: the board one or two turns after the first
            lay = changed_layout(rng, first)
            printed = [p if rng.random() < 1 - turned else not p for p in first_printed]
        else:
            lay = START if pick < 0.47 else random_layout(rng)
            printed = list(rng.random(49) < random_printed)
            placement = f + 1 if set_anew else None
        cond = dict(static)
        if rng.random() < 0.3:   # the light changed since the first frame
            cond["light"] = float(ref.conditions.light * rng.uniform(0.7, 1.3))
            cond["color_temp"] = float(np.clip(ref.conditions.color_temp + rng.uniform(-0.3, 0.3), -1, 1))
        if rng.random() < 0.1:
            cond["glare"] = float(rng.uniform(0.2, 0.6))
        if rng.random() < 0.1:
            cond["blur"] = float(rng.uniform(0.5, 2.0))
        hand = bool(rng.random() < HAND_SHARE)
        fr = render(lay, seed, design=design, markers=markers, size=size, printed=printed, frame=f + 1, hand=hand,
                    placement=placement, **cond)
        cov_s = np.zeros(36, bool)
        cov_p = np.zeros(49, bool)
        if hand:
            bare = render(lay, seed, design=design, markers=markers, size=size, printed=printed, frame=f + 1,
                          placement=placement, **cond)
            cov_s, cov_p = _covered(cutter, fr.image, bare.image)
        add(fr, lay, cov_s, cov_p, hand)
    res = {k: np.stack(v) for k, v in out.items()}
    res["sq_lean"] = cutter.square_lean.astype(np.float32)
    res["pt_lean"] = cutter.point_lean.astype(np.float32)
    res["setup"] = np.array(seed)
    return res


def generate(seed: int, setups: int, workers: int = 2, first: int = 0, hard: float = 0.0,
             tall: float = 0.0, point_patch: int = POINT_PATCH, blank: float = 0.0,
             anew: float = 0.0) -> dict[str, np.ndarray]:
    seeds = [seed * 1_000_000 + first + k for k in range(setups)]
    with Pool(workers) as pool:
        parts = pool.map(partial(setup_samples, hard=hard, tall=tall, point_patch=point_patch, blank=blank,
                                 anew=anew), seeds, chunksize=4)
    return {k: np.stack([p[k] for p in parts]) for k in parts[0]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1, help="seed of the data set (set-up seeds seed*1e6 + first + k)")
    ap.add_argument("--setups", type=int, default=800)
    ap.add_argument("--first", type=int, default=0, help="first set-up (a data set can be made in parts)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--hard", type=float, default=0.0,
                    help="share of the random-design set-ups pushed into a hard corner (hard_design): 0..1")
    ap.add_argument("--tall", type=float, default=0.0,
                    help="share of the random-design set-ups with the tallest robots and a tilted camera (tall_design): 0..1")
    ap.add_argument("--blank", type=float, default=0.0,
                    help="share of the set-ups whose later frames show many more blank sides: 0..1")
    ap.add_argument("--anew", type=float, default=0.0,
                    help="share of the set-ups whose boards that are no game are set up from scratch (every piece "
                         "set down anew): 0..1")
    ap.add_argument("--point-patch", type=int, choices=(POINT_PATCH, FINE_POINT_PATCH), default=POINT_PATCH,
                    help=f"pixels a side of the point patches: {FINE_POINT_PATCH} for a points net trained with --fine")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    for name in ("hard", "tall", "blank", "anew"):
        if not 0.0 <= getattr(a, name) <= 1.0:
            ap.error(f"--{name} {getattr(a, name)}: a share from 0 to 1")
    out = Path(a.out)       # checked before the minutes of rendering, not after
    if out.is_dir() or not out.parent.is_dir():
        ap.error(f"--out {a.out}: a file in an existing folder (the data is written there as .npz)")
    t = time.time()
    data = generate(a.seed, a.setups, a.workers, a.first, a.hard, a.tall, a.point_patch, a.blank, a.anew)
    np.savez(a.out, **data)
    print(f"{a.setups} set-ups, {data['sq'].shape[0] * data['sq'].shape[1]} frames -> {a.out} in {time.time() - t:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
