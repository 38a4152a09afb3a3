"""A synthetic camera: draws a board layout the way a camera above the table sees it.

Used by tests, benchmarks and the demo. Everything is deterministic from the
seed: ``seed`` fixes the *setup* (camera pose, board and table, lamp, marker
size); the layout fixes where each piece stands (so a still board renders
identically apart from sensor noise); ``frame`` varies sensor noise and the
hand. Degradations are keyword arguments (see :class:`Degradations`); any that
is not given is drawn at random from a moderate range by the seed.

The scene is modelled in board units (1 = one square, point A1 at the origin,
x along the files, y along the ranks, z up), projected with a pinhole camera
(tilt up to 25 degrees, any rotation about the optical axis). The board plane
(wood, printed energy lines, marker cards, table) is a texture warped by the
plane's homography; robots and batteries are 3-D prisms drawn facet by facet
with Lambert shading, specular highlights and hard shadows cast by the lamp.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from dataclasses import dataclass, field, fields, replace

import cv2
import numpy as np

from .geometry import FIELD_CORNERS
from .layout import BoardLayout, PointState, SquareState
from .markers import MARKER_DICT, marker_world_corners

# Physical sizes in board units.
ROBOT_RADIUS = 0.27
ROBOT_HEIGHT = 0.30
HEAD_RADIUS = 0.17
HEAD_HEIGHT = 0.08
BATTERY_RADIUS = 0.14
BATTERY_HEIGHT = 0.07
BOARD_BORDER = 0.75          # wooden frame beyond the 6x6 field
TEX_PPU = 56                 # texture pixels per board unit
TEX_MIN, TEX_MAX = -7.0, 13.0

WHITE_ROBOT = np.array([232, 226, 212], np.float32)   # RGB, ivory plastic
BLACK_ROBOT = np.array([38, 36, 40], np.float32)       # dark plastic
BATTERY = np.array([196, 38, 34], np.float32)          # red discs
BATTERY_PRINT = np.array([245, 205, 60], np.float32)   # yellow bolt on the printed side


@dataclass(frozen=True)
class Degradations:
    """Photographic conditions. ``None`` = drawn from the seed (moderate range)."""

    tilt: float | None = None          # degrees from looking straight down, 0..25
    rotation: float | None = None      # degrees about the optical axis, any
    light: float | None = None         # global brightness factor (1 = as usual)
    color_temp: float | None = None    # -1 (cold, bluish) .. +1 (warm, reddish)
    uneven: float | None = None        # strength of the light gradient / vignette, 0..0.6
    shadow: float | None = None        # depth of an external hard shadow, 0 (none)..0.6
    glare: float | None = None         # peak of a lamp reflection, 0..1
    noise: float | None = None         # sensor noise sigma in grey levels
    blur: float | None = None          # Gaussian blur sigma in pixels
    jpeg: int | None = None            # JPEG quality 0..100 (100 = no compression)
    offset: float | None = None        # max piece offset from centre, in squares (<= 0.25 by default)
    piece_rotation: bool = True        # robots turned at random
    motion: float = 0.0                # motion blur length in pixels (camera shake / hand in motion)
    zoom: float | None = None          # fraction of the frame the board fills, 0.55..0.95
    marker_size: float | None = None   # marker side in board units


@dataclass(frozen=True)
class RenderedFrame:
    """A rendered frame and the truth about it."""

    image: np.ndarray                  # HxWx3 uint8, BGR like a cv2 camera frame
    corners_px: np.ndarray             # (4, 2) pixel coordinates of A1, G1, G7, A7
    layout: BoardLayout
    homography: np.ndarray             # board units -> pixels (board plane z = 0)
    hand: bool
    conditions: Degradations = field(default_factory=Degradations)
    battery_printed: tuple[bool, ...] = ()   # per point: printed side up (only meaningful with a battery)


def _rng(*parts: object) -> np.random.Generator:
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


# -- camera ------------------------------------------------------------------

@dataclass(frozen=True)
class Camera:
    K: np.ndarray
    R: np.ndarray
    C: np.ndarray

    def project(self, pts: np.ndarray) -> np.ndarray:
        pts = np.asarray(pts, np.float64).reshape(-1, 3)
        xc = (pts - self.C) @ self.R.T
        z = np.maximum(xc[:, 2:3], 1e-6)
        uv = xc[:, :2] / z
        return uv * np.array([self.K[0, 0], self.K[1, 1]]) + self.K[:2, 2]

    def plane_homography(self) -> np.ndarray:
        """Board plane (x, y, z=0) -> pixels."""
        t = -self.R @ self.C
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], t])
        return H / H[2, 2]


def _make_camera(size, tilt, azimuth, roll, distance, target, focal) -> Camera:
    w, h = size
    K = np.array([[focal, 0, w / 2], [0, focal, h / 2], [0, 0, 1]], np.float64)
    t, a = np.radians(tilt), np.radians(azimuth)
    C = np.asarray(target, np.float64) + distance * np.array([np.sin(t) * np.cos(a), np.sin(t) * np.sin(a), np.cos(t)])
    fwd = np.asarray(target, np.float64) - C
    fwd /= np.linalg.norm(fwd)
    ref = np.array([np.cos(np.radians(roll)), np.sin(np.radians(roll)), 0.0])
    down = ref - ref.dot(fwd) * fwd
    down /= np.linalg.norm(down)
    right = np.cross(down, fwd)
    return Camera(K, np.stack([right, down, fwd]), C)


# -- textures ------------------------------------------------------------------

def _smooth_noise(rng, shape, cells) -> np.ndarray:
    small = rng.standard_normal((max(2, shape[0] // cells), max(2, shape[1] // cells))).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _tex_xy(x, y):
    """Board units -> texture pixel coordinates."""
    return (x - TEX_MIN) * TEX_PPU, (TEX_MAX - y) * TEX_PPU


def _tex_pts(pts) -> np.ndarray:
    pts = np.asarray(pts, np.float64)
    u, v = _tex_xy(pts[:, 0], pts[:, 1])
    return np.stack([u, v], axis=1)


def _board_texture(rng, markers: bool, marker_size: float) -> np.ndarray:
    n = int((TEX_MAX - TEX_MIN) * TEX_PPU)
    shape = (n, n)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    # table: dark stained wood or grey cloth
    if rng.random() < 0.5:
        base = np.array(rng.choice([[92, 64, 44], [70, 52, 40], [110, 84, 60]]), np.float32)
        grain = np.sin((yy / TEX_PPU * 9.0 + 3.0 * _smooth_noise(rng, shape, 90)) * 2.1) * 0.06
        table = base * (1 + grain + 0.05 * _smooth_noise(rng, shape, 40))[..., None]
    else:
        base = np.array(rng.choice([[96, 104, 98], [120, 112, 100], [70, 84, 92]]), np.float32)
        table = base * (1 + 0.05 * _smooth_noise(rng, shape, 30) + 0.03 * rng.standard_normal(shape).astype(np.float32))[..., None]
    tex = table
    # board: light wood (or cardboard) with grain running along x or y
    wood = np.array(rng.choice([[206, 168, 118], [194, 160, 112], [214, 184, 140], [188, 150, 100]]), np.float32)
    wood *= rng.uniform(0.92, 1.05)
    along = xx if rng.random() < 0.5 else yy
    warp = 6.0 * _smooth_noise(rng, shape, 70)
    freq = rng.uniform(7, 12)
    grain = 0.045 * np.sin((along / TEX_PPU * freq + warp) * 2.0) + 0.025 * np.sin((along / TEX_PPU * freq * 3.1 + warp * 1.7))
    board_col = wood * (1 + grain + 0.04 * _smooth_noise(rng, shape, 25))[..., None]
    lo = -BOARD_BORDER
    hi = 6 + BOARD_BORDER
    u0, v0 = _tex_xy(lo, hi)
    u1, v1 = _tex_xy(hi, lo)
    mask = np.zeros(shape, np.float32)
    cv2.rectangle(mask, (int(u0), int(v0)), (int(u1), int(v1)), 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.2)[..., None]
    tex = tex * (1 - mask) + board_col * mask
    # board edge: a thin darker bevel
    cv2.rectangle(tex, (int(u0), int(v0)), (int(u1), int(v1)), (wood * 0.7).tolist(), 2, cv2.LINE_AA)
    # printed field: faint tint, energy lines, points
    ink = np.array(rng.choice([[40, 36, 34], [70, 30, 26], [30, 40, 70]]), np.float32)
    fu0, fv0 = _tex_xy(0, 6)
    fu1, fv1 = _tex_xy(6, 0)
    tint = tex.copy()
    cv2.rectangle(tint, (int(fu0), int(fv0)), (int(fu1), int(fv1)), (wood * 0.93).tolist(), -1)
    tex = 0.5 * tex + 0.5 * tint
    thick = max(2, int(round(0.035 * TEX_PPU)))
    sh = 4
    for i in range(7):
        a = _tex_pts([[i, 0], [i, 6]])
        b = _tex_pts([[0, i], [6, i]])
        for p, q in (a, b):
            cv2.line(tex, tuple(int(round(c * 16)) for c in p), tuple(int(round(c * 16)) for c in q), ink.tolist(), thick, cv2.LINE_AA, sh)
    for r in range(7):
        for c in range(7):
            u, v = _tex_xy(c, r)
            cv2.circle(tex, (int(round(u * 16)), int(round(v * 16))), int(0.07 * TEX_PPU * 16), ink.tolist(), -1, cv2.LINE_AA, sh)
    # coordinates printed on the frame
    font = cv2.FONT_HERSHEY_SIMPLEX
    text = np.zeros(shape, np.uint8)
    for i in range(6):
        for y in (-0.45, 6.45):
            u, v = _tex_xy(i + 0.5, y)
            cv2.putText(text, "abcdef"[i], (int(u - 8), int(v + 8)), font, 0.8, 255, 2, cv2.LINE_AA)
        for x in (-0.45, 6.45):
            u, v = _tex_xy(x, i + 0.5)
            cv2.putText(text, str(i + 1), (int(u - 8), int(v + 8)), font, 0.8, 255, 2, cv2.LINE_AA)
    m = (text.astype(np.float32) / 255.0)[..., None]
    tex = tex * (1 - m) + ink * m
    if markers:
        dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
        for mid in range(4):
            quad = marker_world_corners(mid, marker_size)  # TL, TR, BR, BL of the black square
            margin = 0.25 * marker_size
            lo_xy = quad.min(axis=0) - margin
            hi_xy = quad.max(axis=0) + margin
            cu0, cv0_ = _tex_xy(lo_xy[0], hi_xy[1])
            cu1, cv1_ = _tex_xy(hi_xy[0], lo_xy[1])
            paper = np.array([236, 236, 230], np.float32) * rng.uniform(0.95, 1.02)
            cv2.rectangle(tex, (int(cu0), int(cv0_)), (int(cu1), int(cv1_)), paper.tolist(), -1, cv2.LINE_AA)
            side = int(round(marker_size * TEX_PPU))
            img = cv2.aruco.generateImageMarker(dictionary, mid, side).astype(np.float32) / 255.0
            img = (20 + img[..., None] * (paper - 20)).astype(np.float32)
            src = np.float32([[0, 0], [side, 0], [side, side], [0, side]]) - 0.5
            dst = _tex_pts(quad).astype(np.float32)
            M = cv2.getPerspectiveTransform(src, dst)
            warped = cv2.warpPerspective(img, M, (n, n), flags=cv2.INTER_LINEAR, borderValue=(-1, -1, -1))
            m = warped[..., 0] >= 0
            tex[m] = warped[m]
    return tex


@lru_cache(maxsize=4)
def _cached_texture(seed: int, markers: bool, marker_size: float) -> np.ndarray:
    tex = _board_texture(_rng("texture", seed), markers, marker_size)
    tex.setflags(write=False)
    return tex


# -- pieces ----------------------------------------------------------------------

def _ring(cx, cy, r, z, n, phase=0.0):
    a = np.linspace(0, 2 * np.pi, n, endpoint=False) + phase
    return np.stack([cx + r * np.cos(a), cy + r * np.sin(a), np.full(n, z)], axis=1), a


def _fill(img, poly, color):
    pts = np.round(np.asarray(poly) * 16).astype(np.int32)
    cv2.fillConvexPoly(img, pts, [float(c) for c in color], cv2.LINE_AA, 4)


def _shade(normal, light, ambient=0.42, diffuse=0.62):
    return ambient + diffuse * max(0.0, float(np.dot(normal, light)))


def _draw_cylinder(img, cam, cx, cy, z0, z1, r, color, light, n=28, phase=0.0, gloss=0.35):
    bottom, ang = _ring(cx, cy, r, z0, n, phase)
    top, _ = _ring(cx, cy, r, z1, n, phase)
    pb, pt = cam.project(bottom), cam.project(top)
    for k in range(n):
        k2 = (k + 1) % n
        am = (ang[k] + ang[k2]) / 2 if k2 else ang[k] + np.pi / n
        nrm = np.array([np.cos(am), np.sin(am), 0.0])
        mid = np.array([cx + r * np.cos(am), cy + r * np.sin(am), (z0 + z1) / 2])
        view = cam.C - mid
        if nrm.dot(view) <= 0:
            continue
        view /= np.linalg.norm(view)
        half = light + view
        half /= np.linalg.norm(half)
        spec = gloss * max(0.0, float(nrm.dot(half))) ** 24
        col = color * _shade(nrm, light) + 255 * spec
        _fill(img, [pb[k], pb[k2], pt[k2], pt[k]], np.clip(col, 0, 255))
    view = cam.C - np.array([cx, cy, z1])
    view /= np.linalg.norm(view)
    half = light + view
    half /= np.linalg.norm(half)
    spec = gloss * max(0.0, float(half[2])) ** 8
    base = color * _shade(np.array([0, 0, 1.0]), light) * 1.04
    _fill(img, pt, np.clip(base, 0, 255))
    if spec > 0.02:
        # a small highlight where the slightly domed top mirrors the lamp
        hx, hy = cx + 0.45 * r * half[0], cy + 0.45 * r * half[1]
        ring, _ = _ring(hx, hy, 0.28 * r, z1 + 1e-3, 12)
        _fill(img, cam.project(ring), np.clip(base + 255 * spec * 0.8, 0, 255))
    return top


def _draw_robot(img, cam, cx, cy, color, light, turn, rng):
    eye = np.array([30, 30, 30.0]) if color.mean() > 128 else np.array([215, 215, 205.0])
    _draw_cylinder(img, cam, cx, cy, 0.0, ROBOT_HEIGHT, ROBOT_RADIUS, color, light, n=8, phase=turn + np.pi / 8, gloss=0.3)
    _draw_cylinder(img, cam, cx, cy, ROBOT_HEIGHT, ROBOT_HEIGHT + HEAD_HEIGHT, HEAD_RADIUS, color * 0.97, light, n=24, gloss=0.45)
    # two eyes near the front edge of the head top: they show the robot's facing
    z = ROBOT_HEIGHT + HEAD_HEIGHT + 0.002
    for side in (-0.5, 0.5):
        ex = cx + 0.11 * np.cos(turn) - 0.065 * side * 2 * np.sin(turn)
        ey = cy + 0.11 * np.sin(turn) + 0.065 * side * 2 * np.cos(turn)
        ring, _ = _ring(ex, ey, 0.03, z, 10)
        _fill(img, cam.project(ring), eye)


def _draw_battery(img, cam, cx, cy, light, printed, turn):
    _draw_cylinder(img, cam, cx, cy, 0.0, BATTERY_HEIGHT, BATTERY_RADIUS, BATTERY, light, n=24, gloss=0.25)
    if printed:
        z = BATTERY_HEIGHT + 0.002
        bolt = np.array([[0.02, 0.09], [-0.05, -0.01], [0.0, -0.01], [-0.02, -0.09], [0.05, 0.01], [0.0, 0.01]])
        c, s = np.cos(turn), np.sin(turn)
        bolt = bolt @ np.array([[c, s], [-s, c]])
        pts3 = np.column_stack([cx + bolt[:, 0], cy + bolt[:, 1], np.full(len(bolt), z)])
        p = np.round(cam.project(pts3) * 16).astype(np.int32)
        cv2.fillPoly(img, [p], (BATTERY_PRINT * 0.95).tolist(), cv2.LINE_AA, 4)


def _shadow_polygon(footprint_top, footprint_bottom, light):
    pts = np.vstack([footprint_top, footprint_bottom])
    s = pts[:, :2] - pts[:, 2:3] / light[2] * light[:2]
    return cv2.convexHull(s.astype(np.float32)).reshape(-1, 2)


def _hand(img, rng, size, target_px):
    """A hand reaching from the nearest image edge to ``target_px``."""
    w, h = size
    tx, ty = target_px
    edge = int(np.argmin([tx, w - tx, ty, h - ty]))
    start = [(-80, ty + rng.uniform(-150, 150)), (w + 80, ty + rng.uniform(-150, 150)),
             (tx + rng.uniform(-150, 150), -80), (tx + rng.uniform(-150, 150), h + 80)][edge]
    start = np.array(start, np.float64)
    target = np.array([tx, ty], np.float64)
    d = target - start
    d /= np.linalg.norm(d)
    nrm = np.array([-d[1], d[0]])
    scale = rng.uniform(0.9, 1.2) * min(w, h) / 960
    skin = np.array(rng.choice([[224, 172, 140], [198, 140, 104], [150, 100, 70], [236, 196, 170]]), np.float32)
    layer = np.zeros((h, w), np.float32)
    col = np.zeros((h, w, 3), np.float32)
    wrist = target - d * 110 * scale
    arm_w = 55 * scale
    arm = np.array([start + nrm * arm_w, wrist + nrm * arm_w * 0.9, wrist - nrm * arm_w * 0.9, start - nrm * arm_w])
    cv2.fillConvexPoly(layer, np.round(arm).astype(np.int32), 1.0, cv2.LINE_AA)
    palm = target - d * 35 * scale
    cv2.ellipse(layer, (int(palm[0]), int(palm[1])), (int(80 * scale), int(62 * scale)),
                float(np.degrees(np.arctan2(d[1], d[0]))), 0, 360, 1.0, -1, cv2.LINE_AA)
    for k, off in enumerate((-1.5, -0.5, 0.5, 1.5)):
        base = palm + d * 55 * scale + nrm * off * 28 * scale
        length = (70 + 25 * (1.5 - abs(off))) * scale * rng.uniform(0.85, 1.1)
        ang = rng.uniform(-0.25, 0.25)
        dd = d * np.cos(ang) + nrm * np.sin(ang)
        tip = base + dd * length
        cv2.line(layer, tuple(np.round(base).astype(int)), tuple(np.round(tip).astype(int)), 1.0, int(24 * scale), cv2.LINE_AA)
    thumb = palm - nrm * 60 * scale + d * 10 * scale
    cv2.line(layer, tuple(np.round(thumb).astype(int)), tuple(np.round(thumb + (d * 0.5 - nrm) * 55 * scale).astype(int)), 1.0, int(26 * scale), cv2.LINE_AA)
    # shading across the hand: brighter along its axis
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    across = ((xx - target[0]) * nrm[0] + (yy - target[1]) * nrm[1]) / (70 * scale)
    shade = np.clip(1.05 - 0.25 * across ** 2, 0.55, 1.1)
    col[:] = skin
    col *= shade[..., None]
    # the hand hovers above the board: a soft, offset shadow
    shadow = cv2.GaussianBlur(np.roll(layer, (int(40 * scale), int(30 * scale)), axis=(0, 1)), (0, 0), 14)
    img *= (1 - 0.45 * shadow)[..., None]
    a = cv2.GaussianBlur(layer, (0, 0), 1.0)[..., None]
    img[:] = img * (1 - a) + col * a


def _random_conditions(rng, d: Degradations) -> Degradations:
    def pick(value, draw):
        drawn = draw()  # always draw: the camera must not depend on which conditions were given
        return drawn if value is None else value

    return replace(
        d,
        tilt=pick(d.tilt, lambda: rng.uniform(0, 25)),
        rotation=pick(d.rotation, lambda: rng.uniform(0, 360)),
        light=pick(d.light, lambda: rng.uniform(0.85, 1.15)),
        color_temp=pick(d.color_temp, lambda: rng.uniform(-0.3, 0.3)),
        uneven=pick(d.uneven, lambda: rng.uniform(0.0, 0.35)),
        shadow=pick(d.shadow, lambda: rng.uniform(0.25, 0.5) if rng.random() < 0.3 else 0.0),
        glare=pick(d.glare, lambda: rng.uniform(0.1, 0.35) if rng.random() < 0.3 else 0.0),
        noise=pick(d.noise, lambda: rng.uniform(1.0, 5.0)),
        blur=pick(d.blur, lambda: rng.uniform(0.0, 1.0)),
        jpeg=pick(d.jpeg, lambda: int(rng.integers(70, 96))),
        offset=pick(d.offset, lambda: 0.25),
        zoom=pick(d.zoom, lambda: rng.uniform(0.7, 0.92)),
        marker_size=pick(d.marker_size, lambda: rng.uniform(0.7, 1.0)),
    )


def render(
    layout: BoardLayout,
    seed: int,
    *,
    markers: bool = True,
    size: tuple[int, int] = (1280, 960),
    hand: bool = False,
    frame: int = 0,
    **degradations,
) -> RenderedFrame:
    """Render ``layout`` as a photo. ``size`` is (width, height). See :class:`Degradations`."""
    known = {f.name for f in fields(Degradations)}
    unknown = sorted(set(degradations) - known)
    if unknown:
        raise TypeError(f"unknown degradation(s) {', '.join(unknown)}: expected some of {', '.join(sorted(known))}")
    w, h = int(size[0]), int(size[1])
    if w < 160 or h < 120:
        raise ValueError(f"render size {w}x{h} is too small (at least 160x120)")
    setup = _rng("setup", seed)
    cond = _random_conditions(setup, Degradations(**degradations))

    # camera: look at the board centre, fit the board (with markers) into the frame
    focal = setup.uniform(0.95, 1.25) * w
    target = np.array([3 + setup.uniform(-0.4, 0.4), 3 + setup.uniform(-0.4, 0.4), 0.0])
    azimuth = setup.uniform(0, 360)
    reach = 6 + BOARD_BORDER + 0.2
    extent = np.array([[x, y, 0] for x in (-reach + 6 - 6, reach) for y in (-reach + 0, reach)], np.float64)
    extent[:, :2] = np.array([[-1.6, -1.6], [-1.6, 7.6], [7.6, -1.6], [7.6, 7.6]]) if markers else np.array(
        [[-BOARD_BORDER, -BOARD_BORDER], [-BOARD_BORDER, 6 + BOARD_BORDER], [6 + BOARD_BORDER, -BOARD_BORDER], [6 + BOARD_BORDER, 6 + BOARD_BORDER]])
    distance = 12.0
    for _ in range(6):
        cam = _make_camera((w, h), cond.tilt, azimuth, cond.rotation, distance, target, focal)
        uv = cam.project(extent)
        span = max((uv[:, 0].max() - uv[:, 0].min()) / w, (uv[:, 1].max() - uv[:, 1].min()) / h)
        distance *= span / cond.zoom
    cam = _make_camera((w, h), cond.tilt, azimuth, cond.rotation, distance, target, focal)
    uv = cam.project(extent)
    # keep everything inside the frame: shift the principal point if needed
    shift = np.zeros(2)
    for ax, lim in ((0, w), (1, h)):
        lo, hi = uv[:, ax].min(), uv[:, ax].max()
        if lo < 4:
            shift[ax] = 4 - lo
        elif hi > lim - 4:
            shift[ax] = lim - 4 - hi
    K = cam.K.copy()
    K[:2, 2] += shift
    cam = Camera(K, cam.R, cam.C)

    # the lamp
    elev = np.radians(setup.uniform(15, 45))
    lam = setup.uniform(0, 2 * np.pi)
    light = np.array([np.sin(elev) * np.cos(lam), np.sin(elev) * np.sin(lam), np.cos(elev)])

    tex = _cached_texture(seed, markers, float(cond.marker_size))

    # where the pieces stand: fixed by seed and layout, so a still board renders alike
    key = (tuple(s.value for s in layout.squares), tuple(p.value for p in layout.points))
    prng = _rng("pieces", seed, key)
    pieces = []  # (kind, x, y, extra)
    for i, s in enumerate(layout.squares):
        r = cond.offset * np.sqrt(prng.random())
        a = prng.uniform(0, 2 * np.pi)
        turn = prng.uniform(0, 2 * np.pi) if cond.piece_rotation else (np.pi / 2 if s is SquareState.WHITE else -np.pi / 2)
        if s is not SquareState.EMPTY:
            pieces.append(("robot", i % 6 + 0.5 + r * np.cos(a), i // 6 + 0.5 + r * np.sin(a), (s, turn)))
    printed = []
    for i, p in enumerate(layout.points):
        r = min(cond.offset, 0.25) * 0.3 * np.sqrt(prng.random())
        a = prng.uniform(0, 2 * np.pi)
        pr = bool(prng.random() < 0.5)
        turn = prng.uniform(0, 2 * np.pi)
        printed.append(pr)
        if p is PointState.BATTERY:
            pieces.append(("battery", i % 7 + r * np.cos(a), i // 7 + r * np.sin(a), (pr, turn)))

    # contact shadows and cast shadows go into the plane texture
    shade = np.ones(tex.shape[:2], np.float32)
    soft = np.zeros(tex.shape[:2], np.float32)
    for kind, x, y, _ in pieces:
        rad = ROBOT_RADIUS if kind == "robot" else BATTERY_RADIUS
        height = ROBOT_HEIGHT + HEAD_HEIGHT if kind == "robot" else BATTERY_HEIGHT
        ring_b, _ = _ring(x, y, rad, 0.0, 16)
        ring_t, _ = _ring(x, y, rad if kind == "battery" else HEAD_RADIUS, height, 16)
        ring_m, _ = _ring(x, y, rad, ROBOT_HEIGHT if kind == "robot" else height, 16)
        poly = _shadow_polygon(np.vstack([ring_t, ring_m]), ring_b, light)
        cv2.fillConvexPoly(shade, np.round(_tex_pts(poly) * 16).astype(np.int32), 0.55, cv2.LINE_AA, 4)
        u, v = _tex_xy(x, y)
        cv2.circle(soft, (int(u), int(v)), int(rad * TEX_PPU * 1.15), 1.0, -1, cv2.LINE_AA)
    soft = cv2.GaussianBlur(soft, (0, 0), 0.06 * TEX_PPU)
    shade = np.minimum(shade, 1 - 0.35 * soft)
    tex = tex * shade[..., None]

    S = np.array([[1 / TEX_PPU, 0, TEX_MIN], [0, -1 / TEX_PPU, TEX_MAX], [0, 0, 1]], np.float64)
    Hb = cam.plane_homography()
    img = cv2.warpPerspective(tex, Hb @ S, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)

    # glare: the lamp mirrored in the board's varnish (the matte pieces stand in front of it)
    if cond.glare > 0:
        grng = _rng("glare", seed)
        g = cam.project(np.array([[grng.uniform(0.5, 5.5), grng.uniform(0.5, 5.5), 0.0]]))[0]
        sig = grng.uniform(0.05, 0.12) * w
        gy, gx = np.ogrid[0:h, 0:w]
        img += (255 * cond.glare * np.exp(-((gx - g[0]) ** 2 + (gy - g[1]) ** 2) / (2 * sig * sig)))[..., None].astype(np.float32)

    # pieces, farthest from the camera first
    pieces.sort(key=lambda p: -np.linalg.norm(cam.C - np.array([p[1], p[2], 0.1])))
    for kind, x, y, extra in pieces:
        if kind == "robot":
            state, turn = extra
            base = WHITE_ROBOT if state is SquareState.WHITE else BLACK_ROBOT
            _draw_robot(img, cam, x, y, base * prng.uniform(0.96, 1.03), light, turn, prng)
        else:
            pr, turn = extra
            _draw_battery(img, cam, x, y, light, pr, turn)

    frng = _rng("frame", seed, frame, key)
    # an external hard shadow (a lamp arm, a head) across part of the board
    if cond.shadow > 0:
        srng = _rng("shadow", seed)
        c0 = srng.uniform(-1, 7, 2)
        ang = srng.uniform(0, np.pi)
        d = np.array([np.cos(ang), np.sin(ang)])
        n = np.array([-d[1], d[0]])
        width = srng.uniform(1.0, 2.5)
        quad = np.array([c0 - 12 * d, c0 + 12 * d, c0 + 12 * d + width * n, c0 - 12 * d + width * n])
        p = cam.project(np.column_stack([quad, np.zeros(4)]))
        m = np.zeros((h, w), np.float32)
        cv2.fillConvexPoly(m, np.round(p * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
        m = cv2.GaussianBlur(m, (0, 0), 1.5)
        img *= (1 - cond.shadow * m)[..., None]
    if hand:
        spot = cam.project(np.array([[frng.uniform(1, 5), frng.uniform(1, 5), 0.0]]))[0]
        _hand(img, frng, (w, h), spot)

    # light: gradient + vignette, global gain, colour temperature, glare
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gdir = _rng("gradient", seed).uniform(0, 2 * np.pi)
    grad = ((xx - w / 2) * np.cos(gdir) + (yy - h / 2) * np.sin(gdir)) / max(w, h)
    vign = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (w * w / 4 + h * h / 4)
    illum = (1 + cond.uneven * 1.2 * grad - cond.uneven * 0.5 * vign) * cond.light
    temp = np.array([1 + 0.25 * cond.color_temp, 1.0, 1 - 0.25 * cond.color_temp], np.float32)[::-1]  # BGR order below
    img = img[..., ::-1]  # RGB -> BGR
    img = img * illum[..., None] * temp
    if cond.motion > 0:
        k = max(3, int(cond.motion) | 1)
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(frng.uniform(0, 180)), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        kernel /= kernel.sum()
        img = cv2.filter2D(img, -1, kernel)
    if cond.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), cond.blur)
    if cond.noise > 0:
        img = img + frng.standard_normal(img.shape).astype(np.float32) * cond.noise * np.sqrt(np.maximum(img, 1) / 128)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if cond.jpeg < 100:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(cond.jpeg)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    corners = cv2.perspectiveTransform(FIELD_CORNERS.reshape(-1, 1, 2), Hb).reshape(-1, 2)
    return RenderedFrame(out, corners, layout, Hb, hand, cond, tuple(printed))
