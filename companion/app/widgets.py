"""Reusable widgets of the tablet UI: big buttons, HP bar, token and slot tiles, pips, toast.

Layout and colours live in ``widgets.kv``; the classes here only declare properties and,
for the widgets that draw many shapes (HP bar, pips, tiles), their canvas instructions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from kivy.animation import Animation
from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Ellipse, Line, Rectangle, RoundedRectangle
from kivy.metrics import dp, sp
from kivy.properties import (
    BooleanProperty,
    ColorProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    OptionProperty,
    StringProperty,
)
from kivy.uix.behaviors import ToggleButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.scatterlayout import ScatterLayout
from kivy.uix.widget import Widget

from ..i18n import N_, _
from . import theme
from .kv import load_kv
from .theme import C

# ---------------------------------------------------------------------------- palette
# the theme's (companion/app/theme.py), under the names this module's drawing code uses
BG, PANEL, ACCENT, GREEN, RED = C.bg, C.panel, C.accent, C.green, C.red
ORANGE, GREY, DIM = C.orange, C.grey, C.dim

RED_ZONE_HP = 6
MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")


class BigButton(Button):
    """A flat, rounded button with large text: ``tap_dp`` tall (72 dp at 1280x800 dp, scaled
    with the window, at least 48 dp) and text of the type scale's ``font_role`` (theme.py;
    "heading" unless told). Give a button built in Python its size with these, not with
    height/font_size (the kv rule, bound to the scale, would replace them)."""

    tap_dp = NumericProperty(72)
    font_role = StringProperty("heading")
    why = StringProperty("")   # greyed out: what a tap on it says (the rules' sentence)
    bg = ColorProperty(ACCENT)
    down_bg = ColorProperty((0.35, 0.6, 0.95, 1))
    disabled_bg = ColorProperty((0.15, 0.155, 0.18, 1))

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # as the kv rules set it; fitting never lowers it (a Kivy property: mypy cannot infer it)
        self._base_font: float = self.font_size  # type: ignore[has-type]
        self._fitting = False
        self._fit_trigger = Clock.create_trigger(self._fit_words, -1)
        self.fbind("text", self._fit_trigger)
        self.fbind("text_size", self._fit_trigger)
        self.fbind("font_size", self._font_set)
        self._fit_trigger()

    def on_touch_down(self, touch):
        # a greyed-out action says why when tapped, rather than nothing
        if self.disabled and self.why and self.collide_point(*touch.pos) and \
                not getattr(touch, "is_mouse_scrolling", False):
            from kivy.app import App

            app = App.get_running_app()
            if app is not None and hasattr(app, "toast"):
                app.toast(self.why)
            return True
        return super().on_touch_down(touch)

    def _font_set(self, *args):
        if not self._fitting:                # a kv rule (the window's scale) set it
            self._base_font = self.font_size
            self._fit_trigger()

    def _fit_words(self, *args):
        """A word too long for the button's width is never split: the text gets smaller
        until the longest word fits (a narrow window, a long word in another language), and
        back to its size when the button is wide enough again."""
        width = self.text_size[0]
        words = MARKUP.sub("", self.text).split()
        if not width or width <= 0 or not words:
            return
        base = self._base_font
        word = max(words, key=len)
        probe = CoreLabel(text=word, font_size=base, bold=self.bold, font_name=self.font_name)
        probe.refresh()
        need = probe.texture.width if probe.texture is not None else 0
        # never below body text (a one-word tag: never below the tag's floor)
        floor = sp(theme.MIN_SP if self.font_role == "tag" else theme.BODY_MIN_SP)
        size = base if need <= width else max(floor, base * width / need * 0.97)
        if abs(size - self.font_size) > 0.01:  # type: ignore[has-type]  # a Kivy property
            self._fitting = True
            self.font_size = size
            self._fitting = False


class BigToggle(ToggleButtonBehavior, BigButton):
    """A BigButton that stays down while selected (choices in the setup screen)."""

    allow_no_selection = BooleanProperty(False)


def fill_toggles(box: Any, names: Iterable[str], group: str, on_pick: Callable[[str], Any],
                 chosen: str | None = None, **look: Any) -> None:
    """``box`` holds one BigToggle per name, of one ``group`` (one down at a time); a tap
    calls ``on_pick(name)``. ``chosen``: the one down from the start; ``look``: the
    toggles' font_role, tap_dp..."""
    box.clear_widgets()
    for name in names:
        b = BigToggle(text=name, group=group, **look)
        if chosen is not None:
            b.state = "down" if name == chosen else "normal"
        b.bind(on_release=lambda _b, name=name: on_pick(name))
        box.add_widget(b)


class TakeBackButton(BigButton):
    """Undo or Redo under a game's screen (widgets.kv: ``UndoButton``, ``RedoButton``): its
    text and whether it can be tapped come from ``screen``'s undo_text/can_undo (redo_text/
    can_redo), followed when ``screen`` is set after the button is built."""

    screen = ObjectProperty(None, allownone=True, rebind=True)


class Stepper(BoxLayout):
    """A labelled value with big - and + buttons; ``is_default`` marks a value the rulebook
    does not print until the user changes it."""

    label = StringProperty("")
    value = NumericProperty(0)
    step = NumericProperty(1)
    lo = NumericProperty(0)
    hi = NumericProperty(12)
    is_default = BooleanProperty(False)

    def change(self, sign: int) -> None:
        self.value = max(self.lo, min(self.hi, self.value + sign * self.step))
        self.is_default = False


class Badge(Label):
    """A small coloured label (KNOCKED DOWN, OFFENSIVE, ...)."""

    bg = ColorProperty(RED)


class HPBar(Widget):
    """A segmented HP bar: one segment per HP; the red zone (HP <= 6) is red."""

    hp = NumericProperty(20)
    max_hp = NumericProperty(20)
    red_zone = NumericProperty(RED_ZONE_HP)
    bar_color = ColorProperty(GREEN)   # colour of the filled segments (red in the red zone)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._trigger = Clock.create_trigger(self._redraw, -1)
        self.bind(hp=self._trigger, max_hp=self._trigger, pos=self._trigger,
                  size=self._trigger, red_zone=self._trigger)
        self.bind(hp=self._update_colour, red_zone=self._update_colour)
        self._update_colour()

    def _update_colour(self, *args):
        self.bar_color = RED if self.hp <= self.red_zone else GREEN

    def _redraw(self, *args):
        self.canvas.clear()
        n = max(1, int(self.max_hp))
        gap = dp(2) if n <= 40 else 0
        seg_w = (self.width - gap * (n - 1)) / n
        with self.canvas:
            for i in range(n):
                filled = i < self.hp
                in_zone = i < self.red_zone
                if filled:
                    Color(*self.bar_color)
                elif in_zone:
                    Color(0.35, 0.08, 0.08, 1)
                else:
                    Color(*DIM)
                Rectangle(pos=(self.x + i * (seg_w + gap), self.y + dp(6)),
                          size=(seg_w, self.height - dp(6)))
            # a red rule under the red-zone segments, always visible
            zone = min(n, int(self.red_zone))
            Color(*RED)
            Rectangle(pos=(self.x, self.y), size=(zone * (seg_w + gap) - gap, dp(3)))


class Pips(Widget):
    """Rounds won as filled circles out of the rounds needed."""

    value = NumericProperty(0)
    total = NumericProperty(3)
    color = ColorProperty((1.0, 0.8, 0.2, 1))

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._trigger = Clock.create_trigger(self._redraw, -1)
        self.bind(value=self._trigger, total=self._trigger, pos=self._trigger,
                  size=self._trigger)

    def _redraw(self, *args):
        self.canvas.clear()
        d = min(self.height, dp(30))
        step = d + dp(10)
        x0 = self.center_x - (step * self.total - dp(10)) / 2
        y = self.center_y - d / 2
        with self.canvas:
            for i in range(int(self.total)):
                if i < self.value:
                    Color(*self.color)
                    Ellipse(pos=(x0 + i * step, y), size=(d, d))
                else:
                    Color(*GREY)
                    Line(ellipse=(x0 + i * step, y, d, d), width=dp(2))


class TokenTile(Label):
    """One Floor Break token: 'hidden' (face down, grey '?'), 'cracked' (red, a crack
    drawn across) or 'empty' (plain)."""

    kind = OptionProperty("hidden", options=["hidden", "cracked", "empty"])

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._trigger = Clock.create_trigger(self._redraw, -1)
        self.bind(kind=self._trigger, pos=self._trigger, size=self._trigger)
        self._trigger()

    def _redraw(self, *args):
        self.canvas.before.clear()
        self.text = {"hidden": "?", "cracked": "", "empty": _("empty")}[self.kind]
        x, y, w, h = self.x, self.y, self.width, self.height
        with self.canvas.before:
            if self.kind == "hidden":
                Color(*GREY)
            elif self.kind == "cracked":
                Color(*RED)
            else:
                Color(0.22, 0.24, 0.28, 1)
            RoundedRectangle(pos=self.pos, size=self.size, radius=[dp(8)])
            if self.kind == "cracked":
                Color(0.15, 0.02, 0.02, 1)
                Line(points=[x + w * 0.2, y + h * 0.9, x + w * 0.45, y + h * 0.6,
                             x + w * 0.35, y + h * 0.45, x + w * 0.65, y + h * 0.3,
                             x + w * 0.55, y + h * 0.15, x + w * 0.8, y + h * 0.05],
                     width=dp(3))
            elif self.kind == "empty":
                Color(0.5, 0.52, 0.58, 1)
                Line(rounded_rectangle=(x + dp(2), y + dp(2), w - dp(4), h - dp(4), dp(8)),
                     width=dp(1.5))


SLOT_LOOK = {
    "free": (N_("free"), (0.2, 0.21, 0.25, 1)),
    "hit": (N_("HIT"), (0.20, 0.62, 0.32, 1)),
    "punishment": (N_("PUNISH"), (0.75, 0.45, 0.1, 1)),
    "blocked": (N_("BLOCKED"), (0.45, 0.45, 0.5, 1)),
    "stun": (N_("STUN"), (0.55, 0.25, 0.65, 1)),
}


class SlotTile(Label):
    """One Attack Slot of the String."""

    kind = OptionProperty("free", options=list(SLOT_LOOK))
    bg = ColorProperty(SLOT_LOOK["free"][1])

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.on_kind()

    def on_kind(self, *args):
        text, self.bg = SLOT_LOOK[self.kind]
        self.text = _(text)


class Toast(Label):
    """A short message over everything; never takes a touch."""

    bg = ColorProperty(RED)

    def on_touch_down(self, touch):
        return False

    def on_touch_up(self, touch):
        return False

    def on_touch_move(self, touch):
        return False


class Banner(Toast):
    """The big centred announcement (FLOOR BREAK!)."""


class HideBox(BoxLayout):
    """A row that can be hidden: then it is not drawn and takes no touch at all (a disabled
    widget would swallow the touches that land on it, even at zero height)."""

    shown = BooleanProperty(True)

    def on_touch_down(self, touch):
        return super().on_touch_down(touch) if self.shown else False

    def on_touch_move(self, touch):
        return super().on_touch_move(touch) if self.shown else False

    def on_touch_up(self, touch):
        return super().on_touch_up(touch) if self.shown else False


class Turnable(ScatterLayout):
    """A player's half of a game screen that can be turned 180 degrees toward a player
    across the table (Face to face). A Scatter, so touches are turned with the drawing: a
    tap lands on the button drawn under the finger. Players cannot move, turn or zoom it."""

    turned = BooleanProperty(False)

    def __init__(self, **kwargs):
        kwargs.setdefault("do_rotation", False)
        kwargs.setdefault("do_scale", False)
        kwargs.setdefault("do_translation", False)
        super().__init__(**kwargs)

    def on_turned(self, *args):
        pos = tuple(self.pos)  # type: ignore[has-type]  # a Kivy property
        self.rotation = 180 if self.turned else 0
        self.pos = pos


class ConfirmBody(BoxLayout):
    """Message and two big buttons inside a confirm popup."""

    message = StringProperty("")
    ok_text = StringProperty("Confirm")
    cancel_text = StringProperty("Cancel")
    details = ListProperty([])


def flash(widget: Widget, seconds: float) -> None:
    """Fade a Toast/Banner in, hold it, and remove it from its parent."""
    widget.opacity = 0
    anim = Animation(opacity=1, d=0.15) + Animation(d=max(0.1, seconds - 0.45)) + \
        Animation(opacity=0, d=0.3)

    def done(*_):
        if widget.parent is not None:
            widget.parent.remove_widget(widget)

    anim.bind(on_complete=done)
    anim.start(widget)


load_kv(__package__, "widgets.kv")
