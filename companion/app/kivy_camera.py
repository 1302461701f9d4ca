"""A camera frame source fed by Kivy's camera: on Android there is no ``cv2.VideoCapture``
device to open, but Kivy's core camera (``kivy.core.camera``, the Android camera API there)
delivers each picture as a texture on the GUI thread.

:class:`KivyCameraSource` has the shape of ``vision.capture.FrameSource`` (``read()`` /
``release()``, as ``cv2.VideoCapture``): the GUI thread copies every new texture into a
one-slot mailbox (the newest picture wins) and the camera's worker thread ``read()`` s it as a
BGR image, so ``vision`` measures it exactly as a picture from OpenCV.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from kivy.clock import Clock

READ_TIMEOUT_S = 2.0


def texture_to_bgr(pixels: bytes, width: int, height: int) -> np.ndarray:
    """A Kivy texture's RGBA bytes (first row at the bottom) as an OpenCV BGR image."""
    rgba = np.frombuffer(pixels, np.uint8)
    if rgba.size != width * height * 4:
        raise ValueError(f"a {width}x{height} texture needs {width * height * 4} bytes, "
                         f"got {rgba.size}")
    rgba = rgba.reshape(height, width, 4)[::-1]
    return np.ascontiguousarray(rgba[:, :, 2::-1])


class KivyCameraSource:
    """Frames from Kivy's camera for the camera worker thread."""

    def __init__(self, index: int = 0, size: tuple[int, int] = (1280, 720),
                 camera_factory: Callable[[], Any] | None = None,
                 timeout_s: float = READ_TIMEOUT_S) -> None:
        if camera_factory is None:
            from kivy.core.camera import Camera as CoreCamera

            def camera_factory() -> Any:
                return CoreCamera(index=index, resolution=size, stopped=True)

        self.camera = camera_factory()
        if self.camera is None:
            from vision.measure import VisionError

            raise VisionError(f"camera {index}: this tablet has no camera Kivy can open")
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._frame: np.ndarray | None = None
        self._fresh = threading.Event()
        self._released = False
        self.camera.bind(on_texture=self._on_texture)
        self.camera.start()

    def _on_texture(self, *args: Any) -> None:
        """GUI thread: a new picture. Copied at once (the texture is reused)."""
        texture = self.camera.texture
        if texture is None or self._released:
            return
        frame = texture_to_bgr(texture.pixels, texture.width, texture.height)
        with self._lock:
            self._frame = frame
        self._fresh.set()

    def read(self) -> tuple[bool, np.ndarray | None]:
        """Worker thread: the newest picture not read yet (False after the timeout)."""
        if self._released or not self._fresh.wait(self.timeout_s):
            return False, None
        with self._lock:
            frame, self._frame = self._frame, None
            self._fresh.clear()
        return (frame is not None), frame

    def release(self) -> None:
        """Stop the camera (on the GUI thread, where Kivy wants it)."""
        if self._released:
            return
        self._released = True
        self._fresh.set()
        camera = self.camera

        def stop(_dt: float) -> None:
            camera.unbind(on_texture=self._on_texture)
            camera.stop()

        Clock.schedule_once(stop, 0)
