"""Hint subcommands: ``hint`` (the search's best turn) and ``arena`` (engines play each other).

Exit codes: 0 done, 1 no hint because the game is over (R-6), 2 bad input.
"""

from __future__ import annotations

import argparse
import sys

from .rules import add_json, add_rules_options, emit_json, fail
from ..rules.errors import NotationError
from ..rules.geometry import point_name, square_name
from ..hints import DEFAULT_BUDGET, GameOver, hint
from ..hints.arena import DEFAULT_MAX_TURNS, ENGINES, GameResult, run_arena
from ..rules.position import Position
from ..rules.options import Rules

MAX_BUDGET = 3600.0


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--time {text!r} is not a number of seconds") from None
    if not (v > 0 and v <= MAX_BUDGET):
        raise argparse.ArgumentTypeError(f"--time {text!r} must be more than 0 and at most {MAX_BUDGET:g} seconds")
    return v


def _positive(name: str, upper: int):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} {text!r} is not a whole number") from None
        if not 1 <= v <= upper:
            raise argparse.ArgumentTypeError(f"{name} {text!r} must be between 1 and {upper}")
        return v

    return parse


def _engine(text: str) -> str:
    if text not in ENGINES:
        raise argparse.ArgumentTypeError(f"unknown engine {text!r}: expected one of {', '.join(ENGINES)}")
    return text


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "hint",
        help="the best turn for the side to move, its value and why",
        description="Search the position for the side to move and print the suggested turn "
        "(robot moves, then battery moves), its value and a one-line reason. "
        "Nothing is changed: a hint is a pure function of the position.",
    )
    p.add_argument("position", metavar="POSITION", help="position string, e.g. 'BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w'")
    p.add_argument("--time", type=_seconds, default=DEFAULT_BUDGET, metavar="S", help=f"search budget in seconds (default {DEFAULT_BUDGET:g})")
    p.add_argument(
        "--nodes",
        type=_positive("--nodes", 10**9),
        default=None,
        metavar="N",
        help="also stop the search after about N board evaluations (the same turn on any machine; "
        "give a large --time with it)",
    )
    add_rules_options(p)
    add_json(p)
    p.set_defaults(handler=cmd_hint)

    a = sub.add_parser(
        "arena",
        help="play engines against each other and score them with a 95%% confidence interval",
        description="Play GAMES games between two engines (random, greedy, search), alternating colours "
        "(the --white engine has White in the first game), from the start position and a seeded set of "
        "openings. A game still open at the move cap, or at the third repetition of a position, is a draw. "
        "Prints the first engine's score with its 95%% Wilson confidence interval.",
    )
    a.add_argument("--white", type=_engine, required=True, metavar="ENGINE", help="engine with White in game 1: " + ", ".join(ENGINES))
    a.add_argument("--black", type=_engine, required=True, metavar="ENGINE", help="engine with Black in game 1")
    a.add_argument("--games", type=_positive("--games", 100000), required=True, metavar="N", help="number of games")
    a.add_argument("--time", type=_seconds, default=DEFAULT_BUDGET, metavar="S", help=f"search engine's budget per turn (default {DEFAULT_BUDGET:g})")
    a.add_argument(
        "--nodes",
        type=_positive("--nodes", 10**9),
        default=None,
        metavar="N",
        help="also stop each search after about N board evaluations (a budget independent of CPU load; "
        "give a large --time with it)",
    )
    a.add_argument("--seed", type=int, default=1, metavar="N", help="seed for the openings and the random engine (default 1)")
    a.add_argument("--max-turns", type=_positive("--max-turns", 100000), default=DEFAULT_MAX_TURNS, metavar="N", help=f"move cap in turns, both sides together (default {DEFAULT_MAX_TURNS})")
    a.add_argument("--jobs", type=_positive("--jobs", 64), default=1, metavar="J", help="games played in parallel (default 1)")
    a.add_argument("--verbose", action="store_true", help="print one line per finished game")
    add_rules_options(a)
    add_json(a)
    a.set_defaults(handler=cmd_arena)


def _rules(args: argparse.Namespace) -> Rules:
    return Rules.from_names(args.option)


def cmd_hint(args: argparse.Namespace) -> int:
    try:
        rules = _rules(args)
        pos = Position.from_string(args.position)
        rules.check_position(pos)
    except NotationError as exc:
        if args.json:
            emit_json({"error": str(exc)})
        return fail(str(exc))
    try:
        h = hint(pos, rules, budget=args.time, nodes=args.nodes)
    except GameOver as exc:
        if args.json:
            emit_json({"error": str(exc), "over": True})
        else:
            print(f"no hint: {exc}", file=sys.stderr)
        return 1
    if args.json:
        emit_json(
            {
                "turn": str(h.turn),
                "robot_moves": [
                    {"from": square_name(m.src), "to": square_name(m.dst), "capture": m.capture} for m in h.turn.robot_moves
                ],
                "battery_moves": [{"from": point_name(m.src), "to": point_name(m.dst)} for m in h.turn.battery_moves],
                "value": h.value if h.outcome is None else None,
                "outcome": h.outcome,
                "expected": round(h.expected, 4),
                "reason": h.reason,
                "depth": h.depth,
                "nodes": h.nodes,
                "seconds": round(h.elapsed, 3),
                "side": str(pos.to_move),
                "rules": rules.name,
                "fallback": h.fallback,
            }
        )
    else:
        print(h.turn)
        print(f"value {h.value_text()} for {pos.to_move.label} (expected score {h.expected:.2f})")
        print(f"reason: {h.reason}")
        print(f"searched {h.depth} turn{'s' if h.depth != 1 else ''} deep, {h.nodes:,} nodes in {h.elapsed:.2f} s")
    return 0


def cmd_arena(args: argparse.Namespace) -> int:
    try:
        rules = _rules(args)
    except NotationError as exc:
        if args.json:
            emit_json({"error": str(exc)})
        return fail(str(exc))

    def progress(g: GameResult) -> None:
        if args.verbose and not args.json:
            first_color = "White" if g.first_is_white else "Black"
            result = "draw" if g.winner is None else f"{g.winner} wins"
            print(f"game {g.index + 1}: {args.white} as {first_color}: {result} after {g.turns} turns ({g.reason})", flush=True)
            print(f"  from {g.opening}: {' | '.join(g.turns_played)}", flush=True)

    res = run_arena(
        args.white,
        args.black,
        args.games,
        rules=rules,
        budget=args.time,
        seed=args.seed,
        max_turns=args.max_turns,
        jobs=args.jobs,
        nodes=args.nodes,
        progress=progress,
    )
    lo, hi = res.interval
    if args.json:
        emit_json(
            {
                "first": res.first,
                "second": res.second,
                "games": res.n,
                "wins": res.wins,
                "draws": res.draws,
                "losses": res.losses,
                "score": res.score,
                "fraction": round(res.fraction, 4),
                "ci95": [round(lo, 4), round(hi, 4)],
                "time": args.time,
                "seed": args.seed,
                "nodes": args.nodes,
                "rules": rules.name,
            }
        )
    else:
        print(res.summary())
    return 0
