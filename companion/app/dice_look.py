"""Colours and words for dice and the tower's link state (shared by .kv rules). The words are
marked for translation: a .kv rule shows them through ``tr._``."""

from __future__ import annotations

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
COLOUR_WORDS = {"red": N_("red"), "yellow": N_("yellow"), "white": N_("white"),
                "black": N_("black")}
# a die's face as players name it: King of Tokyo Duel's symbols, Danchie Go's spawn results
FACE_WORDS = {"CLAW": N_("CLAW"), "HEART": N_("HEART"), "ENERGY": N_("ENERGY"), "FAME": N_("FAME"),
              "DESTRUCTION": N_("DESTRUCTION"), "POWER": N_("POWER"),
              "TILE_UNDER_YOU": N_("Tile under you"), "POWER_UP_ON_SPAWN": N_("Power-Up on Spawn"),
              "TILE_ON_SPAWN": N_("Tile on Spawn"), "TILE_ON_SPAWN_2": N_("Tile on Spawn"),
              "NO_SPAWN": N_("No spawn"), "NO_SPAWN_2": N_("No spawn")}
STATUS_WORDS = {"cocked": N_("cocked"), "unreadable": N_("unreadable")}
KIND_WORDS = {"d6": N_("d6"), "d6pips": N_("d6"), "d12": N_("d12"),
              "kotd": N_("King of Tokyo Duel die"), "spawn": N_("spawn die")}


def dice_set_name(name: str) -> str:
    """A dice set of the simulated tower by its game (the set's id if it is not known)."""
    return _(DICE_SET_NAMES[name]) if name in DICE_SET_NAMES else name


def face_words(face: object) -> str:
    if face is None:
        return "?"
    text = str(face)
    if text in FACE_WORDS:
        return _(FACE_WORDS[text])
    return text.replace("_", " ").capitalize() if "_" in text else text


def die_words(die: dict) -> str:
    """One die as players say it: "red d12 7", "CLAW", "Tile under you", with "(cocked)"
    when it was not read cleanly."""
    face = face_words(die.get("face"))
    kind, colour = die.get("kind"), die.get("colour")
    if kind in ("d6", "d12"):
        words = f"{_(COLOUR_WORDS[colour])} {kind} {face}" if colour in COLOUR_WORDS else f"{kind} {face}"
    else:
        words = face
    status = die.get("status", "clean")
    if status != "clean":
        words += f" ({_(STATUS_WORDS[status]) if status in STATUS_WORDS else status})"
    return words


def die_group_words(kind: str, colour: str | None) -> str:
    """A kind of die as players name it: "red d12", "black King of Tokyo Duel die"."""
    name = _(KIND_WORDS[kind]) if kind in KIND_WORDS else kind
    if colour not in COLOUR_WORDS:
        return name
    # the words' order is the language's: "red d12", "d12 rouge"
    return _("{colour} {kind}").format(colour=_(COLOUR_WORDS[colour]), kind=name)


def dice_words(dice: list[dict]) -> str:
    """A throw in players' words, die by die."""
    return ", ".join(die_words(d) for d in dice)


def state_look(state: str) -> tuple[str, tuple[float, float, float, float]]:
    return STATE_LOOK.get(state, (state or N_("Off"), (0.38, 0.40, 0.45, 1)))
