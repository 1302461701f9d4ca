"""What the live view shows, built from the last tower roll and the open game (Kivy-free):
:func:`compose` gives the dict :class:`companion.live.server.LiveState` publishes.

    {"lang": "fr", "words": {...the page's words...},
     "roll": {"dice": [{"words": "7", "rgb": "rgb(...)", "ink": "...", "clean": true,
                        "title": "red d12 7"}, ...],
              "total": 19, "counts": [["7", 2], ["12", 1]], "who": "at 21:05"} | null,
     "sample": {...a roll of the same shape...},
     "game": {...companion.live.summary...} | null}
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..app.dice_look import DIE_COLOURS, UNKNOWN_COLOUR
from ..dice_words import die_words, face_words
from ..i18n import _, language
from .page import page_words

NUMBERED = ("d6", "d6pips", "d12")   # kinds whose faces add up to a total
SAMPLE = ({"kind": "d12", "colour": "red", "face": "7", "status": "clean"},
          {"kind": "d12", "colour": "red", "face": "12", "status": "clean"},
          {"kind": "d12", "colour": "yellow", "face": "3", "status": "clean"},
          {"kind": "kotd", "colour": "black", "face": "CLAW", "status": "clean"},
          {"kind": "kotd", "colour": "black", "face": "CLAW", "status": "clean"},
          {"kind": "kotd", "colour": "black", "face": "HEART", "status": "cocked"})


def _css(rgba: Sequence[float]) -> str:
    r, g, b = (round(255 * c) for c in rgba[:3])
    return f"rgb({r},{g},{b})"


def roll_view(dice: Sequence[Mapping[str, Any]], at: float | None = None,
              who: str | None = None) -> dict[str, Any]:
    """One throw as the page draws it: each die in its colour with its face in players'
    words (a die not read cleanly is marked unsure and left out of the total and counts)."""
    out = []
    counts: Counter[str] = Counter()
    total, numbered = 0, False
    for d in dice:
        colour = d.get("colour")
        clean = d.get("status", "clean") == "clean" and d.get("face") is not None
        words = face_words(d.get("face")) if clean else "?"
        out.append({"words": words, "rgb": _css(DIE_COLOURS.get(colour or "", UNKNOWN_COLOUR)),
                    "ink": "#141418" if colour in ("yellow", "white") else "#ffffff",
                    "clean": clean, "title": die_words(dict(d))})
        if clean:
            counts[words] += 1
            face = str(d.get("face"))
            if d.get("kind") in NUMBERED and face.isdigit():
                total += int(face)
                numbered = True
    when = _("at {time}").format(time=time.strftime("%H:%M", time.localtime(at))) if at else ""
    return {"dice": out, "total": total if numbered else None,
            "counts": [[w, n] for w, n in counts.most_common()],
            "who": " · ".join(p for p in (who, when) if p)}


def compose(roll: Sequence[Mapping[str, Any]] | None, roll_at: float | None,
            game: dict[str, Any] | None, who: str | None = None) -> dict[str, Any]:
    """The live view's state: the last roll (None before the first), a sample roll, the open
    game's public summary (None without an open game)."""
    if who is None and game is not None and game.get("roller"):
        who = _("thrown by {name}").format(name=game["roller"])
    return {"lang": language(), "words": page_words(),
            "roll": roll_view(roll, roll_at, who) if roll else None,
            "sample": roll_view(SAMPLE, None, _("Sample roll")),
            "game": game}
