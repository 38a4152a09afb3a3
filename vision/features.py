"""Rectification to a canonical top view and the per-pixel features read from it.

The top view has ``PPU`` pixels per square and half a square of margin: board
point (x, y) lands on pixel ((x + 0.5) * PPU, (6.5 - y) * PPU), rank 6 on top.

Per-pixel features are chosen to be blind to the light: with ``B`` the
board's local background (a median over ~1.7 squares, which ignores pieces but
follows shadows and gradients), the first three are ``log I - log B`` per
channel (gain, colour temperature and shadow cancel); the other two are the
pixel's chromaticity ``log(R/G), log(B/G)`` relative to the board's median
chromaticity in this frame (tells skin and other foreign things from wood).
"""

from __future__ import annotations

import cv2
import numpy as np

PPU = 24
SIZE = 7 * PPU                      # 224: 6 squares + 2 half-square margins
BG_SCALE = 3                        # background estimated at PPU / BG_SCALE px per square
BG_KERNEL = 11                      # median window in background pixels (~1.4 squares)
N_FEATURES = 5


def board_to_rect() -> np.ndarray:
    """3x3 affine map from board units to top-view pixels."""
    return np.array([[PPU, 0, 0.5 * PPU], [0, -PPU, 6.5 * PPU], [0, 0, 1]], np.float64)


def rect_coords(xy: np.ndarray) -> np.ndarray:
    xy = np.asarray(xy, np.float64)
    return np.stack([(xy[..., 0] + 0.5) * PPU, (6.5 - xy[..., 1]) * PPU], axis=-1)


def rectify(image: np.ndarray, H_board_to_img: np.ndarray) -> np.ndarray:
    """The canonical top view (SIZE x SIZE x 3 uint8)."""
    M = board_to_rect() @ np.linalg.inv(H_board_to_img)
    return cv2.warpPerspective(image, M, (SIZE, SIZE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def background(rect: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Local board colour with pieces removed (float32 SIZE x SIZE x 3), and the glare map.

    Glare (the lamp mirrored in the varnish) makes the board locally brighter
    *and* paler than the board's usual colour in this frame; the map is 0 (none)
    .. 1 (the board's colour is washed out).
    """
    small = cv2.resize(rect, (SIZE // BG_SCALE, SIZE // BG_SCALE), interpolation=cv2.INTER_AREA)
    med = cv2.medianBlur(small, BG_KERNEL)
    lm = np.log(med.astype(np.float32) + 8.0)
    lum = lm.mean(axis=2)
    cr = lm[..., 2] - lm[..., 1]
    cb = lm[..., 0] - lm[..., 1]
    inner = (slice(BG_KERNEL // 2, -(BG_KERNEL // 2)),) * 2
    sat = np.hypot(cr, cb)  # saturation of the board colour (neutral grey = 0)
    sat_ref = max(float(np.median(sat[inner])), 1e-3)
    lum_ref = float(np.median(lum[inner]))
    glare = np.clip(1 - sat / sat_ref, 0, 1) * np.clip((lum - lum_ref) / 0.1, 0, 1)
    bg = cv2.resize(med, (SIZE, SIZE), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    return bg, cv2.resize(glare.astype(np.float32), (SIZE, SIZE), interpolation=cv2.INTER_LINEAR)


_FIELD: dict[bool, np.ndarray] = {}


def field_mask(tight: bool = False) -> np.ndarray:
    """Pixels of the 6x6 field plus a little (``tight``: the field only, where robots can stand)."""
    if tight not in _FIELD:
        m = np.zeros((SIZE, SIZE), bool)
        a = PPU // 2 - PPU // 5 if tight else PPU // 4
        m[a: SIZE - a, a: SIZE - a] = True
        _FIELD[tight] = m
    return _FIELD[tight]


def features(rect: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features HxWx5 float32, background, glare map HxW)."""
    bg, glare = background(rect)
    li = np.log(rect.astype(np.float32) + 8.0)
    lb = np.log(bg + 8.0)
    ratio = li - lb
    # board chroma from the background (pieces already removed by the median)
    bc = lb[::8, ::8]
    chroma_ref = np.array([np.median(bc[..., 2] - bc[..., 1]), np.median(bc[..., 0] - bc[..., 1])], np.float32)
    feats = np.empty(rect.shape[:2] + (N_FEATURES,), np.float32)
    feats[..., :3] = ratio
    feats[..., 3] = li[..., 2] - li[..., 1] - chroma_ref[0]
    feats[..., 4] = li[..., 0] - li[..., 1] - chroma_ref[1]
    return feats, bg, glare
