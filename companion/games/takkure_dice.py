"""Takkure dice resolution, explained: pure functions over characteristics, modifiers and D12s.

Follows ``shared/rules/takkure.md`` ("Dice" and "Modifiers", rulebook 1.14-1.17, 3.07-3.08,
4.06). A roll succeeds when the D12 is at most the modified characteristic; 1 is a critical
(always succeeds) and 12 a fumble (always fails). Every result carries the sentence a coach
reads on the screen, e.g. ``"STR 8 -1 pressure = 7; rolled 5: success"``.

Nothing here knows about players or the match: the engine (``takkure.py``) and the screen pass
in numbers and names. Distances are inches, typed or (later) measured by the camera.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..errors import IllegalActionError
from ..i18n import N_, _, pgettext

CRITICAL = 1
FUMBLE = 12
Outcome = Literal["success", "fail", "cancelled", "tie", "reroll"]


@dataclass(frozen=True, slots=True)
class Modifier:
    label: str
    value: int

    def text(self) -> str:
        return f"{self.value:+d} {_(self.label)}"


# -- modifiers from the tables (distances in inches) ------------------------------------------

# (upper bound of the band, modifier); a distance exactly on a bound takes the better
# (earlier) band: 2.0" is "0"-2"" for a pass, +4.
PASS_BANDS = ((2.0, 4), (4.0, 2), (8.0, 0))
PASS_BEYOND = -2
RECEPTION_BANDS = ((2.0, 2), (4.0, 0), (8.0, -2))
RECEPTION_BEYOND = -4
PRESSURE_RANGE_IN = 2.0


def _distance(inches: float) -> float:
    if not isinstance(inches, (int, float)) or inches != inches or inches < 0:
        raise IllegalActionError(_("a distance is a number of inches, 0 or more, not {inches!r}").format(
                                     inches=inches))
    return float(inches)


def _band(inches: float, bands: tuple[tuple[float, int], ...], beyond: int) -> int:
    for bound, value in bands:
        if inches <= bound:
            return value
    return beyond


def pass_modifier(inches: float, *, from_ground: bool = False) -> list[Modifier]:
    """The pass distance modifier (and -2 from the ground, where 8" is the limit)."""
    d = _distance(inches)
    if from_ground and d > 8.0:
        raise IllegalActionError(_('a pass from the ground cannot go beyond 8" ({d:g}" asked)').format(d=d))
    mods = [Modifier(_('pass {d:g}"').format(d=d), _band(d, PASS_BANDS, PASS_BEYOND))]
    if from_ground:
        mods.append(Modifier(_("pass from the ground"), -2))
    return mods


def reception_modifier(inches: float) -> Modifier:
    d = _distance(inches)
    return Modifier(_('reception {d:g}"').format(d=d), _band(d, RECEPTION_BANDS, RECEPTION_BEYOND))


def pressure(defenders: int) -> list[Modifier]:
    """-1 per defending player within 2" doing PRESSURE (they stack)."""
    if defenders < 0:
        raise IllegalActionError(_("the number of pressing defenders cannot be negative"))
    if not defenders:
        return []
    return [Modifier(_("pressure") if defenders == 1 else _("pressure x{count}").format(count=defenders),
                     -defenders)]


PICK_UP = Modifier(N_("ball pick-up"), 4)
STEAL_LOOSE = Modifier(N_("steal a loose ball"), 4)
STEAL_GROUNDED = Modifier(N_("steal from a grounded carrier"), 0)
INTERCEPTION = Modifier(N_("interception"), -2)
KICKOFF_CATCH_CLOSE = Modifier(N_('kick-off caught within 2"'), -2)


def try_fatigue(tokens: int) -> list[Modifier]:
    """SCORE A TRY: -1 BaC per fatigue token, active or not."""
    return [Modifier(_("fatigue") if tokens == 1 else _("fatigue x{count}").format(count=tokens),
                     -tokens)] if tokens else []


# -- a characteristic and a die ----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Check:
    """Who rolls against what: "Yokozuna", "STR", 8 and the modifiers that apply."""

    who: str
    stat: str
    base: int
    modifiers: tuple[Modifier, ...] = ()

    @property
    def target(self) -> int:
        return self.base + sum(m.value for m in self.modifiers)

    def text(self) -> str:
        mods = "".join(f" {m.text()}" for m in self.modifiers)
        return f"{self.stat} {self.base}{mods} = {self.target}" if mods else f"{self.stat} {self.base}"


def _die(roll: int) -> int:
    if isinstance(roll, bool) or not isinstance(roll, int) or not 1 <= roll <= 12:
        raise IllegalActionError(_("a D12 shows 1 to 12, not {roll!r}").format(roll=roll))
    return roll


def succeeds(roll: int, target: int) -> bool:
    roll = _die(roll)
    return roll == CRITICAL or (roll != FUMBLE and roll <= target)


OUTCOME_WORDS = {"critical": N_("critical"), "fumble": N_("fumble"), "success": N_("success"),
                 "fail": N_("fail"), "cancelled": N_("cancelled"), "tie": N_("tie"),
                 "reroll": N_("roll again")}


def _roll_word(roll: int, target: int) -> str:
    """The die's verdict in the player's language (the outcome keys stay English)."""
    if roll == CRITICAL:
        return _(OUTCOME_WORDS["critical"])
    if roll == FUMBLE:
        return _(OUTCOME_WORDS["fumble"])
    return _(OUTCOME_WORDS["success" if roll <= target else "fail"])


@dataclass(frozen=True, slots=True)
class Rolled:
    check: Check
    roll: int
    outcome: Outcome
    others: tuple[int, ...] = ()  # extra dice rolled and not kept

    @property
    def success(self) -> bool:
        return succeeds(self.roll, self.check.target)

    @property
    def critical(self) -> bool:
        return self.roll == CRITICAL

    def text(self) -> str:
        kept = _("rolled {roll}").format(roll=self.roll)
        if self.others:
            kept = _("rolled {items}, kept {roll}").format(
                       items=', '.join(str(r) for r in (self.roll, *self.others)), roll=self.roll)
        word = _roll_word(self.roll, self.check.target)
        tail = "" if self.outcome in ("success", "fail") else \
            f" -> {_(OUTCOME_WORDS.get(self.outcome, self.outcome))}"
        return _("{player}: {check}; {rolled}: {verdict}{then}").format(
            player=self.check.who, check=self.check.text(), rolled=kept, verdict=word, then=tail)


@dataclass(frozen=True, slots=True)
class Resolution:
    kind: str
    results: tuple[Rolled, ...]
    winner: int | None  # index into results, None when nobody won
    tied: tuple[int, ...] = ()  # melee: who rolls again
    notes: tuple[str, ...] = field(default_factory=tuple)

    def outcome_of(self, who: str) -> Outcome:
        for r in self.results:
            if r.check.who == who:
                return r.outcome
        raise KeyError(who)

    def text(self) -> str:
        parts = [r.text() for r in self.results]
        if self.kind != "unopposed":
            if self.winner is not None:
                parts.append(_("{player} wins").format(player=self.results[self.winner].check.who))
            elif self.tied and self.kind == "melee":
                parts.append(_("tie for best: ") + ", ".join(self.results[i].check.who for i in self.tied)
                             + _(" roll again"))
            elif all(r.outcome == "fail" for r in self.results):
                parts.append(_("nobody succeeds"))
            else:
                parts.append(_("tie: all cancelled"))
        return pgettext("between the results of a roll", "; ").join(parts + list(self.notes))


def _rank(roll: int, target: int) -> tuple[int, int]:
    """Order successes: a critical beats everything, then the higher die."""
    return (1 if roll == CRITICAL else 0, roll if roll != CRITICAL else 0)


def best_die(check: Check, rolls: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """Multiple dice, keep the best: a critical, else the highest success, else (all failed)
    the lowest die. Returns (kept, the others in the order rolled)."""
    if not rolls:
        raise IllegalActionError(_("{who} has no die to keep").format(who=check.who))
    rolls = [_die(r) for r in rolls]
    successes = [r for r in rolls if succeeds(r, check.target)]
    kept = max(successes, key=lambda r: _rank(r, check.target)) if successes else min(rolls)
    others = list(rolls)
    others.remove(kept)
    return kept, tuple(others)


def unopposed(check: Check, *rolls: int) -> Resolution:
    """One player against their own characteristic (several dice: the best is kept)."""
    kept, others = best_die(check, rolls)
    ok = succeeds(kept, check.target)
    r = Rolled(check, kept, "success" if ok else "fail", others)
    return Resolution("unopposed", (r,), 0 if ok else None)


def face_to_face(*entries: tuple[Check, int | Sequence[int]]) -> Resolution:
    """Everyone rolls against their own characteristic.

    None succeeds: all fail. One succeeds: it wins, the others fail. Several succeed: the
    highest successful die wins and the others are cancelled (not failed); equal highest is
    a tie and everyone is cancelled. A critical beats any non-critical; several criticals tie.
    """
    if len(entries) < 2:
        raise IllegalActionError(_("a face-to-face roll needs at least two players"))
    kept: list[tuple[Check, int, tuple[int, ...]]] = []
    for check, dice in entries:
        rolls = [dice] if isinstance(dice, int) else list(dice)
        k, others = best_die(check, rolls)
        kept.append((check, k, others))
    ok = [i for i, (c, r, _) in enumerate(kept) if succeeds(r, c.target)]
    if not ok:
        results = tuple(Rolled(c, r, "fail", o) for c, r, o in kept)
        return Resolution("face_to_face", results, None)
    if len(ok) == 1:
        results = tuple(Rolled(c, r, "success" if i == ok[0] else "fail", o)
                        for i, (c, r, o) in enumerate(kept))
        return Resolution("face_to_face", results, ok[0])
    best = max(_rank(kept[i][1], kept[i][0].target) for i in ok)
    top = [i for i in ok if _rank(kept[i][1], kept[i][0].target) == best]
    winner = top[0] if len(top) == 1 else None
    rolled: list[Rolled] = []
    for i, (c, r, o) in enumerate(kept):
        if i not in ok:
            outcome: Outcome = "fail"
        elif i == winner:
            outcome = "success"
        else:
            outcome = "cancelled" if winner is not None else "tie"
        rolled.append(Rolled(c, r, outcome, o))
    return Resolution("face_to_face", tuple(rolled), winner)


def multiple_face_to_face(active: Check, pairings: Sequence[tuple[Check, int | None, int]]
                          ) -> list[Resolution]:
    """The active player assigns one of their dice to each defender: ``(defender check,
    defender's die or None, the active die assigned)``. Each pairing is resolved on its own in
    the order given; a defender without a die rolls unopposed (their die is then the third
    value and the active die is not used)."""
    out = []
    for defender, defender_roll, active_roll in pairings:
        if defender_roll is None:
            out.append(unopposed(defender, active_roll))
        else:
            out.append(face_to_face((active, active_roll), (defender, defender_roll)))
    return out


def melee(*entries: tuple[Check, int | Sequence[int]]) -> Resolution:
    """All dice at once (scrums, a try against several tacklers): the best success wins;
    equal best successes roll again between the tied players. A player with several dice
    (Expert Tackler) keeps their best, as in any roll."""
    if len(entries) < 2:
        raise IllegalActionError(_("a melee needs at least two players"))
    rolled = []
    for c, r in entries:
        kept, others = best_die(c, [r] if isinstance(r, int) else list(r))
        rolled.append((c, kept, others))
    ok = [i for i, (c, r, _) in enumerate(rolled) if succeeds(r, c.target)]
    if not ok:
        return Resolution("melee", tuple(Rolled(c, r, "fail", o) for c, r, o in rolled), None)
    best = max(_rank(rolled[i][1], rolled[i][0].target) for i in ok)
    top = tuple(i for i in ok if _rank(rolled[i][1], rolled[i][0].target) == best)
    if len(top) > 1:
        results = tuple(Rolled(c, r, "reroll" if i in top else ("fail" if i not in ok else "cancelled"), o)
                        for i, (c, r, o) in enumerate(rolled))
        return Resolution("melee", results, None, top)
    results = tuple(Rolled(c, r, "success" if i == top[0] else ("cancelled" if i in ok else "fail"), o)
                    for i, (c, r, o) in enumerate(rolled))
    return Resolution("melee", results, top[0])


# -- dice from the tower ------------------------------------------------------------------------

def tower_dice(dice_json: Sequence[Mapping[str, object]], colour: str) -> list[int]:
    """The D12 faces of one coach's colour in a dice tower roll (``dice.roll`` data): Takkure
    uses 3 red and 3 yellow D12s, so one throw can carry both coaches' dice.

    A die of that colour that was not read cleanly stops everything: nothing is resolved on
    a partial roll (the player re-rolls it or types it)."""
    faces = []
    for die in dice_json:
        if die.get("kind") != "d12" or die.get("colour") != colour:
            continue
        if die.get("status", "clean") != "clean" or die.get("face") is None:
            raise IllegalActionError(_("a {colour} die is {status}: roll it again or type its face").format(
                                         colour=_(colour), status=_(str(die.get("status", "unreadable")))))
        faces.append(_die(int(str(die["face"]))))
    return faces
