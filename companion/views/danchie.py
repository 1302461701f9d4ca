"""Danchie Go's screen view: each Dasher's line and state, the Tiles' colours and the spawn
die's faces in players' words."""

from __future__ import annotations

from ..games import danchie as dg
from ..i18n import N_, _, ordinal

TILE_RGBA = {"red": (0.8, 0.22, 0.2, 1), "blue": (0.2, 0.42, 0.85, 1),
             "green": (0.2, 0.6, 0.3, 1), "yellow": (0.85, 0.7, 0.15, 1)}


OTHER_TILE = (0.45, 0.45, 0.5, 1)


MEANING_SHORT = {"tile_under_you": N_("Tile under you"), "power_up_on_spawn": N_("Power-Up on Spawn"),
                 "tile_on_spawn": N_("Tile on Spawn"), "no_spawn": N_("No spawn")}


# where a spawn came from, and the obstacle sets' names
OTHER_WORDS = (N_("tower"), N_("hand"), N_("Standard"), N_("Special"))


def tile_rgba(name: str) -> tuple[float, float, float, float]:
    return TILE_RGBA.get(name.lower(), OTHER_TILE)


def dasher_line(state: dg.DanchieState, i: int) -> str:
    """The second line of a Dasher's row: lap, podium or finish place."""
    d = state.dashers[i]
    if d.finish_place is not None:
        return _("Finished {place} · lap 1 {lap1_place}").format(
            place=ordinal(d.finish_place), lap1_place=ordinal(d.lap1_place or 0))
    if d.lap == 2:
        place = d.lap1_place or 0
        return (_("Lap 2 (lap 1 {place}, podium)") if place <= dg.PODIUM_PLACES else
                _("Lap 2 (lap 1 {place})")).format(place=ordinal(place))
    return _("Lap 1")


def dasher_state(state: dg.DanchieState, i: int) -> str:
    d = state.dashers[i]
    parts = []
    if i == state.current and not state.over and not d.finished:
        parts.append(_("TURN"))
    if d.frozen:
        parts.append(_("FROZEN {turns}").format(turns=d.frozen))
    if d.resting:
        parts.append(_("RESTS 1 turn"))
    return "  ".join(parts)
