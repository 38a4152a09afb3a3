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

PPU = 32
SIZE = 7 * PPU                      # 224: 6 squares + 2 half-square margins
BG_SCALE = 4                        # background estimated at PPU / BG_SCALE px per square
BG_KERNEL = 15                      # median window in background pixels (~1.9 squares)
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


def background(rect: np.ndarray) -> np.ndarray:
    """Local board colour, pieces removed: float32 SIZE x SIZE x 3."""
    small = cv2.resize(rect, (SIZE // BG_SCALE, SIZE // BG_SCALE), interpolation=cv2.INTER_AREA)
    med = cv2.medianBlur(small, BG_KERNEL)
    return cv2.resize(med, (SIZE, SIZE), interpolation=cv2.INTER_LINEAR).astype(np.float32)


_FIELD: dict[bool, np.ndarray] = {}


def field_mask(tight: bool = False) -> np.ndarray:
    """Pixels of the 6x6 field plus a little (``tight``: the field only, where robots can stand)."""
    if tight not in _FIELD:
        m = np.zeros((SIZE, SIZE), bool)
        a = PPU // 2 if tight else PPU // 4
        m[a: SIZE - a, a: SIZE - a] = True
        _FIELD[tight] = m
    return _FIELD[tight]


def features(rect: np.ndarray, bg: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features HxWx5 float32, background, chroma deviation of the background HxW)."""
    if bg is None:
        bg = background(rect)
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
    # how far the local board colour strays from the board's usual colour (glare, a hand)
    dev = np.hypot(lb[..., 2] - lb[..., 1] - chroma_ref[0], lb[..., 0] - lb[..., 1] - chroma_ref[1])
    return feats, bg, dev
