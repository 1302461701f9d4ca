"""What every game's screen shares: the undo and redo buttons' labels, and keeping the
tablet awake while a game is on screen."""

from __future__ import annotations

from typing import Any

from kivy.core.window import Window
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.screenmanager import Screen


def short(text: str | None, limit: int = 40) -> str:
    """A label-sized text: cut at ``limit`` characters with an ellipsis."""
    text = text or ""
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def undo_view(session: Any, limit: int = 40) -> dict[str, Any]:
    """The undo and redo buttons: enabled or not, and what they would take back or redo."""
    return {"can_undo": session.can_undo, "can_redo": session.can_redo,
            "undo_text": ("Undo: " + short(session.next_undo_text(), limit))
            if session.can_undo else "Undo",
            "redo_text": ("Redo: " + short(session.next_redo_text(), limit))
            if session.can_redo else "Redo"}


class GameScreen(Screen):
    """A game's screen: ``refresh()`` draws ``self.session``; the screen saver is off while
    it is shown (a tablet that sleeps mid-round is a lost glance)."""

    undo_text = StringProperty("Undo")
    redo_text = StringProperty("Redo")
    can_undo = BooleanProperty(False)
    can_redo = BooleanProperty(False)

    def refresh(self, *args: Any) -> None:
        raise NotImplementedError

    def show_undo(self, session: Any, limit: int = 40) -> None:
        for key, value in undo_view(session, limit).items():
            setattr(self, key, value)

    def on_enter(self, *args: Any) -> None:
        Window.allow_screensaver = False
        self.refresh()

    def on_leave(self, *args: Any) -> None:
        Window.allow_screensaver = True
