"""TEKKEN rules: one test (or a few) per rule of shared/rules/tekken.md, plus the
rulebook's worked example and every decision taken where the rulebook is silent."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.errors import IllegalActionError
from companion.games.tekken import RULES, describe, to_json, would_break

from .tekken_support import act, hit, new

ORDER = ["empty", "cracked", "empty", "cracked", "empty", "cracked"]


# --------------------------------------------------------------------- worked example

def test_rulebook_worked_example_jin_vs_kazuya():
    """Jin's 2nd card connects; Combo Sweep knocks Kazuya down; Strike 2 from a Connected
    Extension deals 2 +1 = 3; a Push onto a Stun space gives Kazuya a Stun card."""
    s = new()
    s = hit(s)                                  # 1st card of Jin's String
    s = act(s, "card", result="hit")            # 2nd card: Kazuya's Punish Attempt failed
    before = s
    s = act(s, "sweep")                         # Combo: Move and Sweep
    s = act(s, "strike", symbols=[2])           # Strike from the Connected Extension
    kazuya = s.fighters[1]
    assert kazuya.hp == 20 - 3
    assert describe(act(before, "sweep"), "tekken.strike", {"symbols": [2]}, s) == \
        "Kazuya -3 HP (Strike 2, knocked down +1)"
    s = act(s, "stun")                          # pushed onto the Stun space
    assert s.fighters[1].stun == 1 and s.fighters[1].knocked_down
    # Jin's String: 3rd card connects and is resolved, then the String ends.
    s = act(hit(s), "end_string")
    # Kazuya stands up when his String begins; his Stun card takes one of his slots.
    assert s.offensive == 1 and not s.fighters[1].knocked_down
    assert s.slots == ("stun",) and s.free_slots == 2 and s.fighters[1].stun == 0
    # The Stun card goes back after that String.
    s = act(hit(hit(s)), "end_string")
    assert s.offensive == 0 and s.slots == () and s.free_slots == 3


# --------------------------------------------------------------------- HP and red zone

def test_red_zone_is_hp_6_or_less():
    s = hit(new(), 3, 3, 3)                      # 20 - 9 = 11... one card, three symbols
    assert s.fighters[1].hp == 11 and not s.fighters[1].in_red_zone
    s = act(s, "strike", symbols=[5])
    assert s.fighters[1].hp == 6 and s.fighters[1].in_red_zone
    assert to_json(s)["fighters"][1]["red_zone"] is True


def test_hp_never_goes_below_zero():
    s = hit(new(max_hp=(20, 8)), 9, 9)
    assert s.fighters[1].hp == 0


# --------------------------------------------------------------------- Rage

def test_rage_chosen_secretly_revealed_at_6_hp_usable_once_in_own_string():
    s = act(new(), "rage_chosen", player=0, card=1)
    s = act(s, "rage_chosen", player=1, card=0)
    assert s.fighters[0].rage == "chosen"
    assert "rage_card" not in to_json(s)["fighters"][0]       # secret while hidden
    assert to_json(s, reveal_hidden=True)["fighters"][0]["rage_card"] == 1
    # Kazuya blocks and takes the initiative, then hits Jin into the red zone.
    s = act(s, "card", result="blocked")
    s = hit(s, 9, 5)                                          # Punishment card, Jin at 6
    assert s.fighters[0].hp == 6 and s.fighters[0].rage == "revealed"
    assert to_json(s)["fighters"][0]["rage_card"] == 1
    # Not Jin's String: Rage cannot be used now.
    with pytest.raises(IllegalActionError, match="owner's String"):
        act(s, "rage", player=0)
    s = act(hit(hit(s)), "end_string")                        # Jin's String begins
    with pytest.raises(IllegalActionError, match="after a card"):
        act(s, "rage")                                        # nothing connected yet
    s = act(hit(s), "rage")
    assert s.fighters[0].rage == "used"
    with pytest.raises(IllegalActionError, match="once per round"):
        act(s, "rage")


def test_rage_above_6_hp_is_refused_and_changes_nothing():
    s = hit(act(new(), "rage_chosen", player=0, card=0))
    with pytest.raises(IllegalActionError, match="not available above 6 HP"):
        RULES.apply(s, "tekken.rage", {})
    assert s.fighters[0].rage == "chosen"


def test_rage_needs_a_chosen_card_and_is_chosen_once_per_round():
    s = hit(new())
    with pytest.raises(IllegalActionError, match="not chosen"):
        act(s, "rage")
    s = act(s, "rage_chosen", player=1, card=1)
    with pytest.raises(IllegalActionError, match="already chosen"):
        act(s, "rage_chosen", player=1, card=0)


def test_rage_chosen_while_already_in_red_zone_is_revealed_at_once():
    s = hit(new(), 9, 5)                                      # Kazuya at 6, no card yet
    s = act(s, "rage_chosen", player=1, card=0)
    assert s.fighters[1].rage == "revealed"


# --------------------------------------------------------------------- Heat

def test_heat_gives_a_4th_slot_and_is_once_per_round():
    s = act(new(), "heat")
    assert s.fighters[0].heat == "active" and s.total_slots == 4 and s.free_slots == 4
    with pytest.raises(IllegalActionError, match="once per round"):
        act(s, "heat")


def test_heat_twice_in_a_round_is_refused_even_in_a_later_string():
    s = act(hit(hit(hit(act(new(), "heat")))), "card", result="hit")  # 4 cards
    s = act(s, "end_string")
    s = act(hit(hit(hit(s))), "end_string")                   # Kazuya's String
    assert s.fighters[0].heat == "discharged"
    with pytest.raises(IllegalActionError, match="already used"):
        act(s, "heat")


def test_heat_only_for_the_offensive_player():
    with pytest.raises(IllegalActionError, match="only the Offensive"):
        act(new(), "heat", player=1)


def test_heat_after_resolving_the_third_card_opens_a_4th_slot():
    s = hit(hit(hit(new())))
    assert s.free_slots == 0
    with pytest.raises(IllegalActionError, match="no free Attack Slot"):
        act(s, "card", result="hit")
    s = act(s, "heat")
    assert s.free_slots == 1
    s = act(s, "card", result="hit")
    assert s.slots == ("hit",) * 4


def test_blocked_under_heat_stuns_the_slot_string_goes_on_no_punishment():
    s = act(new(), "heat")
    s = act(s, "card", result="blocked")
    assert s.offensive == 0 and s.slots == ("blocked",) and s.free_slots == 3
    assert s.fighters[1].punishment == 0
    # Blocked again in the last slot: no slot left, so the String ends.
    s = act(act(act(s, "card", result="hit"), "card", result="hit"), "card", result="blocked")
    assert s.offensive == 1 and s.fighters[1].punishment == 0
    assert s.fighters[0].heat == "discharged"


def test_new_round_recharges_heat():
    s = act(new(), "heat")
    s = hit(s, 9, 9, 9)                                       # KO
    s = act(s, "next_round", offensive=0)
    assert s.fighters[0].heat == "charged" and not s.heat_this_string


# --------------------------------------------------------------------- block / Punishment

def test_block_ends_string_switches_roles_and_gives_punishment():
    s = act(hit(new()), "card", result="blocked")
    assert s.offensive == 1 and s.slots == () and s.fighters[1].punishment == 1


def test_punishment_card_cannot_be_blocked_and_consumes_the_token():
    s = act(new(), "card", result="blocked")                  # Kazuya gets a token
    with pytest.raises(IllegalActionError, match="cannot be blocked"):
        act(s, "card", result="blocked")
    s = act(s, "card", result="hit")
    assert s.slots == ("punishment",) and s.fighters[1].punishment == 0
    assert s.resolving
    # Next card is an ordinary one and can be blocked again.
    s = act(s, "card", result="blocked")
    assert s.offensive == 0 and s.fighters[0].punishment == 1


def test_several_punishment_tokens_are_held_and_played_one_per_card():
    # Jin's 3rd card breaks the floor (+1 token), his String ends with no slot left;
    # then Jin, as Defender, blocks Kazuya (+1 token): he holds two.
    order = ["cracked", "cracked", "cracked", "empty", "empty", "empty"]
    s = hit(hit(new(order)))
    s = act(hit(s), "strike", symbols=[1, 1, 1], cracked_floor=True)
    s = act(s, "end_string")
    s = act(s, "card", result="blocked")
    assert s.offensive == 0 and s.fighters[0].punishment == 2
    s = act(s, "card", result="hit")
    with pytest.raises(IllegalActionError, match="cannot be blocked"):
        act(s, "card", result="blocked")
    s = act(s, "card", result="hit")
    assert s.slots == ("punishment", "punishment") and s.fighters[0].punishment == 0
    s = act(s, "card", result="blocked")                      # an ordinary card again
    assert s.offensive == 1


# --------------------------------------------------------------------- Stun

def test_stun_cards_remove_slots_from_the_victims_next_string():
    s = act(act(hit(new()), "stun"), "stun")
    s = act(hit(hit(s)), "end_string")
    assert s.offensive == 1 and s.slots == ("stun", "stun") and s.free_slots == 1
    s = act(hit(s), "end_string")
    assert s.slots == () and s.fighters[1].stun == 0


def test_three_stun_cards_leave_no_slot_unless_heat():
    s = hit(new())
    for _ in range(3):
        s = act(s, "stun")
    s = act(hit(hit(s)), "end_string")
    assert s.free_slots == 0
    s2 = act(s, "heat")
    assert s2.free_slots == 1
    s = act(s, "end_string")
    assert s.offensive == 0


# --------------------------------------------------------------------- knock-down

def test_knocked_down_plus_one_per_strike_symbol_not_per_damage():
    s = act(hit(new()), "sweep")
    s = act(s, "strike", symbols=[2, 1])
    assert s.fighters[1].hp == 20 - (3 + 2)


def test_sweep_twice_is_refused():
    s = act(hit(new()), "sweep")
    with pytest.raises(IllegalActionError, match="already knocked down"):
        act(s, "sweep")


def test_knocked_down_characters_stand_when_roles_switch():
    s = act(hit(new()), "sweep")
    s = act(s, "card", result="blocked")
    assert not s.fighters[1].knocked_down and s.offensive == 1


# --------------------------------------------------------------------- walls

@pytest.mark.parametrize("kind, damage", [("regular", 1), ("blasting", 2)])
def test_walls_deal_1_or_2_damage_without_knock_down_bonus(kind, damage):
    s = act(act(hit(new()), "sweep"), "wall", kind=kind)
    assert s.fighters[1].hp == 20 - damage


def test_resolution_needs_a_connected_card():
    s = new()
    for type_, data in (("strike", {"symbols": [1]}), ("wall", {"kind": "regular"}),
                        ("sweep", {}), ("stun", {})):
        with pytest.raises(IllegalActionError, match="only after a card"):
            act(s, type_, **data)
    s = act(act(new(), "heat"), "card", result="blocked")     # String goes on, but blocked
    with pytest.raises(IllegalActionError, match="only after a card"):
        act(s, "strike", symbols=[2])


def test_string_goes_on_while_a_slot_is_free():
    with pytest.raises(IllegalActionError, match="goes on while an Attack Slot is free"):
        act(hit(new()), "end_string")


# --------------------------------------------------------------------- rounds and game

def test_round_ends_at_once_when_a_character_reaches_0():
    s = hit(new(max_hp=(20, 10)), 9, 2)
    assert s.phase == "round_over" and s.last_round_winners == (0,)
    assert s.fighters[0].rounds_won == 1
    with pytest.raises(IllegalActionError, match="round 1 is over"):
        act(s, "card", result="hit")


def test_double_ko_both_win_the_round():
    s = act(new(max_hp=(8, 8)), "adjust_hp", deltas=[-8, -9], reason="Event card")
    assert s.phase == "round_over" and s.last_round_winners == (0, 1)
    assert [f.rounds_won for f in s.fighters] == [1, 1]


def test_next_round_resets_everything_but_rounds_won_and_the_stage():
    s = act(new(), "rage_chosen", player=0, card=0)
    s = act(act(s, "heat"), "card", result="hit")
    s = act(act(s, "sweep"), "stun")
    s = act(s, "strike", symbols=[1, 1], cracked_floor=True)  # reveals empty, cracked
    s = act(s, "strike", symbols=[9, 9])                      # KO
    assert s.phase == "round_over"
    floor_before = s.floor
    s = act(s, "next_round", offensive=1)
    a, b = s.fighters
    assert (a.hp, b.hp) == (20, 20)
    assert a.heat == "charged" and a.rage == "unchosen" and a.rage_card is None
    assert b.stun == 0 and not b.knocked_down and a.punishment == 0
    assert (a.rounds_won, b.rounds_won) == (1, 0)
    assert s.round == 2 and s.offensive == 1 and s.slots == () and s.phase == "fight"
    # DECISION: stage side and breakage tokens carry over between Rounds.
    assert s.floor == floor_before


def test_next_round_default_opener_is_the_loser():
    s = hit(new(max_hp=(20, 8)), 9)
    full = RULES.decide(s, "tekken.next_round", {}, random.Random(0))
    assert full["offensive"] == 1
    s2 = act(new(max_hp=(8, 8)), "adjust_hp", deltas=[-8, -8])
    # After a double KO, the player who was Defender opens.
    assert RULES.decide(s2, "tekken.next_round", {}, random.Random(0))["offensive"] == 1


def test_next_round_only_after_a_round_ends():
    with pytest.raises(IllegalActionError, match="still being fought"):
        act(new(), "next_round", offensive=0)


def _win_round(s, winner: int):
    """Bring the other fighter to 0 with a manual adjustment, then start the next round."""
    loser = 1 - winner
    s = act(s, "adjust_hp", player=loser, delta=-s.fighters[loser].hp)
    return s


def test_game_won_at_rounds_to_win():
    s = new(rounds_to_win=2)
    s = _win_round(s, 0)
    s = act(s, "next_round")
    s = _win_round(s, 0)
    assert s.phase == "game_over" and s.winner == 0
    assert RULES.is_over(s) and RULES.summary(s) == "Jin 2 – 0 Kazuya, Jin wins"
    with pytest.raises(IllegalActionError, match="game is over"):
        act(s, "next_round", offensive=0)
    with pytest.raises(IllegalActionError, match="game is over"):
        act(s, "card", result="hit")


def test_default_match_is_first_to_three_rounds():
    s = new()
    for _ in range(2):
        s = act(_win_round(s, 1), "next_round")
    s = _win_round(s, 1)
    assert s.phase == "game_over" and s.winner == 1 and s.fighters[1].rounds_won == 3


def test_both_reaching_the_target_on_the_same_round_is_a_draw():
    s = new(max_hp=(8, 8), rounds_to_win=2)
    s = act(_win_round(s, 0), "next_round")
    s = act(_win_round(s, 1), "next_round")
    s = act(s, "adjust_hp", deltas=[-8, -8])
    assert s.phase == "game_over" and s.winner is None and s.is_draw
    assert to_json(s)["result"] == "draw"


def test_adjust_hp_cannot_exceed_max():
    s = hit(new(), 2)
    s = act(s, "adjust_hp", player=1, delta=2)
    assert s.fighters[1].hp == 20
    with pytest.raises(IllegalActionError, match="above max HP"):
        act(s, "adjust_hp", player=1, delta=1)


# --------------------------------------------------------------------- Floor Break

def test_reveal_counts_strike_symbols_not_damage_nor_knock_down_bonus():
    s = act(hit(new(ORDER)), "sweep")
    s = act(s, "strike", symbols=[3], cracked_floor=True)     # 3+1 damage, 1 symbol
    assert s.floor.revealed == 1
    s = act(s, "strike", symbols=[1, 1], cracked_floor=True)
    assert s.floor.revealed == 3


def test_no_reveal_when_the_defender_is_not_on_cracked_floor():
    s = hit(new(ORDER), 2)
    assert s.floor.revealed == 0


def test_third_cracked_token_flips_stage_gives_punishment_and_reshuffles():
    s = hit(new(ORDER), 1, 1, 1, 1, cracked_floor=True)       # E C E C revealed
    assert s.floor.revealed == 4 and s.floor.cracked_shown == 2 and s.floor.side == 0
    s_before = s
    s = act(s, "strike", symbols=[1, 1], cracked_floor=True, seed=7)  # E then C (3rd)
    assert s.floor.side == 1 and s.floor.breaks == 1
    assert s.floor.revealed == 0 and s.floor.cracked_total == 3 and len(s.floor.order) == 6
    assert s.fighters[0].punishment == 1                     # the Offensive player
    # The reshuffle is the one recorded in the event: replay never re-rolls.
    full = RULES.decide(s_before, "tekken.strike",
                        {"symbols": [1, 1], "cracked_floor": True}, random.Random(7))
    recorded = tuple(t == "cracked" for t in full["reshuffle"]["order"])
    assert s.floor.order == recorded
    assert RULES.apply(s_before, "tekken.strike", full) == s


def test_leftover_reveals_are_dropped_when_the_floor_breaks():
    order = ["cracked", "cracked", "cracked", "empty", "empty", "empty"]
    s = act(hit(new(order)), "strike", symbols=[1, 1, 1, 1, 1], cracked_floor=True)
    assert s.floor.breaks == 1 and s.floor.revealed == 0


def test_floor_break_punishment_is_used_on_the_next_card_of_the_string():
    order = ["cracked", "cracked", "cracked", "empty", "empty", "empty"]
    s = act(hit(new(order)), "strike", symbols=[1, 1, 1], cracked_floor=True)
    s = act(s, "card", result="hit")
    assert s.slots == ("hit", "punishment")


def test_floor_breaks_again_and_flips_back_to_upperside():
    order = ["cracked", "cracked", "cracked", "empty", "empty", "empty"]
    s = act(hit(new(order)), "strike", symbols=[1, 1, 1], cracked_floor=True)
    assert s.floor.side == 1
    s = act(s, "card", result="hit")                          # Punishment card
    s = act(s, "strike", symbols=[1] * 6, cracked_floor=True)
    assert s.floor.side == 0 and s.floor.breaks == 2 and s.fighters[0].punishment == 1


def test_more_reveals_than_remain_reveal_what_remains():
    # The last cracked token is the last one: 5 revealed, then 3 asked: 1 is left.
    order = ["empty", "empty", "empty", "cracked", "cracked", "cracked"]
    s = hit(new(order), 1, 1, 1, 1, 1, cracked_floor=True)
    assert s.floor.revealed == 5 and s.floor.cracked_shown == 2
    s = act(s, "strike", symbols=[1, 1, 1], cracked_floor=True)
    assert s.floor.breaks == 1 and s.floor.revealed == 0


def test_decide_draws_a_reshuffle_only_when_the_floor_breaks():
    s = hit(new(ORDER))
    full = RULES.decide(s, "tekken.strike", {"symbols": [1], "cracked_floor": True},
                        random.Random(1))
    assert "reshuffle" not in full
    assert not would_break(s.floor, 1) and would_break(s.floor, 6)


def test_a_break_without_a_recorded_reshuffle_is_refused():
    s = hit(new(["cracked"] * 3 + ["empty"] * 3))
    with pytest.raises(IllegalActionError, match="no reshuffle"):
        RULES.apply(s, "tekken.strike", {"symbols": [1, 1, 1], "cracked_floor": True})


def test_cracked_floor_on_a_stage_without_floor_break_is_refused():
    with pytest.raises(IllegalActionError, match="no Cracked Floor"):
        act(hit(new(floor=False)), "strike", symbols=[1], cracked_floor=True)


def test_face_down_order_is_hidden_from_the_export():
    s = hit(new(ORDER), 1, cracked_floor=True)
    floor = to_json(s)["floor"]
    assert floor == {"side": "Upperside", "breaks": 0, "revealed": ["empty"],
                     "face_down": 5, "cracked_total": 3}
    assert to_json(s, reveal_hidden=True)["floor"]["order"] == ORDER


def test_the_shuffle_is_uniform_and_reproducible_from_its_recorded_seed():
    counts = Counter()
    rng = random.Random(2024)
    setup = {"fighters": [{"name": "A", "max_hp": 20}, {"name": "B", "max_hp": 20}],
             "stage": {"name": "S", "floor_break": {"cracked": 3, "empty": 3,
                                                    "sides": ["U", "D"]}}}
    n = 6000
    for _ in range(n):
        shuffle = RULES.start(setup, rng)["stage"]["shuffle"]
        tokens = [True] * 3 + [False] * 3
        random.Random(shuffle["seed"]).shuffle(tokens)
        assert ["cracked" if t else "empty" for t in tokens] == shuffle["order"]
        counts[tuple(shuffle["order"])] += 1
    # 20 distinct orders, each expected n/20 = 300 times: chi-square with 19 d.o.f.
    assert len(counts) == 20
    chi2 = sum((c - n / 20) ** 2 / (n / 20) for c in counts.values())
    assert chi2 < 43.8  # p = 0.001


# --------------------------------------------------------------------- bad data

@pytest.mark.parametrize("type_, data, message", [
    ("tekken.card", {"result": "maybe"}, "'hit' or 'blocked'"),
    ("tekken.strike", {"symbols": []}, "Strike values"),
    ("tekken.strike", {"symbols": [0]}, "Strike values"),
    ("tekken.wall", {"kind": "glass"}, "'regular' or 'blasting'"),
    ("tekken.rage_chosen", {"player": 2, "card": 0}, "'player' must be 0 or 1"),
    ("tekken.rage_chosen", {"player": 0, "card": 5}, "Rage card must be 0 or 1"),
    ("tekken.adjust_hp", {"player": 0, "delta": 0}, "non-zero"),
    ("tekken.bogus", {}, "unknown TEKKEN action"),
])
def test_malformed_actions_are_refused_with_a_clear_message(type_, data, message):
    s = hit(new())
    with pytest.raises(IllegalActionError, match=message):
        RULES.apply(s, type_, data)


@pytest.mark.parametrize("setup, message", [
    ({"fighters": []}, "exactly two fighters"),
    ({"fighters": [{"name": "A", "max_hp": 20}, {"name": "B", "max_hp": 3}],
      "stage": {"name": "S"}}, "max HP must be 7-99"),
    ({"fighters": [{"name": "A", "max_hp": 20}, {"name": "B", "max_hp": 20}],
      "stage": {"name": "S"}, "rounds_to_win": 0}, "rounds to win"),
])
def test_bad_setups_are_refused(setup, message):
    with pytest.raises(IllegalActionError, match=message):
        RULES.start(setup, random.Random(0))


def test_players_names_are_optional_text_kept_with_their_fighters():
    from .tekken_support import start_data

    data = start_data()
    data["fighters"][0]["player"] = "  Ada   Lovelace "
    started = RULES.start(data, random.Random(0))
    assert started["fighters"][0]["player"] == "Ada Lovelace"
    assert "player" not in started["fighters"][1]          # none typed: nothing written
    state = RULES.initial(started)
    assert [f.player for f in state.fighters] == ["Ada Lovelace", ""]
    data["fighters"][1]["player"] = 7
    with pytest.raises(IllegalActionError, match="Kazuya: the player's name must be text"):
        RULES.start(data, random.Random(0))
