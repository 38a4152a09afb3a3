"""The any-set reader's few loops that numpy runs slowly, compiled by numba where it is installed.

Each kernel is plain Python over numpy arrays; :func:`compiled` gives it compiled (numba's cache on
disk where one can be written), or None without numba (32-bit Raspberry Pi OS has no wheel) or with
``NETZWERK_NO_JIT=1``: the caller then takes its numpy way, which gives the same answers.
"""

from __future__ import annotations

import os
import warnings
from functools import lru_cache

import numpy as np


def forest_walk(x, feature, threshold, left, right, leaf):      # pragma: no cover - run compiled
    """(n,) the summed leaf values of every tree for each row of ``x`` (n, features). A tree's nodes
    are walked for every row before the next tree (they stay in the cache); each row's sum takes
    the trees in order, as the numpy way does."""
    n, trees = x.shape[0], feature.shape[0]
    out = np.zeros(n)
    for t in range(trees):
        for i in range(n):
            node = 0
            while node >= 0:
                if x[i, feature[t, node]] <= threshold[t, node]:
                    node = left[t, node]
                else:
                    node = right[t, node]
            out[i] += leaf[t, -node - 1]
    return out


def mean_abs_distances(a, b):      # pragma: no cover - run compiled
    """(n, m) float32: the mean absolute difference between each row of ``a`` (n, k) and each row of
    ``b`` (m, k) (float32 both; summed in float64)."""
    n, m, k = a.shape[0], b.shape[0], a.shape[1]
    out = np.empty((n, m), np.float32)
    for i in range(n):
        for j in range(m):
            total = 0.0
            for c in range(k):
                total += abs(np.float64(a[i, c]) - np.float64(b[j, c]))
            out[i, j] = total / k
    return out


def column_means(x):      # pragma: no cover - run compiled
    """(c,) float32: the mean of each column of ``x`` (n, c) float32, the rows added in turn in float32
    and the sums divided by n, as numpy's ``x.mean(axis=0)`` does for such an array (bit for bit; at a
    fifth of its time: numpy's reduction along the outer axis of a 3-column array is slow)."""
    n, c = x.shape
    acc = np.zeros(c, np.float32)
    for i in range(n):
        for j in range(c):
            acc[j] += x[i, j]
    out = np.empty(c, np.float32)
    for j in range(c):
        out[j] = acc[j] / np.float32(n)
    return out


def mean_abs_distances_numpy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`mean_abs_distances` without numba (the same within float32 rounding)."""
    return np.abs(a[:, None, :].astype(np.float64) - b[None, :, :]).mean(axis=2).astype(np.float32)


#: the kernels whose sums may be taken in any order (a float64 sum of at most a few thousand terms
#: rounded to float32: the order changes nothing that is kept), so that numba can run them on wide registers
_REORDERED = {"mean_abs_distances"}


@lru_cache(maxsize=None)
def compiled(name: str):
    """The kernel ``name`` of this module compiled by numba, or None (no numba, ``NETZWERK_NO_JIT=1``,
    or it fails to compile)."""
    if os.environ.get("NETZWERK_NO_JIT") == "1":
        return None
    try:
        from numba import njit
    except ImportError:          # pragma: no cover - numba is a dependency where it has wheels
        return None
    fn = globals()[name]
    options = {"nogil": True, "fastmath": {"reassoc"}} if name in _REORDERED else {"nogil": True}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return njit(cache=True, **options)(fn)
        except Exception:        # pragma: no cover - no writable cache location
            try:
                return njit(cache=False, **options)(fn)
            except Exception:
                return None


def warm_up() -> None:
    """Compile every kernel (or load it from numba's cache) for the types the reader gives it: the test
    runner does so once before its processes start, as the hint engine's core is warmed."""
    walk = compiled("forest_walk")
    if walk is not None:
        walk(np.zeros((1, 1)), np.zeros((1, 1), np.int64), np.zeros((1, 1)), np.full((1, 1), -1, np.int64),
             np.full((1, 1), -1, np.int64), np.zeros((1, 1)))
    dist = compiled("mean_abs_distances")
    if dist is not None:
        dist(np.zeros((1, 1), np.float32), np.zeros((1, 1), np.float32))
    means = compiled("column_means")
    if means is not None:
        means(np.zeros((1, 3), np.float32))
