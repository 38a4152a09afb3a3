"""Which player a robot belongs to: the two robot colours of this very set, learned at calibration.

The field classifier says *a robot stands here*; which of the two colours it
has is learned from the frame the calibration knows (the start position: six
robots of each colour). Nothing is assumed about the colours but that they
differ: dark and light, red and green of one lightness, ivory and pale blue.

A robot's colour is the median log colour (relative to the frame's mean, so
the light's gain and tint cancel) over a small disc of its square patch, or a
darker value of the disc (its shaded side: a bright piece's lit side can fill
the camera's channels). Where on the patch the robot is seen best depends on
its height (a tall piece leans away from the camera, *up* in the patch) and
its shape; that height, the disc's size and the value taken are learned too:
the calibration tries a few of each and keeps those that set the two colours
furthest apart. Each colour is then a Gaussian (its spread floored: six robots
under-represent later frames), with heavy (Student-t) tails, so that a colour
unlike both (a hand, a glare spot) is doubtful rather than decisive. Light and
shade move all three channels together: that is a term of its own in the
covariance (SHADE), and each channel's spread is measured once each robot's
brightness is taken out (else a row of robots under the lamp's fall-off counts
twice, and two close colours of one lightness are never told surely).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np

from .patches import PATCH, SQUARE_SPAN

HEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.45)   # board units: candidate heights of the part of a robot seen best
RADII = (0.12, 0.2, 0.28)               # board units: candidate discs the colour is taken from
# which value of the disc's pixels (per channel, in order) is the robot's colour: the median, or a
# darker one, the robot's shaded side. A bright piece under a strong light fills the camera's channels
# to 255 on its lit side, where two colours that differ only in those channels then look alike
# (turquoise and sky blue stones: separation 0.4 by the median, 1.8 by the fifth darkest value of
# twenty); the shaded side keeps the difference. Chosen per set, like the disc. Glossy stones as wide as
# 0.8 of a square under a bright lamp fill all three channels over most of the disc: peach and pale green
# stones of design 17,400,020 were 0.76 apart by the best of the median and the fifth darkest value, 3.99
# by the twentieth (a disc at the robot's foot, its shaded rim). Tried only where the other two cannot
# tell the colours apart (measured, not kept): block 17,400,000's misreads of a peach robot read Black at
# 0.995-0.998 (17,400,020 camera 1, whose start robots the other two told apart) came back; tried for every
# set, it is chosen on 3 of the 8 sets of ../shared/vision-dev, and a robot of set 5 goes doubtful in one
# frame (25 of 48 read right instead of 26, no misread)
QUANTILES = (0.5, 0.2, 0.05)
# A disc is judged on the start robots as they stand and moved a patch pixel (a twelfth of a square) each
# way: robots stand elsewhere on their squares later, and a disc that tells the start rows only where
# they stand (one that catches the board beside a robot, as a stable mix) is no good there. Without
# it, the spread below (without brightness) chose such a disc on one design in fifty and read 19 single
# frames fewer on 200 set-ups; with it, 4 more (docs/readme-vision.md, 27 November, afternoon)
SHIFTS = ((1, 0), (-1, 0), (0, 1), (0, -1))
SPREAD_FLOOR = 0.06                     # log units: no colour is sharper than this (noise, JPEG, light drift)
DOF = 4.0                               # Student-t tails
MIN_SEPARATION = 1.5                    # Mahalanobis distance between the two colours below which they cannot be told apart
WORST_ENOUGH = 12.0                     # log-odds: a disc that tells every robot of the calibration frame this
                                        # surely is as good as any; the colours' separation decides among such
SHADE = 0.25                            # log units: how much a robot's brightness varies with where it stands
                                        # (a shadow across the board, the lamp's fall-off), on top of the spread


#: board units: where on its square a robot may stand (pieces are set down off centre): the disc is
#: moved to the one of these offsets (right, up) where the patch differs most from the empty board
OFFSETS = ((0.0, 0.0), (0.2, 0.0), (-0.2, 0.0), (0.0, 0.2), (0.0, -0.2), (0.2, 0.2), (-0.2, 0.2), (0.2, -0.2),
           (-0.2, -0.2))


@lru_cache(maxsize=8192)
def _disc_mask(offset_up: float, radius: float, offset_right: float = 0.0) -> np.ndarray:
    c = ((np.arange(PATCH) + 0.5) / PATCH - 0.5) * SQUARE_SPAN
    u = c[None, :]
    v = -c[:, None]
    m = ((u - offset_right) ** 2 + (v - offset_up) ** 2) <= radius ** 2
    if m.sum() < 3:
        m = ((u - offset_right) ** 2 + (v - offset_up) ** 2) <= max(radius, SQUARE_SPAN / PATCH) ** 2
    return m


@lru_cache(maxsize=64)
def _candidate_masks(lean: bytes, height: float, radius: float, offsets: bool) -> np.ndarray:
    """(n, k, P*P) float32 0/1: the discs each square's colour may be taken from (k = 1 without
    ``offsets``, else one per :data:`OFFSETS`), for the squares' leans (float64 bytes). A camera
    set-up has one set of leans: cached, as every frame of it needs them."""
    ups = [round(min(v * height, 0.45), 3) for v in np.frombuffer(lean, np.float64).tolist()]
    if not offsets:
        cand = np.stack([_disc_mask(u, radius)[None] for u in ups])
    else:
        cand = np.stack([np.stack([_disc_mask(round(min(u + dv, 0.6), 3), radius, dr) for dr, dv in OFFSETS])
                         for u in ups])
    out = cand.reshape(len(ups), cand.shape[1], -1).astype(np.float32)
    out.setflags(write=False)
    return out


def _masks(lean: np.ndarray, height: float, radius: float, background: np.ndarray | None,
           x_now: np.ndarray) -> np.ndarray:
    """(n, P*P) the disc each square's colour is taken from: at the robot's height above the
    square's centre, moved to the offset where the patch now differs most from ``background``
    (the same square known empty, or the nearest square known empty) when one is given."""
    n = len(lean)
    key = np.ascontiguousarray(lean, np.float64).tobytes()
    if background is None:
        return _candidate_masks(key, float(height), float(radius), False)[:, 0] > 0.5
    cand = _candidate_masks(key, float(height), float(radius), True)
    area = cand.sum(axis=2)
    diff = (x_now - background).reshape(n, 3, -1)
    mean_diff = np.einsum("nkp,ncp->nkc", cand, diff) / area[:, :, None]
    best = (mean_diff ** 2).sum(axis=2).argmax(axis=1)
    return cand[np.arange(n), best] > 0.5


def descriptors(x_now: np.ndarray, lean: np.ndarray, height: float, radius: float = RADII[1],
                background: np.ndarray | None = None, quantile: float = 0.5) -> np.ndarray:
    """(n, 3) colour of what stands on each square: ``x_now`` (n, 3, P, P) normalised log colour
    of the square patches, ``lean`` (n,) the lean per unit height there, ``background`` (n, 3, P, P)
    the empty board there (or near there), to find a robot set down off centre. The ``quantile``
    (0.5: the median) of each channel over each square's disc, all squares at once: the pixels
    outside a disc sort to the end."""
    n = len(x_now)
    if n == 0:
        return np.empty((0, 3))
    flat = _masks(lean, height, radius, background, x_now)
    v = np.where(flat[:, None, :], x_now.reshape(n, 3, -1), np.inf)
    v.sort(axis=2)
    pos = quantile * (flat.sum(axis=1) - 1)
    lo = np.floor(pos).astype(np.int64)[:, None, None]
    hi = np.ceil(pos).astype(np.int64)[:, None, None]
    return 0.5 * (np.take_along_axis(v, lo, axis=2) + np.take_along_axis(v, hi, axis=2))[:, :, 0]


@dataclass(frozen=True)
class ColourModel:
    """The two robot colours of one set (log colour relative to the frame's mean)."""

    white: tuple[float, float, float]
    black: tuple[float, float, float]
    spread: tuple[float, float, float]      # per channel, pooled over both colours
    height: float
    radius: float = RADII[1]
    offcentre: bool = False                 # the disc follows a robot set down off centre (see OFFSETS)
    quantile: float = 0.5                   # which of the disc's values is the colour (see QUANTILES)

    @classmethod
    def fit(cls, x_now: np.ndarray, lean: np.ndarray, white: list[int], black: list[int],
            background: np.ndarray | None = None) -> "ColourModel":
        """The disc (height, size, and whether it follows a robot off centre, given ``background``:
        the empty board near each square) that tells the start robots apart, as they stand and moved
        a little (:data:`SHIFTS`), and sets the two colours furthest apart."""
        ways = [None] if background is None else [None, background[white + black]]
        best, best_score = None, None
        sign = np.r_[np.ones(len(white)), -np.ones(len(black))]
        robots, leans = x_now[white + black], lean[white + black]
        # the robots a patch pixel from where they stood (see SHIFTS): the same for every candidate disc
        moved = [np.roll(robots, shift, axis=(2, 3)) for shift in SHIFTS]
        for q, bg, h, r in product(QUANTILES, ways, HEIGHTS, RADII):
            d = descriptors(robots, leans, h, r, bg, q)
            dw, db = d[: len(white)], d[len(white):]
            model = cls.of_descriptors(dw, db, h, r, bg is not None, q)
            # a way that tells the colours apart at all (MIN_SEPARATION, every robot of the frame on its
            # own colour's side) first; then the robot told worst decides (a disc that misses one robot
            # of the start frame misses robots later), then how far apart the two colours lie
            worst = float(np.min(sign * model.llr(d)))
            for x_moved in moved:
                worst = min(worst, float(np.min(sign * model.llr(descriptors(x_moved, leans, h, r, bg, q)))))
            score = (model.separation >= MIN_SEPARATION and worst > 0, min(worst, WORST_ENOUGH), model.separation)
            if best is None or score > best_score:
                best, best_score = model, score
        return best

    @classmethod
    def of_descriptors(cls, dw: np.ndarray, db: np.ndarray, height: float, radius: float, offcentre: bool = False,
                       quantile: float = 0.5) -> "ColourModel":
        """The model whose colours are the medians of the White robots' descriptors ``dw`` and the
        Black robots' ``db`` ((n, 3) each, taken by the disc the other arguments describe), their
        spread pooled (:func:`_spread`)."""
        return cls(tuple(float(v) for v in np.median(dw, 0)), tuple(float(v) for v in np.median(db, 0)),
                   tuple(float(v) for v in _spread(dw, db)), float(height), float(radius), offcentre, float(quantile))

    def describe(self, x_now: np.ndarray, lean: np.ndarray, background: np.ndarray | None = None) -> np.ndarray:
        """The descriptors of the squares' patches, the way this model was fitted."""
        return descriptors(x_now, lean, self.height, self.radius, background if self.offcentre else None,
                           self.quantile)

    def _cov_inv(self) -> np.ndarray:
        """Inverse covariance of a colour: the per-channel spread, plus a shared brightness term
        (the same factor on all three channels: light and shade), so that a robot in a shadow
        still has its colour, while two colours of one hue that differ only in brightness
        (ivory and black) still differ by much more than a shadow does. Computed once per model (it
        is asked for several times a frame)."""
        kept = self.__dict__.get("_cov_inv_kept")
        if kept is None:
            s = np.array(self.spread)
            one = np.ones(3)
            kept = np.linalg.inv(np.diag(s ** 2) + SHADE ** 2 * np.outer(one, one))
            kept.setflags(write=False)
            object.__setattr__(self, "_cov_inv_kept", kept)
        return kept

    def _dist2(self, desc: np.ndarray, mean: tuple[float, float, float] | np.ndarray) -> np.ndarray:
        """The squared Mahalanobis distance of each descriptor (n, 3) from ``mean``: one colour (3,),
        or one per row (n, 3)."""
        d = desc - np.array(mean)
        return np.einsum("ni,ij,nj->n", d, self._cov_inv(), d)

    def separation_of(self, colour) -> float:
        """How far ``colour`` (3,) lies from the nearer robot colour, in the units of
        :attr:`separation` (:data:`MIN_SEPARATION`): :meth:`fit_distance` without its per-channel
        scale."""
        return float(self.fit_distance(np.asarray(colour, np.float64)[None, :])[0] * np.sqrt(3))

    def distance_between(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """How far each descriptor of ``a`` (n, 3) lies from the same row of ``b`` (n, 3), as
        :meth:`fit_distance` measures."""
        return np.sqrt(self._dist2(np.asarray(a, np.float64), b) / 3)

    def distance_to(self, desc: np.ndarray, colour) -> np.ndarray:
        """How far each descriptor (n, 3) lies from ``colour`` (3,), as :meth:`fit_distance` measures."""
        return np.sqrt(self._dist2(desc, tuple(colour)) / 3)

    @property
    def separation(self) -> float:
        d = np.array(self.white) - np.array(self.black)
        return float(np.sqrt(d @ self._cov_inv() @ d))

    def llr(self, desc: np.ndarray) -> np.ndarray:
        """log P(colour | White) - log P(colour | Black) for each descriptor (n, 3)."""
        lw = -0.5 * (DOF + 3) * np.log1p(self._dist2(desc, self.white) / DOF)
        lb = -0.5 * (DOF + 3) * np.log1p(self._dist2(desc, self.black) / DOF)
        return lw - lb

    def fit_distance(self, desc: np.ndarray) -> np.ndarray:
        """How far each descriptor lies from the nearer of the two colours (Mahalanobis, per channel)."""
        return np.sqrt(np.minimum(self._dist2(desc, self.white), self._dist2(desc, self.black)) / 3)

    def adapted(self, desc: np.ndarray, is_white: np.ndarray, rate: float) -> "ColourModel":
        """Means moved a little towards what an accepted board showed (the light drifts)."""
        w, b = np.array(self.white), np.array(self.black)
        if is_white.any():
            w = (1 - rate) * w + rate * np.median(desc[is_white], axis=0)
        if (~is_white).any():
            b = (1 - rate) * b + rate * np.median(desc[~is_white], axis=0)
        return ColourModel(tuple(float(v) for v in w), tuple(float(v) for v in b), self.spread, self.height, self.radius,
                           self.offcentre, self.quantile)

    def to_json(self) -> dict:
        return {"white": list(self.white), "black": list(self.black), "spread": list(self.spread), "height": self.height,
                "radius": self.radius, "offcentre": self.offcentre, "quantile": self.quantile}

    @classmethod
    def from_json(cls, d: dict) -> "ColourModel":
        quantile = d.get("quantile", 0.5)       # files from before it was chosen: the median
        if isinstance(quantile, bool) or not isinstance(quantile, (int, float)) or not 0.0 <= quantile <= 1.0:
            raise ValueError(f"colour quantile {quantile!r} is not a number from 0 to 1")
        return cls(tuple(float(v) for v in d["white"]), tuple(float(v) for v in d["black"]),
                   tuple(float(v) for v in d["spread"]), float(d["height"]), float(d["radius"]),
                   d.get("offcentre", False) is True, float(quantile))


def plain_model(x_now: np.ndarray, lean: np.ndarray, white: list[int], black: list[int], radius: float) -> ColourModel:
    """The two colours of the robots ``white`` / ``black`` (square indices of ``x_now``, (n, 3, P, P)
    normalised log colour) by one plain disc, not searched for: the median of a disc of ``radius`` at
    each square's centre (height 0), their spread as :meth:`ColourModel.fit` takes it."""
    d = descriptors(x_now[white + black], lean[white + black], 0.0, radius)
    return ColourModel.of_descriptors(d[: len(white)], d[len(white):], 0.0, radius)


def _spread(dw: np.ndarray, db: np.ndarray) -> np.ndarray:
    res = np.vstack([dw - np.median(dw, 0), db - np.median(db, 0)])
    # each robot's brightness (the mean over the channels) is the covariance's shared SHADE term:
    # left out here, or a row of robots under the lamp's fall-off counts it twice, in every channel
    res = res - res.mean(axis=1, keepdims=True)
    mad = 1.4826 * np.median(np.abs(res), axis=0)
    return np.maximum(mad * 1.5, SPREAD_FLOOR)
