"""Recorded games for the audit tests and benchmark: engine self-play with the
slips a player makes, a hand over the board, photos after the win.

Every expected verdict is computed with the engine (``explain``), never
assumed: a slip that happens to be a legal turn of its own is not used as a
slip (another one is tried instead).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import cv2

from companion.rules.engine import apply_turn, random_turn, status
from companion.rules.explain import explain
from companion.rules.geometry import WHITE
from companion.rules.moves import Turn
from companion.rules.position import Placement, Position
from companion.rules.options import Rules

ROBOT_TOO_FAR = "a robot one square too far"
ROBOT_DIAGONAL = "a robot put diagonally off"
BATTERY_NUDGED = "a battery nudged along a line"
ENEMY_KNOCKED = "an enemy robot knocked to a neighbouring square"
CAPTURE_IGNORED = "a capture left out under must-capture"
SLIPS = (ROBOT_TOO_FAR, ROBOT_DIAGONAL, BATTERY_NUDGED, ENEMY_KNOCKED)


@dataclass(frozen=True)
class Shot:
    """One photo of the recorded game and what the referee must say about it."""

    board: Placement
    expect: str  # accepted / rejected / unreadable / unchanged / game-over
    note: str  # "turn", a slip's name, "hand", "after the win"
    hand: bool = False
    turn: str | None = None  # the turn played (accepted shots)
    after: Position | None = None  # the position after accepting (accepted shots)
    before: Position | None = None  # the last accepted position when this photo is taken


def _sq(f: int, r: int) -> int | None:
    return r * 6 + f if 0 <= f < 6 and 0 <= r < 6 else None


def _pt(c: int, r: int) -> int | None:
    return r * 7 + c if 0 <= c < 7 and 0 <= r < 7 else None


def _occupied(b: Placement) -> frozenset[int]:
    return b.white | b.black


def _move_robot(b: Placement, src: int, dst: int) -> Placement:
    if src in b.white:
        return Placement((b.white - {src}) | {dst}, b.black, b.batteries)
    return Placement(b.white, (b.black - {src}) | {dst}, b.batteries)


def slip_boards(kind: str, before: Position, turn: Turn, after: Position, rng: random.Random) -> list[Placement]:
    """Candidate boards for a slip of ``kind`` on top of the played turn, in random order."""
    b = Placement.of(after)
    occ = _occupied(b)
    out: list[Placement] = []
    if kind in (ROBOT_TOO_FAR, ROBOT_DIAGONAL):
        for m in turn.robot_moves:
            if m.dst not in occ:
                continue
            sf, sr, df, dr = m.src % 6, m.src // 6, m.dst % 6, m.dst // 6
            if kind == ROBOT_TOO_FAR:
                if m.capture:
                    continue
                step = ((df > sf) - (df < sf), (dr > sr) - (dr < sr))
                targets = [_sq(df + step[0], dr + step[1])]
            else:
                targets = [_sq(df + a, dr + c) for a in (-1, 1) for c in (-1, 1)]
            for t in targets:
                if t is not None and t not in occ:
                    out.append(_move_robot(b, m.dst, t))
    elif kind == BATTERY_NUDGED:
        for p in sorted(b.batteries):
            c, r = p % 7, p // 7
            for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                q = _pt(c + dc, r + dr)
                if q is not None and q not in b.batteries:
                    out.append(Placement(b.white, b.black, (b.batteries - {p}) | {q}))
    elif kind == ENEMY_KNOCKED:
        enemy = b.robots(before.to_move.other)
        for s in sorted(enemy):
            f, r = s % 6, s // 6
            for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                t = _sq(f + df, r + dr)
                if t is not None and t not in occ:
                    out.append(_move_robot(b, s, t))
    rng.shuffle(out)
    return out


def _progress(pos: Position, color) -> int:
    robots = pos.robots(color)
    return sum((s // 6) if color is WHITE else (5 - s // 6) for s in robots)


def _pick_turn(pos: Position, rng: random.Random, rules: Rules, greedy: int) -> Turn:
    """A random legal turn; with ``greedy`` > 1 the best of that many for a quick game."""
    if greedy <= 1:
        return random_turn(pos, rng, rules)
    mover = pos.to_move
    best, best_score = None, None
    for _ in range(greedy):
        t = random_turn(pos, rng, rules)
        after = apply_turn(pos, t, rules)
        st = status(after, rules)
        score = (st.winner is mover, _progress(after, mover) - _progress(after, mover.other), rng.random())
        if best_score is None or score > best_score:
            best, best_score = t, score
    assert best is not None
    return best


def build_game(
    seed: int,
    rules: Rules = Rules(),
    *,
    max_plies: int = 40,
    slip_plies: dict[int, str] | None = None,
    hand_plies: tuple[int, ...] = (),
    greedy: int = 8,
    after_win: bool = True,
) -> list[Shot]:
    """The photos of one game after the start photo.

    ``slip_plies``: ply number -> slip kind (the slipped board is photographed,
    then the corrected board); ``hand_plies``: plies whose press shows a hand
    over the (correct) board, then the board without the hand.  The game is
    played until a win or ``max_plies``; with ``after_win`` two more photos
    follow a win: the same board again, and a board changed after the end.
    """
    rng = random.Random(seed)
    slip_plies = dict(slip_plies or {})
    pos = Position.start()
    shots: list[Shot] = []
    ply = 0
    while ply < max_plies and not status(pos, rules).over:
        ply += 1
        turn = _pick_turn(pos, rng, rules, greedy)
        after = apply_turn(pos, turn, rules)
        kind = slip_plies.get(ply)
        if kind is not None:
            board = _legal_free_slip(kind, pos, turn, after, rng, rules)
            if board is not None:
                shots.append(Shot(board, "rejected", kind, before=pos))
        if ply in hand_plies:
            shots.append(Shot(Placement.of(after), "unreadable", "hand", hand=True, before=pos))
        shots.append(Shot(Placement.of(after), "accepted", "turn", turn=str(turn), after=after, before=pos))
        pos = after
    if after_win and status(pos, rules).over:
        shots.append(Shot(Placement.of(pos), "unchanged", "after the win", before=pos))
        moved = _any_change(pos)
        shots.append(Shot(moved, "game-over", "after the win", before=pos))
    return shots


def _legal_free_slip(kind: str, before: Position, turn: Turn, after: Position, rng, rules: Rules) -> Placement | None:
    """A slipped board that the engine calls illegal (a slip that is a legal turn is skipped)."""
    if kind == CAPTURE_IGNORED:
        return _capture_ignored(before, rng, rules)
    for board in slip_boards(kind, before, turn, after, rng):
        if board != Placement.of(before) and not explain(before, board, rules).legal:
            return board
    return None


def _capture_ignored(before: Position, rng, rules: Rules) -> Placement | None:
    """Under must-capture, a turn legal in the original rules that does not capture although a capture exists."""
    from companion.rules.engine import capture_available

    if "must-capture" not in rules.options or capture_available(before, rules) is None:
        return None
    plain = Rules.from_names([o for o in rules.names() if o != "must-capture"])
    for _ in range(200):
        t = random_turn(before, rng, plain)
        if not any(m.capture for m in t.robot_moves):
            board = Placement.of(apply_turn(before, t, plain))
            if not explain(before, board, rules).legal:
                return board
    return None


def _any_change(pos: Position) -> Placement:
    """The final board with one robot slid to a free neighbouring square (play after the end)."""
    b = Placement.of(pos)
    occ = _occupied(b)
    for s in sorted(b.white | b.black):
        for df, dr in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            t = _sq(s % 6 + df, s // 6 + dr)
            if t is not None and t not in occ:
                return _move_robot(b, s, t)
    raise AssertionError("no free square next to any robot")  # pragma: no cover


def layout_of(board: Placement | Position):
    from vision.layout import BoardLayout

    return BoardLayout.from_sets(board.white, board.black, board.batteries)


def write_game(folder: Path, shots: list[Shot], *, seed: int, size=(800, 600), markers: bool = True,
               suffix: str = ".jpg", **degradations) -> tuple[list[Path], object]:
    """Render the start photo and every shot into ``folder`` (names in press order).

    Returns the paths and the pixel corners A1 G1 G7 A7 of the field in the start photo."""
    from vision.render import render

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    boards = [(Placement.of(Position.start()), False)] + [(s.board, s.hand) for s in shots]
    corners = None
    for i, (board, hand) in enumerate(boards):
        frame = render(layout_of(board), seed, size=size, frame=i, hand=hand, markers=markers, **degradations)
        if i == 0:
            corners = frame.corners_px
        path = folder / f"IMG_{i + 1}{suffix}"  # IMG_1 .. IMG_n: name order needs numeric sorting past 9
        ok, buf = cv2.imencode(suffix, frame.image, [cv2.IMWRITE_JPEG_QUALITY, 92] if suffix == ".jpg" else [])
        assert ok
        path.write_bytes(buf.tobytes())
        paths.append(path)
    return paths, corners


def corners_text(corners) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)
