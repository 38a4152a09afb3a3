"""The JSON of the game for the page and for other tools (``GET /api/state``; docs/readme-web.md).

Built in the web server's thread from a :class:`companion.referee.view.GameView`
(strings and tuples the loop handed over): the board's SVG, the energy of the
mover's robots and the names of squares are worked out here, never in the loop.
"""

from __future__ import annotations

from typing import Any, Callable

from ..drawing import svg_board
from ..referee.view import GameView, VerdictView
from ..rules.energy import sources_by_square
from ..rules.geometry import point_name, square_name
from ..rules.masks import layered, mask_of
from ..rules.options import Rules
from ..rules.position import Position


Scrub = Callable[[str], str]


def _as_is(text: str) -> str:
    return text


def verdict_json(verdict: VerdictView | None, scrub: Scrub = _as_is) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {
        "kind": verdict.kind,
        "diagnosis": scrub(verdict.text),
        "ply": verdict.ply,
        "turn": verdict.turn,
        "squares": [square_name(s) for s in verdict.squares],
        "points": [point_name(p) for p in verdict.points],
        "note": scrub(verdict.note) if verdict.note is not None else None,
    }


def robot_energy(position: Position, rules: Rules) -> list[dict[str, Any]]:
    """Each robot of the side to move with the energy it may draw this turn (the batteries on its corners
    it may use, every battery of a stack one: R-10, R-21)."""
    own = mask_of(position.robots(position.to_move))
    enemy = mask_of(position.robots(position.to_move.other))
    sources = sources_by_square(own, enemy, layered(position.batteries, position.stacks), rules)
    return [{"square": square_name(s), "energy": sources[s].bit_count()} for s in sorted(position.robots(position.to_move))]


def turn_list(view: GameView) -> list[dict[str, Any]]:
    side = Position.from_string(view.start).to_move
    out = []
    for i, turn in enumerate(view.turns):
        out.append({"ply": i + 1, "side": side.name.lower(), "turn": turn})
        side = side.other
    return out


def state_json(view: GameView, scrub: Scrub = _as_is) -> dict[str, Any]:
    """The game as ``GET /api/state`` and the live updates give it. ``scrub``: the loop's texts (log lines, the
    verdict, the status) without the server's paths (:class:`companion.web.privacy.Scrubber`)."""
    position = Position.from_string(view.position)
    rules = Rules.from_names(view.options)
    verdict = verdict_json(view.last_verdict, scrub)
    marks_s = view.last_verdict.squares if view.last_verdict is not None else ()
    marks_p = view.last_verdict.points if view.last_verdict is not None else ()
    over = view.result is not None
    winner = view.result.split()[0] if over else None
    return {
        "seq": view.seq,
        "game_id": view.game_id,
        "phase": view.phase,
        "step": view.step,
        "position": view.position,
        "ply": len(view.turns),
        "to_move": None if over else position.to_move.name.lower(),
        "options": list(view.options),
        "starting_side": view.starting_side,
        "last_verdict": verdict,
        "result": winner,
        "result_text": view.result,
        "reason": scrub(view.reason) if view.reason is not None else None,
        "energy": [] if over else robot_energy(position, rules),
        "turns": turn_list(view),
        "blank": [point_name(p) for p in view.blank],
        "status": scrub(view.status),
        "log": [{"kind": e.kind, "text": scrub(e.text), "ply": e.ply} for e in view.recent],
        "board_svg": svg_board(position, marks_squares=marks_s, marks_points=marks_p, blank_points=view.blank),
    }
