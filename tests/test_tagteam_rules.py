"""Tag Team: simultaneous turns, the rulebook's worked examples, KO and draws.

Fighter tracks below are test data (the rulebook's boards lost their numbers in the text);
each worked example uses a track that makes the book's numbers come out as printed."""

from __future__ import annotations

import random

import pytest

from companion.errors import IllegalActionError
from companion.games import tagteam as tt
from companion.games.tagteam import RULES


def fighter(name, hp, power, max_hp=20, icons=()):
    return {"name": name, "max_hp": max_hp, "hp": hp, "power": power, "icons": [list(i) for i in icons]}


def game(a, b, c, d):
    setup = {"teams": [{"player": "Zara", "fighters": [a, b]},
                       {"player": "Amy", "fighters": [c, d]}]}
    return RULES.initial(RULES.start(setup, random.Random(1)))


def turn(state, left, right):
    return RULES.apply(state, "tagteam.turn", {"sides": [left, right]})


def side(active, *effects):
    return {"active": active, "effects": list(effects)}


ATTACK = {"kind": "attack"}
NOTHING = side(0)


def test_golem_attacks_with_its_power_at_the_start_of_the_turn():
    """Golem, power 3, is attacked for 2 and crosses a POWER GAIN cell: its attack still deals 3."""
    s = game(fighter("Golem", 16, 3, max_hp=16, icons=[(15, "power_gain")]), fighter("Wong", 10, 2),
             fighter("Mordred", 12, 2), fighter("Ching", 10, 2))
    s = turn(s, side(0, ATTACK), side(0, ATTACK))
    assert s.teams[1][0].hp == 9                     # 12 - 3, not 4
    assert s.teams[0][0].hp == 14 and s.teams[0][0].power == 4


def test_golem_icon_triggers_crossing_down_and_reaching_up_not_leaving():
    s = game(fighter("Golem", 16, 3, max_hp=16, icons=[(15, "power_gain")]), fighter("Wong", 10, 2),
             fighter("Mordred", 12, 2), fighter("Ching", 10, 2))
    s = turn(s, NOTHING, side(0, ATTACK))            # 16 -> 14 crosses 15
    assert (s.teams[0][0].hp, s.teams[0][0].power) == (14, 4)
    s = turn(s, side(1, {"kind": "heal", "target": "partner", "amount": 1}), NOTHING)
    assert (s.teams[0][0].hp, s.teams[0][0].power) == (15, 5)   # healed back onto it: again
    s = RULES.apply(s, "tagteam.next_round", {})
    s = turn(s, NOTHING, side(0, {"kind": "direct", "target": "opponent", "amount": 1}))
    assert (s.teams[0][0].hp, s.teams[0][0].power) == (14, 5)   # leaving it: nothing


def test_wild_bunch_stops_on_a_stop_cell_both_ways():
    s = game(fighter("Wild Bunch", 7, 1, max_hp=14, icons=[(7, "stop"), (6, "stop")]),
             fighter("Wong", 10, 2), fighter("Bodvar", 12, 3), fighter("Ching", 10, 2))
    s = turn(s, NOTHING, side(0, ATTACK))            # attacked for 3: loses only 1
    assert s.teams[0][0].hp == 6
    assert "Wild Bunch 7 -> 6 HP (3 lost) — stopped by a STOP cell" in s.last
    s = turn(s, side(0, {"kind": "heal", "amount": 2}), NOTHING)
    assert s.teams[0][0].hp == 7                     # heals 2, gains 1: the STOP above


def test_jeanne_attacks_2_while_ching_shih_heals_3_ching_moves_up_1():
    s = game(fighter("Jeanne", 15, 2), fighter("Wong", 10, 2),
             fighter("Ching Shih", 8, 2), fighter("Bodvar", 12, 3))
    s = turn(s, side(0, ATTACK), side(0, {"kind": "heal", "amount": 3}))
    assert s.teams[1][0].hp == 9


def test_direct_damage_adds_to_the_attack_and_is_not_blocked():
    """Golem takes 3 direct damage (its own card) while Bodvar attacks with 3: Golem loses 6."""
    s = game(fighter("Golem", 16, 3, max_hp=16), fighter("Wong", 10, 2),
             fighter("Bodvar", 12, 3), fighter("Ching", 10, 2))
    own = side(0, {"kind": "direct", "target": "self", "amount": 3})
    s2 = turn(s, own, side(0, ATTACK))
    assert s2.teams[0][0].hp == 10
    blocked = turn(s, side(0, {"kind": "direct", "target": "self", "amount": 3}, {"kind": "block"}),
                   side(0, ATTACK))
    assert blocked.teams[0][0].hp == 13              # the block stops the attack, not the 3


def test_block_cancels_all_attacks_and_its_bonus_comes_once():
    s = game(fighter("Jeanne", 15, 2), fighter("Ching", 10, 2),
             fighter("Bodvar", 12, 3), fighter("Wong", 10, 2))
    bonus = {"kind": "block", "bonus": [{"kind": "power", "delta": 1}]}
    both = side(0, ATTACK, {"kind": "attack", "by": "partner", "target": "opponent"})
    s2 = turn(s, side(0, bonus), both)
    assert s2.teams[0][0].hp == 15 and s2.teams[0][0].power == 3       # bonus once
    s3 = turn(s, side(0, bonus), NOTHING)
    assert s3.teams[0][0].power == 2 and "Jeanne blocks, but nothing to block" in s3.last
    zero = game(fighter("Jeanne", 15, 2), fighter("Ching", 10, 2),
                fighter("Bodvar", 12, 0), fighter("Wong", 10, 2))
    s4 = turn(zero, side(0, bonus), side(0, ATTACK))  # a power-0 attack is still an attack
    assert s4.teams[0][0].power == 3


def test_two_attacks_on_one_fighter_add_up_and_an_attack_bonus_needs_success():
    s = game(fighter("Jeanne", 10, 2, max_hp=15), fighter("Ching", 10, 2),
             fighter("Bodvar", 12, 3), fighter("Wong", 10, 2))
    jeanne = side(0, {"kind": "attack", "bonus": [{"kind": "heal", "amount": "power"}]})
    s2 = turn(s, jeanne, side(0, ATTACK, {"kind": "attack", "by": "partner"}))
    assert s2.teams[0][0].hp == 7                    # 3 + 2 lost, 2 healed (her start power)
    s3 = turn(s, jeanne, side(0, {"kind": "block"}))
    assert s3.teams[0][0].hp == 10                   # blocked: no heal


def test_transfer_is_capped_by_what_the_giver_has_and_power_never_below_zero():
    s = game(fighter("Jeanne", 15, 1), fighter("Ching", 10, 2),
             fighter("Bodvar", 12, 3), fighter("Wong", 10, 2))
    s = turn(s, side(0, {"kind": "transfer", "from": "self", "to": "partner", "amount": 2}),
             side(0, {"kind": "power", "target": "opponent_partner", "delta": -5}))
    # DECISION: the turn's gains and losses first (Ching 2 - 5 stops at 0), then transfers
    assert (s.teams[0][0].power, s.teams[0][1].power) == (0, 1)
    assert "Jeanne gives 1 power to Ching (had only 1)" in s.last


def test_ko_loses_double_ko_draws_and_a_ko_fighter_heals_no_more():
    s = game(fighter("Jeanne", 2, 1), fighter("Ching", 10, 2),
             fighter("Bodvar", 3, 3), fighter("Wong", 10, 2))
    win = turn(s, NOTHING, side(0, ATTACK))
    assert win.phase == "over" and win.result == "1" and "KO: Amy wins" in win.last
    draw = turn(s, side(0, {"kind": "direct", "amount": 5}), side(0, ATTACK))
    assert draw.result == "draw" and "Double KO: a draw" in draw.last
    with pytest.raises(IllegalActionError, match="the fight is over"):
        turn(win, NOTHING, NOTHING)
    ko = tt.evolve(s, teams=((tt.evolve(s.teams[0][0], hp=0), s.teams[0][1]), s.teams[1]))
    with pytest.raises(IllegalActionError, match="KO: no more healing"):
        RULES.apply(ko, "tagteam.adjust", {"team": 0, "fighter": 0, "what": "hp", "delta": 1})


def test_round_n_has_n_plus_1_turns_and_an_exhausted_deck_draws():
    s = game(fighter("Jeanne", 15, 1), fighter("Ching", 10, 2),
             fighter("Bodvar", 12, 3), fighter("Wong", 10, 2))
    for _ in range(2):
        s = turn(s, NOTHING, NOTHING)
    assert s.phase == "building" and s.round == 1
    with pytest.raises(IllegalActionError, match="deck building first"):
        turn(s, NOTHING, NOTHING)
    s = RULES.apply(s, "tagteam.next_round", {})
    for _ in range(3):
        assert s.phase == "combat"
        s = turn(s, NOTHING, NOTHING)
    assert (s.phase, s.round) == ("building", 2)
    assert s.combat == (3, 3) and s.construction == (17, 17)


def test_the_construction_deck_of_18_cards_runs_out_at_round_17_a_draw():
    """8 DECK DE CONSTRUCTION: "un paquet de 18 cartes"; PHASE DE CONSTRUCTION DE DECK:
    "Prenez les trois premières cartes", add one to the Combat deck, "Défaussez les deux cartes
    non choisies en-dessous de votre Deck de Construction"; "Si vous ne pouvez pas prendre 3
    cartes de votre Deck de Construction, la partie est terminée" — "C'est un match nul"."""
    s = game(fighter("Jeanne", 15, 1), fighter("Ching", 10, 2),
             fighter("Bodvar", 12, 3), fighter("Wong", 10, 2))
    assert (s.construction, s.combat, s.combat_left) == ((18, 18), (2, 2), 2)
    s = turn(s, NOTHING, NOTHING)
    assert s.combat_left == 1
    s = turn(s, NOTHING, NOTHING)
    assert s.phase == "building" and s.combat_left == 0
    with pytest.raises(IllegalActionError, match=r"can still give 3 cards \(Zara 18 left, Amy 18 left\)"):
        RULES.apply(s, "tagteam.deck_exhausted", {})   # refused while cards remain
    for rnd in range(2, 18):
        s = RULES.apply(s, "tagteam.next_round", {})
        assert (s.round, s.construction, s.combat) == (rnd, (19 - rnd,) * 2, (rnd + 1,) * 2)
        for _ in range(rnd + 1):
            s = turn(s, NOTHING, NOTHING)
        if rnd < 17:
            assert s.phase == "building"
    # round 17's deck building: 2 cards left, 3 cannot be drawn: the game ends in a draw
    assert (s.round, s.phase, s.result, s.construction) == (17, "over", "draw", (2, 2))
    assert "cannot give 3 cards (Zara 2 left, Amy 2 left): a draw" in s.last[-1]
    with pytest.raises(IllegalActionError, match="the fight is over"):
        RULES.apply(s, "tagteam.next_round", {})


def test_an_edition_1_journal_keeps_its_deck_exhausted_draw():
    """Journals recorded before the deck counts (no ``rules`` in game.start) still open: their
    players' "deck exhausted" replays as recorded."""
    setup = {"teams": [{"player": "Zara", "fighters": [fighter("Jeanne", 15, 1), fighter("Ching", 10, 2)]},
                       {"player": "Amy", "fighters": [fighter("Bodvar", 12, 3), fighter("Wong", 10, 2)]}]}
    s = RULES.initial(setup)                      # the old game.start: no edition
    assert s.rules == 1
    s = turn(turn(s, NOTHING, NOTHING), NOTHING, NOTHING)
    assert RULES.apply(s, "tagteam.deck_exhausted", {}).result == "draw"


def test_the_marker_never_passes_the_top_or_the_ko_cell():
    s = game(fighter("Jeanne", 14, 1, max_hp=15), fighter("Ching", 10, 2),
             fighter("Bodvar", 12, 9), fighter("Wong", 10, 2))
    s = turn(s, side(0, {"kind": "heal", "amount": 5}), NOTHING)
    assert s.teams[0][0].hp == 15


def test_shipped_first_game_fighters_with_their_printed_initial_power():
    from companion.config import load_typed

    cfg = load_typed(tt.TagTeamConfig, "config/tagteam.yaml")
    assert [(f.name, f.initial_power) for f in cfg.fighters[:4]] == [
        ("Jeanne", 1), ("Ching Shih", 2), ("Wong Fei-Hung", 2), ("Bödvar", 3)]
    assert cfg.fighter("Bödvar").other_side == "Ours Berserk"
    assert all("max_hp" in f.defaults for f in cfg.fighters)   # not printed: marked
    data = tt.fighter_data(cfg.fighter("Jeanne"))
    assert (data["hp"], data["power"]) == (20, 1)


def test_bodvar_flips_to_ours_berserk_keeping_hp_and_power_and_flips_back():
    """Decision (the rulebook is silent): the marker keeps its HP value, capped at the other
    side's maximum; the power cubes stay; the other side's track and icons take over."""
    bodvar = fighter("Bödvar", 12, 3, max_hp=14, icons=[(10, "stop")])
    bodvar["other"] = {"name": "Ours Berserk", "max_hp": 10, "icons": [[5, "power_gain"]]}
    s = game(fighter("Jeanne", 15, 1), fighter("Ching", 10, 2), bodvar, fighter("Wong", 10, 2))
    s = RULES.apply(s, "tagteam.flip", {"team": 1, "fighter": 0})
    ours = s.teams[1][0]
    assert (ours.name, ours.max_hp, ours.hp, ours.power, ours.icons) == (
        "Ours Berserk", 10, 10, 3, ((5, "power_gain"),))
    line = RULES.describe(s, "tagteam.flip", {"team": 1, "fighter": 0},
                          RULES.apply(s, "tagteam.flip", {"team": 1, "fighter": 0}))
    assert line == "Ours Berserk's board flipped: Bödvar (10/14 HP, power 3)"
    back = RULES.apply(s, "tagteam.flip", {"team": 1, "fighter": 0}).teams[1][0]
    assert (back.name, back.max_hp, back.hp, back.icons) == ("Bödvar", 14, 10, ((10, "stop"),))
    with pytest.raises(IllegalActionError, match="Jeanne's board has no other side"):
        RULES.apply(s, "tagteam.flip", {"team": 0, "fighter": 0})


def test_config_round_trips_through_its_data_and_start_data_carries_the_other_side(tmp_path):
    from companion.config import dump_yaml, load_typed, loads_typed

    cfg = load_typed(tt.TagTeamConfig, "config/tagteam.yaml")
    edited = tt.TagTeamConfig(cfg.fighters + (tt.FighterConfig(
        "Golem", 16, 3, (tt.IconConfig(15, "power_gain"), tt.IconConfig(8, "stop"))),))
    again = loads_typed(tt.TagTeamConfig, dump_yaml(tt.config_data(edited)), "t.yaml")
    assert again == edited
    data = tt.fighter_data(cfg.fighter("Bödvar"), cfg)
    assert data["other"]["name"] == "Ours Berserk"
    assert "other" not in tt.fighter_data(cfg.fighter("Jeanne"), cfg)


def adjust(state, team, fighter_, delta, what="hp"):
    return RULES.apply(state, "tagteam.adjust",
                       {"team": team, "fighter": fighter_, "what": what, "delta": delta})


def test_a_fighter_taken_to_ko_by_hand_ends_the_fight_at_once():
    """FIN DE LA PARTIE: "Si l'un des Combattants est KO à la fin du Tour, ses Points de vie
    ayant été réduits à 0, la partie est terminée et ce joueur a perdu." DÉROULEMENT DE LA
    PARTIE: the phases alternate "jusqu'à ce que l'un des Combattants ait été mis hors de
    combat". A card's effect entered by hand that takes a Fighter to 0 ends the fight: no
    further turn can make it a draw."""
    s = game(fighter("Jeanne", 15, 1), fighter("Ching", 10, 2),
             fighter("Bodvar", 3, 3), fighter("Wong", 10, 2))
    s = turn(s, NOTHING, NOTHING)                          # turn 1 of round 1
    before = s
    s = adjust(s, 0, 0, -15)                               # Jeanne adjusted to 0
    assert (s.teams[0][0].hp, s.phase, s.result) == (0, "over", "1")
    assert s.last == ("Jeanne is KO: Amy wins",)
    assert RULES.is_over(s) and RULES.summary(s).endswith("Amy won")
    line = RULES.describe(before, "tagteam.adjust",
                          {"team": 0, "fighter": 0, "what": "hp", "delta": -15}, s)
    assert line == "Jeanne -15 hp (by hand); Jeanne is KO: Amy wins"
    # the extra turn that used to be allowed (where Bodvar's KO made it a draw) is refused
    with pytest.raises(IllegalActionError, match="the fight is over"):
        turn(s, side(0, {"kind": "direct", "amount": 5}), NOTHING)


def test_a_ko_by_hand_after_the_rounds_last_turn_ends_the_fight_not_the_round():
    """After a round's last turn (deck building), a Fighter adjusted to 0 loses: the next
    round does not start."""
    s = game(fighter("Jeanne", 15, 1), fighter("Ching", 10, 2),
             fighter("Bodvar", 12, 3), fighter("Wong", 4, 2))
    s = turn(turn(s, NOTHING, NOTHING), NOTHING, NOTHING)
    assert s.phase == "building"
    s = adjust(s, 1, 1, -9)                                # Wong: 4 -> 0 (no lower than KO)
    assert (s.teams[1][1].hp, s.phase, s.result) == (0, "over", "0")
    with pytest.raises(IllegalActionError, match="the fight is over"):
        RULES.apply(s, "tagteam.next_round", {})


def test_power_by_hand_and_hp_above_zero_keep_the_fight_going():
    s = game(fighter("Jeanne", 15, 1), fighter("Ching", 10, 2),
             fighter("Bodvar", 12, 3), fighter("Wong", 10, 2))
    s = adjust(adjust(s, 0, 0, -14), 0, 0, -1, what="power")
    assert (s.teams[0][0].hp, s.teams[0][0].power, s.phase, s.result) == (1, 0, "combat", None)


def test_an_edition_2_journal_replays_its_ko_by_hand_as_it_was_played():
    """Games recorded before edition 3 replay exactly as played: there a Fighter adjusted to 0
    did not end the fight, and the turn that followed judged the KOs."""
    setup = {"teams": [{"player": "Zara", "fighters": [fighter("Jeanne", 15, 1), fighter("Ching", 10, 2)]},
                       {"player": "Amy", "fighters": [fighter("Bodvar", 3, 3), fighter("Wong", 10, 2)]}],
             "rules": 2}
    s = adjust(RULES.initial(setup), 0, 0, -15)
    assert (s.teams[0][0].hp, s.phase, s.result) == (0, "combat", None)
    s = turn(s, side(0, {"kind": "direct", "amount": 5}), NOTHING)
    assert s.result == "draw"


def test_a_ko_by_hand_is_taken_back_by_undo(tmp_path):
    from companion.session import Session

    setup = {"teams": [{"player": "Zara", "fighters": [fighter("Jeanne", 15, 1), fighter("Ching", 10, 2)]},
                       {"player": "Amy", "fighters": [fighter("Bodvar", 12, 3), fighter("Wong", 10, 2)]}]}
    session = Session.create(tmp_path / "g.jsonl", "tagteam", setup, random.Random(1))
    session.do("tagteam.adjust", team=1, fighter=0, what="hp", delta=-12)
    assert (session.state.phase, session.state.result) == ("over", "0")
    session.undo()
    assert (session.state.phase, session.state.result, session.state.teams[1][0].hp) == (
        "combat", None, 12)
    session.close()
