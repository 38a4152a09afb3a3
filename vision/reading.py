"""The result of reading one frame."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .geometry import point_name, square_name
from .layout import BoardLayout


_NO_SIDES = np.full(49, np.nan)
_NO_SIDES.setflags(write=False)


@dataclass(frozen=True)
class BoardReading:
    """What one frame shows, with honest per-field probabilities.

    ``square_probs``: (36, 3) in the order EMPTY, WHITE, BLACK; ``point_probs``:
    (49, 2) in the order EMPTY, BATTERY. ``layout`` is None when the frame is not
    readable; ``reason`` then says why. The probabilities are filled whenever the
    board could be located (uniform where nothing could be seen), so a caller may
    still weigh them against what a legal turn explains.
    """

    layout: BoardLayout | None
    square_probs: np.ndarray
    point_probs: np.ndarray
    square_confidence: tuple[float, ...]
    point_confidence: tuple[float, ...]
    readable: bool
    reason: str | None = None
    low_confidence_squares: tuple[int, ...] = ()
    low_confidence_points: tuple[int, ...] = ()
    occluded_fraction: float = 0.0        # share of the field not explained by board or pieces
    alignment: float = 1.0                # 1 = energy lines exactly where calibrated; < ~0.4 = board moved
    extra: dict = field(default_factory=dict, compare=False)
    # battery sides (information only, see vision.battery_side): (49,) P(printed side up),
    # NaN where no battery or the camera cannot tell; and per point why it cannot tell
    printed_probs: np.ndarray = field(default_factory=lambda: _NO_SIDES, compare=False)
    side_unknown_why: tuple[str | None, ...] = field(default=(), compare=False)
    # why each doubtful field is doubtful, as far as the reader can say (a robot beside a point may hide
    # it, a robot's colour is unclear, ...): (36,) and (49,), None where a field is not doubtful or the
    # reader gives no cause; empty where the reader gives none at all
    square_doubt_why: tuple[str | None, ...] = field(default=(), compare=False)
    point_doubt_why: tuple[str | None, ...] = field(default=(), compare=False)

    def printed_points(self, confidence: float = 0.9) -> tuple[int, ...]:
        """Battery points whose printed side is up with at least ``confidence``."""
        p = np.asarray(self.printed_probs, float)
        return tuple(int(i) for i in np.flatnonzero(np.nan_to_num(p, nan=-1.0) >= confidence))

    def blank_points(self, confidence: float = 0.9) -> tuple[int, ...]:
        """Battery points whose blank side is up with at least ``confidence``."""
        p = np.asarray(self.printed_probs, float)
        return tuple(int(i) for i in np.flatnonzero(1.0 - np.nan_to_num(p, nan=2.0) >= confidence))

    def battery_side(self, point: int, confidence: float = 0.9) -> str | None:
        """'printed', 'blank' or 'unknown' for a point read as a battery; None for an empty point."""
        if self.point_probs[point][1] <= 0.5:
            return None
        p = float(self.printed_probs[point]) if len(self.printed_probs) == 49 else float("nan")
        if p >= confidence:
            return "printed"
        if 1.0 - p >= confidence:
            return "blank"
        return "unknown"

    def sides_json(self, confidence: float = 0.9) -> dict:
        """Per battery point: ``{"side": printed|blank|unknown, "p_printed": float|None[, "why": ...]}``."""
        out = {}
        for i in range(49):
            side = self.battery_side(i, confidence)
            if side is None:
                continue
            p = float(self.printed_probs[i]) if len(self.printed_probs) == 49 else float("nan")
            entry = {"side": side, "p_printed": None if np.isnan(p) else round(p, 4)}
            why = self.side_unknown_why[i] if len(self.side_unknown_why) == 49 else None
            if np.isnan(p):
                entry["why"] = why or "side not measured"
            out[point_name(i)] = entry
        return out

    @property
    def low_confidence_fields(self) -> list[str]:
        return [square_name(i) for i in self.low_confidence_squares] + [point_name(i) for i in self.low_confidence_points]

    @property
    def doubts(self) -> dict[str, str]:
        """{field name: why it is doubtful} for the doubtful fields whose cause the reader gives."""
        out = {}
        if len(self.square_doubt_why) == 36:
            out.update({square_name(i): self.square_doubt_why[i] for i in self.low_confidence_squares
                        if self.square_doubt_why[i]})
        if len(self.point_doubt_why) == 49:
            out.update({point_name(i): self.point_doubt_why[i] for i in self.low_confidence_points
                        if self.point_doubt_why[i]})
        return out

    def to_json(self) -> dict:
        from .layout import POINT_STATES, SQUARE_STATES

        return {
            "readable": self.readable,
            "reason": self.reason,
            "squares": {
                square_name(i): {s.value: round(float(p), 6) for s, p in zip(SQUARE_STATES, self.square_probs[i])}
                for i in range(36)
            },
            "points": {
                point_name(i): {s.value: round(float(p), 6) for s, p in zip(POINT_STATES, self.point_probs[i])}
                for i in range(49)
            },
            "battery_sides": self.sides_json(),
            "low_confidence": self.low_confidence_fields,
            "doubtful_why": self.doubts,
            "occluded_fraction": round(self.occluded_fraction, 4),
            "alignment": round(self.alignment, 3),
        }


def unreadable(reason: str, square_probs=None, point_probs=None, **kw) -> BoardReading:
    sp = np.full((36, 3), 1 / 3) if square_probs is None else square_probs
    pp = np.full((49, 2), 1 / 2) if point_probs is None else point_probs
    return BoardReading(
        layout=None,
        square_probs=sp,
        point_probs=pp,
        square_confidence=tuple(float(v) for v in sp.max(axis=1)),
        point_confidence=tuple(float(v) for v in pp.max(axis=1)),
        readable=False,
        reason=reason,
        low_confidence_squares=kw.pop("low_confidence_squares", tuple(range(36)) if square_probs is None else ()),
        low_confidence_points=kw.pop("low_confidence_points", tuple(range(49)) if point_probs is None else ()),
        **kw,
    )
