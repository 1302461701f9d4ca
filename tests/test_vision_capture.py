"""Capture and measurement on their own thread: the newest frame wins, a slow reader never
holds the camera up, a camera that gives nothing says so, and stop() ends the thread."""

from __future__ import annotations

import threading
import time

import numpy as np

from vision.capture import LiveMeasure, Mailbox
from vision.render import default_table, random_scene, render


class Frames:
    """A fake camera: numbered frames as fast as they are read (the number in pixel 0)."""

    def __init__(self, image):
        self.image = image
        self.n = 0
        self.released = threading.Event()

    def read(self):
        self.n += 1
        img = self.image.copy()
        img[0, 0, 0] = self.n % 256
        return True, img

    def release(self):
        self.released.set()


def test_the_mailbox_keeps_only_the_newest():
    box = Mailbox()
    for i in range(5):
        box.put(i)
    assert box.take() == 4 and box.take() is None


def test_a_slow_reader_gets_the_latest_measured_frame_and_stop_ends_the_thread():
    sc = random_scene(np.random.default_rng(3), default_table(), max_tilt_deg=10,
                      n_pieces=(3, 3), noise=False, blur=False)
    source = Frames(render(sc).image)
    live = LiveMeasure(source, sc.table, sc.camera, max_fps=200).start()
    try:
        time.sleep(1.0)                          # the reader is busy elsewhere
        frame = live.mailbox.take()
        # not the first frame, as a queue would give, but one of the newest
        assert frame is not None and frame.seq > 5 and live.frames - frame.seq <= 3
        assert frame.measurement is not None and frame.all_anchors and frame.error == ""
        assert len(frame.measurement.pieces) == 3
    finally:
        live.stop()
    assert not live.running and source.released.is_set()


def test_a_camera_that_gives_no_frame_says_so():
    class Dead:
        def read(self):
            return False, None

        def release(self):
            pass

    live = LiveMeasure(Dead(), default_table(), None).start()
    frame = None
    deadline = time.monotonic() + 3
    try:
        while frame is None and time.monotonic() < deadline:
            frame = live.mailbox.take()
            time.sleep(0.02)
    finally:
        live.stop()
    assert frame is not None and frame.measurement is None
    assert frame.error.startswith("The camera stopped giving pictures")


def test_the_worker_survives_opencv_errors_from_the_camera_and_the_measurement(caplog):
    """A driver or OpenCV error (cv2.error) is logged with its traceback; the thread goes on,
    the screen is told in words, and frames after it are measured again."""
    import cv2

    sc = random_scene(np.random.default_rng(3), default_table(), max_tilt_deg=10,
                      n_pieces=(3, 3), noise=False, blur=False)
    good = render(sc).image

    class Flaky:
        def __init__(self):
            self.n = 0

        def read(self):
            self.n += 1
            if self.n == 2:
                raise cv2.error("a camera driver error")
            return True, good

        def release(self):
            pass

    source = Flaky()
    live = LiveMeasure(source, sc.table, sc.camera, max_fps=100)
    measure = live.measurer.measure
    calls = []

    def flaky_measure(image):
        calls.append(1)
        if len(calls) == 2:
            raise cv2.error("OpenCV could not handle this frame")
        return measure(image)

    live.measurer.measure = flaky_measure
    seen = []
    with caplog.at_level("ERROR", logger="vision.capture"):
        live.start()
        deadline = time.monotonic() + 10
        try:
            while time.monotonic() < deadline and not (
                    len(calls) > 3 and seen and seen[-1].measurement is not None):
                frame = live.mailbox.take()
                if frame is not None:
                    seen.append(frame)
                time.sleep(0.005)
        finally:
            live.stop()
    assert not live.running and live.errors == 2
    assert seen[-1].measurement is not None           # it measures again after the errors
    logged = [r.getMessage() for r in caplog.records if r.exc_info]
    assert "the camera failed to give a frame" in logged
    assert "a camera frame could not be measured" in logged


def test_live_pieces_appear_only_once_steady():
    sc = random_scene(np.random.default_rng(3), default_table(), max_tilt_deg=10,
                      n_pieces=(3, 3), noise=False, blur=False)
    image = render(sc).image
    seen = []

    class Three:
        def __init__(self):
            self.n = 0

        def read(self):
            self.n += 1
            return (True, image) if self.n <= 3 else (False, None)

        def release(self):
            pass

    live = LiveMeasure(Three(), sc.table, sc.camera, max_fps=200)
    live.on_frame = lambda: seen.append(live.mailbox.take())
    live.start()
    deadline = time.monotonic() + 10
    while len(seen) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    live.stop()
    assert [len(f.measurement.pieces) for f in seen] == [0, 0, 3]
    assert seen[0].measurement.ignored_counts == {"not steady yet": 3}
