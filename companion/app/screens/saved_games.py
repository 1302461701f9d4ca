"""Saved games: every journal, most recent first; tap one to reopen it."""

from __future__ import annotations

import time
from typing import Any

from kivy.app import App
from kivy.metrics import dp
from kivy.properties import ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from ...i18n import _
from ..kv import load_kv
from ..scale import ui
from ..widgets import BigButton


class SavedGameRow(BigButton):
    path = ObjectProperty(None)


def row_text(g: Any) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.modified))
    state = _("finished") if g.over else _("in progress")
    text = f"[b]{_(g.title)}[/b]   {g.summary}\n[color=9fa3ad]{when} · {state}[/color]"
    if g.problem:
        text += f"\n[color=ffa030]{g.problem}[/color]"
    return text


class SavedGamesScreen(Screen):
    status = StringProperty("")
    games = ListProperty([])

    def on_pre_enter(self, *args: Any) -> None:
        self.status = _("Loading…")
        self.ids.rows.clear_widgets()
        App.get_running_app().list_saved(self.show)

    def show(self, games: list) -> None:
        app = App.get_running_app()
        open_path = app.session.path if app.session is not None else None
        self.games = games
        self.status = "" if games else _("No saved games yet")
        box = self.ids.rows
        box.clear_widgets()
        self.row_buttons: dict[Any, Any] = {}      # path -> its row (tap: open)
        self.delete_buttons: dict[Any, Any] = {}   # path -> its Delete button
        for g in games:
            tall = 120 if g.problem else 96
            line = BoxLayout(size_hint_y=None, spacing=dp(10))
            line.bind(minimum_height=line.setter("height"))
            row = SavedGameRow(text=row_text(g), path=g.path, tap_dp=tall)
            row.bind(on_release=lambda r: App.get_running_app().open_game(r.path))
            line.add_widget(row)
            self.row_buttons[g.path] = row
            is_open = open_path is not None and g.path == open_path
            delete = BigButton(text=_("Playing now") if is_open else _("Delete"), font_role="text",
                               size_hint_x=None, width=dp(140) * ui.k, tap_dp=tall,
                               disabled=is_open, bg=(0.55, 0.16, 0.16, 1))
            delete.bind(on_release=lambda _b, g=g: self.delete(g))
            line.add_widget(delete)
            self.delete_buttons[g.path] = delete
            box.add_widget(line)

    def delete(self, saved: Any) -> None:
        """One confirmation, then the list is read again."""
        app = App.get_running_app()
        app.delete_saved(saved, done=lambda: app.list_saved(self.show))


load_kv(__package__, "saved_games.kv")
