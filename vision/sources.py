"""Frame sources behind one small interface.

``read()`` returns a BGR uint8 frame, or ``None`` for "no frame right now"
(end of a video or folder, a dropped or blank frame). A source that keeps
failing raises :class:`~vision.errors.SourceError` with a message saying what
is wrong. Camera reads run with a timeout, so a stalled camera never hangs the
caller.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, TimeoutError as FutureTimeout
from pathlib import Path
from typing import Callable, Protocol, runtime_checkable

import cv2
import numpy as np

from fileio.images import read_image
from fileio.paths import FileRefused

from .calibration import blank_reason
from .errors import SourceError
from .layout import BoardLayout

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


@runtime_checkable
class FrameSource(Protocol):
    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...

    def __enter__(self) -> "FrameSource": ...

    def __exit__(self, *exc) -> None: ...


class _Base:
    """Shared checks: a frame is a non-empty colour uint8 image that is not blank."""

    name = "source"
    max_bad = 5  # consecutive bad frames before the source is declared broken

    def __init__(self) -> None:
        self._bad = 0
        self.last_problem: str | None = None
        self.closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.closed = True

    def _check_open(self) -> None:
        if self.closed:
            raise SourceError(f"{self.name} is closed")

    def _accept(self, frame) -> np.ndarray | None:
        problem = None
        if frame is None or not isinstance(frame, np.ndarray) or frame.size == 0:
            problem = "an empty frame"
        else:
            if frame.dtype != np.uint8:
                if np.issubdtype(frame.dtype, np.floating) and frame.max() <= 1.0:
                    frame = (frame * 255).clip(0, 255).astype(np.uint8)
                else:
                    frame = np.clip(frame, 0, 255).astype(np.uint8)
            if frame.ndim == 2:
                frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
            elif frame.ndim == 3 and frame.shape[2] == 4:
                frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
            elif not (frame.ndim == 3 and frame.shape[2] == 3):
                problem = f"a frame of shape {frame.shape}"
            if problem is None:
                why = blank_reason(frame)
                if why:
                    problem = why
        if problem is None:
            self._bad = 0
            self.last_problem = None
            return np.ascontiguousarray(frame)
        self._bad += 1
        self.last_problem = problem
        if self._bad >= self.max_bad:
            raise SourceError(f"{self.name} delivered {self._bad} bad frames in a row (last: {problem})")
        return None


class _TimedReader:
    """Runs a blocking read in a worker thread, giving up after ``timeout`` seconds."""

    def __init__(self, timeout: float, what: str) -> None:
        self.timeout = timeout
        self.what = what
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="frame-source")
        self._stalled = False

    def call(self, fn, *args):
        if self._stalled:
            raise SourceError(f"{self.what} stalled earlier and cannot be used any more; reopen it")
        fut = self._pool.submit(fn, *args)
        try:
            return fut.result(timeout=self.timeout)
        except FutureTimeout:
            self._stalled = True
            raise SourceError(f"{self.what} stalled: no frame within {self.timeout:.1f} s (unplugged or hung?)") from None

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class PiCamera2Source(_Base):
    """The Raspberry Pi camera through picamera2 (imported only when used)."""

    def __init__(self, size: tuple[int, int] = (1280, 960), timeout: float = 3.0) -> None:
        super().__init__()
        self.name = "Pi camera"
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError:
            raise SourceError(
                "picamera2 is not installed: it exists only on a Raspberry Pi "
                "(sudo apt install python3-picamera2; a venv needs --system-site-packages)"
            ) from None
        self._timed = _TimedReader(timeout, self.name)
        try:
            self._cam = Picamera2()
            config = self._cam.create_still_configuration(main={"size": tuple(size), "format": "RGB888"})
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:  # picamera2 raises plain RuntimeErrors
            raise SourceError(f"cannot start the Pi camera: {exc} (is it connected and enabled?)") from None

    def read(self) -> np.ndarray | None:
        self._check_open()
        try:
            # picamera2's "RGB888" is B, G, R in memory: what OpenCV expects
            frame = self._timed.call(self._cam.capture_array, "main")
        except SourceError:
            raise
        except Exception as exc:
            raise SourceError(f"the Pi camera failed: {exc}") from None
        return self._accept(frame)

    def close(self) -> None:
        if not self.closed:
            try:
                self._cam.stop()
                self._cam.close()
            except Exception:
                pass
            self._timed.shutdown()
        super().close()


class OpenCVSource(_Base):
    """A USB camera (index) or a video file through ``cv2.VideoCapture``."""

    def __init__(self, device: int | str, size: tuple[int, int] | None = None, timeout: float = 3.0) -> None:
        super().__init__()
        self.is_file = not isinstance(device, int)
        self.name = f"video file {str(device)!r}" if self.is_file else f"camera {device}"
        if self.is_file and not Path(device).is_file():
            raise SourceError(f"{self.name} does not exist")
        self._timed = _TimedReader(timeout, self.name)
        self._cap = self._timed.call(cv2.VideoCapture, device if not self.is_file else str(device))
        if not self._cap.isOpened():
            raise SourceError(f"cannot open {self.name}" + ("" if self.is_file else " (unplugged, or in use by another program?)"))
        if size is not None and not self.is_file:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self.ended = False

    def read(self) -> np.ndarray | None:
        self._check_open()
        if self.ended:
            return None
        ok, frame = self._timed.call(self._cap.read)
        if not ok:
            if self.is_file:
                self.ended = True
                return None
            return self._accept(None)
        return self._accept(frame)

    def close(self) -> None:
        if not self.closed:
            try:
                self._cap.release()
            except Exception:
                pass
            self._timed.shutdown()
        super().close()


class FolderSource(_Base):
    """Images in a folder, in name order (replay of a recorded game)."""

    def __init__(self, folder: str | Path) -> None:
        super().__init__()
        self.folder = Path(folder)
        self.name = f"folder {str(self.folder)!r}"
        if not self.folder.is_dir():
            raise SourceError(f"{self.name} does not exist or is not a folder")
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError(f"{self.name} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        self._next = 0
        self.max_bad = 1 << 30  # every file is judged on its own

    def read(self) -> np.ndarray | None:
        self._check_open()
        if self._next >= len(self.files):
            return None
        path = self.files[self._next]
        self._next += 1
        try:
            frame = read_image(path, "image")
        except FileRefused as exc:
            raise SourceError(str(exc)) from None
        out = self._accept(frame)
        if out is None:
            raise SourceError(f"image {str(path)!r} is unusable: {self.last_problem}")
        return out


class SyntheticSource(_Base):
    """Renders whatever layout ``layout_fn()`` returns, as the synthetic camera sees it."""

    def __init__(self, layout_fn: Callable[[], BoardLayout], seed: int = 0, **render_kwargs) -> None:
        super().__init__()
        self.name = "synthetic camera"
        self.layout_fn = layout_fn
        self.seed = seed
        self.render_kwargs = render_kwargs
        self.frame = 0
        self._lock = threading.Lock()

    def read(self) -> np.ndarray | None:
        from .render import render

        self._check_open()
        layout = self.layout_fn()
        if layout is None:
            return None
        if not isinstance(layout, BoardLayout):
            raise SourceError(f"the synthetic camera's layout function returned {type(layout).__name__}, not a BoardLayout")
        with self._lock:
            self.frame += 1
            frame = self.frame
        return self._accept(render(layout, self.seed, frame=frame, **self.render_kwargs).image)
