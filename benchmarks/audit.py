"""``netzwerk audit`` figures: seconds per photo over a rendered game.

    python benchmarks/audit.py [--seed 10] [--size 1640x1232] [--plies 30] [--option NAME ...]

A game of engine self-play (with the slips a player makes, each followed by
the corrected board, and a hand over the board at two presses) is rendered by
the synthetic camera into a temporary folder as JPEG photos; then the audit
runs over the folder as ``netzwerk audit`` does (decode, read, judge). Printed:
the calibration from the first photo, seconds per photo (mean, median, p95,
max) split into decoding and reading+judging, the whole folder, and how the
verdicts agree with the truth.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "audit"))

from audit_scenario import (  # noqa: E402
    BATTERY_NUDGED,
    ENEMY_KNOCKED,
    ROBOT_DIAGONAL,
    ROBOT_TOO_FAR,
    build_game,
    write_game,
)

from companion.referee.audit import Audit, calibrate_from, list_images, load_image, run_audit  # noqa: E402
from companion.referee.referee import ACCEPTED, REJECTED  # noqa: E402
from companion.rules.options import Rules  # noqa: E402


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--size", default="1640x1232", help="photo size WxH (default: the camera default 1640x1232)")
    ap.add_argument("--plies", type=int, default=30, help="at most this many turns")
    ap.add_argument("--option", action="append", default=[])
    args = ap.parse_args()
    rules = Rules.from_names(args.option)
    w, h = (int(v) for v in args.size.lower().split("x"))
    slips = {2: ROBOT_TOO_FAR, 4: ROBOT_DIAGONAL, 6: BATTERY_NUDGED, 8: ENEMY_KNOCKED,
             10: ROBOT_TOO_FAR, 12: ROBOT_DIAGONAL, 14: BATTERY_NUDGED, 16: ENEMY_KNOCKED}
    shots = build_game(args.seed, rules, slip_plies=slips, hand_plies=(3, 9), max_plies=args.plies, greedy=3)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        write_game(folder, shots, seed=args.seed, size=(w, h))
        render_s = time.perf_counter() - t0
        photos = list_images(folder)
        print(f"rendered game: {len(photos)} photos ({len(shots)} presses) at {w}x{h}, rules {rules}, "
              f"seed {args.seed} ({render_s:.1f} s to render)")

        t0 = time.perf_counter()
        first = load_image(photos[0])
        cal = calibrate_from(first, photos[0].name)
        cal_s = time.perf_counter() - t0
        audit = Audit(cal, rules)
        decode, judge = [], []
        for p in photos[1:]:
            t1 = time.perf_counter()
            img = load_image(p)
            t2 = time.perf_counter()
            audit.judge(img)
            t3 = time.perf_counter()
            decode.append(t2 - t1)
            judge.append(t3 - t2)
        per = [a + b for a, b in zip(decode, judge)]
        print(f"calibration from the first photo (decode + markers + learning the set): {cal_s:.3f} s")
        print(f"per photo (decode + read + judge): mean {statistics.mean(per):.3f} s, median {statistics.median(per):.3f} s, "
              f"p95 {pct(per, 0.95):.3f} s, max {max(per):.3f} s")
        print(f"  decode: median {statistics.median(decode) * 1000:.1f} ms; read + judge: median "
              f"{statistics.median(judge) * 1000:.1f} ms, p95 {pct(judge, 0.95) * 1000:.1f} ms")

        t0 = time.perf_counter()
        res = run_audit(folder, rules=rules)
        whole = time.perf_counter() - t0
        print(f"whole folder as `netzwerk audit` runs it: {whole:.2f} s = {whole / len(photos):.3f} s per photo "
              f"(incl. calibration)")
        exact = sum(1 for s, v in zip(shots, res.verdicts[1:]) if v.kind == s.expect
                    and (s.expect != ACCEPTED or v.verdict.position == s.after))
        wrong_accept = sum(1 for s, v in zip(shots, res.verdicts[1:]) if v.kind == ACCEPTED
                           and (s.expect != ACCEPTED or v.verdict.position != s.after))
        legal_rejected = sum(1 for s, v in zip(shots, res.verdicts[1:]) if v.kind == REJECTED and s.expect == ACCEPTED)
        hands_rejected = sum(1 for s, v in zip(shots, res.verdicts[1:]) if s.hand and v.kind == REJECTED)
        off: dict[str, int] = {}
        for shot, v in zip(shots, res.verdicts[1:]):
            if v.kind != shot.expect:
                key = f"{shot.expect}->{v.kind}"
                off[key] = off.get(key, 0) + 1
        print(f"verdicts: {exact}/{len(shots)} exactly as the engine expects "
              f"({', '.join(f'{k} {n}' for k, n in sorted(off.items())) or 'all exact'}); wrong accepts {wrong_accept}, "
              f"legal turns called illegal {legal_rejected}, hands called illegal {hands_rejected}; "
              f"{res.summary_line()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
