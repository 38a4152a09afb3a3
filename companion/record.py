"""The game record: a PGN-like text export of one game (``netzwerk games export``).

Format (documented with an example in ``docs/record-format.md``)::

    [Event "Netzwerk game 3"]
    [Date "2026-11-23"]
    [White "Anna"]
    [Black "Ben"]
    [Rules "original"]
    [Start "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"]
    [Result "white wins"]
    [Termination "target row"]

    1. w: c1-c3 C2-C3
    2. b: d6-d5

Header lines ``[Key "value"]`` (the eight above always, in this order, then any
extra ones), one blank line, then one turn per line: ``<ply>. <side>: <turn string>``
with plies numbered from 1 and sides alternating from the side to move in
``Start``. Lines starting with ``;`` are comments. :func:`parse_record` checks the
syntax of everything (positions and turn strings included) and names the line of
any error; it does not check that the turns are legal (``netzwerk audit`` and the
rules engine do).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date as _date

from .rules.errors import NotationError
from .rules.options import Rules
from .rules.position import START_STRING, Position
from .rules.options import OPTIONS as KNOWN_RULE_OPTIONS  # docs/rules.md, section 4: the engine's list

RESULTS = ("white wins", "black wins", "abandoned", "*")
REQUIRED_HEADERS = ("Event", "Date", "White", "Black", "Rules", "Start", "Result", "Termination")
UNKNOWN = "?"

_HEADER = re.compile(r'^\[([A-Za-z][A-Za-z0-9_-]*) "((?:[^"\\]|\\.)*)"\]$')
_TURN_LINE = re.compile(r"^(\d+)\.\s+([wb]):\s*(.*)$")
_ROBOT_MOVE = re.compile(r"^[a-f][1-6][-x][a-f][1-6]$")
_BATTERY_MOVE = re.compile(r"^[A-G][1-7]-[A-G][1-7]$")
_DATE = re.compile(r"^(\d{4}|\?\?\?\?)-(\d{2}|\?\?)-(\d{2}|\?\?)$")


class RecordError(ValueError):
    """A record that cannot be parsed or formatted; ``line`` is the 1-based line number (or None)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.line = line


@dataclass(frozen=True, slots=True)
class GameText:
    """The content of a record. ``turns`` are turn strings, first ply first;
    ``result`` is "white wins", "black wins", "abandoned" or "*" (not finished)."""

    turns: tuple[str, ...] = ()
    start: str = START_STRING
    rules: tuple[str, ...] = ()
    result: str = "*"
    termination: str = ""
    event: str = "Netzwerk game"
    date: str = UNKNOWN
    white: str = UNKNOWN
    black: str = UNKNOWN
    extra: tuple[tuple[str, str], ...] = field(default=())

    @classmethod
    def from_game(cls, game) -> "GameText":
        """From a :class:`companion.referee.journal.GameRecord` (its turns in force)."""
        return cls(
            turns=tuple(t.turn for t in game.turns),
            start=game.start_position,
            rules=tuple(game.rules),
            result=game.result if game.result else "*",
            termination=game.reason or "",
            event=f"Netzwerk game {game.id}",
            date=game.started_at[:10],
            white=game.white or UNKNOWN,
            black=game.black or UNKNOWN,
        )

    @property
    def rules_text(self) -> str:
        return " ".join(self.rules) if self.rules else "original"


def check_turn_string(turn: str) -> str:
    """The canonical (single-spaced) turn string, or NotationError naming the bad token.

    Syntax only (docs/rules.md, section 5): robot moves ``c1-c3``/``d4xd5`` first, at least
    one, then battery moves ``C2-C4``.
    """
    tokens = turn.split()
    if not tokens:
        raise NotationError("empty turn: a turn needs at least one robot move")
    seen_battery = False
    for index, tok in enumerate(tokens):
        if _ROBOT_MOVE.match(tok):
            if seen_battery:
                raise NotationError(f"robot move {tok!r} after a battery move")
        elif _BATTERY_MOVE.match(tok):
            if index == 0:
                raise NotationError(f"battery move {tok!r} with no robot move before it")
            seen_battery = True
        else:
            raise NotationError(f"bad move {tok!r}: expected a robot move like c1-c3 or d4xd5, or a battery move like C2-C4")
    return " ".join(tokens)


def _quote(value: str, key: str) -> str:
    if "\n" in value or "\r" in value:
        raise RecordError(f"header {key} cannot hold a line break: {value!r}")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unquote(raw: str) -> str:
    return re.sub(r"\\(.)", r"\1", raw)


def _side(position: str) -> str:
    return position.split()[-1]


def format_record(game: GameText) -> str:
    """The record text of ``game`` (ends with a newline). Checks what it writes."""
    _validate(game, line_of=lambda key: None)
    headers = [
        ("Event", game.event),
        ("Date", game.date),
        ("White", game.white),
        ("Black", game.black),
        ("Rules", game.rules_text),
        ("Start", Position.from_string(game.start).to_string()),
        ("Result", game.result),
        ("Termination", game.termination),
        *game.extra,
    ]
    lines = [f"[{k} {_quote(v, k)}]" for k, v in headers]
    lines.append("")
    side = _side(Position.from_string(game.start).to_string())
    for ply, turn in enumerate(game.turns, start=1):
        lines.append(f"{ply}. {side}: {check_turn_string(turn)}")
        side = "b" if side == "w" else "w"
    return "\n".join(lines) + "\n"


def parse_record(text: str) -> GameText:
    """Parse a record; a :class:`RecordError` names the line of anything wrong."""
    headers: dict[str, tuple[str, int]] = {}
    order: list[str] = []
    turns: list[str] = []
    # Only "\n" ends a line (a name may hold U+2028 or the like); "\r\n" is accepted.
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    # Header section.
    while i < len(lines):
        line = lines[i].strip()
        n = i + 1
        if not line:
            if headers:
                i += 1
                break
            i += 1
            continue
        if line.startswith(";"):
            i += 1
            continue
        if not line.startswith("["):
            break
        m = _HEADER.match(line)
        if not m:
            raise RecordError(f'bad header line {line!r}: expected [Key "value"]', n)
        key, value = m.group(1), _unquote(m.group(2))
        if key in headers:
            raise RecordError(f"header {key} given twice (first on line {headers[key][1]})", n)
        headers[key] = (value, n)
        order.append(key)
        i += 1
    missing = [k for k in REQUIRED_HEADERS if k not in headers]
    if missing:
        raise RecordError(f"missing header(s): {', '.join(missing)}", min(i + 1, max(len(lines), 1)))

    def line_of(key: str) -> int:
        return headers[key][1]

    start_value, start_line = headers["Start"]
    try:
        side = _side(Position.from_string(start_value).to_string())
    except NotationError as exc:
        raise RecordError(f"header Start: {exc}", start_line) from None
    expected_ply = 1
    # Turn section.
    for j in range(i, len(lines)):
        n = j + 1
        line = lines[j].strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith("["):
            raise RecordError("header line after the turns: headers come first, then one blank line", n)
        m = _TURN_LINE.match(line)
        if not m:
            raise RecordError(f"bad turn line {line!r}: expected '<ply>. <w|b>: <turn>'", n)
        ply, line_side, turn = int(m.group(1)), m.group(2), m.group(3)
        if ply != expected_ply:
            raise RecordError(f"ply {ply} where ply {expected_ply} was expected", n)
        if line_side != side:
            raise RecordError(f"ply {ply} is {'White' if side == 'w' else 'Black'}'s turn, not {line_side!r}", n)
        try:
            turns.append(check_turn_string(turn))
        except NotationError as exc:
            raise RecordError(f"ply {ply}: {exc}", n) from None
        expected_ply += 1
        side = "b" if side == "w" else "w"

    rules_value = headers["Rules"][0]
    rules = () if rules_value.strip() == "original" else tuple(rules_value.split())
    game = GameText(
        turns=tuple(turns),
        start=Position.from_string(start_value).to_string(),
        rules=rules,
        result=headers["Result"][0],
        termination=headers["Termination"][0],
        event=headers["Event"][0],
        date=headers["Date"][0],
        white=headers["White"][0],
        black=headers["Black"][0],
        extra=tuple((k, headers[k][0]) for k in order if k not in REQUIRED_HEADERS),
    )
    _validate(game, line_of=line_of)
    return game


def _validate(game: GameText, line_of) -> None:
    def fail(key: str, message: str) -> None:
        raise RecordError(f"header {key}: {message}", line_of(key))

    if game.result not in RESULTS:
        fail("Result", f"bad result {game.result!r}: expected one of {', '.join(repr(r) for r in RESULTS)}")
    for opt in game.rules:
        if opt not in KNOWN_RULE_OPTIONS:
            fail("Rules", f"unknown rule option {opt!r}: known options are {', '.join(KNOWN_RULE_OPTIONS)} (or 'original')")
    if len(set(game.rules)) != len(game.rules):
        fail("Rules", "a rule option is named twice")
    m = _DATE.match(game.date)
    if game.date != UNKNOWN and not m:
        fail("Date", f"bad date {game.date!r}: expected YYYY-MM-DD (or '?')")
    if m and "?" not in game.date:
        try:
            _date.fromisoformat(game.date)
        except ValueError:
            fail("Date", f"bad date {game.date!r}: no such day")
    try:
        # a start holding a stack needs the option stacking among the record's Rules
        Rules.from_names(game.rules).check_position(Position.from_string(game.start))
    except NotationError as exc:
        fail("Start", str(exc))
    for key, value in game.extra:
        if key in REQUIRED_HEADERS or not re.match(r"^[A-Za-z][A-Za-z0-9_-]*$", key):
            raise RecordError(f"bad extra header name {key!r}")
