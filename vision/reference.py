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

Under the start pieces (ranks 1 and 6) the calibration frame shows no bare
board, but it does show the light there: the board between and around the
pieces. That light (a shadow's edge, a glare spot, the fall-off of a lamp) is
filled in under the pieces from what is seen around them (``seen``), with the
fill's own uncertainty: where the surroundings agree the fill is sharp, where
a shadow's edge crosses it the fill is vague and says so. Those pixels get the
same question, asked more loosely: "does it look like the bare board under the
light it had?".

Pure image bookkeeping: the caller says which fields the calibration frame
showed bare (from the known start layout); nothing here knows a rule.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import NamedTuple

from math import lgamma, log, pi

import cv2
import numpy as np

from .appearance import line_distance, pixel_board_coords
from .features import N_FEATURES, PPU, SIZE, field_mask, rect_coords
from .geometry import point_coords, square_centers
from .numeric import logaddexp, median

ROBOT_CLEARANCE = 0.8    # board units around a start robot (its cast shadow too) that are not bare board
BATTERY_CLEARANCE = 0.3  # around a start battery
MIN_SIGMA = 0.02         # log units: a spot that changed by less than this (slight gain shifts) is as before
SIGMA_SCALE = 1.5        # the measured noise, widened (JPEG blocks and noise are not Gaussian)
PAIR_MARGIN = 1.5        # the noise from neighbours' differences may be this much below the true noise
ASBEFORE_DOF = 3.0       # Student-t tails of the "as before" density: a few odd pixels stay "as before"
MIN_VALID = 2000         # pixels of bare board the reference needs to be of use
# the light under the start pieces, filled in from the bare board seen around them
ROBOT_FOOT = 0.38        # board units around a start robot's measured image (and its foot) that are not bare
SHADE_REACH = 0.95       # board units from a start robot within which its cast shadow may fall
FILL_OFF_LINE = 0.1      # board units either side of a line left out of the fill (the ink is not light)
FILL_RADIUS = 3          # top-view pixels: the inpainting's neighbourhood
FILL_DRIFT = 0.5         # a continued edge may run off by this share of the distance from the seen board
FILL_REACHES = (1, 2, 3, 5, 8, 12)   # top-view pixels: the reaches that spread is measured over
PROBE_RADIUS = 0.4       # board units: the robot-sized holes the fill is tried on (centres of ranks 2-5)
MIN_PROBE = 500          # top-view pixels of such holes needed to measure the fill's spread
EDGE_RANGE = 2.0         # the light within reach varies by more than this many grains: an edge is near


@dataclass(frozen=True, eq=False)
class EmptyReference:
    """The calibration frame's top view and where it shows bare board."""

    image: np.ndarray   # SIZE x SIZE x 3 uint8 (BGR), the rectified calibration frame
    valid: np.ndarray   # SIZE x SIZE bool: bare board there in the calibration frame
    # SIZE x SIZE bool: bare board seen at all (valid, and the board between and around the start
    # pieces); the light under the pieces is filled in from it. None: no fill (older files)
    seen: np.ndarray | None = None
    _feats: list = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def build(cls, rect: np.ndarray, robots_xy: np.ndarray, batteries_xy: np.ndarray,
              lean: tuple[float, float, float] = (0.0, 0.0, 0.0),
              seen: np.ndarray | None = None) -> "EmptyReference | None":
        """From the rectified calibration frame and where its pieces stand (board units).

        ``lean`` shifts the robots' image the way the calibration measured it
        (a tilted camera sees a robot's top beside its foot). ``seen``: the
        pixels that show bare board at all (see :func:`seen_mask`), from which
        the light under the pieces is filled in; None for no fill. None when
        too little bare board is left to be of use.
        """
        valid = bare_mask(robots_xy, batteries_xy, lean)
        if valid.sum() < MIN_VALID:
            return None
        if seen is not None:
            seen = np.asarray(seen, bool) | valid
        return cls(np.ascontiguousarray(rect, np.uint8), valid, seen)

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
        basis = self._prepared().basis
        flat = add.reshape(-1)
        moved = np.exp(li[flat] - basis[flat] @ coef) - 8.0
        image = self.image.reshape(-1, 3).copy()
        image[flat] = np.clip(np.round(moved), 0, 255).astype(np.uint8)
        seen = None if self.seen is None else self.seen | add
        return EmptyReference(image.reshape(self.image.shape), self.valid | add, seen)

    def without(self, mask: np.ndarray) -> "EmptyReference | None":
        """This reference with the pixels ``mask`` left out (None when too little is left)."""
        valid = self.valid & ~mask
        if valid.sum() < MIN_VALID:
            return None
        seen = None if self.seen is None else self.seen & ~mask
        return EmptyReference(self.image, valid, seen)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EmptyReference):
            return NotImplemented
        same_seen = (self.seen is None) == (other.seen is None) and (
            self.seen is None or np.array_equal(self.seen, other.seen))
        return np.array_equal(self.image, other.image) and np.array_equal(self.valid, other.valid) and same_seen

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
        P = self._prepared()
        li = features_now.log_image.reshape(-1, 3)
        coef = self._light_change(li)
        e = np.take(li, P.idx, axis=0) - P.ref_idx - P.basis_idx @ coef   # change of each bare-board pixel, log units
        iv = P.inv_idx
        # (row gathers with np.take: several times faster than fancy indexing, the same values)
        grey = np.abs(np.take(e, P.noise_idx, axis=0)) / P.inv_noise   # in grey levels
        # a change of light the smooth surface cannot follow (a new glare spot or shadow) inflates
        # that spread; the difference of neighbouring pixels' changes does not see it (a smooth
        # change cancels there), so it caps the noise (less a margin: neighbours' noise is correlated)
        near = np.abs(np.take(e, P.pair_a, axis=0) - np.take(e, P.pair_b, axis=0)) / P.inv_pair
        noise = min(1.4826 * float(median(grey)), PAIR_MARGIN * 1.4826 * float(median(near)) / np.sqrt(2))
        noise2 = (SIGMA_SCALE * max(noise, 0.5)) ** 2
        out = np.full(SIZE * SIZE, -np.inf, np.float32)
        n2 = noise2 * iv * iv + MIN_SIGMA**2                          # per channel (B, G, R), log units
        # the chroma differences' spreads: the noise of two channels
        rg, bg = n2[:, 2] + n2[:, 1] - MIN_SIGMA**2, n2[:, 0] + n2[:, 1] - MIN_SIGMA**2
        # one height for the density everywhere (that of the typical bare-board pixel): with each
        # pixel's own, "as before" would lose to the generic board class wherever the board is dark
        # (a static shadow: the wider spread lowers the peak), and bare board in a shadow that was
        # there at calibration too would count as changed; the spreads still judge each change
        norm = _student_norm(np.take(n2, P.noise_idx, axis=0), np.take(rg, P.noise_idx), np.take(bg, P.noise_idx))
        height = np.float32(median(norm))
        out[P.idx] = _student(e, n2, rg, bg, height)
        if P.fill_idx.size:
            # under the start pieces: against the filled-in light (or the light on either side
            # of an edge near it), how far the fill strays from real board on top of the noise
            now = np.take(li, P.fill_idx, axis=0) - P.basis_fill @ coef
            n2 = noise2 * P.fill_inv * P.fill_inv
            g2 = P.fill_spread * P.fill_spread + MIN_SIGMA**2
            spread, rg, bg = n2 + g2[:3], n2[:, 2] + n2[:, 1] + g2[3], n2[:, 0] + n2[:, 1] + g2[4]
            # the same height as on the bare board seen at calibration (the filled-in light is
            # vaguer, but an unchanged pixel is as likely "as before" there as anywhere: with its
            # own, lower height, most of an emptied start square "changed")
            ll = _student(now - P.fill[0], spread, rg, bg, height)
            e = P.fill_edge   # near an edge: the light on either side of it is as likely
            if e.size:
                now_e, spread_e, rg_e, bg_e = (np.take(a, e, axis=0) for a in (now, spread, rg, bg))
                sides = [_student(now_e - cand, spread_e, rg_e, bg_e, height) for cand in P.fill_sides]
                ll[e] = logaddexp(logaddexp(np.take(ll, e), sides[0]), sides[1]) - np.float32(log(3))
            out[P.fill_idx] = ll
        return out.reshape(SIZE, SIZE)

    @property
    def filled(self) -> np.ndarray:
        """SIZE x SIZE bool: the pixels (off the lines) whose bare board :meth:`as_before` compares
        with the light filled in under the start pieces (none without ``seen``)."""
        out = np.zeros(SIZE * SIZE, bool)
        out[self._prepared().fill_idx] = True
        return out.reshape(SIZE, SIZE)

    def _light_change(self, li: np.ndarray) -> np.ndarray:
        """Coefficients (over the light-surface bases) of the smooth change of light from the
        reference to a frame of flat log colour ``li``, fitted on the bare-board samples."""
        P = self._prepared()
        return _robust_surface(np.take(li, P.samples, axis=0) - P.ref_samples, P.design, outer=P.design_outer)

    def _prepared(self) -> "_Prepared":
        """What every frame's comparison needs, computed once."""
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
            # pairs of bare-board pixels two columns apart (positions in idx), on the same grid
            pos = np.full(SIZE * SIZE, -1, np.int64)
            pos[idx] = np.arange(idx.size)
            left = every_other & self.valid & np.roll(self.valid, -2, axis=1)
            left[:, -2:] = False
            a = np.flatnonzero(left)
            pair_a, pair_b = pos[a], pos[a + 2]
            li_ref = np.log(img + 8.0)
            fill_idx, fill, grain, fill_spread = _fill_light(self.image, self.seen, self.valid)
            edge = np.flatnonzero((fill[2] - fill[1]).max(axis=1) > EDGE_RANGE * max(float(grain[:3].max()), MIN_SIGMA))
            inv = 1.0 / (img + 8.0)
            self._feats.append(_Prepared(
                basis=basis, samples=samples, ref_samples=li_ref[samples], design=basis[samples],
                design_outer=_outer(basis[samples]),
                idx=idx, ref_idx=li_ref[idx], inv_idx=inv[idx], basis_idx=basis[idx], noise_idx=noise_idx,
                inv_noise=inv[idx][noise_idx], pair_a=pair_a, pair_b=pair_b, inv_pair=inv[idx][pair_a],
                fill_idx=fill_idx, basis_fill=basis[fill_idx], fill=fill, fill_spread=fill_spread,
                fill_inv=np.exp(-fill[0]), fill_edge=edge, fill_sides=fill[1:, edge]))
        return self._feats[0]

    # -- files -----------------------------------------------------------------
    def to_json(self) -> dict:
        ok, png = cv2.imencode(".png", self.image)
        if not ok:  # pragma: no cover - PNG encoding of a uint8 image does not fail
            raise ValueError("cannot encode the reference image")
        return {
            "size": SIZE,
            "image_png": base64.b64encode(png.tobytes()).decode("ascii"),
            "valid_bits": _bits(self.valid),
            "seen_bits": None if self.seen is None else _bits(self.seen),
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
            seen_text = data.get("seen_bits")   # absent in older files
            seen_bits = None if seen_text is None else base64.b64decode(str(seen_text), validate=True)
        except KeyError as exc:
            raise ValueError(f"the bare-board reference lacks {exc.args[0]!r}") from None
        except (ValueError, TypeError):
            raise ValueError("the bare-board reference is not valid base64") from None
        img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
        if img is None or img.shape != (SIZE, SIZE, 3):
            raise ValueError("the bare-board reference image is unreadable or has the wrong size")
        valid = _unbits(bits, "mask")
        seen = None if seen_bits is None else _unbits(seen_bits, "mask of seen board")
        return cls(img, valid, seen)


def bare_mask(robots_xy: np.ndarray, batteries_xy: np.ndarray,
              lean: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> np.ndarray:
    """Top-view pixels of the field that show bare board when robots and batteries stand there."""
    c, ex, ey = lean
    robots = np.asarray(robots_xy, np.float64).reshape(-1, 2)
    leaned = robots * (1 + c) + np.array([ex, ey])
    return (field_mask(tight=True) & ~_discs(np.vstack([robots, leaned]), ROBOT_CLEARANCE)
            & ~_discs(batteries_xy, BATTERY_CLEARANCE))


def _discs(centres_xy, radius: float) -> np.ndarray:
    """Top-view pixels within ``radius`` (board units) of any of the centres."""
    x, y = pixel_board_coords()
    out = np.zeros((SIZE, SIZE), bool)
    for cx, cy in np.asarray(centres_xy, np.float64).reshape(-1, 2):
        out |= np.hypot(x - cx, y - cy) <= radius
    return out


def square_cells(squares) -> np.ndarray:
    """Top-view pixels within the cells of the given squares (index rank*6+file), lines included."""
    x, y = pixel_board_coords()
    out = np.zeros((SIZE, SIZE), bool)
    for q in squares:
        f, r = q % 6, q // 6
        out |= (x >= f - 0.02) & (x <= f + 1.02) & (y >= r - 0.02) & (y <= r + 1.02)
    return out


def point_discs(points) -> np.ndarray:
    """Top-view pixels within a battery's clearance of the given points (index rank*7+file)."""
    return _discs(point_coords()[list(points)], BATTERY_CLEARANCE)


def _outer(A: np.ndarray) -> np.ndarray:
    """Per row of ``A`` (n x k), the outer product of the row with itself, flat (n x k*k)."""
    return (A[:, :, None] * A[:, None, :]).reshape(len(A), -1)


def _robust_surface(d: np.ndarray, A: np.ndarray, rounds: int = 4, scale: float = 0.08,
                    outer: np.ndarray | None = None) -> np.ndarray:
    """Per channel, a smooth surface (coefficients over the columns of ``A``) through ``d`` (n x 3),
    fitted by iteratively reweighted least squares (Cauchy weights): pieces, new shadows and
    hands are outliers among the many unchanged pixels. ``outer``: :func:`_outer` of ``A``, if at hand."""
    k, channels = A.shape[1], d.shape[1]
    # the weighted normal equations of all channels at once: per sample the outer products of
    # its bases (n x k*k), weighted per channel by one matrix product
    if outer is None:
        outer = _outer(A)
    ridge = 1e-3 * np.eye(k, dtype=np.float32)
    w = 1.0 / (1.0 + ((d - median(d, axis=0)) / scale) ** 2)
    coef = np.zeros((k, channels), np.float32)
    for step in range(rounds):
        M = (w.T @ outer).reshape(channels, k, k) + ridge
        rhs = (A.T @ (w * d)).T                       # (channels, k)
        coef = np.linalg.solve(M, rhs[:, :, None])[:, :, 0].T.astype(np.float32)
        if step + 1 < rounds:   # (the last round's weights would go unused)
            r = d - A @ coef
            w = 1.0 / (1.0 + (r / scale) ** 2)
    return coef


def start_piece_coords(expected) -> tuple[np.ndarray, np.ndarray]:
    """Board coordinates of the robots and the batteries of a layout (``BoardLayout``)."""
    sq, pts = square_centers(), point_coords()
    robots = [i for i, s in enumerate(expected.squares) if s.value != "empty"]
    bats = [i for i, p in enumerate(expected.points) if p.value != "empty"]
    return sq[robots].reshape(-1, 2), pts[bats].reshape(-1, 2)


class _Prepared(NamedTuple):
    basis: np.ndarray       # (n, 6) the light-surface bases everywhere
    samples: np.ndarray     # flat indices of the light-surface samples
    ref_samples: np.ndarray  # the reference's log colour there
    design: np.ndarray      # the light-surface bases there
    design_outer: np.ndarray  # their outer products (see _robust_surface)
    idx: np.ndarray         # flat indices of the bare-board pixels
    ref_idx: np.ndarray     # (len(idx), 3) the reference's log colour there
    inv_idx: np.ndarray     # (len(idx), 3) 1 / (grey level + 8) there
    basis_idx: np.ndarray   # the light-surface bases there
    noise_idx: np.ndarray   # the subset of ``idx`` that measures the noise
    inv_noise: np.ndarray   # ``inv_idx`` there
    pair_a: np.ndarray      # positions in ``idx`` of pixels whose neighbour two columns on ...
    pair_b: np.ndarray      # ... is bare board too (there): neighbours' changes, for the noise
    inv_pair: np.ndarray    # ``inv_idx`` at ``pair_a``
    fill_idx: np.ndarray    # flat indices of the filled-in pixels (under the start pieces)
    basis_fill: np.ndarray  # the light-surface bases there
    fill: np.ndarray        # (3, m, 3) candidate log colours: the fill, the darkest and the brightest within reach
    fill_spread: np.ndarray  # (5,) how far the fill strays from the board: 3 channels, log(R/G), log(B/G)
    fill_inv: np.ndarray    # (m, 3) 1 / (grey level + 8) of the fill
    fill_edge: np.ndarray   # the filled pixels (indices into fill_idx) near an edge: the candidates differ
    fill_sides: np.ndarray  # (2, len(fill_edge), 3) the darkest and the brightest candidate there


_STUDENT_CONST = lgamma((ASBEFORE_DOF + N_FEATURES) / 2) - lgamma(ASBEFORE_DOF / 2) - 0.5 * N_FEATURES * log(ASBEFORE_DOF * pi)


def _student(e: np.ndarray, n2: np.ndarray, rg: np.ndarray, bg: np.ndarray,
             norm: np.ndarray | None = None) -> np.ndarray:
    """Student-t log density of the changes ``e`` (n x 3, B G R) of the five board features: the
    three channels (variances ``n2``, n x 3) and the chroma differences R-G and B-G (``rg``, ``bg``).
    ``norm``: :func:`_student_norm` of the same spreads, if at hand, or one height for all."""
    b, g, r = n2[:, 0], n2[:, 1], n2[:, 2]
    eb, eg, er = e[:, 0], e[:, 1], e[:, 2]
    z2 = eb * eb / b + eg * eg / g + er * er / r + (er - eg) ** 2 / rg + (eb - eg) ** 2 / bg
    if norm is None:
        norm = _student_norm(n2, rg, bg)
    return norm - 0.5 * (ASBEFORE_DOF + N_FEATURES) * np.log1p(z2 * (1 / ASBEFORE_DOF))


def _student_norm(n2: np.ndarray, rg: np.ndarray, bg: np.ndarray) -> np.ndarray:
    """The normalising term of :func:`_student` (it depends on the spreads only)."""
    return _STUDENT_CONST - 0.5 * np.log(n2[:, 0] * n2[:, 1] * n2[:, 2] * rg * bg)


def _fill_light(image: np.ndarray, seen: np.ndarray | None,
                valid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The bare board's log colour filled in where it was not seen bare.

    Returns flat indices (m), candidates (3, m, 3: the fill, and the darkest
    and the brightest light within reach of it), the grain's spread (5: the
    three channels, log(R/G), log(B/G); it tells an edge from the grain) and
    how far the fill strays from real board (5, the same features, at least
    the grain: measured by filling robot-sized holes in board that was seen).

    The seen board (the lines left out: ink is not light) is inpainted into the
    rest (OpenCV's Navier-Stokes inpainting, which carries edges such as a
    shadow's border on into the gap). Where such an edge runs inside the gap is
    known only roughly: it may be off by a share of the distance from the seen
    board. So a filled pixel may also show the light on either side of a
    nearby edge: the darkest and the brightest fill within that reach are
    candidates too. On evenly lit wood all three agree.
    """
    off_line = line_distance() > FILL_OFF_LINE
    target = field_mask(tight=True) & off_line & ~valid
    if seen is None or not target.any():
        return np.zeros(0, np.int64), np.zeros((3, 0, 3), np.float32), np.zeros(5, np.float32), np.zeros(5, np.float32)
    known = seen & off_line
    hole = (~known).astype(np.uint8)
    filled = cv2.inpaint(image, hole * 255, FILL_RADIUS, cv2.INPAINT_NS)

    def planes(img: np.ndarray) -> np.ndarray:
        li = np.log(img.astype(np.float32) + 8.0)
        return np.dstack([li, li[..., 2] - li[..., 1], li[..., 0] - li[..., 1]])  # B G R, R-G, B-G

    seen_p = planes(image)
    fill = np.log(filled.astype(np.float32) + 8.0)
    # the grain: how much the seen wood strays from its own local average
    k = known.astype(np.float32)
    local = cv2.GaussianBlur(seen_p * k[..., None], (0, 0), 2.0) / np.maximum(cv2.GaussianBlur(k, (0, 0), 2.0), 1e-3)[..., None]
    grain = (1.4826 * np.median(np.abs(seen_p - local)[known], axis=0)).astype(np.float32)
    # how far the fill strays from the board it stands for: the same inpainting, tried on
    # robot-sized holes in board that was seen (the wood's grain under a piece is not known, and
    # its larger swirls stray from a smooth fill far more than from a 2-pixel local average)
    probe = known & _discs(square_centers()[6:30], PROBE_RADIUS)
    if probe.sum() >= MIN_PROBE:
        tried = cv2.inpaint(image, (hole | probe).astype(np.uint8) * 255, FILL_RADIUS, cv2.INPAINT_NS)
        spread = (1.4826 * np.median(np.abs(seen_p - planes(tried))[probe], axis=0)).astype(np.float32)
        spread = np.maximum(spread, grain)
    else:
        spread = grain
    # the light on either side of an edge within reach (a single odd pixel does not count)
    smooth = np.log(cv2.medianBlur(filled, 3).astype(np.float32) + 8.0)
    reach = FILL_DRIFT * cv2.distanceTransform(hole, cv2.DIST_L2, 3)
    lo, hi = fill.copy(), fill.copy()
    lower = 0.0
    for r in FILL_REACHES:
        ring = (reach > lower) & (reach <= r) if r < FILL_REACHES[-1] else reach > lower
        if ring.any():
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
            lo[ring] = np.minimum(cv2.erode(smooth, kernel)[ring], fill[ring])
            hi[ring] = np.maximum(cv2.dilate(smooth, kernel)[ring], fill[ring])
        lower = r
    idx = np.flatnonzero(target)
    cands = np.stack([a.reshape(-1, 3)[idx] for a in (fill, lo, hi)]).astype(np.float32)
    return idx, cands, grain, spread


def seen_mask(robot_images_xy: np.ndarray, batteries_xy: np.ndarray,
              lean: tuple[float, float, float] = (0.0, 0.0, 0.0), shade: np.ndarray | None = None) -> np.ndarray:
    """Top-view pixels of the field that show bare board beside the start pieces.

    ``robot_images_xy``: where the frame shows each robot (the centre of its
    pixels, board units: off-centre, and leaning on a tilted camera by
    ``lean``, so its foot lies a little apart); ``shade``: pixels the frame
    shows darker than the board. Left out: each robot from its image to its
    foot, the batteries' discs, and the robots' cast shadows. One lamp casts
    every robot's shadow the same way, so a robot's shadow is the shade that
    most robots have at the same place beside them; a shadow across the
    board darkens only some of them and stays in (it is light to be learned).
    """
    c, ex, ey = lean
    images = np.asarray(robot_images_xy, np.float64).reshape(-1, 2)
    feet = (images - np.array([ex, ey])) / (1 + c)          # image = foot + c * foot + e
    path = [images + t * (feet - images) for t in np.linspace(0.0, 1.0, 5)]
    out = field_mask(tight=True) & ~_discs(np.vstack(path), ROBOT_FOOT) & ~_discs(batteries_xy, BATTERY_CLEARANCE)
    if shade is not None and len(images):
        half = int(round(SHADE_REACH * PPU))
        padded = np.pad(np.asarray(shade, bool), half)
        centres = np.round(rect_coords(images)).astype(int)            # (col, row) per robot
        patches = np.stack([padded[r:r + 2 * half + 1, cc:cc + 2 * half + 1] for cc, r in centres])
        cast = cv2.dilate(np.median(patches, axis=0).astype(np.uint8), np.ones((3, 3), np.uint8))
        excluded = np.zeros(padded.shape, bool)
        for cc, r in centres:
            excluded[r:r + 2 * half + 1, cc:cc + 2 * half + 1] |= cast.astype(bool)
        out &= ~excluded[half:-half, half:-half]
    return out


def _bits(mask: np.ndarray) -> str:
    return base64.b64encode(np.packbits(mask.ravel()).tobytes()).decode("ascii")


def _unbits(raw: bytes, what: str) -> np.ndarray:
    mask = np.unpackbits(np.frombuffer(raw, np.uint8))[: SIZE * SIZE]
    if mask.size != SIZE * SIZE:
        raise ValueError(f"the bare-board reference {what} has the wrong size")
    return mask.reshape(SIZE, SIZE).astype(bool)
