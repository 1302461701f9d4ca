"""How big the app draws at the current window size: ``ui.k``, a factor on the dp and sp
sizes of the .kv files, so that a layout drawn for 1280x800 dp fills 960x600 dp (0.75) and
1600x1000 dp (1.25) alike instead of overflowing the one and leaving the other half empty.

In a .kv file: ``#:import ui companion.app.scale.ui``, then ``height: ui.k * dp(72)``;
text takes a role of the type scale (``companion.app.theme``): ``font_size: ui.body`` (the
rule re-evaluates when the window is resized). Tap targets keep at least 48 dp:
``height: max(dp(48), ui.k * dp(56))``. A BigButton built in Python takes
``tap_dp=56, font_role="text"`` (its class rule scales them), not height or font_size.

``k`` is the smaller of the window's width over 1280 dp and its height over 800 dp, kept
between 0.75 and 1.5: below 0.75 (a phone in landscape, 800x360 dp) text is not shrunk
further; ``short`` is then True and Home, the dice panel and TEKKEN scroll instead.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

from kivy.event import EventDispatcher
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, DictProperty, NumericProperty
from kivy.weakproxy import WeakProxy

from companion.app import theme

DESIGN_DP = (1280.0, 800.0)     # the size the .kv files' numbers were drawn for
K_MIN, K_MAX = 0.75, 1.5
MIN_TAP_DP = 48


def _forget_dead_rules(owner: EventDispatcher, name: str) -> None:
    """Unbinds the .kv rules bound to ``owner``'s property ``name`` whose object is gone: Kivy
    binds a rule (its ``call_fn``) with the object it sets as its first argument, a weak
    proxy (Kivy's own for a widget, Python's for a canvas instruction), and unbinds it when
    the collector frees a widget; a proxy found dead here was missed."""
    for _callback, largs, _kwargs, _is_ref, uid in owner.get_property_observers(name, args=True):
        args = largs[0] if largs and type(largs[0]) in (tuple, list) and largs[0] else ()
        if args and _is_dead(args[0]):
            owner.unbind_uid(name, uid)


def _is_dead(ref: Any) -> bool:
    """Whether ``ref`` is a weak proxy whose object is gone. Its type is asked with ``type``:
    ``isinstance`` asks a proxy for its ``__class__``, which a dead Python proxy answers with
    ReferenceError."""
    kind = type(ref)
    try:
        if kind is WeakProxy:
            ref.__ref__()
        elif kind in weakref.ProxyTypes:
            ref.__class__  # noqa: B018 - touching a dead proxy raises
        return False
    except ReferenceError:
        return True


def factor(width_px: float, height_px: float, unit: float) -> float:
    """``k`` for a window of ``width_px`` x ``height_px`` pixels where one dp is ``unit``."""
    k = min(width_px / unit / DESIGN_DP[0], height_px / unit / DESIGN_DP[1])
    return max(K_MIN, min(K_MAX, k))


class UiScale(EventDispatcher):
    k = NumericProperty(1.0)
    # a short window (a phone in landscape): screens that can, put their panels in a scroll
    short = BooleanProperty(False)
    # the type scale's roles in pixels at the current window size (companion.app.theme)
    tag = NumericProperty(0.0)
    body = NumericProperty(0.0)
    text = NumericProperty(0.0)
    large = NumericProperty(0.0)
    heading = NumericProperty(0.0)
    title = NumericProperty(0.0)
    display = NumericProperty(0.0)
    figure = NumericProperty(0.0)
    hero = NumericProperty(0.0)
    # the same by role name, for a widget whose role is a property (BigButton.font_role)
    font = DictProperty({})

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._set_type()

    def _set_type(self) -> None:
        sizes = {role: sp(theme.size_sp(role, self.k)) for role in theme.ROLES}
        for role, px in sizes.items():
            self._set(role, px)
        self._set("font", sizes)

    def _set(self, name: str, value: Any) -> None:
        """``name`` set to ``value``, its rules told. A rule of a widget already collected
        whose bindings Kivy has not undone yet (it does so when the collector runs its
        callbacks) raises ReferenceError in the middle of telling them, and the window's
        resize with it (a closed screen's label, then a resize: the layout tour failed so, 2
        times in 7): the collector is run, the rules of widgets that are gone are unbound
        (:func:`_forget_dead_rules`), and the rules are told again."""
        try:
            setattr(self, name, value)
        except ReferenceError:
            gc.collect()
            # and a rule whose widget is gone though the collector did not unbind it (the
            # layout tour stopped so on 2026-12-05, after the collector had run)
            _forget_dead_rules(self, name)
            self.property(name).dispatch(self)

    def size_tag(self, role: str) -> str:
        """The markup that opens text of ``role``'s size: ``ui.size_tag("body") + t + "[/size]"``
        (Python-built text; a .kv rule writes ``int(ui.body)`` so that it follows resizes)."""
        return f"[size={round(self.font[role])}]"

    def on_k(self, *args: Any) -> None:
        self._set_type()

    def follow(self, window: Any) -> None:
        """Track ``window``'s size from now on."""
        window.bind(size=self._resized)
        self._resized(window, window.size)

    def _resized(self, window: Any, size: Any) -> None:
        unit = dp(1)
        self._set("k", factor(size[0], size[1], unit))
        self._set_type()             # the density may have changed since the last time
        self._set("short", size[1] / unit < DESIGN_DP[1] * K_MIN)


ui = UiScale()


def follow_window() -> None:
    from kivy.core.window import Window
    ui.follow(Window)
