"""What the Dice statistics screen shows, without Kivy: one card per kind and colour of die
(:func:`card_view`), built from :mod:`companion.dice_stats`. The screen only draws it."""

from __future__ import annotations

import time
from typing import Any

from ..dice_stats import DieStats
from ..i18n import _, ngettext
from .dice_look import DIE_COLOURS, UNKNOWN_COLOUR, die_group_words, face_words

BIASED_RGBA = (1.0, 0.62, 0.15, 1)
FAIR_RGBA = (0.20, 0.72, 0.35, 1)
UNDECIDED_RGBA = (0.75, 0.77, 0.82, 1)


def card_view(s: DieStats, now: float | None = None) -> dict[str, Any]:
    """One die's card: title, counts line, histogram bars (face, count, height 0..1 of the
    tallest bar or of the fair share, whichever is higher), the fair share's height, the
    verdict and its colour, the detail line and the reset state."""
    top = max([*s.counts, s.expected, 1.0])
    title = die_group_words(s.kind, s.colour)
    counted = ngettext("{count} throw", "{count} throws", s.throws).format(count=s.throws)
    if s.not_clean:
        counted += " · " + ngettext(
            "{count} reading not sure, not counted", "{count} readings not sure, not counted",
            s.not_clean).format(count=s.not_clean)
    if not s.faces_known:
        counted += " · " + _("faces seen so far")
    since = ""
    if s.since is not None:
        stamp = time.localtime(s.since)
        today = time.localtime(now if now is not None else time.time())
        since = (_("counted since {time}") if stamp[:3] == today[:3]
                 else _("counted since {date}")).format(
            time=time.strftime("%H:%M", stamp), date=time.strftime("%Y-%m-%d", stamp))
    p = s.p_value
    return {
        "key": s.key,
        "title": title,
        "counted": counted,
        "since": since,
        "bars": [{"face": face_words(f), "count": c, "height": c / top}
                 for f, c in zip(s.faces, s.counts)],
        "fair": s.expected / top if s.throws else 0.0,
        "die_rgba": DIE_COLOURS.get(s.colour or "", UNKNOWN_COLOUR),
        "verdict": s.verdict(face_words),
        "verdict_rgba": UNDECIDED_RGBA if p is None else (BIASED_RGBA if s.biased else FAIR_RGBA),
        "detail": s.detail(),
        "can_undo": s.since is not None,
    }
