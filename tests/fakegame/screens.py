"""Coin Race's two screens: the set-up (names and target from its config file) and the race
(a big coin button per player, undo, the log); it takes the dice tower's d6 throws."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.lang import Builder
from kivy.properties import ListProperty, NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.game_screen import GameScreen, Throw, copy_props

Builder.load_string('''
<CoinRaceSetupScreen>:
    BoxLayout:
        orientation: 'vertical'
        padding: dp(32)
        spacing: dp(16)
        Label:
            text: root.summary
            font_size: '28sp'
        BigButton:
            id: start
            text: 'Start'
            on_release: root.start()

<CoinRaceGameScreen>:
    BoxLayout:
        orientation: 'vertical'
        padding: dp(24)
        spacing: dp(16)
        Label:
            id: status
            text: root.status
            font_size: '32sp'
        BoxLayout:
            spacing: dp(16)
            BigButton:
                id: coin0
                text: root.names[0] + ': ' + str(root.coins[0])
                on_release: app.act('coinrace.coin', player=0)
            BigButton:
                id: coin1
                text: root.names[1] + ': ' + str(root.coins[1])
                on_release: app.act('coinrace.coin', player=1)
        Label:
            id: last_throw
            text: root.last_throw
        BoxLayout:
            size_hint_y: None
            height: dp(72)
            BigButton:
                id: undo
                text: root.undo_text
                disabled: not root.can_undo
                on_release: app.undo()
            BigButton:
                id: home
                text: 'Home'
                on_release: app.go_home()
''')


class CoinRaceSetupScreen(Screen):
    summary = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        cfg = App.get_running_app().config_of("coinrace")
        self.summary = f"{cfg.players[0]} vs {cfg.players[1]}, first to {cfg.target} coins"

    def start(self) -> None:
        app = App.get_running_app()
        cfg = app.config_of("coinrace")
        app.start_game("coinrace", {"names": list(cfg.players), "target": cfg.target},
                       "-vs-".join(cfg.players))


class CoinRaceGameScreen(GameScreen):
    names = ListProperty(["", ""])
    coins = ListProperty([0, 0])
    status = StringProperty("")
    last_throw = StringProperty("")
    throws = NumericProperty(0)
    session = None

    def bind_session(self, session: Any) -> None:
        self.session = session
        self.last_throw = ""
        self.refresh()

    def refresh(self, *args: Any) -> None:
        if self.session is None:
            return
        s = self.session.state
        status = (f"{s.names[s.winner]} wins!" if s.winner is not None
                  else f"{s.names[s.turn]}'s turn")
        copy_props(self, {"names": list(s.names), "coins": list(s.coins), "status": status})
        self.show_undo(self.session)

    def take_throw(self, throw: Throw) -> bool:
        sixes = [d for d in throw.dice if d.get("kind") == "d6"]
        if not sixes:
            return False
        self.throws += 1
        self.last_throw = "Rolled " + ", ".join(str(d.get("face")) for d in sixes)
        return True
