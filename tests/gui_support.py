"""Helpers for the GUI tests: one real Kivy window per process (under Xvfb), frames
advanced by hand, taps as simulated touches at widgets' window coordinates."""

from __future__ import annotations

import re
import time
from typing import Any, Callable

MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")


def plain(text: str) -> str:
    """A label's text without Kivy markup tags."""
    return MARKUP.sub("", text).replace("&bl;", "[").replace("&br;", "]")


def pump(frames: int = 3) -> None:
    from kivy.base import EventLoop
    for _ in range(frames):
        EventLoop.idle()


def wait_for(cond: Callable[[], Any], timeout: float = 5.0, what: str = "") -> Any:
    """Advance frames until ``cond()`` is truthy (worker threads report via the Clock)."""
    deadline = time.monotonic() + timeout
    while True:
        pump(1)
        value = cond()
        if value:
            pump(2)
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what() if callable(what) else what or cond}")
        time.sleep(0.005)


def tap(widget: Any, frames: int = 3) -> None:
    """Touch down and up at the widget's centre, in window coordinates, then let the
    rate-limited redraw run."""
    from kivy.tests.common import UnitTestTouch
    x, y = widget.to_window(*widget.center)
    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_up()
    if frames:
        pump(frames)
