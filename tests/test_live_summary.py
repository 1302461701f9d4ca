"""The live view's summaries (companion/live/summary.py): each game's public picture of a real
game state, in the contract's shape, and never what the table keeps hidden.

A hidden-information test builds two states that differ ONLY in what a player at the table
could not see, and checks that the two summaries are the same, and that the hidden value is
nowhere in the summary's JSON.
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from companion import registry
from companion.config import load_typed
from companion.games import danchie as dg
from companion.games import kotd as k
from companion.games import tagteam as tt
from companion.games import takkure as tk
from companion.games import tekken as te
from companion.games.tekken_play import DEMO_SETUP
from companion.live.summary import check_shape, game_summary

from .takkure_support import demo_setup
from .tekken_support import act, hit, new


def figures(side: dict) -> dict[str, tuple[str, int | None]]:
    return {f["label"]: (f["value"], f.get("of")) for f in side["figures"]}


def shape_ok(summary: dict) -> None:
    """What game_summary adds around the game's dict, and the contract's few limits."""
    fields = {"status", "sides", "lines", "over", "winner", "title", "game"}
    assert fields <= set(summary) <= fields | {"roller"}
    # the dice games say who throws (for the page's "thrown by"), while the game goes on
    if summary["game"] in ("kotd", "danchie", "takkure") and not summary["over"]:
        assert summary["roller"]
    assert summary["status"] and isinstance(summary["over"], bool)
    for side in summary["sides"]:
        assert 1 <= len(side["figures"]) <= 8, side      # a headline, not the whole sheet
        assert all(isinstance(f.get("of", 0), int) for f in side["figures"])
    json.dumps(summary)                                  # plain data for the page


# -- every game declares one -----------------------------------------------------------------

def test_every_registered_game_declares_a_spectator_summary():
    for entry in registry.games():
        assert entry.spectator is not None, f"{entry.id} declares no live view summary"
        assert callable(entry.spectator_function()), entry.id


def test_a_summary_that_breaks_the_contract_fails_loudly():
    with pytest.raises(ValueError, match="fields"):
        check_shape({"sides": [], "secret": 1})
    with pytest.raises(ValueError, match="label and value"):
        check_shape({"sides": [{"name": "Jin", "figures": [{"label": "HP", "value": 17}]}]})


# -- TEKKEN ------------------------------------------------------------------------------------

def tekken_demo(seed: int) -> te.TekkenState:
    return te.RULES.initial(te.RULES.start(DEMO_SETUP, random.Random(seed)))


def test_tekken_summary_of_a_real_game():
    s = hit(new(), 3, 3)                               # Jin's card connects: Kazuya 20 -> 14
    s = act(s, "rage_chosen", player=1, card=0)
    s = act(s, "sweep")
    out = game_summary("tekken", s)
    shape_ok(out)
    assert out["game"] == "tekken" and out["title"] == "TEKKEN"
    jin, kazuya = out["sides"]
    assert (jin["name"], kazuya["name"]) == ("Jin", "Kazuya")
    assert figures(kazuya)["HP"] == ("14", 20)
    assert figures(jin)["Heat"] == ("charged", None)
    assert figures(jin)["Rounds won"] == ("0", 3)
    assert "OFFENSIVE" in jin["notes"] and "OFFENSIVE" not in kazuya["notes"]
    assert "Rage card chosen" in kazuya["notes"] and "KNOCKED DOWN" in kazuya["notes"]
    assert out["status"] == "Round 1 · String 1 · Jin's String (Offensive) – Kazuya defends"
    assert "Stage: Descent into Subconscious" in out["lines"]
    assert any(line.startswith("Floor Break: Upperside · cracked 0 of 3 · 6 tokens face down")
               for line in out["lines"])
    assert (out["over"], out["winner"]) == (False, None)


def test_tekken_red_zone_reveals_rage_and_the_game_ends_with_a_winner():
    s = act(new(rounds_to_win=1), "rage_chosen", player=1, card=1)
    s = hit(s, 7, 7)                                   # Kazuya 6 HP: red zone, Rage revealed
    kazuya = game_summary("tekken", s)["sides"][1]
    assert "red zone" in kazuya["notes"] and "Rage REVEALED" in kazuya["notes"]
    s = act(s, "strike", symbols=[6])                   # KO: Jin wins the only round needed
    out = game_summary("tekken", s)
    assert (out["over"], out["winner"], out["status"]) == (True, "Jin", "Jin wins the game")
    assert "KO" in out["sides"][1]["notes"]


def test_tekken_stage_without_floor_break():
    out = game_summary("tekken", new(floor=False))
    assert out["lines"] == ["Stage: Descent into Subconscious"]


def test_tekken_player_names_beside_the_characters():
    setup = {**DEMO_SETUP, "fighters": [{"name": "Jin", "max_hp": 20, "player": "Alice"},
                                        {"name": "Kazuya", "max_hp": 20}]}
    s = te.RULES.initial(te.RULES.start(setup, random.Random(1)))
    assert [side["name"] for side in game_summary("tekken", s)["sides"]] == ["Jin · Alice", "Kazuya"]


def test_tekken_secret_rage_card_is_never_in_the_summary():
    """shared/rules/tekken.md: "Each player secretly picks one of two Rage cards ... It is
    revealed ... when HP drops to 6 or fewer"."""
    base = hit(new(), 2)
    card_a = act(base, "rage_chosen", player=0, card=0)
    card_b = act(base, "rage_chosen", player=0, card=1)
    assert card_a != card_b and card_a.fighters[0].rage_card != card_b.fighters[0].rage_card
    a, b = game_summary("tekken", card_a), game_summary("tekken", card_b)
    assert a == b
    text = json.dumps(a)
    for secret in ("Rage card A", "Rage card B"):       # the cards' names (config/tekken.yaml)
        assert secret not in text


def test_tekken_face_down_floor_break_tokens_are_never_in_the_summary():
    """shared/rules/tekken.md: "the order of tokens must stay hidden from both players until
    revealed". Two fair draws (different seeds) differ only in that order."""
    first, second = tekken_demo(1), tekken_demo(2)
    assert first.floor is not None and second.floor is not None
    assert first.floor.order != second.floor.order
    assert first == dataclasses.replace(second, floor=first.floor)   # nothing else differs
    summary = game_summary("tekken", first)
    assert summary == game_summary("tekken", second)
    assert "face up" not in json.dumps(summary)         # nothing turned over yet
    # the same once two tokens are face up: the same two shown, the four below differ
    up = ["empty", "cracked"]
    one = new(up + ["cracked", "empty", "cracked", "empty"])
    two = new(up + ["empty", "empty", "cracked", "cracked"])
    one, two = (hit(s, 1, 1, cracked_floor=True) for s in (one, two))
    assert one.floor.revealed == two.floor.revealed == 2 and one.floor.order != two.floor.order
    a, b = game_summary("tekken", one), game_summary("tekken", two)
    assert a == b
    floor = next(line for line in a["lines"] if line.startswith("Floor Break"))
    assert floor == ("Floor Break: Upperside · cracked 1 of 3 · 4 tokens face down · "
                     "face up: empty, cracked")
    assert "empty, cracked, cracked" not in json.dumps(a) and \
        "empty, cracked, empty" not in json.dumps(a)


# -- Takkure -----------------------------------------------------------------------------------
# No hidden information in the state: the rulebook's hidden things are the coaches' play cards
# (shared/seeds/takkure.en.txt: the Individual Plays deck "face down near your coach board",
# 4 cards in hand, a Team Play "placed face down"), and the companion does not track cards
# (shared/rules/takkure.md lists fatigue, wounds, time, ball and score: all on the table).

def takkure_act(state: tk.TakkureState, kind: str, **data) -> tk.TakkureState:
    return tk.RULES.apply(state, f"takkure.{kind}", data)


def test_takkure_summary_of_a_real_match():
    s = tk.RULES.initial(tk.RULES.start(demo_setup(), random.Random(1)))
    out = game_summary("takkure", s)
    shape_ok(out)
    assert out["status"] == "Half 1 · Kick-off: the referee roll decides who kicks"
    s = takkure_act(s, "kickoff", kicking=0)               # Teriomorphs receive and attack
    s = takkure_act(s, "ball", team=1, player=1)           # Lince (Scrum-Half) has the ball
    s = takkure_act(s, "activate", team=1, player=1)
    s = takkure_act(s, "grounded", team=0, player=0, value=True)   # Kaze tackled
    s = takkure_act(s, "wound", team=0, player=3, count=5)          # Yokozuna: BDY 5, injured
    out = game_summary("takkure", s)
    shape_ok(out)
    yamato, terio = out["sides"]
    assert (yamato["name"], terio["name"]) == ("Yamato", "Teriomorphs")
    assert out["status"] == "Half 1 · Teriomorphs attack"
    assert figures(yamato)["Tries"] == ("0", None) and figures(terio)["Tries"] == ("0", None)
    assert figures(terio)["Activation tokens"] == ("3", 4)
    assert "Activation tokens" not in figures(yamato)
    assert figures(terio)["Time token"] == ("inactive", None)
    assert figures(yamato)["Time token"] == ("active", None)
    assert figures(yamato)["On the field"] == ("3", 4)
    assert "ATTACK" in terio["notes"] and "BALL: Lince" in terio["notes"]
    assert "Kaze: GROUNDED" in yamato["notes"] and "Yokozuna: injured" in yamato["notes"]
    assert "Time: box 5" in out["lines"]
    s = takkure_act(s, "try", success=True)
    out = game_summary("takkure", s)
    assert figures(out["sides"][1])["Tries"] == ("1", None)
    assert "Kick-off: Yamato' coach chooses who kicks" in out["status"]
    full_time = game_summary("takkure", dataclasses.replace(s, phase="over", result="1"))
    assert (full_time["over"], full_time["winner"]) == (True, "Teriomorphs")
    assert full_time["status"] == "Half 1 · Full time: Teriomorphs win"
    draw = game_summary("takkure", dataclasses.replace(s, phase="over", result="draw"))
    assert (draw["over"], draw["winner"]) == (True, None)


# -- King of Tokyo Duel ------------------------------------------------------------------------
# No hidden information in the state: the dice, HP, energy, dice tokens, pawns and Buzz tokens
# are on the table; the Energy cards on offer and the Power cards bought lie face up
# (shared/seeds/king-of-tokyo-duel.fr.txt: "cartes Énergie face visible", "conservez les
# cartes Pouvoir achetées face visible"). The only hidden thing, the Energy deck's order, is
# not modelled (shared/rules/king-of-tokyo-duel.md: buying is a counter the players adjust).

KOTD_CFG = load_typed(k.KotdConfig, "config/kotd.yaml")


def test_kotd_summary_of_a_real_duel():
    s = k.RULES.initial(k.RULES.start(k.setup_from_config(KOTD_CFG, ("Gigazaur", "Alienoid"), 0),
                                      random.Random(1)))
    s = k.RULES.apply(s, "kotd.roll", {"faces": ["CLAW", "CLAW", "ENERGY", "FAME", "FAME"]})
    s = k.RULES.apply(s, "kotd.keep", {"die": 0, "kept": True})
    out = game_summary("kotd", s)
    shape_ok(out)
    assert out["status"] == "Turn 1 · Gigazaur · roll 1/3"
    assert out["lines"] == ["Dice: CLAW (kept), CLAW, ENERGY, FAME, FAME"]
    s = k.RULES.apply(s, "kotd.resolve", {})
    out = game_summary("kotd", s)
    giga, alien = out["sides"]
    assert (giga["name"], alien["name"]) == ("Gigazaur", "Alienoid")
    assert figures(alien)["HP"] == ("8", 10) and figures(giga)["HP"] == ("10", 10)
    assert figures(giga)["Energy"] == ("1", None)
    assert figures(alien)["Dice tokens"] == ("1", 2)         # the 2nd player's compensation
    fame = s.track("fame")
    assert figures(giga)["Fame: cells to Victory"] == (str(fame.pawn), None)
    assert figures(alien)["Fame: cells to Victory"] == (str(len(fame.cells) - 1 - fame.pawn), None)
    assert out["status"] == "Turn 1 · Gigazaur" and out["lines"] == []


def test_kotd_winner_once_over():
    s = k.RULES.initial(k.RULES.start(k.setup_from_config(KOTD_CFG, ("Gigazaur", "Alienoid"), 0),
                                      random.Random(1)))
    s = k.RULES.apply(s, "kotd.adjust", {"player": 1, "what": "hp", "delta": -10})
    out = game_summary("kotd", s)
    assert (out["over"], out["winner"]) == (True, "Gigazaur")
    assert out["status"].startswith("Gigazaur wins")


# -- Tag Team ----------------------------------------------------------------------------------
# No hidden information in the state: each Combat deck is face down in the order its player
# chose ("Vous n'avez pas à révéler ... ni son emplacement dans votre Deck de Combat",
# shared/seeds/tag-team.fr.txt) and the Construction deck is shuffled face down, but the
# companion keeps only how many cards each holds (shared/rules/tag-team.md), which the table
# shows too; HP markers and Power cubes are on the boards.

def tagteam_fighter(name: str, hp: int, power: int) -> dict:
    return {"name": name, "max_hp": 20, "hp": hp, "power": power, "icons": []}


def test_tagteam_summary_of_a_real_fight():
    setup = {"teams": [{"player": "Zara", "fighters": [tagteam_fighter("Golem", 16, 3),
                                                       tagteam_fighter("Wong", 10, 2)]},
                       {"player": "Amy", "fighters": [tagteam_fighter("Mordred", 12, 2),
                                                      tagteam_fighter("Ching", 10, 2)]}]}
    s = tt.RULES.initial(tt.RULES.start(setup, random.Random(1)))
    s = tt.RULES.apply(s, "tagteam.turn", {"sides": [{"active": 0, "effects": [{"kind": "attack"}]},
                                                     {"active": 0, "effects": []}]})
    out = game_summary("tagteam", s)
    shape_ok(out)
    zara, amy = out["sides"]
    assert (zara["name"], amy["name"]) == ("Zara", "Amy")
    assert figures(amy)["Mordred HP"] == ("9", 20) and figures(zara)["Golem Power"] == ("3", None)
    assert figures(zara)["Combat deck"] == ("2", None)
    assert figures(zara)["Construction deck"] == ("18", None)
    assert out["status"] == "Round 1 · turn 2 of 2"
    assert out["lines"] == list(s.last) and out["lines"]
    building = tt.RULES.apply(s, "tagteam.turn", {"sides": [{"active": 1, "effects": []},
                                                            {"active": 1, "effects": []}]})
    assert game_summary("tagteam", building)["status"] == "Round 1 · deck building"
    s = tt.RULES.apply(s, "tagteam.adjust", {"team": 1, "fighter": 1, "what": "hp", "delta": -10})
    out = game_summary("tagteam", s)
    assert (out["over"], out["winner"], out["status"]) == (True, "Zara", "Zara wins")
    assert "Ching: KO" in out["sides"][1]["notes"]


# -- Danchie Go --------------------------------------------------------------------------------

DANCHIE_CFG = load_typed(dg.DanchieConfig, "config/danchie.yaml")


def danchie_do(state: dg.DanchieState, type_: str, **data) -> dg.DanchieState:
    return dg.RULES.apply(state, type_, dg.RULES.decide(state, type_, data, random.Random(0)))


def danchie_new() -> dg.DanchieState:
    return dg.RULES.initial(dg.RULES.start(dg.setup_from_config(DANCHIE_CFG, ["Aki", "Ben", "Cleo"]),
                                           random.Random(1)))


def test_danchie_summary_of_a_real_race():
    s = danchie_new()
    s = danchie_do(s, "danchie.start_tiles", player="Aki", types=["red", "blue"])
    s = danchie_do(s, "danchie.sabotage", player="Ben", delta=1)
    s = danchie_do(s, "danchie.freeze", player="Cleo", delta=1)
    s = danchie_do(s, "danchie.spawn", player="Aki", face="NO_SPAWN")
    out = game_summary("danchie", s)
    shape_ok(out)
    assert [side["name"] for side in out["sides"]] == ["Aki", "Ben", "Cleo"]
    aki, ben, cleo = out["sides"]
    assert figures(aki)["red"] == ("1", 4) and figures(aki)["yellow"] == ("0", 4)
    assert figures(aki)["Lap"] == ("1", 2) and figures(aki)["Power-Up Tiles"] == ("0", 4)
    assert figures(ben)["Sabotage"] == ("1", None)
    assert "FROZEN 1" in cleo["notes"]
    assert out["status"] == "Round 1 · Aki's turn · Power-Ups from round 3"
    assert out["lines"] == ["Spawn die: No spawn (Aki, round 1)"]
    assert (out["over"], out["winner"]) == (False, None)


def test_danchie_hidden_red_blueprint_and_specialty_token_never_in_the_summary():
    """shared/seeds/danchie-go-kings-call.en.txt: "The red side stays hidden until you complete
    Lap 1 - no peeking!" and "Each player receives one token secretly - keep it hidden". The
    app refuses a red Blueprint on lap 1, so the state is edited to hold one; a Specialty
    token's name is never kept in the state at all."""
    s = danchie_do(danchie_new(), "danchie.blueprint", player="Aki", side="green", type="red",
                   delta=1)
    aki = s.dashers[0]
    secret = dataclasses.replace(aki, blueprint=(aki.blueprint[0], (4, 3, 2, 1)))
    other = dataclasses.replace(s, dashers=(secret, *s.dashers[1:]))
    assert other != s
    a, b = game_summary("danchie", s), game_summary("danchie", other)
    assert a == b
    assert "Blueprint" not in json.dumps(a)
