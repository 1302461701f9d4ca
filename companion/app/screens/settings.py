"""Settings (one tap from Home): the language, System (the tablet's), English or Français,
remembered across runs; a switch changes the open screens at once."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import DictProperty, StringProperty
from kivy.uix.screenmanager import Screen

from ...i18n import LANGUAGES, SYSTEM, _, system_language
from .. import widgets  # noqa: F401  (its rules must load first)
from ..kv import load_kv


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

    def choose(self, code: str) -> None:
        self.choice = code
        App.get_running_app().set_language(code)


load_kv(__package__, "settings.kv")
