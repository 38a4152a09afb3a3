"""A synthetic camera: draws a board layout the way a camera above the table sees it.

Used by tests, benchmarks and the demo. Everything is deterministic from the
seed: ``seed`` fixes the *setup* (camera pose, board and table, lamp, marker
size); the layout fixes where each piece stands (so a still board renders
identically apart from sensor noise); ``frame`` varies sensor noise and the
hand. Degradations are keyword arguments (see :class:`Degradations`); any that
is not given is drawn at random from a moderate range by the seed.

``design`` picks the *set* (see :mod:`vision.designs`): board print, energy
lines and fields, robot shape and colours, batteries, table. ``None`` is
:data:`~vision.designs.CLASSIC`, the original look, rendered bit for bit as
before; an int or ``"random"`` draws a set with :func:`~vision.designs.sample_design`.

The scene is modelled in board units (1 = one square, point A1 at the origin,
x along the files, y along the ranks, z up), projected with a pinhole camera
(tilt up to 25 degrees, any rotation about the optical axis). The board plane
(wood, printed energy lines, marker cards, table) is a texture warped by the
plane's homography; robots and batteries are 3-D solids (prisms, or a profile
revolved into stacked frusta: discs, stones, pawns, cones) drawn facet by facet
back to front with Lambert shading, specular highlights and hard shadows cast
by the lamp. The frame also reports which fields the pieces hide
(:attr:`RenderedFrame.visible_points`, :attr:`RenderedFrame.visible_squares`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache

import cv2
import numpy as np

from .designs import CLASSIC, Design, resolve_design
from .geometry import FIELD_CORNERS, N_POINTS, N_SQUARES
from .layout import BoardLayout, PointState, SquareState
from .markers import MARKER_DICT, marker_world_corners

# Sizes and colours of pieces and board come from the Design (vision/designs.py).
TEX_PPU = 56                 # texture pixels per board unit
TEX_MIN, TEX_MAX = -7.0, 13.0  # the classic texture: board and table
# A sampled design's texture: the board and the markers at TEX_PPU, laid over a larger, coarser
# table (so no view runs off the table; the classic frame mirrors its texture at the edge).
DESIGN_SPAN = (-2.5, 8.5)
TABLE_SPAN, TABLE_PPU = (-12.0, 18.0), 28

# The classic set's palettes: its setup seed picks table, board tone and ink among these.
_CLASSIC_TABLE_WOODS = [[92, 64, 44], [70, 52, 40], [110, 84, 60]]
_CLASSIC_CLOTHS = [[96, 104, 98], [120, 112, 100], [70, 84, 92]]
_CLASSIC_WOODS = [[206, 168, 118], [194, 160, 112], [214, 184, 140], [188, 150, 100]]
_CLASSIC_INKS = [[40, 36, 34], [70, 30, 26], [30, 40, 70]]
_MARKER_PAPER = np.array([236, 236, 230], np.float32)
SQUARE_PROBE_RADIUS = 0.3    # visible_squares: the disc around a square's centre that is checked


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
    design: Design = CLASSIC                 # the set drawn
    # per point (49): the fraction of the battery's outline (top and side) not hidden behind a robot in the image
    # (1.0 where there is no battery); per square (36): the fraction of the disc of radius 0.3 around
    # the square's centre not hidden behind a robot standing on another square. Geometric, from the
    # projected shapes (not from the pixels), so tests know which fields a tall robot hides.
    visible_points: tuple[float, ...] = ()
    visible_squares: tuple[float, ...] = ()
    # per point (49): the same fraction for a battery standing at the point (the one there, or one as
    # the design draws them set down on the point where there is none): how much of what stands at
    # the point the camera could see, battery or not (training labels a mostly hidden point unseen)
    point_view: tuple[float, ...] = ()


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


def _tex_xy(x, y, lo=TEX_MIN, hi=TEX_MAX, ppu=TEX_PPU):
    """Board units -> texture pixel coordinates (of a texture spanning lo..hi in x and y)."""
    return (x - lo) * ppu, (hi - y) * ppu


def _tex_pts(pts, lo=TEX_MIN, hi=TEX_MAX, ppu=TEX_PPU) -> np.ndarray:
    pts = np.asarray(pts, np.float64)
    u, v = _tex_xy(pts[:, 0], pts[:, 1], lo, hi, ppu)
    return np.stack([u, v], axis=1)


def _tex_to_board(lo=TEX_MIN, hi=TEX_MAX, ppu=TEX_PPU) -> np.ndarray:
    """Texture pixels -> board units (homogeneous)."""
    return np.array([[1 / ppu, 0, lo], [0, -1 / ppu, hi], [0, 0, 1]], np.float64)


def _classic_texture(rng, markers: bool, marker_size: float, d: Design) -> np.ndarray:
    """The original renderer's board (CLASSIC): tones, ink and table picked by the seed from its palettes."""
    n = int((TEX_MAX - TEX_MIN) * TEX_PPU)
    shape = (n, n)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    # table: dark stained wood or grey cloth
    if rng.random() < 0.5:
        base = np.array(rng.choice(_CLASSIC_TABLE_WOODS), np.float32)
        grain = np.sin((yy / TEX_PPU * 9.0 + 3.0 * _smooth_noise(rng, shape, 90)) * 2.1) * 0.06
        table = base * (1 + grain + 0.05 * _smooth_noise(rng, shape, 40))[..., None]
    else:
        base = np.array(rng.choice(_CLASSIC_CLOTHS), np.float32)
        table = base * (1 + 0.05 * _smooth_noise(rng, shape, 30) + 0.03 * rng.standard_normal(shape).astype(np.float32))[..., None]
    tex = table
    # board: light wood (or cardboard) with grain running along x or y
    wood = np.array(rng.choice(_CLASSIC_WOODS), np.float32)
    wood *= rng.uniform(0.92, 1.05)
    along = xx if rng.random() < 0.5 else yy
    warp = 6.0 * _smooth_noise(rng, shape, 70)
    freq = rng.uniform(7, 12)
    grain = 0.045 * np.sin((along / TEX_PPU * freq + warp) * 2.0) + 0.025 * np.sin((along / TEX_PPU * freq * 3.1 + warp * 1.7))
    board_col = wood * (1 + grain + 0.04 * _smooth_noise(rng, shape, 25))[..., None]
    lo = -d.border
    hi = 6 + d.border
    u0, v0 = _tex_xy(lo, hi)
    u1, v1 = _tex_xy(hi, lo)
    mask = np.zeros(shape, np.float32)
    cv2.rectangle(mask, (int(u0), int(v0)), (int(u1), int(v1)), 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.2)[..., None]
    tex = tex * (1 - mask) + board_col * mask
    # board edge: a thin darker bevel
    cv2.rectangle(tex, (int(u0), int(v0)), (int(u1), int(v1)), (wood * 0.7).tolist(), 2, cv2.LINE_AA)
    # printed field: faint tint, energy lines, points
    ink = np.array(rng.choice(_CLASSIC_INKS), np.float32)
    fu0, fv0 = _tex_xy(0, 6)
    fu1, fv1 = _tex_xy(6, 0)
    tint = tex.copy()
    cv2.rectangle(tint, (int(fu0), int(fv0)), (int(fu1), int(fv1)), (wood * 0.93).tolist(), -1)
    tex = 0.5 * tex + 0.5 * tint
    thick = max(2, int(round(d.line_width * TEX_PPU)))
    sh = 4
    for i in range(7):
        a = _tex_pts([[i, 0], [i, 6]])
        b = _tex_pts([[0, i], [6, i]])
        for p, q in (a, b):
            cv2.line(tex, tuple(int(round(c * 16)) for c in p), tuple(int(round(c * 16)) for c in q), ink.tolist(), thick, cv2.LINE_AA, sh)
    if d.field_style != "none":
        for r in range(7):
            for c in range(7):
                u, v = _tex_xy(c, r)
                cv2.circle(tex, (int(round(u * 16)), int(round(v * 16))), int(d.field_radius * TEX_PPU * 16), ink.tolist(), -1, cv2.LINE_AA, sh)
    # coordinates printed on the frame
    if d.labels:
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
        _marker_cards(tex, rng, marker_size)
    return tex


def _marker_cards(tex, rng, marker_size: float, local: bool = False, span=(TEX_MIN, TEX_MAX)) -> None:
    """The four ArUco cards on their white paper, lying at the field corners (in place).

    ``local``: warp only each card's neighbourhood (faster; the classic board warps the whole
    texture, which differs in the last bits of the interpolation)."""
    n = tex.shape[0]
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
    for mid in range(4):
        quad = marker_world_corners(mid, marker_size)  # TL, TR, BR, BL of the black square
        margin = 0.25 * marker_size
        lo_xy = quad.min(axis=0) - margin
        hi_xy = quad.max(axis=0) + margin
        cu0, cv0_ = _tex_xy(lo_xy[0], hi_xy[1], *span)
        cu1, cv1_ = _tex_xy(hi_xy[0], lo_xy[1], *span)
        paper = _MARKER_PAPER * rng.uniform(0.95, 1.02)
        cv2.rectangle(tex, (int(cu0), int(cv0_)), (int(cu1), int(cv1_)), paper.tolist(), -1, cv2.LINE_AA)
        side = int(round(marker_size * TEX_PPU))
        img = cv2.aruco.generateImageMarker(dictionary, mid, side).astype(np.float32) / 255.0
        img = (20 + img[..., None] * (paper - 20)).astype(np.float32)
        src = np.float32([[0, 0], [side, 0], [side, side], [0, side]]) - 0.5
        dst = _tex_pts(quad, *span).astype(np.float32)
        M = cv2.getPerspectiveTransform(src, dst)
        x0, y0, x1, y1 = 0, 0, n, n
        if local:
            x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 2
            x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 3
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, n), min(y1, n)
            M = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ M
        warped = cv2.warpPerspective(img, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=(-1, -1, -1))
        m = warped[..., 0] >= 0
        tex[y0:y1, x0:x1][m] = warped[m]


def _surface(rng, shape, kind: str, strength: float) -> np.ndarray:
    """A brightness modulation (around 1) for a printed / wooden / felt surface."""
    h, w = shape
    if kind == "wood":
        along = (np.arange(w if rng.random() < 0.5 else h, dtype=np.float32) / TEX_PPU)
        warp = 2.5 * _smooth_noise(rng, shape, 110) + 0.6 * _smooth_noise(rng, shape, 30)
        freq = rng.uniform(8, 16)
        phase = (along[None, :] if along.size == w else along[:, None]) * freq
        grain = 0.045 * np.sin((phase + warp) * 2.0) + 0.025 * np.sin(phase * 3.1 + warp * 1.7)
        mod = 1 + strength * 1.3 * (grain + 0.04 * _smooth_noise(rng, shape, 25))
    elif kind == "paper":
        mod = 1 + strength * (0.035 * _smooth_noise(rng, shape, 50) + 0.02 * _smooth_noise(rng, shape, 9)
                              + 0.012 * rng.standard_normal(shape).astype(np.float32))
    elif kind == "felt":
        fine = cv2.GaussianBlur(rng.standard_normal(shape).astype(np.float32), (0, 0), 0.8)
        mod = 1 + strength * (0.09 * fine + 0.035 * _smooth_noise(rng, shape, 15))
    else:  # plain print: almost flat
        mod = 1 + strength * 0.018 * _smooth_noise(rng, shape, 60)
    return mod.astype(np.float32)


def _table_texture(rng, shape, d: Design, ppu: int) -> np.ndarray:
    h, w = shape
    base = np.array(d.table_color, np.float32)
    if d.table == "wood":  # planks along x, each with its own tone, fine straight grain
        yy = (np.arange(h, dtype=np.float32) / ppu)[:, None]
        plank = rng.uniform(1.2, 2.4)
        idx = np.floor(yy / plank).astype(int)
        tone = rng.uniform(-0.07, 0.07, idx.max() + 2)[idx]
        warp = _smooth_noise(rng, shape, 160) * 0.8
        grain = 0.04 * np.sin((yy * rng.uniform(14, 24) + warp) * 2.0) + 0.02 * np.sin((yy * 41 + 1.7 * warp))
        seam = np.exp(-(((yy / plank) - np.round(yy / plank)) * plank * ppu / 0.7) ** 2)
        mod = 1 + tone + grain + 0.04 * _smooth_noise(rng, shape, 40) - 0.35 * seam
    elif d.table == "cloth":  # gentle folds, a fine weave
        mod = 1 + 0.03 * _smooth_noise(rng, shape, 90) + 0.015 * _smooth_noise(rng, shape, 12) \
            + 0.03 * rng.standard_normal(shape).astype(np.float32)
    else:  # laminate
        mod = 1 + 0.02 * _smooth_noise(rng, shape, 60) + 0.008 * rng.standard_normal(shape).astype(np.float32)
    return base * mod[..., None]


def _design_texture(rng, markers: bool, marker_size: float, d: Design) -> tuple[np.ndarray, np.ndarray]:
    """A sampled design's (table, board) textures: the table spans TABLE_SPAN at TABLE_PPU; the
    board (any print, lines, energy fields, frame, labels) with the markers spans DESIGN_SPAN at
    TEX_PPU, its table part the same table, finer."""
    nt = int((TABLE_SPAN[1] - TABLE_SPAN[0]) * TABLE_PPU)
    table = _table_texture(rng, (nt, nt), d, TABLE_PPU)
    lo, hi = DESIGN_SPAN
    (a0, _), (a1, _) = _tex_pts([[lo, 0], [hi, 0]], *TABLE_SPAN, TABLE_PPU)
    (_, b0), (_, b1) = _tex_pts([[0, hi], [0, lo]], *TABLE_SPAN, TABLE_PPU)
    n = int((hi - lo) * TEX_PPU)
    tex = cv2.resize(table[int(round(b0)):int(round(b1)), int(round(a0)):int(round(a1))], (n, n), interpolation=cv2.INTER_LINEAR)
    # the board: only its neighbourhood of the texture is computed
    pad = 12
    (u0, v0), (u1, v1) = _tex_pts([[-d.border, 6 + d.border], [6 + d.border, -d.border]], lo, hi)
    ru0, rv0 = int(np.floor(u0)) - pad, int(np.floor(v0)) - pad
    ru1, rv1 = int(np.ceil(u1)) + pad, int(np.ceil(v1)) + pad
    region = tex[rv0:rv1, ru0:ru1]
    shape = region.shape[:2]

    def local(pts):
        return np.round((_tex_pts(pts, lo, hi) - [ru0, rv0]) * 16).astype(np.int32)

    def rect(x0, y0, x1, y1):
        return local([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])

    base = np.empty(shape + (3,), np.float32)
    base[:] = np.array(d.board_color, np.float32)
    if d.checker_color is not None:
        for i in range(36):
            f, r = i % 6, i // 6
            if (f + r) % 2 == 0:
                cv2.fillConvexPoly(base, rect(f, r, f + 1, r + 1), [float(c) for c in d.checker_color], cv2.LINE_8, 4)
    if d.square_print != "none":       # a circle or a frame printed in every square
        ink = [float(c) for c in d.square_print_color]
        k = d.square_print_size
        for i in range(36):
            f, r = i % 6 + 0.5, i // 6 + 0.5
            if d.square_print == "circle":
                (cu, cv), = local([[f, r]])
                cv2.circle(base, (int(cu), int(cv)), int(k * TEX_PPU * 16), ink, -1, cv2.LINE_AA, 4)
            else:
                cv2.polylines(base, [rect(f - k, r - k, f + k, r + k)], True, ink,
                              max(2, int(round(0.035 * TEX_PPU))), cv2.LINE_AA, 4)
    mod = _surface(rng, shape, d.board_texture, d.texture_strength)
    board = base * mod[..., None]
    mask = np.zeros(shape, np.float32)
    b = d.border
    cv2.fillConvexPoly(mask, rect(-b, -b, 6 + b, 6 + b), 1.0, cv2.LINE_8, 4)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.2)
    # the board is a little thick: it darkens the table right around it
    halo = cv2.GaussianBlur(mask, (0, 0), 0.06 * TEX_PPU)
    region *= (1 - 0.3 * halo)[..., None]
    region[:] = region * (1 - mask[..., None]) + board * mask[..., None]
    edge = rect(-b, -b, 6 + b, 6 + b)
    cv2.polylines(region, [edge], True, (np.array(d.board_color, np.float32) * 0.7).tolist(), 2, cv2.LINE_8, 4)

    # the print: each colour is an antialiased 8-bit coverage mask laid over the surface
    ink_mod = (1 + 0.5 * (mod - 1))[..., None]

    def lay(cover, color):
        rows, cols = np.flatnonzero(cover.any(axis=1)), np.flatnonzero(cover.any(axis=0))
        if rows.size == 0:
            return
        box = np.s_[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
        a = cover[box].astype(np.float32)[..., None] / 255.0
        region[box] = region[box] * (1 - a) + (np.array(color, np.float32) * ink_mod[box]) * a

    def bar(cover, p, q, width):
        (x0, y0), (x1, y1) = p, q
        dx, dy = x1 - x0, y1 - y0
        ln = np.hypot(dx, dy)
        nx, ny = -dy / ln * width / 2, dx / ln * width / 2
        ex, ey = dx / ln * width / 2, dy / ln * width / 2
        quad = [[x0 - ex + nx, y0 - ey + ny], [x1 + ex + nx, y1 + ey + ny], [x1 + ex - nx, y1 + ey - ny], [x0 - ex - nx, y0 - ey - ny]]
        cv2.fillConvexPoly(cover, local(quad), 255, cv2.LINE_AA, 4)

    if d.frame_lines:
        cover = np.zeros(shape, np.uint8)
        fw = max(0.015, 0.6 * d.line_width)
        for k in range(d.frame_lines):
            o = d.frame_offset + 0.08 * k
            for p, q in (((-o, -o), (6 + o, -o)), ((6 + o, -o), (6 + o, 6 + o)), ((6 + o, 6 + o), (-o, 6 + o)), ((-o, 6 + o), (-o, -o))):
                bar(cover, p, q, fw)
        lay(cover, d.frame_color)
    cover = np.zeros(shape, np.uint8)
    for i in range(7):
        bar(cover, (i, 0), (i, 6), d.line_width)
        bar(cover, (0, i), (6, i), d.line_width)
    lay(cover, d.line_color)
    if d.field_style != "none":
        cover = np.zeros(shape, np.uint8)
        rad = d.field_radius * TEX_PPU * 16
        ring_w = max(2, int(round(max(0.025, 0.7 * d.line_width, 0.18 * d.field_radius) * TEX_PPU)))
        centres = [tuple(int(v) for v in local([[c, r]])[0]) for r in range(7) for c in range(7)]
        for centre in centres:
            if d.field_style in ("dot", "disc"):
                cv2.circle(cover, centre, int(rad), 255, -1, cv2.LINE_AA, 4)
            else:
                cv2.circle(cover, centre, int(rad - ring_w * 8), 255, ring_w, cv2.LINE_AA, 4)
                if d.field_style == "ring_dot":
                    cv2.circle(cover, centre, int(rad * 0.38), 255, -1, cv2.LINE_AA, 4)
        lay(cover, d.field_color)
        if d.field_outline is not None:
            cover = np.zeros(shape, np.uint8)
            for centre in centres:
                cv2.circle(cover, centre, int(rad - ring_w * 4), 255, max(1, ring_w // 2 + 1), cv2.LINE_AA, 4)
            lay(cover, d.field_outline)
    if d.labels:
        outer = d.frame_offset + 0.08 * (d.frame_lines - 1) + 0.03 if d.frame_lines else 0.0
        room = d.border - outer
        height = min(0.32, 0.62 * room)               # letter height in board units
        at = outer + room / 2                          # distance of the letters' centres from the field
        font = cv2.FONT_HERSHEY_SIMPLEX
        scale = height * TEX_PPU / 22.0
        thick = max(1, int(round(scale * 2.2)))
        cover = np.zeros(shape, np.uint8)
        for i in range(6):
            spots = [("abcdef"[i], i + 0.5, -at), ("abcdef"[i], i + 0.5, 6 + at), (str(i + 1), -at, i + 0.5), (str(i + 1), 6 + at, i + 0.5)]
            for ch, x, y in spots:
                (tw, th), _ = cv2.getTextSize(ch, font, scale, thick)
                u, v = (_tex_pts([[x, y]], lo, hi)[0] - [ru0, rv0])
                cv2.putText(cover, ch, (int(round(u - tw / 2)), int(round(v + th / 2))), font, scale, 255, thick, cv2.LINE_AA)
        lay(cover, d.label_color)
    if markers:
        _marker_cards(tex, rng, marker_size, local=True, span=DESIGN_SPAN)
    return table, tex


def _board_texture(rng, markers: bool, marker_size: float, d: Design = CLASSIC):
    """(backdrop, texture, span): the board-plane texture spanning span x span board units (the
    classic one with its table; a design's with a larger table texture behind it, else None)."""
    if d.classic_palette:
        return None, _classic_texture(rng, markers, marker_size, d), (TEX_MIN, TEX_MAX)
    table, tex = _design_texture(rng, markers, marker_size, d)
    return table, tex, DESIGN_SPAN


@lru_cache(maxsize=4)
def _cached_texture(seed: int, markers: bool, marker_size: float, design: Design = CLASSIC):
    backdrop, tex, span = _board_texture(_rng("texture", seed), markers, marker_size, design)
    for t in (backdrop, tex):
        if t is not None:
            t.setflags(write=False)
    return backdrop, tex, span


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


def _prism_dims(d: Design) -> tuple[float, float, float]:
    """Body height, head radius and head height of a prism robot (the classic: 0.30, 0.17, 0.08)."""
    body = round(d.robot_height * 30 / 38, 6)
    return body, round(d.robot_radius * 17 / 27, 6), round(d.robot_height - body, 6)


def _draw_robot(img, cam, cx, cy, color, light, turn, d: Design = CLASSIC):
    """The classic robot: an octagonal prism with a round head and two eyes (its facing)."""
    body_h, head_r, head_h = _prism_dims(d)
    eye = np.array([30, 30, 30.0]) if color.mean() > 128 else np.array([215, 215, 205.0])
    _draw_cylinder(img, cam, cx, cy, 0.0, body_h, d.robot_radius, color, light, n=8, phase=turn + np.pi / 8, gloss=d.robot_gloss)
    _draw_cylinder(img, cam, cx, cy, body_h, body_h + head_h, head_r, color * 0.97, light, n=24, gloss=round(d.robot_gloss + 0.15, 6))
    # two eyes near the front edge of the head top: they show the robot's facing
    z = body_h + head_h + 0.002
    k = head_r / 0.17
    for side in (-0.5, 0.5):
        ex = cx + 0.11 * k * np.cos(turn) - 0.065 * k * side * 2 * np.sin(turn)
        ey = cy + 0.11 * k * np.sin(turn) + 0.065 * k * side * 2 * np.cos(turn)
        ring, _ = _ring(ex, ey, 0.03 * k, z, 10)
        _fill(img, cam.project(ring), eye)


def _robot_profile(d: Design) -> np.ndarray:
    """(radius, z) from the foot up: the outline that is revolved into a disc / stone / pawn / cone."""
    R, H = d.robot_radius, d.robot_height
    shape = d.robot_shape
    if shape == "disc":
        b = min(0.25 * H, 0.02)
        prof = [(R - 0.8 * b, 0.0), (R, b), (R, H - b), (R - b, H)]
    elif shape == "stone":
        # a go stone: a shallow lens resting on its lower curve, the upper dome higher
        lower = [(R * np.cos(t), 0.3 * H * (1 + np.sin(t))) for t in np.radians([-62, -40, -20, 0])]
        upper = [(R * np.cos(t), 0.3 * H + 0.7 * H * np.sin(t)) for t in np.radians([14, 28, 42, 56, 70, 82, 90])]
        prof = lower + upper
        z0 = prof[0][1]
        prof = [(r, (z - z0) * H / (H - z0)) for r, z in prof]
    elif shape == "pawn":
        # a chess pawn: a rounded foot, a concave body, a collar and a ball head
        rh = min(0.5 * R, 0.24 * H)
        zc = H - rh
        neck = zc - rh * np.sin(np.radians(55))     # where the ball meets the collar
        collar = neck - 0.05 * H
        foot = 0.12 * H
        prof = [(R, 0.0), (R, 0.05 * H), (0.95 * R, 0.08 * H), (0.84 * R, 0.105 * H), (0.72 * R, foot)]
        prof += [(0.34 * R + 0.38 * R * (1 - t) ** 2, foot + (collar - foot) * t) for t in (0.15, 0.35, 0.55, 0.78, 1.0)]
        prof += [(0.56 * R, collar + 0.012 * H), (0.58 * R, collar + 0.035 * H), (0.4 * R, neck)]
        prof += [(rh * np.cos(t), zc + rh * np.sin(t)) for t in np.radians([-55, -35, -15, 5, 25, 42, 58, 72, 84, 90])]
    else:  # cone
        tip = 0.1 * R
        prof = [(R, 0.0), (R, 0.05 * H), (0.93 * R, 0.08 * H)]
        prof += [(0.93 * R + (tip - 0.93 * R) * t, 0.08 * H + (0.93 * H - 0.08 * H) * t) for t in (0.33, 0.66, 1.0)]
        prof += [(tip * 0.75, 0.97 * H), (tip * 0.35, 0.995 * H), (0.0, H)]
    return np.asarray(prof, np.float64)


def _draw_revolved(img, cam, cx, cy, profile, color, light, *, n=32, gloss=0.3, groove=False):
    """A solid of revolution: the profile's segments are frusta, drawn from the foot up, each by its
    facets that face the camera (a frustum is convex: they never overlap), then the flat top if any."""
    prof = np.asarray(profile, np.float64)
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ca, sa = np.cos(a), np.sin(a)
    ring3 = np.stack([cx + prof[:, :1] * ca, cy + prof[:, :1] * sa, np.repeat(prof[:, 1:2], n, axis=1)], axis=-1)
    uv = cam.project(ring3.reshape(-1, 3)).reshape(len(prof), n, 2)
    am = a + np.pi / n
    cm, sm = np.cos(am), np.sin(am)
    r0, z0, r1, z1 = prof[:-1, 0], prof[:-1, 1], prof[1:, 0], prof[1:, 1]
    nr, nz = z1 - z0, r0 - r1
    ln = np.hypot(nr, nz)
    ok = ln > 1e-9
    nr, nz = np.where(ok, nr / np.where(ok, ln, 1), 0), np.where(ok, nz / np.where(ok, ln, 1), 0)
    normals = np.stack([nr[:, None] * cm, nr[:, None] * sm, np.repeat(nz[:, None], n, axis=1)], axis=-1)
    rm = ((r0 + r1) / 2 * np.cos(np.pi / n))[:, None]
    mid = np.stack([cx + rm * cm, cy + rm * sm, np.repeat(((z0 + z1) / 2)[:, None], n, axis=1)], axis=-1)
    view = cam.C - mid
    facing = (normals * view).sum(-1) > 0
    view /= np.linalg.norm(view, axis=-1, keepdims=True)
    half = light + view
    half /= np.linalg.norm(half, axis=-1, keepdims=True)
    diffuse = np.maximum(0.0, normals @ light)
    spec = gloss * np.maximum(0.0, (normals * half).sum(-1)) ** 24
    cols = np.clip(color[None, None, :] * (0.42 + 0.62 * diffuse)[..., None] + 255 * spec[..., None], 0, 255)
    q = np.round(uv * 16).astype(np.int32)
    nxt = np.roll(np.arange(n), -1)
    for s in range(len(prof) - 1):
        if not ok[s]:
            continue
        for k in np.flatnonzero(facing[s]):
            k2 = nxt[k]
            quad = np.array([q[s, k], q[s, k2], q[s + 1, k2], q[s + 1, k]])
            cv2.fillConvexPoly(img, quad, cols[s, k].tolist(), cv2.LINE_AA, 4)
    r_top, z_top = prof[-1]
    if r_top > 1e-6:
        view = cam.C - np.array([cx, cy, z_top])
        view /= np.linalg.norm(view)
        h = light + view
        h /= np.linalg.norm(h)
        base = color * _shade(np.array([0, 0, 1.0]), light) * 1.04
        _fill(img, uv[-1], np.clip(base, 0, 255))
        if groove:  # a draughts checker's groove ring on its top face
            for rr, col in ((0.74, base * 0.78), (0.66, base)):
                ring, _ = _ring(cx, cy, rr * r_top, z_top + 1e-3, n)
                _fill(img, cam.project(ring), np.clip(col, 0, 255))
        spot = gloss * max(0.0, float(h[2])) ** 8
        if spot > 0.02 and r_top > 0.08:
            hx, hy = cx + 0.45 * r_top * h[0], cy + 0.45 * r_top * h[1]
            ring, _ = _ring(hx, hy, 0.28 * r_top, z_top + 2e-3, 12)
            _fill(img, cam.project(ring), np.clip(base + 255 * spot * 0.8, 0, 255))


def _draw_piece_robot(img, cam, cx, cy, color, light, turn, d: Design) -> None:
    if d.robot_shape == "prism":
        _draw_robot(img, cam, cx, cy, color, light, turn, d)
    else:
        _draw_revolved(img, cam, cx, cy, _robot_profile(d), color, light,
                       n=36 if d.robot_shape in ("pawn", "cone") else 32, gloss=d.robot_gloss, groove=d.robot_groove)


_BOLT = np.array([[0.02, 0.09], [-0.05, -0.01], [0.0, -0.01], [-0.02, -0.09], [0.05, 0.01], [0.0, 0.01]])


def _dome_profile(d: Design) -> np.ndarray:
    """(radius, z) from the foot up: a rounded battery (a go stone, a domed counter), its top flat
    over half its radius (where its symbol is printed)."""
    R, H = d.battery_radius, d.battery_height
    t = np.radians([0, 22, 42, 60])
    return np.column_stack([R * np.cos(t), H * np.sin(t) / np.sin(t[-1])])


def _draw_battery(img, cam, cx, cy, light, printed, turn, d: Design = CLASSIC):
    color = np.array(d.battery_color, np.float32)
    if d.battery_shape == "dome":
        profile = _dome_profile(d)
        _draw_revolved(img, cam, cx, cy, profile, color, light, n=24, gloss=0.3)
        rb = profile[-1, 0] / 0.7             # the symbol fits the flat top
    else:
        _draw_cylinder(img, cam, cx, cy, 0.0, d.battery_height, d.battery_radius, color, light, n=24, gloss=0.25)
        rb = d.battery_radius
    if not printed:
        if d.blank_color is not None:   # the blank face has a colour of its own (the body's sides keep theirs)
            face = (profile[-1, 0] if d.battery_shape == "dome" else d.battery_radius) * 0.96
            top, _ = _ring(cx, cy, face, d.battery_height + 0.001, 24)
            shade = _shade(np.array([0, 0, 1.0]), light) * 1.04
            _fill(img, cam.project(top), np.clip(np.array(d.blank_color, np.float32) * shade, 0, 255))
        return
    z = d.battery_height + 0.002
    ink = (np.array(d.symbol_color, np.float32) * 0.95).tolist()
    c, s = np.cos(turn), np.sin(turn)
    rot = np.array([[c, s], [-s, c]])

    def poly(xy):
        xy = np.asarray(xy) @ rot
        pts3 = np.column_stack([cx + xy[:, 0], cy + xy[:, 1], np.full(len(xy), z)])
        return np.round(cam.project(pts3) * 16).astype(np.int32)

    if d.battery_symbol == "bolt":
        bolt = _BOLT if rb == 0.14 else _BOLT * (rb / 0.14)
        cv2.fillPoly(img, [poly(bolt)], ink, cv2.LINE_AA, 4)
    elif d.battery_symbol == "plus":
        L, W = 0.62 * rb, 0.17 * rb
        for bar in ([[-L, -W], [L, -W], [L, W], [-L, W]], [[-W, -L], [W, -L], [W, L], [-W, L]]):
            cv2.fillConvexPoly(img, poly(bar), ink, cv2.LINE_AA, 4)
    else:
        a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        circle = np.stack([np.cos(a), np.sin(a)], axis=1)
        if d.battery_symbol == "ring":
            cv2.fillPoly(img, [poly(circle * 0.66 * rb), poly(circle[::-1] * 0.44 * rb)], ink, cv2.LINE_AA, 4)
        else:  # dot
            cv2.fillConvexPoly(img, poly(circle * 0.36 * rb), ink, cv2.LINE_AA, 4)


def _shadow_polygon(footprint_top, footprint_bottom, light):
    pts = np.vstack([footprint_top, footprint_bottom])
    s = pts[:, :2] - pts[:, 2:3] / light[2] * light[:2]
    return cv2.convexHull(s.astype(np.float32)).reshape(-1, 2)


def _robot_silhouettes(cam, x, y, turn, d: Design, profile) -> list[np.ndarray]:
    """Convex pixel polygons whose union is the robot's outline in the image (one per frustum)."""
    if profile is None:  # prism: the octagonal body and the round head
        body_h, head_r, head_h = _prism_dims(d)
        parts = [(_ring(x, y, d.robot_radius, 0.0, 8, turn + np.pi / 8)[0], _ring(x, y, d.robot_radius, body_h, 8, turn + np.pi / 8)[0]),
                 (_ring(x, y, head_r, body_h, 16)[0], _ring(x, y, head_r, body_h + head_h, 16)[0])]
        return [cv2.convexHull(cam.project(np.vstack(p)).astype(np.float32)).reshape(-1, 2) for p in parts]
    rings = cam.project(_profile_rings(x, y, profile, 16)).reshape(len(profile), 16, 2).astype(np.float32)
    return [cv2.convexHull(rings[k:k + 2].reshape(-1, 2)).reshape(-1, 2) for k in range(len(profile) - 1)]


def _profile_rings(x, y, profile, n) -> np.ndarray:
    """(P * n, 3) points: the profile's rings around (x, y), ring after ring."""
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r, z = profile[:, :1], profile[:, 1:]
    return np.stack([x + r * np.cos(a), y + r * np.sin(a), np.repeat(z, n, axis=1)], axis=-1).reshape(-1, 3)


def _visible_fraction(target: np.ndarray, polys: list[np.ndarray], boxes: np.ndarray, use: np.ndarray) -> float:
    """The share of the convex pixel polygon ``target`` outside the occluding ``polys[use]`` (rasterised
    finely); ``boxes``: the polygons' bounding boxes, (k, 4) x0 y0 x1 y1."""
    lo, hi = target.min(axis=0), target.max(axis=0)
    hit = np.flatnonzero(use & (boxes[:, 2] > lo[0]) & (boxes[:, 0] < hi[0]) & (boxes[:, 3] > lo[1]) & (boxes[:, 1] < hi[1]))
    if hit.size == 0:
        return 1.0
    scale = float(np.clip(100.0 / max(float((hi - lo).max()), 1e-3), 1.0, 32.0))
    wh = np.ceil((hi - lo) * scale).astype(int) + 3

    def pts(poly):
        return np.round(((poly - lo) * scale + 1) * 16).astype(np.int32)

    inside = np.zeros((wh[1], wh[0]), np.uint8)
    cv2.fillConvexPoly(inside, pts(target), 1, cv2.LINE_8, 4)
    area = int(inside.sum())
    if area == 0:
        return 1.0
    cover = np.zeros_like(inside)
    for k in hit:
        cv2.fillConvexPoly(cover, pts(polys[k]), 1, cv2.LINE_8, 4)
    return 1.0 - int((inside & cover).sum()) / area


def _depth(cam, x: float, y: float) -> float:
    """The key pieces are drawn by, farthest from the camera first."""
    return float(np.linalg.norm(cam.C - np.array([x, y, 0.1])))


def _visibility(cam, pieces, d: Design, profile) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
    """visible_points, visible_squares and point_view (see RenderedFrame); ``pieces`` in drawing order."""
    polys, depth, square = [], [], []   # every robot's outline polygons, with the robot's depth and square
    for kind, x, y, extra in pieces:
        if kind == "robot":
            outline = _robot_silhouettes(cam, x, y, extra[1], d, profile)
            polys += outline
            depth += [_depth(cam, x, y)] * len(outline)
            square += [extra[2]] * len(outline)
    points = [1.0] * N_POINTS
    squares = [1.0] * N_SQUARES
    if not polys:
        return tuple(points), tuple(squares), tuple(points)
    depth, square = np.array(depth), np.array(square)
    boxes = np.array([[p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()] for p in polys])
    at = {extra[2]: (x, y) for kind, x, y, extra in pieces if kind == "battery"}
    view = []
    for i in range(N_POINTS):
        x, y = at.get(i, (i % 7, i // 7))
        rings = np.vstack([_ring(x, y, d.battery_radius, z, 24)[0] for z in (0.0, d.battery_height)])
        outline = cv2.convexHull(cam.project(rings).astype(np.float32)).reshape(-1, 2)
        view.append(_visible_fraction(outline, polys, boxes, depth < _depth(cam, x, y)))   # robots drawn over it
        if i in at:
            points[i] = view[-1]
    centres = np.array([[i % 6 + 0.5, i // 6 + 0.5] for i in range(N_SQUARES)])
    a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    discs = np.zeros((N_SQUARES, 24, 3))
    discs[..., 0] = centres[:, :1] + SQUARE_PROBE_RADIUS * np.cos(a)
    discs[..., 1] = centres[:, 1:] + SQUARE_PROBE_RADIUS * np.sin(a)
    discs = cam.project(discs.reshape(-1, 3)).reshape(N_SQUARES, 24, 2)
    for i in range(N_SQUARES):
        squares[i] = _visible_fraction(discs[i], polys, boxes, square != i)
    return tuple(points), tuple(squares), tuple(view)


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
    design: Design | int | str | None = None,
    printed: Sequence[bool] | None = None,
    placement: int | None = None,
    **degradations,
) -> RenderedFrame:
    """Render ``layout`` as a photo. ``size`` is (width, height). See :class:`Degradations`.

    ``design``: None or "classic" (the original look, :data:`~vision.designs.CLASSIC`), an int
    (``sample_design(design)``), "random" (``sample_design(seed)``) or a :class:`~vision.designs.Design`.
    A matte board (``design.board_gloss`` False) shows no glare unless ``glare`` is given.
    ``printed``: None (each battery's side drawn at random) or 49 bools, per point True = printed
    side up (points without a battery ignore theirs).
    ``placement``: None (each piece stands where the seed, its field and its kind put it, so a piece
    nobody touched stands where it stood in the frame before, as in a game) or an int: every piece
    set down anew, as when a position is set up from scratch (its place, turn and shade drawn from
    this number too; the classic set ignores it, its pieces are placed per board anyway).
    """
    if placement is not None and (isinstance(placement, bool) or not isinstance(placement, (int, np.integer))):
        raise TypeError(f"placement: expected None or an int, got {placement!r:.60}")
    known = {f.name for f in fields(Degradations)}
    unknown = sorted(set(degradations) - known)
    if unknown:
        raise TypeError(f"unknown degradation(s) {', '.join(unknown)}: expected some of {', '.join(sorted(known))}")
    w, h = int(size[0]), int(size[1])
    if w < 160 or h < 120:
        raise ValueError(f"render size {w}x{h} is too small (at least 160x120)")
    look = resolve_design(design, seed)
    if printed is not None:
        if isinstance(printed, (str, bytes)) or len(printed) != N_POINTS:
            raise ValueError(f"printed: expected {N_POINTS} bools (one per point), got {printed!r:.60}")
        printed = tuple(bool(v) for v in printed)
    setup = _rng("setup", seed)
    cond = _random_conditions(setup, Degradations(**degradations))
    if not look.board_gloss and degradations.get("glare") is None:
        cond = replace(cond, glare=0.0)

    # camera: look at the board centre, fit the board (with markers) into the frame
    focal = setup.uniform(0.95, 1.25) * w
    target = np.array([3 + setup.uniform(-0.4, 0.4), 3 + setup.uniform(-0.4, 0.4), 0.0])
    azimuth = setup.uniform(0, 360)
    b = look.border
    extent = np.zeros((4, 3), np.float64)
    extent[:, :2] = np.array([[-1.6, -1.6], [-1.6, 7.6], [7.6, -1.6], [7.6, 7.6]]) if markers else np.array(
        [[-b, -b], [-b, 6 + b], [6 + b, -b], [6 + b, 6 + b]])
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

    backdrop, tex, span = _cached_texture(seed, markers, float(cond.marker_size), look)

    # where each piece stands: fixed by seed, field and piece, so a piece nobody touched stands where it
    # stood in the frame before (as on a real table) while the others move (``placement`` sets every
    # piece down anew, as a position set up from scratch); the sides of the batteries
    # (when not given) are drawn per board. The classic set keeps its first renderer's placement,
    # drawn per board (its reader, tests and demo were made on those frames)
    key = (tuple(s.value for s in layout.squares), tuple(p.value for p in layout.points))
    side_rng = _rng("pieces", seed, key)
    per_board = look.classic_palette

    def piece_rng(*what: object) -> np.random.Generator:
        if per_board:
            return side_rng
        return _rng(*what) if placement is None else _rng(*what, "placement", int(placement))

    pieces = []  # (kind, x, y, extra)
    if look.classic_palette:
        robot_offset = cond.offset
        battery_offset = min(cond.offset, 0.25) * 0.3
    else:
        # how carelessly this table sets its batteries down: players put a battery near its point, not
        # on it (up to a good quarter of a square off at the usual offset 0.25, nothing at offset 0;
        # the set-up's own stream, so cameras stay as they were)
        battery_offset = min(cond.offset, 0.25) * (0.3 + _rng("battery-care", seed).uniform(0.0, 0.88))
        # wide robots keep to their square and clear of the batteries at its corners
        robot_offset = min(cond.offset, max(0.02, min(0.49 - look.robot_radius, np.sqrt(0.5) - look.robot_radius
                                                      - look.battery_radius - max(0.1, battery_offset))))
    for i, s in enumerate(layout.squares):
        prng = piece_rng("robot", seed, i, s.value)
        r = robot_offset * np.sqrt(prng.random())
        a = prng.uniform(0, 2 * np.pi)
        turn = prng.uniform(0, 2 * np.pi) if cond.piece_rotation else (np.pi / 2 if s is SquareState.WHITE else -np.pi / 2)
        if s is not SquareState.EMPTY:
            # the robot's shade: the classic set draws it as it draws the robot (below), in its board's stream
            shade = None if per_board else prng.uniform(0.96, 1.03)
            pieces.append(("robot", i % 6 + 0.5 + r * np.cos(a), i // 6 + 0.5 + r * np.sin(a), (s, turn, i, shade)))
    sides = []
    for i, p in enumerate(layout.points):
        prng = piece_rng("battery", seed, i)
        r = battery_offset * np.sqrt(prng.random())
        a = prng.uniform(0, 2 * np.pi)
        pr = bool(side_rng.random() < 0.5)
        turn = prng.uniform(0, 2 * np.pi)
        if printed is not None:
            pr = printed[i]
        sides.append(pr)
        if p is PointState.BATTERY:
            pieces.append(("battery", i % 7 + r * np.cos(a), i // 7 + r * np.sin(a), (pr, turn, i)))

    # contact shadows and cast shadows go into the plane texture
    shade = np.ones(tex.shape[:2], np.float32)
    soft = np.zeros(tex.shape[:2], np.float32)
    body_h, head_r, head_h = _prism_dims(look)
    profile = None if look.robot_shape == "prism" else _robot_profile(look)
    for kind, x, y, _ in pieces:
        if kind == "robot" and profile is not None:
            rad = look.robot_radius
            rings = _profile_rings(x, y, profile, 16)
            poly = _shadow_polygon(rings[16:], rings[:16], light)
        else:
            rad = look.robot_radius if kind == "robot" else look.battery_radius
            height = body_h + head_h if kind == "robot" else look.battery_height
            ring_b, _ = _ring(x, y, rad, 0.0, 16)
            ring_t, _ = _ring(x, y, rad if kind == "battery" else head_r, height, 16)
            ring_m, _ = _ring(x, y, rad, body_h if kind == "robot" else height, 16)
            poly = _shadow_polygon(np.vstack([ring_t, ring_m]), ring_b, light)
        cv2.fillConvexPoly(shade, np.round(_tex_pts(poly, *span) * 16).astype(np.int32), 0.55, cv2.LINE_AA, 4)
        u, v = _tex_xy(x, y, *span)
        cv2.circle(soft, (int(u), int(v)), int(rad * TEX_PPU * 1.15), 1.0, -1, cv2.LINE_AA)
    soft = cv2.GaussianBlur(soft, (0, 0), 0.06 * TEX_PPU)
    shade = np.minimum(shade, 1 - 0.35 * soft)
    tex = tex * shade[..., None]

    Hb = cam.plane_homography()
    if backdrop is None:
        # (the classic texture is mirrored at its edge: a wide view can show a mirrored board)
        img = cv2.warpPerspective(tex, Hb @ _tex_to_board(*span), (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    else:
        img = cv2.warpPerspective(backdrop, Hb @ _tex_to_board(*TABLE_SPAN, TABLE_PPU), (w, h), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REFLECT)
        cv2.warpPerspective(tex, Hb @ _tex_to_board(*span), (w, h), dst=img, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_TRANSPARENT)

    # glare: the lamp mirrored in the board's varnish (the matte pieces stand in front of it)
    if cond.glare > 0:
        grng = _rng("glare", seed)
        g = cam.project(np.array([[grng.uniform(0.5, 5.5), grng.uniform(0.5, 5.5), 0.0]]))[0]
        sig = grng.uniform(0.05, 0.12) * w
        gy, gx = np.ogrid[0:h, 0:w]
        img += (255 * cond.glare * np.exp(-((gx - g[0]) ** 2 + (gy - g[1]) ** 2) / (2 * sig * sig)))[..., None].astype(np.float32)

    # pieces, farthest from the camera first
    pieces.sort(key=lambda p: -_depth(cam, p[1], p[2]))
    white = np.array(look.white_color, np.float32)
    black = np.array(look.black_color, np.float32)
    for kind, x, y, extra in pieces:
        if kind == "robot":
            state, turn, _, shade = extra
            base = white if state is SquareState.WHITE else black
            if shade is None:
                shade = side_rng.uniform(0.96, 1.03)
            _draw_piece_robot(img, cam, x, y, base * shade, light, turn, look)
        else:
            pr, turn, _ = extra
            _draw_battery(img, cam, x, y, light, pr, turn, look)
    visible_points, visible_squares, point_view = _visibility(cam, pieces, look, profile)

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
    return RenderedFrame(out, corners, layout, Hb, hand, cond, tuple(sides), look, visible_points, visible_squares,
                         point_view)
