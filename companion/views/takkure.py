"""The Takkure match screen's view: both teams' cards, the roll panel and the time dashboard
as plain values (the session and the roll panel in). Buttons are enabled only when
``session.preview`` accepts their action, so the rules engine stays the only judge."""

from __future__ import annotations

from typing import Any

from ..errors import IllegalActionError
from ..games import takkure as tk
from ..games.takkure import action_words
from ..games.takkure_panel import TEAM_COLOURS, FollowUp, RollPanel
from ..i18n import _
from ..session import Session
from .common import undo_view

SLOTS = tk.MAX_FATIGUE   # the 4th slot is Max Fatigue: filling it is an injury


def confirm_text(before: tk.TakkureState, after: tk.TakkureState) -> str | None:
    """The question to ask before an action that injures a player or ends a half."""
    lines = []
    for t in (0, 1):
        for b, a in zip(before.teams[t].players, after.teams[t].players):
            if b.status == "field" and a.status == "injured":
                why = _("Max Fatigue (a 4th fatigue token)") if a.injuries[-1] == "Max Fatigue" \
                    else _("wounds reach BDY {bdy}").format(bdy=int(b.stat("bdy")))
                lines.append(_("{player} is injured: {why}. Off the field, then the injury "
                               "roll.").format(player=a.name, why=why))
    if before.phase == "play" and after.phase == "halftime":
        lines.append(_("This ends the 1st half."))
    if before.phase != "over" and after.phase == "over":
        lines.append(_("This ends the match: {result}.").format(result=tk.RULES.summary(after)))
    return ("\n".join(lines) + "\n" + _("Confirm?")) if lines else None


def _stats_markup(p: tk.Player) -> str:
    def one(label: str, key: str) -> str:
        value, base = p.effective(key), p.stat(key)
        printed = dict(p.base)[key]
        text = f"{value:g}"
        if value != printed:
            text = f"[color=ffa040]{text}[/color]"
        elif base != printed:
            text = f"[color=ffa040]{text}[/color]"
        return f"{label} [b]{text}[/b]"

    mov = _("MOV") + f" [b]{p.effective('mov_attack'):g}/{p.effective('mov_defense'):g}[/b]"
    bac = _("BaC") + f" [b]{p.effective('bac'):g}/{p.effective('bac_try'):g}[/b]"
    if (p.effective("bac"), p.effective("bac_try")) != (dict(p.base)["bac"], dict(p.base)["bac_try"]):
        bac = _("BaC") + f" [b][color=ffa040]{p.effective('bac'):g}/{p.effective('bac_try'):g}[/color][/b]"
    return "  ".join([one(_("STR"), "str"), one(_("REF"), "ref"), one(_("INT"), "int"), bac, mov,
                      one(_("BDY"), "bdy"), one(_("PRT"), "prt")])


def card_view(session: Session[Any], panel: RollPanel, team: int, index: int) -> dict[str, Any]:
    s: tk.TakkureState = session.state
    p = s.player(team, index)
    attacking = s.attacker == team and s.phase == "play"
    fatigue = (["active" if f else "inactive" for f in p.fatigue] + ["permanent"] * p.permanent)
    fatigue = (fatigue + ["empty"] * SLOTS)[:max(SLOTS, len(fatigue))]
    has_ball = s.ball == (team, index)
    who = {"team": team, "player": index}
    ball_event: tuple[str, dict[str, Any]]
    if has_ball:
        ball_text, ball_event = _("Drop"), ("takkure.ball", {})
    elif s.attacker == team:
        ball_text, ball_event = _("Ball"), ("takkure.ball", who)
    else:
        ball_text, ball_event = _("Steal"), ("takkure.steal", who)
    notes = []
    if p.skills_lost:
        notes.append(_("lost: {skills}").format(skills=", ".join(_(k) for k in p.skills_lost)))
    if p.one_mov_action:
        notes.append(_("1 MOV action"))
    if s.activation == (team, index) and s.phase == "play":
        acts = ", ".join(action_words(a) for a in s.acts) if s.acts else _("no action yet")
        notes.append((_("ACTIVE: {actions} (BDY roll first)") if p.needs_bdy_roll and s.bdy != 1
                      else _("ACTIVE: {actions}")).format(actions=acts))
    if p.injuries and p.status == "field":
        notes.append(_("injuries: {injuries}").format(injuries=", ".join(_(i) for i in p.injuries)))
    if p.skill_tokens:
        notes.append(_("team skill tokens {count}").format(count=p.skill_tokens))
    injuries = ", ".join(_(i) for i in p.injuries)
    if p.status == "injured":
        status_text = (_("Injured: roll on the injuries table") if p.injury_pending else
                       _("Injured ({injuries}): back at a kick-off").format(injuries=injuries))
    elif p.status == "out":
        status_text = _("Out of the game ({injuries})").format(injuries=injuries)
    else:
        status_text = ""
    return {
        "team": team, "index": index, "pname": p.name, "position": _(p.position),
        "stats_text": _stats_markup(p), "fatigue": fatigue,
        "wounds_text": _("W {wounds}/{bdy}").format(wounds=p.wounds, bdy=int(p.stat("bdy"))),
        "grounded": p.grounded, "has_ball": has_ball, "activations": p.activations,
        "status": p.status, "status_text": status_text, "injury_pending": p.injury_pending,
        "picked": panel.picked(s, team, index), "attacking": attacking,
        "note": "; ".join(notes),
        "can_act": attacking and session.allows("takkure.activate", **who),
        "can_gain": session.allows("takkure.fatigue", **who, op="gain"),
        "can_wound": session.allows("takkure.wound", **who),
        "can_ground": session.allows("takkure.grounded", **who, value=not p.grounded),
        "ball_text": ball_text, "ball_event": ball_event,
        "can_ball": session.allows(ball_event[0], **ball_event[1]),
        "halftime": s.phase == "halftime",
        "can_rest_active": session.allows("takkure.halftime_rest", **who, active=True),
        "can_rest_inactive": session.allows("takkure.halftime_rest", **who, active=False),
        "colour": TEAM_COLOURS[team],
    }


def panel_view(session: Session[Any], panel: RollPanel) -> dict[str, Any]:
    s: tk.TakkureState = session.state
    rows = []
    try:
        slots = panel.slots(s)
        problem = ""
    except IllegalActionError as exc:   # e.g. a pass from the ground beyond 8"
        slots, problem = [], str(exc)
    for roller, faces in slots:
        rows.append({"team": roller.team, "player": roller.player,
                     "text": _("{who} {action}: {check}").format(
                         who=roller.check.who, action=action_words(roller.part.action),
                         check=roller.check.text()),
                     "faces": faces, "colour": TEAM_COLOURS[roller.team],
                     # Superstars buttons for a Teriomorph while the team has a token
                     "superstars": s.teams[roller.team].team_skill == "teriomorphs"
                     and s.teams[roller.team].skill_tokens > 0})
    missing = panel.missing(s)
    explanation = ""
    follow: list[FollowUp] = []
    if not problem:
        try:
            explanation = panel.explain(s)
        except IllegalActionError as exc:
            problem = str(exc)
    if not explanation and not problem:
        problem = (_("To do: {missing}").format(missing="; ".join(missing)) if missing
                   else _("Type or roll the dice"))
    needs_distance = any(p.distance for p in panel.kind.parts)
    return {
        "kind_title": _(panel.kind.title), "rows": rows,
        "kind_hint": _(panel.kind.hint) if panel.kind.hint else "",
        "explanation": explanation, "prompt": problem,
        "can_record": bool(explanation) and panel.ready(s),
        "pressure": panel.pressure,
        "shows_pressure": any(p.pressure for p in panel.kind.parts),
        "needs_distance": needs_distance,
        "distance_text": "" if panel.distance is None else f"{panel.distance:g}",
        "shows_ground": any(p.distance == "pass" for p in panel.kind.parts),
        "from_ground": panel.ground_pass(s),
        "follow": follow,
        "throw_count": sum(n for _team, n in panel.to_throw(s)),
    }


def takkure_view(session: Session[Any], panel: RollPanel) -> dict[str, Any]:
    s: tk.TakkureState = session.state
    a, b = s.teams
    phase_text = tk.phase_text(s)
    why_take = session.why_not("takkure.take_tokens")
    view: dict[str, Any] = {
        "score_text": f"{a.name} [b]{a.score} – {b.score}[/b] {b.name}",
        "half_text": _("Half {half}").format(half=s.half),
        "phase": s.phase, "phase_text": phase_text,
        "box": s.box, "time_active": list(s.time_active),
        "pool": s.pool if s.phase == "play" else 0,
        "attacker": -1 if s.attacker is None else s.attacker,
        "team_names": [a.name, b.name],
        "team_notes": [_team_note(s, t) for t in (0, 1)],
        "cards": [[card_view(session, panel, t, i) for i in range(len(s.teams[t].players))]
                  for t in (0, 1)],
        "can_take": not why_take,
        "why_take": why_take,   # what the greyed button says
        "can_kick_out": session.allows("takkure.kick_out"),
        "can_kick": [session.allows("takkure.kickoff", kicking=t) for t in (0, 1)],
        "can_second_half": session.allows("takkure.second_half"),
        "panel": panel_view(session, panel),
    }
    log = [e.text for e in session.log(last=40)]
    view["log_lines"] = log[::-1][:40]
    view.update(undo_view(session))
    return view


def _team_note(s: tk.TakkureState, t: int) -> str:
    team = s.teams[t]
    bits = [_("red dice") if TEAM_COLOURS[t] == "red" else _("yellow dice")]
    if s.attacker == t and s.phase == "play":
        bits.insert(0, _("ATTACK"))
    if team.team_skill == "teriomorphs":
        bits.append(_("Superstars tokens {count}").format(count=team.skill_tokens))
    elif team.team_skill == "yamato":
        bits.append(_("Unwavering Honor"))
    return " · ".join(bits)
