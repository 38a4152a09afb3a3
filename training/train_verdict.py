"""Train the verdict (vision/anyset/verdict.py) on data from training/verdictdata.py; write it as arrays.

    python -m training.train_verdict --data v0.npz v400.npz v800.npz --out vision/anyset/models/verdict.npz

Gradient-boosted trees (LightGBM, the ``train`` extra; never needed at run
time: the trees are written as plain arrays that numpy walks). Three models:
a robot on a square (against empty), White's robot given a robot, a battery
on a point (against empty). A field the camera cannot see (a point a tall
robot hides, a square mostly behind one, a field under a hand) is trained
towards "cannot tell" (probability one half), never towards the layout.

A tenth of the designs (chosen by a hash of the design seed) is held out and
the frames of those set-ups are read with the verdict at several limits: how
many would be read right, and how many claimed with a wrong field. The same
data and seed give the same trees (LightGBM's deterministic mode, a fixed
number of threads).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fileio.paths import FileRefused, read_bytes, writable_output  # noqa: E402
from vision.anyset.reader import covered_on_top  # noqa: E402
from vision.anyset.verdict import (MISSING, POINT_DERIVED, POINT_FEATURES, SQUARE_DERIVED, SQUARE_FEATURES,  # noqa: E402
                                   Forest, derived, save)

PARAMS = dict(objective="cross_entropy", learning_rate=0.05, num_leaves=31, min_data_in_leaf=40,
              feature_fraction=0.9, bagging_fraction=0.8, bagging_freq=1, lambda_l2=1.0, verbose=-1,
              deterministic=True, force_row_wise=True)
ROUNDS = 400
# The verdict may weigh the evidence as it learns, but never against the sense of a look: the more a
# look's log-odds say "empty", the less likely a piece (and the more a colour says White, the likelier
# White's robot). LightGBM keeps each model monotone in these features (-1: decreasing, +1: increasing),
# which also keeps it from learning a quirk of the renderer that turns a look's word around. A point that
# stands further apart from the frame's other points (vision.anyset.apart) never makes a battery less likely.
MONOTONE = {
    "robot": {"s_net": -1, "s_toward": -1, "s_z0": -1, "s_own": -1, "s_head": -1, "s_prov": -1, "s_like_empty": 1},
    "white": {"s_llr": 1, "s_known_colour": 1, "s_like_white": 1},
    "battery": {"p_net": -1, "p_toward": -1, "p_z0": -1, "p_own": -1, "p_head": -1, "p_fine": -1, "p_prov": -1,
                "p_like_empty": 1, "p_apart": 1, "p_apart_hi": 1, "p_apart_free": 1, "p_apart_tint": 1},
}
HELD_OUT = 0.1            # share of the designs held out for validation
LIMITS = (0.98, 0.99, 0.995, 0.998, 0.999)


def _part(path: str) -> dict[str, np.ndarray]:
    """One data part (training.verdictdata's .npz), or a clear exit naming what is wrong with it."""
    try:
        with np.load(io.BytesIO(read_bytes(path, "--data")), allow_pickle=False) as d:
            part = dict(d)
    except FileRefused as exc:
        raise SystemExit(str(exc)) from None
    except (ValueError, OSError, EOFError) as exc:
        raise SystemExit(f"--data {path}: not a data part of training.verdictdata ({exc})") from None
    missing = [k for k in ("square_features", "point_features", "S", "P", "design") if k not in part]
    if missing:
        raise SystemExit(f"--data {path}: not a data part of training.verdictdata (no {', '.join(missing)})")
    return part


def load(paths: list[str]) -> dict[str, np.ndarray]:
    parts = [_part(p) for p in paths]
    for p, d in zip(paths, parts):
        for key, names in (("square_features", SQUARE_FEATURES), ("point_features", POINT_FEATURES)):
            if tuple(str(v) for v in d[key]) != names:
                raise SystemExit(f"{p}: made for other evidence ({key}); make it again with training.verdictdata")
    keys = [k for k in parts[0] if k not in ("square_features", "point_features")]
    return {k: np.concatenate([d[k] for d in parts]) for k in keys}


def held_out(designs: np.ndarray, share: float = HELD_OUT) -> np.ndarray:
    """(n,) bool: the frames whose design is held out (a hash of the design seed, not its place)."""
    def out(d: int) -> bool:
        return int.from_bytes(hashlib.sha256(f"verdict-val-{int(d)}".encode()).digest()[:4], "little") < share * 2 ** 32
    pick = {int(d): out(int(d)) for d in np.unique(designs)}
    return np.array([pick[int(d)] for d in designs])


def _clean(x: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(x), x, MISSING).astype(np.float32)


def columns(data: dict[str, np.ndarray], frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The trees' columns (the reader's features and the derived ones, float32 as the reader hands
    them over, MISSING for what could not be computed) of the frames ``frames``: (F, 36, ...), (F, 49, ...)."""
    s, p = derived(data["S"][frames].astype(np.float32), data["P"][frames].astype(np.float32))
    return _clean(s), _clean(p)


def targets(data: dict[str, np.ndarray], frames: np.ndarray):
    """The rows and targets of the three models for the frames ``frames`` (bool)."""
    S, P = columns(data, frames)
    S = S.reshape(-1, S.shape[-1])
    P = P.reshape(-1, P.shape[-1])
    robot = data["robot"][frames].reshape(-1).astype(np.float64)
    white = data["white"][frames].reshape(-1).astype(np.float64)
    battery = data["battery"][frames].reshape(-1).astype(np.float64)
    seen_s = data["seen_s"][frames].reshape(-1)
    seen_p = data["seen_p"][frames].reshape(-1)
    y_robot = np.where(seen_s, robot, 0.5)
    y_battery = np.where(seen_p, battery, 0.5)
    colour = seen_s & (robot > 0)
    return (S, y_robot), (S[colour], white[colour]), (P, y_battery)


def forest(booster) -> Forest:
    """The booster's trees as :class:`Forest` arrays."""
    return forest_from_dump(booster.dump_model())


def forest_from_dump(dump: dict) -> Forest:
    """LightGBM's model dump (``Booster.dump_model()``: nested nodes with ``split_feature``,
    ``threshold``, ``decision_type``, ``left_child`` / ``right_child``, leaves with ``leaf_value``) as
    :class:`Forest` arrays: each tree's inner nodes numbered in depth-first order, leaf ``k`` as
    child ``-k - 1``, the trees padded to the largest."""
    feats, thrs, lefts, rights, leaves, depth = [], [], [], [], [], 1
    for t in dump["tree_info"]:
        f, th, lo, hi, lv = [], [], [], [], []

        def walk(node: dict, d: int) -> int:
            nonlocal depth
            if "leaf_value" in node:
                lv.append(float(node["leaf_value"]))
                depth = max(depth, d)
                return -len(lv)
            if node["decision_type"] != "<=":
                raise SystemExit(f"a split of kind {node['decision_type']!r}: only numerical splits are written")
            i = len(f)
            f.append(int(node["split_feature"]))
            th.append(float(node["threshold"]))
            lo.append(0)
            hi.append(0)
            lo[i] = walk(node["left_child"], d + 1)
            hi[i] = walk(node["right_child"], d + 1)
            return i

        root = t["tree_structure"]
        if "leaf_value" in root:                 # a tree of one leaf: a split every sample passes left
            f, th, lo, hi, lv = [0], [np.inf], [-1], [-1], [float(root["leaf_value"])]
        else:
            walk(root, 0)
        feats.append(f)
        thrs.append(th)
        lefts.append(lo)
        rights.append(hi)
        leaves.append(lv)
    n = max(len(f) for f in feats)
    m = max(len(v) for v in leaves)

    def pad(rows, size, fill, dtype):
        return np.array([r + [fill] * (size - len(r)) for r in rows], dtype)

    return Forest(pad(feats, n, 0, np.int64), pad(thrs, n, 0.0, np.float64), pad(lefts, n, -1, np.int64),
                  pad(rights, n, -1, np.int64), pad(leaves, m, 0.0, np.float64), int(depth))


def fit(x: np.ndarray, y: np.ndarray, rounds: int, seed: int, threads: int, kind: str):
    """Train one model (LightGBM, imported here: the ``train`` extra) and write it as a :class:`Forest`,
    checked against LightGBM's own predictions. Returns (booster, forest)."""
    import lightgbm as lgb

    names = POINT_FEATURES + POINT_DERIVED if kind == "battery" else SQUARE_FEATURES + SQUARE_DERIVED
    params = dict(PARAMS, seed=seed, num_threads=threads,
                  monotone_constraints=[MONOTONE[kind].get(n, 0) for n in names])
    booster = lgb.train(params, lgb.Dataset(x, y, free_raw_data=False), rounds)
    f = forest(booster)
    sample = x[:: max(1, len(x) // 5000)]
    gap = np.abs(f.probability(sample.astype(np.float64)) - booster.predict(sample)).max()
    if gap > 1e-9:
        raise SystemExit(f"the written trees differ from LightGBM's by {gap:.2e}: not written")
    return booster, f


def frame_figures(data: dict[str, np.ndarray], frames: np.ndarray, robot: Forest, white: Forest, battery: Forest
                  ) -> list[str]:
    """Per limit: frames read right and claimed with a wrong field, single and game apart."""
    S, P = (c.astype(np.float64) for c in columns(data, frames))
    n = len(S)
    pr = robot.probability(S.reshape(-1, S.shape[2])).reshape(n, 36)
    pw = white.probability(S.reshape(-1, S.shape[2])).reshape(n, 36)
    pb = battery.probability(P.reshape(-1, P.shape[2])).reshape(n, 49)
    # as the reader (BoardReader._reading): a field the nets see covered keeps its covered share on top
    pc = data["S"][frames][:, :, SQUARE_FEATURES.index("s_pc")].astype(np.float64)
    qc = data["P"][frames][:, :, POINT_FEATURES.index("p_qc")].astype(np.float64)
    sp, pp = covered_on_top(np.stack([1 - pr, pr * pw, pr * (1 - pw)], axis=2), np.stack([1 - pb, pb], axis=2),
                            pc, qc)
    truth_s = np.where(data["robot"][frames], np.where(data["white"][frames], 1, 2), 0)
    truth_p = data["battery"][frames].astype(int)
    seen = data["seen_s"][frames].all(axis=1) & data["seen_p"][frames].all(axis=1)
    right_all = (sp.argmax(2) == truth_s).all(axis=1) & (pp.argmax(2) == truth_p).all(axis=1)
    mode = data["mode"][frames]
    lines = []
    for limit in LIMITS:
        claimed = (sp.max(2) >= limit).all(axis=1) & (pp.max(2) >= limit).all(axis=1)
        parts = []
        for m, name in ((0, "single"), (1, "game")):
            sel = mode == m
            parts.append(f"{name} read right {int((claimed & right_all & sel).sum())} of {int(sel.sum())} "
                         f"({int((seen & sel).sum())} with every field in view), claimed wrong "
                         f"{int((claimed & ~right_all & sel).sum())}")
        lines.append(f"  limit {limit}: " + "; ".join(parts))
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", required=True, help="parts made by training.verdictdata")
    ap.add_argument("--out", required=True, help="the model file (.npz) to write")
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--all", action="store_true", help="train on every design (no validation figures)")
    ap.add_argument("--without", nargs="+", default=[], metavar="FEATURE",
                    help="features the trees may not use (each made missing in every row): what a feature is "
                         "worth, the same data and seed trained with and without it")
    a = ap.parse_args(argv)
    try:
        out = writable_output(a.out, "--out", inputs=a.data, suffixes=(".npz",))
    except FileRefused as exc:
        ap.error(str(exc))
    unknown = [n for n in a.without if n not in SQUARE_FEATURES + POINT_FEATURES]
    if unknown:
        ap.error(f"--without: no feature {', '.join(unknown)} (the reader's features: vision/anyset/verdict.py)")
    t = time.time()
    data = load(a.data)
    for name in a.without:                       # missing in every row: a column no tree can split on
        key, names = ("S", SQUARE_FEATURES) if name in SQUARE_FEATURES else ("P", POINT_FEATURES)
        data[key][..., names.index(name)] = np.nan
    val = held_out(data["design"]) if not a.all else np.zeros(len(data["design"]), bool)
    train = ~val
    print(f"{len(data['design'])} frames of {len(np.unique(data['design']))} designs; "
          f"training on {int(train.sum())}, {int(val.sum())} held out")
    if not train.any():
        raise SystemExit("every design of the data is held out: give more designs, or --all")
    models = []
    for name, (x, y) in zip(("robot", "white", "battery"), targets(data, train)):
        _, f = fit(x, y, a.rounds, a.seed, a.threads, name)
        models.append(f)
        print(f"  {name}: {len(x)} rows, {f.feature.shape[0]} trees, depth {f.depth}")
    if val.any():
        print("held-out designs, read with the verdict:")
        print("\n".join(frame_figures(data, val, *models)))
    save(out, *models, seed=a.seed, rounds=a.rounds, frames=len(data["design"]))
    print(f"-> {out} in {time.time() - t:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
