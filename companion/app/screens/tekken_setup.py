"""New TEKKEN game: two characters, their max HP, rounds to win, stage, who opens."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kivy.app import App
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from ...games.tekken import RED_ZONE_HP, TekkenConfig, stage_data
from ...i18n import N_, _
from ..kv import load_kv
from ..widgets import BigToggle

DEFAULT_HINT = N_("(default — edit to match your card)")


class TekkenSetupScreen(Screen):
    names = ListProperty(["", ""])          # chosen character per fighter slot
    hps = ListProperty([20, 20])            # chosen max HP per fighter slot
    hp_hints = ListProperty(["", ""])       # DEFAULT_HINT while the value is an unedited default
    rounds_to_win = NumericProperty(3)
    stage = StringProperty("")
    offensive = NumericProperty(0)
    stage_has_floor = BooleanProperty(False)

    def on_pre_enter(self, *args: Any) -> None:
        cfg = App.get_running_app().config_of("tekken")
        if cfg is None:
            return
        chars = [c.name for c in cfg.characters]
        first = chars[0]
        second = chars[1] if len(chars) > 1 else chars[0]
        self.rounds_to_win = cfg.rounds_to_win
        self.stage = cfg.stages[0].name
        self.offensive = 0
        self._fill(self._chars(0), chars, f"f0-{id(self)}", lambda n: self.choose(0, n))
        self._fill(self._chars(1), chars, f"f1-{id(self)}", lambda n: self.choose(1, n))
        self._fill(self.ids.stages, [s.name for s in cfg.stages], f"st-{id(self)}",
                   self.choose_stage)
        self.choose(0, first)
        self.choose(1, second)
        self.choose_stage(self.stage)
        self.set_opener(0)

    def _chars(self, slot: int):
        return self.ids[f"fighter{slot}"].ids.chars

    @staticmethod
    def _fill(box, labels, group, on_pick) -> None:
        box.clear_widgets()
        for label in labels:
            b = BigToggle(text=label, group=group)
            b.bind(on_release=lambda btn, label=label: on_pick(label))
            box.add_widget(b)

    @staticmethod
    def _select(box, label: str) -> None:
        for b in box.children:
            b.state = "down" if b.text == label else "normal"

    # -- choices -------------------------------------------------------------------------
    def _cfg(self) -> TekkenConfig:
        return App.get_running_app().config_of("tekken")

    def choose(self, slot: int, name: str) -> None:
        names = list(self.names)
        names[slot] = name
        self.names = names
        self._select(self._chars(slot), name)
        hps = list(self.hps)
        hps[slot] = self._cfg().character(name).max_hp
        self.hps = hps
        self._update_hints()

    def change_hp(self, slot: int, delta: int) -> None:
        hps = list(self.hps)
        hps[slot] = max(RED_ZONE_HP + 1, min(99, hps[slot] + delta))
        self.hps = hps
        self._update_hints()

    def _update_hints(self) -> None:
        cfg = self._cfg()
        hints = []
        for name, hp in zip(self.names, self.hps):
            try:
                c = cfg.character(name)
            except KeyError:
                hints.append("")
                continue
            hints.append(_(DEFAULT_HINT) if c.max_hp_is_default and hp == c.max_hp else "")
        self.hp_hints = hints

    def change_rounds(self, delta: int) -> None:
        self.rounds_to_win = max(1, min(9, self.rounds_to_win + delta))

    def choose_stage(self, name: str) -> None:
        self.stage = name
        self.stage_has_floor = self._cfg().stage(name).floor_break is not None
        self._select(self.ids.stages, name)

    def set_opener(self, slot: int) -> None:
        self.offensive = slot
        self.ids.open0.state = "down" if slot == 0 else "normal"
        self.ids.open1.state = "down" if slot == 1 else "normal"

    # -- results -------------------------------------------------------------------------
    def setup_data(self) -> dict[str, Any]:
        players = [self.ids[f"fighter{i}"].ids.player_name.text for i in (0, 1)]
        return {"fighters": [{"name": n, "max_hp": int(hp), "player": p}
                             for n, hp, p in zip(self.names, self.hps, players)],
                "stage": stage_data(self._cfg().stage(self.stage)),
                "rounds_to_win": int(self.rounds_to_win),
                "offensive": int(self.offensive)}

    def start(self) -> None:
        app = App.get_running_app()
        if self.names[0] == self.names[1]:
            app.toast(_("Pick two different characters"))
            return
        setup = self.setup_data()
        app.start_game("tekken", setup, "-vs-".join(f["name"] for f in setup["fighters"]))

    def save_defaults(self) -> None:
        cfg = self._cfg()
        chosen = dict(zip(self.names, self.hps))
        chars = tuple(replace(c, max_hp=int(chosen[c.name]), max_hp_is_default=False)
                      if c.name in chosen and (chosen[c.name] != c.max_hp
                                               or not c.max_hp_is_default)
                      else c for c in cfg.characters)
        new_cfg = replace(cfg, characters=chars, rounds_to_win=int(self.rounds_to_win))
        App.get_running_app().save_game_config("tekken", new_cfg,
                                                then=lambda _path: self._update_hints())


load_kv(__package__, "tekken_setup.kv")
