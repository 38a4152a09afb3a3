"""The companion's configuration: a TOML file (stdlib ``tomllib``), every key optional.

    config = load_config("/etc/netzwerk/config.toml")   # ConfigError on any mistake
    config = load_config(None)                          # no file: all defaults

Sections ``[camera]``, ``[calibration]``, ``[pins]``, ``[rules]``, ``[timings]``,
``[panel]``, ``[journal]``, ``[frames]``, ``[web]``; every key, its type, default and meaning is in the
``SECTIONS`` table below, and ``docs/config.md`` holds the same table generated
from it (``python -m companion.config`` prints it; a test checks they agree).

A :class:`ConfigError` names the file, the line and the key: syntax errors with
the line ``tomllib`` reports, bad values and unknown keys with the line of the key
(unknown keys get a "did you mean" hint). Relative paths in the file are taken
relative to the file's directory; ``~`` is expanded.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import sys
import tomllib
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping

from fileio.paths import FileRefused, read_bytes

from .referee.journal import default_journal_path
from .record import KNOWN_RULE_OPTIONS

CAMERA_KINDS = ("picamera2", "opencv:INDEX", "replay:DIR", "sim")
# The image edges White's start row can face (vision.calibration.WHITE_SIDES; a test checks they agree:
# kept here so that reading the config does not load the camera code).
WHITE_SIDES = ("bottom", "top", "left", "right")
# The board readers (vision.readers.READERS; a test checks they agree: config does not import vision)
VISION_READERS = ("any", "classic")


class ConfigError(ValueError):
    """A configuration mistake. ``key`` is the dotted key (or None), ``line`` 1-based (or None)."""

    def __init__(self, message: str, *, path: Path | None = None, key: str | None = None, line: int | None = None):
        where = []
        if path is not None:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        prefix = ", ".join(where)
        text = message if key is None else f"{key}: {message}"
        super().__init__(f"{prefix}: {text}" if prefix else text)
        self.path = path
        self.key = key
        self.line = line


class _Bad(ValueError):
    """A value's problem, raised by the converters; the loader adds key and line."""


# -- value converters (raw TOML value, base directory) -> value -------------------


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array", dict: "a table"}.get(
        type(value), type(value).__name__
    )


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad(f"expected a number, not {_type_name(value)} ({value!r})")
    if not math.isfinite(value):
        raise _Bad(f"expected a finite number, not {value!r}")
    return float(value)


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad(f"expected an integer, not {_type_name(value)} ({value!r})")
    return value


def positive_float(value: Any, base: Path | None = None) -> float:
    v = _number(value)
    if v <= 0:
        raise _Bad(f"must be greater than 0, not {value!r}")
    return v


def non_negative_float(value: Any, base: Path | None = None) -> float:
    v = _number(value)
    if v < 0:
        raise _Bad(f"must be 0 or more, not {value!r}")
    return v


#: A config file larger than this is not one (the full reference config is a few KB).
MAX_CONFIG_BYTES = 1024 * 1024
#: The longest time any ``(s)`` key may give: one day (a longer one is a typo, and would overflow the clocks).
MAX_SECONDS = 86400.0


def seconds(value: Any, base: Path | None = None) -> float:
    """A time in seconds, more than 0 and at most :data:`MAX_SECONDS`."""
    v = positive_float(value, base)
    if v > MAX_SECONDS:
        raise _Bad(f"must be at most {MAX_SECONDS:g} seconds (one day), not {value!r}")
    return v


def seconds_or_zero(value: Any, base: Path | None = None) -> float:
    """A time in seconds, 0 (off) up to :data:`MAX_SECONDS`."""
    v = non_negative_float(value, base)
    if v > MAX_SECONDS:
        raise _Bad(f"must be at most {MAX_SECONDS:g} seconds (one day), not {value!r}")
    return v


def _at_most(limit: float, convert: Callable[[Any, Path | None], Any]) -> Callable[[Any, Path | None], Any]:
    """``convert`` with an upper bound ``limit``."""

    def bounded(value: Any, base: Path | None = None) -> Any:
        v = convert(value, base)
        if v > limit:
            raise _Bad(f"must be at most {limit:g}, not {value!r}")
        return v

    return bounded


def positive_int(value: Any, base: Path | None = None) -> int:
    v = _integer(value)
    if v <= 0:
        raise _Bad(f"must be greater than 0, not {value!r}")
    return v


def boolean(value: Any, base: Path | None = None) -> bool:
    if not isinstance(value, bool):
        raise _Bad(f"expected true or false, not {_type_name(value)} ({value!r})")
    return value


def parse_camera_source(value: Any, base: Path | None = None) -> str:
    """Check a camera source: "picamera2", "opencv:INDEX", "replay:DIR" or "sim".

    A relative replay directory is taken relative to ``base``. Returns the source.
    """
    if not isinstance(value, str):
        raise _Bad(f"expected a string, not {_type_name(value)} ({value!r})")
    if value in ("picamera2", "sim"):
        return value
    kind, sep, arg = value.partition(":")
    if sep and kind == "opencv":
        if not re.fullmatch(r"\d+", arg):
            raise _Bad(f"bad camera {value!r}: opencv:INDEX needs a device number, e.g. opencv:0")
        return f"opencv:{int(arg)}"
    if sep and kind == "replay":
        if not arg:
            raise _Bad(f"bad camera {value!r}: replay:DIR needs a folder, e.g. replay:/srv/frames")
        return "replay:" + str(_resolve(arg, base))
    hint = difflib.get_close_matches(kind, ["picamera2", "opencv", "replay", "sim"], n=1, cutoff=0.6)
    more = f"; did you mean {hint[0]!r}?" if hint else ""
    raise _Bad(f"unknown camera {value!r}: expected one of {', '.join(CAMERA_KINDS)}{more}")


def check_camera_source(value: str, base: Path | None = None) -> str:
    """Check a camera source given outside the file (``netzwerk run --camera``); ConfigError if bad."""
    try:
        return parse_camera_source(value, base)
    except _Bad as exc:
        raise ConfigError(str(exc), key="camera") from None


def _resolution(value: Any, base: Path | None = None) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise _Bad(f"expected [width, height], not {value!r}")
    w, h = (_integer(v) for v in value)
    if w <= 0 or h <= 0:
        raise _Bad(f"width and height must be greater than 0, not {value!r}")
    return (w, h)


def _corners(value: Any, base: Path | None = None) -> tuple[tuple[float, float], ...]:
    if not isinstance(value, list) or len(value) != 4:
        raise _Bad(f"expected four [x, y] pixel pairs (points A1, G1, G7, A7), not {value!r}")
    out = []
    for name, pair in zip(("A1", "G1", "G7", "A7"), value):
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Bad(f"corner {name}: expected [x, y], not {pair!r}")
        x, y = (_number(v) for v in pair)
        if x < 0 or y < 0:
            raise _Bad(f"corner {name}: pixel coordinates cannot be negative ({pair!r})")
        out.append((x, y))
    if len(set(out)) != 4:
        raise _Bad("two corners are the same pixel")
    return tuple(out)


def _optional_path(value: Any, base: Path | None = None) -> Path:
    if not isinstance(value, str):
        raise _Bad(f"expected a path string, not {_type_name(value)} ({value!r})")
    if not value.strip():
        raise _Bad("the path is empty (leave the key out for the default)")
    return _resolve(value, base)


def _rule_options(value: Any, base: Path | None = None) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _Bad(f"expected an array of option names, e.g. [\"must-capture\"], not {value!r}")
    out: list[str] = []
    for opt in value:
        if not isinstance(opt, str):
            raise _Bad(f"expected option names (strings), not {opt!r}")
        if opt not in KNOWN_RULE_OPTIONS:
            hint = difflib.get_close_matches(opt, KNOWN_RULE_OPTIONS, n=1, cutoff=0.6)
            more = f"; did you mean {hint[0]!r}?" if hint else f"; known options: {', '.join(KNOWN_RULE_OPTIONS)}"
            raise _Bad(f"unknown rule option {opt!r}{more}")
        if opt in out:
            raise _Bad(f"rule option {opt!r} named twice")
        out.append(opt)
    return tuple(out)


def _side(value: Any, base: Path | None = None) -> str:
    if value not in ("white", "black"):
        raise _Bad(f'expected "white" or "black", not {value!r}')
    return value


def _reader(value: Any, base: Path | None = None) -> str:
    if value not in VISION_READERS:
        raise _Bad(f"expected one of {', '.join(repr(r) for r in VISION_READERS)}, not {value!r}")
    return value


def white_side(value: Any, base: Path | None = None) -> str:
    """Check a white side: the image edge White's start row faces ("bottom", "top", "left", "right")."""
    if not isinstance(value, str):
        raise _Bad(f"expected a string, one of {', '.join(repr(s) for s in WHITE_SIDES)}, not {_type_name(value)} "
                   f"({value!r})")
    if value not in WHITE_SIDES:
        hint = difflib.get_close_matches(value.strip().lower(), WHITE_SIDES, n=1, cutoff=0.6)
        more = f"; did you mean {hint[0]!r}?" if hint else ""
        raise _Bad(f"expected one of {', '.join(repr(s) for s in WHITE_SIDES)} (the image edge White's start row "
                   f"faces), not {value!r}{more}")
    return value


def _resolve(text: str, base: Path | None) -> Path:
    p = Path(text).expanduser()
    if not p.is_absolute() and base is not None:
        p = base / p
    return p


# -- the sections -----------------------------------------------------------------


def _key(doc: str, convert: Callable[[Any, Path | None], Any], type_: str, default_doc: str | None = None) -> dict:
    return {"doc": doc, "convert": convert, "type": type_, "default_doc": default_doc}


@dataclass(frozen=True, slots=True)
class CameraConfig:
    source: str = field(
        default="picamera2",
        metadata=_key(
            'where frames come from: "picamera2" (the Pi camera), "opencv:INDEX" (a V4L2/USB camera), '
            '"replay:DIR" (images of a folder, in name order), "sim" (the synthetic camera). '
            "The `--camera` option of `netzwerk run` overrides it",
            parse_camera_source,
            "string",
        ),
    )
    resolution: tuple[int, int] = field(
        default=(1640, 1232), metadata=_key("frame size [width, height] in pixels", _resolution, "array of 2 integers")
    )
    fps: float = field(default=10.0, metadata=_key("frames per second requested from the camera", _at_most(1000, positive_float), "number"))


@dataclass(frozen=True, slots=True)
class CalibrationConfig:
    file: Path | None = field(
        default=None,
        metadata=_key(
            "a calibration file written by `netzwerk vision calibrate`; without it the companion calibrates "
            "from the start position at setup: from `corners` if given, else the corner markers, else the "
            "board's grid found in the picture (then `white_side` is needed)",
            _optional_path,
            "path",
            "(none)",
        ),
    )
    corners: tuple[tuple[float, float], ...] | None = field(
        default=None,
        metadata=_key(
            "the board's corner points A1, G1, G7, A7 in pixels, [[x, y], [x, y], [x, y], [x, y]], "
            "instead of finding the markers",
            _corners,
            "array of 4 [x, y]",
            "(none)",
        ),
    )
    white_side: str | None = field(
        default=None,
        metadata=_key(
            'without markers and `corners`: the image edge White\'s start row faces from the board\'s centre, '
            '"bottom", "top", "left" or "right" (the start position looks alike turned round, so the camera '
            "cannot tell); markers and `corners` win where given. The `--white-side` option of `netzwerk run` "
            "overrides it",
            white_side,
            "string",
            "(none)",
        ),
    )
    reader: str = field(
        default="any",
        metadata=_key(
            'which board reader a new calibration uses: "any" (any set: the 1984 board, home-made boards, '
            'chess or go pieces; learns the set from the start position) or "classic" (only the look our '
            "renderer first drew: the demo's). A calibration file says which reader made it. The `--reader` "
            "option of `netzwerk run` overrides it",
            _reader,
            "string",
        ),
    )


@dataclass(frozen=True, slots=True)
class RulesConfig:
    options: tuple[str, ...] = field(
        default=(),
        metadata=_key(
            "rule options of every game (docs/rules.md, section 4): " + ", ".join(f'"{o}"' for o in KNOWN_RULE_OPTIONS)
            + "; empty: the original rules",
            _rule_options,
            "array of strings",
        ),
    )
    starting_side: str = field(
        default="white",
        metadata=_key('who makes the first turn: "white" or "black" (ruling R-1)', _side, "string"),
    )
    battery_sides: bool = field(
        default=True,
        metadata=_key(
            "printed and blank sides of the batteries (ruling R-23, a players' aid, never a rule): after an "
            "accepted turn the batteries the camera sees blank are pointed at and named for the next player "
            "to turn back, and a turn whose newly blank batteries cannot be the energy its moves used gets a "
            "note (never a rejection); silent where the camera cannot tell a side. false: sides are ignored",
            boolean,
            "boolean",
        ),
    )


@dataclass(frozen=True, slots=True)
class TimingsConfig:
    stable_seconds: float = field(
        default=0.5,
        metadata=_key(
            "after a confirm press, the reading must stay unchanged this long before it is judged",
            seconds,
            "number (s)",
        ),
    )
    confirm_timeout: float = field(
        default=10.0,
        metadata=_key(
            "give up waiting for a stable, confident reading after a confirm press after this long "
            "(amber: unreadable, press again)",
            seconds,
            "number (s)",
        ),
    )
    camera_timeout: float = field(
        default=5.0,
        metadata=_key(
            "a camera that delivers no frame for this long is reported as failed", seconds, "number (s)"
        ),
    )
    poll_interval: float = field(
        default=0.1,
        metadata=_key("time between two frames while watching the board", seconds, "number (s)"),
    )
    watchdog_seconds: float = field(
        default=0.0,
        metadata=_key(
            "time between two systemd watchdog pings from the game loop; 0: half of the unit's `WatchdogSec=` "
            "(`$WATCHDOG_USEC`), no pings when the service manager asks for none",
            seconds_or_zero,
            "number (s)",
        ),
    )
    question_seconds: float = field(
        default=3.0,
        metadata=_key(
            "an amber question (two to four legal turns fit a doubtful reading) shows each candidate turn this "
            "long, one after the other; a confirm press takes the one shown",
            seconds,
            "number (s)",
        ),
    )
    recalibrate_after: float = field(
        default=5.0,
        metadata=_key(
            "during a game, when the board has been unreadable this long because the camera or the board moved "
            "(or nothing reads confidently, e.g. after the lamp was moved) while the picture keeps still, the "
            "camera is calibrated again from the last accepted board (retried after as long when that fails); "
            "0: never",
            seconds_or_zero,
            "number (s)",
        ),
    )


def _tone(value: Any, base: Path | None = None) -> float:
    from hardware.patterns import TONE_RANGE

    v = _number(value)
    lo, hi = TONE_RANGE
    if not lo <= v <= hi:
        raise _Bad(f"{v:g} Hz is outside the buzzer's range {lo:g}..{hi:g} Hz")
    return v


def _buzzer(value: Any, base: Path | None = None) -> str:
    if value not in ("tonal", "active"):
        raise _Bad(f'expected "tonal" (a passive piezo or transducer driven with PWM) or "active" '
                   f"(a buzzer with its own oscillator: one pitch), not {value!r}")
    return value


def _panel_timing(timing: str, doc: str, convert: Callable[[Any, Path | None], Any], type_: str) -> Any:
    """A ``[panel]`` key standing for the field ``timing`` of ``hardware.patterns.Timings`` (its default too)."""

    def default() -> Any:
        from hardware.patterns import Timings

        return getattr(Timings(), timing)

    return field(default_factory=default, metadata={**_key(doc, convert, type_), "timing": timing})


@dataclass(frozen=True, slots=True)
class PanelConfig:
    """The panel's timings and buzzer (the rest of ``hardware.patterns.Timings`` keeps its defaults)."""

    accepted_seconds: float = _panel_timing(
        "accepted_s", "how long the green LED stays lit after an accepted turn", seconds, "number (s)")
    illegal_beeps: int = _panel_timing(
        "illegal_beeps", "beeps of the buzzer for an illegal turn", _at_most(100, positive_int), "integer")
    illegal_tone_hz: float = _panel_timing(
        "illegal_tone_hz", "pitch of the illegal-turn beeps (tonal buzzer; 220..3520 Hz)", _tone, "number (Hz)")
    pointer_step_seconds: float = _panel_timing(
        "pointer_step_s", "how long the pointer LEDs show each move of a hint or a diagnosis", seconds,
        "number (s)")
    pointer_gap_seconds: float = _panel_timing(
        "pointer_gap_s", "dark pause between two moves on the pointer LEDs", seconds, "number (s)")
    long_press_seconds: float = _panel_timing(
        "hold_s", "how long undo and new game must be held", seconds, "number (s)")
    debounce_seconds: float = _panel_timing("bounce_s", "button debounce time", seconds, "number (s)")
    buzzer: str = field(
        default="tonal",
        metadata=_key('"tonal": a passive piezo or transducer driven with PWM (melodies); "active": a buzzer '
                      "with its own oscillator (one pitch, on/off)", _buzzer, "string"),
    )

    def timings(self):  # -> hardware.patterns.Timings
        """The panel's :class:`hardware.patterns.Timings` with this section's values."""
        from dataclasses import replace

        from hardware.patterns import Timings

        return replace(Timings(), **{f.metadata["timing"]: getattr(self, f.name)
                                     for f in fields(self) if "timing" in f.metadata})

    def panel_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``hardware.panel.Panel`` / ``hardware.factories.open_panel``."""
        return {"timings": self.timings(), "buzzer": self.buzzer}


@dataclass(frozen=True, slots=True)
class JournalConfig:
    path: Path = field(
        default_factory=default_journal_path,
        metadata=_key(
            "the SQLite game journal",
            _optional_path,
            "path",
            "`$STATE_DIRECTORY/journal.sqlite` (the service: /var/lib/netzwerk/journal.sqlite), "
            "else `~/.local/state/netzwerk/journal.sqlite`",
        ),
    )


def default_frames_dir(env: Mapping[str, str] | None = None) -> Path:
    return default_journal_path(dict(os.environ if env is None else env)).parent / "frames"


@dataclass(frozen=True, slots=True)
class FramesConfig:
    save_frames: bool = field(
        default=True,
        metadata=_key(
            "keep the camera frame of every confirm press, named so that `netzwerk audit` can replay the game",
            boolean,
            "boolean",
        ),
    )
    dir: Path = field(
        default_factory=default_frames_dir,
        metadata=_key(
            "where the frames are kept",
            _optional_path,
            "path",
            "`$STATE_DIRECTORY/frames`, else `~/.local/state/netzwerk/frames`",
        ),
    )
    max_mib: int = field(
        default=512,
        metadata=_key(
            "size cap of the frames folder in MiB; the oldest frames are deleted beyond it", positive_int, "integer"
        ),
    )


def bind_address(value: Any, base: Path | None = None) -> str:
    """An IP address to bind to (IPv4 or IPv6, written as numbers: "0.0.0.0", "127.0.0.1", "::")."""
    import ipaddress

    if not isinstance(value, str):
        raise _Bad(f"expected an IP address as a string, not {_type_name(value)} ({value!r})")
    try:
        return str(ipaddress.ip_address(value.strip().strip("[]")))
    except ValueError:
        raise _Bad(f'expected an IP address such as "0.0.0.0" (every address of the Pi) or "127.0.0.1" '
                   f"(this machine only), not {value!r}") from None


def port_number(value: Any, base: Path | None = None) -> int:
    v = _integer(value)
    if not 0 <= v <= 65535:
        raise _Bad(f"must be a TCP port 1..65535 (0: any free port), not {value!r}")
    return v


#: The shortest passphrase the web page's controls accept.
MIN_PASSPHRASE = 8


def passphrase(value: Any, base: Path | None = None) -> str:
    if not isinstance(value, str):
        raise _Bad(f"expected a string, not {_type_name(value)}")
    if len(value) < MIN_PASSPHRASE:
        raise _Bad(f"must have at least {MIN_PASSPHRASE} characters, not {len(value)}")
    if len(value) > 256 or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise _Bad("must be at most 256 characters, without control characters")
    return value


@dataclass(frozen=True, slots=True)
class WebConfig:
    enabled: bool = field(
        default=True,
        metadata=_key("serve the web page (the live game, the journal's games; docs/readme-web.md). "
                      "The `--web HOST:PORT` / `--web off` option of `netzwerk run` and `netzwerk demo` overrides it",
                      boolean, "boolean"),
    )
    bind: str = field(
        default="0.0.0.0",
        metadata=_key('the IP address the page is served on: "0.0.0.0" every IPv4 address of the Pi (the table\'s '
                      'network), "127.0.0.1" this machine only, or one address of the Pi. `netzwerk demo` binds '
                      '127.0.0.1 unless `--web` says otherwise', bind_address, "string"),
    )
    port: int = field(default=8080, metadata=_key(
        "the TCP port of the page (0: any free port). The service unit lets the page through on 8080 only: another "
        'port needs a drop-in (docs/readme-web.md, "Another port: a drop-in")', port_number, "integer"))
    max_clients: int = field(
        default=8,
        metadata=_key("the most browsers following the live game at once; one more is told to come back later "
                      "(fewer where half the open-file limit cannot serve them, said at start: docs/readme-web.md)",
                      _at_most(1000, positive_int), "integer"),
    )
    controls: bool = field(
        default=False,
        metadata=_key("the page's controls (confirm, undo, new game with its options and who begins): off unless "
                      "true, and then only with `passphrase`", boolean, "boolean"),
    )
    passphrase: str | None = field(
        default=None,
        metadata=_key(f"the passphrase every state-changing request of the page carries (controls) and the "
                      f"camera's setup view asks for (it shows the room); at least {MIN_PASSPHRASE} characters. "
                      "Without it there are no controls and no setup view", passphrase, "string", "(none)"),
    )


@dataclass(frozen=True)
class Config:
    camera: CameraConfig = field(default_factory=CameraConfig)
    calibration: CalibrationConfig = field(default_factory=CalibrationConfig)
    pins: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    rules: RulesConfig = field(default_factory=RulesConfig)
    timings: TimingsConfig = field(default_factory=TimingsConfig)
    panel: PanelConfig = field(default_factory=PanelConfig)
    journal: JournalConfig = field(default_factory=JournalConfig)
    frames: FramesConfig = field(default_factory=FramesConfig)
    web: WebConfig = field(default_factory=WebConfig)
    file: Path | None = None  # the file it was loaded from, None for the defaults


SECTIONS: dict[str, type] = {
    "camera": CameraConfig,
    "calibration": CalibrationConfig,
    "pins": dict,  # free keys: pin function name -> GPIO (BCM) number
    "rules": RulesConfig,
    "timings": TimingsConfig,
    "panel": PanelConfig,
    "journal": JournalConfig,
    "frames": FramesConfig,
    "web": WebConfig,
}
PINS_DOC = (
    "function name = GPIO number (BCM numbering, 0..53), e.g. `confirm_white = 17`; the gauge LEDs as "
    "`gauge = [4, 12, 13, 14, 15]` (first LED first, 1 to 10 LEDs) or `gauge_1 = 4`, `gauge_2 = 12`, ...; "
    '`new_game = "none"` for no new-game button (hold both confirms). Function names are in the hardware '
    "docs; unknown names and two functions on one pin are refused"
)


# -- locating keys in the text -------------------------------------------------------


def _split_key(text: str) -> tuple[str, ...] | None:
    """A TOML key path (``a.b``, ``"a b".c``) -> parts; None if it does not look like one."""
    parts: list[str] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            return None
        if text[i] in "\"'":
            q = text[i]
            j = i + 1
            buf = []
            while j < n and text[j] != q:
                if q == '"' and text[j] == "\\" and j + 1 < n:
                    buf.append(text[j + 1])
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            if j >= n:
                return None
            parts.append("".join(buf))
            i = j + 1
        else:
            m = re.match(r"[A-Za-z0-9_-]+", text[i:])
            if not m:
                return None
            parts.append(m.group(0))
            i += m.end()
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            return tuple(parts)
        if text[i] != ".":
            return None
        i += 1


def _scan_value(text: str, state: dict) -> None:
    """Update bracket depth / open multi-line string over one line of value text."""
    i, n = 0, len(text)
    while i < n:
        if state["ml"]:
            end = text.find(state["ml"], i)
            if end < 0:
                return
            i = end + 3
            state["ml"] = None
            continue
        c = text[i]
        if c == "#":
            return
        if text.startswith('"""', i) or text.startswith("'''", i):
            state["ml"] = text[i : i + 3]
            i += 3
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "'":
            j = text.find("'", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c in "[{":
            state["depth"] += 1
        elif c in "]}":
            state["depth"] -= 1
        i += 1


def _key_events(text: str):
    """(line, key path, is_table_header, value_continues) for every header and key, in order."""
    table: tuple[str, ...] = ()
    state = {"depth": 0, "ml": None}
    for number, line in enumerate(text.splitlines(), start=1):
        if state["depth"] > 0 or state["ml"]:
            _scan_value(line, state)
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        m = re.match(r"^\[\[?(.*?)\]\]?\s*(#.*)?$", stripped)
        if m and stripped.startswith("["):
            parts = _split_key(m.group(1))
            if parts is not None:
                table = parts
                yield number, table, True, False
                continue
        # key = value: find the '=' that ends the key (outside quotes).
        eq = _key_end(stripped)
        if eq is None:
            continue
        parts = _split_key(stripped[:eq])
        if parts is None:
            continue
        _scan_value(stripped[eq + 1 :], state)
        yield number, table + parts, False, bool(state["depth"] > 0 or state["ml"])


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Line number (1-based) of every table header and key defined in a TOML text."""
    lines: dict[tuple[str, ...], int] = {}
    for number, full, is_table, _ in _key_events(text):
        start = len(full) if is_table else 1
        for k in range(start, len(full) + 1):
            lines.setdefault(full[:k], number)
    return lines


def key_at_line(text: str, line: int) -> str | None:
    """The dotted key a syntax error on ``line`` concerns: the key defined on that line,
    the key whose multi-line value is still open there, or the section it is in."""
    lines = text.splitlines()
    if not 0 < line <= len(lines):
        return None
    table: tuple[str, ...] = ()
    open_key: tuple[str, ...] | None = None
    for number, full, is_table, continues in _key_events(text):
        if number == line:
            return ".".join(full)
        if number > line:
            break
        if is_table:
            table, open_key = full, None
        else:
            open_key = full if continues else None
    if open_key is not None:
        return ".".join(open_key)
    own = lines[line - 1].strip()
    if own.startswith("["):
        parts = _split_key(own.strip("[] \t").split("]")[0].split("#")[0])
        if parts:
            return ".".join(parts)
    eq = _key_end(own)
    parts = _split_key(own[:eq]) if eq is not None else None
    if parts:
        return ".".join(table + parts)
    return ".".join(table) if table else None


def duplicate_key(text: str) -> tuple[str, int, int] | None:
    """(dotted key, first line, second line) of a key or table defined twice, or None."""
    seen: dict[tuple[str, ...], int] = {}
    for number, full, is_table, _ in _key_events(text):
        if full in seen and not (is_table and number == seen[full]):
            return ".".join(full), seen[full], number
        seen[full] = number
    return None


def _key_end(text: str) -> int | None:
    q = None
    for i, c in enumerate(text):
        if q:
            if c == q:
                q = None
        elif c in "\"'":
            q = c
        elif c == "=":
            return i
    return None


# -- loading ---------------------------------------------------------------------------------


class _Context:
    def __init__(self, path: Path | None, lines: dict[tuple[str, ...], int]):
        self.path = path
        self.lines = lines

    def line(self, *key: str) -> int | None:
        for k in range(len(key), 0, -1):
            if key[:k] in self.lines:
                return self.lines[key[:k]]
        return None

    def error(self, message: str, *key: str) -> ConfigError:
        return ConfigError(message, path=self.path, key=".".join(key) if key else None, line=self.line(*key))


def _hint(name: str, known: list[str], prefix: str = "") -> str:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        return f"; did you mean {prefix}{close[0]}?"
    return f"; known: {', '.join(prefix + k for k in known)}"


def load_config(path: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Read a config file (``None``: the defaults). Raises :class:`ConfigError`."""
    env = dict(os.environ if env is None else env)
    if path is None:
        return _build({}, _Context(None, {}), None, env)
    p = Path(path).expanduser()
    try:
        raw_bytes = read_bytes(p, "config file", max_bytes=MAX_CONFIG_BYTES)
    except FileRefused as exc:
        raise ConfigError(str(exc)) from None
    try:
        text = raw_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw_bytes[: exc.start].count(b"\n") + 1
        raise ConfigError("the file is not UTF-8 text", path=p, line=line) from None
    return loads_config(text, path=p, env=env)


def loads_config(text: str, path: Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Parse config text; relative paths are taken relative to ``path``'s folder (or the working directory)."""
    env = dict(os.environ if env is None else env)
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise ConfigError("TOML nested too deep (arrays or tables within each other)", path=path) from None
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        line = int(m.group(1)) if m else None
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg)
        if m:
            msg += f" (column {m.group(2)})"
        dup = duplicate_key(text)
        if dup is not None:
            raise ConfigError(
                f"defined twice (first on line {dup[1]})", path=path, key=dup[0], line=dup[2]
            ) from None
        if line is None and "end of document" in str(exc):
            line = max((n for n, t in enumerate(text.splitlines(), start=1) if t.strip()), default=1)
        key = key_at_line(text, line) if line is not None else None
        raise ConfigError(f"TOML syntax error: {msg}", path=path, key=key, line=line) from None
    ctx = _Context(path, key_lines(text))
    base = path.parent if path is not None else None
    return _build(data, ctx, base, env, file=path)


def _build(data: dict, ctx: _Context, base: Path | None, env: dict[str, str], file: Path | None = None) -> Config:
    known = list(SECTIONS)
    for name, value in data.items():
        if name not in SECTIONS:
            if isinstance(value, dict):
                close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
                more = f"; did you mean [{close[0]}]?" if close else f"; known sections: {', '.join(known)}"
                raise ctx.error(f"unknown section [{name}]{more}", name)
            raise ctx.error(f"unknown key {name!r} outside any section{_hint(name, known)}", name)
        if not isinstance(value, dict):
            raise ctx.error(f"expected a section [{name}], not {_type_name(value)}", name)
    parts: dict[str, Any] = {}
    for name, cls in SECTIONS.items():
        table = data.get(name, {})
        if cls is dict:
            parts[name] = _pins(table, ctx)
            continue
        fmap = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in table.items():
            if key not in fmap:
                raise ctx.error(f"unknown key{_hint(key, list(fmap), prefix=name + '.')}", name, key)
            try:
                values[key] = fmap[key].metadata["convert"](value, base)
            except _Bad as exc:
                raise ctx.error(str(exc), name, key) from None
        # Defaults that depend on the environment ($STATE_DIRECTORY).
        if cls is JournalConfig and "path" not in values:
            values["path"] = default_journal_path(env)
        if cls is FramesConfig and "dir" not in values:
            values["dir"] = default_frames_dir(env)
        if cls is WebConfig and values.get("controls") and values.get("passphrase") is None:
            raise ctx.error("controls = true needs a passphrase (web.passphrase): every request of the controls "
                            "carries it", name, "controls")
        parts[name] = cls(**values)
    return Config(**parts, file=file)


def _pins(table: dict, ctx: _Context) -> Mapping[str, Any]:
    """The ``[pins]`` table, checked key by key and then as a whole pin map (hardware.pinmap)."""
    from hardware.errors import PinMapError
    from hardware.pinmap import PinMap

    known = list(PinMap.keys())
    used: dict[int, str] = {}
    out: dict[str, Any] = {}

    def gpio(value: Any, key: str, label: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ctx.error(f"expected a GPIO number (integer), not {_type_name(value)} ({value!r})", "pins", key)
        if not 0 <= value <= 53:
            raise ctx.error(f"GPIO number {value} out of range 0..53", "pins", key)
        if value in used:
            raise ctx.error(f"GPIO {value} is already used by pins.{used[value]}", "pins", key)
        used[value] = label
        return value

    for key, value in table.items():
        numbered = key.startswith("gauge_") and key[6:].isdigit() and int(key[6:]) >= 1
        if key not in known and not numbered:
            raise ctx.error(f"unknown pin{_hint(key, known + ['gauge_1'], prefix='pins.')}", "pins", key)
        if key == "gauge":
            if not isinstance(value, list) or not value:
                raise ctx.error(f"expected an array of GPIO numbers (the gauge LEDs, first LED first), "
                                f"not {_type_name(value)} ({value!r})", "pins", key)
            out[key] = [gpio(v, key, f"gauge[{i}]") for i, v in enumerate(value)]
        elif key == "new_game" and isinstance(value, str) and value.strip().lower() in ("", "none"):
            out[key] = None  # no dedicated new-game button (hold both confirms)
        else:
            out[key] = gpio(value, key, key)
    try:
        PinMap.from_mapping(out)
    except PinMapError as exc:
        raise ctx.error(str(exc), "pins") from None
    return MappingProxyType(out)


# -- the documented reference ---------------------------------------------------------------


def toml_value(value: Any) -> str:
    """A default value as it would be written in the TOML file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def reference_rows() -> list[tuple[str, str, str, str]]:
    """(key, type, default, meaning) of every key, in file order."""
    rows = []
    for name, cls in SECTIONS.items():
        if cls is dict:
            rows.append((f"{name}.NAME", "integer (gauge: array)", "(none: the hardware's default pin map)", PINS_DOC))
            continue
        for f in fields(cls):
            meta = f.metadata
            if meta["default_doc"] is not None:
                default = meta["default_doc"]
            else:
                value = f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]
                default = f"`{toml_value(value)}`"
            rows.append((f"{name}.{f.name}", meta["type"], default, meta["doc"]))
    return rows


def reference_markdown() -> str:
    """The key table of ``docs/config.md`` (generated; a test checks the doc holds it)."""
    out = []
    current = None
    for key, type_, default, doc in reference_rows():
        section = key.split(".")[0]
        if section != current:
            if current is not None:
                out.append("")
            out.append(f"### [{section}]")
            out.append("")
            out.append("| key | type | default | meaning |")
            out.append("| --- | --- | --- | --- |")
            current = section
        out.append(f"| `{key.split('.', 1)[1]}` | {type_} | {default} | {doc.replace('|', '/')} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":  # pragma: no cover - python -m companion.config
    sys.stdout.write(reference_markdown())
