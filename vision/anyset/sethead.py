"""A net's last layer, nudged towards one set: fitted on the fields of a board the reader knows.

The points net was trained on many designs and knows none of them; a set it
is blind to (small grey batteries set down off the printed discs of their
points, design 10,400,006 of the renderer) it reads doubtful on nearly every
frame, even on the calibration frame itself. That frame labels the set's own
points: 14 batteries and 35 empty points under this light. A **set head**
is the net's last layer (a linear map of its last hidden layer's features to
"battery against empty") refitted on those points: a logistic regression
whose weights are held near the net's own by a Gaussian prior
(:data:`PRIOR`, the weight decay of a maximum a posteriori fit), so 49
examples move it only where they agree. The net looks at each point as
calibration looks at a frame (its own reference left out, the nearest known
empty and occupied points as its examples), which is how it can be fitted on
the reference itself; the reader asks it about the points the nets leave
unsure and those read empty that no known look vouches for (the very sure
ones only where the reference showed a battery: :meth:`SetHead.correction`,
``reader.SET_HEAD``), and what it adds to their
log-odds is the refitted layer's answer less the net's; it makes a point
surer of "empty" only where it ends very sure (the nets' misses are
batteries read empty, and a layer fitted on one board's 14 batteries leans
that way too: on the run of record's designs it turned three batteries read
empty at 0.97 into 0.99).

The squares net gets a head of its own the same way (``kind="squares"``: a
robot against empty, fitted on the calibration board's 12 robots and 24 empty
squares); the reader asks it about the squares the nets leave unsure between
empty and a robot (``reader.SQUARE_HEAD``). Which player a robot belongs to is
the colour model's, not the head's.

Statistics of the set's own labelled points; no look is assumed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .fieldnet import REF_EMPTY, REF_OCCUPIED, REF_UNKNOWN, net_input, normalise, scalars, shared_net
from .reference import Reference

# The prior's weight: the penalty PRIOR / 2 * |w - w_net|^2 on the refitted layer's weights (bias
# included) against the net's. Chosen offline on development designs 5,000,200-259 (2 cameras, games of
# 6 boards; the reader's points, the head asked about the unsure ones): game frames whose 49 points were
# all sure and right, 299 and 237 of 360 without a head; with priors 3, 10, 30 and 100: 322 / 316 / 313
# / 310 and 294 / 286 / 271 / 262, frames claimed with a wrong point 0 and 2 at each (1 without: a point
# the net is sure of and wrong, no longer behind a doubtful one). The gain falls off slowly either side;
# 10 lies in the middle of the range.
PRIOR = 10.0
NEWTON_STEPS = 25
MIN_EXAMPLES = 4        # of each kind (battery, empty) in the board told: fewer and no head is fitted


def _known_board(reference: Reference, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A known board's fields of ``kind`` ("squares" or "points"): patches, levels, states and the
    distances between the fields."""
    from .fields import _POINT_DIST, square_distances

    if kind == "squares":
        return (reference.squares, reference.square_level, np.asarray(reference.square_state),
                square_distances(reference))
    return reference.points, reference.point_level, np.asarray(reference.point_state), _POINT_DIST


class _Views:
    """The net ``kind``'s input as calibration looks at each field of a frame beside a known board
    (see :func:`field_views`), the board's share (its examples, their indices) made once."""

    def __init__(self, reference: Reference, lean: np.ndarray, kind: str = "points") -> None:
        from .fields import _examples

        self.reference, self.lean, self.kind = reference, lean, kind
        patches, levels, states, dist = _known_board(reference, kind)
        idx, (empty, occupied) = _examples(patches, levels, states, dist, 0)
        # the examples' channels, normalised once (net_input's layout: now, reference, empty, occupied)
        x, _ = net_input(patches, None, levels, empty_example=empty, occupied_example=occupied)
        self.known = x[:, 3:]
        self.s = scalars(np.full(len(states), REF_UNKNOWN), np.asarray(lean), idx)

    def __call__(self, patches: np.ndarray, levels: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = np.asarray(rows, np.int64)
        lv = np.asarray(levels, np.float32)
        now, _ = normalise(patches[rows], lv[rows] if lv.ndim == 2 else lv)
        return np.ascontiguousarray(np.concatenate([now, self.known[rows]], axis=1)), self.s[rows]


def field_views(patches: np.ndarray, levels: np.ndarray, reference: Reference, lean: np.ndarray,
                rows: np.ndarray, kind: str = "points") -> tuple[np.ndarray, np.ndarray]:
    """The net ``kind``'s input for the fields ``rows`` as calibration looks at them: the patches
    now (``patches`` (n, P, P, 3), ``levels`` (3,) or (n, 3)), no reference of their own, the
    nearest other field the reference knows empty and the nearest it knows occupied as examples.
    Returns (x, s) for the whole net."""
    return _Views(reference, lean, kind)(patches, levels, rows)


def board_samples(reference: Reference, lean: np.ndarray, kind: str = "points"
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fields of ``kind`` that ``reference`` knows, as a set head learns from them: (features (n, D)
    of the net's last hidden layer, the net's log-odds of occupied (n,), occupied (n,) bool), each
    field looked at beside the board's others as examples (as calibration looks at a frame)."""
    patches, levels, state, _ = _known_board(reference, kind)
    rows = np.flatnonzero(state != REF_UNKNOWN)
    net = shared_net()
    if not len(rows):
        return np.zeros((0, 1)), np.zeros(0), np.zeros(0, bool)
    x, s = field_views(patches, levels, reference, lean, rows, kind)
    z = net.squares(x, s) if kind == "squares" else net.points(x, s)
    return net.features(kind, x, s), z[:, 1] - z[:, 0], state[rows] == REF_OCCUPIED


def fit_shift(features: np.ndarray, net_logodds: np.ndarray, battery: np.ndarray, prior: float = PRIOR) -> np.ndarray:
    """(D + 1,): the change to the net's last layer (weights, then bias) that best fits the labels
    ``battery`` ((n,) bool) of points whose features are ``features`` ((n, D)) and whose log-odds
    (battery against empty) by the net are ``net_logodds`` ((n,)), under the prior ``prior``
    (maximum a posteriori logistic regression, Newton's method)."""
    X = np.concatenate([np.asarray(features, np.float64), np.ones((len(features), 1))], axis=1)
    z0 = np.asarray(net_logodds, np.float64)
    y = np.asarray(battery, np.float64)

    def objective(d: np.ndarray) -> float:
        z = z0 + X @ d
        # the log-loss, log(1 + e^z) - y z, computed without overflow; plus the prior's penalty
        return float((np.logaddexp(0.0, z) - y * z).sum() + 0.5 * prior * d @ d)

    d = np.zeros(X.shape[1])
    eye = prior * np.eye(X.shape[1])
    f = objective(d)
    for _ in range(NEWTON_STEPS):
        p = 0.5 * (1.0 + np.tanh(0.5 * (z0 + X @ d)))
        grad = X.T @ (p - y) + prior * d
        hess = X.T @ (X * (p * (1 - p))[:, None]) + eye
        step = np.linalg.solve(hess, grad)
        # a convex objective: halve the step until it goes down (a plain Newton step can overshoot
        # where the net's log-odds are large and its curvature vanishes)
        t = 1.0
        while t > 1e-6:
            f_new = objective(d - t * step)
            if f_new <= f:
                break
            t *= 0.5
        else:
            break
        d, f = d - t * step, f_new
        if t * np.abs(step).max() < 1e-9:
            break
    return d


def left_out(reference: Reference, lean: np.ndarray, kind: str, fields: np.ndarray, prior: float = PRIOR) -> np.ndarray:
    """(k,): the log-odds of occupied (a battery or a robot, against empty) of each of ``fields`` (indices
    of fields of ``kind`` that ``reference`` knows) by a set head fitted on the board's *other* fields:
    what the rest of this very set, under this light, says of a field, its own label left out (a
    leave-one-out fit per field). Calibration asks it whether a field looks like the board's other
    pieces or like its empty fields, whatever the layout calls it. NaN for a field the board does not know, or
    where the other fields hold fewer than :data:`MIN_EXAMPLES` of either state."""
    _, _, state, _ = _known_board(reference, kind)
    known = np.flatnonzero(state != REF_UNKNOWN)
    fields = np.asarray(fields, np.int64)
    out = np.full(len(fields), np.nan)
    if not len(fields) or not len(known):
        return out
    h, z, occupied = board_samples(reference, lean, kind)
    at = {int(f): j for j, f in enumerate(known)}
    for k, f in enumerate(fields):
        j = at.get(int(f))
        if j is None:
            continue
        keep = np.ones(len(z), bool)
        keep[j] = False
        if occupied[keep].sum() < MIN_EXAMPLES or (~occupied[keep]).sum() < MIN_EXAMPLES:
            continue
        d = fit_shift(h[keep], z[keep], occupied[keep], prior)
        out[k] = z[j] + h[j] @ d[:-1] + d[-1]
    return out


@dataclass(frozen=True, eq=False)
class SetHead:
    """The change to a net's last layer fitted on one known board (see the module): the points net's
    (battery against empty) or the squares net's (a robot against empty)."""

    shift: np.ndarray        # (D + 1,): weights, then bias
    kind: str = "points"
    _views: list = field(default_factory=lambda: [None], repr=False, compare=False)   # [_Views of the last reference]

    @classmethod
    def fit(cls, reference: Reference, lean: np.ndarray, prior: float = PRIOR, kind: str = "points"
            ) -> "SetHead | None":
        """Fitted on the fields of ``kind`` that ``reference`` knows (each looked at beside the others
        as examples); None where it knows fewer than :data:`MIN_EXAMPLES` of either state."""
        return cls.fit_boards([board_samples(reference, lean, kind)], prior, kind)

    @classmethod
    def fit_boards(cls, boards: list, prior: float = PRIOR, kind: str = "points") -> "SetHead | None":
        """Fitted on the labelled fields of several known boards (:func:`board_samples` of each: the
        calibration's board and the boards told since); None where they hold fewer than
        :data:`MIN_EXAMPLES` fields of either state."""
        boards = [b for b in boards if b is not None and len(b[2])]
        if not boards:
            return None
        h = np.concatenate([b[0] for b in boards])
        z = np.concatenate([b[1] for b in boards])
        occupied = np.concatenate([b[2] for b in boards])
        if occupied.sum() < MIN_EXAMPLES or (~occupied).sum() < MIN_EXAMPLES:
            return None
        return cls(fit_shift(h, z, occupied, prior), kind)

    def correction(self, patches: np.ndarray, level: np.ndarray, reference: Reference, lean: np.ndarray,
                   rows: np.ndarray) -> np.ndarray:
        """(k,): what the set's head adds to the log-odds of occupied (a battery or a robot, against
        empty) of the fields ``rows`` of a frame (``patches``, ``level``), their examples from ``reference``."""
        rows = np.asarray(rows, np.int64)
        if not len(rows):
            return np.zeros(0)
        views = self._views
        if views[0] is None or views[0].reference is not reference or views[0].lean is not lean:
            views[0] = _Views(reference, lean, self.kind)
        x, s = views[0](patches, level, rows)
        h = shared_net().features(self.kind, x, s)
        return h @ self.shift[:-1] + self.shift[-1]
