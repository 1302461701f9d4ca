"""Home: a tile per registered game, "Resume" for the last unfinished game, "Saved games"."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from ... import registry
from ...i18n import _
from ..kv import load_kv
from ..scale import ui


class HomeScreen(Screen):
    resume_text = StringProperty("")          # "" hides the Resume button
    resume_path = ObjectProperty(None, allownone=True)
    _tiles_for: list[str] = []

    def on_kv_post(self, base_widget: Any) -> None:
        self.build_tiles()
        # a game added or removed later (a plug-in) changes the tiles, on the GUI thread
        registry.subscribe(lambda: Clock.schedule_once(lambda dt: self._follow_registry(), 0))

    def _follow_registry(self) -> None:
        if registry.ids() != self._tiles_for:
            self.build_tiles()

    def build_tiles(self) -> None:
        """One tile per game of the registry, in its order (``ids.tile_<game id>``)."""
        box = self.ids.tiles
        box.clear_widgets()
        for key in [k for k in self.ids if k.startswith("tile_")]:
            del self.ids[key]
        self._tiles_for = registry.ids()
        for entry in registry.games():
            t = entry.tile
            tile = Factory.GameTile(text=f"{_(t.title)}\n{ui.size_tag('text')}{_(t.subtitle)}[/size]",
                                    bg=t.colour, down_bg=t.pressed)
            tile.bind(on_release=lambda _w, game=entry.id: self.pick(game))
            box.add_widget(tile)
            self.ids[f"tile_{entry.id}"] = tile

    def on_pre_enter(self, *args: Any) -> None:
        self._follow_registry()
        app = App.get_running_app()
        if app is not None and app.status == "ready":
            app.find_unfinished(self.show_unfinished)

    def show_unfinished(self, saved: Any) -> None:
        if saved is None:
            self.resume_text, self.resume_path = "", None
        else:
            self.resume_text = _("Resume: {game}").format(game=saved.summary)
            self.resume_path = saved.path

    def pick(self, game: str) -> None:
        """A game's tile: its config is loaded, then its set-up screen shown."""
        App.get_running_app().open_setup(game)

    def resume(self) -> None:
        if self.resume_path is not None:
            App.get_running_app().open_game(self.resume_path)


load_kv(__package__, "home.kv")
