"""Colours and words for dice and the tower's link state (shared by .kv rules). The words are
marked for translation: a .kv rule shows them through ``tr._``."""

from __future__ import annotations

from ..dice_words import (  # noqa: F401  (the .kv rules and screens import them from here)
    COLOUR_WORDS,
    FACE_WORDS,
    KIND_WORDS,
    STATUS_WORDS,
    dice_words,
    die_group_words,
    die_words,
    face_words,
)
from ..i18n import N_, _

DIE_COLOURS = {
    "red": (0.78, 0.13, 0.13, 1),
    "yellow": (0.93, 0.76, 0.12, 1),
    "white": (0.92, 0.92, 0.9, 1),
    "black": (0.16, 0.16, 0.18, 1),
}
UNKNOWN_COLOUR = (0.45, 0.47, 0.52, 1)
# Takkure: each coach's colour on the screen is the colour of their dice
TEAM_RGBA = {"red": (0.86, 0.22, 0.2, 1), "yellow": (0.95, 0.78, 0.18, 1)}
# King of Tokyo Duel: each player's colour, and each face's word and colour on a die
PLAYER_RGBA = ((0.85, 0.3, 0.25, 1), (0.25, 0.55, 0.9, 1))
FACE_LOOK = {"CLAW": (N_("CLAW"), (0.75, 0.2, 0.2, 1)), "HEART": (N_("HEART"), (0.85, 0.35, 0.5, 1)),
             "ENERGY": (N_("ENERGY"), (0.2, 0.6, 0.85, 1)), "FAME": (N_("FAME"), (0.9, 0.7, 0.15, 1)),
             "DESTRUCTION": (N_("DESTRUCTION"), (0.5, 0.4, 0.3, 1)),
             "POWER": (N_("POWER"), (0.55, 0.3, 0.75, 1))}
STATE_LOOK = {
    "connected": (N_("Connected"), (0.20, 0.72, 0.35, 1)),
    "connecting": (N_("Connecting…"), (1.0, 0.62, 0.15, 1)),
    "reconnecting": (N_("Reconnecting…"), (1.0, 0.62, 0.15, 1)),
    "not_found": (N_("Not found"), (0.88, 0.18, 0.18, 1)),
    "busy": (N_("Port busy"), (0.88, 0.18, 0.18, 1)),
    "mismatch": (N_("Wrong protocol"), (0.88, 0.18, 0.18, 1)),
    "stopped": (N_("Off"), (0.38, 0.40, 0.45, 1)),
}


# the simulated tower's dice sets, by the game they are thrown for
DICE_SET_NAMES = {"takkure": N_("Takkure (3 red and 3 yellow d12)"),
                  "kotd": N_("King of Tokyo Duel (6 dice)"), "d6": N_("two d6"),
                  "spawn": N_("Danchie Go spawn die")}
def dice_set_name(name: str) -> str:
    """A dice set of the simulated tower by its game (the set's id if it is not known)."""
    return _(DICE_SET_NAMES[name]) if name in DICE_SET_NAMES else name


def state_look(state: str) -> tuple[str, tuple[float, float, float, float]]:
    return STATE_LOOK.get(state, (state or N_("Off"), (0.38, 0.40, 0.45, 1)))
