"""Board-aligned patches of every square and point, as the field classifier sees them.

One function of the camera geometry and the frame, shared by the reader and
by the training data generator (``training/``), so that both cut the very same
patches:

* a **square patch** covers ``SQUARE_SPAN`` x ``SQUARE_SPAN`` board units
  around the square's centre at ``PATCH`` x ``PATCH`` pixels (the square, half
  of each neighbour: a tall piece leaning away from the camera stays inside);
* a **point patch** covers ``POINT_SPAN`` x ``POINT_SPAN`` around the point at
  ``POINT_PATCH`` x ``POINT_PATCH`` pixels (32 px per square); a points net
  trained with ``--fine`` takes them at ``FINE_POINT_PATCH`` (64 px per square,
  about what a camera at 1280x960 gives: a battery 0.12 of a square across is
  8 px wide there, 4 px at 24), and the reader's ``POINT_PATCH`` must then be
  set to that (``training/fielddata.py --point-patch`` makes such data).

Each patch is turned so that *up* in the patch is the direction in which
standing things lean away from the camera at that field (the camera's foot on
the board plane lies straight below the patch): pieces look the same at every
field and under every camera rotation, and the lean's length per unit of
height is passed along (``lean``). The camera is recovered from the plane's
homography alone (square pixels, principal point in the image centre; the
focal length from the homography's orthogonality, or a usual lens where the
view is too straight down to tell, which is exactly where the lean is small
anyway).

Nothing here knows what a board, a piece or a colour looks like: it is
geometry only.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..geometry import field_neighbours, point_coords, square_centers

PATCH = 24                 # pixels per square patch side
POINT_PATCH = 24           # pixels per point patch side: the shipped points net's (FINE_POINT_PATCH for a --fine net)
FINE_POINT_PATCH = 48
SQUARE_SPAN = 2.0          # board units covered by a square patch
POINT_SPAN = 0.75          # board units covered by a point patch
DEFAULT_FOCAL = 1.0        # focal length in image widths where the homography cannot tell (straight down)


@dataclass(frozen=True)
class CameraPose:
    """The camera as the board's homography reveals it (board units)."""

    centre: np.ndarray        # (3,) camera centre; z = height above the board plane
    focal: float              # pixels
    focal_known: bool         # False: the view is too straight down to measure it, a usual lens assumed


def camera_pose(H: np.ndarray, size: tuple[int, int]) -> CameraPose:
    """Camera centre from the board->pixel homography, principal point at the image centre."""
    w, h = size
    T = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]], np.float64)
    G = T @ np.asarray(H, np.float64)
    G = G / np.linalg.norm(G[:, :2])
    h11, h12, h21, h22, h31, h32 = G[0, 0], G[0, 1], G[1, 0], G[1, 1], G[2, 0], G[2, 1]
    cands = []
    d1 = h31 * h32
    if abs(d1) > 1e-12:
        cands.append((-(h11 * h12 + h21 * h22) / d1, abs(d1)))
    d2 = h31 ** 2 - h32 ** 2
    if abs(d2) > 1e-12:
        cands.append(((h12 ** 2 + h22 ** 2 - h11 ** 2 - h21 ** 2) / d2, abs(d2)))
    good = [(f2, wt) for f2, wt in cands if 0.09 * w * w < f2 < 16 * w * w]
    # the constraints are only informative when the plane is seen at a slant: h31, h32 are the
    # perspective terms; a straight-down view has them ~0 and any focal length fits
    slant = float(np.hypot(h31, h32) * w)
    if good and slant > 0.05:
        f = float(np.sqrt(sum(f2 * wt for f2, wt in good) / sum(wt for _, wt in good)))
        known = True
    else:
        f = DEFAULT_FOCAL * w
        known = False
    K_inv = np.diag([1 / f, 1 / f, 1.0])
    B = K_inv @ G
    s = 2.0 / (np.linalg.norm(B[:, 0]) + np.linalg.norm(B[:, 1]))
    r1, r2, t = B[:, 0] * s, B[:, 1] * s, B[:, 2] * s
    if t[2] < 0:                       # the board lies in front of the camera
        r1, r2, t = -r1, -r2, -t
    r3 = np.cross(r1, r2)
    R = np.stack([r1, r2, r3], axis=1)
    U, _, Vt = np.linalg.svd(R)
    R = U @ Vt
    C = -R.T @ t
    if C[2] < 0:                       # board units with z up: the camera is above the board
        C = C * np.array([1, 1, -1])
    return CameraPose(C, f, known)


def lean_vectors(pose: CameraPose, xy: np.ndarray) -> np.ndarray:
    """(n, 2) where on the board plane the top of a thing of unit height at ``xy`` appears,
    relative to its foot, per unit of height (seen from the camera)."""
    xy = np.asarray(xy, np.float64).reshape(-1, 2)
    C = pose.centre
    return (xy - C[:2]) / max(float(C[2]), 1e-6)


def camera_shadows(pose: CameraPose, height: float) -> tuple[np.ndarray, np.ndarray]:
    """((36, 2), (36, 2)) the axis of the "camera shadow" of a thing ``height`` tall standing at each
    square's centre: on the board plane, from its foot to where the camera sees its top's centre."""
    sq = square_centers()
    C = pose.centre
    up = max(float(C[2]) - height, 1e-6)
    return sq, sq + (sq - C[:2]) * (height / up)


def shadow_distance(xy: np.ndarray, feet: np.ndarray, tops: np.ndarray) -> np.ndarray:
    """How far each place ``xy`` (..., 2) lies from the axis of a camera shadow, the segment from
    ``feet`` to ``tops`` (..., 2; :func:`camera_shadows`), all broadcast together (board units)."""
    axis = tops - feet
    rel = xy - feet
    ll = np.maximum((axis * axis).sum(axis=-1), 1e-12)
    t = np.clip((rel * axis).sum(axis=-1) / ll, 0.0, 1.0)
    return np.linalg.norm(rel - t[..., None] * axis, axis=-1)


def corner_gaps(pose: CameraPose, height: float) -> np.ndarray:
    """(36, 49): how far each square's corner points lie from the axis of the "camera shadow" of a
    thing ``height`` tall standing at the square's centre (on the board plane, the capsule from its
    foot to where the camera sees its top: :func:`camera_shadows`); inf for the points that are not
    its corners."""
    sq, top = camera_shadows(pose, height)
    gap = shadow_distance(point_coords()[None, :, :], sq[:, None, :], top[:, None, :])   # (36, 49)
    return np.where(field_neighbours()[:36, 36:], gap, np.inf)


def hideable_corners(pose: CameraPose, height: float, radius: float, margin: float) -> np.ndarray:
    """(36, 49) bool: which of each square's corner points a robot standing on it could hide from the
    camera: a standing cylinder of ``radius`` and ``height`` hides, on the board plane, the capsule
    from its foot to where the camera sees its top (its "camera shadow"); a corner point within
    ``radius + margin`` of that capsule's axis (:func:`corner_gaps`; ``margin``: the robot need not
    stand at its square's centre) may lie in it. Geometry only: no look."""
    return corner_gaps(pose, height) < radius + margin


def _frames(pose: CameraPose, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per field: unit vectors e1 (patch right), e2 (patch up = away from the camera), lean length."""
    lean = lean_vectors(pose, xy)
    n = np.linalg.norm(lean, axis=1)
    e2 = np.where(n[:, None] > 1e-9, lean / np.maximum(n, 1e-12)[:, None], np.array([0.0, 1.0]))
    e1 = np.stack([e2[:, 1], -e2[:, 0]], axis=1)
    return e1, e2, n


def aligned_offsets() -> tuple[np.ndarray, np.ndarray]:
    """((P, P), (P, P)) each pixel's offset in board units (+x, +y) from its point in the patches of
    :meth:`PatchCutter.aligned_points`."""
    return _offsets(POINT_SPAN, FINE_POINT_PATCH)


def _offsets(span: float, size: int) -> tuple[np.ndarray, np.ndarray]:
    c = ((np.arange(size) + 0.5) / size - 0.5) * span
    u = np.broadcast_to(c[None, :], (size, size))        # right
    v = np.broadcast_to(-c[:, None], (size, size))       # up (row 0 at the top)
    return u, v


class _Group:
    """Remap tables cutting one kind of patch (squares or points) out of a frame."""

    def __init__(self, H: np.ndarray, size: tuple[int, int], centres: np.ndarray, e1, e2, span: float,
                 patch: int = PATCH, most: float = 1.5) -> None:
        u, v = _offsets(span, patch)
        self.patch = patch
        bx = centres[:, 0, None, None] + u[None] * e1[:, 0, None, None] + v[None] * e2[:, 0, None, None]
        by = centres[:, 1, None, None] + u[None] * e1[:, 1, None, None] + v[None] * e2[:, 1, None, None]
        pts = np.stack([bx.ravel(), by.ravel(), np.ones(bx.size)], axis=0)
        q = np.asarray(H, np.float64) @ pts
        px, py = q[0] / q[2], q[1] / q[2]
        # image pixels per patch pixel: shrink the frame first by a whole factor (an area average,
        # whose whole-factor path is fast), so that the remap samples at most ``most`` source pixels
        # per patch pixel (no aliasing of fine print or noise; the point patches, whose detail
        # counts, take up to 2 before the frame is shrunk)
        step = np.hypot(np.diff(px.reshape(-1, patch), axis=1), np.diff(py.reshape(-1, patch), axis=1))
        per = float(np.median(step))
        self.factor = max(1, int(np.ceil(per / most - 1e-9)))
        k = self.factor
        w, h = size
        x0 = int(max(0, np.floor(px.min()) - 2))
        y0 = int(max(0, np.floor(py.min()) - 2))
        x1 = int(min(w, np.ceil(px.max()) + 3))
        y1 = int(min(h, np.ceil(py.max()) + 3))
        if x1 <= x0 + k or y1 <= y0 + k:
            x0, y0, x1, y1 = 0, 0, w, h
        x1 = x0 + (x1 - x0) // k * k          # a whole number of k x k cells
        y1 = y0 + (y1 - y0) // k * k
        self.roi = (x0, y0, x1, y1)
        self.small = ((x1 - x0) // k, (y1 - y0) // k)
        mx = (px - x0 + 0.5) / k - 0.5
        my = (py - y0 + 0.5) / k - 0.5
        n = centres.shape[0]
        self.mapx = mx.reshape(n * patch, patch).astype(np.float32)
        self.mapy = my.reshape(n * patch, patch).astype(np.float32)
        self.n = n
        self.inside = (px >= 0) & (px <= w - 1) & (py >= 0) & (py <= h - 1)

    def cut(self, image: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """(n, patch, patch, channels) the patches of ``image``; ``rows``: only those patches are cut
        (the others left zero; each pixel is sampled alone, so a patch is the same either way)."""
        x0, y0, x1, y1 = self.roi
        roi = image[y0:y1, x0:x1]
        if self.factor > 1:
            roi = cv2.resize(roi, self.small, interpolation=cv2.INTER_AREA)
        if rows is None:
            out = cv2.remap(roi, self.mapx, self.mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            return out.reshape(self.n, self.patch, self.patch, -1)
        rows = np.asarray(rows, np.int64)
        p = self.patch
        mx = np.ascontiguousarray(self.mapx.reshape(self.n, p, p)[rows].reshape(-1, p))
        my = np.ascontiguousarray(self.mapy.reshape(self.n, p, p)[rows].reshape(-1, p))
        part = cv2.remap(roi, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        out = np.zeros((self.n, p, p) + part.shape[2:], part.dtype)
        out[rows] = part.reshape((len(rows), p, p) + part.shape[2:])
        return out


class PatchCutter:
    """Cuts the 36 square patches and 49 point patches of a frame for one camera set-up."""

    def __init__(self, H: np.ndarray, size: tuple[int, int], point_patch: int = POINT_PATCH) -> None:
        self.H = np.asarray(H, np.float64)
        self.size = (int(size[0]), int(size[1]))
        self.pose = camera_pose(self.H, self.size)
        sq, pt = square_centers(), point_coords()
        e1, e2, self.square_lean = _frames(self.pose, sq)
        self._squares = _Group(self.H, self.size, sq, e1, e2, SQUARE_SPAN)
        self.square_axes = np.stack([e1, e2], axis=1)          # (36, 2, 2): patch right / up in board units
        e1, e2, self.point_lean = _frames(self.pose, pt)
        self.point_patch = int(point_patch)
        self._points = _Group(self.H, self.size, pt, e1, e2, POINT_SPAN, self.point_patch,
                              2.0 if self.point_patch > PATCH else 1.5)
        # the same span at the squares' resolution, cut as the squares are: the reader's "looks as
        # before" tests were measured on such patches (a 2x2 average of finer ones is noisier)
        self._coarse_points = self._points if self.point_patch == PATCH else _Group(self.H, self.size, pt, e1, e2,
                                                                                   POINT_SPAN)
        self.point_axes = np.stack([e1, e2], axis=1)
        self._fine_args = (pt, e1, e2)
        self._fine: _Group | None = None       # made when first asked for (the fine second look)
        self._aligned: _Group | None = None    # and the points cut square to the board (vision.anyset.apart)

    def squares(self, image: np.ndarray) -> np.ndarray:
        """(36, PATCH, PATCH, 3) uint8."""
        return self._squares.cut(image)

    def points(self, image: np.ndarray) -> np.ndarray:
        """(49, point_patch, point_patch, 3) uint8."""
        return self._points.cut(image)

    def coarse_points(self, image: np.ndarray) -> np.ndarray:
        """(49, PATCH, PATCH, 3) uint8: the point patches at the squares' resolution."""
        return self._coarse_points.cut(image)

    def fine_points(self, image: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """(49, FINE_POINT_PATCH, FINE_POINT_PATCH, 3) uint8: the point patches at twice the
        resolution of the nets' grid (the same span; the reader's fine second look); ``rows``: only
        those points' patches are cut, the others left zero."""
        if self.point_patch == FINE_POINT_PATCH:
            return self._points.cut(image, rows)
        if self._fine is None:
            pt, e1, e2 = self._fine_args
            self._fine = _Group(self.H, self.size, pt, e1, e2, POINT_SPAN, FINE_POINT_PATCH, 2.0)
        return self._fine.cut(image, rows)

    def aligned_points(self, image: np.ndarray) -> np.ndarray:
        """(49, FINE_POINT_PATCH, FINE_POINT_PATCH, 3) uint8: the point patches at the fine look's
        resolution, *not* turned towards the camera: patch right is the board's +x, patch up its +y
        (:func:`aligned_offsets` gives each pixel's board offset), so that the same print lies the same
        way at every point (:mod:`vision.anyset.apart`)."""
        if self._aligned is None:
            pt = point_coords()
            e1 = np.tile(np.array([[1.0, 0.0]]), (len(pt), 1))
            e2 = np.tile(np.array([[0.0, 1.0]]), (len(pt), 1))
            self._aligned = _Group(self.H, self.size, pt, e1, e2, POINT_SPAN, FINE_POINT_PATCH, 2.0)
        return self._aligned.cut(image)

    def cut(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.squares(image), self.points(image)

    def cut_with_coarse(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The square patches, the point patches and the point patches at the squares' resolution
        (the very same array where the point patches are that size: cut once)."""
        sq, pt = self.cut(image)
        return sq, pt, pt if self._coarse_points is self._points else self.coarse_points(image)
