"""The TOML configuration: defaults, a full file, every error naming key and line, docs agree."""

from __future__ import annotations

import re
from dataclasses import MISSING, FrozenInstanceError, fields
from pathlib import Path

import pytest

from companion.config import (
    SECTIONS,
    CalibrationConfig,
    CameraConfig,
    Config,
    ConfigError,
    FramesConfig,
    RulesConfig,
    TimingsConfig,
    key_lines,
    load_config,
    loads_config,
    reference_markdown,
    toml_value,
)

ROOT = Path(__file__).resolve().parents[2]


def test_no_file_gives_the_defaults() -> None:
    config = load_config(None, env={"STATE_DIRECTORY": "/var/lib/netzwerk"})
    assert config.camera == CameraConfig() and config.timings == TimingsConfig() and config.rules == RulesConfig()
    assert config.journal.path == Path("/var/lib/netzwerk/journal.sqlite")
    assert config.frames.dir == Path("/var/lib/netzwerk/frames")
    assert dict(config.pins) == {} and config.file is None
    home = load_config(None, env={"HOME": "/home/pi"})
    assert home.journal.path.parts[-4:] == (".local", "state", "netzwerk", "journal.sqlite")


def test_a_full_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        """
# every section
[camera]
source = "replay:frames"   # relative to this file
resolution = [640, 480]
fps = 5

[calibration]
file = "cal.json"
corners = [
    [10, 20],
    [600.5, 20],
    [600, 460],
    [10, 460],
]

[pins]
confirm_white = 26
confirm_black = 16

[rules]
options = ["must-capture", "jump-enemies"]
starting_side = "black"

[timings]
stable_seconds = 0.25
confirm_timeout = 4
watchdog_seconds = 5

[journal]
path = "~/games.sqlite"

[frames]
save_frames = false
dir = "/srv/frames"
max_mib = 64

[web]
bind = "192.168.1.20"
port = 8081
max_clients = 3
controls = true
passphrase = "a table passphrase"
"""
    )
    c = load_config(path)
    assert c.camera == CameraConfig(source=f"replay:{tmp_path / 'frames'}", resolution=(640, 480), fps=5.0)
    assert c.calibration == CalibrationConfig(file=tmp_path / "cal.json", corners=((10, 20), (600.5, 20), (600, 460), (10, 460)))
    assert dict(c.pins) == {"confirm_white": 26, "confirm_black": 16}
    assert c.rules == RulesConfig(options=("must-capture", "jump-enemies"), starting_side="black")
    assert (c.timings.stable_seconds, c.timings.confirm_timeout, c.timings.watchdog_seconds) == (0.25, 4.0, 5.0)
    assert c.timings.camera_timeout == TimingsConfig().camera_timeout
    assert c.journal.path == Path("~/games.sqlite").expanduser()
    assert c.frames == FramesConfig(save_frames=False, dir=Path("/srv/frames"), max_mib=64)
    assert (c.web.enabled, c.web.bind, c.web.port, c.web.max_clients) == (True, "192.168.1.20", 8081, 3)
    assert c.web.controls and c.web.passphrase == "a table passphrase"
    assert c.file == path
    with pytest.raises(FrozenInstanceError):
        c.camera = CameraConfig()  # type: ignore[misc]
    with pytest.raises(TypeError):
        c.pins["x"] = 3  # type: ignore[index]


def test_pins_take_the_gauge_as_an_array_or_numbered_and_new_game_none() -> None:
    from hardware.pinmap import PinMap

    c = loads_config("[pins]\ngauge = [4, 12, 13]\nnew_game = 'none'\nconfirm_white = 14\n")
    pm = PinMap.from_mapping(dict(c.pins))
    assert pm.gauge == (4, 12, 13) and pm.new_game is None and pm.confirm_white == 14
    c = loads_config("[pins]\ngauge_1 = 4\ngauge_2 = 12\n")
    assert PinMap.from_mapping(dict(c.pins)).gauge == (4, 12)


def test_panel_section_reaches_the_panel() -> None:
    from hardware.factories import open_panel
    from hardware.patterns import Timings
    from hardware.timing import ManualClock

    c = loads_config("[panel]\naccepted_seconds = 1.5\nlong_press_seconds = 3\nillegal_beeps = 5\n"
                     "illegal_tone_hz = 440\nbuzzer = 'active'\n")
    t = c.panel.timings()
    assert (t.accepted_s, t.hold_s, t.illegal_beeps, t.illegal_tone_hz) == (1.5, 3.0, 5, 440.0)
    assert t.pointer_step_s == Timings().pointer_step_s and t.win_tune == Timings().win_tune
    panel = open_panel("mock", None, clock=ManualClock(), **c.panel.panel_kwargs())
    try:
        assert panel.timings == t and panel.buzzer_kind == "active"
    finally:
        panel.close()
    assert load_config(None).panel.timings() == Timings()


def test_the_installed_example_config_loads() -> None:
    c = load_config(ROOT / "systemd" / "config.toml")
    assert c.journal.path == Path("/var/lib/netzwerk/journal.sqlite")
    assert c.frames.dir == Path("/var/lib/netzwerk/frames")


@pytest.mark.parametrize("source", ["picamera2", "sim", "opencv:0", "opencv:12", "replay:/srv/x"])
def test_camera_sources(source: str) -> None:
    assert loads_config(f'[camera]\nsource = "{source}"\n').camera.source == source


# (file text, key named, line, words in the message)
ERRORS = [
    # syntax errors: the line from tomllib, the key from the text
    ('[camera]\nsource = "sim\n', "camera.source", 2, "TOML syntax error"),
    ("[camera\nsource = 1\n", "camera", 1, "TOML syntax error"),
    ("[timings]\nstable_seconds = 0.5\nconfirm_timeout = \n", "timings.confirm_timeout", 3, "TOML syntax error"),
    ('[rules]\noptions = ["must-capture",\n\nstarting_side = "white"\n', "rules.options", 4, "TOML syntax error"),
    ("[timings]\nstable_seconds = 1\nstable_seconds = 2\n", "timings.stable_seconds", 3, "defined twice (first on line 2)"),
    ("[camera]\nfps = 1\n[camera]\n", "camera", 3, "defined twice (first on line 1)"),
    # unknown names, with hints
    ("[camera]\nsorce = 'sim'\n", "camera.sorce", 2, "did you mean camera.source?"),
    ("\n[camra]\nsource = 'sim'\n", "camra", 2, "did you mean [camera]?"),
    ("debug = true\n", "debug", 1, "outside any section"),
    ("[timings]\nstable_second = 1\n", "timings.stable_second", 2, "did you mean timings.stable_seconds?"),
    ("[frames]\nxyzzy = 1\n", "frames.xyzzy", 2, "known: frames.save_frames, frames.dir, frames.max_mib"),
    ("camera = 'sim'\n", "camera", 1, "expected a section [camera]"),
    # bad values: the key's own line
    ("[camera]\nsource = 'webcam'\n", "camera.source", 2, "unknown camera 'webcam'"),
    ("[camera]\nsource = 'opencv:x'\n", "camera.source", 2, "needs a device number"),
    ("[camera]\nsource = 'replay:'\n", "camera.source", 2, "needs a folder"),
    ("[camera]\nsource = 3\n", "camera.source", 2, "expected a string"),
    ("[camera]\n\n# size\nresolution = [640]\n", "camera.resolution", 4, "expected [width, height]"),
    ("[camera]\nresolution = [640, 0]\n", "camera.resolution", 2, "greater than 0"),
    ("[camera]\nfps = true\n", "camera.fps", 2, "expected a number, not a boolean"),
    ("[camera]\nfps = nan\n", "camera.fps", 2, "finite"),
    ("[calibration]\ncorners = [\n  [1, 2],\n  [3, 4],\n]\nfile = 'c.json'\n", "calibration.corners", 2, "four [x, y]"),
    ("[calibration]\ncorners = [[1, 2], [3, 4], [5, 6], [7]]\n", "calibration.corners", 2, "corner A7"),
    ("[calibration]\ncorners = [[1, 2], [3, 4], [5, 6], [1, 2]]\n", "calibration.corners", 2, "same pixel"),
    ("[calibration]\ncorners = [[1, 2], [3, 4], [5, 6], [-1, 2]]\n", "calibration.corners", 2, "negative"),
    ("[calibration]\nfile = ''\n", "calibration.file", 2, "the path is empty"),
    ("[calibration]\nwhite_side = 'Bottom'\n", "calibration.white_side", 2, "did you mean 'bottom'?"),
    ("[calibration]\n\nwhite_side = 'up'\n", "calibration.white_side", 3,
     "expected one of 'bottom', 'top', 'left', 'right' (the image edge White's start row faces), not 'up'"),
    ("[calibration]\nwhite_side = 1\n", "calibration.white_side", 2, "expected a string"),
    ("[calibration]\nreader = 'best'\n", "calibration.reader", 2, "expected one of 'any', 'classic'"),
    ("[calibration]\nwhite_side = ['bottom']\n", "calibration.white_side", 2, "expected a string"),
    ("[pins]\nconfirm_white = '17'\n", "pins.confirm_white", 2, "expected a GPIO number"),
    ("[pins]\nconfirm_white = 17.0\n", "pins.confirm_white", 2, "expected a GPIO number"),
    ("[pins]\nconfirm_white = 99\n", "pins.confirm_white", 2, "out of range"),
    ("[pins]\nhint = 17\n\nundo = 17\n", "pins.undo", 4, "already used by pins.hint"),
    ("[pins]\nconfirm_whte = 17\n", "pins.confirm_whte", 2, "unknown pin; did you mean pins.confirm_white?"),
    ("[pins]\ngauge = [4, 12, 'x']\n", "pins.gauge", 2, "expected a GPIO number"),
    ("[pins]\ngauge = []\n", "pins.gauge", 2, "expected an array of GPIO numbers"),
    ("[pins]\ngauge = [20, 21]\nhint = 21\n", "pins.hint", 3, "already used by pins.gauge[1]"),
    ("[pins]\ngauge_1 = 4\ngauge_3 = 12\n", "pins", 1, "without gaps"),
    ("[pins]\nhint = 4\n", "pins", 1, "pin map"),
    ("[panel]\naccepted_seconds = 0\n", "panel.accepted_seconds", 2, "greater than 0"),
    ("[panel]\nillegal_tone_hz = 50\n", "panel.illegal_tone_hz", 2, "outside the buzzer's range"),
    ("[panel]\nillegal_beeps = 2.5\n", "panel.illegal_beeps", 2, "expected an integer"),
    ("[panel]\nbuzzer = 'loud'\n", "panel.buzzer", 2, 'expected "tonal"'),
    ("[panel]\npointer_step_seconds = -1\n", "panel.pointer_step_seconds", 2, "greater than 0"),
    ("[panel]\npointer_gap_seconds = '0.3'\n", "panel.pointer_gap_seconds", 2, "expected a number"),
    ("[panel]\nlong_press_seconds = 0\n", "panel.long_press_seconds", 2, "greater than 0"),
    ("[panel]\ndebounce_seconds = true\n", "panel.debounce_seconds", 2, "expected a number, not a boolean"),
    ("[panel]\nlong_press = 2\n", "panel.long_press", 2, "did you mean panel.long_press_seconds?"),
    ("[rules]\noptions = 'must-capture'\n", "rules.options", 2, "expected an array"),
    ("[rules]\noptions = ['must-captur']\n", "rules.options", 2, "did you mean 'must-capture'?"),
    ("[rules]\noptions = ['must-capture', 'must-capture']\n", "rules.options", 2, "named twice"),
    ("[rules]\noptions = [1]\n", "rules.options", 2, "option names"),
    ("[rules]\nstarting_side = 'White'\n", "rules.starting_side", 2, 'expected "white" or "black"'),
    ("[rules]\nbattery_sides = 'on'\n", "rules.battery_sides", 2, "expected true or false, not a string"),
    ("[timings]\nstable_seconds = -1\n", "timings.stable_seconds", 2, "greater than 0"),
    ("[timings]\nconfirm_timeout = 0\n", "timings.confirm_timeout", 2, "greater than 0"),
    ("[timings]\nwatchdog_seconds = -0.5\n", "timings.watchdog_seconds", 2, "0 or more"),
    ("[timings]\npoll_interval = '0.1'\n", "timings.poll_interval", 2, "expected a number, not a string"),
    ("[timings]\ncamera_timeout = -3\n", "timings.camera_timeout", 2, "greater than 0"),
    ("[timings]\nrecalibrate_after = -5\n", "timings.recalibrate_after", 2, "0 or more"),
    ("[timings]\nrecalibrate_after = 'soon'\n", "timings.recalibrate_after", 2, "expected a number"),
    ("[timings]\nquestion_seconds = 0\n", "timings.question_seconds", 2, "greater than 0"),
    ("[timings]\nquestion_seconds = 1e300\n", "timings.question_seconds", 2, "at most 86400 seconds"),
    ("[timings]\nquestion_seconds = 'long'\n", "timings.question_seconds", 2, "expected a number"),
    ("[frames]\ndir = ['a']\n", "frames.dir", 2, "expected a path"),
    ("[journal]\npath = 3\n", "journal.path", 2, "expected a path"),
    ("[frames]\nsave_frames = 'yes'\n", "frames.save_frames", 2, "expected true or false"),
    ("[frames]\nmax_mib = 1.5\n", "frames.max_mib", 2, "expected an integer"),
    ("[frames]\nmax_mib = 0\n", "frames.max_mib", 2, "greater than 0"),
    ("[web]\nenabled = 'yes'\n", "web.enabled", 2, "expected true or false"),
    ("[web]\nbind = 'pi.local'\n", "web.bind", 2, "expected an IP address such as \"0.0.0.0\""),
    ("[web]\nbind = 8080\n", "web.bind", 2, "expected an IP address as a string"),
    ("[web]\nport = 70000\n", "web.port", 2, "must be a TCP port 1..65535"),
    ("[web]\nport = '8080'\n", "web.port", 2, "expected an integer"),
    ("[web]\nmax_clients = 0\n", "web.max_clients", 2, "greater than 0"),
    ("[web]\nmax_clients = 5000\n", "web.max_clients", 2, "at most 1000"),
    ("[web]\ncontrols = true\n", "web.controls", 2, "controls = true needs a passphrase"),
    ("[web]\npassphrase = 'short'\n", "web.passphrase", 2, "at least 8 characters, not 5"),
    ('[web]\npassphrase = "long enough\\u0007"\n', "web.passphrase", 2, "without control characters"),
    # dotted keys and quoted keys
    ("timings.stable_seconds = 'a'\n", "timings.stable_seconds", 1, "expected a number"),
    ('[timings]\n"stable_seconds" = -2\n', "timings.stable_seconds", 2, "greater than 0"),
    ("[camera]\nsource = '''x\n[timings]\n'''\nfps = -1\n", "camera.source", 2, "unknown camera"),
    ("[camera]\nresolution = [640, 480]  # [x]\nfps = -1\n", "camera.fps", 3, "greater than 0"),
]


@pytest.mark.parametrize(("text", "key", "line", "words"), ERRORS)
def test_every_error_names_the_key_and_the_line(tmp_path: Path, text: str, key: str, line: int, words: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    err = exc.value
    assert (err.key, err.line) == (key, line), str(err)
    assert str(err).startswith(f"{path}, line {line}: {key}: "), str(err)
    assert words in str(err)


def test_every_key_has_an_error_case() -> None:
    covered = {key for _, key, _, _ in ERRORS}
    for name, cls in SECTIONS.items():
        if cls is dict:
            continue
        for f in fields(cls):
            assert f"{name}.{f.name}" in covered, f"no error test for {name}.{f.name}"


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="is a folder"):
        load_config(tmp_path)
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b"[camera]\nsource = 'sim'\n# caf\xe9\n")
    with pytest.raises(ConfigError, match=r"line 3: the file is not UTF-8"):
        load_config(bad)


def test_key_lines_skip_multiline_values() -> None:
    text = "[a]\nx = [\n  [1],\n  {y = 2},\n]\nz = '''\n[b]\nw = 1\n'''\n[c]\nv = 1\n"
    lines = key_lines(text)
    assert lines[("a", "x")] == 2 and lines[("a", "z")] == 6 and lines[("c", "v")] == 11
    assert ("b",) not in lines and ("b", "w") not in lines and ("a", "y") not in lines


# -- the documentation agrees with the code ---------------------------------------------


def test_docs_hold_the_generated_key_table() -> None:
    doc = (ROOT / "docs" / "config.md").read_text()
    m = re.search(r"<!-- BEGIN GENERATED KEY TABLE -->\n(.*)<!-- END GENERATED KEY TABLE -->", doc, re.S)
    assert m, "docs/config.md lost its generated table markers"
    assert m.group(1) == reference_markdown(), "docs/config.md is stale: regenerate with python -m companion.config"


def test_documented_defaults_are_the_real_defaults() -> None:
    table = reference_markdown()
    for name, cls in SECTIONS.items():
        if cls is dict:
            continue
        for f in fields(cls):
            row = re.search(rf"^\| `{f.name}` \| [^|]+ \| ([^|]+) \|", table.split(f"### [{name}]")[1], re.M)
            assert row, f"{name}.{f.name} is not documented"
            if f.metadata["default_doc"] is None:
                default = f.default if f.default is not MISSING else f.default_factory()
                assert row.group(1).strip() == f"`{toml_value(default)}`"
                assert getattr(getattr(Config(), name), f.name) == default
                # ... and writing that default in a file gives the default back.
                loaded = loads_config(f"[{name}]\n{f.name} = {toml_value(default)}\n")
                assert getattr(getattr(loaded, name), f.name) == default


def test_the_doc_example_loads() -> None:
    doc = (ROOT / "docs" / "config.md").read_text()
    example = re.search(r"```toml\n(.*?)```", doc, re.S).group(1)
    assert isinstance(loads_config(example), Config)


@pytest.mark.parametrize("side", ["bottom", "top", "left", "right"])
def test_white_side_and_recalibrate_after(side: str) -> None:
    from companion.referee.game import LoopTimings

    c = loads_config(f"[calibration]\nwhite_side = '{side}'\n[timings]\nrecalibrate_after = 0\n")
    assert c.calibration.white_side == side and c.calibration.corners is None
    assert c.timings.recalibrate_after == 0.0
    assert LoopTimings.from_config(c.timings).recalibrate_after == 0.0
    assert load_config(None).calibration.white_side is None
    assert LoopTimings.from_config(load_config(None).timings).recalibrate_after == LoopTimings().recalibrate_after == 5.0


def test_white_sides_are_the_cameras() -> None:
    """The config checks white sides without loading the camera code: the same list as vision's."""
    from vision.calibration import WHITE_SIDES as VISION_SIDES

    from companion.config import WHITE_SIDES

    assert WHITE_SIDES == VISION_SIDES


def test_readers_are_visions() -> None:
    """The config checks reader names without loading the camera code: the same list as vision's."""
    from vision.readers import READERS

    from companion.config import VISION_READERS, load_config

    assert set(VISION_READERS) == set(READERS)
    assert load_config(None).calibration.reader == "any"


def test_camera_source_from_the_command_line() -> None:
    from companion.config import check_camera_source

    assert check_camera_source("opencv:02") == "opencv:2"
    assert check_camera_source("replay:shots", base=Path("/srv")) == "replay:/srv/shots"
    with pytest.raises(ConfigError, match=r"^camera: unknown camera 'picamera': expected one of .*; did you mean 'picamera2'\?$"):
        check_camera_source("picamera")


def test_question_seconds_reaches_the_loop() -> None:
    from companion.referee.timings import LoopTimings

    c = loads_config("[timings]\nquestion_seconds = 1.5\n")
    assert c.timings.question_seconds == 1.5
    assert LoopTimings.from_config(c.timings).question_seconds == 1.5
    assert LoopTimings.from_config(load_config(None).timings).question_seconds == LoopTimings().question_seconds
