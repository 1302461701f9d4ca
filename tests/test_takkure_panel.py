"""The Takkure roll panel (pure): who rolls what, dice in from the keypad or the tower,
modifiers, the explanation and the follow-ups it offers."""

from __future__ import annotations

import random

import pytest

from companion.errors import IllegalActionError
from companion.games import takkure as tk
from companion.games.takkure import RULES
from companion.games.takkure_panel import RollPanel
from companion.session import Session
from tests.takkure_support import demo_setup

# team 0 Yamato: 0 Kaze (Wing, Side step, REF 8), 1 Hana, 2 Tetsu (Expert Tackler), 3 Yokozuna
# team 1 Teriomorphs: 0 Kitsune (Side step, REF 6), 1 Lince, 2 Lobo (Expert Tackler, STR 8), 3 Oso


def match(kicking: int = 1) -> tk.TakkureState:
    s = RULES.initial(RULES.start(demo_setup(), random.Random(1)))
    return RULES.apply(s, "takkure.kickoff", {"kicking": kicking})  # the other team attacks


def panel(state, kind: str, attacker: int | None = None, defender: int | None = None) -> RollPanel:
    p = RollPanel()
    p.choose(kind)
    a = p.attacking_team(state)
    if attacker is not None:
        p.pick(state, a, attacker)
    if defender is not None:
        p.pick(state, 1 - a, defender)
    return p


def test_tackle_vs_dodge_explained_with_pressure_and_its_follow_ups():
    s = match()                                      # Yamato (team 0) attack
    p = panel(s, "tackle_dodge", attacker=3, defender=1)   # Yokozuna dodges, Lince tackles
    p.set_pressure(1)
    assert p.missing(s) == [] and not p.ready(s)
    p.receive(s, [6, 5])                             # typed: Yokozuna's die, then Lince's
    text = p.explain(s)
    assert text == ("Yokozuna: REF 6 -1 pressure = 5; rolled 6: fail; "
                    "Lince: STR 7; rolled 5: success; Lince wins -> "
                    "tackle succeeds: both GROUNDED, Yokozuna rolls ENDURANCE")
    labels = [f.label for f in p.follow_ups(s)]
    assert labels == ["Lince GROUNDED", "Yokozuna GROUNDED", "ENDURANCE: Yokozuna",
                      "Superstars +1 token"]
    type_, data = p.record(s)
    assert type_ == "takkure.roll" and data["text"] == text and data["source"] == "typed"
    assert [r["dice"] for r in data["rolls"]] == [[6], [5]]
    assert RULES.apply(s, type_, data) == s          # a recorded roll changes no token


def test_a_critical_tackle_wounds_without_endurance():
    s = match()
    p = panel(s, "tackle_dodge", attacker=3, defender=1)
    p.receive(s, [3, 1])
    assert "tackle succeeds (critical): both GROUNDED, Yokozuna takes a WOUND" in p.explain(s)
    assert "Yokozuna +1 WOUND" in [f.label for f in p.follow_ups(s)]


def test_a_successful_dodge_and_a_failed_tackle_offer_the_ref_roll():
    s = match()
    p = panel(s, "tackle_dodge", attacker=2, defender=1)   # Tetsu REF 7 dodges Lince
    p.receive(s, [4, 9])
    assert p.explain(s).endswith('Tetsu wins -> tackle fails: Lince rolls REF (a fail: GROUNDED, '
                                 'ENDURANCE); Tetsu dodges: move 2"')
    ref = p.follow_ups(s)[0]
    assert ref.next_kind == "tackle_ref" and ref.picks == ((1, 1),)


def test_both_succeed_highest_wins_the_other_is_cancelled():
    s = match()
    p = panel(s, "tackle_dodge", attacker=2, defender=1)
    p.receive(s, [3, 6])                              # both succeed: 6 is the higher success
    assert "Tetsu: REF 7; rolled 3: success -> cancelled" in p.explain(s)
    assert "tackle succeeds" in p.explain(s)


def test_skill_by_position_rolls_two_dice_until_fatigue_switches_it_off():
    s = match(kicking=0)                             # Teriomorphs attack; Yamato defend
    p = panel(s, "tackle_dodge", attacker=0, defender=2)   # Kitsune (Side step) vs Tetsu (Expert Tackler)
    assert [r.n_dice for r in p.rollers(s)] == [2, 2]
    p.receive(s, [12, 5, 9, 2])
    assert "Kitsune: REF 6; rolled 5, 12, kept 5: success" in p.explain(s)
    tired = RULES.apply(s, "takkure.fatigue", {"team": 1, "player": 0, "op": "gain"})
    assert [r.n_dice for r in p.rollers(tired)] == [1, 2]   # 1 active token: skill lost


def test_three_active_fatigue_tokens_show_as_a_modifier():
    s = match()
    for _ in range(3):
        s = RULES.apply(s, "takkure.fatigue", {"team": 0, "player": 3, "op": "gain"})
    p = panel(s, "tackle_break", attacker=3, defender=3)
    p.receive(s, [8, 8])
    assert p.explain(s).startswith("Yokozuna: STR 8 -1 fatigue (3 active) = 7; rolled 8: fail")


def test_the_rulebook_modifier_example_through_the_panel():
    """BaC 7, a 3" pass (+2) under pressure from one defender (-1): 8 (rulebook 1387-1395)."""
    s = match()
    p = panel(s, "pass", attacker=3)
    assert p.missing(s) == ["type the pass distance in inches"]
    p.set_distance(3.0)
    p.set_pressure(1)
    p.receive(s, [8])
    assert p.explain(s) == ('Yokozuna: BaC 7 +2 pass 3" -1 pressure = 8; rolled 8: success '
                            '-> the ball reaches the receiver')
    _, data = p.record(s)
    assert data["distance_in"] == 3.0 and data["distance_source"] == "typed"


def test_a_pass_on_a_boundary_takes_the_better_modifier_and_a_miss_asks_for_reception():
    s = match()
    p = panel(s, "pass", attacker=2)
    p.set_distance(4.0, source="camera")
    p.receive(s, [10])
    assert 'BaC 7 +2 pass 4" = 9; rolled 10: fail -> missed: the receiver rolls BALL RECEPTION' in p.explain(s)
    assert [f.next_kind for f in p.follow_ups(s)] == ["reception"]
    assert p.record(s)[1]["distance_source"] == "camera"


def test_reception_from_the_ground_and_bad_distances():
    s = match()
    p = panel(s, "reception", attacker=2)
    with pytest.raises(IllegalActionError, match="a distance is a number of inches"):
        p.set_distance(-1)
    p.set_distance(9)
    p.receive(s, [3])
    assert p.explain(s) == 'Tetsu: BaC 7 -4 reception 9" = 3; rolled 3: success -> Tetsu catches the ball'
    p = panel(s, "pass", attacker=2)
    p.from_ground = True
    p.set_distance(9)
    with pytest.raises(IllegalActionError, match='beyond 8"'):
        p.rollers(s)


def test_the_tower_gives_red_dice_to_the_first_team_and_yellow_to_the_second():
    s = match()                                      # team 0 (red) attacks
    p = panel(s, "tackle_dodge", attacker=3, defender=1)
    throw = [{"kind": "d12", "colour": "yellow", "face": "2", "status": "clean"},
             {"kind": "d12", "colour": "red", "face": "9", "status": "clean"},
             {"kind": "d6", "colour": "white", "face": "4", "status": "clean"}]
    assert p.receive_tower(s, throw) == [0, 1]
    assert [faces for _, faces in p.slots(s)] == [[9], [2]]
    assert p.record(s)[1]["source"] == "tower"


def test_a_tower_throw_with_the_wrong_count_or_an_unread_die_is_refused():
    s = match()
    p = panel(s, "tackle_dodge", attacker=3, defender=1)
    two_red = [{"kind": "d12", "colour": "red", "face": str(f), "status": "clean"} for f in (3, 4)]
    with pytest.raises(IllegalActionError, match="Yamato: 1 red D12 in this roll; the tower read 2"):
        p.receive_tower(s, two_red)
    cocked = [{"kind": "d12", "colour": "yellow", "face": None, "status": "cocked"}]
    with pytest.raises(IllegalActionError, match="yellow die is cocked"):
        p.receive_tower(s, cocked)
    with pytest.raises(IllegalActionError, match="no red or yellow D12"):
        p.receive_tower(s, [])
    assert all(f == [None] for _, f in p.slots(s))   # nothing half-taken


def test_typed_dice_fill_in_order_and_a_full_roll_refuses_more():
    s = match()
    p = panel(s, "tackle_dodge", attacker=3, defender=1)
    p.receive(s, [4])
    assert [f for _, f in p.slots(s)] == [[4], [None]]
    p.receive(s, [7])
    with pytest.raises(IllegalActionError, match="already in"):
        p.receive(s, [1])
    with pytest.raises(IllegalActionError, match="a D12 shows 1 to 12"):
        p.receive(s, [13])
    p.clear_die(0, 3)
    assert [f for _, f in p.slots(s)] == [[None], [7]]


def test_endurance_is_the_engines_own_event():
    s = match()
    p = panel(s, "endurance_attacker", attacker=3)   # Yokozuna: BDY 5 + PRT 0
    p.receive(s, [6])
    assert p.explain(s) == "Yokozuna: BDY+PRT 5; rolled 6: fail; +1 WOUND"
    type_, data = p.record(s)
    assert (type_, data) == ("takkure.endurance", {"team": 0, "player": 3, "roll": 6})
    after = RULES.apply(s, type_, data)
    assert after.player(0, 3).wounds == 1 and after.player(0, 3).skill_tokens == 1  # Yamato


def test_a_scrum_tie_rolls_again_between_the_tied_players():
    s = match()
    p = panel(s, "scrum")
    p.pick(s, 0, 0)
    p.pick(s, 0, 1)
    p.pick(s, 1, 2)
    assert [r.part.action for r in p.rollers(s)] == ["PICK UP", "PICK UP", "STEAL"]
    p.receive(s, [7, 3, 7])                          # BaC 7 +4 = 11: 7 and 7 tie for best
    assert p.explain(s).endswith("tie for best: Kaze, Lobo roll again")
    again = p.follow_ups(s)[0]
    assert again.next_kind == "scrum" and again.picks == ((0, 0), (1, 2))


def test_the_rulebook_melee_example_3_and_7():
    """Four players, BaC 7: rolls 3 and 7 succeed, 7 is the highest and steals (1829-1835)."""
    s = match()
    p = RollPanel()
    p.choose("scrum")
    for team, player in ((0, 0), (0, 1), (1, 0), (1, 1)):
        p.pick(s, team, player)
    # the book's four players have BaC 7 and no ball-action modifier shown in the example
    from dataclasses import replace
    p.kind = replace(p.kind, parts=tuple(replace(part, fixed=()) for part in p.kind.parts))
    p.receive(s, [3, 9, 7, 11])
    assert p.explain(s).endswith("Kitsune wins -> Kitsune steals the ball")
    assert [f.label for f in p.follow_ups(s)] == ["Kitsune steals the ball"]


def test_follow_ups_are_legal_engine_events(tmp_path):
    session = Session.create(tmp_path / "m.jsonl", "takkure", demo_setup(), random.Random(2))
    session.do("takkure.kickoff", kicking=1)
    session.do("takkure.ball", team=0, player=3)
    p = panel(session.state, "try", attacker=3)
    p.receive(session.state, [2])
    session.do(*p.record(session.state)[:1], **p.record(session.state)[1])
    (try_,) = p.follow_ups(session.state)
    assert try_.label == "TRY!"
    session.do(try_.event[0], **try_.event[1])
    assert session.state.teams[0].score == 1 and session.state.phase == "kickoff"
    assert [e.text.split(":")[0] for e in session.log()][-2:] == ["Yokozuna", "TRY by Yokozuna! 1–0"]


def test_picking_replaces_a_single_player_and_toggles_in_a_melee():
    s = match()
    p = panel(s, "tackle_dodge", attacker=3)
    p.pick(s, 0, 2)
    assert p.picks["attacker"] == [2]
    p.pick(s, 0, 2)
    assert p.picks["attacker"] == []
    p.choose("try_melee")
    p.pick(s, 1, 0)
    p.pick(s, 1, 2)
    assert p.picks["defender"] == [0, 2]
    with pytest.raises(IllegalActionError, match="unknown roll"):
        p.choose("fly")


def test_a_try_stopped_by_a_tackle_is_no_failed_try_but_a_missed_try_is():
    s = match()
    p = panel(s, "tackle_try", attacker=3, defender=1)
    p.receive(s, [12, 4])                            # the try fumbles, the tackle succeeds
    labels = [f.label for f in p.follow_ups(s)]
    assert "Failed try: kick-off" not in labels and "Lince GROUNDED" in labels
    p = panel(s, "try", attacker=3)
    p.receive(s, [12])
    assert [f.label for f in p.follow_ups(s)] == ["Failed try: kick-off"]
    assert p.explain(s).endswith("rolled 12: fumble -> no try")
