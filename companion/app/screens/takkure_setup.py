"""New Takkure match (two teams, one player per position) and the roster editor.

The line-up is checked by ``takkure.lineup_setup`` (one player per position, each allowed
there, nobody twice) before anything is written. The roster editor writes the user's own
roster file through ``files.save_user_config``, which refuses anything that would not load
back: a refused card leaves the file as it was.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from ...errors import IllegalActionError
from ...games import takkure as tk
from ...i18n import N_, _, ngettext
from .. import widgets  # noqa: F401  (its <Label> rule must load first)
from ..kv import load_kv
from ..widgets import BigToggle, fill_toggles

FIELD_NAMES = {"mov": N_("MOV"), "bac": N_("BaC"), "str": N_("STR"), "ref": N_("REF"),
               "int": N_("INT"), "prt": N_("PRT"), "bdy": N_("BDY"), "base_mm": N_("base size"),
               "positions": N_("positions"), "position_skill": N_("skill by position"),
               "skills": N_("skills")}


def lineup_problems(team: tk.TeamConfig, lineup: dict[str, str]) -> str:
    """What stops this line-up, in words ("" when it is good)."""
    empty = [pos for pos in tk.POSITIONS
             if not any(pos in p.positions for p in team.players)]
    if empty:
        return _("{team} has nobody who can play {positions}: add the cards in the roster "
                 "editor").format(team=team.name, positions=", ".join(_(p) for p in empty))
    try:
        tk.lineup_setup(team, lineup)
    except IllegalActionError as exc:
        return str(exc)
    return ""


def default_lineup(team: tk.TeamConfig) -> dict[str, str]:
    """Fill each position with the first allowed player not already lined up."""
    used: set[str] = set()
    out = {}
    for pos in tk.POSITIONS:
        for p in team.players:
            if pos in p.positions and p.name not in used:
                out[pos] = p.name
                used.add(p.name)
                break
    return out


class TakkureSetupScreen(Screen):
    teams = ListProperty(["", ""])
    problems = ListProperty(["", ""])
    lineups = ListProperty([{}, {}])
    demo_note = StringProperty("")   # the line-ups hold demo players: say so

    def on_pre_enter(self, *args: Any) -> None:
        cfg = App.get_running_app().config_of("takkure")
        if cfg is None:
            return
        names = [t.name for t in cfg.teams]
        keep = [n if n in names else "" for n in self.teams]
        defaults = [keep[0] or names[0], keep[1] or (names[1] if len(names) > 1 else names[0])]
        self.lineups = [{}, {}]
        for side in (0, 1):
            fill_toggles(self.ids[f"teams{side}"], names, f"team{side}-{id(self)}",
                         partial(self.choose_team, side),
                         font_role="large", tap_dp=60)
            self.choose_team(side, defaults[side])

    def _cfg(self) -> tk.TakkureConfig:
        return App.get_running_app().config_of("takkure")

    def choose_team(self, side: int, name: str) -> None:
        teams = list(self.teams)
        teams[side] = name
        self.teams = teams
        for b in self.ids[f"teams{side}"].children:
            b.state = "down" if b.text == name else "normal"
        team = self._cfg().team(name)
        lineups = list(self.lineups)
        lineups[side] = default_lineup(team)
        self.lineups = lineups
        self._fill_positions(side, team)
        self._check()

    def _fill_positions(self, side: int, team: tk.TeamConfig) -> None:
        box = self.ids[f"positions{side}"]
        box.clear_widgets()
        for pos in tk.POSITIONS:
            row = PositionRow(position=pos)
            for p in team.players:
                if pos not in p.positions:
                    continue
                b = BigToggle(text=p.name, group=f"{side}-{pos}-{id(self)}", font_role="text",
                              tap_dp=52, allow_no_selection=False)
                b.state = "down" if self.lineups[side].get(pos) == p.name else "normal"
                b.bind(on_release=lambda _b, side=side, pos=pos, n=p.name: self.place(side, pos, n))
                row.ids.players.add_widget(b)
            if not row.ids.players.children:
                row.empty = True
            box.add_widget(row)

    def place(self, side: int, position: str, name: str) -> None:
        lineups = [dict(x) for x in self.lineups]
        lineups[side][position] = name
        self.lineups = lineups
        for row in self.ids[f"positions{side}"].children:
            if row.position == position:
                for b in row.ids.players.children:
                    b.state = "down" if b.text == name else "normal"
        self._check()

    def _check(self) -> None:
        cfg = self._cfg()
        self.problems = [lineup_problems(cfg.team(self.teams[s]), self.lineups[s])
                         if self.teams[s] else "" for s in (0, 1)]
        demo = [n for s in (0, 1) if self.teams[s]
                for n in self.lineups[s].values() if cfg.team(self.teams[s]).player(n).demo]
        self.demo_note = ngettext(
            "{count} demo player lined up: their values are not from printed cards. Replace "
            "them with your cards in the roster editor.",
            "{count} demo players lined up: their values are not from printed cards. Replace "
            "them with your cards in the roster editor.", len(demo)).format(
            count=len(demo)) if demo else ""

    def start(self) -> None:
        app = App.get_running_app()
        cfg = self._cfg()
        try:
            setup = {"teams": [tk.lineup_setup(cfg.team(self.teams[s]), self.lineups[s])
                               for s in (0, 1)]}
        except IllegalActionError as exc:
            app.toast(str(exc))
            return
        app.start_game("takkure", setup, f"{self.teams[0]}-vs-{self.teams[1]}")


class PositionRow(BoxLayout):
    position = StringProperty("")
    empty = BooleanProperty(False)


# ----------------------------------------------------------------------------- roster editor

BLANK_CARD = tk.PlayerCard(name="", mov=(4, 2), bac=(7, 11), str_=6, ref=6, int_=6, prt=0,
                           bdy=4, base_mm=30, positions=(), position_skill="Side step")
STEPPERS = (("mov_attack", "MOV attack", 0.5, 0.5, 12), ("mov_defense", "MOV defense", 0.5, 0.5, 12),
            ("bac", "BaC", 1, 1, 12), ("bac_try", "BaC try", 1, 1, 12),
            ("str", "STR", 1, 1, 12), ("ref", "REF", 1, 1, 12), ("int", "INT", 1, 1, 12),
            ("prt", "PRT", 1, 0, 12), ("bdy", "BDY", 1, 1, 12), ("base_mm", "Base mm", 5, 20, 80),
            ("marker_id", "Camera marker", 1, 0, 249), ("marker_height_mm", "Marker height mm", 5, 0, 80))


def parse_skills(text: str, old: tuple[tk.SkillConfig, ...] = ()) -> tuple[tk.SkillConfig, ...]:
    """"Sumo*, Iron will": a star marks a training skill; known skills keep their text."""
    texts = {s.name: s.text for s in old}
    out = []
    for part in text.split(","):
        name = part.strip()
        if not name:
            continue
        training = name.endswith("*")
        name = name.rstrip("*").strip()
        out.append(tk.SkillConfig(name, training, texts.get(name, "")))
    return tuple(out)


def skills_text(skills: tuple[tk.SkillConfig, ...]) -> str:
    return ", ".join(s.name + ("*" if s.training else "") for s in skills)


class TakkureRosterScreen(Screen):
    team = StringProperty("")
    editing = StringProperty("")           # the card's name before editing; "" for a new card
    positions = ListProperty([])
    position_skill = StringProperty("Side step")
    defaults_note = StringProperty("")
    status = StringProperty("")
    card_defaults = ObjectProperty(())

    def on_pre_enter(self, *args: Any) -> None:
        cfg = App.get_running_app().config_of("takkure")
        if cfg is None:
            return
        box = self.ids.teams
        box.clear_widgets()
        for t in cfg.teams:
            b = BigToggle(text=t.name, group=f"roster-{id(self)}", font_role="large", tap_dp=60)
            b.bind(on_release=lambda _b, n=t.name: self.choose_team(n))
            box.add_widget(b)
        self.choose_team(self.team if self.team in [t.name for t in cfg.teams] else cfg.teams[0].name)
        self.status = ""

    def _cfg(self) -> tk.TakkureConfig:
        return App.get_running_app().config_of("takkure")

    def choose_team(self, name: str) -> None:
        self.team = name
        for b in self.ids.teams.children:
            b.state = "down" if b.text == name else "normal"
        self._list_players()
        players = self._cfg().team(name).players
        self.edit(players[0].name if players else "")

    def _list_players(self) -> None:
        box = self.ids.players
        box.clear_widgets()
        for p in self._cfg().team(self.team).players:
            where = ", ".join(_(x) for x in p.positions)
            b = BigToggle(text=f"{p.name}  ·  {where}", group=f"cards-{id(self)}",
                          font_role="text", tap_dp=56)
            b.card_name = p.name
            b.state = "down" if p.name == self.editing else "normal"
            b.bind(on_release=lambda _b, n=p.name: self.edit(n))
            box.add_widget(b)

    def edit(self, name: str) -> None:
        """Show a card in the form ("" starts a new one)."""
        team = self._cfg().team(self.team)
        card = team.player(name) if name else BLANK_CARD
        self.editing = name
        self.ids.name.text = card.name
        values = {"mov_attack": card.mov[0], "mov_defense": card.mov[1], "bac": card.bac[0],
                  "bac_try": card.bac[1], "str": card.str_, "ref": card.ref, "int": card.int_,
                  "prt": card.prt, "bdy": card.bdy, "base_mm": card.base_mm,
                  "marker_id": card.marker_id or 0, "marker_height_mm": card.marker_height_mm}
        field_of = {"mov_attack": "mov", "mov_defense": "mov", "bac_try": "bac"}
        for key, value in values.items():
            stepper = self.ids[f"st_{key}"]
            stepper.value = value
            stepper.is_default = field_of.get(key, key) in card.defaults
        self.positions = list(card.positions)
        self.position_skill = card.position_skill
        self.ids.skills.text = skills_text(card.skills)
        self.card_defaults = card.defaults
        self.defaults_note = _("Default values, not from the printed card: {fields}. Check "
                               "them and save.").format(
            fields=", ".join(_(FIELD_NAMES[d]) if d in FIELD_NAMES else d
                             for d in card.defaults)) if card.defaults else ""
        for b in self.ids.players.children:
            b.state = "down" if getattr(b, "card_name", None) == name and name else "normal"
        self.status = _("New card: fill it in and save") if not name else ""

    def toggle_position(self, pos: str) -> None:
        chosen = list(self.positions)
        chosen = [p for p in chosen if p != pos] if pos in chosen else chosen + [pos]
        self.positions = [p for p in tk.POSITIONS if p in chosen]

    def card_from_form(self) -> tk.PlayerCard:
        v = {key: self.ids[f"st_{key}"].value for key, *_rest in STEPPERS}
        old = self._cfg().team(self.team).player(self.editing) if self.editing else BLANK_CARD
        # saving a card confirms it against the physical one: no value stays a default
        return tk.PlayerCard(
            name=self.ids.name.text.strip(),
            mov=(float(v["mov_attack"]), float(v["mov_defense"])),
            bac=(int(v["bac"]), int(v["bac_try"])), str_=int(v["str"]), ref=int(v["ref"]),
            int_=int(v["int"]), prt=int(v["prt"]), bdy=int(v["bdy"]), base_mm=int(v["base_mm"]),
            positions=tuple(self.positions), position_skill=self.position_skill,
            skills=parse_skills(self.ids.skills.text, old.skills),
            marker_id=int(v["marker_id"]) or None, marker_height_mm=float(v["marker_height_mm"]),
            marker_side_in=old.marker_side_in)

    def save(self) -> None:
        app = App.get_running_app()
        card = self.card_from_form()
        who = card.name or _("The new card")
        problem = card.validate()
        if problem is not None:
            key, msg = problem
            field = key.split("[")[0]
            app.toast(_("{card}: {field}: {problem}. Not saved.").format(
                card=who, field=_(FIELD_NAMES[field]) if field in FIELD_NAMES else field,
                problem=msg))
            return
        cfg = self._cfg()
        team = cfg.team(self.team)
        if card.name != self.editing and any(p.name == card.name for p in team.players):
            app.toast(_("{team} already has a player called {player}. Not saved.").format(
                team=team.name, player=card.name))
            return
        players = [card if p.name == self.editing else p for p in team.players]
        if not self.editing:
            players.append(card)
        new_team = replace(team, players=tuple(players))
        new_cfg = replace(cfg, teams=tuple(new_team if t.name == team.name else t
                                           for t in cfg.teams))

        def saved(path: Path) -> None:
            self.editing = card.name
            self._list_players()
            self.edit(card.name)
            self.status = _("Saved {player}").format(player=card.name)

        app.save_game_config("takkure", new_cfg, then=saved, announce=False)

    def delete(self) -> None:
        if not self.editing:
            return
        app = App.get_running_app()
        cfg = self._cfg()
        team = cfg.team(self.team)
        name = self.editing

        def really() -> None:
            new_team = replace(team, players=tuple(p for p in team.players if p.name != name))
            new_cfg = replace(cfg, teams=tuple(new_team if t.name == team.name else t
                                               for t in cfg.teams))

            def saved(path: Path) -> None:
                self.editing = ""
                self.choose_team(team.name)
                self.status = _("Removed {player}").format(player=name)

            app.save_game_config("takkure", new_cfg, then=saved, announce=False)

        app.confirm(_("Remove {player} from the {team} roster?\nMatches already played keep "
                      "their copy of the card.").format(player=name, team=team.name), really,
                    ok_text=_("Remove {player}").format(player=name), title=_("Remove a card"))


load_kv(__package__, "takkure_setup.kv")
