"""Property tests, one per game (issue 14): a refused action changes nothing (neither the
state nor the journal), and the replay of any game played with random commands, legal and
illegal alike, equals the live state.

Hypothesis draws each command from what the game could be asked at that point: most of them
are illegal there, which is the point."""

from __future__ import annotations

import os
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.config import load_typed
from companion.errors import IllegalActionError
from companion.games import danchie as dg
from companion.games import kotd as k
from companion.games import takkure as tk
from companion.journal import read_events
from companion.session import Session, replay
from tests.takkure_support import demo_setup

Draw = Callable[[Any], Any]          # a strategy -> one value


def _scratch(tmp_path_factory: Any, name: str) -> Path:
    """A folder for the journal: in memory (/dev/shm) where there is one, since every
    action is fsynced and hundreds of examples would wait on the disk."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        return Path(tempfile.mkdtemp(prefix=f"companion-{name}-", dir=shm))
    return tmp_path_factory.mktemp(name)


def _play(tmp: Path, game: str, setup: dict[str, Any], commands: Callable[[Any, Draw], tuple],
          data: Any, steps: int) -> None:
    path = tmp / f"{game}.jsonl"
    session = Session.create(path, game, setup, random.Random(0))
    draw: Draw = data.draw
    for _ in range(steps):
        if session.rules.is_over(session.state):
            break
        type_, payload = commands(session.state, draw)
        before, n, size = session.state, len(session.actions), path.stat().st_size
        try:
            session.do(type_, **payload)
        except IllegalActionError:
            assert session.state == before, f"refused {type_} {payload} changed the state"
            assert len(session.actions) == n and path.stat().st_size == size, \
                f"refused {type_} {payload} reached the journal"
            continue
        if draw(st.integers(0, 19)) == 0:
            session.undo()
    final = session.state
    session.close()
    try:
        assert replay(read_events(path), str(path)).state == final
        assert Session.open(path).state == final
    finally:
        path.unlink()
        if str(tmp).startswith("/dev/shm/"):
            tmp.rmdir()


SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

# -- King of Tokyo Duel ----------------------------------------------------------------------

KOTD_CFG = load_typed(k.KotdConfig, "config/kotd.yaml")


def kotd_command(s: k.KotdState, draw: Draw) -> tuple[str, dict[str, Any]]:
    n = len(s.dice) if s.dice else s.n_dice
    faces = [draw(st.sampled_from(k.FACES)) for _ in range(draw(st.integers(1, 8)))]
    who = draw(st.integers(0, 1))
    options = [
        ("kotd.roll", {"faces": faces}),
        ("kotd.roll", {"faces": [draw(st.sampled_from(k.FACES)) for _ in range(n)]}),
        ("kotd.keep", {"die": draw(st.integers(-1, 8)), "kept": draw(st.booleans())}),
        ("kotd.set_die", {"die": draw(st.integers(0, 7)), "face": draw(st.sampled_from(k.FACES))}),
        ("kotd.spend_tokens", {"count": draw(st.integers(0, 3))}),
        ("kotd.extra_die", {}),
        ("kotd.resolve", {}),
        ("kotd.resolve", {}),
        ("kotd.buy", {"cost": draw(st.integers(-1, 6))}),
        ("kotd.sweep", {}),
        ("kotd.gain_energy", {}),
        ("kotd.end_turn", {}),
        ("kotd.end_turn", {}),
        ("kotd.adjust", {"player": who, "what": draw(st.sampled_from(["hp", "energy", "dice_tokens", "x"])),
                         "delta": draw(st.integers(-2, 2))}),
        ("kotd.pull", {"track": draw(st.sampled_from(k.TRACKS)), "toward": who,
                       "cells": draw(st.integers(0, 3))}),
        ("kotd.place_buzz", {"token": draw(st.sampled_from([b.id for b in KOTD_CFG.buzz])),
                             "track": draw(st.sampled_from(k.TRACKS)),
                             "cell": draw(st.integers(-1, 12))}),
    ]
    return draw(st.sampled_from(options))


@SETTINGS
@given(data=st.data(), steps=st.integers(1, 70))
def test_kotd_refusals_change_nothing_and_replay_equals_live(tmp_path_factory, data, steps):
    setup = k.setup_from_config(KOTD_CFG, ("Gigazaur", "The King"))
    _play(_scratch(tmp_path_factory, "kotd"), "kotd", setup, kotd_command, data, steps)


# -- Tag Team --------------------------------------------------------------------------------

def _fighter(name: str, power: int) -> dict[str, Any]:
    return {"name": name, "max_hp": 12, "hp": 12, "power": power,
            "icons": [[9, "stop"], [6, "power_gain"], [3, "stop"]]}


TAGTEAM_SETUP = {"teams": [{"player": "Zara", "fighters": [_fighter("Jeanne", 1), _fighter("Ching", 2)]},
                           {"player": "Amy", "fighters": [_fighter("Bodvar", 3), _fighter("Wong", 2)]}]}
REFS = ["self", "partner", "opponent", "opponent_partner"]


def _effect(draw: Draw) -> dict[str, Any]:
    kind = draw(st.sampled_from(["attack", "direct", "block", "heal", "power", "transfer", "bad"]))
    return {"kind": kind, "target": draw(st.sampled_from(REFS)),
            "amount": draw(st.sampled_from([0, 1, 2, "power"])), "delta": draw(st.integers(-1, 1)),
            "from": draw(st.sampled_from(REFS)), "to": draw(st.sampled_from(REFS))}


def tagteam_command(s: Any, draw: Draw) -> tuple[str, dict[str, Any]]:
    side = lambda: {"active": draw(st.integers(0, 1)),  # noqa: E731
                    "effects": [_effect(draw) for _ in range(draw(st.integers(0, 2)))]}
    options = [
        ("tagteam.turn", {"sides": [side(), side()]}),
        ("tagteam.turn", {"sides": [side(), side()]}),
        ("tagteam.turn", {"sides": [side(), side()]}),
        ("tagteam.next_round", {}),
        ("tagteam.deck_exhausted", {}),
        ("tagteam.adjust", {"team": draw(st.integers(0, 1)), "fighter": draw(st.integers(0, 2)),
                            "what": draw(st.sampled_from(["hp", "power"])),
                            "delta": draw(st.integers(-3, 3))}),
        ("tagteam.flip", {"team": draw(st.integers(0, 1)), "fighter": draw(st.integers(0, 1))}),
    ]
    return draw(st.sampled_from(options))


@SETTINGS
@given(data=st.data(), steps=st.integers(1, 70))
def test_tagteam_refusals_change_nothing_and_replay_equals_live(tmp_path_factory, data, steps):
    _play(_scratch(tmp_path_factory, "tagteam"), "tagteam", TAGTEAM_SETUP, tagteam_command, data, steps)


# -- Danchie Go ------------------------------------------------------------------------------

DANCHIE_CFG = load_typed(dg.DanchieConfig, Path("config/danchie.yaml"))


def danchie_command(s: dg.DanchieState, draw: Draw) -> tuple[str, dict[str, Any]]:
    me = s.dashers[s.current].name
    anyone = draw(st.sampled_from(s.names + ("Zed",)))
    card = draw(st.sampled_from(s.power_ups))
    colour = draw(st.sampled_from(s.tile_types))
    options = [
        ("danchie.action_set", {"player": me, "kind": draw(st.sampled_from(["full", "special"]))}),
        ("danchie.action_set", {"player": me, "kind": "full"}),
        ("danchie.end_turn", {"player": draw(st.sampled_from([me, anyone]))}),
        ("danchie.end_turn", {"player": me}),
        ("danchie.power_up", {"player": me, "card": card.name,
                              "target": draw(st.sampled_from([None, *s.names]))}),
        ("danchie.decline_power_up", {"player": me}),
        ("danchie.tiles", {"player": anyone, "type": colour, "delta": draw(st.sampled_from([1, -1]))}),
        ("danchie.power_tiles", {"player": draw(st.sampled_from([me, anyone])),
                                 "delta": draw(st.sampled_from([1, -1])),
                                 "returned": draw(st.booleans())}),
        ("danchie.spawn", {"face": draw(st.sampled_from([f for f, _ in s.spawn_faces] + ["X"]))}),
        ("danchie.sabotage", {"player": anyone, "delta": draw(st.sampled_from([1, -1]))}),
        ("danchie.freeze", {"player": anyone, "delta": draw(st.sampled_from([1, -1]))}),
        ("danchie.start_tiles", {"player": anyone, "types": [colour, draw(st.sampled_from(s.tile_types))]}),
        ("danchie.blueprint", {"player": anyone, "side": draw(st.sampled_from(dg.SIDES)), "type": colour,
                               "delta": draw(st.sampled_from([1, -1]))}),
        ("danchie.specialty", {"player": anyone}),
        ("danchie.lap", {"player": anyone}),
    ]
    return draw(st.sampled_from(options))


@SETTINGS
@given(data=st.data(), steps=st.integers(1, 70))
def test_danchie_refusals_change_nothing_and_replay_equals_live(tmp_path_factory, data, steps):
    setup = dg.setup_from_config(DANCHIE_CFG, ["Aki", "Ben", "Cleo"])
    _play(_scratch(tmp_path_factory, "danchie"), "danchie", setup, danchie_command, data, steps)


# -- Takkure ---------------------------------------------------------------------------------

def takkure_command(s: tk.TakkureState, draw: Draw) -> tuple[str, dict[str, Any]]:
    who = {"team": draw(st.integers(0, 1)), "player": draw(st.integers(0, 3))}
    options = [
        ("takkure.kickoff", {"kicking": draw(st.integers(0, 1))}),
        ("takkure.take_tokens", {}),
        ("takkure.activate", who),
        ("takkure.activate", who),
        ("takkure.fatigue", {**who, "op": draw(st.sampled_from(["gain", "rest", "flip"])),
                             "token": draw(st.integers(0, 3))}),
        ("takkure.wound", who),
        ("takkure.endurance", {**who, "roll": draw(st.integers(1, 12))}),
        ("takkure.injury", {**who, "rolls": [draw(st.integers(1, 12))]}),
        ("takkure.grounded", {**who, "value": draw(st.booleans())}),
        ("takkure.ball", who),
        ("takkure.ball", {}),
        ("takkure.steal", who),
        ("takkure.try", {"success": draw(st.booleans())}),
        ("takkure.kick_out", {}),
        ("takkure.halftime_rest", {**who, "active": draw(st.booleans())}),
        ("takkure.second_half", {}),
        ("takkure.skill_token", {**who, "delta": draw(st.integers(-3, 3))}),
        ("takkure.action", {**who, "action": draw(st.sampled_from(tk.FIRST_ACTIONS + tk.SECOND_ACTIONS))}),
        ("takkure.bdy_roll", {**who, "roll": draw(st.integers(1, 12))}),
        ("takkure.roll", {"text": "a roll",
                          "action": {**who, "action": draw(st.sampled_from(tk.SECOND_ACTIONS))},
                          "superstars": [{**who, "tokens": draw(st.integers(1, 3))}]}),
    ]
    return draw(st.sampled_from(options))


@SETTINGS
@given(data=st.data(), steps=st.integers(1, 70))
def test_takkure_refusals_change_nothing_and_replay_equals_live(tmp_path_factory, data, steps):
    _play(_scratch(tmp_path_factory, "takkure"), "takkure", demo_setup(), takkure_command, data, steps)
