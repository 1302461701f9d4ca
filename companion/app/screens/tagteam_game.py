"""The Tag Team screen: both teams' HP tracks with their icons and power, the active fighter
per side, a turn entry where each player sets what their revealed card does, and a Resolve
step that shows both cards' result before it is applied.

The turn entry is UI state (``TurnEntry``, pure) until "Resolve turn" → "Apply" records one
``tagteam.turn`` event. What is shown comes from ``session.state``; buttons are enabled by
``session.allows``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Rectangle
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.modalview import ModalView
from kivy.uix.widget import Widget

from ...errors import IllegalActionError
from ...games import tagteam as tt
from ...i18n import _
from ...views.tagteam import ICON_MARK, TurnEntry, decks_text
from .. import widgets  # noqa: F401  (its <Label> rule must load first)
from ..game_screen import GameScreen
from ..kv import load_kv
from ..scale import ui

# ----------------------------------------------------------------------------- widgets

class FighterTrack(Widget):
    """An HP track drawn top (maximum) to bottom (KO), its icons, and the marker."""

    max_hp = NumericProperty(20)
    hp = NumericProperty(20)
    icons = ListProperty([])
    active = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._trigger = Clock.create_trigger(self._redraw, -1)
        self.bind(max_hp=self._trigger, hp=self._trigger, icons=self._trigger,
                  pos=self._trigger, size=self._trigger, active=self._trigger)

    def _redraw(self, *args: Any) -> None:
        self.canvas.clear()
        n = int(self.max_hp) + 1
        h = self.height / n
        if h < dp(14):            # too short to read a number per cell: a bar (the big HP
            self._draw_bar(n)      # figure above it says the value)
            return
        marks: dict[int, list[str]] = {}
        for cell, icon in self.icons:
            marks.setdefault(int(cell), []).append(_(ICON_MARK[icon]) if icon in ICON_MARK
                                                   else icon[:4])
        with self.canvas:
            for i in range(n):
                value = int(self.max_hp) - i
                y = self.top - (i + 1) * h
                here = value == int(self.hp)
                if here:
                    Color(0.95, 0.8, 0.25, 1) if self.hp > 0 else Color(0.85, 0.2, 0.2, 1)
                elif value == 0:
                    Color(0.35, 0.1, 0.1, 1)
                else:
                    Color(0.18, 0.19, 0.23, 1) if value > self.hp else Color(0.13, 0.14, 0.17, 1)
                Rectangle(pos=(self.x, y + 1), size=(self.width, h - 2))
                text = (_("KO") if value == 0 else str(value)) + \
                    ("  " + " ".join(marks[value]) if value in marks else "")
                label = CoreLabel(text=text, font_size=ui.tag,
                                  bold=here)
                label.refresh()
                tex = label.texture
                Color(0.1, 0.1, 0.12, 1) if here else Color(0.8, 0.82, 0.86, 1)
                Rectangle(texture=tex, size=tex.size,
                          pos=(self.x + dp(4), y + (h - tex.size[1]) / 2))
            if self.active:
                Color(0.35, 0.75, 1, 1)
                Line(rectangle=(self.x, self.y, self.width, self.height), width=dp(2))


    def _draw_bar(self, n: int) -> None:
        """The track as a horizontal bar, KO on the left: filled up to the HP, the cells
        that carry an icon marked above, the marker's cell bright."""
        gap = dp(1)
        w = (self.width - gap * (n - 1)) / n
        iconic = {int(cell) for cell, _icon in self.icons}
        top = min(dp(10), self.height * 0.25)
        with self.canvas:
            for value in range(n):
                x = self.x + value * (w + gap)
                if value == int(self.hp):
                    Color(0.95, 0.8, 0.25, 1) if self.hp > 0 else Color(0.85, 0.2, 0.2, 1)
                elif value == 0:
                    Color(0.35, 0.1, 0.1, 1)
                elif value < self.hp:
                    Color(0.2, 0.62, 0.32, 1)
                else:
                    Color(0.18, 0.19, 0.23, 1)
                Rectangle(pos=(x, self.y), size=(w, self.height - top))
                if value in iconic:
                    Color(0.75, 0.55, 1, 1)
                    Rectangle(pos=(x, self.top - top + dp(2)), size=(w, top - dp(2)))
            if self.active:
                Color(0.35, 0.75, 1, 1)
                Line(rectangle=(self.x, self.y, self.width, self.height), width=dp(2))


class FighterColumn(BoxLayout):
    team = NumericProperty(0)
    index = NumericProperty(0)
    fname = StringProperty("")
    power = NumericProperty(0)
    hp = NumericProperty(0)
    max_hp = NumericProperty(20)
    icons = ListProperty([])
    active = BooleanProperty(False)
    ko = BooleanProperty(False)
    screen = ObjectProperty(None, allownone=True)


class FighterSheet(ModalView):
    """By-hand corrections for one Fighter (a card effect the turn entry lacks), and the
    board flip of a double-sided Fighter. Each tap is one undoable event."""

    team = NumericProperty(0)
    index = NumericProperty(0)
    fname = StringProperty("")
    status = StringProperty("")
    other_side = StringProperty("")
    screen = ObjectProperty(None)

    def act(self, type_: str, **data: Any) -> None:
        App.get_running_app().act(type_, team=int(self.team), fighter=int(self.index),
                                  then=self.update, **data)

    def update(self) -> None:
        state = self.screen.session.state
        if state.phase == "over" and self.parent is not None:
            # a KO by hand ends the fight at once: the sheet gives way to the result, which
            # Undo takes back
            self.dismiss(animation=False)
            App.get_running_app().banner("\n".join(state.last), seconds=3.5)
            return
        f = state.teams[int(self.team)][int(self.index)]
        self.fname = f.name
        self.status = (_("{hp}/{max_hp} HP · power {power}  (KO)") if f.ko else
                       _("{hp}/{max_hp} HP · power {power}")).format(hp=f.hp, max_hp=f.max_hp,
                                                                     power=f.power)
        self.other_side = f.other[0] if f.other else ""
        allows = self.screen.session.allows
        t, i = int(self.team), int(self.index)
        for key, what, delta in (("hp_down", "hp", -1), ("hp_up", "hp", 1),
                                 ("power_down", "power", -1), ("power_up", "power", 1)):
            self.ids[key].disabled = not allows("tagteam.adjust", team=t, fighter=i,
                                                what=what, delta=delta)
        self.ids.flip.disabled = not allows("tagteam.flip", team=t, fighter=i)


class ResolveTurnView(ModalView):
    lines = StringProperty("")
    screen = ObjectProperty(None)


# ----------------------------------------------------------------------------- screen


class TagTeamGameScreen(GameScreen):
    title = StringProperty("")
    status = StringProperty("")
    phase = StringProperty("combat")
    entry_texts = ListProperty(["", ""])
    names = ListProperty(["", ""])
    log_lines = ListProperty([])
    can_next_round = BooleanProperty(False)
    why_next_round = StringProperty("")
    why_exhausted = StringProperty("")
    can_exhausted = BooleanProperty(False)
    decks = StringProperty("")           # Combat and Construction deck sizes

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session: Any = None
        self.entries = [TurnEntry(), TurnEntry()]
        self.columns: list[list[FighterColumn]] = [[], []]
        self.resolve_view: ResolveTurnView | None = None
        self._entry_turn: tuple[int, int, str] | None = None

    def bind_session(self, session: Any) -> None:
        self.session = session
        self.entries = [TurnEntry(), TurnEntry()]
        self._entry_turn = None
        for t, box in enumerate((self.ids.team0, self.ids.team1)):
            box.clear_widgets()
            self.columns[t] = []
            for f in range(2):
                col = FighterColumn(team=t, index=f, screen=self)
                box.add_widget(col)
                self.columns[t].append(col)
        self.refresh()

    def refresh(self, *args: Any) -> None:
        if self.session is None:
            return
        s: tt.TagTeamState = self.session.state
        # the entry is for the cards revealed this turn: another turn (undo, redo, a new
        # round) starts with none set; the active fighters stay as the players chose
        turn = (s.round, s.turn, s.phase)
        if turn != self._entry_turn:
            if self._entry_turn is not None:
                self.entries = [TurnEntry(active=e.active) for e in self.entries]
            self._entry_turn = turn
        self.phase = s.phase
        self.names = list(s.names)
        if s.phase == "over":
            self.title = _("Fight over")
            self.status = (_("Draw") if s.result == "draw" else
                           _("{player} wins").format(player=s.names[int(s.result or 0)]))
        else:
            self.title = _("Round {round} · turn {turn} of {turns}").format(
                round=s.round, turn=s.turn, turns=s.turns_in_round)
            self.status = (_("Deck building: draw 3, insert 1, then start the next round")
                           if s.phase == "building" else
                           _("Reveal your cards, set what they do, then Resolve turn"))
        for t in (0, 1):
            for f, col in enumerate(self.columns[t]):
                fighter = s.teams[t][f]
                col.fname, col.power, col.hp = fighter.name, fighter.power, fighter.hp
                col.max_hp, col.icons = fighter.max_hp, [list(i) for i in fighter.icons]
                col.active, col.ko = self.entries[t].active == f, fighter.ko
        self.entry_texts = [e.text() for e in self.entries]
        for t, box in enumerate((self.ids.entry0, self.ids.entry1)):
            box.ids.text.text = _("{fighter}: {entry}").format(
                fighter=s.teams[t][self.entries[t].active].name, entry=self.entry_texts[t])
            for w in box.walk(restrict=True):
                key = getattr(w, "key", "")
                if key:   # an effect the card has is lit, the way the player set it
                    value = getattr(self.entries[t], key)
                    counted = isinstance(value, int) and not isinstance(value, bool)
                    on = value * w.sign > 0 if counted else value
                    w.bg = (0.16, 0.5, 0.9, 1) if on else (0.22, 0.23, 0.28, 1)
        self.log_lines = [e.text for e in self.session.log(last=40)][::-1]
        self.show_undo(self.session)
        # the rules' answer, asked once: it enables the button and, greyed, is what a tap says
        self.why_next_round = self.session.why_not("tagteam.next_round")
        self.why_exhausted = self.session.why_not("tagteam.deck_exhausted")
        self.can_next_round = not self.why_next_round
        self.can_exhausted = not self.why_exhausted
        self.decks = decks_text(s)

    # -- the turn entry ------------------------------------------------------------------
    def set_active(self, team: int, index: int) -> None:
        self.entries[team].active = index
        self.refresh()

    def change(self, team: int, key: str, delta: int = 0) -> None:
        e = self.entries[team]
        value = getattr(e, key)
        if isinstance(value, bool):
            setattr(e, key, not value)
        else:
            setattr(e, key, max(-9 if key in ("power", "partner_power") else 0, min(20, value + delta)))
        self.refresh()

    def open_sheet(self, team: int, index: int) -> None:
        sheet = FighterSheet(team=team, index=index, screen=self)
        sheet.update()
        sheet.open(animation=False)

    def clear_entry(self, team: int) -> None:
        active = self.entries[team].active
        self.entries[team] = TurnEntry(active=active)
        self.refresh()

    def preview_lines(self) -> list[str]:
        sides: list[Mapping[str, Any]] = [e.side() for e in self.entries]
        return list(tt.resolve_turn(self.session.state, sides)[1])

    def open_resolve(self) -> None:
        try:
            lines = self.preview_lines()
        except IllegalActionError as exc:
            App.get_running_app().toast(str(exc))
            return
        view = ResolveTurnView(screen=self, lines="\n".join(lines) or _("Nothing changes"))
        self.resolve_view = view
        view.open(animation=False)

    def apply_turn(self) -> None:
        if self.resolve_view is not None:
            self.resolve_view.dismiss(animation=False)
            self.resolve_view = None
        sides = [e.side() for e in self.entries]

        def done() -> None:
            self.entries = [TurnEntry(active=e.active) for e in self.entries]
            self.refresh()

        App.get_running_app().act("tagteam.turn", sides=sides, then=done)


load_kv(__package__, "tagteam_game.kv")
