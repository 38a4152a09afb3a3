"""Calibration: where the board is in the image, and what its pieces look like.

``calibrate(image, expected)`` localises the board (the four ArUco corner
markers, or four manually given field corners A1, G1, G7, A7 in pixels) and
learns the appearance model from a frame whose layout is known (the caller
passes the start position). The result is a frozen :class:`Calibration` that
saves to / loads from JSON.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from fileio.atomic import atomic_write_text
from fileio.paths import FileRefused, read_text

from .appearance import (
    BATTERY,
    BLACK,
    INK,
    SHADE,
    N_CLASSES,
    WHITE,
    WHITE_SHADED,
    BLACK_SHADED,
    Appearance,
    PixelModel,
    fit_gaussian,
    pixel_board_coords,
    point_windows,
    segment_contrast,
    square_windows,
    window_mass,
)
from .errors import BadCorners, BadImage, CalibrationError, MarkersNotFound, VisionError
from .features import Features, features, field_mask, rectify
from .geometry import CORNER_NAMES, FIELD_CORNERS, point_coords, point_name, square_centers, square_name
from .layout import BoardLayout, PointState, SquareState
from .markers import detect_markers, homography_from_markers
from .reference import EmptyReference, point_discs, seen_mask, square_cells, start_piece_coords

FORMAT = "netzwerk-vision-calibration"
VERSION = 1
#: A calibration file larger than this is not one (its reference picture is a few hundred KB).
MAX_FILE_BYTES = 64 * 1024 * 1024
CHI2_5_999 = 20.5
GLARE_PIECES_SHARE = 0.34  # share of the start pieces that may lie under strong glare
COV_INFLATION = (2.0, 2.0, 2.0, 2.0, 2.0)  # per feature (3 brightness ratios, 2 chroma): one frame under-represents the spread of later frames (noise, JPEG, small light shifts)
EMPTY_SIGMA_FLOOR = 0.12   # spread of the (normalised) robot evidence on empty squares, at least: a lit rim or a
                          # shadowed patch may leave some; partial evidence must come out doubtful, not White
COV_FLOOR = (0.035, 0.035, 0.035, 0.035, 0.035)  # log units: no class is sharper than this
GLARE_CALIBRATION = 0.35  # glare map level over a start piece that counts as "under strong glare"
SELF_DOUBT = 0.9          # the calibration frame's own reading of a field below this is clearly doubtful


@dataclass(frozen=True)
class Calibration:
    """Board geometry (incl. orientation) and appearance for one camera setup."""

    image_size: tuple[int, int]                       # (width, height)
    homography: tuple[tuple[float, ...], ...]         # board units -> pixels, 3x3
    method: str                                       # "markers", "corners" or "grid" (found in the frame)
    marker_side: float | None                         # marker side in squares (markers only)
    appearance: Appearance
    reference: EmptyReference | None = None           # the bare board of the calibration frame (None: older files)

    # -- geometry ------------------------------------------------------
    @property
    def H(self) -> np.ndarray:
        return np.array(self.homography, np.float64)

    @property
    def corners_px(self) -> np.ndarray:
        """Pixel coordinates of the field corners A1, G1, G7, A7."""
        return cv2.perspectiveTransform(FIELD_CORNERS.reshape(-1, 1, 2), self.H).reshape(-1, 2)

    def with_homography(self, H: np.ndarray) -> "Calibration":
        return replace(self, homography=_mat(H))

    @property
    def colours(self) -> Appearance:
        """What this set looks like (for ``calibrate(colours=...)``, which this reader learns from the frame)."""
        return self.appearance

    def with_appearance(self, appearance: Appearance) -> "Calibration":
        return replace(self, appearance=appearance)

    # -- files -----------------------------------------------------------
    def to_json(self) -> dict:
        d = asdict(replace(self, reference=None))
        d["reference"] = None if self.reference is None else self.reference.to_json()
        return {"format": FORMAT, "version": VERSION, **d}

    def save(self, path: str | Path) -> Path:
        return write_calibration_file(path, self.to_json())

    @classmethod
    def from_json(cls, data: object, source: str = "calibration") -> "Calibration":
        def bad(why: str) -> CalibrationError:
            return CalibrationError(f"{source} is not a valid vision calibration: {why}")

        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise bad(f"it lacks the marker \"format\": \"{FORMAT}\" (a file of some other kind?)")
        if data.get("version") != VERSION:
            raise bad(f"version {data.get('version')!r}, this program reads version {VERSION}; calibrate again")
        try:
            size = tuple(int(v) for v in data["image_size"])
            H = np.array(data["homography"], np.float64)
            method = str(data["method"])
            side = data["marker_side"]
            side = None if side is None else float(side)
            a = data["appearance"]
            app = Appearance(
                means=tuple(tuple(float(v) for v in row) for row in a["means"]),
                covs=tuple(tuple(float(v) for v in row) for row in a["covs"]),
                expected_mass=tuple(float(v) for v in a["expected_mass"]),
                square_means=tuple(tuple(float(v) for v in row) for row in a["square_means"]),
                point_means=tuple(float(v) for v in a["point_means"]),
                lean=tuple(float(v) for v in a["lean"]),
                line_contrast=tuple(float(v) for v in a["line_contrast"]),
                square_sigma=float(a["square_sigma"]),
                empty_sigma=float(a["empty_sigma"]),
                colour_sigma=float(a["colour_sigma"]),
                point_sigma=float(a["point_sigma"]),
                point_empty_sigma=float(a["point_empty_sigma"]),
                glare_level=float(a["glare_level"]),
            )
        except KeyError as exc:
            raise bad(f"field {exc.args[0]!r} is missing") from None
        except (TypeError, ValueError) as exc:
            raise bad(f"a field has the wrong type ({exc})") from None
        if len(size) != 2 or min(size) < 16:
            raise bad(f"image_size {size!r} is not a width and height")
        if H.shape != (3, 3) or not np.all(np.isfinite(H)) or abs(np.linalg.det(H)) < 1e-12:
            raise bad("the homography is not an invertible 3x3 matrix")
        if method not in ("markers", "corners", "grid"):
            raise bad(f"unknown method {method!r}")
        ref_data = data.get("reference")
        try:
            reference = None if ref_data is None else EmptyReference.from_json(ref_data)
        except ValueError as exc:
            raise bad(f"{exc} (calibrate again)") from None
        means, covs = None, None
        try:
            means, covs = app.arrays()
        except ValueError:
            raise bad("the appearance model has the wrong shape") from None
        if not (np.all(np.isfinite(means)) and np.all(np.isfinite(covs))):
            raise bad("the appearance model holds non-numbers")
        try:
            for k in range(N_CLASSES):
                np.linalg.cholesky(covs[k])
        except np.linalg.LinAlgError:
            raise bad("a covariance of the appearance model is not positive definite") from None
        if len(app.expected_mass) != 3 or min(app.expected_mass) <= 0 or len(app.lean) != 3 or len(app.line_contrast) != 84:
            raise bad("the appearance model is incomplete")
        if np.array(app.square_means).shape != (3, 2) or len(app.point_means) != 2:
            raise bad("the evidence model has the wrong shape")
        if not (app.square_sigma > 0 and app.empty_sigma > 0 and app.point_empty_sigma > 0 and app.point_sigma > 0 and app.colour_sigma > 0):
            raise bad("the appearance spreads must be positive")
        return cls(size, _mat(H), method, side, app, reference)

    @classmethod
    def load(cls, path: str | Path) -> "Calibration":
        return cls.from_json(read_calibration_file(path), source=f"calibration file {str(path)!r}")


def write_calibration_file(path: str | Path, data: dict) -> Path:
    """Write a calibration's JSON whole or not at all (a full disk leaves the old file as it was),
    or :class:`CalibrationError` naming why not."""
    path = Path(path)
    try:
        atomic_write_text(path, json.dumps(data, indent=1))
    except OSError as exc:
        raise CalibrationError(f"cannot write calibration file {str(path)!r}: {exc.strerror or exc}") from None
    return path


def read_calibration_file(path: str | Path) -> object:
    """The parsed JSON of a calibration file, or :class:`CalibrationError` (missing, a folder, a pipe,
    unreadable, not JSON)."""
    try:
        text = read_text(path, "calibration file", max_bytes=MAX_FILE_BYTES)
    except FileRefused as exc:
        raise CalibrationError(str(exc)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"calibration file {str(path)!r} is corrupt (not JSON: {exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise CalibrationError(f"calibration file {str(path)!r} is corrupt (nested too deep)") from None


def found_again(calibration: "Calibration", image: np.ndarray, max_nudge: float):
    """A marker calibration moved to where its markers are now: (the moved calibration or None,
    why it was not taken when the markers were found farther than ``max_nudge`` squares away)."""
    if calibration.method != "markers":
        return None, None
    image = check_image(image, calibration.image_size)
    try:
        H, _, _ = locate_board(image, None, calibration.marker_side)
    except VisionError:
        return None, None
    found = calibration.with_homography(H)
    before, after = calibration.corners_px, found.corners_px
    square_px = float(np.mean(np.linalg.norm(before - np.roll(before, 1, axis=0), axis=1))) / 6
    moved = float(np.mean(np.linalg.norm(after - before, axis=1))) / max(square_px, 1e-6)
    if moved > max_nudge:
        return None, (f"the corner markers show the board {moved:.1f} squares from where the calibration "
                      f"put it: the camera was moved, or the calibration is from another camera set-up; "
                      f"calibrate again")
    return found, None


def _mat(H: np.ndarray) -> tuple[tuple[float, ...], ...]:
    H = np.asarray(H, np.float64)
    H = H / H[2, 2]
    return tuple(tuple(float(v) for v in row) for row in H)


# -- checks ------------------------------------------------------------------

def check_image(image: object, size: tuple[int, int] | None = None) -> np.ndarray:
    """A BGR uint8 frame, or :class:`BadImage` naming what is wrong with it."""
    if not isinstance(image, np.ndarray):
        raise BadImage(f"a frame must be a numpy image, not {type(image).__name__}")
    if image.size == 0:
        raise BadImage("the frame is empty (0 pixels)")
    if image.dtype != np.uint8:
        raise BadImage(f"the frame has pixel type {image.dtype}: expected 8-bit (uint8)")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.ndim == 3 and image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    elif not (image.ndim == 3 and image.shape[2] == 3):
        raise BadImage(f"the frame has shape {image.shape}: expected height x width x 3 (colour)")
    h, w = image.shape[:2]
    if size is not None and (w, h) != tuple(size):
        raise BadImage(
            f"the frame is {w}x{h} but the calibration was made for {size[0]}x{size[1]}: "
            "use the same camera resolution or calibrate again"
        )
    return image


def blank_reason(image: np.ndarray) -> str | None:
    """Why a frame shows nothing (black, uniform grey), or None."""
    # a 320x240 point sample, then area means of it: noise is averaged much like a full
    # area resize of the frame, at a sixth of the cost (this runs on every read)
    sample = cv2.resize(image, (320, 240), interpolation=cv2.INTER_NEAREST)
    small = cv2.resize(sample, (80, 60), interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    if gray.mean() < 12:
        return f"the frame is black (mean brightness {gray.mean():.0f} of 255): lens covered or no light?"
    if gray.std() < 4:
        return f"the frame is a uniform grey (brightness {gray.mean():.0f}, no detail): camera not delivering a picture?"
    return None


def parse_corners(text: str) -> np.ndarray:
    """'x,y x,y x,y x,y' -> (4, 2) array."""
    parts = text.replace(";", " ").split()
    if len(parts) != 4:
        raise BadCorners(f"corners {text!r}: expected four 'x,y' pairs (A1 G1 G7 A7), got {len(parts)}")
    out = []
    for name, p in zip(CORNER_NAMES, parts):
        xy = p.split(",")
        try:
            if len(xy) != 2:
                raise ValueError
            x, y = float(xy[0]), float(xy[1])
            if not (math.isfinite(x) and math.isfinite(y)):
                raise ValueError
        except ValueError:
            raise BadCorners(f"corner {name} {p!r} is not a pair of numbers 'x,y'") from None
        out.append((x, y))
    return np.array(out, np.float64)


def homography_from_corners(corners: object, size: tuple[int, int]) -> np.ndarray:
    try:
        c = np.asarray(corners, np.float64).reshape(4, 2)
    except (TypeError, ValueError):
        raise BadCorners("corners must be four (x, y) pixel pairs in the order A1, G1, G7, A7") from None
    if not np.all(np.isfinite(c)):
        raise BadCorners("corners hold non-numbers")
    w, h = size
    for name, (x, y) in zip(CORNER_NAMES, c):
        if not (-0.05 * w <= x <= 1.05 * w and -0.05 * h <= y <= 1.05 * h):
            raise BadCorners(f"corner {name} ({x:.0f}, {y:.0f}) lies outside the {w}x{h} image")
    # a convex quadrilateral, consistently oriented, not tiny
    cross = []
    for i in range(4):
        a, b, d = c[i], c[(i + 1) % 4], c[(i + 2) % 4]
        u, v = b - a, d - b
        cross.append(u[0] * v[1] - u[1] * v[0])
    if not (all(v > 0 for v in cross) or all(v < 0 for v in cross)):
        raise BadCorners("corners do not form a convex quadrilateral: give them in the order A1, G1, G7, A7 (around the field)")
    area = 0.5 * abs(sum(c[i][0] * c[(i + 1) % 4][1] - c[i][1] * c[(i + 1) % 4][0] for i in range(4)))
    if area < 0.02 * w * h:
        raise BadCorners(f"the field spanned by the corners is tiny ({area:.0f} px^2): are the coordinates right?")
    H = cv2.getPerspectiveTransform(FIELD_CORNERS.astype(np.float32), c.astype(np.float32))
    return H


def _check_geometry(H: np.ndarray, size: tuple[int, int]) -> None:
    w, h = size
    c = cv2.perspectiveTransform(FIELD_CORNERS.reshape(-1, 1, 2), H).reshape(-1, 2)
    out = [n for n, (x, y) in zip(CORNER_NAMES, c) if not (0 <= x < w and 0 <= y < h)]
    if out:
        raise CalibrationError(f"the board is not fully in view: corner(s) {', '.join(out)} lie outside the image")


# -- calibration -----------------------------------------------------------------

def locate_board(image: np.ndarray, corners=None, marker_side: float | None = None) -> tuple[np.ndarray, str, float | None]:
    """(H board->pixels, method, marker side)."""
    size = (image.shape[1], image.shape[0])
    if corners is not None:
        return homography_from_corners(corners, size), "corners", None
    found = detect_markers(image)
    H, side, err = homography_from_markers(found, marker_side)
    if not (0.2 <= side <= 3.0) or err > 3.0:
        raise MarkersNotFound(
            f"the corner markers do not fit one board (residual {err:.1f} px): are the four cards placed as the sheet says?"
        )
    _check_geometry(H, size)
    return H, "markers", side


def _board_xy_maps():
    return pixel_board_coords()


WHITE_SIDES = ("bottom", "top", "left", "right")
_EDGE = {"bottom": (0.0, 1.0), "top": (0.0, -1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}


def check_white_side(white_side: object) -> str | None:
    """A valid ``--white-side`` value (lower case), None, or :class:`CalibrationError`."""
    if white_side is None:
        return None
    if not isinstance(white_side, str) or white_side.strip().lower() not in WHITE_SIDES:
        raise CalibrationError(f"white side {white_side!r}: expected one of {', '.join(WHITE_SIDES)}")
    return white_side.strip().lower()


# A board turned about 45 degrees in the picture has White's start row facing two image edges nearly
# alike, and a person may name either (until 28 November only the nearer one was taken, and a correct
# set-up named by the other was refused): --white-side holds for an orientation whose White direction
# lies within this angle of the edge named; of several, the nearest. Below 90 degrees, so the
# orientation turned by half a turn (the start position looks alike so) never holds for the same edge
WHITE_SIDE_SLACK = 60.0


def _white_direction(H: np.ndarray) -> np.ndarray:
    """The unit direction, in the image, from the board's centre towards White's start row under ``H``."""
    c, r1 = cv2.perspectiveTransform(np.array([[[3.0, 3.0]], [[3.0, 0.5]]]), np.asarray(H, np.float64)).reshape(2, 2)
    d = r1 - c
    return d / max(float(np.linalg.norm(d)), 1e-12)


def white_side_of(H: np.ndarray) -> str:
    """The image edge White's start row faces from the board's centre under ``H`` (board -> pixels)."""
    d = _white_direction(H)
    return max(WHITE_SIDES, key=lambda side: float(np.dot(d, _EDGE[side])))


def white_side_fit(H: np.ndarray, side: str) -> float:
    """How nearly White's start row under ``H`` faces the image edge ``side``: the cosine of the angle
    between the two directions (1: straight at it)."""
    return float(np.dot(_white_direction(H), _EDGE[side]))


def faces_white_side(H: np.ndarray, side: str) -> bool:
    """Does White's start row under ``H`` face the edge ``side`` (within :data:`WHITE_SIDE_SLACK`)?"""
    return white_side_fit(H, side) >= np.cos(np.radians(WHITE_SIDE_SLACK))


def calibrate(image: np.ndarray, expected: BoardLayout, corners=None, white_side: str | None = None,
              colours=None) -> Calibration:
    """Localise the board and learn its appearance from a frame showing ``expected``.

    ``corners``: None to use the ArUco markers (or, without markers, the board's 7x7 grid
    found in the frame: :mod:`vision.gridfind`), else the pixel coordinates of the field
    corners A1, G1, G7, A7 (which also fixes the orientation). Of the grid's four
    orientations those under which the frame shows ``expected`` remain; ``white_side``
    (the image edge White's start row faces: bottom, top, left, right) picks among them.
    ``colours``: accepted for the interface's sake; this reader learns the set's looks from
    the frame itself (a layout needs robots of both colours).
    """
    white_side = check_white_side(white_side)
    image = check_image(image)
    if corners is None and not blank_reason(image) and isinstance(expected, BoardLayout) and not detect_markers(image):
        return _calibrate_on_grid(image, expected, white_side)
    return _calibrate(image, expected, corners)


def _calibrate_on_grid(image: np.ndarray, expected: BoardLayout, white_side: str | None) -> Calibration:
    """Without markers or corners: find the grid, keep the orientations that show ``expected``.

    Where no orientation of the grid that fits the lines best shows ``expected`` (pieces along two
    edges hide the outer lines: a grid a pitch off may fit as well), the runners-up are tried in
    turn (:attr:`vision.gridfind.GridFit.alternatives`); the best grid's reason is raised where none
    does."""
    from .gridfind import find_grid

    fit = find_grid(image)
    first: CalibrationError | BadCorners | None = None
    for H in (fit.H, *fit.alternatives):
        try:
            return _calibrate_on_one_grid(image, expected, white_side, H)
        except (CalibrationError, BadCorners) as exc:
            first = first or exc
    assert first is not None
    raise first


def _calibrate_on_one_grid(image: np.ndarray, expected: BoardLayout, white_side: str | None,
                           H: np.ndarray) -> Calibration:
    """The orientation of the grid ``H`` that shows ``expected`` (and faces ``white_side``)."""
    from .gridfind import rotations

    fits, why = [], None
    for Hr in rotations(H):
        c = cv2.perspectiveTransform(FIELD_CORNERS.reshape(-1, 1, 2), Hr).reshape(-1, 2)
        try:
            fits.append(replace(_calibrate(image, expected, c), method="grid"))
        except (CalibrationError, BadCorners) as exc:
            why = why or exc
    if not fits:
        raise why if why is not None else CalibrationError("the board's grid was found, but no orientation of it shows the expected layout")
    if len(fits) == 1:
        if white_side is not None and not faces_white_side(fits[0].H, white_side):
            raise CalibrationError(
                f"the board shows White's start row towards the {white_side_of(fits[0].H)} of the image, "
                f"not the {white_side} (--white-side): check the set-up or the option")
        return fits[0]
    if white_side is None:
        raise CalibrationError(
            "the board looks the same turned round (which colour is White is not written on the pieces): "
            "say which image edge White's start row faces with --white-side bottom|top|left|right")
    facing = [cal for cal in fits if faces_white_side(cal.H, white_side)]
    if facing:
        return max(facing, key=lambda cal: white_side_fit(cal.H, white_side))
    raise CalibrationError(f"no orientation of the board that shows the expected layout has White's start row "
                           f"towards the {white_side} of the image: is --white-side right?")


def _calibrate(image: np.ndarray, expected: BoardLayout, corners=None) -> Calibration:
    image = check_image(image)
    why = blank_reason(image)
    if why:
        raise BadImage(f"cannot calibrate: {why}")
    if not isinstance(expected, BoardLayout):
        raise CalibrationError("the expected layout must be a BoardLayout")
    if not expected.white or not expected.black or not expected.batteries:
        raise CalibrationError("the calibration layout must show at least one White robot and one Black robot (their looks are learned from it) and one battery")
    size = (image.shape[1], image.shape[0])
    H, method, side = locate_board(image, corners)
    _check_geometry(H, size)
    rect = rectify(image, H)
    F = features(rect)
    dev = F.glare
    # the pieces must be seen in their own colours: refuse glare over them
    glare_s = window_mass(dev, square_windows(square_centers()))
    glare_p = window_mass(dev, point_windows(point_coords()))
    glared = [square_name(i) for i in range(36) if expected.squares[i] is not SquareState.EMPTY and glare_s[i] > GLARE_CALIBRATION]
    glared += [point_name(i) for i in range(49) if expected.points[i] is PointState.BATTERY and glare_p[i] > GLARE_CALIBRATION]
    n_pieces = len(expected.white) + len(expected.black) + len(expected.batteries)
    # pieces are judged against the glare-free board colour, so a few under glare are fine;
    # refuse when the reflection covers so many that the frame cannot teach their looks
    if len(glared) > GLARE_PIECES_SHARE * n_pieces:
        raise CalibrationError(
            f"glare on the board at {', '.join(glared[:8])}{' ...' if len(glared) > 8 else ''}: the lamp is mirrored "
            "in the board there; move the lamp or the camera a little and calibrate again"
        )
    app, post = learn_appearance(F, expected, glare_s > GLARE_CALIBRATION, glare_p > GLARE_CALIBRATION)
    cal = Calibration(size, _mat(H), method, side, app, _reference(rect, post, app, expected))
    # the calibration must explain its own frame
    from .reader import BoardReader

    if cal.reference is not None:
        # the reference is this very frame: with it, anything on the bare board reads "as before".
        # Where the pixel classes alone see something on a field expected bare (a piece where
        # none should be, or a glare spot or a shadow's edge they cannot see through), that field
        # stays out of it (merely doubtful fields, as under glare, are what the reference is for)
        plain = BoardReader(replace(cal, reference=None), adapt=False).read(image)
        unsure_s = [i for i, st in enumerate(expected.squares)
                    if st is SquareState.EMPTY and plain.square_probs[i].argmax() != 0]
        unsure_p = [i for i, st in enumerate(expected.points)
                    if st is PointState.EMPTY and plain.point_probs[i].argmax() != 0]
        if unsure_s or unsure_p:
            cal = replace(cal, reference=cal.reference.without(square_cells(unsure_s) | point_discs(unsure_p)))
    reading = BoardReader(cal, adapt=False).read(image)
    # the calibration must explain its own frame: no field may be read confidently wrong,
    # and only a few may be doubtful (a glare spot, say)
    got_s = reading.square_probs.argmax(axis=1)
    got_p = reading.point_probs.argmax(axis=1)
    want_s = [("empty", "white", "black").index(s.value) for s in expected.squares]
    want_p = [("empty", "battery").index(p.value) for p in expected.points]
    wrong = [square_name(i) for i in range(36) if got_s[i] != want_s[i] and i not in reading.low_confidence_squares]
    wrong += [point_name(i) for i in range(49) if got_p[i] != want_p[i] and i not in reading.low_confidence_points]
    # fields under glare may be doubtful (that is what doubt is for); elsewhere only a few
    # (a field right at 0.9-0.98 is a spread model, as a hard shadow across the board makes it; the
    # reader will be cautious there, which is its job; clearly doubtful fields are what count here)
    p_s = reading.square_probs[np.arange(36), want_s]
    p_p = reading.point_probs[np.arange(49), want_p]
    doubtful = [square_name(i) for i in range(36) if p_s[i] < SELF_DOUBT and glare_s[i] <= GLARE_CALIBRATION]
    doubtful += [point_name(i) for i in range(49) if p_p[i] < SELF_DOUBT and glare_p[i] <= GLARE_CALIBRATION]
    if wrong or len(doubtful) > 8:
        shown = wrong or doubtful
        raise CalibrationError(
            "the calibration frame does not look like the expected layout at "
            + ", ".join(shown[:10]) + (" ..." if len(shown) > 10 else "")
            + ": is the start position set up, the board fully visible and nothing covering it?"
        )
    if reading.occluded_fraction > 0.02 or reading.alignment < 0.5:
        raise CalibrationError(f"the calibration frame is not clear enough: {reading.reason}")
    return cal


def _reference(rect: np.ndarray, post: np.ndarray, app: Appearance, expected: BoardLayout) -> EmptyReference | None:
    """The bare board of the calibration frame, and the board seen around its pieces
    (``post``: the frame's pixel posteriors under ``app``)."""
    robots_xy, bats_xy = start_piece_coords(expected)
    images = robot_images(post, expected, app.lean)
    # darker than the board: the robots' cast shadows are told from other shade by seen_mask
    shade = (post[SHADE] + post[INK] + post[BLACK] + post[BLACK_SHADED]) > 0.5
    return EmptyReference.build(rect, robots_xy, bats_xy, app.lean, seen_mask(images, bats_xy, app.lean, shade))


def robot_images(post: np.ndarray, layout: BoardLayout, lean: tuple[float, float, float]) -> np.ndarray:
    """(n, 2) board coordinates of the centre of each robot's pixels (the robots of ``layout`` in
    square order), from the pixel posteriors; where a robot's pixels are not found, where the
    lean puts it."""
    x, y = _board_xy_maps()
    centres = square_centres_for(lean)
    out = []
    for q, st in enumerate(layout.squares):
        if st is SquareState.EMPTY:
            continue
        k = (WHITE, WHITE_SHADED) if st is SquareState.WHITE else (BLACK, BLACK_SHADED)
        plane = post[k[0]] + post[k[1]]
        cx, cy = centres[q]
        for radius in (0.6, 0.45):   # the robot may stand off-centre: look again around what was found
            wgt = plane * (np.hypot(x - cx, y - cy) < radius)
            tot = float(wgt.sum())
            if tot < 1.0:
                cx, cy = centres[q]
                break
            cx, cy = float((wgt * x).sum() / tot), float((wgt * y).sum() / tot)
        out.append((cx, cy))
    return np.array(out, np.float64).reshape(-1, 2)


def learn_appearance(F: Features, expected: BoardLayout, glared_squares=None,
                     glared_points=None) -> tuple[Appearance, np.ndarray]:
    """Learn the classes and the evidence model from a frame of a known layout; also returns
    the frame's pixel posteriors under the learned classes.

    Pieces under strong glare (``glared_*``: boolean per square / point) are
    left out of the learning when enough others remain: their looks are the
    exception, not the rule.
    """
    feats, pfeats = F.board, F.piece
    x, y = _board_xy_maps()
    sq = square_centers()
    pts = point_coords()
    gs = np.zeros(36, bool) if glared_squares is None else np.asarray(glared_squares, bool)
    gp = np.zeros(49, bool) if glared_points is None else np.asarray(glared_points, bool)

    def unglared(idx, g):
        keep = [i for i in idx if not g[i]]
        return keep if len(keep) >= max(1, len(idx) // 2) else idx

    all_white = [i for i, s in enumerate(expected.squares) if s is SquareState.WHITE]
    all_black = [i for i, s in enumerate(expected.squares) if s is SquareState.BLACK]
    all_bats = [i for i, p in enumerate(expected.points) if p is PointState.BATTERY]
    white, black, bats = unglared(all_white, gs), unglared(all_black, gs), unglared(all_bats, gp)
    robots = all_white + all_black

    def dist_to(centres: np.ndarray) -> np.ndarray:
        if len(centres) == 0:
            return np.full(x.shape, np.inf)
        d = np.full(x.shape, np.inf)
        for cx, cy in centres:
            d = np.minimum(d, np.hypot(x - cx, y - cy))
        return d

    d_robot = dist_to(sq[robots])
    d_bat = dist_to(pts[all_bats])
    d_line = np.minimum(np.abs(x - np.clip(np.round(x), 0, 6)), np.abs(y - np.clip(np.round(y), 0, 6)))
    d_point = dist_to(pts)
    inside = (x > 0.05) & (x < 5.95) & (y > 0.05) & (y < 5.95)
    empty_area = (x > -0.02) & (x < 6.02) & (y > -0.02) & (y < 6.02) & (d_robot > 1.0) & (d_bat > 0.35)
    if (empty_area & inside).sum() < 500:
        empty_area = (x > -0.02) & (x < 6.02) & (y > -0.02) & (y < 6.02) & (d_robot > 0.75) & (d_bat > 0.3)
    board_px = empty_area & inside & (d_line > 0.1) & (d_point > 0.15)
    ink_px = empty_area & (d_line < 0.025)
    if board_px.sum() < 200 or ink_px.sum() < 50:
        raise CalibrationError("too little empty board in the calibration layout to learn what the board looks like")
    mb, cb = fit_gaussian(feats[board_px])
    mi, ci = fit_gaussian(feats[ink_px])

    def m2(m_, c_, f=None):
        d = (feats if f is None else f) - m_.astype(np.float32)
        return np.einsum("...i,ij,...j->...", d, np.linalg.inv(c_).astype(np.float32), d)

    fg = m2(mb, cb) > CHI2_5_999

    def split(mask, pick: str):
        """Two clusters of the foreground pixels in mask: (piece pixels, the rest)."""
        data = pfeats[mask].astype(np.float32)
        if len(data) < 40:
            return data, data[:0]
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 1e-3)
        cv2.setRNGSeed(1)
        _, labels, centres = cv2.kmeans(data, 2, None, crit, 3, cv2.KMEANS_PP_CENTERS)
        labels = labels.ravel()
        bright = centres[:, :3].mean(axis=1)
        if pick == "bright":
            piece = int(np.argmax(bright))
        elif pick == "dark":
            piece = int(np.argmin(bright))
        else:  # the larger cluster
            piece = int(np.argmax(np.bincount(labels, minlength=2)))
        return data[labels == piece], data[labels != piece]

    # White robots are the light ones: refuse a frame where the expected White squares are darker
    bright = feats[..., :3].mean(axis=2)
    pbright = pfeats[..., :3].mean(axis=2)
    core_w = pbright[dist_to(sq[white]) < 0.3]
    core_b = pbright[dist_to(sq[black]) < 0.3]
    if np.median(core_w) <= np.median(core_b):
        raise CalibrationError(
            "the squares where White robots are expected look darker than those of the Black robots: "
            "is the expected layout set up (White on its own side), or is the board turned?"
        )
    not_bat = d_bat > 0.3
    wmask = fg & (dist_to(sq[white]) < 0.45) & not_bat & (dist_to(sq[all_black]) > 1.0)
    bmask = fg & (dist_to(sq[black]) < 0.45) & not_bat & (dist_to(sq[all_white]) > 1.0)
    wpx, wshade = split(wmask, "bright")
    bpx, _ = split(bmask, "dark")
    for name, m, where in (("White robots", wpx, white), ("Black robots", bpx, black)):
        if len(m) < 40:
            raise CalibrationError(
                f"cannot see the {name} at {', '.join(square_name(i) for i in where)}: "
                "is the expected layout set up and the board fully in view?"
            )
    mw, cw = fit_gaussian(wpx)
    mk, ck = fit_gaussian(bpx)
    # shade: cast shadows and shaded sides next to robots, as seen around the robots
    ring = fg & (d_robot < 0.75) & not_bat & (m2(mw, cw, pfeats) > CHI2_5_999) & (m2(mk, ck, pfeats) > CHI2_5_999)
    shade_px = pfeats[ring]
    if len(shade_px) < 40:
        shade_px = np.vstack([wshade, feats[board_px][:: 50] * 0 + mb.astype(np.float32) - 0.5])
    ms, cs = fit_gaussian(shade_px)
    explained = np.zeros(x.shape, bool)
    for m_, c_, f in ((mw, cw, pfeats), (mk, ck, pfeats), (ms, cs, feats)):
        explained |= m2(m_, c_, f) < CHI2_5_999
    apx, _ = split(fg & (dist_to(pts[bats]) < 0.2) & ~explained, "large")
    if len(apx) < 30:
        raise CalibrationError(
            f"cannot see the batteries at {', '.join(point_name(i) for i in bats[:7])} ...: "
            "is the expected layout set up and the board fully in view?"
        )
    ma, ca = fit_gaussian(apx)
    means = np.stack([mb, mw, mk, ma, mi, ms])
    covs = np.stack([cb, cw, ck, ca, ci, cs])
    # inflate covariances a little: one frame under-represents the spread of later frames
    D = np.sqrt(np.array(COV_INFLATION))
    covs = covs * np.outer(D, D)[None] + np.diag(np.array(COV_FLOOR) ** 2)[None]
    model = PixelModel(means, covs)
    post = model.posteriors(feats, pfeats, F.glared)

    # lean: where a robot's pixels lie relative to its square, as a linear field
    obs, pos = [], []
    for idx, k in [(i, WHITE) for i in white] + [(i, BLACK) for i in black]:
        cx, cy = sq[idx]
        m = (np.abs(x - cx) < 0.8) & (np.abs(y - cy) < 0.8)
        wgt = post[k] * m
        tot = wgt.sum()
        if tot > 0:
            obs.append([(wgt * x).sum() / tot - cx, (wgt * y).sum() / tot - cy])
            pos.append([cx, cy])
    obs, pos = np.array(obs), np.array(pos)
    A = np.zeros((2 * len(obs), 3))
    A[0::2, 0], A[0::2, 1] = pos[:, 0], 1
    A[1::2, 0], A[1::2, 2] = pos[:, 1], 1
    sol, *_ = np.linalg.lstsq(A, obs.reshape(-1), rcond=None)
    c = float(np.clip(sol[0], -0.12, 0.12))
    ex = float(np.clip(np.mean(obs[:, 0] - c * pos[:, 0]), -0.4, 0.4))
    ey = float(np.clip(np.mean(obs[:, 1] - c * pos[:, 1]), -0.4, 0.4))
    lean = (c, ex, ey)

    swin = square_windows(square_centres_for(lean))
    pwin = point_windows(pts)
    raw, colour = robot_evidence(post, swin)
    mass_a = window_mass(post[BATTERY], pwin)
    ew = float(np.median(raw[white]))
    eb = float(np.median(raw[black]))
    ea = float(np.median(mass_a[bats]))
    if min(ew, eb, ea) <= 1e-3:
        raise CalibrationError("the pieces are barely visible in the calibration frame: is the board in focus and lit?")
    cw = float(np.median(colour[white]))
    cb = float(np.median(colour[black]))
    if cw - cb < 0.3:
        raise CalibrationError("White and Black robots look alike in the calibration frame: is the start position set up, White on rank 1?")
    empty = [i for i, st in enumerate(expected.squares) if st is SquareState.EMPTY]
    nobat = [i for i, st in enumerate(expected.points) if st is PointState.EMPTY]
    em = (ew + eb) / 2
    square_means = (
        (float(np.median(raw[empty] / em)) if empty else 0.0, 0.5),
        (1.0, cw),
        (1.0, cb),
    )
    ev_a = mass_a / ea
    point_means = (float(np.median(ev_a[nobat])) if nobat else 0.0, 1.0)
    # spreads on this frame (floored: one frame is a small sample)
    sq_dev = np.concatenate([raw[white] / ew - 1, raw[black] / eb - 1])
    cdev = np.concatenate([colour[white] - cw, colour[black] - cb]) / (cw - cb)
    pt_dev = ev_a[bats] - 1
    square_sigma = float(max(0.25, 1.4826 * np.median(np.abs(sq_dev)) * 1.5))
    e_dev = raw[empty] / em - square_means[0][0] if empty else np.zeros(1)
    empty_sigma = float(max(EMPTY_SIGMA_FLOOR, 1.4826 * np.median(np.abs(e_dev)) * 3))
    colour_sigma = float(max(0.15, 1.4826 * np.median(np.abs(cdev)) * 1.5))
    point_sigma = float(max(0.25, 1.4826 * np.median(np.abs(pt_dev)) * 1.5))
    pe_dev = ev_a[nobat] - point_means[0] if nobat else np.zeros(1)
    point_empty_sigma = float(max(0.05, 1.4826 * np.median(np.abs(pe_dev)) * 3))
    contrast = segment_contrast(cv2.GaussianBlur(bright, (0, 0), 0.8))
    app = Appearance(
        means=tuple(tuple(float(v) for v in m) for m in means),
        covs=tuple(tuple(float(v) for v in c_.ravel()) for c_ in covs),
        expected_mass=(ew, eb, ea),
        square_means=square_means,
        point_means=point_means,
        lean=lean,
        line_contrast=tuple(float(v) for v in contrast),
        square_sigma=square_sigma,
        empty_sigma=empty_sigma,
        colour_sigma=colour_sigma,
        point_sigma=point_sigma,
        point_empty_sigma=point_empty_sigma,
        glare_level=0.12,  # share of the board colour washed out where fields become doubtful
    )
    return app, post


OPEN_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))  # drops thin streaks, keeps compact blobs


def robot_evidence(post: np.ndarray, swin) -> tuple[np.ndarray, np.ndarray]:
    """Per square: robot-pixel mass in its window, and the White share of that mass."""
    tight = field_mask(tight=True)
    # an opening drops thin streaks (the lit rim along a shadow's edge); robots are compact blobs
    qw = cv2.morphologyEx((post[WHITE] + post[WHITE_SHADED]) * tight, cv2.MORPH_OPEN, OPEN_KERNEL)
    qb = cv2.morphologyEx((post[BLACK] + post[BLACK_SHADED]) * tight, cv2.MORPH_OPEN, OPEN_KERNEL)
    mw, mb = window_mass(qw, swin), window_mass(qb, swin)
    raw = mw + mb
    return raw, mw / np.maximum(raw, 1e-6)


def square_centres_for(lean: tuple[float, float, float]) -> np.ndarray:
    c, ex, ey = lean
    sq = square_centers()
    return sq + np.column_stack([c * sq[:, 0] + ex, c * sq[:, 1] + ey])
