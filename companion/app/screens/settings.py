"""Settings (one tap from Home): the language, System (the tablet's), English or Français,
remembered across runs; a switch changes the open screens at once."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.graphics import Color, Rectangle
from kivy.properties import DictProperty, StringProperty
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from ...i18n import LANGUAGES, SYSTEM, _, system_language
from .. import widgets  # noqa: F401  (its rules must load first)
from ..kv import load_kv


class QrCode(Widget):
    """``text`` as a QR code (black on a white square with its quiet zone), for a phone's
    camera to open the live view's address."""

    text = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(text=self.draw, pos=self.draw, size=self.draw)

    def draw(self, *args: Any) -> None:
        self.canvas.clear()
        if not self.text:
            return
        import segno

        matrix = segno.make(self.text, error="m", micro=False).matrix
        n = len(matrix) + 8                        # 4 modules of quiet zone each side
        side = min(self.width, self.height)
        cell = side / n
        x0, y0 = self.x + (self.width - side) / 2, self.y + (self.height - side) / 2
        with self.canvas:
            Color(1, 1, 1, 1)
            Rectangle(pos=(x0, y0), size=(side, side))
            Color(0, 0, 0, 1)
            for r, row in enumerate(matrix):
                y = y0 + side - (r + 5) * cell
                for c, dark in enumerate(row):
                    if dark:
                        Rectangle(pos=(x0 + (c + 4) * cell, y), size=(cell + 0.5, cell + 0.5))


class SettingsScreen(Screen):
    choice = StringProperty(SYSTEM)      # "system", "en" or "fr": what the player picked
    system_text = StringProperty("")
    names = DictProperty(dict(LANGUAGES))   # each language in its own words

    def on_pre_enter(self, *args: Any) -> None:
        app = App.get_running_app()
        if app is not None and app.settings is not None:
            self.choice = app.settings.language
        self.on_language()

    def on_language(self) -> None:
        """The words built here (the System button names the tablet's language)."""
        self.system_text = _("System ({language})").format(language=LANGUAGES[system_language()])

    def live(self, where: str | None) -> None:
        """The live view off (None), on this tablet only ("tablet") or on the local network
        ("network"): a new address, token included, each time it is switched on."""
        from ...live.server import local_addresses

        app = App.get_running_app()
        if where is None:
            app.set_live(None)
            return
        addresses = dict((kind, addr) for addr, kind in local_addresses())
        if where == "network" and "network" not in addresses:
            app.toast(_("This tablet is on no local network: connect it to the Wi-Fi first"))
            app.set_live(app.live_bind or None)       # as it was
            return
        app.set_live(addresses["loopback" if where == "tablet" else "network"])

    def choose(self, code: str) -> None:
        self.choice = code
        App.get_running_app().set_language(code)


load_kv(__package__, "settings.kv")
