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
from ..i18n import N_
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
COOLDOWN_ROUNDS = 1      # "Returned Power-Ups Tile need one round cooldown"

MEANINGS = ("tile_under_you", "power_up_on_spawn", "tile_on_spawn", "no_spawn")
MEANING_TEXT = {
    "tile_under_you": "Regular Tile under your position",
    "power_up_on_spawn": "Power-Up Tile on the Spawn area",
    "tile_on_spawn": "Regular Tile on the Spawn area",
    "no_spawn": "No spawn",
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
            return ("face", "a face needs a name (as the dice tower reports it)")
        if self.meaning not in MEANINGS:
            return ("meaning", f"{self.meaning!r} is not a spawn meaning ({', '.join(MEANINGS)})")
        return None


@dataclass(frozen=True)
class SpawnDieConfig:
    faces: tuple[SpawnFaceConfig, ...]

    def validate(self) -> tuple[str, str] | None:
        if len(self.faces) != N_FACES:
            return ("faces", f"the spawn die has {N_FACES} faces, not {len(self.faces)}")
        names = [f.face for f in self.faces]
        for i, n in enumerate(names):
            if n in names[:i]:
                return (f"faces[{i}].face", f"{n!r} is listed twice")
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
            return ("name", "a Power-Up card needs a name")
        if self.target not in TARGETS:
            return ("target", f"{self.target!r} is not a target ({', '.join(TARGETS)})")
        if self.effect not in EFFECTS:
            return ("effect", f"{self.effect!r} is not an effect ({', '.join(EFFECTS)})")
        if self.effect == "freeze" and self.target == "none":
            return ("target", "a freeze needs a player to freeze (player or any_player)")
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
                    f"{N_TILE_TYPES} tile types (colours), not {len(self.tile_types)}")
        for i, t in enumerate(self.tile_types):
            if not t.strip():
                return (f"tile_types[{i}]", "a tile type needs a name")
            if t in self.tile_types[:i]:
                return (f"tile_types[{i}]", f"{t!r} is listed twice")
        if not self.power_ups:
            return ("power_ups", "list the Power-Up cards")
        names = [p.name for p in self.power_ups]
        for i, n in enumerate(names):
            if n in names[:i]:
                return (f"power_ups[{i}].name", f"{n!r} is listed twice")
        for i, d in enumerate(self.defaults):
            if d not in ("tile_types", "spawn_die.faces"):
                return (f"defaults[{i}]", f"{d!r} is not a default we ship "
                                          "(tile_types, spawn_die.faces)")
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
        raise IllegalActionError(f"Danchie Go is for 3 to 6 players, not {n_players!r}")
    n = n_players
    sets = tuple("Standard" if i < 4 else "Special" for i in range(n))
    notes = [
        "Obstacles: players take turns clockwise placing one type at a time, in this order: "
        "Spawn, Stack, Boost, Block.",
        "The first two rows from the start line stay clear of obstacles.",
        "Blocks: split evenly between horizontal and vertical (odd number: the players "
        "choose).",
        "Each player takes 2 starting Tiles of different colours (section 3 of the board): "
        "count them on the companion's board counters.",
        f"Tiles: {2 * n} of each colour on the board, regular side up; then each player flips "
        f"3 to the Power-Up side ({3 * n} Power-Up Tiles).",
    ]
    if n == 3:
        notes.insert(0, "3 players: choose one of the rulebook's pre-made layouts.")
        notes.insert(1, "3 players: 12 obstacles (4 per player); the rulebook text shows 13, "
                        "which does not match 4 per player.")
        notes.insert(2, "3 players is marked \"not recommended\" in the rulebook's tile set-up "
                        "figure.")
    else:
        notes.insert(0, f"{n} players: customize your own obstacle layout.")
    if n >= 5:
        who = "Player 5 gets" if n == 5 else "Players 5 and 6 get"
        notes.append(f"{who} a Special set (Special Spawn, Special Stack, Special Boost, "
                     "Block).")
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
        raise IllegalActionError(f"a finishing place is 1 to {MAX_PLAYERS}, not {place!r}")
    return "4-5" if place in (4, 5) else str(place)


def tektonpedia(place1: int, place2: int, sabotage: int) -> Tektonpedia:
    """Lap-1 place x lap-2 place, and Tekton or Mekton by the sabotage meter.

    DECISION: written "a-b" as in the rulebook's example ("2-3"), but with the printed
    table's slash when a bucket is itself a range ("4-5/3"), so it is never ambiguous.
    DECISION: Tekton for 0-5 sabotages, Mekton for 6+ (the table; the text once says 5+)."""
    if isinstance(sabotage, bool) or not isinstance(sabotage, int) or sabotage < 0:
        raise IllegalActionError(f"the sabotage meter is 0 or more, not {sabotage!r}")
    a, b = place_bucket(place1), place_bucket(place2)
    personality = f"{a}/{b}" if "-" in a or "-" in b else f"{a}-{b}"
    kind: Literal["Tekton", "Mekton"] = "Mekton" if sabotage >= MEKTON_FROM else "Tekton"
    text = (f"Lap 1 {_ordinal(place1)} x lap 2 {_ordinal(place2)}, {sabotage} "
            f"sabotage{'s' if sabotage != 1 else ''}: find personality #{personality} in the "
            f"{kind} profiles of the Tektonpedia")
    return Tektonpedia(personality, kind, text)


def _ordinal(n: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(n, "th")
    return f"{n}{suffix}"


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
        return MEANING_TEXT[self.meaning]


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
        raise IllegalActionError(f"no player called {name!r} (players: {', '.join(self.names)})")

    def card(self, name: Any) -> PowerUp:
        for p in self.power_ups:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.power_ups)
        raise IllegalActionError(f"no Power-Up card called {name!r} (cards: {known})")

    def meaning(self, face: Any) -> str:
        for f, meaning in self.spawn_faces:
            if f == face:
                return meaning
        known = ", ".join(f for f, _ in self.spawn_faces)
        raise IllegalActionError(f"{face!r} is not a face of the spawn die (faces: {known})")


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
        raise _fail(f"delta: +1 or -1, not {delta!r}")
    return int(delta)


def _need_turn(state: DanchieState, i: int, what: str) -> None:
    if i != state.current:
        raise _fail(f"{what}: it is {state.dashers[state.current].name}'s turn, not "
                    f"{state.dashers[i].name}'s")


def _need_racing(state: DanchieState, i: int, what: str) -> None:
    d = state.dashers[i]
    if d.finished:
        raise _fail(f"{what}: {d.name} has finished the race ({_ordinal(d.finish_place or 0)})")


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
            notes.append(f"Round {rnd}" + (": Power-Up cards are active from now on"
                                           if rnd == POWER_UP_ROUND else ""))
        d = ds[i]
        if d.finished:
            continue
        if d.frozen > 0:
            ds[i] = evolve(d, frozen=d.frozen - 1)
            notes.append(f"{d.name} is frozen: turn skipped")
            continue
        if d.resting:
            ds[i] = evolve(d, resting=False)
            notes.append(f"{d.name} stops for one turn after lap 1: turn skipped")
            continue
        break
    new = evolve(state, dashers=tuple(ds), current=i, round=rnd)
    notes.append(f"{ds[i].name}'s turn ({new.base_sets} action set"
                 f"{'s' if new.base_sets > 1 else ''})")
    return new, notes


# ----------------------------------------------------------------------------- actions

def _action_set(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    d = state.dashers[i]
    kind = data.get("kind", "full")
    if kind not in SET_KINDS:
        raise _fail(f"kind: full or special (a Special Move in place of an action set), "
                    f"not {kind!r}")
    _need_racing(state, i, "no action set")
    _need_turn(state, i, "no action set")
    allowed = state.sets_allowed(i)
    if d.sets_done >= allowed:
        raise _fail(f"{d.name} has done {d.sets_done} of {allowed} action set"
                    f"{'s' if allowed > 1 else ''} this turn: end the turn")
    notes: list[str] = []
    if kind == "special":
        if d.lap == 2 and d.special_move_round == state.round:
            raise _fail(f"{d.name} is on lap 2: Limited to one special move per round "
                        f"(used in round {state.round})")
        if d.specials_done >= state.base_sets:
            raise _fail(f"{d.name}: Plus Action's extra action set cannot be a Special Move")
        d = evolve(d, specials_done=d.specials_done + 1,
                   special_move_round=state.round if d.lap == 2 else d.special_move_round)
    d = evolve(d, sets_done=d.sets_done + 1)
    left = allowed - d.sets_done
    notes.append(f"{left} action set{'s' if left != 1 else ''} left" if left else
                 "no action set left: end the turn")
    return evolve(_set(state, i, d), notes=tuple(notes))


def _end_turn(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    """ACTION SETS: "Every player must complete a Full Action Set or a Special Move. Every
    player can't skip 1 of the actions, even if it's inconvenient." (rules edition 2: the
    turn cannot end with a set left; the rulebook's only skip is declining a Power-Up card,
    ``danchie.decline_power_up``, and a frozen or resting player's turn is skipped for them)."""
    i = _who(state, data)
    _need_turn(state, i, "cannot end the turn")
    left = state.sets_left(i)
    d = state.dashers[i]
    if state.rules >= 2 and left and not d.finished:
        what = "a Full Action Set or a Special Move" if left == 1 else \
            f"{left} Full Action Sets or Special Moves"
        raise _fail(f"{d.name} must still complete {what} this turn (every player must; "
                    "only declining a Power-Up card skips a turn)")
    if state.rules >= 2 and d.cards and not d.finished:
        raise _fail(f"{d.name} drew a Power-Up card: use it, or decline it (return the Tile "
                    "and skip the turn)")
    new, notes = _advance(state)
    if left and not d.finished:
        notes.insert(0, f"{left} action set{'s' if left > 1 else ''} not done")
    return evolve(new, notes=tuple(notes))


def _matches(state: DanchieState, d: Dasher, side: int) -> str | None:
    """None when the board's Tiles match that Blueprint side exactly, else why not."""
    want = d.blueprint[side]
    if not any(want):
        return (f"{d.name}'s {SIDES[side]} Blueprint is not entered yet: enter its Tiles "
                "per colour first")
    if d.tiles != want:
        def text(counts: tuple[int, ...]) -> str:
            return ", ".join(f"{n} {t}" for t, n in zip(state.tile_types, counts) if n) or "none"
        return (f"{d.name}'s Tiles ({text(d.tiles)}) do not match the {SIDES[side]} Blueprint "
                f"({text(want)}) exactly, without any excess Tiles")
    return None


def _lap(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    _need_racing(state, i, "no lap to finish")
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
            notes.append(f"podium place {place}: a second Dasher Specialty token")
        else:
            notes.append(f"lap 1 place {place}: a second Dasher Specialty token")
        notes.append("flip the Blueprint to red; stop for one turn")
        if state.two_sets_from_round is None:
            state = evolve(state, two_sets_from_round=state.round + 1)
            notes.append(f"first to finish lap 1: everyone has 2 action sets from round "
                         f"{state.round + 1}")
        return evolve(state, notes=tuple(notes))
    place = len(state.finish) + 1
    d = evolve(d, finish_place=place, resting=False, frozen=0)
    state = evolve(_set(state, i, d), finish=state.finish + (i,))
    notes.append(f"finishes {_ordinal(place)}" + (": wins the race!" if place == 1 else ""))
    if state.over:
        notes.append("everyone has finished: the game is over (see the Tektonpedia)")
    return evolve(state, notes=tuple(notes))


def _power_up(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    me = state.dashers[i]
    card = state.card(data.get("card"))
    if not state.power_ups_active:
        raise _fail(f"{me.name} cannot use {card.name}: Power-Up cards work only from round "
                    f"{POWER_UP_ROUND} (this is round {state.round})")
    _need_racing(state, i, f"no {card.name}")
    _need_turn(state, i, f"{card.name}: a Power-Up card is used by the player whose turn it is")
    if state.rules >= 2:
        if me.cards <= 0:
            raise _fail(f"{me.name} has no Power-Up card drawn: a card is drawn when your "
                        "Dasher picks a Power-Up Tile")
        me = evolve(me, cards=me.cards - 1)
    target = data.get("target")
    notes: list[str] = []
    if card.target == "none":
        if target is not None:
            raise _fail(f"{card.name} targets no player (target must be null, not {target!r})")
        t = None
    else:
        if target is None:
            who = "another player" if card.target == "player" else "a player"
            raise _fail(f"{card.name}: name {who} as the target")
        t = state.index(target)
        if card.target == "player" and t == i:
            raise _fail(f"{card.name} targets another player, not {me.name}")
    if t is not None and t != i:
        me = evolve(me, sabotage=me.sabotage + 1)
        notes.append(f"{me.name}'s sabotage meter: {me.sabotage}")
    if card.effect == "extra_set":
        me = evolve(me, extra_sets=me.extra_sets + 1)
        notes.append(f"{me.name} has one extra action set this turn (not a Special Move)")
    state = _set(state, i, me)
    if card.effect == "freeze":
        assert t is not None
        victim = state.dashers[t]
        if victim.finished:
            raise _fail(f"{card.name}: {victim.name} has finished the race and cannot be frozen")
        state = _set(state, t, evolve(victim, frozen=victim.frozen + 1))
        notes.append(f"{victim.name} is frozen: skips their next turn")
    return evolve(state, notes=tuple(notes))


def _decline(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    d = state.dashers[i]
    _need_racing(state, i, "no Power-Up card")
    _need_turn(state, i, "a Power-Up card is declined by the player whose turn it is")
    if d.power_up_tiles <= 0:
        raise _fail(f"{d.name} has no Power-Up Tile to return")
    if state.rules >= 2:
        if d.cards <= 0:
            raise _fail(f"{d.name} has no Power-Up card drawn to decline")
        d = evolve(d, cards=d.cards - 1)
        # "Returned Power-Ups Tile need one round cooldown before being taken again"
        state = evolve(state, cooling=state.cooling + ((d.name, state.round),))
    state = _set(state, i, evolve(d, power_up_tiles=d.power_up_tiles - 1))
    new, notes = _advance(state)
    notes.insert(0, "Power-Up Tile returned, card to the graveyard, turn skipped")
    return evolve(new, notes=tuple(notes))


def _tiles(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    d = state.dashers[i]
    kind = data.get("type")
    if kind not in state.tile_types:
        raise _fail(f"type: one of {', '.join(state.tile_types)}, not {kind!r}")
    k = state.tile_types.index(kind)
    n = d.tiles[k] + _delta(data)
    if n > BOARD_LIMIT:
        raise _fail(f"{d.name}: Board limit: {BOARD_LIMIT} {kind} Tiles per board")
    if n < 0:
        raise _fail(f"{d.name} has no {kind} Tile")
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
        raise _fail(f"{d.name}: Board limit: {BOARD_LIMIT} Power-Up Tiles per board")
    if n < 0:
        raise _fail(f"{d.name} has no Power-Up Tile")
    returned = data.get("returned", False)
    if not isinstance(returned, bool) or (returned and delta < 0):
        raise _fail("returned: true only when a returned Power-Up Tile is picked up")
    if returned:
        free = [k for k, (_, r) in enumerate(state.cooling) if state.round > r + COOLDOWN_ROUNDS]
        if not free:
            if not state.cooling:
                raise _fail("no returned Power-Up Tile is on the board")
            who, from_round = state.cooling_tiles()[0]
            raise _fail(f"the Power-Up Tile {who} returned needs one round cooldown: it can "
                        f"be taken again from round {from_round}")
        state = evolve(state, cooling=state.cooling[:free[0]] + state.cooling[free[0] + 1:])
    # DECISION: a card is drawn for a Tile picked up in the player's own turn (a Dasher
    # picks it up); a Tile that reaches a board otherwise (a swap) draws none
    draws = delta > 0 and state.power_ups_active and i == state.current
    if draws and state.rules >= 2:
        d = evolve(d, cards=d.cards + 1)
    notes = ("draw a Power-Up card: use it, or return the Tile and skip the turn",) if draws else ()
    return evolve(_set(state, i, evolve(d, power_up_tiles=n)), notes=notes)


def _start_tiles(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    """PLAYER BOARD SETUP: "Take 2 starting Tiles from the Tile Trays make sure they're
    different colors!" They go on the board's counters."""
    i = _who(state, data)
    d = state.dashers[i]
    types_ = data.get("types")
    if d.start_tiles:
        raise _fail(f"{d.name} has taken their starting Tiles already "
                    f"({' and '.join(d.start_tiles)})")
    if state.round != 1:
        raise _fail("the starting Tiles are taken at set-up, before round 2")
    if not isinstance(types_, list) or len(types_) != START_TILES \
            or any(t not in state.tile_types for t in types_):
        raise _fail(f"types: the {START_TILES} starting Tiles' colours, from "
                    f"{', '.join(state.tile_types)}, not {types_!r}")
    if types_[0] == types_[1]:
        raise _fail(f"{d.name}'s 2 starting Tiles must be different colours (both {types_[0]})")
    tiles = list(d.tiles)
    for t in types_:
        k = state.tile_types.index(t)
        if tiles[k] + 1 > BOARD_LIMIT:
            raise _fail(f"{d.name}: Board limit: {BOARD_LIMIT} {t} Tiles per board")
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
        raise _fail(f"side: green or red, not {side!r}")
    kind = data.get("type")
    if kind not in state.tile_types:
        raise _fail(f"type: one of {', '.join(state.tile_types)}, not {kind!r}")
    _need_racing(state, i, "no Blueprint to change")
    k, s_ = state.tile_types.index(kind), SIDES.index(side)
    if s_ == 1 and d.lap == 1:
        raise _fail(f"{d.name}'s red Blueprint stays hidden until they complete lap 1")
    if s_ == 0 and d.lap == 2:
        raise _fail(f"{d.name} has flipped the Blueprint to red: the green side is done")
    n = d.blueprint[s_][k] + _delta(data)
    if not 0 <= n <= BOARD_LIMIT:
        raise _fail(f"{d.name}'s {side} Blueprint: 0 to {BOARD_LIMIT} {kind} Tiles "
                    "(the board's limit)")
    sides = list(d.blueprint)
    sides[s_] = sides[s_][:k] + (n,) + sides[s_][k + 1:]
    return evolve(_set(state, i, evolve(d, blueprint=(sides[0], sides[1]))), notes=())


def _specialty(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    """DASHER SPECIALTY TOKEN: "used once per game ... played at any time during your turn
    or in response to other players' actions"; "Use anytime, discard after"."""
    i = _who(state, data)
    d = state.dashers[i]
    _need_racing(state, i, "no Specialty token")
    if d.specialty_used >= d.specialty:
        more = "" if d.specialty >= 2 else " (a second one comes with completing lap 1)"
        raise _fail(f"{d.name} has used {'both' if d.specialty == 2 else 'their'} Dasher "
                    f"Specialty token{'s' if d.specialty == 2 else ''}: each is used once per "
                    f"game{more}")
    name = data.get("token", "")
    if not isinstance(name, str):
        raise _fail("token: the Specialty token's name, or nothing")
    return evolve(_set(state, i, evolve(d, specialty_used=d.specialty_used + 1)), notes=())


def _spawn(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    face = data.get("face")
    meaning = state.meaning(face)
    if data.get("meaning", meaning) != meaning:
        raise _fail(f"face {face} means {meaning}, not {data.get('meaning')!r}")
    source = data.get("source", "hand")
    if source not in SOURCES:
        raise _fail(f"source: tower or hand, not {source!r}")
    spawn = Spawn(state.dashers[i].name, str(face), meaning, source, state.round)
    return evolve(state, last_spawn=spawn, notes=(MEANING_TEXT[meaning],))


def _sabotage(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    d = state.dashers[i]
    n = d.sabotage + _delta(data)
    if n < 0:
        raise _fail(f"{d.name}'s sabotage meter is at 0")
    return evolve(_set(state, i, evolve(d, sabotage=n)), notes=())


def _freeze(state: DanchieState, data: Mapping[str, Any]) -> DanchieState:
    i = _who(state, data)
    d = state.dashers[i]
    delta = _delta(data)
    if delta > 0:
        _need_racing(state, i, "no freeze")
    if d.frozen + delta < 0:
        raise _fail(f"{d.name} is not frozen")
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
        raise _fail(f"Danchie Go is for 3 to 6 players, not {n!r}")
    for i, p in enumerate(players):
        if not isinstance(p, str) or not p.strip():
            raise _fail(f"player {i + 1} needs a name")
        if p in players[:i]:
            raise _fail(f"two players are called {p!r}")
    if "spawn_faces" not in setup or "power_ups" not in setup or "tile_types" not in setup:
        raise _fail("game.start needs the tile types, the spawn die's faces and the Power-Up "
                    "cards: build it with setup_from_config(config, players)")
    types_ = setup["tile_types"]
    if not isinstance(types_, (list, tuple)) or len(types_) != N_TILE_TYPES \
            or len(set(types_)) != N_TILE_TYPES \
            or not all(isinstance(t, str) and t for t in types_):
        raise _fail(f"tile_types: {N_TILE_TYPES} different names, not {types_!r}")
    faces = setup["spawn_faces"]
    if not isinstance(faces, (list, tuple)) or len(faces) != N_FACES \
            or not all(isinstance(f, Mapping) for f in faces):
        raise _fail(f"spawn_faces: the spawn die's {N_FACES} faces")
    names = [f.get("face") for f in faces]
    if len(set(names)) != N_FACES or not all(isinstance(n, str) and n for n in names):
        raise _fail(f"spawn_faces: {N_FACES} different face names, not {names!r}")
    for f in faces:
        if f.get("meaning") not in MEANINGS:
            raise _fail(f"spawn face {f.get('face')}: {f.get('meaning')!r} is not a spawn "
                        f"meaning ({', '.join(MEANINGS)})")
    cards = setup["power_ups"]
    if not isinstance(cards, (list, tuple)) or not cards \
            or not all(isinstance(c, Mapping) for c in cards):
        raise _fail("power_ups: the Power-Up cards")
    seen: set[str] = set()
    for c in cards:
        if c.get("name") in seen or not c.get("name"):
            raise _fail(f"power_ups: {c.get('name')!r} is listed twice or has no name")
        seen.add(c["name"])
        if c.get("target", "none") not in TARGETS or c.get("effect", "none") not in EFFECTS:
            raise _fail(f"power_ups: {c['name']}: target one of {', '.join(TARGETS)}, effect "
                        f"one of {', '.join(EFFECTS)}")


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
            raise _fail(f"unknown Danchie Go action {type_!r}")
        if state.over and type_ not in AFTER_THE_RACE:
            raise _fail("the race is over: everyone has finished")
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
            return f"{names}: {state.dashers[state.finish[0]].name} won"
        if state.finish:
            return f"{names}: {state.dashers[state.finish[0]].name} won, round {state.round}"
        return f"{names}, round {state.round}"


# ----------------------------------------------------------------------------- presentation

def describe(before: DanchieState, type_: str, data: Mapping[str, Any],
             after: DanchieState) -> str:
    kind = type_.split(".", 1)[1]
    who = str(data.get("player"))
    if kind == "action_set":
        what = "a Special Move" if data.get("kind") == "special" else "an action set"
        i = before.index(who)
        text = f"{who}: {what} ({after.dashers[i].sets_done}/{after.sets_allowed(i)})"
    elif kind == "end_turn":
        text = f"{who} ends the turn"
    elif kind == "lap":
        lap = before.dashers[before.index(who)].lap
        text = f"{who} reaches the Flip line" if lap == 1 else f"{who} crosses the finish line"
    elif kind == "power_up":
        target = data.get("target")
        text = f"{who} uses {data.get('card')}" + (f" on {target}" if target is not None else "")
    elif kind == "decline_power_up":
        text = f"{who} declines the Power-Up card"
    elif kind == "tiles":
        i = before.index(who)
        k = after.tile_types.index(data["type"])
        text = f"{who} {data['delta']:+d} {data['type']} Tile ({after.dashers[i].tiles[k]})"
    elif kind == "power_tiles":
        i = before.index(who)
        text = f"{who} {data['delta']:+d} Power-Up Tile ({after.dashers[i].power_up_tiles})"
        if data.get("returned"):
            text += ", a returned one"
    elif kind == "spawn":
        source = "tower" if data.get("source") == "tower" else "by hand"
        text = f"{who} spawns ({source}): {data.get('face')}"
    elif kind == "start_tiles":
        text = f"{who} takes 2 starting Tiles: {' and '.join(data['types'])}"
    elif kind == "blueprint":
        i = before.index(who)
        k = after.tile_types.index(data["type"])
        n = after.dashers[i].blueprint[SIDES.index(data["side"])][k]
        text = f"{who}'s {data['side']} Blueprint {data['delta']:+d} {data['type']} Tile ({n})"
    elif kind == "specialty":
        i = before.index(who)
        d = after.dashers[i]
        token = f": {data['token']}" if data.get("token") else ""
        text = (f"{who} uses a Dasher Specialty token{token} ({d.specialty_used} of "
                f"{d.specialty} used)")
    elif kind == "sabotage":
        i = before.index(who)
        text = f"{who} sabotage meter {data['delta']:+d} ({after.dashers[i].sabotage}, by hand)"
    elif kind == "freeze":
        i = before.index(who)
        text = f"{who} freeze {data['delta']:+d} ({after.dashers[i].frozen} turn"\
               f"{'s' if after.dashers[i].frozen != 1 else ''} to skip, by hand)"
    else:
        text = type_
    if after.notes:
        text += ": " + "; ".join(after.notes)
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


ENTRY = GameEntry(
    id="danchie", rules=f"{__name__}:RULES", setup="danchie_setup", play="danchie_game",
    tile=HomeTile(N_("Danchie Go"), N_("race tracker"), (0.55, 0.35, 0.12, 1), (0.7, 0.45, 0.18, 1), 50),
    screens={"danchie_setup": "companion.app.screens.danchie_game:DanchieSetupScreen",
             "danchie_game": "companion.app.screens.danchie_game:DanchieGameScreen"},
    config=ConfigFile("danchie", f"{__name__}:DanchieConfig", "companion.config:danchie.yaml"),
    dice_kinds=(TOWER_KIND,), sim_dice="spawn")
