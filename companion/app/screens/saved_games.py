"""Saved games: every journal, most recent first; tap one to reopen it."""

from __future__ import annotations

import time
from typing import Any

from kivy.app import App
from kivy.properties import ListProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from ..kv import load_kv
from ..widgets import BigButton


class SavedGameRow(BigButton):
    path = ObjectProperty(None)


def row_text(g: Any) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.modified))
    state = "finished" if g.over else "in progress"
    text = f"[b]{g.title}[/b]   {g.summary}\n[color=9fa3ad]{when} · {state}[/color]"
    if g.problem:
        text += f"\n[color=ffa030]{g.problem}[/color]"
    return text


class SavedGamesScreen(Screen):
    status = StringProperty("")
    games = ListProperty([])

    def on_pre_enter(self, *args: Any) -> None:
        self.status = "Loading…"
        self.ids.rows.clear_widgets()
        App.get_running_app().list_saved(self.show)

    def show(self, games: list) -> None:
        self.games = games
        self.status = "" if games else "No saved games yet"
        box = self.ids.rows
        box.clear_widgets()
        for g in games:
            row = SavedGameRow(text=row_text(g), path=g.path)
            row.height = "120dp" if g.problem else "96dp"
            row.bind(on_release=lambda r: App.get_running_app().open_game(r.path))
            box.add_widget(row)


load_kv(__package__, "saved_games.kv")
