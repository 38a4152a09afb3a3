"""The bare board as the calibration frame showed it: "has this spot changed?"

A camera above the table and the lamp beside it stay where they are during a
game, and so do the things that make a single frame hard to read: a glare spot
in the varnish, the shadow of a lamp arm, the printed lines and the wood's
grain. The calibration frame shows the bare board wherever the start position
has no piece (ranks 2 to 5, away from the start batteries). Keeping that part
of its top view gives each later frame a second question besides "what does
this pixel look like?": "does it still look as it did on the bare board?".

Both frames are compared in the light-blind board features of
:mod:`vision.features` (each pixel against its local board colour), so a
global change of light or colour temperature since calibration cancels; what
remains is what changed on the board: a piece, a new shadow, a hand.

Pure image bookkeeping: the caller says which fields the calibration frame
showed bare (from the known start layout); nothing here knows a rule.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

from math import lgamma, log, pi

import cv2
import numpy as np

from .appearance import pixel_board_coords
from .features import N_FEATURES, SIZE, field_mask
from .geometry import point_coords, square_centers

ROBOT_CLEARANCE = 0.8    # board units around a start robot (its cast shadow too) that are not bare board
BATTERY_CLEARANCE = 0.3  # around a start battery
MIN_SIGMA = 0.02         # log units: a spot that changed by less than this (slight gain shifts) is as before
SIGMA_SCALE = 1.5        # the measured noise, widened (JPEG blocks and noise are not Gaussian)
ASBEFORE_DOF = 3.0       # Student-t tails of the "as before" density: a few odd pixels stay "as before"
MIN_VALID = 2000         # pixels of bare board the reference needs to be of use


@dataclass(frozen=True, eq=False)
class EmptyReference:
    """The calibration frame's top view and where it shows bare board."""

    image: np.ndarray   # SIZE x SIZE x 3 uint8 (BGR), the rectified calibration frame
    valid: np.ndarray   # SIZE x SIZE bool: bare board there in the calibration frame
    _feats: list = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def build(cls, rect: np.ndarray, robots_xy: np.ndarray, batteries_xy: np.ndarray,
              lean: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> "EmptyReference | None":
        """From the rectified calibration frame and where its pieces stand (board units).

        ``lean`` shifts the robots' image the way the calibration measured it
        (a tilted camera sees a robot's top beside its foot). None when too
        little bare board is left to be of use.
        """
        valid = bare_mask(robots_xy, batteries_xy, lean)
        if valid.sum() < MIN_VALID:
            return None
        return cls(np.ascontiguousarray(rect, np.uint8), valid)

    def extended(self, rect: np.ndarray, new_valid: np.ndarray) -> "EmptyReference":
        """This reference plus the pixels ``new_valid`` of a later top view ``rect``.

        The new pixels are brought into the reference's light first (the same
        smooth surface :meth:`as_before` takes out), so old and new parts
        compare alike with later frames.
        """
        add = new_valid & ~self.valid
        if not add.any():
            return self
        li = np.log(rect.astype(np.float32) + 8.0).reshape(-1, 3)   # as vision.features.Features.log_image
        coef = self._light_change(li)
        basis = self._prepared()[4]
        flat = add.reshape(-1)
        moved = np.exp(li[flat] - basis[flat] @ coef) - 8.0
        image = self.image.reshape(-1, 3).copy()
        image[flat] = np.clip(np.round(moved), 0, 255).astype(np.uint8)
        return EmptyReference(image.reshape(self.image.shape), self.valid | add)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EmptyReference):
            return NotImplemented
        return np.array_equal(self.image, other.image) and np.array_equal(self.valid, other.valid)

    def __hash__(self) -> int:
        return hash((self.image.tobytes(), self.valid.tobytes()))

    # -- use -----------------------------------------------------------------
    def as_before(self, features_now) -> np.ndarray:
        """Per pixel: log density of the pixel if the spot looks as it did (-inf where unknown).

        ``features_now``: the frame's :class:`vision.features.Features`. The
        two frames are compared in log colour after taking out a smooth change
        of light (per channel a quadratic surface over the board, fitted
        robustly to the bare-board pixels: a lamp dimmed, a cloud, a warmer
        bulb); not against a local median of the board, which a tall robot
        and its shadow can pull down. The result is a density of the same
        five board features the pixel classes use (three log channels, two
        chroma differences), so the two compete fairly.

        Sensor noise is roughly constant in grey levels, so in log units it is
        larger on dark pixels (the printed lines) than on the wood: each
        pixel's spread is ``noise / (grey level + 8)`` per channel, with
        ``noise`` measured on this frame (median absolute change over the
        bare-board pixels: most of the board is unchanged from frame to
        frame), so noise, JPEG and blur set it, not a constant.
        """
        li_ref, inv, _, _, basis, idx, noise_idx = self._prepared()
        li = features_now.log_image.reshape(-1, 3)
        coef = self._light_change(li)
        e = li[idx] - li_ref[idx] - basis[idx] @ coef                # change of each bare-board pixel, log units
        iv = inv[idx]
        grey = np.abs(e[noise_idx]) / iv[noise_idx]                  # in grey levels
        noise = max(float(1.4826 * np.median(grey)), 0.5)
        n2 = (SIGMA_SCALE * noise) ** 2 * iv * iv + MIN_SIGMA**2      # per channel (B, G, R), log units
        b, g, r = n2[:, 0], n2[:, 1], n2[:, 2]
        rg = r + g - MIN_SIGMA**2                                     # the chroma differences' spreads
        bg = b + g - MIN_SIGMA**2
        eb, eg, er = e[:, 0], e[:, 1], e[:, 2]
        z2 = eb * eb / b + eg * eg / g + er * er / r + (er - eg) ** 2 / rg + (eb - eg) ** 2 / bg
        dim = N_FEATURES
        const = lgamma((ASBEFORE_DOF + dim) / 2) - lgamma(ASBEFORE_DOF / 2) - 0.5 * dim * log(ASBEFORE_DOF * pi)
        ll = const - 0.5 * np.log(b * g * r * rg * bg) - 0.5 * (ASBEFORE_DOF + dim) * np.log1p(z2 * (1 / ASBEFORE_DOF))
        out = np.full(SIZE * SIZE, -np.inf, np.float32)
        out[idx] = ll
        return out.reshape(SIZE, SIZE)

    def _light_change(self, li: np.ndarray) -> np.ndarray:
        """Coefficients (over the light-surface bases) of the smooth change of light from the
        reference to a frame of flat log colour ``li``, fitted on the bare-board samples."""
        li_ref, _, samples, design, _, _, _ = self._prepared()
        return _robust_surface(li[samples] - li_ref[samples], design)

    def _prepared(self):
        """Flat log colour, 1 / (grey level + 8), the light-surface samples and bases, the bare-board
        pixels and the subset that measures the noise (computed once)."""
        if not self._feats:
            img = self.image.astype(np.float32).reshape(-1, 3)
            v, u = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
            x, y = u / SIZE * 2 - 1, v / SIZE * 2 - 1
            basis = np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=-1).reshape(-1, 6)
            grid = np.zeros((SIZE, SIZE), bool)
            grid[::3, ::3] = True
            samples = np.flatnonzero(grid & self.valid)
            idx = np.flatnonzero(self.valid)
            every_other = np.zeros((SIZE, SIZE), bool)
            every_other[::2, ::2] = True
            noise_idx = np.flatnonzero(every_other.reshape(-1)[idx])
            li_ref = np.log(img + 8.0)
            self._feats.extend([li_ref, 1.0 / (img + 8.0), samples, basis[samples], basis, idx, noise_idx])
        return tuple(self._feats)

    # -- files -----------------------------------------------------------------
    def to_json(self) -> dict:
        ok, png = cv2.imencode(".png", self.image)
        if not ok:  # pragma: no cover - PNG encoding of a uint8 image does not fail
            raise ValueError("cannot encode the reference image")
        return {
            "size": SIZE,
            "image_png": base64.b64encode(png.tobytes()).decode("ascii"),
            "valid_bits": base64.b64encode(np.packbits(self.valid.ravel()).tobytes()).decode("ascii"),
        }

    @classmethod
    def from_json(cls, data: object) -> "EmptyReference":
        """Raises ValueError naming what is wrong."""
        if not isinstance(data, dict):
            raise ValueError("the bare-board reference is not an object")
        if data.get("size") != SIZE:
            raise ValueError(f"the bare-board reference is {data.get('size')!r} px, this program uses {SIZE}")
        try:
            png = base64.b64decode(str(data["image_png"]), validate=True)
            bits = base64.b64decode(str(data["valid_bits"]), validate=True)
        except KeyError as exc:
            raise ValueError(f"the bare-board reference lacks {exc.args[0]!r}") from None
        except (ValueError, TypeError):
            raise ValueError("the bare-board reference is not valid base64") from None
        img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
        if img is None or img.shape != (SIZE, SIZE, 3):
            raise ValueError("the bare-board reference image is unreadable or has the wrong size")
        valid = np.unpackbits(np.frombuffer(bits, np.uint8))[: SIZE * SIZE]
        if valid.size != SIZE * SIZE:
            raise ValueError("the bare-board reference mask has the wrong size")
        return cls(img, valid.reshape(SIZE, SIZE).astype(bool))


def bare_mask(robots_xy: np.ndarray, batteries_xy: np.ndarray,
              lean: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> np.ndarray:
    """Top-view pixels of the field that show bare board when robots and batteries stand there."""
    x, y = pixel_board_coords()
    valid = field_mask(tight=True).copy()
    c, ex, ey = lean
    for rx, ry in np.asarray(robots_xy, np.float64).reshape(-1, 2):
        lx, ly = rx + c * rx + ex, ry + c * ry + ey
        for px, py in ((rx, ry), (lx, ly)):
            valid &= np.hypot(x - px, y - py) > ROBOT_CLEARANCE
    for bx, by in np.asarray(batteries_xy, np.float64).reshape(-1, 2):
        valid &= np.hypot(x - bx, y - by) > BATTERY_CLEARANCE
    return valid


def square_cells(squares) -> np.ndarray:
    """Top-view pixels within the cells of the given squares (index rank*6+file), lines included."""
    x, y = pixel_board_coords()
    out = np.zeros((SIZE, SIZE), bool)
    for q in squares:
        f, r = q % 6, q // 6
        out |= (x >= f - 0.02) & (x <= f + 1.02) & (y >= r - 0.02) & (y <= r + 1.02)
    return out


def _robust_surface(d: np.ndarray, A: np.ndarray, rounds: int = 4, scale: float = 0.08) -> np.ndarray:
    """Per channel, a smooth surface (coefficients over the columns of ``A``) through ``d`` (n x 3),
    fitted by iteratively reweighted least squares (Cauchy weights): pieces, new shadows and
    hands are outliers among the many unchanged pixels."""
    w = np.ones((d.shape[0], d.shape[1]), np.float32)
    med = np.median(d, axis=0)
    w = 1.0 / (1.0 + ((d - med) / scale) ** 2)
    coef = np.zeros((A.shape[1], d.shape[1]), np.float32)
    for _ in range(rounds):
        for c in range(d.shape[1]):
            Aw = A * w[:, c:c + 1]
            M = A.T @ Aw + 1e-3 * np.eye(A.shape[1], dtype=np.float32)
            coef[:, c] = np.linalg.solve(M, Aw.T @ d[:, c])
        r = d - A @ coef
        w = 1.0 / (1.0 + (r / scale) ** 2)
    return coef


def start_piece_coords(expected) -> tuple[np.ndarray, np.ndarray]:
    """Board coordinates of the robots and the batteries of a layout (``BoardLayout``)."""
    sq, pts = square_centers(), point_coords()
    robots = [i for i, s in enumerate(expected.squares) if s.value != "empty"]
    bats = [i for i, p in enumerate(expected.points) if p.value != "empty"]
    return sq[robots].reshape(-1, 2), pts[bats].reshape(-1, 2)
