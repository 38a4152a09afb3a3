"""The one-line reason shown with a hint ("wins now", "captures d4", ...)."""

from __future__ import annotations

from ..rules.engine import status
from ..rules.geometry import square_name
from ..rules.masks import CORNER_MASK, mask_of
from ..rules.moves import Turn
from ..rules.position import Position
from ..rules.options import Rules
from .board import WIN


def _energy(sq: int, bats: int) -> int:
    return (CORNER_MASK[sq] & bats).bit_count()


def _names(squares) -> str:
    names = [square_name(s) for s in sorted(squares)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def reason_for(before: Position, turn: Turn, after: Position, rules: Rules, value: float) -> str:
    """Describe what ``turn`` achieves, most important first (at most two facts)."""
    me = before.to_move
    them = me.other
    st = status(after, rules)
    if st.winner is me:
        return f"wins now ({st.reason})"
    facts: list[str] = []
    captured = [m.dst for m in turn.robot_moves if m.capture]
    if captured:
        facts.append(f"captures {_names(captured)}")
    b0, b1 = mask_of(before.batteries), mask_of(after.batteries)
    starved = [s for s in after.robots(them) if _energy(s, b0) > 0 and _energy(s, b1) == 0]
    if starved:
        word = "robot" if len(starved) == 1 else "robots"
        facts.append(f"cuts {them.label}'s {word} {_names(starved)} off from energy")
    arrived = [m.dst for m in turn.robot_moves if m.dst // 6 == me.target_rank and m.src // 6 != me.target_rank]
    if arrived and len(facts) < 2:
        facts.append(f"brings {_names(arrived)} to the target row")
    fed = [s for s in after.robots(me) if _energy(s, b1) > _energy(s, b0)]
    if fed and len(facts) < 2 and turn.battery_moves:
        facts.append(f"feeds {_names(fed)} with energy")
    if not facts:
        m = turn.robot_moves[0]
        forward = m.src % 6 == m.dst % 6
        verb = "advances" if forward else "moves"
        facts.append(f"{verb} {square_name(m.src)} to {square_name(m.dst)}")
    text = "; ".join(facts[:2])
    if value >= WIN:
        text += " (a forced win)"
    elif value <= -WIN:
        text += " (every turn seen loses; this one resists longest)"
    return text
