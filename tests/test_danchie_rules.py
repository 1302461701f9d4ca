"""Danchie Go – King's Call: set-up tables, turns and action sets, skipped turns, Power-Up
cards from round 3, the sabotage meter, board limits, the spawn die, podium and finish
order, the Tektonpedia, config errors, and a long game replayed from its journal."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest

from companion.config import load_typed, loads_typed
from companion.errors import ConfigError, IllegalActionError
from companion.games import GAMES
from companion.games import danchie as dg
from companion.games.danchie import RULES, DanchieConfig, setup_from_config, setup_table, tektonpedia
from companion.journal import read_events
from companion.session import Session, replay

CFG = load_typed(DanchieConfig, Path("config/danchie.yaml"))
FOUR = ["Aki", "Ben", "Cleo", "Dana"]


def new(players=FOUR) -> dg.DanchieState:
    return RULES.initial(RULES.start(setup_from_config(CFG, players), random.Random(1)))


def ready(state, name):
    """Enter a Blueprint matching the player's board, so that a lap line can be crossed
    (edition 2 checks it: ``test_a_lap_needs_the_blueprint_matched_exactly``)."""
    d = state.dashers[state.index(name)]
    if d.finished:
        return state
    side = dg.SIDES[d.lap - 1]
    if not any(d.tiles):
        state = _do(state, "danchie.tiles", player=name, type=state.tile_types[0], delta=1)
        d = state.dashers[state.index(name)]
    for k, t in enumerate(state.tile_types):
        have = d.blueprint[d.lap - 1][k]
        for _ in range(abs(d.tiles[k] - have)):
            state = _do(state, "danchie.blueprint", player=name, side=side, type=t,
                        delta=1 if d.tiles[k] > have else -1)
    return state


def draw(state):
    """The current player picks up a Power-Up Tile and draws a card (from round 3)."""
    d = state.dashers[state.current]
    if d.cards or state.round < dg.POWER_UP_ROUND:
        return state
    if d.power_up_tiles == dg.BOARD_LIMIT:
        state = _do(state, "danchie.power_tiles", player=d.name, delta=-1)
    return _do(state, "danchie.power_tiles", player=d.name, delta=1)


def _do(state, type_, /, **data):
    return RULES.apply(state, type_, RULES.decide(state, type_, data, random.Random(0)))


def _prepared(state, event, data):
    # laps come with a matching Blueprint and cards with a Power-Up Tile picked up: the
    # checks themselves are tested on their own below
    if event == "lap" and data.get("player") in state.names:
        return ready(state, data["player"])
    if event == "power_up" and data.get("player") == state.dashers[state.current].name:
        return draw(state)
    return state


def act(state, event, /, **data):
    return _do(_prepared(state, event, data), f"danchie.{event}", **data)


def line(state, event, /, **data) -> str:
    type_ = f"danchie.{event}"
    state = _prepared(state, event, data)
    full = RULES.decide(state, type_, data, random.Random(0))
    return RULES.describe(state, type_, full, RULES.apply(state, type_, full))


def cur(state) -> str:
    return state.dashers[state.current].name


def end(state):
    """The current player completes their action sets (as every player must) and ends the
    turn; a drawn Power-Up card is declined."""
    me = cur(state)
    if state.dashers[state.current].cards:
        return act(state, "decline_power_up", player=me)
    if not state.dashers[state.current].finished:
        for _ in range(state.sets_left(state.current)):
            state = act(state, "action_set", player=me, kind="full")
    return act(state, "end_turn", player=me)


def to_round(state, r):
    while state.round < r:
        state = end(state)
    return state


def to_turn(state, name):
    while cur(state) != name:
        state = end(state)
    return state


def who(state, name) -> dg.Dasher:
    return state.dashers[state.index(name)]


# -- registration and config ------------------------------------------------------------------

def test_registered_with_its_name_and_title():
    assert GAMES["danchie"] is RULES
    assert RULES.title == "Danchie Go – King's Call"
    assert all(t.startswith("danchie.") for t in RULES.event_types)


def test_shipped_config_marks_its_defaults_and_lists_the_rulebook_cards():
    assert CFG.defaults == ("tile_types", "spawn_die.faces")
    assert CFG.tile_types == ("red", "blue", "green", "yellow")
    assert [p.name for p in CFG.power_ups] == [
        "Book Tiles", "Swap Tiles", "Put Back", "Put Away", "Freeze", "Swap Position", "Linking",
        "Plus Action", "Burn Tiles", "Move Block", "Move Dasher", "Move Spawn", "Move Stack",
        "Move Boost"]
    assert CFG.power_up("Freeze").effect == "freeze" and CFG.power_up("Freeze").target == "player"
    assert CFG.power_up("Plus Action").effect == "extra_set"
    assert CFG.power_up("Put Back").target == "any_player"
    assert CFG.power_up("Move Dasher").target == "any_player"
    assert [f.meaning for f in CFG.spawn_die.faces] == [
        "tile_under_you", "power_up_on_spawn", "tile_on_spawn", "tile_on_spawn", "no_spawn",
        "no_spawn"]
    assert dg.MEANING_TEXT["power_up_on_spawn"] == "Power-Up Tile on the Spawn area"


def _firmware_config():
    path = Path("firmware_bridge/tower/firmware/config.py")
    spec = importlib.util.spec_from_file_location("_danchie_fw_config", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_both_dice_towers_name_the_spawn_faces_as_the_config_does():
    from firmware_bridge.tower import sim
    faces = tuple(f.face for f in CFG.spawn_die.faces)
    assert sim.SPAWN.faces == faces
    assert dict(_firmware_config().KINDS)["spawn"] == faces


def _broken(old: str, new_text: str) -> str:
    text = Path("config/danchie.yaml").read_text()
    assert old in text
    return text.replace(old, new_text, 1)


def test_config_errors_name_the_key():
    seven = _broken("    - {face: NO_SPAWN_2, meaning: no_spawn}\n",
                    "    - {face: NO_SPAWN_2, meaning: no_spawn}\n"
                    "    - {face: EXTRA, meaning: no_spawn}\n")
    with pytest.raises(ConfigError, match=r"spawn_die\.faces: the spawn die has 6 faces, not 7"):
        loads_typed(DanchieConfig, seven, "danchie.yaml")
    unknown = _broken("{face: TILE_ON_SPAWN, meaning: tile_on_spawn}",
                      "{face: TILE_ON_SPAWN, meaning: enemy_spawn}")
    with pytest.raises(ConfigError, match=r"spawn_die\.faces\[2\]\.meaning: 'enemy_spawn' is not "
                                          r"a spawn meaning \(tile_under_you"):
        loads_typed(DanchieConfig, unknown, "danchie.yaml")
    twice = _broken("{face: NO_SPAWN_2,", "{face: NO_SPAWN,")
    with pytest.raises(ConfigError,
                       match=r"spawn_die\.faces\[5\]\.face: 'NO_SPAWN' is listed twice"):
        loads_typed(DanchieConfig, twice, "danchie.yaml")
    target = _broken("    target: any_player\n", "    target: everyone\n")
    with pytest.raises(ConfigError, match=r"power_ups\[2\]\.target: 'everyone' is not a target"):
        loads_typed(DanchieConfig, target, "danchie.yaml")
    colours = _broken("[red, blue, green, yellow]", "[red, blue, green]")
    with pytest.raises(ConfigError, match="tile_types: 4 tile types"):
        loads_typed(DanchieConfig, colours, "danchie.yaml")


# -- set-up ----------------------------------------------------------------------------------

@pytest.mark.parametrize("n, obstacles, per_type, sets", [
    (3, 12, 6, ("Standard",) * 3),
    (4, 16, 8, ("Standard",) * 4),
    (5, 20, 10, ("Standard",) * 4 + ("Special",)),
    (6, 24, 12, ("Standard",) * 4 + ("Special",) * 2),
])
def test_setup_tables_for_3_to_6_players(n, obstacles, per_type, sets):
    t = setup_table(n)
    assert (t.lanes, t.obstacles, t.tiles_per_type, t.tile_types) == (n, obstacles, per_type, 4)
    assert t.obstacle_sets == sets and t.tiles == 4 * per_type
    assert t.power_up_tiles == 3 * n and t.clear_rows == 2
    assert t.standard_set == ("Spawn", "Stack", "Boost", "Block")
    assert t.special_set == ("Special Spawn", "Special Stack", "Special Boost", "Block")
    assert t.layout == ("pre-made" if n == 3 else "custom")
    notes = " ".join(t.notes)
    assert ("13" in notes and "not recommended" in notes) == (n == 3)
    assert ("Special set" in notes) == (n >= 5)


def test_three_players_get_12_obstacles_not_the_garbled_13():
    t = setup_table(3)
    assert t.obstacles == 12
    assert any("12 obstacles (4 per player)" in n and "13" in n for n in t.notes)


@pytest.mark.parametrize("n", [2, 7, 0, "4"])
def test_setup_table_refuses_other_player_counts(n):
    with pytest.raises(IllegalActionError, match="3 to 6 players"):
        setup_table(n)


def test_start_checks_the_players():
    for players in (["A", "B"], ["A", "B", "C", "D", "E", "F", "G"]):
        with pytest.raises(IllegalActionError, match="3 to 6 players"):
            new(players)
    with pytest.raises(IllegalActionError, match="two players are called 'A'"):
        new(["A", "B", "A"])
    with pytest.raises(IllegalActionError, match="player 2 needs a name"):
        new(["A", " ", "C"])
    with pytest.raises(IllegalActionError, match="setup_from_config"):
        RULES.start({"players": FOUR}, random.Random(1))
    s = new()
    assert (s.round, cur(s), s.base_sets, s.podium, s.finish) == (1, "Aki", 1, (), ())
    assert all(d.tiles == (0, 0, 0, 0) and d.lap == 1 for d in s.dashers)


def test_game_start_data_carries_the_config():
    data = RULES.start(setup_from_config(CFG, FOUR), random.Random(1))
    assert data["spawn_faces"][0] == {"face": "TILE_UNDER_YOU", "meaning": "tile_under_you"}
    assert {"name": "Freeze", "text": CFG.power_up("Freeze").text, "target": "player",
            "effect": "freeze"} in data["power_ups"]
    json.dumps(data)


# -- turns and action sets ---------------------------------------------------------------------

def test_only_the_current_player_acts_and_ends_the_turn():
    s = new()
    with pytest.raises(IllegalActionError, match="it is Aki's turn, not Ben's"):
        act(s, "action_set", player="Ben", kind="full")
    with pytest.raises(IllegalActionError, match="it is Aki's turn, not Ben's"):
        act(s, "end_turn", player="Ben")
    with pytest.raises(IllegalActionError, match="no player called 'Zed'"):
        act(s, "action_set", player="Zed")
    with pytest.raises(IllegalActionError, match="kind: full or special"):
        act(s, "action_set", player="Aki", kind="double")


def test_end_turn_goes_round_the_table_and_counts_rounds():
    s = new()
    order = []
    for _ in range(9):
        order.append((s.round, cur(s)))
        s = end(s)
    assert order == [(1, "Aki"), (1, "Ben"), (1, "Cleo"), (1, "Dana"), (2, "Aki"), (2, "Ben"),
                     (2, "Cleo"), (2, "Dana"), (3, "Aki")]


def test_a_turn_cannot_end_before_its_action_sets_are_done():
    """ACTION SETS: "Every player must complete a Full Action Set or a Special Move. Every
    player can't skip 1 of the actions, even if it's inconvenient." """
    s = new()
    with pytest.raises(IllegalActionError, match="Aki must still complete a Full Action Set "
                                                 "or a Special Move this turn"):
        act(s, "end_turn", player="Aki")
    s = act(s, "action_set", player="Aki", kind="special")        # a Special Move counts
    assert line(s, "end_turn", player="Aki") == "Aki ends the turn: Ben's turn (1 action set)"


def test_an_edition_1_journal_still_ends_turns_with_sets_left():
    """Journals saved before rules editions replay as played: the log notes the set."""
    data = setup_from_config(CFG, FOUR)        # no "rules": how game.start looked before
    s = RULES.initial(data)
    assert s.rules == 1
    after = RULES.apply(s, "danchie.end_turn", {"player": "Aki"})
    assert RULES.describe(s, "danchie.end_turn", {"player": "Aki"}, after).startswith(
        "Aki ends the turn: 1 action set not done; Ben's turn")


def test_one_action_set_a_turn_until_the_round_after_the_first_lap_1_finish():
    s = new()
    s = act(s, "action_set", player="Aki", kind="full")
    with pytest.raises(IllegalActionError, match="Aki has done 1 of 1 action set this turn"):
        act(s, "action_set", player="Aki", kind="special")
    s = to_round(s, 2)
    s = to_turn(s, "Ben")
    s = act(s, "action_set", player="Ben")
    text = line(s, "lap", player="Ben")
    assert "everyone has 2 action sets from round 3" in text
    s = act(s, "lap", player="Ben")
    assert s.two_sets_from_round == 3
    with pytest.raises(IllegalActionError, match="1 of 1"):      # still this round: 1 set
        act(s, "action_set", player="Ben")
    s = end(s)
    assert cur(s) == "Cleo" and s.sets_allowed(s.current) == 1
    s = act(s, "action_set", player="Cleo")
    with pytest.raises(IllegalActionError, match="1 of 1"):
        act(s, "action_set", player="Cleo")
    s = to_round(s, 3)
    assert cur(s) == "Aki" and s.base_sets == 2
    s = act(act(s, "action_set", player="Aki"), "action_set", player="Aki", kind="special")
    with pytest.raises(IllegalActionError, match="Aki has done 2 of 2 action sets"):
        act(s, "action_set", player="Aki")
    s = end(s)   # Ben rests (lap 1 finished): Cleo
    assert cur(s) == "Cleo" and s.sets_allowed(s.current) == 2
    # a later lap-1 finish changes nothing
    s = act(s, "lap", player="Cleo")
    assert s.two_sets_from_round == 3


def test_plus_action_gives_one_extra_set_that_is_not_a_special_move():
    s = to_round(new(), 3)
    s = act(s, "power_up", player="Aki", card="Plus Action", target=None)
    assert who(s, "Aki").extra_sets == 1 and who(s, "Aki").sabotage == 0
    assert s.sets_allowed(s.current) == 2
    s = act(s, "action_set", player="Aki", kind="special")
    with pytest.raises(IllegalActionError, match="Plus Action's extra action set cannot be a "
                                                 "Special Move"):
        act(s, "action_set", player="Aki", kind="special")
    s = act(s, "action_set", player="Aki", kind="full")
    with pytest.raises(IllegalActionError, match="2 of 2"):
        act(s, "action_set", player="Aki")
    s = end(s)
    assert who(s, "Aki").extra_sets == 0 and who(s, "Aki").sets_done == 0
    assert s.sets_allowed(s.current) == 1


# -- skipped turns -------------------------------------------------------------------------------

def test_a_player_who_finishes_lap_1_rests_one_turn():
    s = new()
    s = act(s, "lap", player="Aki")
    aki = who(s, "Aki")
    assert (aki.lap, aki.lap1_place, aki.resting) == (2, 1, True)
    s = act(to_turn(end(s), "Dana"), "action_set", player="Dana")
    text = line(s, "end_turn", player="Dana")
    assert "Round 2; Aki stops for one turn after lap 1: turn skipped; Ben's turn" in text
    s = end(s)
    assert (s.round, cur(s), who(s, "Aki").resting) == (2, "Ben", False)
    s = to_round(s, 3)
    assert cur(s) == "Aki"       # only one turn skipped


def test_the_turn_in_which_lap_1_ends_goes_on():
    """DECISION: the rest is the player's next turn; the sets left in the turn in which the
    player reaches the Flip line can still be done."""
    s = to_round(end(act(new(), "lap", player="Ben")), 2)
    s = to_round(s, 3)
    assert cur(s) == "Aki" and s.base_sets == 2
    s = act(act(s, "action_set", player="Aki"), "lap", player="Aki")
    s = act(s, "action_set", player="Aki")
    assert who(s, "Aki").sets_done == 2 and who(s, "Aki").resting
    s = to_round(end(s), 4)
    assert cur(s) == "Ben"                       # Aki's rest


def test_freeze_skips_the_frozen_players_next_turn():
    s = to_round(new(), 3)
    text = line(s, "power_up", player="Aki", card="Freeze", target="Ben")
    assert "Aki uses Freeze on Ben" in text and "Ben is frozen" in text
    s = act(act(s, "power_tiles", player="Aki", delta=1), "power_up", player="Aki",
            card="Freeze", target="Ben")
    assert who(s, "Ben").frozen == 1 and who(s, "Aki").sabotage == 1
    assert who(s, "Aki").power_up_tiles == 1     # the Tile stays on the board
    s = act(s, "action_set", player="Aki")
    assert "Ben is frozen: turn skipped; Cleo's turn" in line(s, "end_turn", player="Aki")
    s = end(s)
    assert cur(s) == "Cleo" and who(s, "Ben").frozen == 0
    s = to_round(s, 4)
    s = end(s)
    assert cur(s) == "Ben"


def test_a_frozen_player_who_also_rests_skips_two_turns():
    """DECISION: a Freeze and the rest after lap 1 are two separate skips."""
    s = to_round(new(), 3)
    s = act(s, "power_up", player="Aki", card="Freeze", target="Ben")
    s = act(s, "lap", player="Ben")       # moved over the Flip line (Move Dasher, a Boost)
    s = end(s)
    assert cur(s) == "Cleo" and who(s, "Ben").frozen == 0 and who(s, "Ben").resting
    s = to_round(s, 4)
    s = end(s)
    assert cur(s) == "Cleo" and not who(s, "Ben").resting
    s = to_round(s, 5)
    s = end(s)
    assert cur(s) == "Ben"


def test_freeze_by_hand_and_its_limits():
    s = new()
    s = act(s, "freeze", player="Cleo", delta=1)
    assert who(s, "Cleo").frozen == 1
    s = act(s, "freeze", player="Cleo", delta=-1)
    with pytest.raises(IllegalActionError, match="Cleo is not frozen"):
        act(s, "freeze", player="Cleo", delta=-1)
    with pytest.raises(IllegalActionError, match=r"delta: \+1 or -1"):
        act(s, "freeze", player="Cleo", delta=2)


# -- lap 2 special move limit --------------------------------------------------------------------

def test_lap_2_allows_one_special_move_per_round():
    s = new()
    s = end(act(s, "lap", player="Aki"))          # round 2 from now on: 2 sets
    s = to_round(s, 2)
    s = to_round(s, 3)                            # Aki rested in round 2
    assert cur(s) == "Aki" and s.base_sets == 2
    s = act(s, "action_set", player="Aki", kind="special")
    assert who(s, "Aki").special_move_round == 3
    with pytest.raises(IllegalActionError, match="Limited to one special move per round"):
        act(s, "action_set", player="Aki", kind="special")
    s = act(s, "action_set", player="Aki", kind="full")
    s = to_round(s, 4)
    s = act(s, "action_set", player="Aki", kind="special")   # a new round: allowed again
    assert who(s, "Aki").special_move_round == 4


def test_lap_1_special_moves_have_no_round_limit():
    s = to_round(end(act(new(), "lap", player="Ben")), 2)     # 2 sets from round 2
    s = act(act(s, "action_set", player="Aki", kind="special"), "action_set", player="Aki",
            kind="special")
    assert who(s, "Aki").specials_done == 2 and who(s, "Aki").special_move_round == 0


# -- Power-Up cards and the sabotage meter ---------------------------------------------------------

def test_power_up_cards_work_only_from_round_3():
    s = new()
    with pytest.raises(IllegalActionError, match=r"Power-Up cards work only from round 3 "
                                                 r"\(this is round 1\)"):
        act(s, "power_up", player="Aki", card="Burn Tiles", target=None)
    s = to_round(s, 2)
    with pytest.raises(IllegalActionError, match=r"\(this is round 2\)"):
        act(s, "power_up", player="Aki", card="Burn Tiles", target=None)
    dana = act(to_turn(s, "Dana"), "action_set", player="Dana")
    assert "Power-Up cards are active from now on" in line(dana, "end_turn", player="Dana")
    s = to_round(s, 3)
    assert s.power_ups_active
    s = act(s, "power_up", player="Aki", card="Burn Tiles", target=None)
    assert who(s, "Aki").sabotage == 0


def test_sabotage_counts_only_cards_aimed_at_another_player():
    s = to_round(new(), 3)
    s = act(s, "power_up", player="Aki", card="Put Back", target="Aki")
    assert who(s, "Aki").sabotage == 0
    s = act(s, "power_up", player="Aki", card="Move Dasher", target="Aki")
    assert who(s, "Aki").sabotage == 0
    s = act(s, "power_up", player="Aki", card="Put Back", target="Cleo")
    assert who(s, "Aki").sabotage == 1
    s = act(s, "power_up", player="Aki", card="Swap Tiles", target="Dana")
    assert who(s, "Aki").sabotage == 2 and who(s, "Dana").sabotage == 0
    with pytest.raises(IllegalActionError, match="Swap Tiles targets another player, not Aki"):
        act(s, "power_up", player="Aki", card="Swap Tiles", target="Aki")
    with pytest.raises(IllegalActionError, match="Put Away: name another player"):
        act(s, "power_up", player="Aki", card="Put Away", target=None)
    with pytest.raises(IllegalActionError, match="Book Tiles targets no player"):
        act(s, "power_up", player="Aki", card="Book Tiles", target="Ben")
    with pytest.raises(IllegalActionError, match="no Power-Up card called 'Teleport'"):
        act(s, "power_up", player="Aki", card="Teleport", target=None)
    with pytest.raises(IllegalActionError, match="the player whose turn it is"):
        act(s, "power_up", player="Ben", card="Burn Tiles", target=None)
    # by hand
    s = act(s, "sabotage", player="Ben", delta=1)
    assert who(s, "Ben").sabotage == 1
    s = act(s, "sabotage", player="Ben", delta=-1)
    with pytest.raises(IllegalActionError, match="Ben's sabotage meter is at 0"):
        act(s, "sabotage", player="Ben", delta=-1)


def test_a_finished_player_cannot_be_frozen():
    s = act(act(new(), "lap", player="Ben"), "lap", player="Ben")
    s = to_round(s, 3)
    with pytest.raises(IllegalActionError, match="Ben has finished the race and cannot be frozen"):
        act(s, "power_up", player="Aki", card="Freeze", target="Ben")
    with pytest.raises(IllegalActionError, match="Ben has finished the race"):
        act(s, "freeze", player="Ben", delta=1)


def test_declining_a_card_returns_the_tile_and_ends_the_turn():
    """POWER-UPS CARD: "If you choose not to use the Card, return the Power-Up Tile, skip
    your turn, and place the card in the graveyard pile." """
    s = new()
    with pytest.raises(IllegalActionError, match="Aki has no Power-Up Tile to return"):
        act(s, "decline_power_up", player="Aki")
    s = to_round(s, 3)
    s = act(s, "power_tiles", player="Aki", delta=1)          # picks one up: draws a card
    assert who(s, "Aki").cards == 1
    with pytest.raises(IllegalActionError, match="it is Aki's turn, not Ben's"):
        act(s, "decline_power_up", player="Ben")
    with pytest.raises(IllegalActionError, match="Aki drew a Power-Up card: use it, or decline"):
        act(act(s, "action_set", player="Aki"), "end_turn", player="Aki")
    text = line(s, "decline_power_up", player="Aki")
    assert text.startswith("Aki declines the Power-Up card: Power-Up Tile returned")
    s = act(s, "decline_power_up", player="Aki")
    assert who(s, "Aki").power_up_tiles == 0 and who(s, "Aki").cards == 0 and cur(s) == "Ben"


def test_a_power_up_card_needs_a_power_up_tile_picked_up():
    """POWER-UPS CARD: "When your dasher picks a Power-Up Tile, you draw one Power-Up
    card." No Tile picked up, no card to use."""
    s = to_round(new(), 3)
    with pytest.raises(IllegalActionError, match="Aki has no Power-Up card drawn: a card is "
                                                 "drawn when your Dasher picks a Power-Up Tile"):
        RULES.apply(s, "danchie.power_up", {"player": "Aki", "card": "Burn Tiles", "target": None})
    s = _do(s, "danchie.power_tiles", player="Aki", delta=1)
    s = _do(s, "danchie.power_up", player="Aki", card="Burn Tiles")
    assert who(s, "Aki").cards == 0 and who(s, "Aki").power_up_tiles == 1
    with pytest.raises(IllegalActionError, match="no Power-Up card drawn"):   # one card, once
        _do(s, "danchie.power_up", player="Aki", card="Burn Tiles")
    other = _do(s, "danchie.power_tiles", player="Ben", delta=1)      # not Ben's turn: no draw
    assert who(other, "Ben").cards == 0


def test_a_returned_power_up_tile_has_one_round_cooldown():
    """HOW TO RACE: "Returned Power-Ups Tile need one round cooldown before being taken
    again." DECISION: the round it was returned in and the next round are its cooldown."""
    s = to_round(new(), 3)
    s = act(act(s, "power_tiles", player="Aki", delta=1), "decline_power_up", player="Aki")
    assert s.cooling == (("Aki", 3),) and s.cooling_tiles() == (("Aki", 5),)
    with pytest.raises(IllegalActionError, match="the Power-Up Tile Aki returned needs one round "
                                                 "cooldown: it can be taken again from round 5"):
        act(s, "power_tiles", player="Ben", delta=1, returned=True)
    s = to_round(s, 4)
    with pytest.raises(IllegalActionError, match="from round 5"):
        act(s, "power_tiles", player="Aki", delta=1, returned=True)
    s = to_round(s, 5)
    assert s.cooling_tiles() == ()
    s = act(s, "power_tiles", player="Aki", delta=1, returned=True)
    assert s.cooling == () and who(s, "Aki").power_up_tiles == 1
    with pytest.raises(IllegalActionError, match="no returned Power-Up Tile is on the board"):
        act(s, "power_tiles", player="Aki", delta=1, returned=True)
    assert RULES.to_json(s)["cooling"] == []


def test_every_lap_1_finisher_gets_a_second_specialty_token_each_used_once():
    """DASHER SPECIALTY TOKEN: "Each player has a unique specialty ability that can be used
    once per game. After completing the first lap, you'll receive a second Specialty
    Token." """
    s = new()
    s = act(s, "specialty", player="Ben", token="Bonk!")        # any time, even not Ben's turn
    assert (who(s, "Ben").specialty, who(s, "Ben").specialty_used) == (1, 1)
    with pytest.raises(IllegalActionError, match="Ben has used their Dasher Specialty token: "
                                                 "each is used once per game \\(a second one "
                                                 "comes with completing lap 1\\)"):
        act(s, "specialty", player="Ben")
    for name in ("Cleo", "Aki", "Dana", "Ben"):                 # Ben is 4th: off the podium
        s = act(s, "lap", player=name)
    assert [who(s, n).specialty for n in FOUR] == [2, 2, 2, 2]
    s = act(s, "specialty", player="Ben")
    with pytest.raises(IllegalActionError, match="Ben has used both Dasher Specialty tokens"):
        act(s, "specialty", player="Ben")
    assert line(s, "specialty", player="Aki", token="Nope") == \
        "Aki uses a Dasher Specialty token: Nope (1 of 2 used)"


def test_two_starting_tiles_of_different_colours():
    """PLAYER BOARD SETUP: "Take 2 starting Tiles from the Tile Trays make sure they're
    different colors!" """
    s = new()
    with pytest.raises(IllegalActionError, match="Aki's 2 starting Tiles must be different "
                                                 "colours \\(both red\\)"):
        act(s, "start_tiles", player="Aki", types=["red", "red"])
    s = act(s, "start_tiles", player="Aki", types=["red", "blue"])
    assert who(s, "Aki").tiles == (1, 1, 0, 0) and who(s, "Aki").start_tiles == ("red", "blue")
    with pytest.raises(IllegalActionError, match="Aki has taken their starting Tiles already"):
        act(s, "start_tiles", player="Aki", types=["green", "yellow"])
    with pytest.raises(IllegalActionError, match="types: the 2 starting Tiles"):
        act(s, "start_tiles", player="Ben", types=["red"])
    assert line(s, "start_tiles", player="Ben", types=["green", "yellow"]) == \
        "Ben takes 2 starting Tiles: green and yellow"
    with pytest.raises(IllegalActionError, match="at set-up, before round 2"):
        act(to_round(s, 2), "start_tiles", player="Ben", types=["green", "yellow"])


def test_a_lap_needs_the_blueprint_matched_exactly():
    """HOW TO RACE 6: "they need to complete the Green Blueprint exactly as shown, without
    any excess Tiles"; the red side "stays hidden until you complete Lap 1"; the second lap's
    goal: "Complete your red blueprint mission and cross the finish line"."""
    s = act(new(), "start_tiles", player="Aki", types=["red", "blue"])
    with pytest.raises(IllegalActionError, match="Aki's green Blueprint is not entered yet"):
        RULES.apply(s, "danchie.lap", {"player": "Aki"})
    with pytest.raises(IllegalActionError, match="red Blueprint stays hidden until they "
                                                 "complete lap 1"):
        act(s, "blueprint", player="Aki", side="red", type="red", delta=1)
    for t in ("red", "red", "blue"):
        s = act(s, "blueprint", player="Aki", side="green", type=t, delta=1)
    assert who(s, "Aki").blueprint[0] == (2, 1, 0, 0)
    with pytest.raises(IllegalActionError, match=r"Aki's Tiles \(1 red, 1 blue\) do not match "
                                                 r"the green Blueprint \(2 red, 1 blue\) exactly"):
        RULES.apply(s, "danchie.lap", {"player": "Aki"})
    s = act(s, "tiles", player="Aki", type="red", delta=1)
    excess = act(s, "tiles", player="Aki", type="green", delta=1)   # one Tile too many
    with pytest.raises(IllegalActionError, match="without any excess Tiles"):
        RULES.apply(excess, "danchie.lap", {"player": "Aki"})
    s = RULES.apply(s, "danchie.lap", {"player": "Aki"})
    assert who(s, "Aki").lap == 2
    with pytest.raises(IllegalActionError, match="the green side is done"):
        act(s, "blueprint", player="Aki", side="green", type="red", delta=-1)
    with pytest.raises(IllegalActionError, match="Aki's red Blueprint is not entered yet"):
        RULES.apply(s, "danchie.lap", {"player": "Aki"})
    for t in ("red", "red", "blue"):
        s = act(s, "blueprint", player="Aki", side="red", type=t, delta=1)
    s = RULES.apply(s, "danchie.lap", {"player": "Aki"})
    assert who(s, "Aki").finish_place == 1
    assert RULES.to_json(s)["players"][0]["blueprint"] == {
        "green": {"red": 2, "blue": 1, "green": 0, "yellow": 0},
        "red": {"red": 2, "blue": 1, "green": 0, "yellow": 0}}


# -- the board counters ----------------------------------------------------------------------------

def test_board_limit_4_tiles_per_colour_and_4_power_up_tiles():
    s = new()
    for _ in range(4):
        s = act(s, "tiles", player="Ben", type="red", delta=1)
    assert who(s, "Ben").tiles == (4, 0, 0, 0)
    with pytest.raises(IllegalActionError, match="Board limit: 4 red Tiles per board"):
        act(s, "tiles", player="Ben", type="red", delta=1)
    with pytest.raises(IllegalActionError, match="Ben has no blue Tile"):
        act(s, "tiles", player="Ben", type="blue", delta=-1)
    with pytest.raises(IllegalActionError, match="type: one of red, blue, green, yellow"):
        act(s, "tiles", player="Ben", type="purple", delta=1)
    for _ in range(4):
        s = act(s, "power_tiles", player="Ben", delta=1)
    with pytest.raises(IllegalActionError, match="Board limit: 4 Power-Up Tiles per board"):
        act(s, "power_tiles", player="Ben", delta=1)
    with pytest.raises(IllegalActionError, match="Cleo has no Power-Up Tile"):
        act(s, "power_tiles", player="Cleo", delta=-1)
    assert RULES.to_json(s)["players"][1]["tiles"] == {"red": 4, "blue": 0, "green": 0,
                                                        "yellow": 0}


def test_a_power_up_tile_from_round_3_reminds_to_draw_a_card():
    s = new()
    assert line(s, "power_tiles", player="Aki", delta=1) == "Aki +1 Power-Up Tile (1)"
    s = to_round(s, 3)
    assert "draw a Power-Up card" in line(s, "power_tiles", player="Aki", delta=1)


# -- the spawn die ---------------------------------------------------------------------------------

def test_spawn_meanings_come_from_the_config():
    s = new()
    for f in CFG.spawn_die.faces:
        full = RULES.decide(s, "danchie.spawn", {"face": f.face, "source": "tower"},
                            random.Random(0))
        assert full == {"face": f.face, "meaning": f.meaning, "player": "Aki", "source": "tower"}
    s = act(s, "spawn", player="Aki", face="TILE_ON_SPAWN_2", source="tower")
    assert s.last_spawn == dg.Spawn("Aki", "TILE_ON_SPAWN_2", "tile_on_spawn", "tower", 1)
    assert RULES.to_json(s)["last_spawn"]["text"] == "Regular Tile on the Spawn area"
    # the result in words, never the face's id (words for players)
    assert line(s, "spawn", player="Aki", face="NO_SPAWN") == "Aki spawns (by hand): No spawn"
    with pytest.raises(IllegalActionError, match=r"'DOUBLE' is not a face of the spawn die "
                                                 r"\(faces: TILE_UNDER_YOU, POWER_UP_ON_SPAWN"):
        act(s, "spawn", player="Aki", face="DOUBLE")
    with pytest.raises(IllegalActionError, match="source: tower or hand"):
        act(s, "spawn", player="Aki", face="NO_SPAWN", source="camera")
    with pytest.raises(IllegalActionError, match="face NO_SPAWN means no_spawn"):
        RULES.apply(s, "danchie.spawn", {"player": "Aki", "face": "NO_SPAWN",
                                         "meaning": "tile_on_spawn", "source": "hand"})


def test_a_journal_keeps_the_faces_it_was_started_with():
    data = RULES.start(setup_from_config(CFG, FOUR), random.Random(1))
    data["spawn_faces"][5] = {"face": "NO_SPAWN_2", "meaning": "tile_under_you"}
    s = RULES.initial(data)
    assert act(s, "spawn", player="Aki", face="NO_SPAWN_2").last_spawn.meaning == "tile_under_you"


# -- podium, finish, game over ----------------------------------------------------------------

def test_podium_finish_order_and_the_end_of_the_race():
    s = new()
    assert "podium place 1: a second Dasher Specialty token" in line(s, "lap", player="Cleo")
    for name in ("Cleo", "Aki", "Dana", "Ben"):
        s = act(s, "lap", player=name)
    assert [who(s, n).lap1_place for n in FOUR] == [2, 4, 1, 3]
    assert s.podium == (2, 0, 3, 1)
    s4 = new()
    for name in ("Cleo", "Aki", "Dana"):
        s4 = act(s4, "lap", player=name)
    text = line(s4, "lap", player="Ben")
    assert "lap 1 place 4: a second Dasher Specialty token" in text
    assert "Aki crosses the finish line: finishes 1st: wins the race!" in \
        line(s, "lap", player="Aki")
    for name in ("Aki", "Ben", "Cleo"):
        s = act(s, "lap", player=name)
    assert [who(s, n).finish_place for n in FOUR] == [1, 2, 3, None]
    assert not RULES.is_over(s) and RULES.summary(s) == "Aki, Ben, Cleo, Dana: Aki won, round 1"
    with pytest.raises(IllegalActionError, match="Aki has finished the race"):
        act(s, "lap", player="Aki")
    assert "everyone has finished: the game is over" in line(s, "lap", player="Dana")
    s = act(s, "lap", player="Dana")
    assert RULES.is_over(s) and s.finish == (0, 1, 2, 3)
    assert RULES.summary(s) == "Aki, Ben, Cleo, Dana: Aki won"
    with pytest.raises(IllegalActionError, match="the race is over"):
        end(s)
    with pytest.raises(IllegalActionError, match="the race is over"):
        act(s, "tiles", player="Aki", type="red", delta=1)
    # DECISION: the sabotage meter can still be corrected for the Tektonpedia
    s = act(s, "sabotage", player="Dana", delta=1)
    assert who(s, "Dana").sabotage == 1


def test_finished_players_are_passed_over_and_do_no_action_set():
    s = act(act(new(), "lap", player="Ben"), "lap", player="Ben")
    s = end(s)
    assert cur(s) == "Cleo"
    s = to_round(s, 2)
    s = end(s)
    assert cur(s) == "Cleo"
    # the current player finishes during their turn: they end it, nothing else
    s = act(act(s, "lap", player="Cleo"), "lap", player="Cleo")
    with pytest.raises(IllegalActionError, match="Cleo has finished the race"):
        act(s, "action_set", player="Cleo")
    s = end(s)
    assert cur(s) == "Dana"
    s = end(s)
    assert (s.round, cur(s)) == (3, "Aki")


def test_tektonpedia_per_finished_player_in_the_json():
    s = new()
    for name in ("Ben", "Aki", "Dana", "Cleo"):
        s = act(s, "lap", player=name)
    for _ in range(6):
        s = act(s, "sabotage", player="Cleo", delta=1)
    for name in ("Aki", "Cleo"):
        s = act(s, "lap", player=name)
    js = RULES.to_json(s)
    json.dumps(js)
    players = {p["name"]: p for p in js["players"]}
    assert players["Aki"]["tektonpedia"]["personality"] == "2-1"
    assert players["Cleo"]["tektonpedia"] == {
        "personality": "4-5/2", "kind": "Mekton",
        "text": "Lap 1 4th x lap 2 2nd, 6 sabotages: find personality #4-5/2 in the Mekton "
                "profiles of the Tektonpedia"}
    assert players["Ben"]["tektonpedia"] is None
    assert [(n, t.personality) for n, t in dg.results(s)] == [("Aki", "2-1"), ("Cleo", "4-5/2")]


# -- Tektonpedia -----------------------------------------------------------------------------------

def test_tektonpedia_the_rulebook_example_2nd_by_3rd_is_2_3():
    t = tektonpedia(2, 3, 4)
    assert (t.personality, t.kind) == ("2-3", "Tekton")
    assert "#2-3 in the Tekton profiles" in t.text


@pytest.mark.parametrize("a, b, personality", [
    (4, 3, "4-5/3"), (5, 3, "4-5/3"), (1, 4, "1/4-5"), (1, 5, "1/4-5"), (4, 5, "4-5/4-5"),
    (6, 6, "6-6"), (6, 1, "6-1"), (1, 6, "1-6"), (5, 6, "4-5/6"), (3, 3, "3-3"),
])
def test_tektonpedia_buckets(a, b, personality):
    assert tektonpedia(a, b, 0).personality == personality


def test_tektonpedia_5_sabotages_is_a_tekton_6_a_mekton():
    assert tektonpedia(1, 1, 0).kind == "Tekton"
    assert tektonpedia(1, 1, 5).kind == "Tekton"
    assert tektonpedia(1, 1, 6).kind == "Mekton"
    assert tektonpedia(1, 1, 12).kind == "Mekton"
    with pytest.raises(IllegalActionError, match="1 to 6"):
        tektonpedia(7, 1, 0)
    with pytest.raises(IllegalActionError, match="0 or more"):
        tektonpedia(1, 1, -1)


# -- a long game replayed ---------------------------------------------------------------------

def _candidates(s: dg.DanchieState, rng: random.Random) -> list[tuple[str, dict]]:
    me = cur(s)
    anyone = rng.choice(s.names)
    card = rng.choice(s.power_ups)
    target = None if card.target == "none" else rng.choice(s.names)
    return [
        ("danchie.action_set", {"player": me, "kind": rng.choice(["full", "full", "special"])}),
        ("danchie.action_set", {"player": me, "kind": "full"}),
        ("danchie.end_turn", {"player": me}),
        ("danchie.end_turn", {"player": me}),
        ("danchie.power_up", {"player": me, "card": card.name, "target": target}),
        ("danchie.decline_power_up", {"player": me}),
        ("danchie.tiles", {"player": anyone, "type": rng.choice(s.tile_types),
                           "delta": rng.choice([1, 1, -1])}),
        ("danchie.power_tiles", {"player": anyone, "delta": rng.choice([1, -1])}),
        ("danchie.spawn", {"face": rng.choice(s.spawn_faces)[0],
                           "source": rng.choice(["tower", "hand"])}),
        ("danchie.sabotage", {"player": anyone, "delta": rng.choice([1, -1])}),
        ("danchie.freeze", {"player": anyone, "delta": rng.choice([1, -1])}),
        ("danchie.start_tiles", {"player": anyone, "types": rng.sample(s.tile_types, 2)}),
        ("danchie.blueprint", {"player": anyone, "side": rng.choice(dg.SIDES),
                               "type": rng.choice(s.tile_types), "delta": rng.choice([1, -1])}),
        ("danchie.specialty", {"player": anyone}),
        ("danchie.power_tiles", {"player": anyone, "delta": 1, "returned": True}),
    ] + ([("danchie.lap", {"player": anyone})] if rng.random() < 0.3 else [])


def session_ready(session, name):
    """Enter a Blueprint matching the player's board, in the session (one event a Tile)."""
    want = ready(session.state, name)
    i = session.state.index(name)
    for k, t in enumerate(want.tile_types):
        while session.state.dashers[i].tiles[k] < want.dashers[i].tiles[k]:
            session.do("danchie.tiles", player=name, type=t, delta=1)
    d = want.dashers[i]
    for k, t in enumerate(want.tile_types):
        side = dg.SIDES[d.lap - 1]
        while session.state.dashers[i].blueprint[d.lap - 1][k] != d.blueprint[d.lap - 1][k]:
            have = session.state.dashers[i].blueprint[d.lap - 1][k]
            session.do("danchie.blueprint", player=name, side=side, type=t,
                       delta=1 if d.blueprint[d.lap - 1][k] > have else -1)


def test_a_long_random_game_replays_with_undo_and_redo(tmp_path):
    rng = random.Random(11)
    path = tmp_path / "danchie.jsonl"
    session = Session.create(path, "danchie", setup_from_config(CFG, ["Aki", "Ben", "Cleo",
                                                                      "Dana", "Eri"]), rng)
    done = undos = 0
    while done < 300:
        r = rng.random()
        if r < 0.06 and session.can_undo:
            before = session.state
            session.undo()
            undos += 1
            if rng.random() < 0.5:
                session.redo()
                assert session.state == before
            continue
        type_, data = rng.choice(_candidates(session.state, rng))
        if type_ == "danchie.lap" and rng.random() < 0.5:
            session_ready(session, data["player"])
        if not session.allows(type_, **data):
            continue
        session.do(type_, **data)
        done += 1
    while not session.rules.is_over(session.state):     # everyone crosses the line
        name = next(d.name for d in session.state.dashers if not d.finished)
        session_ready(session, name)
        session.do("danchie.lap", player=name)
    assert not session.allows("danchie.end_turn", player=cur(session.state))
    final = session.state
    log = session.log()
    assert len(log) == len(session.actions) and all(e.text for e in log)
    json.dumps(session.to_json())
    session.close()
    assert undos > 5 and final.round >= 5 and final.over
    assert len(dg.results(final)) == 5
    events = read_events(path)
    assert len(events) > 300
    assert replay(events).state == final
    assert Session.open(path).state == final
