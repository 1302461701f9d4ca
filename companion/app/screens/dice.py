"""The dice tower panel: connection state with its reason, the last roll as dice, the history.

Everything shown here comes from properties of the App that the tower's reader thread updates
through one crossing point (``TowerController.event``, scheduled on the Kivy clock). A
tap on a die of the last roll sets it by hand (``TowerController.check_die``).
"""

from __future__ import annotations

from kivy.properties import ColorProperty, NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from ...i18n import _
from .. import widgets  # noqa: F401  (its <Label> rule must load before the rules below)
from ..dice_look import COLOUR_WORDS, DIE_COLOURS, STATUS_WORDS, UNKNOWN_COLOUR, face_words
from ..kv import load_kv


class DieFace(ButtonBehavior, Label):
    """One die: its face name big on the die's own colour; amber ring and a word when the
    tower could not read it cleanly. A tap sets it by hand ("Which face is up?")."""

    die_bg = ColorProperty(UNKNOWN_COLOUR)
    ring = ColorProperty((0, 0, 0, 0))
    caption = StringProperty("")
    index = NumericProperty(-1)     # its place in the last roll

    def on_release(self) -> None:
        from kivy.app import App

        app = App.get_running_app()
        if app is not None and self.index >= 0:
            app.tower.check_die(int(self.index))

    @classmethod
    def of(cls, die: dict) -> DieFace:
        colour = die.get("colour")
        bg = DIE_COLOURS.get(colour or "", UNKNOWN_COLOUR)
        dark_text = colour in ("yellow", "white")
        status = die.get("status", "clean")
        widget = cls(text=face_words(die.get("face")), die_bg=bg,
                     color=(0.08, 0.08, 0.1, 1) if dark_text else (1, 1, 1, 1))
        kind = str(die.get("kind", ""))
        widget.caption = (f"{_(COLOUR_WORDS[colour])} {kind}" if colour in COLOUR_WORDS else kind) \
            if kind in ("d6", "d12") else ""
        if status != "clean":
            widget.ring = (1.0, 0.62, 0.15, 1)
            widget.caption = (_(STATUS_WORDS[status]) if status in STATUS_WORDS else status).upper()
        return widget


class DiceScreen(Screen):
    def on_pre_enter(self, *args) -> None:
        self.refresh()

    def refresh(self, *args) -> None:
        from kivy.app import App

        app = App.get_running_app()
        if app is None:
            return
        row = self.ids.last_roll
        row.clear_widgets()
        for i, die in enumerate(app.last_roll):
            face = DieFace.of(die)
            face.index = i
            row.add_widget(face)


load_kv(__package__, "dice.kv")
