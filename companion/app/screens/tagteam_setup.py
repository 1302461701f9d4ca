"""The Tag Team set-up screen (the play screen is ``tagteam_game``): who plays, and the game's
options, before ``app.start_game``."""

from __future__ import annotations

import random
from functools import partial
from typing import Any

from kivy.app import App
from kivy.properties import ListProperty
from kivy.uix.screenmanager import Screen

from ...games import tagteam as tt
from ...i18n import _
from .. import widgets  # noqa: F401  (its <Label> rule must load first)
from ..kv import load_kv
from ..widgets import fill_toggles
from . import tagteam_game  # noqa: F401  (the rules of its .kv file first: shared buttons)


class TagTeamSetupScreen(Screen):
    picks = ListProperty([["", ""], ["", ""]])
    players = ListProperty(["", ""])      # the players' names as typed ("" = Player N)

    def set_player(self, side: int, text: str) -> None:
        players = list(self.players)
        players[side] = " ".join(text.split())[:40]
        self.players = players

    def player_name(self, side: int) -> str:
        return self.players[side] or _("Player {number}").format(number=side + 1)

    def on_pre_enter(self, *args: Any) -> None:
        cfg = App.get_running_app().config_of("tagteam")
        if cfg is None:
            return
        names = tt.pickable(cfg)
        first = [["Jeanne", "Ching Shih"], ["Bödvar", "Wong Fei-Hung"]]   # the rulebook's first game
        self.picks = [[n if n in names else names[i] for i, n in enumerate(team)] for team in first]
        for t in (0, 1):
            for f in (0, 1):
                fill_toggles(self.ids[f"pick{t}{f}"], names, f"tt{t}{f}-{id(self)}",
                             partial(self.choose, t, f), chosen=self.picks[t][f],
                             font_role="body", tap_dp=48)

    def choose(self, team: int, slot: int, name: str) -> None:
        picks = [list(p) for p in self.picks]
        picks[team][slot] = name
        self.picks = picks
        for b in self.ids[f"pick{team}{slot}"].children:
            b.state = "down" if b.text == name else "normal"

    def start(self) -> None:
        app = App.get_running_app()
        chosen = [n for team in self.picks for n in team]
        if len(set(chosen)) != 4:
            app.toast(_("Four different Fighters, two a team"))
            return
        cfg = app.config_of("tagteam")
        setup = {"teams": [{"player": self.player_name(t),
                            "fighters": [tt.fighter_data(cfg.fighter(n), cfg) for n in self.picks[t]]}
                           for t in (0, 1)]}
        label = "-".join(self.picks[0]) + "-vs-" + "-".join(self.picks[1])
        app.start_game("tagteam", setup, label)

    @staticmethod
    def coin() -> int:
        return random.SystemRandom().randrange(2)


load_kv(__package__, "tagteam_setup.kv")
