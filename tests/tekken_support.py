"""Small builders for TEKKEN tests: states with a known floor order, and action scripts."""

from __future__ import annotations

import random
from typing import Any

from companion.games.tekken import RULES, TekkenState

FLOOR = {"cracked": 3, "empty": 3, "sides": ["Upperside", "Underside"]}


def start_data(order: list[str] | None = None, *, max_hp: tuple[int, int] = (20, 20),
               rounds_to_win: int = 3, offensive: int = 0, floor: bool = True) -> dict:
    stage: dict[str, Any] = {"name": "Descent into Subconscious"}
    if floor:
        stage["floor_break"] = FLOOR
        stage["shuffle"] = {"seed": 0, "order": order or
                            ["empty", "cracked", "empty", "cracked", "empty", "cracked"]}
    return {"game": "tekken",
            "fighters": [{"name": "Jin", "max_hp": max_hp[0]},
                         {"name": "Kazuya", "max_hp": max_hp[1]}],
            "stage": stage, "rounds_to_win": rounds_to_win, "offensive": offensive}


def new(order: list[str] | None = None, **kw: Any) -> TekkenState:
    return RULES.initial(start_data(order, **kw))


def act(state: TekkenState, type_: str, seed: int = 0, **data: Any) -> TekkenState:
    """decide + apply, as the session does (draws from a seeded RNG)."""
    full = RULES.decide(state, "tekken." + type_, data, random.Random(seed))
    return RULES.apply(state, "tekken." + type_, full)


def hit(state: TekkenState, *symbols: int, cracked_floor: bool = False) -> TekkenState:
    """A card connects and (optionally) deals its Strike symbols."""
    state = act(state, "card", result="hit")
    if symbols:
        state = act(state, "strike", symbols=list(symbols), cracked_floor=cracked_floor)
    return state
