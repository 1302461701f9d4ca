"""Tag Team: the pure rules engine (simultaneous turn resolution, HP tracks, power).

Follows ``shared/rules/tag-team.md`` (rulebook ``shared/seeds/tag-team.fr.txt``, French).
Each player has two Fighters with an HP track (top cell = maximum, bottom = KO) carrying
STOP, POWER GAIN and fighter-specific icons, and a power reserve. Both players reveal a card
at once; the players enter what their card does and the engine resolves both together:

* attack power is the attacker's power at the START of the turn; attacks on one fighter add
  up; direct damage is not an attack (never blocked) but adds to the loss;
* a block cancels every attack of the other team this turn; if it cancelled at least one,
  its bonus happens once;
* heal is netted against loss; a KO'd fighter heals no more;
* markers stop on a STOP cell reached going up or down;
* icons trigger when reached or crossed (not when left), all after every marker moved;
* transfers move as much as possible, never more than the giver has;
* a KO at the end of a turn loses; one KO each side is a draw; a KO by hand (``adjust``)
  loses at once (edition 3).

Players are 0 and 1, fighters 0 and 1 within a team.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import IllegalActionError
from ..i18n import N_, _, ngettext
from ..registry import ConfigFile, GameEntry, HomeTile
from .base import RULES_EDITION, evolve, items, mapping, rules_edition, whole

REFS = ("self", "partner", "opponent", "opponent_partner")
EFFECTS = ("attack", "direct", "block", "heal", "power", "transfer")
STOP, POWER_GAIN = "stop", "power_gain"
CONSTRUCTION_CARDS = 18   # "les 9 cartes restantes de ses 2 Decks ... un paquet de 18 cartes"
STARTING_CARDS = 2        # the two starting cards make the first Combat deck
DRAW = 3                  # "Prenez les trois premières cartes de votre Deck de Construction"

Phase = Literal["combat", "building", "over"]


# ----------------------------------------------------------------------------- config

@dataclass(frozen=True)
class IconConfig:
    hp: int
    icon: str          # "stop", "power_gain", or a fighter-specific icon's name


@dataclass(frozen=True)
class FighterConfig:
    name: str
    max_hp: int
    initial_power: int
    icons: tuple[IconConfig, ...] = ()
    start_hp: int = 0          # 0: start on the top cell
    other_side: str = ""       # a double-sided board (Bödvar / Ours Berserk)
    defaults: tuple[str, ...] = ()

    def validate(self) -> tuple[str, str] | None:
        if not self.name.strip():
            return ("name", _("a Fighter needs a name"))
        if not 1 <= self.max_hp <= 60:
            return ("max_hp", _("{max_hp} is not a maximum HP (1 to 60)").format(max_hp=self.max_hp))
        if not 0 <= self.initial_power <= 20:
            return ("initial_power", _("{initial_power} is out of range (0 to 20)").format(
                                         initial_power=self.initial_power))
        if not 0 <= self.start_hp <= self.max_hp:
            return ("start_hp", _("{start_hp}: the starting cell is 1 to max_hp (0: the top)").format(
                                    start_hp=self.start_hp))
        seen = set()
        for i, ic in enumerate(self.icons):
            if not 0 <= ic.hp <= self.max_hp:
                return (f"icons[{i}].hp", _("{hp} is not a cell of a 0-{max_hp} track").format(
                                              hp=ic.hp, max_hp=self.max_hp))
            if (ic.hp, ic.icon) in seen:
                return (f"icons[{i}]", _("{icon} on cell {hp} is listed twice").format(
                                           icon=ic.icon, hp=ic.hp))
            seen.add((ic.hp, ic.icon))
        return None


@dataclass(frozen=True)
class TagTeamConfig:
    fighters: tuple[FighterConfig, ...]

    def validate(self) -> tuple[str, str] | None:
        names = [f.name for f in self.fighters]
        for i, n in enumerate(names):
            if n in names[:i]:
                return (f"fighters[{i}].name", _("{n!r} is listed twice").format(n=n))
        for i, f in enumerate(self.fighters):
            if f.other_side and f.other_side not in names:
                return (f"fighters[{i}].other_side", _("no fighter called {other_side!r}").format(
                                                         other_side=f.other_side))
        return None

    def fighter(self, name: str) -> FighterConfig:
        for f in self.fighters:
            if f.name == name:
                return f
        raise KeyError(name)


def pickable(cfg: TagTeamConfig) -> list[str]:
    """The Fighters a player can pick: a double-sided board's back (listed after its front,
    e.g. Ours Berserk after Bödvar) is reached by flipping in the game, not picked."""
    out: list[str] = []
    for f in cfg.fighters:
        if not any(g.other_side == f.name and g.name in out for g in cfg.fighters):
            out.append(f.name)
    return out


def fighter_data(f: FighterConfig, cfg: TagTeamConfig | None = None) -> dict[str, Any]:
    """A Fighter's ``game.start`` data; with ``cfg``, a double-sided board carries its other
    side (name, track and icons) so that a flip replays without the config file."""
    out: dict[str, Any] = {"name": f.name, "max_hp": f.max_hp, "power": f.initial_power,
                           "hp": f.start_hp or f.max_hp, "icons": [[i.hp, i.icon] for i in f.icons]}
    if cfg is not None and f.other_side:
        o = cfg.fighter(f.other_side)
        out["other"] = {"name": o.name, "max_hp": o.max_hp,
                        "icons": [[i.hp, i.icon] for i in o.icons]}
    return out


def config_data(cfg: TagTeamConfig) -> dict[str, Any]:
    """Plain data for writing config/tagteam.yaml back (the user's copy)."""
    def one(f: FighterConfig) -> dict[str, Any]:
        out: dict[str, Any] = {"name": f.name, "max_hp": f.max_hp,
                               "initial_power": f.initial_power}
        if f.icons:
            out["icons"] = [{"hp": i.hp, "icon": i.icon} for i in f.icons]
        if f.start_hp:
            out["start_hp"] = f.start_hp
        if f.other_side:
            out["other_side"] = f.other_side
        if f.defaults:
            out["defaults"] = list(f.defaults)
        return out

    return {"fighters": [one(f) for f in cfg.fighters]}


# ----------------------------------------------------------------------------- state

@dataclass(frozen=True, slots=True)
class Fighter:
    name: str
    max_hp: int
    hp: int
    power: int
    icons: tuple[tuple[int, str], ...]
    other: tuple[str, int, tuple[tuple[int, str], ...]] | None = None  # the board's other side

    @property
    def ko(self) -> bool:
        return self.hp <= 0

    def icons_at(self, hp: int) -> list[str]:
        return [icon for cell, icon in self.icons if cell == hp]


@dataclass(frozen=True, slots=True)
class TagTeamState:
    teams: tuple[tuple[Fighter, Fighter], tuple[Fighter, Fighter]]
    names: tuple[str, str] = ("Player 1", "Player 2")
    round: int = 1
    turn: int = 1                      # within the round; round n has n + 1 turns
    phase: Phase = "combat"
    result: str | None = None          # "0", "1" (the winner) or "draw"
    last: tuple[str, ...] = ()         # what the last turn did, line by line
    construction: tuple[int, int] = (CONSTRUCTION_CARDS, CONSTRUCTION_CARDS)  # cards per player
    combat: tuple[int, int] = (STARTING_CARDS, STARTING_CARDS)                # Combat deck sizes
    rules: int = 1                     # rules edition (base.RULES_EDITION)

    @property
    def turns_in_round(self) -> int:
        """One turn per card of the Combat deck: round n has n + 1."""
        return self.round + 1

    @property
    def combat_left(self) -> int:
        """Cards still face down in each Combat deck this round."""
        return 0 if self.phase != "combat" else self.turns_in_round - self.turn + 1

    @property
    def can_draw(self) -> bool:
        """Both Construction decks can give 3 cards."""
        return all(n >= DRAW for n in self.construction)


# ----------------------------------------------------------------------------- resolution

def _fail(message: str) -> IllegalActionError:
    return IllegalActionError(message)


def _ref(side: int, active: int, ref: str, actives: tuple[int, int]) -> tuple[int, int]:
    """(team, fighter) for a reference seen from ``side`` whose active fighter is ``active``."""
    if ref == "self":
        return side, active
    if ref == "partner":
        return side, 1 - active
    if ref == "opponent":
        return 1 - side, actives[1 - side]
    if ref == "opponent_partner":
        return 1 - side, 1 - actives[1 - side]
    raise _fail(_("{ref!r} is not a fighter reference ({refs})").format(ref=ref, refs=', '.join(REFS)))


def move(f: Fighter, net: int) -> tuple[int, list[int]]:
    """Move a marker by ``net`` cells (up if positive), stopping on a STOP cell reached in
    either direction, never above the top nor below KO. Returns the new HP and the cells
    reached or crossed (not the starting cell)."""
    step = 1 if net > 0 else -1
    hp = f.hp
    passed: list[int] = []
    for _step in range(abs(net)):
        nxt = hp + step
        if nxt > f.max_hp or nxt < 0:
            break
        hp = nxt
        passed.append(hp)
        if STOP in f.icons_at(hp):
            break
    return hp, passed


def _amount(value: Any, start_power: int, what: str) -> int:
    if value == "power":
        return start_power
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(_('{what}: a number of 0 or more (or "power"), not {value!r}').format(
                        what=what, value=value))
    return value


def resolve_turn(state: TagTeamState, sides: list[Mapping[str, Any]]) -> tuple[TagTeamState, list[str]]:
    """Both revealed cards at once. ``sides[p]`` = {"active": 0|1, "effects": [...]}."""
    if len(sides) != 2:
        raise _fail(_("a turn has both players' cards"))
    actives: tuple[int, int] = tuple(  # type: ignore[assignment]
        _active(s) for s in sides)
    start_power = [[f.power for f in team] for team in state.teams]
    effects = [list(s.get("effects", [])) for s in sides]
    for p in (0, 1):
        for e in effects[p]:
            if not isinstance(e, Mapping) or e.get("kind") not in EFFECTS:
                raise _fail(_("an effect is one of {effects}: {e!r}").format(
                                effects=', '.join(EFFECTS), e=e))
    blocking = [any(e["kind"] == "block" for e in effects[p]) for p in (0, 1)]
    attacks = [[e for e in effects[p] if e["kind"] == "attack"] for p in (0, 1)]
    lines: list[str] = []
    # bonuses: a block that cancelled at least one attack (once); an attack not blocked
    for p in (0, 1):
        me = state.teams[p][actives[p]].name
        if blocking[p] and attacks[1 - p]:
            bonus = next(e for e in effects[p] if e["kind"] == "block").get("bonus", [])
            effects[p] += list(bonus)
            n_att = len(attacks[1 - p])
            lines.append((ngettext("{me} blocks {count} attack: bonus", "{me} blocks {count} attacks: bonus",
                                   n_att) if bonus else
                          ngettext("{me} blocks {count} attack", "{me} blocks {count} attacks", n_att)
                          ).format(me=me, count=n_att))
        elif blocking[p]:
            lines.append(_("{me} blocks, but nothing to block").format(me=me))
        if attacks[p] and not blocking[1 - p]:
            for a in attacks[p]:
                effects[p] += list(a.get("bonus", []))
    loss = {(t, f): 0 for t in (0, 1) for f in (0, 1)}
    heal = {(t, f): 0 for t in (0, 1) for f in (0, 1)}
    power = {(t, f): 0 for t in (0, 1) for f in (0, 1)}
    transfers: list[tuple[tuple[int, int], tuple[int, int], int]] = []
    for p in (0, 1):
        act = actives[p]
        for e in effects[p]:
            kind = e["kind"]
            if kind == "attack":
                if blocking[1 - p]:
                    continue
                by = _ref(p, act, e.get("by", "self"), actives)
                target = _ref(p, act, e.get("target", "opponent"), actives)
                loss[target] += start_power[by[0]][by[1]]
            elif kind == "direct":
                target = _ref(p, act, e.get("target", "opponent"), actives)
                loss[target] += _amount(e.get("amount"), start_power[p][act], _("direct damage"))
            elif kind == "heal":
                target = _ref(p, act, e.get("target", "self"), actives)
                heal[target] += _amount(e.get("amount"), start_power[p][act], "heal")
            elif kind == "power":
                target = _ref(p, act, e.get("target", "self"), actives)
                delta = e.get("delta")
                if isinstance(delta, bool) or not isinstance(delta, int):
                    raise _fail(_("power: delta, a whole number of cubes"))
                power[target] += delta
            elif kind == "transfer":
                src = _ref(p, act, e.get("from", "self"), actives)
                dst = _ref(p, act, e.get("to", "partner"), actives)
                transfers.append((src, dst, _amount(e.get("amount"), start_power[p][act], "transfer")))
    teams = [list(t) for t in state.teams]
    passed: dict[tuple[int, int], list[int]] = {}
    # every marker moves (heal netted against loss; a KO'd fighter heals no more)
    for (t, f), lost in loss.items():
        fighter = teams[t][f]
        healed = 0 if fighter.ko else heal[(t, f)]
        net = healed - lost
        if net == 0:
            continue
        hp, cells = move(fighter, net)
        passed[(t, f)] = cells
        teams[t][f] = evolve(fighter, hp=hp)
        detail = _("{lost} lost").format(lost=lost) + (
            _(", {healed} healed").format(healed=healed) if healed else "")
        stopped = abs(hp - fighter.hp) < abs(net) and STOP in fighter.icons_at(hp)
        lines.append(_("{fighter} {hp} -> {hp2} HP ({detail})").format(
                         fighter=fighter.name, hp=fighter.hp, hp2=hp, detail=detail)
                     + (_(" — stopped by a STOP cell") if stopped else ""))
    # power: gains and losses, then transfers (as much as the giver has)
    for (t, f), delta in power.items():
        if delta:
            fighter = teams[t][f]
            teams[t][f] = evolve(fighter, power=max(0, fighter.power + delta))
            lines.append(_("{fighter} power {power} -> {power2}").format(
                             fighter=fighter.name, power=fighter.power, power2=teams[t][f].power))
    for src, dst, amount in transfers:
        giver = teams[src[0]][src[1]]
        moved = min(amount, giver.power)
        teams[src[0]][src[1]] = evolve(giver, power=giver.power - moved)
        taker = teams[dst[0]][dst[1]]
        teams[dst[0]][dst[1]] = evolve(taker, power=taker.power + moved)
        lines.append(_("{giver} gives {moved} power to {taker}").format(
                         giver=giver.name, moved=moved, taker=taker.name)
                     + (_(" (had only {power})").format(power=giver.power) if moved < amount else ""))
    # icons reached or crossed, all after every marker moved
    for (t, f), cells in passed.items():
        fighter = teams[t][f]
        for cell in cells:
            for icon in fighter.icons_at(cell):
                if icon == POWER_GAIN:
                    fighter = evolve(fighter, power=fighter.power + 1)
                    lines.append(_("{fighter} reaches POWER GAIN on {cell}: +1 power").format(
                                     fighter=fighter.name, cell=cell))
                elif icon != STOP:
                    lines.append(_("{fighter} reaches {icon} on {cell}: apply it (Fighters' Guide)").format(
                                     fighter=fighter.name, icon=icon, cell=cell))
        teams[t][f] = fighter
    new = evolve(state, teams=((teams[0][0], teams[0][1]), (teams[1][0], teams[1][1])))
    return _after_turn(new, lines)


def _active(side: Mapping[str, Any]) -> int:
    a = side.get("active")
    if a not in (0, 1) or isinstance(a, bool):
        raise _fail(_("active: which fighter's card is revealed, 0 or 1, not {a!r}").format(a=a))
    return int(a)


def _after_turn(state: TagTeamState, lines: list[str]) -> tuple[TagTeamState, list[str]]:
    kos = [any(f.ko for f in team) for team in state.teams]
    if all(kos):
        lines.append(_("Double KO: a draw"))
        return evolve(state, phase="over", result="draw", last=tuple(lines)), lines
    for p in (0, 1):
        if kos[p]:
            lines.append(_("KO: {name} wins").format(name=state.names[1 - p]))
            return evolve(state, phase="over", result=str(1 - p), last=tuple(lines)), lines
    if state.turn >= state.turns_in_round:
        if state.rules >= 2 and not state.can_draw:
            lines.append(_("End of round {round}: a Construction deck cannot give {draw} cards "
                           "({decks_text}): a draw").format(
                             round=state.round, draw=DRAW, decks_text=_decks_text(state)))
            return evolve(state, phase="over", result="draw", last=tuple(lines)), lines
        lines.append(_("End of round {round}: deck building").format(round=state.round))
        return evolve(state, phase="building", last=tuple(lines)), lines
    return evolve(state, turn=state.turn + 1, last=tuple(lines)), lines


def _decks_text(state: TagTeamState) -> str:
    return ", ".join(_("{player} {count} left").format(player=state.names[p],
                                                         count=state.construction[p])
                     for p in (0, 1))


# ----------------------------------------------------------------------------- rules

def _icons(cells: Any) -> tuple[tuple[int, str], ...]:
    return tuple((int(c), str(i)) for c, i in cells)


def _other(data: Mapping[str, Any] | None) -> tuple[str, int, tuple[tuple[int, str], ...]] | None:
    if not data:
        return None
    return (str(data["name"]), int(data["max_hp"]), _icons(data.get("icons", [])))


def _with_fighter(state: TagTeamState, t: int, f: int, fighter: Fighter) -> TagTeamState:
    team = list(state.teams[t])
    team[f] = fighter
    teams = list(state.teams)
    teams[t] = (team[0], team[1])
    return evolve(state, teams=(teams[0], teams[1]))


def flip(f: Fighter) -> Fighter:
    """Turn a double-sided board over (Bödvar / Ours Berserk). The rulebook does not say
    where the marker goes: it keeps its HP value (capped at the new side's maximum) and
    the power cubes stay; the other side's track and icons take over. Nothing triggers."""
    if f.other is None:
        raise _fail(_("{f}'s board has no other side").format(f=f.name))
    if f.ko:
        raise _fail(_("{f} is KO").format(f=f.name))
    name, max_hp, icons = f.other
    return evolve(f, name=name, max_hp=max_hp, icons=icons, hp=min(f.hp, max_hp),
                  other=(f.name, f.max_hp, f.icons))


class TagTeamRules:
    name = "tagteam"
    title = "Tag Team"
    event_types = frozenset({"tagteam.turn", "tagteam.next_round", "tagteam.deck_exhausted",
                             "tagteam.adjust", "tagteam.flip"})

    def start(self, setup: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        teams = setup.get("teams")
        if not isinstance(teams, list) or len(teams) != 2 or any(len(t["fighters"]) != 2 for t in teams):
            raise _fail(_("two teams of two Fighters"))
        return {**setup, "rules": RULES_EDITION}

    def check(self, state: TagTeamState | None, type_: str, data: Mapping[str, Any]) -> None:
        """The config's bounds on the Fighters' tracks, checked again when a journal is
        replayed."""
        if type_ != "game.start":
            return
        for t, team in enumerate(items(data.get("teams"), "data.teams", 2)):
            fighters = items(mapping(team, f"data.teams[{t}]").get("fighters"),
                             f"data.teams[{t}].fighters", 2)
            for i, f in enumerate(fighters):
                where = f"data.teams[{t}].fighters[{i}]"
                top = whole(mapping(f, where).get("max_hp"), f"{where}.max_hp", 1, 60)
                whole(f.get("hp"), f"{where}.hp", 0, top)
                whole(f.get("power"), f"{where}.power", 0, 99)
                if f.get("other") is not None:
                    whole(mapping(f["other"], f"{where}.other").get("max_hp"),
                          f"{where}.other.max_hp", 1, 60)
        self.start(data, random.Random(0))  # and the set-up's own checks (it draws nothing)

    def initial(self, data: Mapping[str, Any]) -> TagTeamState:
        teams = []
        names: list[str] = []
        for t in data["teams"]:
            names.append(t.get("player", f"Player {len(names) + 1}"))
            fs = [Fighter(f["name"], int(f["max_hp"]), int(f["hp"]), int(f["power"]),
                          _icons(f.get("icons", [])), _other(f.get("other")))
                  for f in t["fighters"]]
            teams.append((fs[0], fs[1]))
        return TagTeamState((teams[0], teams[1]), (names[0], names[1]), rules=rules_edition(data))

    def decide(self, state: TagTeamState, type_: str, data: Mapping[str, Any],
               rng: random.Random) -> dict[str, Any]:
        return dict(data)

    def apply(self, state: TagTeamState, type_: str, data: Mapping[str, Any]) -> TagTeamState:
        if state.phase == "over":
            raise _fail(_("the fight is over"))
        if type_ == "tagteam.turn":
            if state.phase != "combat":
                raise _fail(_("deck building first: start the next round"))
            sides = data.get("sides")
            if not isinstance(sides, list):
                raise _fail(_("sides: both players' cards"))
            return resolve_turn(state, sides)[0]
        if type_ == "tagteam.next_round":
            # PHASE DE CONSTRUCTION DE DECK: draw 3, add 1 to the Combat deck, the other 2 to
            # the bottom of the Construction deck: each Construction deck is one card shorter
            if state.phase != "building":
                raise _fail(_("round {round} still has turns to play").format(round=state.round))
            if not state.can_draw:   # edition 1 only: edition 2 ends the game by itself
                raise _fail(_("a Construction deck cannot give {draw} cards ({decks_text}): the game is "
                              "a draw").format(
                                draw=DRAW, decks_text=_decks_text(state)))
            return evolve(state, round=state.round + 1, turn=1, phase="combat", last=(),
                          construction=(state.construction[0] - 1, state.construction[1] - 1),
                          combat=(state.combat[0] + 1, state.combat[1] + 1))
        if type_ == "tagteam.deck_exhausted":
            if state.phase != "building":
                raise _fail(_("the Construction deck is drawn from in the deck-building phase"))
            if state.rules >= 2 and state.can_draw:
                raise _fail(_("both Construction decks can still give {draw} cards ({decks_text}): "
                              "start the next round").format(
                                draw=DRAW, decks_text=_decks_text(state)))
            return evolve(state, phase="over", result="draw",
                          last=(_("A Construction deck cannot give 3 cards: a draw"),))
        if type_ in ("tagteam.adjust", "tagteam.flip"):
            t, f = data.get("team"), data.get("fighter")
            if t not in (0, 1) or f not in (0, 1):
                raise _fail(_("team and fighter: 0 or 1"))
            if type_ == "tagteam.flip":
                return _with_fighter(state, t, f, flip(state.teams[t][f]))
            what, delta = data.get("what"), data.get("delta")
            if isinstance(delta, bool) or not isinstance(delta, int) or not delta:
                raise _fail(_("delta: a whole number, not 0"))
            fighter = state.teams[t][f]
            if what == "power":
                fighter = evolve(fighter, power=max(0, fighter.power + delta))
            elif what == "hp":
                if delta > 0 and fighter.ko:
                    raise _fail(_("{fighter} is KO: no more healing").format(fighter=fighter.name))
                fighter = evolve(fighter, hp=max(0, min(fighter.max_hp, fighter.hp + delta)))
            else:
                raise _fail(_("what: hp or power"))
            if fighter == state.teams[t][f]:
                raise _fail(_("{fighter}'s {what} is already at its ").format(
                                fighter=fighter.name, what=what)
                            + ("lowest" if delta < 0 else "highest"))
            after = _with_fighter(state, t, f, fighter)
            if state.rules >= 3 and fighter.ko:
                # FIN DE LA PARTIE: "Si l'un des Combattants est KO ..., la partie est terminée
                # et ce joueur a perdu": a KO by hand ends the fight at once, as a turn's does
                # (edition 3; before, the fight went on until a turn judged KOs)
                line = _("{fighter} is KO: {name} wins").format(fighter=fighter.name,
                                                                name=state.names[1 - t])
                return evolve(after, phase="over", result=str(1 - t), last=(line,))
            return after
        raise _fail(_("unknown Tag Team action {type!r}").format(type=type_))

    def describe(self, before: TagTeamState, type_: str, data: Mapping[str, Any],
                 after: TagTeamState) -> str:
        if type_ == "tagteam.turn":
            return _("Round {round}, turn {turn}: ").format(
                       round=before.round, turn=before.turn) + "; ".join(after.last)
        if type_ == "tagteam.next_round":
            return (_("Round {round} ({turns_in_round} turns): each player draws {draw}, adds 1 to the "
                      "Combat deck ({combat} cards) and puts 2 under the Construction deck "
                      "({construction} cards)").format(
                        round=after.round, turns_in_round=after.turns_in_round, draw=DRAW,
                        combat=after.combat[0], construction=after.construction[0]))
        if type_ == "tagteam.deck_exhausted":
            return after.last[0]
        f = before.teams[data["team"]][data["fighter"]]
        if type_ == "tagteam.flip":
            g = after.teams[data["team"]][data["fighter"]]
            return _("{f}'s board flipped: {g} ({hp}/{max_hp} HP, power {power})").format(
                       f=f.name, g=g.name, hp=g.hp, max_hp=g.max_hp, power=g.power)
        line = _("{f} {delta:+d} {what} (by hand)").format(f=f.name, delta=data['delta'], what=data['what'])
        if after.phase == "over" and before.phase != "over":
            line += "; " + "; ".join(after.last)
        return line

    def to_json(self, state: TagTeamState, *, reveal_hidden: bool = False) -> dict[str, Any]:
        return {"round": state.round, "turn": state.turn, "phase": state.phase,
                "result": state.result, "construction": list(state.construction),
                "combat": list(state.combat), "combat_left": state.combat_left,
                "teams": [[{"name": f.name, "hp": f.hp, "max_hp": f.max_hp, "power": f.power,
                            "ko": f.ko, "other_side": f.other[0] if f.other else None}
                           for f in team] for team in state.teams]}

    def is_over(self, state: TagTeamState) -> bool:
        return state.phase == "over"

    def summary(self, state: TagTeamState) -> str:
        a = " & ".join(f.name for f in state.teams[0])
        b = " & ".join(f.name for f in state.teams[1])
        if state.result == "draw":
            return _("{a} vs {b}, draw").format(a=a, b=b)
        if state.result is not None:
            return _("{a} vs {b}, {name} won").format(a=a, b=b, name=state.names[int(state.result)])
        return _("{a} vs {b}, round {round}").format(a=a, b=b, round=state.round)


RULES = TagTeamRules()


# ----------------------------------------------------------------------------- live view


def spectator_summary(state: TagTeamState) -> dict[str, Any]:
    """The live view's public picture (``companion/live/summary.py``): each team's Fighters
    (HP, Power, KO), the round and turn, how many cards each deck holds, and what the last
    revealed cards did. The Combat deck's order and the Construction deck's cards are
    face down; the companion keeps only their sizes, which the table shows too."""
    if state.phase == "over":
        status = (_("Draw") if state.result == "draw" else
                  _("{player} wins").format(player=state.names[int(state.result or 0)]))
    elif state.phase == "building":
        status = _("Round {round} · deck building").format(round=state.round)
    else:
        status = _("Round {round} · turn {turn} of {turns}").format(
            round=state.round, turn=state.turn, turns=state.turns_in_round)
    sides = []
    for p, team in enumerate(state.teams):
        figures: list[dict[str, Any]] = []
        for f in team:
            figures.append({"label": _("{fighter} HP").format(fighter=f.name),
                            "value": str(f.hp), "of": f.max_hp})
            figures.append({"label": _("{fighter} Power").format(fighter=f.name),
                            "value": str(f.power)})
        figures.append({"label": _("Combat deck"), "value": str(state.combat[p])})
        figures.append({"label": _("Construction deck"), "value": str(state.construction[p])})
        sides.append({"name": state.names[p], "figures": figures,
                      "notes": [_("{fighter}: KO").format(fighter=f.name) for f in team if f.ko]})
    over = state.phase == "over"
    winner = (state.names[int(state.result)]
              if over and state.result is not None and state.result != "draw" else None)
    return {"status": status, "sides": sides, "lines": list(state.last), "over": over,
            "winner": winner}


ENTRY = GameEntry(
    id="tagteam", rules=f"{__name__}:RULES", setup="tagteam_setup", play="tagteam_game",
    tile=HomeTile(N_("Tag Team"), N_("fight tracker"), (0.2, 0.45, 0.3, 1), (0.3, 0.6, 0.4, 1), 40),
    screens={"tagteam_setup": "companion.app.screens.tagteam_setup:TagTeamSetupScreen",
             "tagteam_game": "companion.app.screens.tagteam_game:TagTeamGameScreen",
             "tagteam_tracks": "companion.app.screens.tagteam_tracks:TagTeamTracksScreen"},
    config=ConfigFile("tagteam", f"{__name__}:TagTeamConfig", "companion.config:tagteam.yaml",
                      f"{__name__}:config_data"),
    spectator=f"{__name__}:spectator_summary")
