"""Danchie Go – King's Call (Tekton Dash): the pure rules engine.

Follows ``shared/rules/danchie-go.md`` (rulebook ``shared/seeds/danchie-go-kings-call.en.txt``,
English). 3 to 6 Dashers race two laps on a Race Board; the companion does not model the
board itself. It tracks what the players would otherwise keep in their heads or on paper:

* the round and whose turn it is, the action sets each turn allows (1, then 2 for everyone
  from the round after the first player finishes lap 1, plus a Plus Action card's extra
  set), the lap-2 limit of one Special Move per round;
* the turns skipped automatically (a Freeze, the rest after lap 1);
* Power-Up cards only from round 3, and the sabotage meter (+1 per card aimed at another
  player);
* each board's counters (4 Tiles per colour and 4 Power-Up Tiles at most);
* the spawn die's last result (typed, or read by the dice tower);
* the podium (lap-1 order), the finish order, and each Dasher's Tektonpedia personality.

Players are referred to by name in events. Decisions where the rulebook is silent are marked
``DECISION`` and listed in docs/events.md, each with a test.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import IllegalActionError
from ..i18n import N_, _, ngettext, ordinal
from ..registry import ConfigFile, GameEntry, HomeTile
from .base import RULES_EDITION, evolve, rules_edition

MIN_PLAYERS, MAX_PLAYERS = 3, 6
N_TILE_TYPES = 4
N_FACES = 6
BOARD_LIMIT = 4          # Tiles per colour, and Power-Up Tiles, per player board
POWER_UP_ROUND = 3       # "Power-Ups activate: when round 3 begins!"
PODIUM_PLACES = 3
MEKTON_FROM = 6          # "0-5 sabotages > Tekton; 6+ sabotages > Mekton"
START_TILES = 2          # "Take 2 starting Tiles ... make sure they're different colors!"
SIDES = ("green", "red")  # the Blueprint: green side on lap 1, red side on lap 2
# the Tile colours of the shipped config and the Blueprint's sides, for translation (a colour
# a user adds in their own config is shown as typed)
TILE_WORDS = (N_("red"), N_("blue"), N_("green"), N_("yellow"))


def _both(first: str, second: str) -> str:
    """Two Tile colours in a sentence, in the player's language: "blue and red"."""
    return _("{first} and {second}").format(first=_(first), second=_(second))
COOLDOWN_ROUNDS = 1      # "Returned Power-Ups Tile need one round cooldown"

MEANINGS = ("tile_under_you", "power_up_on_spawn", "tile_on_spawn", "no_spawn")
MEANING_TEXT = {
    "tile_under_you": N_("Regular Tile under your position"),
    "power_up_on_spawn": N_("Power-Up Tile on the Spawn area"),
    "tile_on_spawn": N_("Regular Tile on the Spawn area"),
    "no_spawn": N_("No spawn"),
}
TARGETS = ("none", "player", "any_player")
EFFECTS = ("none", "freeze", "extra_set")
SOURCES = ("tower", "hand")
SET_KINDS = ("full", "special")
TOWER_KIND = "spawn"     # the dice tower's die kind for the spawn die

STANDARD_SET = ("Spawn", "Stack", "Boost", "Block")
SPECIAL_SET = ("Special Spawn", "Special Stack", "Special Boost", "Block")


# ----------------------------------------------------------------------------- config

@dataclass(frozen=True)
class SpawnFaceConfig:
    face: str          # the face name as the dice tower reports it
    meaning: str       # one of MEANINGS

    def validate(self) -> tuple[str, str] | None:
        if not self.face.strip():
            return ("face", _("a face needs a name (as the dice tower reports it)"))
        if self.meaning not in MEANINGS:
            return ("meaning", _("{meaning!r} is not a spawn meaning ({meanings})").format(
                                   meaning=self.meaning, meanings=', '.join(MEANINGS)))
        return None


@dataclass(frozen=True)
class SpawnDieConfig:
    faces: tuple[SpawnFaceConfig, ...]

    def validate(self) -> tuple[str, str] | None:
        if len(self.faces) != N_FACES:
            return ("faces", _("the spawn die has {n_faces} faces, not {count}").format(
                                 n_faces=N_FACES, count=len(self.faces)))
        names = [f.face for f in self.faces]
        for i, n in enumerate(names):
            if n in names[:i]:
                return (f"faces[{i}].face", _("{n!r} is listed twice").format(n=n))
        return None

    def meaning(self, face: str) -> str:
        for f in self.faces:
            if f.face == face:
                return f.meaning
        raise KeyError(face)


@dataclass(frozen=True)
class PowerUpConfig:
    name: str
    text: str
    target: str = "none"     # none | player (another player) | any_player (yourself too)
    effect: str = "none"     # none | freeze | extra_set

    def validate(self) -> tuple[str, str] | None:
        if not self.name.strip():
            return ("name", _("a Power-Up card needs a name"))
        if self.target not in TARGETS:
            return ("target", _("{target!r} is not a target ({targets})").format(
                                  target=self.target, targets=', '.join(TARGETS)))
        if self.effect not in EFFECTS:
            return ("effect", _("{effect!r} is not an effect ({effects})").format(
                                  effect=self.effect, effects=', '.join(EFFECTS)))
        if self.effect == "freeze" and self.target == "none":
            return ("target", _("a freeze needs a player to freeze (player or any_player)"))
        return None


@dataclass(frozen=True)
class DanchieConfig:
    """config/danchie.yaml."""

    tile_types: tuple[str, ...]
    spawn_die: SpawnDieConfig
    power_ups: tuple[PowerUpConfig, ...]
    defaults: tuple[str, ...] = ()   # values that are ours, not the rulebook's

    def validate(self) -> tuple[str, str] | None:
        if len(self.tile_types) != N_TILE_TYPES:
            return ("tile_types",
                    _("{n_tile_types} tile types (colours), not {count}").format(
                            n_tile_types=N_TILE_TYPES, count=len(self.tile_types)))
        for i, t in enumerate(self.tile_types):
            if not t.strip():
                return (f"tile_types[{i}]", _("a tile type needs a name"))
            if t in self.tile_types[:i]:
                return (f"tile_types[{i}]", _("{t!r} is listed twice").format(t=t))
        if not self.power_ups:
            return ("power_ups", _("list the Power-Up cards"))
        names = [p.name for p in self.power_ups]
        for i, n in enumerate(names):
            if n in names[:i]:
                return (f"power_ups[{i}].name", _("{n!r} is listed twice").format(n=n))
        for i, d in enumerate(self.defaults):
            if d not in ("tile_types", "spawn_die.faces"):
                return (f"defaults[{i}]", _("{d!r} is not a default we ship (tile_types, "
                                            "spawn_die.faces)").format(
                                              d=d))
        return None

    def power_up(self, name: str) -> PowerUpConfig:
        for p in self.power_ups:
            if p.name == name:
                return p
        raise KeyError(name)


def setup_from_config(cfg: DanchieConfig, players: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """The ``game.start`` set-up: everything copied, so a journal never depends on config."""
    return {
        "players": list(players),
        "tile_types": list(cfg.tile_types),
        "spawn_faces": [{"face": f.face, "meaning": f.meaning} for f in cfg.spawn_die.faces],
        "power_ups": [{"name": p.name, "text": p.text, "target": p.target, "effect": p.effect}
                      for p in cfg.power_ups],
    }


# ----------------------------------------------------------------------------- set-up table

@dataclass(frozen=True, slots=True)
class SetupTable:
    """What the table lays out for a player count (rulebook: Obstacles and Tile set-up)."""

    players: int
    lanes: int                            # racing lanes in play
    obstacles: int                        # 4 per player
    obstacle_sets: tuple[str, ...]        # per player in turn order: "Standard" / "Special"
    standard_set: tuple[str, ...]
    special_set: tuple[str, ...]
    tile_types: int                       # 4
    tiles_per_type: int                   # 2 per player
    tiles: int                            # tile_types x tiles_per_type
    power_up_tiles: int                   # each player flips 3 tiles to the Power-Up side
    clear_rows: int                       # rows from the start line kept free of obstacles
    layout: Literal["pre-made", "custom"]
    notes: tuple[str, ...]


def setup_table(n_players: int) -> SetupTable:
    """The set-up for ``n_players`` (3 to 6)."""
    if isinstance(n_players, bool) or not isinstance(n_players, int) \
            or not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        raise IllegalActionError(_("Danchie Go is for 3 to 6 players, not {n_players!r}").format(
                                     n_players=n_players))
    n = n_players
    sets = tuple("Standard" if i < 4 else "Special" for i in range(n))
    notes = [
        _("Obstacles: players take turns clockwise placing one type at a time, in this order: "
          "Spawn, Stack, Boost, Block."),
        _("The first two rows from the start line stay clear of obstacles."),
        _("Blocks: split evenly between horizontal and vertical (odd number: the players "
          "choose)."),
        _("Each player takes 2 starting Tiles of different colours (section 3 of the board): "
          "count them on the companion's board counters."),
        _("Tiles: {per_colour} of each colour on the board, regular side up; then each player "
          "flips 3 to the Power-Up side ({power_up} Power-Up Tiles).").format(
            per_colour=2 * n, power_up=3 * n),
    ]
    if n == 3:
        notes.insert(0, _("3 players: choose one of the rulebook's pre-made layouts."))
        notes.insert(1, _("3 players: 12 obstacles (4 per player); the rulebook text shows 13, "
                          "which does not match 4 per player."))
        notes.insert(2, _("3 players is marked \"not recommended\" in the rulebook's tile "
                          "set-up figure."))
    else:
        notes.insert(0, _("{count} players: customize your own obstacle layout.").format(count=n))
    if n == 5:
        notes.append(_("Player 5 gets a Special set (Special Spawn, Special Stack, Special "
                       "Boost, Block)."))
    elif n == 6:
        notes.append(_("Players 5 and 6 get a Special set (Special Spawn, Special Stack, "
                       "Special Boost, Block)."))
    return SetupTable(
        players=n, lanes=n, obstacles=4 * n, obstacle_sets=sets, standard_set=STANDARD_SET,
        special_set=SPECIAL_SET, tile_types=N_TILE_TYPES, tiles_per_type=2 * n,
        tiles=N_TILE_TYPES * 2 * n, power_up_tiles=3 * n, clear_rows=2,
        layout="pre-made" if n == 3 else "custom", notes=tuple(notes))


# ----------------------------------------------------------------------------- Tektonpedia

@dataclass(frozen=True, slots=True)
class Tektonpedia:
    personality: str                      # "2-3", "4-5/3", "1/4-5", …
    kind: Literal["Tekton", "Mekton"]
    text: str


def place_bucket(place: int) -> str:
    """The Tektonpedia's rows and columns: 1, 2, 3, 4-5, 6."""
    if isinstance(place, bool) or not isinstance(place, int) or not 1 <= place <= MAX_PLAYERS:
        raise IllegalActionError(_("a finishing place is 1 to {max_players}, not {place!r}").format(
                                     max_players=MAX_PLAYERS, place=place))
    return "4-5" if place in (4, 5) else str(place)


def tektonpedia(place1: int, place2: int, sabotage: int) -> Tektonpedia:
    """Lap-1 place x lap-2 place, and Tekton or Mekton by the sabotage meter.

    DECISION: written "a-b" as in the rulebook's example ("2-3"), but with the printed
    table's slash when a bucket is itself a range ("4-5/3"), so it is never ambiguous.
    DECISION: Tekton for 0-5 sabotages, Mekton for 6+ (the table; the text once says 5+)."""
    if isinstance(sabotage, bool) or not isinstance(sabotage, int) or sabotage < 0:
        raise IllegalActionError(_("the sabotage meter is 0 or more, not {sabotage!r}").format(
                                     sabotage=sabotage))
    a, b = place_bucket(place1), place_bucket(place2)
    personality = f"{a}/{b}" if "-" in a or "-" in b else f"{a}-{b}"
    kind: Literal["Tekton", "Mekton"] = "Mekton" if sabotage >= MEKTON_FROM else "Tekton"
    text = ngettext("Lap 1 {lap1} x lap 2 {lap2}, {count} sabotage: find personality "
                    "#{personality} in the {kind} profiles of the Tektonpedia",
                    "Lap 1 {lap1} x lap 2 {lap2}, {count} sabotages: find personality "
                    "#{personality} in the {kind} profiles of the Tektonpedia", sabotage).format(
        lap1=_ordinal(place1), lap2=_ordinal(place2), count=sabotage, personality=personality,
        kind=kind)
    return Tektonpedia(personality, kind, text)


def _ordinal(n: int) -> str:
    return ordinal(n)      # 1st, 2nd... in the language shown


# ----------------------------------------------------------------------------- state

@dataclass(frozen=True, slots=True)
class PowerUp:
    name: str
    text: str
    target: str
    effect: str


@dataclass(frozen=True, slots=True)
class Spawn:
    player: str
    face: str
    meaning: str
    source: str
    round: int

    @property
    def text(self) -> str:
        return _(MEANING_TEXT[self.meaning])


@dataclass(frozen=True, slots=True)
class Dasher:
    name: str
    lap: int = 1
    lap1_place: int | None = None
    finish_place: int | None = None
    sabotage: int = 0
    frozen: int = 0                       # turns to skip
    resting: bool = False                 # skips the next turn (after finishing lap 1)
    tiles: tuple[int, ...] = (0, 0, 0, 0)  # per tile type, 0..4
    power_up_tiles: int = 0               # 0..4
    special_move_round: int = 0           # round of the last lap-2 Special Move (0: none)
    sets_done: int = 0                    # this turn (Special Moves included)
    specials_done: int = 0                # this turn
    extra_sets: int = 0                   # this turn (Plus Action)
    start_tiles: tuple[str, ...] = ()     # the 2 starting Tiles taken (their colours)
    blueprint: tuple[tuple[int, ...], tuple[int, ...]] = ((0, 0, 0, 0), (0, 0, 0, 0))
    #   Tiles per colour on the Blueprint's green side and red side (entered by the player)
    specialty: int = 1                    # Dasher Specialty tokens received (1, 2 after lap 1)
    specialty_used: int = 0               # each is used once per game, then discarded
    cards: int = 0                        # Power-Up cards drawn and not yet used or declined

    @property
    def finished(self) -> bool:
        return self.finish_place is not None


@dataclass(frozen=True, slots=True)
class DanchieState:
    dashers: tuple[Dasher, ...]
    tile_types: tuple[str, ...]
    spawn_faces: tuple[tuple[str, str], ...]     # (face, meaning), the die's six faces
    power_ups: tuple[PowerUp, ...]
    round: int = 1
    current: int = 0
    podium: tuple[int, ...] = ()                 # lap-1 finish order (player indices)
    finish: tuple[int, ...] = ()                 # lap-2 finish order
    two_sets_from_round: int | None = None
    last_spawn: Spawn | None = None
    notes: tuple[str, ...] = ()                  # what the last action caused, line by line
    cooling: tuple[tuple[str, int], ...] = ()    # Power-Up Tiles returned: (by whom, round)
    rules: int = 1                               # rules edition (base.RULES_EDITION)

    def cooling_tiles(self) -> tuple[tuple[str, int], ...]:
        """Returned Power-Up Tiles that cannot be taken yet: (returned by, free from round)."""
        return tuple((who, r + COOLDOWN_ROUNDS + 1) for who, r in self.cooling
                     if self.round <= r + COOLDOWN_ROUNDS)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.dashers)

    @property
    def over(self) -> bool:
        return all(d.finished for d in self.dashers)

    @property
    def base_sets(self) -> int:
        """Action sets per turn for everyone this round (Plus Action not included)."""
        two = self.two_sets_from_round is not None and self.round >= self.two_sets_from_round
        return 2 if two else 1

    def sets_allowed(self, i: int) -> int:
        return self.base_sets + self.dashers[i].extra_sets

    def sets_left(self, i: int) -> int:
        return max(0, self.sets_allowed(i) - self.dashers[i].sets_done)

    @property
    def power_ups_active(self) -> bool:
        return self.round >= POWER_UP_ROUND

    def index(self, name: Any) -> int:
        for i, d in enumerate(self.dashers):
            if d.name == name:
                return i
        raise IllegalActionError(_("no player called {name!r} (players: {names})").format(
                                     name=name, names=', '.join(self.names)))

    def card(self, name: Any) -> PowerUp:
        for p in self.power_ups:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.power_ups)
        raise IllegalActionError(_("no Power-Up card called {name!r} (cards: {known})").format(
                                     name=name, known=known))

    def meaning(self, face: Any) -> str:
        for f, meaning in self.spawn_faces:
            if f == face:
                return meaning
        known = ", ".join(f for f, _meaning in self.spawn_faces)
        raise IllegalActionError(_("{face!r} is not a face of the spawn die (faces: {known})").format(
                                     face=face, known=known))


def results(state: DanchieState) -> list[tuple[str, Tektonpedia]]:
    """The Tektonpedia of every Dasher who has finished both laps, in finish order."""
    out = []
    for i in state.finish:
        d = state.dashers[i]
        assert d.lap1_place is not None and d.finish_place is not None
        out.append((d.name, tektonpedia(d.lap1_place, d.finish_place, d.sabotage)))
    return out


# ----------------------------------------------------------------------------- helpers

def _fail(message: str) -> IllegalActionError:
    return IllegalActionError(message)


def _set(state: DanchieState, i: int, d: Dasher) -> DanchieState:
    ds = list(state.dashers)
    ds[i] = d
    return evolve(state, dashers=tuple(ds))


def _who(state: DanchieState, data: Mapping[str, Any], key: str = "player") -> int:
    return state.index(data.get(key))


def _delta(data: Mapping[str, Any]) -> int:
    delta = data.get("delta")
    if delta not in (1, -1) or isinstance(delta, bool):
        raise _fail(_("delta: +1 or -1, not {delta!r}").format(delta=delta))
    return int(delta)


def _need_turn(state: DanchieState, i: int, what: str) -> None:
    if i != state.current:
        raise _fail(_("{what}: it is {dasher}'s turn, not {dasher2}'s").format(
                        what=what, dasher=state.dashers[state.current].name,
                        dasher2=state.dashers[i].name))


def _need_racing(state: DanchieState, i: int, what: str) -> None:
    d = state.dashers[i]
    if d.finished:
        raise _fail(_("{what}: {d} has finished the race ({ordinal})").format(
                        what=what, d=d.name, ordinal=_ordinal(d.finish_place or 0)))


def _advance(state: DanchieState) -> tuple[DanchieState, list[str]]:
    """End the current player's turn: the next player in order who has not finished the race.
    A frozen or resting player is skipped (one counter used per skipped turn); past the last
    player a new round begins. Returns the new state and what happened, line by line."""
    ds = list(state.dashers)
    ds[state.current] = evolve(ds[state.current], sets_done=0, specials_done=0, extra_sets=0)
    notes: list[str] = []
    if all(d.finished for d in ds):
        return evolve(state, dashers=tuple(ds)), notes
    i, rnd = state.current, state.round
    while True:
        i += 1
        if i == len(ds):
            i, rnd = 0, rnd + 1
            ds = [evolve(d, sets_done=0, specials_done=0, extra_sets=0) for d in ds]
            notes.append(f"Round {rnd}" + (_(": Power-Up cards are active from now on")
                                           if rnd == POWER_UP_ROUND else ""))
        d = ds[i]
        if d.finished:
            continue
        if d.frozen > 0:
            ds[i] = evolve(d, frozen=d.frozen - 1)
            notes.append(_("{d} is frozen: turn skipped").format(d=d.name))
            continue
        if d.resting:
            ds[i] = evolve(d, resting=False)
            notes.append(_("{d} stops for one turn after lap 1: turn skipped").format(d=d.name))
            continue
        break
    new = evolve(state, dashers=tuple(ds), current=i, round=rnd)
    notes.append(ngettext("{dasher}'s turn ({count} action set)", "{dasher}'s turn ({count} action sets)",
                          new.base_sets).format(dasher=ds[i].name, count=new.base_sets))
    return new, notes


# ----------------------------------------------------------------------------- actions

def _action_set(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    d = state.dashers[i]
    kind = data.get("kind", "full")
    if kind not in SET_KINDS:
        raise _fail(_("kind: full or special (a Special Move in place of an action set), "
                      "not {kind!r}").format(
                        kind=kind))
    _need_racing(state, i, _("no action set"))
    _need_turn(state, i, _("no action set"))
    allowed = state.sets_allowed(i)
    if d.sets_done >= allowed:
        raise _fail(ngettext("{dasher} has done {done} of {allowed} action set this turn: end "
                             "the turn",
                             "{dasher} has done {done} of {allowed} action sets this turn: end "
                             "the turn", allowed).format(dasher=d.name, done=d.sets_done,
                                                         allowed=allowed))
    notes: list[str] = []
    if kind == "special":
        if d.lap == 2 and d.special_move_round == state.round:
            raise _fail(_("{d} is on lap 2: Limited to one special move per round (used in round "
                          "{round})").format(
                            d=d.name, round=state.round))
        if d.specials_done >= state.base_sets:
            raise _fail(_("{d}: Plus Action's extra action set cannot be a Special Move").format(d=d.name))
        d = evolve(d, specials_done=d.specials_done + 1,
                   special_move_round=state.round if d.lap == 2 else d.special_move_round)
    d = evolve(d, sets_done=d.sets_done + 1)
    left = allowed - d.sets_done
    notes.append(ngettext("{count} action set left", "{count} action sets left", left).format(
        count=left) if left else
                 _("no action set left: end the turn"))
    return evolve(_set(state, i, d), notes=tuple(notes))


def _end_turn(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    """ACTION SETS: "Every player must complete a Full Action Set or a Special Move. Every
    player can't skip 1 of the actions, even if it's inconvenient." (rules edition 2: the
    turn cannot end with a set left; the rulebook's only skip is declining a Power-Up card,
    ``danchie.decline_power_up``, and a frozen or resting player's turn is skipped for them)."""
    i = _who(state, data)
    _need_turn(state, i, _("cannot end the turn"))
    left = state.sets_left(i)
    d = state.dashers[i]
    if state.rules >= 2 and left and not d.finished:
        what = _("a Full Action Set or a Special Move") if left == 1 else \
            _("{left} Full Action Sets or Special Moves").format(left=left)
        raise _fail(_("{d} must still complete {what} this turn (every player must; only declining a "
                      "Power-Up card skips a turn)").format(
                        d=d.name, what=what))
    if state.rules >= 2 and d.cards and not d.finished:
        raise _fail(_("{d} drew a Power-Up card: use it, or decline it (return the Tile and skip the "
                      "turn)").format(
                        d=d.name))
    new, notes = _advance(state)
    if left and not d.finished:
        notes.insert(0, ngettext("{count} action set not done", "{count} action sets not done",
                                 left).format(count=left))
    return evolve(new, notes=tuple(notes))


def _matches(state: DanchieState, d: Dasher, side: int) -> str | None:
    """None when the board's Tiles match that Blueprint side exactly, else why not."""
    want = d.blueprint[side]
    if not any(want):
        return (_("{d}'s {sides} Blueprint is not entered yet: enter its Tiles per colour first").format(
                    d=d.name, sides=SIDES[side]))
    if d.tiles != want:
        def text(counts: tuple[int, ...]) -> str:
            return ", ".join(f"{n} {t}" for t, n in zip(state.tile_types, counts) if n) or "none"
        return (_("{d}'s Tiles ({text}) do not match the {sides} Blueprint ({text2}) exactly, without "
                  "any excess Tiles").format(
                    d=d.name, text=text(d.tiles), sides=SIDES[side], text2=text(want)))
    return None


def _lap(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    _need_racing(state, i, _("no lap to finish"))
    d = state.dashers[i]
    notes: list[str] = []
    if state.rules >= 2:
        why = _matches(state, d, d.lap - 1)
        if why:
            raise _fail(why)
    if d.lap == 1:
        place = len(state.podium) + 1
        d = evolve(d, lap=2, lap1_place=place, resting=True, specialty=d.specialty + 1)
        state = evolve(_set(state, i, d), podium=state.podium + (i,))
        # DASHER SPECIALTY TOKEN: "After completing the first lap, you'll receive a second
        # Specialty Token" (every player, chosen in lap-1 order from the podium)
        if place <= PODIUM_PLACES:
            notes.append(_("podium place {place}: a second Dasher Specialty token").format(place=place))
        else:
            notes.append(_("lap 1 place {place}: a second Dasher Specialty token").format(place=place))
        notes.append(_("flip the Blueprint to red; stop for one turn"))
        if state.two_sets_from_round is None:
            state = evolve(state, two_sets_from_round=state.round + 1)
            notes.append(_("first to finish lap 1: everyone has 2 action sets from round {round}").format(
                             round=state.round + 1))
        return evolve(state, notes=tuple(notes))
    place = len(state.finish) + 1
    d = evolve(d, finish_place=place, resting=False, frozen=0)
    state = evolve(_set(state, i, d), finish=state.finish + (i,))
    notes.append(f"finishes {_ordinal(place)}" + (_(": wins the race!") if place == 1 else ""))
    if state.over:
        notes.append(_("everyone has finished: the game is over (see the Tektonpedia)"))
    return evolve(state, notes=tuple(notes))


def _power_up(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    me = state.dashers[i]
    card = state.card(data.get("card"))
    if not state.power_ups_active:
        raise _fail(_("{me} cannot use {card}: Power-Up cards work only from round {power_up_round} "
                      "(this is round {round})").format(
                        me=me.name, card=card.name, power_up_round=POWER_UP_ROUND, round=state.round))
    _need_racing(state, i, f"no {card.name}")
    _need_turn(state, i, _("{card}: a Power-Up card is used by the player whose turn it is").format(
                             card=card.name))
    if state.rules >= 2:
        if me.cards <= 0:
            raise _fail(_("{me} has no Power-Up card drawn: a card is drawn when your Dasher picks a "
                          "Power-Up Tile").format(
                            me=me.name))
        me = evolve(me, cards=me.cards - 1)
    target = data.get("target")
    notes: list[str] = []
    if card.target == "none":
        if target is not None:
            raise _fail(_("{card} targets no player (target must be null, not {target!r})").format(
                            card=card.name, target=target))
        t = None
    else:
        if target is None:
            who = _("another player") if card.target == "player" else _("a player")
            raise _fail(_("{card}: name {who} as the target").format(card=card.name, who=who))
        t = state.index(target)
        if card.target == "player" and t == i:
            raise _fail(_("{card} targets another player, not {me}").format(card=card.name, me=me.name))
    if t is not None and t != i:
        me = evolve(me, sabotage=me.sabotage + 1)
        notes.append(_("{me}'s sabotage meter: {sabotage}").format(me=me.name, sabotage=me.sabotage))
    if card.effect == "extra_set":
        me = evolve(me, extra_sets=me.extra_sets + 1)
        notes.append(_("{me} has one extra action set this turn (not a Special Move)").format(me=me.name))
    state = _set(state, i, me)
    if card.effect == "freeze":
        assert t is not None
        victim = state.dashers[t]
        if victim.finished:
            raise _fail(_("{card}: {victim} has finished the race and cannot be frozen").format(
                            card=card.name, victim=victim.name))
        state = _set(state, t, evolve(victim, frozen=victim.frozen + 1))
        notes.append(_("{victim} is frozen: skips their next turn").format(victim=victim.name))
    return evolve(state, notes=tuple(notes))


def _decline(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    d = state.dashers[i]
    _need_racing(state, i, _("no Power-Up card"))
    _need_turn(state, i, _("a Power-Up card is declined by the player whose turn it is"))
    if d.power_up_tiles <= 0:
        raise _fail(_("{d} has no Power-Up Tile to return").format(d=d.name))
    if state.rules >= 2:
        if d.cards <= 0:
            raise _fail(_("{d} has no Power-Up card drawn to decline").format(d=d.name))
        d = evolve(d, cards=d.cards - 1)
        # "Returned Power-Ups Tile need one round cooldown before being taken again"
        state = evolve(state, cooling=state.cooling + ((d.name, state.round),))
    state = _set(state, i, evolve(d, power_up_tiles=d.power_up_tiles - 1))
    new, notes = _advance(state)
    notes.insert(0, _("Power-Up Tile returned, card to the graveyard, turn skipped"))
    return evolve(new, notes=tuple(notes))


def _tiles(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    d = state.dashers[i]
    kind = data.get("type")
    if kind not in state.tile_types:
        raise _fail(_("type: one of {tile_types}, not {kind!r}").format(
                        tile_types=', '.join(state.tile_types), kind=kind))
    k = state.tile_types.index(kind)
    n = d.tiles[k] + _delta(data)
    if n > BOARD_LIMIT:
        raise _fail(_("{d}: Board limit: {board_limit} {kind} Tiles per board").format(
                        d=d.name, board_limit=BOARD_LIMIT, kind=kind))
    if n < 0:
        raise _fail(_("{d} has no {kind} Tile").format(d=d.name, kind=kind))
    tiles = d.tiles[:k] + (n,) + d.tiles[k + 1:]
    return evolve(_set(state, i, evolve(d, tiles=tiles)), notes=())


def _power_tiles(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    """A Power-Up Tile onto or off a board. From round 3 (rules edition 2) picking one up
    draws a Power-Up card, to use or decline. ``returned: true``: the Tile is one a player
    returned, which is refused during its cooldown."""
    i = _who(state, data)
    d = state.dashers[i]
    delta = _delta(data)
    n = d.power_up_tiles + delta
    if n > BOARD_LIMIT:
        raise _fail(_("{d}: Board limit: {board_limit} Power-Up Tiles per board").format(
                        d=d.name, board_limit=BOARD_LIMIT))
    if n < 0:
        raise _fail(_("{d} has no Power-Up Tile").format(d=d.name))
    returned = data.get("returned", False)
    if not isinstance(returned, bool) or (returned and delta < 0):
        raise _fail(_("returned: true only when a returned Power-Up Tile is picked up"))
    if returned:
        free = [k for k, (_, r) in enumerate(state.cooling) if state.round > r + COOLDOWN_ROUNDS]
        if not free:
            if not state.cooling:
                raise _fail(_("no returned Power-Up Tile is on the board"))
            who, from_round = state.cooling_tiles()[0]
            raise _fail(_("the Power-Up Tile {who} returned needs one round cooldown: it can be taken "
                          "again from round {from_round}").format(
                            who=who, from_round=from_round))
        state = evolve(state, cooling=state.cooling[:free[0]] + state.cooling[free[0] + 1:])
    # DECISION: a card is drawn for a Tile picked up in the player's own turn (a Dasher
    # picks it up); a Tile that reaches a board otherwise (a swap) draws none
    draws = delta > 0 and state.power_ups_active and i == state.current
    if draws and state.rules >= 2:
        d = evolve(d, cards=d.cards + 1)
    notes = (_("draw a Power-Up card: use it, or return the Tile and skip the turn"),) if draws else ()
    return evolve(_set(state, i, evolve(d, power_up_tiles=n)), notes=notes)


def _start_tiles(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    """PLAYER BOARD SETUP: "Take 2 starting Tiles from the Tile Trays make sure they're
    different colors!" They go on the board's counters."""
    i = _who(state, data)
    d = state.dashers[i]
    types_ = data.get("types")
    if d.start_tiles:
        raise _fail(_("{d} has taken their starting Tiles already ({start_tiles})").format(
                        d=d.name, start_tiles=_both(*d.start_tiles)))
    if state.round != 1:
        raise _fail(_("the starting Tiles are taken at set-up, before round 2"))
    if not isinstance(types_, list) or len(types_) != START_TILES \
            or any(t not in state.tile_types for t in types_):
        raise _fail(_("types: the {start_tiles} starting Tiles' colours, from {tile_types}, not "
                      "{types!r}").format(
                        start_tiles=START_TILES, tile_types=', '.join(state.tile_types), types=types_))
    if types_[0] == types_[1]:
        raise _fail(_("{d}'s 2 starting Tiles must be different colours (both {types})").format(
                        d=d.name, types=types_[0]))
    tiles = list(d.tiles)
    for t in types_:
        k = state.tile_types.index(t)
        if tiles[k] + 1 > BOARD_LIMIT:
            raise _fail(_("{d}: Board limit: {board_limit} {t} Tiles per board").format(
                            d=d.name, board_limit=BOARD_LIMIT, t=t))
        tiles[k] += 1
    return evolve(_set(state, i, evolve(d, tiles=tuple(tiles), start_tiles=tuple(types_))),
                  notes=())


def _blueprint(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    """One Tile of one colour more or fewer on a player's Blueprint side, as printed on the
    card they drew. The red side "stays hidden until you complete Lap 1"."""
    i = _who(state, data)
    d = state.dashers[i]
    side = data.get("side")
    if side not in SIDES:
        raise _fail(_("side: green or red, not {side!r}").format(side=side))
    kind = data.get("type")
    if kind not in state.tile_types:
        raise _fail(_("type: one of {tile_types}, not {kind!r}").format(
                        tile_types=', '.join(state.tile_types), kind=kind))
    _need_racing(state, i, _("no Blueprint to change"))
    k, s_ = state.tile_types.index(kind), SIDES.index(side)
    if s_ == 1 and d.lap == 1:
        raise _fail(_("{d}'s red Blueprint stays hidden until they complete lap 1").format(d=d.name))
    if s_ == 0 and d.lap == 2:
        raise _fail(_("{d} has flipped the Blueprint to red: the green side is done").format(d=d.name))
    n = d.blueprint[s_][k] + _delta(data)
    if not 0 <= n <= BOARD_LIMIT:
        raise _fail(_("{d}'s {side} Blueprint: 0 to {board_limit} {kind} Tiles (the board's limit)").format(
                        d=d.name, side=side, board_limit=BOARD_LIMIT, kind=kind))
    sides = list(d.blueprint)
    sides[s_] = sides[s_][:k] + (n,) + sides[s_][k + 1:]
    return evolve(_set(state, i, evolve(d, blueprint=(sides[0], sides[1]))), notes=())


def _specialty(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    """DASHER SPECIALTY TOKEN: "used once per game ... played at any time during your turn
    or in response to other players' actions"; "Use anytime, discard after"."""
    i = _who(state, data)
    d = state.dashers[i]
    _need_racing(state, i, _("no Specialty token"))
    if d.specialty_used >= d.specialty:
        more = "" if d.specialty >= 2 else _(" (a second one comes with completing lap 1)")
        raise _fail((_("{dasher} has used both Dasher Specialty tokens: each is used once per "
                       "game{more}") if d.specialty == 2 else
                     _("{dasher} has used their Dasher Specialty token: each is used once per "
                       "game{more}")).format(dasher=d.name, more=more))
    name = data.get("token", "")
    if not isinstance(name, str):
        raise _fail(_("token: the Specialty token's name, or nothing"))
    return evolve(_set(state, i, evolve(d, specialty_used=d.specialty_used + 1)), notes=())


def _spawn(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    face = data.get("face")
    meaning = state.meaning(face)
    if data.get("meaning", meaning) != meaning:
        raise _fail(_("face {face} means {meaning}, not {get!r}").format(
                        face=face, meaning=meaning, get=data.get('meaning')))
    source = data.get("source", "hand")
    if source not in SOURCES:
        raise _fail(_("source: tower or hand, not {source!r}").format(source=source))
    spawn = Spawn(state.dashers[i].name, str(face), meaning, source, state.round)
    return evolve(state, last_spawn=spawn, notes=(_(MEANING_TEXT[meaning]),))


def _sabotage(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    d = state.dashers[i]
    n = d.sabotage + _delta(data)
    if n < 0:
        raise _fail(_("{d}'s sabotage meter is at 0").format(d=d.name))
    return evolve(_set(state, i, evolve(d, sabotage=n)), notes=())


def _freeze(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    d = state.dashers[i]
    delta = _delta(data)
    if delta > 0:
        _need_racing(state, i, _("no freeze"))
    if d.frozen + delta < 0:
        raise _fail(_("{d} is not frozen").format(d=d.name))
    return evolve(_set(state, i, evolve(d, frozen=d.frozen + delta)), notes=())


_HANDLERS = {
    "danchie.action_set": _action_set, "danchie.end_turn": _end_turn, "danchie.lap": _lap,
    "danchie.power_up": _power_up, "danchie.decline_power_up": _decline,
    "danchie.tiles": _tiles, "danchie.power_tiles": _power_tiles, "danchie.spawn": _spawn,
    "danchie.sabotage": _sabotage, "danchie.freeze": _freeze,
    "danchie.start_tiles": _start_tiles, "danchie.blueprint": _blueprint,
    "danchie.specialty": _specialty,
}
# DECISION: once everyone has finished, the sabotage meter can still be fixed (Tektonpedia).
AFTER_THE_RACE = frozenset({"danchie.sabotage"})


# ----------------------------------------------------------------------------- start data

def _check_start(setup: Mapping[str, Any]) -> None:
    players = setup.get("players")
    if not isinstance(players, (list, tuple)) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        n = len(players) if isinstance(players, (list, tuple)) else players
        raise _fail(_("Danchie Go is for 3 to 6 players, not {n!r}").format(n=n))
    for i, p in enumerate(players):
        if not isinstance(p, str) or not p.strip():
            raise _fail(_("player {i} needs a name").format(i=i + 1))
        if p in players[:i]:
            raise _fail(_("two players are called {p!r}").format(p=p))
    if "spawn_faces" not in setup or "power_ups" not in setup or "tile_types" not in setup:
        raise _fail(_("game.start needs the tile types, the spawn die's faces and the Power-Up cards: "
                      "build it with setup_from_config(config, players)"))
    types_ = setup["tile_types"]
    if not isinstance(types_, (list, tuple)) or len(types_) != N_TILE_TYPES \
            or len(set(types_)) != N_TILE_TYPES \
            or not all(isinstance(t, str) and t for t in types_):
        raise _fail(_("tile_types: {n_tile_types} different names, not {types!r}").format(
                        n_tile_types=N_TILE_TYPES, types=types_))
    faces = setup["spawn_faces"]
    if not isinstance(faces, (list, tuple)) or len(faces) != N_FACES \
            or not all(isinstance(f, Mapping) for f in faces):
        raise _fail(_("spawn_faces: the spawn die's {n_faces} faces").format(n_faces=N_FACES))
    names = [f.get("face") for f in faces]
    if len(set(names)) != N_FACES or not all(isinstance(n, str) and n for n in names):
        raise _fail(_("spawn_faces: {n_faces} different face names, not {names!r}").format(
                        n_faces=N_FACES, names=names))
    for f in faces:
        if f.get("meaning") not in MEANINGS:
            raise _fail(_("spawn face {face}: {meaning!r} is not a spawn meaning ({meanings})").format(
                            face=f.get('face'), meaning=f.get('meaning'), meanings=', '.join(MEANINGS)))
    cards = setup["power_ups"]
    if not isinstance(cards, (list, tuple)) or not cards \
            or not all(isinstance(c, Mapping) for c in cards):
        raise _fail(_("power_ups: the Power-Up cards"))
    seen: set[str] = set()
    for c in cards:
        if c.get("name") in seen or not c.get("name"):
            raise _fail(_("power_ups: {card!r} is listed twice or has no name").format(card=c.get('name')))
        seen.add(c["name"])
        if c.get("target", "none") not in TARGETS or c.get("effect", "none") not in EFFECTS:
            raise _fail(_("power_ups: {name}: target one of {targets}, effect one of {effects}").format(
                            name=c['name'], targets=', '.join(TARGETS), effects=', '.join(EFFECTS)))


# ----------------------------------------------------------------------------- rules

class DanchieRules:
    name = "danchie"
    title = "Danchie Go – King's Call"
    event_types = frozenset(_HANDLERS)

    def start(self, setup: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        _check_start(setup)
        return {"rules": RULES_EDITION, "players": list(setup["players"]),
                "tile_types": list(setup["tile_types"]),
                "spawn_faces": [{"face": f["face"], "meaning": f["meaning"]}
                                for f in setup["spawn_faces"]],
                "power_ups": [{"name": c["name"], "text": c.get("text", ""),
                               "target": c.get("target", "none"),
                               "effect": c.get("effect", "none")} for c in setup["power_ups"]]}

    def initial(self, data: Mapping[str, Any]) -> DanchieState:
        _check_start(data)
        return DanchieState(
            dashers=tuple(Dasher(str(p)) for p in data["players"]),
            tile_types=tuple(data["tile_types"]),
            spawn_faces=tuple((f["face"], f["meaning"]) for f in data["spawn_faces"]),
            power_ups=tuple(PowerUp(c["name"], c.get("text", ""), c.get("target", "none"),
                                    c.get("effect", "none")) for c in data["power_ups"]),
            rules=rules_edition(data))

    def decide(self, state: DanchieState, type_: str, data: Mapping[str, Any],
               rng: random.Random) -> dict[str, Any]:
        out = dict(data)
        if type_ == "danchie.spawn":
            out.setdefault("player", state.dashers[state.current].name)
            out.setdefault("source", "hand")
            out["meaning"] = state.meaning(out.get("face"))
        elif type_ == "danchie.action_set":
            out.setdefault("kind", "full")
        elif type_ == "danchie.power_up":
            out.setdefault("target", None)
        return out

    def apply(self, state: DanchieState, type_: str, data: Mapping[str, Any]) -> DanchieState:
        handler = _HANDLERS.get(type_)
        if handler is None:
            raise _fail(_("unknown Danchie Go action {type!r}").format(type=type_))
        if state.over and type_ not in AFTER_THE_RACE:
            raise _fail(_("the race is over: everyone has finished"))
        return handler(state, data)

    def describe(self, before: DanchieState, type_: str, data: Mapping[str, Any],
                 after: DanchieState) -> str:
        return describe(before, type_, data, after)

    def to_json(self, state: DanchieState, *, reveal_hidden: bool = False) -> dict[str, Any]:
        return to_json(state)

    def is_over(self, state: DanchieState) -> bool:
        return state.over

    def summary(self, state: DanchieState) -> str:
        names = ", ".join(state.names)
        if state.over:
            return _("{names}: {dasher} won").format(
                       names=names, dasher=state.dashers[state.finish[0]].name)
        if state.finish:
            return _("{names}: {dasher} won, round {round}").format(
                       names=names, dasher=state.dashers[state.finish[0]].name, round=state.round)
        return _("{names}, round {round}").format(names=names, round=state.round)


# ----------------------------------------------------------------------------- presentation

def describe(before: DanchieState, type_: str, data: Mapping[str, Any],
             after: DanchieState) -> str:
    kind = type_.split(".", 1)[1]
    who = str(data.get("player"))
    if kind == "action_set":
        what = _("a Special Move") if data.get("kind") == "special" else _("an action set")
        i = before.index(who)
        text = _("{who}: {what} ({done}/{allowed})").format(
            who=who, what=what, done=after.dashers[i].sets_done, allowed=after.sets_allowed(i))
    elif kind == "end_turn":
        text = _("{who} ends the turn").format(who=who)
    elif kind == "lap":
        lap = before.dashers[before.index(who)].lap
        text = _("{who} reaches the Flip line").format(
                   who=who) if lap == 1 else _("{who} crosses the finish line").format(
                                                                who=who)
    elif kind == "power_up":
        target = data.get("target")
        text = (_("{who} uses {card} on {target}") if target is not None else
                _("{who} uses {card}")).format(who=who, card=_(str(data.get("card"))), target=target)
    elif kind == "decline_power_up":
        text = _("{who} declines the Power-Up card").format(who=who)
    elif kind == "tiles":
        i = before.index(who)
        k = after.tile_types.index(data["type"])
        text = _("{who} {delta:+d} {type} Tile ({tile})").format(
                   who=who, delta=data['delta'], type=_(data['type']), tile=after.dashers[i].tiles[k])
    elif kind == "power_tiles":
        i = before.index(who)
        text = _("{who} {delta:+d} Power-Up Tile ({power_up_tiles})").format(
                   who=who, delta=data['delta'], power_up_tiles=after.dashers[i].power_up_tiles)
        if data.get("returned"):
            text += _(", a returned one")
    elif kind == "spawn":
        source = _("tower") if data.get("source") == "tower" else _("by hand")
        # the result follows in words (the state's note); the face's id is not for players
        text = _("{who} spawns ({source})").format(who=who, source=source)
    elif kind == "start_tiles":
        text = _("{who} takes 2 starting Tiles: {types}").format(who=who, types=_both(*data['types']))
    elif kind == "blueprint":
        i = before.index(who)
        k = after.tile_types.index(data["type"])
        n = after.dashers[i].blueprint[SIDES.index(data["side"])][k]
        text = _("{who}'s {side} Blueprint {delta:+d} {type} Tile ({n})").format(
                   who=who, side=_(data['side']), delta=data['delta'], type=_(data['type']), n=n)
    elif kind == "specialty":
        i = before.index(who)
        d = after.dashers[i]
        token = f": {data['token']}" if data.get("token") else ""
        text = (_("{who} uses a Dasher Specialty token{token} ({specialty_used} of {specialty} used)").format(
                    who=who, token=token, specialty_used=d.specialty_used, specialty=d.specialty))
    elif kind == "sabotage":
        i = before.index(who)
        text = _("{who} sabotage meter {delta:+d} ({sabotage}, by hand)").format(
                   who=who, delta=data['delta'], sabotage=after.dashers[i].sabotage)
    elif kind == "freeze":
        i = before.index(who)
        frozen = after.dashers[i].frozen
        text = ngettext("{who} freeze {delta:+d} ({count} turn to skip, by hand)",
                        "{who} freeze {delta:+d} ({count} turns to skip, by hand)", frozen).format(
            who=who, delta=data["delta"], count=frozen)
    else:
        text = type_
    if after.notes:
        text = _("{action}: {notes}").format(action=text, notes="; ".join(after.notes))
    return text


def _dasher_json(state: DanchieState, i: int) -> dict[str, Any]:
    d = state.dashers[i]
    out: dict[str, Any] = {
        "name": d.name, "lap": d.lap, "lap1_place": d.lap1_place,
        "finish_place": d.finish_place, "finished": d.finished, "sabotage": d.sabotage,
        "frozen": d.frozen, "resting": d.resting,
        "tiles": dict(zip(state.tile_types, d.tiles)), "power_up_tiles": d.power_up_tiles,
        "special_move_round": d.special_move_round, "sets_done": d.sets_done,
        "extra_sets": d.extra_sets, "sets_allowed": state.sets_allowed(i),
        "start_tiles": list(d.start_tiles),
        "blueprint": {side: dict(zip(state.tile_types, d.blueprint[k]))
                      for k, side in enumerate(SIDES)},
        "specialty": d.specialty, "specialty_used": d.specialty_used, "cards": d.cards,
        "tektonpedia": None,
    }
    if d.lap1_place is not None and d.finish_place is not None:
        t = tektonpedia(d.lap1_place, d.finish_place, d.sabotage)
        out["tektonpedia"] = {"personality": t.personality, "kind": t.kind, "text": t.text}
    return out


def to_json(state: DanchieState) -> dict[str, Any]:
    s = state.last_spawn
    return {
        "round": state.round, "current": state.dashers[state.current].name,
        "power_ups_active": state.power_ups_active, "base_sets": state.base_sets,
        "two_sets_from_round": state.two_sets_from_round,
        "players": [_dasher_json(state, i) for i in range(len(state.dashers))],
        "podium": [state.dashers[i].name for i in state.podium],
        "finish": [state.dashers[i].name for i in state.finish],
        "last_spawn": None if s is None else {"player": s.player, "face": s.face,
                                              "meaning": s.meaning, "text": s.text,
                                              "source": s.source, "round": s.round},
        "over": state.over, "notes": list(state.notes),
        "cooling": [{"returned_by": who, "free_from_round": r} for who, r in state.cooling_tiles()],
    }


RULES = DanchieRules()


# ----------------------------------------------------------------------------- live view


def spectator_summary(state: DanchieState) -> dict[str, Any]:
    """The live view's public picture (``companion/live/summary.py``): the round and whose
    turn it is, each Dasher's lap, board Tiles, Power-Up Tiles and sabotage meter, frozen or
    resting, their places, and the last spawn. Never a Blueprint (its red side stays hidden
    until lap 1 is done) nor a Dasher Specialty token (each player keeps theirs secret; the
    state holds only how many were used)."""
    if state.over:
        status = _("Race over")
    else:
        status = " · ".join([_("Round {round}").format(round=state.round),
                             _("{player}'s turn").format(player=state.dashers[state.current].name),
                             _("Power-Ups active") if state.power_ups_active else
                             _("Power-Ups from round {round}").format(round=POWER_UP_ROUND)])
    sides = []
    for d in state.dashers:
        figures = [{"label": _("Lap"), "value": str(d.lap), "of": len(SIDES)}]
        figures += [{"label": _(t), "value": str(n), "of": BOARD_LIMIT}
                    for t, n in zip(state.tile_types, d.tiles)]
        figures += [{"label": _("Power-Up Tiles"), "value": str(d.power_up_tiles), "of": BOARD_LIMIT},
                    {"label": _("Sabotage"), "value": str(d.sabotage)}]
        notes = []
        if d.finish_place is not None:
            notes.append(_("Finished {place} · lap 1 {lap1_place}").format(
                place=ordinal(d.finish_place), lap1_place=ordinal(d.lap1_place or 0)))
        elif d.lap1_place is not None:
            notes.append((_("Lap 2 (lap 1 {place}, podium)") if d.lap1_place <= PODIUM_PLACES else
                          _("Lap 2 (lap 1 {place})")).format(place=ordinal(d.lap1_place)))
        if d.frozen:
            notes.append(_("FROZEN {turns}").format(turns=d.frozen))
        if d.resting:
            notes.append(_("RESTS 1 turn"))
        sides.append({"name": d.name, "figures": figures, "notes": notes})
    lines = []
    if state.last_spawn is not None:
        sp = state.last_spawn
        lines.append(_("Spawn die: {result} ({player}, round {round})").format(
            result=sp.text, player=sp.player, round=sp.round))
    lines += [_("Power-Up Tile returned by {player}: cooling down until round {round}").format(
        player=who, round=r) for who, r in state.cooling_tiles()]
    winner = state.dashers[state.finish[0]].name if state.over and state.finish else None
    return {"status": status, "sides": sides, "lines": lines, "over": state.over,
            "winner": winner,
            "roller": None if state.over else state.dashers[state.current].name}


ENTRY = GameEntry(
    id="danchie", rules=f"{__name__}:RULES", setup="danchie_setup", play="danchie_game",
    tile=HomeTile(N_("Danchie Go"), N_("race tracker"), (0.55, 0.35, 0.12, 1), (0.7, 0.45, 0.18, 1), 50),
    screens={"danchie_setup": "companion.app.screens.danchie_setup:DanchieSetupScreen",
             "danchie_game": "companion.app.screens.danchie_game:DanchieGameScreen"},
    config=ConfigFile("danchie", f"{__name__}:DanchieConfig", "companion.config:danchie.yaml"),
    dice_kinds=(TOWER_KIND,), sim_dice="spawn", spectator=f"{__name__}:spectator_summary")
