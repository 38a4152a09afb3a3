"""Frame sources for the game loop, built from ``--camera``.

``picamera2`` (the Pi camera) and ``opencv:INDEX`` (a V4L2/USB camera) are the
sources of ``vision.sources`` (picamera2 imported lazily, reads with a timeout,
blank frames refused) behind the loop's small interface; ``replay:DIR`` (the images of a folder, in
name order) and ``sim`` (the synthetic renderer of ``vision.render``, showing a
scene the caller sets: the demo's "table").

Every source has ``grab() -> Frame`` and ``close()``. A source that fails raises
:class:`CameraError` with a message a person can act on (never a traceback, never
garbage as a frame); :class:`GuardedSource` adds a timeout so that a camera that
stalls is reported instead of hanging the loop.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol

import numpy as np

from .rules.position import Placement, Position

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


class CameraError(Exception):
    """The camera cannot deliver frames; the message says why and what to do."""


@dataclass(frozen=True)
class Frame:
    """One camera frame: a BGR ``uint8`` image, when it was taken (the loop's clock) and its number."""

    image: np.ndarray
    at: float
    index: int
    name: str = ""  # replay: the file it came from


class FrameSource(Protocol):
    name: str

    def grab(self) -> Frame: ...

    def close(self) -> None: ...


def _check_frame(image: Any, what: str) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
        shape = getattr(image, "shape", None)
        raise CameraError(f"{what} delivered no usable frame (got {type(image).__name__} {shape})")
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    return image


# -- real cameras: vision.sources behind the loop's interface ------------------------------


class VisionCamera:
    """A ``vision.sources`` source (picamera2, OpenCV) with the loop's ``grab() -> Frame``.

    The vision source already reads with a timeout and refuses empty and blank
    frames; a frame it drops (``None``) is reported as a :class:`CameraError`
    naming the problem, so the loop signals it (amber) and tries again.
    """

    def __init__(self, source: Any, name: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.source = source
        self.name = name
        self._clock = clock
        self._count = 0

    def grab(self) -> Frame:
        from vision.errors import SourceError

        try:
            image = self.source.read()
        except SourceError as exc:
            raise CameraError(str(exc)) from None
        if image is None:
            why = getattr(self.source, "last_problem", None) or "no frame right now"
            raise CameraError(f"{self.name} delivered no usable frame ({why})")
        self._count += 1
        return Frame(_check_frame(image, self.name), self._clock(), self._count)

    def close(self) -> None:
        try:
            self.source.close()
        except Exception:
            pass


def _vision_camera(make: Callable[[], Any], name: str, clock: Callable[[], float]) -> VisionCamera:
    from vision.errors import SourceError

    try:
        return VisionCamera(make(), name, clock)
    except SourceError as exc:
        raise CameraError(f"{exc} (--camera sim runs without a camera)") from None


# -- a folder of images ---------------------------------------------------------------------


class ReplayCamera:
    """The images of a folder in name order, each shown ``hold`` seconds of the loop's clock
    (the last one stays). For replaying frames saved by ``netzwerk run --save-frames``."""

    def __init__(self, folder: str | Path, hold: float = 2.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.folder = Path(folder)
        self.name = f"replay:{self.folder}"
        self._clock = clock
        self.hold = float(hold)
        if not self.folder.is_dir():
            raise CameraError(f"replay folder {str(self.folder)!r} does not exist or is not a folder")
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
        if not self.files:
            raise CameraError(f"replay folder {str(self.folder)!r} holds no .jpg, .jpeg or .png images")
        self._t0: float | None = None
        self._count = 0
        self._cache: tuple[int, np.ndarray] | None = None

    def grab(self) -> Frame:
        from fileio.images import read_image
        from fileio.paths import FileRefused

        now = self._clock()
        if self._t0 is None:
            self._t0 = now
        k = min(int((now - self._t0) / self.hold), len(self.files) - 1)
        if self._cache is None or self._cache[0] != k:
            path = self.files[k]
            try:
                image = read_image(path, "replay image")
            except FileRefused as exc:
                raise CameraError(str(exc)) from None
            self._cache = (k, image)
        self._count += 1
        return Frame(self._cache[1], now, self._count, self.files[k].name)

    def close(self) -> None:
        self._cache = None


# -- the synthetic camera ---------------------------------------------------------------------


@dataclass
class Scene:
    """What stands on the simulated table: the pieces, whether a hand is over the board, and the
    batteries lying blank side up (R-23; every other battery shows its printed side)."""

    board: Placement = field(default_factory=lambda: Placement.of(Position.start()))
    hand: bool = False
    blank: frozenset[int] = frozenset()


# Photographic conditions: none fixed, the renderer draws moderate ones from the seed
# (tilt, light, shadow, glare, noise...); the same seed is the same table all game.
SIM_CONDITIONS: dict[str, Any] = {}


class SimCamera:
    """The synthetic camera: renders :attr:`scene` with ``vision.render`` (seed fixes the setup).

    A still scene is rendered once and delivered again (a real camera's
    frames of a still board differ only by sensor noise). ``size`` is
    (width, height).
    """

    def __init__(self, seed: int = 1, size: tuple[int, int] = (960, 720), clock: Callable[[], float] = time.monotonic,
                 conditions: dict[str, Any] | None = None) -> None:
        self.name = "sim"
        self.seed = int(seed)
        self.size = (int(size[0]), int(size[1]))
        self.scene = Scene()
        self.conditions = dict(SIM_CONDITIONS if conditions is None else conditions)
        self._clock = clock
        self._count = 0
        self._cache: dict[tuple, np.ndarray] = {}
        self._variant = 0
        self.renders = 0

    def move_lamp(self, seed: int) -> None:
        """Another setup (camera pose, lamp, table): what a person does when the light is bad."""
        self.seed = int(seed)
        self._cache.clear()

    def show(self, board: Placement | Position, hand: bool = False, blank: Iterable[int] | None = None) -> None:
        """Put ``board`` on the table; ``blank``: the points whose battery lies blank side up (None:
        as before, where a battery still stands)."""
        placed = Placement.of(board)
        turned = self.scene.blank if blank is None else frozenset(blank)
        self.scene = Scene(placed, hand, frozenset(p for p in turned if p in placed.batteries))

    def refresh(self) -> None:
        """Render the scene anew (new sensor noise), as after someone touched the pieces."""
        self._variant += 1

    def image_of(self, board: Placement, hand: bool, blank: frozenset[int] = frozenset()) -> np.ndarray:
        from vision.layout import BoardLayout
        from vision.render import render

        key = (board.white, board.black, board.batteries, hand, blank, self._variant)
        image = self._cache.get(key)
        if image is None:
            layout = BoardLayout.from_sets(board.white, board.black, board.batteries)
            printed = tuple(p not in blank for p in range(49))
            image = render(layout, self.seed, size=self.size, hand=hand, frame=self.renders, printed=printed,
                           **self.conditions).image
            self.renders += 1
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[key] = image
        return image

    def grab(self) -> Frame:
        image = self.image_of(self.scene.board, self.scene.hand, self.scene.blank)
        self._count += 1
        return Frame(image, self._clock(), self._count)

    def close(self) -> None:
        self._cache.clear()


# -- a stall guard ------------------------------------------------------------------------------


class GuardedSource:
    """Wraps a source so that ``grab`` never blocks longer than ``timeout`` seconds
    (for sources without a timeout of their own; the ``vision.sources`` cameras have one).

    The grab runs on a worker thread; if it does not return in time a
    :class:`CameraError` says so, and while that grab is still stuck every
    further ``grab`` fails at once with the same message (the loop stays alive,
    the panel says what is wrong).
    """

    def __init__(self, source: FrameSource, timeout: float) -> None:
        self.source = source
        self.name = source.name
        self.timeout = float(timeout)
        self._lock = threading.Lock()
        self._busy: threading.Thread | None = None

    def grab(self) -> Frame:
        with self._lock:
            if self._busy is not None and self._busy.is_alive():
                raise CameraError(f"camera {self.name} delivered no frame for more than {self.timeout:g} s (stalled)")
            box: dict[str, Any] = {}

            def work() -> None:
                try:
                    box["frame"] = self.source.grab()
                except BaseException as exc:  # noqa: BLE001 - handed to the caller
                    box["error"] = exc

            t = threading.Thread(target=work, name="camera-grab", daemon=True)
            t.start()
            t.join(self.timeout)
            if t.is_alive():
                self._busy = t
                raise CameraError(f"camera {self.name} delivered no frame for more than {self.timeout:g} s (stalled)")
            self._busy = None
        if "error" in box:
            exc = box["error"]
            if isinstance(exc, CameraError):
                raise exc
            raise CameraError(f"camera {self.name} failed: {type(exc).__name__}: {exc}")
        return box["frame"]

    def close(self) -> None:
        self.source.close()


def open_camera(spec: str, *, resolution: tuple[int, int] = (1640, 1232), clock: Callable[[], float] = time.monotonic,
                seed: int = 1, replay_hold: float = 2.0, timeout: float = 5.0) -> FrameSource:
    """Build the source named by ``spec`` (``picamera2``, ``opencv:INDEX``, ``replay:DIR``, ``sim``).

    ``timeout``: a real camera that delivers no frame for this long is reported (never waited for).

    Raises :class:`CameraError` (missing camera, empty folder) or ``ValueError`` (a bad spec).
    """
    if spec == "picamera2":
        from vision.sources import PiCamera2Source

        return _vision_camera(lambda: PiCamera2Source(tuple(resolution), timeout), "the Pi camera", clock)
    if spec == "sim":
        return SimCamera(seed, clock=clock)
    kind, sep, arg = spec.partition(":")
    if sep and kind == "opencv":
        if not arg.isdigit():
            raise ValueError(f"bad camera {spec!r}: opencv:INDEX needs a device number, e.g. opencv:0")
        from vision.sources import OpenCVSource

        index = int(arg)
        return _vision_camera(lambda: OpenCVSource(index, tuple(resolution), timeout), f"camera opencv:{index}", clock)
    if sep and kind == "replay":
        if not arg:
            raise ValueError(f"bad camera {spec!r}: replay:DIR needs a folder")
        return ReplayCamera(arg, replay_hold, clock)
    raise ValueError(f"unknown camera {spec!r}: expected picamera2, opencv:INDEX, replay:DIR or sim")
