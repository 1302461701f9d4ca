"""Dice statistics (from the dice panel): what the tower has read, one card per kind and
colour of die, with a histogram against a fair die's share, the verdict, and "I changed
dice". What it shows is built by :func:`companion.app.stats_view.card_view` (Kivy-free)."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.graphics import Color, Line, Rectangle
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ColorProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from ... import dice_stats
from ...errors import CompanionError
from ...i18n import _
from .. import widgets  # noqa: F401  (its rules must load first)
from ..kv import load_kv
from ..scale import ui
from ..stats_view import card_view


class Histogram(Widget):
    """Bars of the counts, and the fair die's share as a white line across them."""

    bars = ListProperty([])
    fair = NumericProperty(0.0)
    die_rgba = ColorProperty((0.45, 0.47, 0.52, 1))

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # drawn once a frame, whatever changed: a layout pass moves and sizes it several
        # times, and each draw made its labels anew (25 ms for a D12's 24 labels)
        self._redraw = Clock.create_trigger(self.draw, -1)
        self.bind(pos=self._redraw, size=self._redraw, bars=self._redraw, fair=self._redraw)

    def draw(self, *args: Any) -> None:
        self.canvas.after.clear()
        n = len(self.bars)
        if len(self.children) != 2 * n:  # the labels are made again only for other bars
            self.clear_widgets()
            for _ in range(n):
                count = Label(font_size=ui.body, bold=True, size_hint=(None, None))
                face = Label(font_size=ui.body, size_hint=(None, None), halign="center",
                             valign="top")
                self.add_widget(count)
                self.add_widget(face)
        if not n:
            return
        label_h = ui.k * dp(40)       # the face names, two lines where long
        count_h = ui.k * dp(24)
        plot_h = max(self.height - label_h - count_h, dp(8))
        base = self.y + label_h
        gap = self.width / n * 0.18
        w = self.width / n - gap
        with self.canvas.after:
            for i, bar in enumerate(self.bars):
                x = self.x + i * (w + gap) + gap / 2
                Color(*self.die_rgba)
                Rectangle(pos=(x, base), size=(w, max(plot_h * bar["height"], dp(2))))
            if self.fair > 0:
                Color(1, 1, 1, 0.9)
                y = base + plot_h * self.fair
                Line(points=[self.x, y, self.right, y], dash_length=8, dash_offset=6)  # dashes: width 1
        labels = list(reversed(self.children))  # in the order they were added
        for i, bar in enumerate(self.bars):
            x = self.x + i * (w + gap) + gap / 2
            count, face = labels[2 * i], labels[2 * i + 1]
            count.text, count.font_size = str(bar["count"]), ui.body
            count.size = (w + gap, count_h)
            count.pos = (x - gap / 2, base + plot_h * bar["height"])
            face.text, face.font_size = bar["face"], ui.body
            face.size = face.text_size = (w + gap, label_h)
            face.pos = (x - gap / 2, self.y)


class StatsCard(BoxLayout):
    key = StringProperty("")
    title = StringProperty("")
    counted = StringProperty("")
    since = StringProperty("")
    verdict = StringProperty("")
    verdict_rgba = ColorProperty((1, 1, 1, 1))
    detail = StringProperty("")
    can_undo = BooleanProperty(False)


class DiceStatsScreen(Screen):
    empty = BooleanProperty(True)
    problem = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        self.refresh()

    def on_language(self) -> None:
        self.refresh()

    def refresh(self, *args: Any) -> None:
        app = App.get_running_app()
        box = self.ids.cards
        box.clear_widgets()
        try:
            stats = dice_stats.statistics(app.data_root)
            self.problem = ""
        except CompanionError as exc:   # a damaged journal: named, nothing counted
            stats, self.problem = [], str(exc)
        self.empty = not stats
        for s in stats:
            view = card_view(s)
            card = StatsCard(key=view["key"], title=view["title"], counted=view["counted"],
                             since=view["since"], verdict=view["verdict"],
                             verdict_rgba=view["verdict_rgba"], detail=view["detail"],
                             can_undo=view["can_undo"])
            card.ids.histogram.die_rgba = view["die_rgba"]
            card.ids.histogram.fair = view["fair"]
            card.ids.histogram.bars = view["bars"]
            box.add_widget(card)

    def changed_dice(self, key: str, title: str) -> None:
        """"I changed dice": this kind and colour counts again from now (undoable)."""
        app = App.get_running_app()
        dice_stats.reset(app.data_root, key)
        self.refresh()
        app.toast(_("{dice}: counted again from now").format(dice=title), error=False)

    def take_back(self, key: str, title: str) -> None:
        app = App.get_running_app()
        if dice_stats.undo_reset(app.data_root, key):
            self.refresh()
            app.toast(_("{dice}: the earlier throws count again").format(dice=title), error=False)


load_kv(__package__, "dice_stats.kv")
