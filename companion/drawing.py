"""Pictures of a position: the terminal board (unicode), SVG and PNG.

The board is drawn as White sees it: rank 6 at the top, files a..f left to
right.  Robots sit in the squares, batteries on the crossings of the energy
lines.  ``marks`` highlights squares and points (an illegal move's pieces, a
hint).
"""

from __future__ import annotations

from typing import Iterable

from .rules.geometry import COL_NAMES, FILE_NAMES, Color, point_name, square_name
from .rules.position import Placement, Position

WHITE_ROBOT = "\u25cb"  # ○
BLACK_ROBOT = "\u25cf"  # ●
BATTERY = "\u25c6"      # ◆
CROSS = "\u253c"        # ┼


def terminal_board(
    pos: Position | Placement,
    *,
    marks_squares: Iterable[int] = (),
    marks_points: Iterable[int] = (),
    color: bool = False,
) -> str:
    """The board as text: points on even columns/rows, squares between.

    Robots: ``○`` White, ``●`` Black; batteries ``◆``, a stack of two or
    three ``2`` / ``3`` (R-19); empty points ``┼``.
    Marked fields are bracketed by ``>`` / ``<`` (or shown in reverse video
    with ``color``).
    """
    ms, mp = set(marks_squares), set(marks_points)
    place = Placement.of(pos)

    def rev(text: str) -> str:
        return f"\x1b[7m{text}\x1b[0m"

    lines = []
    for row in range(6, -1, -1):
        cells = []
        for col in range(7):
            p = row * 7 + col
            h = place.height(p)
            if p in mp:
                ch = rev(BATTERY if h == 1 else str(h) if h else CROSS) if color else ("\u25c8" if h == 1 else str(h) if h else "\u25ce")
            else:
                ch = BATTERY if h == 1 else str(h) if h else CROSS
            cells.append(ch)
        lines.append(f"  {row + 1} " + "\u2500\u2500\u2500".join(cells))
        if row == 0:
            break
        rank = row - 1
        cells = []
        for f in range(6):
            sq = rank * 6 + f
            ch = WHITE_ROBOT if sq in place.white else BLACK_ROBOT if sq in place.black else " "
            if sq in ms:
                cells.append(rev(f" {ch} ") if color else f">{ch}<")
            else:
                cells.append(f" {ch} ")
        lines.append(f"{rank + 1}   \u2502" + "\u2502".join(cells) + "\u2502")
    lines.append("    " + "   ".join(COL_NAMES))
    lines.append("      " + "   ".join(FILE_NAMES))
    if isinstance(pos, Position):
        lines.append(f"{pos.to_move.label} to move")
    return "\n".join(lines)


def svg_board(pos: Position | Placement, *, marks_squares: Iterable[int] = (), marks_points: Iterable[int] = (), cell: int = 60,
              blank_points: Iterable[int] = ()) -> str:
    """An SVG picture of the board (board, energy lines, robots, batteries, coordinates).

    Every piece and mark carries its field's name (``class="robot white" data-square="c1"``,
    ``class="battery" data-point="C2"``, ``class="mark" data-square=...``), so that a page can
    tell what is drawn. ``blank_points``: batteries lying on their blank side (R-23), drawn pale
    and dashed (``class="battery blank"``).
    """
    place = Placement.of(pos)
    ms, mp, blank = set(marks_squares), set(marks_points), set(blank_points)
    m = cell  # margin
    size = 6 * cell + 2 * m
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size + (cell // 2 if isinstance(pos, Position) else 0)}" '
        f'viewBox="0 0 {size} {size + (cell // 2 if isinstance(pos, Position) else 0)}" font-family="sans-serif">',
        f'<rect width="100%" height="100%" fill="#f4ecd8"/>',
        f'<rect x="{m}" y="{m}" width="{6 * cell}" height="{6 * cell}" fill="#d9b77e" stroke="#5b4121" stroke-width="3"/>',
    ]

    def px(col: float, row: float) -> tuple[float, float]:
        return m + col * cell, m + (6 - row) * cell

    for sq in ms:
        x, y = px(sq % 6, sq // 6 + 1)
        out.append(f'<rect class="mark" data-square="{square_name(sq)}" x="{x}" y="{y}" width="{cell}" height="{cell}" '
                   f'fill="#e8663d" fill-opacity="0.55"/>')
    for i in range(7):
        x0, y0 = px(i, 0)
        x1, y1 = px(i, 6)
        out.append(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#3b6ea5" stroke-width="3"/>')
        x0, y0 = px(0, i)
        x1, y1 = px(6, i)
        out.append(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#3b6ea5" stroke-width="3"/>')
        cx, cy = px(i, 0)
        out.append(f'<text x="{cx}" y="{cy + cell * 0.45}" text-anchor="middle" font-size="{cell * 0.28}" fill="#3b6ea5">{COL_NAMES[i]}</text>')
        cx, cy = px(0, i)
        out.append(f'<text x="{cx - cell * 0.45}" y="{cy + cell * 0.1}" text-anchor="middle" font-size="{cell * 0.28}" fill="#3b6ea5">{i + 1}</text>')
    for f in range(6):
        cx, cy = px(f + 0.5, 0)
        out.append(f'<text x="{cx}" y="{cy + cell * 0.8}" text-anchor="middle" font-size="{cell * 0.3}" fill="#5b4121">{FILE_NAMES[f]}</text>')
        cx, cy = px(6, f + 0.5)
        out.append(f'<text x="{cx + cell * 0.5}" y="{cy + cell * 0.1}" text-anchor="middle" font-size="{cell * 0.3}" fill="#5b4121">{f + 1}</text>')
    for sq in range(36):
        if sq in place.white or sq in place.black:
            cx, cy = px(sq % 6 + 0.5, sq // 6 + 0.5)
            fill, stroke = ("#fbfbf5", "#333") if sq in place.white else ("#222", "#000")
            side = "white" if sq in place.white else "black"
            out.append(f'<circle class="robot {side}" data-square="{square_name(sq)}" cx="{cx}" cy="{cy}" '
                       f'r="{cell * 0.32}" fill="{fill}" stroke="{stroke}" stroke-width="2"/>')
    for p in range(49):
        cx, cy = px(p % 7, p // 7)
        if p in mp:
            out.append(f'<circle class="mark" data-point="{point_name(p)}" cx="{cx}" cy="{cy}" r="{cell * 0.24}" '
                       f'fill="none" stroke="#e8663d" stroke-width="4"/>')
        if p in place.batteries:
            r = cell * 0.15
            look = ('class="battery blank" fill="#efe6c8" stroke="#8a7a50" stroke-dasharray="3 2"' if p in blank
                    else 'class="battery" fill="#f2c230" stroke="#6b4e00"')
            out.append(
                f'<rect {look} data-point="{point_name(p)}" data-height="{place.height(p)}" x="{cx - r}" y="{cy - r}" '
                f'width="{2 * r}" height="{2 * r}" rx="{r * 0.3}" stroke-width="2" transform="rotate(45 {cx} {cy})"/>'
            )
            if place.height(p) > 1:  # a stack: its height on the battery
                out.append(
                    f'<text x="{cx}" y="{cy + cell * 0.08}" text-anchor="middle" font-size="{cell * 0.22}" '
                    f'font-weight="bold" fill="#3b2a00">{place.height(p)}</text>'
                )
    if isinstance(pos, Position):
        out.append(
            f'<text x="{size / 2}" y="{size + cell * 0.15}" text-anchor="middle" font-size="{cell * 0.3}" fill="#333">'
            f'{pos.to_move.label} to move</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def png_board(pos: Position | Placement, *, marks_squares: Iterable[int] = (), marks_points: Iterable[int] = (), cell: int = 60):
    """The same picture as :func:`svg_board`, as a BGR numpy image (OpenCV)."""
    import cv2
    import numpy as np

    place = Placement.of(pos)
    ms, mp = set(marks_squares), set(marks_points)
    m = cell
    size = 6 * cell + 2 * m
    extra = cell // 2 if isinstance(pos, Position) else 0
    img = np.full((size + extra, size, 3), (216, 236, 244), np.uint8)

    def px(col: float, row: float) -> tuple[int, int]:
        return int(round(m + col * cell)), int(round(m + (6 - row) * cell))

    cv2.rectangle(img, px(0, 6), px(6, 0), (126, 183, 217), -1)
    for sq in ms:
        cv2.rectangle(img, px(sq % 6, sq // 6 + 1), px(sq % 6 + 1, sq // 6), (61, 102, 232), -1)
    cv2.rectangle(img, px(0, 6), px(6, 0), (33, 65, 91), 3)
    font = cv2.FONT_HERSHEY_SIMPLEX
    for i in range(7):
        cv2.line(img, px(i, 0), px(i, 6), (165, 110, 59), 3, cv2.LINE_AA)
        cv2.line(img, px(0, i), px(6, i), (165, 110, 59), 3, cv2.LINE_AA)
        x, y = px(i, 0)
        cv2.putText(img, COL_NAMES[i], (x - 7, y + int(cell * 0.5)), font, cell / 80, (165, 110, 59), 2, cv2.LINE_AA)
        x, y = px(0, i)
        cv2.putText(img, str(i + 1), (x - int(cell * 0.6), y + 7), font, cell / 80, (165, 110, 59), 2, cv2.LINE_AA)
    for f in range(6):
        x, y = px(f + 0.5, 0)
        cv2.putText(img, FILE_NAMES[f], (x - 7, y + int(cell * 0.85)), font, cell / 75, (33, 65, 91), 2, cv2.LINE_AA)
        x, y = px(6, f + 0.5)
        cv2.putText(img, str(f + 1), (x + int(cell * 0.35), y + 7), font, cell / 75, (33, 65, 91), 2, cv2.LINE_AA)
    for sq in range(36):
        if sq in place.white or sq in place.black:
            c = px(sq % 6 + 0.5, sq // 6 + 0.5)
            fill = (245, 251, 251) if sq in place.white else (34, 34, 34)
            cv2.circle(img, c, int(cell * 0.32), fill, -1, cv2.LINE_AA)
            cv2.circle(img, c, int(cell * 0.32), (20, 20, 20), 2, cv2.LINE_AA)
    for p in range(49):
        c = px(p % 7, p // 7)
        if p in mp:
            cv2.circle(img, c, int(cell * 0.26), (61, 102, 232), 4, cv2.LINE_AA)
        if p in place.batteries:
            r = int(cell * 0.2)
            pts = np.array([(c[0], c[1] - r), (c[0] + r, c[1]), (c[0], c[1] + r), (c[0] - r, c[1])], np.int32)
            cv2.fillConvexPoly(img, pts, (48, 194, 242), cv2.LINE_AA)
            cv2.polylines(img, [pts], True, (0, 78, 107), 2, cv2.LINE_AA)
            if place.height(p) > 1:  # a stack: its height on the battery
                cv2.putText(img, str(place.height(p)), (c[0] - int(cell * 0.07), c[1] + int(cell * 0.08)), font,
                            cell / 150, (0, 42, 59), 2, cv2.LINE_AA)
    if isinstance(pos, Position):
        text = f"{pos.to_move.label} to move"
        cv2.putText(img, text, (size // 2 - 60, size + extra // 3), font, cell / 90, (51, 51, 51), 2, cv2.LINE_AA)
    return img


def side_word(color: Color) -> str:
    return color.label
