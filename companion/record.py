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
``Start``. A turn line may end in the batteries' sides of R-23 (docs/rules.md),
``{note: <text>}`` (the note on the accepted turn) and ``{turn back: <points>}``
(the batteries left blank for the next player), kept in :attr:`GameText.sides`.
Lines starting with ``;`` are comments. :func:`parse_record` checks the
syntax of everything (positions, turn strings and points included) and names the
line of any error; it does not check that the turns are legal (``netzwerk audit``
and the rules engine do).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date as _date
from typing import Any, Iterable

from .rules.errors import NotationError
from .rules.geometry import POINT_NAMES
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
#: an annotation at the end of a turn line: ``{note: <text>}`` or ``{turn back: <points>}``
_ANNOTATION = re.compile(r"\s*\{(note|turn back): ((?:[^}\\]|\\.)*)\}")
NOTE, TURN_BACK = "note", "turn back"


class RecordError(ValueError):
    """A record that cannot be parsed or formatted; ``line`` is the 1-based line number (or None)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.line = line


@dataclass(frozen=True, slots=True)
class SidesNote:
    """R-23 on the accepted turn ``ply`` (docs/rules.md): ``note``, the note when the batteries
    turned blank cannot be the energy its moves used (None: no note), and ``turn_back``, the
    batteries (point names) left blank after it for the next player to turn back."""

    ply: int
    note: str | None = None
    turn_back: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameText:
    """The content of a record. ``turns`` are turn strings, first ply first;
    ``result`` is "white wins", "black wins", "abandoned" or "*" (not finished);
    ``sides``: the R-23 notes of the turns that have one, in ply order."""

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
    sides: tuple[SidesNote, ...] = ()

    @classmethod
    def from_game(cls, game) -> "GameText":
        """From a :class:`companion.referee.journal.GameRecord` (its turns in force, with the R-23
        notes of its ``sides`` events)."""
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
            sides=sides_of_game(game),
        )

    @property
    def rules_text(self) -> str:
        return " ".join(self.rules) if self.rules else "original"


def clean_note(note: Any) -> str | None:
    """A note as a record holds it: text on one line (line breaks become spaces, the ends
    trimmed), or None for anything else or nothing left."""
    if not isinstance(note, str):
        return None
    note = note.replace("\r", " ").replace("\n", " ").strip()
    return note or None


def clean_points(points: Any) -> tuple[str, ...]:
    """Point names as a record holds them: the valid ones (``C2``), each once, in the order given."""
    if not isinstance(points, (list, tuple)):
        return ()
    out: list[str] = []
    for p in points:
        if isinstance(p, str) and p in POINT_NAMES and p not in out:
            out.append(p)
    return tuple(out)


def sides_of_game(game) -> tuple[SidesNote, ...]:
    """The R-23 notes of a journalled game's turns in force: for each turn, the first ``sides``
    event of its ply written at or after it (a turn taken back keeps its own event, written
    before the turn now in force). Events the journal holds damaged or otherwise are left out."""
    notes: list[SidesNote] = []
    events = [e for e in game.events if e.kind == "sides"]
    for turn in game.turns:
        for e in events:
            detail = _detail(e)
            if detail is None or detail.get("ply") != turn.ply or isinstance(detail.get("ply"), bool) \
                    or not isinstance(e.at, str) or e.at < turn.at:
                continue
            note, back = clean_note(detail.get("note")), clean_points(detail.get("turn_back"))
            if note is not None or back:
                notes.append(SidesNote(turn.ply, note, back))
            break
    return tuple(notes)


def _detail(event) -> dict | None:
    try:
        detail = event.detail
    except (ValueError, RecursionError, TypeError):
        return None
    return detail if isinstance(detail, dict) else None


def _escape_note(note: str) -> str:
    return note.replace("\\", "\\\\").replace("}", "\\}")


def annotations(note: SidesNote | None) -> str:
    """The end of a turn line for R-23: `` {note: ...} {turn back: C2 D2}`` (empty without one)."""
    if note is None:
        return ""
    out = ""
    if note.note is not None:
        out += f" {{{NOTE}: {_escape_note(note.note)}}}"
    if note.turn_back:
        out += f" {{{TURN_BACK}: {' '.join(note.turn_back)}}}"
    return out


def parse_annotations(text: str, ply: int) -> SidesNote | None:
    """The R-23 annotations at the end of turn line ``ply`` (``text`` from the first ``{``), or
    None for none; :class:`ValueError` naming what is wrong."""
    note: str | None = None
    back: tuple[str, ...] | None = None
    pos = 0
    while pos < len(text.rstrip()):
        m = _ANNOTATION.match(text, pos)
        if not m:
            bad = text[pos:].strip()
            raise ValueError(f"bad annotation {bad[:40]!r}: expected {{note: <text>}} or {{turn back: <points>}}")
        key, value = m.group(1), m.group(2)
        if key == NOTE:
            if note is not None:
                raise ValueError("two notes on one turn")
            note = _unquote(value)
            if not note.strip():
                raise ValueError("an empty note")
        else:
            if back is not None:
                raise ValueError("two turn-back lists on one turn")
            names = value.split()
            for name in names:
                if name not in POINT_NAMES:
                    raise ValueError(f"bad point {name!r} in the batteries to turn back")
            if not names:
                raise ValueError("an empty list of batteries to turn back")
            if len(set(names)) != len(names):
                raise ValueError("a battery named twice in the batteries to turn back")
            back = tuple(names)
        pos = m.end()
    if note is None and back is None:
        return None
    return SidesNote(ply, note, back or ())


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
    notes = {n.ply: n for n in game.sides}
    for ply, turn in enumerate(game.turns, start=1):
        lines.append(f"{ply}. {side}: {check_turn_string(turn)}{annotations(notes.get(ply))}")
        side = "b" if side == "w" else "w"
    return "\n".join(lines) + "\n"


def parse_record(text: str) -> GameText:
    """Parse a record; a :class:`RecordError` names the line of anything wrong."""
    headers: dict[str, tuple[str, int]] = {}
    order: list[str] = []
    turns: list[str] = []
    sides: list[SidesNote] = []
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
        turn, brace, rest = turn.partition("{")
        if ply != expected_ply:
            raise RecordError(f"ply {ply} where ply {expected_ply} was expected", n)
        if line_side != side:
            raise RecordError(f"ply {ply} is {'White' if side == 'w' else 'Black'}'s turn, not {line_side!r}", n)
        try:
            turns.append(check_turn_string(turn))
        except NotationError as exc:
            raise RecordError(f"ply {ply}: {exc}", n) from None
        if brace:
            try:
                note = parse_annotations(brace + rest, ply)
            except ValueError as exc:
                raise RecordError(f"ply {ply}: {exc}", n) from None
            if note is not None:
                sides.append(note)
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
        sides=tuple(sides),
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
    _validate_sides(game.sides, len(game.turns))


def _validate_sides(sides: Iterable[SidesNote], turns: int) -> None:
    """What :func:`format_record` writes of R-23 must read back the same."""
    last = 0
    for s in sides:
        if not isinstance(s, SidesNote) or isinstance(s.ply, bool) or not isinstance(s.ply, int):
            raise RecordError(f"bad R-23 note {s!r}")
        if not last < s.ply <= turns:
            raise RecordError(f"R-23 note of ply {s.ply}: the notes go with turns 1 to {turns}, each once, in order")
        last = s.ply
        if s.note is not None:
            if not isinstance(s.note, str) or not s.note.strip() or "\n" in s.note or "\r" in s.note:
                raise RecordError(f"R-23 note of ply {s.ply}: a note is text on one line, not {s.note!r}")
        if not isinstance(s.turn_back, tuple) or any(p not in POINT_NAMES for p in s.turn_back) \
                or len(set(s.turn_back)) != len(s.turn_back):
            raise RecordError(f"R-23 note of ply {s.ply}: the batteries to turn back are points, each once, "
                              f"not {s.turn_back!r}")
        if s.note is None and not s.turn_back:
            raise RecordError(f"R-23 note of ply {s.ply} says nothing")
