"""Camera subcommands: ``netzwerk vision markers|calibrate|read|render|overlay``.

Exit codes: 0 done; 1 the board could not be read (the reason on stderr, or in
the JSON); 2 bad input (a message naming what was wrong).
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from fileio.images import WRITABLE_SUFFIXES
from fileio.paths import FileRefused, read_text, writable_output

from ..rules.errors import NotationError

#: ``vision render --size``: each side of the picture, in pixels.
RENDER_SIDE = (160, 8192)


def _fail(message: str, code: int = 2) -> int:
    print(f"netzwerk vision: {message}", file=sys.stderr)
    return code


def _load_image(path: str) -> np.ndarray:
    from fileio.images import read_image

    return read_image(path, "image")


def _write_image(path: str, image: np.ndarray, inputs: tuple[str, ...] = ()) -> None:
    from fileio.images import write_image

    write_image(writable_output(path, "output", inputs=inputs, suffixes=WRITABLE_SUFFIXES), image)


def _guard(fn):
    def run(args: argparse.Namespace) -> int:
        from vision.errors import VisionError

        try:
            return fn(args)
        except (VisionError, NotationError, FileRefused) as exc:
            if getattr(args, "json", False):
                print(json.dumps({"error": str(exc)}))
            return _fail(str(exc))

    return run


@_guard
def cmd_markers(args: argparse.Namespace) -> int:
    from vision.markers import PLACEMENT, write_marker_sheet

    path = write_marker_sheet(writable_output(args.out, "--out", suffixes=(".png", ".pdf")), dpi=args.dpi)
    print(f"wrote {path}")
    print(PLACEMENT, end="")
    return 0


def _check_calibration_out(out: str, image: str) -> str | None:
    """Why ``--out`` must not be written (the input photo, a folder, a file that is not a calibration), or None."""
    from vision.readers import FORMATS

    try:
        p = writable_output(out, "--out", inputs=(image,))
    except FileRefused as exc:
        return str(exc)
    if p.exists():
        try:
            data = json.loads(read_text(p, "--out"))
            ok = isinstance(data, dict) and data.get("format") in FORMATS.values()
        except (FileRefused, ValueError, RecursionError):
            ok = False
        if not ok:
            return (f"--out {out!r} exists and is not a calibration file: not overwritten "
                    "(give another name, or remove it first)")
    return None


def _robot_height_note(height: float | None) -> str:
    """What calibration measured of the robots' height (vision.anyset.stature), for the user."""
    from vision.anyset.reader import HIDE_HEIGHT

    if height is None:
        return (f"robots: their height could not be measured on this photo; a point a robot "
                f"{HIDE_HEIGHT:g} of a square tall could hide is reported doubtful")
    if height >= HIDE_HEIGHT:
        return f"robots: measured about {height:.2f} of a square tall; a point one could hide is reported doubtful"
    return (f"robots: measured about {height:.2f} of a square tall (as the camera sees them); only a point "
            f"a robot that tall could hide is reported doubtful")


@_guard
def cmd_calibrate(args: argparse.Namespace) -> int:
    from vision.calibration import parse_corners, white_side_of
    from vision.errors import VisionError
    from vision.readers import calibrate, load_calibration

    from ..rules.position import Position
    from ..vision_bridge import layout_from_position

    pos = Position.from_string(args.position)
    corners = parse_corners(args.corners) if args.corners else None
    why = _check_calibration_out(args.out, args.image)
    if why:
        return _fail(why)
    colours = None
    if args.colours_from:
        try:
            colours = load_calibration(args.colours_from).colours
        except VisionError as exc:
            return _fail(f"--colours-from: {exc}")
    image = _load_image(args.image)
    cal = calibrate(image, layout_from_position(pos), reader=args.reader, corners=corners, white_side=args.white_side,
                    colours=colours)
    cal.save(args.out)
    side = white_side_of(cal.H)
    if cal.method == "markers":
        how = f"the corner markers (marker side {cal.marker_side:.2f} squares)"
    elif cal.method == "corners":
        how = "the field corners given"
    else:
        how = f"the board's grid found in the picture, White's start row towards the {side} of the image"
    if args.white_side and cal.method != "grid":
        how += f" (--white-side not used: the {'markers' if cal.method == 'markers' else 'corners'} fix the orientation)"
    if colours is not None and pos.white and pos.black:
        how += " (--colours-from not used: both robot colours are on the board and were learned from it)"
    if args.json:
        print(json.dumps({"calibration": str(args.out), "reader": args.reader, "method": cal.method, "image_size": list(cal.image_size),
                          "corners_px": [[round(float(v), 1) for v in c] for c in cal.corners_px],
                          "white_side": side, "position": pos.to_string(),
                          "colours_from": str(args.colours_from) if args.colours_from else None,
                          "robot_height": getattr(cal, "robot_height", None)}))
    else:
        which = "the any-set reader; " if args.reader == "any" else ""
        print(f"calibrated from {how}; image {cal.image_size[0]}x{cal.image_size[1]}; {which}wrote {args.out}")
        names = ("A1", "G1", "G7", "A7")
        print("field corners: " + "  ".join(f"{n}=({x:.0f},{y:.0f})" for n, (x, y) in zip(names, cal.corners_px)))
        if args.reader == "any":
            print(_robot_height_note(getattr(cal, "robot_height", None)))
    return 0


@_guard
def cmd_read(args: argparse.Namespace) -> int:
    from vision.readers import board_reader, load_calibration

    from ..vision_bridge import robots_and_batteries_fields

    if not 0.0 < args.min_confidence < 1.0:
        return _fail(f"--min-confidence {args.min_confidence}: must lie between 0 and 1")
    cal = load_calibration(args.calibration)
    image = _load_image(args.image)
    reading = board_reader(cal, adapt=False, min_confidence=args.min_confidence).read(image)
    if args.json:
        out = reading.to_json()
        out["position_fields"] = robots_and_batteries_fields(reading.layout) if reading.layout is not None else None
        print(json.dumps(out))
        return 0 if reading.readable else 1
    if not reading.readable:
        return _fail(f"board not readable: {reading.reason}" + _doubts_text(reading), 1)
    print(robots_and_batteries_fields(reading.layout))
    return 0


def _doubts_text(reading) -> str:
    """The doubtful fields the reader gives a cause for, one a line (empty where it gives none)."""
    doubts = reading.doubts
    return "".join(f"\n  {name}: {why}" for name, why in doubts.items())


@_guard
def cmd_render(args: argparse.Namespace) -> int:
    from vision.designs import resolve_design
    from vision.render import render

    from ..rules.position import Position
    from ..vision_bridge import layout_from_position

    pos = Position.from_string(args.position)
    lo, hi = RENDER_SIDE
    try:
        size = tuple(int(v) for v in args.size.lower().split("x"))
        if len(size) != 2 or not all(lo <= v <= hi for v in size):
            raise ValueError
    except ValueError:
        return _fail(f"--size {args.size!r}: expected WIDTHxHEIGHT, each side from {lo} to {hi} pixels")
    try:
        design = resolve_design(args.design, args.seed)
    except (ValueError, TypeError):
        return _fail(f"--design {args.design!r}: expected a design seed (an integer), 'random' or 'classic'")
    out = writable_output(args.out, "--out", suffixes=WRITABLE_SUFFIXES)
    frame = render(layout_from_position(pos), args.seed, markers=args.markers, size=size, hand=args.hand, design=design,
                   placement=args.placement)
    _write_image(str(out), frame.image)
    print(frame.design.summary())
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in frame.corners_px)
    print(f"wrote {args.out}; field corners A1 G1 G7 A7: {corners}")
    return 0


@_guard
def cmd_overlay(args: argparse.Namespace) -> int:
    from vision.overlay import draw_overlay
    from vision.readers import board_reader, load_calibration

    writable_output(args.out, "--out", inputs=(args.image, args.calibration), suffixes=WRITABLE_SUFFIXES)
    cal = load_calibration(args.calibration)
    image = _load_image(args.image)
    reader = board_reader(cal, adapt=False)
    reading = reader.read(image)
    # drawn where the reader found the board: a camera nudged since calibration is relocated
    # by its markers, and the grid must follow (the file's homography would be off)
    _write_image(args.out, draw_overlay(image, reader.calibration, reading), inputs=(args.image, args.calibration))
    state = "readable" if reading.readable else f"not readable: {reading.reason}"
    sides = [s["side"] for s in reading.sides_json().values()]
    if sides:
        state += "; battery sides: " + ", ".join(f"{sides.count(s)} {s}" for s in ("printed", "blank", "unknown"))
    print(f"wrote {args.out} ({state})")
    return 0


def register(subparsers) -> None:
    vp = subparsers.add_parser("vision", help="the camera: marker sheet, calibration, reading photos, synthetic pictures",
                               description="Camera tools: print the corner markers, calibrate from the start position, read a photo.")
    sub = vp.add_subparsers(dest="vision_command", metavar="ACTION")
    sub.required = True

    p = sub.add_parser("markers", help="write the printable corner-marker sheet (PNG or PDF) with placement instructions")
    p.add_argument("--out", required=True, metavar="FILE", help="FILE.png or FILE.pdf")
    p.add_argument("--dpi", type=int, default=150, help="resolution of the sheet, 50 to 600 (default 150)")
    p.set_defaults(handler=cmd_markers)
    from ..config import VISION_READERS, WHITE_SIDES  # = vision.calibration.WHITE_SIDES, vision.readers.READERS, without loading the camera code
    from ..config import WHITE_SIDES  # = vision.calibration.WHITE_SIDES, without loading the camera code
    from ..rules.position import Position

    start_string = Position.start().to_string()
    p = sub.add_parser("calibrate", help="calibrate from a photo of the start position (or another known position)",
                       description="Calibrate the camera from a photo of a known position (default: the start "
                                   "position). The board is located by its corner markers, else by --corners, "
                                   "else by its 7x7 grid found in the photo (then --white-side says which way "
                                   "White's start row faces).")
    p.add_argument("--image", required=True, metavar="START.jpg",
                   help="a photo of the board showing the position of --position (default: the start position)")
    p.add_argument("--corners", metavar='"x,y x,y x,y x,y"',
                   help="pixel positions of the field corners A1 G1 G7 A7 (for a board without markers)")
    p.add_argument("--white-side", choices=WHITE_SIDES, metavar="bottom|top|left|right",
                   help="without markers and --corners: the image edge White's start row faces from the board's "
                        "centre (the start position looks alike turned round)")
    p.add_argument("--reader", choices=VISION_READERS, default="any",
                   help="the board reader: any (any set: the 1984 board, home-made boards, chess or go pieces; "
                        "learns the set from this photo; default) or classic (only the look our renderer first drew)")
    p.add_argument("--position", default=start_string, metavar="POSITION",
                   help="the position the photo shows, a full position string (default: the start position, "
                        f'"{start_string}")')
    p.add_argument("--colours-from", metavar="OLD_CAL.json",
                   help="take the robot colours from an earlier calibration of this set (for a position with "
                        "robots of only one colour left)")
    p.add_argument("--out", required=True, metavar="cal.json",
                   help="where to write the calibration (never the image, nor an existing file that is not a "
                        "calibration)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=cmd_calibrate)

    p = sub.add_parser("read", help="read a photo: the robots and batteries fields of the position string")
    p.add_argument("--image", required=True, metavar="IMG")
    p.add_argument("--calibration", required=True, metavar="cal.json")
    p.add_argument("--min-confidence", type=float, default=0.98, metavar="P",
                   help="fields read with a lower probability make the board unreadable (default 0.98)")
    p.add_argument("--json", action="store_true",
                   help="per-field probabilities, the reason if unreadable, and each battery's side "
                        "(printed / blank / unknown, with P(printed))")
    p.set_defaults(handler=cmd_read)

    p = sub.add_parser("render", help="draw a position as the synthetic camera sees it")
    p.add_argument("position", metavar="POSITION", help='a full position string, e.g. "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"')
    p.add_argument("--out", required=True, metavar="IMG")
    p.add_argument("--seed", type=int, default=0, help="fixes camera, board, light (default 0)")
    p.add_argument("--markers", action="store_true", help="put the ArUco corner markers on the table")
    p.add_argument("--hand", action="store_true", help="a hand reaching over the board")
    p.add_argument("--size", default="1280x960", metavar="WxH", help=f"image size, each side {RENDER_SIDE[0]} to {RENDER_SIDE[1]} (default 1280x960)")
    p.add_argument("--design", default="classic", metavar="SEED|random|classic",
                   help="the look of the set (board print, energy fields, robot shape and colours, batteries, table): "
                        "'classic' (default: the original wooden board with octagonal robots), an integer design "
                        "seed (the same seed, the same set), or 'random' (a set drawn from --seed)")
    p.add_argument("--placement", type=int, default=None, metavar="N",
                   help="set every piece down anew, as a position set up from scratch (another N, other places); "
                        "without it a piece stands where --seed puts a piece of its kind on its field, so two "
                        "positions of one --seed show the pieces they share in the same places, as a game does")
    p.set_defaults(handler=cmd_render)

    p = sub.add_parser("overlay", help="the photo with the calibrated grid and what was read drawn on it")
    p.add_argument("--image", required=True, metavar="IMG")
    p.add_argument("--calibration", required=True, metavar="cal.json")
    p.add_argument("--out", required=True, metavar="PNG")
    p.set_defaults(handler=cmd_overlay)
