"""The King of Tokyo Duel set-up screen (the play screen is ``kotd_game``): who plays, and
the game's options, before ``app.start_game``."""

from __future__ import annotations

import random
from functools import partial
from typing import Any

from kivy.app import App
from kivy.properties import (
    ListProperty,
    NumericProperty,
    StringProperty,
)
from kivy.uix.screenmanager import Screen

from ...games import kotd as k
from ...games.kotd import start_rule_text
from ...i18n import _
from .. import widgets  # noqa: F401  (its <Label> rule must load first)
from ..kv import load_kv
from ..widgets import HideBox, fill_toggles  # noqa: F401  (HideBox: used in the .kv)
from . import kotd_game  # noqa: F401  (the rules of its .kv file first: shared buttons)


class KotdSetupScreen(Screen):
    names = ListProperty(["", ""])
    first = NumericProperty(0)
    hints = ListProperty(["", ""])
    hps = ListProperty([10, 10])
    start_rule = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        cfg = App.get_running_app().config_of("kotd")
        if cfg is None:
            return
        self.start_rule = start_rule_text(cfg)
        names = [m.name for m in cfg.monsters]
        for side in (0, 1):
            fill_toggles(self.ids[f"monsters{side}"], names, f"kotd{side}-{id(self)}",
                         partial(self.choose, side), font_role="text", tap_dp=60)
        self.choose(0, self.names[0] if self.names[0] in names else names[0])
        self.choose(1, self.names[1] if self.names[1] in names else names[1])

    def on_language(self) -> None:
        cfg = App.get_running_app().config_of("kotd")
        if cfg is not None:
            self.start_rule = start_rule_text(cfg)

    def choose(self, side: int, name: str) -> None:
        names = list(self.names)
        names[side] = name
        self.names = names
        for b in self.ids[f"monsters{side}"].children:
            b.state = "down" if b.text == name else "normal"
        hps = list(self.hps)
        hps[side] = App.get_running_app().config_of("kotd").monster(name).hp
        self.hps = hps
        self._hints()

    def _hints(self) -> None:
        cfg = App.get_running_app().config_of("kotd")
        hints = []
        for n, hp in zip(self.names, self.hps):
            try:
                m = cfg.monster(n)
            except KeyError:
                hints.append("")
                continue
            default = "hp" in m.defaults and hp == m.hp
            power = (_("{power} (in short: your Monster sheet has the whole text)").format(power=_(m.power))
                     if "power" in m.defaults else _(m.power))
            hints.append((_("Starting HP is a default: set it from your Monster sheet") + "\n"
                          if default else "") + power)
        self.hints = hints

    def change_hp(self, side: int, delta: int) -> None:
        hps = list(self.hps)
        hps[side] = max(1, min(99, hps[side] + delta))
        self.hps = hps
        self._hints()

    def save_defaults(self) -> None:
        """Keep these starting HP as the Monsters' values (the user's kotd.yaml)."""
        from dataclasses import replace

        app = App.get_running_app()
        cfg = app.config_of("kotd")
        chosen = dict(zip(self.names, self.hps))
        monsters = tuple(replace(m, hp=int(chosen[m.name]),
                                 defaults=tuple(d for d in m.defaults if d != "hp"))
                         if m.name in chosen else m for m in cfg.monsters)
        app.save_game_config("kotd", replace(cfg, monsters=monsters),
                             then=lambda _path: self._hints())

    def toss(self) -> None:
        """Who starts: the rulebook rolls dice for it; a coin toss stands in."""
        self.first = random.SystemRandom().randrange(2)

    def start(self) -> None:
        app = App.get_running_app()
        if self.names[0] == self.names[1]:
            app.toast(_("Pick two different Monsters"))
            return
        setup = k.setup_from_config(app.config_of("kotd"), (self.names[0], self.names[1]),
                                    int(self.first), hp=(int(self.hps[0]), int(self.hps[1])),
                                    players=(self.ids.player_name0.text, self.ids.player_name1.text))
        app.start_game("kotd", setup, f"{self.names[0]}-vs-{self.names[1]}")


load_kv(__package__, "kotd_setup.kv")
