"""Marker-less board localisation: find the board's 7x7 grid of points in a frame.

:func:`find_grid` returns a homography from board units to pixels (point
(col, row) -> the pixel of that crossing, one unit = one square) for any look
of the board: nothing is assumed about colours, about which side of a line is
brighter, about line width, or about what is printed at the points. Only the
geometry is used: 14 straight lines in two families, each family exactly seven
equally spaced lines (projectively: equally spaced after the plane's
rectification), crossing each other, and nothing like them one pitch beyond.

Method
------
1. *Segments.* Line segments (LSD) at half resolution, on the grey frame
   and on each colour channel (lines may differ from the board in hue only). A
   segment counts only if it crosses a segment of clearly another direction
   nearby: energy lines cross at every point, while wood grain (one family of
   near-parallel strokes) and most clutter do not.
2. *Families.* The directions of the crossing segments, weighted by length,
   give a few dominant directions; each pair of them is a candidate pair of
   line families. Each family's vanishing point is fitted to its segments
   (iteratively reweighted least squares on the angular residuals); the two
   vanishing points give the vanishing line, whose rectification makes both
   families parallel and equally spaced (an affine image of the board).
3. *Combs.* In that affine view every segment of a family lies at one offset
   along the family's normal. A comb of exactly seven equally spaced teeth,
   with empty teeth one pitch outside and half way between, is searched over
   spacing and offset on the weighted histogram of the offsets; the best
   combs of the two families give candidate homographies.
4. *Scoring on the image.* Each candidate rectifies the frame onto the board
   plane (from the pyramid level that matches its pitch). Each of the 84 unit
   segments of the 14 lines, between two points and away from them (discs,
   rings and batteries sit on the points), should show a sharp peak of the
   colour gradient across it; the lines one pitch outside (as lines, not
   edges: the board's edge may lie there) and the continuations of the 14
   lines into the border should not. The leaders, and each of them shifted by
   one pitch, are then compared by counting segments on and off relative to a
   clear line of their own (their typical segment's evidence, at least half
   that of the frame's leading candidate: a board's lines are printed alike,
   and stronger strokes beside it, a table's plank joints, must not make them
   count as off); a segment showing bare board where a line should
   run (flat, and the board's colour) counts against, one hidden by a piece
   says nothing.
5. *Refinement.* Profiles across the 14 lines are sampled at full resolution;
   a line's centre is the centre of symmetry of the colour-gradient profile
   (summed over two neighbouring segments, so that checkerboard squares, which
   swap sides, make it symmetric too), and H is refitted by robust least
   squares of the point-on-line residuals, over three rounds with narrowing
   windows; the outermost lines take part at the end only where they agree
   with the inner ones (a frame line may be printed right beside them). The
   three leading candidates are refined and compared once more, their inner
   segments now counted by the share of line measurements within a pixel.
6. *Checks.* Enough of the 84 segments must show a line; the lattice must not
   continue beyond 7x7 (a chessboard or a larger grid is not a Netzwerk
   board); the field must lie inside the frame.

The result's orientation is one of the four rotations of the square (the
caller picks among :func:`rotations` from the pieces), never a mirror image:
like every view of a real board from above, with the image's y axis pointing
down the mapping reverses the turning sense (``det`` of its Jacobian < 0: board
+x then +y turn counter-clockwise on screen, as the board's own a-file then
rank 1 do when seen from above, and as the renderer's truth does).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .calibration import check_image
from .errors import BadImage, CalibrationError

__all__ = ["GridFit", "find_grid", "rotations", "grid_points"]

N = 7                                   # lines per family
NOT_FOUND = "cannot find the board's 7x7 grid: is the board fully in view?"

# -- tuning (geometry only: angles, fractions of a square, fractions of the frame) --
MIN_SEG_FRAC = 0.008      # shortest segment used, as a fraction of the frame's larger side
CROSS_ANGLE = 25.0        # degrees: two segments "cross" if their directions differ by at least this
FAMILY_HALF_WIDTH = 12.0  # degrees: a family's segments lie within this of its dominant direction
MIN_FAMILY_ANGLE = 35.0   # degrees between the two families' dominant directions, at least
PITCH_MIN_FRAC = 0.022    # one square is at least this fraction of the frame's larger side ...
PITCH_MAX_FRAC = 0.19     # ... and at most this fraction of the frame's smaller side
SCORE_RES = 16            # rectified pixels per square when scoring a candidate
GAP = 0.3                 # squares kept clear of each point when looking at a line (discs, batteries)
LINE_E = 0.25             # segment evidence above which a segment "shows a line"
MIN_SCORE = 0.5           # share of the visible unit segments that must show a line
MAX_SCALE_RATIO = 2.2     # largest / smallest linear scale at the field's corners (tilt 25 deg: up to ~1.6)
MAX_ANISOTROPY = 1.6      # a square's image at the field's centre: long / short axis (tilt 25 deg: ~1.12)
BARE_WEIGHT = 2.0         # a segment of bare board where a line should run counts this much against
REFINED = 3               # leading candidates refined and compared again
MAX_SEGMENTS = 2500       # longest LSD segments kept (bounds the pairwise crossing test)
OWN_STRENGTH = 0.5        # a candidate's own clear line is at least this share of the frame's (see own_strength)


@dataclass(frozen=True, eq=False)
class GridFit:
    """The board's grid as found in one frame.

    ``H`` maps board units to pixels: point (col, row), 0..6 each, goes to the
    pixel of that crossing (one of the four rotations of the board; see
    :func:`rotations`). ``score`` is the share of the 84 unit segments of the
    14 lines (between neighbouring points) that show a line in the frame, of
    those not outside it; ``residual_px`` the RMS distance of the measured line
    positions from the fitted lines.
    """

    H: np.ndarray
    score: float
    residual_px: float
    points_px: np.ndarray         # (49, 2) pixel positions, index row * 7 + col
    pitch_px: float               # one square's side in pixels, at the field's centre
    n_measurements: int           # line-profile measurements in the final fit
    # other grids that fit the frame nearly as well (the runners-up, refined, that pass the same
    # checks), best first: pieces standing along the board's edges hide its outer lines, so a grid
    # shifted by a pitch onto a table's grain or a printed frame can score as well as the board's
    # own; a caller that knows what the board shows (calibration) tries them where ``H`` fails
    alternatives: tuple[np.ndarray, ...] = ()
    full_resolution: bool = False  # found with the line segments looked for at the frame's full resolution


def grid_points(H: np.ndarray) -> np.ndarray:
    """(49, 2) pixel positions of the points (col, row), index ``row * 7 + col``."""
    idx = np.arange(N * N)
    pts = np.stack([idx % N, idx // N], axis=1).astype(np.float64)
    return _apply(H, pts)


def rotations(H: np.ndarray) -> list[np.ndarray]:
    """The four orientation-preserving relabellings of the grid ``H`` describes.

    ``H @ R^k`` for k = 0..3, where ``R`` turns the board by 90 degrees about
    the field's centre (3, 3): board point (x, y) -> (6 - y, x). Element 0 is
    ``H`` itself (normalised so that ``H[2, 2] == 1``).
    """
    H = np.asarray(H, np.float64)
    R = np.array([[0.0, -1.0, 6.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    out = []
    M = np.eye(3)
    for _ in range(4):
        G = H @ M
        out.append(G / G[2, 2])
        M = M @ R
    return out


# =============================================================================
# entry point
# =============================================================================

def find_grid(image: np.ndarray, finer: bool = False) -> GridFit:
    """Find the board's 7x7 grid of points in a camera frame (no markers needed).

    ``image``: a BGR (or grey) frame, 8-bit. Returns a :class:`GridFit`.
    Raises :class:`CalibrationError` when no 7x7 grid is found, or when the
    grid found runs out of the frame ("the board is not fully in view: ...");
    :class:`BadImage` when ``image`` is not an image at all. The line segments
    are looked for at half the frame's resolution, and at its full resolution
    where none is found so; ``finer``: at the full resolution only (a caller
    whose check refused every grid found at half resolution asks again: a
    print of finer lines in every square can outrank the board's grid there,
    and not at the full resolution).
    """
    col = _check_image(image)
    gray = cv2.cvtColor(col, cv2.COLOR_BGR2GRAY)
    if float(gray.std()) < 2.0:
        raise CalibrationError(f"{NOT_FOUND} (the frame is uniform: nothing to see)")
    ev = _Evidence(col)
    if finer:
        try:
            return _find(ev, col, 1.0)
        except _NotFound as exc:
            raise CalibrationError(str(exc)) from None
    try:
        return _find(ev, col, 0.5)
    except _NotFound as first:
        # a small board's thin lines may vanish at half resolution: look once more at full
        try:
            return _find(ev, col, 1.0)
        except _NotFound:
            raise CalibrationError(str(first)) from None


class _NotFound(CalibrationError):
    """No 7x7 grid in this attempt (another attempt may still find one)."""


def _find(ev: "_Evidence", col: np.ndarray, seg_scale: float) -> GridFit:
    """One attempt, with line segments detected at ``seg_scale`` of the frame's resolution."""
    h, w = col.shape[:2]
    cands = _candidates(col, seg_scale)
    if not cands:
        raise _NotFound(NOT_FOUND)
    ranked, strength = _select(ev, cands)
    if not ranked:
        raise _NotFound(NOT_FOUND)
    # the leaders are refined and compared again: a candidate a little off may count as many
    # segments on as the right one (on a checkerboard every square has edges), so the share of
    # line measurements within a pixel of the refined lines counts as much again
    refined = []
    for _, H0 in ranked[:REFINED]:
        H1, resid, n_meas = _refine(ev, H0)
        s1 = 84.0 * _confirmed_share(ev, H1)
        if strength is not None:
            s1 += ev.score(H1, own_strength(ev, H1, strength))[0]
        refined.append((s1, H1, resid, n_meas))
    refined.sort(key=lambda t: -t[0])
    _, H, resid, n_meas = refined[0]
    H, score = _checked(ev, _orient(H), w, h)
    alternatives: list[np.ndarray] = []
    kept = [_apply(H, _PROBE)]
    for _, H1, _, _ in refined[1:]:
        pr = _apply(H1, _PROBE)
        if any(_same_grid(pr, q, _pitch(H1)) for q in kept):
            continue
        kept.append(pr)
        try:
            alternatives.append(_checked(ev, _orient(H1), w, h)[0])
        except CalibrationError:
            continue
    return GridFit(H=H, score=score, residual_px=resid, points_px=grid_points(H), pitch_px=_pitch(H),
                   n_measurements=n_meas, alternatives=tuple(alternatives), full_resolution=seg_scale >= 1.0)


def same_grid(H_a: np.ndarray, H_b: np.ndarray) -> bool:
    """Do two homographies describe the same grid of points in the frame, in any orientation
    (:func:`_same_grid` on their corners and centre)?"""
    return _same_grid(_apply(H_a, _PROBE), _apply(H_b, _PROBE), _pitch(H_a))


def _same_grid(probe_a: np.ndarray, probe_b: np.ndarray, pitch: float) -> bool:
    """Do two grids' probe points (corners and centre, the corners in any order: the grids may be
    labelled in other orientations) coincide within 0.3 of a pitch?"""
    d = np.linalg.norm(probe_a[:, None, :] - probe_b[None, :, :], axis=2)
    return bool(d.min(axis=1).max() < 0.3 * pitch)


def _checked(ev: "_Evidence", H: np.ndarray, w: int, h: int) -> tuple[np.ndarray, float]:
    """``H`` and its score (the share of the 84 inner segments showing a line), if it passes as the
    board's grid: enough of it in view showing lines, the lattice not going on beyond 7x7, the
    field inside the frame; else raises (_NotFound, or CalibrationError naming what is out of view)."""
    prof, valid, cprof = ev.profiles(H, colour="all")
    e = _evidence(prof, 1, valid)
    inner, outer, ext = _split(e, valid)
    n_valid = int(inner[1].sum())
    score = float((inner[0] >= LINE_E)[inner[1]].mean()) if n_valid else 0.0
    if n_valid >= 0.4 * inner[1].size and score < MIN_SCORE:
        # thin lines keep only a fraction of their contrast on the pyramid level scored (a line
        # two pixels wide under a quarter of that): the share is measured again a level finer
        fp, fv = ev.profiles(H, finer=1)
        fi, _, _ = _split(_evidence(fp, 1, fv), fv)
        if int(fi[1].sum()) >= 0.4 * fi[1].size:
            score = max(score, float((fi[0] >= LINE_E)[fi[1]].mean()))
    if n_valid < 0.4 * inner[1].size or score < MIN_SCORE:
        raise _NotFound(NOT_FOUND)
    continues = _lattice_continues(e, _ridge(cprof, 1), cprof, valid)
    if continues:
        raise _NotFound(
            f"cannot find the board's 7x7 grid: the lines continue beyond 7x7 at the {continues} "
            "(a larger grid such as a chessboard?)"
        )
    out = _outside(grid_points(H), w, h)
    if out:
        raise CalibrationError(f"the board is not fully in view: {out}")
    return H, score


# =============================================================================
# small geometry helpers
# =============================================================================

def _apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    p = np.column_stack([pts, np.ones(len(pts))]) @ np.asarray(H, np.float64).T
    return p[:, :2] / p[:, 2:3]


def _jacobian(H: np.ndarray, x: float, y: float) -> np.ndarray:
    p = H @ np.array([x, y, 1.0])
    J = (H[:2, :2] * p[2] - np.outer(p[:2], H[2, :2])) / (p[2] * p[2])
    return J


def _pitch(H: np.ndarray) -> float:
    return float(math.sqrt(abs(np.linalg.det(_jacobian(H, 3.0, 3.0)))))


def _orient(H: np.ndarray) -> np.ndarray:
    """Swap the board axes if needed so that the mapping is not a mirror image."""
    if np.linalg.det(_jacobian(H, 3.0, 3.0)) > 0:
        H = H @ np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 1]])
    return H / H[2, 2]


def _outside(pts: np.ndarray, w: int, h: int) -> str:
    margin = 1.0
    sides = []
    if (pts[:, 0] < margin).any():
        sides.append("left")
    if (pts[:, 0] > w - 1 - margin).any():
        sides.append("right")
    if (pts[:, 1] < margin).any():
        sides.append("top")
    if (pts[:, 1] > h - 1 - margin).any():
        sides.append("bottom")
    if not sides:
        return ""
    n = int(((pts[:, 0] < margin) | (pts[:, 0] > w - 1 - margin) | (pts[:, 1] < margin) | (pts[:, 1] > h - 1 - margin)).sum())
    return f"the grid runs out of the frame at the {' and '.join(sides)} edge ({n} of 49 points outside)"


def _check_image(image: object) -> np.ndarray:
    if isinstance(image, np.ndarray) and image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    image = check_image(image)
    h, w = image.shape[:2]
    if w < 160 or h < 120:
        raise BadImage(f"the frame is {w}x{h}: too small to find a board in (at least 160x120)")
    return np.ascontiguousarray(image)


# =============================================================================
# 1-3: candidate homographies from line segments
# =============================================================================

def _segments(col: np.ndarray, scale: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """LSD segments at ``scale`` of the resolution, in full-resolution pixel coordinates: (p0, p1).

    Lines may differ from the board in hue only (blue on red has the same
    grey): LSD runs on the grey image and then on each colour channel, keeping
    from each channel only the segments not already found (any two colours
    differ in at least one channel).
    """
    h, w = col.shape[:2]
    half = col if scale >= 1 else cv2.resize(col, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    lsd = cv2.createLineSegmentDetector()
    covered = np.zeros(half.shape[:2], np.uint8)
    found = []
    channels = [cv2.cvtColor(half, cv2.COLOR_BGR2GRAY)] + [np.ascontiguousarray(half[:, :, k]) for k in range(3)]
    for ch in channels:
        lines = lsd.detect(ch)[0]
        if lines is None:
            continue
        seg = lines.reshape(-1, 4).astype(np.float64)
        if found:
            # drop segments that lie along one found before (5 samples on each)
            t = np.linspace(0.1, 0.9, 5)
            xs = seg[:, None, 0] + t[None, :] * (seg[:, None, 2] - seg[:, None, 0])
            ys = seg[:, None, 1] + t[None, :] * (seg[:, None, 3] - seg[:, None, 1])
            xi = np.clip(np.rint(xs).astype(int), 0, covered.shape[1] - 1)
            yi = np.clip(np.rint(ys).astype(int), 0, covered.shape[0] - 1)
            seg = seg[(covered[yi, xi] > 0).mean(axis=1) < 0.6]
        if len(seg) == 0:
            continue
        found.append(seg)
        cv2.polylines(covered, [np.rint(sg.reshape(2, 2)).astype(np.int32) for sg in seg], False, 255, 3)
    if not found:
        return np.zeros((0, 2)), np.zeros((0, 2))
    s = np.concatenate(found)
    s = (s + 0.5) * np.repeat([w / half.shape[1], h / half.shape[0]], 2)[[0, 2, 1, 3]] - 0.5
    p0, p1 = s[:, :2], s[:, 2:]
    L = np.linalg.norm(p1 - p0, axis=1)
    keep = L >= MIN_SEG_FRAC * max(w, h)
    p0, p1, L = p0[keep], p1[keep], L[keep]
    if len(L) > MAX_SEGMENTS:
        order = np.argsort(-L)[:MAX_SEGMENTS]
        p0, p1 = p0[order], p1[order]
    return p0, p1


def _crossing_pairs(p0: np.ndarray, p1: np.ndarray, max_gap: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Segments of clearly different direction whose lines meet near both: (a, b, crossing point).

    "Near": within the segment, or beyond its end by at most 1.2 times the
    shorter segment's length (lines stop short of a printed disc), and at most
    ``max_gap`` pixels.
    """
    n = len(p0)
    if n < 2:
        return np.zeros(0, int), np.zeros(0, int), np.zeros((0, 2))
    m = (p0 + p1) / 2
    d = p1 - p0
    L = np.linalg.norm(d, axis=1)
    u = d / L[:, None]
    ia, ib = np.triu_indices(n, 1)
    cr = u[ia, 0] * u[ib, 1] - u[ia, 1] * u[ib, 0]
    ok = np.abs(cr) >= math.sin(math.radians(CROSS_ANGLE))
    ia, ib, cr = ia[ok], ib[ok], cr[ok]
    dm = m[ib] - m[ia]
    s = (dm[:, 0] * u[ib, 1] - dm[:, 1] * u[ib, 0]) / cr     # along a from its midpoint
    t = (dm[:, 0] * u[ia, 1] - dm[:, 1] * u[ia, 0]) / cr     # along b from its midpoint
    gap = np.minimum(1.2 * np.minimum(L[ia], L[ib]), max_gap)
    near = (np.abs(s) <= L[ia] / 2 + gap) & (np.abs(t) <= L[ib] / 2 + gap)
    ia, ib, s = ia[near], ib[near], s[near]
    x = m[ia] + s[:, None] * u[ia]
    return ia, ib, x


def _direction_peaks(theta: np.ndarray, weight: np.ndarray, k: int = 4) -> list[float]:
    """Up to ``k`` dominant directions (radians, mod pi) of a weighted direction histogram."""
    bins = 180
    hist = np.bincount((np.degrees(theta).astype(int)) % bins, weights=weight, minlength=bins).astype(np.float64)
    x = np.arange(-9, 10)
    kern = np.exp(-0.5 * (x / 3.0) ** 2)
    sm = np.convolve(np.concatenate([hist[-9:], hist, hist[:9]]), kern, mode="same")[9:-9]
    peaks = []
    work = sm.copy()
    top = work.max()
    if top <= 0:
        return []
    for _ in range(k):
        i = int(work.argmax())
        if work[i] < 0.12 * top:
            break
        # sub-bin centre
        a, b, c = sm[(i - 1) % bins], sm[i], sm[(i + 1) % bins]
        den = a - 2 * b + c
        off = 0.5 * (a - c) / den if den < 0 else 0.0
        peaks.append(math.radians((i + 0.5 + off) % bins))
        for j in range(-15, 16):
            work[(i + j) % bins] = 0.0
    return peaks


def _angle_diff(a: np.ndarray | float, b: float) -> np.ndarray:
    """Unsigned difference of directions mod pi, in radians (0..pi/2)."""
    d = np.abs((np.asarray(a) - b + np.pi / 2) % np.pi - np.pi / 2)
    return d


def _vanishing_point(m: np.ndarray, u: np.ndarray, wgt: np.ndarray, theta0: float) -> np.ndarray:
    """Homogeneous vanishing point (normalised coordinates) of segments with midpoints m, directions u.

    Starts at the point at infinity of direction ``theta0`` and minimises the
    weighted squared sines of the angles between each segment and the direction
    from its midpoint to the point (Huber-weighted IRLS).
    """
    v = np.array([math.cos(theta0), math.sin(theta0), 0.0])
    nrm = np.stack([-u[:, 1], u[:, 0]], axis=1)
    lines = np.column_stack([nrm, -(nrm * m).sum(1)])
    for _ in range(8):
        dvec = v[None, :2] - m * v[2]
        dl = np.linalg.norm(dvec, axis=1) + 1e-12
        res = (lines @ v) / dl                                  # sine of the angle
        c = math.sin(math.radians(1.0))
        rw = np.where(np.abs(res) <= c, 1.0, c / np.maximum(np.abs(res), 1e-12))
        ww = wgt * rw / dl ** 2
        A = lines * np.sqrt(ww)[:, None]
        _, _, vt = np.linalg.svd(A, full_matrices=False)
        vn = vt[-1]
        if vn @ v < 0:
            vn = -vn
        if np.linalg.norm(vn - v) < 1e-9:
            v = vn
            break
        v = vn
    return v


def _combs(c: np.ndarray, wgt: np.ndarray, pmin: float, pmax: float, k: int = 3) -> list[tuple[float, float, float]]:
    """Best ``k`` seven-tooth combs (offset, spacing, score) on weighted 1-D positions.

    A comb's score adds the square roots of the weight near each of its seven
    teeth (so that all seven must be there, not a few strong ones) and takes off
    the weight one spacing outside and half way between the teeth.
    """
    if len(c) < 7:
        return []
    bw = max(0.5, pmin / 24)                                # histogram bin, in the view's pixels
    lo = float(c.min()) - 2 * pmax
    nb = int((float(c.max()) + 2 * pmax - lo) / bw) + 2
    x = (c - lo) / bw
    i0 = np.floor(x).astype(int)
    f = x - i0
    hist = np.bincount(i0, weights=wgt * (1 - f), minlength=nb + 1)[: nb + 1]
    hist += np.bincount(i0 + 1, weights=wgt * f, minlength=nb + 1)[: nb + 1]
    cum = np.concatenate([[0.0], np.cumsum(hist)])
    last = len(cum) - 1
    boxes: dict[int, np.ndarray] = {}

    def box_sums(tau: int) -> np.ndarray:
        """Weight within +-tau bins of each bin (zero beyond the ends)."""
        if tau not in boxes:
            i = np.arange(last + 1)
            boxes[tau] = cum[np.clip(i + tau + 1, 0, last)] - cum[np.clip(i - tau, 0, last)]
        return boxes[tau]

    found: list[tuple[float, float, float]] = []
    deltas = np.geomspace(pmin, pmax, max(8, int(math.log(pmax / pmin) / math.log(1.015)) + 1)) / bw
    teeth = np.concatenate([np.arange(-1, 8), np.arange(0, 6) + 0.5])
    for d in deltas:
        B = np.sqrt(box_sums(max(1, int(round(0.05 * d)))))
        stp = max(1.0, d / 40)
        c0 = np.arange(0.0, nb - 6 * d, stp)
        if len(c0) == 0:
            continue
        idx = np.rint(c0[:, None] + d * teeth[None, :]).astype(np.intp)
        np.clip(idx, 0, last, out=idx)
        T = B[idx]
        score = T[:, 1:8].sum(1) - 0.8 * (T[:, 0] + T[:, 8]) - 0.4 * T[:, 9:].sum(1)
        for _ in range(2):
            j = int(score.argmax())
            if score[j] <= 0:
                break
            found.append((float(c0[j] * bw + lo), float(d * bw), float(score[j])))
            r = int(0.3 * d / stp) + 1
            score[max(0, j - r): j + r + 1] = -np.inf
    found.sort(key=lambda t: -t[2])
    out: list[tuple[float, float, float]] = []
    for c0, d, s in found:
        if all(abs(d - d2) > 0.05 * d2 or abs(c0 - c2) > 0.3 * d2 for c2, d2, _ in out):
            out.append((c0, d, s))
        if len(out) >= k:
            break
    return out


def _candidates(col: np.ndarray, seg_scale: float = 0.5) -> list[np.ndarray]:
    """Candidate homographies (board -> pixels) from line segments and their crossings."""
    h, w = col.shape[:2]
    p0, p1 = _segments(col, seg_scale)
    if len(p0) < 14:
        return []
    pmin = PITCH_MIN_FRAC * max(w, h)
    pmax = PITCH_MAX_FRAC * min(w, h)
    ia, ib, xpt = _crossing_pairs(p0, p1, max_gap=0.3 * pmax)
    if len(ia) == 0:
        return []
    d = p1 - p0
    L = np.linalg.norm(d, axis=1)
    u = d / L[:, None]
    theta = np.arctan2(u[:, 1], u[:, 0]) % np.pi
    m = (p0 + p1) / 2
    crossing = np.zeros(len(p0), bool)
    crossing[ia] = True
    crossing[ib] = True
    peaks = _direction_peaks(theta[crossing], L[crossing])
    # normalised coordinates for the vanishing points
    cx, cy, sc = (w - 1) / 2, (h - 1) / 2, math.hypot(w, h) / 2
    Nrm = np.array([[1 / sc, 0, -cx / sc], [0, 1 / sc, -cy / sc], [0, 0, 1]])
    mn = (m - [cx, cy]) / sc
    half_w = math.radians(FAMILY_HALF_WIDTH)
    cands: list[np.ndarray] = []
    fam = [_angle_diff(theta, t) <= half_w for t in peaks]
    # a crossing counts the length of the shorter of its two segments: the board's lines cross
    # each other along their whole length, while printed rings and circles at the points, drawn
    # as many short chords in every direction, cross each other often but only briefly
    cross_len = np.minimum(L[ia], L[ib])
    pairs = []
    for a in range(len(peaks)):
        for b in range(a + 1, len(peaks)):
            if _angle_diff(peaks[a], peaks[b]) >= math.radians(MIN_FAMILY_ANGLE):
                both = (fam[a][ia] & fam[b][ib]) | (fam[b][ia] & fam[a][ib])
                pairs.append((float(cross_len[both].sum()), a, b))
    pairs.sort(reverse=True)
    # the board's two families cross each other far more than anything else does
    pairs = [p for p in pairs[:3] if p[0] >= 0.25 * pairs[0][0]] if pairs else []
    for _, a, b in pairs:
            ta, tb = peaks[a], peaks[b]
            fa, fb = fam[a], fam[b]
            # a family's segments must cross a segment of the other family
            pair_ab = fa[ia] & fb[ib]
            pair_ba = fb[ia] & fa[ib]
            xa = np.zeros(len(p0), bool)
            xb = np.zeros(len(p0), bool)
            xa[ia[pair_ab]] = True
            xa[ib[pair_ba]] = True
            xb[ib[pair_ab]] = True
            xb[ia[pair_ba]] = True
            sa, sb = np.flatnonzero(xa), np.flatnonzero(xb)
            if len(sa) < 7 or len(sb) < 7:
                continue
            # long straight strokes (plank joints, board edges) must not outweigh the lines
            wa = np.minimum(L[sa], 3 * np.median(L[sa]))
            wb = np.minimum(L[sb], 3 * np.median(L[sb]))
            va = _vanishing_point(mn[sa], u[sa], wa, ta)
            vb = _vanishing_point(mn[sb], u[sb], wb, tb)
            pts = xpt[pair_ab | pair_ba]
            cands.extend(_pair_candidates(p0, p1, sa, sb, wa, wb, pts, va, vb, ta, tb, Nrm, sc, pmin, pmax))
    return cands


def _pair_candidates(p0, p1, sa, sb, wa, wb, pts, va, vb, ta, tb, Nrm, sc, pmin, pmax) -> list[np.ndarray]:
    """Candidate homographies for one pair of line families."""
    hor = np.cross(va, vb)
    if abs(hor[2]) < 1e-12 or np.linalg.norm(hor[:2]) > 0.7 * abs(hor[2]):
        # the vanishing line is (nearly) at infinity, or implausibly close to the frame:
        # fall back to an affine view (both families parallel)
        hor = np.array([0.0, 0.0, 1.0])
        va = np.array([math.cos(ta), math.sin(ta), 0.0])
        vb = np.array([math.cos(tb), math.sin(tb), 0.0])
    else:
        hor = hor / hor[2]
    Ha = np.array([[1, 0, 0], [0, 1, 0], [hor[0], hor[1], 1.0]])
    A = np.diag([sc, sc, 1.0]) @ Ha @ Nrm            # pixels -> affine view (about pixel scale)
    da = (Ha @ va)[:2]
    db = (Ha @ vb)[:2]
    if np.linalg.norm(da) < 1e-12 or np.linalg.norm(db) < 1e-12:
        return []
    da /= np.linalg.norm(da)
    db /= np.linalg.norm(db)
    na = np.array([-da[1], da[0]])
    nb_ = np.array([-db[1], db[0]])
    q0 = _apply(A, p0)
    q1 = _apply(A, p1)
    qx = _apply(A, pts)
    combs = []
    for idx, wl, n_ in ((sa, wa, na), (sb, wb, nb_)):
        mid = (q0[idx] + q1[idx]) / 2
        scale = np.linalg.norm(q1[idx] - q0[idx], axis=1) / np.maximum(np.linalg.norm(p1[idx] - p0[idx], axis=1), 1e-9)
        found = _combs(mid @ n_, wl * scale, 0.75 * pmin, 1.3 * pmax)
        # the crossings lie on the lines too: a second, independent comb
        for c in _combs(qx @ n_, np.ones(len(qx)), 0.75 * pmin, 1.3 * pmax):
            if all(abs(c[1] - d2) > 0.05 * d2 or abs(c[0] - c2) > 0.3 * d2 for c2, d2, _ in found):
                found.append(c)
        combs.append(found)
    if not combs[0] or not combs[1]:
        return []
    M = np.stack([na, nb_])
    if abs(np.linalg.det(M)) < 1e-6:
        return []
    Minv = np.linalg.inv(M)
    Ainv = np.linalg.inv(A)
    out = []
    for ca, dA, _ in combs[0]:
        for cb, dB, _ in combs[1]:
            B = np.eye(3)
            B[:2, :2] = Minv @ np.diag([dA, dB])
            B[:2, 2] = Minv @ np.array([ca, cb])
            H = Ainv @ B
            out.append(H / H[2, 2])
    return out


# =============================================================================
# 4: evidence on the image
# =============================================================================

# segment layout of the rectified view: lines -1..7, unit segments -1..6 along them
_LINE_IDX = np.arange(-1, 8)
_SEG_IDX = np.arange(-1, 7)
_X0 = -1.5
_NRECT = int(9 * SCORE_RES) + 1


def _strip_indices(res: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices (lines x segments x rows x cols) of the strips across vertical lines."""
    half = res // 2
    cols = ((_LINE_IDX - _X0) * res).astype(int)[:, None] + np.arange(-half, half + 1)[None, :]
    r0 = int(math.ceil(GAP * res))
    r1 = int(math.floor((1 - GAP) * res))
    rows = ((_SEG_IDX - _X0) * res).astype(int)[:, None] + np.arange(r0, r1 + 1)[None, :]
    R = rows[None, :, :, None] + 0 * cols[:, None, None, :]
    C = cols[:, None, None, :] + 0 * rows[None, :, :, None]
    return R, C


_STRIP_R, _STRIP_C = _strip_indices(SCORE_RES)
# the segments that count against a grid: lines -1 and 7 (inner stretch), and the 14 lines' continuations
_PEN = np.zeros((len(_LINE_IDX), len(_SEG_IDX)), bool)
_PEN[[0, -1], 1:-1] = True
_PEN[1:-1, [0, -1]] = True


class _Evidence:
    """The frame prepared for scoring (a colour pyramid) and for profile measurement."""

    def __init__(self, col: np.ndarray) -> None:
        f = col.astype(np.float32)
        self.h, self.w = f.shape[:2]
        self.full = cv2.GaussianBlur(f, (0, 0), 0.8)
        self.levels = [f]
        for _ in range(3):
            self.levels.append(cv2.pyrDown(self.levels[-1]))
        self.ones = [np.ones(lv.shape[:2], np.float32) for lv in self.levels]

    # -- scoring -------------------------------------------------------------
    def rectified(self, H: np.ndarray, res: int = SCORE_RES, finer: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """The frame warped onto the board plane, ``res`` pixels a square over x, y in -1.5..7.5
        (from the pyramid level whose pitch is nearest above ``res``, or ``finer`` levels below
        it), and where it was in view."""
        P = _pitch(H)
        lev = int(np.clip(math.floor(math.log2(max(P / res, 1.0))) - finer, 0, len(self.levels) - 1))
        s = 2.0 ** -lev
        S = np.array([[s, 0, 0.5 * s - 0.5], [0, s, 0.5 * s - 0.5], [0, 0, 1]])
        T = np.array([[1 / res, 0, _X0], [0, 1 / res, _X0], [0, 0, 1]])
        M = S @ H @ T
        src = self.levels[lev]
        n = _NRECT
        img = cv2.warpPerspective(src, M, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
        mask = cv2.warpPerspective(self.ones[lev], M, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        return img, mask

    def profiles(self, H: np.ndarray, colour: bool | str = False, finer: int = 0):
        """Profiles across every unit segment of lines -1..7 (and their continuations).

        Returns the colour-gradient profiles (2, 9, 8, 17): family (0: lines
        x = const, 1: y = const), line -1..7, segment -1..6 along it, 17 places
        across it (1/16 square apart), each the median over the middle of the
        segment (GAP..1-GAP), and whether each segment was in view (2, 9, 8).
        With ``colour`` also the colour profiles (2, 9, 8, 17, 3): for all
        segments if ``colour == "all"``, else only for those outside the 84.
        """
        img, mask = self.rectified(H, finer=finer)
        gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=1)
        gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=1)
        mx = np.sqrt((gx * gx).sum(axis=2))
        my = np.sqrt((gy * gy).sum(axis=2))
        bad = cv2.erode((mask > 0.999).astype(np.uint8), np.ones((3, 3), np.uint8)) == 0
        shape = (2, len(_LINE_IDX), len(_SEG_IDX), _STRIP_C.shape[-1])
        prof = np.empty(shape, np.float32)
        cprof = np.zeros(shape + (3,), np.float32) if colour else None
        V = np.zeros(shape[:3], bool)
        k = _STRIP_R.shape[2] // 2
        for fam, (mag, badf, im) in enumerate(((mx, bad, img), (my.T, bad.T, img.transpose(1, 0, 2)))):
            prof[fam] = np.partition(mag[_STRIP_R, _STRIP_C], k, axis=2)[:, :, k]
            V[fam] = ~badf[_STRIP_R, _STRIP_C].any(axis=(2, 3))
            if colour == "all":
                cprof[fam] = np.partition(im[_STRIP_R, _STRIP_C], k, axis=2)[:, :, k]
            elif colour:
                R, C = _STRIP_R[_PEN], _STRIP_C[_PEN]
                cprof[fam][_PEN] = np.partition(im[R, C], k, axis=1)[:, k]
        if colour:
            return prof, V, cprof
        return prof, V

    def score(self, H: np.ndarray, strength: float | None = None, tol: int = 2) -> tuple[float, np.ndarray]:
        """How well the 7x7 lattice of ``H`` matches the frame (higher is better), and the inner evidence.

        Adds the line evidence over the 84 inner unit segments and takes off
        the evidence on the lines one pitch outside (half, or a quarter when
        counting: a board edge may lie there) and on the 14 lines'
        continuations into the border (in full). Only line-like evidence counts
        against (see :func:`_ridge`); a segment outside the frame counts as half
        a line against, so that a candidate cannot escape its penalties by
        hanging off the frame.

        Without ``strength`` the evidence is summed as it is (and an inner
        segment outside the frame costs a little). With ``strength`` (the
        evidence of a clear line in this frame) each segment counts as on or
        off, so that a strong edge cannot make up for a weak line, and an inner
        segment showing bare board (see :func:`_bare`) counts BARE_WEIGHT
        against, while one hidden by a piece or outside the frame says nothing.
        Returns the score and the inner segments' evidence (those in view).
        """
        prof, v, cprof = self.profiles(H, colour="all" if strength is not None else True)
        e2 = _evidence(prof, tol, v)
        e1 = _evidence(prof, 1, v) * np.clip(2 * _ridge(cprof, 1) - 1, 0, 1)
        bare = np.zeros_like(e2)
        if strength is not None:
            e2 = _on(e2, strength)
            e1 = _on(e1, strength)
            bare = _bare(prof, cprof, e2 >= 0.999, v)
        on_in, _, _ = _split(np.clip(e2, 0, None), v)
        bare_in, _, _ = _split(BARE_WEIGHT * bare * (1 - np.clip(e2, 0, 1)), v)
        _, outer, ext = _split(np.clip(e1, 0, None), v)
        s_in = np.where(on_in[1], on_in[0], 0.0 if strength is not None else -0.1).sum()
        s_in -= np.where(bare_in[1], bare_in[0], 0.0).sum()
        s_out = np.where(outer[1], outer[0], 0.5).sum()
        s_ext = np.where(ext[1], ext[0], 0.5).sum()
        w_out = 0.25 if strength is not None else 0.5
        return float(s_in - w_out * s_out - 1.0 * s_ext), on_in[0][on_in[1]]


def _on(e: np.ndarray, strength: float) -> np.ndarray:
    """Evidence as on (1) / off (0): on from 0.6 of a clear line's, off below 0.3 of it."""
    return np.clip((e - 0.3 * strength) / (0.3 * strength), 0.0, 1.0)


def _evidence(prof: np.ndarray, tol: int, valid: np.ndarray) -> np.ndarray:
    """Line evidence of gradient profiles (..., 17), -1..1: the peak within ``tol`` of the
    centre against the median beside it (from a quarter square out), over their sum plus
    a noise floor of 2 grey levels a pixel; outside the frame 0."""
    half = prof.shape[-1] // 2
    peak = prof[..., half - tol: half + tol + 1].max(axis=-1)
    side = np.concatenate([prof[..., : half - 3], prof[..., half + 4:]], axis=-1)
    bg = np.median(side, axis=-1)
    e = (peak - bg) / (peak + bg + 2.0)
    return np.where(valid, e, 0.0)


def _bare(prof: np.ndarray, cprof: np.ndarray, on: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Segments (2, 9, 8) that clearly show bare board where a line could be: 1.0, else 0.0.

    Bare: the middle half of the profile is flat (no gradient above a third of
    a clear line's peak) and its colour is that of the board beside the lines
    that are there. A robot or a battery over a line is not bare board (its
    colour differs, or its outline shows): such a segment says nothing either
    way, while a bare one says that no line runs there.
    """
    inner_on = on.copy()
    inner_on[:, [0, -1], :] = False
    inner_on[:, :, [0, -1]] = False
    inner_on &= valid
    if inner_on.sum() < 6:
        return np.zeros(on.shape)
    half = prof.shape[-1] // 2
    peak_level = float(np.median(prof[inner_on][:, half - 2: half + 3].max(axis=-1)))
    flat = prof[..., half - 4: half + 5].max(axis=-1) < peak_level / 3
    left = cprof[inner_on][:, : half - 3].mean(axis=1)
    right = cprof[inner_on][:, half + 4:].mean(axis=1)
    sides = np.concatenate([left, right])                   # colours of the board beside the lines
    centre_on = cprof[inner_on][:, half - 1: half + 2].mean(axis=1)
    contrast = float(np.median(np.linalg.norm(centre_on - left, axis=-1)))   # a line against the board
    centre = cprof[..., half - 4: half + 5, :].mean(axis=-2)
    dist = np.linalg.norm(centre[..., None, :] - sides.reshape((1,) * (centre.ndim - 1) + sides.shape), axis=-1).min(axis=-1)
    return (flat & valid & (dist < 0.5 * contrast)).astype(np.float64)


def _ridge(cprof: np.ndarray, tol: int) -> np.ndarray:
    """How much a colour profile (..., 17, 3) looks like a line rather than an edge (0..1).

    A line (thin or thick, any colour, also between two checkerboard squares of
    other colours) has the same colour on both sides and another at its centre;
    an edge (board against table) changes from one side to the other and its
    centre is only the mixture. ``D / (D + E)``: D the centre's largest colour
    distance from the sides' mean (within ``tol`` of the centre), E half the
    distance between the two sides. About 1 for a line, at most 1/2 for an edge.
    """
    half = cprof.shape[-2] // 2
    left = cprof[..., : half - 3, :].mean(axis=-2)
    right = cprof[..., half + 4:, :].mean(axis=-2)
    mid = (left + right) / 2
    dev = np.linalg.norm(cprof[..., half - tol: half + tol + 1, :] - mid[..., None, :], axis=-1).max(axis=-1)
    step = np.linalg.norm(right - left, axis=-1) / 2
    return dev / (dev + step + 3.0)


def _split(e: np.ndarray, v: np.ndarray):
    """(evidence, valid) of the 84 inner segments, 24 outer-line segments, 28 continuation segments."""
    li = slice(1, 8)
    si = slice(1, 7)
    inner = (e[:, li, si], v[:, li, si])
    outer_idx = [0, 8]
    outer = (e[:, outer_idx][:, :, si], v[:, outer_idx][:, :, si])
    ext = (e[:, li][:, :, [0, 7]], v[:, li][:, :, [0, 7]])
    return inner, outer, ext


def _alternation(cprof: np.ndarray) -> np.ndarray:
    """Per line (2, 9): +1 where the colours beside it swap sides from one unit segment to the
    next (a line between checkerboard squares), -1 where they keep their sides (an edge)."""
    half = cprof.shape[-2] // 2
    d = cprof[..., half + 4:, :].mean(axis=-2) - cprof[..., : half - 3, :].mean(axis=-2)   # (2, 9, 8, 3)
    d = d[:, :, 1:-1]                                       # the six segments along the field
    dot = (d[:, :, :-1] * d[:, :, 1:]).sum(axis=-1)
    norm = np.linalg.norm(d[:, :, :-1], axis=-1) * np.linalg.norm(d[:, :, 1:], axis=-1)
    return -dot.sum(axis=-1) / np.maximum(norm.sum(axis=-1), 1e-9)


def _lattice_continues(e: np.ndarray, ridge: np.ndarray, cprof: np.ndarray, v: np.ndarray) -> str:
    """Name of a side where the lattice clearly goes on beyond 7x7, or ''.

    It goes on where the line one pitch outside shows (as a line, not an edge:
    the board's own edge may lie there) and the 14 lines run on across the
    border towards it; "shows" is relative to a clear line of this frame.
    """
    inner = e[:, 1:8, 1:7][v[:, 1:8, 1:7]]
    if inner.size == 0:
        return ""
    strength = float(np.percentile(inner, 75))
    on = _on(e, strength) >= 0.5
    on_line = _on(e * np.clip(2 * ridge - 1, 0, 1), strength) >= 0.5
    # ... or a run of edges between squares that alternate (a chessboard's lines need no ink)
    on_line |= on & (_alternation(cprof) > 0.5)[..., None]
    names = {(0, 0): "x = -1 side", (0, 8): "x = 7 side", (1, 0): "y = -1 side", (1, 8): "y = 7 side"}
    for fam in (0, 1):
        for li, seg in ((0, 0), (8, 7)):
            parv = v[fam, li, 1:7]
            extv = v[1 - fam, 1:8, seg]
            if parv.sum() >= 3 and extv.sum() >= 3:
                par = on_line[fam, li, 1:7][parv]
                ext = on[1 - fam, 1:8, seg][extv]
                if par.mean() >= 0.7 and ext.mean() >= 0.6:
                    return names[(fam, li)]
    return ""


_PROBE = np.array([[0.0, 0], [6, 0], [6, 6], [0, 6], [3, 3]])


def _select(ev: _Evidence, cands: list[np.ndarray]) -> tuple[list[tuple[float, np.ndarray]], float | None]:
    """The candidates ranked, best first, and the strength of a clear line in this frame.

    All candidates are ranked by their soft score; the leaders, and each of
    them shifted by one pitch along either axis, are then ranked by counting
    segments on and off, relative to the strength of a clear line (the
    leader's typical inner segment). Strength None: no clear line anywhere
    (the soft ranking is returned).
    """
    scored: list[tuple[float, np.ndarray, np.ndarray]] = []
    probes: list[np.ndarray] = []
    for H in cands:
        if not _plausible(H, ev.w, ev.h):
            continue
        pr = _apply(H, _PROBE)
        if probes and (np.abs(np.array(probes) - pr).max(axis=(1, 2)) < 0.12 * _pitch(H)).any():
            continue                                       # (nearly) the same grid again
        probes.append(pr)
        sc, inner = ev.score(H)
        scored.append((sc, H, inner))
    if not scored:
        return [], None
    scored.sort(key=lambda t: -t[0])
    inner = scored[0][2]
    strength = float(np.percentile(inner, 75)) if inner.size else 0.0
    if strength <= 0.05:
        return [(sc, H) for sc, H, _ in scored], None
    ranked: list[tuple[float, np.ndarray]] = []
    seen: list[np.ndarray] = []
    for _, H0, _ in scored[:6]:
        for dx, dy in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            Hs = H0 @ np.array([[1.0, 0, dx], [0, 1, dy], [0, 0, 1]])
            if not _plausible(Hs, ev.w, ev.h):
                continue
            pr = _apply(Hs, _PROBE)
            if seen and (np.abs(np.array(seen) - pr).max(axis=(1, 2)) < 0.12 * _pitch(Hs)).any():
                continue
            seen.append(pr)
            ranked.append((ev.score(Hs, own_strength(ev, Hs, strength))[0], Hs))
    ranked.sort(key=lambda t: -t[0])
    return ranked, strength


def own_strength(ev: _Evidence, H: np.ndarray, strength: float) -> float:
    """The strength of a clear line for counting the segments of ``H`` on and off: the typical
    (75th percentile) evidence of its own inner segments, within OWN_STRENGTH of the frame's
    ``strength`` and at most that. A board's 14 lines are printed alike; the frame's strength is the
    leading candidate's, and where that lies on stronger strokes beside the board (a table's plank
    joints parallel to one family of lines, a shadow's edge), the board's own thinner lines would
    count as off."""
    _, inner = ev.score(H)
    if not inner.size:
        return strength
    return float(np.clip(np.percentile(inner, 75), OWN_STRENGTH * strength, strength))


def _plausible(H: np.ndarray, w: int, h: int) -> bool:
    """The field is a convex quadrilateral of sensible size, in front of the camera."""
    corners = np.array([[0.0, 0], [6, 0], [6, 6], [0, 6]])
    p = np.column_stack([corners, np.ones(4)]) @ H.T
    if not ((p[:, 2] > 0).all() or (p[:, 2] < 0).all()):
        return False
    q = p[:, :2] / p[:, 2:3]
    if not np.isfinite(q).all():
        return False
    cr = []
    for i in range(4):
        a, b, c = q[i], q[(i + 1) % 4], q[(i + 2) % 4]
        cr.append((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))
    cr = np.array(cr)
    if not ((cr > 0).all() or (cr < 0).all()):
        return False
    P = _pitch(H)
    if not PITCH_MIN_FRAC * 0.7 * max(w, h) <= P <= PITCH_MAX_FRAC * 1.4 * min(w, h):
        return False
    # a camera tilted by at most ~25 degrees: the scale changes little across the field,
    # and a square stays nearly square (generous bounds: 2.2 and 1.6 against 1.6 and 1.12 seen)
    scales = [abs(np.linalg.det(_jacobian(H, x, y))) for x, y in corners]
    if min(scales) <= 0 or math.sqrt(max(scales) / min(scales)) > MAX_SCALE_RATIO:
        return False
    sv = np.linalg.svd(_jacobian(H, 3.0, 3.0), compute_uv=False)
    return bool(sv[0] <= MAX_ANISOTROPY * sv[1])


# =============================================================================
# 5: refinement on line profiles at full resolution
# =============================================================================

def _measure(ev: _Evidence, H: np.ndarray, half_width: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Line positions measured across the 14 lines at full resolution.

    Profiles of the colour-gradient magnitude are sampled across each line at
    five places in each unit segment (away from the points). Each profile is
    added to the one at the same place one segment further on, and the line's
    centre is the sum's centre of symmetry: the peak of its convolution with
    itself (which lies at twice the centre). A thin or thick line, dark or
    light, is symmetric about its centre; on a checkerboard the squares beside
    a line swap sides from one segment to the next, so the sum is symmetric
    even where one edge of the line is much stronger than the other.

    Returns image points (k, 2), family (k,), line index (k,), quality (k,):
    25 places a line, each between two segments' samples. ``half_width``: half
    the profile's extent, in squares.
    """
    P = _pitch(H)
    step = 0.5 / P                                  # half a pixel, in squares
    nsteps = int(math.ceil(half_width / step))
    offs = np.arange(-nsteps, nsteps + 1) * step    # across the line
    S = len(offs)
    along = np.linspace(GAP, 1 - GAP, 5)
    t_along = (np.arange(6)[:, None] + along[None, :]).ravel()        # 30 places along a line
    Li, Tt = np.meshgrid(np.arange(N, dtype=np.float64), t_along, indexing="ij")   # 7 x 30
    pts_list, fam_list, idx_list, q_list = [], [], [], []
    for fam in (0, 1):
        across = Li[..., None] + offs                                  # 7 x 30 x S
        along_ = np.repeat(Tt[..., None], S, axis=2)
        X, Y = (across, along_) if fam == 0 else (along_, across)
        img_pts = _apply(H, np.column_stack([X.ravel(), Y.ravel()]))
        mx = img_pts[:, 0].reshape(-1, S).astype(np.float32)
        my = img_pts[:, 1].reshape(-1, S).astype(np.float32)
        inside = ((mx >= 1) & (mx <= ev.w - 2) & (my >= 1) & (my <= ev.h - 2)).all(axis=1)
        prof = cv2.remap(ev.full, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)   # K x S x 3
        dprof = np.gradient(prof, axis=1)
        mag = np.sqrt((dprof * dprof).sum(axis=2))                                            # K x S
        base = np.median(mag, axis=1, keepdims=True)
        mm = np.clip(mag - base, 0, None).reshape(N, 6, 5, S)
        a = mm[:, :-1].reshape(-1, S) + mm[:, 1:].reshape(-1, S)     # segment j and j + 1
        conv = np.zeros((a.shape[0], 2 * S - 1))
        for k in range(S):
            conv[:, k: k + S] += a[:, k: k + 1] * a
        # centres within the inner half of the window only
        lo_c = S // 2
        sub = conv[:, lo_c: lo_c + S]
        j = sub.argmax(axis=1)
        jj = np.clip(j, 1, sub.shape[1] - 2)
        r = np.arange(len(j))
        ya, yb, yc = sub[r, jj - 1], sub[r, jj], sub[r, jj + 1]
        den = ya - 2 * yb + yc
        frac = np.where(den < 0, 0.5 * (ya - yc) / np.where(den < 0, den, -1.0), 0.0)
        centre = (lo_c + jj + np.clip(frac, -0.5, 0.5)) / 2.0          # index in the profile
        delta = (centre - nsteps) * step
        # quality: the profile's strength at the centre against its median, the weaker of the pair
        magr = mag.reshape(N, 6, 5, S)
        basr = base.reshape(N, 6, 5)
        win = max(1, int(round(0.06 / step)))
        ci = np.clip(np.round(centre).astype(int), win, S - 1 - win)
        qs = []
        for mg, bs in ((magr[:, :-1].reshape(-1, S), basr[:, :-1].ravel()), (magr[:, 1:].reshape(-1, S), basr[:, 1:].ravel())):
            loc = np.stack([mg[r, ci + o] for o in range(-win, win + 1)], axis=1).max(axis=1)
            qs.append((loc - bs) / (loc + bs + 2.0))
        qual = np.minimum(qs[0], qs[1])
        ins = inside.reshape(N, 6, 5)
        ok = (ins[:, :-1] & ins[:, 1:]).ravel() & (j > 0) & (j < sub.shape[1] - 1)
        li = np.repeat(np.arange(N, dtype=np.float64), 25)
        tt = ((Tt.reshape(N, 6, 5)[:, :-1] + Tt.reshape(N, 6, 5)[:, 1:]) / 2).ravel()
        board = np.column_stack([li + delta, tt]) if fam == 0 else np.column_stack([tt, li + delta])
        pts_list.append(_apply(H, board)[ok])
        fam_list.append(np.full(int(ok.sum()), fam))
        idx_list.append(li[ok])
        q_list.append(qual[ok])
    return np.concatenate(pts_list), np.concatenate(fam_list), np.concatenate(idx_list), np.concatenate(q_list)


def _fit_lines(pts: np.ndarray, fam: np.ndarray, idx: np.ndarray, w0: np.ndarray, H0: np.ndarray,
               huber_px: float = 1.0, iters: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Homography whose lines x = idx (fam 0) / y = idx (fam 1) pass through ``pts``.

    Robust IRLS on a linear parametrisation of the inverse homography (image ->
    board); residuals in pixels via the local pitch. Returns (H, residuals_px).
    """
    c = pts.mean(axis=0)
    s = math.sqrt(2) / max(np.sqrt(((pts - c) ** 2).sum(1)).mean(), 1e-9)
    T = np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1]])
    B = np.array([[1 / 3, 0, -1], [0, 1 / 3, -1], [0, 0, 1]])     # board -> normalised board
    q = np.column_stack([pts, np.ones(len(pts))]) @ T.T
    tgt = idx / 3.0 - 1.0
    G = B @ np.linalg.inv(H0) @ np.linalg.inv(T)                 # normalised image -> normalised board
    G /= np.linalg.norm(G)
    for _ in range(iters):
        g3q = q @ G[2]
        num = np.where(fam == 0, q @ G[0], q @ G[1])
        r_board = (num / g3q - tgt) * 3.0
        Hc = np.linalg.inv(np.linalg.inv(B) @ G @ T)
        res_px = r_board * _pitch(Hc / Hc[2, 2])                 # pixels, at the field's scale
        rw = np.where(np.abs(res_px) <= huber_px, 1.0, huber_px / np.maximum(np.abs(res_px), 1e-12))
        ww = w0 * rw / np.maximum(g3q * g3q, 1e-12)
        rows = np.zeros((len(q), 9))
        sel0 = fam == 0
        rows[sel0, 0:3] = q[sel0]
        rows[~sel0, 3:6] = q[~sel0]
        rows[:, 6:9] = -tgt[:, None] * q
        A = rows * np.sqrt(ww)[:, None]
        _, _, vt = np.linalg.svd(A, full_matrices=False)
        Gn = vt[-1].reshape(3, 3)
        if (Gn * G).sum() < 0:
            Gn = -Gn
        G = Gn
    H = np.linalg.inv(np.linalg.inv(B) @ G @ T)
    H /= H[2, 2]
    g3q = q @ G[2]
    num = np.where(fam == 0, q @ G[0], q @ G[1])
    res_px = (num / g3q - tgt) * 3.0 * _pitch(H)
    return H, res_px


def _confirmed_share(ev: _Evidence, H: np.ndarray) -> float:
    """Share of the 14 lines' measurement places (25 a line) where a clear line profile lies
    within a pixel of where H puts the line."""
    pts, fam, idx, qual = _measure(ev, H, 0.12)
    if len(pts) == 0:
        return 0.0
    r = _line_residuals(H, pts, fam, idx)
    return float(((qual >= 0.15) & (np.abs(r) <= 1.0)).sum()) / (2 * N * 25)


def _line_residuals(H: np.ndarray, pts: np.ndarray, fam: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Signed distances (px, along the board normal) of measured points from their lines under H."""
    b = _apply(np.linalg.inv(H), pts)
    return (np.where(fam == 0, b[:, 0], b[:, 1]) - idx) * _pitch(H)


def _refine(ev: _Evidence, H: np.ndarray) -> tuple[np.ndarray, float, int]:
    """Refine H on line profiles; returns (H, RMS residual px of the inliers, measurements used).

    Round 1 fits all 14 lines in wide windows; round 2 only the ten inner lines
    (a frame line printed right beside an outer line can pull its measured
    centre); round 3 adds each outer line back only where its measurements
    agree with the inner lines' prediction.
    """
    resid, n_used = float("nan"), 0
    for rnd, (half_width, huber) in enumerate(((0.25, 2.0), (0.16, 1.0), (0.12, 1.0))):
        pts, fam, idx, qual = _measure(ev, H, half_width)
        good = qual >= 0.15
        if rnd >= 1:
            inner = (idx >= 1) & (idx <= N - 2)
            if rnd == 2:
                r = _line_residuals(H, pts, fam, idx)
                for f in (0, 1):
                    for i in (0, N - 1):
                        sel = good & (fam == f) & (idx == i)
                        if sel.sum() >= 6 and abs(float(np.median(r[sel]))) <= 0.4 + 0.006 * _pitch(H):
                            inner |= (fam == f) & (idx == i)
            good &= inner
        if good.sum() < 40 or len(np.unique(idx[good & (fam == 0)])) < 4 or len(np.unique(idx[good & (fam == 1)])) < 4:
            break
        H_new, r = _fit_lines(pts[good], fam[good], idx[good], qual[good], H, huber_px=huber)
        if not np.isfinite(H_new).all() or not _plausible(H_new, ev.w, ev.h):
            break
        H = H_new
        inl = np.abs(r) <= 3 * huber
        resid = float(np.sqrt(np.mean(r[inl] ** 2))) if inl.any() else float("nan")
        n_used = int(inl.sum())
    return H, resid, n_used
