"""Camera subcommands: ``netzwerk vision markers|calibrate|read|render|overlay``.

Exit codes: 0 done; 1 the board could not be read (the reason on stderr, or in
the JSON); 2 bad input (a message naming what was wrong).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from .errors import NotationError

WRITABLE = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def _fail(message: str, code: int = 2) -> int:
    print(f"netzwerk vision: {message}", file=sys.stderr)
    return code


def _load_image(path: str) -> np.ndarray:
    import cv2

    from vision.errors import BadImage

    p = Path(path)
    if not p.is_file():
        raise BadImage(f"image {path!r} does not exist")
    image = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if image is None:
        raise BadImage(f"image {path!r} cannot be read (not an image, or corrupt)")
    return image


def _write_image(path: str, image: np.ndarray) -> None:
    import cv2

    from vision.errors import VisionError

    p = Path(path)
    if p.suffix.lower() not in WRITABLE:
        raise VisionError(f"output {path!r}: the name must end in one of {', '.join(WRITABLE)}")
    ok, buf = cv2.imencode(p.suffix.lower(), image)
    if not ok:
        raise VisionError(f"cannot encode the image as {p.suffix}")
    try:
        p.write_bytes(buf.tobytes())
    except OSError as exc:
        raise VisionError(f"cannot write {path!r}: {exc.strerror or exc}") from None


def _guard(fn):
    def run(args: argparse.Namespace) -> int:
        from vision.errors import VisionError

        try:
            return fn(args)
        except (VisionError, NotationError) as exc:
            if getattr(args, "json", False):
                print(json.dumps({"error": str(exc)}))
            return _fail(str(exc))

    return run


@_guard
def cmd_markers(args: argparse.Namespace) -> int:
    from vision.markers import PLACEMENT, write_marker_sheet

    path = write_marker_sheet(args.out, dpi=args.dpi)
    print(f"wrote {path}")
    print(PLACEMENT, end="")
    return 0


@_guard
def cmd_calibrate(args: argparse.Namespace) -> int:
    from vision.calibration import calibrate, parse_corners

    from .vision_bridge import START_LAYOUT

    corners = parse_corners(args.corners) if args.corners else None
    image = _load_image(args.image)
    cal = calibrate(image, START_LAYOUT, corners=corners)
    cal.save(args.out)
    how = "the field corners given" if corners is not None else f"the corner markers (marker side {cal.marker_side:.2f} squares)"
    if args.json:
        print(json.dumps({"calibration": str(args.out), "method": cal.method, "image_size": list(cal.image_size),
                          "corners_px": [[round(float(v), 1) for v in c] for c in cal.corners_px]}))
    else:
        print(f"calibrated from {how}; image {cal.image_size[0]}x{cal.image_size[1]}; wrote {args.out}")
        names = ("A1", "G1", "G7", "A7")
        print("field corners: " + "  ".join(f"{n}=({x:.0f},{y:.0f})" for n, (x, y) in zip(names, cal.corners_px)))
    return 0


@_guard
def cmd_read(args: argparse.Namespace) -> int:
    from vision.calibration import Calibration
    from vision.reader import BoardReader

    from .vision_bridge import robots_and_batteries_fields

    if not 0.0 < args.min_confidence < 1.0:
        return _fail(f"--min-confidence {args.min_confidence}: must lie between 0 and 1")
    cal = Calibration.load(args.calibration)
    image = _load_image(args.image)
    reading = BoardReader(cal, adapt=False, min_confidence=args.min_confidence).read(image)
    if args.json:
        out = reading.to_json()
        out["position_fields"] = robots_and_batteries_fields(reading.layout) if reading.layout is not None else None
        print(json.dumps(out))
        return 0 if reading.readable else 1
    if not reading.readable:
        return _fail(f"board not readable: {reading.reason}", 1)
    print(robots_and_batteries_fields(reading.layout))
    return 0


@_guard
def cmd_render(args: argparse.Namespace) -> int:
    from vision.render import render

    from .position import Position
    from .vision_bridge import layout_from_position

    pos = Position.from_string(args.position)
    try:
        size = tuple(int(v) for v in args.size.lower().split("x"))
        if len(size) != 2 or min(size) < 160:
            raise ValueError
    except ValueError:
        return _fail(f"--size {args.size!r}: expected WIDTHxHEIGHT, at least 160x160")
    frame = render(layout_from_position(pos), args.seed, markers=args.markers, size=size, hand=args.hand)
    _write_image(args.out, frame.image)
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in frame.corners_px)
    print(f"wrote {args.out}; field corners A1 G1 G7 A7: {corners}")
    return 0


@_guard
def cmd_overlay(args: argparse.Namespace) -> int:
    from vision.calibration import Calibration
    from vision.overlay import draw_overlay
    from vision.reader import BoardReader

    cal = Calibration.load(args.calibration)
    image = _load_image(args.image)
    reader = BoardReader(cal, adapt=False)
    reading = reader.read(image)
    # drawn where the reader found the board: a camera nudged since calibration is relocated
    # by its markers, and the grid must follow (the file's homography would be off)
    _write_image(args.out, draw_overlay(image, reader.calibration, reading))
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
    p.add_argument("--dpi", type=int, default=150, help="resolution of the sheet (default 150)")
    p.set_defaults(handler=cmd_markers)

    p = sub.add_parser("calibrate", help="calibrate from a photo of the start position")
    p.add_argument("--image", required=True, metavar="START.jpg", help="a photo of the board in the start position")
    p.add_argument("--corners", metavar='"x,y x,y x,y x,y"',
                   help="pixel positions of the field corners A1 G1 G7 A7 (for a board without markers)")
    p.add_argument("--out", required=True, metavar="cal.json", help="where to write the calibration")
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
    p.add_argument("--size", default="1280x960", metavar="WxH", help="image size (default 1280x960)")
    p.set_defaults(handler=cmd_render)

    p = sub.add_parser("overlay", help="the photo with the calibrated grid and what was read drawn on it")
    p.add_argument("--image", required=True, metavar="IMG")
    p.add_argument("--calibration", required=True, metavar="cal.json")
    p.add_argument("--out", required=True, metavar="PNG")
    p.set_defaults(handler=cmd_overlay)
