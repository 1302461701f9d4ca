"""Danchie Go – King's Call: the set-up helper for 3-6 players, and the race screen.

The race screen lists the Dashers in turn order (lap, podium or finish place, frozen or
resting, sabotage meter, board counters), and gives the player whose turn it is a console:
action sets, Special Move, Power-Up cards (from round 3), the lap line, the spawn die (from
the dice tower or tapped), their board counters, and End turn. At the end each Dasher gets a
Tektonpedia card. What is shown comes from ``session.state``; buttons are enabled by
``session.allows``; every tap is one undoable event.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.modalview import ModalView

from ...games import danchie as dg
from ...i18n import _, ngettext
from ...views.danchie import MEANING_SHORT, dasher_line, dasher_state, tile_rgba
from .. import widgets  # noqa: F401  (its rules must load first)
from ..game_screen import GameScreen, Throw
from ..kv import load_kv
from ..scale import ui
from ..widgets import BigButton


class DasherRow(BoxLayout):
    chips = ListProperty([])          # each Tile type's colour, as its chip shows it
    index = NumericProperty(0)
    dname = StringProperty("")
    line = StringProperty("")
    badge = StringProperty("")
    frozen = BooleanProperty(False)    # the badge says FROZEN (its colour)
    sabotage = NumericProperty(0)
    mekton = BooleanProperty(False)
    tiles = ListProperty([])          # [[type, count], ...]
    power_tiles = NumericProperty(0)
    current = BooleanProperty(False)
    finished = BooleanProperty(False)
    screen = ObjectProperty(None, allownone=True)


class CounterBox(BoxLayout):
    """One board counter of the current Dasher: - count +, coloured by Tile type."""

    label = StringProperty("")
    count = NumericProperty(0)
    rgba = ListProperty([0.45, 0.45, 0.5, 1])
    kind = StringProperty("")          # a Tile type, or "" for Power-Up Tiles
    target = StringProperty("")        # "": the board's Tiles; "green"/"red": that Blueprint side
    screen = ObjectProperty(None, allownone=True)


class DasherSheet(ModalView):
    """Another Dasher's counters and corrections (a Power-Up swapped their Tiles, a
    Specialty token ignored a freeze, the meter was mis-set): each tap one undoable event."""

    index = NumericProperty(0)
    dname = StringProperty("")
    status = StringProperty("")
    blueprint_text = StringProperty("")
    start_text = StringProperty("")
    specialty_text = StringProperty("")
    screen = ObjectProperty(None)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_pick: list[str] = []    # starting Tile colours tapped so far (2 make one event)

    def act(self, type_: str, **data: Any) -> None:
        App.get_running_app().act(type_, player=self.dname, then=self.update, **data)

    def pick_start(self, kind: str) -> None:
        """Tap the two starting Tiles' colours: the second tap records both."""
        self.start_pick = [] if kind in self.start_pick else self.start_pick + [kind]
        if len(self.start_pick) == dg.START_TILES:
            types_, self.start_pick = self.start_pick, []
            self.act("danchie.start_tiles", types=types_)
        else:
            self.update()

    def update(self) -> None:
        s: dg.DanchieState = self.screen.session.state
        d = s.dashers[int(self.index)]
        self.dname = d.name
        tiles = ", ".join(f"{n} {_(t)}" for t, n in zip(s.tile_types, d.tiles))
        self.status = dasher_line(s, int(self.index)) + "\n" + _(
            "Sabotage {sabotage} · frozen {frozen} · Tiles: {tiles} · Power-Up Tiles "
            "{power_up_tiles}").format(sabotage=d.sabotage, frozen=d.frozen, tiles=tiles,
                                       power_up_tiles=d.power_up_tiles)
        box = self.ids.counters
        if not box.children:
            for t in s.tile_types:
                box.add_widget(CounterBox(label=_(t), kind=t, rgba=list(tile_rgba(t)),
                                          screen=self))
            box.add_widget(CounterBox(label=_("Power-Up"), kind="", rgba=[0.6, 0.35, 0.75, 1],
                                      screen=self))
        for c in box.children:
            c.count = d.tiles[s.tile_types.index(c.kind)] if c.kind else d.power_up_tiles
        allows = self.screen.session.allows
        for key, type_, delta in (("sab_down", "danchie.sabotage", -1),
                                  ("sab_up", "danchie.sabotage", 1),
                                  ("freeze_down", "danchie.freeze", -1),
                                  ("freeze_up", "danchie.freeze", 1)):
            self.ids[key].disabled = not allows(type_, player=d.name, delta=delta)
        self.ids.lap.disabled = not allows("danchie.lap", player=d.name)
        self.ids.lap.text = _("Finished lap 1") if d.lap == 1 else _("Crossed the finish line")
        # the Blueprint side of this lap: green on lap 1, red on lap 2
        side = dg.SIDES[min(d.lap, 2) - 1]
        want = d.blueprint[dg.SIDES.index(side)]
        match = _("matches the board") if any(want) and want == d.tiles else (
            _("not entered") if not any(want) else _("does not match the board yet"))
        self.blueprint_text = (_("Green Blueprint (Tiles per colour): {match}") if side == "green"
                               else _("Red Blueprint (Tiles per colour): {match}")).format(
            match=match)
        bp = self.ids.blueprint
        if not bp.children:
            for t in s.tile_types:
                bp.add_widget(CounterBox(label=_(t), kind=t, rgba=list(tile_rgba(t)), screen=self))
        for c in bp.children:
            c.target = side
            c.count = want[s.tile_types.index(c.kind)]
            for key, delta in (("minus", -1), ("plus", 1)):
                c.ids[key].disabled = not allows("danchie.blueprint", player=d.name, side=side,
                                                 type=c.kind, delta=delta)
        st = self.ids.start_tiles
        if not st.children:
            for t in s.tile_types:
                b = BigButton(text=_(t), font_role="body", tap_dp=52, bg=tile_rgba(t))
                b.bind(on_release=lambda _b, t=t: self.pick_start(t))
                st.add_widget(b)
        taken = bool(d.start_tiles)
        if taken:
            self.start_text = _("Starting Tiles: {tiles}").format(
                tiles=_(" and ").join(_(t) for t in d.start_tiles))
        elif self.start_pick:
            self.start_text = _("Starting Tiles: tap 2 colours ({first} …)").format(
                first=_(self.start_pick[0]))
        else:
            self.start_text = _("Starting Tiles: tap 2 colours")
        for b in st.children:
            b.disabled = taken or s.round != 1 or d.finished
        left = d.specialty - d.specialty_used
        self.specialty_text = (_("Specialty tokens: {left} of {count} left") if d.specialty > 1 else
                               _("Specialty tokens: {left} of {count} left (2nd after lap 1)")
                               ).format(left=left, count=d.specialty)
        self.ids.specialty.disabled = not allows("danchie.specialty", player=d.name)
        self.ids.returned.disabled = not allows("danchie.power_tiles", player=d.name, delta=1,
                                                returned=True)

    def count(self, kind: str, delta: int, target: str = "") -> None:
        if target:
            self.act("danchie.blueprint", side=target, type=kind, delta=delta)
        elif kind:
            self.act("danchie.tiles", type=kind, delta=delta)
        else:
            self.act("danchie.power_tiles", delta=delta)


class PowerUpPicker(ModalView):
    """Pick the Power-Up card, then its target when it has one."""

    screen = ObjectProperty(None)
    card = StringProperty("")
    prompt = StringProperty("")

    def show_cards(self) -> None:
        s: dg.DanchieState = self.screen.session.state
        grid = self.ids.choices
        grid.clear_widgets()
        self.card, self.prompt = "", _("Which Power-Up card?")
        for p in s.power_ups:
            b = BigButton(text=f"{_(p.name)}\n{ui.size_tag('body')}{_(p.text)}[/size]", markup=True,
                          font_role="body", tap_dp=84, bg=(0.32, 0.2, 0.42, 1))
            b.bind(on_release=lambda _b, p=p: self.pick(p))
            grid.add_widget(b)

    def pick(self, card: dg.PowerUp) -> None:
        s: dg.DanchieState = self.screen.session.state
        me = s.dashers[s.current].name
        if card.target == "none":
            self.use(card.name, None)
            return
        self.card = card.name
        self.prompt = _("{card}: on whom?  (targeting another player moves your sabotage "
                        "meter)").format(card=_(card.name))
        grid = self.ids.choices
        grid.clear_widgets()
        for d in s.dashers:
            if card.target == "player" and d.name == me:
                continue
            b = BigButton(text=_("{player}  (you)").format(player=d.name) if d.name == me else d.name,
                          font_role="large",
                          tap_dp=84, bg=(0.32, 0.2, 0.42, 1))
            b.disabled = not self.screen.session.allows(
                "danchie.power_up", player=me, card=card.name, target=d.name)
            b.bind(on_release=lambda _b, n=d.name: self.use(card.name, n))
            grid.add_widget(b)

    def use(self, card: str, target: str | None) -> None:
        s: dg.DanchieState = self.screen.session.state
        self.dismiss(animation=False)
        App.get_running_app().act("danchie.power_up", player=s.dashers[s.current].name,
                                  card=card, target=target)


class TektonpediaView(ModalView):
    cards = ListProperty([])     # [[name, personality, kind, text], ...]


class DanchieGameScreen(GameScreen):
    title = StringProperty("")
    status = StringProperty("")
    current_name = StringProperty("")
    sets_text = StringProperty("")
    spawn_text = StringProperty("")
    spawn_detail = StringProperty("")
    notes = StringProperty("")
    log_lines = ListProperty([])
    over = BooleanProperty(False)
    any_finished = BooleanProperty(False)
    power_ups_text = StringProperty("")
    lap_text = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session: Any = None
        self.rows: list[DasherRow] = []
        self.sheet: DasherSheet | None = None
        self.tekton_view: TektonpediaView | None = None

    def bind_session(self, session: Any) -> None:
        self.session = session
        s: dg.DanchieState = session.state
        box = self.ids.dashers
        box.clear_widgets()
        self.rows = []
        for i in range(len(s.dashers)):
            row = DasherRow(index=i, screen=self)
            box.add_widget(row)
            self.rows.append(row)
        counters = self.ids.counters
        counters.clear_widgets()
        for t in s.tile_types:
            counters.add_widget(CounterBox(label=_(t), kind=t, rgba=list(tile_rgba(t)), screen=self))
        counters.add_widget(CounterBox(label=_("Power-Up"), kind="", rgba=[0.6, 0.35, 0.75, 1],
                                       screen=self))
        faces = self.ids.faces
        faces.clear_widgets()
        for number, (face, meaning) in enumerate(s.spawn_faces, 1):
            what = _(MEANING_SHORT[meaning]) if meaning in MEANING_SHORT else meaning
            which = _("face {number}").format(number=number)
            b = BigButton(text=f"{what}\n{ui.size_tag('body')}{which}[/size]",
                          markup=True, font_role="body", tap_dp=52,
                          bg=(0.25, 0.3, 0.38, 1))
            b.bind(on_release=lambda _b, f=face: self.spawn(f, "hand"))
            faces.add_widget(b)
        self.refresh()

    # -- drawing -------------------------------------------------------------------------
    def refresh(self, *args: Any) -> None:
        if self.session is None:
            return
        s: dg.DanchieState = self.session.state
        self.over = s.over
        self.any_finished = bool(s.finish)
        sets = s.base_sets
        self.title = _("Round {round}").format(round=s.round)
        self.power_ups_text = (_("Power-Ups active") if s.power_ups_active
                               else _("Power-Ups from round {round}").format(round=dg.POWER_UP_ROUND))
        cooling = s.cooling_tiles()
        self.status = (_("Race over: open the Tektonpedia") if s.over else
                       ngettext("{count} action set per turn", "{count} action sets per turn",
                                sets).format(count=sets) + " · " + self.power_ups_text
                       + "".join(" · " + _("Power-Up Tile returned by {player}: cooling down "
                                           "until round {round}").format(player=who, round=r)
                                 for who, r in cooling))
        for i, row in enumerate(self.rows):
            d = s.dashers[i]
            row.dname, row.line, row.badge = d.name, dasher_line(s, i), dasher_state(s, i)
            row.frozen = bool(d.frozen)
            row.sabotage, row.mekton = d.sabotage, d.sabotage >= dg.MEKTON_FROM
            row.tiles = [[t, n] for t, n in zip(s.tile_types, d.tiles)]
            row.chips = [list(tile_rgba(t)) for t in s.tile_types]
            row.power_tiles = d.power_up_tiles
            row.current = i == s.current and not s.over and not d.finished
            row.finished = d.finished
        me = s.dashers[s.current]
        name = me.name
        self.current_name = _("Race over") if s.over else _("{player}'s turn").format(player=name)
        done, allowed = me.sets_done, s.sets_allowed(s.current)
        self.sets_text = "" if s.over else (
            (_("Action sets: {done} of {allowed} done (+1 Plus Action)") if me.extra_sets else
             _("Action sets: {done} of {allowed} done")).format(done=done, allowed=allowed))
        self.lap_text = _("Finished lap 1") if me.lap == 1 else _("Crossed the finish line")
        ids = self.ids
        why = self.session.why_not    # a greyed action says the rules' sentence when tapped
        for widget, type_, data in ((ids.action_set, "danchie.action_set", {"kind": "full"}),
                                    (ids.special, "danchie.action_set", {"kind": "special"}),
                                    (ids.decline, "danchie.decline_power_up", {}),
                                    (ids.lap, "danchie.lap", {}),
                                    (ids.end_turn, "danchie.end_turn", {})):
            widget.why = why(type_, player=name, **data)
            widget.disabled = bool(widget.why)
        ids.power_up.disabled = s.over or not s.power_ups_active or me.finished or (
            s.rules >= 2 and not me.cards)   # a card is drawn with a Power-Up Tile picked up
        for c in ids.counters.children:
            c.count = me.tiles[s.tile_types.index(c.kind)] if c.kind else me.power_up_tiles
            c.ids.minus.disabled = not self._count_allowed(name, c.kind, -1)
            c.ids.plus.disabled = not self._count_allowed(name, c.kind, 1)
        for b in ids.faces.children:
            b.disabled = s.over or me.finished
        sp = s.last_spawn
        if sp is not None and sp.player == name and sp.round == s.round:
            # this turn's spawn; the one before belongs to the turn it was rolled in
            self.spawn_text = sp.text
            self.spawn_detail = _("{player}, round {round} ({source})").format(
                player=sp.player, round=sp.round, source=_(sp.source))
        else:
            self.spawn_text = _("Roll the spawn die (tower) or tap its face")
            self.spawn_detail = ""
        self.notes = " · ".join(s.notes)
        self.log_lines = [e.text for e in self.session.log(last=40)][::-1]
        self.show_undo(self.session)
        if self.sheet is not None and self.sheet.parent is not None:
            self.sheet.update()

    def _count_allowed(self, name: str, kind: str, delta: int) -> bool:
        if kind:
            return self.session.allows("danchie.tiles", player=name, type=kind, delta=delta)
        return self.session.allows("danchie.power_tiles", player=name, delta=delta)

    def announce(self, before: dg.DanchieState, after: dg.DanchieState) -> None:
        """A new action's consequences (turn skipped, two action sets, Power-Ups from now
        on) as a banner; the race's end opens the Tektonpedia."""
        if after.over and not before.over:
            if self.sheet is not None and self.sheet.parent is not None:
                self.sheet.dismiss(animation=False)
            self.open_tektonpedia()
        elif after.round != before.round or after.base_sets != before.base_sets or any(
                # a turn skipped (a freeze or the rest after lap 1 used up), or a new freeze
                a.frozen != b.frozen or (b.resting and not a.resting)
                for b, a in zip(before.dashers, after.dashers)):
            App.get_running_app().banner(" · ".join(after.notes), seconds=4.0)

    # -- the current Dasher's console ----------------------------------------------------
    def _me(self) -> str:
        s: dg.DanchieState = self.session.state
        return s.dashers[s.current].name

    def action_set(self, kind: str) -> None:
        App.get_running_app().act("danchie.action_set", player=self._me(), kind=kind)

    def end_turn(self) -> None:
        App.get_running_app().act("danchie.end_turn", player=self._me())

    def decline(self) -> None:
        App.get_running_app().act("danchie.decline_power_up", player=self._me())

    def lap(self) -> None:
        App.get_running_app().act("danchie.lap", player=self._me())

    def count(self, kind: str, delta: int, target: str = "") -> None:
        if kind:
            App.get_running_app().act("danchie.tiles", player=self._me(), type=kind, delta=delta)
        else:
            App.get_running_app().act("danchie.power_tiles", player=self._me(), delta=delta)

    def spawn(self, face: str, source: str) -> None:
        App.get_running_app().act("danchie.spawn", player=self._me(), face=face, source=source)

    def take_throw(self, throw: Throw) -> bool:
        """A dice tower throw: its spawn die is the current Dasher's spawn. False when the
        throw has no spawn die (the app then shows it as a plain roll)."""
        spawns = [d for d in throw.dice if d.get("kind") == dg.TOWER_KIND]
        if not spawns or self.session is None:
            return False
        if len(spawns) > 1 or spawns[0].get("status") != "clean":
            App.get_running_app().toast(_("Spawn die: roll one spawn die, cleanly read"))
            return True
        self.spawn(str(spawns[0].get("face")), "tower")
        return True

    def open_power_ups(self) -> None:
        picker = PowerUpPicker(screen=self)
        picker.show_cards()
        picker.open(animation=False)

    def open_sheet(self, index: int) -> None:
        sheet = DasherSheet(index=index, screen=self)
        self.sheet = sheet
        sheet.update()
        sheet.open(animation=False)

    def open_tektonpedia(self) -> None:
        s: dg.DanchieState = self.session.state
        view = TektonpediaView(cards=[[name, t.personality, t.kind, t.text]
                                      for name, t in dg.results(s)])
        self.tekton_view = view
        view.open(animation=False)


load_kv(__package__, "danchie_game.kv")
