"""Where the camera tower's frames come from: a camera, a folder of images, or any iterable
of images (tests, benchmarks, the demo tower)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .errors import CameraTowerError

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class FrameSource(Protocol):
    """Where frames come from. ``read()`` returns ``(name, frame)``, ``None`` when no frame is
    there now (a camera missing or lost: the tower says so and retries), and raises
    ``StopIteration`` when a finite source is done."""

    def read(self) -> tuple[str, np.ndarray] | None: ...

    def close(self) -> None: ...


class IterSource:
    """Frames from any iterable of images, paced at ``fps`` (0: as fast as they are read):
    the frame-source object of the tests and the benchmark. ``handed[i]`` is the time frame
    ``i`` was handed out."""

    def __init__(self, frames: Iterable[np.ndarray], fps: float = 0.0) -> None:
        self._it: Iterator[np.ndarray] = iter(frames)
        self.period = 1.0 / fps if fps else 0.0
        self.handed: list[float] = []
        self._next = time.monotonic()

    def read(self) -> tuple[str, np.ndarray] | None:
        frame = next(self._it)  # StopIteration: done
        if self.period:
            delay = self._next - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._next = max(self._next + self.period, time.monotonic() - self.period)
        self.handed.append(time.monotonic())
        return f"frame {len(self.handed) - 1}", frame

    def close(self) -> None:
        pass


class FolderSource:
    """The images of a folder in name order (``--frames DIR``), paced at ``fps``. A file that
    is not a readable image is named on stderr and skipped."""

    def __init__(self, folder: str | Path, fps: float = 30.0,
                 warn: Callable[[str], None] | None = None) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CameraTowerError(f"{self.folder}: no such folder of frames")
        self.files = sorted(p for p in self.folder.iterdir()
                            if p.suffix.lower() in IMAGE_EXTENSIONS)
        if not self.files:
            raise CameraTowerError(f"{self.folder}: no images ({', '.join(IMAGE_EXTENSIONS)})")
        self.warn = warn or (lambda text: print(text, file=sys.stderr, flush=True))
        self.period = 1.0 / fps if fps else 0.0
        self._i = 0
        self._next = time.monotonic()

    def read(self) -> tuple[str, np.ndarray] | None:
        import cv2

        while True:
            if self._i >= len(self.files):
                raise StopIteration
            path = self.files[self._i]
            self._i += 1
            try:
                data = np.fromfile(path, np.uint8)
            except OSError as exc:
                self.warn(f"{path}: cannot be read ({exc.strerror or exc}): skipped")
                continue
            frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
            if frame is None:
                self.warn(f"{path}: not a readable image ({data.size} bytes): skipped")
                continue
            if self.period:
                delay = self._next - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                self._next = max(self._next + self.period, time.monotonic() - self.period)
            return str(path), frame

    def close(self) -> None:
        pass


class CameraSource:
    """An OpenCV camera (``--camera 0`` or a device path), opened at the profile's size.
    Missing or lost: ``read()`` returns None and the camera is tried again every
    ``retry_s``."""

    def __init__(self, device: str | int, size: tuple[int, int] | None,
                 retry_s: float = 2.0) -> None:
        self.device = int(device) if str(device).isdigit() else str(device)
        self.size = size
        self.retry_s = retry_s
        self.cap: Any = None
        self._retry_at = 0.0
        self.index = -1
        self.error = ""
        try:  # OpenCV's own warning at every retry of a missing camera: said once by us
            import cv2

            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
        except AttributeError:  # pragma: no cover - an OpenCV without the logging module
            pass

    def probe(self) -> bool:
        """Whether the camera opens now (the tower's first boot says so)."""
        return self.cap is not None or self._open()

    def _open(self) -> bool:
        import cv2

        now = time.monotonic()
        if now < self._retry_at:
            time.sleep(min(0.05, self._retry_at - now))
            return False
        self._retry_at = now + self.retry_s
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            self.error = f"camera {self.device}: cannot be opened (not connected?)"
            return False
        if self.size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self.cap = cap
        return True

    def read(self) -> tuple[str, np.ndarray] | None:
        if self.cap is None and not self._open():
            return None
        ok, frame = self.cap.read()
        if not ok or frame is None:
            self.cap.release()
            self.cap = None
            self.error = f"camera {self.device}: no frame (unplugged?)"
            return None
        self.index += 1
        return f"camera {self.device} frame {self.index}", frame

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None
