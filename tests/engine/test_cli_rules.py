"""The rules subcommands as a user calls them: output, exit codes, messages."""

from __future__ import annotations

import json

import pytest

from companion.cli import main

START = "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_apply(capsys):
    code, out, _ = run(capsys, "apply", START, "c1-c2 d1-d3 C2-C3 E2-E1")
    assert code == 0
    assert out.strip() == "BBBBBB/6/6/3W2/2W3/WW2WW 7/xxxxxxx/7/7/2x4/xx1x1xx/4x2 b"


def test_apply_illegal_exit_1(capsys):
    code, out, err = run(capsys, "apply", START, "c1-c4")
    assert code == 1 and out == ""
    assert "needs 3 energy" in err


def test_apply_bad_turn_exit_2_names_token(capsys):
    code, _, err = run(capsys, "apply", START, "c1-c2 g7-g8")
    assert code == 2
    assert "bad square 'g7' in turn 'c1-c2 g7-g8'" in err
    assert "Traceback" not in err


def test_apply_bad_position_exit_2(capsys):
    code, _, err = run(capsys, "apply", START.replace("WWWWWW", "WWWWW"), "c1-c2")
    assert code == 2 and "rank 1 'WWWWW' covers 5 squares" in err


def test_apply_json(capsys):
    code, out, _ = run(capsys, "apply", START, "c1-c2", "--json")
    data = json.loads(out)
    assert code == 0 and data["legal"] and data["status"] == "ongoing"


def test_explain_legal_and_illegal(capsys):
    code, out, _ = run(capsys, "explain", START, "BBBBBB/6/6/3W2/2W3/WW2WW 7/xxxxxxx/7/7/2x4/xx1x1xx/4x2 b")
    assert code == 0 and out.strip() == "c1-c2 d1-d3 C2-C3 E2-E1"
    code, out, err = run(capsys, "explain", START, "BBBBBB/6/6/6/2W3/WW1WWW 7/xxxxxxx/7/7/7/xx1xxxx/7 b")
    assert code == 1 and "13 batteries on the board: one is missing or misread" in err
    code, out, _ = run(capsys, "explain", START, "BBBBBB/6/2W3/6/6/WW1WWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b", "--json")
    data = json.loads(out)
    assert code == 1 and not data["legal"] and data["problems"][0]["squares"] == ["c1"]


def test_outcomes(capsys):
    code, out, _ = run(capsys, "outcomes", START, "--count-only")
    assert code == 0 and out.strip() == "2524"
    code, out, _ = run(capsys, "outcomes", START, "--phase", "batteries", "--count-only")
    assert out.strip() == "22599"
    code, out, _ = run(capsys, "outcomes", "BBBBBB/6/6/6/6/W5 7/xxxxxxx/7/7/7/xxxxxxx/7 w")
    # a1 touches A2 and B2: 2 energy, so a1-a2, a1-a3, a1-b1, a1-c1
    assert out.split() == ["4", "BBBBBB/6/6/6/6/1W4", "BBBBBB/6/6/6/6/2W3", "BBBBBB/6/6/6/W5/6", "BBBBBB/6/6/W5/6/6"]


def test_status(capsys):
    code, out, _ = run(capsys, "status", START)
    assert code == 0 and out.splitlines()[0] == "ongoing"
    code, out, _ = run(capsys, "status", "WWW3/6/6/6/6/BBBBBB 7/xxxxxxx/7/7/7/xxxxxxx/7 b", "--json")
    assert json.loads(out)["status"] == "white wins"


def test_unknown_option(capsys):
    code, _, err = run(capsys, "status", START, "--option", "no-such-rule")
    assert code == 2 and "unknown rule option 'no-such-rule'" in err


def test_show_terminal_and_pictures(capsys, tmp_path):
    svg, png = tmp_path / "b.svg", tmp_path / "b.png"
    code, out, _ = run(capsys, "show", START, "--svg", str(svg), "--png", str(png), "--mark", "c3 D4", "--color", "never")
    assert code == 0
    assert "\u25cb" in out and "\u25cf" in out and "\u25c6" in out and "White to move" in out
    assert svg.read_text().startswith("<svg") and png.stat().st_size > 1000


@pytest.mark.parametrize("cmd", ["apply", "explain", "outcomes", "status", "show"])
def test_every_subcommand_has_help(capsys, cmd):
    with pytest.raises(SystemExit) as e:
        main([cmd, "--help"])
    assert e.value.code == 0
    assert "usage" in capsys.readouterr().out
