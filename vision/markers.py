"""ArUco corner markers: the printable sheet, detection, and the board homography.

Four markers (dictionary 4x4_50, ids 0..3) sit on small white cards at the
four outer corners of the 6x6 field: id 0 at A1, 1 at G1, 2 at G7, 3 at A7.
Each card lies diagonally *outside* the field with its inner corner (the one
with the printed corner mark) touching the corner point, the marker upright as
White sees the board. The white margin of the card is a quarter of the marker
side, so the black square's inner corner lies a quarter of the marker side
from the point along both lines. The printed size does not matter: the ratio
of marker side to square side is estimated when calibrating.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import cv2
import numpy as np

from fileio.atomic import atomic_write_bytes

from .errors import MarkersNotFound, VisionError
from .geometry import CORNER_NAMES, FIELD_CORNERS

MARKER_DICT = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)
MARGIN = 0.25  # card margin as a fraction of the marker side
#: The marker sheet's resolutions (dots per inch): a printer's, not more (an A4 page at 600 dpi is 35 megapixels).
DPI_RANGE = (50, 600)
_OUTWARD = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)

PLACEMENT = """\
Placing the corner markers
  1. Print the sheet at any size (100% is best) on plain white paper; cut out
     the four cards along the dashed lines. Keep the white margin.
  2. Each card is labelled with its corner: A1, G1, G7, A7 (A1 is White's
     left-hand corner of the 6x6 field, G7 the far right one).
  3. Lay each card flat on the board frame (or the table) diagonally OUTSIDE
     the field, so that its small printed corner mark touches the corner
     point of the field, the label readable from White's side.
  4. The cards must not move during a game. After moving the camera or a
     card, run `netzwerk vision calibrate` again with the start position set up.
"""


def marker_world_corners(marker_id: int, side: float) -> np.ndarray:
    """Board coordinates of a marker's corners (ArUco order TL, TR, BR, BL, upright for White)."""
    corner = FIELD_CORNERS[marker_id]
    out = _OUTWARD[marker_id]
    near = corner + out * MARGIN * side
    far = near + out * side
    x0, x1 = sorted((near[0], far[0]))
    y0, y1 = sorted((near[1], far[1]))
    return np.array([[x0, y1], [x1, y1], [x1, y0], [x0, y0]], np.float64)


_DETECTOR: cv2.aruco.ArucoDetector | None = None


def _detector() -> cv2.aruco.ArucoDetector:
    global _DETECTOR
    if _DETECTOR is None:
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        _DETECTOR = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(MARKER_DICT), params)
    return _DETECTOR


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """Detected board markers: id -> (4, 2) pixel corners (TL, TR, BR, BL). Others ignored."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _detector().detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel()):
        i = int(i)
        if i in MARKER_IDS and i not in found:
            found[i] = c.reshape(4, 2).astype(np.float64)
    return found


def _fit(found: dict[int, np.ndarray], side: float) -> tuple[np.ndarray, float]:
    world = np.vstack([marker_world_corners(i, side) for i in sorted(found)])
    img = np.vstack([found[i] for i in sorted(found)])
    H, _ = cv2.findHomography(world, img, 0)
    if H is None:
        return np.eye(3), float("inf")
    proj = cv2.perspectiveTransform(world.reshape(-1, 1, 2), H).reshape(-1, 2)
    return H, float(np.sqrt(np.mean(np.sum((proj - img) ** 2, axis=1))))


def homography_from_markers(found: dict[int, np.ndarray], side: float | None = None) -> tuple[np.ndarray, float, float]:
    """Board units -> pixels from detected markers.

    ``side`` is the marker side in board units; when ``None`` it is estimated
    (needs at least three markers). Returns (H, side, rms reprojection error in px).
    """
    missing = [CORNER_NAMES[i] for i in MARKER_IDS if i not in found]
    need = 3 if side is None else 2
    if len(found) < need:
        raise MarkersNotFound(
            f"board markers not found: only {len(found)} of 4 visible (missing at {', '.join(missing)}); "
            "check that all four marker cards are in view, lit and not covered"
        )
    if side is not None:
        H, err = _fit(found, side)
        return H, side, err
    lo, hi = 0.2, 3.0
    g = (np.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = _fit(found, a)[1], _fit(found, b)[1]
    for _ in range(40):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = _fit(found, a)[1]
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = _fit(found, b)[1]
    side = (lo + hi) / 2
    H, err = _fit(found, side)
    return H, side, err


# -- the printable sheet ------------------------------------------------------

def marker_sheet(dpi: int = 150, marker_mm: float = 30.0) -> np.ndarray:
    """An A4 page (grey image) with the four marker cards, labels and instructions."""
    px = dpi / 25.4
    W, H = int(round(210 * px)), int(round(297 * px))
    page = np.full((H, W), 255, np.uint8)
    side = int(round(marker_mm * px))
    margin = int(round(MARGIN * side))
    card = side + 2 * margin
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
    font = cv2.FONT_HERSHEY_SIMPLEX
    fs = dpi / 150
    cv2.putText(page, "Netzwerk Companion - board corner markers", (int(15 * px), int(18 * px)), font, 0.9 * fs, 0, max(1, int(2 * fs)), cv2.LINE_AA)
    slots = [(0, 1), (1, 1), (1, 0), (0, 0)]  # A1 lower left, G1 lower right, G7 upper right, A7 upper left
    for mid, (cx, cy) in zip(MARKER_IDS, slots):
        x0 = int(round((35 + cx * 90) * px))
        y0 = int(round((40 + cy * 80) * px))
        page[y0 + margin:y0 + margin + side, x0 + margin:x0 + margin + side] = cv2.aruco.generateImageMarker(dictionary, mid, side)
        # dashed cut line
        for k in range(0, card, 12):
            for p, q in (((x0 + k, y0), (x0 + min(k + 6, card), y0)), ((x0 + k, y0 + card), (x0 + min(k + 6, card), y0 + card)),
                         ((x0, y0 + k), (x0, y0 + min(k + 6, card))), ((x0 + card, y0 + k), (x0 + card, y0 + min(k + 6, card)))):
                cv2.line(page, p, q, 150, 1)
        # corner mark at the inner corner (the one that touches the field corner)
        ix = x0 + (card if _OUTWARD[mid][0] < 0 else 0)
        iy = y0 + (card if _OUTWARD[mid][1] > 0 else 0)
        sx = -1 if _OUTWARD[mid][0] < 0 else 1
        sy = -1 if _OUTWARD[mid][1] > 0 else 1
        L = max(6, margin // 2)
        cv2.line(page, (ix, iy), (ix + sx * L, iy), 0, 2)
        cv2.line(page, (ix, iy), (ix, iy + sy * L), 0, 2)
        cv2.putText(page, f"{CORNER_NAMES[mid]}  (id {mid})", (x0, y0 + card + int(8 * px)), font, 0.8 * fs, 0, max(1, int(2 * fs)), cv2.LINE_AA)
    y = int(215 * px)
    for line in PLACEMENT.splitlines():
        cv2.putText(page, line, (int(15 * px), y), font, 0.55 * fs, 0, 1, cv2.LINE_AA)
        y += int(7 * px)
    return page


def _pdf_bytes(gray: np.ndarray) -> bytes:
    """A one-page A4 PDF showing the grey image full page (no dependencies)."""
    h, w = gray.shape
    data = zlib.compress(np.ascontiguousarray(gray).tobytes(), 9)
    pw, ph = 595.28, 841.89
    content = f"q {pw:.2f} 0 0 {ph:.2f} 0 0 cm /Im0 Do Q".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2f} {ph:.2f}] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>".encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n".encode()
        + data + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def write_marker_sheet(path: str | Path, dpi: int = 150) -> Path:
    """Write the sheet as PNG or PDF (chosen by the file suffix), whole or not at all.

    ``dpi`` lies in :data:`DPI_RANGE` (an A4 page at 600 dpi is 35 megapixels).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise VisionError(f"marker sheet file {str(path)!r}: the name must end in .png or .pdf")
    if not DPI_RANGE[0] <= dpi <= DPI_RANGE[1]:
        raise VisionError(f"--dpi {dpi}: the sheet's resolution must lie between {DPI_RANGE[0]} and {DPI_RANGE[1]}")
    page = marker_sheet(dpi=dpi)
    try:
        if suffix == ".png":
            ok, buf = cv2.imencode(".png", page)
            if not ok:
                raise VisionError("the marker sheet could not be encoded as PNG")
            atomic_write_bytes(path, buf.tobytes())
        else:
            atomic_write_bytes(path, _pdf_bytes(page))
    except OSError as exc:
        raise VisionError(f"cannot write marker sheet {str(path)!r}: {exc.strerror or exc}") from None
    return path
