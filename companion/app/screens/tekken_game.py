"""The TEKKEN game screen: two fighter panels, the String and the stage in the centre,
the action log with undo/redo at the bottom.

Everything shown is computed from ``session.state`` by :func:`tekken_view` (pure, no Kivy)
and copied onto Kivy properties by :meth:`TekkenGameScreen.refresh`. Buttons are enabled
only when ``session.preview`` accepts their action, so the engine stays the only judge of
what is legal. The hidden breakage-token order (``floor.order[revealed:]``) is never read.
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
    OptionProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.modalview import ModalView

from ...i18n import _
from ...views.tekken import (
    DEFAULT_RAGE_NAMES,
    cracked_floor_in_force,
    tekken_view,
)
from ..game_screen import GameScreen, copy_props
from ..kv import load_kv
from ..widgets import SlotTile, TokenTile

# ----------------------------------------------------------------------------- pure view











# ----------------------------------------------------------------------------- widgets


class FighterPanel(BoxLayout):
    player = NumericProperty(0)
    fighter_name = StringProperty("")
    player_name = StringProperty("")      # the player's name, "" when none was typed
    hp = NumericProperty(20)
    max_hp = NumericProperty(20)
    hp_text = StringProperty("20 / 20")
    red_zone = BooleanProperty(False)
    heat = StringProperty("charged")
    heat_text = StringProperty("")
    rage_mode = StringProperty("pick")
    rage_text = StringProperty("")
    rage_names = ListProperty(list(DEFAULT_RAGE_NAMES))
    punishment = NumericProperty(0)
    stun = NumericProperty(0)
    knocked_down = BooleanProperty(False)
    rounds_won = NumericProperty(0)
    rounds_to_win = NumericProperty(3)
    is_offensive = BooleanProperty(False)
    can_minus = BooleanProperty(True)
    can_plus = BooleanProperty(False)
    can_pick_rage = BooleanProperty(True)

    def adjust(self, delta: int) -> None:
        App.get_running_app().act("tekken.adjust_hp", player=self.player, delta=delta,
                                  reason="manual")

    rage_view = ObjectProperty(None, allownone=True)

    def open_rage_pick(self) -> None:
        """The secret pick as a hand-over: the tablet goes to this fighter's player while the
        others look away, and only then are the two cards shown."""
        who = self.player_name or _("{fighter}'s player").format(fighter=self.fighter_name)
        self.close_rage_pick()
        self.rage_view = RagePick(player=self.player, who=who, cards=list(self.rage_names))
        self.rage_view.open(animation=False)

    def close_rage_pick(self) -> None:
        if self.rage_view is not None:
            self.rage_view.dismiss(animation=False)
            self.rage_view = None


class RagePick(ModalView):
    """The secret Rage pick, full screen: "hand the tablet to X, the others look away",
    then X's two cards, then "chosen and hidden, hand the tablet back". Nothing of the
    choice stays on screen; Undo on the game screen takes it back."""

    step = OptionProperty("hand", options=["hand", "pick", "done"])
    player = NumericProperty(0)
    who = StringProperty("")
    cards = ListProperty(["", ""])
    prompt = StringProperty("")
    go_text = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_step(self, self.step)

    def on_step(self, _view: Any, step: str) -> None:
        if step == "hand":
            self.prompt = _("Hand the tablet to {who}.\nEveryone else, look away.").format(who=self.who)
            self.go_text = _("I'm {who}: show my Rage cards").format(who=self.who)
        elif step == "pick":
            self.prompt = _("{who}: pick your secret Rage card").format(who=self.who)
            self.go_text = ""
        else:
            self.prompt = _("Rage card chosen and hidden.\nHand the tablet back.")
            self.go_text = _("Done")

    def advance(self) -> None:
        if self.step == "hand":
            self.step = "pick"
        elif self.step == "done":
            self.dismiss(animation=False)

    def choose(self, card: int) -> None:
        app = App.get_running_app()
        session = app.session
        app.act("tekken.rage_chosen", player=self.player, card=card)
        chosen = session is not None and session.state.fighters[self.player].rage != "unchosen"
        if chosen:
            self.step = "done"
        else:                       # refused (the toast says why): nothing was chosen
            self.dismiss(animation=False)


class ResultView(ModalView):
    """The round-over / game-over overlay."""

    title = StringProperty("")
    score = StringProperty("")
    game_over = BooleanProperty(False)
    next_round = NumericProperty(2)
    default_opener = StringProperty("")
    other_opener = StringProperty("")
    default_index = NumericProperty(0)
    screen = ObjectProperty(None)


# ----------------------------------------------------------------------------- screen


class TekkenGameScreen(GameScreen):
    header = StringProperty("")
    round_text = StringProperty("")
    slot_kinds = ListProperty([])
    heat_note = StringProperty("")
    card_text = StringProperty("")
    card_punishes = BooleanProperty(False)
    can_hit = BooleanProperty(False)
    can_block = BooleanProperty(False)
    can_heat = BooleanProperty(False)
    show_end = BooleanProperty(False)
    can_end = BooleanProperty(False)
    resolving = BooleanProperty(False)
    can_wall = BooleanProperty(False)
    can_blast = BooleanProperty(False)
    can_sweep = BooleanProperty(False)
    can_stun = BooleanProperty(False)
    can_rage = BooleanProperty(False)
    why = DictProperty({})
    has_floor = BooleanProperty(False)
    stage_text = StringProperty("")
    side_text = StringProperty("")
    tokens = ListProperty([])
    floor_text = StringProperty("")
    log_lines = ListProperty([])
    phase = StringProperty("fight")
    result_title = StringProperty("")
    score_text = StringProperty("")
    # the Strike tray: UI state, not game state
    pending = ListProperty([])
    cracked_floor = BooleanProperty(False)

    _SCALARS = ("header", "round_text", "heat_note", "card_text", "card_punishes", "can_hit", "can_block",
                "can_heat", "show_end", "can_end", "resolving", "can_wall", "can_blast",
                "can_sweep", "can_stun", "can_rage", "why", "has_floor", "stage_text", "side_text",
                "floor_text", "undo_text", "redo_text", "can_undo", "can_redo", "phase",
                "result_title", "score_text")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = None
        self._breaks = 0
        self._string_key: tuple[int, int, int] | None = None
        self.result_view: ResultView | None = None

    # -- session -------------------------------------------------------------------------
    def on_leave(self, *args: Any) -> None:
        """The round-over card belongs to this screen: it goes when the player leaves (to
        Home, the saved games, the dice panel) and comes back with the screen."""
        super().on_leave(*args)
        if self.result_view is not None:
            self.result_view.dismiss(animation=False)
            self.result_view = None
        for i in (0, 1):            # a hand-over left open does not wait over another screen
            self.ids[f"fighter{i}"].close_rage_pick()

    def bind_session(self, session: Any) -> None:
        s = session.state
        key = (s.round, s.string_no, s.offensive)
        # "Defender on Cracked Floor" as the table left it: kept when the same String comes
        # back from Home, else as the String's last Strike had it (a game resumed)
        if not (session is self.session and key == self._string_key):
            self.cracked_floor = cracked_floor_in_force(session)
        self.session = session
        self.pending = []
        self._string_key = key
        floor = session.state.floor
        self._breaks = floor.breaks if floor is not None else 0
        self.refresh()

    def _rage_names(self) -> list[tuple[str, str]]:
        cfg = App.get_running_app().config_of("tekken")
        out = []
        for f in self.game().state.fighters:
            try:
                out.append(tuple(cfg.character(f.name).rage_cards))
            except (AttributeError, KeyError):
                out.append(DEFAULT_RAGE_NAMES)
        return out

    def refresh(self, *args: Any) -> None:
        if self.session is None:
            return
        view = tekken_view(self.session, self._rage_names())
        copy_props(self, view, self._SCALARS)
        for panel, fv in zip((self.ids.fighter0, self.ids.fighter1), view["fighters"]):
            copy_props(panel, fv)
        if list(self.slot_kinds) != view["slot_kinds"]:
            self.slot_kinds = view["slot_kinds"]
            box = self.ids.slots
            box.clear_widgets()
            for kind in self.slot_kinds:
                box.add_widget(SlotTile(kind=kind))
        if list(self.tokens) != view["tokens"]:
            self.tokens = view["tokens"]
            box = self.ids.tokens
            box.clear_widgets()
            for kind in self.tokens:
                box.add_widget(TokenTile(kind=kind))
        self.log_lines = view["log_lines"]
        if not self.resolving:
            self.pending = []
        # "Defender on Cracked Floor" is about this String's defender only: another String
        # (a new one, or one reached by undo) or another Round starts with it off
        s = self.session.state
        key = (s.round, s.string_no, s.offensive)
        if key != self._string_key:
            self._string_key = key
            self.cracked_floor = False
        if view["breaks"] > self._breaks:
            App.get_running_app().banner(
                _("FLOOR BREAK!\nStage flips to {side} — {fighter} gains a Punishment "
                  "token").format(side=view["side_text"], fighter=view["offensive_name"]))
        self._breaks = view["breaks"]
        self._show_result(view)

    # -- round / game over ---------------------------------------------------------------
    def _show_result(self, view: dict[str, Any]) -> None:
        s = self.game().state
        if s.phase == "fight" or self.manager is None or self.manager.current != self.name:
            if self.result_view is not None:
                self.result_view.dismiss(animation=False)
                self.result_view = None
            return
        if self.result_view is None:
            self.result_view = ResultView(screen=self)
            self.result_view.open(animation=False)
        rv = self.result_view
        rv.title = view["result_title"]
        rv.score = view["score_text"]
        rv.game_over = s.phase == "game_over"
        rv.next_round = s.round + 1
        losers = [i for i in (0, 1) if i not in s.last_round_winners]
        default = losers[0] if losers else s.defender
        rv.default_index = default
        rv.default_opener = s.fighters[default].name
        rv.other_opener = s.fighters[1 - default].name

    def start_next_round(self, opener: int) -> None:
        """The round-over card's button is the one confirmation: it names the Round and the
        opener, and the card says what is reset."""
        App.get_running_app().act("tekken.next_round", offensive=opener)

    # -- the Strike tray -----------------------------------------------------------------
    def add_strike(self, value: int) -> None:
        self.pending = list(self.pending) + [value]

    def clear_strikes(self) -> None:
        self.pending = []

    def deal(self) -> None:
        if not self.pending:
            return
        data: dict[str, Any] = {"symbols": list(self.pending)}
        if self.has_floor:
            data["cracked_floor"] = bool(self.cracked_floor)
        App.get_running_app().act("tekken.strike", then=self.clear_strikes, **data)

        if self.result_view is not None:
            self.result_view.dismiss(animation=False)
            self.result_view = None


load_kv(__package__, "tekken_game.kv")
