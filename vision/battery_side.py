"""Which side of each battery is up (printed or blank), where the camera can tell.

Information only: nothing in the game depends on it, so this never changes the
empty/battery reading or whether a board is readable; it adds per point a
probability that the printed side is up, or "unknown".

How it looks: every battery point the reading calls a battery is sampled from the
*camera frame* (not the 24 px/square top view, where the printed mark is a pixel
or two) on a small board-aligned patch at ``PATCH_PPS`` pixels per square. In the
patch:

* the disc is found by colour without a colour constant: the board colour is
  the median of the patches' borders, the battery colour the median of their
  centres, both in *this* frame; a pixel belongs to the disc when its
  chromaticity lies nearer the battery's than the board's;
* the *mark* is measured light-blind: the log colour of the disc's centre minus
  that of a ring inside the disc's rim, with the brightness (grey axis)
  removed. Gain, colour temperature, shadows and a highlight's brightness cancel
  (they change the centre and the ring alike, or only the brightness); a printed
  mark of any colour other than the disc's shows as a chroma step. A blank disc
  scores near zero, up to noise, and the slight paling of a specular highlight;
* the camera *can tell* only when the disc is found, sharp enough (edge blur,
  measured on the disc's own rim, small against the mark's size), large enough
  in the image, not clipped (glare, overexposure) and not drowned in noise
  (dark frames): otherwise the side is "unknown" (probability NaN).

The decision is a logistic model of the mark score, corrected for the rim blur
(a blurred rim mixes board into the ring) and the disc's darkness (log(I + 8)
flattens dark colours); its six weights and the "can tell" limits were fitted
on rendered development frames (seeds 5000-5349), and
``benchmarks/battery_side.py`` measures them on fresh seeds. The score is a
ratio inside one disc, so the model carries no colour of this board or light.
It is stateless: one frame's measurement, no memory of earlier frames (a
battery may be turned over at any time, and the start position need not show
both sides).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from .geometry import N_POINTS, point_coords
from .numeric import median

PATCH_PPS = 32               # patch pixels per square
PATCH_RADIUS = 0.32          # patch half-size in squares: disc (~0.14) + offset + perspective lean
_N = int(2 * PATCH_RADIUS * PATCH_PPS) + 1
_OFF = (np.arange(_N) - (_N - 1) / 2) / PATCH_PPS
_LOG_OFFSET = 8.0            # log(I + 8): as the reader's features, tames the darkest pixels
_BORDER = 4                  # patch border (pixels) that shows the board

# the centre and the ring inside the rim, in units of the disc's radius
CENTRE = 0.45
RING = (0.55, 0.85)

# Fitted on development frames (seeds 5000-5349, random and harsh conditions; see the module
# doc and benchmarks/battery_side.py). The "can tell" limits first, then the logistic model.
MAX_BLUR = 0.028             # rim blur (sigma, in squares) above which the mark is lost
MIN_LEVEL = 12.0             # darkest channel of the disc (grey levels) below which its colour is noise
MAX_CLIPPED = 0.10           # share of the disc's body with a saturated channel (overexposure)
MAX_CLIPPED_CENTRE = 0.15    # share of saturated pixels in the centre (a mark there may be washed white)
MIN_IMAGE_PPS = 30.0         # camera pixels per square below which the disc is too small
MIN_CONTRAST = 0.25          # chroma distance battery-board below which the discs are washed out
# logit = w . (1, score, 100 blur, 100 score blur, f, score f), f = level / (level + 8)
# (a blurred rim mixes board into the ring, a dark disc flattens its colour in log(I + 8))
LOGIT_WEIGHTS = (-6.213, 37.252, 3.82, -0.891, -17.299, 17.382)
DEFAULT_CONFIDENCE = 0.9
SATURATED = 250              # a channel this bright is clipped: no colour there


@dataclass(frozen=True)
class SideMeasure:
    """Per battery point: the raw measurements (for tests and the benchmark)."""

    point: int
    score: float        # chroma step centre vs ring (log units)
    blur: float         # sigma of the disc's rim, in squares
    clipped: float      # share of the disc's body (the ring) with a saturated channel
    clipped_centre: float  # share of saturated pixels in the disc's centre (where the mark is)
    area: float         # disc area in squares^2
    image_pps: float    # camera pixels per square at the point
    contrast: float     # chroma distance between battery and board in this frame
    level: float        # the disc's darkest channel (grey levels; dark discs lose their colour)


@dataclass(frozen=True)
class BatterySides:
    """``printed_prob``: (49,) P(printed side up), NaN where no battery or unknown;
    ``why``: per point, why the side is unknown (None where known or no battery)."""

    printed_prob: np.ndarray
    why: tuple[str | None, ...]
    measures: tuple[SideMeasure, ...] = ()


_MAPS: dict[bytes, np.ndarray] = {}


def _maps(H: np.ndarray):
    """Each point's patch as fixed-point remap tables ((49, N, N, 2), (49, N, N)), and (49,) camera
    px per square."""
    key = H.tobytes()
    hit = _MAPS.get(key)
    if hit is None:
        pts = point_coords()
        xs = pts[:, 0, None, None] + _OFF[None, None, :]
        ys = pts[:, 1, None, None] - _OFF[None, :, None]
        xy = np.stack(np.broadcast_arrays(xs, ys), axis=-1).reshape(-1, 1, 2)
        uv = cv2.perspectiveTransform(xy, H).reshape(N_POINTS * _N, _N, 2).astype(np.float32)
        # fixed-point maps: remap runs several times faster on them
        m1, m2 = cv2.convertMaps(uv, None, cv2.CV_16SC2)
        uv = (m1.reshape(N_POINTS, _N, _N, 2), m2.reshape(N_POINTS, _N, _N))
        step = cv2.perspectiveTransform(np.concatenate([pts, pts + [1.0, 0.0], pts + [0.0, 1.0]]).reshape(-1, 1, 2), H)
        step = step.reshape(3, N_POINTS, 2)
        pps = np.sqrt(np.linalg.norm(step[1] - step[0], axis=1) * np.linalg.norm(step[2] - step[0], axis=1))
        if len(_MAPS) > 8:
            _MAPS.clear()
        hit = _MAPS[key] = (uv, pps)
    return hit


_YY, _XX = np.mgrid[0:_N, 0:_N].astype(np.float32)
_EDGE = np.ones((_N, _N), bool)
_EDGE[_BORDER:-_BORDER, _BORDER:-_BORDER] = False
_MID = (_N - 1) / 2
_P = _N * _N
_CENTRE_PX = ((_XX - _MID) ** 2 + (_YY - _MID) ** 2 < (0.06 * PATCH_PPS) ** 2).ravel()
_INNER = ((_XX - _MID) ** 2 + (_YY - _MID) ** 2 < (0.27 * PATCH_PPS) ** 2).ravel().astype(np.float32)
_EDGE = _EDGE.ravel()
_EDGE_SAMPLE = np.flatnonzero(_EDGE)[::3]
_CENTRE_IDX = np.flatnonzero(_CENTRE_PX)
_X, _Y = _XX.ravel(), _YY.ravel()
_MOMENTS = np.stack([np.ones(_P, np.float32), _X, _Y], axis=1)
# orthonormal chroma axes of log RGB (the grey axis removed); patches are BGR
_CHROMA = np.array([[0.0, -1.0, 1.0], [-2.0, 1.0, 1.0]], np.float32) / np.array([[np.sqrt(2)], [np.sqrt(6)]], np.float32)


def measure(image: np.ndarray, H: np.ndarray, points) -> list[SideMeasure | None]:
    """Measurements of the discs at ``points`` (None where no disc was found). Vectorised over the discs."""
    points = [int(p) for p in points]
    if not points:
        return []
    (m1, m2), pps = _maps(np.asarray(H, np.float64))
    k = len(points)
    patch = cv2.remap(image, m1[points].reshape(k * _N, _N, 2), m2[points].reshape(k * _N, _N), cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REPLICATE)
    logs = cv2.log(patch.astype(np.float32) + _LOG_OFFSET).reshape(k, _P, 3)
    chroma = logs @ _CHROMA.T                                   # (k, P, 2)
    # (np.take: the same values as fancy indexing, a fifth of the time)
    board = median(np.take(chroma, _EDGE_SAMPLE, axis=1).reshape(-1, 2), axis=0)
    battery = median(np.take(chroma, _CENTRE_IDX, axis=1).reshape(-1, 2), axis=0)
    axis = battery - board
    contrast = float(np.linalg.norm(axis))
    a = (axis / max(contrast * contrast, 1e-6)).astype(np.float32)
    t = chroma[..., 0] * a[0] + chroma[..., 1] * a[1] - np.float32(board @ a)  # (k, P): 0 board .. 1 battery
    # the disc: centroid and radius of the battery-coloured mass (a mark inside it is a small hole)
    w = np.clip(t, 0.0, 1.0) * _INNER
    mom = w @ _MOMENTS                                          # (k, 3): mass, sum x, sum y
    mass = mom[:, 0]
    ok = mass > 0.02 * PATCH_PPS**2
    safe = np.maximum(mass, np.float32(1e-6))
    cx, cy = mom[:, 1:2] / safe[:, None], mom[:, 2:3] / safe[:, None]
    r2 = safe[:, None] / np.float32(np.pi)                      # radius^2, pixels^2
    d2 = (_X - cx) ** 2 + (_Y - cy) ** 2                        # (k, P) squared distance from the centre
    # pixels with two or three channels saturated (a highlight, glare, overexposure) have no
    # colour left: left out of the centre and the ring (one clipped channel still leaves a colour)
    pk = patch.reshape(k, _P, 3)
    s0, s1, s2 = pk[..., 0] >= SATURATED, pk[..., 1] >= SATURATED, pk[..., 2] >= SATURATED
    sat = (s0 & s1) | (s0 & s2) | (s1 & s2)
    inside = d2 < CENTRE**2 * r2
    clipped_centre = (sat & inside).sum(axis=1) / np.maximum(inside.sum(axis=1), 1)
    body = (d2 > RING[0] ** 2 * r2) & (d2 < RING[1] ** 2 * r2)
    # the disc's own colour clipped (overexposure): its colour ratios, and a highlight's, are off
    clipped = ((s0 | s1 | s2) & body).sum(axis=1) / np.maximum(body.sum(axis=1), 1)
    weights = np.stack([inside & ~sat, body & ~sat], axis=1).astype(np.float32)  # (k, 2, P): centre, ring
    nc, nr = weights.sum(axis=2).T
    ok &= (nc >= 4) & (nr >= 8)
    means = np.einsum("kwp,kpc->kwc", weights, chroma) / np.maximum(np.stack([nc, nr], 1), 1)[..., None]
    score = np.linalg.norm(means[:, 0] - means[:, 1], axis=1)
    # how dark the disc is: its darkest channel (mean over the ring), where log(I + 8) flattens colour
    darkest = np.minimum(np.minimum(pk[..., 0], pk[..., 1]), pk[..., 2]).astype(np.float32)
    level = np.einsum("kp,kp->k", darkest, weights[:, 1]) / np.maximum(nr, 1)
    # the rim's blur: for a unit step blurred by sigma, sum(g) / sum(g^2) = 2 sigma sqrt(pi)
    tt = np.ascontiguousarray(t).reshape(k * _N, _N)
    gx = cv2.Sobel(tt, cv2.CV_32F, 1, 0, ksize=1, scale=0.5)
    gy = cv2.Sobel(tt, cv2.CV_32F, 0, 1, ksize=1, scale=0.5)
    band = ((d2 > 0.36 * r2) & (d2 < 2.25 * r2)).astype(np.float32)
    g = cv2.magnitude(gx, gy).reshape(k, _P) * band
    blur = g.sum(axis=1) / np.maximum(np.einsum("kp,kp->k", g, g), 1e-9) / (2 * np.sqrt(np.pi)) / PATCH_PPS
    out: list[SideMeasure | None] = []
    for j, p in enumerate(points):
        if not ok[j]:
            out.append(None)
            continue
        out.append(SideMeasure(
            point=p,
            score=float(score[j]),
            blur=float(blur[j]),
            clipped=float(clipped[j]),
            clipped_centre=float(clipped_centre[j]),
            area=float(mass[j]) / PATCH_PPS**2,
            image_pps=float(pps[p]),
            contrast=contrast,
            level=float(level[j]),
        ))
    return out


def side_probability(m: SideMeasure) -> tuple[float, str | None]:
    """(P(printed), None), or (NaN, why the camera cannot tell)."""
    if m.image_pps < MIN_IMAGE_PPS:
        return float("nan"), f"disc too small in the image ({m.image_pps:.0f} px per square)"
    if m.contrast < MIN_CONTRAST:
        return float("nan"), "batteries washed out (little colour against the board)"
    if m.clipped > MAX_CLIPPED or m.clipped_centre > MAX_CLIPPED_CENTRE:
        return float("nan"), f"disc overexposed or under glare ({max(m.clipped, m.clipped_centre):.0%} saturated)"
    if m.blur > MAX_BLUR:
        return float("nan"), f"disc blurred (rim sigma {m.blur:.3f} squares)"
    if m.level < MIN_LEVEL:
        return float("nan"), f"disc too dark (darkest channel {m.level:.0f} of 255)"
    f = m.level / (m.level + _LOG_OFFSET)
    x = (1.0, m.score, 100 * m.blur, 100 * m.score * m.blur, f, m.score * f)
    # (plain floats: numpy's dot, clip and exp of six scalars cost more than the arithmetic)
    z = sum(w * v for w, v in zip(LOGIT_WEIGHTS, x))
    return 1.0 / (1.0 + math.exp(-min(max(z, -50.0), 50.0))), None


def read_battery_sides(image: np.ndarray, H: np.ndarray, point_probs: np.ndarray) -> BatterySides:
    """Sides of the batteries the reading's ``point_probs`` (49x2) calls batteries."""
    pts = [int(i) for i in np.flatnonzero(np.asarray(point_probs)[:, 1] > 0.5)]
    probs = np.full(N_POINTS, np.nan)
    why: list[str | None] = [None] * N_POINTS
    measures = []
    for p, m in zip(pts, measure(image, H, pts)):
        if m is None:
            why[p] = "no disc found"
            continue
        measures.append(m)
        probs[p], why[p] = side_probability(m)
    probs.setflags(write=False)
    return BatterySides(probs, tuple(why), tuple(measures))


def with_battery_sides(reading, image: np.ndarray, calibration):
    """``reading`` with its battery sides filled in (the reader's one hook).

    Never raises for a frame the reader could read: any failure leaves the sides unknown.
    """
    try:
        sides = read_battery_sides(image, calibration.H, reading.point_probs)
    except (cv2.error, ValueError, np.linalg.LinAlgError) as exc:  # information only: never break a read
        why = f"side not measured ({type(exc).__name__})"
        return replace(reading, printed_probs=np.full(N_POINTS, np.nan),
                       side_unknown_why=tuple(why if pp[1] > 0.5 else None for pp in reading.point_probs))
    return replace(reading, printed_probs=sides.printed_prob, side_unknown_why=sides.why)
