"""The verdict: one learned step from everything the reader saw of a field to its probabilities.

The reader looks at every field several ways (:mod:`vision.anyset.reader`):
the nets' first answer, their answer beside the frame's own fields, the set's
own last layer, the fine look, the known looks of earlier boards, the robot
colours, how much the field and its middle changed since the reference, the
camera geometry of the robots beside it, and a few checks that each raise a
doubt (a robot that may hide a point, a middle that changed as a battery's
arrival changes it, ...). Each of those is **evidence**; none alone is the
answer. The verdict weighs them with a model learned from many frames of our
renderer's random designs (``training/verdictdata.py``,
``training/train_verdict.py``): gradient-boosted trees (LightGBM at training
time), shipped as plain arrays (``models/verdict.npz``) and walked here by a
numba kernel (:mod:`vision.anyset.jit`), or by numpy alone, all trees at once,
where numba is missing.

Three models, each a probability:

* squares: that a robot stands there (against empty);
* squares: that the robot is White's, given one stands there;
* points: that a battery stands there (against empty).

The evidence is geometry, the nets' log-odds and differences of looks; no
feature describes a look (a colour, a brightness, a size): what one set looks
like is learned at calibration, as before. The feature names are stored with
the model and checked when it loads: a model made for other evidence is
refused by name.
"""

from __future__ import annotations

import io
import os
import warnings
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from fileio.paths import FileRefused, read_bytes

from ..errors import VisionError
from .jit import compiled

# the features of a square and of a point, in the order of the columns the reader hands over
# (vision/anyset/reader.py, BoardReader._evidence says what each is)
SQUARE_FEATURES = (
    "s_net", "s_cov", "s_toward", "s_known_colour", "s_llr", "s_fit", "s_board", "s_lean", "s_diff", "s_mid",
    "s_floor", "s_unlike_z", "s_z0", "s_own", "s_head", "s_prov", "s_asked", "s_pc", "s_hasty", "s_far",
    "s_ref_empty", "s_ref_robot", "s_ref_colour", "s_adj_robot", "s_adj_changed", "s_corner_battery",
    "s_corner_changed", "sep_colours", "sep_board", "s_d_empty", "s_d_white", "s_d_black",
)
POINT_FEATURES = (
    "p_net", "p_cov", "p_toward", "p_printed", "p_lean", "p_diff", "p_floor", "p_middle", "p_middle_z",
    "p_z0", "p_own", "p_head", "p_fine", "p_prov", "p_asked", "p_qc", "p_hasty", "p_hidden", "p_moved",
    "p_arrived", "p_left", "p_unlike", "p_ref_empty", "p_ref_battery", "p_sq_robot", "p_sq_robot_ref",
    "p_sq_changed", "p_gap_robot", "p_gap_changed", "p_adj_sdiff", "sep_board", "p_d_empty", "p_d_battery",
    "p_apart", "p_apart_hi", "p_apart_free", "p_apart_tint",
)
# features made from the reader's (the trees split on one feature at a time: a difference of two is a
# split they cannot make by themselves): how much nearer a field is to this set's empty look than to its
# pieces', and to White's robots than to Black's (verdict.derived). And what is unusual for this frame:
# a field's distances to the set's empty and battery looks and to each player's robots over the frame's
# typical ones for fields of that kind, and the points net's and the set head's log-odds less their
# typical ones for empty points, typical being the median over the frame's quiet fields (the reference
# told them so, and their look changed less than QUIET since). A camera, a light or a set that makes
# every field look far from its known look, or every net less sure, moves those typical values too; a
# battery on its blank side where the reference had its printed one, far from both known looks, stands
# out against them. Measured on the verdict's held-out designs (stage 14's data, two seeds, at 0.98):
# single frames 550 / 553 -> 568 / 567 of 930 read right, game frames 697 / 696 -> 701 / 701, claimed
# wrong 0 + 2 / 1 + 2 -> 0 + 1 / 1 + 1 (docs/readme-training.md, "The verdict")
SQUARE_DERIVED = ("s_like_empty", "s_like_white", "s_d_white_rel", "s_d_black_rel")
POINT_DERIVED = ("p_like_empty", "p_d_empty_rel", "p_d_battery_rel", "p_net_shift", "p_head_shift")
QUIET = 0.3              # a field whose look changed less than this since the reference (p_diff / s_diff) is quiet
QUIET_MIN = 3            # quiet fields of a kind a frame needs for its typical distance
MISSING = -1000.0        # a feature the reader could not compute (no reference of its own, ...): below every real value
MODEL_FILE = "verdict.npz"
ENV_MODEL = "NETZWERK_VERDICT_MODEL"      # a model file being tried out (training/train_verdict.py writes one)


def _typical(values: np.ndarray, quiet: np.ndarray) -> np.ndarray:
    """(..., 1): the median of ``values`` (..., n) over each frame's quiet fields (``quiet``, (..., n)
    bool; what the reader could not compute left out), NaN where a frame has fewer than QUIET_MIN."""
    v = np.where(quiet & np.isfinite(values) & (values > MISSING / 2), values, np.nan)
    count = np.isfinite(v).sum(axis=-1, keepdims=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)         # a frame without quiet fields: NaN
        typical = np.nanmedian(v, axis=-1, keepdims=True)
    return np.where(count >= QUIET_MIN, typical, np.nan)


def _relative(dist: np.ndarray, quiet: np.ndarray) -> np.ndarray:
    """A distance over its frame's typical one among the quiet fields (:func:`_typical`)."""
    with np.errstate(invalid="ignore"):
        return dist / np.maximum(_typical(dist, quiet), 1e-3)


def _shifted(z: np.ndarray, quiet: np.ndarray) -> np.ndarray:
    """Log-odds less their frame's typical ones among the quiet fields (:func:`_typical`)."""
    return z - _typical(z, quiet)


def derived(squares: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reader's features with :data:`SQUARE_DERIVED` / :data:`POINT_DERIVED` appended (NaN where a
    part is NaN): the columns the trees take, ``(..., len(SQUARE_FEATURES) + len(SQUARE_DERIVED))``."""
    s = np.asarray(squares, np.float64)
    p = np.asarray(points, np.float64)
    col_s = {n: s[..., i] for i, n in enumerate(SQUARE_FEATURES)}
    col_p = {n: p[..., i] for i, n in enumerate(POINT_FEATURES)}
    with np.errstate(invalid="ignore"):
        s_extra = [col_s["s_d_empty"] - np.fmin(col_s["s_d_white"], col_s["s_d_black"]),
                   col_s["s_d_black"] - col_s["s_d_white"]]
        # the quiet fields of each kind: told so by the reference, their look changed less than QUIET since
        still_p, still_s = col_p["p_diff"] < QUIET, col_s["s_diff"] < QUIET
        quiet_empty, quiet_battery = (col_p["p_ref_empty"] > 0.5) & still_p, (col_p["p_ref_battery"] > 0.5) & still_p
        quiet_white, quiet_black = (col_s["s_ref_colour"] > 0.5) & still_s, (col_s["s_ref_colour"] < -0.5) & still_s
        p_extra = [col_p["p_d_empty"] - col_p["p_d_battery"],
                   _relative(col_p["p_d_empty"], quiet_empty),
                   _relative(col_p["p_d_battery"], quiet_battery),
                   _shifted(col_p["p_net"], quiet_empty),
                   _shifted(col_p["p_head"], quiet_empty)]
        s_extra += [_relative(col_s["s_d_white"], quiet_white),
                    _relative(col_s["s_d_black"], quiet_black)]
    return (np.concatenate([s, np.stack(s_extra, axis=-1)], axis=-1),
            np.concatenate([p, np.stack(p_extra, axis=-1)], axis=-1))


@dataclass(frozen=True)
class Forest:
    """Gradient-boosted trees as arrays: tree ``t``'s inner node ``n`` sends a sample whose feature
    ``feature[t, n]`` is at most ``threshold[t, n]`` to ``left[t, n]``, else to ``right[t, n]``; a
    child below 0 is leaf ``-child - 1`` of that tree, whose value is ``leaf[t, leaf]``. The sum of
    the leaves reached is the log-odds."""

    feature: np.ndarray      # (T, N) int
    threshold: np.ndarray    # (T, N) float64
    left: np.ndarray         # (T, N) int
    right: np.ndarray        # (T, N) int
    leaf: np.ndarray         # (T, L) float64
    depth: int               # the deepest leaf's depth: as many steps take every sample to its leaf

    def log_odds(self, x: np.ndarray) -> np.ndarray:
        """(n,) the model's log-odds for the rows of ``x`` (n, features): compiled by numba where it
        is installed (a fraction of a millisecond for a frame's fields), else all trees at once in numpy."""
        x = np.ascontiguousarray(x, np.float64)
        walk = compiled("forest_walk")
        if walk is not None:
            return walk(x, self.feature, self.threshold, self.left, self.right, self.leaf)
        return self._log_odds_numpy(x)

    def _log_odds_numpy(self, x: np.ndarray) -> np.ndarray:
        n, trees = len(x), self.feature.shape[0]
        t = np.arange(trees)[None, :]
        rows = np.arange(n)[:, None]
        node = np.zeros((n, trees), np.int64)
        for _ in range(self.depth):
            inner = node >= 0
            at = np.where(inner, node, 0)
            go_left = x[rows, self.feature[t, at]] <= self.threshold[t, at]
            node = np.where(inner, np.where(go_left, self.left[t, at], self.right[t, at]), node)
        return self.leaf[t, -node - 1].sum(axis=1)

    def probability(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-np.clip(self.log_odds(x), -40.0, 40.0)))


def _forest(arrays, prefix: str) -> Forest:
    get = {k: np.asarray(arrays[f"{prefix}_{k}"]) for k in ("feature", "threshold", "left", "right", "leaf")}
    return Forest(np.ascontiguousarray(get["feature"], np.int64), np.ascontiguousarray(get["threshold"], np.float64),
                  np.ascontiguousarray(get["left"], np.int64), np.ascontiguousarray(get["right"], np.int64),
                  np.ascontiguousarray(get["leaf"], np.float64), int(arrays[f"{prefix}_depth"]))


class Verdict:
    """The three forests (robot, White's given a robot, battery) with the feature names they take."""

    def __init__(self, arrays) -> None:
        for key, names in (("square_features", SQUARE_FEATURES + SQUARE_DERIVED),
                           ("point_features", POINT_FEATURES + POINT_DERIVED)):
            got = tuple(str(v) for v in arrays[key])
            if got != names:
                raise VisionError(f"the verdict model takes other evidence than this reader gives ({key}: "
                                  f"{', '.join(got[:4])} ...): train it again (training/train_verdict.py)")
        self.robot = _forest(arrays, "robot")
        self.white = _forest(arrays, "white")
        self.battery = _forest(arrays, "battery")

    def judge(self, squares: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """((36, 3) P(empty, White, Black), (49, 2) P(empty, battery)) from the features of the
        squares (36, len(SQUARE_FEATURES)) and of the points (49, len(POINT_FEATURES))."""
        # as the trees were trained: float32 features, MISSING where a feature could not be computed
        s, p = derived(np.asarray(squares, np.float32), np.asarray(points, np.float32))
        s = np.where(np.isfinite(s), s, MISSING).astype(np.float32).astype(np.float64)
        p = np.where(np.isfinite(p), p, MISSING).astype(np.float32).astype(np.float64)
        robot = self.robot.probability(s)
        white = self.white.probability(s)
        battery = self.battery.probability(p)
        sp = np.stack([1.0 - robot, robot * white, robot * (1.0 - white)], axis=1)
        pp = np.stack([1.0 - battery, battery], axis=1)
        return sp, pp


def _model_bytes() -> bytes:
    path = os.environ.get(ENV_MODEL)
    if path:
        try:
            return read_bytes(path, f"the verdict model ({ENV_MODEL})")
        except FileRefused as exc:
            raise VisionError(f"cannot read {exc}") from None
    try:
        return resources.files("vision.anyset").joinpath("models", MODEL_FILE).read_bytes()
    except (FileNotFoundError, OSError) as exc:
        raise VisionError(f"the verdict model vision/anyset/models/{MODEL_FILE} is missing: reinstall the "
                          f"package ({exc})") from None


@lru_cache(maxsize=4)
def _loaded(key: str) -> Verdict:
    try:
        with np.load(io.BytesIO(_model_bytes()), allow_pickle=False) as arrays:
            return Verdict(arrays)
    except (ValueError, KeyError, OSError) as exc:
        raise VisionError(f"the verdict model is damaged ({exc}): reinstall the package") from None


def shared_verdict() -> Verdict:
    """The verdict model, loaded once per process (per model file tried)."""
    return _loaded(os.environ.get(ENV_MODEL, ""))


def model_arrays(robot: Forest, white: Forest, battery: Forest, **meta) -> dict[str, np.ndarray]:
    """The three forests as the named arrays of a model file (what :class:`Verdict` takes), with the
    feature names this reader gives and ``meta`` (arrays or scalars, e.g. the training's seed)."""
    arrays = {"square_features": np.array(SQUARE_FEATURES + SQUARE_DERIVED),
              "point_features": np.array(POINT_FEATURES + POINT_DERIVED)}
    for prefix, f in (("robot", robot), ("white", white), ("battery", battery)):
        for k in ("feature", "threshold", "left", "right", "leaf"):
            arrays[f"{prefix}_{k}"] = getattr(f, k)
        arrays[f"{prefix}_depth"] = np.array(f.depth)
    arrays.update({k: np.asarray(v) for k, v in meta.items()})
    return arrays


def save(path, robot: Forest, white: Forest, battery: Forest, **meta) -> None:
    """Write the three forests (and ``meta``, see :func:`model_arrays`) to ``path``."""
    np.savez_compressed(path, **model_arrays(robot, white, battery, **meta))
