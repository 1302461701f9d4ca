"""The Takkure roll panel, without Kivy: which roll, who rolls what, the dice, the modifiers,
the explained outcome and the follow-up actions that outcome calls for.

The coach picks a roll (``KINDS``: the actions of the rulebook, 1.18-1.20 and the ball
actions), taps the players involved on the cards (attacker side: the attacking team;
defender side: the other), and the dice arrive through one entry point,
:meth:`RollPanel.receive`: typed on the keypad, tapped, or read by the dice tower (red D12s
for the first team, yellow for the second, ``TEAM_COLOURS``). Distances come in through
:meth:`RollPanel.set_distance` (typed now, the overhead camera later).

Recording a roll is one ``takkure.roll`` event carrying the explanation (an ENDURANCE roll
is the engine's own ``takkure.endurance``). What the outcome does to the players (GROUNDED,
a wound, the ball, a try) is offered as follow-ups: each is one engine event, one tap, and
undoable on its own, because the table sometimes plays on differently (a second tackler, a
skill card) and the coach stays in charge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import IllegalActionError
from ..i18n import N_, _, ngettext
from . import takkure_dice as dice
from .takkure import (
    STAT_NAMES,
    SUPERSTARS_MAX,
    SUPERSTARS_REROLL,
    TakkureState,
    action_problem,
    action_words,
)

Role = Literal["attacker", "defender"]
ATTACKER: Role = "attacker"
DEFENDER: Role = "defender"
TEAM_COLOURS = ("red", "yellow")  # the rulebook's 3 red and 3 yellow D12s, one colour a coach
ENDURANCE = "bdy+prt"


@dataclass(frozen=True)
class Part:
    """One side's action in a roll: who (by role), what they do and on which stat."""

    role: Role
    action: str                      # "TACKLE", "DODGE", ...
    stat: str                        # an engine stat key, or ENDURANCE
    skill: str | None = None         # the skill by position that rolls two dice here
    pressure: bool = False           # the attacker's 2nd action: PRESSURE applies
    fixed: tuple[dice.Modifier, ...] = ()
    distance: Literal["pass", "reception"] | None = None
    try_fatigue: bool = False        # SCORE A TRY: -1 per fatigue token, active or not
    many: bool = False               # several players of this side (melee)


@dataclass(frozen=True)
class RollKind:
    key: str
    title: str
    mode: Literal["face_to_face", "unopposed", "melee", "endurance"]
    parts: tuple[Part, ...]
    hint: str = ""


_TACKLE = Part(DEFENDER, "TACKLE", "str", skill="Expert Tackler")
# several tacklers on one carrier: a multiple face-to-face roll (the carrier's dice are
# assigned to the tacklers in the order they were tapped)
_TACKLERS = Part(DEFENDER, "TACKLE", "str", skill="Expert Tackler", many=True)
KINDS: tuple[RollKind, ...] = (
    RollKind("tackle_dodge", N_("Tackle vs Dodge"), "face_to_face",
             (Part(ATTACKER, "DODGE", "ref", skill="Side step", pressure=True), _TACKLERS),
             N_("The carrier dodges a declared TACKLE (1.19); several tacklers: tap them in the "
               "order the carrier faces them")),
    RollKind("tackle_break", N_("Tackle vs Break through"), "face_to_face",
             (Part(ATTACKER, "BREAK THROUGH", "str", skill="Onslaught", pressure=True),
              _TACKLERS),
             N_("The carrier breaks through a declared TACKLE (1.20); several tacklers: tap them "
               "in the order the carrier faces them")),
    RollKind("tackle_pass", N_("Tackle vs Pass"), "face_to_face",
             (Part(ATTACKER, "PASS", "bac", skill="Precise Pass", pressure=True,
                   distance="pass"), _TACKLE),
             N_("A pass thrown past the tackler's action")),
    RollKind("tackle_try", N_("Tackle vs Try"), "face_to_face",
             (Part(ATTACKER, "SCORE A TRY", "bac_try", pressure=True, try_fatigue=True), _TACKLE),
             N_("One tackler against a try")),
    RollKind("try_melee", N_("Try vs tacklers"), "melee",
             (Part(ATTACKER, "SCORE A TRY", "bac_try", pressure=True, try_fatigue=True),
              Part(DEFENDER, "TACKLE", "str", skill="Expert Tackler", many=True)),
             N_("Several tacklers against a try: a melee")),
    RollKind("tackle", N_("Tackle"), "unopposed", (_TACKLE,),
             N_("The attacker does something that does not affect the tackler")),
    RollKind("tackle_ref", N_("REF after a missed tackle"), "unopposed",
             (Part(DEFENDER, "REF after a missed TACKLE", "ref"),),
             N_("A failed TACKLE: fail this and the tackler is GROUNDED")),
    RollKind("pass", N_("Pass"), "unopposed",
             (Part(ATTACKER, "PASS", "bac", skill="Precise Pass", pressure=True,
                   distance="pass"),),
             N_("Distance passer to receiver, measured in step 5")),
    RollKind("reception", N_("Ball reception"), "unopposed",
             (Part(ATTACKER, "RECEPTION", "bac", distance="reception"),),
             N_("After a missed pass: the receiver's roll")),
    RollKind("pick_up", N_("Pick up the ball"), "unopposed",
             (Part(ATTACKER, "PICK UP", "bac", pressure=True, fixed=(dice.PICK_UP,)),),
             N_("A second action: PRESSURE applies")),
    RollKind("steal_loose", N_("Steal a loose ball"), "unopposed",
             (Part(DEFENDER, "STEAL", "bac", fixed=(dice.STEAL_LOOSE,)),)),
    RollKind("steal_grounded", N_("Steal from a grounded carrier"), "unopposed",
             (Part(DEFENDER, "STEAL", "bac", fixed=(dice.STEAL_GROUNDED,)),)),
    RollKind("interception", N_("Interception"), "unopposed",
             (Part(DEFENDER, "INTERCEPTION", "bac", fixed=(dice.INTERCEPTION,)),),
             N_("A defender on the pass's path")),
    RollKind("scrum", N_("Scrum for the ball"), "melee",
             (Part(ATTACKER, "PICK UP", "bac", pressure=True, fixed=(dice.PICK_UP,), many=True),
              Part(DEFENDER, "STEAL", "bac", fixed=(dice.STEAL_LOOSE,), many=True)),
             N_("Players of both teams go for a loose ball: a melee")),
    RollKind("try", N_("Score a try"), "unopposed",
             (Part(ATTACKER, "SCORE A TRY", "bac_try", pressure=True, try_fatigue=True),)),
    RollKind("kickoff_kick", N_("Kick-off kick"), "unopposed",
             (Part(DEFENDER, "KICK-OFF", "bac"),),
             N_("The kicking team's BaC roll, a player of the coach's choice (5.03)")),
    RollKind("kickoff_catch", N_('Kick-off catch within 2"'), "unopposed",
             (Part(ATTACKER, "CATCH", "bac", fixed=(dice.KICKOFF_CATCH_CLOSE,)),)),
    RollKind("bdy_roll", N_("BDY roll (Fractured vertebrae)"), "unopposed",
             (Part(ATTACKER, "BDY ROLL", "bdy"),),
             N_("The active player with Fractured vertebrae, before any action")),
    RollKind("endurance_attacker", N_("ENDURANCE: attacker"), "endurance",
             (Part(ATTACKER, "ENDURANCE", ENDURANCE),)),
    RollKind("endurance_defender", N_("ENDURANCE: defender"), "endurance",
             (Part(DEFENDER, "ENDURANCE", ENDURANCE),)),
)
KIND = {k.key: k for k in KINDS}


# ----------------------------------------------------------------------------- who may roll

CARRIER_ACTIONS = ("DODGE", "BREAK THROUGH", "SCORE A TRY", "PASS")
SECOND_ACTION_ROLLS = ("PASS", "PICK UP", "DODGE", "BREAK THROUGH", "SCORE A TRY")
STANDING_ACTIONS = ("TACKLE", "STEAL", "INTERCEPTION", "PICK UP", "CATCH", "KICK-OFF")


def _actions(kind: RollKind) -> set[str]:
    return {p.action for p in kind.parts}


def kind_problem(state: TakkureState, kind: RollKind) -> str | None:
    """Why this roll cannot be made now, in the coaches' words (None: it can)."""
    if state.phase == "over":
        return _("the match is over")
    if state.phase == "halftime":
        return _("it is halftime")
    if state.phase == "kickoff":
        return _("the ball is not in play yet: record who kicks off first")
    acts = _actions(kind)
    if kind.key == "bdy_roll":
        a = state.activation
        if a is None or not state.player(*a).needs_bdy_roll:
            return _("only an activated player with Fractured vertebrae rolls BDY")
        if state.bdy:
            return _("{name} has rolled BDY in this activation already").format(name=state.player(*a).name)
        return None
    carrier = state.player(*state.ball) if state.ball is not None else None
    if acts & {"TACKLE", "DODGE", "BREAK THROUGH", "SCORE A TRY", "PASS", "INTERCEPTION"} \
            and kind.key not in ("tackle_ref",):
        if carrier is None:
            if acts & {"INTERCEPTION"}:
                return _("nobody carries the ball: there is no pass to intercept")
            return (_("nobody carries the ball: only the ball carrier can be tackled, pass, dodge, "
                      "break through or score"))
        if "TACKLE" in acts and carrier.grounded:
            return _("{carrier} is on the ground: you cannot tackle a player on the ground").format(
                       carrier=carrier.name)
        if acts & {"DODGE", "BREAK THROUGH", "SCORE A TRY"} and carrier.grounded:
            return (_("{carrier} is GROUNDED: a GROUNDED ball carrier can only pass from the ground").format(
                        carrier=carrier.name))
    if acts & {"PICK UP"} or kind.key == "steal_loose":
        if carrier is not None and not carrier.grounded and kind.key != "steal_grounded":
            return (_("{carrier} carries the ball standing: only a loose ball").format(carrier=carrier.name)
                    + (_(" or one held by a GROUNDED player") if "PICK UP" in acts else "")
                    + _(" can be ") + (_("picked up") if "PICK UP" in acts else _("stolen this way")))
        if kind.key == "steal_loose" and carrier is not None:
            return _("{carrier} holds the ball: it is not loose (steal from a grounded carrier)").format(
                       carrier=carrier.name)
    if kind.key == "steal_grounded" and (carrier is None or not carrier.grounded):
        return (_("the ball is loose: steal a loose ball instead") if carrier is None else
                _("{carrier} is standing: you cannot steal the ball from a player who is not "
                      "GROUNDED").format(
                        carrier=carrier.name))
    if acts & {"KICK-OFF", "CATCH"} and carrier is not None:
        return _("{carrier} has the ball: the kick-off is over").format(carrier=carrier.name)
    return None


def participant_problem(state: TakkureState, team: int, index: int, part: Part,
                        kind: RollKind) -> str | None:
    """Why this player cannot make this part of the roll (None: they can)."""
    p = state.player(team, index)
    if p.status != "field":
        return (_("{player} is injured: not on the field") if p.status == "injured" else
                _("{player} is out of the game: not on the field")).format(player=p.name)
    carrier = state.ball == (team, index)
    action = part.action
    if action == "BDY ROLL" and state.activation != (team, index):
        return _("{p} is not the active player: the BDY roll is made when activated").format(p=p.name)
    if action in CARRIER_ACTIONS:
        if not carrier:
            return _("{p} does not carry the ball: only the ball carrier can {action}").format(
                       p=p.name, action=action)
        if p.grounded and action != "PASS":
            return (_("{p} is GROUNDED: a GROUNDED ball carrier can only pass from the ground").format(
                        p=p.name))
    if action in STANDING_ACTIONS and p.grounded:
        return _("{p} is GROUNDED: a GROUNDED player can only STAND UP").format(p=p.name)
    if action == "PICK UP" and carrier:
        return _("{p} already carries the ball").format(p=p.name)
    if action == "RECEPTION" and carrier:
        return _("{p} threw the pass: the receiver is another player").format(p=p.name)
    return None


@dataclass(frozen=True)
class Roller:
    """One player rolling in the current roll, with the check they roll against."""

    team: int
    player: int
    part: Part
    check: dice.Check
    n_dice: int


@dataclass(frozen=True)
class FollowUp:
    """One tap after a roll: an engine event, or the next roll to set up."""

    label: str
    event: tuple[str, dict[str, Any]] | None = None
    next_kind: str | None = None
    picks: tuple[tuple[int, int], ...] = ()   # (team, player) to pick for ``next_kind``


@dataclass
class RollPanel:
    kind: RollKind = field(default_factory=lambda: KINDS[0])
    picks: dict[Role, list[int]] = field(default_factory=lambda: {ATTACKER: [], DEFENDER: []})
    # (team, player) -> faces in order; None: a die taken back for a Superstars re-roll
    dice_in: dict[tuple[int, int], list[int | None]] = field(default_factory=dict)
    pressure: int = 0
    distance: float | None = None
    distance_source: str = ""
    from_ground: bool = False
    extra: dict[tuple[int, int], int] = field(default_factory=dict)  # plays/skills: +dice
    source: str = ""                 # where the dice came from: "typed", "tower"
    boost: dict[tuple[int, int], int] = field(default_factory=dict)   # Superstars +1 each
    # Superstars re-rolls (3 tokens): (team, player) -> (which die, the face it replaced)
    rerolled: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)

    # -- who is involved ---------------------------------------------------------------------
    @staticmethod
    def attacking_team(state: TakkureState) -> int:
        return state.attacker if state.attacker is not None else 0

    def team_of(self, state: TakkureState, role: Role) -> int:
        a = self.attacking_team(state)
        return a if role == ATTACKER else 1 - a

    def choose(self, key: str, state: TakkureState | None = None) -> None:
        """Pick a roll. With ``state``, a roll the match does not allow now is refused with
        the reason (``kind_problem``)."""
        if key not in KIND:
            raise IllegalActionError(_("unknown roll {key!r}").format(key=key))
        if state is not None:
            why = kind_problem(state, KIND[key])
            if why:
                raise IllegalActionError(f"{_(KIND[key].title)}: {why}")
        self.kind = KIND[key]
        self.clear_dice()
        for role in (ATTACKER, DEFENDER):
            if not self._many(role):
                self.picks[role] = self.picks[role][-1:]

    def legal_kinds(self, state: TakkureState) -> list[tuple[RollKind, str | None]]:
        """Every roll with why it cannot be made now (None: it can)."""
        return [(k, kind_problem(state, k)) for k in KINDS]

    def choose_legal(self, state: TakkureState) -> None:
        """Keep the roll picked if the match allows it now, else the first roll it allows
        (a new match must not open on a roll its list greys out). Nothing changes when no
        roll is allowed (before the kick-off, at halftime)."""
        if kind_problem(state, self.kind) is None:
            return
        legal = [k for k, why in self.legal_kinds(state) if why is None]
        if legal:
            self.choose(legal[0].key)

    def _many(self, role: Role) -> bool:
        return any(p.many for p in self.kind.parts if p.role == role)

    def _part(self, role: Role) -> Part | None:
        for p in self.kind.parts:
            if p.role == role:
                return p
        return None

    def pick(self, state: TakkureState, team: int, player: int) -> None:
        """A tap on a player card: the attacking team's players fill the attacker side. A
        player who cannot take part is refused with the reason; a second tap takes a player
        back."""
        role: Role = ATTACKER if team == self.attacking_team(state) else DEFENDER
        chosen = self.picks[role]
        if player not in chosen:
            why = self.pick_problem(state, team, player)
            if why:
                raise IllegalActionError(why)
        if self._many(role):
            self.picks[role] = [i for i in chosen if i != player] if player in chosen \
                else chosen + [player]
        else:
            self.picks[role] = [] if chosen == [player] else [player]
        self.clear_dice()

    def pick_problem(self, state: TakkureState, team: int, player: int) -> str | None:
        """Why this player cannot roll in this roll, in the coaches' words (None: they can)."""
        role: Role = ATTACKER if team == self.attacking_team(state) else DEFENDER
        part = self._part(role)
        p = state.player(team, player)
        if part is None:
            other = "attacking" if role == DEFENDER else "defending"
            return (_("{p} is not on the {other} team: only {team} players roll in a {kind}").format(
                        p=p.name, other=other, team=state.teams[1 - team].name, kind=_(self.kind.title)))
        return participant_problem(state, team, player, part, self.kind)

    def picked(self, state: TakkureState, team: int, player: int) -> bool:
        role: Role = ATTACKER if team == self.attacking_team(state) else DEFENDER
        return player in self.picks[role]

    def missing(self, state: TakkureState) -> list[str]:
        """What the coach still has to tap or type before the roll can be resolved, and why
        a roll or a player picked earlier no longer fits the match."""
        out = []
        why = kind_problem(state, self.kind)
        if why:
            out.append(f"{_(self.kind.title)}: {why}")
        for part in self.kind.parts:
            team = self.team_of(state, part.role)
            for index in self.picks[part.role]:
                problem = participant_problem(state, team, index, part, self.kind)
                if problem:
                    out.append(problem)
        declared = self.declared_action(state)
        if declared is not None:
            problem = action_problem(state, *declared)
            if problem:
                out.append(problem)
        for part in self.kind.parts:
            team = self.team_of(state, part.role)
            if not self.picks[part.role]:
                out.append((_("tap the {team} players who roll {action}") if part.many else
                            _("tap the {team} player who rolls {action}")).format(
                    team=state.teams[team].name, action=action_words(part.action)))
            if part.distance and self.distance is None:
                out.append(_("type the {distance} distance in inches").format(distance=part.distance))
        return out

    def rollers(self, state: TakkureState) -> list[Roller]:
        out = []
        for part in self.kind.parts:
            team = self.team_of(state, part.role)
            for index in self.picks[part.role]:
                check = self._check(state, team, index, part)
                p = state.player(team, index)
                # 4.05 SKILL BY POSITION: "rolls two dice" (in a melee too: all the dice are
                # rolled at once and the best is kept)
                skilled = part.skill is not None and p.position_skill == part.skill \
                    and part.skill not in p.skills_lost
                n = 1 + int(skilled) + self.extra.get((team, index), 0)
                out.append(Roller(team, index, part, check, n))
        return out

    def _check(self, state: TakkureState, team: int, index: int, part: Part) -> dice.Check:
        p = state.player(team, index)
        if part.stat == ENDURANCE:
            return dice.Check(p.name, "BDY+PRT", int(p.stat("bdy") + p.stat("prt")))
        mods: list[dice.Modifier] = []
        if p.active_fatigue >= 3 and p.effective(part.stat) != p.stat(part.stat):
            mods.append(dice.Modifier(_("fatigue (3 active)"), -1))
        ground_pass = part.distance == "pass" and self.ground_pass(state)
        if part.distance == "pass" and self.distance is not None:
            mods += dice.pass_modifier(self.distance, from_ground=ground_pass)
        elif part.distance == "reception" and self.distance is not None:
            mods.append(dice.reception_modifier(self.distance))
        mods += list(part.fixed)
        if part.try_fatigue:
            mods += dice.try_fatigue(p.fatigue_tokens)
        # PRESSURE: "-1 ... to the characteristic associated with the second action"; a pass
        # from the ground is a first action (3.03), so it is not affected
        if part.pressure and not ground_pass:
            mods += dice.pressure(self.pressure)
        if self.boost.get((team, index)):
            mods.append(dice.Modifier("Superstars", self.boost[(team, index)]))
        return dice.Check(p.name, STAT_NAMES.get(part.stat, part.stat.upper()),
                          int(p.stat(part.stat)), tuple(mods))

    def ground_pass(self, state: TakkureState) -> bool:
        """A pass from the ground: the passer picked is GROUNDED (or, before a passer is
        picked, the coach's toggle)."""
        part = next((p for p in self.kind.parts if p.distance == "pass"), None)
        if part is None:
            return False
        picks = self.picks[part.role]
        if picks:
            return state.player(self.team_of(state, part.role), picks[0]).grounded
        return self.from_ground

    # -- dice and distances: the one entry point ---------------------------------------------
    def slots(self, state: TakkureState) -> list[tuple[Roller, list[int | None]]]:
        out = []
        for r in self.rollers(state):
            got = self.dice_in.get((r.team, r.player), [])
            out.append((r, [*got[:r.n_dice], *[None] * (r.n_dice - len(got[:r.n_dice]))]))
        return out

    def receive(self, state: TakkureState, faces: Sequence[int], *, team: int | None = None,
                source: str = "typed") -> None:
        """Dice in. ``team=None``: each face fills the next empty die (typed or tapped);
        ``team``: that coach's dice, in order, replacing what was there (the tower)."""
        for f in faces:
            dice._die(f)  # 1..12 or a clear refusal
        rollers = self.rollers(state)
        if not rollers:
            raise IllegalActionError(_("pick the players first: ") + "; ".join(self.missing(state)))
        if team is None:
            todo = list(faces)
            for r in rollers:
                got = self.dice_in.setdefault((r.team, r.player), [])
                while todo and None in got:          # a die taken back to be re-rolled
                    got[got.index(None)] = todo.pop(0)
                while todo and len(got) < r.n_dice:
                    got.append(todo.pop(0))
            if todo:
                raise IllegalActionError(_("every die of this roll is already in: tap a die to clear it"))
        else:
            mine = [r for r in rollers if r.team == team]
            if not mine:
                return
            holes = [(r, i) for r in mine
                     for i, f in enumerate(self.dice_in.get((r.team, r.player), [])) if f is None]
            if holes:
                # a Superstars re-roll: the tower's throw is the die taken back, the others stay
                if len(faces) != len(holes):
                    raise IllegalActionError(ngettext(
                        "{team}: {count} die to re-roll; the tower read {read}",
                        "{team}: {count} dice to re-roll; the tower read {read}", len(holes)
                    ).format(team=state.teams[team].name, count=len(holes), read=len(faces)))
                for (r, i), f in zip(holes, faces):
                    self.dice_in[(r.team, r.player)][i] = f
                self.source = source if not self.source or self.source == source else "mixed"
                return
            need = sum(r.n_dice for r in mine)
            if len(faces) != need:
                raise IllegalActionError(
                    (ngettext("{team}: {count} red D12 in this roll; the tower read {read}",
                              "{team}: {count} red D12s in this roll; the tower read {read}", need)
                     if TEAM_COLOURS[team] == "red" else
                     ngettext("{team}: {count} yellow D12 in this roll; the tower read {read}",
                              "{team}: {count} yellow D12s in this roll; the tower read {read}",
                              need)).format(team=state.teams[team].name, count=need,
                                            read=len(faces)))
            todo = list(faces)
            for r in mine:
                self.dice_in[(r.team, r.player)] = [todo.pop(0) for _ in range(r.n_dice)]
        self.source = source if not self.source or self.source == source else "mixed"

    def receive_tower(self, state: TakkureState, dice_json: Sequence[Mapping[str, Any]]) -> list[int]:
        """A dice tower throw: each coach's colour goes to that coach's rollers. Returns the
        teams whose dice were taken. A die not read cleanly refuses the whole throw."""
        taken = []
        teams = {r.team for r in self.rollers(state)}
        per_team = {t: dice.tower_dice(dice_json, TEAM_COLOURS[t]) for t in sorted(teams)}
        for t, faces in per_team.items():
            if faces:
                self.receive(state, faces, team=t, source="tower")
                taken.append(t)
        if not taken:
            wanted = " or ".join(TEAM_COLOURS[t] for t in sorted(teams)) or _("red or yellow")
            raise IllegalActionError(_("no {wanted} D12 in that throw").format(wanted=wanted))
        return taken

    def to_throw(self, state: TakkureState) -> list[tuple[int, int]]:
        """(team, how many D12s of its colour) a tower throw would fill now, as
        :meth:`receive_tower` takes them: a coach's dice taken back for a re-roll, or all of
        that coach's dice while any is missing (a throw replaces what was typed); nothing for
        a coach whose dice are all in. Empty while no player is picked."""
        try:
            rollers = self.rollers(state)
        except IllegalActionError:
            return []
        out = []
        for team in sorted({r.team for r in rollers}):
            mine = [r for r in rollers if r.team == team]
            got = [self.dice_in.get((r.team, r.player), []) for r in mine]
            holes = sum(f is None for faces in got for f in faces)
            complete = all(len(faces) >= r.n_dice for faces, r in zip(got, mine))
            count = holes if holes else (0 if complete else sum(r.n_dice for r in mine))
            if count:
                out.append((team, count))
        return out

    def throw_spec(self, state: TakkureState) -> str:
        """The simulated tower's throw for :meth:`to_throw` (``d12:red:* d12:yellow:*``):
        random faces, each coach's dice in that coach's colour."""
        return " ".join(f"d12:{TEAM_COLOURS[team]}:*"
                        for team, count in self.to_throw(state) for _ in range(count))

    def clear_die(self, team: int, player: int) -> None:
        self.dice_in.pop((team, player), None)

    def clear_dice(self) -> None:
        self.dice_in = {}
        self.source = ""
        self.boost = {}
        self.rerolled = {}

    def next_roll(self) -> None:
        """After a roll is recorded (or the ball changes sides): the roll kind stays, but
        who rolls, their dice, the distance, PRESSURE, extra dice and a pass from the ground
        belong to that roll only and are cleared."""
        self.picks = {ATTACKER: [], DEFENDER: []}
        self.clear_dice()
        self.pressure = 0
        self.distance = None
        self.distance_source = ""
        self.from_ground = False
        self.extra = {}

    def measured(self, state: TakkureState) -> list[tuple[int, int]]:
        """The picked player (team, index) the roll's distance is measured from: the passer
        of a pass, the receiver of a reception. Other picks (the tackler of Tackle vs Pass)
        are not part of the distance: the other end is tapped on the table image."""
        part = next((p for p in self.kind.parts if p.distance), None)
        if part is None:
            return []
        team = self.team_of(state, part.role)
        return [(team, i) for i in self.picks[part.role][:1]]

    # -- Superstars (5.07): tokens spent on this roll, recorded with it -----------------------
    def _tokens_left(self, state: TakkureState, team: int) -> int:
        spent = sum(n for (t, _), n in self.boost.items() if t == team) \
            + SUPERSTARS_REROLL * sum(1 for (t, _) in self.rerolled if t == team)
        return state.teams[team].skill_tokens - spent

    def superstars(self, state: TakkureState, team: int, player: int, delta: int) -> None:
        """"1x: Before making a roll, add +1 to the attribute you are using for the roll (up
        to a maximum of +3)"."""
        t = state.teams[team]
        key = (team, player)
        if not any((r.team, r.player) == key for r in self.rollers(state)):
            raise IllegalActionError(_("{name} does not roll here").format(
                                         name=state.player(team, player).name))
        if t.team_skill != "teriomorphs":
            raise IllegalActionError(_("{t} have no Superstars tokens").format(t=t.name))
        n = self.boost.get(key, 0) + delta
        if delta > 0 and self.dice_in.get(key):
            raise IllegalActionError(_("Superstars +1 is spent before making the roll: clear the dice "
                                       "first"))
        if not 0 <= n <= SUPERSTARS_MAX:
            raise IllegalActionError(_("Superstars: +{superstars_max} at most to one roll").format(
                                         superstars_max=SUPERSTARS_MAX))
        if delta > 0 and self._tokens_left(state, team) < delta:
            raise IllegalActionError(_("{t} have no Superstars token left to spend").format(t=t.name))
        if n:
            self.boost[key] = n
        else:
            self.boost.pop(key, None)

    def reroll_choices(self, state: TakkureState, team: int, player: int) -> list[int]:
        """The faces of this player's dice, in order: the dice a re-roll can take back."""
        got = self.dice_in.get((team, player), [])
        n = next((r.n_dice for r in self.rollers(state) if (r.team, r.player) == (team, player)), 0)
        return [f for f in got[:n] if f is not None]

    def reroll(self, state: TakkureState, team: int, player: int, die: int | None = None) -> None:
        """"3x: Reroll a die. (Only once per roll)": the coach picks which of the player's dice
        (``die``, its place in the player's dice; needed when the player rolled more than
        one); that die alone is typed or thrown again, the others stay."""
        t = state.teams[team]
        key = (team, player)
        if t.team_skill != "teriomorphs":
            raise IllegalActionError(_("{t} have no Superstars tokens").format(t=t.name))
        if any(k[0] == team for k in self.rerolled):
            raise IllegalActionError(_("Superstars: a die is re-rolled only once per roll"))
        faces = self.reroll_choices(state, team, player)
        got = self.dice_in.get(key, [])
        if not faces or len(faces) < len(got) or None in got:
            raise IllegalActionError(_("roll first: a die is re-rolled after the roll"))
        if die is None and len(faces) == 1:
            die = 0
        if die is None:
            raise IllegalActionError(_("{name} rolled {count} dice: pick the die to re-roll").format(
                                         name=state.player(team, player).name, count=len(faces)))
        if isinstance(die, bool) or not isinstance(die, int) or not 0 <= die < len(faces):
            raise IllegalActionError(_("{name} has no die {number} to re-roll").format(
                                         name=state.player(team, player).name,
                                         number=die + 1 if isinstance(die, int) else die))
        if self._tokens_left(state, team) < SUPERSTARS_REROLL:
            raise IllegalActionError(_("{t} need {superstars_reroll} Superstars tokens to re-roll "
                                     "a die").format(
                                         t=t.name, superstars_reroll=SUPERSTARS_REROLL))
        self.rerolled[key] = (die, faces[die])
        self.dice_in[key] = [None if i == die else f for i, f in enumerate(faces)]

    def set_distance(self, inches: float | None, source: str = "typed") -> None:
        if inches is not None:
            dice._distance(inches)
        self.distance = None if inches is None else float(inches)
        self.distance_source = source if inches is not None else ""

    def set_pressure(self, n: int) -> None:
        self.pressure = max(0, min(6, n))

    def add_die(self, team: int, player: int, delta: int) -> None:
        key = (team, player)
        self.extra[key] = max(0, min(2, self.extra.get(key, 0) + delta))
        self.dice_in.pop(key, None)

    # -- the outcome -------------------------------------------------------------------------
    def ready(self, state: TakkureState) -> bool:
        if self.missing(state):
            return False
        return all(None not in faces for _, faces in self.slots(state))

    def multiple(self) -> bool:
        """Several tacklers on one carrier: a multiple face-to-face roll."""
        return self.kind.mode == "face_to_face" and len(self.picks[DEFENDER]) > 1

    def pairings(self, state: TakkureState) -> list[tuple[Roller, dice.Resolution]] | None:
        """MULTIPLE FACE-TO-FACE ROLL: the carrier's dice are assigned to the tacklers in the
        order they were tapped, one die each ("Players you don't assign a die to, will each
        make an unopposed roll"); each pairing is its own roll. DECISION: a carrier with more
        dice than tacklers adds the spare dice to the first pairing (keep the best)."""
        if not self.multiple() or not self.ready(state):
            return None
        (active, a_faces), *defs = self.slots(state)
        mine = [f for f in a_faces if f is not None]
        out = []
        for k, (d, faces) in enumerate(defs):
            theirs = [f for f in faces if f is not None]
            if k < len(mine):
                assigned = [mine[k]] + (mine[len(defs):] if k == 0 else [])
                out.append((d, dice.face_to_face((active.check, assigned), (d.check, theirs))))
            else:
                out.append((d, dice.unopposed(d.check, *theirs)))
        return out

    def resolve(self, state: TakkureState) -> dice.Resolution | None:
        if not self.ready(state) or self.multiple():
            return None
        entries = [(r.check, [f for f in faces if f is not None]) for r, faces in self.slots(state)]
        if self.kind.mode == "face_to_face":
            return dice.face_to_face(*entries)
        if self.kind.mode == "melee":
            return dice.melee(*entries)
        return dice.unopposed(entries[0][0], *entries[0][1])

    def explain(self, state: TakkureState) -> str:
        """The sentence the coach reads; empty until every die is in."""
        if self.multiple():
            pairs = self.pairings(state)
            return "" if pairs is None else _explain_multiple(self, state, pairs)
        res = self.resolve(state)
        if res is None:
            return ""
        if self.kind.mode == "endurance":
            ok = res.winner is not None
            return res.text() + (_("; no damage") if ok else _("; +1 WOUND"))
        effect = "; ".join(e for e in (_effects(self, state, res),) if e)
        return res.text() + (f" -> {effect}" if effect else "")

    def record(self, state: TakkureState) -> tuple[str, dict[str, Any]]:
        """The event that records this roll in the match journal."""
        if not self.ready(state):
            raise IllegalActionError(_("the roll is not complete: ") + "; ".join(self.missing(state))
                                     if self.missing(state) else _("the roll is not complete: dice missing"))
        rollers = self.rollers(state)
        if self.kind.mode == "endurance" or self.kind.key == "bdy_roll":
            r = rollers[0]
            return ("takkure.endurance" if self.kind.mode == "endurance" else "takkure.bdy_roll",
                    {"team": r.team, "player": r.player,
                     "roll": self.dice_in[(r.team, r.player)][0]})
        data: dict[str, Any] = {
            "text": self.explain(state), "kind": self.kind.key, "source": self.source or "typed",
            "rolls": [{"team": r.team, "player": r.player, "action": r.part.action,
                       "target": r.check.target, "dice": list(self.dice_in[(r.team, r.player)])}
                      for r in rollers]}
        if self.distance is not None and any(p.distance for p in self.kind.parts):
            data["distance_in"] = self.distance
            data["distance_source"] = self.distance_source
        declared = self.declared_action(state)
        if declared is not None:
            data["action"] = {"team": declared[0], "player": declared[1], "action": declared[2]}
        if self.boost:
            data["superstars"] = [{"team": t, "player": i, "tokens": n}
                                  for (t, i), n in sorted(self.boost.items())]
        if self.rerolled:
            data["rerolls"] = [{"team": t, "player": i, "die": die, "dice": [face]}
                               for (t, i), (die, face) in sorted(self.rerolled.items())]
        return "takkure.roll", data

    def declared_action(self, state: TakkureState) -> tuple[int, int, str] | None:
        """The active player's action this roll is (a second action, or a pass from the
        ground, which is a first action). A melee rolled again after a tie goes on with the
        action declared already."""
        if state.activation is None:
            return None
        for r in self.rollers(state):
            if (r.team, r.player) != state.activation:
                continue
            action = r.part.action
            if action == "PASS" and self.ground_pass(state):
                action = _("PASS FROM THE GROUND")
            if action in SECOND_ACTION_ROLLS + ("PASS FROM THE GROUND",) \
                    and not (self.kind.mode == "melee" and action in state.acts):
                return (r.team, r.player, action)
        return None

    def follow_ups(self, state: TakkureState) -> list[FollowUp]:
        if self.multiple():
            pairs = self.pairings(state)
            return [] if pairs is None else _follow_ups_multiple(self, state, pairs)
        res = self.resolve(state)
        if res is None:
            return []
        return _follow_ups(self, state, res)


# ----------------------------------------------------------------------------- consequences

def _by_action(panel: RollPanel, state: TakkureState, res: dice.Resolution
               ) -> dict[str, list[tuple[Roller, dice.Rolled]]]:
    out: dict[str, list[tuple[Roller, dice.Rolled]]] = {}
    for roller, rolled in zip(panel.rollers(state), res.results):
        out.setdefault(roller.part.action, []).append((roller, rolled))
    return out


def _won(rolled: dice.Rolled) -> bool:
    return rolled.outcome == "success"


def _effects(panel: RollPanel, state: TakkureState, res: dice.Resolution) -> str:
    """What the result means at the table, from the action descriptions (1.18-1.20, ball
    actions)."""
    acts = _by_action(panel, state, res)
    name = lambda r: state.player(r.team, r.player).name  # noqa: E731
    out: list[str] = []
    if res.tied and panel.kind.mode == "melee":
        return ""
    if "TACKLE" in acts:
        for roller, rolled in acts["TACKLE"]:
            carrier = acts.get(next((k for k in acts if k != "TACKLE"), ""), [])
            held = state.player(*state.ball).name if state.ball is not None else _("the carrier")
            target = name(carrier[0][0]) if carrier else held
            if _won(rolled):
                if rolled.critical:
                    out.append(_("tackle succeeds (critical): both GROUNDED, {target} takes a WOUND").format(
                                   target=target))
                else:
                    out.append(_("tackle succeeds: both GROUNDED, {target} rolls ENDURANCE").format(
                                   target=target))
            elif rolled.outcome == "fail" and panel.kind.mode != "melee":
                out.append(_("tackle fails: {name} rolls REF (a fail: GROUNDED, ENDURANCE)").format(
                               name=name(roller)))
            elif rolled.outcome in ("cancelled", "tie") and panel.kind.mode != "melee":
                out.append(_("tackle cancelled: not performed, nobody GROUNDED"))
    for action, entries in acts.items():
        for roller, rolled in entries:
            who = name(roller)
            win = _won(rolled)
            if action == "DODGE" and win:
                out.append(_("{who} dodges: move {inches}\"").format(
                    who=who, inches=4 if rolled.critical else 2))
            elif action == "BREAK THROUGH" and win:
                out.append(_("breaks through: the tackler is GROUNDED and ")
                           + (_("takes a WOUND") if rolled.critical else _("rolls ENDURANCE")))
            elif action == "PASS":
                if win:
                    out.append(_("the ball reaches the receiver")
                               + (_(' (critical: the receiver may move 2")') if rolled.critical else ""))
                elif panel.kind.mode == "unopposed" or all(r.outcome == "fail" for r in res.results):
                    out.append(_("missed: the receiver rolls BALL RECEPTION"))
                else:
                    out.append(_("the pass is not performed, no RECEPTION roll"))
            elif action == "RECEPTION":
                out.append(_("{who} catches the ball").format(
                               who=who) if win else _("dropped: the ball is loose, scatter it"))
            elif action in ("PICK UP", "CATCH") and win:
                out.append(_("{who} has the ball").format(who=who))
            elif action in ("STEAL", "INTERCEPTION") and win:
                out.append(_("{who} steals the ball").format(who=who))
            elif action == "INTERCEPTION" and not win:
                out.append(_("the pass continues as normal"))
            elif action == "SCORE A TRY":
                out.append("TRY!" if win else _("no try"))
            elif action == "BDY ROLL":
                out.append(_("{who} may act").format(
                               who=who) if win else _("{who} performs no action this activation").format(
                                                            who=who))
            elif action == "KICK-OFF":
                out.append(_("place the ball anywhere along the scatter template's edge") if win
                           else _("place the ball in the centre of the template and make a scatter roll"))
            elif action == "REF after a missed TACKLE":
                out.append(_("stays up") if win else _("{who} is GROUNDED and rolls ENDURANCE").format(
                                                      who=who))
    return "; ".join(o for o in out if o)


@dataclass(frozen=True)
class _Who:
    team: int
    player: int


def _explain_multiple(panel: RollPanel, state: TakkureState,
                      pairs: list[tuple[Roller, dice.Resolution]]) -> str:
    """Each pairing in order; "As soon as the active player is GROUNDED, no more rolls are
    made"; a DODGE moves once, "only in the case of NOT being ON THE GROUND"."""
    active = panel.rollers(state)[0]
    me = state.player(active.team, active.player).name
    action = active.part.action
    parts: list[str] = []
    dodged: list[dice.Rolled] = []
    for k, (tackler, res) in enumerate(pairs):
        t = state.player(tackler.team, tackler.player).name
        mine = res.results[0] if len(res.results) == 2 else None
        theirs = res.results[-1]
        if mine is not None and mine.outcome == "success":
            if action == "DODGE":
                dodged.append(mine)
                effect = f"{me} dodges {t}"
            else:
                effect = (_("{t} is GROUNDED and ").format(t=t)
                          + (_("takes a WOUND") if mine.critical else _("rolls ENDURANCE")))
        elif theirs.outcome == "success":
            effect = (_("{t} tackles {me}: both GROUNDED, {me} ").format(t=t, me=me)
                      + (_("takes a WOUND") if theirs.critical else _("rolls ENDURANCE")))
        elif theirs.outcome == "fail":
            effect = _("{t}'s tackle fails: {t} rolls REF").format(t=t)
        else:
            effect = _("{t}'s tackle is cancelled").format(t=t)
        parts.append(_("vs {t}: {result} -> {effect}").format(t=t, result=res.text(),
                                                                   effect=effect))
        if theirs.outcome == "success" and not (mine is not None and mine.outcome == "success"):
            rest = [state.player(r.team, r.player).name for r, _ in pairs[k + 1:]]
            if rest:
                parts.append(_("{rest}: no roll, {me} is GROUNDED").format(rest=', '.join(rest), me=me))
            return " | ".join(parts)
    if dodged:
        far = "4" if any(r.critical for r in dodged) else "2"
        parts.append(_('{me} dodges: move {far}" (once)').format(me=me, far=far))
    return " | ".join(parts)


class _Consequences:
    """The follow-ups a roll's outcome offers for one roller: GROUNDED, a wound or an
    ENDURANCE roll, the Teriomorphs' Superstars token."""

    def __init__(self, panel: RollPanel, state: TakkureState) -> None:
        self.panel, self.state = panel, state

    def name(self, r: Roller) -> str:
        return self.state.player(r.team, r.player).name

    @staticmethod
    def who(r: Roller) -> dict[str, Any]:
        return {"team": r.team, "player": r.player}

    def ground(self, r: Roller) -> FollowUp:
        return FollowUp(f"{self.name(r)} GROUNDED",
                        ("takkure.grounded", {**self.who(r), "value": True}))

    def hurt(self, r: Roller, critical: bool) -> FollowUp:
        if critical:
            return FollowUp(_("{name} +1 WOUND").format(name=self.name(r)), ("takkure.wound", self.who(r)))
        role = "attacker" if r.team == self.panel.attacking_team(self.state) else "defender"
        return FollowUp(f"ENDURANCE: {self.name(r)}", next_kind=f"endurance_{role}",
                        picks=((r.team, r.player),))

    def superstar(self, r: Roller) -> list[FollowUp]:
        if self.state.teams[r.team].team_skill == "teriomorphs":
            return [FollowUp("Superstars +1 token", ("takkure.skill_token",
                                                     {"team": r.team, "delta": 1}))]
        return []


def _follow_ups_multiple(panel: RollPanel, state: TakkureState,
                         pairs: list[tuple[Roller, dice.Resolution]]) -> list[FollowUp]:
    active = panel.rollers(state)[0]
    out: list[FollowUp] = []
    c = _Consequences(panel, state)
    name, ground, hurt, superstar = c.name, c.ground, c.hurt, c.superstar
    for tackler, res in pairs:
        mine = res.results[0] if len(res.results) == 2 else None
        theirs = res.results[-1]
        if mine is not None and mine.outcome == "success":
            if active.part.action == "BREAK THROUGH":
                out += [ground(tackler), hurt(tackler, mine.critical), *superstar(active)]
        elif theirs.outcome == "success":
            out += [ground(tackler), ground(active), hurt(active, theirs.critical),
                    *superstar(tackler)]
            break                       # the carrier is GROUNDED: no more rolls
        elif theirs.outcome == "fail":
            out.append(FollowUp(_("REF roll: {name}").format(name=name(tackler)), next_kind="tackle_ref",
                                picks=((tackler.team, tackler.player),)))
    return out


def _follow_ups(panel: RollPanel, state: TakkureState, res: dice.Resolution) -> list[FollowUp]:
    acts = _by_action(panel, state, res)
    out: list[FollowUp] = []
    c = _Consequences(panel, state)
    name, who, ground, hurt, superstar = c.name, c.who, c.ground, c.hurt, c.superstar

    if res.tied and panel.kind.mode == "melee":
        tied = [panel.rollers(state)[i] for i in res.tied]
        return [FollowUp("Roll again: " + ", ".join(name(r) for r in tied), next_kind=panel.kind.key,
                         picks=tuple((r.team, r.player) for r in tied))]
    others = [(r, x) for k, v in acts.items() if k != "TACKLE" for r, x in v]
    # an unopposed TACKLE (the carrier does something else): the tackled player is the ball
    # carrier, who is GROUNDED and rolls ENDURANCE too (1.20 TACKLE (EXECUTION))
    carrier: Any = others[0][0] if others else (
        _Who(*state.ball) if state.ball is not None else None)
    for roller, rolled in acts.get("TACKLE", []):
        if _won(rolled):
            out.append(ground(roller))
            if carrier is not None:
                out += [ground(carrier), hurt(carrier, rolled.critical)]
            out += superstar(roller)
        elif rolled.outcome == "fail" and panel.kind.mode != "melee":
            out.append(FollowUp(_("REF roll: {name}").format(name=name(roller)), next_kind="tackle_ref",
                                picks=((roller.team, roller.player),)))
    tacklers = [r for r, _ in acts.get("TACKLE", [])]
    for roller, rolled in others:
        win = _won(rolled)
        action = roller.part.action
        if action == "BREAK THROUGH" and win:
            for t in tacklers:
                out += [ground(t), hurt(t, rolled.critical)]
            out += superstar(roller)
        elif action == "PASS" and not win and (panel.kind.mode == "unopposed"
                                               or all(r.outcome == "fail" for r in res.results)):
            out.append(FollowUp(_("BALL RECEPTION roll"), next_kind="reception"))
        elif action in ("RECEPTION", "PICK UP", "CATCH") and win:
            out.append(FollowUp(_("Ball to {name}").format(
                                    name=name(roller)), ("takkure.ball", who(roller))))
        elif action == "RECEPTION" and not win:
            out.append(FollowUp(_("Ball loose"), ("takkure.ball", {})))
        elif action in ("STEAL", "INTERCEPTION") and win:
            out.append(FollowUp(_("{name} steals the ball").format(
                                    name=name(roller)), ("takkure.steal", who(roller))))
        elif action == "SCORE A TRY":
            tackled = any(_won(x) for _, x in acts.get("TACKLE", []))
            if win:
                out.append(FollowUp("TRY!", ("takkure.try", {"success": True})))
            elif not tackled:
                out.append(FollowUp(_("Failed try: kick-off"), ("takkure.try", {"success": False})))
        elif action == "REF after a missed TACKLE" and not win:
            out += [ground(roller), hurt(roller, False)]
    return out
