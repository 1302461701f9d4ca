"""The live view's picture of the open game: public information only.

Each game declares, through its registry entry's ``spectator`` field, a function
``summary(state) -> dict`` of this shape (all text already in the current language, in the
players' words, as the app's screens say it)::

    {
      "status": "Round 2 · Jin attacks",          # one line: round, half, turn, who acts
      "sides": [                                  # one per player or team, in seat order
        {"name": "Jin",
         "figures": [{"label": "HP", "value": "17", "of": 20},   # "of": optional maximum
                     {"label": "Heat", "value": "3"}],
         "notes": ["Rage"]},                      # short public states (GROUNDED, KO...)
        ...
      ],
      "lines": ["Floor: cracked, empty"],         # other public facts of the table
      "over": False,                              # the game is finished
      "winner": None,                             # the winner's name once over (or None)
      "roller": "Gigazaur",                       # optional: who throws the dice now
    }

What a player at the table could not see must never be in it: a face-down card or token
before it is revealed (TEKKEN's secret Rage card, the order of face-down Floor Break tokens),
a player's hand, a deck's order. ``tests/test_live_summary.py`` checks each game's summary
against its hidden state.

:func:`game_summary` builds the dict for a session (with the game's title), or ``None``
when the game declares no summary.
"""

from __future__ import annotations

from typing import Any

from .. import registry
from ..i18n import _

FIELDS = ("status", "sides", "lines", "over", "winner", "roller")


def check_shape(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary, with its shape checked (a game's function that breaks the contract is a
    bug: it fails here, loudly, in the tests)."""
    if not isinstance(summary, dict) or set(summary) - set(FIELDS) or "sides" not in summary:
        raise ValueError(f"a spectator summary has the fields {FIELDS}: {summary!r}")
    if not isinstance(summary.get("status", ""), str):
        raise ValueError("status: text")
    for side in summary["sides"]:
        if not isinstance(side.get("name"), str):
            raise ValueError(f"a side's name: text: {side!r}")
        for fig in side.get("figures", []):
            if not isinstance(fig.get("label"), str) or not isinstance(fig.get("value"), str):
                raise ValueError(f"a figure: label and value, text: {fig!r}")
        if not all(isinstance(n, str) for n in side.get("notes", [])):
            raise ValueError(f"a side's notes: text: {side!r}")
    if not all(isinstance(line, str) for line in summary.get("lines", [])):
        raise ValueError("lines: text")
    if not isinstance(summary.get("roller") or "", str):
        raise ValueError("roller: text")
    return summary


def game_summary(game_id: str, state: Any) -> dict[str, Any] | None:
    """The open game's public summary with its title, or None for a game without one."""
    entry = registry.find(game_id)
    if entry is None:
        return None
    fn = entry.spectator_function()
    if fn is None:
        return None
    out = dict(check_shape(fn(state)))
    out.setdefault("status", "")
    out.setdefault("lines", [])
    out.setdefault("over", False)
    out.setdefault("winner", None)
    out["title"] = _(entry.tile.title)
    out["game"] = entry.id
    return out
