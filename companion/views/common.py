"""What every game screen shows alike: the undo and redo buttons."""

from __future__ import annotations

from typing import Any

from ..i18n import _
from ..session import Session


def undo_view(session: Session[Any]) -> dict[str, Any]:
    """The undo and redo buttons: enabled or not, and what they would take back or redo, in
    full (never cut with "..."): the buttons wrap and their row grows to fit."""
    return {"can_undo": session.can_undo, "can_redo": session.can_redo,
            "undo_text": _("Undo: {action}").format(action=session.next_undo_text() or "")
            if session.can_undo else _("Undo"),
            "redo_text": _("Redo: {action}").format(action=session.next_redo_text() or "")
            if session.can_redo else _("Redo")}
