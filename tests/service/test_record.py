"""The game record text format: round trip, the documented example, errors naming the line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.referee.journal import Journal
from companion.rules.position import START_STRING
from companion.record import (
    KNOWN_RULE_OPTIONS,
    GameText,
    RecordError,
    SidesNote,
    check_turn_string,
    format_record,
    parse_record,
)
from companion.rules.errors import NotationError
from companion.rules.geometry import POINT_NAMES

DOC = Path(__file__).resolve().parents[2] / "docs" / "record-format.md"

files = st.sampled_from("abcdef")
ranks = st.sampled_from("123456")
cols = st.sampled_from("ABCDEFG")
rows = st.sampled_from("1234567")
robot_move = st.builds(lambda f1, r1, s, f2, r2: f"{f1}{r1}{s}{f2}{r2}", files, ranks, st.sampled_from("-x"), files, ranks)
battery_move = st.builds(lambda c1, r1, c2, r2: f"{c1}{r1}-{c2}{r2}", cols, rows, cols, rows)
turn = st.builds(
    lambda r, b: " ".join(r + b), st.lists(robot_move, min_size=1, max_size=4), st.lists(battery_move, max_size=4)
)
text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20)
# R-23 notes: any text on one line (braces and backslashes included) that is not blank
note_text = st.text(st.sampled_from(list("ab }{\\→()C2:;.,") + ["\u00e9", "\u2028", "\t"]), min_size=1, max_size=30).filter(
    lambda t: t.strip() != "")
point_lists = st.lists(st.sampled_from(POINT_NAMES), unique=True, max_size=4).map(tuple)


@st.composite
def sides_notes(draw, turns: int) -> tuple[SidesNote, ...]:
    plies = sorted(draw(st.sets(st.integers(1, turns), max_size=turns)) if turns else [])
    out = []
    for ply in plies:
        note = draw(st.none() | note_text)
        back = draw(point_lists)
        if note is None and not back:
            back = ("C2",)
        out.append(SidesNote(ply, note, back))
    return tuple(out)


@st.composite
def games(draw) -> GameText:
    turns = tuple(draw(st.lists(turn, max_size=12)))
    return GameText(
        turns=turns,
        start=draw(st.sampled_from([START_STRING, START_STRING[:-1] + "b"])),
        rules=tuple(draw(st.lists(st.sampled_from(KNOWN_RULE_OPTIONS), unique=True, max_size=3))),
        result=draw(st.sampled_from(["white wins", "black wins", "abandoned", "*"])),
        termination=draw(text),
        event=draw(text),
        date=draw(st.sampled_from(["?", "2026-11-23", "2026-??-??"])),
        white=draw(text),
        black=draw(text),
        extra=tuple(draw(st.lists(st.tuples(st.sampled_from(["Site", "Round", "X-Frames"]), text), max_size=2, unique_by=lambda kv: kv[0]))),
        sides=draw(sides_notes(len(turns))),
    )


@settings(max_examples=150, deadline=None)
@given(games())
def test_round_trip(game: GameText) -> None:
    assert parse_record(format_record(game)) == game


def test_the_documented_example_parses_and_is_reproduced() -> None:
    example = re.search(r"## Example\n\n```\n(.*?)```", DOC.read_text(), re.S).group(1)
    game = parse_record(example)
    assert game.white == "Anna" and game.rules == ("must-capture",) and game.result == "white wins"
    assert game.turns == ("c1-c3 C2-C3", "d6-d5 D6-D5", "c3xc4", "a6-a5 b6-b5")
    assert format_record(game) == "\n".join(l for l in example.splitlines() if not l.startswith(";")) + "\n"


def test_odd_characters_in_values_survive() -> None:
    game = GameText(white='A "quoted" \\ name\u2028x', black="\u00e9\u0085", termination="  spaced  ")
    assert parse_record(format_record(game)) == game
    assert parse_record(format_record(game).replace("\n", "\r\n")) == game


def test_sides_and_plies_follow_the_start_position() -> None:
    game = GameText(turns=("d6-d5", "c1-c2"), start=START_STRING[:-1] + "b")
    lines = format_record(game).splitlines()
    assert lines[-2:] == ["1. b: d6-d5", "2. w: c1-c2"]


def test_from_a_journalled_game(tmp_path: Path) -> None:
    after = "BBBBBB/6/6/6/W5/1WWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b"
    with Journal(tmp_path / "j.sqlite") as j:
        gid = j.new_game(["jump-enemies"], START_STRING, players=("Anna", None))
        j.record_turn(gid, START_STRING, after, "a1-a2", at="2026-11-23T09:00:00+00:00")
        j.finish_game(gid, "white wins", "target row")
        g = j.game(gid)
    rec = GameText.from_game(g)
    assert rec == parse_record(format_record(rec))
    assert (rec.event, rec.white, rec.black, rec.rules, rec.turns) == (f"Netzwerk game {gid}", "Anna", "?", ("jump-enemies",), ("a1-a2",))
    assert rec.result == "white wins" and rec.termination == "target row"


GOOD = format_record(
    GameText(turns=("c1-c3 C2-C3", "d6-d5"), rules=("must-capture",), result="white wins", termination="target row", date="2026-11-23")
)


def broken(line_no: int, new: str) -> str:
    lines = GOOD.splitlines()
    lines[line_no - 1] = new
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (broken(2, "[Date 2026-11-23]"), 2, "bad header line"),
        (broken(3, '[Event "again"]'), 3, "given twice (first on line 1)"),
        (broken(5, '[Rules "must-capture sudden-death"]'), 5, "unknown rule option 'sudden-death'"),
        (broken(6, '[Start "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 x"]'), 6, "bad side"),
        (broken(7, '[Result "draw"]'), 7, "bad result 'draw'"),
        (broken(2, '[Date "2026-02-30"]'), 2, "no such day"),
        (broken(10, "1. w: c1-c3 c2-c3x"), 10, "'c2-c3x'"),
        (broken(10, "1. w: C2-C3"), 10, "battery move 'C2-C3' with no robot move"),
        (broken(10, "1. w: c1-c2 C2-C3 d1-d2"), 10, "robot move 'd1-d2' after a battery move"),
        (broken(10, "1. w: c1-c7"), 10, "'c1-c7'"),
        (broken(11, "3. b: d6-d5"), 11, "ply 3 where ply 2 was expected"),
        (broken(11, "2. w: d6-d5"), 11, "Black's turn"),
        (broken(11, "2 b d6-d5"), 11, "bad turn line"),
        (GOOD + '[Site "x"]\n', 12, "header line after the turns"),
        ("\n".join(GOOD.splitlines()[1:]), 9, "missing header(s): Event"),
    ],
)
def test_errors_name_the_line(text: str, line: int, words: str) -> None:
    with pytest.raises(RecordError) as exc:
        parse_record(text)
    assert exc.value.line == line
    assert str(exc.value).startswith(f"line {line}: ")
    assert words in str(exc.value)


def test_format_refuses_what_it_could_not_read_back() -> None:
    with pytest.raises(RecordError, match="line break"):
        format_record(GameText(white="An\nna"))
    with pytest.raises(RecordError, match="bad result"):
        format_record(GameText(result="1-0"))
    with pytest.raises(NotationError, match="empty turn"):
        format_record(GameText(turns=("",)))
    with pytest.raises(RecordError, match="unknown rule option"):
        format_record(GameText(rules=("must_capture",)))


def test_turn_strings_are_canonicalised() -> None:
    assert check_turn_string("  c1-c3   C2-C3 ") == "c1-c3 C2-C3"
    with pytest.raises(NotationError, match="'C2xC3'"):
        check_turn_string("c1-c3 C2xC3")


def test_R19_a_start_holding_a_stack_needs_stacking_in_the_rules() -> None:
    stacked = "BBBBBB/6/6/6/6/WWWWWW 7/xyxxxx1/7/7/7/xxxzx2/7 w"
    text = format_record(GameText(rules=("stacking",), start=stacked))
    assert parse_record(text).start == stacked
    with pytest.raises(RecordError, match=r"header Start: .*stacks need the option stacking \(R-19\)"):
        parse_record(format_record(GameText(rules=("stacking",), start=stacked)).replace('[Rules "stacking"]', '[Rules "original"]'))


# -- the batteries' sides (R-23) ----------------------------------------------------------------


def test_the_documented_R23_example_parses_and_is_reproduced() -> None:
    example = re.search(r"## The batteries' sides \(R-23\).*?```\n(.*?)```", DOC.read_text(), re.S).group(1)
    game = parse_record(example)
    assert game.turns == ("c1-c3", "c6-c5", "d1-d2")
    assert game.sides == (SidesNote(1, None, ("C2", "D2")),
                          SidesNote(2, "A2 is turned but no moved robot stands beside it", ("A2", "C6")))
    assert format_record(game) == example


def test_R23_notes_with_braces_and_backslashes_round_trip() -> None:
    note = "c1→c3 used 2 energy {sic} but \\ only 1 } was turned (C2): turn each battery\u2028back "
    game = GameText(turns=("c1-c3", "c6-c5"), sides=(SidesNote(1, note, ()), SidesNote(2, None, ("G7", "A1"))))
    text = format_record(game)
    lines = text.split("\n")  # only "\n" ends a line: the note's U+2028 does not
    assert lines[-3] == "1. w: c1-c3 {note: c1→c3 used 2 energy {sic\\} but \\\\ only 1 \\} was turned (C2): turn each battery\u2028back }"
    assert lines[-2] == "2. b: c6-c5 {turn back: G7 A1}" and lines[-1] == ""
    assert parse_record(text) == game
    lenient = text.replace("2. b: c6-c5 {turn back: G7 A1}", "2. b:  c6-c5{turn back:   G7   A1}  ")
    assert parse_record(lenient) == game


R23 = format_record(GameText(turns=("c1-c3", "d6-d5"), sides=(SidesNote(1, "F6 is turned", ("C2",)),)))


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("1. w: c1-c3 {note: x", "bad annotation '{note: x'"),
        ("1. w: c1-c3 {comment: nice}", "bad annotation '{comment: nice}'"),
        ("1. w: c1-c3 {note:x}", "bad annotation"),
        ("1. w: c1-c3 {note:  }", "an empty note"),
        ("1. w: c1-c3 {note: a} {note: b}", "two notes on one turn"),
        ("1. w: c1-c3 {turn back: C2} {turn back: D2}", "two turn-back lists"),
        ("1. w: c1-c3 {turn back: H9}", "bad point 'H9'"),
        ("1. w: c1-c3 {turn back: c2}", "bad point 'c2'"),
        ("1. w: c1-c3 {turn back: C2 C2}", "named twice"),
        ("1. w: c1-c3 {turn back: }", "an empty list"),
        ("1. w: c1-c3 {note: a} trailing", "bad annotation 'trailing'"),
        ("1. w: {note: a}", "empty turn"),
        ("1. w: c1-c3 {note: a} C2-C3", "bad annotation 'C2-C3'"),
    ],
)
def test_bad_R23_annotations_name_the_line(line: str, words: str) -> None:
    lines = R23.splitlines()
    n = lines.index("1. w: c1-c3 {note: F6 is turned} {turn back: C2}") + 1
    lines[n - 1] = line
    with pytest.raises(RecordError) as exc:
        parse_record("\n".join(lines) + "\n")
    assert exc.value.line == n and str(exc.value).startswith(f"line {n}: ply 1: ") and words in str(exc.value)


@pytest.mark.parametrize(
    ("sides", "words"),
    [
        ((SidesNote(3, "x"),), "notes go with turns 1 to 2"),
        ((SidesNote(2, "x"), SidesNote(1, "y")), "each once, in order"),
        ((SidesNote(1, "x"), SidesNote(1, "y")), "each once, in order"),
        ((SidesNote(1, "two\nlines"),), "text on one line"),
        ((SidesNote(1, "  "),), "text on one line"),
        ((SidesNote(1, None, ("C2", "Z9")),), "points, each once"),
        ((SidesNote(1, None, ["C2"]),), "points, each once"),
        ((SidesNote(1),), "says nothing"),
        ((SidesNote(True, "x"),), "bad R-23 note"),
    ],
)
def test_format_refuses_R23_notes_it_could_not_read_back(sides, words: str) -> None:
    with pytest.raises(RecordError, match=re.escape(words)):
        format_record(GameText(turns=("c1-c3", "d6-d5"), sides=sides))


def test_R23_notes_of_a_journalled_game(tmp_path: Path) -> None:
    """The notes of the turns in force: a turn taken back keeps its own (not exported), the turn now in
    force its new one; an event holding nothing usable, or damaged, is left out, never a failure."""
    from companion.rules.engine import apply_turn
    from companion.rules.position import Position

    start = Position.from_string(START_STRING)
    one = apply_turn(start, "a1-a2")
    two = apply_turn(one, "a6-a5")
    two_b = apply_turn(one, "b6-b5")
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        gid = j.new_game([], START_STRING)
        j.record_turn(gid, START_STRING, one.to_string(), "a1-a2", at="2026-11-26T09:00:00+00:00")
        j.record_event(gid, "sides", {"ply": 1, "note": "F6 is turned\nbut", "points": ["F6"], "turn_back": ["A2", "F6"]},
                       at="2026-11-26T09:00:00.001+00:00")
        j.record_turn(gid, one.to_string(), two.to_string(), "a6-a5", at="2026-11-26T09:01:00+00:00")
        j.record_event(gid, "sides", {"ply": 2, "note": "taken back", "turn_back": ["A6"]}, at="2026-11-26T09:01:00.002+00:00")
        j.undo_last_turn(gid, at="2026-11-26T09:02:00+00:00")
        j.record_turn(gid, one.to_string(), two_b.to_string(), "b6-b5", at="2026-11-26T09:03:00+00:00")
        j.record_event(gid, "sides", {"ply": 2, "note": None, "turn_back": ["B6", "Q1", 7, "B6"]},
                       at="2026-11-26T09:03:00.001+00:00")
        j.record_event(gid, "sides", {"ply": 3, "note": "no such turn"})
        j.record_event(gid, "sides", ["not", "a", "dict"])
        j.record_event(gid, "sides", {"ply": True, "note": "a bool is no ply"})
        j.record_event(gid, "sides", {"ply": 1, "note": ["not", "text"], "turn_back": "C2"},
                       at="2026-11-26T09:04:00+00:00")  # a later event of ply 1: the first one counts
        g = j.game(gid)
    rec = GameText.from_game(g)
    assert rec.turns == ("a1-a2", "b6-b5")
    assert rec.sides == (SidesNote(1, "F6 is turned but", ("A2", "F6")), SidesNote(2, None, ("B6",)))
    assert parse_record(format_record(rec)) == rec
    with Journal(path) as j:  # a detail that is not JSON at all
        j._write(lambda conn: conn.execute("UPDATE events SET detail = '{broken' WHERE kind = 'sides'"))
        g = j.game(gid)
    assert GameText.from_game(g).sides == ()
