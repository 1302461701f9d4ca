"""Random *legal* TEKKEN play, for property tests, the crash test and the benchmark.

``random_action`` picks an action the rules allow in ``state``; ``damage`` (0..1) scales
how often damage is dealt, so long journals (100,000 events) stay in one game.
"""

from __future__ import annotations

import random
from typing import Any

from .tekken import TekkenState

# The set-up of the rulebook's match (Jin vs Kazuya on Descent into Subconscious) with the
# default max HP: used by the tests, the crash driver and the benchmarks.
DEMO_SETUP: dict[str, Any] = {
    "fighters": [{"name": "Jin", "max_hp": 20}, {"name": "Kazuya", "max_hp": 20}],
    "stage": {"name": "Descent into Subconscious",
              "floor_break": {"cracked": 3, "empty": 3, "sides": ["Upperside", "Underside"]}},
    "rounds_to_win": 3, "offensive": 0}


def random_action(state: TekkenState, rng: random.Random,
                  damage: float = 1.0) -> tuple[str, dict[str, Any]] | None:
    if state.phase == "game_over":
        return None
    if state.phase == "round_over":
        return "tekken.next_round", ({} if rng.random() < 0.5 else
                                     {"offensive": rng.randrange(2)})
    off = state.fighters[state.offensive]
    options: list[tuple[float, tuple[str, dict[str, Any]]]] = []
    for i, f in enumerate(state.fighters):
        if f.rage == "unchosen":
            options.append((0.3, ("tekken.rage_chosen", {"player": i, "card": rng.randrange(2)})))
    if off.heat == "charged":
        options.append((0.05, ("tekken.heat", {})))
    if state.free_slots:
        options.append((1.0, ("tekken.card", {"result": "hit"})))
        if not off.punishment:
            options.append((0.4, ("tekken.card", {"result": "blocked"})))
    else:
        options.append((1.0, ("tekken.end_string", {})))
    if state.resolving:
        symbols = [rng.randint(1, 3) for _ in range(rng.choice((1, 1, 1, 2)))]
        data: dict[str, Any] = {"symbols": symbols}
        if state.floor is not None and rng.random() < 0.5:
            data["cracked_floor"] = True
        options.append((0.8 * damage, ("tekken.strike", data)))
        options.append((0.1 * damage, ("tekken.wall", {"kind": rng.choice(("regular",
                                                                           "blasting"))})))
        if not state.fighters[state.defender].knocked_down:
            options.append((0.15, ("tekken.sweep", {})))
        options.append((0.1, ("tekken.stun", {})))
        if off.rage == "revealed":
            options.append((0.3, ("tekken.rage", {})))
    for i, f in enumerate(state.fighters):
        if f.hp < f.max_hp:
            options.append((0.05, ("tekken.adjust_hp", {"player": i, "delta": 1,
                                                        "reason": "correction"})))
    options.append((0.02 * damage, ("tekken.adjust_hp", {"player": rng.randrange(2),
                                                         "delta": -1})))
    total = sum(w for w, _ in options)
    pick = rng.random() * total
    for weight, option in options:
        pick -= weight
        if pick <= 0:
            return option
    return options[-1][1]
