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


def carry(state, index: int) -> tk.TakkureState:
    """The attacking team's player ``index`` has the ball (only the carrier dodges, breaks
    through, passes or scores, and only the carrier is tackled)."""
    if state.ball == (state.attacker, index):
        return state
    return RULES.apply(state, "takkure.ball", {"team": state.attacker, "player": index})


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
    s = carry(s, 3)
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
    s = carry(s, 3)
    p = panel(s, "tackle_dodge", attacker=3, defender=1)
    p.receive(s, [3, 1])
    assert "tackle succeeds (critical): both GROUNDED, Yokozuna takes a WOUND" in p.explain(s)
    assert "Yokozuna +1 WOUND" in [f.label for f in p.follow_ups(s)]


def test_a_successful_dodge_and_a_failed_tackle_offer_the_ref_roll():
    s = match()
    s = carry(s, 2)
    p = panel(s, "tackle_dodge", attacker=2, defender=1)   # Tetsu REF 7 dodges Lince
    p.receive(s, [4, 9])
    assert p.explain(s).endswith('Tetsu wins -> tackle fails: Lince rolls REF (a fail: GROUNDED, '
                                 'ENDURANCE); Tetsu dodges: move 2"')
    ref = p.follow_ups(s)[0]
    assert ref.next_kind == "tackle_ref" and ref.picks == ((1, 1),)


def test_both_succeed_highest_wins_the_other_is_cancelled():
    s = match()
    s = carry(s, 2)
    p = panel(s, "tackle_dodge", attacker=2, defender=1)
    p.receive(s, [3, 6])                              # both succeed: 6 is the higher success
    assert "Tetsu: REF 7; rolled 3: success -> cancelled" in p.explain(s)
    assert "tackle succeeds" in p.explain(s)


def test_skill_by_position_rolls_two_dice_until_fatigue_switches_it_off():
    s = match(kicking=0)                             # Teriomorphs attack; Yamato defend
    s = carry(s, 0)
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
    s = carry(s, 3)
    p = panel(s, "tackle_break", attacker=3, defender=3)
    p.receive(s, [8, 8])
    assert p.explain(s).startswith("Yokozuna: STR 8 -1 fatigue (3 active) = 7; rolled 8: fail")


def test_the_rulebook_modifier_example_through_the_panel():
    """BaC 7, a 3" pass (+2) under pressure from one defender (-1): 8 (rulebook 1387-1395)."""
    s = match()
    s = carry(s, 3)
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
    s = carry(s, 2)
    p = panel(s, "pass", attacker=2)
    p.set_distance(4.0, source="camera")
    p.receive(s, [10])
    assert ('BaC 7 +2 pass 4" = 9; rolled 10: fail -> missed: the receiver rolls BALL RECEPTION'
            in p.explain(s))
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
    s = carry(s, 2)
    s = RULES.apply(s, "takkure.grounded", {"team": 0, "player": 2, "value": True})
    p = panel(s, "pass", attacker=2)                  # a GROUNDED passer: from the ground
    assert p.ground_pass(s)
    p.set_distance(9)
    with pytest.raises(IllegalActionError, match='beyond 8"'):
        p.rollers(s)


def test_the_tower_gives_red_dice_to_the_first_team_and_yellow_to_the_second():
    s = match()                                      # team 0 (red) attacks
    s = carry(s, 3)
    p = panel(s, "tackle_dodge", attacker=3, defender=1)
    throw = [{"kind": "d12", "colour": "yellow", "face": "2", "status": "clean"},
             {"kind": "d12", "colour": "red", "face": "9", "status": "clean"},
             {"kind": "d6", "colour": "white", "face": "4", "status": "clean"}]
    assert p.receive_tower(s, throw) == [0, 1]
    assert [faces for _, faces in p.slots(s)] == [[9], [2]]
    assert p.record(s)[1]["source"] == "tower"


def test_a_tower_throw_with_the_wrong_count_or_an_unread_die_is_refused():
    s = match()
    s = carry(s, 3)
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
    s = carry(s, 3)
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
    s = carry(s, 3)
    p = panel(s, "tackle_dodge", attacker=3)
    assert p.picks["attacker"] == [3]
    with pytest.raises(IllegalActionError, match="Tetsu does not carry the ball: only the ball "
                                                 "carrier can DODGE"):
        p.pick(s, 0, 2)
    p.pick(s, 0, 3)
    assert p.picks["attacker"] == []
    p.choose("try_melee")
    p.pick(s, 1, 0)
    p.pick(s, 1, 2)
    assert p.picks["defender"] == [0, 2]
    with pytest.raises(IllegalActionError, match="unknown roll"):
        p.choose("fly")


def test_a_try_stopped_by_a_tackle_is_no_failed_try_but_a_missed_try_is():
    s = match()
    s = carry(s, 3)
    p = panel(s, "tackle_try", attacker=3, defender=1)
    p.receive(s, [12, 4])                            # the try fumbles, the tackle succeeds
    labels = [f.label for f in p.follow_ups(s)]
    assert "Failed try: kick-off" not in labels and "Lince GROUNDED" in labels
    s = carry(s, 3)
    p = panel(s, "try", attacker=3)
    p.receive(s, [12])
    assert [f.label for f in p.follow_ups(s)] == ["Failed try: kick-off"]
    assert p.explain(s).endswith("rolled 12: fumble -> no try")


# -- issue 14: legal rolls, legal players, the rulebook's skills and multiple rolls -------------

def grounded(state, team, index):
    return RULES.apply(state, "takkure.grounded", {"team": team, "player": index, "value": True})


def legal(state) -> dict[str, str | None]:
    return {k.key: why for k, why in RollPanel().legal_kinds(state)}


def test_the_panel_offers_only_the_rolls_the_ball_allows():
    """1.12 TACKLE: "you can only TACKLE the player with the ball ... You cannot tackle a
    player on the ground"; PASS: "it must be the ball carrier"; 3.05 BALL PICK UP: "a ball
    that is on the ground or in the hands of a player, even if that player is on the ground";
    BALL STEAL: "you cannot try to steal the ball from an active player who is NOT
    GROUNDED"."""
    before = RULES.initial(RULES.start(demo_setup(), random.Random(1)))
    assert legal(before)["pass"] == "the ball is not in play yet: record who kicks off first"
    s = match()                                          # kicked off: the ball is loose
    loose = legal(s)
    assert loose["tackle_dodge"].startswith("nobody carries the ball: only the ball carrier")
    assert loose["pick_up"] is None and loose["steal_loose"] is None and loose["scrum"] is None
    assert loose["kickoff_kick"] is None
    assert loose["interception"] == "nobody carries the ball: there is no pass to intercept"
    assert loose["steal_grounded"] == "the ball is loose: steal a loose ball instead"
    s = carry(s, 3)                                      # Yokozuna has it, standing
    held = legal(s)
    assert held["tackle_dodge"] is None and held["pass"] is None and held["try"] is None
    assert held["pick_up"] == ("Yokozuna carries the ball standing: only a loose ball or one "
                               "held by a GROUNDED player can be picked up")
    assert held["steal_grounded"].startswith("Yokozuna is standing: you cannot steal the ball")
    assert held["kickoff_kick"] == "Yokozuna has the ball: the kick-off is over"
    down = legal(grounded(s, 0, 3))                      # tackled: on the ground
    assert down["tackle_break"] == ("Yokozuna is on the ground: you cannot tackle a player on "
                                    "the ground")
    assert down["try"] == ("Yokozuna is GROUNDED: a GROUNDED ball carrier can only pass from "
                           "the ground")
    assert down["pass"] is None and down["pick_up"] is None and down["steal_grounded"] is None
    with pytest.raises(IllegalActionError, match="Tackle vs Dodge: Yokozuna is on the ground"):
        RollPanel().choose("tackle_dodge", grounded(s, 0, 3))


def test_an_illegal_pick_says_why():
    """GROUND TOKEN: "A player with this token cannot perform actions normally. You can only
    perform the STAND UP action."; only the ball carrier passes, dodges or breaks through."""
    s = grounded(carry(match(), 3), 1, 1)                # Lince (defender) is GROUNDED
    p = panel(s, "tackle_dodge", attacker=3)
    with pytest.raises(IllegalActionError, match="Lince is GROUNDED: a GROUNDED player can only "
                                                 "STAND UP"):
        p.pick(s, 1, 1)
    with pytest.raises(IllegalActionError, match="Kaze does not carry the ball: only the ball "
                                                 "carrier can DODGE"):
        p.pick(s, 0, 0)
    p.choose("steal_loose")
    with pytest.raises(IllegalActionError, match="Kaze is not on the defending team"):
        p.pick(s, 0, 0)
    hurt = RULES.apply(s, "takkure.wound", {"team": 1, "player": 2, "count": 4})   # Lobo injured
    p.choose("tackle")
    with pytest.raises(IllegalActionError, match="Lobo is injured: not on the field"):
        p.pick(hurt, 1, 2)
    # a pick made earlier that no longer fits the match is listed, and blocks the roll
    p = panel(s, "tackle", defender=3)
    p.receive(s, [3])
    assert p.ready(s)
    after = grounded(s, 1, 3)
    assert "Oso is GROUNDED: a GROUNDED player can only STAND UP" in p.missing(after)
    assert not p.ready(after)


def test_pressure_counts_on_a_pick_up_but_not_on_a_pass_from_the_ground():
    """PRESSURE: "-1 modifier to the value of the characteristic associated with the second
    action"; picking up the ball is a second action; 3.03 PASS FROM THE GROUND is a first
    action ("the player will not be able to perform a second action")."""
    s = match()                                          # the ball is loose
    p = panel(s, "pick_up", attacker=1)
    p.set_pressure(2)
    p.receive(s, [9])
    assert p.explain(s) == ("Hana: BaC 8 +4 ball pick-up -2 pressure x2 = 10; rolled 9: "
                            "success -> Hana has the ball")
    s = grounded(carry(s, 1), 0, 1)                      # Hana tackled, holding the ball
    p = panel(s, "pass", attacker=1)
    p.set_pressure(2)
    p.set_distance(3)
    assert p.ground_pass(s)
    [roller] = p.rollers(s)
    assert roller.check.text() == 'BaC 8 +2 pass 3" -2 pass from the ground = 8'
    p = panel(s, "scrum", attacker=2, defender=0)        # the scrum's pick-up: pressure too
    p.set_pressure(1)
    assert p.rollers(s)[0].check.text() == "BaC 7 +4 ball pick-up -1 pressure = 10"


def test_an_unopposed_tackle_grounds_both_and_the_carrier_rolls_endurance():
    """1.20 TACKLE (EXECUTION): "If you are successful: ... Both players are GROUNDED, the
    player being tackled makes an ENDURANCE roll"; critical: "the player being tackled takes a
    wound token without rolling ENDURANCE"."""
    s = carry(match(), 3)                                # Yokozuna carries; Lobo tackles
    p = panel(s, "tackle", defender=2)
    p.receive(s, [4, 9])                                 # Expert Tackler: two dice, keeps 4
    assert p.explain(s) == ("Lobo: STR 8; rolled 4, 9, kept 4: success -> tackle succeeds: "
                            "both GROUNDED, Yokozuna rolls ENDURANCE")
    labels = [f.label for f in p.follow_ups(s)]
    assert labels == ["Lobo GROUNDED", "Yokozuna GROUNDED", "ENDURANCE: Yokozuna",
                      "Superstars +1 token"]
    p = panel(s, "tackle", defender=2)
    p.receive(s, [1, 9])
    assert [f.label for f in p.follow_ups(s)][:3] == ["Lobo GROUNDED", "Yokozuna GROUNDED",
                                                     "Yokozuna +1 WOUND"]


def test_onslaught_and_precise_pass_roll_two_dice():
    """4.05 SKILL BY POSITION: "Precise Pass: The player rolls two dice when performing the
    PASS action. Onslaught: The player rolls two dice when performing the BREAK THROUGH
    action." """
    s = carry(match(), 3)                                # Yokozuna (Onslaught) breaks through
    p = panel(s, "tackle_break", attacker=3, defender=1)
    assert [r.n_dice for r in p.rollers(s)] == [2, 1]
    s = carry(s, 1)                                      # Hana (Precise Pass) passes
    p = panel(s, "pass", attacker=1)
    p.set_distance(5)
    assert [r.n_dice for r in p.rollers(s)] == [2]
    p.receive(s, [11, 6])
    assert p.explain(s).startswith("Hana: BaC 8 +0 pass 5\" = 8; rolled 6, 11, kept 6: success")
    tired = RULES.apply(s, "takkure.fatigue", {"team": 0, "player": 1, "op": "gain"})
    assert [r.n_dice for r in panel(tired, "pass", attacker=1).rollers(tired)] == [1]


def test_expert_tackler_rolls_two_dice_in_a_try_melee():
    """4.05: "Expert Tackler: The player rolls two dice when performing the action TACKLE";
    MELEE ROLL: "all dice are rolled at the same time"."""
    s = carry(match(), 3)
    p = panel(s, "try_melee", attacker=3)
    p.pick(s, 1, 2)                                      # Lobo, Expert Tackler
    p.pick(s, 1, 3)                                      # Oso
    assert [r.n_dice for r in p.rollers(s)] == [1, 2, 1]
    p.receive(s, [5, 11, 7, 3])                          # Yokozuna 5; Lobo 11 and 7; Oso 3
    text = p.explain(s)
    assert "Lobo: STR 8; rolled 7, 11, kept 7: success" in text and "Oso" in text
    assert "Lobo wins" in text


def test_several_tacklers_on_one_dodger_the_rulebooks_examples():
    """MULTIPLE FACE-TO-FACE EXAMPLE: two STR 7 tacklers against a REF 7 dodger; "The active
    player decides to face the first defender. In this case, the second defender makes an
    unopposed roll"; "the active player is tackled by the second defender and both are
    GROUNDED"; MULTIPLE DICE ROLL EXAMPLE: "the attacking player fails the first roll. So it
    is GROUNDED by the tackle. The second defender does not resolve his action"."""
    s = carry(match(), 2)                                # Tetsu REF 7 dodges
    p = panel(s, "tackle_dodge", attacker=2, defender=0)  # Kitsune STR 7, then Lince STR 7
    p.pick(s, 1, 1)
    assert p.multiple() and [r.n_dice for r in p.rollers(s)] == [1, 1, 1]
    p.receive(s, [5, 3, 9])                              # SUCCESS CANCELLED | FAIL
    text = p.explain(s)
    assert text == ("vs Kitsune: Tetsu: REF 7; rolled 5: success; Kitsune: STR 7; rolled 3: "
                    "success -> cancelled; Tetsu wins -> Tetsu dodges Kitsune | vs Lince: "
                    "Lince: STR 7; rolled 9: fail -> Lince's tackle fails: Lince rolls REF | "
                    "Tetsu dodges: move 2\" (once)")
    assert [f.label for f in p.follow_ups(s)] == ["REF roll: Lince"]
    p.clear_dice()
    p.receive(s, [5, 3, 4])                              # SUCCESS CANCELLED | SUCCESS
    assert p.explain(s).endswith("vs Lince: Lince: STR 7; rolled 4: success -> Lince tackles "
                                 "Tetsu: both GROUNDED, Tetsu rolls ENDURANCE")
    assert [f.label for f in p.follow_ups(s)] == ["Lince GROUNDED", "Tetsu GROUNDED",
                                                  "ENDURANCE: Tetsu", "Superstars +1 token"]
    type_, data = p.record(s)
    assert type_ == "takkure.roll" and [r["dice"] for r in data["rolls"]] == [[5], [3], [4]]
    s = carry(s, 0)                                      # Kaze: Side step, two dice
    p = panel(s, "tackle_dodge", attacker=0, defender=0)
    p.pick(s, 1, 1)
    assert [r.n_dice for r in p.rollers(s)] == [2, 1, 1]
    p.receive(s, [4, 10, 6, 2])                          # Kaze 4 vs Kitsune 6: CANCELLED SUCCESS
    text = p.explain(s)
    assert "Kitsune tackles Kaze: both GROUNDED" in text
    assert text.endswith("Lince: no roll, Kaze is GROUNDED")
    assert "vs Lince" not in text
    assert [f.label for f in p.follow_ups(s)][:3] == ["Kitsune GROUNDED", "Kaze GROUNDED",
                                                      "ENDURANCE: Kaze"]


def test_the_kick_off_kick_is_a_bac_roll_by_the_kicking_team():
    """5.03 KICK OFF: "the coach of the team that kicked off makes a BaC roll with a player of
    his choice. If the roll is successful: You can place the ball wherever you want along the
    scatter template's edge. If the roll fails: Place the ball in the center of the template
    and make a scatter roll." """
    s = match(kicking=1)                                 # Teriomorphs kick, Yamato receive
    p = panel(s, "kickoff_kick", defender=2)
    p.receive(s, [6])
    assert p.explain(s) == ("Lobo: BaC 7; rolled 6: success -> place the ball anywhere along "
                            "the scatter template's edge")
    p.clear_dice()
    p.receive(s, [9])
    assert p.explain(s).endswith("-> place the ball in the centre of the template and make a "
                                 "scatter roll")


def test_superstars_plus_one_and_a_reroll_in_the_panel():
    """5.07 Teriomorphs: Superstars: "1x: Before making a roll, add +1 to the attribute you
    are using for the roll (up to a maximum of +3). 3x: Reroll a die. (Only once per
    roll)." One die is re-rolled, the one the coach picks; the tokens are spent with the roll
    (one event, one undo)."""
    s = carry(match(kicking=0), 0)                       # Teriomorphs attack; Kitsune carries
    s = RULES.apply(s, "takkure.skill_token", {"team": 1, "delta": 4})
    p = panel(s, "tackle_dodge", attacker=0, defender=1)  # Kitsune (REF 6) dodges Hana
    p.superstars(s, 1, 0, 1)
    with pytest.raises(IllegalActionError, match="Yamato have no Superstars tokens"):
        p.superstars(s, 0, 1, 1)
    assert p.rollers(s)[0].check.text() == "REF 6 +1 Superstars = 7"
    p.receive(s, [7, 7, 2])                              # Kitsune 7, 7 (Side step); Hana 2
    with pytest.raises(IllegalActionError, match="spent before making the roll"):
        p.superstars(s, 1, 0, 1)
    # "Reroll a die": Kitsune rolled two (Side step); the coach picks which one goes again
    with pytest.raises(IllegalActionError, match="Kitsune rolled 2 dice: pick the die to re-roll"):
        p.reroll(s, 1, 0)
    assert p.reroll_choices(s, 1, 0) == [7, 7]
    p.reroll(s, 1, 0, die=1)                             # 3 more tokens: the second die again
    assert p.slots(s)[0][1] == [7, None]                 # the first die stays
    assert not p.ready(s)
    with pytest.raises(IllegalActionError, match="only once per roll"):
        p.reroll(s, 1, 0, die=0)
    p.receive(s, [5])
    assert p.slots(s)[0][1] == [7, 5]
    type_, data = p.record(s)
    assert data["superstars"] == [{"team": 1, "player": 0, "tokens": 1}]
    assert data["rerolls"] == [{"team": 1, "player": 0, "die": 1, "dice": [7]}]
    assert data["rolls"][0]["dice"] == [7, 5]
    after = RULES.apply(s, type_, data)
    assert after.teams[1].skill_tokens == 0
    p2 = panel(s, "tackle_dodge", attacker=0, defender=1)
    p2.superstars(s, 1, 0, 1)
    p2.superstars(s, 1, 0, 1)
    p2.superstars(s, 1, 0, 1)
    with pytest.raises(IllegalActionError, match="\\+3 at most"):
        p2.superstars(s, 1, 0, 1)


def test_the_active_players_roll_is_their_declared_action():
    """3.03 PASS FROM THE GROUND: "the player will not be able to perform a second action on
    this activation": the panel records the pass as the active player's action, and a later
    second action by them is refused with the reason."""
    s = match()                                          # Yamato attack
    s = RULES.apply(carry(s, 1), "takkure.activate", {"team": 0, "player": 1})
    s = grounded(s, 0, 1)                                # Hana, active, holds it on the ground
    p = panel(s, "pass", attacker=1)
    p.set_distance(3)
    p.receive(s, [2, 9])
    type_, data = p.record(s)
    assert data["action"] == {"team": 0, "player": 1, "action": "PASS FROM THE GROUND"}
    s = RULES.apply(s, type_, data)
    assert s.acts == ("PASS FROM THE GROUND",)
    p = panel(s, "pass", attacker=1)
    assert "Hana has done their first action (PASS FROM THE GROUND)" in p.missing(s)
    assert not p.ready(s)


def test_a_bdy_roll_for_fractured_vertebrae_is_recorded_as_such():
    """7.01 Fractured vertebrae: "you need to succeed on a BOD roll before performing any
    action"."""
    s = match()
    assert legal(s)["bdy_roll"] == "only an activated player with Fractured vertebrae rolls BDY"
    p0 = s.player(0, 3)
    hurt = tk.evolve(p0, needs_bdy_roll=True, injuries=("Fractured vertebrae",))
    s = tk._set_player(s, 0, 3, hurt)
    s = RULES.apply(s, "takkure.activate", {"team": 0, "player": 3})
    p = panel(s, "bdy_roll", attacker=3)
    p.receive(s, [4])
    assert p.explain(s) == "Yokozuna: BDY 5; rolled 4: success -> Yokozuna may act"
    assert p.record(s) == ("takkure.bdy_roll", {"team": 0, "player": 3, "roll": 4})


def test_a_superstars_reroll_of_one_die_from_the_tower_and_of_a_single_die():
    """"3x: Reroll a die": the tower's throw after a re-roll is the one die taken back (the
    other stays); a player with one die needs no pick."""
    s = carry(match(kicking=0), 0)
    s = RULES.apply(s, "takkure.skill_token", {"team": 1, "delta": 6})
    p = panel(s, "tackle_dodge", attacker=0, defender=1)  # Kitsune (2 dice) dodges Hana (1)
    p.receive(s, [2, 9, 4])
    p.reroll(s, 1, 0, die=0)
    with pytest.raises(IllegalActionError, match="1 die to re-roll; the tower read 2"):
        p.receive_tower(s, [{"kind": "d12", "face": 6, "colour": "yellow", "status": "clean"},
                            {"kind": "d12", "face": 8, "colour": "yellow", "status": "clean"}])
    tower = [{"kind": "d12", "face": 11, "colour": "yellow", "status": "clean"}]
    assert p.receive_tower(s, tower) == [1]
    assert p.slots(s)[0][1] == [11, 9] and p.source == "mixed"
    again = panel(s, "tackle_dodge", attacker=0, defender=1)
    again.receive(s, [2, 9, 4])
    with pytest.raises(IllegalActionError, match="Kitsune has no die 3 to re-roll"):
        again.reroll(s, 1, 0, die=2)
    with pytest.raises(IllegalActionError, match="Yamato have no Superstars tokens"):
        again.reroll(s, 0, 1)


def test_an_edition_3_roll_names_the_one_die_re_rolled():
    """The journal's ``rerolls`` names the die (edition 3); a re-roll of the player's whole
    hand, as editions 1-2 recorded it, replays in those editions only."""
    s = carry(match(kicking=0), 0)
    s = RULES.apply(s, "takkure.skill_token", {"team": 1, "delta": 3})
    rolls = [{"team": 1, "player": 0, "action": "DODGE", "target": 6, "dice": [7, 5]},
             {"team": 0, "player": 1, "action": "TACKLE", "target": 7, "dice": [2]}]
    whole_hand = {"text": "t", "rolls": rolls, "rerolls": [{"team": 1, "player": 0, "dice": [7, 7]}]}
    with pytest.raises(IllegalActionError, match="rerolls: die"):
        RULES.apply(s, "takkure.roll", whole_hand)
    with pytest.raises(IllegalActionError, match="rerolls: die"):
        RULES.apply(s, "takkure.roll", {**whole_hand, "rerolls": [
            {"team": 1, "player": 0, "die": 2, "dice": [7]}]})
    assert RULES.apply(tk.evolve(s, rules=2), "takkure.roll", whole_hand).teams[1].skill_tokens == 0
    one = {**whole_hand, "rerolls": [{"team": 1, "player": 0, "die": 1, "dice": [7]}]}
    assert RULES.apply(s, "takkure.roll", one).teams[1].skill_tokens == 0


def test_a_simulated_throw_is_the_dice_still_to_come_in_each_coachs_colour():
    """The roll panel's "Throw (simulated)": exactly the D12s the tower would fill now, red
    for Yamato and yellow for the Teriomorphs; what the tower then reads fills the panel."""
    s = carry(match(kicking=0), 0)                        # Teriomorphs (team 1, yellow) attack
    p = RollPanel()
    p.choose("tackle_dodge")
    assert p.to_throw(s) == [] and p.throw_spec(s) == ""  # nobody picked: nothing to throw
    p = panel(s, "tackle_dodge", attacker=0, defender=1)  # Kitsune (2 dice) dodges Hana (1)
    assert p.to_throw(s) == [(0, 1), (1, 2)]
    assert p.throw_spec(s) == "d12:red:* d12:yellow:* d12:yellow:*"
    p.receive(s, [3])                                      # one typed: Kitsune's first die
    assert p.to_throw(s) == [(0, 1), (1, 2)]               # a throw replaces what was typed
    p.receive_tower(s, [{"kind": "d12", "face": 5, "colour": "yellow", "status": "clean"},
                        {"kind": "d12", "face": 8, "colour": "yellow", "status": "clean"}])
    assert p.to_throw(s) == [(0, 1)]                       # Hana's die still to come
    p.receive_tower(s, [{"kind": "d12", "face": 12, "colour": "red", "status": "clean"}])
    assert p.to_throw(s) == [] and p.ready(s)
    s = RULES.apply(s, "takkure.skill_token", {"team": 1, "delta": 3})
    p.reroll(s, 1, 0, die=1)                               # Superstars: the second die again
    assert p.throw_spec(s) == "d12:yellow:*"


def test_the_roll_picked_by_default_is_one_the_match_allows():
    """A roll the list greys out is never the one shown: the panel moves to the first roll
    the match allows, and keeps a roll that is allowed."""
    s = match(kicking=0)                              # after the kick-off, the ball loose
    p = RollPanel()
    allowed = {k.key for k, why in p.legal_kinds(s) if why is None}
    assert p.kind.key == "tackle_dodge" and p.kind.key not in allowed   # no ball carrier
    p.choose_legal(s)
    assert p.kind.key == "tackle_ref"                 # the first roll the list allows
    first = p.kind.key
    other = sorted(allowed - {first})[0]
    p.choose(other, s)
    p.choose_legal(s)
    assert p.kind.key == other                        # an allowed pick is kept


def test_the_roll_sentence_is_in_french_when_the_app_is():
    """Issue 28: 'rolled 4: success' and 'X wins' stayed English on French screens."""
    from companion import i18n

    s = carry(match(), 3)
    p = panel(s, "tackle_dodge", attacker=3, defender=1)
    p.receive(s, [6, 5])
    i18n.set_language("fr")
    try:
        text = p.explain(s)
    finally:
        i18n.set_language("en")
    assert text.startswith("Yokozuna : REF 6 ; a fait 6 : réussite ; Lince : STR 7 ; a fait 5 : "
                           "réussite -> annulé ; Yokozuna gagne")
    assert "rolled" not in text and "success" not in text and " wins" not in text
