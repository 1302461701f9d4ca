"""TEKKEN – The Board Game: the pure rules engine.

Follows ``shared/rules/tekken.md``. The companion does not model cards or hexes: it tracks
HP, Rage, Heat, Punishment tokens, Stun cards, knock-down, rounds won, the String's Attack
Slots and the stage's Floor Break tokens, and it draws the hidden breakage tokens.

Players are numbered 0 and 1. Every state is a frozen value; ``apply`` returns a new one.
Decisions where the rulebook is silent are marked ``DECISION`` and listed in
docs/events.md; each has a test.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import CompanionError, IllegalActionError
from ..i18n import N_, _, ngettext
from ..registry import ConfigFile, GameEntry, HomeTile
from .base import evolver, items, mapping, text, whole

RED_ZONE_HP = 6          # "The red zone is HP <= 6"; Rage is revealed there.
BASE_SLOTS = 3           # Attack Slots in a String; +1 with Heat active.
DEFAULT_MAX_HP = 20      # DEFAULT: not given by the rulebook; editable per character.

HeatState = Literal["charged", "active", "discharged"]
RageState = Literal["unchosen", "chosen", "revealed", "used"]
SlotState = Literal["stun", "hit", "punishment", "blocked"]
Phase = Literal["fight", "round_over", "game_over"]

# ----------------------------------------------------------------------------- config


@dataclass(frozen=True)
class CharacterConfig:
    """A playable character. ``max_hp`` is a default the user can change in the app."""

    name: str
    max_hp: int = DEFAULT_MAX_HP
    max_hp_is_default: bool = True   # true: the value is ours, not the rulebook's
    rage_cards: tuple[str, str] = ("Rage card A", "Rage card B")

    def validate(self) -> tuple[str, str] | None:
        if not self.name.strip():
            return ("name", _("a character needs a name"))
        if not RED_ZONE_HP < self.max_hp <= 99:
            return ("max_hp", _("max HP must be between {red_zone_hp} and 99, got {max_hp}").format(
                                  red_zone_hp=RED_ZONE_HP + 1, max_hp=self.max_hp))
        return None


@dataclass(frozen=True)
class FloorBreakConfig:
    """The 'Floor Break' gimmick: face-down breakage tokens, some cracked."""

    cracked: int = 3
    empty: int = 3
    sides: tuple[str, str] = ("Upperside", "Underside")

    def validate(self) -> tuple[str, str] | None:
        if self.cracked < 1:
            return ("cracked", _("at least 1 cracked token is needed, got {cracked}").format(
                                   cracked=self.cracked))
        if self.empty < 0:
            return ("empty", _("cannot be negative, got {empty}").format(empty=self.empty))
        return None


@dataclass(frozen=True)
class StageConfig:
    name: str
    floor_break: FloorBreakConfig | None = None


def stage_data(stage: StageConfig) -> dict[str, Any]:
    """A stage as plain data: the ``stage`` of a game's set-up, and its YAML form."""
    out: dict[str, Any] = {"name": stage.name}
    if stage.floor_break is not None:
        fb = stage.floor_break
        out["floor_break"] = {"cracked": fb.cracked, "empty": fb.empty, "sides": list(fb.sides)}
    return out


@dataclass(frozen=True)
class TekkenConfig:
    """config/tekken.yaml."""

    characters: tuple[CharacterConfig, ...]
    stages: tuple[StageConfig, ...]
    rounds_to_win: int = 3

    def validate(self) -> tuple[str, str] | None:
        if len(self.characters) < 1:
            return ("characters", _("at least one character is needed"))
        names = [c.name for c in self.characters]
        for i, name in enumerate(names):
            if name in names[:i]:
                return (f"characters[{i}].name", _("{name!r} is listed twice").format(name=name))
        if len(self.stages) < 1:
            return ("stages", _("at least one stage is needed"))
        if not 1 <= self.rounds_to_win <= 9:
            return ("rounds_to_win", _("must be between 1 and 9, got {rounds_to_win}").format(
                                         rounds_to_win=self.rounds_to_win))
        return None

    def character(self, name: str) -> CharacterConfig:
        for c in self.characters:
            if c.name == name:
                return c
        raise KeyError(name)

    def stage(self, name: str) -> StageConfig:
        for s in self.stages:
            if s.name == name:
                return s
        raise KeyError(name)


# ----------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class Fighter:
    name: str
    max_hp: int
    hp: int
    rage: RageState = "unchosen"
    rage_card: int | None = None       # 0 or 1; secret until revealed
    heat: HeatState = "charged"
    punishment: int = 0                # Punishment tokens held
    stun: int = 0                      # Stun cards waiting for this fighter's next String
    knocked_down: bool = False
    rounds_won: int = 0
    player: str = ""                   # the player's name beside the character ("": none)

    @property
    def in_red_zone(self) -> bool:
        return self.hp <= RED_ZONE_HP


@dataclass(frozen=True, slots=True)
class Floor:
    sides: tuple[str, str]
    side: int                          # index into sides: 0 Upperside, 1 Underside
    order: tuple[bool, ...]            # True = cracked; hidden until revealed
    revealed: int                      # how many from the front of ``order`` are face up
    breaks: int = 0

    @property
    def cracked_total(self) -> int:
        return sum(self.order)

    @property
    def cracked_shown(self) -> int:
        return sum(self.order[:self.revealed])

    @property
    def face_down(self) -> int:
        return len(self.order) - self.revealed


@dataclass(frozen=True, slots=True)
class TekkenState:
    fighters: tuple[Fighter, Fighter]
    stage: str
    floor: Floor | None
    rounds_to_win: int
    round: int = 1
    offensive: int = 0
    slots: tuple[SlotState, ...] = ()  # the Offensive player's Attack Slots this String
    heat_this_string: bool = False
    phase: Phase = "fight"
    last_round_winners: tuple[int, ...] = ()
    winner: int | None = None          # game result: 0/1, or None with phase game_over = draw
    string_no: int = 1

    @property
    def defender(self) -> int:
        return 1 - self.offensive

    @property
    def total_slots(self) -> int:
        return BASE_SLOTS + (1 if self.heat_this_string else 0)

    @property
    def free_slots(self) -> int:
        return max(0, self.total_slots - len(self.slots))

    @property
    def resolving(self) -> bool:
        """A card just connected: its symbols (and Rage) may be resolved now."""
        return self.phase == "fight" and bool(self.slots) and self.slots[-1] in ("hit",
                                                                                 "punishment")

    @property
    def is_draw(self) -> bool:
        return self.phase == "game_over" and self.winner is None


# ----------------------------------------------------------------------------- helpers

# Fast copy-with-changes of the frozen values (dataclasses.replace is the replay's
# bottleneck otherwise).
_fighter = evolver(Fighter)
_floor = evolver(Floor)
_state = evolver(TekkenState)


def _fail(message: str) -> IllegalActionError:
    return IllegalActionError(message)


def _player(data: Mapping[str, Any], key: str = "player") -> int:
    p = data.get(key)
    if p not in (0, 1) or isinstance(p, bool):
        raise _fail(_("{key!r} must be 0 or 1, got {p!r}").format(key=key, p=p))
    return p


def _set(fighters: tuple[Fighter, Fighter], i: int, f: Fighter) -> tuple[Fighter, Fighter]:
    return (f, fighters[1]) if i == 0 else (fighters[0], f)


def _shuffle(n_cracked: int, n_empty: int, rng: random.Random) -> dict[str, Any]:
    """A fair shuffle from a recorded seed: the seed and the result both go in the event."""
    seed = rng.getrandbits(64)
    tokens = [True] * n_cracked + [False] * n_empty
    random.Random(seed).shuffle(tokens)
    return {"seed": seed, "order": ["cracked" if t else "empty" for t in tokens]}


def _order(data: Mapping[str, Any], expected: tuple[int, int] | None = None) -> tuple[bool, ...]:
    raw = data["order"]
    if not isinstance(raw, list) or any(t not in ("cracked", "empty") for t in raw):
        raise _fail(_("a breakage token order must list 'cracked'/'empty', got {raw!r}").format(raw=raw))
    order = tuple(t == "cracked" for t in raw)
    if expected is not None and (sum(order), len(order) - sum(order)) != expected:
        raise _fail(_("a breakage token order must hold {expected} cracked and {expected2} empty "
                      "tokens, got {raw!r}").format(
                        expected=expected[0], expected2=expected[1], raw=raw))
    return order


def _damage(state: TekkenState, target: int, amount: int) -> TekkenState:
    f = state.fighters[target]
    hp = max(0, f.hp - amount)
    rage = f.rage
    if hp <= RED_ZONE_HP and rage == "chosen":
        rage = "revealed"
    return _state(state, fighters=_set(state.fighters, target, _fighter(f, hp=hp, rage=rage)))


def _check_ko(state: TekkenState) -> TekkenState:
    """A Round ends at once when at least one character is at 0 HP."""
    a, b = state.fighters
    if a.hp > 0 and b.hp > 0:
        return state
    winners = tuple(i for i, f in enumerate(state.fighters) if f.hp > 0) or (0, 1)
    fighters = list(state.fighters)
    for i in winners:
        fighters[i] = _fighter(fighters[i], rounds_won=fighters[i].rounds_won + 1)
    done = [i for i, f in enumerate(fighters) if f.rounds_won >= state.rounds_to_win]
    phase: Phase = "game_over" if done else "round_over"
    # DECISION: both reaching the target on the same Round is a draw (winner None).
    winner = done[0] if len(done) == 1 else None
    return _state(state, fighters=(fighters[0], fighters[1]), phase=phase,
                   last_round_winners=winners, winner=winner)


def _end_string(state: TekkenState) -> TekkenState:
    """Roles switch: Heat used this String is discharged, Stun cards go back, everyone
    stands up, and the new Offensive player's waiting Stun cards fill their first slots."""
    off, new = state.offensive, state.defender
    fighters = list(state.fighters)
    if fighters[off].heat == "active":
        fighters[off] = _fighter(fighters[off], heat="discharged")
    fighters = [_fighter(f, knocked_down=False) if f.knocked_down else f for f in fighters]
    stuns = fighters[new].stun
    if stuns:
        fighters[new] = _fighter(fighters[new], stun=0)
    return _state(state, fighters=(fighters[0], fighters[1]), offensive=new,
                   slots=("stun",) * min(stuns, BASE_SLOTS + 1), heat_this_string=False,
                   string_no=state.string_no + 1)


def _reveal(state: TekkenState, count: int, reshuffle: Mapping[str, Any] | None) -> TekkenState:
    """Reveal ``count`` breakage tokens; the last cracked one flips the stage."""
    floor = state.floor
    assert floor is not None
    total_cracked = floor.cracked_total
    revealed, shown = floor.revealed, floor.cracked_shown
    order = floor.order
    # DECISION: asking for more reveals than tokens remain reveals what remains.
    for _token in range(min(count, len(order) - revealed)):
        shown += order[revealed]
        revealed += 1
        if shown == total_cracked:
            # The Stage flips, the Offensive player gains a Punishment token, and all
            # tokens are reset and reshuffled. DECISION: reveals left over are dropped.
            if reshuffle is None:
                raise _fail(_("the floor breaks here but the event carries no reshuffle"))
            new_order = _order(reshuffle, (total_cracked, len(order) - total_cracked))
            off = state.fighters[state.offensive]
            fighters = _set(state.fighters, state.offensive,
                            _fighter(off, punishment=off.punishment + 1))
            return _state(state, fighters=fighters,
                           floor=_floor(floor, side=1 - floor.side, order=new_order,
                                         revealed=0, breaks=floor.breaks + 1))
    return _state(state, floor=_floor(floor, revealed=revealed))


def would_break(floor: Floor, count: int) -> bool:
    """Whether revealing ``count`` more tokens shows the last cracked one."""
    face_up = floor.order[:floor.revealed + count]
    return sum(face_up) == floor.cracked_total and floor.cracked_shown < floor.cracked_total


def _symbols(data: Mapping[str, Any]) -> list[int]:
    symbols = data.get("symbols")
    if not isinstance(symbols, list) or not symbols or any(
            isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 9 for s in symbols):
        raise _fail(_("'symbols' must list the Strike values (1-9 each), got {symbols!r}").format(
                        symbols=symbols))
    return symbols


# ----------------------------------------------------------------------------- rules


EVENT_TYPES = frozenset({
    "tekken.rage_chosen", "tekken.heat", "tekken.card", "tekken.strike", "tekken.wall",
    "tekken.sweep", "tekken.stun", "tekken.rage", "tekken.end_string", "tekken.adjust_hp",
    "tekken.next_round",
})


class TekkenRules:
    name = "tekken"
    title = "TEKKEN – The Board Game"
    event_types = EVENT_TYPES

    # -- set-up --------------------------------------------------------------------------
    def start(self, setup: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """``setup``: fighters [{name, max_hp, player?}] x2, stage {name, floor_break?}, rounds_to_win,
        offensive (who opens the first String)."""
        fighters = setup.get("fighters")
        if not isinstance(fighters, list) or len(fighters) != 2:
            raise _fail(_("a TEKKEN game needs exactly two fighters"))
        out_f = []
        for i, f in enumerate(fighters):
            name, max_hp = f.get("name"), f.get("max_hp")
            if not isinstance(name, str) or not name:
                raise _fail(_("fighter {i} needs a name").format(i=i + 1))
            if isinstance(max_hp, bool) or not isinstance(max_hp, int) or \
                    not RED_ZONE_HP < max_hp <= 99:
                raise _fail(_("{name}: max HP must be {red_zone_hp}-99, got {max_hp!r}").format(
                                name=name, red_zone_hp=RED_ZONE_HP + 1, max_hp=max_hp))
            entry: dict[str, Any] = {"name": name, "max_hp": max_hp}
            player = f.get("player", "")
            if not isinstance(player, str):
                raise _fail(_("{name}: the player's name must be text, got {player!r}").format(
                                name=name, player=player))
            player = " ".join(player.split())[:40]
            if player:
                entry["player"] = player
            out_f.append(entry)
        stage = setup.get("stage") or {}
        if not isinstance(stage.get("name"), str):
            raise _fail(_("the stage needs a name"))
        out_stage: dict[str, Any] = {"name": stage["name"]}
        fb = stage.get("floor_break")
        if fb:
            out_stage["floor_break"] = {"cracked": fb["cracked"], "empty": fb["empty"],
                                        "sides": list(fb["sides"])}
            out_stage["shuffle"] = _shuffle(fb["cracked"], fb["empty"], rng)
        rounds = setup.get("rounds_to_win", 3)
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= 9:
            raise _fail(_("rounds to win must be 1-9, got {rounds!r}").format(rounds=rounds))
        offensive = _player(setup, "offensive") if "offensive" in setup else 0
        return {"fighters": out_f, "stage": out_stage, "rounds_to_win": rounds,
                "offensive": offensive}

    def check(self, state: TekkenState | None, type_: str, data: Mapping[str, Any]) -> None:
        """The set-up's bounds, checked again when a journal is replayed (a hand-edited
        max HP of 1,000,000,000 or -5 is refused, naming the field)."""
        if type_ != "game.start":
            return
        for i, f in enumerate(items(data.get("fighters"), "data.fighters", 2)):
            mapping(f, f"data.fighters[{i}]")
            text(f.get("name"), f"data.fighters[{i}].name")
            whole(f.get("max_hp"), f"data.fighters[{i}].max_hp", RED_ZONE_HP + 1, 99)
            if "player" in f:
                text(f["player"], f"data.fighters[{i}].player")
        whole(data.get("rounds_to_win"), "data.rounds_to_win", 1, 9)
        whole(data.get("offensive", 0), "data.offensive", 0, 1)
        stage = mapping(data.get("stage"), "data.stage")
        text(stage.get("name"), "data.stage.name")
        if "floor_break" in stage:
            fb = mapping(stage["floor_break"], "data.stage.floor_break")
            whole(fb.get("cracked"), "data.stage.floor_break.cracked", 0, 99)
            whole(fb.get("empty"), "data.stage.floor_break.empty", 0, 99)
            items(fb.get("sides"), "data.stage.floor_break.sides")
            items(mapping(stage.get("shuffle"), "data.stage.shuffle").get("order"),
                  "data.stage.shuffle.order")

    def initial(self, data: Mapping[str, Any]) -> TekkenState:
        f0, f1 = (Fighter(f["name"], f["max_hp"], f["max_hp"], player=f.get("player", ""))
                  for f in data["fighters"])
        stage = data["stage"]
        floor = None
        if "floor_break" in stage:
            fb = stage["floor_break"]
            order = _order(stage["shuffle"], (fb["cracked"], fb["empty"]))
            floor = Floor(tuple(fb["sides"]), 0, order, 0)
        return TekkenState((f0, f1), stage["name"], floor, data["rounds_to_win"],
                           offensive=data.get("offensive", 0))

    # -- commands -> events ----------------------------------------------------------------
    def decide(self, state: TekkenState, type_: str, data: Mapping[str, Any],
               rng: random.Random) -> dict[str, Any]:
        out = dict(data)
        if type_ == "tekken.strike" and out.get("cracked_floor"):
            floor = state.floor
            if floor is not None and would_break(floor, len(_symbols(out))):
                out["reshuffle"] = _shuffle(floor.cracked_total,
                                            len(floor.order) - floor.cracked_total, rng)
        if type_ == "tekken.next_round" and "offensive" not in out:
            # DECISION: by default the loser of the Round opens the next one; after a
            # double KO, the player who was Defender does.
            losers = [i for i in (0, 1) if i not in state.last_round_winners]
            out["offensive"] = losers[0] if losers else state.defender
        return out

    # -- events -> state -------------------------------------------------------------------
    def apply(self, state: TekkenState, type_: str, data: Mapping[str, Any]) -> TekkenState:
        handler = _HANDLERS.get(type_)
        if handler is None:
            raise _fail(_("unknown TEKKEN action {type!r}").format(type=type_))
        if type_ != "tekken.next_round":
            if state.phase == "game_over":
                raise _fail(_("the game is over"))
            if state.phase == "round_over":
                raise _fail(_("round {round} is over: start the next round first").format(
                                round=state.round))
        return handler(state, data)

    # -- presentation ----------------------------------------------------------------------
    def describe(self, before: TekkenState, type_: str, data: Mapping[str, Any],
                 after: TekkenState) -> str:
        return describe(before, type_, data, after)

    def to_json(self, state: TekkenState, *, reveal_hidden: bool = False) -> dict[str, Any]:
        return to_json(state, reveal_hidden=reveal_hidden)

    def is_over(self, state: TekkenState) -> bool:
        return state.phase == "game_over"

    def summary(self, state: TekkenState) -> str:
        a, b = state.fighters
        score = f"{a.name} {a.rounds_won} – {b.rounds_won} {b.name}"
        if state.phase == "game_over":
            result = _("draw") if state.winner is None else _("{fighter} wins").format(
                fighter=state.fighters[state.winner].name)
            return f"{score}, {result}"
        return _("{score}, round {round}").format(score=score, round=state.round)


def _rage_chosen(state: TekkenState, data: Mapping[str, Any]) -> TekkenState:
    p = _player(data)
    card = data.get("card")
    if card not in (0, 1) or isinstance(card, bool):
        raise _fail(_("the Rage card must be 0 or 1, got {card!r}").format(card=card))
    f = state.fighters[p]
    if f.rage != "unchosen":
        raise _fail(_("{f} has already chosen a Rage card this round").format(f=f.name))
    rage: RageState = "revealed" if f.in_red_zone else "chosen"
    return _state(state, fighters=_set(state.fighters, p, _fighter(f, rage=rage, rage_card=card)))


def _heat(state: TekkenState, data: Mapping[str, Any]) -> TekkenState:
    off = state.fighters[state.offensive]
    if "player" in data and _player(data) != state.offensive:
        raise _fail(_("only the Offensive player ({off}) can activate Heat").format(off=off.name))
    if off.heat != "charged":
        raise _fail(_("{off}'s Heat is already used this round (once per round)").format(off=off.name))
    return _state(state, fighters=_set(state.fighters, state.offensive,
                                        _fighter(off, heat="active")),
                   heat_this_string=True)


def _card(state: TekkenState, data: Mapping[str, Any]) -> TekkenState:
    result = data.get("result")
    if result not in ("hit", "blocked"):
        raise _fail(_("a card's result must be 'hit' or 'blocked', got {result!r}").format(result=result))
    off_i, def_i = state.offensive, state.defender
    off = state.fighters[off_i]
    if state.free_slots == 0:
        raise _fail(_("{off} has no free Attack Slot: end the String").format(off=off.name)
                    + (_(" or activate Heat") if off.heat == "charged" else ""))
    if off.punishment:
        if result == "blocked":
            raise _fail(_("{off}'s card is played as a Punishment: it cannot be blocked").format(
                            off=off.name))
        fighters = _set(state.fighters, off_i, _fighter(off, punishment=off.punishment - 1))
        return _state(state, fighters=fighters, slots=state.slots + ("punishment",))
    if result == "hit":
        return _state(state, slots=state.slots + ("hit",))
    # Blocked: a successful Punish Attempt.
    if state.heat_this_string:
        # Heat: the String goes on, the blocked card's slot gets a Stun card, and the
        # Defender gains no Punishment token.
        after = _state(state, slots=state.slots + ("blocked",))
        return after if after.free_slots else _end_string(after)
    d = state.fighters[def_i]
    fighters = _set(state.fighters, def_i, _fighter(d, punishment=d.punishment + 1))
    return _end_string(_state(state, fighters=fighters, slots=state.slots + ("blocked",)))


def _require_resolving(state: TekkenState, what: str) -> None:
    if not state.resolving:
        raise _fail(_("{what} only after a card of {fighter}'s String has connected").format(
                        what=what, fighter=state.fighters[state.offensive].name))


def _strike(state: TekkenState, data: Mapping[str, Any]) -> TekkenState:
    symbols = _symbols(data)
    _require_resolving(state, _("a Strike comes"))
    target = state.fighters[state.defender]
    bonus = len(symbols) if target.knocked_down else 0  # +1 per Strike symbol while down
    after = _damage(state, state.defender, sum(symbols) + bonus)
    if data.get("cracked_floor"):
        if after.floor is None:
            raise _fail(_("the stage {stage!r} has no Cracked Floor").format(stage=state.stage))
        # Reveal as many tokens as Strike symbols (not damage; the knock-down bonus
        # does not count).
        after = _reveal(after, len(symbols), data.get("reshuffle"))
    return _check_ko(after)


def _wall(state: TekkenState, data: Mapping[str, Any]) -> TekkenState:
    kind = data.get("kind")
    if kind not in ("regular", "blasting"):
        raise _fail(_("a wall is 'regular' or 'blasting', got {kind!r}").format(kind=kind))
    _require_resolving(state, _("a Push into a wall comes"))
    return _check_ko(_damage(state, state.defender, 1 if kind == "regular" else 2))


def _sweep(state: TekkenState, data: Mapping[str, Any]) -> TekkenState:
    _require_resolving(state, _("a Sweep comes"))
    d = state.fighters[state.defender]
    if d.knocked_down:
        raise _fail(_("{d} is already knocked down").format(d=d.name))
    return _state(state, fighters=_set(state.fighters, state.defender,
                                        _fighter(d, knocked_down=True)))


def _stun(state: TekkenState, data: Mapping[str, Any]) -> TekkenState:
    _require_resolving(state, _("a Stun comes"))
    d = state.fighters[state.defender]
    return _state(state, fighters=_set(state.fighters, state.defender,
                                        _fighter(d, stun=d.stun + 1)))


def _rage(state: TekkenState, data: Mapping[str, Any]) -> TekkenState:
    off = state.fighters[state.offensive]
    if "player" in data and _player(data) != state.offensive:
        raise _fail(_("Rage is used during its owner's String; it is {off}'s String").format(off=off.name))
    if off.rage == "used":
        raise _fail(_("{off} has already used Rage this round (once per round)").format(off=off.name))
    if off.rage == "unchosen":
        raise _fail(_("{off} has not chosen a Rage card this round").format(off=off.name))
    if off.rage == "chosen":
        raise _fail(_("{off}'s Rage is not available above {red_zone_hp} HP (HP is {hp})").format(
                        off=off.name, red_zone_hp=RED_ZONE_HP, hp=off.hp))
    _require_resolving(state, _("Rage is resolved"))
    return _state(state, fighters=_set(state.fighters, state.offensive,
                                        _fighter(off, rage="used")))


def _end(state: TekkenState, data: Mapping[str, Any]) -> TekkenState:
    if state.free_slots:
        off = state.fighters[state.offensive]
        raise _fail(_("{off}'s String goes on while an Attack Slot is free ({free_slots} left)").format(
                        off=off.name, free_slots=state.free_slots))
    return _end_string(state)


def _adjust(state: TekkenState, data: Mapping[str, Any]) -> TekkenState:
    """A manual correction (an Event card, a character effect, a slip of the hand).

    Either ``player`` + ``delta`` for one fighter, or ``deltas`` [d0, d1] for an effect
    that hits both at once (the only way both can reach 0 HP together).
    """
    if "deltas" in data:
        deltas = data["deltas"]
        if not isinstance(deltas, list) or len(deltas) != 2 or any(
                isinstance(d, bool) or not isinstance(d, int) for d in deltas) or deltas == [0, 0]:
            raise _fail(_("'deltas' must be two whole numbers, not both 0, got {deltas!r}").format(
                            deltas=deltas))
        changes = list(enumerate(deltas))
    else:
        delta = data.get("delta")
        if isinstance(delta, bool) or not isinstance(delta, int) or delta == 0:
            raise _fail(_("an HP adjustment needs a non-zero whole 'delta', got {delta!r}").format(
                            delta=delta))
        changes = [(_player(data), delta)]
    for p, delta in changes:
        f = state.fighters[p]
        if delta > 0:
            if f.hp + delta > f.max_hp:
                raise _fail(_("{f} cannot go above max HP {max_hp} (HP is {hp})").format(
                                f=f.name, max_hp=f.max_hp, hp=f.hp))
            state = _state(state, fighters=_set(state.fighters, p, _fighter(f, hp=f.hp + delta)))
        elif delta < 0:
            state = _damage(state, p, -delta)
    return _check_ko(state)


def _next_round(state: TekkenState, data: Mapping[str, Any]) -> TekkenState:
    if state.phase == "game_over":
        raise _fail(_("the game is over"))
    if state.phase != "round_over":
        raise _fail(_("round {round} is still being fought").format(round=state.round))
    offensive = _player(data, "offensive")
    # A new Round resets HP, Heat, Rage, Punishment, Stun and knock-down.
    # DECISION: the stage side and the breakage tokens carry over between Rounds.
    fighters = tuple(Fighter(f.name, f.max_hp, f.max_hp, rounds_won=f.rounds_won)
                     for f in state.fighters)
    return _state(state, fighters=fighters, round=state.round + 1, offensive=offensive,
                   slots=(), heat_this_string=False, phase="fight", last_round_winners=(),
                   string_no=state.string_no + 1)


_HANDLERS = {
    "tekken.rage_chosen": _rage_chosen,
    "tekken.heat": _heat,
    "tekken.card": _card,
    "tekken.strike": _strike,
    "tekken.wall": _wall,
    "tekken.sweep": _sweep,
    "tekken.stun": _stun,
    "tekken.rage": _rage,
    "tekken.end_string": _end,
    "tekken.adjust_hp": _adjust,
    "tekken.next_round": _next_round,
}

# ----------------------------------------------------------------------------- text


def _aftermath(before: TekkenState, after: TekkenState) -> list[str]:
    """Sentences for what an action triggered: Rage revealed, floor, String end, KO."""
    parts: list[str] = []
    for b, a in zip(before.fighters, after.fighters):
        if b.rage == "chosen" and a.rage == "revealed":
            parts.append(_("{a}'s Rage is revealed").format(a=a.name))
    if before.floor is not None and after.floor is not None:
        bf, af = before.floor, after.floor
        if af.breaks > bf.breaks:
            gainer = after.fighters[before.offensive].name
            parts.append(_("THE FLOOR BREAKS: the stage flips to {side}, {gainer} gains a Punishment "
                           "token, tokens reshuffled").format(
                             side=af.sides[af.side], gainer=gainer))
        elif af.revealed > bf.revealed:
            shown = ", ".join(_("cracked") if c else _("empty")
                              for c in af.order[bf.revealed:af.revealed])
            parts.append(_("floor: {shown} ({cracked_shown} of {cracked_total} cracked)").format(
                             shown=shown, cracked_shown=af.cracked_shown, cracked_total=af.cracked_total))
    if after.phase != "fight" and before.phase == "fight":
        names = [after.fighters[i].name for i in after.last_round_winners]
        won = " and ".join(names)
        parts.append(_("ROUND {round} to {won}").format(round=before.round, won=won) if len(names) == 1
                     else _("ROUND {round}: double KO, both win it").format(round=before.round))
        if after.phase == "game_over":
            parts.append(_("GAME DRAWN") if after.winner is None
                         else _("{upper} WINS THE GAME").format(
                                  upper=after.fighters[after.winner].name.upper()))
    elif after.offensive != before.offensive and after.round == before.round:
        parts.append(_("{fighter}'s String").format(fighter=after.fighters[after.offensive].name))
    return parts


def describe(before: TekkenState, type_: str, data: Mapping[str, Any],
             after: TekkenState) -> str:
    off = before.fighters[before.offensive]
    dfd = before.fighters[before.defender]
    text: str
    if type_ == "tekken.rage_chosen":
        text = _("{fighter} picks a secret Rage card").format(fighter=before.fighters[data['player']].name)
    elif type_ == "tekken.heat":
        text = _("{off} activates Heat (4th slot, no Punishment for the Defender)").format(off=off.name)
    elif type_ == "tekken.card":
        n = len(before.slots) + 1
        if off.punishment:
            text = _("{off}: card {n} played as a Punishment (unblockable)").format(off=off.name, n=n)
        elif data["result"] == "hit":
            text = _("{off}: card {n} connects").format(off=off.name, n=n)
        elif before.heat_this_string:
            text = _("{dfd} blocks card {n}: Heat keeps the String going, slot stunned").format(
                       dfd=dfd.name, n=n)
        else:
            text = _("{dfd} blocks card {n}, gains a Punishment token").format(dfd=dfd.name, n=n)
    elif type_ == "tekken.strike":
        symbols = data["symbols"]
        loss = before.fighters[before.defender].hp - after.fighters[before.defender].hp
        what = " + ".join(_("Strike {number}").format(number=s) for s in symbols)
        if dfd.knocked_down:
            what += _(", knocked down +{count}").format(count=len(symbols))
        text = _("{dfd} -{loss} HP ({strikes})").format(dfd=dfd.name, loss=loss, strikes=what)
    elif type_ == "tekken.wall":
        loss = before.fighters[before.defender].hp - after.fighters[before.defender].hp
        text = _("{dfd} -{loss} HP (pushed into a {kind} wall)").format(
                   dfd=dfd.name, loss=loss, kind=data['kind'])
    elif type_ == "tekken.sweep":
        text = _("{dfd} is knocked down (Sweep)").format(dfd=dfd.name)
    elif type_ == "tekken.stun":
        slots = dfd.stun + 1
        text = ngettext("{dfd} gets a Stun card ({count} slot fewer next String)",
                        "{dfd} gets a Stun card ({count} slots fewer next String)", slots).format(
            dfd=dfd.name, count=slots)
    elif type_ == "tekken.rage":
        text = _("{off} unleashes Rage").format(off=off.name)
    elif type_ == "tekken.end_string":
        text = _("{off} ends the String").format(off=off.name)
    elif type_ == "tekken.adjust_hp":
        deltas = data["deltas"] if "deltas" in data else [
            data["delta"] if data["player"] == i else 0 for i in (0, 1)]
        changes = ", ".join(_("{fighter} {delta} HP").format(
                                fighter=before.fighters[i].name, delta=f"{'+' if d > 0 else ''}{d}")
                            for i, d in enumerate(deltas) if d)
        # a reason the player typed is shown as typed; none: a change made by hand
        text = (_("{changes} ({reason})").format(changes=changes, reason=data["reason"])
                if data.get("reason") else _("{changes} (manual)").format(changes=changes))
    elif type_ == "tekken.next_round":
        text = (_("Round {round} begins, {fighter} on the offensive").format(
                    round=after.round, fighter=after.fighters[after.offensive].name))
        return text
    else:  # pragma: no cover - apply() refuses unknown types first
        text = type_
    parts = _aftermath(before, after)
    return "; ".join([text, *parts])


def to_json(state: TekkenState, *, reveal_hidden: bool = False) -> dict[str, Any]:
    def fighter(f: Fighter) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": f.name, "hp": f.hp, "max_hp": f.max_hp, "red_zone": f.in_red_zone,
            "rage": f.rage, "heat": f.heat, "punishment_tokens": f.punishment,
            "stun_cards": f.stun, "knocked_down": f.knocked_down, "rounds_won": f.rounds_won,
        }
        if f.rage in ("revealed", "used") or reveal_hidden:
            out["rage_card"] = f.rage_card
        return out

    out: dict[str, Any] = {
        "round": state.round, "phase": state.phase, "rounds_to_win": state.rounds_to_win,
        "offensive": state.offensive, "string": state.string_no, "slots": list(state.slots),
        "free_slots": state.free_slots, "heat_this_string": state.heat_this_string,
        "fighters": [fighter(f) for f in state.fighters], "stage": state.stage,
        "last_round_winners": list(state.last_round_winners),
        "result": (None if state.phase != "game_over"
                   else "draw" if state.winner is None else state.fighters[state.winner].name),
    }
    if state.floor is not None:
        fl = state.floor
        floor: dict[str, Any] = {
            "side": fl.sides[fl.side], "breaks": fl.breaks,
            "revealed": ["cracked" if c else "empty" for c in fl.order[:fl.revealed]],
            "face_down": fl.face_down, "cracked_total": fl.cracked_total,
        }
        if reveal_hidden:
            floor["order"] = ["cracked" if c else "empty" for c in fl.order]
        out["floor"] = floor
    return out


RULES = TekkenRules()


def config_data(cfg: TekkenConfig) -> dict[str, Any]:
    """Plain data for writing a TekkenConfig back to YAML."""
    return {
        "characters": [{"name": c.name, "max_hp": c.max_hp,
                        "max_hp_is_default": c.max_hp_is_default,
                        "rage_cards": list(c.rage_cards)} for c in cfg.characters],
        "stages": [stage_data(s) for s in cfg.stages],
        "rounds_to_win": cfg.rounds_to_win,
    }


# ----------------------------------------------------------------------------- command line


def cli_arguments(parser: Any) -> None:
    """``companion new tekken``'s options."""
    parser.add_argument("--p1", help=_("first fighter (default: the first in config)"))
    parser.add_argument("--p2", help=_("second fighter"))
    parser.add_argument("--hp1", type=int, help=_("first fighter's max HP (default: config)"))
    parser.add_argument("--hp2", type=int, help=_("second fighter's max HP"))
    parser.add_argument("--stage", help=_("stage name (default: the first in config)"))
    parser.add_argument("--rounds", type=int, help=_("rounds to win (default: config)"))
    parser.add_argument("--offensive", type=int, choices=[1, 2], default=1,
                        help=_("who opens the first String (1 or 2)"))


def cli_setup(cfg: TekkenConfig, args: Any) -> tuple[dict[str, Any], str]:
    """A new game's set-up (and its label) from ``companion new tekken``'s options."""
    setup = new_setup(cfg, args.p1, args.p2, args.stage, args.rounds, args.offensive - 1,
                      args.hp1, args.hp2)
    return setup, f"{setup['fighters'][0]['name']}-vs-{setup['fighters'][1]['name']}"


def new_setup(cfg: TekkenConfig, p1: str | None, p2: str | None, stage: str | None,
              rounds: int | None, offensive: int, hp1: int | None,
              hp2: int | None) -> dict[str, Any]:
    names = [c.name for c in cfg.characters]
    first = p1 or names[0]
    second = p2 or (names[1] if len(names) > 1 else names[0])
    fighters = []
    for name, hp in ((first, hp1), (second, hp2)):
        try:
            c = cfg.character(name)
        except KeyError:
            raise CompanionError(_("unknown character {name!r} (config has: {names})").format(
                                     name=name, names=', '.join(names))) from None
        fighters.append({"name": c.name, "max_hp": hp if hp is not None else c.max_hp})
    try:
        st = cfg.stage(stage) if stage else cfg.stages[0]
    except KeyError:
        raise CompanionError(_("unknown stage {stage!r} (config has: {items})").format(
                                 stage=stage, items=', '.join(s.name for s in cfg.stages))) from None
    return {"fighters": fighters, "stage": stage_data(st),
            "rounds_to_win": rounds if rounds is not None else cfg.rounds_to_win,
            "offensive": offensive}


# ----------------------------------------------------------------------------- live view


def spectator_summary(state: TekkenState) -> dict[str, Any]:
    """The live view's public picture (``companion/live/summary.py``): what both players
    and anyone beside the table can see. A Rage card chosen but not yet revealed shows only
    as chosen (never which one), and the Floor Break tokens as their count, the face-up ones
    and how many cracked ones have shown: ``floor.order[revealed:]`` is never read."""
    fight = state.phase == "fight"
    off, dfd = state.fighters[state.offensive], state.fighters[state.defender]
    if fight:
        status = " · ".join([
            _("Round {round} · String {string}").format(round=state.round, string=state.string_no),
            _("{offensive}'s String (Offensive) – {defender} defends").format(
                offensive=off.name, defender=dfd.name)])
    elif state.phase == "round_over":
        names = [state.fighters[i].name for i in state.last_round_winners]
        status = (_("Round {round} to {fighter}").format(round=state.round, fighter=names[0])
                  if len(names) == 1 else
                  _("Round {round}: double KO, both win it").format(round=state.round))
    else:
        status = (_("Draw") if state.winner is None else
                  _("{fighter} wins the game").format(fighter=state.fighters[state.winner].name))
    heat_words = {"charged": _("charged"), "active": _("ACTIVE"), "discharged": _("discharged")}
    rage_words = {"chosen": _("Rage card chosen"), "revealed": _("Rage REVEALED"),
                  "used": _("Rage used")}
    sides = []
    for i, f in enumerate(state.fighters):
        notes = []
        if fight and i == state.offensive:
            notes.append(_("OFFENSIVE"))
        if f.hp <= 0:
            notes.append(_("KO"))
        elif f.in_red_zone:
            notes.append(_("red zone"))
        if f.rage in rage_words:          # "chosen" says only that a card is chosen
            notes.append(rage_words[f.rage])
        if f.knocked_down:
            notes.append(_("KNOCKED DOWN"))
        sides.append({
            "name": f"{f.name} · {f.player}" if f.player else f.name,
            "figures": [
                {"label": _("HP"), "value": str(f.hp), "of": f.max_hp},
                {"label": _("Heat"), "value": heat_words[f.heat]},
                {"label": _("Rounds won"), "value": str(f.rounds_won), "of": state.rounds_to_win},
                {"label": _("Punishment"), "value": str(f.punishment)},
                {"label": _("Stun"), "value": str(f.stun)},
            ],
            "notes": notes,
        })
    lines = [_("Stage: {stage}").format(stage=state.stage)]
    if fight and state.heat_this_string:
        lines.append(_("Heat active: 4th slot"))
    fl = state.floor
    if fl is not None:
        shown = ", ".join(_("cracked") if c else _("empty") for c in fl.order[:fl.revealed])
        lines.append(ngettext(
            "Floor Break: {side} · cracked {shown} of {total} · {count} token face down",
            "Floor Break: {side} · cracked {shown} of {total} · {count} tokens face down",
            fl.face_down).format(side=fl.sides[fl.side], shown=fl.cracked_shown,
                                 total=fl.cracked_total, count=fl.face_down)
            + (" · " + _("face up: {tokens}").format(tokens=shown) if shown else ""))
    over = state.phase == "game_over"
    winner = state.fighters[state.winner].name if over and state.winner is not None else None
    return {"status": status, "sides": sides, "lines": lines, "over": over, "winner": winner}


ENTRY = GameEntry(
    id="tekken", rules=f"{__name__}:RULES", setup="tekken_setup", play="tekken_game",
    tile=HomeTile(N_("TEKKEN"), N_("The Board Game"), (0.62, 0.12, 0.12, 1), (0.85, 0.2, 0.2, 1), 10),
    screens={"tekken_setup": "companion.app.screens.tekken_setup:TekkenSetupScreen",
             "tekken_game": "companion.app.screens.tekken_game:TekkenGameScreen"},
    config=ConfigFile("tekken", f"{__name__}:TekkenConfig", "companion.config:tekken.yaml",
                      f"{__name__}:config_data"),
    confirm="companion.views.tekken:confirm_text", confirm_title=N_("End of round"),
    cli_arguments=f"{__name__}:cli_arguments", cli_setup=f"{__name__}:cli_setup",
    spectator=f"{__name__}:spectator_summary")
