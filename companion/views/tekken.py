"""The TEKKEN screen's view: the two fighters, the String's slots, the floor and the log, as
plain values."""

from __future__ import annotations

from typing import Any

from ..games.tekken import TekkenState
from ..i18n import N_, _
from ..session import Session
from .common import undo_view

DEFAULT_RAGE_NAMES = (N_("Rage card A"), N_("Rage card B"))


def cracked_floor_in_force(session: Session[Any]) -> bool:
    """Whether the last Strike dealt in this String had the defender on Cracked Floor (the
    switch stays as the table set it for the rest of the String)."""
    s = session.state
    key = (s.round, s.string_no, s.offensive)
    actions = session.actions
    for n in range(len(actions) - 1, -1, -1):
        before = session.state_before(n)
        if (before.round, before.string_no, before.offensive) != key:
            break
        if actions[n].type == "tekken.strike":
            return bool(actions[n].data.get("cracked_floor"))
    return False


def confirm_text(before: TekkenState, after: TekkenState) -> str | None:
    """The question to ask before an action that ends a Round (None: no need to ask)."""
    if before.phase != "fight" or after.phase == "fight":
        return None
    ko = [f.name for f in after.fighters if f.hp <= 0]
    if len(ko) == 1:
        text = _("This ends round {round}: {fighter} is KO.").format(round=before.round,
                                                                     fighter=ko[0])
    else:
        text = _("This ends round {round}: {fighter} and {other} are both KO (double KO).").format(
            round=before.round, fighter=ko[0], other=ko[-1])
    if after.phase == "game_over":
        text += " " + (_("The game ends in a draw.") if after.winner is None else
                       _("{fighter} wins the game.").format(
                           fighter=after.fighters[after.winner].name))
    return text + "\n" + _("Confirm?")


def fighter_view(state: TekkenState, i: int, rage_names: tuple[str, str],
                 session: Session[Any]) -> dict[str, Any]:
    f = state.fighters[i]
    if f.rage == "unchosen":
        rage_mode, rage_text = "pick", _("Pick secret Rage card")
    elif f.rage == "chosen":
        rage_mode, rage_text = "chosen", _("Rage card chosen")
    else:
        card = _(rage_names[f.rage_card or 0])
        rage_mode = f.rage
        rage_text = (_("Rage: {card} — REVEALED") if f.rage == "revealed" else
                     _("Rage: {card} — used")).format(card=card)
    fight = state.phase == "fight"
    return {
        "player": i, "fighter_name": f.name, "player_name": f.player,
        "hp": f.hp, "max_hp": f.max_hp,
        "hp_text": f"{f.hp} / {f.max_hp}", "red_zone": f.in_red_zone,
        "heat": f.heat, "heat_text": {"charged": _("Heat: charged"), "active": _("Heat: ACTIVE"),
                                      "discharged": _("Heat: discharged")}[f.heat],
        "rage_mode": rage_mode, "rage_text": rage_text,
        "rage_names": [_(n) for n in rage_names],
        "punishment": f.punishment, "stun": f.stun, "knocked_down": f.knocked_down,
        "rounds_won": f.rounds_won, "rounds_to_win": state.rounds_to_win,
        "is_offensive": i == state.offensive and fight,
        "can_minus": fight and session.allows("tekken.adjust_hp", player=i, delta=-1,
                                      reason="manual"),
        "can_plus": fight and session.allows("tekken.adjust_hp", player=i, delta=1,
                                     reason="manual"),
        "can_pick_rage": fight and f.rage == "unchosen",
    }


def tekken_view(session: Session[Any], rage_names: list[tuple[str, str]]) -> dict[str, Any]:
    """Everything the game screen shows, as plain values."""
    s: TekkenState = session.state
    off, dfd = s.fighters[s.offensive], s.fighters[s.defender]
    fight = s.phase == "fight"
    slots = list(s.slots) + ["free"] * s.free_slots
    off_punish = off.punishment > 0
    # the rules' answer to each action, asked once: it enables the button and, greyed, is
    # what a tap on it says
    why = {"hit": session.why_not("tekken.card", result="hit"),
           "blocked": session.why_not("tekken.card", result="blocked"),
           "heat": session.why_not("tekken.heat"),
           "wall": session.why_not("tekken.wall", kind="regular"),
           "blast": session.why_not("tekken.wall", kind="blasting"),
           "sweep": session.why_not("tekken.sweep"), "stun": session.why_not("tekken.stun"),
           "rage": session.why_not("tekken.rage")}
    view: dict[str, Any] = {
        "fighters": [fighter_view(s, i, rage_names[i], session) for i in (0, 1)],
        "header": _("{offensive}'s String (Offensive) – {defender} defends").format(
            offensive=off.name, defender=dfd.name) if fight else
                  (_("Game over") if s.phase == "game_over" else
                   _("Round {round} is over").format(round=s.round)),
        "round_text": _("Round {round} · String {string}").format(round=s.round,
                                                                  string=s.string_no),
        "slot_kinds": slots,
        "heat_note": _("Heat active: 4th slot") if s.heat_this_string else "",
        "card_text": _("Punishment card (unblockable)") if off_punish else _("Card connects"),
        "card_punishes": off_punish,     # the look follows the state, never the words
        "can_hit": not why["hit"],
        "can_block": not why["blocked"],
        "can_heat": not why["heat"],
        "show_end": fight and s.free_slots == 0,
        "can_end": session.allows("tekken.end_string"),
        "resolving": s.resolving,
        "can_wall": not why["wall"],
        "can_blast": not why["blast"],
        "can_sweep": not why["sweep"],
        "can_stun": not why["stun"],
        "can_rage": off.rage == "revealed" and not why["rage"],
        "why": why if fight else {},
        "has_floor": s.floor is not None,
        "stage_text": s.stage,
        "side_text": "", "tokens": [], "floor_text": "", "breaks": 0,
        "phase": s.phase, "round": s.round,
        "offensive_name": off.name,
    }
    if s.floor is not None:
        fl = s.floor
        shown = ["cracked" if c else "empty" for c in fl.order[:fl.revealed]]
        view.update({
            "side_text": fl.sides[fl.side],
            "tokens": shown + ["hidden"] * fl.face_down,   # never fl.order[fl.revealed:]
            "floor_text": _("cracked {shown} of {total}").format(shown=fl.cracked_shown,
                                                                 total=fl.cracked_total),
            "breaks": fl.breaks,
        })
    log = [e.text for e in session.log(last=200)]  # the panel costs the same at any length
    view["log_lines"] = log[::-1]
    view.update(undo_view(session))
    if s.phase == "round_over":
        names = [s.fighters[i].name for i in s.last_round_winners]
        view["result_title"] = (_("Round {round} to {fighter}").format(round=s.round,
                                                                       fighter=names[0])
                                if len(names) == 1 else
                                _("Round {round}: double KO, both win it").format(round=s.round))
    elif s.phase == "game_over":
        view["result_title"] = (_("Draw") if s.winner is None else
                                _("{fighter} wins the game").format(
                                    fighter=s.fighters[s.winner].name))
    else:
        view["result_title"] = ""
    a, b = s.fighters
    view["score_text"] = f"{a.name} {a.rounds_won} – {b.rounds_won} {b.name}"
    return view
