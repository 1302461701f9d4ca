"""The Takkure match screen: both teams' players as cards, the time dashboard, the roll panel
in the centre, the action log and undo.

What is shown comes from :func:`takkure_view` (pure: the session and the roll panel in, plain
values out); buttons are enabled only when ``session.preview`` accepts their action, so the
rules engine stays the only judge. The roll panel (``companion.games.takkure_panel``) is UI
state: picking a roll, the players and the dice changes nothing in the journal until the
coach taps "Record roll".
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from kivy.app import App
from kivy.properties import (
    BooleanProperty,
    ColorProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.modalview import ModalView
from kivy.uix.widget import Widget

from ...errors import IllegalActionError
from ...games import takkure as tk
from ...games.takkure_panel import TEAM_COLOURS, FollowUp, RollPanel
from ...i18n import N_, _
from ...views.takkure import takkure_view
from .. import widgets  # noqa: F401  (its <Label> rule must load first)
from ..dice_look import TEAM_RGBA
from ..game_screen import GameScreen, Throw, copy_props
from ..kv import load_kv
from ..widgets import BigButton

# ----------------------------------------------------------------------------- pure view














# ----------------------------------------------------------------------------- widgets

class FatigueSlot(ButtonBehavior, Widget):
    """One fatigue slot: empty (tap: +1 fatigue), an active or inactive token (tap: flip it),
    or a permanent token (never flips)."""

    kind = StringProperty("empty")
    slot = NumericProperty(0)
    card = ObjectProperty(None, allownone=True)


class TimeBox(Widget):
    """One box of the time dashboard; both tokens drawn when they are here."""

    number = NumericProperty(5)
    here = BooleanProperty(False)
    active0 = BooleanProperty(True)
    active1 = BooleanProperty(True)


class DieBox(ButtonBehavior, Widget):
    """A die of the roll panel: its face, or empty; a tap clears it."""

    face = StringProperty("")
    colour = ColorProperty(TEAM_RGBA["red"])
    team = NumericProperty(0)
    player = NumericProperty(0)


class RollerRow(BoxLayout):
    text = StringProperty("")
    team = NumericProperty(0)
    player = NumericProperty(0)
    superstars = BooleanProperty(False)   # a Teriomorph: Superstars +1 and re-roll buttons


class PlayerCard(BoxLayout):
    team = NumericProperty(0)
    index = NumericProperty(0)
    pname = StringProperty("")
    position = StringProperty("")
    stats_text = StringProperty("")
    fatigue = ListProperty([])
    wounds_text = StringProperty("")
    grounded = BooleanProperty(False)
    has_ball = BooleanProperty(False)
    activations = NumericProperty(0)
    status = StringProperty("field")
    status_text = StringProperty("")
    injury_pending = BooleanProperty(False)
    picked = BooleanProperty(False)
    attacking = BooleanProperty(False)
    note = StringProperty("")
    can_act = BooleanProperty(False)
    can_gain = BooleanProperty(False)
    can_wound = BooleanProperty(False)
    can_ground = BooleanProperty(False)
    ball_text = StringProperty("Ball")
    ball_event = ObjectProperty(None, allownone=True)
    can_ball = BooleanProperty(False)
    halftime = BooleanProperty(False)
    can_rest_active = BooleanProperty(False)
    can_rest_inactive = BooleanProperty(False)
    colour = StringProperty("red")
    screen = ObjectProperty(None, allownone=True)

    def on_fatigue(self, *args: Any) -> None:
        box = self.ids.get("slots")
        if box is None:
            return
        if len(box.children) != len(self.fatigue):
            box.clear_widgets()
            for i in range(len(self.fatigue)):
                box.add_widget(FatigueSlot(slot=i, card=self))
        for child in box.children:
            child.kind = self.fatigue[child.slot]

    def who(self) -> dict[str, int]:
        return {"team": int(self.team), "player": int(self.index)}

    def tap_slot(self, slot: int) -> None:
        app = App.get_running_app()
        kind = self.fatigue[slot]
        if kind == "permanent":
            app.toast(_("A permanent fatigue token (Fractured rib) never flips"))
        elif kind == "empty":
            app.act("takkure.fatigue", **self.who(), op="gain")
        else:
            app.act("takkure.fatigue", **self.who(), op="flip", token=slot)

    def act(self, type_: str, **data: Any) -> None:
        App.get_running_app().act(type_, **self.who(), **data)

    def ball(self) -> None:
        if self.ball_event is not None:
            App.get_running_app().act(self.ball_event[0], **self.ball_event[1])

    def pick(self) -> None:
        if self.screen is not None:
            self.screen.pick(int(self.team), int(self.index))

    def more(self) -> None:
        PlayerSheet(card=self).open(animation=False)


class PlayerSheet(ModalView):
    """Everything else a player can take or do, one tap each: REST, +1 fatigue, +1 wound,
    an ENDURANCE roll in the panel, team skill tokens, the injury roll."""

    card = ObjectProperty(None)
    title = StringProperty("")

    def on_open(self) -> None:
        app = App.get_running_app()
        screen = app.root.get_screen("takkure_game")
        session = screen.session
        c = self.card
        who = c.who()
        s: tk.TakkureState = session.state
        team = s.teams[who["team"]]
        p = s.player(who["team"], who["player"])
        self.title = f"{p.name} · {_(p.position)} · {team.name}"
        entries: list[tuple[str, Any, bool]] = [
            (_("REST (defense)"), lambda: c.act("takkure.fatigue", op="rest"),
             session.allows("takkure.fatigue", **who, op="rest")),
            (_("+1 fatigue"), lambda: c.act("takkure.fatigue", op="gain"),
             session.allows("takkure.fatigue", **who, op="gain")),
            (_("+1 wound"), lambda: c.act("takkure.wound"), session.allows("takkure.wound", **who)),
            (_("ENDURANCE roll"), lambda: screen.roll_for("endurance", who["team"], who["player"]),
             p.status == "field"),
        ]
        if s.activation == (who["team"], who["player"]):
            # the active player's actions without a roll (those with one come with it)
            for label, action in ((N_("MOVE (1st action)"), "MOVE"),
                                  (N_("STAND UP (1st action)"), "STAND UP"),
                                  (N_("MOVE (2nd action)"), "MOVE 2")):
                entries.append((_(label), lambda a=action: c.act("takkure.action", action=a),
                                session.allows("takkure.action", **who, action=action)))
            if p.needs_bdy_roll:
                entries.append((_("BDY roll (Fractured vertebrae)"),
                                lambda: screen.roll_for("bdy", who["team"], who["player"]),
                                s.bdy == 0))
        if p.injury_pending:
            entries.append((_("Injury roll"), lambda: screen.open_injury(c), True))
        if team.team_skill == "yamato":
            entries += [
                (_("Unwavering Honor +1 ({count})").format(count=p.skill_tokens),
                 lambda: app.act("takkure.skill_token", **who, delta=1), True),
                (_("Spend a token ({count})").format(count=p.skill_tokens),
                 lambda: app.act("takkure.skill_token", **who, delta=-1), p.skill_tokens > 0)]
        elif team.team_skill == "teriomorphs":
            t = who["team"]
            entries += [
                (_("Superstars +1 ({count})").format(count=team.skill_tokens),
                 lambda: app.act("takkure.skill_token", team=t, delta=1), True),
                (_("Spend 1: +1 attribute"),
                 lambda: app.act("takkure.skill_token", team=t, delta=-1), team.skill_tokens >= 1),
                (_("Spend 3: re-roll a die"),
                 lambda: app.act("takkure.skill_token", team=t, delta=-3), team.skill_tokens >= 3)]
        grid = self.ids.actions
        grid.clear_widgets()
        for label, fn, enabled in entries:
            b = BigButton(text=label, font_role="text", tap_dp=68, disabled=not enabled)
            b.bind(on_release=lambda _b, fn=fn: (self.dismiss(animation=False), fn()))
            grid.add_widget(b)


class KindPicker(ModalView):
    screen = ObjectProperty(None)


class WhichDie(ModalView):
    """Which of a player's dice a Superstars re-roll throws again."""

    prompt = StringProperty("")


class InjuryPad(ModalView):
    """The injury roll: D12s in order (12 on the common table leads to the grave table)."""

    card = ObjectProperty(None)
    rolls = ListProperty([])
    prompt = StringProperty("")

    def on_open(self) -> None:
        if not self.ids.dice_keys.children:
            for n in range(1, 13):
                b = BigButton(text=str(n), tap_dp=64)
                b.bind(on_release=lambda _b, n=n: self.enter(n))
                self.ids.dice_keys.add_widget(b)
        self.rolls = []
        self.prompt = _("{player}: roll a D12 on the Common injuries table").format(
            player=self.card.pname)

    def enter(self, face: int) -> None:
        rolls = list(self.rolls) + [face]
        try:
            tk.read_injury(rolls)
        except tk.InjuryDiceNeeded as exc:
            self.rolls = rolls
            self.prompt = (_("{rolls}: roll another D12 on the Grave injuries table")
                           if exc.table == "grave" else
                           _("{rolls}: roll another D12 on the Common injuries table")).format(
                rolls=", ".join(map(str, rolls)))
            return
        except IllegalActionError as exc:
            App.get_running_app().toast(str(exc))
            return
        self.dismiss(animation=False)
        self.card.act("takkure.injury", rolls=rolls)


# ----------------------------------------------------------------------------- screen


def open_overhead_camera(*, action: str, kind: str | None, preselect: list[str],
                         players: list[str], on_use: Callable[[float], bool]) -> None:
    """Open the measuring view for a declared roll: the camera (or the demo scene) is opened
    on a worker thread; a camera that cannot be opened is a popup."""
    from .. import overhead

    app = App.get_running_app()

    def done(result: Any) -> None:
        live, text = result
        screen = app.root.get_screen("takkure_measure")
        screen.start(live, text, action=action, kind=kind, preselect=preselect, on_use=on_use)

        def reopen() -> None:   # after a pause: the same roll, the pair picked by then
            picked = [screen.names[i] for i in screen.selected if i in screen.names]
            open_overhead_camera(action=action, kind=kind, preselect=picked or preselect,
                                 players=players, on_use=on_use)

        screen.reopen = reopen
        app.go("takkure_measure")

    app.in_background(lambda root: overhead.open_live(root, players), done,
                      lambda exc: app.show_error(_("The camera cannot measure"), str(exc)))


class TakkureGameScreen(GameScreen):
    score_text = StringProperty("")
    half_text = StringProperty("")
    phase = StringProperty("kickoff")
    phase_text = StringProperty("")
    box = NumericProperty(5)
    time_active = ListProperty([True, True])
    pool = NumericProperty(0)
    attacker = NumericProperty(-1)
    team_names = ListProperty(["", ""])
    team_notes = ListProperty(["", ""])
    can_take = BooleanProperty(False)
    why_take = StringProperty("")
    can_kick_out = BooleanProperty(False)
    can_kick = ListProperty([False, False])
    can_second_half = BooleanProperty(False)
    log_lines = ListProperty([])
    # the roll panel
    kind_title = StringProperty("")
    kind_hint = StringProperty("")
    explanation = StringProperty("")
    prompt = StringProperty("")
    can_record = BooleanProperty(False)
    pressure = NumericProperty(0)
    shows_pressure = BooleanProperty(False)
    needs_distance = BooleanProperty(False)
    distance_text = StringProperty("")
    shows_ground = BooleanProperty(False)
    from_ground = BooleanProperty(False)
    throw_count = NumericProperty(0)   # D12s a simulated throw would fill now
    coin_text = StringProperty("")
    follow_texts = ListProperty([])

    _SCALARS = ("score_text", "half_text", "phase", "phase_text", "box", "pool", "attacker",
                "can_take", "why_take", "can_kick_out", "can_second_half", "undo_text", "redo_text",
                "can_undo", "can_redo")
    _PANEL = ("kind_title", "kind_hint", "explanation", "prompt", "can_record", "pressure",
              "shows_pressure", "needs_distance", "shows_ground", "from_ground", "throw_count")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session: Any = None
        self.panel = RollPanel()
        self.cards: list[list[PlayerCard]] = [[], []]
        self.follow: list[FollowUp] = []
        self._follow_at = 0
        self._rows_key: Any = None
        self._attacking: int | None = None   # the attacking team the picks were made for

    # -- session -------------------------------------------------------------------------
    def bind_session(self, session: Any) -> None:
        self.session = session
        self.panel = RollPanel()
        self.follow, self._follow_at = [], 0
        self._attacking = None
        self.coin_text = ""
        for t, column in enumerate((self.ids.team0, self.ids.team1)):
            column.clear_widgets()
            self.cards[t] = []
            for i in range(len(session.state.teams[t].players)):
                card = PlayerCard(team=t, index=i, screen=self)
                card.bind(min_height=self.fit_columns)
                column.add_widget(card)
                self.cards[t].append(card)
            column.parent.bind(height=self.fit_columns)
            column.parent.scroll_y = 1          # every match opens at the top of its roster
        self.fit_columns()
        self.refresh()

    def fit_columns(self, *args: Any) -> None:
        """Each team's column: the height of its scroll view, or more when its cards need
        more to show their 48 dp buttons (then it scrolls)."""
        for column in (self.ids.team0, self.ids.team1):
            cards = column.children
            for c in cards:             # a share of the column in proportion to its need
                c.size_hint_y = c.min_height
            need = sum(c.min_height for c in cards) + column.spacing * max(0, len(cards) - 1)
            column.height = max(column.parent.height, need)

    def refresh(self, *args: Any) -> None:
        if self.session is None:
            return
        if len(self.session.actions) < self._follow_at:
            self.follow = []   # the roll they follow was undone
        # picks are by side (attacker, defender): when the ball changes sides (a steal, a
        # kick-off, an undo) the players picked for the other side's roll no longer apply
        attacking = self.panel.attacking_team(self.session.state)
        if attacking != self._attacking:
            if self._attacking is not None:
                self.panel.next_roll()
            self._attacking = attacking
        if not any(self.panel.picks.values()) and not self.panel.dice_in:
            # an untouched panel follows the match: never a roll its list greys out
            self.panel.choose_legal(self.session.state)
        view = takkure_view(self.session, self.panel)
        copy_props(self, view, self._SCALARS)
        self.time_active = view["time_active"]
        self.team_names = view["team_names"]
        self.team_notes = view["team_notes"]
        self.can_kick = view["can_kick"]
        self.log_lines = view["log_lines"]
        for t in (0, 1):
            for card, cv in zip(self.cards[t], view["cards"][t]):
                copy_props(card, cv, skip=("index",))
        pv = view["panel"]
        copy_props(self, pv, self._PANEL)
        if not self.ids.distance.focus:
            self.ids.distance.text = pv["distance_text"]
        self._draw_rows(pv["rows"])
        self._draw_follow()

    def _draw_rows(self, rows: list[dict[str, Any]]) -> None:
        key = [(r["text"], tuple(r["faces"]), r["colour"], r.get("superstars")) for r in rows]
        if key == self._rows_key:
            return
        self._rows_key = key
        box = self.ids.rollers
        box.clear_widgets()
        for r in rows:
            row = RollerRow(text=r["text"], team=r["team"], player=r["player"],
                            superstars=r.get("superstars", False))
            for face in r["faces"]:
                row.ids.dice.add_widget(DieBox(face="" if face is None else str(face),
                                               colour=TEAM_RGBA[r["colour"]],
                                               team=r["team"], player=r["player"]))
            box.add_widget(row)

    def _draw_follow(self) -> None:
        box = self.ids.follow
        box.clear_widgets()
        texts = []
        for f in self.follow:
            enabled = True
            if f.event is not None:
                enabled = self.session.allows(f.event[0], **f.event[1])
            b = BigButton(text=f.label, font_role="body", tap_dp=56, disabled=not enabled,
                          bg=(0.2, 0.42, 0.3, 1))
            b.bind(on_release=lambda _b, f=f: self.do_follow(f))
            box.add_widget(b)
            texts.append(f.label)
        self.follow_texts = texts

    # -- announcements (never on undo, redo or replay: only a new action announces) -------
    def announce(self, before: tk.TakkureState, after: tk.TakkureState) -> None:
        lines = tk.reminders(before, after)
        if lines:
            App.get_running_app().banner("\n".join(lines), seconds=3.5)

    # -- the roll panel ------------------------------------------------------------------
    def pick(self, team: int, player: int) -> None:
        """A tap on a card: a player who cannot take part in this roll is refused, and the
        reason is shown."""
        try:
            self.panel.pick(self.session.state, team, player)
        except IllegalActionError as exc:
            App.get_running_app().toast(str(exc))
            return
        self.refresh()

    def roll_for(self, what: str, team: int, player: int) -> None:
        """Set the panel up for one player's roll (the ENDURANCE button of a player sheet)."""
        s = self.session.state
        role = "attacker" if team == self.panel.attacking_team(s) else "defender"
        self.panel.choose("bdy_roll" if what == "bdy" else f"{what}_{role}")
        if not self.panel.picked(s, team, player):
            try:
                self.panel.pick(s, team, player)
            except IllegalActionError as exc:
                App.get_running_app().toast(str(exc))
        self.follow = []
        self.refresh()

    def _picked_kind(self, picker: Any, key: str) -> None:
        picker.dismiss(animation=False)
        self.choose_kind(key)

    def choose_kind(self, key: str) -> None:
        try:
            self.panel.choose(key, self.session.state)
        except IllegalActionError as exc:
            App.get_running_app().toast(str(exc))
            return
        self.follow = []
        self.refresh()

    def open_kinds(self) -> None:
        """The rolls the match allows now; the others are greyed out."""
        picker = KindPicker(screen=self)
        grid = picker.ids.grid
        for kind, why in self.panel.legal_kinds(self.session.state):
            b = BigButton(text=_(kind.title), font_role="text", tap_dp=64, disabled=bool(why),
                          bg=(0.16, 0.5, 0.9, 1) if kind is self.panel.kind else (0.2, 0.21, 0.26, 1))
            b.bind(on_release=lambda _b, k=kind.key: self._picked_kind(picker, k))
            grid.add_widget(b)
        picker.open(animation=False)

    def type_die(self, face: int) -> None:
        self._dice_in(lambda s: self.panel.receive(s, [face], source="typed"))

    def take_throw(self, throw: Throw) -> bool:
        """A dice tower throw while this screen shows: the panel takes each coach's colour;
        it says what it could not use."""
        if self.session is None:
            return False
        if not throw.clean:
            App.get_running_app().toast(_("Dice: {dice} - a die was not read cleanly: roll it "
                                          "again").format(dice=throw.text))
            return True
        return self._dice_in(lambda s: self.panel.receive_tower(s, throw.dice))

    def simulated_throw(self) -> None:
        """The demo's throw: the simulated tower rolls exactly the D12s the panel waits for,
        in each coach's colour; they arrive as any tower throw does (:meth:`take_throw`)."""
        if self.session is None:
            return
        spec = self.panel.throw_spec(self.session.state)
        if not spec:
            App.get_running_app().toast(self.prompt or _("Every die of this roll is in"))
            return
        App.get_running_app().simulated_roll(spec)

    def _dice_in(self, fn: Any) -> bool:
        try:
            fn(self.session.state)
        except IllegalActionError as exc:
            App.get_running_app().toast(str(exc))
            return False
        self.follow = []
        self.refresh()
        return True

    def superstars(self, team: int, player: int) -> None:
        """Superstars: +1 to this player's attribute for the roll (1 token, spent with it)."""
        self._dice_in(lambda s: self.panel.superstars(s, team, player, 1))

    def reroll(self, team: int, player: int) -> None:
        """Superstars: 3 tokens to roll one of this player's dice again (once per roll). A
        player who rolled more than one die: the coach picks which."""
        faces = self.panel.reroll_choices(self.session.state, team, player)
        if len(faces) < 2:
            self._dice_in(lambda s: self.panel.reroll(s, team, player))
            return
        picker = WhichDie(prompt=_("{name}: which die is rolled again? (3 Superstars tokens)").format(
            name=self.session.state.player(team, player).name))
        for i, face in enumerate(faces):
            b = BigButton(text=str(face), font_role="heading", tap_dp=64, bg=TEAM_RGBA[TEAM_COLOURS[team]])
            if TEAM_RGBA[TEAM_COLOURS[team]][1] > 0.6:
                b.color = (0.08, 0.08, 0.1, 1)
            b.bind(on_release=lambda _b, i=i: self._reroll_die(picker, team, player, i))
            picker.ids.faces.add_widget(b)
        picker.open(animation=False)

    def _reroll_die(self, picker: Any, team: int, player: int, die: int) -> None:
        picker.dismiss(animation=False)
        self._dice_in(lambda s: self.panel.reroll(s, team, player, die))

    def clear_die(self, team: int, player: int) -> None:
        self.panel.clear_die(team, player)
        self.refresh()

    def clear_roll(self) -> None:
        self.panel.clear_dice()
        self.follow = []
        self.refresh()

    def change_pressure(self, delta: int) -> None:
        self.panel.set_pressure(self.panel.pressure + delta)
        self.panel.clear_dice()
        self.refresh()

    def set_distance_text(self, text: str) -> None:
        """The distance field (inches), typed by the coach."""
        text = text.strip().replace(",", ".").rstrip('"')
        try:
            value = float(text) if text else None
        except ValueError:
            App.get_running_app().toast(_("'{text}' is not a distance in inches").format(text=text))
            value = None
        self.receive_distance(value, source="typed")

    def open_camera(self) -> None:
        """Measure the declared roll's distance with the overhead camera (or its demo)."""
        part = next((p for p in self.panel.kind.parts if p.distance), None)
        if part is None:
            App.get_running_app().toast(_("This roll takes no distance"))
            return
        state = self.session.state
        picked = [state.teams[self.panel.team_of(state, role)].players[i].name
                  for role in ("attacker", "defender") for i in self.panel.picks[role]]
        # only the player the distance is measured from (the passer, the receiver)
        measured = [state.teams[t].players[i].name for t, i in self.panel.measured(state)]
        everyone = [pl.name for t in state.teams for pl in t.players]
        open_overhead_camera(
            action=_(self.panel.kind.title) + (f": {', '.join(picked)}" if picked else ""),
            kind=part.distance, preselect=measured, players=everyone,
            on_use=lambda inches: self.receive_distance(inches, source="camera"))

    def receive_distance(self, inches: float | None, source: str) -> bool:
        """The one entry point for a distance: typed now, the overhead camera later."""
        try:
            self.panel.set_distance(inches, source=source)
        except IllegalActionError as exc:
            App.get_running_app().toast(str(exc))
            self.panel.set_distance(None)
            self.refresh()
            return False
        self.follow = []
        self.refresh()
        return True

    def toggle_ground(self) -> None:
        """Before the passer is picked, the coach says whether the pass is from the ground;
        once picked, the passer's GROUNDED token decides (3.03: a GROUNDED carrier)."""
        s = self.session.state
        passer = self.panel.picks["attacker"][:1]
        if passer:
            p = s.player(self.panel.attacking_team(s), passer[0])
            App.get_running_app().toast(
                (_("{player} is GROUNDED: a pass from the ground") if p.grounded else
                 _("{player} is standing: a pass from the ground is thrown by a GROUNDED "
                   "carrier")).format(player=p.name))
            return
        self.panel.from_ground = not self.panel.from_ground
        self.refresh()

    def record(self) -> None:
        try:
            type_, data = self.panel.record(self.session.state)
        except IllegalActionError as exc:
            App.get_running_app().toast(str(exc))
            return
        follow = self.panel.follow_ups(self.session.state)

        def done() -> None:
            self.follow = follow
            self._follow_at = len(self.session.actions)
            self.panel.next_roll()     # nobody picked, no dice: the next roll starts clean
            self.refresh()

        App.get_running_app().act(type_, then=done, **data)

    def do_follow(self, f: FollowUp) -> None:
        if f.next_kind is not None:
            self.panel.choose(f.next_kind)
            for team, player in f.picks:
                if not self.panel.picked(self.session.state, team, player):
                    try:
                        self.panel.pick(self.session.state, team, player)
                    except IllegalActionError as exc:
                        App.get_running_app().toast(str(exc))
            self.follow = [x for x in self.follow if x is not f]
            self.refresh()
            return
        assert f.event is not None

        def done() -> None:
            self.follow = [x for x in self.follow if x is not f]
            self.refresh()

        App.get_running_app().act(f.event[0], then=done, **f.event[1])

    # -- match commands --------------------------------------------------------------------
    def kickoff(self, team: int) -> None:
        App.get_running_app().act("takkure.kickoff", kicking=team)

    def toss_coin(self) -> None:
        """The referee roll is a coin toss: shown here, the coaches then tap who kicks."""
        winner = random.SystemRandom().randrange(2)
        self.coin_text = _("Coin: {team} win the referee roll").format(team=self.team_names[winner])

    def open_injury(self, card: PlayerCard) -> None:
        pad = InjuryPad(card=card)
        pad.open(animation=False)



load_kv(__package__, "takkure_game.kv")
