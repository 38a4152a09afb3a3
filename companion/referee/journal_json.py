"""The journal's games as JSON (``netzwerk games ... --json`` and the web page), and a game id read from text."""

from __future__ import annotations

import json

from .journal import MAX_GAME_ID, GameRecord, GameSummary, TurnRecord


def parse_game_id(text: str) -> int:
    """A game id from text; ValueError naming what is wrong with it."""
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"bad game id {text!r}: expected a number (see `netzwerk games list`)") from None
    if value < 1:
        raise ValueError(f"bad game id {text!r}: game ids start at 1")
    if value > MAX_GAME_ID:
        raise ValueError(f"bad game id {text!r}: game ids go up to {MAX_GAME_ID}")
    return value


def rules_text(rules: tuple[str, ...]) -> str:
    return " ".join(rules) if rules else "original"


def _heading(g: GameSummary | GameRecord) -> dict:
    """The fields a game's line in the list and the whole game share, in their order."""
    return {"id": g.id, "started": g.started_at, "ended": g.ended_at, "white": g.white, "black": g.black,
            "rules": list(g.rules)}


def _outcome(g: GameSummary | GameRecord) -> dict:
    return {"status": g.status, "result": g.result, "reason": g.reason}


def summary_json(g: GameSummary) -> dict:
    return {**_heading(g), **_outcome(g), "turns": g.turns, "rejections": g.rejections, "damaged": g.damaged,
            "demo": g.demo}


def game_json(g: GameRecord) -> dict:
    return {
        **_heading(g),
        "start": g.start_position,
        **_outcome(g),
        "position": g.position,
        "demo": g.demo,
        "turns": [turn_json(t) for t in g.turns],
        "taken_back": [turn_json(t) for t in g.history if not t.in_force],
        "rejections": [
            {"ply": r.ply, "at": r.at, "verdict": r.verdict, "diagnosis": r.diagnosis, "after": r.after}
            for r in g.rejections
        ],
        "events": [{"at": e.at, "kind": e.kind, "detail": stored_json(e.detail_json)} for e in g.events],
    }


def stored_json(text: str | None) -> object:
    """A JSON column as its value; a damaged one as its text (shown, not lost)."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return {"damaged": text}


def turn_json(t: TurnRecord) -> dict:
    return {
        "ply": t.ply,
        "before": t.before,
        "after": t.after,
        "turn": t.turn,
        "at": t.at,
        "confidences": stored_json(t.confidences_json),
        "undone_at": t.undone_at,
    }
