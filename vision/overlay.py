"""The set-up picture: the frame with the calibrated grid and what was read drawn on it."""

from __future__ import annotations

import cv2
import numpy as np

from .calibration import Calibration
from .geometry import CORNER_NAMES, FIELD_CORNERS, point_coords, square_centers
from .layout import PointState, SquareState
from .reading import BoardReading


def _px(H: np.ndarray, xy) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(xy, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)


def draw_overlay(image: np.ndarray, calibration: Calibration, reading: BoardReading | None = None) -> np.ndarray:
    """A copy of ``image`` with the energy lines, corner names and the reading drawn on it.

    Green rings: batteries; W / B letters: robots; orange: low confidence; the
    reason (if not readable) is written at the top, and below it why each doubtful field is
    doubtful where the reader says (one a line, up to :data:`MAX_CAUSE_LINES`). Beside a battery's ring, its side:
    a yellow dot printed, a blue dot blank, a white "?" unknown (legend at the bottom).
    """
    out = image.copy()
    H = calibration.H
    line = (0, 200, 255)
    for i in range(7):
        for p, q in (((i, 0), (i, 6)), ((0, i), (6, i))):
            a, b = _px(H, [p, q])
            cv2.line(out, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), line, 1, cv2.LINE_AA)
    for name, c in zip(CORNER_NAMES, _px(H, FIELD_CORNERS)):
        cv2.putText(out, name, tuple(np.round(c + 6).astype(int)), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 255), 2, cv2.LINE_AA)
    scale = np.linalg.norm(_px(H, [(0, 0)]) - _px(H, [(1, 0)]))
    if reading is not None:
        sprobs = reading.square_probs.argmax(axis=1)
        pprobs = reading.point_probs.argmax(axis=1)
        low_s, low_p = set(reading.low_confidence_squares), set(reading.low_confidence_points)
        for i, c in enumerate(_px(H, square_centers())):
            state = (SquareState.EMPTY, SquareState.WHITE, SquareState.BLACK)[int(sprobs[i])]
            colour = (0, 140, 255) if i in low_s else (0, 220, 0)
            if state is not SquareState.EMPTY or i in low_s:
                txt = {SquareState.WHITE: "W", SquareState.BLACK: "B", SquareState.EMPTY: "?"}[state]
                org = tuple(np.round(c + np.array([-0.12, 0.12]) * scale).astype(int))
                cv2.putText(out, txt, org, cv2.FONT_HERSHEY_SIMPLEX, max(0.5, scale / 90), (0, 0, 0), 5, cv2.LINE_AA)
                cv2.putText(out, txt, org, cv2.FONT_HERSHEY_SIMPLEX, max(0.5, scale / 90), colour, 2, cv2.LINE_AA)
        for i, c in enumerate(_px(H, point_coords())):
            state = (PointState.EMPTY, PointState.BATTERY)[int(pprobs[i])]
            colour = (0, 140, 255) if i in low_p else (0, 220, 0)
            if state is PointState.BATTERY or i in low_p:
                cv2.circle(out, tuple(np.round(c).astype(int)), int(max(4, 0.2 * scale)), colour, 2, cv2.LINE_AA)
            if state is PointState.BATTERY:
                _draw_side(out, c, reading.battery_side(i), scale)
        if any(reading.battery_side(i) is not None for i in range(49)):
            _side_legend(out)
        text = "readable" if reading.readable else f"NOT READABLE: {reading.reason}"
        colour = (255, 255, 255) if reading.readable else (0, 0, 255)
        title = _wrap(text, out.shape[1] - 24, 0.7, 2, MAX_TITLE_LINES)
        for k, line in enumerate(title):
            for ink, thick in (((0, 0, 0), 5), (colour, 2)):
                cv2.putText(out, line, (12, 30 + 28 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.7, ink, thick, cv2.LINE_AA)
        # why the doubtful fields are doubtful, where the reader says (orange, one field a line)
        said = [f"{name}: {why}" for name, why in reading.doubts.items()]
        if len(said) > MAX_CAUSE_LINES:
            said = said[:MAX_CAUSE_LINES - 1] + [f"... and {len(said) - MAX_CAUSE_LINES + 1} more doubtful fields"]
        lines = [_wrap(line, out.shape[1] - 32, 0.55, 1, 1)[0] for line in said]
        if lines:
            top = 30 + 28 * len(title) - 16
            wide = max(cv2.getTextSize(x, cv2.FONT_HERSHEY_SIMPLEX, 0.55, 1)[0][0] for x in lines)
            box = out[top:top + 22 * len(lines) + 6, 8:min(out.shape[1], 20 + wide)]
            box[:] = (box * 0.35).astype(out.dtype)               # darkened behind the text
            for k, line in enumerate(lines):
                cv2.putText(out, line, (12, top + 16 + 22 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 160, 255), 1,
                            cv2.LINE_AA)
    return out


MAX_CAUSE_LINES = 6


MAX_TITLE_LINES = 3


def _wrap(text: str, width_px: int, scale: float, thickness: int, max_lines: int) -> list[str]:
    """``text`` broken at spaces into lines at most ``width_px`` wide (the last one cut with "...")."""
    def fits(s: str) -> bool:
        return cv2.getTextSize(s, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)[0][0] <= width_px
    lines: list[str] = []
    for word in text.split(" "):
        if lines and fits(lines[-1] + " " + word):
            lines[-1] += " " + word
        else:
            lines.append(word)
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and not fits(last + " ..."):
            last = last[:-1]
        lines = lines[:max_lines - 1] + [last + " ..."]
    return lines


SIDE_COLOURS = {"printed": (0, 230, 255), "blank": (255, 120, 0)}  # BGR: yellow, blue


def _draw_side(out: np.ndarray, c: np.ndarray, side: str | None, scale: float) -> None:
    """The battery's side beside its ring (the disc stays visible): yellow dot printed, blue dot
    blank, white '?' unknown."""
    centre = tuple(np.round(np.asarray(c) + np.array([0.25, -0.25]) * scale).astype(int))
    r = int(max(3, 0.065 * scale))
    if side in SIDE_COLOURS:
        cv2.circle(out, centre, r + 1, (0, 0, 0), -1, cv2.LINE_AA)
        cv2.circle(out, centre, r, SIDE_COLOURS[side], -1, cv2.LINE_AA)
    elif side == "unknown":
        size = max(0.5, scale / 120)
        org = (centre[0] - int(5 * size / 0.5), centre[1] + int(6 * size / 0.5))
        cv2.putText(out, "?", org, cv2.FONT_HERSHEY_SIMPLEX, size, (0, 0, 0), 5, cv2.LINE_AA)
        cv2.putText(out, "?", org, cv2.FONT_HERSHEY_SIMPLEX, size, (255, 255, 255), 2, cv2.LINE_AA)


def _side_legend(out: np.ndarray) -> None:
    h = out.shape[0]
    y = h - 16
    cv2.rectangle(out, (8, y - 20), (470, y + 8), (0, 0, 0), -1)
    x = 14
    for label, side in (("printed", "printed"), ("blank", "blank")):
        cv2.circle(out, (x + 6, y - 6), 6, SIDE_COLOURS[side], -1, cv2.LINE_AA)
        cv2.putText(out, label, (x + 16, y), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 1, cv2.LINE_AA)
        x += 100
    cv2.putText(out, "?  battery side unknown", (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 1, cv2.LINE_AA)
