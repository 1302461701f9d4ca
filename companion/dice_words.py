"""Dice in players' words, in the current language: "red d12 7", "CLAW", "Tile under you",
"(cocked)". Used by the journal's roll sentences, the dice panel, the live view and
``companion dice-stats`` (no Kivy here; ``companion.app.dice_look`` adds the colours)."""

from __future__ import annotations

from .i18n import N_, _

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
        words = f"{die_group_words(kind, colour)} {face}"
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
