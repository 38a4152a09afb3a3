"""Rectification to a canonical top view and the per-pixel features read from it.

The top view has ``PPU`` pixels per square and half a square of margin: board
point (x, y) lands on pixel ((x + 0.5) * PPU, (6.5 - y) * PPU), rank 6 on top.

Per-pixel features are chosen to be blind to the light: with ``B`` the
board's local colour (a median over ~1.4 squares, which ignores pieces but
follows shadows and gradients), the first three are ``log I - log B`` per
channel (gain, colour temperature and shadow cancel); the other two are the
pixel's chromaticity ``log(R/G), log(B/G)`` relative to the board's median
chromaticity in this frame (tells skin and other foreign things from wood).

Glare is light the varnish mirrors: it is *added* to the board, not to the
matte pieces. The background is split per pixel into lit wood ``s * W`` and
neutral lamp light ``a`` (saturated channels are censored values and left
out of that fit). Pieces are then described against the glare-free colour
(``Features.piece``), the board against the colour as seen
(``Features.board``); the two differ only under glare.
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from .numeric import median, quantile

PPU = 24
SIZE = 7 * PPU                      # 168: 6 squares + 2 half-square margins
BG_SCALE = 3                        # background estimated at PPU / BG_SCALE px per square
BG_KERNEL = 11                      # median window in background pixels (~1.4 squares)
N_FEATURES = 5
GLARE_KERNEL = 11                # median window for glare, half-resolution background pixels (~2.9 squares)
CLIPPED = 250                   # a channel this bright is saturated (a censored value)
WOOD_BAND = (0.5, 0.7)          # saturation quantiles of the field taken as the wood's own colour
GLARE_TOLERANCE = 0.15          # reflection share of the wood's own paleness variation (not glare)
GLARE_FULL = 0.6                # glare this much brighter than the trend (log) counts fully


# log(v + 8) of every 8-bit value: the log of a uint8 image is a table look-up (cv2.LUT),
# bit for bit what np.log(image.astype(np.float32) + 8.0) gives, at a fraction of the time
LOG_LUT = np.log(np.arange(256, dtype=np.float32) + np.float32(8.0))


def log_image(img: np.ndarray) -> np.ndarray:
    """``np.log(img + 8)`` in float32 of a uint8 image (any number of channels up to 4)."""
    return cv2.LUT(img, LOG_LUT)


def board_to_rect() -> np.ndarray:
    """3x3 affine map from board units to top-view pixels."""
    return np.array([[PPU, 0, 0.5 * PPU], [0, -PPU, 6.5 * PPU], [0, 0, 1]], np.float64)


def rect_coords(xy: np.ndarray) -> np.ndarray:
    xy = np.asarray(xy, np.float64)
    return np.stack([(xy[..., 0] + 0.5) * PPU, (6.5 - xy[..., 1]) * PPU], axis=-1)


_RECT_MATRICES: dict[bytes, np.ndarray] = {}


def rectify(image: np.ndarray, H_board_to_img: np.ndarray) -> np.ndarray:
    """The canonical top view (SIZE x SIZE x 3 uint8)."""
    H = H_board_to_img
    # the same camera set-up frame after frame: the matrix is computed once per homography
    key = H.tobytes() if isinstance(H, np.ndarray) and H.dtype == np.float64 else None
    M = _RECT_MATRICES.get(key) if key is not None else None
    if M is None:
        M = board_to_rect() @ np.linalg.inv(H)
        if key is not None:
            if len(_RECT_MATRICES) > 8:
                _RECT_MATRICES.clear()
            _RECT_MATRICES[key] = M
    return cv2.warpPerspective(image, M, (SIZE, SIZE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def background(rect: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Log board colour as seen, the same without glare, and the glare map (each SIZE x SIZE).

    The local board colour is a median over ~1.4 squares (pieces drop out, shadows
    and light gradients stay). Glare (the lamp mirrored in the varnish) *adds*
    light to the board only, not to the matte pieces standing on it: where the
    local board is brighter than the smooth light trend by more than the wood's
    own variation, the glare-free colour is the trend. The glare map is 0 (none)
    .. 1 (a strong reflection).
    """
    n = SIZE // BG_SCALE
    small = cv2.resize(rect, (n, n), interpolation=cv2.INTER_AREA)
    med = cv2.medianBlur(small, BG_KERNEL)
    lm = log_image(med)
    up = lambda a: cv2.resize(a, (SIZE, SIZE), interpolation=cv2.INTER_LINEAR)
    lm_full = up(lm)
    # glare is judged on a coarser median (~3 squares, at half the resolution): a cluster of
    # White robots (the start rank) must not pass for a reflection
    coarse = cv2.resize(rect, (n // 2, n // 2), interpolation=cv2.INTER_AREA)
    wide = cv2.medianBlur(coarse, GLARE_KERNEL).astype(np.float32)
    free_wide, glare = _without_glare(wide)
    inside = _field_weight(wide.shape[0])
    drop = inside[..., None] * np.log((free_wide + 8.0) / (wide + 8.0))
    if not drop.any():
        return lm_full, lm_full, np.zeros((SIZE, SIZE), np.float32)
    lf = lm + cv2.resize(drop, (n, n), interpolation=cv2.INTER_LINEAR)
    return lm_full, up(lf), up(glare * inside)


_FW: dict[int, np.ndarray] = {}
_GLARE_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))   # ~0.9 square on the small grid


def _field_weight(n: int) -> np.ndarray:
    """1 on the printed field of the small background grid, 0 on the frame, table and marker cards."""
    if n not in _FW:
        g = (np.arange(n) + 0.5) / n * SIZE / PPU - 0.5   # board units of the small grid
        v, u = np.meshgrid(6.0 - g, g, indexing="ij")
        field = ((u > -0.1) & (u < 6.1) & (v > -0.1) & (v < 6.1)).astype(np.float32)
        _FW[n] = cv2.GaussianBlur(field, (0, 0), 1.0)
    return _FW[n]


def _without_glare(lin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split the local board colour into lit wood and mirrored lamp light.

    Each background pixel is ``s * W + a * L``: ``W`` the board's own colour
    (a little above the median saturation in this frame: glare only
    makes it paler, a hand or a foreign object may be more saturated), ``L``
    the lamp's colour (neutral), ``s`` the light on the board (it also lights
    the pieces), ``a`` >= 0 the reflection (it lies on the varnish only).
    Saturated channels are censored, not colours: they are left out of the
    fit; where fewer than two channels remain, ``s`` is filled in from the
    neighbourhood. Returns (glare-free colour ``s * W``, glare map 0..1).
    """
    n = lin.shape[0]
    inside = _field_weight(n) > 0.5
    # (the reductions over the three channels are written out: numpy's reduce over a short last
    # axis costs several times as much; the sums keep its order, (c0 + c1) + c2, bit for bit)
    c0, c1, c2 = lin[..., 0], lin[..., 1], lin[..., 2]
    tot = c0 + c1 + c2 + 1e-3
    chrom = lin / tot[..., None]
    ok = inside & (np.maximum(np.maximum(c0, c1), c2) < CLIPPED)
    pool = chrom[ok] if ok.sum() > 50 else chrom[inside]
    psat = pool[:, 2] - pool[:, 0]
    lo, hi = quantile(psat, WOOD_BAND)
    W = median(pool[(psat >= lo) & (psat <= hi)], axis=0)
    L = np.full(3, 1 / 3, np.float32)
    valid_ch = lin < CLIPPED                               # (n, n, 3)
    nvalid = _channel_sum(valid_ch.view(np.uint8))
    # least squares per pixel over the unclipped channels: normal equations of [W L]
    m = valid_ch.astype(np.float32)
    ww = _channel_sum(m * W * W)
    wl = _channel_sum(m * W * L)
    ll = _channel_sum(m * L * L)
    wy = _channel_sum(m * W * lin)
    ly = _channel_sum(m * L * lin)
    det = ww * ll - wl * wl
    good = (nvalid >= 2) & (np.abs(det) > 1e-6)
    det = np.where(good, det, 1.0)
    s = (ll * wy - wl * ly) / det
    a = (ww * ly - wl * wy) / det
    # no negative glare: then the pixel is wood alone
    neg = a < 0
    s = np.where(neg, wy / np.maximum(ww, 1e-6), s)
    a = np.where(neg, 0.0, a)
    good &= s > 0
    fit_ok = good.copy()
    if not good.all():
        gw = good.astype(np.float32)
        num, den = s * gw, gw
        for sigma in (2.0, 5.0, 12.0):
            fill = cv2.GaussianBlur(num, (0, 0), sigma) / np.maximum(cv2.GaussianBlur(den, (0, 0), sigma), 1e-3)
            still = cv2.GaussianBlur(den, (0, 0), sigma) < 1e-3
            s = np.where(good, s, fill)
            if not still.any():
                break
        s = np.where(s > 0, s, np.median(s[good]) if good.any() else 1.0)
    # the wood's own grain is paler here and there: only light beyond that is glare
    excess = np.maximum(a - GLARE_TOLERANCE * s, 0).astype(np.float32)
    # glare is a broad blob; thin streaks of "paleness" are edges (a shadow's border, JPEG's
    # coarse colour at sharp edges): an opening removes them
    excess = cv2.morphologyEx(excess, cv2.MORPH_OPEN, _GLARE_KERNEL)
    wood = s[..., None] * W[None, None, :]
    free = np.maximum(lin - excess[..., None] * L[None, None, :], wood)
    free = np.where(fit_ok[..., None], free, wood)   # saturated: wood alone
    free = np.minimum(free, lin)
    third = np.float32(3)   # .mean(axis=2) is the float32 sum over 3
    glare = np.clip(np.log(((c0 + c1 + c2) / third + 8) / (_channel_sum(free) / third + 8)) / GLARE_FULL, 0, 1)
    return free.astype(np.float32), glare.astype(np.float32)


def _channel_sum(a: np.ndarray) -> np.ndarray:
    """``a.sum(axis=2)`` of an (H, W, 3) array, bit for bit (the same order: (c0 + c1) + c2)."""
    return a[..., 0] + a[..., 1] + a[..., 2]


_FIELD: dict[bool, np.ndarray] = {}


def field_mask(tight: bool = False) -> np.ndarray:
    """Pixels of the 6x6 field plus a little (``tight``: the field only, where robots can stand)."""
    if tight not in _FIELD:
        m = np.zeros((SIZE, SIZE), bool)
        a = PPU // 2 - PPU // 5 if tight else PPU // 4
        m[a: SIZE - a, a: SIZE - a] = True
        _FIELD[tight] = m
    return _FIELD[tight]


class Features(NamedTuple):
    """A frame's per-pixel features. Read only: without glare ``board`` and ``piece`` are one array."""

    board: np.ndarray      # HxWx5: the pixel against the local board colour as seen (board-like classes)
    piece: np.ndarray      # HxWx5: the pixel against the glare-free board colour (pieces)
    # (both are views of (5, H, W) arrays, one plane per feature: not C-contiguous)
    glare: np.ndarray      # HxW, 0..1
    log_image: np.ndarray  # HxWx3 log(I + 8)
    log_bg: np.ndarray     # HxWx3 log of the local board colour as seen
    log_free: np.ndarray   # HxWx3 log of the glare-free board colour
    glared: np.ndarray     # HxW bool: where board and piece features differ


def pixel_features(li: np.ndarray, lb: np.ndarray, lf: np.ndarray, chroma_ref: np.ndarray,
                   glared: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Board-side and piece-side features from log pixel, log local board and log glare-free board colours.

    The chroma features are relative to the board's chroma in this frame; on the
    board side under glare (``glared``) relative to the local, paler board colour.
    """
    # stored one plane per feature (a (5, H, W) array seen as (H, W, 5)): each feature is
    # written in one contiguous pass, and the pixel model reads the planes as they lie
    planes = np.empty((N_FEATURES,) + li.shape[:-1], np.float32)
    for c in range(3):
        np.subtract(li[..., c], lf[..., c], out=planes[c])
    np.subtract(li[..., 2] - li[..., 1], chroma_ref[0], out=planes[3])
    np.subtract(li[..., 0] - li[..., 1], chroma_ref[1], out=planes[4])
    fp = np.moveaxis(planes, 0, -1)
    if glared is None or not glared.any():
        # no glare: both sides are the same features (one array; Features are read only)
        return fp, fp
    # under glare the board side is against the local board colour as seen: computed on whole
    # planes and copied in where glared (the same values as gathering and scattering the glared
    # pixels, several times faster)
    board = planes.copy()
    for c in range(3):
        np.copyto(board[c], li[..., c] - lb[..., c], where=glared)
    np.copyto(board[3], (li[..., 2] - li[..., 1]) - (lb[..., 2] - lb[..., 1]), where=glared)
    np.copyto(board[4], (li[..., 0] - li[..., 1]) - (lb[..., 0] - lb[..., 1]), where=glared)
    return np.moveaxis(board, 0, -1), fp


def chroma_reference(lf: np.ndarray) -> np.ndarray:
    """The board's median chromaticity log(R/G), log(B/G) in this frame (glare-free)."""
    bc = lf[::8, ::8]
    return np.array([median(bc[..., 2] - bc[..., 1]), median(bc[..., 0] - bc[..., 1])], np.float32)


def features(rect: np.ndarray) -> Features:
    lb, lf, glare = background(rect)
    li = log_image(rect)
    glared = glare > 0
    fb, fp = pixel_features(li, lb, lf, chroma_reference(lf), glared)
    for a in (fb, fp, glare, li, lb, lf, glared):
        a.setflags(write=False)   # (board and piece may be one array; nothing writes to them)
    return Features(fb, fp, glare, li, lb, lf, glared)
