"""Where the dice tower's news goes, decided without Kivy (issue 27): :func:`route` names the
part of the app each link event is for, and :func:`roll_fate` says what became of a throw
(taken by the open game's screen, written in its log, arriving late, or used by nobody) in
players' words and whether it is shown over the screen. ``CompanionApp`` only carries these
decisions out on the GUI thread."""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.host import events as ev

from .i18n import _

# (event type, route): the first that matches
_ROUTES: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (ev.Connected, "connected"),
    (ev.RollEvent, "roll"),
    (ev.TeachPicture, "teach_picture"),
    (ev.TeachStatus, "teach_status"),
    (ev.TraySnapshot, "tray"),
    (ev.DiePicture, "die_picture"),
    (ev.RollsDropped, "rolls_dropped"),
    (ev.RollsMissing, "missing"),
    (ev.DeviceReset, "reset"),
    ((ev.LinkLost, ev.Reconnecting), "retrying"),
    ((ev.PortNotFound, ev.PortBusy, ev.HandshakeTimeout), "no_tower"),
    (ev.ProtocolMismatch, "mismatch"),
)


def route(event: object) -> str:
    """The route of a link event: "connected", "roll", "teach_picture", "teach_status",
    "tray", "die_picture" (a die of a roll to check), "rolls_dropped", "missing" (rolls the
    tower is still to resend: only logged; those it lost come as "rolls_dropped"), "reset",
    "retrying", "no_tower", "mismatch", or "unknown" (an event no part of the app shows:
    logged as a warning)."""
    for kind, name in _ROUTES:
        if isinstance(event, kind):
            return name
    return "unknown"


@dataclass(frozen=True)
class RollFate:
    note: str       # what became of the throw, in a sentence
    banner: bool    # shown over the screen: the player is not looking at the dice panel


def unused_note(game_title: str | None, plays_with_dice: bool) -> str:
    """A throw no game takes, in a sentence (``game_title``: the open game's, translated;
    None: no game is open)."""
    if game_title is None:
        return _("No game is open: these dice are only in the dice history")
    if not plays_with_dice:
        return _("Not used: {game} is played without dice").format(game=game_title)
    return _("Not used: these are not {game}'s dice").format(game=game_title)


def roll_fate(game_title: str | None, plays_with_dice: bool, *, recorded: bool, taken: bool,
              late: bool, on_dice_panel: bool) -> RollFate:
    """What became of a throw. ``recorded``: written in the open game's journal; ``taken``:
    its screen used it; ``late``: from before a restart or a reconnect (never the throw on
    the table now: always shown, never offered to a screen)."""
    if late:
        note = (_("Arrived late; written in the {game} game's log").format(game=game_title)
                if recorded else unused_note(game_title, plays_with_dice))
        return RollFate(note, True)
    if taken:
        return RollFate(_("Taken by the {game} game").format(game=game_title), False)
    if recorded:
        note = _("Written in the {game} game's log; nothing on its screen was waiting for "
                 "these dice").format(game=game_title)
    else:
        note = unused_note(game_title, plays_with_dice)
    return RollFate(note, not on_dice_panel)
