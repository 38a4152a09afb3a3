"""Battery side benchmark: how often the reader claims a battery's side, and how often it is right.

    python benchmarks/battery_side.py            # 110 set-ups x 3 frames (330 images), a few minutes on 2 cores
    python benchmarks/battery_side.py --quick    # 30 set-ups, one harsh condition each row fewer

Every set-up (camera, board, lamp) comes from a seed never used while developing
(default base 6100000) with the renderer's random conditions. Each set-up is
calibrated from its start frame; that frame and two frames of random layouts
(14 batteries) are read. For every battery the reader read as a battery, its side
is *claimed* when P(printed) >= 0.9 or <= 0.1 (the default confidence); a claim is
right when it matches the renderer's truth. Also: the same on harsh conditions
(where the reader should mostly say "unknown"), and the cost of the side hook per read.
"""

from __future__ import annotations

import argparse
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.battery_side import with_battery_sides  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.errors import VisionError  # noqa: E402
from vision.layout import BoardLayout  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.render import render  # noqa: E402

START = BoardLayout.from_sets(white=range(6), black=range(30, 36), batteries=list(range(7, 14)) + list(range(35, 42)))
CONFIDENCE = 0.9
HARSH = [
    ("blur sigma 2.5 px", dict(blur=2.5)),
    ("motion blur 15 px", dict(motion=15.0)),
    ("light -65% (dark)", dict(light=0.35)),
    ("light +60% (overexposed)", dict(light=1.6)),
    ("glare 0.6", dict(glare=0.6)),
    ("JPEG quality 40", dict(jpeg=40)),
    ("noise sigma 14", dict(noise=14.0)),
]


def random_layout(rng: np.random.Generator) -> BoardLayout:
    sq = rng.permutation(36)
    nw, nb = int(rng.integers(0, 7)), int(rng.integers(0, 7))
    return BoardLayout.from_sets(white=sq[:nw], black=sq[nw:nw + nb], batteries=rng.permutation(49)[:14])


def run_setup(job) -> dict:
    """Calibrate one set-up, read its frames; per battery read as a battery: (truth, P(printed), why)."""
    seed, frames, after = job
    out = {"seed": seed, "refused": None, "items": [], "frames": 0, "hook_ms": [], "read_ms": []}
    try:
        cal = calibrate(render(START, seed).image, START)
    except VisionError as exc:
        out["refused"] = str(exc)[:60]
        return out
    reader = BoardReader(cal, adapt=False)
    rng = np.random.default_rng(seed)
    layouts = [START] + [random_layout(rng) for _ in range(frames - 1)]
    for k, layout in enumerate(layouts):
        frame = render(layout, seed, **(after if k else {}))
        if k == 0 and after:
            continue  # the harsh rows judge the frames after calibration only
        t0 = time.perf_counter()
        reading = reader.read(frame.image)
        out["read_ms"].append(1000 * (time.perf_counter() - t0))
        t0 = time.perf_counter()
        with_battery_sides(reading, frame.image, cal)
        out["hook_ms"].append(1000 * (time.perf_counter() - t0))
        out["frames"] += 1
        for i in layout.batteries:
            if reading.point_probs[i][1] <= 0.5:
                continue
            p = float(reading.printed_probs[i])
            out["items"].append((bool(frame.battery_printed[i]), p, reading.side_unknown_why[i]))
    return out


def summarise(results: list[dict]) -> dict:
    items = [it for r in results for it in r["items"]]
    truth = np.array([t for t, _, _ in items], bool)
    p = np.array([q for _, q, _ in items], float)
    known = ~np.isnan(p)
    claimed = known & ((p >= CONFIDENCE) | (p <= 1 - CONFIDENCE))
    right = claimed & ((p >= 0.5) == truth)
    reasons = Counter((why or "").split(" (")[0] for (_, q, why) in items if np.isnan(q))
    return dict(
        setups=len(results),
        refused=sum(r["refused"] is not None for r in results),
        frames=sum(r["frames"] for r in results),
        batteries=len(items),
        printed_share=float(truth.mean()) if items else float("nan"),
        known=int(known.sum()),
        claimed=int(claimed.sum()),
        right=int(right.sum()),
        wrong=int(claimed.sum() - right.sum()),
        reasons=reasons,
        p=p,
        truth=truth,
        hook_ms=[v for r in results for v in r["hook_ms"]],
        read_ms=[v for r in results for v in r["read_ms"]],
    )


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.2f}%" if b else "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--setups", type=int, default=110, help="set-ups for the main figure (3 frames each)")
    ap.add_argument("--harsh-setups", type=int, default=8, help="set-ups per harsh condition (2 frames each)")
    ap.add_argument("--seed", type=int, default=6_100_000, help="first seed (never used while developing)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (at most 2 on the shared machine)")
    ap.add_argument("--quick", action="store_true", help="30 set-ups, 4 per harsh condition")
    args = ap.parse_args()
    if args.quick:
        args.setups, args.harsh_setups = 30, 4
    workers = max(1, min(2, args.workers))
    t0 = time.time()
    with ProcessPoolExecutor(workers) as pool:
        main_jobs = [(args.seed + i, 3, {}) for i in range(args.setups)]
        res = summarise(list(pool.map(run_setup, main_jobs)))
        harsh = []
        for h, (name, cond) in enumerate(HARSH):
            base = args.seed + 100_000 * (h + 1)
            jobs = [(base + i, 3, cond) for i in range(args.harsh_setups)]
            harsh.append((name, summarise(list(pool.map(run_setup, jobs)))))

    print(f"Battery sides (confidence {CONFIDENCE}), seeds {args.seed}+, random conditions; {time.time() - t0:.0f} s")
    print()
    print("| figure | value |")
    print("|---|---|")
    print(f"| set-ups | {res['setups']} (calibration refused for {res['refused']}) |")
    print(f"| images read | {res['frames']} (start frame + 2 random layouts per set-up) |")
    print(f"| batteries read as batteries | {res['batteries']} ({res['printed_share']:.0%} printed side up) |")
    print(f"| side measurable (not 'unknown') | {pct(res['known'], res['batteries'])} |")
    print(f"| **side claimed** (P >= {CONFIDENCE} or <= {1 - CONFIDENCE:.1f}) | **{pct(res['claimed'], res['batteries'])}** |")
    print(f"| **claims right** | **{pct(res['right'], res['claimed'])}** ({res['wrong']} wrong of {res['claimed']}) |")
    if res["reasons"]:
        print(f"| unknown because | {', '.join(f'{k} {v}' for k, v in res['reasons'].most_common())} |")
    if res["hook_ms"]:
        print(f"| side hook per read (median / p90) | {statistics.median(res['hook_ms']):.2f} / "
              f"{np.percentile(res['hook_ms'], 90):.2f} ms (whole read median {statistics.median(res['read_ms']):.1f} ms) |")
    print()
    print("Reliability of P(printed) where measurable:")
    print()
    print("| P(printed) | batteries | mean P | printed share |")
    print("|---|---|---|---|")
    p, truth = res["p"], res["truth"]
    for lo, hi in ((0, 0.02), (0.02, 0.1), (0.1, 0.5), (0.5, 0.9), (0.9, 0.98), (0.98, 1.01)):
        sel = (p >= lo) & (p < hi)
        if sel.any():
            print(f"| {lo:.2f}-{min(hi, 1):.2f} | {int(sel.sum())} | {p[sel].mean():.3f} | {truth[sel].mean():.3f} |")
    print()
    print(f"Harsh conditions after calibration ({args.harsh_setups} set-ups x 2 frames each, seeds {args.seed + 100_000}+):")
    print()
    print("| condition | batteries | claimed | claims right | unknown because |")
    print("|---|---|---|---|---|")
    for name, r in harsh:
        why = ", ".join(f"{k} {v}" for k, v in r["reasons"].most_common(2))
        print(f"| {name} | {r['batteries']} | {pct(r['claimed'], r['batteries'])} | "
              f"{pct(r['right'], r['claimed'])} ({r['wrong']} wrong) | {why} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
