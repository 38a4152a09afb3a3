"""``netzwerk show`` draws what ``status`` accepts and refuses what it refuses, with the same message."""

from __future__ import annotations

import pytest

from companion.cli import main

START = "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("position", [
    "BBBBBB/6/6/6/6/WWWWWW 7/7/7/7/7/7/7 w",  # no battery
    "BBBBBB/BBBBBB/BBBBBB/WWWWWW/WWWWWW/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w",  # 18 robots a side
    "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 q",  # no side to move
])
def test_show_refuses_what_status_refuses_with_its_message(capsys, tmp_path, position: str) -> None:
    code, out, status_err = run(capsys, "status", position)
    assert code == 2 and out == ""
    png = tmp_path / "b.png"
    code, out, show_err = run(capsys, "show", position, "--png", str(png))
    assert code == 2 and out == "" and show_err == status_err and show_err.count("\n") == 1
    assert not png.exists()


def test_show_draws_what_status_accepts(capsys) -> None:
    code, out, _ = run(capsys, "show", START, "--color", "never")
    assert code == 0 and "White to move" in out
