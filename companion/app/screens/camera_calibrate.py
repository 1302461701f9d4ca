"""The guided camera calibration: show the printed ChArUco board to the camera in many
places and angles; a view is kept each time the board is found in a new pose (progress bar),
then the camera is calibrated and the reprojection error and coverage shown. Save writes
the camera file the measuring view uses (``overhead_camera.yaml``: ``intrinsics``).

Capture, detection and calibration run on a worker thread (``vision.calibrate.
calibrate_live``); this screen polls a one-slot mailbox on the Kivy clock.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
from kivy.app import App
from kivy.clock import Clock
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from ...i18n import _
from .. import widgets  # noqa: F401  (its rules must load first)
from ..camera_view import CameraView  # noqa: F401  (used in the .kv)
from ..kv import load_kv

VIEWS = 20


class CalibrationRun:
    """``calibrate_live`` on its own thread; frames and progress through mailboxes."""

    def __init__(self, source: Any, n_views: int = VIEWS) -> None:
        from vision.capture import Mailbox

        self.source = source
        self.n_views = n_views
        self.frames = Mailbox()
        self.kept = 0
        self.result: tuple[Any, dict] | None = None
        self.error = ""
        self.done = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="vision-calibrate", daemon=True)

    def start(self) -> CalibrationRun:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(3.0)

    def _run(self) -> None:
        from vision.calibrate import calibrate_live

        def on_frame(frame: np.ndarray, view: Any, kept: bool) -> None:
            corners = [] if view is None else view.corners.reshape(-1, 2).tolist()
            self.frames.put((frame, corners, kept))

        def progress(kept: int, total: int) -> None:
            self.kept = kept

        try:
            self.result = calibrate_live(self.source, n_views=self.n_views, progress=progress,
                                         on_frame=on_frame, should_stop=self._stop.is_set)
        except ValueError as exc:
            self.error = str(exc)
        finally:
            try:
                self.source.release()
            except Exception:  # noqa: BLE001
                pass
            self.done.set()


class CameraCalibrateScreen(Screen):
    source_text = StringProperty("")
    progress = NumericProperty(0)
    progress_text = StringProperty("")
    result_text = StringProperty("")
    warnings = StringProperty("")
    can_save = BooleanProperty(False)
    running = BooleanProperty(False)
    demo = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run: CalibrationRun | None = None
        self.camera: Any = None
        self.back_to = "home"
        self._event: Any = None

    def start(self, source: Any, text: str, demo: bool, back_to: str) -> None:
        self.stop()
        self.source_text, self.demo, self.back_to = text, demo, back_to
        self.camera, self.can_save, self.result_text, self.warnings = None, False, "", ""
        self.progress, self.progress_text = 0, _("{kept} of {views} views").format(kept=0, views=VIEWS)
        self.run = CalibrationRun(source).start()
        self.running = True
        self._event = Clock.schedule_interval(self.poll, 1 / 15)

    def stop_workers(self) -> None:
        self.stop()

    def pause_workers(self) -> None:
        """The app is paused: the camera is given back to the system; the views gathered so
        far cannot be kept, so the player starts again from where they came."""
        if self.run is None:
            return
        self.stop()
        if self.manager is not None and self.manager.current == self.name:
            app = App.get_running_app()
            app.go(self.back_to)
            app.toast(_("The calibration stopped while the app was in the background: "
                        "start it again"))

    def stop(self) -> None:
        if self._event is not None:
            self._event.cancel()
            self._event = None
        if self.run is not None:
            self.run.stop()
            self.run = None
        self.running = False

    def on_leave(self, *args: Any) -> None:
        self.stop()

    def poll(self, *args: Any) -> None:
        run = self.run
        if run is None:
            return
        item = run.frames.take()
        if item is not None:
            frame, corners, kept = item
            view = self.ids.view
            view.show(frame)
            view.overlays = [("poly", ([(x - 4, y), (x, y - 4), (x + 4, y), (x, y + 4)],
                                       (0.3, 1, 0.4, 1) if kept else (1, 0.8, 0.2, 1), 1.5))
                             for x, y in corners]
            view.redraw()
        self.progress = min(1.0, run.kept / run.n_views)
        self.progress_text = _("{kept} of {views} views").format(kept=run.kept, views=run.n_views)
        if run.done.is_set():
            self._event.cancel()
            self._event = None
            self.running = False
            if run.error:
                self.result_text = _("Not calibrated")
                self.warnings = run.error
            elif run.result is not None:
                cam, report = run.result
                self.camera = cam
                self.result_text = _("Reprojection error {error_px:.3f} px from {views} views · "
                                     "coverage {coverage:.0%}").format(
                    error_px=report["rms_px"], views=report["views"], coverage=report["coverage"])
                self.warnings = "\n".join(report["warnings"]) or (
                    _("Good: the board was seen all over the image."))
                self.can_save = not self.demo

    def save(self) -> None:
        app = App.get_running_app()
        cam = self.camera
        if cam is None or self.demo:
            return

        def work(root: Path) -> Path:
            from vision.config import save_camera

            from ..overhead import intrinsics_path
            path = intrinsics_path(root)
            if path is None:
                raise ValueError(_("the camera settings name no file for the calibration"))
            return save_camera(path, cam)

        def done(path: Path) -> None:
            self.can_save = False
            app.toast(_("Calibration saved"), error=False)

        app.in_background(work, done, lambda exc: app.toast(_("Not saved: {problem}").format(problem=exc)))

    def again(self) -> None:
        App.get_running_app().open_calibration(self.back_to)

    def back(self) -> None:
        self.stop()
        App.get_running_app().go(self.back_to)


load_kv(__package__, "camera_calibrate.kv")
