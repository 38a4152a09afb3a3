"""The appearance model: what board, robots and batteries look like on *this* board.

Four Gaussian pixel classes (board, White robot, Black robot, battery) in the
light-blind feature space of :mod:`vision.features`, plus a broad "other"
class for anything unexplained (a hand, a sleeve, a foreign object). All
parameters are learned from one frame of a known layout (the start position):
no colour thresholds are written into the code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .features import N_FEATURES, PPU, SIZE
from .numeric import logaddexp, median

CLASSES = ("board", "white", "black", "battery", "ink", "shade")
BOARD, WHITE, BLACK, BATTERY, INK, SHADE, OTHER, WHITE_SHADED, BLACK_SHADED, BOARD_LIT = range(10)
N_ALL = 10
BOARD_SIDE = [BOARD, INK, BOARD_LIT]          # judged against the board colour as seen
# against the glare-free board: the pieces (glare lies on the varnish, not on them) and the
# shade they cast (a shadow keeps the lamp off the varnish too, and its reflection with it)
PIECE_SIDE = [WHITE, BLACK, BATTERY, OTHER, WHITE_SHADED, BLACK_SHADED, SHADE]
SHADED_PRIOR = 0.01
SHADED_SHIFT = -0.45  # typical error of the background estimate there, log units (a hard shadow's depth)
# how far a piece's brightness ratio may stray when the local background is misjudged
# (at the edge of a hard shadow, inside a glare spot), in log units along the grey axis
SHADED_SPREAD = 0.35
N_CLASSES = 6
# class priors per pixel (board, white, black, battery, ink, shade, other)
PRIORS = np.array([0.66, 0.07, 0.07, 0.04, 0.08, 0.06, 0.02])
OTHER_SPREAD = 1.2           # std of the broad "other" class, in feature units
# where the calibration frame showed bare board: the board's prior is split into "as before"
# and "changed, but still board" (a new shadow's lit side, light that changed unevenly)
_LOG_ASBEFORE = np.float32(np.log(0.85 * PRIORS[0]))
_LOG_NEW_BOARD = np.float32(np.log(0.15 * PRIORS[0]))
# printed ink lies on the energy lines (the field's only print): away from them a dark pixel
# is far more likely a Black robot or a shadow than ink
INK_LINE_HALF = 0.1          # board units either side of a line where ink is expected
INK_ELSEWHERE = 0.05         # the ink prior elsewhere, relative to on the lines
_INK_PRIOR: list[np.ndarray] = []


def _ink_log_prior() -> np.ndarray:
    """(SIZE, SIZE) log factor of the ink prior: 0 on and beside the lines, log(INK_ELSEWHERE) between them."""
    if not _INK_PRIOR:
        x, y = pixel_board_coords()
        on_field = (x > -0.15) & (x < 6.15) & (y > -0.15) & (y < 6.15)
        near = (line_distance() < INK_LINE_HALF) | ~on_field  # beyond the field: coordinates, the frame
        _INK_PRIOR.append(np.where(near, 0.0, np.log(INK_ELSEWHERE)).astype(np.float32).reshape(-1))
    return _INK_PRIOR[0]

SQUARE_HALF = 0.56           # square window half-size in squares (pieces off-centre by <= 1/4)
POINT_RADIUS = 0.24          # point window radius in squares


@dataclass(frozen=True)
class Appearance:
    """Learned parameters (plain tuples so that it freezes and serialises)."""

    means: tuple[tuple[float, ...], ...]         # N_CLASSES x N_FEATURES
    covs: tuple[tuple[float, ...], ...]          # N_CLASSES x N_FEATURES*N_FEATURES (row-major)
    expected_mass: tuple[float, float, float]    # robot-pixel mass of a White robot, of a Black robot; battery mass
    square_means: tuple[tuple[float, float], ...]  # (presence, colour) of EMPTY, WHITE, BLACK (colour: robot-pixel brightness)
    point_means: tuple[float, float]             # normalised battery evidence of EMPTY, BATTERY
    lean: tuple[float, float, float]             # (c, ex, ey): a robot's image drifts by c*(x, y) + (ex, ey)
    line_contrast: tuple[float, ...]             # per line segment at calibration (84)
    square_sigma: float                          # spread of normalised presence evidence
    empty_sigma: float                           # spread of the presence evidence on empty squares
    colour_sigma: float                          # spread of the normalised robot colour (0 Black .. 1 White)
    point_sigma: float                           # spread of normalised point evidence
    point_empty_sigma: float                     # spread of the battery evidence on empty points
    glare_level: float                           # board-colour deviation above which a field is doubtful

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        means = np.array(self.means, np.float64).reshape(N_CLASSES, N_FEATURES)
        covs = np.array(self.covs, np.float64).reshape(N_CLASSES, N_FEATURES, N_FEATURES)
        return means, covs


class PixelModel:
    """Per-pixel class posteriors, precomputed for speed."""

    def __init__(self, means: np.ndarray, covs: np.ndarray) -> None:
        self.means = means.astype(np.float32)
        chols, consts = [], []
        # every class's log density is a quadratic form in the features: write them all as
        # one matrix over the monomials (x_i x_j, x_i, 1), so a pixel costs one matrix row
        iu = np.triu_indices(N_FEATURES)
        self._iu = iu
        W = np.zeros((len(iu[0]) + N_FEATURES + 1, N_ALL), np.float64)
        # pieces seen against a misjudged background (a shadow edge, glare): their brightness
        # ratio is shifted the way the board's shade is, their colour (chroma) is unchanged
        shift = np.zeros(N_FEATURES)
        shift[:3] = SHADED_SHIFT
        grey = np.zeros(N_FEATURES)
        grey[:3] = 1 / np.sqrt(3)
        derived = {WHITE_SHADED: WHITE, BLACK_SHADED: BLACK}
        all_means = {k: means[k] for k in range(N_CLASSES)}
        all_covs = {k: covs[k] for k in range(N_CLASSES)}
        priors = {k: PRIORS[k] for k in range(N_CLASSES)}
        for d, k in derived.items():
            all_means[d] = means[k] + shift
            all_covs[d] = covs[k] + SHADED_SPREAD**2 * np.outer(grey, grey)
            priors[d] = SHADED_PRIOR
        # and the board just outside a hard shadow, brighter than its misjudged background
        all_means[BOARD_LIT] = means[BOARD] - shift
        all_covs[BOARD_LIT] = covs[BOARD] + SHADED_SPREAD**2 * np.outer(grey, grey)
        priors[BOARD_LIT] = SHADED_PRIOR
        for k in all_means:
            inv = np.linalg.inv(all_covs[k])
            const = np.log(priors[k]) - 0.5 * np.linalg.slogdet(all_covs[k])[1]
            if k < N_CLASSES:
                chols.append(np.linalg.cholesky(inv).astype(np.float32))
                consts.append(const)
            mu = all_means[k]
            quad = -0.5 * inv
            W[: len(iu[0]), k] = np.where(iu[0] == iu[1], 1.0, 2.0) * quad[iu]
            W[len(iu[0]): -1, k] = inv @ mu
            W[-1, k] = const - 0.5 * mu @ inv @ mu
        other_logdet = N_FEATURES * 2 * np.log(OTHER_SPREAD)
        self.other_const = np.float32(np.log(PRIORS[OTHER]) - 0.5 * other_logdet)
        W[: len(iu[0]), OTHER] = np.where(iu[0] == iu[1], -0.5 / OTHER_SPREAD**2, 0.0)
        W[-1, OTHER] = self.other_const
        self.W = W.astype(np.float32)
        self.Wt = np.ascontiguousarray(self.W.T)
        self._Wb = np.ascontiguousarray(self.Wt[BOARD_SIDE])
        self.chols = chols
        self.consts = np.array(consts, np.float32)

    def _monomials(self, feats: np.ndarray, planar: bool = False) -> np.ndarray:
        """(21, n) float32: the rows x_i x_j (i <= j, in ``triu_indices`` order), x_i, 1.

        ``feats``: (..., 5), or with ``planar`` (5, n), one row per feature."""
        n_quad = len(self._iu[0])
        n = feats.size // N_FEATURES
        X = np.empty((n_quad + N_FEATURES + 1, n), np.float32)  # monomials, one row each
        planes = X[n_quad: -1]                                    # (5, n): one row per feature
        planes[...] = feats if planar else feats.reshape(n, N_FEATURES).T
        # the products row by row straight into X (x_i times x_i..x_4: triu_indices' order);
        # gathering planes[iu0] and planes[iu1] first cost two (15, n) temporaries, 3x the time
        row = 0
        for i in range(N_FEATURES):
            np.multiply(planes[i], planes[i:], out=X[row: row + N_FEATURES - i])
            row += N_FEATURES - i
        X[-1] = 1.0
        return X

    def log_likelihoods(self, board_feats: np.ndarray, piece_feats: np.ndarray | None = None,
                        differ: np.ndarray | None = None, as_before: np.ndarray | None = None,
                        as_before_share: np.ndarray | None = None) -> np.ndarray:
        """(10, ...) unnormalised log posteriors: CLASSES, other, White and Black robots in shade, lit board.

        Board-like classes are judged on the board-side features (the pixel
        against the local board colour as seen), pieces on the piece-side ones
        (against the glare-free board colour: glare lies on the board, not on
        the pieces); both are densities of the same pixel. ``differ`` (bool,
        per pixel) says where the two differ (under glare); None: everywhere.

        ``as_before`` (per pixel, from :meth:`vision.reference.EmptyReference.as_before`;
        -inf where unknown): the density of the pixel if it looks as the bare
        board did at calibration. Where it is known, "board" is mostly that
        (glare, a lamp arm's shadow, the lines and the grain are all "as
        before") and printed ink is rare (the lines are in the reference).
        ``as_before_share`` (float32, the frame's shape, optional): filled with
        the share of "as before" in the board class (0 where unknown).
        """
        if piece_feats is None:
            piece_feats = board_feats
            differ = np.zeros(board_feats.shape[:-1], bool)
        out = self.Wt @ self._monomials(piece_feats)
        if differ is None:
            out[BOARD_SIDE] = self._Wb @ self._monomials(board_feats)
        elif differ.any():
            idx = np.flatnonzero(differ.reshape(-1))
            # the differing pixels, one row per feature (the features are stored as planes:
            # vision.features), and their board-side rows put back one class at a time
            # (the same values as a gather of (n, 5) rows and an np.ix_ scatter, in less time)
            sub = np.take(np.moveaxis(board_feats, -1, 0).reshape(N_FEATURES, -1), idx, axis=1)
            board_side = self._Wb @ self._monomials(sub, planar=True)
            for row, k in zip(board_side, BOARD_SIDE):
                out[k, idx] = row
        if as_before is not None:
            known = np.isfinite(as_before).reshape(-1)
            idx = np.flatnonzero(known)
            # (gathers with np.take: several times faster than fancy indexing, the same values)
            ab = np.take(as_before.reshape(-1), idx)
            generic = np.take(out[BOARD], idx) - np.float32(np.log(PRIORS[BOARD]))
            # the two densities are shaped differently (the generic class is a full 5-feature
            # Gaussian, "as before" a per-channel noise model), so their scales differ by a
            # constant: level them on the bare board of this frame, where most pixels are unchanged
            # and both explain them (then the priors decide; a changed pixel loses "as before")
            level = float(median((generic - ab)[::4])) if idx.size else 0.0
            with_prior = ab + np.float32(max(level, 0.0)) + _LOG_ASBEFORE   # "as before", levelled, with its prior
            board = logaddexp(with_prior, generic + _LOG_NEW_BOARD)
            out[BOARD, idx] = board
            if as_before_share is not None:
                flat = as_before_share.reshape(-1)
                flat[:] = 0.0
                flat[idx] = np.exp(with_prior - board)
        if board_feats.shape[:-1] == (SIZE, SIZE):
            out[INK] += _ink_log_prior()
        return out.reshape((N_ALL,) + board_feats.shape[:-1])

    def posteriors(self, board_feats: np.ndarray, piece_feats: np.ndarray | None = None,
                   differ: np.ndarray | None = None, as_before: np.ndarray | None = None,
                   as_before_share: np.ndarray | None = None) -> np.ndarray:
        ll = self.log_likelihoods(board_feats, piece_feats, differ, as_before, as_before_share)
        flat = ll.reshape(N_ALL, -1)
        top = np.maximum.reduce(flat, axis=0)
        flat -= top
        np.exp(flat, out=flat)
        flat /= np.add.reduce(flat, axis=0)
        return ll

    def mahalanobis2(self, feats: np.ndarray, k: int) -> np.ndarray:
        flat = feats.reshape(-1, N_FEATURES)
        z = (flat - self.means[k]) @ self.chols[k]
        return np.einsum("ij,ij->i", z, z).reshape(feats.shape[:-1])


def fit_gaussian(samples: np.ndarray, rounds: int = 3, cut: float = 15.1) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance with outliers trimmed (chi-square 99% cut, 5 dof)."""
    x = samples.astype(np.float64)
    keep = np.ones(len(x), bool)
    mean = x.mean(axis=0)
    cov = np.cov(x.T) + np.eye(N_FEATURES) * 1e-4
    for _ in range(rounds):
        mean = x[keep].mean(axis=0)
        cov = np.cov(x[keep].T) + np.eye(N_FEATURES) * 1e-4
        d = x - mean
        m2 = np.einsum("ij,jk,ik->i", d, np.linalg.inv(cov), d)
        new = m2 < cut
        if new.sum() < max(10, len(x) // 3):
            break
        keep = new
    return mean, cov


# -- windows ---------------------------------------------------------------

def pixel_board_coords() -> tuple[np.ndarray, np.ndarray]:
    v, u = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64)
    return (u + 0.5) / PPU - 0.5, 6.5 - (v + 0.5) / PPU


_LINE_DISTANCE: list[np.ndarray] = []


def line_distance() -> np.ndarray:
    """(SIZE, SIZE) board units from each top-view pixel to the nearest energy line's centre
    (computed once; read only)."""
    if not _LINE_DISTANCE:
        x, y = pixel_board_coords()
        d = np.minimum(np.abs(x - np.round(x)), np.abs(y - np.round(y)))
        d.setflags(write=False)
        _LINE_DISTANCE.append(d)
    return _LINE_DISTANCE[0]


def square_windows(centres_xy: np.ndarray) -> "Window":
    """Gather indices (rows, cols) and weights for one window per square."""
    half = int(round(SQUARE_HALF * PPU))
    k = 2 * half
    off = np.arange(k) - half + 0.5
    t = np.clip((np.abs(off) / PPU - (SQUARE_HALF - 0.12)) / 0.12, 0, 1)
    w1 = 0.5 + 0.5 * np.cos(np.pi * t)
    weights = (w1[:, None] * w1[None, :]).astype(np.float32)
    cu = (centres_xy[:, 0] + 0.5) * PPU
    cv = (6.5 - centres_xy[:, 1]) * PPU
    rows = np.clip(np.round(cv - half).astype(int)[:, None, None] + np.arange(k)[None, :, None], 0, SIZE - 1)
    cols = np.clip(np.round(cu - half).astype(int)[:, None, None] + np.arange(k)[None, None, :], 0, SIZE - 1)
    return Window(rows, cols, weights / weights.sum())


def point_windows(points_xy: np.ndarray) -> "Window":
    r = POINT_RADIUS * PPU
    half = int(np.ceil(r))
    k = 2 * half + 1
    off = np.arange(k) - half
    d = np.sqrt(off[:, None] ** 2 + off[None, :] ** 2)
    weights = np.clip(r + 0.5 - d, 0, 1).astype(np.float32)
    cu = np.round((points_xy[:, 0] + 0.5) * PPU).astype(int)
    cv = np.round((6.5 - points_xy[:, 1]) * PPU).astype(int)
    rows = np.clip(cv[:, None, None] - half + np.arange(k)[None, :, None], 0, SIZE - 1)
    cols = np.clip(cu[:, None, None] - half + np.arange(k)[None, None, :], 0, SIZE - 1)
    return Window(rows, cols, weights / weights.sum())


class Window(tuple):
    """One window per field: ``(rows, cols, weights)`` as a tuple, plus flat gather indices
    and weights so :func:`window_mass` is one ``take`` and one weighted row sum."""

    def __new__(cls, rows: np.ndarray, cols: np.ndarray, weights: np.ndarray) -> "Window":
        self = super().__new__(cls, (rows, cols, weights))
        shape = np.broadcast_shapes(rows.shape, cols.shape, weights.shape)
        self.flat_index = np.broadcast_to(rows * SIZE + cols, shape).reshape(shape[0], -1).copy()
        self.flat_weights = np.broadcast_to(weights, shape).reshape(shape[0], -1).astype(np.float32)
        return self


def window_mass(plane: np.ndarray, win: Window) -> np.ndarray:
    """Weighted sum of a (SIZE, SIZE) top-view plane over each field's window."""
    return np.einsum("ij,ij->i", np.ravel(plane).take(win.flat_index), win.flat_weights)


def line_segments() -> np.ndarray:
    """(84, 2, 2): the energy-line segments between neighbouring points (board units)."""
    segs = []
    for r in range(7):
        for c in range(6):
            segs.append([[c, r], [c + 1, r]])
    for c in range(7):
        for r in range(6):
            segs.append([[c, r], [c, r + 1]])
    return np.array(segs, np.float64)


def segment_neighbours() -> tuple[list[tuple[int, ...]], list[tuple[int, int]]]:
    """Per segment (same order as :func:`line_segments`): the squares beside it and its two points."""
    squares, points = [], []
    for r in range(7):
        for c in range(6):
            squares.append(tuple(rr * 6 + c for rr in (r - 1, r) if 0 <= rr < 6))
            points.append((r * 7 + c, r * 7 + c + 1))
    for c in range(7):
        for r in range(6):
            squares.append(tuple(r * 6 + cc for cc in (c - 1, c) if 0 <= cc < 6))
            points.append((r * 7 + c, (r + 1) * 7 + c))
    return squares, points


def _segment_samples():
    segs = line_segments()
    t = np.linspace(0.3, 0.7, 9)
    on, off = [], []
    for (p, q) in segs:
        d = q - p
        n = np.array([-d[1], d[0]])
        pts = p[None] + t[:, None] * d[None]
        on.append(pts)
        off.append(np.vstack([pts + 0.14 * n, pts - 0.14 * n]))
    return np.array(on), np.array(off)


_SEG = None


def segment_contrast(brightness: np.ndarray) -> np.ndarray:
    """Per line segment: how much darker the line is than the board beside it (log units)."""
    global _SEG
    if _SEG is None:
        on, off = _segment_samples()
        conv = lambda a: (np.clip(np.round((a[..., 0] + 0.5) * PPU - 0.5).astype(int), 0, SIZE - 1),
                          np.clip(np.round((6.5 - a[..., 1]) * PPU - 0.5).astype(int), 0, SIZE - 1))
        _SEG = conv(on), conv(off)
    (ou, ov), (fu, fv) = _SEG
    return median(brightness[fv, fu], axis=1) - median(brightness[ov, ou], axis=1)
