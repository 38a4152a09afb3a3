"""How far each point stands apart from the frame's other points, seen square to the board.

Every point of a set carries the same print (a crossing of lines, a printed
circle, a ring ...), whatever that print is. Cut square to the board (not
turned towards the camera, as the nets' patches are) and turned by quarter
turns so that the board's edge lies on the same side, the points of one kind
(inside, on an edge, in a corner) show that print in the same place, and most
of them are empty in any position (35 of 49 hold no battery at the start, and
a game takes batteries away): their pixelwise median is the frame's empty
point, in this frame's light. A battery, wherever on its point it stands and
whatever its colour, is a blob that differs from that median; an empty point
differs from it by camera noise, the light across the board and whatever
leans in from the squares beside it.

:class:`Unlikeness` gives, per point, the largest and a high quantile of that
difference (summed over the log colour's channels, blurred over a battery's
size) within a battery's reach of the point, each over its median among the
frame's 49 points: what a battery or its absence leaves that no net has to
have learned, for the verdict to weigh (``p_apart``, ``p_apart_hi``).

A robot on a square beside a point leans into the point's patch (its body, seen from the camera, covers
the board plane between its foot and where its top appears: its *camera shadow*) and sets an empty
point apart as a battery would. :meth:`Unlikeness.free` takes the largest difference again with the
camera shadows of the robots beside the point left out (``p_apart_free``): a battery stands on its
point, so most of it lies outside them. A robot's shadow on the board under the lamp, which no camera
geometry places, darkens the board alike in every channel of the log colour; the same difference with
each pixel's mean over the channels taken off (its *tint*, ``p_apart_tint``, also outside the camera
shadows) leaves such a shade out, and a battery of another colour than the board's in.
Geometry only: nothing here knows what a board, a print or a piece looks like.
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from ..geometry import field_neighbours, point_coords
from .fieldnet import _LOG as LOG
from .patches import shadow_distance

N = 49
SIDE = 7                   # points per row
HIGH = 95                  # the high quantile taken beside the largest difference (percent)
BLUR = 5                   # patch pixels the difference is averaged over (a small battery is 6-8 px wide)


def _kind(i: int) -> int:
    """0 inside, 1 on an edge, 2 in a corner."""
    x, y = i % SIDE, i // SIDE
    return int(x in (0, SIDE - 1)) + int(y in (0, SIDE - 1))


KINDS = np.array([_kind(i) for i in range(N)])


def _outside(offsets: tuple[np.ndarray, np.ndarray], i: int) -> np.ndarray:
    """(P, P) bool: the pixels of point ``i``'s board-aligned patch that lie off the field."""
    u, v = offsets
    x, y = i % SIDE + u, i // SIDE + v
    return (x < 0) | (x > SIDE - 1) | (y < 0) | (y > SIDE - 1)


def quarter_turns(offsets: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """(49,) how many quarter turns (``np.rot90``) bring each point's patch to its kind's first
    point's orientation (the field's edge on the same side): found from the patch geometry."""
    first: dict[int, np.ndarray] = {}
    turns = np.zeros(N, np.int64)
    for i in range(N):
        out = _outside(offsets, i)
        ref = first.setdefault(int(KINDS[i]), out)
        turns[i] = min(range(4), key=lambda k: int(np.count_nonzero(np.rot90(out, k) != ref)))
    return turns


def _middle(values: np.ndarray) -> np.ndarray:
    """The middle value along axis 0 (the upper of the two middle ones for an even count): a median
    by one partial sort, a tenth of ``np.median``'s time on a frame's patches."""
    k = len(values) // 2
    return np.partition(values, k, axis=0)[k]


class Apart(NamedTuple):
    """A frame's points measured by :meth:`Unlikeness.measure`."""

    stats: np.ndarray       # (49, 2) the largest and the high difference within reach, over the frame's median
    blurred: np.ndarray     # (49, P * P) the blurred differences, the points kind by kind and turned (Unlikeness.order)
    tint: np.ndarray        # (49, P * P) the same of the differences less their mean over the channels


class Shadows(NamedTuple):
    """Where the robots beside each point may cover its patch (:meth:`Unlikeness.shadows`)."""

    squares: np.ndarray     # (49, 4) the squares a point is a corner of, -1 past the last (in Unlikeness.order)
    masks: np.ndarray       # (49, 4, P * P) bool: the pixels a robot on that square may cover (turned as the patches)


class Unlikeness:
    """Each point's largest and :data:`HIGH` percent difference from its kind's median point within
    ``reach`` (board units, the battery's reach) of the point, over the frame's median of each: call it
    with the frame's (49, P, P, 3) uint8 patches cut square to the board
    (:meth:`vision.anyset.patches.PatchCutter.aligned_points`; ``offsets`` their pixels' board offsets,
    :func:`vision.anyset.patches.aligned_offsets`) for a (49, 2) array, NaN where a value cannot be
    had (a frame of one flat colour). The patches' turns and the points' order by kind are worked out
    once, so that a frame takes two gathers, three partial sorts and a blur (about 2 ms)."""

    def __init__(self, offsets: tuple[np.ndarray, np.ndarray], reach: float) -> None:
        turns = quarter_turns(offsets)
        u, v = offsets
        disc = u ** 2 + v ** 2 <= reach ** 2
        p = disc.shape[0]
        self.size = p
        self.order = np.argsort(KINDS, kind="stable")                    # the points, kind by kind
        self.bounds = np.searchsorted(KINDS[self.order], np.arange(4))
        pixels = np.arange(p * p).reshape(p, p)
        turned = np.stack([np.rot90(pixels, int(turns[i])).ravel() for i in range(N)])
        # row j of the gathered array is point order[j] turned: pixel k of it is pixel turned[.., k]
        self.gather = (self.order[:, None] * (p * p) + turned[self.order]).ravel()
        self.rim = (~disc).ravel().astype(np.float32)                     # the pixels outside the reach
        self.inside = np.flatnonzero(disc.ravel())
        self.disc = disc.ravel()
        self.high = int(round(len(self.inside) * HIGH / 100.0)) - 1
        self.offsets = (np.asarray(u, np.float64), np.asarray(v, np.float64))
        self.turned = turned[self.order]                                  # (49, P * P) as gathered

    def __call__(self, patches: np.ndarray) -> np.ndarray:
        """(49, 2) the largest and the high difference of each point, over the frame's median of each."""
        return self.measure(patches).stats

    def measure(self, patches: np.ndarray) -> Apart:
        """The frame's points' differences (:class:`Apart`): their figures and the blurred differences
        :meth:`free` takes again where robots stand."""
        p, n = self.size, N
        lg = cv2.LUT(np.ascontiguousarray(patches), LOG).reshape(n * p * p, 3).T    # log colour, by channel
        x = np.take(lg, self.gather, axis=1).reshape(3 * n, p * p)        # (channel, point) rows
        x -= ((x @ self.rim) / self.rim.sum())[:, None]   # each patch's own light level, outside the reach
        x = x.reshape(3, n, p * p)
        diff = np.empty((n, p * p), np.float32)
        tint = np.empty((n, p * p), np.float32)
        for a, b in zip(self.bounds[:-1], self.bounds[1:]):
            members = x[:, a:b]
            d = members - _middle(members.transpose(1, 0, 2))[:, None, :]
            diff[a:b], tint[a:b] = _summed_abs(d)
        blurred = cv2.blur(diff.reshape(n * p, p), (BLUR, BLUR), borderType=cv2.BORDER_REPLICATE)
        tint = cv2.blur(tint.reshape(n * p, p), (BLUR, BLUR), borderType=cv2.BORDER_REPLICATE)
        inside = np.take(blurred.reshape(n, p * p), self.inside, axis=1)
        stats = np.empty((n, 2), np.float32)
        stats[self.order, 0] = inside.max(axis=1)
        stats[self.order, 1] = np.partition(inside, self.high, axis=1)[:, self.high]
        return Apart(_over_typical(stats), blurred.reshape(n, p * p), tint.reshape(n, p * p))

    def shadows(self, feet: np.ndarray, tops: np.ndarray, radius: float) -> Shadows:
        """Which pixels of each point's patch a robot on each square it is a corner of may cover: those
        within ``radius`` (board units) of the segment from the square's foot ``feet`` (36, 2) to where
        the camera sees a robot's top ``tops`` (36, 2) on the board plane (the robot's camera shadow,
        :func:`vision.anyset.patches.camera_shadows`). Worked out once per camera pose."""
        offsets = np.stack(self.offsets, axis=-1)                        # (P, P, 2)
        pts, corners = point_coords(), field_neighbours()[:36, 36:]
        squares = np.full((N, 4), -1, np.int64)
        masks = np.zeros((N, 4, self.size * self.size), bool)
        for j, i in enumerate(self.order):
            for c, s in enumerate(np.flatnonzero(corners[:, i])):
                near = shadow_distance(pts[i] + offsets, feet[s], tops[s]) < radius
                squares[j, c] = s
                masks[j, c] = near.ravel()[self.turned[j]]
        return Shadows(squares, masks)

    def free(self, apart: Apart, shadows: Shadows, robots: np.ndarray) -> np.ndarray:
        """(49, 2) each point's largest difference and largest tint difference within reach outside the
        camera shadows of the robots beside it (``robots``: (36,) bool, the squares that hold one), each
        over the frame's median of the same; NaN where the shadows leave no pixel within reach (or no
        value can be had)."""
        occupied = (shadows.squares >= 0) & np.asarray(robots, bool)[np.maximum(shadows.squares, 0)]
        covered = (shadows.masks & occupied[:, :, None]).any(axis=1)          # (49, P * P)
        seen = self.disc[None, :] & ~covered
        values = np.empty((N, 2), np.float32)
        for k, maps in enumerate((apart.blurred, apart.tint)):
            largest = np.where(seen, maps, -np.inf).max(axis=1)
            values[self.order, k] = np.where(np.isfinite(largest), largest, np.nan)
        return _over_typical(values)


def _over_typical(stats: np.ndarray) -> np.ndarray:
    """(n, k) each column over its median among the points (NaN where the median is none or zero)."""
    if np.isnan(stats).any():
        typical = np.array([np.median(c[np.isfinite(c)]) if np.isfinite(c).any() else np.nan for c in stats.T])
    else:
        typical = _middle(stats)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = stats / typical[None, :]
    return np.where(np.isfinite(out) & (typical[None, :] > 1e-6), out, np.nan)


def _summed_abs(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(m, PP) twice: the absolute values of ``d`` (3, m, PP, by channel) summed over the channels, and
    the same of ``d`` less its mean over the channels (its tint); ``d`` is overwritten."""
    mean = (d[0] + d[1] + d[2]) * np.float32(1.0 / 3.0)
    whole = np.abs(d[0]) + np.abs(d[1]) + np.abs(d[2])
    d -= mean[None]
    np.abs(d, out=d)
    return whole, d[0] + d[1] + d[2]
