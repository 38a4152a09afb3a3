"""The last board the reader knows: every field's patch in a frame whose content is known.

At calibration that is the calibration frame itself (the start position, or
any position the caller names); during a game the companion hands the reader
each accepted board (``BoardReader.learn_bare``), so the reference follows the
light and shows each field as it last looked in a known state. The field
classifier compares each field now with it: a square that looks just as it did
when it was known empty is empty, under any print, colour or texture.

Kept in the calibration file as PNGs of the patches (inside the JSON): the
squares', the points' (finer where the points net takes finer patches) and
the points' at the squares' resolution. A file written before 27 November
2026 (one PNG) is read as long as the point patches are the squares' size.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import cv2
import numpy as np

from .fieldnet import REF_EMPTY, REF_OCCUPIED, REF_UNKNOWN
from ..layout import BoardLayout, PointState, SquareState
from .patches import PATCH, POINT_PATCH

COLOUR_UNKNOWN, COLOUR_WHITE, COLOUR_BLACK = 0, 1, 2


@dataclass(frozen=True, eq=False)
class Reference:
    """Patches of the 36 squares and 49 points as last known, what each showed, and the light level
    (mean log colour) of the frame each patch was cut from."""

    squares: np.ndarray            # (36, P, P, 3) uint8
    points: np.ndarray             # (49, Q, Q, 3) uint8 (Q = POINT_PATCH)
    coarse_points: np.ndarray      # (49, P, P, 3) uint8: the same at the squares' resolution (the reader's
                                   # "looks as before" tests; PatchCutter.coarse_points)
    square_state: np.ndarray       # (36,) REF_EMPTY / REF_OCCUPIED / REF_UNKNOWN
    point_state: np.ndarray        # (49,)
    square_level: np.ndarray       # (36, 3)
    point_level: np.ndarray        # (49, 3)
    # (36,) which robot stood on each square: COLOUR_WHITE / COLOUR_BLACK, COLOUR_UNKNOWN where the
    # square was empty or not known (a calibration file written before the colours were kept)
    square_colour: np.ndarray | None = None
    # whether the board's squares alternate in look (a chessboard's two colours): decided once, on the
    # first reference of a calibration (vision.anyset.fields.reference_alternates), and kept by every
    # reference updated from it, so that the robot colours are told against the empty board as they
    # were learned; None until decided
    alternates: bool | None = None

    def __post_init__(self) -> None:
        if self.square_colour is None:
            object.__setattr__(self, "square_colour", np.full(36, COLOUR_UNKNOWN, np.int8))

    @classmethod
    def from_frame(cls, squares: np.ndarray, points: np.ndarray, coarse_points: np.ndarray, level: np.ndarray,
                   layout: BoardLayout, unknown_squares=(), unknown_points=()) -> "Reference":
        ss = np.array([REF_EMPTY if s is SquareState.EMPTY else REF_OCCUPIED for s in layout.squares])
        ps = np.array([REF_EMPTY if p is PointState.EMPTY else REF_OCCUPIED for p in layout.points])
        colour = np.array([COLOUR_WHITE if s is SquareState.WHITE else COLOUR_BLACK if s is SquareState.BLACK
                           else COLOUR_UNKNOWN for s in layout.squares], np.int8)
        ss[list(unknown_squares)] = REF_UNKNOWN
        ps[list(unknown_points)] = REF_UNKNOWN
        colour[list(unknown_squares)] = COLOUR_UNKNOWN
        lv = np.asarray(level, np.float32).reshape(1, 3)
        return cls(squares.copy(), points.copy(), coarse_points.copy(), ss, ps, np.repeat(lv, 36, 0),
                   np.repeat(lv, 49, 0), colour)

    def updated(self, squares: np.ndarray, points: np.ndarray, coarse_points: np.ndarray, level: np.ndarray,
                layout: BoardLayout, take_squares: np.ndarray, take_points: np.ndarray) -> "Reference":
        """The reference with the fields ``take_*`` (boolean) replaced by this frame's, known to show ``layout``."""
        new = Reference.from_frame(squares, points, coarse_points, level, layout)
        ts, tp = np.asarray(take_squares, bool), np.asarray(take_points, bool)
        return Reference(
            np.where(ts[:, None, None, None], new.squares, self.squares),
            np.where(tp[:, None, None, None], new.points, self.points),
            np.where(tp[:, None, None, None], new.coarse_points, self.coarse_points),
            np.where(ts, new.square_state, self.square_state),
            np.where(tp, new.point_state, self.point_state),
            np.where(ts[:, None], new.square_level, self.square_level),
            np.where(tp[:, None], new.point_level, self.point_level),
            np.where(ts, new.square_colour, self.square_colour).astype(np.int8),
            self.alternates,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Reference):
            return NotImplemented
        return all(np.array_equal(a, b) for a, b in zip(self._arrays(), other._arrays()))

    def __hash__(self) -> int:
        return hash(self.squares.tobytes()[:4096])

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return (self.squares, self.points, self.coarse_points, self.square_state, self.point_state,
                np.round(self.square_level, 6), np.round(self.point_level, 6), self.square_colour)

    # -- files -----------------------------------------------------------------
    def to_json(self) -> dict:
        pngs = []
        for tiles in (self.squares.reshape(-1, PATCH, 3), self.points.reshape(-1, POINT_PATCH, 3),
                      self.coarse_points.reshape(-1, PATCH, 3)):
            ok, png = cv2.imencode(".png", np.ascontiguousarray(tiles))
            if not ok:  # pragma: no cover - PNG encoding of a uint8 image does not fail
                raise ValueError("cannot encode the reference patches")
            pngs.append(base64.b64encode(png.tobytes()).decode("ascii"))
        return {
            "patch": PATCH,
            "point_patch": POINT_PATCH,
            "squares_png": pngs[0],
            "points_png": pngs[1],
            "coarse_points_png": pngs[2],
            "square_state": [int(v) for v in self.square_state],
            "square_colour": [int(v) for v in self.square_colour],
            "point_state": [int(v) for v in self.point_state],
            "square_level": np.round(self.square_level, 6).tolist(),
            "point_level": np.round(self.point_level, 6).tolist(),
            **({} if self.alternates is None else {"alternates": bool(self.alternates)}),
        }

    @classmethod
    def from_json(cls, data: object) -> "Reference":
        """Raises ValueError naming what is wrong."""
        if not isinstance(data, dict):
            raise ValueError("the reference board is not an object")
        legacy = "squares_png" not in data and "patches_png" in data      # version 1: one PNG, 24-px points
        if legacy:
            if data.get("patch") != PATCH or POINT_PATCH != PATCH:
                raise ValueError("it was made by an earlier version of the program (its reference patches are "
                                 "kept otherwise): calibrate again")
        elif data.get("patch") != PATCH or data.get("point_patch") != POINT_PATCH:
            raise ValueError(f"the reference patches are {data.get('patch')!r} / {data.get('point_patch')!r} px, "
                             f"this program uses {PATCH} / {POINT_PATCH}: calibrate again")
        keys = ("patches_png",) if legacy else ("squares_png", "points_png", "coarse_points_png")
        try:
            pngs = [base64.b64decode(str(data[k]), validate=True) for k in keys]
            ss = np.array(data["square_state"], int)
            ps = np.array(data["point_state"], int)
            sl = np.array(data["square_level"], np.float32)
            pl = np.array(data["point_level"], np.float32)
            # files written before the robots' colours were kept: not known
            sc = np.array(data.get("square_colour", [COLOUR_UNKNOWN] * 36), int)
            alternates = data.get("alternates")      # files written before it was kept: decided again
        except KeyError as exc:
            raise ValueError(f"the reference board lacks {exc.args[0]!r}") from None
        except (ValueError, TypeError):
            raise ValueError("the reference board holds malformed values") from None
        imgs = [cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR) for png in pngs]
        if legacy and imgs[0] is not None and imgs[0].shape == (85 * PATCH, PATCH, 3):
            imgs = [imgs[0][:36 * PATCH], imgs[0][36 * PATCH:], imgs[0][36 * PATCH:]]
        shapes = ((36 * PATCH, PATCH, 3), (49 * POINT_PATCH, POINT_PATCH, 3), (49 * PATCH, PATCH, 3))
        if len(imgs) != 3 or any(img is None or img.shape != shape for img, shape in zip(imgs, shapes)):
            raise ValueError("the reference patches are unreadable or have the wrong size")
        if ss.shape != (36,) or ps.shape != (49,) or sl.shape != (36, 3) or pl.shape != (49, 3):
            raise ValueError("the reference board's states or levels have the wrong shape")
        if not (set(ss.tolist()) | set(ps.tolist())) <= {REF_EMPTY, REF_OCCUPIED, REF_UNKNOWN}:
            raise ValueError("the reference board holds an unknown field state")
        if sc.shape != (36,) or not set(sc.tolist()) <= {COLOUR_UNKNOWN, COLOUR_WHITE, COLOUR_BLACK}:
            raise ValueError("the reference board's robot colours are malformed (36 values of 0, 1, 2)")
        sc = np.where(ss == REF_OCCUPIED, sc, COLOUR_UNKNOWN).astype(np.int8)
        if alternates is not None and not isinstance(alternates, bool):
            raise ValueError(f"the reference board's 'alternates' is {alternates!r}, not true or false")
        if not (np.all(np.isfinite(sl)) and np.all(np.isfinite(pl))):
            raise ValueError("the reference board's light levels hold non-numbers")
        sq = imgs[0].reshape(36, PATCH, PATCH, 3).copy()
        pt = imgs[1].reshape(49, POINT_PATCH, POINT_PATCH, 3).copy()
        pc = imgs[2].reshape(49, PATCH, PATCH, 3).copy()
        return cls(sq, pt, pc, ss, ps, sl, pl, sc, alternates)
