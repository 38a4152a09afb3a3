"""The self-test and ``netzwerk panel``."""

import json

import pytest

from companion.cli import main
from hardware.selftest import Selftest


def test_selftest_on_mock_pins_checks_every_led_buzzer_and_button(panel):
    lines = []
    report = Selftest(panel, simulate=True, out=lines.append).run()
    assert report.ok, report.failures()
    parts = [(c.part, c.name) for c in report.checks]
    assert sum(p == "pointer" for p, _ in parts) == 26
    assert sum(p == "gauge" for p, _ in parts) == 5
    assert ("led", "turn-white") in parts and ("led", "red") in parts and ("led", "all on") in parts
    assert [n for p, n in parts if p == "button"] == list(panel.button_names)
    assert [n for p, n in parts if p == "buzzer"] == ["440 Hz", "880 Hz", "1760 Hz", "silent"]
    assert all(line.startswith("ok") for line in lines)
    # afterwards everything is off and the panel still works
    s = panel.state()
    assert all(not st.lit for _, st in s.leds) and s.buzzer == "off"


def test_selftest_fails_when_the_pins_do_not_do_what_was_asked(panel):
    test = Selftest(panel, simulate=True, out=lambda line: None)
    test.virtual.chain.detach()  # the 74HC595 outputs no longer follow: like a broken chain
    report = test.run()
    assert not report.ok
    failed = {c.name for c in report.failures()}
    assert "bottom file-c" in failed and "all on" in failed and "turn-white" not in failed


def test_cli_selftest_mock(capsys):
    assert main(["panel", "selftest", "--gpio", "mock"]) == 0
    out = capsys.readouterr().out
    assert "self-test passed" in out and "┌─ Netzwerk panel" in out and "ok   button   undo" in out


def test_cli_selftest_mock_json_and_png(capsys, tmp_path):
    png = tmp_path / "p.png"
    assert main(["panel", "selftest", "--gpio", "mock", "--json", "--png", str(png)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and data["gpio"] == "mock" and len(data["checks"]) == 46
    assert png.stat().st_size > 1000


def test_cli_selftest_auto_without_a_pi_fails_clearly(capsys, monkeypatch):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    assert main(["panel", "selftest", "--gpio", "auto"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--gpio mock" in err and "Traceback" not in err


def test_cli_show(capsys):
    assert main(["panel", "show", "--turn", "white", "--status", "illegal", "--point", "c2*", "c4",
                 "--gauge", "3/14", "--at", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "● white" in out and "pointer c2* c4 (pointer-sequence)" in out
    assert main(["panel", "show", "--win", "black", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["win"] == "black" and data["buzzer"]["pattern"] == "win-tune"


@pytest.mark.parametrize("argv, words", [
    (["--point", "z9"], ["--point", "'z9'"]),
    (["--gauge", "3"], ["--gauge", "VALUE/MAX"]),
    (["--gauge", "20/14"], ["--gauge", "between 0"]),
    (["--at", "-1"], ["--at"]),
])
def test_cli_show_bad_input(capsys, argv, words):
    assert main(["panel", "show", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and all(w in err for w in words)


def test_cli_pins_from_the_config_file(capsys, tmp_path):
    good = tmp_path / "good.toml"
    good.write_text("[pins]\nhint = 9\ngauge_1 = 4\ngauge_2 = 12\n")
    assert main(["panel", "show", "--config", str(good), "--gauge", "1/2"]) == 0
    assert "energy ●○ " in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text("[pins]\nhint = 40\n")
    assert main(["panel", "selftest", "--gpio", "mock", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "'hint'" in err and "GPIO40 does not exist" in err and str(bad) in err


def test_open_panel(monkeypatch):
    from hardware import PanelError, open_panel
    from hardware.timing import ManualClock

    with open_panel("mock", clock=ManualClock()) as panel:
        panel.show_turn("black")
        assert panel.state().turn == "black"
    with pytest.raises(PanelError, match="gpio must be one of auto, mock"):
        open_panel("pigpio")
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    with pytest.raises(PanelError, match="--gpio mock"):
        open_panel("auto")
