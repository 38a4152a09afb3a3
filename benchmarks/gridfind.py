"""Marker-less board localisation benchmark: how often and how precisely find_grid finds the 7x7 grid.

    python benchmarks/gridfind.py              # 200 renders + the vision-dev set (a few minutes)
    python benchmarks/gridfind.py --n 40       # a quicker run
    python benchmarks/gridfind.py --workers 2  # in parallel (the timing then counts shared cores)

Renders come from our own renderer without markers (``vision.render.render``):
seeds ``--base`` .. ``--base + n - 1``, each with its own camera (tilt 0..25
degrees, any rotation, board filling about 55-95 % of the frame), light and
a random set look (``design="random"``; every fourth render the classic look),
every third render the start position, the others random game-like layouts.
Truth: the renderer's homography. A render counts as a success when the grid
is found with a mean point error of at most 1.5 px and a largest one of at most
4 px (1280x960), modulo the four rotations of the board.

The foreign development set ``../shared/vision-dev`` (56 JPEGs of 8 sets, with
the 49 points' pixel positions) is measured too when present: per image the
mean and largest point error; images marked ``occluded`` (a hand over the
board) are listed apart (they may also be refused).

Seeds 4100000-4100079, 4200000-4200199, 4300001, 4400000-4400039,
4500000-4500039, 4600000-4600029, 4700000-4700029 and 5300000-5300199 (one
failure there was looked at) were used while developing; the default base
5400000 is the run of record (fresh when it was run); a next check needs
another fresh base, e.g. 5500000.
"""

from __future__ import annotations

import argparse
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy loads: see vision/__init__.py
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.errors import VisionError  # noqa: E402
from vision.gridfind import find_grid, grid_points, rotations  # noqa: E402
from vision.layout import BoardLayout  # noqa: E402

DEV = ROOT.parent / "shared" / "vision-dev"
START = BoardLayout.from_sets(white=range(6), black=range(30, 36), batteries=list(range(7, 14)) + list(range(35, 42)))
MEAN_OK, MAX_OK = 1.5, 4.0


def _layout(seed: int) -> BoardLayout:
    if seed % 3 == 0:
        return START
    rng = np.random.default_rng(seed)
    sq = rng.permutation(36)
    nw, nb = int(rng.integers(0, 7)), int(rng.integers(0, 7))
    return BoardLayout.from_sets(white=sq[:nw], black=sq[nw:nw + nb], batteries=rng.permutation(49)[:14])


def _errors(H: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Per-point pixel errors of the grid H against the 49 true points, best of the four rotations."""
    return min((np.linalg.norm(grid_points(R) - truth, axis=1) for R in rotations(H)), key=lambda e: float(e.mean()))


def _locate(image: np.ndarray, truth: np.ndarray) -> dict:
    import cv2

    cv2.setNumThreads(1)
    t = time.perf_counter()
    try:
        fit = find_grid(image)
    except VisionError as exc:
        return {"found": False, "why": str(exc), "seconds": time.perf_counter() - t}
    seconds = time.perf_counter() - t
    e = _errors(fit.H, truth)
    return {"found": True, "mean": float(e.mean()), "max": float(e.max()), "seconds": seconds, "score": fit.score}


def one_render(seed: int) -> dict:
    from vision.render import render

    design = None if seed % 4 == 0 else "random"
    frame = render(_layout(seed), seed, markers=False, design=design)
    out = _locate(frame.image, grid_points(frame.homography))
    out.update(seed=seed, design="classic" if design is None else f"design {seed}", tilt=frame.conditions.tilt)
    return out


def one_dev(row: dict) -> dict:
    import cv2

    image = cv2.imread(str(DEV / row["image"]))
    truth = np.array([row["points_px"][f"{c}{r + 1}"] for r in range(7) for c in "ABCDEFG"], np.float64)
    out = _locate(image, truth)
    out.update(image=row["image"], occluded=bool(row.get("occluded", False)))
    return out


def _ok(r: dict) -> bool:
    return r["found"] and r["mean"] <= MEAN_OK and r["max"] <= MAX_OK


def _timing(results: list[dict]) -> str:
    s = sorted(r["seconds"] for r in results)
    return f"time per frame: median {statistics.median(s):.2f} s, 90% {s[int(0.9 * (len(s) - 1))]:.2f} s, max {s[-1]:.2f} s"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200, help="renders (default 200)")
    ap.add_argument("--base", type=int, default=5400000, help="first render seed (default 5400000)")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1: honest single-core timing)")
    ap.add_argument("--no-dev", action="store_true", help="skip the vision-dev set")
    a = ap.parse_args(argv)

    run = (lambda f, xs: list(ProcessPoolExecutor(a.workers).map(f, xs))) if a.workers > 1 else (lambda f, xs: [f(x) for x in xs])

    if not a.no_dev:
        truth_file = DEV / "truth.jsonl"
        if truth_file.exists():
            rows = [json.loads(line) for line in truth_file.read_text().splitlines() if line.strip()]
            res = run(one_dev, rows)
            print(f"vision-dev ({DEV}): {len(res)} images")
            for r in res:
                tag = " (occluded)" if r["occluded"] else ""
                if r["found"]:
                    print(f"  {r['image']}{tag}: mean {r['mean']:.2f} px, max {r['max']:.2f} px, {r['seconds']:.2f} s")
                else:
                    print(f"  {r['image']}{tag}: NOT FOUND ({r['why']})")
            clear = [r for r in res if not r["occluded"]]
            good = [r for r in clear if _ok(r)]
            found = [r for r in clear if r["found"]]
            print(f"  not occluded: {len(good)}/{len(clear)} within mean {MEAN_OK} / max {MAX_OK} px", end="")
            if found:
                print(f"; worst mean {max(r['mean'] for r in found):.2f} px, worst max {max(r['max'] for r in found):.2f} px,"
                      f" average mean {statistics.mean(r['mean'] for r in found):.2f} px")
            else:
                print()
            print(f"  {_timing(res)}")
        else:
            print(f"vision-dev: skipped ({DEV} is not there)")

    if a.n <= 0:
        return 0
    seeds = list(range(a.base, a.base + a.n))
    res = run(one_render, seeds)
    good = [r for r in res if _ok(r)]
    found = [r for r in res if r["found"]]
    print(f"renders (seeds {a.base}..{a.base + a.n - 1}, no markers, random layouts and looks, tilt 0..25):")
    print(f"  success {len(good)}/{len(res)} = {100.0 * len(good) / max(1, len(res)):.1f} %"
          f"  (found {len(found)}, refused {len(res) - len(found)})")
    if found:
        means = np.array([r["mean"] for r in found])
        maxes = np.array([r["max"] for r in found])
        print(f"  point error of the grids found: mean of means {means.mean():.2f} px, median {np.median(means):.2f} px,"
              f" worst mean {means.max():.2f} px, worst max {maxes.max():.2f} px")
    print(f"  {_timing(res)}")
    for r in res:
        if not _ok(r):
            what = f"mean {r['mean']:.2f} px, max {r['max']:.2f} px" if r["found"] else f"refused: {r['why']}"
            print(f"  FAILED seed {r['seed']} ({r['design']}, tilt {r['tilt']:.0f}): {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
