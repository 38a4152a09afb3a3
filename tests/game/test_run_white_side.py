"""``netzwerk run --white-side`` and ``[calibration] white_side``: parsed, checked, handed to the loop."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import companion.referee.game
from companion.cli import main


class Recorder:
    """Stands in for the Companion: records how ``netzwerk run`` built it, runs no game."""

    made: list[dict] = []

    def __init__(self, panel, source, journal, **kw) -> None:  # noqa: ANN001
        Recorder.made.append(kw)

    def stop(self) -> None:
        pass

    def run(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.fixture
def recorded(monkeypatch, tmp_path):
    Recorder.made = []
    monkeypatch.setattr(companion.referee.game, "Companion", Recorder)
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0001.png"), np.full((48, 64, 3), 90, np.uint8))

    def run(*extra: str, config: str | None = None) -> int:
        args = ["run", "--gpio", "mock", "--camera", f"replay:{frames}", "--no-save-frames",
                "--journal", str(tmp_path / "journal.sqlite"), "--web", "off"]
        if config is not None:
            path = tmp_path / "config.toml"
            path.write_text(config)
            args += ["--config", str(path)]
        return main(args + list(extra))

    return run


def test_the_option_and_the_config_key_reach_the_loop(recorded, capsys):
    assert recorded() == 0
    assert Recorder.made[-1]["white_side"] is None
    assert recorded("--white-side", "left") == 0
    assert Recorder.made[-1]["white_side"] == "left"
    assert recorded(config="[calibration]\nwhite_side = 'top'\n") == 0
    assert Recorder.made[-1]["white_side"] == "top"
    assert recorded("--white-side", "right", config="[calibration]\nwhite_side = 'top'\n") == 0
    assert Recorder.made[-1]["white_side"] == "right", "the option wins over the config"
    assert recorded(config="[timings]\nrecalibrate_after = 12\n") == 0
    assert Recorder.made[-1]["timings"].recalibrate_after == 12.0


def test_bad_white_sides_exit_2_with_a_message(recorded, capsys):
    with pytest.raises(SystemExit) as exc:
        recorded("--white-side", "up")
    assert exc.value.code == 2
    assert "--white-side: invalid choice: 'up'" in capsys.readouterr().err
    assert recorded(config="[calibration]\nwhite_side = 'Bottom'\n") == 2
    err = capsys.readouterr().err
    assert err.startswith("netzwerk run: ") and "line 2: calibration.white_side" in err
    assert "did you mean 'bottom'?" in err and err.count("\n") == 1
    assert Recorder.made == []
