"""Vision benchmark: accuracy, honesty of the confidences, robustness, latency.

    python benchmarks/vision.py            # the full run (>= 500 images, a few minutes on 2 cores)
    python benchmarks/vision.py --quick    # a smoke run (about a minute)

Every setup (camera pose, board, lamp, marker size) comes from a seed that was
never used while developing (default bases 7400000 for the accuracy part and
7600000 for the sweep, the runs of record of 24 November 2026, evening, with
7500000, 7700000 and 7800000 as the other blocks of record and 7900000 and
8000000 as a later check; 820000+, 1720000+ and 5100000+ to 8000000+ have
been seen, and 5900000+, 6300000+, 6500000+, 6600000+, 6900000+ and 7100000+
were used while developing; development also uses 3000000-3700000 and 9001+;
a next run of record needs fresh bases, e.g. 8100000+). Each setup is calibrated
from its start-position frame, then frames of random layouts (14 batteries,
up to 6 robots per colour, pieces off-centre by up to 1/4 square and turned)
are read. A board is right when all 85 fields are right (argmax); a *confident
misread* is a wrong field that the reading did not flag as low-confidence.
"""

from __future__ import annotations

import argparse
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy loads: see vision/__init__.py
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.calibration import calibrate  # noqa: E402
from vision.layout import BoardLayout  # noqa: E402
from vision.markers import detect_markers, homography_from_markers  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.render import render  # noqa: E402

START = BoardLayout.from_sets(white=range(6), black=range(30, 36), batteries=list(range(7, 14)) + list(range(35, 42)))
S_STATES = ("empty", "white", "black")
P_STATES = ("empty", "battery")

# conditions of the robustness sweep: everything mild except the one varied
MILD = dict(tilt=10.0, light=1.0, color_temp=0.0, uneven=0.1, shadow=0.0, glare=0.0, noise=2.0, blur=0.5, jpeg=90, offset=0.15)
SWEEP = [
    ("tilt 0", dict(tilt=0.0)),
    ("tilt 15", dict(tilt=15.0)),
    ("tilt 25", dict(tilt=25.0)),
    ("light -40% at once", dict(light=0.6), True),
    ("light -20% at once", dict(light=0.8), True),
    ("light +20% at once", dict(light=1.2), True),
    ("light +40% at once", dict(light=1.4), True),
    ("light -40% slowly (adapting)", dict(light=0.6), True, True),
    ("light +40% slowly (adapting)", dict(light=1.4), True, True),
    ("colour temperature cold at once", dict(color_temp=-0.8), True),
    ("colour temperature warm at once", dict(color_temp=0.8), True),
    ("colour temperature warm slowly", dict(color_temp=0.8), True, True),
    ("uneven light 0.5", dict(uneven=0.5)),
    ("hard shadow 0.5", dict(shadow=0.5), True),
    ("glare 0.6", dict(glare=0.6), True),
    ("offset 0 (centred)", dict(offset=0.0)),
    ("offset 1/4 square", dict(offset=0.25)),
    ("blur sigma 1.5", dict(blur=1.5), True),
    ("blur sigma 2.5", dict(blur=2.5), True),
    ("noise sigma 8", dict(noise=8.0), True),
    ("noise sigma 14", dict(noise=14.0), True),
    ("JPEG quality 40", dict(jpeg=40), True),
    ("motion blur 15 px", dict(motion=15.0), True),
    ("hand over the board", dict(hand=True), True),
]


def random_layout(rng: np.random.Generator) -> BoardLayout:
    sq = rng.permutation(36)
    nw, nb = int(rng.integers(0, 7)), int(rng.integers(0, 7))
    return BoardLayout.from_sets(white=sq[:nw], black=sq[nw:nw + nb], batteries=rng.permutation(49)[:14])


def score(reading, truth: BoardLayout) -> dict:
    ws = [i for i in range(36) if S_STATES[int(reading.square_probs[i].argmax())] != truth.squares[i].value]
    wp = [i for i in range(49) if P_STATES[int(reading.point_probs[i].argmax())] != truth.points[i].value]
    conf_wrong = [i for i in ws if i not in reading.low_confidence_squares] + [
        i for i in wp if i not in reading.low_confidence_points]
    # (confidence, correct) pairs for the reliability table
    pairs = [(float(reading.square_probs[i].max()), i not in ws) for i in range(36)]
    pairs += [(float(reading.point_probs[i].max()), i not in wp) for i in range(49)]
    return {
        "right": not ws and not wp,
        "wrong_fields": len(ws) + len(wp),
        "confident_misread": bool(conf_wrong),
        "readable": reading.readable,
        "readable_right": reading.readable and not ws and not wp,
        "pairs": pairs,
    }


def run_setup(job) -> dict:
    """Calibrate one setup and read ``n`` layouts; returns per-board scores."""
    seed, n, base_cond, read_cond = job[:4]
    ramp = len(job) > 4 and job[4]
    out = {"seed": seed, "boards": [], "calibration_error": None}
    try:
        cal = calibrate(render(START, seed, **base_cond).image, START)
    except Exception as exc:  # the benchmark reports, never stops
        out["calibration_error"] = f"{type(exc).__name__}: {exc}"
        return out
    reader = BoardReader(cal, adapt=ramp)
    rng = np.random.default_rng(seed)
    for k in range(n):
        truth = random_layout(rng)
        if ramp:
            # a slow change during the game: the reader adapts on the way (frames of a still board)
            for step in (0.25, 0.5, 0.75):
                mid = {key: base_cond.get(key, 1.0 if key == "light" else 0.0) * (1 - step) + v * step
                       for key, v in read_cond.items()}
                reader.read(render(truth, seed, frame=100 * (k + 1) + int(step * 4), **{**base_cond, **mid}).image)
        frame = render(truth, seed, frame=k + 1, **{**base_cond, **read_cond})
        out["boards"].append(score(reader.read(frame.image), truth))
    return out


def summarise(results: list[dict]) -> dict:
    boards = [b for r in results for b in r["boards"]]
    n = len(boards)
    return {
        "setups": len(results),
        "calibration_failures": sum(1 for r in results if r["calibration_error"]),
        "images": n,
        "accuracy": sum(b["right"] for b in boards) / n if n else float("nan"),
        "readable": sum(b["readable"] for b in boards) / n if n else float("nan"),
        "readable_right": sum(b["readable_right"] for b in boards),
        "readable_count": sum(b["readable"] for b in boards),
        "confident_misreads": sum(b["confident_misread"] for b in boards),
        "wrong_fields": sum(b["wrong_fields"] for b in boards),
        "pairs": [p for b in boards for p in b["pairs"]],
        "errors": [r["calibration_error"] for r in results if r["calibration_error"]],
    }


def reliability(pairs) -> list[str]:
    edges = [0.0, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999, 1.0001]
    conf = np.array([p[0] for p in pairs])
    ok = np.array([p[1] for p in pairs])
    lines = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf >= lo) & (conf < hi)
        if m.sum():
            lines.append(f"    confidence {lo:.3f}-{min(hi, 1):.3f}: {m.sum():6d} fields, mean confidence "
                         f"{conf[m].mean():.4f}, actually right {ok[m].mean():.4f}")
    return lines


def latency(seed: int, reps: int) -> dict:
    for seed in range(seed, seed + 20):  # the first set-up that calibrates (a few are refused)
        try:
            cal = calibrate(render(START, seed).image, START)
            break
        except Exception:
            continue
    else:
        raise SystemExit(f"latency: none of 20 set-ups from seed {seed - 19} calibrates")
    reader = BoardReader(cal, adapt=True)
    frame = render(random_layout(np.random.default_rng(seed)), seed, frame=1).image
    reader.read(frame)  # warm up
    times, cpu = [], []
    for _ in range(reps):
        t, c = time.perf_counter(), time.process_time()
        reader.read(frame)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    loc = []
    for _ in range(max(5, reps // 4)):
        t = time.perf_counter()
        homography_from_markers(detect_markers(frame), cal.marker_side)
        loc.append(time.perf_counter() - t)
    cal_t = []
    start_img = render(START, seed).image
    for _ in range(3):
        t = time.perf_counter()
        calibrate(start_img, START)
        cal_t.append(time.perf_counter() - t)
    ms = lambda v: 1000 * v
    return {
        "read_median": ms(statistics.median(times)),
        "read_p90": ms(float(np.percentile(times, 90))),
        "read_cpu_median": ms(statistics.median(cpu)),
        "localise_median": ms(statistics.median(loc)),
        "calibrate_median": ms(statistics.median(cal_t)),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a small run (smoke test)")
    ap.add_argument("--seed-base", type=int, default=7400000, help="first setup seed of the accuracy part (default: never used in development)")
    ap.add_argument("--sweep-seed-base", type=int, default=7600000, help="first setup seed of the robustness sweep (default: never used in development)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", choices=("accuracy", "sweep", "latency"), help="run one part only")
    args = ap.parse_args(argv)
    setups, per = (20, 3) if args.quick else (125, 5)
    sweep_setups, sweep_per = (3, 2) if args.quick else (12, 3)
    t0 = time.time()
    print(f"vision benchmark ({'quick' if args.quick else 'full'}), seeds from {args.seed_base} (sweep {args.sweep_seed_base}), "
          f"{args.jobs} workers")

    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        if args.only in (None, "accuracy"):
            accuracy_part(pool, args.seed_base, setups, per)
        if args.only in (None, "sweep"):
            sweep_part(pool, args.sweep_seed_base, sweep_setups, sweep_per)
    if args.only in (None, "latency"):
        latency_part(args.seed_base, 30 if args.quick else 100)
    print(f"\n(total {time.time() - t0:.0f} s)")
    return 0


def accuracy_part(pool, seed_base: int, setups: int, per: int) -> None:
    jobs = [(seed_base + i, per, {}, {}) for i in range(setups)]
    main_res = summarise(list(pool.map(run_setup, jobs)))
    print("\n== accuracy: random layouts, random conditions (tilt 0-25, any rotation, light, shadow, glare, noise, blur, JPEG)")
    print(f"  setups {main_res['setups']} (calibration refused: {main_res['calibration_failures']}), "
          f"images read {main_res['images']}")
    print(f"  board-level accuracy (all 85 fields right): {main_res['accuracy']:.2%}")
    print(f"  confident misreads (a wrong field not flagged low-confidence): {main_res['confident_misreads']}")
    print(f"  readable (no field below the confidence threshold, nothing covering): {main_res['readable']:.2%}; "
          f"of those right: {main_res['readable_right']}/{main_res['readable_count']}")
    print(f"  wrong fields: {main_res['wrong_fields']} of {main_res['images'] * 85}")
    kinds: dict[str, int] = {}
    for e in main_res["errors"]:
        key = "glare over the start pieces" if "glare" in e else e[:90]
        kinds[key] = kinds.get(key, 0) + 1
    for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  calibration refused {v}x: {k}")
    print("  reliability (are the probabilities honest?):")
    for line in reliability(main_res["pairs"]):
        print(line)


def sweep_part(pool, seed_base: int, sweep_setups: int, sweep_per: int) -> None:
    print("\n== robustness sweep (others mild; * = changed only after calibration)")
    print(f"  {'condition':34s} {'images':>6s} {'accuracy':>9s} {'readable':>9s} {'conf.misreads':>13s}")
    base = seed_base
    for entry in SWEEP:
        name, cond = entry[0], entry[1]
        after = len(entry) > 2
        calib_cond = MILD if after else {**MILD, **cond}
        read_cond = cond if after else {}
        ramp = len(entry) > 3
        jobs = [(base + i, sweep_per, calib_cond, read_cond, ramp) for i in range(sweep_setups)]
        r = summarise(list(pool.map(run_setup, jobs)))
        label = name + (" *" if after else "")
        print(f"  {label:34s} {r['images']:6d} {r['accuracy']:9.1%} {r['readable']:9.1%} {r['confident_misreads']:13d}"
              + (f"  (calibration failed {r['calibration_failures']}x)" if r["calibration_failures"] else ""))


LATENCY_PROCESSES = 3  # fresh processes: on a shared (virtual) machine one process may run 30% slower than the next


def latency_part(seed_base: int, reps: int) -> None:
    runs = []
    for _ in range(LATENCY_PROCESSES):
        with ProcessPoolExecutor(max_workers=1) as one:   # a fresh process each time
            runs.append(one.submit(latency, seed_base + 12345, reps).result())
    lat = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    per = ", ".join(f"{r['read_median']:.1f}" for r in runs)
    print("\n== latency (1280x960, this machine)")
    print(f"  read after calibration: median {lat['read_median']:.1f} ms, p90 {lat['read_p90']:.1f} ms "
          f"(CPU time per read: median {lat['read_cpu_median']:.1f} ms; medians of {LATENCY_PROCESSES} fresh "
          f"processes: {per} ms)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"  machine load average while measuring: {load:.1f} on {os.cpu_count()} cores")
    print(f"  marker localisation (detect 4 markers + homography): median {lat['localise_median']:.1f} ms")
    print(f"  calibration from the start frame: median {lat['calibrate_median']:.0f} ms")


if __name__ == "__main__":
    sys.exit(main())
