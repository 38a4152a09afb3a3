"""``netzwerk panel selftest|show``: the GPIO panel on its own.

* ``selftest --gpio auto`` (on the Pi): every LED one by one, all LEDs at once,
  the buzzer, then asks for every button (undo and new game: hold them).
  Stop the companion service first: it holds the pins.
* ``selftest --gpio mock``: the same walk on mock pins, unattended (button
  presses simulated on the pins, every LED checked on the pins), printing the
  virtual panel.
* ``show``: draws the virtual panel (mock pins) in a given state, in the terminal
  and optionally as a PNG.

Pins come from the ``[pins]`` table of ``--config FILE`` (defaults: docs/wiring.md).
Exit codes: 0 all well, 1 a self-test check failed or no GPIO on this machine,
2 bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fileio.paths import FileRefused, writable_output
from hardware.errors import PanelError, PinMapError
from hardware.factories import open_panel
from hardware.panel import Panel
from hardware.pinmap import PinMap
from hardware.pointer import PointerTarget
from hardware.selftest import Selftest
from hardware.timing import ManualClock
from hardware.virtual import VirtualPanel

SERVICE_CONFIG = Path("/etc/netzwerk/config.toml")
#: ``show --at``: the latest moment drawn, in seconds (every pattern repeats within seconds).
MAX_AT = 3600.0
#: ``selftest --button-timeout``: the longest wait for a button, in seconds.
MAX_BUTTON_TIMEOUT = 3600.0


class _Usage(Exception):
    """Bad input: one line on stderr, exit 2."""


class _NoGpio(Exception):
    """No usable GPIO: one line on stderr, exit 1."""


def register(subparsers: argparse._SubParsersAction) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", metavar="FILE",
                        help=f"config file whose [pins] and [panel] tables override the default pins and timings "
                             f"(default: {SERVICE_CONFIG} if it exists)")
    common.add_argument("--color", action="store_true", help="ANSI colours in the virtual panel")
    common.add_argument("--png", metavar="PATH", help="also write the virtual panel as a PNG image")
    common.add_argument("--json", action="store_true", help="machine-readable output")

    panel = subparsers.add_parser("panel", help="the GPIO panel: self-test, virtual panel",
                                  description="The GPIO panel (LEDs, pointer LEDs, buzzer, buttons) on its own.")
    sub = panel.add_subparsers(dest="panel_command", metavar="ACTION")
    sub.required = True

    p = sub.add_parser("selftest", parents=[common], help="walk every LED, the buzzer and every button",
                       description="Walk every LED, the buzzer, and ask for every button. With --gpio mock "
                                   "it runs unattended on mock pins and prints the virtual panel.")
    p.add_argument("--gpio", choices=("auto", "mock"), default="auto",
                   help="auto: the Pi's pins (gpiozero's default pin factory); mock: simulated pins")
    p.add_argument("--button-timeout", type=float, default=30.0, metavar="S",
                   help="seconds to wait for each button on real hardware (default 30)")
    p.set_defaults(handler=lambda a: _run(_selftest, a))

    p = sub.add_parser("show", parents=[common], help="print the virtual panel in a given state",
                       description="Draw the virtual panel (mock pins) in the state given by the options.")
    p.add_argument("--turn", choices=("white", "black"), help="light a turn LED")
    p.add_argument("--status", choices=("accepted", "illegal", "unreadable"), help="a status signal")
    p.add_argument("--point", nargs="+", metavar="TARGET",
                   help="pointer targets in turn: squares a1..f6, points A1..G7, a trailing * blinks")
    p.add_argument("--gauge", metavar="VALUE/MAX", help="energy gauge, e.g. 3/14")
    p.add_argument("--win", choices=("white", "black"), help="the win pattern of a side")
    p.add_argument("--at", type=float, default=0.0, metavar="S",
                   help="draw the panel S seconds after the state was set (default 0)")
    p.set_defaults(handler=lambda a: _run(_show, a))


def _run(fn, args: argparse.Namespace) -> int:  # noqa: ANN001
    try:
        return fn(args)
    except (_Usage, FileRefused) as exc:
        print(f"netzwerk panel: {exc}", file=sys.stderr)
        return 2
    except _NoGpio as exc:
        print(f"netzwerk panel: {exc}", file=sys.stderr)
        return 1


def _panel_setup(args: argparse.Namespace) -> tuple[PinMap, dict]:
    """The pin map and the panel's keyword arguments (timings, buzzer) from the config file."""
    path = Path(args.config) if args.config else (SERVICE_CONFIG if SERVICE_CONFIG.exists() else None)
    if path is None:
        return PinMap(), {}
    from ..config import ConfigError, load_config

    try:
        config = load_config(path)
    except ConfigError as exc:
        raise _Usage(str(exc)) from None
    try:
        return PinMap.from_mapping(dict(config.pins)), config.panel.panel_kwargs()
    except PinMapError as exc:
        raise _Usage(f"{path}: [pins] {exc}") from None


def _mock_panel(pin_map: PinMap, kwargs: dict) -> Panel:
    return open_panel("mock", pin_map, clock=ManualClock(), **kwargs)


def _real_panel(pin_map: PinMap, kwargs: dict) -> Panel:
    try:
        return open_panel("auto", pin_map, **kwargs)
    except PanelError as exc:
        raise _NoGpio(str(exc)) from None


def _png_out(args: argparse.Namespace) -> None:
    """Refuse a ``--png`` that cannot be written (a folder, a missing folder, not .png, an input) before any work."""
    if args.png is None:
        return
    try:
        writable_output(args.png, "--png", inputs=(args.config,) if args.config else (), suffixes=(".png",))
    except FileRefused as exc:
        raise _Usage(str(exc)) from None


def _selftest(args: argparse.Namespace) -> int:
    if not 0 < args.button_timeout <= MAX_BUTTON_TIMEOUT:
        raise _Usage(f"--button-timeout must lie above 0 and at most {MAX_BUTTON_TIMEOUT:g} seconds, "
                     f"got {args.button_timeout}")
    _png_out(args)
    pin_map, kwargs = _panel_setup(args)
    mock = args.gpio == "mock"
    panel = _mock_panel(pin_map, kwargs) if mock else _real_panel(pin_map, kwargs)
    out = (lambda line: None) if args.json else print
    try:
        if not mock and not args.json:
            print("Panel self-test: watch the LEDs light one by one, listen to the buzzer, "
                  "then press the buttons when asked.")
        test = Selftest(panel, simulate=mock, out=out, button_timeout_s=args.button_timeout,
                        show_virtual=mock and not args.json, color=args.color, png=args.png)
        report = test.run()
        test.virtual.close()
    finally:
        panel.close()
    if args.json:
        print(json.dumps({"gpio": args.gpio, **report.as_dict()}, indent=2))
    else:
        failed = report.failures()
        print(f"self-test {'passed' if report.ok else 'FAILED'}: {len(report.checks) - len(failed)} of "
              f"{len(report.checks)} checks ok" + (f" (failed: {', '.join(c.name for c in failed)})" if failed else ""))
    return 0 if report.ok else 1


def _show(args: argparse.Namespace) -> int:
    _png_out(args)
    pin_map, kwargs = _panel_setup(args)
    targets: list[PointerTarget] = []
    for text in args.point or ():
        try:
            targets.append(PointerTarget.parse(text))
        except ValueError as exc:
            raise _Usage(f"--point: {exc}") from None
    gauge: tuple[float, float] | None = None
    if args.gauge is not None:
        try:
            value, maximum = (float(x) for x in args.gauge.split("/"))
        except ValueError:
            raise _Usage(f"--gauge: expected VALUE/MAX like 3/14, got {args.gauge!r}") from None
        gauge = (value, maximum)
    if not 0 <= args.at <= MAX_AT:
        raise _Usage(f"--at must lie between 0 and {MAX_AT:g} seconds, got {args.at}")
    panel = _mock_panel(pin_map, kwargs)
    try:
        with VirtualPanel(panel) as virtual:
            if args.win:
                panel.show_win(args.win)
            if args.turn:
                panel.show_turn(args.turn)
            if args.status:
                getattr(panel, f"signal_{args.status}")()
            if targets:
                panel.show_sequence(targets)
            if gauge is not None:
                try:
                    panel.show_gauge(*gauge)
                except ValueError as exc:
                    raise _Usage(f"--gauge: {exc}") from None
            panel.clock.advance(args.at)  # type: ignore[attr-defined]
            if args.png:
                virtual.save_png(args.png)
            if args.json:
                print(json.dumps(panel.state().as_dict(), indent=2))
            else:
                print(virtual.render_text(color=args.color))
                if args.png:
                    print(f"image written to {args.png}")
    finally:
        panel.close()
    return 0
