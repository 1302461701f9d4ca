"""The Danchie Go set-up screen (the play screen is ``danchie_game``): who plays, and the game's
options, before ``app.start_game``."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from ...games import danchie as dg
from ...i18n import _
from .. import widgets  # noqa: F401  (its rules must load first)
from ..kv import load_kv
from . import danchie_game  # noqa: F401  (the rules of its .kv file first: shared buttons)


class DanchieSetupScreen(Screen):
    """Player count, names in turn order, and the set-up table for that count."""

    count = NumericProperty(4)
    table_text = StringProperty("")
    notes_text = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        self.set_count(int(self.count))

    def set_count(self, n: int) -> None:
        self.count = n
        t = dg.setup_table(n)
        sets = ", ".join(_("P{number} {set}").format(number=i + 1, set=_(s))
                         for i, s in enumerate(t.obstacle_sets))
        self.table_text = (
            _("[b]{lanes}[/b] racing lanes    [b]{obstacles}[/b] obstacles ({sets})").format(
                lanes=t.lanes, obstacles=t.obstacles, sets=sets) + "\n"
            + _("Standard set: {obstacles}").format(obstacles=", ".join(t.standard_set))
            + ("    " + _("Special set: {obstacles}").format(obstacles=", ".join(t.special_set))
               if "Special" in t.obstacle_sets else "")
            + "\n" + _("[b]{per_type}[/b] Tiles of each of the {types} colours ({tiles} in all), "
                       "then [b]{power_up_tiles}[/b] flipped to Power-Up (3 per player)").format(
                per_type=t.tiles_per_type, types=t.tile_types, tiles=t.tiles,
                power_up_tiles=t.power_up_tiles))
        self.notes_text = "\n".join("• " + n for n in t.notes)
        for b in self.ids.counts.children:
            b.state = "down" if b.text == str(n) else "normal"
        for i, field in enumerate(reversed(self.ids.names.children)):
            field.disabled = i >= n
            field.opacity = 1 if i < n else 0.25

    def names(self) -> list[str]:
        fields = list(reversed(self.ids.names.children))[: int(self.count)]
        return [f.text.strip() or _("Player {number}").format(number=i + 1)
                for i, f in enumerate(fields)]

    def start(self) -> None:
        app = App.get_running_app()
        names = self.names()
        if len({n.casefold() for n in names}) != len(names):
            app.toast(_("Each Dasher needs a different name"))
            return
        setup = dg.setup_from_config(app.config_of("danchie"), names)
        app.start_game("danchie", setup, "-".join(names))


load_kv(__package__, "danchie_setup.kv")
