"""Takkure: the pure rules engine of the match tracker.

Follows ``shared/rules/takkure.md`` (rulebook ``shared/seeds/takkure.en.txt``). The companion
tracks what coaches otherwise keep with tokens: fatigue (active, inactive, permanent), wounds,
grounded, the ball, activation tokens, the time dashboard, halves, score, injuries and their
lasting stat changes, and team skill tokens. Moves on the pitch stay on the pitch.

Teams are numbered 0 and 1; players by their line-up index 0..3 within a team. Every state is
a frozen value. Decisions where the rulebook is silent or unclear are marked ``DECISION`` and
listed in docs/events.md; each has a test.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import IllegalActionError
from ..i18n import N_, _, ngettext
from ..registry import ConfigFile, GameEntry, HomeTile
from . import takkure_dice as dice
from .base import RULES_EDITION, evolve, rules_edition

POSITIONS = (N_("Wing"), N_("Scrum-Half"), N_("Full-Back"), N_("Forward"))
# a player card's printed values, as the YAML names them (``defaults`` lists those that are ours)
CARD_VALUES = ("mov", "bac", "str", "ref", "int", "prt", "bdy", "base_mm", "positions",
               "position_skill")
POSITION_SKILLS = (N_("Side step"), N_("Precise Pass"), N_("Onslaught"), N_("Defensive Vision"),
                   N_("Expert Tackler"))
TEAM_SKILLS = ("yamato", "teriomorphs", "none")
STATS = ("mov_attack", "mov_defense", "bac", "bac_try", "str", "ref", "int", "prt", "bdy")
STAT_NAMES = {"mov_attack": "MOV (attack)", "mov_defense": "MOV (defense)", "bac": "BaC",
              "bac_try": "BaC (try)", "str": "STR", "ref": "REF", "int": "INT", "prt": "PRT",
              "bdy": "BDY"}
FATIGUE_HITS = ("str", "bac", "bac_try", "ref", "int")  # -1 with 3 active fatigue tokens
MAX_FATIGUE = 4
TIME_START_BOX = 5
GRANT = 4
FIRST_ACTIONS = ("MOVE", "STAND UP", "PASS FROM THE GROUND")      # 1.04 ATTACKER'S FIRST ACTION
SECOND_ACTIONS = ("MOVE 2", "PASS", "PICK UP", "DODGE", "BREAK THROUGH", "SCORE A TRY")
MOV_ACTIONS = ("MOVE", "MOVE 2")

# the rulebook's actions (its keywords, in capitals) as a player reads them: the journal and
# the rules keep the English keyword; the screen shows it in the player's language
ACTION_WORDS = {a: a for a in (
    N_("MOVE"), N_("STAND UP"), N_("PASS FROM THE GROUND"), N_("MOVE 2"), N_("PASS"),
    N_("PICK UP"), N_("DODGE"), N_("BREAK THROUGH"), N_("SCORE A TRY"), N_("BDY ROLL"),
    N_("CATCH"), N_("ENDURANCE"), N_("RECEPTION"), N_("INTERCEPTION"), N_("KICK-OFF"),
    N_("REF after a missed TACKLE"), N_("STEAL"), N_("TACKLE"))}


def action_words(action: str) -> str:
    """An action as the player reads it, in their language (an unknown one as it is)."""
    return _(ACTION_WORDS[action]) if action in ACTION_WORDS else action


Phase = Literal["kickoff", "play", "halftime", "over"]
Status = Literal["field", "injured", "out"]

# ----------------------------------------------------------------------------- roster config


@dataclass(frozen=True)
class SkillConfig:
    name: str
    training: bool = False
    text: str = ""


@dataclass(frozen=True)
class PlayerCard:
    """One player card (config). Ranges are ours: the rulebook prints cards, not limits."""

    name: str
    mov: tuple[float, float]
    bac: tuple[int, int]
    str_: int = field(metadata={"key": "str"})     # STR; "str" in the card's YAML
    ref: int
    int_: int = field(metadata={"key": "int"})     # INT; "int" in the card's YAML
    prt: int
    bdy: int
    base_mm: int
    positions: tuple[str, ...]
    position_skill: str
    skills: tuple[SkillConfig, ...] = ()
    defaults: tuple[str, ...] = ()  # fields whose value is ours, not the printed card's
    # the overhead camera's topper on this miniature (docs/vision.md); not part of the card
    marker_id: int | None = None
    marker_height_mm: float = 0.0      # the printed face's height above the table
    marker_side_in: float | None = None  # None: the printed topper's for this base

    @property
    def demo(self) -> bool:
        """A demo player: none of its card values is printed (all listed under defaults),
        shipped so a match can be played before the coach types the real cards in."""
        return set(CARD_VALUES) <= set(self.defaults)

    def validate(self) -> tuple[str, str] | None:
        if not self.name.strip():
            return ("name", _("a player needs a name"))
        if self.marker_id is not None and not 1 <= self.marker_id <= 999:
            return ("marker_id", _("{marker_id} is not a marker id (1 to 999)").format(
                                     marker_id=self.marker_id))
        if not 0 <= self.marker_height_mm <= 200:
            return ("marker_height_mm", _("{marker_height_mm} is out of range (0 to 200 mm)").format(
                                            marker_height_mm=self.marker_height_mm))
        if self.marker_side_in is not None and not 0.2 <= self.marker_side_in <= 4:
            return ("marker_side_in", _("{marker_side_in} is out of range (0.2 to 4 inches)").format(
                                          marker_side_in=self.marker_side_in))
        for i, key in enumerate(self.defaults):
            if key not in CARD_VALUES + ("skills",):
                return (f"defaults[{i}]", _("{key!r} is not a field of a player card").format(key=key))
        for i, value in enumerate(self.mov):
            if not 0 < value <= 12:
                return (f"mov[{i}]", _("{value} is not a movement in inches (above 0, at most 12)").format(
                                         value=value))
        for i, value in enumerate(self.bac):
            if not 1 <= value <= 12:
                return (f"bac[{i}]", _("{value} is out of range (1 to 12)").format(value=value))
        for key, value in (("str", self.str_), ("ref", self.ref), ("int", self.int_),
                           ("bdy", self.bdy)):
            if not 1 <= value <= 12:
                return (key, _("{value} is out of range (1 to 12)").format(value=value))
        if not 0 <= self.prt <= 12:
            return ("prt", _("{prt} is out of range (0 to 12)").format(prt=self.prt))
        if not 20 <= self.base_mm <= 80:
            return ("base_mm", _("{base_mm} mm is not a base size (20 to 80)").format(base_mm=self.base_mm))
        if not self.positions:
            return ("positions", _("list at least one position the player can line up in"))
        for i, pos in enumerate(self.positions):
            if pos not in POSITIONS:
                return (f"positions[{i}]", _("{pos!r} is not a position ({positions})").format(
                                               pos=pos, positions=', '.join(POSITIONS)))
        if self.position_skill not in POSITION_SKILLS:
            return ("position_skill", _("{position_skill!r} is not a skill by position "
                                        "({position_skills})").format(
                                          position_skill=self.position_skill,
                                          position_skills=', '.join(POSITION_SKILLS)))
        return None


@dataclass(frozen=True)
class TeamConfig:
    name: str
    team_skill: str
    players: tuple[PlayerCard, ...] = ()

    def validate(self) -> tuple[str, str] | None:
        if self.team_skill not in TEAM_SKILLS:
            return ("team_skill", _("{team_skill!r} is not a team skill ({team_skills})").format(
                                      team_skill=self.team_skill, team_skills=', '.join(TEAM_SKILLS)))
        names = [p.name for p in self.players]
        for i, name in enumerate(names):
            if name in names[:i]:
                return (f"players[{i}].name", _("{name!r} is listed twice").format(name=name))
        return None

    def player(self, name: str) -> PlayerCard:
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)


@dataclass(frozen=True)
class TakkureConfig:
    """config/takkure.yaml (and the user's roster file)."""

    teams: tuple[TeamConfig, ...]

    def validate(self) -> tuple[str, str] | None:
        names = [t.name for t in self.teams]
        for i, name in enumerate(names):
            if name in names[:i]:
                return (f"teams[{i}].name", _("{name!r} is listed twice").format(name=name))
        return None

    def team(self, name: str) -> TeamConfig:
        for t in self.teams:
            if t.name == name:
                return t
        raise KeyError(name)


def card_data(card: PlayerCard) -> dict[str, Any]:
    """A card as plain data for ``game.start`` (a journal never depends on config later)."""
    return {"name": card.name, "mov": list(card.mov), "bac": list(card.bac), "str": card.str_,
            "ref": card.ref, "int": card.int_, "prt": card.prt, "bdy": card.bdy,
            "base_mm": card.base_mm, "positions": list(card.positions),
            "position_skill": card.position_skill,
            "skills": [{"name": s.name, "training": s.training} for s in card.skills]}


def lineup_setup(team: TeamConfig, lineup: Mapping[str, str]) -> dict[str, Any]:
    """Check a line-up (position -> player name) against the roster; the team's start data.

    One player per position, each allowed there, nobody twice."""
    if set(lineup) != set(POSITIONS):
        missing = [p for p in POSITIONS if p not in lineup]
        extra = [p for p in lineup if p not in POSITIONS]
        raise IllegalActionError(_("{team}: the line-up needs exactly one player per position").format(
                                     team=team.name)
                                 + (_("; missing {missing}").format(
                                         missing=', '.join(missing)) if missing else "")
                                 + (_("; unknown {extra}").format(extra=', '.join(extra)) if extra else ""))
    seen: dict[str, str] = {}
    players = []
    for pos in POSITIONS:
        name = lineup[pos]
        if name in seen:
            raise IllegalActionError(_("{team}: {name} is lined up twice ({seen} and {pos})").format(
                                         team=team.name, name=name, seen=seen[name], pos=pos))
        seen[name] = pos
        try:
            card = team.player(name)
        except KeyError:
            raise IllegalActionError(_("{team}: no player called {name!r} in the roster").format(
                                         team=team.name, name=name)) from None
        if pos not in card.positions:
            raise IllegalActionError(_("{team}: {name} cannot line up as {pos} (card positions: "
                                       "{positions})").format(
                                         team=team.name, name=name, pos=_(pos),
                                         positions=', '.join(_(x) for x in card.positions)))
        players.append({"position": pos, **card_data(card)})
    return {"name": team.name, "team_skill": team.team_skill, "players": players}


# ----------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class Player:
    name: str
    position: str
    base: tuple[tuple[str, float], ...]   # (stat, value) for STATS
    position_skill: str
    skills: tuple[tuple[str, bool], ...]  # (name, training)
    changes: tuple[tuple[str, float], ...] = ()   # lasting changes from injuries
    fatigue: tuple[bool, ...] = ()   # True = active, in the order received
    permanent: int = 0               # Fractured rib tokens: active, never flipped or removed
    wounds: int = 0
    grounded: bool = False
    activations: int = 0             # activation tokens received in the current grant
    status: Status = "field"
    injury_pending: bool = False     # injured: the injury roll is still to be made
    injuries: tuple[str, ...] = ()
    lost_all_skills: bool = False    # Broken skull
    needs_bdy_roll: bool = False     # Fractured vertebrae
    skill_tokens: int = 0            # Yamato team skill tokens are the player's
    halftime_rested: bool = False

    def stat(self, key: str) -> float:
        return dict(self.base)[key] + sum(v for k, v in self.changes if k == key)

    @property
    def active_fatigue(self) -> int:
        return sum(self.fatigue) + self.permanent

    @property
    def fatigue_tokens(self) -> int:
        return len(self.fatigue) + self.permanent

    def effective(self, key: str) -> float:
        """The characteristic with injuries and the 3-active-fatigue -1 applied."""
        value = self.stat(key)
        if key in FATIGUE_HITS and self.active_fatigue >= 3:
            value -= 1
        return value

    @property
    def skills_lost(self) -> tuple[str, ...]:
        """What fatigue or injury switches off (1 active token: position and training skills)."""
        if self.lost_all_skills:
            return (self.position_skill, *[s for s, _ in self.skills])
        if self.active_fatigue >= 1:
            return (self.position_skill, *[s for s, training in self.skills if training])
        return ()

    @property
    def one_mov_action(self) -> bool:
        return self.active_fatigue >= 2


@dataclass(frozen=True, slots=True)
class Team:
    name: str
    team_skill: str
    players: tuple[Player, ...]
    score: int = 0
    skill_tokens: int = 0            # Teriomorphs: the team's (DECISION)


@dataclass(frozen=True, slots=True)
class TakkureState:
    teams: tuple[Team, Team]
    half: int = 1
    phase: Phase = "kickoff"
    box: int = TIME_START_BOX          # both time tokens always share a box
    time_active: tuple[bool, bool] = (True, True)
    attacker: int | None = None
    pool: int = 0                      # activation tokens the attacker holds
    kickoff_by: int | None = None      # who chooses the kicking team now (None: referee roll)
    first_kicker: int | None = None    # the team that kicked off the 1st half
    ball: tuple[int, int] | None = None  # (team, player) carrying; None: loose or not in play
    result: str | None = None          # "0", "1" or "draw" once over
    rules: int = 1                     # rules edition (base.RULES_EDITION)
    activation: tuple[int, int] | None = None  # the active player (the last one activated)
    acts: tuple[str, ...] = ()         # the actions they declared in this activation
    bdy: int = 0                       # Fractured vertebrae's BDY roll: 1 passed, -1 failed

    def player(self, team: int, index: int) -> Player:
        return self.teams[team].players[index]


# ----------------------------------------------------------------------------- helpers


def _fail(message: str) -> IllegalActionError:
    return IllegalActionError(message)


def _int(data: Mapping[str, Any], key: str, lo: int, hi: int) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _fail(_("{key} must be a whole number from {lo} to {hi}, not {value!r}").format(
                        key=key, lo=lo, hi=hi, value=value))
    return value


def _who(state: TakkureState, data: Mapping[str, Any]) -> tuple[int, int]:
    return _int(data, "team", 0, 1), _int(data, "player", 0, len(state.teams[0].players) - 1)


def _set_player(state: TakkureState, team: int, index: int, player: Player) -> TakkureState:
    t = state.teams[team]
    players = t.players[:index] + (player,) + t.players[index + 1:]
    teams = list(state.teams)
    teams[team] = evolve(t, players=players)
    return evolve(state, teams=tuple(teams))


def _set_team(state: TakkureState, team: int, new: Team) -> TakkureState:
    teams = list(state.teams)
    teams[team] = new
    return evolve(state, teams=tuple(teams))


def _on_field(state: TakkureState, team: int, index: int, what: str) -> Player:
    p = state.player(team, index)
    if p.status != "field":
        raise _fail((_("{player} is injured: cannot {what}") if p.status == "injured" else
                     _("{player} is out of the game: cannot {what}")).format(player=p.name,
                                                                            what=what))
    return p


def _injure(state: TakkureState, team: int, index: int, cause: str) -> TakkureState:
    """Off the field, wounds and (non-permanent) fatigue cleared, injury roll pending; an
    injured ball carrier drops the ball (scatter it on the table)."""
    p = state.player(team, index)
    p = evolve(p, status="injured", injury_pending=True, wounds=0, fatigue=(), grounded=False,
               injuries=p.injuries + (cause,))
    state = _set_player(state, team, index, p)
    if state.ball == (team, index):
        state = evolve(state, ball=None)
    return state


def _gain_fatigue(state: TakkureState, team: int, index: int) -> TakkureState:
    """Flip an inactive token if there is one, else add an active one; the 4th is Max
    Fatigue, and Max Fatigue is an injury."""
    p = state.player(team, index)
    if False in p.fatigue:
        i = p.fatigue.index(False)
        return _set_player(state, team, index, evolve(p, fatigue=p.fatigue[:i] + (True,) + p.fatigue[i + 1:]))
    if p.fatigue_tokens + 1 >= MAX_FATIGUE:
        return _injure(state, team, index, _("Max Fatigue"))
    return _set_player(state, team, index, evolve(p, fatigue=p.fatigue + (True,)))


def _wound(state: TakkureState, team: int, index: int, n: int = 1) -> TakkureState:
    p = state.player(team, index)
    tokens = n if state.teams[team].team_skill == "yamato" else 0  # Unwavering Honor
    p = evolve(p, wounds=p.wounds + n, skill_tokens=p.skill_tokens + tokens)
    state = _set_player(state, team, index, p)
    if p.wounds >= p.stat("bdy"):
        state = _injure(state, team, index, "wounds")
    return state


def _grant(state: TakkureState) -> TakkureState:
    """The time procedure when the attacker needs activation tokens."""
    a = state.attacker
    assert a is not None
    active = list(state.time_active)
    box = state.box
    if not active[a]:
        box -= 1
        active = [True, True]
    if box <= 0:
        return _end_half(evolve(state, box=0, time_active=(True, True), pool=0))
    active[a] = False
    players = tuple(evolve(p, activations=0) for p in state.teams[a].players)
    state = _set_team(state, a, evolve(state.teams[a], players=players))
    return evolve(state, box=box, time_active=tuple(active), pool=GRANT)


def _end_half(state: TakkureState) -> TakkureState:
    state = evolve(state, pool=0, ball=None, activation=None, acts=(), bdy=0)
    if state.half == 2:
        a, b = (t.score for t in state.teams)
        result = "draw" if a == b else ("0" if a > b else "1")
        return evolve(state, phase="over", result=result)
    teams = tuple(evolve(t, players=tuple(evolve(p, halftime_rested=False) for p in t.players))
                  for t in state.teams)
    return evolve(state, phase="halftime", teams=teams)


def _clear_activations(state: TakkureState) -> TakkureState:
    teams = tuple(evolve(t, players=tuple(evolve(p, activations=0) for p in t.players))
                  for t in state.teams)
    return evolve(state, teams=teams)


# ----------------------------------------------------------------------------- injuries

@dataclass(frozen=True)
class InjuryResult:
    name: str
    changes: tuple[tuple[str, float], ...] = ()
    fatigue: int = 0
    wound: int = 0
    permanent: bool = False
    roll_grave: bool = False
    roll_common: bool = False
    remove: bool = False
    lose_all_skills: bool = False
    bdy_roll: bool = False
    mov_floor: tuple[float, float] | None = None


COMMON = {
    1: InjuryResult("I'm just tired", fatigue=1, wound=1),
    2: InjuryResult("Simple scratches", (("bdy", -1),)),
    3: InjuryResult("Cut in the head", (("int", -2),)),
    4: InjuryResult("Damaged shoulder", (("str", -1),)),
    5: InjuryResult("Broken finger", (("bac", -1), ("bac_try", -1), ("str", -1))),
    6: InjuryResult("Broken toe", (("ref", -1), ("mov_attack", -1))),
    7: InjuryResult("Damaged eye", (("bac", -2), ("bac_try", -2))),
    8: InjuryResult("Fractured rib", permanent=True),
    9: InjuryResult("Cervical sprain", (("str", -1), ("bac", -1), ("bac_try", -1), ("ref", -1))),
    10: InjuryResult("Dislocated shoulder", (("bac", -2), ("bac_try", -2), ("str", -2))),
    11: InjuryResult("Sprained ankle", (("ref", -2), ("mov_attack", -2), ("mov_defense", -1))),
    12: InjuryResult("Grave injury", roll_grave=True),
}
"""The Common injuries table (7.01). DECISION: "-1 BaC" lowers both BaC values (general
and try); "Active MOV" is the attack movement."""


def grave(roll: int) -> InjuryResult:
    """The Grave injuries table (7.01)."""
    if roll == 1:
        return InjuryResult(_("It's not as bad as it looks"), fatigue=1, roll_common=True)
    if 2 <= roll <= 4:
        return InjuryResult(_("Broken arm"), (("bac", -3), ("bac_try", -3), ("str", -3)))
    if 5 <= roll <= 7:
        # DECISION: printed "-7.5/-5 MOV (down to a minimum of 2.5/2.5 MOV)", applied as
        # printed; the floor keeps it from removing the player. A minimum stops a reduction:
        # a MOV already below 2.5 keeps its value (edition 3; editions 1-2 raised it to 2.5).
        return InjuryResult(_("Broken leg"), (("ref", -3), ("mov_attack", -7.5), ("mov_defense", -5)),
                            mov_floor=(2.5, 2.5))
    if 8 <= roll <= 10:
        return InjuryResult(_("Fractured vertebrae"), (("ref", -3), ("str", -3), ("bac", -3),
                                                    ("bac_try", -3)), bdy_roll=True)
    if roll == 11:
        return InjuryResult(_("Broken skull"), (("int", -3), ("ref", -3), ("bdy", -2)),
                            lose_all_skills=True)
    return InjuryResult(_("Severely injured"), remove=True)


class InjuryDiceNeeded(IllegalActionError):
    """The injury roll needs another D12, on ``table`` ("common" or "grave")."""

    def __init__(self, message: str, table: str) -> None:
        super().__init__(message)
        self.table = table


def read_injury(rolls: list[int]) -> tuple[list[InjuryResult], int]:
    """Follow the tables with the dice given in order; returns the results and the number of
    dice used. Raises when more dice are needed."""
    results: list[InjuryResult] = []
    used = 0
    table = "common"
    while True:
        if used >= len(rolls):
            raise InjuryDiceNeeded(_("the injury needs another D12 (for the {table} injuries table)").format(
                                       table=table),
                                   table)
        roll = rolls[used]
        if isinstance(roll, bool) or not isinstance(roll, int) or not 1 <= roll <= 12:
            raise _fail(_("an injury die shows 1 to 12, not {roll!r}").format(roll=roll))
        used += 1
        r = COMMON[roll] if table == "common" else grave(roll)
        results.append(r)
        if r.roll_grave:
            table = "grave"
        elif r.roll_common:
            # DECISION: "If you roll 12 again, apply the effect": a 12 on this second common
            # roll is a Grave injury again, rolled on the grave table like the first.
            table = "common"
        else:
            return results, used


def _apply_injury(state: TakkureState, team: int, index: int, rolls: list[int]) -> TakkureState:
    p = state.player(team, index)
    if not p.injury_pending:
        raise _fail(_("{p} has no injury to roll for").format(p=p.name))
    results, used = read_injury(rolls)
    if used != len(rolls):
        raise _fail(_("the injury used {used} dice; {count} were given").format(
                        used=used, count=len(rolls)))
    changes = list(p.changes)
    names = list(p.injuries)
    fatigue, permanent, wounds = p.fatigue, p.permanent, p.wounds
    lost_all, bdy_roll, remove = p.lost_all_skills, p.needs_bdy_roll, False
    for r in results:
        if r.roll_grave:  # "Grave injury" only sends the next die to the grave table
            continue
        names.append(r.name)
        changes += list(r.changes)
        fatigue = fatigue + (True,) * r.fatigue
        wounds += r.wound
        permanent += 1 if r.permanent else 0
        lost_all = lost_all or r.lose_all_skills
        bdy_roll = bdy_roll or r.bdy_roll
        remove = remove or r.remove
        if r.mov_floor:
            for key, floor in zip(("mov_attack", "mov_defense"), r.mov_floor):
                value = dict(p.base)[key] + sum(v for k, v in changes if k == key)
                if state.rules >= 3:
                    # "down to a minimum of 2.5/2.5 MOV": the minimum stops the reduction, it
                    # never raises a value already below it (Yokozuna's printed 2 stays 2)
                    before = value - sum(v for k, v in r.changes if k == key)
                    floor = min(floor, before)
                if value < floor:
                    changes.append((key, floor - value))
    tokens = p.skill_tokens
    # 5.07 Unwavering Honor: "When a Yamato player receives a Wound token, it also receives a
    # Team Skill token" — an injury's wound too ("I'm just tired")
    if state.rules >= 2 and state.teams[team].team_skill == "yamato":
        tokens += wounds - p.wounds
    p = evolve(p, changes=tuple(changes), injuries=tuple(names), fatigue=fatigue,
               permanent=permanent, wounds=wounds, lost_all_skills=lost_all,
               needs_bdy_roll=bdy_roll, injury_pending=False, skill_tokens=tokens)
    # "If multiple injuries cause any attribute to reach 0 or less": only stats the injuries
    # changed count (a printed PRT of 0 is not an injury).
    changed = {k for k, _ in changes}
    if remove or any(p.stat(k) <= 0 for k in changed):
        p = evolve(p, status="out")
    return _set_player(state, team, index, p)


# ----------------------------------------------------------------------------- rules

EVENT_TYPES = frozenset({
    "takkure.kickoff", "takkure.take_tokens", "takkure.activate", "takkure.fatigue",
    "takkure.wound", "takkure.endurance", "takkure.injury", "takkure.grounded", "takkure.ball",
    "takkure.steal", "takkure.try", "takkure.kick_out", "takkure.halftime_rest",
    "takkure.second_half", "takkure.skill_token", "takkure.roll", "takkure.action",
    "takkure.bdy_roll",
})


class TakkureRules:
    name = "takkure"
    title = "Takkure"
    event_types = EVENT_TYPES

    def start(self, setup: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        teams = setup.get("teams")
        if not isinstance(teams, list) or len(teams) != 2:
            raise _fail(_("a Takkure match needs exactly two teams"))
        for t in teams:
            players = t.get("players")
            if not isinstance(players, list) or len(players) != len(POSITIONS):
                raise _fail(_("{team}: four players, one per position").format(
                    team=t.get("name", _("a team"))))
            if sorted(p["position"] for p in players) != sorted(POSITIONS):
                raise _fail(_("{team}: one player per position").format(team=t.get("name")))
        return {"teams": teams, "rules": RULES_EDITION}

    def check(self, state: TakkureState | None, type_: str, data: Mapping[str, Any]) -> None:
        """On replay, a game.start passes the set-up's own checks (two teams of four, one
        player per position); ``start`` draws nothing."""
        if type_ == "game.start":
            self.start(data, random.Random(0))

    def initial(self, data: Mapping[str, Any]) -> TakkureState:
        teams = []
        for t in data["teams"]:
            players = []
            for p in t["players"]:
                base = (("mov_attack", p["mov"][0]), ("mov_defense", p["mov"][1]),
                        ("bac", p["bac"][0]), ("bac_try", p["bac"][1]), ("str", p["str"]),
                        ("ref", p["ref"]), ("int", p["int"]), ("prt", p["prt"]), ("bdy", p["bdy"]))
                skills = tuple((s["name"], bool(s.get("training"))) for s in p.get("skills", []))
                players.append(Player(p["name"], p["position"], base, p["position_skill"], skills))
            teams.append(Team(t["name"], t["team_skill"], tuple(players)))
        return TakkureState((teams[0], teams[1]), rules=rules_edition(data))

    def decide(self, state: TakkureState, type_: str, data: Mapping[str, Any],
               rng: random.Random) -> dict[str, Any]:
        return dict(data)

    def apply(self, state: TakkureState, type_: str, data: Mapping[str, Any]) -> TakkureState:
        handler = _HANDLERS.get(type_)
        if handler is None:
            raise _fail(_("unknown Takkure action {type!r}").format(type=type_))
        if state.phase == "over" and type_ != "takkure.roll":
            raise _fail(_("the match is over"))
        return handler(state, data)

    def describe(self, before: TakkureState, type_: str, data: Mapping[str, Any],
                 after: TakkureState) -> str:
        return describe(before, type_, data, after)

    def to_json(self, state: TakkureState, *, reveal_hidden: bool = False) -> dict[str, Any]:
        return to_json(state)

    def is_over(self, state: TakkureState) -> bool:
        return state.phase == "over"

    def summary(self, state: TakkureState) -> str:
        a, b = state.teams
        score = f"{a.name} {a.score} – {b.score} {b.name}"
        if state.phase == "over":
            winner = state.teams[int(state.result or 0)].name
            return f"{score}, " + (_("draw") if state.result == "draw" else
                                   _("{team} win").format(team=winner))
        return _("{score}, half {half}").format(score=score, half=state.half)


def _kickoff(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    if state.phase != "kickoff":
        raise _fail(_("no kick-off is due now"))
    kicking = _int(data, "kicking", 0, 1)
    if state.half == 2 and state.first_kicker is not None and state.attacker is None \
            and kicking == state.first_kicker:
        raise _fail(_("the 2nd half is kicked off by the team that did not kick the 1st ({team})").format(
                        team=state.teams[1 - state.first_kicker].name))
    # activation tokens come off every player; injured players may come back now
    teams = []
    for t in state.teams:
        players = tuple(evolve(p, activations=0, status="field" if p.status == "injured"
                               and not p.injury_pending else p.status) for p in t.players)
        teams.append(evolve(t, players=players))
    first = state.first_kicker if state.first_kicker is not None else kicking
    state = evolve(state, teams=tuple(teams), phase="play", attacker=1 - kicking, pool=0,
                   kickoff_by=None, first_kicker=first, ball=None)
    return _grant(state)


def _take_tokens(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    if state.phase != "play" or state.attacker is None:
        raise _fail(_("activation tokens are taken during play"))
    if state.pool > 0:
        raise _fail(ngettext("{team} still has {count} activation token to use",
                             "{team} still has {count} activation tokens to use",
                             state.pool).format(team=state.teams[state.attacker].name,
                                                count=state.pool))
    return _grant(state)


def _activate(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    team, index = _who(state, data)
    if state.phase != "play" or state.attacker != team:
        raise _fail(_("only the attacking team activates players"))
    if state.pool <= 0:
        raise _fail(_("no activation token left: take the next four first"))
    p = _on_field(state, team, index, _("be activated"))
    p = evolve(p, activations=p.activations + 1)
    state = evolve(_set_player(state, team, index, p), pool=state.pool - 1,
                   activation=(team, index), acts=(), bdy=0)
    if p.activations == 3:  # the 3rd activation token within one grant of four
        state = _gain_fatigue(state, team, index)
    return state


def _fatigue(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    team, index = _who(state, data)
    op = data.get("op")
    p = _on_field(state, team, index, _("take or shed fatigue"))
    if op == "gain":
        return _gain_fatigue(state, team, index)
    if op == "rest":  # remove an inactive token; if none, flip an active one to inactive
        # 4.03 REST: "This action, which can only be performed on defense"
        if state.rules >= 2 and (state.phase != "play" or state.attacker == team):
            why = (_("{team} are attacking").format(team=state.teams[team].name) if state.phase == "play"
                   else _("the ball is not in play"))
            raise _fail(_("{p} cannot REST: REST can only be performed on defense ({why})").format(
                            p=p.name, why=why))
        if False in p.fatigue:
            i = p.fatigue.index(False)
            return _set_player(state, team, index, evolve(p, fatigue=p.fatigue[:i] + p.fatigue[i + 1:]))
        if True in p.fatigue:
            i = p.fatigue.index(True)
            rested = p.fatigue[:i] + (False,) + p.fatigue[i + 1:]
            return _set_player(state, team, index, evolve(p, fatigue=rested))
        raise _fail(_("{p} has no fatigue token that REST can take").format(p=p.name))
    if op == "flip":  # a tap on one token: the screen's correction, or the Yamato skill
        i = _int(data, "token", 0, max(0, len(p.fatigue) - 1))
        if i >= len(p.fatigue):
            raise _fail(_("{p} has no fatigue token to flip (a permanent one never flips)").format(
                            p=p.name))
        flipped = p.fatigue[:i] + (not p.fatigue[i],) + p.fatigue[i + 1:]
        return _set_player(state, team, index, evolve(p, fatigue=flipped))
    raise _fail(_("fatigue op must be gain, rest or flip, not {op!r}").format(op=op))


def _wound_event(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    team, index = _who(state, data)
    _on_field(state, team, index, _("take a wound"))
    return _wound(state, team, index, _int(data, "count", 1, 12) if "count" in data else 1)


def _endurance(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    team, index = _who(state, data)
    p = _on_field(state, team, index, _("roll ENDURANCE"))
    roll = _int(data, "roll", 1, 12)
    if dice.succeeds(roll, int(p.stat("bdy") + p.stat("prt"))):
        return state
    return _wound(state, team, index)


def _injury(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    team, index = _who(state, data)
    rolls = data.get("rolls")
    if not isinstance(rolls, list):
        raise _fail(_("rolls: the injury dice, in the order rolled"))
    return _apply_injury(state, team, index, rolls)


def _grounded(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    team, index = _who(state, data)
    p = _on_field(state, team, index, _("be grounded or stand up"))
    value = data.get("value")
    if not isinstance(value, bool):
        raise _fail(_("value must be true (grounded) or false (standing)"))
    # 3.02 STAND UP: "Once tackled you cannot get up while you have the ball in your hands"
    if state.rules >= 2 and not value and p.grounded and state.ball == (team, index):
        raise _fail(_("{p} carries the ball: a GROUNDED ball carrier cannot STAND UP (a pass from the "
                      "ground is allowed)").format(
                        p=p.name))
    return _set_player(state, team, index, evolve(p, grounded=value))


def _ball(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    """The ball goes to a player of the attacking team, or falls loose (``team`` missing).
    A defender taking it is a steal (``takkure.steal``)."""
    if state.phase != "play":
        raise _fail(_("the ball is in play only during play"))
    if data.get("team") is None:
        return evolve(state, ball=None)
    team, index = _who(state, data)
    if team != state.attacker:
        raise _fail(_("a defender who takes the ball steals it: record a steal"))
    _on_field(state, team, index, _("take the ball"))
    return evolve(state, ball=(team, index))


def _steal(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    team, index = _who(state, data)
    if state.phase != "play" or state.attacker is None or team == state.attacker:
        raise _fail(_("only a defender steals the ball"))
    p = _on_field(state, team, index, _("steal the ball"))
    # BALL STEAL: "A GROUNDED player cannot perform this action"
    if state.rules >= 2 and p.grounded:
        raise _fail(_("{p} is GROUNDED: a GROUNDED player can only STAND UP, not steal the ball").format(
                        p=p.name))
    # the old attacker discards what is left; the new attacker takes tokens by the clock
    state = evolve(state, attacker=team, pool=0, ball=(team, index), activation=None, acts=(),
                   bdy=0)
    return _grant(state)


def _try(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    if state.phase != "play" or state.ball is None or state.ball[0] != state.attacker:
        raise _fail(_("a try is attempted by the attacking team's ball carrier"))
    success = data.get("success")
    if not isinstance(success, bool):
        raise _fail(_("success must be true or false"))
    team, index = state.ball
    carrier = state.player(team, index)
    # GROUND TOKEN: "You can only perform the STAND UP action" (a carrier: a pass from the
    # ground)
    if state.rules >= 2 and carrier.grounded:
        raise _fail(_("{carrier} is GROUNDED: a GROUNDED ball carrier cannot SCORE A TRY, only pass "
                      "from the ground").format(
                        carrier=carrier.name))
    scorer = state.teams[team]
    if success:
        extra = 1 if scorer.team_skill == "teriomorphs" else 0  # Superstars
        state = _set_team(state, team, evolve(scorer, score=scorer.score + 1,
                                              skill_tokens=scorer.skill_tokens + extra))
        # after a try the coach who conceded it decides who kicks off
        return evolve(state, phase="kickoff", kickoff_by=1 - team, pool=0, ball=None,
                      activation=None, acts=(), bdy=0)
    # a failed try: kick-off, chosen by the defending coach
    return evolve(state, phase="kickoff", kickoff_by=1 - team, pool=0, ball=None,
                  activation=None, acts=(), bdy=0)


def _kick_out(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    a = state.attacker
    if state.phase != "play" or a is None:
        raise _fail(_("only the attacking team kicks the ball out, during play"))
    if state.box != 1:
        raise _fail(_("the ball can be kicked out only with the time tokens on box 1 (now {box})").format(
                        box=state.box))
    if state.teams[a].score >= state.teams[1 - a].score:
        raise _fail(_("only a trailing attacking team may kick the ball out"))
    return _end_half(evolve(state, box=1))


def _halftime_rest(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    team, index = _who(state, data)
    if state.phase != "halftime":
        raise _fail(_("this is done at halftime"))
    p = state.player(team, index)
    if p.halftime_rested:
        raise _fail(_("{p} has already removed a fatigue token this halftime").format(p=p.name))
    if not p.fatigue:
        raise _fail(_("{p} has no fatigue token to remove (a permanent one stays)").format(p=p.name))
    active = data.get("active")
    if active not in (True, False) or active not in p.fatigue:
        raise _fail((_("{player} has no active token to remove") if active else
                     _("{player} has no inactive token to remove")).format(player=p.name))
    i = p.fatigue.index(active)
    return _set_player(state, team, index, evolve(p, fatigue=p.fatigue[:i] + p.fatigue[i + 1:],
                                                  halftime_rested=True))


def halftime_rest_due(p: Player) -> bool:
    """A player still to remove a fatigue token this halftime (a permanent one stays)."""
    return p.status != "out" and bool(p.fatigue) and not p.halftime_rested


def _second_half(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    if state.phase != "halftime":
        raise _fail(_("the 2nd half starts after halftime"))
    # 6.02 HALFTIME: "All players remove a fatigue token"
    tired = [p.name for t in state.teams for p in t.players if halftime_rest_due(p)]
    if state.rules >= 2 and tired:
        raise _fail(_("Halftime: every player removes a fatigue token first (")
                    + ", ".join(tired) + (" has" if len(tired) == 1 else " have") + " not)")
    state = _clear_activations(state)
    kicking = 1 - (state.first_kicker or 0)
    return evolve(state, half=2, phase="kickoff", box=TIME_START_BOX, time_active=(True, True),
                  attacker=None, pool=0, kickoff_by=kicking, ball=None)


def _skill_token(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    team = _int(data, "team", 0, 1)
    delta = data.get("delta")
    if isinstance(delta, bool) or not isinstance(delta, int) or delta == 0:
        raise _fail(_("delta: tokens gained (+) or spent (-)"))
    t = state.teams[team]
    if t.team_skill == "yamato":
        _team, index = _who(state, data)
        p = t.players[index]
        if p.skill_tokens + delta < 0:
            raise _fail(_("{p} has {skill_tokens} team skill token(s)").format(
                            p=p.name, skill_tokens=p.skill_tokens))
        return _set_player(state, team, index, evolve(p, skill_tokens=p.skill_tokens + delta))
    if t.skill_tokens + delta < 0:
        raise _fail(_("{t} has {skill_tokens} team skill token(s)").format(
                        t=t.name, skill_tokens=t.skill_tokens))
    return _set_team(state, team, evolve(t, skill_tokens=t.skill_tokens + delta))


def action_problem(state: TakkureState, team: int, index: int, action: str) -> str | None:
    """Why the active player cannot declare this action now (None: they can).

    1.04 and 1.08: one first action (MOVE, STAND UP, PASS FROM THE GROUND), then one second
    action; 3.01: a GROUNDED player can only STAND UP, a GROUNDED carrier cannot, and may
    pass from the ground instead; 3.03: after a pass from the ground "the player will not be
    able to perform a second action"; 4.02: with 2 active fatigue tokens "The player can only
    perform one MOV action per activation"; Fractured vertebrae: "you need to succeed on a
    BOD roll before performing any action"."""
    if action not in FIRST_ACTIONS + SECOND_ACTIONS:
        return (_("{action!r} is not an attacker's action (").format(action=action)
                + ", ".join(FIRST_ACTIONS + SECOND_ACTIONS) + ")")
    if state.phase != "play" or state.activation != (team, index):
        return _("only the active player (the one activated last) declares actions")
    p = state.player(team, index)
    if p.status != "field":
        return _("{p} is not on the field").format(p=p.name)
    if p.needs_bdy_roll and state.bdy != 1:
        return (_("{p} has Fractured vertebrae: a BDY roll must succeed before any action").format(p=p.name)
                + (_(" (it failed: no action this activation)") if state.bdy == -1 else ""))
    first = [a for a in state.acts if a in FIRST_ACTIONS]
    second = [a for a in state.acts if a in SECOND_ACTIONS]
    carrier = state.ball == (team, index)
    if action in FIRST_ACTIONS:
        if first:
            return _("{p} has done their first action ({first})").format(p=p.name, first=first[0])
        if p.grounded and action == "MOVE":
            return _("{p} is GROUNDED: the first action can only be STAND UP").format(p=p.name) + (
                _(" — a carrier cannot: a pass from the ground") if carrier else "")
        if action == "STAND UP":
            if not p.grounded:
                return _("{p} is not GROUNDED").format(p=p.name)
            if carrier:
                return (_("{p} carries the ball: a GROUNDED ball carrier cannot STAND UP (a pass from "
                          "the ground is allowed)").format(
                            p=p.name))
        if action == "PASS FROM THE GROUND" and not (carrier and p.grounded):
            return _("only a GROUNDED ball carrier passes from the ground")
        return None
    if second:
        return _("{p} has done their second action ({second})").format(p=p.name, second=second[0])
    if "PASS FROM THE GROUND" in first:
        return (_("{p} passed from the ground: no second action in this activation").format(p=p.name))
    if p.grounded:
        return _("{p} is GROUNDED: only STAND UP (a carrier: a pass from the ground)").format(p=p.name)
    if action in MOV_ACTIONS and p.one_mov_action and any(a in MOV_ACTIONS for a in first):
        return (_("{p} has {active_fatigue} active fatigue tokens: only one MOV action "
                  "per activation").format(
                    p=p.name, active_fatigue=p.active_fatigue))
    return None


def _declare(state: TakkureState, team: int, index: int, action: str) -> TakkureState:
    why = action_problem(state, team, index, action)
    if why:
        raise _fail(why)
    state = evolve(state, acts=state.acts + (action,))
    if action == "STAND UP":
        state = _set_player(state, team, index, evolve(state.player(team, index), grounded=False))
    return state


def _action(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    """The active player declares an action that has no roll (a MOVE, STAND UP)."""
    team, index = _who(state, data)
    action = data.get("action")
    if not isinstance(action, str):
        raise _fail(_("action: the attacker's action, e.g. MOVE"))
    return _declare(state, team, index, action)


def _bdy_roll(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    """Fractured vertebrae: "you need to succeed on a BOD roll before performing any action"
    (an unopposed D12 against BDY, once per activation)."""
    team, index = _who(state, data)
    p = _on_field(state, team, index, _("roll BDY"))
    if not p.needs_bdy_roll:
        raise _fail(_("{p} has no Fractured vertebrae: no BDY roll to make").format(p=p.name))
    if state.activation != (team, index) or state.phase != "play":
        raise _fail(_("{p} rolls BDY when activated, before any action").format(p=p.name))
    if state.bdy:
        raise _fail(_("{p} has rolled BDY in this activation already").format(p=p.name))
    roll = _int(data, "roll", 1, 12)
    return evolve(state, bdy=1 if dice.succeeds(roll, int(p.stat("bdy"))) else -1)


SUPERSTARS_MAX = 3       # "+1 to the attribute you are using for the roll (up to a maximum of +3)"
SUPERSTARS_REROLL = 3    # "3x: Reroll a die. (Only once per roll)"


def _reroll_die(data: Mapping[str, Any], r: Mapping[str, Any], team: int, player: int) -> None:
    """A re-roll names one die of that player's dice in the roll and the face it replaced."""
    mine = [x for x in data.get("rolls", []) or []
            if isinstance(x, Mapping) and (x.get("team"), x.get("player")) == (team, player)]
    count = sum(len(x.get("dice", []) or []) for x in mine) if mine else None
    die = r.get("die")
    if isinstance(die, bool) or not isinstance(die, int) or die < 0 \
            or (count is not None and die >= count):
        raise _fail(_("rerolls: die, which of the player's dice was re-rolled, not {die!r}").format(die=die))
    replaced = r.get("dice")
    if not isinstance(replaced, list) or len(replaced) != 1:
        raise _fail(_("rerolls: dice, the one face the re-roll replaced, not {replaced!r}").format(
                        replaced=replaced))


def _roll(state: TakkureState, data: Mapping[str, Any]) -> TakkureState:
    """A dice resolution recorded for the log; its effects are separate events. It may carry
    the active player's action (``action``) and Superstars tokens spent on it
    (``superstars``: +1 per token to a roller, at most +3; ``rerolls``: 3 tokens a die, once
    per roll, naming the die from edition 3)."""
    if not isinstance(data.get("text"), str):
        raise _fail(_("a recorded roll carries its explanation"))
    act = data.get("action")
    if act is not None:
        if not isinstance(act, Mapping):
            raise _fail(_("action: {{team, player, action}}"))
        state = _declare(state, *_who(state, act), str(act.get("action")))
    spent: dict[int, int] = {}
    for boost in data.get("superstars", []) or []:
        team, index = _who(state, boost)
        n = _int(boost, "tokens", 1, SUPERSTARS_MAX)
        spent[team] = spent.get(team, 0) + n
    rerolls = data.get("rerolls", []) or []
    for i, r in enumerate(rerolls):
        team, player = _who(state, r)
        if any(_who(state, x)[0] == team for x in rerolls[:i]):
            raise _fail(_("Superstars: a die is re-rolled only once per roll"))
        if state.rules >= 3:
            # "3x: Reroll a die": one die, the one the coach picked (editions 1-2 recorded the
            # player's dice all thrown again)
            _reroll_die(data, r, team, player)
        spent[team] = spent.get(team, 0) + SUPERSTARS_REROLL
    for team, n in spent.items():
        t = state.teams[team]
        if t.team_skill != "teriomorphs":
            raise _fail(_("{t} have no Superstars tokens to spend").format(t=t.name))
        if t.skill_tokens < n:
            raise _fail(ngettext("{team} have {count} Superstars token; this roll spends {n}",
                                 "{team} have {count} Superstars tokens; this roll spends {n}",
                                 t.skill_tokens).format(team=t.name, count=t.skill_tokens, n=n))
        state = _set_team(state, team, evolve(t, skill_tokens=t.skill_tokens - n))
    return state


_HANDLERS = {
    "takkure.kickoff": _kickoff,
    "takkure.take_tokens": _take_tokens,
    "takkure.activate": _activate,
    "takkure.fatigue": _fatigue,
    "takkure.wound": _wound_event,
    "takkure.endurance": _endurance,
    "takkure.injury": _injury,
    "takkure.grounded": _grounded,
    "takkure.ball": _ball,
    "takkure.steal": _steal,
    "takkure.try": _try,
    "takkure.kick_out": _kick_out,
    "takkure.halftime_rest": _halftime_rest,
    "takkure.second_half": _second_half,
    "takkure.skill_token": _skill_token,
    "takkure.roll": _roll,
    "takkure.action": _action,
    "takkure.bdy_roll": _bdy_roll,
}


# ----------------------------------------------------------------------------- presentation

def reminders(before: TakkureState, after: TakkureState) -> list[str]:
    """Said once, by the event that causes them: replay and undo never repeat them."""
    out = []
    for t in (0, 1):
        for b, a in zip(before.teams[t].players, after.teams[t].players):
            if a.activations == 3 and b.activations == 2:
                out.append(_("3rd activation: {a} +1 fatigue").format(a=a.name))
            if a.status == "injured" and b.status == "field":
                out.append(_("{a} is injured ({injurie}): off the field, roll on the injuries table").format(
                               a=a.name, injurie=a.injuries[-1]))
            if a.status == "out" and b.status != "out":
                out.append(_("{a} is out of the game").format(a=a.name))
    if after.phase == "halftime" and before.phase != "halftime":
        out.append(_("Halftime: each player removes one fatigue token"))
    if after.phase == "over" and before.phase != "over":
        out.append(_("Full time: ") + (_("a draw") if after.result == "draw"
                                    else f"{after.teams[int(after.result or 0)].name} win"))
    if after.box < before.box and after.phase == "play":
        out.append(_("Time tokens down to box {box}").format(box=after.box))
    if before.ball is not None and after.ball is None and after.phase == "play":
        out.append(_("The ball is loose: scatter it"))
    return out


def describe(before: TakkureState, type_: str, data: Mapping[str, Any], after: TakkureState) -> str:
    def name(d: Mapping[str, Any] = data) -> str:
        return before.player(d["team"], d["player"]).name

    kind = type_.split(".", 1)[1]
    if kind == "kickoff":
        attackers = after.teams[after.attacker or 0].name
        text = (_("Kick-off by {team}; {attackers} attack with 4 activation tokens").format(
                    team=before.teams[data['kicking']].name, attackers=attackers))
    elif kind == "take_tokens":
        text = _("{team} take 4 activation tokens").format(team=before.teams[before.attacker or 0].name)
    elif kind == "activate":
        text = ngettext("{name} activated ({count} token left)",
                        "{name} activated ({count} tokens left)", after.pool).format(
            name=name(), count=after.pool)
    elif kind == "fatigue":
        text = {"gain": _("{name} +1 fatigue"), "rest": _("{name} rests"),
                "flip": _("{name} flips a fatigue token")}.get(str(data.get("op")),
                                                               _("fatigue")).format(name=name())
    elif kind == "wound":
        text = _("{name} takes a WOUND").format(name=name())
    elif kind == "endurance":
        p = before.player(data["team"], data["player"])
        target = int(p.stat("bdy") + p.stat("prt"))
        ok = dice.succeeds(data["roll"], target)
        text = (_("{p} ENDURANCE: BDY+PRT {target}; rolled {roll}: ").format(
                    p=p.name, target=target, roll=data['roll'])
                + (_("no damage") if ok else _("fail, +1 wound")))
    elif kind == "injury":
        p = after.player(data["team"], data["player"])
        text = _("{p} injury roll {items}: {injurie}").format(
                   p=p.name, items=', '.join(str(r) for r in data['rolls']), injurie=p.injuries[-1])
    elif kind == "grounded":
        text = (_("{name} grounded") if data["value"] else _("{name} stands up")).format(
            name=name())
    elif kind == "ball":
        text = _("The ball is loose") if data.get("team") is None else _("{name} has the ball").format(
                                                                name=name())
    elif kind == "steal":
        text = _("{name} steals the ball: {team} attack").format(
                   name=name(), team=before.teams[data['team']].name)
    elif kind == "try":
        scorer = before.player(*before.ball) if before.ball else None
        who = scorer.name if scorer else "?"
        text = _("TRY by {who}! {score}–{score2}").format(
                   who=who, score=after.teams[0].score, score2=after.teams[1].score) if data["success"] \
            else _("{who} fails to score: kick-off").format(who=who)
    elif kind == "kick_out":
        text = _("{team} kick the ball out: the half ends").format(
                   team=before.teams[before.attacker or 0].name)
    elif kind == "halftime_rest":
        text = (_("{name} removes an active fatigue token") if data["active"] else
                _("{name} removes an inactive fatigue token")).format(name=name())
    elif kind == "second_half":
        text = _("Second half")
    elif kind == "skill_token":
        count = abs(data["delta"])
        text = (ngettext("{team} gain {count} team skill token",
                         "{team} gain {count} team skill tokens", count) if data["delta"] > 0 else
                ngettext("{team} spend {count} team skill token",
                         "{team} spend {count} team skill tokens", count)).format(
                    team=before.teams[data['team']].name, count=count)
    elif kind == "roll":
        text = data["text"]
        spent = sum(int(b.get("tokens", 0)) for b in data.get("superstars", []) or []) \
            + SUPERSTARS_REROLL * len(data.get("rerolls", []) or [])
        if spent:
            text += ngettext(" (Superstars: {count} token spent)",
                             " (Superstars: {count} tokens spent)", spent).format(count=spent)
    elif kind == "action":
        text = _("{name}: {action}").format(name=name(), action=action_words(str(data["action"])))
    elif kind == "bdy_roll":
        p = before.player(data["team"], data["player"])
        ok = dice.succeeds(data["roll"], int(p.stat("bdy")))
        text = (_("{p} Fractured vertebrae: BDY {stat}; rolled {roll}: ").format(
                    p=p.name, stat=int(p.stat('bdy')), roll=data['roll'])
                + (_("may act") if ok else _("fail: no action this activation")))
    else:
        text = type_
    extra = reminders(before, after)
    return text + ("; " + "; ".join(extra) if extra else "")


def to_json(state: TakkureState) -> dict[str, Any]:
    return {
        "half": state.half, "phase": state.phase, "box": state.box,
        "time_active": list(state.time_active), "attacker": state.attacker, "pool": state.pool,
        "ball": list(state.ball) if state.ball else None, "result": state.result,
        "teams": [{
            "name": t.name, "team_skill": t.team_skill, "score": t.score,
            "skill_tokens": t.skill_tokens,
            "players": [{
                "name": p.name, "position": p.position, "status": p.status,
                "fatigue": ["active" if f else "inactive" for f in p.fatigue] + ["permanent"] * p.permanent,
                "wounds": p.wounds, "grounded": p.grounded, "activations": p.activations,
                "injuries": list(p.injuries), "skill_tokens": p.skill_tokens,
                "stats": {k: p.effective(k) for k in STATS},
                "skills_lost": list(p.skills_lost),
            } for p in t.players],
        } for t in state.teams],
    }


RULES = TakkureRules()


def config_data(cfg: TakkureConfig) -> dict[str, Any]:
    """Plain data for writing the rosters back to YAML (the user's roster file)."""
    teams = []
    for t in cfg.teams:
        players = []
        for p in t.players:
            card = card_data(p)
            card["mov"] = [int(v) if float(v).is_integer() else v for v in card["mov"]]
            card["skills"] = [{"name": s.name, "training": s.training, "text": s.text}
                              for s in p.skills]
            if p.defaults:
                card["defaults"] = list(p.defaults)
            if p.marker_id is not None:
                card["marker_id"] = p.marker_id
                card["marker_height_mm"] = p.marker_height_mm
                if p.marker_side_in is not None:
                    card["marker_side_in"] = p.marker_side_in
            players.append(card)
        teams.append({"name": t.name, "team_skill": t.team_skill, "players": players})
    return {"teams": teams}


# ----------------------------------------------------------------------------- live view


def phase_text(state: TakkureState) -> str:
    """Where the match is, in words: the kick-off, halftime, full time or who attacks (the
    match screen's line and the live view's)."""
    if state.phase == "kickoff":
        return (_("Kick-off: the referee roll decides who kicks") if state.kickoff_by is None
                else _("Kick-off: {team}' coach chooses who kicks").format(
                    team=state.teams[state.kickoff_by].name))
    if state.phase == "halftime":
        return _("Halftime: each player removes one fatigue token")
    if state.phase == "over":
        return (_("Full time: a draw") if state.result == "draw" else
                _("Full time: {team} win").format(team=state.teams[int(state.result or 0)].name))
    return _("{team} attack").format(
        team=state.teams[state.attacker].name if state.attacker is not None else "")


def spectator_summary(state: TakkureState) -> dict[str, Any]:
    """The live view's public picture (``companion/live/summary.py``): the score, the half
    and who attacks, the time dashboard, the ball, and the players who are GROUNDED,
    injured or out. The coaches' play cards (face-down decks, hands, a Team Play placed
    face down) are not tracked by the companion, so nothing hidden is in the state."""
    phase = phase_text(state)
    playing = state.phase == "play"
    sides = []
    for t, team in enumerate(state.teams):
        attacking = playing and state.attacker == t
        figures = [
            {"label": _("Tries"), "value": str(team.score)},
            {"label": _("Time token"),
             "value": _("active") if state.time_active[t] else _("inactive")},
            {"label": _("On the field"),
             "value": str(sum(p.status == "field" for p in team.players)),
             "of": len(team.players)},
        ]
        if attacking:
            figures.append({"label": _("Activation tokens"), "value": str(state.pool),
                            "of": GRANT})
        if team.team_skill == "teriomorphs":
            figures.append({"label": _("Superstars tokens"), "value": str(team.skill_tokens)})
        notes = [_("ATTACK")] if attacking else []
        for i, p in enumerate(team.players):
            if state.ball == (t, i):
                notes.append(_("BALL: {player}").format(player=p.name))
            if p.status == "injured":
                notes.append(_("{player}: injured").format(player=p.name))
            elif p.status == "out":
                notes.append(_("{player}: out of the game").format(player=p.name))
            elif p.grounded:
                notes.append(_("{player}: GROUNDED").format(player=p.name))
        sides.append({"name": team.name, "figures": figures, "notes": notes})
    lines = [_("Time: box {box}").format(box=state.box)]
    if playing and state.ball is None:
        lines.append(_("The ball is loose"))
    over = state.phase == "over"
    winner = (state.teams[int(state.result)].name
              if over and state.result is not None and state.result != "draw" else None)
    # each coach throws their own colour (the rulebook's 3 red and 3 yellow D12s)
    roller = _("{red} (red dice), {yellow} (yellow dice)").format(
        red=state.teams[0].name, yellow=state.teams[1].name)
    return {"status": _("Half {half}").format(half=state.half) + " · " + phase,
            "sides": sides, "lines": lines, "over": over, "winner": winner,
            "roller": None if over else roller}


ENTRY = GameEntry(
    id="takkure", rules=f"{__name__}:RULES", setup="takkure_setup", play="takkure_game",
    tile=HomeTile(N_("Takkure"), N_("match tracker"), (0.1, 0.36, 0.5, 1), (0.16, 0.5, 0.7, 1), 20),
    screens={"takkure_setup": "companion.app.screens.takkure_setup:TakkureSetupScreen",
             "takkure_roster": "companion.app.screens.takkure_setup:TakkureRosterScreen",
             "takkure_game": "companion.app.screens.takkure_game:TakkureGameScreen",
             "takkure_measure": "companion.app.screens.takkure_measure:TakkureMeasureScreen"},
    config=ConfigFile("takkure", f"{__name__}:TakkureConfig", "companion.config:takkure.yaml",
                      f"{__name__}:config_data"),
    dice_kinds=("d12",), sim_dice="takkure",
    dice_colours=("red", "yellow"),  # the 3 red and 3 yellow D12s (takkure_panel.TEAM_COLOURS)
    confirm="companion.views.takkure:confirm_text",
    spectator=f"{__name__}:spectator_summary")
