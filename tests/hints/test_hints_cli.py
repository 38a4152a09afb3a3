"""``netzwerk hint`` and ``netzwerk arena`` through ``companion.cli.main``."""

from __future__ import annotations

import json

import pytest

from companion.cli import main
from companion.rules.engine import apply_turn, status
from companion.rules.geometry import WHITE
from companion.rules.position import START_STRING, Position

TARGET_WIN = "WW4/2W3/6/6/4BB/WW4 7/7/2x4/4x2/7/xxxxx2/xxxxxxx w"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_hint_text(capsys) -> None:
    code, out, err = run(capsys, "hint", START_STRING, "--time", "0.02")
    assert code == 0, err
    lines = out.splitlines()
    apply_turn(Position.start(), lines[0])  # the first line is a legal turn
    assert lines[1].startswith("value ") and "expected score" in lines[1]
    assert lines[2].startswith("reason: ")


def test_hint_json_win(capsys) -> None:
    code, out, _ = run(capsys, "hint", TARGET_WIN, "--time", "0.02", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["outcome"] == "win" and data["value"] is None and data["expected"] == 1.0
    assert data["reason"].startswith("wins now")
    after = apply_turn(Position.from_string(TARGET_WIN), data["turn"])
    assert status(after).winner is WHITE
    assert data["robot_moves"][0] == {"from": "c5", "to": "c6", "capture": False}


@pytest.mark.parametrize("option", ["must-capture", "jump-enemies", "controlled-energy"])
def test_hint_with_options(capsys, option: str) -> None:
    code, out, err = run(capsys, "hint", START_STRING, "--time", "0.02", "--option", option, "--json")
    assert code == 0, err
    assert json.loads(out)["rules"] == f"original+{option}"


def test_hint_bad_position(capsys) -> None:
    code, out, err = run(capsys, "hint", "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxx1/7 w")
    assert code == 2
    assert "13 batteries" in err and "Traceback" not in err


def test_hint_bad_option(capsys) -> None:
    code, _, err = run(capsys, "hint", START_STRING, "--option", "stacks")
    assert code == 2 and "unknown rule option 'stacks'" in err


STACKED = "BBBBBB/6/6/6/6/WWWWWW 7/xyxxxx1/7/7/7/xxxzx2/7 w"


def test_hint_refuses_a_stack_without_stacking(capsys) -> None:
    code, _, err = run(capsys, "hint", STACKED)
    assert code == 2 and "stacks need the option stacking (R-19)" in err and "Traceback" not in err


@pytest.mark.parametrize("option", ["stacking", "stack-unsplit"])
def test_hint_plays_under_stacking_a_turn_the_engine_accepts(capsys, option) -> None:
    from companion.rules.engine import apply_turn
    from companion.rules.options import Rules
    from companion.rules.position import Position

    code, out, _ = run(capsys, "hint", STACKED, "--option", option, "--nodes", "2000", "--time", "60")
    assert code == 0
    turn = out.splitlines()[0]
    apply_turn(Position.from_string(STACKED), turn, Rules.from_names([option]))


def test_hint_bad_time(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["hint", START_STRING, "--time", "0"])
    assert exc.value.code == 2
    assert "--time '0' must be more than 0" in capsys.readouterr().err


def test_hint_game_over(capsys) -> None:
    code, _, err = run(capsys, "hint", "WWW3/6/6/6/6/BBB3 7/xxxxxxx/7/7/7/xxxxxxx/7 b")
    assert code == 1 and "game is over" in err


def test_arena_json(capsys) -> None:
    code, out, err = run(capsys, "arena", "--white", "greedy", "--black", "random", "--games", "2", "--max-turns", "16", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["games"] == 2 and data["wins"] + data["draws"] + data["losses"] == 2
    lo, hi = data["ci95"]
    assert 0.0 <= lo <= data["fraction"] <= hi <= 1.0


def test_arena_text_and_verbose(capsys) -> None:
    code, out, _ = run(capsys, "arena", "--white", "random", "--black", "random", "--games", "2", "--max-turns", "6", "--verbose")
    assert code == 0
    assert out.count("game ") == 2 and "95% CI" in out
    assert out.count("  from ") == 2  # each game with its turns


def test_arena_bad_engine(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["arena", "--white", "stockfish", "--black", "random", "--games", "2"])
    assert exc.value.code == 2
    assert "unknown engine 'stockfish'" in capsys.readouterr().err


def test_arena_node_budget_is_repeatable(capsys) -> None:
    argv = ("arena", "--white", "search", "--black", "random", "--games", "1", "--max-turns", "4",
            "--nodes", "1500", "--time", "60", "--verbose")
    outs = []
    for _ in range(2):
        code, out, err = run(capsys, *argv)
        assert code == 0, err
        outs.append(out)
    assert outs[0] == outs[1]  # the same turns: a node budget does not depend on the machine's load
    turns = [line for line in outs[0].splitlines() if line.startswith("  from ")][0].split(": ", 1)[1].split(" | ")
    pos = Position.start()
    for t in turns:
        pos = apply_turn(pos, t)


def test_arena_bad_node_budget(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["arena", "--white", "search", "--black", "random", "--games", "1", "--nodes", "0"])
    assert exc.value.code == 2
    assert "--nodes" in capsys.readouterr().err
