"""A sixth game added through the registry alone: "Coin Race", two players take turns
adding a coin to their pile, first to the config's target wins.

It lives entirely in this folder (rules here, its screens in ``screens.py``, its config in
``coinrace.yaml``) and reaches the app only through ``companion.registry.register(ENTRY)``:
the test that plays it proves that adding a game touches nothing outside the game's files.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.errors import IllegalActionError
from companion.registry import ConfigFile, GameEntry, HomeTile


@dataclass(frozen=True)
class CoinRaceConfig:
    players: tuple[str, ...]
    target: int = 3

    def validate(self) -> tuple[str, str] | None:
        if len(self.players) != 2:
            return ("players", "Coin Race is for exactly 2 players")
        if not 1 <= self.target <= 20:
            return ("target", f"must be between 1 and 20, got {self.target}")
        return None


@dataclass(frozen=True)
class CoinRaceState:
    names: tuple[str, str]
    coins: tuple[int, int]
    target: int
    turn: int = 0
    winner: int | None = None


def config_data(cfg: CoinRaceConfig) -> dict[str, Any]:
    return {"players": list(cfg.players), "target": cfg.target}


class CoinRaceRules:
    name = "coinrace"
    title = "Coin Race"
    event_types = frozenset({"coinrace.coin"})

    def start(self, setup: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        names, target = setup.get("names"), setup.get("target")
        if not (isinstance(names, list) and len(names) == 2
                and all(isinstance(n, str) and n for n in names)):
            raise IllegalActionError("Coin Race needs two player names")
        if not isinstance(target, int) or not 1 <= target <= 20:
            raise IllegalActionError(f"the target must be 1 to 20 coins, got {target!r}")
        return {"game": self.name, "names": list(names), "target": target}

    def initial(self, data: Mapping[str, Any]) -> CoinRaceState:
        return CoinRaceState(tuple(data["names"]), (0, 0), int(data["target"]))

    def decide(self, state: CoinRaceState, type_: str, data: Mapping[str, Any],
               rng: random.Random) -> dict[str, Any]:
        if state.winner is not None:
            raise IllegalActionError(f"{state.names[state.winner]} has already won")
        if data.get("player") != state.turn:
            raise IllegalActionError(f"it is {state.names[state.turn]}'s turn")
        return {"player": state.turn}

    def apply(self, state: CoinRaceState, type_: str, data: Mapping[str, Any]) -> CoinRaceState:
        p = data["player"]
        if p != state.turn or state.winner is not None:
            raise IllegalActionError("not this player's turn")
        coins = list(state.coins)
        coins[p] += 1
        winner = p if coins[p] >= state.target else None
        return CoinRaceState(state.names, (coins[0], coins[1]), state.target, 1 - p, winner)

    def describe(self, before: CoinRaceState, type_: str, data: Mapping[str, Any],
                 after: CoinRaceState) -> str:
        p = data["player"]
        return f"{after.names[p]} adds a coin ({after.coins[p]})"

    def to_json(self, state: CoinRaceState, *, reveal_hidden: bool = False) -> dict[str, Any]:
        return {"names": list(state.names), "coins": list(state.coins), "turn": state.turn,
                "winner": state.winner}

    def is_over(self, state: CoinRaceState) -> bool:
        return state.winner is not None

    def summary(self, state: CoinRaceState) -> str:
        return f"{state.names[0]} {state.coins[0]} – {state.coins[1]} {state.names[1]}"


RULES = CoinRaceRules()

ENTRY = GameEntry(
    id="coinrace", rules=f"{__name__}:RULES", setup="coinrace_setup", play="coinrace_game",
    tile=HomeTile("Coin Race", "a test game", (0.3, 0.3, 0.3, 1), (0.45, 0.45, 0.45, 1), 99),
    screens={"coinrace_setup": f"{__name__}.screens:CoinRaceSetupScreen",
             "coinrace_game": f"{__name__}.screens:CoinRaceGameScreen"},
    config=ConfigFile("coinrace", f"{__name__}:CoinRaceConfig", f"{__name__}:coinrace.yaml",
                      f"{__name__}:config_data"),
    dice_kinds=("d6",), sim_dice="d6")
