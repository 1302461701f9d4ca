"""King of Tokyo Duel: the pure rules engine.

Follows ``shared/rules/king-of-tokyo-duel.md`` (rulebook ``shared/seeds/king-of-tokyo-duel.fr.txt``,
French). The companion tracks the two Monsters (HP capped at the starting value, energy,
dice tokens), the roll phase (up to three rolls, keeping and taking back dice), resolves
the dice automatically, pulls the Fame and Destruction pawns along their tug-of-war tracks
(Buzz bonuses, The King's blocking tokens) and checks victory after every change. Energy
cards are not modelled: buying is a counter the players adjust.

Players are 0 and 1. Player 0's end of each track is cell 0 (its Victory cell), player 1's
is the last cell. Dice faces are CLAW, HEART, ENERGY, FAME, DESTRUCTION, POWER; a die whose
face is ``None`` was not read cleanly and must be re-rolled or set by hand before anything
is resolved. Decisions where the rulebook is silent are marked ``DECISION`` and listed in
docs/events.md, each with a test.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import IllegalActionError
from ..i18n import N_, _, ngettext
from ..registry import ConfigFile, GameEntry, HomeTile
from .base import RULES_EDITION, evolve, items, mapping, rules_edition, text, whole

FACES = ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER")
TRACKS = ("fame", "destruction")
BONUSES = ("none", "damage", "heal", "energy", "dice_token")
MAX_DICE = 8
BASE_DICE = 6
FIRST_TURN_DICE = 5      # the first player's very first turn
MAX_DICE_TOKENS = 2
MAX_ROLLS = 3
SWEEP_COST = 2
ROLL = "dice.roll"       # a dice tower throw (firmware_bridge), taken as a roll
TOWER_KIND = "kotd"      # the tower's die kind for these dice

Phase = Literal["roll", "buy", "over"]

# ----------------------------------------------------------------------------- config


@dataclass(frozen=True)
class MonsterConfig:
    name: str
    hp: int
    power: str = ""
    defaults: tuple[str, ...] = ()   # fields that are our defaults, not the printed sheet

    def validate(self) -> tuple[str, str] | None:
        if not self.name.strip():
            return ("name", _("a Monster needs a name"))
        if not 1 <= self.hp <= 99:
            return ("hp", _("{hp} is not a starting HP (1 to 99)").format(hp=self.hp))
        for i, d in enumerate(self.defaults):
            if d not in ("hp", "power"):
                return (f"defaults[{i}]", _("{d!r} is not a field of a Monster (hp, power)").format(d=d))
        return None


@dataclass(frozen=True)
class TrackConfig:
    name: str
    cells: int          # Victory cell to Victory cell, both included
    spotlight: int      # cells of the spotlight zone next to each Victory cell

    def validate(self) -> tuple[str, str] | None:
        if self.name not in TRACKS:
            return ("name", _("{name!r} is not a track ({tracks})").format(
                                name=self.name, tracks=', '.join(TRACKS)))
        if self.cells < 5 or self.cells % 2 == 0 or self.cells > 41:
            return ("cells", _("{cells}: a track has an odd number of cells, 5 to 41 (the pawn starts "
                               "in the middle)").format(
                                 cells=self.cells))
        if not 1 <= self.spotlight <= (self.cells - 3) // 2:
            return ("spotlight", _("{spotlight}: a spotlight zone has 1 to {cells} cells on a "
                                   "{cells2}-cell track").format(
                                     spotlight=self.spotlight, cells=(self.cells - 3) // 2,
                                     cells2=self.cells))
        return None


@dataclass(frozen=True)
class BuzzConfig:
    """A Buzz token: the bonus on each of its cells, and how many track cells it covers
    (fewer than its cells: it lengthens the track; more: it shortens it)."""

    id: str
    cells: tuple[str, ...]
    covers: int = 0     # 0: as many as it has cells
    king: bool = False  # The King's blocking token

    @property
    def covered(self) -> int:
        return self.covers or len(self.cells)

    def validate(self) -> tuple[str, str] | None:
        if not 1 <= len(self.cells) <= 3:
            return ("cells", _("a Buzz token has 1 to 3 cells"))
        for i, b in enumerate(self.cells):
            if b not in BONUSES:
                return (f"cells[{i}]", _("{b!r} is not a Buzz bonus ({bonuses})").format(
                                           b=b, bonuses=', '.join(BONUSES)))
        if not 0 <= self.covers <= 3:
            return ("covers", _("{covers}: a token covers 1 to 3 track cells").format(covers=self.covers))
        return None


@dataclass(frozen=True)
class SecondPlayerConfig:
    energy: int = 0
    dice_tokens: int = 0


@dataclass(frozen=True)
class KotdConfig:
    """config/kotd.yaml."""

    monsters: tuple[MonsterConfig, ...]
    faces: tuple[str, ...]
    tracks: tuple[TrackConfig, ...]
    buzz: tuple[BuzzConfig, ...]
    second_player: SecondPlayerConfig
    defaults: tuple[str, ...] = ()   # top-level values that are ours (track sizes, ...)

    def validate(self) -> tuple[str, str] | None:
        if tuple(self.faces) != FACES:
            return ("faces", _("the die's six faces are ") + ", ".join(FACES) + _(", in that order"))
        if sorted(t.name for t in self.tracks) != sorted(TRACKS):
            return ("tracks", _("one fame track and one destruction track"))
        names = [m.name for m in self.monsters]
        for i, n in enumerate(names):
            if n in names[:i]:
                return (f"monsters[{i}].name", _("{n!r} is listed twice").format(n=n))
        ids = [b.id for b in self.buzz]
        for i, n in enumerate(ids):
            if n in ids[:i]:
                return (f"buzz[{i}].id", _("{n!r} is listed twice").format(n=n))
        if len(self.monsters) < 2:
            return ("monsters", _("list at least two Monsters"))
        if not 0 <= self.second_player.dice_tokens <= MAX_DICE_TOKENS:
            return ("second_player.dice_tokens", _("at most {max_dice_tokens}").format(
                                                     max_dice_tokens=MAX_DICE_TOKENS))
        return None

    def monster(self, name: str) -> MonsterConfig:
        for m in self.monsters:
            if m.name == name:
                return m
        raise KeyError(name)

    def track(self, name: str) -> TrackConfig:
        return next(t for t in self.tracks if t.name == name)


def setup_from_config(cfg: KotdConfig, monsters: tuple[str, str], first: int = 0,
                      hp: tuple[int, int] | None = None,
                      players: tuple[str, str] = ("", "")) -> dict[str, Any]:
    """The ``game.start`` data: everything copied, so a journal never depends on config.
    ``players``: the players' names beside the Monsters ("" for none)."""
    chosen = [cfg.monster(n) for n in monsters]
    out = []
    for i, m in enumerate(chosen):
        entry: dict[str, Any] = {"name": m.name, "hp": int(hp[i]) if hp else m.hp, "power": m.power}
        if players[i].strip():
            entry["player"] = players[i]
        out.append(entry)
    return {
        "monsters": out,
        "first": first,
        "tracks": [{"name": t.name, "cells": t.cells, "spotlight": t.spotlight}
                   for t in sorted(cfg.tracks, key=lambda t: TRACKS.index(t.name))],
        "buzz": [{"id": b.id, "cells": list(b.cells), "covers": b.covered, "king": b.king}
                 for b in cfg.buzz],
        "second_player": {"energy": cfg.second_player.energy,
                          "dice_tokens": cfg.second_player.dice_tokens},
    }


# ----------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class Monster:
    name: str
    hp: int
    max_hp: int
    energy: int = 0
    dice_tokens: int = 0
    power: str = ""
    player: str = ""          # the player's name beside the Monster ("": none typed)


@dataclass(frozen=True, slots=True)
class Cell:
    zone: str                 # "victory0", "spot0", "plain", "spot1", "victory1"
    bonus: str = "none"
    token: str | None = None  # the Buzz token covering it
    king: bool = False        # one of The King's blocking tokens


@dataclass(frozen=True, slots=True)
class Placement:
    token: str
    base: int                 # first base cell covered
    covers: int
    cells: tuple[str, ...]
    king: bool = False


@dataclass(frozen=True, slots=True)
class Track:
    name: str
    base: tuple[str, ...]                 # the printed track's zones, cell by cell
    placements: tuple[Placement, ...] = ()
    pawn: int = 0                         # index into ``cells``

    @property
    def cells(self) -> tuple[Cell, ...]:
        return build_cells(self.base, self.placements)


@dataclass(frozen=True, slots=True)
class Die:
    face: str | None          # None: cocked or unreadable, to re-roll or set by hand
    kept: bool = False


@dataclass(frozen=True, slots=True)
class KotdState:
    monsters: tuple[Monster, Monster]
    tracks: tuple[Track, Track]
    buzz: tuple[tuple[str, tuple[str, ...], int, bool], ...]   # (id, cells, covers, king)
    first: int = 0
    current: int = 0
    turn: int = 1                         # counts both players' turns
    phase: Phase = "roll"
    dice: tuple[Die, ...] = ()
    rolls: int = 0                        # rolls made this turn
    n_dice: int = 6                       # dice this turn
    bought: bool = False                  # a card bought this turn (no free energy then)
    gained: bool = False                  # the free energy taken this turn
    rules: int = 1                        # rules edition (base.RULES_EDITION)
    winner: int | None = None
    win_reason: str = ""
    last_resolution: tuple[str, ...] = ()

    def track(self, name: str) -> Track:
        return self.tracks[TRACKS.index(name)]

    @property
    def rival(self) -> int:
        return 1 - self.current

    @property
    def pending(self) -> tuple[int, ...]:
        return tuple(i for i, d in enumerate(self.dice) if d.face is None)


def base_track(cells: int, spotlight: int) -> tuple[str, ...]:
    zones = []
    for i in range(cells):
        if i == 0:
            zones.append("victory0")
        elif i == cells - 1:
            zones.append("victory1")
        elif i <= spotlight:
            zones.append("spot0")
        elif i >= cells - 1 - spotlight:
            zones.append("spot1")
        else:
            zones.append("plain")
    return tuple(zones)


def build_cells(base: tuple[str, ...], placements: tuple[Placement, ...]) -> tuple[Cell, ...]:
    """The track as the players see it: Buzz tokens over the printed cells.

    The rulebook (Fin de partie): "Si un jeton Buzz est posé, même partiellement, sur cette
    zone, chaque case de ce jeton entièrement dans la zone est considérée comme Sous les
    projecteurs". DECISION: a token's cells share the printed cells it covers equally (a
    2-cell token over 1 printed cell: each takes half of it; a 1-cell token over 2: it spans
    both), so each token cell is in a zone when the printed cells under it all are; a cell
    partly in and partly out of a zone is a plain cell. A token over a Victory cell keeps a
    Victory cell at that end (the rulebook: "cette case est tout de même considérée comme une
    case Victoire")."""
    by_start = {p.base: p for p in placements}
    out: list[Cell] = []
    i = 0
    while i < len(base):
        p = by_start.get(i)
        if p is None:
            out.append(Cell(base[i]))
            i += 1
            continue
        k, c = len(p.cells), p.covers
        cells = []
        for j, bonus in enumerate(p.cells):
            # token cell j spans [j*c/k, (j+1)*c/k) of the covered cells: in units of 1/k
            lo, hi = j * c, (j + 1) * c
            under = base[p.base + lo // k:p.base + -(-hi // k)]
            plain = {z for z in under if not z.startswith("victory")}
            zone = plain.pop() if len(plain) == 1 else "plain"
            cells.append(Cell(zone, bonus, p.token, p.king))
        covered = base[p.base:p.base + c]
        if covered[0] == "victory0":
            cells[0] = evolve(cells[0], zone="victory0")
        if covered[-1] == "victory1":
            cells[-1] = evolve(cells[-1], zone="victory1")
        out += cells
        i += c
    return tuple(out)


# ----------------------------------------------------------------------------- helpers

def _fail(message: str) -> IllegalActionError:
    return IllegalActionError(message)


def _player(data: Mapping[str, Any], key: str = "player") -> int:
    value = data.get(key)
    if value not in (0, 1) or isinstance(value, bool):
        raise _fail(_("{key} must be 0 or 1, not {value!r}").format(key=key, value=value))
    return int(value)


def _set_monster(state: KotdState, i: int, m: Monster) -> KotdState:
    ms = list(state.monsters)
    ms[i] = m
    return evolve(state, monsters=(ms[0], ms[1]))


def _set_track(state: KotdState, t: Track) -> KotdState:
    ts = list(state.tracks)
    ts[TRACKS.index(t.name)] = t
    return evolve(state, tracks=(ts[0], ts[1]))


def _hp(state: KotdState, i: int, delta: int) -> KotdState:
    m = state.monsters[i]
    return _set_monster(state, i, evolve(m, hp=max(0, min(m.max_hp, m.hp + delta))))


def _energy(state: KotdState, i: int, delta: int) -> KotdState:
    m = state.monsters[i]
    if m.energy + delta < 0:
        raise _fail(_("{m} has {energy} energy").format(m=m.name, energy=m.energy))
    return _set_monster(state, i, evolve(m, energy=m.energy + delta))


def _tokens(state: KotdState, i: int, delta: int) -> KotdState:
    m = state.monsters[i]
    return _set_monster(state, i, evolve(m, dice_tokens=max(0, min(MAX_DICE_TOKENS,
                                                                   m.dice_tokens + delta))))


def check_victory(state: KotdState) -> KotdState:
    """Victory is checked at every change: a Monster at 0 HP, a pawn on a Victory cell, or
    both pawns in one side's spotlight zone."""
    if state.winner is not None:
        return state
    for i in (state.current, state.rival):
        if state.monsters[i].hp <= 0:
            return evolve(state, winner=1 - i, phase="over",
                          win_reason=_("{monster} has no HP left").format(
                              monster=state.monsters[i].name))
    for side in (state.current, state.rival):
        for t in state.tracks:
            if t.cells[t.pawn].zone == f"victory{side}":
                return evolve(state, winner=side, phase="over",
                              win_reason=_("the {track} pawn reached {monster}'s Victory "
                                           "cell").format(track=_(t.name.title()),
                                                          monster=state.monsters[side].name))
        if all(t.cells[t.pawn].zone in (f"spot{side}", f"victory{side}") for t in state.tracks):
            return evolve(state, winner=side, phase="over",
                          win_reason=_("both pawns are in {monster}'s spotlight").format(
                              monster=state.monsters[side].name))
    return state


def pull(state: KotdState, track: str, toward: int, cells: int) -> tuple[KotdState, list[str]]:
    """Pull a pawn ``cells`` cells toward ``toward``'s end, cell by cell.

    Each cell it enters gives its Buzz bonus to the puller (DECISION: every cell entered,
    not only the last). A pull by The King's rival stops on a King token, and the rest of
    that pull is lost; a pawn that starts on one moves normally. The Victory cell ends it."""
    notes: list[str] = []
    step = -1 if toward == 0 else 1
    t = state.track(track)
    king = [i for i, m in enumerate(state.monsters) if m.name == "The King"]
    for n in range(cells):
        cells_now = t.cells
        nxt = t.pawn + step
        if not 0 <= nxt < len(cells_now):
            break
        t = evolve(t, pawn=nxt)
        state = _set_track(state, t)
        cell = cells_now[nxt]
        if cell.bonus != "none":
            state = _bonus(state, toward, cell.bonus)
            notes.append(_("Buzz on the {title} track: {bonus_text}").format(
                             title=_(track.title()), bonus_text=_(BONUS_TEXT[cell.bonus])))
        if cell.zone.startswith("victory"):
            break
        if cell.king and king and toward != king[0] and n + 1 < cells:
            lost = cells - n - 1
            notes.append(ngettext("The King's token stops the {track} pawn ({count} cell lost)",
                                  "The King's token stops the {track} pawn ({count} cells lost)",
                                  lost).format(track=_(track.title()), count=lost))
            break
    return check_victory(state), notes


BONUS_TEXT = {"damage": N_("the rival takes 1 damage"), "heal": N_("+1 HP"),
              "energy": N_("+1 energy"), "dice_token": N_("+1 dice token")}
TRACK_WORDS = (N_("Fame"), N_("Destruction"))   # the tracks' names, as shown


def _bonus(state: KotdState, who: int, bonus: str) -> KotdState:
    if bonus == "damage":
        return _hp(state, 1 - who, -1)
    if bonus == "heal":
        return _hp(state, who, 1)
    if bonus == "energy":
        return _energy(state, who, 1)
    if bonus == "dice_token":
        return _tokens(state, who, 1)
    return state


# ----------------------------------------------------------------------------- resolution

def counts(dice: tuple[Die, ...]) -> dict[str, int]:
    return {f: sum(1 for d in dice if d.face == f) for f in FACES}


def pull_for(n: int) -> int:
    """Three of a kind pulls 1 cell, each extra face one more (3 -> 1, 5 -> 3)."""
    return 0 if n < 3 else n - 2


def resolve(state: KotdState) -> tuple[KotdState, list[str]]:
    """Apply the Lancer (every die on the table when the player stops). Returns the new
    state and one line per effect, in the order applied."""
    me, rival = state.current, state.rival
    c = counts(state.dice)
    lines: list[str] = []
    if c["CLAW"]:
        state = _hp(state, rival, -c["CLAW"])
        lines.append(_("{claw} CLAW: {monster} -{claw} HP").format(
                         claw=c['CLAW'], monster=state.monsters[rival].name))
    if c["HEART"]:
        before = state.monsters[me].hp
        state = _hp(state, me, c["HEART"])
        gained = state.monsters[me].hp - before
        capped = "" if gained == c["HEART"] else _(" (capped at {max_hp})").format(
                                                     max_hp=state.monsters[me].max_hp)
        lines.append(_("{heart} HEART: {monster} +{gained} HP{capped}").format(
                         heart=c['HEART'], monster=state.monsters[me].name, gained=gained, capped=capped))
    if c["ENERGY"]:
        state = _energy(state, me, c["ENERGY"])
        lines.append(_("{energy} ENERGY: +{energy} energy").format(energy=c['ENERGY']))
    for face, track in (("FAME", "fame"), ("DESTRUCTION", "destruction")):
        n = c[face]
        if n and state.winner is None:
            k = pull_for(n)
            if k:
                before = state.track(track).pawn
                state, notes = pull(state, track, me, k)
                moved = abs(state.track(track).pawn - before)
                line = ngettext("{n} {face}: pull the {track} pawn {count} cell",
                                "{n} {face}: pull the {track} pawn {count} cells", k).format(
                    n=n, face=_(face), track=_(track.title()), count=k)
                if moved != k:
                    line += _(" (moved {moved})").format(moved=moved)
                lines.append(line)
                lines += notes
            else:
                lines.append(_("{n} {face}: no triple, no pull").format(n=n, face=_(face)))
    if c["POWER"]:
        lines.append(_("{power} POWER: {monster}'s power — apply it by hand (HP, energy, dice tokens "
                       "and pulls have buttons)").format(
                         power=c['POWER'], monster=state.monsters[me].name))
    state = check_victory(state)
    if state.winner is not None:
        lines.append(f"{state.monsters[state.winner].name} wins: {state.win_reason}")
    return state, lines


# ----------------------------------------------------------------------------- rules

class KotdRules:
    name = "kotd"
    title = "King of Tokyo Duel"
    event_types = frozenset({
        ROLL, "kotd.roll", "kotd.keep", "kotd.set_die", "kotd.spend_tokens", "kotd.extra_die",
        "kotd.resolve", "kotd.buy", "kotd.sweep", "kotd.gain_energy", "kotd.end_turn",
        "kotd.adjust", "kotd.pull", "kotd.place_buzz",
    })

    def start(self, setup: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        monsters = setup.get("monsters")
        if not isinstance(monsters, list) or len(monsters) != 2:
            raise _fail(_("a duel needs two Monsters"))
        if monsters[0]["name"] == monsters[1]["name"]:
            raise _fail(_("pick two different Monsters"))
        _player(setup, "first")
        out = []
        for m in monsters:
            m = dict(m)
            player = m.pop("player", "")
            if not isinstance(player, str):
                raise _fail(_("{name}: the player's name must be text, got {player!r}").format(
                    name=m["name"], player=player))
            player = " ".join(player.split())[:40]
            if player:
                m["player"] = player
            out.append(m)
        return {**setup, "monsters": out, "rules": RULES_EDITION}

    def check(self, state: KotdState | None, type_: str, data: Mapping[str, Any]) -> None:
        """The config's bounds on a duel's set-up, checked again when a journal is
        replayed."""
        if type_ != "game.start":
            return
        for i, m in enumerate(items(data.get("monsters"), "data.monsters", 2)):
            text(mapping(m, f"data.monsters[{i}]").get("name"), f"data.monsters[{i}].name")
            whole(m.get("hp"), f"data.monsters[{i}].hp", 1, 99)
            if "player" in m:
                text(m["player"], f"data.monsters[{i}].player")
        whole(data.get("first"), "data.first", 0, 1)
        for i, t in enumerate(items(data.get("tracks"), "data.tracks", 2)):
            cells = whole(mapping(t, f"data.tracks[{i}]").get("cells"),
                          f"data.tracks[{i}].cells", 5, 41)
            whole(t.get("spotlight"), f"data.tracks[{i}].spotlight", 1, (cells - 3) // 2)
        bonus = mapping(data.get("second_player", {}), "data.second_player")
        for key in ("energy", "dice_tokens"):
            whole(bonus.get(key, 0), f"data.second_player.{key}", 0, 99)
        self.start(data, random.Random(0))  # and the set-up's own checks (it draws nothing)

    def initial(self, data: Mapping[str, Any]) -> KotdState:
        ms = [Monster(m["name"], int(m["hp"]), int(m["hp"]), power=m.get("power", ""),
                      player=m.get("player", ""))
              for m in data["monsters"]]
        first = int(data["first"])
        second = 1 - first
        bonus = data.get("second_player", {})
        ms[second] = evolve(ms[second], energy=int(bonus.get("energy", 0)),
                            dice_tokens=int(bonus.get("dice_tokens", 0)))
        tracks = []
        for t in data["tracks"]:
            base = base_track(int(t["cells"]), int(t["spotlight"]))
            tracks.append(Track(t["name"], base, pawn=len(base) // 2))
        buzz = tuple((b["id"], tuple(b["cells"]), int(b["covers"]), bool(b.get("king")))
                     for b in data.get("buzz", []))
        return KotdState((ms[0], ms[1]), (tracks[0], tracks[1]), buzz, first=first,
                         current=first, n_dice=FIRST_TURN_DICE, rules=rules_edition(data))

    def decide(self, state: KotdState, type_: str, data: Mapping[str, Any],
               rng: random.Random) -> dict[str, Any]:
        return dict(data)

    def apply(self, state: KotdState, type_: str, data: Mapping[str, Any]) -> KotdState:
        handler = _HANDLERS.get(type_)
        if handler is None:
            raise _fail(_("unknown King of Tokyo Duel action {type!r}").format(type=type_))
        if state.phase == "over":
            raise _fail(_("the duel is over: {monster} won").format(
                            monster=state.monsters[state.winner or 0].name))
        return handler(state, data)

    def describe(self, before: KotdState, type_: str, data: Mapping[str, Any],
                 after: KotdState) -> str:
        return describe(before, type_, data, after)

    def to_json(self, state: KotdState, *, reveal_hidden: bool = False) -> dict[str, Any]:
        return to_json(state)

    def is_over(self, state: KotdState) -> bool:
        return state.phase == "over"

    def summary(self, state: KotdState) -> str:
        a, b = state.monsters
        text = _("{a} {hp} HP vs {b} {hp2} HP").format(a=a.name, hp=a.hp, b=b.name, hp2=b.hp)
        if state.winner is not None:
            return _("{text}, {monster} won").format(text=text, monster=state.monsters[state.winner].name)
        return _("{text}, turn {turn}").format(text=text, turn=state.turn)


# -- the roll --------------------------------------------------------------------------------

def _need_roll_phase(state: KotdState, what: str) -> None:
    if state.phase != "roll":
        raise _fail(_("{what}: the dice are resolved already this turn").format(what=what))


def _faces(values: Any) -> list[str | None]:
    if not isinstance(values, list) or not values:
        raise _fail(_("faces: the dice of the roll, as a list"))
    out: list[str | None] = []
    for v in values:
        if v is not None and v not in FACES:
            raise _fail(_("{v!r} is not a face of these dice ({faces})").format(
                            v=v, faces=', '.join(FACES)))
        out.append(v)
    return out


def _take_roll(state: KotdState, faces: list[str | None]) -> KotdState:
    _need_roll_phase(state, _("no roll now"))
    pending = state.pending
    if pending:   # the re-roll of dice the tower could not read
        if len(faces) != len(pending):
            raise _fail(ngettext("re-roll the {count} die not read cleanly ({came} came in), or "
                                 "set it by hand",
                                 "re-roll the {count} dice not read cleanly ({came} came in), or "
                                 "set them by hand", len(pending)).format(count=len(pending),
                                                                          came=len(faces)))
        dice = list(state.dice)
        for i, f in zip(pending, faces):
            dice[i] = Die(f, dice[i].kept)
        return evolve(state, dice=tuple(dice))
    if state.rolls >= MAX_ROLLS:
        raise _fail(_("three rolls already: resolve the dice"))
    if state.rolls == 0:
        if len(faces) != state.n_dice:
            raise _fail(_("the first roll is {n_dice} dice; {count} came in").format(
                            n_dice=state.n_dice, count=len(faces)))
        return evolve(state, dice=tuple(Die(f) for f in faces), rolls=1)
    free = [i for i, d in enumerate(state.dice) if not d.kept]
    if not free:
        raise _fail(_("every die is kept: take one back to roll it, or resolve"))
    if len(faces) != len(free):
        raise _fail(ngettext("{count} die is not kept; {came} came in",
                             "{count} dice are not kept; {came} came in", len(free)).format(
            count=len(free), came=len(faces)))
    dice = list(state.dice)
    for i, f in zip(free, faces):
        dice[i] = Die(f, False)
    return evolve(state, dice=tuple(dice), rolls=state.rolls + 1)


def _tower_roll(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    """A dice tower throw: its King of Tokyo dice are this roll (other dice are ignored)."""
    dice = data.get("dice")
    if not isinstance(dice, list):
        raise _fail(_("a tower roll carries its dice"))
    faces: list[str | None] = []
    for d in dice:
        if d.get("kind") != TOWER_KIND:
            continue
        clean = d.get("status", "clean") == "clean" and d.get("face") in FACES
        faces.append(d.get("face") if clean else None)
    if not faces:
        raise _fail(_("no King of Tokyo die in that throw"))
    return _take_roll(state, faces)


def _roll(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    return _take_roll(state, _faces(data.get("faces")))


def _keep(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    _need_roll_phase(state, _("no keeping now"))
    i = data.get("die")
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(state.dice):
        raise _fail(_("die must be 0 to {count}, not {i!r}").format(count=len(state.dice) - 1, i=i))
    if state.pending:
        raise _fail(_("a die was not read cleanly: re-roll it or set it by hand first"))
    if state.rolls >= MAX_ROLLS:
        raise _fail(_("no roll is left: every die counts"))
    kept = data.get("kept")
    if not isinstance(kept, bool):
        raise _fail(_("kept must be true or false"))
    dice = list(state.dice)
    dice[i] = evolve(dice[i], kept=kept)
    return evolve(state, dice=tuple(dice))


def _set_die(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    _need_roll_phase(state, _("no die to set now"))
    i = data.get("die")
    if i not in state.pending:
        raise _fail(_("only a die the tower could not read is set by hand"))
    face = _faces([data.get("face")])[0]
    if face is None:
        raise _fail(_("face: the face the die shows"))
    dice = list(state.dice)
    dice[i] = Die(face, dice[i].kept)
    return evolve(state, dice=tuple(dice))


def _spend_tokens(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    _need_roll_phase(state, _("dice tokens"))
    if state.rolls:
        raise _fail(_("dice tokens are spent before the first roll"))
    n = data.get("count", 1)
    m = state.monsters[state.current]
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= m.dice_tokens:
        raise _fail(_("{m} has {dice_tokens} dice token(s)").format(m=m.name, dice_tokens=m.dice_tokens))
    if state.n_dice + n > MAX_DICE:
        raise _fail(_("never more than {max_dice} dice").format(max_dice=MAX_DICE))
    state = _set_monster(state, state.current, evolve(m, dice_tokens=m.dice_tokens - n))
    return evolve(state, n_dice=state.n_dice + n)


def _extra_die(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    """A power or card gives an extra die this turn."""
    _need_roll_phase(state, _("extra dice"))
    if state.rolls:
        raise _fail(_("extra dice are added before the first roll"))
    if state.n_dice >= MAX_DICE:
        raise _fail(_("never more than {max_dice} dice").format(max_dice=MAX_DICE))
    return evolve(state, n_dice=state.n_dice + 1)


def _resolve(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    _need_roll_phase(state, "resolve")
    if not state.rolls:
        raise _fail(_("roll the dice first"))
    if state.pending:
        raise _fail(_("a die was not read cleanly: re-roll it or set it by hand; nothing is resolved on "
                      "a partial roll"))
    after, lines = resolve(state)
    if after.phase == "over":
        return evolve(after, last_resolution=tuple(lines))
    return evolve(after, phase="buy", last_resolution=tuple(lines))


def _buy(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    if state.phase != "buy":
        raise _fail(_("cards are bought after the dice are resolved"))
    cost = data.get("cost")
    if not isinstance(cost, int) or isinstance(cost, bool) or cost < 0:
        raise _fail(_("cost: the energy paid (the card farthest from the deck costs 1 less)"))
    if state.gained:
        raise _fail(_("the free energy was taken instead of buying this turn"))
    return evolve(_energy(state, state.current, -cost), bought=True)


def _sweep(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    if state.phase != "buy":
        raise _fail(_("the cards are swept in the buying phase"))
    return _energy(state, state.current, -SWEEP_COST)


def _gain_energy(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    if state.phase != "buy":
        raise _fail(_("the free energy is taken in the buying phase"))
    if state.bought or state.gained:
        raise _fail(_("1 energy is gained only by a player who buys no card this turn"))
    return evolve(_energy(state, state.current, 1), gained=True)


def free_energy_due(state: KotdState) -> bool:
    """3. ACHETER DES CARTES ÉNERGIE OU GAGNER 1⚡: "Si vous ne voulez ou ne pouvez pas acheter
    de cartes Énergie durant ce tour, gagnez 1⚡" (a sweep is not a purchase)."""
    return state.phase == "buy" and not state.bought and not state.gained


def _end_turn(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    """Phase 4. A player who bought no card gains their 1 energy here, automatically: ending
    the turn cannot skip it (rules edition 2; edition 1 journals ended turns without it)."""
    if state.phase != "buy":
        raise _fail(_("resolve the dice before ending the turn"))
    if state.rules >= 2 and free_energy_due(state):
        state = evolve(_energy(state, state.current, 1), gained=True)
    nxt = state.rival
    return evolve(state, current=nxt, turn=state.turn + 1, phase="roll", dice=(), rolls=0,
                  n_dice=BASE_DICE, bought=False, gained=False, last_resolution=())


def _adjust(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    """A power or a card changed HP, energy or dice tokens (cards are not modelled)."""
    who = _player(data)
    what = data.get("what")
    delta = data.get("delta")
    if not isinstance(delta, int) or isinstance(delta, bool) or delta == 0:
        raise _fail(_("delta: a whole number, not 0"))
    if what == "hp":
        m = state.monsters[who]
        if delta > 0 and m.hp >= m.max_hp:
            raise _fail(_("{m} is at full HP ({max_hp})").format(m=m.name, max_hp=m.max_hp))
        state = _hp(state, who, delta)
    elif what == "energy":
        state = _energy(state, who, delta)
    elif what == "dice_tokens":
        m = state.monsters[who]
        if not 0 <= m.dice_tokens + delta <= MAX_DICE_TOKENS:
            raise _fail(_("dice tokens: 0 to {max_dice_tokens} ({m} has {dice_tokens})").format(
                            max_dice_tokens=MAX_DICE_TOKENS, m=m.name, dice_tokens=m.dice_tokens))
        state = _tokens(state, who, delta)
    else:
        raise _fail(_("what must be hp, energy or dice_tokens, not {what!r}").format(what=what))
    return check_victory(state)


def _pull_event(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    """A pull from a power or a card (Gigazaur's, ...)."""
    track = data.get("track")
    if track not in TRACKS:
        raise _fail(_("track must be {tracks}").format(tracks=' or '.join(TRACKS)))
    who = _player(data, "toward")
    n = data.get("cells", 1)
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 20:
        raise _fail(_("cells: how far, 1 or more"))
    return pull(state, track, who, n)[0]


def _place_buzz(state: KotdState, data: Mapping[str, Any]) -> KotdState:
    """Place a Buzz token over printed cells (or move it there). It may not cover another
    token or a pawn's cell; The King's tokens are placed by The King only."""
    token = data.get("token")
    spec = next((b for b in state.buzz if b[0] == token), None)
    if spec is None:
        raise _fail(_("no Buzz token {token!r} (known: {items})").format(
                        token=token, items=', '.join(b[0] for b in state.buzz)))
    tid, cells, covers, king = spec
    track_name = data.get("track")
    if track_name not in TRACKS:
        raise _fail(_("track must be {tracks}").format(tracks=' or '.join(TRACKS)))
    if king and state.monsters[state.current].name != "The King":
        raise _fail(_("only The King places his blocking tokens"))
    # moving: take it off first (it may not carry a pawn)
    for t in state.tracks:
        for p in t.placements:
            if p.token == tid:
                if _pawn_base(t) in range(p.base, p.base + p.covers) and _on_token(t, tid):
                    raise _fail(_("the {title} pawn stands on {tid}: it cannot move").format(
                                    title=t.name.title(), tid=tid))
                state = _set_track(state, _without(t, tid))
    t = state.track(track_name)
    base = data.get("cell")
    if not isinstance(base, int) or isinstance(base, bool) or not 0 <= base <= len(t.base) - covers:
        raise _fail(_("cell: the first printed cell covered, 0 to {count}").format(
                        count=len(t.base) - covers))
    span = range(base, base + covers)
    for p in t.placements:
        if set(span) & set(range(p.base, p.base + p.covers)):
            raise _fail(_("{tid} would cover {token}").format(tid=tid, token=p.token))
    if _pawn_base(t) in span:
        raise _fail(_("{tid} cannot cover the cell the {title} pawn stands on").format(
                        tid=tid, title=t.name.title()))
    pawn_base = _pawn_base(t)
    placements = tuple(sorted(t.placements + (Placement(tid, base, covers, cells, king),),
                              key=lambda p: p.base))
    new = evolve(t, placements=placements)
    new = evolve(new, pawn=_built_index(new, pawn_base))
    return check_victory(_set_track(state, new))


def _on_token(t: Track, token: str) -> bool:
    return t.cells[t.pawn].token == token


def _pawn_base(t: Track) -> int:
    """The printed cell under the pawn (for a pawn on a token: the token's first cell)."""
    i = 0
    by_start = {p.base: p for p in t.placements}
    built = 0
    while i < len(t.base):
        p = by_start.get(i)
        width = len(p.cells) if p else 1
        if built <= t.pawn < built + width:
            return i
        built += width
        i += p.covers if p else 1
    return len(t.base) - 1


def _built_index(t: Track, base_index: int) -> int:
    by_start = {p.base: p for p in t.placements}
    built = 0
    i = 0
    while i < len(t.base):
        p = by_start.get(i)
        if i == base_index or (p and p.base <= base_index < p.base + p.covers):
            return built
        built += len(p.cells) if p else 1
        i += p.covers if p else 1
    return built - 1


def _without(t: Track, token: str) -> Track:
    pawn_base = _pawn_base(t)
    new = evolve(t, placements=tuple(p for p in t.placements if p.token != token))
    return evolve(new, pawn=_built_index(new, pawn_base))


_HANDLERS = {
    ROLL: _tower_roll, "kotd.roll": _roll, "kotd.keep": _keep, "kotd.set_die": _set_die,
    "kotd.spend_tokens": _spend_tokens, "kotd.extra_die": _extra_die,
    "kotd.resolve": _resolve, "kotd.buy": _buy, "kotd.sweep": _sweep,
    "kotd.gain_energy": _gain_energy, "kotd.end_turn": _end_turn, "kotd.adjust": _adjust,
    "kotd.pull": _pull_event, "kotd.place_buzz": _place_buzz,
}


# ----------------------------------------------------------------------------- presentation

def dice_text(dice: tuple[Die, ...]) -> str:
    """The dice in the player's language, a kept one marked with *: "GLOIRE* GRIFFE ?"."""
    return " ".join((_(d.face) if d.face else "?") + ("*" if d.kept else "") for d in dice)


def describe(before: KotdState, type_: str, data: Mapping[str, Any], after: KotdState) -> str:
    me = before.monsters[before.current].name
    kind = type_.split(".", 1)[1]
    if type_ == ROLL or kind == "roll":
        source = _("tower") if type_ == ROLL else _("typed")
        if before.pending:
            text = _("{me} re-rolls the unread dice ({source}): {dice_text}").format(
                       me=me, source=source, dice_text=dice_text(after.dice))
        else:
            text = _("{me} roll {rolls}/{max_rolls} ({source}): {dice_text}").format(
                       me=me, rolls=after.rolls, max_rolls=MAX_ROLLS, source=source,
                       dice_text=dice_text(after.dice))
        if after.pending:
            text += _("; {count} die not read cleanly: re-roll it or set it by hand").format(
                        count=len(after.pending))
    elif kind == "keep":
        d = after.dice[data["die"]]
        text = (_("{me} keeps {face}") if data["kept"] else _("{me} takes back {face}")).format(
            me=me, face=_(str(d.face)))
    elif kind == "set_die":
        text = _("{me} sets a die by hand: {face}").format(me=me, face=_(str(data['face'])))
    elif kind == "spend_tokens":
        text = ngettext("{me} spends {count} dice token: {n_dice} dice",
                        "{me} spends {count} dice tokens: {n_dice} dice",
                        data.get("count", 1)).format(me=me, count=data.get("count", 1),
                                                     n_dice=after.n_dice)
    elif kind == "extra_die":
        text = _("{me} gets an extra die: {n_dice} dice").format(me=me, n_dice=after.n_dice)
    elif kind == "resolve":
        text = _("{me} resolves {replace}: ").format(
                   me=me, replace=dice_text(before.dice).replace('*', '')) + "; ".join(after.last_resolution)
    elif kind == "buy":
        text = _("{me} buys a card for {cost} energy").format(me=me, cost=data['cost'])
    elif kind == "sweep":
        text = _("{me} sweeps the cards (2 energy)").format(me=me)
    elif kind == "gain_energy":
        text = _("{me} buys nothing: +1 energy").format(me=me)
    elif kind == "end_turn":
        text = _("{monster}'s turn").format(monster=after.monsters[after.current].name)
        if before.rules >= 2 and free_energy_due(before):
            text = _("{me} buys nothing: +1 energy; ").format(me=me) + text
    elif kind == "adjust":
        m = before.monsters[data["player"]].name
        label = {"hp": "HP", "energy": "energy", "dice_tokens": _("dice tokens")}[data["what"]]
        text = f"{m} {data['delta']:+d} {label}"
    elif kind == "pull":
        text = (_("{monster} pulls the {track} pawn {cells}").format(
                    monster=before.monsters[data['toward']].name, track=_(data['track'].title()),
                    cells=data.get('cells', 1)))
    elif kind == "place_buzz":
        text = _("{me} places Buzz token {token} on the {title} track").format(
                   me=me, token=data['token'], title=data['track'].title())
    else:
        text = type_
    if after.winner is not None and before.winner is None and kind != "resolve":
        text += _("; {monster} wins: {win_reason}").format(
                    monster=after.monsters[after.winner].name, win_reason=after.win_reason)
    return text


def to_json(state: KotdState) -> dict[str, Any]:
    return {
        "monsters": [{"name": m.name, "hp": m.hp, "max_hp": m.max_hp, "energy": m.energy,
                      "dice_tokens": m.dice_tokens} for m in state.monsters],
        "current": state.current, "turn": state.turn, "phase": state.phase,
        "dice": [{"face": d.face, "kept": d.kept} for d in state.dice], "rolls": state.rolls,
        "n_dice": state.n_dice,
        "tracks": [{"name": t.name, "pawn": t.pawn,
                    "cells": [{"zone": c.zone, "bonus": c.bonus, "token": c.token, "king": c.king}
                              for c in t.cells]} for t in state.tracks],
        "winner": state.winner, "win_reason": state.win_reason,
    }


RULES = KotdRules()


def config_data(cfg: KotdConfig) -> dict[str, Any]:
    """Plain data for writing config/kotd.yaml back (the user's copy)."""
    def monster(m: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"name": m.name, "hp": m.hp, "power": m.power}
        if m.defaults:
            out["defaults"] = list(m.defaults)
        return out

    def buzz(b: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"id": b.id, "cells": list(b.cells)}
        if b.covers:
            out["covers"] = b.covers
        if b.king:
            out["king"] = True
        return out

    return {"defaults": list(cfg.defaults), "faces": list(cfg.faces),
            "monsters": [monster(m) for m in cfg.monsters],
            "tracks": [{"name": t.name, "cells": t.cells, "spotlight": t.spotlight}
                       for t in cfg.tracks],
            "buzz": [buzz(b) for b in cfg.buzz],
            "second_player": {"energy": cfg.second_player.energy,
                              "dice_tokens": cfg.second_player.dice_tokens}}


def start_rule_text(cfg: KotdConfig) -> str:
    """What the set-up says of the first turn, with the second player's compensation as the
    game's config sets it (no pointer to settings a player cannot find)."""
    comp = cfg.second_player
    parts = ([ngettext("{count} dice token", "{count} dice tokens", comp.dice_tokens).format(
                count=comp.dice_tokens)] if comp.dice_tokens else []) + \
            ([ngettext("{count} energy", "{count} energy", comp.energy).format(count=comp.energy)]
             if comp.energy else [])
    if not parts:
        return _("The first player rolls 5 dice on the first turn.")
    return _("The first player rolls 5 dice on the first turn; the second player starts with "
             "{compensation}.").format(compensation=_(" and ").join(parts))


# ----------------------------------------------------------------------------- live view


def spectator_summary(state: KotdState) -> dict[str, Any]:
    """The live view's public picture (``companion/live/summary.py``): both Monsters' HP,
    energy and dice tokens, how far each track's pawn is from each Monster's Victory cell,
    whose turn it is and the dice on the table. Energy cards are not modelled (the three
    on offer and the Power cards bought lie face up; the deck's order is the only hidden
    thing, and the companion never knows it)."""
    me = state.monsters[state.current]
    if state.phase == "over":
        status = _("{monster} wins: {reason}").format(monster=state.monsters[state.winner or 0].name,
                                                      reason=state.win_reason)
    else:
        status = (_("Turn {turn} · {monster} · roll {roll}/{rolls}") if state.phase == "roll" else
                  _("Turn {turn} · {monster}")).format(turn=state.turn, monster=me.name,
                                                       roll=state.rolls, rolls=MAX_ROLLS)
    track_labels = {"fame": _("Fame: cells to Victory"),
                    "destruction": _("Destruction: cells to Victory")}
    sides = []
    for i, m in enumerate(state.monsters):
        figures = [{"label": _("HP"), "value": str(m.hp), "of": m.max_hp},
                   {"label": _("Energy"), "value": str(m.energy)},
                   {"label": _("Dice tokens"), "value": str(m.dice_tokens), "of": MAX_DICE_TOKENS}]
        notes = []
        for t in state.tracks:
            cells = t.cells
            victory = 0 if i == 0 else len(cells) - 1
            figures.append({"label": track_labels.get(t.name, t.name),
                            "value": str(abs(t.pawn - victory))})
            if cells[t.pawn].zone == f"spot{i}":
                notes.append(_("{track} pawn in the spotlight").format(track=_(t.name.title())))
        if m.hp <= 0:
            notes.append(_("KO"))
        sides.append({"name": f"{m.name} · {m.player}" if m.player else m.name,
                      "figures": figures, "notes": notes})
    lines = []
    if state.phase == "roll" and state.dice:
        lines.append(_("Dice: {dice}").format(dice=", ".join(
            (_(d.face) if d.face else "?") + (" " + _("(kept)") if d.kept else "")
            for d in state.dice)))
    over = state.phase == "over"
    winner = state.monsters[state.winner].name if over and state.winner is not None else None
    return {"status": status, "sides": sides, "lines": lines, "over": over, "winner": winner,
            "roller": None if over else me.name}


ENTRY = GameEntry(
    id="kotd", rules=f"{__name__}:RULES", setup="kotd_setup", play="kotd_game",
    tile=HomeTile(N_("King of Tokyo Duel"), N_("with the dice tower"), (0.45, 0.25, 0.55, 1),
                  (0.6, 0.35, 0.72, 1), 30),
    screens={"kotd_setup": "companion.app.screens.kotd_setup:KotdSetupScreen",
             "kotd_game": "companion.app.screens.kotd_game:KotdGameScreen"},
    config=ConfigFile("kotd", f"{__name__}:KotdConfig", "companion.config:kotd.yaml",
                      f"{__name__}:config_data"),
    dice_kinds=("kotd",), sim_dice="kotd", spectator=f"{__name__}:spectator_summary")
