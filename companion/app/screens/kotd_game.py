"""The King of Tokyo Duel screen: both Monsters, the two tug-of-war tracks with their pawns
and Buzz tokens, the current roll as dice (tap one to keep it or take it back), the roll
counter, and a Resolve step that shows what each die does before it is applied.

Dice come from the dice tower (each throw of the unkept dice is one ``dice.roll`` event, taken
by the rules) or are typed by tapping faces; a die the tower did not read cleanly shows as
"?" and is re-rolled or set by hand before anything is resolved. What is shown comes from
:func:`kotd_view` (pure); every button is enabled by ``session.preview``.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import (
    BooleanProperty,
    DictProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.widget import Widget

from ...i18n import _
from ...views.kotd import BONUS_MARK, kotd_view, resolution_preview
from .. import widgets  # noqa: F401  (its <Label> rule must load first)
from ..dice_look import FACE_LOOK
from ..game_screen import GameScreen, Throw, copy_props
from ..kv import load_kv
from ..scale import ui
from ..widgets import BigToggle, HideBox  # noqa: F401  (HideBox: used in the .kv)

# ----------------------------------------------------------------------------- widgets

class KotdDie(ButtonBehavior, Label):
    """One die of the roll: its face on the face's colour; kept dice are ringed green."""

    face = StringProperty("")
    kept = BooleanProperty(False)
    pending = BooleanProperty(False)
    selected = BooleanProperty(False)
    index = NumericProperty(0)
    bg = ListProperty([0.3, 0.3, 0.35, 1])


class TrackCell(Widget):
    zone = StringProperty("plain")
    mark = StringProperty("")
    token = StringProperty("")
    pawn = StringProperty("")
    index = NumericProperty(0)


class TrackRow(BoxLayout):
    title = StringProperty("")


class MonsterPanel(BoxLayout):
    player = NumericProperty(0)
    name_text = StringProperty("")
    hp = NumericProperty(10)
    max_hp = NumericProperty(10)
    energy = NumericProperty(0)
    tokens = NumericProperty(0)
    power = StringProperty("")
    active = BooleanProperty(False)
    winner = BooleanProperty(False)
    can = ObjectProperty({})
    can_pull = ListProperty([False, False])

    def adjust(self, what: str, delta: int) -> None:
        App.get_running_app().act("kotd.adjust", player=int(self.player), what=what, delta=delta)

    def pull(self, track: str) -> None:
        App.get_running_app().act("kotd.pull", track=track, toward=int(self.player), cells=1)


class ResolveView(ModalView):
    lines = StringProperty("")
    screen = ObjectProperty(None)


class BuzzPicker(ModalView):
    """Place or move a Buzz token (a card's icon, or The King's power)."""

    screen = ObjectProperty(None)
    token = StringProperty("")
    track = StringProperty("fame")
    cell = NumericProperty(0)

    def on_open(self) -> None:
        s = self.screen.session.state
        box = self.ids.tokens
        box.clear_widgets()
        for tid, cells, _covers, king in s.buzz:
            marks = " ".join(BONUS_MARK[c] or "·" for c in cells)
            if king:
                marks = _("{marks} (King)").format(marks=marks)
            label = f"{tid}\n{ui.size_tag('body')}{marks}[/size]"
            b = BigToggle(text=label, markup=True, group=f"buzz-{id(self)}", font_role="body",
                          tap_dp=64)
            b.bind(on_release=lambda _b, t=tid: setattr(self, "token", t))
            box.add_widget(b)
        self.cell = 1

    def place(self) -> None:
        if not self.token:
            App.get_running_app().toast(_("Pick a Buzz token"))
            return
        App.get_running_app().act("kotd.place_buzz", token=self.token, track=self.track,
                                  cell=int(self.cell), then=lambda: self.dismiss(animation=False))


# ----------------------------------------------------------------------------- screen

class KotdGameScreen(GameScreen):
    title = StringProperty("")
    status = StringProperty("")
    phase = StringProperty("roll")
    need = NumericProperty(0)
    typed_text = StringProperty("")
    can_spend = BooleanProperty(False)
    can_extra = BooleanProperty(False)
    can_resolve = BooleanProperty(False)
    can_gain = BooleanProperty(False)
    can_sweep = BooleanProperty(False)
    can_end = BooleanProperty(False)
    free_energy = BooleanProperty(False)  # ending the turn now gains the 1 energy (no purchase)
    cost = NumericProperty(3)
    log_lines = ListProperty([])
    simulated = BooleanProperty(False)
    selected = NumericProperty(-1)       # the pending die chosen to set by hand

    why = DictProperty({})   # greyed actions: what a tap says (the rules' sentence)
    _SCALARS = ("title", "status", "phase", "need", "can_spend", "can_extra", "can_resolve",
                "can_gain", "can_sweep", "can_end", "why", "free_energy", "undo_text", "redo_text",
                "can_undo", "can_redo")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session: Any = None
        self.typed: list[str] = []
        self._typed_for: tuple[int, int | None] | None = None
        self.resolve_view: ResolveView | None = None
        self._drawn: Any = None

    def bind_session(self, session: Any) -> None:
        self.session = session
        self.typed = []
        self.selected = -1
        self._drawn = None
        self._typed_for = None
        self.refresh()

    def take_throw(self, throw: Throw) -> bool:
        """A throw of the tower is a roll in King of Tokyo Duel: the rules took it when it
        was recorded (the dice it cannot use are ignored there); the screen shows it."""
        return self.session is not None

    def refresh(self, *args: Any) -> None:
        if self.session is None:
            return
        s = self.session.state
        if self.selected not in s.pending:
            self.selected = -1
        # faces typed by hand belong to the throw being typed: any action (a tower throw,
        # a keep, an undo or redo) means another throw, typed from scratch
        actions = self.session.actions
        moment = (len(actions), id(actions[-1]) if actions else None)
        if moment != self._typed_for:
            self._typed_for = moment
            self.typed = []
        view = kotd_view(self.session, self.typed)
        self.typed = view["typed"]
        copy_props(self, view, self._SCALARS)
        self.log_lines = view["log_lines"]
        self.typed_text = (" ".join(self.typed) + "  " + " ".join(["_"] * (view["need"] - len(self.typed)))
                           ).strip() if view["need"] else ""
        for panel, mv in zip((self.ids.monster0, self.ids.monster1), view["monsters"]):
            panel.name_text = (_("{monster} · {player}").format(monster=mv["name"], player=mv["player"])
                               if mv["player"] else mv["name"])
            copy_props(panel, mv, ("hp", "max_hp", "energy", "tokens", "power", "active",
                                   "winner", "can", "can_pull"))
        link = App.get_running_app().tower_link
        self.simulated = bool(link is not None and (link.url or "").startswith("sim://"))
        key = (tuple(tuple(t["cells"]) + (t["pawn"],) for t in view["tracks"]),
               tuple((d["face"], d["kept"]) for d in view["dice"]), self.selected)
        if key != self._drawn:
            self._drawn = key
            self._draw_tracks(view["tracks"])
            self._draw_dice(view["dice"])

    def _draw_tracks(self, tracks: list[dict[str, Any]]) -> None:
        for row, t in zip((self.ids.track_fame, self.ids.track_destruction), tracks):
            row.title = _("Fame") if t["name"] == "fame" else _("Destruction")
            box = row.ids.cells
            box.clear_widgets()
            for i, (zone, mark, token) in enumerate(t["cells"]):
                pawn = (_("F") if t["name"] == "fame" else _("D")) if i == t["pawn"] else ""
                box.add_widget(TrackCell(zone=zone, mark=mark, token=token, pawn=pawn, index=i))

    def _draw_dice(self, dice: list[dict[str, Any]]) -> None:
        box = self.ids.dice
        box.clear_widgets()
        for d in dice:
            text, bg = FACE_LOOK.get(d["face"] or "", ("?", (0.3, 0.3, 0.35, 1)))
            w = KotdDie(text=_(text), face=d["face"] or "", kept=d["kept"], pending=d["pending"],
                        index=d["index"], bg=list(bg), selected=d["index"] == self.selected)
            w.bind(on_release=lambda _w, i=d["index"]: self.tap_die(i))
            box.add_widget(w)

    # -- dice ----------------------------------------------------------------------------
    def tap_die(self, index: int) -> None:
        s = self.session.state
        if index in s.pending:
            self.selected = index
            self._drawn = None
            self.refresh()
            return
        App.get_running_app().act("kotd.keep", die=index, kept=not s.dice[index].kept)

    def tap_face(self, face: str) -> None:
        """A face button: sets the chosen '?' die, or types the next die of the throw."""
        app = App.get_running_app()
        s = self.session.state
        if self.selected in s.pending:
            app.act("kotd.set_die", die=int(self.selected), face=face)
            return
        if not self.need:
            app.toast(_("No die to throw now"))
            return
        self.typed = list(self.typed) + [face]
        if len(self.typed) >= self.need:
            faces, self.typed = self.typed, []
            app.act("kotd.roll", faces=faces)
        self.refresh()

    def clear_typed(self) -> None:
        self.typed = []
        self.refresh()

    def simulated_throw(self) -> None:
        """The demo's throw: the simulated tower rolls exactly the dice to throw now."""
        app = App.get_running_app()
        if not self.need or app.tower_link is None:
            return
        from firmware_bridge.host.urlhandlers import protocol_sim

        name, _rest = protocol_sim.parse_url(app.tower_link.url)
        protocol_sim.hub(name).roll(" ".join(["kotd:black:*"] * self.need))

    # -- resolve, buy, end -----------------------------------------------------------------
    def open_resolve(self) -> None:
        lines = resolution_preview(self.session.state)
        view = ResolveView(screen=self, lines="\n".join(lines) or _("Nothing happens"))
        self.resolve_view = view
        view.open(animation=False)

    def apply_resolve(self) -> None:
        if self.resolve_view is not None:
            self.resolve_view.dismiss(animation=False)
            self.resolve_view = None
        App.get_running_app().act("kotd.resolve")

    def change_cost(self, delta: int) -> None:
        self.cost = max(0, min(20, self.cost + delta))

    def buy(self) -> None:
        App.get_running_app().act("kotd.buy", cost=int(self.cost))

    def open_buzz(self) -> None:
        BuzzPicker(screen=self).open(animation=False)

    def throw_count_text(self) -> str:
        return str(self.need)


# ----------------------------------------------------------------------------- set-up


load_kv(__package__, "kotd_game.kv")
