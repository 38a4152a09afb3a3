"""``netzwerk run`` (the referee, as a service on the Pi) and ``netzwerk demo`` (a whole game, no Pi).

``run`` reads the TOML config (``--config FILE``, default ``/etc/netzwerk/config.toml``
when it exists), opens the panel (``--gpio auto``: the Pi's pins; ``mock``: simulated
pins), the camera (``--camera``, else ``[camera] source``) and the journal, and referees
until SIGTERM/SIGINT. Bad input -- a config mistake, no GPIO with ``--gpio auto``, a
missing camera, an unusable journal or calibration file -- exits 2 with one line on
stderr.

``demo`` plays a complete game with simulated players through the same game loop
(synthetic camera, mock pins, scripted presses) and exits 0; watched on a terminal
(or with ``--stay``) its web page stays up with the final board until Ctrl-C / SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from ..config import VISION_READERS, WHITE_SIDES
from ..rules.options import OPTIONS

SERVICE_CONFIG = Path("/etc/netzwerk/config.toml")
STAY_TICK = 0.2  # seconds: how soon the demo's page, kept up after its game, notices Ctrl-C or SIGTERM


class _Usage(Exception):
    """Bad input: one line on stderr, exit 2."""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "run",
        help="referee a physical game: camera, rules, GPIO panel (the service)",
        description="Referee a physical game of Netzwerk from the camera above the table, with the GPIO panel. "
                    "Runs until stopped (SIGTERM / Ctrl-C); resumes an open game from the journal.",
    )
    p.add_argument("--config", metavar="FILE",
                   help=f"TOML config file (default: {SERVICE_CONFIG} if it exists, else built-in defaults)")
    p.add_argument("--camera", metavar="SPEC",
                   help="picamera2, opencv:INDEX, replay:DIR or sim (default: [camera] source of the config)")
    p.add_argument("--gpio", choices=("auto", "mock"), default="auto",
                   help="auto: the Pi's GPIO pins (default); mock: simulated pins")
    frames = p.add_mutually_exclusive_group()
    frames.add_argument("--save-frames", dest="save_frames", action="store_true", default=None,
                        help="keep the frame of every confirm press (default: [frames] save_frames, on)")
    frames.add_argument("--no-save-frames", dest="save_frames", action="store_false",
                        help="do not keep the frames of confirm presses")
    p.add_argument("--live", action="store_true",
                   help="live watching: energy gauge during the robot phase, warn when a robot stands where "
                        "no legal move can have brought it")
    p.add_argument("--journal", metavar="PATH", help="the journal file (default: [journal] path of the config)")
    p.add_argument("--reader", choices=VISION_READERS,
                   help="the board reader of a new calibration: any (any set) or classic (the look our renderer first "
                        "drew); default: [calibration] reader of the config. A calibration file says its own")
    p.add_argument("--white-side", choices=WHITE_SIDES, metavar="bottom|top|left|right",
                   help="a board without corner markers and without [calibration] corners: the image edge White's "
                        "start row faces, for calibrating from the start position (which looks alike turned round; "
                        "default: [calibration] white_side of the config)")
    p.add_argument("--web", metavar="HOST:PORT|off",
                   help="serve the web page on this address (e.g. 0.0.0.0:8080, 127.0.0.1:8080), or off "
                        "(default: [web] of the config: on, 0.0.0.0:8080)")
    p.set_defaults(handler=_guard(_run))

    d = subparsers.add_parser(
        "demo",
        help="watch a whole simulated game refereed by the companion (no Pi needed)",
        description="Two simulated players play a game (legal turns, a few slips, a hand over the board) on the "
                    "synthetic camera, pressing their buttons on mock pins; the companion referees it through the "
                    "same game loop as `netzwerk run`. Prints the virtual panel, the log and the game record. "
                    "Watched on a terminal, the web page then stays up with the final board until Ctrl-C or "
                    "SIGTERM (--stay / --no-stay decide it); otherwise the demo exits when the game ends.",
    )
    d.add_argument("--seed", type=int, default=1, help="seed of the players' choices (default 1)")
    d.add_argument("--camera-seed", type=int, default=1, metavar="N",
                   help="the synthetic camera's setup: pose, lamp, table (default 1)")
    d.add_argument("--fast", action="store_true", help="no pauses, fewer panel drawings")
    d.add_argument("--option", action="append", default=[], metavar="NAME",
                   help=f"a rule option (repeatable): {', '.join(OPTIONS)}")
    d.add_argument("--journal", metavar="PATH",
                   help="the journal the game goes into, tagged as a demo (default: [journal] path of --config, "
                        "as for `netzwerk games`)")
    d.add_argument("--config", metavar="FILE",
                   help=f"config file giving [journal] path (default: {SERVICE_CONFIG} if it exists)")
    d.add_argument("--no-save", dest="save", action="store_false",
                   help="keep the game out of the journal")
    d.add_argument("--no-sides", dest="sides", action="store_false",
                   help="do not referee the batteries' printed and blank sides (R-23; the players turn them anyway)")
    d.add_argument("--color", dest="color", action="store_true", default=None, help="ANSI colours (default: on a terminal)")
    d.add_argument("--no-color", dest="color", action="store_false", help="no ANSI colours")
    d.add_argument("--web", metavar="HOST:PORT|off",
                   help="serve the web page of the game on this address, or off (default: 127.0.0.1:8080, "
                        "this machine only; [web] of --config for the rest)")
    stay = d.add_mutually_exclusive_group()
    stay.add_argument("--stay", dest="stay", action="store_true", default=None,
                      help="after the game, keep the web page up with the final board and the result until Ctrl-C "
                           "or SIGTERM (default: so when standard input and output are a terminal, without --fast "
                           "and with the page served)")
    stay.add_argument("--no-stay", dest="stay", action="store_false",
                      help="end when the game ends, even on a terminal (a script that waits for the demo)")
    d.set_defaults(handler=_guard(_demo))


def _guard(fn):  # noqa: ANN001, ANN202
    def handler(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except _Usage as exc:
            print(f"netzwerk {args.command}: {exc}", file=sys.stderr)
            return 2
    return handler


# -- demo ------------------------------------------------------------------------------------


def _demo(args: argparse.Namespace) -> int:
    for name in args.option:
        if name not in OPTIONS:
            raise _Usage(f"unknown rule option {name!r}: known options are {', '.join(OPTIONS)}")
    from ..rules.options import Rules

    refusal = Rules.from_names(args.option).camera_refusal()
    if refusal:
        raise _Usage(refusal)
    if args.seed < 0 or args.camera_seed < 0:
        raise _Usage(f"--seed and --camera-seed must be 0 or more, got {args.seed}, {args.camera_seed}")
    from ..config import ConfigError, load_config
    from ..demo import run_demo
    from ..referee.journal import Journal, JournalError
    from ..web.settings import DEMO_BIND, WebSettings
    from .games import journal_path

    try:
        web = WebSettings.from_config(load_config(args.config).web) if args.config else WebSettings()
        web = replace(web, bind=DEMO_BIND).with_option(args.web)
    except (ConfigError, ValueError) as exc:
        raise _Usage(str(exc)) from None
    save_to = None
    if args.save:
        try:
            path = journal_path(args.journal, args.config)
            save_to = Journal(path)  # opened now: an unusable journal stops the demo before it begins
        except (ConfigError, JournalError) as exc:
            raise _Usage(f"{exc} (--no-save plays the demo without a journal)") from None
    from ..web.launch import open_page

    played = tempfile.TemporaryDirectory(prefix="netzwerk-demo-")  # the game's own journal, shown on the page
    journal = Path(played.name) / "journal.sqlite"
    hub, server = open_page(web, journal, "demo")
    stay = stays_up(args.stay, fast=args.fast, served=server is not None)
    previous = _on_sigterm(_interrupt)  # SIGTERM as Ctrl-C: the page is told, the game's files go
    try:
        try:
            run_demo(seed=args.seed, fast=args.fast, options=tuple(dict.fromkeys(args.option)), color=args.color,
                     camera_seed=args.camera_seed, save_to=save_to, sides=args.sides, journal_path=journal,
                     spectator=hub)
        except JournalError as exc:
            raise _Usage(f"the demo game could not be saved: {exc}") from None
        finally:
            if save_to is not None:
                save_to.close()
        if stay and hub is not None and server is not None:
            hub.no_more_requests()  # the game loop has ended: the page's controls are told so
            print(f"netzwerk demo: the game has ended; the web page stays up at {server.url} with the final board "
                  "until Ctrl-C (or SIGTERM)", flush=True)
            try:
                _wait_for_interrupt()
            except KeyboardInterrupt:
                print("netzwerk demo: stopped; the page says so", flush=True)
    finally:
        if server is not None:
            server.stop()  # the browsers are told that the companion has stopped
        played.cleanup()
        _on_sigterm(previous)
    return 0


def stays_up(stay: bool | None, *, fast: bool, served: bool, stdin: object = None, stdout: object = None) -> bool:
    """Whether the demo keeps its page up after the game until Ctrl-C / SIGTERM: ``--stay`` / ``--no-stay``,
    else only for a person watching: the page served, not ``--fast``, standard input and output a terminal.
    Tests, CI, pipes and scripts that wait for the process (no terminal, or ``--no-stay``) never wait."""
    if not served:
        return False
    if stay is not None:
        return stay
    return not fast and _terminal(sys.stdin if stdin is None else stdin) and _terminal(
        sys.stdout if stdout is None else stdout)


def _terminal(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):  # no stream, or a closed one
        return False


def _wait_for_interrupt() -> None:
    """Sleep until Ctrl-C or SIGTERM raises KeyboardInterrupt. Not ``signal.pause()``: the page's server runs
    in a thread of its own, the kernel may hand a signal sent to the process to any thread that does not block
    it, and Python runs its handler only when the main thread next runs bytecode, which a main thread asleep
    in ``pause()`` would not do. Short sleeps let the handler run within a fraction of a second."""
    while True:
        time.sleep(STAY_TICK)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _on_sigterm(handler):  # noqa: ANN001, ANN202
    """Install ``handler`` for SIGTERM; the handler before (None outside the main thread, where nothing changes)."""
    if handler is None:
        return None
    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread (a test calling main() from another thread)
        return None


# -- run ---------------------------------------------------------------------------------------


def _run(args: argparse.Namespace) -> int:
    from hardware.errors import HardwareError, PinMapError
    from hardware.factories import open_panel
    from hardware.pinmap import PinMap

    from ..cameras import CameraError, open_camera
    from ..config import ConfigError, check_camera_source, load_config
    from ..referee.game import Companion, LogEntry, LoopTimings
    from ..vision_bridge import calibrator
    from ..rules.geometry import BLACK, WHITE
    from ..referee.journal import Journal, JournalError
    from ..rules.options import Rules
    from ..sd_notify import Notifier

    from ..web.settings import WebSettings

    path = Path(args.config) if args.config else (SERVICE_CONFIG if SERVICE_CONFIG.exists() else None)
    try:
        config = load_config(path)
        camera_spec = check_camera_source(args.camera, Path.cwd()) if args.camera else config.camera.source
        web = WebSettings.from_config(config.web).with_option(args.web)
    except (ConfigError, ValueError) as exc:
        raise _Usage(str(exc)) from None
    try:
        pin_map = PinMap.from_mapping(dict(config.pins))
    except PinMapError as exc:
        raise _Usage(f"{path or 'config'}: [pins] {exc}") from None
    rules = Rules.from_names(config.rules.options)
    refusal = rules.camera_refusal()
    if refusal:
        raise _Usage(f"{path or 'config'}: [rules] options: {refusal}")
    timings = LoopTimings.from_config(config.timings)
    from ..hints.jit import warm_up_in_background

    warm_up_in_background()  # hints: compile or load numba's cache now, not at the first hint press

    try:
        panel = open_panel(args.gpio, pin_map, **config.panel.panel_kwargs())
    except HardwareError as exc:
        raise _Usage(str(exc)) from None
    source = journal = server = None
    try:
        try:
            _quiet_opencv()
            source = open_camera(camera_spec, resolution=config.camera.resolution, timeout=timings.camera_timeout)
        except (CameraError, ValueError) as exc:
            # Not bad input: a camera not up yet (at boot) or unplugged. Exit 1, which the service
            # restarts (exit 2, a config error, it does not: RestartPreventExitStatus=2).
            print(f"netzwerk run: {exc}", file=sys.stderr)
            return 1
        journal_path = Path(args.journal) if args.journal else config.journal.path
        try:
            journal = Journal(journal_path)
        except JournalError as exc:
            raise _Usage(str(exc)) from None
        calibration = None
        if config.calibration.file is not None:
            from vision.errors import VisionError
            from vision.readers import load_calibration

            try:
                calibration = load_calibration(config.calibration.file)
            except VisionError as exc:
                raise _Usage(str(exc)) from None
        save = config.frames.save_frames if args.save_frames is None else args.save_frames
        frames = None
        if save:
            from ..referee.frames import FrameArchive, FrameArchiveError

            try:
                frames = FrameArchive(config.frames.dir, config.frames.max_mib)
            except FrameArchiveError as exc:
                raise _Usage(f"[frames]: {exc}") from None

        def on_log(entry: LogEntry) -> None:
            stamp = datetime.now().strftime("%H:%M:%S")
            print(f"{stamp} {entry.line().strip()}", flush=True)

        from ..web.launch import open_page

        hub, server = open_page(web, journal_path, "run")

        companion = Companion(
            panel, source, journal, rules=rules,
            starting_side=WHITE if config.rules.starting_side == "white" else BLACK,
            timings=timings, calibration=calibration,
            corners=config.calibration.corners,
            white_side=args.white_side or config.calibration.white_side,
            calibration_path=journal_path.parent / "calibration.json" if calibration is None else None,
            notifier=Notifier(), live_watch=args.live, frames=frames, on_log=on_log,
            calibrate=calibrator(args.reader or config.calibration.reader),
            sides=config.rules.battery_sides, spectator=hub,
        )
        signal.signal(signal.SIGTERM, lambda *_: companion.stop())
        print(f"netzwerk run: camera {camera_spec}, gpio {args.gpio}, journal {journal_path}, rules {rules.name}",
              flush=True)
        try:
            companion.run()
        except KeyboardInterrupt:
            pass
        except CameraError as exc:
            print(f"netzwerk run: the camera failed: {exc}; exiting so that the service restarts it "
                  "(the game resumes from the journal)", file=sys.stderr)
            return 1
        finally:
            companion.close()
        return 0
    finally:
        if server is not None:
            server.stop()
        if source is not None:
            source.close()
        if journal is not None:
            journal.close()
        panel.close()


def _quiet_opencv() -> None:
    try:
        import cv2

        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    except Exception:  # pragma: no cover - older OpenCV
        pass
