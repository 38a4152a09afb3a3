"""Files the companion writes are whole or untouched; config numbers are bounded."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from companion.config import MAX_SECONDS, ConfigError, load_config, loads_config
from vision.calibration import read_calibration_file, write_calibration_file
from vision.errors import CalibrationError


def test_calibration_json_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "calibration.json"
    write_calibration_file(path, {"format": "old"})

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(CalibrationError, match="No space left on device"):
        write_calibration_file(path, {"format": "new", "big": "x" * 100_000})
    assert json.loads(path.read_text()) == {"format": "old"}
    assert [p.name for p in tmp_path.iterdir()] == ["calibration.json"]
    monkeypatch.undo()
    write_calibration_file(path, {"format": "new"})
    assert read_calibration_file(path) == {"format": "new"}


def test_a_calibration_file_nested_too_deep(tmp_path: Path) -> None:
    path = tmp_path / "cal.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CalibrationError, match="nested too deep"):
        read_calibration_file(path)


@pytest.mark.parametrize("text, key", [
    ("[timings]\npoll_interval = 1e300\n", "timings.poll_interval"),
    ("[timings]\nwatchdog_seconds = 1e20\n", "timings.watchdog_seconds"),
    ("[panel]\nlong_press_seconds = 1e300\n", "panel.long_press_seconds"),
    ("[panel]\nillegal_beeps = 1000000000000\n", "panel.illegal_beeps"),
    ("[camera]\nfps = 1e300\n", "camera.fps"),
])
def test_numbers_beyond_their_bounds_are_refused_naming_the_key(text: str, key: str) -> None:
    with pytest.raises(ConfigError, match="must be at most") as info:
        loads_config(text)
    assert key in str(info.value)


def test_the_bounds_themselves_are_allowed() -> None:
    config = loads_config(f"[timings]\npoll_interval = {MAX_SECONDS}\nwatchdog_seconds = 0\n")
    assert config.timings.poll_interval == MAX_SECONDS and config.timings.watchdog_seconds == 0


def test_arrays_nested_1000_deep(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[camera]\nx = " + "[" * 1000 + "]" * 1000 + "\n")
    with pytest.raises(ConfigError, match="nested too deep"):
        load_config(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_config_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match=r"is a pipe \(FIFO\)"):
        load_config(fifo)
