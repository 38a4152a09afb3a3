"""``netzwerk audit DIR``: referee a recorded game from a folder of photos (issue 10).

Exit codes: 0 the folder was refereed to the end (illegal turns are verdicts,
not errors); 2 bad input (missing/empty folder, a file that is not an image, a
first photo that does not show the start position, a broken calibration file),
with a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fileio.atomic import atomic_write_text
from fileio.paths import FileRefused, writable_output

from ..referee.audit import AuditError, AuditResult, audit_folder, parse_corners
from ..config import VISION_READERS, WHITE_SIDES
from ..rules.errors import NotationError
from ..rules.geometry import BLACK, WHITE
from ..rules.options import OPTION_HELP, Rules


def _fail(message: str) -> int:
    print(f"netzwerk audit: {message}", file=sys.stderr)
    return 2


def _emit(obj: dict) -> None:
    print(json.dumps(obj, ensure_ascii=False), flush=True)


def _inputs(args: argparse.Namespace) -> list[Path]:
    """The files the audit reads: every file in the folder (photos, the archive's metadata) and the calibration."""
    found: list[Path] = [Path(args.calibration)] if args.calibration else []
    folder = Path(args.folder)
    try:
        found += [p for p in folder.iterdir() if not p.is_dir()]
    except OSError:
        pass  # the audit names the folder's trouble itself
    return found


def cmd_audit(args: argparse.Namespace) -> int:
    try:
        rules = Rules.from_names(args.option) if args.option else None
    except NotationError as exc:
        return _fail(f"--option: {exc}")
    if rules is not None and rules.camera_refusal():
        return _fail(f"--option: {rules.camera_refusal()}")
    if args.calibration is not None and args.corners is not None:
        return _fail("give either --calibration or --corners, not both")
    if args.calibration is not None and args.reader is not None:
        return _fail("give either --calibration or --reader, not both (a calibration file names its reader)")
    if args.calibration is not None and args.white_side is not None:
        return _fail("give either --calibration or --white-side, not both (--white-side is for calibrating "
                     "from the first photo)")
    record_path = None
    if args.record:
        try:
            record_path = writable_output(args.record, "--record", inputs=_inputs(args))
        except FileRefused as exc:
            return _fail(str(exc))
    try:
        corners = parse_corners(args.corners) if args.corners is not None else None
        result = AuditResult(Path(args.folder), rules or Rules())
        first = None if args.first is None else (WHITE if args.first == "white" else BLACK)
        for item in audit_folder(args.folder, rules=rules, calibration=args.calibration, corners=corners,
                                 white_side=args.white_side, first=first, result=result,
                                 reader=args.reader or "any", sides=args.sides):
            if args.json:
                _emit(item.to_json())
            else:
                print(item.line(), flush=True)
    except AuditError as exc:
        return _fail(str(exc))
    if args.json:
        _emit(result.summary_json())
    else:
        print(result.summary_line())
    if record_path is not None:
        try:
            atomic_write_text(record_path, result.record_text())
        except OSError as exc:
            return _fail(f"cannot write the record to {args.record!r}: {exc.strerror or exc}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit",
        help="referee a recorded game from a folder of photos",
        description=(
            "Referee a game afterwards from a folder of photos: the first photo shows the start position "
            "(and calibrates the camera setup: the corner markers, --corners, or the board's grid with "
            "--white-side), each later photo is the board at a confirm press. One verdict "
            "per photo (accepted with the turn, rejected with the diagnosis, unreadable with the reason, "
            "unchanged, or game over), then the result. Photos are .jpg/.jpeg/.png, taken in name order "
            "(digit runs compared as numbers); hidden files and sub-folders are skipped. The same referee as "
            "'netzwerk run' makes every decision."
        ),
    )
    p.add_argument("folder", metavar="DIR", help="the folder of photos")
    p.add_argument(
        "--calibration",
        metavar="FILE",
        help="a calibration file (netzwerk vision calibrate) instead of calibrating from the first photo",
    )
    p.add_argument(
        "--corners",
        metavar="'x,y x,y x,y x,y'",
        help="field corners A1 G1 G7 A7 in pixels of the first photo, for a board without corner markers",
    )
    p.add_argument(
        "--reader",
        choices=VISION_READERS,
        help="the board reader when the first photo calibrates: any (any set: the 1984 board, home-made boards, "
        "chess or go pieces; the default) or classic (only the look our renderer first drew)",
    )
    p.add_argument(
        "--white-side",
        choices=WHITE_SIDES,
        metavar="bottom|top|left|right",
        help="a board without corner markers: the image edge of the first photo that White's start row faces "
        "(the board's grid is found in the photo; the start position looks alike turned round)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME",
        help="enable a rule option (repeatable; default: the options the frame archive recorded, else none): "
        + "; ".join(f"{k}: {v}" for k, v in OPTION_HELP.items()),
    )
    p.add_argument(
        "--first",
        choices=("white", "black"),
        help="who moved first (R-1; default: what the frame archive recorded, else white)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per photo (image, verdict, turn, reason, position, status), "
        "then one with the record and the result",
    )
    p.add_argument(
        "--record",
        metavar="FILE",
        help="write the game record (the format of 'netzwerk games export') to FILE",
    )
    p.add_argument(
        "--no-sides",
        dest="sides",
        action="store_false",
        help="ignore the batteries' printed and blank sides (R-23; by default an accepted turn whose newly "
        "blank batteries cannot be the energy its moves used gets a note, and the batteries left blank are named)",
    )
    p.set_defaults(handler=cmd_audit)
