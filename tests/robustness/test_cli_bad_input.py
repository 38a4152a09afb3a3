"""Bad input to the ``netzwerk`` command never crashes, hangs or loses a file.

Each case runs the real command in a subprocess (a segmentation fault or a hang must
not take the test run with it) and checks what the user sees: a non-zero exit, one
line on stderr naming what was wrong, no traceback; and that no input was touched.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion.referee.journal import Journal
from companion.rules.position import START_STRING

ROOT = Path(__file__).resolve().parents[2]
BAD_NAME = os.fsdecode(b"start-\xff.png")  # not UTF-8


def netzwerk(*args: str | os.PathLike[str], cwd: Path | None = None, timeout: float = 120.0) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               NETZWERK_NO_JIT="1")
    return subprocess.run([sys.executable, "-m", "companion.cli", *map(os.fspath, args)], cwd=cwd, env=env,
                          capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)


def refused(result: subprocess.CompletedProcess, *words: str) -> str:
    """The one-line message of a refused command, checked: exit 2, no traceback, every word in it."""
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2, (result.returncode, err[-2000:])
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for w in words:
        assert w in err, (w, err)
    return err


@pytest.fixture(scope="module")
def start_png(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("start") / "start.png"
    r = netzwerk("vision", "render", START_STRING, "--out", out, "--markers")
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def calibration(start_png: Path) -> Path:
    out = start_png.with_name("cal.json")
    r = netzwerk("vision", "calibrate", "--image", start_png, "--out", out)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "journal.sqlite"
    with Journal(path) as j:
        g = j.new_game([], START_STRING, players=("Anna", "Ben"))
        j.finish_game(g, "abandoned", "test")
        j.new_game(["must-capture"], START_STRING)
    return path


# -- numbers out of range ----------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["show", "export"])
def test_a_game_id_beyond_sqlite(journal: Path, action: str) -> None:
    refused(netzwerk("games", action, "9223372036854775808", "--journal", journal),
            "bad game id '9223372036854775808'", "up to 9223372036854775807")


@pytest.mark.parametrize("dpi", ["-1", "0", "100000"])
def test_marker_sheet_dpi(tmp_path: Path, dpi: str) -> None:
    refused(netzwerk("vision", "markers", "--out", tmp_path / "m.png", "--dpi", dpi), f"--dpi {dpi}", "50 and 600")
    assert not (tmp_path / "m.png").exists()


def test_render_size(tmp_path: Path) -> None:
    refused(netzwerk("vision", "render", START_STRING, "--out", tmp_path / "r.png", "--size", "100000x100000"),
            "--size '100000x100000'", "160 to 8192")


def test_config_nested_1000_deep(tmp_path: Path) -> None:
    config = tmp_path / "deep.toml"
    config.write_text("[camera]\nx = " + "[" * 1000 + "]" * 1000 + "\n")
    refused(netzwerk("run", "--config", config, "--gpio", "mock", "--camera", "sim"), "nested too deep")


def test_a_time_of_1e300_seconds(tmp_path: Path) -> None:
    config = tmp_path / "poll.toml"
    config.write_text("[timings]\npoll_interval = 1e300\n")
    refused(netzwerk("run", "--config", config, "--gpio", "mock", "--camera", "sim"),
            "timings.poll_interval", "at most 86400 seconds")


# -- where a picture is written -------------------------------------------------------------------


@pytest.mark.parametrize("command", [["panel", "show"], ["panel", "selftest", "--gpio", "mock"]])
@pytest.mark.parametrize("where, words", [
    ("", ("is a folder: give a file name",)),
    ("nodir/x.png", ("nodir' does not exist",)),
    ("x.txt", ("the name must end in .png",)),
])
def test_panel_png_that_cannot_be_written(tmp_path: Path, command: list[str], where: str, words: tuple[str, ...]) -> None:
    refused(netzwerk(*command, "--png", tmp_path / where if where else tmp_path), "--png", *words)


def test_show_png_and_svg_that_cannot_be_written(tmp_path: Path) -> None:
    refused(netzwerk("show", START_STRING, "--png", tmp_path), "--png", "is a folder")
    refused(netzwerk("show", START_STRING, "--svg", tmp_path / "nodir" / "b.svg"), "--svg", "does not exist")


# -- never overwrite an input --------------------------------------------------------------------------


def test_export_onto_the_journal(journal: Path) -> None:
    before = journal.read_bytes()
    for target in (journal, journal.with_name("journal.sqlite-wal")):
        refused(netzwerk("games", "export", "2", "--journal", journal, "--out", target), "is an input of this command")
    assert journal.read_bytes() == before
    out = journal.with_name("game2.txt")
    r = netzwerk("games", "export", "2", "--journal", journal, "--out", out)
    assert r.returncode == 0 and "must-capture" in out.read_text()


def test_audit_record_onto_a_photo(tmp_path: Path, start_png: Path) -> None:
    folder = tmp_path / "game"
    folder.mkdir()
    photo = folder / "001.png"
    photo.write_bytes(start_png.read_bytes())
    refused(netzwerk("audit", folder, "--record", photo), "--record", "is an input of this command")
    assert photo.read_bytes() == start_png.read_bytes()


def test_calibrate_out_onto_the_image(tmp_path: Path, start_png: Path) -> None:
    image = tmp_path / "s.png"
    image.write_bytes(start_png.read_bytes())
    os.link(image, tmp_path / "same.png")
    for out in (image, tmp_path / "same.png"):
        refused(netzwerk("vision", "calibrate", "--image", image, "--out", out), "is an input of this command")
    assert image.read_bytes() == start_png.read_bytes()


def test_overlay_out_onto_the_image(tmp_path: Path, start_png: Path, calibration: Path) -> None:
    refused(netzwerk("vision", "overlay", "--image", start_png, "--calibration", calibration, "--out", start_png),
            "is an input of this command")


# -- FIFOs: refused at once, never waited on -----------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_fifos_as_journal_config_and_calibration(tmp_path: Path, start_png: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refused(netzwerk("games", "list", "--journal", fifo, timeout=60), "journal", "is a pipe (FIFO)")
    refused(netzwerk("run", "--gpio", "mock", "--camera", "sim", "--journal", fifo, "--no-save-frames",
                     timeout=60), "journal", "is a pipe (FIFO)")
    refused(netzwerk("run", "--gpio", "mock", "--camera", "sim", "--config", fifo, timeout=60),
            "config file", "is a pipe (FIFO)")
    config = tmp_path / "c.toml"
    config.write_text(f'[calibration]\nfile = "{fifo}"\n[journal]\npath = "{tmp_path / "j.sqlite"}"\n')
    refused(netzwerk("run", "--gpio", "mock", "--camera", "sim", "--config", config, "--no-save-frames",
                     timeout=60), "calibration file", "is a pipe (FIFO)")
    refused(netzwerk("vision", "read", "--image", start_png, "--calibration", fifo, timeout=60),
            "calibration file", "is a pipe (FIFO)")
    refused(netzwerk("vision", "read", "--image", fifo, "--calibration", fifo, timeout=60), "is a pipe (FIFO)")


# -- file names that are not UTF-8 (OpenCV's imread crashed on them) -------------------------------------


def test_vision_commands_read_a_photo_whose_name_is_not_utf8(tmp_path: Path, start_png: Path) -> None:
    image = tmp_path / BAD_NAME
    image.write_bytes(start_png.read_bytes())
    cal = tmp_path / "cal.json"
    r = netzwerk("vision", "calibrate", "--image", image, "--out", cal)
    assert r.returncode == 0, r.stderr
    r = netzwerk("vision", "read", "--image", image, "--calibration", cal)
    assert r.returncode == 0 and r.stdout.decode().strip() == START_STRING.rsplit(" ", 1)[0], r.stderr
    out = tmp_path / os.fsdecode(b"over-\xfe.png")
    r = netzwerk("vision", "overlay", "--image", image, "--calibration", cal, "--out", out)
    assert r.returncode == 0 and out.stat().st_size > 0, r.stderr


def test_a_replay_folder_holding_a_name_that_is_not_utf8(tmp_path: Path, start_png: Path) -> None:
    folder = tmp_path / "replay"
    folder.mkdir()
    (folder / BAD_NAME).write_bytes(start_png.read_bytes())
    (folder / os.fsdecode(b"zz-broken-\xfe.jpg")).write_bytes(b"not a jpeg")
    script = (
        "from companion.cameras import ReplayCamera, CameraError\n"
        f"cam = ReplayCamera({str(folder)!r}, hold=1.0, clock=iter([0.0, 5.0]).__next__)\n"
        "print(cam.grab().image.shape)\n"
        "try:\n    cam.grab()\nexcept CameraError as exc:\n    print('refused:', exc)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode("utf-8", "replace")
    out = r.stdout.decode("utf-8", "replace")
    assert "(960, 1280, 3)" in out and "refused:" in out and "cannot be decoded" in out


def test_audit_of_a_folder_with_names_that_are_not_utf8(tmp_path: Path, start_png: Path) -> None:
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / os.fsdecode(b"000-\xff.png")).write_bytes(start_png.read_bytes())
    (folder / os.fsdecode(b"001-\xfe.png")).write_bytes(start_png.read_bytes())
    r = netzwerk("audit", folder)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 0 and "Traceback" not in err, err
    assert "start position" in r.stdout.decode("utf-8", "replace")


# -- the journal: one damaged game, a journal that cannot be written -----------------------------------


def _damage_rules(journal: Path, game_id: int) -> None:
    conn = sqlite3.connect(journal)
    conn.execute("UPDATE games SET rules='[bad' WHERE id=?", (game_id,))
    conn.commit()
    conn.close()


def test_a_game_with_bad_json_leaves_every_other_game_reachable(journal: Path) -> None:
    _damage_rules(journal, 1)
    r = netzwerk("games", "list", "--journal", journal)
    out = r.stdout.decode()
    assert r.returncode == 0 and "Traceback" not in r.stderr.decode()
    assert "game 1 is damaged" in out.splitlines()[0] and "must-capture" in out.splitlines()[1]
    refused(netzwerk("games", "show", "1", "--journal", journal), "game 1 is damaged", "not a JSON list")
    r = netzwerk("games", "show", "2", "--journal", journal)
    assert r.returncode == 0 and "must-capture" in r.stdout.decode()
