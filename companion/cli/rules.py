"""Rules subcommands: ``apply``, ``explain``, ``outcomes``, ``status``, ``show``.

Exit codes: 0 done, 1 an illegal turn (the reason on stderr, or in the JSON),
2 bad input (a message naming what was wrong).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ..rules.engine import apply_turn, battery_phase_layouts, robot_phase_outcomes, status
from ..rules.masks import points_of, stacks_of
from ..rules.masks import bits as _bits
from ..rules.errors import IllegalTurn, NotationError
from ..rules.explain import explain
from ..rules.geometry import point_name, square_name
from ..rules.moves import Turn
from ..rules.position import Placement, Position, format_batteries, format_robots
from ..rules.options import OPTION_HELP, OPTIONS, Rules


def add_rules_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME",
        help="enable a rule option (repeatable): " + "; ".join(f"{k}: {v}" for k, v in OPTION_HELP.items()),
    )


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output (one JSON object)")


def rules_from(args: argparse.Namespace) -> Rules:
    return Rules.from_names(args.option)


def fail(message: str, code: int = 2) -> int:
    print(f"netzwerk: {message}", file=sys.stderr)
    return code


def emit_json(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False))


def _guard(fn):
    """Turn bad input into exit 2 with its message, never a traceback."""

    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except NotationError as exc:
            if getattr(args, "json", False):
                emit_json({"error": str(exc)})
            return fail(str(exc))

    return run


def _position_or_board(text: str) -> Position | Placement:
    """A position string, or failing its checks (13 batteries, 7 robots) a board
    whose syntax is right; a syntax error is reported as the position's."""
    try:
        return Position.from_string(text)
    except NotationError as strict_error:
        try:
            return Placement.from_string(text)
        except NotationError:
            raise strict_error from None


@_guard
def cmd_apply(args: argparse.Namespace) -> int:
    rules = rules_from(args)
    pos = Position.from_string(args.position)
    rules.check_position(pos)
    turn = Turn.parse(args.turn)
    try:
        after = apply_turn(pos, turn, rules)
    except IllegalTurn as exc:
        if args.json:
            emit_json({"legal": False, "reason": exc.reason, "turn": str(turn)})
        else:
            print(f"illegal: {exc.reason}", file=sys.stderr)
        return 1
    st = status(after, rules)
    if args.json:
        emit_json({"legal": True, "turn": str(turn), "position": str(after), "status": st.result, "reason": st.reason})
    else:
        print(after)
    return 0


@_guard
def cmd_explain(args: argparse.Namespace) -> int:
    rules = rules_from(args)
    before = Position.from_string(args.before)
    # the after board may be impossible (13 batteries): diagnose it rather than refuse it
    after = _position_or_board(args.after)
    ex = explain(before, after, rules)
    if args.json:
        emit_json(
            {
                "legal": ex.legal,
                "turn": str(ex.turn) if ex.turn else None,
                "diagnosis": ex.diagnosis,
                "problems": [
                    {"message": p.message, "squares": [square_name(s) for s in p.squares], "points": [point_name(q) for q in p.points]}
                    for p in ex.problems
                ],
            }
        )
    elif ex.legal:
        print(ex.turn)
    else:
        print(f"illegal: {ex.diagnosis}", file=sys.stderr)
    return 0 if ex.legal else 1


@_guard
def cmd_outcomes(args: argparse.Namespace) -> int:
    rules = rules_from(args)
    pos = Position.from_string(args.position)
    rules.check_position(pos)
    if args.phase == "robots":
        lines = sorted(format_robots(w, b) for w, b in robot_phase_outcomes(pos, rules))
    else:
        lines = sorted(
            format_batteries(frozenset(_bits(points_of(m))), stacks_of(m)) for m in battery_phase_layouts(pos, rules)
        )
    if args.json:
        emit_json({"phase": args.phase, "count": len(lines), **({} if args.count_only else {"outcomes": lines})})
        return 0
    out = [str(len(lines))]
    if not args.count_only:
        out.extend(lines)
    sys.stdout.write("\n".join(out) + "\n")
    return 0


@_guard
def cmd_status(args: argparse.Namespace) -> int:
    rules = rules_from(args)
    pos = Position.from_string(args.position)
    rules.check_position(pos)
    st = status(pos, rules)
    if args.json:
        emit_json({"status": st.result, "winner": str(st.winner) if st.winner else None, "reason": st.reason})
    else:
        print(st.result)
        print(st.reason)
    return 0


def _parse_marks(text: str | None) -> tuple[list[int], list[int]]:
    from ..rules.geometry import parse_point, parse_square

    squares, points = [], []
    for tok in (text or "").replace(",", " ").split():
        if tok[:1].islower():
            squares.append(parse_square(tok))
        else:
            points.append(parse_point(tok))
    return squares, points


@_guard
def cmd_show(args: argparse.Namespace) -> int:
    from fileio.atomic import atomic_write_bytes
    from fileio.images import encode_image
    from fileio.paths import FileRefused, writable_output

    from ..drawing import png_board, svg_board, terminal_board

    pos = Position.from_string(args.position)  # what status refuses, show refuses too, with its message
    squares, points = _parse_marks(args.mark)
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    outs = []
    try:
        if args.svg:
            outs.append((writable_output(args.svg, "--svg", suffixes=(".svg",)), "svg"))
        if args.png:
            outs.append((writable_output(args.png, "--png", suffixes=(".png",)), "png"))
    except FileRefused as exc:
        return fail(str(exc))
    print(terminal_board(pos, marks_squares=squares, marks_points=points, color=color))
    try:
        for path, kind in outs:
            if kind == "svg":
                data = svg_board(pos, marks_squares=squares, marks_points=points).encode("utf-8")
            else:
                data = encode_image(png_board(pos, marks_squares=squares, marks_points=points), ".png")
            try:
                atomic_write_bytes(path, data)
            except OSError as exc:
                return fail(f"cannot write {os.fsdecode(path)!r}: {exc.strerror or exc}")
    except FileRefused as exc:
        return fail(str(exc))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("apply", help="play a turn on a position and print the new position")
    p.add_argument("position", help="position string, e.g. 'BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w'")
    p.add_argument("turn", help="turn string, e.g. 'c1-c2 d1-d3 C2-C3 E2-E1'")
    add_rules_options(p)
    add_json(p)
    p.set_defaults(handler=cmd_apply)

    p = sub.add_parser("explain", help="find the legal turn that turns BEFORE into AFTER, or say why none exists")
    p.add_argument("before", help="position string before the turn")
    p.add_argument("after", help="position string after the turn (an impossible board is diagnosed)")
    add_rules_options(p)
    add_json(p)
    p.set_defaults(handler=cmd_explain)

    p = sub.add_parser("outcomes", help="the distinct placements after a legal robot phase or battery phase (R-16)")
    p.add_argument("position", help="position string")
    p.add_argument("--phase", choices=("robots", "batteries"), default="robots", help="which phase (default: robots)")
    p.add_argument("--count-only", action="store_true", help="print the count only")
    add_rules_options(p)
    add_json(p)
    p.set_defaults(handler=cmd_outcomes)

    p = sub.add_parser("status", help="ongoing, white wins or black wins, and why")
    p.add_argument("position", help="position string")
    add_rules_options(p)
    add_json(p)
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("show", help="draw the board in the terminal (and as SVG/PNG)")
    p.add_argument("position", help="position string")
    p.add_argument("--svg", metavar="FILE", help="also write an SVG picture")
    p.add_argument("--png", metavar="FILE", help="also write a PNG picture")
    p.add_argument("--mark", metavar="FIELDS", help="highlight squares/points, e.g. 'c3 D4'")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="ANSI highlighting")
    p.set_defaults(handler=cmd_show)


__all__ = ["register", "add_rules_options", "rules_from", "OPTIONS"]
