"""What every game's screen shares: the undo and redo buttons' labels, copying a view-model
onto the screen's properties, keeping the tablet awake while a game is on screen, and the one
way a dice tower throw reaches the open game (:meth:`GameScreen.take_throw`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kivy.core.window import Window
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.screenmanager import Screen

from ..session import Session
from ..views.common import undo_view


def copy_props(target: Any, view: Mapping[str, Any], keys: Iterable[str] | None = None,
               skip: Iterable[str] = ()) -> None:
    """Set ``target``'s properties from a view-model dict: the ``keys`` named (default:
    every key of ``view`` but those in ``skip``). Kivy redraws only what changed."""
    left_out = set(skip)
    for key in (view if keys is None else keys):
        if key not in left_out:
            setattr(target, key, view[key])


@dataclass(frozen=True)
class Throw:
    """One throw of the dice tower, as it is offered to the open game's screen."""

    dice: list[dict[str, Any]]   # each die as JSON: kind, face, colour, status, ...
    clean: bool                  # every die read cleanly
    text: str                    # readable, e.g. "d12 red 7, d12 yellow 3"


class GameScreen(Screen):
    """A game's screen: ``refresh()`` draws ``self.session``; the screen saver is off while
    it is shown (a tablet that sleeps mid-round is a lost glance)."""

    session: Session[Any] | None = None    # the open game, once bind_session has run
    undo_text = StringProperty("Undo")
    redo_text = StringProperty("Redo")
    can_undo = BooleanProperty(False)
    can_redo = BooleanProperty(False)

    def on_kv_post(self, base_widget: Any) -> None:
        super().on_kv_post(base_widget)
        # the shared UndoRow (widgets.kv) keeps its buttons' ids to itself: name them in the
        # screen's ids too, where the screen's rules, tests and scripts look for them
        row = self.ids.get("undo_row")
        if row is not None:
            self.ids["undo"], self.ids["redo"] = row.ids.undo, row.ids.redo

    def bind_session(self, session: Session[Any]) -> None:
        """Show ``session`` (a newly opened game): forget everything drawn for another."""
        self.session = session
        self.refresh()

    def game(self) -> Session[Any]:
        """The open game (a screen's actions run only while one is bound)."""
        if self.session is None:
            raise RuntimeError(f"{self.name}: no game is open on this screen")
        return self.session

    def refresh(self, *args: Any) -> None:
        raise NotImplementedError

    def show_undo(self, session: Session[Any]) -> None:
        copy_props(self, undo_view(session))

    def take_throw(self, throw: Throw) -> bool:
        """A dice tower throw while this screen shows (it is already in the game's journal).
        Return True when the screen used it or told the player why not; False declines it
        and the app shows the dice in a banner. Default: declined."""
        return False

    def announce(self, before: Any, after: Any) -> None:
        """After a new action (never after undo, redo or replay): reminders to show."""

    def stop_workers(self) -> None:
        """The app is closing: end this screen's worker threads (cameras)."""

    def on_enter(self, *args: Any) -> None:
        Window.allow_screensaver = False
        self.refresh()

    def on_leave(self, *args: Any) -> None:
        Window.allow_screensaver = True
