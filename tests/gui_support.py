"""Helpers for the GUI tests: one real Kivy window per process (under Xvfb), frames
advanced by hand, taps as simulated touches at widgets' window coordinates."""

from __future__ import annotations

import functools
import os
import re
import time
from collections.abc import Callable
from typing import Any

TOWER_NAME = f"gui{os.getpid()}"   # the simulated dice tower of the one GUI app
TOWER_URL = f"sim://{TOWER_NAME}?seed=9"

MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")


def plain(text: str) -> str:
    """A label's text without Kivy markup tags."""
    return MARKUP.sub("", text).replace("&bl;", "[").replace("&br;", "]")


def stop_drawing(window: Any) -> None:
    """No frame is drawn and flipped from now on. The checks read sizes, positions, texts
    and states, which Kivy lays out and updates whether or not a frame is drawn; in Xvfb's
    software GL the drawing was most of the GUI tests' and layout tours' time."""
    window.bind(on_draw=lambda *args: True, on_flip=lambda *args: True)


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


def _fading_popup() -> bool:
    """A popup or sheet on the window is fading in or out: it still takes every touch."""
    from kivy.animation import Animation
    from kivy.core.window import Window
    from kivy.uix.modalview import ModalView

    views = {w.uid for w in Window.children if isinstance(w, ModalView)}
    return any(uid in a._widgets for a in list(Animation._instances) for uid in views)


def tap(widget: Any, frames: int = 3) -> None:
    """Touch down and up at the widget's centre, in window coordinates, then let the
    rate-limited redraw run."""
    from kivy.app import App
    from kivy.tests.common import UnitTestTouch

    # a screen manager takes no touch while a screen slides in, nor a popup while it fades
    # (a player's tap then is lost too): tap once the slide or fade is over, as a player
    # would, however slow or fast the machine is
    transition = getattr(getattr(App.get_running_app(), "root", None), "transition", None)
    if transition is not None and transition.is_active:
        wait_for(lambda: not transition.is_active, timeout=10, what="the screen to slide in")
    if _fading_popup():
        wait_for(lambda: not _fading_popup(), timeout=10, what="the popup to fade")
    x, y = widget.to_window(*widget.center)
    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_up()
    if not frames:
        return
    pump(frames)
    if _release_pending(touch):
        # in a scroll view the release reaches the button 0.2 s after the finger leaves
        # (Kivy's ScrollView waits to tell a tap from a scroll): a player's tap takes that long
        wait_for(lambda: not _release_pending(touch), timeout=10, what="the tap's release")


def _release_pending(touch: Any) -> bool:
    """A scroll view has yet to hand this touch's release to the widget under it."""
    from kivy.clock import Clock

    for event in Clock.get_events():
        callback = event.get_callback()
        if (isinstance(callback, functools.partial)
                and getattr(callback.func, "__name__", "") == "_do_touch_up"
                and callback.args and callback.args[0] is touch):
            return True
    return False


def on_screen(app, name):
    """The screen is current, its transition is over and no worker is still busy."""
    return (app.root.current == name and not app.root.transition.is_active
            and not app.busy)


def open_from_home(app, game, setup_screen, what="the set-up"):
    """Home, then the game's tile; returns its set-up screen once it is on screen."""
    close_popups(app)
    app.go("home")
    wait_for(lambda: on_screen(app, "home"), what="home")
    tap(app.root.get_screen("home").ids[f"tile_{game}"])
    wait_for(lambda: on_screen(app, setup_screen), what=what)
    return app.root.get_screen(setup_screen)


def close_popups(app):
    """Close confirm popups, modal sheets, and banners or toasts left by an earlier test."""
    from kivy.uix.modalview import ModalView

    while app.popup is not None:
        app.popup.dismiss(animation=False)
        pump(2)
    for w in list(app.root_window.children):
        if isinstance(w, ModalView):
            w.dismiss(animation=False)
    for attr in ("banner_widget", "toast_widget"):
        w = getattr(app, attr)
        if w is not None and w.parent is not None:
            w.parent.remove_widget(w)
        setattr(app, attr, None)
    pump(2)
