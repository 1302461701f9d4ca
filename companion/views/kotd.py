"""The King of Tokyo Duel screen's view: the two Monsters, the tracks, the dice and what
Resolve would do, as plain values."""

from __future__ import annotations

from typing import Any

from ..games import kotd as k
from ..i18n import _, ngettext
from ..session import Session
from .common import undo_view

BONUS_MARK = {"none": "", "damage": "-1", "heal": "+H", "energy": "+E", "dice_token": "+T"}


def resolution_preview(state: k.KotdState) -> list[str]:
    """What Resolve will do, line by line (the same function the rules apply)."""
    return k.resolve(state)[1]


def kotd_view(session: Session[Any], typed: list[str]) -> dict[str, Any]:
    s: k.KotdState = session.state
    me = s.monsters[s.current]
    free = [i for i, d in enumerate(s.dice) if not d.kept] if s.dice else list(range(s.n_dice))
    need = len(s.pending) if s.pending else (len(free) if s.rolls < k.MAX_ROLLS else 0)
    if s.phase == "over":
        status = _("{monster} wins: {reason}").format(monster=s.monsters[s.winner or 0].name,
                                                       reason=s.win_reason)
    elif s.phase == "buy":
        status = _("{monster}: buy cards or gain 1 energy, then end the turn").format(
            monster=me.name)
    elif s.pending:
        status = ngettext("{count} die not read cleanly: re-roll it through the tower, or tap "
                          "the '?' die and its face",
                          "{count} dice not read cleanly: re-roll them through the tower, or "
                          "tap the '?' die and its face", len(s.pending)).format(
            count=len(s.pending))
    elif s.rolls == 0:
        status = ngettext("{monster}: throw {count} die", "{monster}: throw {count} dice",
                          s.n_dice).format(monster=me.name, count=s.n_dice)
    elif s.rolls < k.MAX_ROLLS:
        status = ngettext("{monster}: tap dice to keep them, throw the other {count}, or resolve",
                          "{monster}: tap dice to keep them, throw the other {count}, or resolve",
                          len(free)).format(monster=me.name, count=len(free))
    else:
        status = _("{monster}: three rolls done, resolve").format(monster=me.name)
    monsters = []
    for i, m in enumerate(s.monsters):
        monsters.append({
            "name": m.name, "player": m.player, "hp": m.hp, "max_hp": m.max_hp, "energy": m.energy,
            "tokens": m.dice_tokens, "power": _(m.power), "active": i == s.current and s.phase != "over",
            "winner": s.winner == i,
            "can": {key: session.allows("kotd.adjust", player=i, what=what, delta=d)
                    for key, what, d in (("hp_minus", "hp", -1), ("hp_plus", "hp", 1),
                                         ("en_minus", "energy", -1), ("en_plus", "energy", 1),
                                         ("tok_minus", "dice_tokens", -1),
                                         ("tok_plus", "dice_tokens", 1))},
            "can_pull": [session.allows("kotd.pull", track=t, toward=i, cells=1) for t in k.TRACKS],
        })
    tracks = []
    for t in s.tracks:
        tracks.append({"name": t.name, "pawn": t.pawn,
                       "cells": [(c.zone, BONUS_MARK[c.bonus] + ("K" if c.king else ""),
                                  c.token or "") for c in t.cells]})
    dice = [{"face": d.face, "kept": d.kept, "index": i,
             "pending": d.face is None} for i, d in enumerate(s.dice)]
    # the rules' answer to each action, asked once: it enables the button and, greyed, is
    # what a tap on it says
    why = {"spend": session.why_not("kotd.spend_tokens", count=1),
           "extra": session.why_not("kotd.extra_die"), "resolve": session.why_not("kotd.resolve"),
           "gain": session.why_not("kotd.gain_energy"), "sweep": session.why_not("kotd.sweep"),
           "end": session.why_not("kotd.end_turn")}
    view = {
        "title": (_("Turn {turn} · {monster} · roll {roll}/{rolls}") if s.phase == "roll" else
                  _("Turn {turn} · {monster}")).format(turn=s.turn, monster=me.name,
                                                       roll=s.rolls, rolls=k.MAX_ROLLS),
        "status": status, "phase": s.phase, "rolls": s.rolls, "n_dice": s.n_dice,
        "monsters": monsters, "tracks": tracks, "dice": dice,
        "need": need, "typed": list(typed)[:need],
        **{f"can_{key}": not refused for key, refused in why.items()},
        "why": why,
        "free_energy": s.rules >= 2 and k.free_energy_due(s),
        "log_lines": [e.text for e in session.log(last=40)][::-1],
        **undo_view(session),
        "resolution": resolution_preview(s) if s.phase == "roll" and s.rolls and not s.pending else [],
    }
    return view
