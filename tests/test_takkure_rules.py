"""Takkure: dice resolution, fatigue, wounds, injuries, time, halves, score, rosters.

Rulebook references are line numbers of shared/seeds/takkure.en.txt. The book's worked
examples lost their dice pictures in the text extraction; where only captions remain
(SUCCESS / FAIL / CANCELLED), the tests use dice that produce those captions.
"""

from __future__ import annotations

import random

import pytest

from companion.config import loads_typed
from companion.errors import ConfigError, IllegalActionError
from companion.games import takkure as tk
from companion.games import takkure_dice as d
from companion.games.takkure import RULES, TakkureConfig, lineup_setup
from companion.journal import read_events
from companion.session import Session, replay

# -- dice ------------------------------------------------------------------------------------


def test_modifier_example_bac_7_plus_2_minus_1_is_8():
    """Lines 1387-1395: a 3" pass under pressure from one defender."""
    check = d.Check("Passer", "BaC", 7, (*d.pass_modifier(3), *d.pressure(1)))
    assert check.target == 8
    assert check.text() == 'BaC 7 +2 pass 3" -1 pressure = 8'


@pytest.mark.parametrize("inches, pass_mod, reception_mod", [
    (0, 4, 2), (1.9, 4, 2), (2.0, 4, 2), (2.01, 2, 0), (3, 2, 0), (4.0, 2, 0), (4.5, 0, -2),
    (8.0, 0, -2), (8.01, -2, -4), (15, -2, -4),
])
def test_distance_tables_take_the_better_modifier_on_a_boundary(inches, pass_mod, reception_mod):
    assert d.pass_modifier(inches)[0].value == pass_mod
    assert d.reception_modifier(inches).value == reception_mod


def test_pass_from_the_ground():
    mods = d.pass_modifier(3, from_ground=True)
    assert [m.value for m in mods] == [2, -2]
    with pytest.raises(IllegalActionError, match='beyond 8"'):
        d.pass_modifier(8.5, from_ground=True)
    assert d.pass_modifier(8.0, from_ground=True)[0].value == 0


def test_fixed_modifiers():
    assert (d.PICK_UP.value, d.STEAL_LOOSE.value, d.STEAL_GROUNDED.value,
            d.INTERCEPTION.value, d.KICKOFF_CATCH_CLOSE.value) == (4, 4, 0, -2, -2)
    assert sum(m.value for m in d.pressure(3)) == -3
    assert [m.value for m in d.try_fatigue(2)] == [-2]


@pytest.mark.parametrize("roll, target, ok", [
    (7, 7, True), (8, 7, False), (1, 0, True), (1, -3, True), (12, 14, False), (11, 14, True),
])
def test_unopposed_critical_and_fumble(roll, target, ok):
    r = d.unopposed(d.Check("P", "STR", target), roll)
    assert (r.winner == 0) is ok


def test_unopposed_example_str_7():
    """Lines 1303-1315: STR 7, one die succeeds and one fails."""
    assert d.unopposed(d.Check("P", "STR", 7), 4).results[0].outcome == "success"
    assert d.unopposed(d.Check("P", "STR", 7), 9).results[0].outcome == "fail"


def _f2f(a: int, b: int) -> d.Resolution:
    return d.face_to_face((d.Check("A", "STR", 7), a), (d.Check("B", "STR", 7), b))


def test_face_to_face_examples_all_fail_one_succeeds_several_tie():
    """Lines 1331-1379: both STR 7."""
    assert [r.outcome for r in _f2f(9, 11).results] == ["fail", "fail"]
    assert [r.outcome for r in _f2f(5, 10).results] == ["success", "fail"]
    several = _f2f(6, 3)
    assert [r.outcome for r in several.results] == ["success", "cancelled"] and several.winner == 0
    tie = _f2f(5, 5)
    assert tie.winner is None and [r.outcome for r in tie.results] == ["tie", "tie"]
    assert tie.text().endswith("tie: all cancelled")


def test_a_critical_beats_a_higher_success_and_two_criticals_tie():
    crit = _f2f(1, 7)
    assert crit.winner == 0 and crit.results[1].outcome == "cancelled"
    assert _f2f(1, 1).winner is None


def test_explained_tackle_against_dodge():
    r = d.face_to_face((d.Check("Yokozuna", "STR", 8, tuple(d.pressure(1))), 5),
                       (d.Check("Kitsune", "REF", 6), 9))
    assert r.text() == ("Yokozuna: STR 8 -1 pressure = 7; rolled 5: success; "
                        "Kitsune: REF 6; rolled 9: fail; Yokozuna wins")


def test_melee_example_highest_success_wins():
    """Lines 1829-1835: four players BaC 7; an attacker rolls 3 and a defender 7, both
    succeed; the 7 wins and the defender steals the ball."""
    entries = [(d.Check("Attacker 1", "BaC", 7 + 4), 3), (d.Check("Attacker 2", "BaC", 7 + 4), 12),
               (d.Check("Defender 1", "BaC", 7 + 4), 7), (d.Check("Defender 2", "BaC", 7 + 4), 12)]
    # the example gives BaC 7 before modifiers; the outcome is the same with or without +4
    for with_mod in (True, False):
        es = entries if with_mod else [(d.Check(c.who, "BaC", 7), r) for c, r in entries]
        r = d.melee(*es)
        assert r.winner == 2
        assert [x.outcome for x in r.results] == ["cancelled", "fail", "success", "fail"]


def test_melee_tie_for_best_rolls_again():
    r = d.melee((d.Check("A", "BaC", 7), 6), (d.Check("B", "BaC", 7), 6), (d.Check("C", "BaC", 7), 2))
    assert r.winner is None and r.tied == (0, 1)
    assert "roll again" in r.text()


def test_multiple_dice_keep_the_best():
    check = d.Check("P", "STR", 7)
    assert d.best_die(check, [9, 4]) == (4, (9,))
    assert d.best_die(check, [6, 1]) == (1, (6,))   # a critical is the best die
    assert d.best_die(check, [9, 11]) == (9, (11,))  # all fail: the lowest is kept
    r = d.unopposed(check, 9, 4)
    assert r.winner == 0 and r.text() == "P: STR 7; rolled 4, 9, kept 4: success"


def test_multiple_face_to_face_example():
    """Lines 1792-1806: two tacklers (STR 7) against a dodger (REF 7). The dodger faces the
    first defender; the second, without a die against him, rolls unopposed."""
    dodger = d.Check("Dodger", "REF", 7)
    t1, t2 = d.Check("Tackler 1", "STR", 7), d.Check("Tackler 2", "STR", 7)
    first = d.multiple_face_to_face(dodger, [(t1, 4, 6), (t2, None, 9)])
    assert [r.outcome for r in first[0].results] == ["success", "cancelled"]
    assert first[1].winner is None  # the second tackler failed: the dodger is untouched
    second = d.multiple_face_to_face(dodger, [(t1, 4, 6), (t2, None, 3)])
    assert second[1].winner == 0  # the second tackler succeeds: the dodger is tackled


def test_dice_refuse_impossible_faces():
    with pytest.raises(IllegalActionError, match="1 to 12"):
        d.unopposed(d.Check("P", "STR", 7), 13)
    with pytest.raises(IllegalActionError):
        d.pass_modifier(-1)


# -- rosters and line-ups --------------------------------------------------------------------

CARD = """
      - name: {name}
        mov: [4, 2]
        bac: [7, 11]
        str: 7
        ref: 7
        int: 6
        prt: 1
        bdy: 4
        base_mm: 30
        positions: [{positions}]
        position_skill: Side step
"""


def roster(*cards: str) -> str:
    return "teams:\n  - name: Testers\n    team_skill: none\n    players:" + "".join(cards)


def test_shipped_roster_has_yokozuna_as_printed():
    from companion.config import load_typed

    cfg = load_typed(TakkureConfig, "config/takkure.yaml")
    y = cfg.team("Yamato").player("Yokozuna")
    assert (y.mov, y.bac, y.str_, y.ref, y.int_, y.prt, y.bdy, y.base_mm) == \
        ((4, 2), (7, 11), 8, 6, 7, 0, 5, 40)
    assert y.position_skill == "Onslaught" and y.skills[0].name == "Sumo" and y.skills[0].training
    assert y.defaults == ("positions",)  # blank in the rulebook: ours, marked
    assert cfg.team("Teriomorphs").team_skill == "teriomorphs"


def test_roster_with_a_missing_stat_names_file_player_and_field():
    text = roster(CARD.format(name="Ace", positions="Wing").replace("        str: 7\n", ""))
    with pytest.raises(ConfigError) as err:
        loads_typed(TakkureConfig, text, "my_roster.yaml")
    assert "my_roster.yaml" in str(err.value) and "teams[0].players[0].str" in str(err.value)
    assert "required key is missing [Ace, in Testers]" in str(err.value)


def test_roster_with_a_stat_out_of_range_is_refused():
    text = roster(CARD.format(name="Ace", positions="Wing").replace("str: 7", "str: 15"))
    with pytest.raises(ConfigError,
                       match=r"my_roster.yaml:\d+: teams\[0\].players\[0\].str: 15 is out of range"):
        loads_typed(TakkureConfig, text, "my_roster.yaml")


def test_roster_with_an_unknown_position_is_refused():
    text = roster(CARD.format(name="Ace", positions="Goalie"))
    with pytest.raises(ConfigError, match=r"positions\[0\]: 'Goalie' is not a position"):
        loads_typed(TakkureConfig, text, "my_roster.yaml")


def _team(extra: str = "") -> tk.TeamConfig:
    cards = [CARD.format(name=n, positions=p) for n, p in
             (("Ace", "Wing, Full-Back"), ("Bo", "Scrum-Half"), ("Cy", "Full-Back"), ("Dan", "Forward"))]
    return loads_typed(TakkureConfig, roster(*cards) + extra, "r.yaml").teams[0]


LINEUP = {"Wing": "Ace", "Scrum-Half": "Bo", "Full-Back": "Cy", "Forward": "Dan"}


def test_lineup_one_player_per_position():
    data = lineup_setup(_team(), LINEUP)
    assert [p["position"] for p in data["players"]] == list(tk.POSITIONS)


@pytest.mark.parametrize("change, message", [
    ({"Full-Back": "Ace"}, "Ace is lined up twice"),
    ({"Forward": "Bo"}, "Bo is lined up twice"),
    ({"Scrum-Half": "Dan", "Forward": "Bo"}, "Dan cannot line up as Scrum-Half"),
    ({"Wing": "Zed"}, "no player called 'Zed'"),
])
def test_impossible_lineups_are_refused(change, message):
    with pytest.raises(IllegalActionError, match=message):
        lineup_setup(_team(), {**LINEUP, **change})


def test_lineup_needs_every_position():
    with pytest.raises(IllegalActionError, match="missing Forward"):
        lineup_setup(_team(), {k: v for k, v in LINEUP.items() if k != "Forward"})


# -- the match -------------------------------------------------------------------------------

def _setup(skill_a: str = "yamato", skill_b: str = "teriomorphs") -> dict:
    a = lineup_setup(_team(), LINEUP)
    b = lineup_setup(_team(), LINEUP)
    a["name"], a["team_skill"] = "Yamato", skill_a
    b["name"], b["team_skill"] = "Teriomorphs", skill_b
    for p in b["players"]:
        p["name"] = p["name"] + "'"
    return {"teams": [a, b]}


def new(**kw) -> tk.TakkureState:
    return RULES.initial(RULES.start(_setup(**kw), random.Random(1)))


def act(state, kind, **data):
    return RULES.apply(state, f"takkure.{kind}", data)


def test_time_dashboard_through_a_whole_half_box_by_box():
    """Team 1 receives and keeps the ball all half: one grant of 4 per box, 5..1, then 0."""
    s = act(new(), "kickoff", kicking=0)
    seen = [(s.box, s.time_active, s.pool)]
    for _ in range(6):
        for i in range(4):
            if s.phase != "play":
                break
            s = act(s, "activate", team=1, player=i % 4)
        if s.phase != "play":
            break
        s = act(s, "take_tokens")
        seen.append((s.box, s.time_active, s.pool))
    assert seen == [
        (5, (True, False), 4),   # box 5: the attacker flips its token and takes 4
        (4, (True, False), 4),   # inactive: both down one box, both active, attacker flips
        (3, (True, False), 4),
        (2, (True, False), 4),
        (1, (True, False), 4),
        (0, (True, True), 0),    # a token reaches 0: the half is over
    ]
    assert s.phase == "halftime"


def test_steal_discards_the_tokens_and_the_new_attacker_takes_by_the_clock():
    s = act(new(), "kickoff", kicking=0)          # team 1 attacks, box 5, its token inactive
    s = act(s, "activate", team=1, player=0)
    s = act(s, "steal", team=0, player=2)
    assert s.attacker == 0 and s.ball == (0, 2) and s.pool == 4
    assert (s.box, s.time_active) == (5, (False, False))  # team 0's token was active: it flips
    for i in range(4):
        s = act(s, "activate", team=0, player=i)
    s = act(s, "take_tokens")
    assert (s.box, s.time_active, s.pool) == (4, (False, True), 4)


def test_tokens_cannot_be_taken_while_some_are_left():
    s = act(new(), "kickoff", kicking=0)
    with pytest.raises(IllegalActionError, match="still has 4 activation tokens"):
        act(s, "take_tokens")
    with pytest.raises(IllegalActionError, match="only the attacking team"):
        act(s, "activate", team=0, player=0)


def test_third_activation_in_one_grant_gives_fatigue_once():
    s = act(new(), "kickoff", kicking=0)
    before = s
    for _ in range(2):
        s = act(s, "activate", team=1, player=0)
    mid = s
    s = act(s, "activate", team=1, player=0)
    assert s.player(1, 0).fatigue == (True,)
    who = {"team": 1, "player": 0}
    assert "3rd activation: Ace' +1 fatigue" in RULES.describe(mid, "takkure.activate", who, s)
    s = act(s, "activate", team=1, player=1)
    s = act(s, "take_tokens")
    assert s.player(1, 0).activations == 0  # a new set of four: counting starts again
    s = act(s, "activate", team=1, player=0)
    assert s.player(1, 0).fatigue == (True,)
    assert before.player(1, 0).fatigue == ()


def test_fatigue_gain_flips_an_inactive_token_first_and_rest():
    s = act(new(), "kickoff", kicking=0)
    s = act(s, "fatigue", team=0, player=0, op="gain")
    s = act(s, "fatigue", team=0, player=0, op="gain")
    assert s.player(0, 0).fatigue == (True, True)
    s = act(s, "fatigue", team=0, player=0, op="rest")   # no inactive token: one flips
    assert s.player(0, 0).fatigue == (False, True)
    s = act(s, "fatigue", team=0, player=0, op="gain")   # the inactive one flips back
    assert s.player(0, 0).fatigue == (True, True)
    s = act(s, "fatigue", team=0, player=0, op="flip", token=1)
    s = act(s, "fatigue", team=0, player=0, op="rest")   # an inactive one is removed
    assert s.player(0, 0).fatigue == (True,)


def test_fatigue_effects_count_active_tokens_only():
    s = act(new(), "kickoff", kicking=0)
    p = s.player(0, 0)
    assert p.skills_lost == () and p.effective("str") == 7
    s = act(s, "fatigue", team=0, player=0, op="gain")
    assert s.player(0, 0).skills_lost == ("Side step",)
    s = act(s, "fatigue", team=0, player=0, op="gain")
    assert s.player(0, 0).one_mov_action
    s = act(s, "fatigue", team=0, player=0, op="gain")
    p = s.player(0, 0)
    assert [p.effective(k) for k in ("str", "bac", "ref", "int", "prt")] == [6, 6, 6, 5, 1]
    s = act(s, "fatigue", team=0, player=0, op="flip", token=0)
    assert s.player(0, 0).effective("str") == 7 and s.player(0, 0).fatigue_tokens == 3


def test_fourth_fatigue_token_is_max_fatigue_and_an_injury():
    s = act(new(), "kickoff", kicking=0)
    for _ in range(3):
        s = act(s, "fatigue", team=1, player=3, op="gain")
    s = act(s, "ball", team=1, player=3)
    s = act(s, "fatigue", team=1, player=3, op="gain")
    p = s.player(1, 3)
    assert p.status == "injured" and p.injury_pending and p.fatigue == () and p.injuries == ("Max Fatigue",)
    assert s.ball is None  # an injured carrier drops the ball
    with pytest.raises(IllegalActionError, match="injured"):
        act(s, "activate", team=1, player=3)


def test_endurance_wounds_and_injury_at_bdy():
    s = act(new(), "kickoff", kicking=0)
    s = act(s, "endurance", team=1, player=0, roll=5)      # BDY 4 + PRT 1 = 5: no damage
    assert s.player(1, 0).wounds == 0
    for n in range(1, 4):
        s = act(s, "endurance", team=1, player=0, roll=6)
        assert s.player(1, 0).wounds == n
    s = act(s, "endurance", team=1, player=0, roll=12)
    assert s.player(1, 0).status == "injured" and s.player(1, 0).wounds == 0


def test_yamato_players_gain_a_team_skill_token_per_wound():
    s = act(new(), "kickoff", kicking=0)
    s = act(s, "wound", team=0, player=1)
    s = act(s, "wound", team=1, player=1)
    assert s.player(0, 1).skill_tokens == 1 and s.player(1, 1).skill_tokens == 0
    s = act(s, "skill_token", team=0, player=1, delta=-1)
    with pytest.raises(IllegalActionError, match="has 0 team skill"):
        act(s, "skill_token", team=0, player=1, delta=-1)


def _injured(s=None, team=1, index=0):
    s = s or act(new(), "kickoff", kicking=0)
    for _ in range(4):
        s = act(s, "fatigue", team=team, player=index, op="gain")
    return s


@pytest.mark.parametrize("rolls, name, changes", [
    ([2], "Simple scratches", {"bdy": -1}),
    ([5], "Broken finger", {"bac": -1, "bac_try": -1, "str": -1}),
    ([6], "Broken toe", {"ref": -1, "mov_attack": -1}),
    ([11], "Sprained ankle", {"ref": -2, "mov_attack": -2, "mov_defense": -1}),
    ([12, 3], "Broken arm", {"bac": -3, "bac_try": -3, "str": -3}),
    ([12, 9], "Fractured vertebrae", {"ref": -3, "str": -3, "bac": -3, "bac_try": -3}),
])
def test_injury_tables_change_stats_for_the_match(rolls, name, changes):
    s = act(_injured(), "injury", team=1, player=0, rolls=rolls)
    p = s.player(1, 0)
    assert p.injuries[-1] == name and not p.injury_pending and p.status == "injured"
    for key, delta in changes.items():
        assert p.stat(key) == dict(p.base)[key] + delta
    s = act(s, "try", success=False) if s.ball else s
    assert p.status != "out"


def test_injured_player_returns_at_the_next_kickoff_with_the_changes():
    s = act(_injured(), "injury", team=1, player=0, rolls=[4])
    s = act(s, "ball", team=1, player=1)
    s = act(s, "try", success=True)
    s = act(s, "kickoff", kicking=1)
    p = s.player(1, 0)
    assert p.status == "field" and p.stat("str") == 6


def test_fractured_rib_is_a_permanent_active_token():
    s = act(_injured(), "injury", team=1, player=0, rolls=[8])
    p = s.player(1, 0)
    assert p.permanent == 1 and p.active_fatigue == 1 and p.fatigue == ()
    s = act(s, "ball", team=1, player=1)
    s = act(s, "try", success=True)
    s = act(s, "kickoff", kicking=1)
    with pytest.raises(IllegalActionError, match="no fatigue token that REST"):
        act(s, "fatigue", team=1, player=0, op="rest")
    s = act(s, "fatigue", team=1, player=0, op="gain")
    assert s.player(1, 0).fatigue_tokens == 2 and s.player(1, 0).active_fatigue == 2


def test_just_tired_gives_a_fatigue_token_and_a_wound_after_the_clear():
    p = act(_injured(), "injury", team=1, player=0, rolls=[1]).player(1, 0)
    assert p.fatigue == (True,) and p.wounds == 1


def test_grave_table_severely_injured_and_stats_at_zero_remove_the_player():
    s = act(_injured(), "injury", team=1, player=0, rolls=[12, 12])
    assert s.player(1, 0).status == "out" and "Severely injured" in s.player(1, 0).injuries
    # BDY 4: two Broken skulls (-2 BDY each) bring it to 0
    s = act(_injured(), "injury", team=1, player=0, rolls=[12, 11])
    s = act(s, "ball", team=1, player=1)
    s = act(s, "try", success=True)
    s = act(s, "kickoff", kicking=1)
    s = act(_injured(s), "injury", team=1, player=0, rolls=[12, 11])
    assert s.player(1, 0).stat("bdy") == 0 and s.player(1, 0).status == "out"


def test_printed_prt_of_zero_does_not_remove_a_player():
    s = new()
    s = act(s, "kickoff", kicking=0)
    team = s.teams[1]
    base = tuple((k, 0 if k == "prt" else v) for k, v in team.players[0].base)
    s = tk._set_player(s, 1, 0, tk.evolve(team.players[0], base=base))
    s = act(_injured(s), "injury", team=1, player=0, rolls=[3])
    assert s.player(1, 0).status == "injured"


def test_not_as_bad_as_it_looks_rolls_the_common_table_again():
    p = act(_injured(), "injury", team=1, player=0, rolls=[12, 1, 7]).player(1, 0)
    assert p.injuries[-2:] == ("It's not as bad as it looks", "Damaged eye")
    assert p.fatigue == (True,) and p.stat("bac") == 5
    with pytest.raises(IllegalActionError, match="needs another D12 \\(for the common"):
        act(_injured(), "injury", team=1, player=0, rolls=[12, 1])


def test_broken_leg_keeps_a_minimum_movement_and_never_raises_one():
    """7.01 Grave injuries 5-7: "Broken leg: -3 REF and -7.5/-5 MOV (down to a minimum of
    2.5/2.5 MOV)". A minimum stops a reduction; it never raises a value: a card printed
    MOV 4/2 (Yokozuna's) goes to 2.5 attacking and keeps its 2 defending."""
    before = _injured().player(1, 0)
    assert (before.stat("mov_attack"), before.stat("mov_defense")) == (4, 2)
    p = act(_injured(), "injury", team=1, player=0, rolls=[12, 6]).player(1, 0)
    assert (p.stat("mov_attack"), p.stat("mov_defense")) == (2.5, 2) and p.status == "injured"
    assert p.stat("ref") == before.stat("ref") - 3


def test_broken_leg_stops_at_the_minimum_from_above():
    """A MOV of 6/4 loses 7.5/5 and stops at 2.5/2.5."""
    s = act(new(), "kickoff", kicking=0)
    s = tk.evolve(s, teams=(s.teams[0], tk.evolve(s.teams[1], players=(
        tk.evolve(s.teams[1].players[0], base=tuple(
            (k, {"mov_attack": 6.0, "mov_defense": 4.0}.get(k, v))
            for k, v in s.teams[1].players[0].base)),) + s.teams[1].players[1:])))
    p = act(_injured(s), "injury", team=1, player=0, rolls=[12, 7]).player(1, 0)
    assert (p.stat("mov_attack"), p.stat("mov_defense")) == (2.5, 2.5)


def test_an_edition_2_journal_replays_broken_leg_as_it_was_played():
    """Games recorded before edition 3 raised a MOV below 2.5 to 2.5: they replay so."""
    s = tk.evolve(act(new(), "kickoff", kicking=0), rules=2)
    p = act(_injured(s), "injury", team=1, player=0, rolls=[12, 5]).player(1, 0)
    assert (p.stat("mov_attack"), p.stat("mov_defense")) == (2.5, 2.5)


def test_try_score_kickoff_choice_and_teriomorph_token():
    s = act(new(), "kickoff", kicking=0)
    s = act(s, "ball", team=1, player=2)
    after = act(s, "try", success=True)
    assert after.teams[1].score == 1 and after.teams[1].skill_tokens == 1
    assert after.phase == "kickoff" and after.kickoff_by == 0
    failed = act(s, "try", success=False)
    assert failed.teams[1].score == 0 and failed.phase == "kickoff" and failed.kickoff_by == 0
    with pytest.raises(IllegalActionError, match="ball carrier"):
        act(act(s, "ball"), "try", success=True)


def test_halftime_rest_and_the_second_half():
    s = act(new(), "kickoff", kicking=0)
    s = act(s, "fatigue", team=0, player=0, op="gain")
    s = act(s, "fatigue", team=0, player=0, op="gain")
    s = act(s, "fatigue", team=0, player=0, op="flip", token=0)
    while s.phase == "play":
        s = act(s, "activate", team=1, player=s.pool % 4) if s.pool else act(s, "take_tokens")
    assert s.phase == "halftime"
    text = RULES.describe(s, "takkure.halftime_rest", {"team": 0, "player": 0, "active": True},
                          act(s, "halftime_rest", team=0, player=0, active=True))
    assert text == "Ace removes an active fatigue token"
    s = act(s, "halftime_rest", team=0, player=0, active=True)
    assert s.player(0, 0).fatigue == (False,)
    with pytest.raises(IllegalActionError, match="already removed"):
        act(s, "halftime_rest", team=0, player=0, active=False)
    s = act(s, "second_half")
    assert (s.half, s.box, s.time_active, s.phase, s.kickoff_by) == (2, 5, (True, True), "kickoff", 1)
    with pytest.raises(IllegalActionError, match="did not kick the 1st"):
        act(s, "kickoff", kicking=0)
    s = act(s, "kickoff", kicking=1)
    assert s.attacker == 0


def _play_out_half(s, team):
    while s.phase == "play":
        s = act(s, "activate", team=team, player=s.pool % 4) if s.pool else act(s, "take_tokens")
    return s


def test_full_time_result_and_draw():
    s = act(new(), "kickoff", kicking=0)
    s = act(s, "ball", team=1, player=0)
    s = act(s, "try", success=True)
    s = act(s, "kickoff", kicking=1)
    s = _play_out_half(s, 0)
    s = act(s, "second_half")
    s = act(s, "kickoff", kicking=1)
    s = _play_out_half(s, 0)
    assert s.phase == "over" and s.result == "1" and RULES.is_over(s)
    assert RULES.summary(s) == "Yamato 0 – 1 Teriomorphs, Teriomorphs win"
    with pytest.raises(IllegalActionError, match="over"):
        act(s, "take_tokens")


def test_kick_the_ball_out_only_at_box_1_when_trailing():
    s = act(new(), "kickoff", kicking=1)   # team 0 attacks
    s = act(s, "ball", team=0, player=0)
    with pytest.raises(IllegalActionError, match="box 1"):
        act(s, "kick_out")
    s = tk.evolve(s, box=1)
    with pytest.raises(IllegalActionError, match="trailing"):
        act(s, "kick_out")
    s = tk._set_team(s, 1, tk.evolve(s.teams[1], score=1))
    s = act(s, "kick_out")
    assert s.phase == "halftime"


def test_a_long_match_replays_to_the_same_state(tmp_path):
    """500+ events (random legal actions, undos included) replay to the same state."""
    rng = random.Random(7)
    path = tmp_path / "match.jsonl"
    session = Session.create(path, "takkure", _setup(), rng)
    kinds = ["activate", "fatigue", "endurance", "grounded", "ball", "steal", "try", "roll"]
    n = 0
    clock_moves = 0
    for _ in range(20_000):
        s = session.state
        if s.phase == "over":
            break
        if s.phase == "kickoff":
            data = {"kicking": s.kickoff_by if s.kickoff_by is not None else rng.randrange(2)}
            if s.half == 2 and s.attacker is None:
                data = {"kicking": 1 - s.first_kicker}
            session.do("takkure.kickoff", **data)
            continue
        if s.phase == "halftime":
            for t in (0, 1):
                for i, p in enumerate(s.teams[t].players):
                    if p.fatigue:
                        session.do("takkure.halftime_rest", team=t, player=i, active=p.fatigue[0])
            session.do("takkure.second_half")
            continue
        for p_i, p in enumerate(s.teams[0].players + s.teams[1].players):
            team, index = divmod(p_i, 4)
            if p.injury_pending:
                session.do("takkure.injury", team=team, player=index, rolls=[rng.randrange(2, 12)])
                break
        else:
            attackers = [p for p in s.teams[s.attacker].players if p.status == "field"]
            if not attackers:  # everyone injured: let a defender pick the ball up
                defenders = [i for i, p in enumerate(s.teams[1 - s.attacker].players) if p.status == "field"]
                if s.player(1 - s.attacker, defenders[0]).grounded:   # a GROUNDED player: STAND UP first
                    session.do("takkure.grounded", team=1 - s.attacker, player=defenders[0], value=False)
                session.do("takkure.steal", team=1 - s.attacker, player=defenders[0])
                continue
            kind = rng.choices(kinds, weights=[2, 3, 1, 3, 3, 0.3, 0.6, 2])[0]
            moves_time = kind in ("activate", "steal", "try")
            if moves_time and session.to_json()["events"] < 18 * (1 + clock_moves):
                kind = "roll"  # a long match: plenty happens between activations
            elif moves_time:
                clock_moves += 1
            team, index = rng.randrange(2), rng.randrange(4)
            data = {"activate": {"team": s.attacker, "player": index},
                    # REST only on defense (4.03)
                    "fatigue": rng.choice([{"team": team, "player": index, "op": "gain"},
                                           {"team": 1 - s.attacker, "player": index, "op": "rest"},
                                           {"team": 1 - s.attacker, "player": index, "op": "rest"}]),
                    "endurance": {"team": team, "player": index, "roll": rng.randrange(1, 13)},
                    "grounded": {"team": team, "player": index, "value": rng.random() < 0.5},
                    "ball": {"team": s.attacker, "player": index},
                    "steal": {"team": 1 - (s.attacker or 0), "player": index},
                    "try": {"success": rng.random() < 0.5},
                    "roll": {"text": f"roll {n}"}}[kind]
            if kind == "fatigue" and data["op"] == "gain" \
                    and s.player(data["team"], index).fatigue_tokens >= 2:
                kind, data = "roll", {"text": f"roll {n}"}   # attackers cannot REST: spare them
            if s.pool == 0 and kind == "activate":
                session.do("takkure.take_tokens")
                continue
            try:
                session.do(f"takkure.{kind}", **data)
            except IllegalActionError:
                continue
            n += 1
            if rng.random() < 0.05:
                session.undo()
    else:
        raise AssertionError(f"the random match never ended: {session.state.phase}, "
                             f"box {session.state.box}, {session.to_json()['events']} events")
    final = session.state
    session.close()
    events = read_events(path)
    assert len(events) >= 500
    again = replay(events, str(path))
    assert again.state == final
    assert [t.score for t in again.state.teams] == [t.score for t in final.teams]
    # the match went somewhere: the 2nd half was reached, tries and injuries happened
    types = [e.type for e in events]
    assert final.half == 2 and types.count("takkure.second_half") == 1
    assert sum(t.score for t in final.teams) >= 1 and "takkure.injury" in types
    assert "session.undo" in types


def test_tower_roll_gives_each_coach_their_colour():
    roll = [{"slot": 0, "kind": "d12", "face": "7", "colour": "red", "status": "clean"},
            {"slot": 1, "kind": "d12", "face": "12", "colour": "yellow", "status": "clean"},
            {"slot": 2, "kind": "d12", "face": "1", "colour": "red", "status": "clean"}]
    assert d.tower_dice(roll, "red") == [7, 1] and d.tower_dice(roll, "yellow") == [12]
    cocked = roll + [{"slot": 3, "kind": "d12", "face": None, "colour": "yellow", "status": "cocked"}]
    assert d.tower_dice(cocked, "red") == [7, 1]
    with pytest.raises(IllegalActionError, match="yellow die is cocked"):
        d.tower_dice(cocked, "yellow")


# -- issue 14: what the rulebook forbids is refused --------------------------------------------

def test_rest_can_only_be_performed_on_defense():
    """4.03 REST: "This action, which can only be performed on defense, helps players take a
    breath"."""
    s = act(new(), "kickoff", kicking=0)                 # team 1 attacks
    s = act(s, "fatigue", team=1, player=0, op="gain")
    s = act(s, "fatigue", team=0, player=0, op="gain")
    with pytest.raises(IllegalActionError, match="Ace' cannot REST: REST can only be performed "
                                                 "on defense \\(Teriomorphs are attacking\\)"):
        act(s, "fatigue", team=1, player=0, op="rest")
    s = act(s, "fatigue", team=0, player=0, op="rest")   # the defender rests
    assert s.player(0, 0).fatigue == (False,)
    with pytest.raises(IllegalActionError, match="the ball is not in play"):
        act(act(new(), "fatigue", team=0, player=0, op="gain"), "fatigue", team=0, player=0, op="rest")


def test_a_grounded_player_can_only_stand_up():
    """3.01 GROUND TOKEN: "A player with this token cannot perform actions normally. You can
    only perform the STAND UP action. The exception is when the GROUNDED player is the ball
    carrier, it cannot STAND UP." BALL STEAL: "A GROUNDED player cannot perform this
    action"."""
    s = act(new(), "kickoff", kicking=0)                 # team 1 attacks
    s = act(s, "ball", team=1, player=2)
    s = act(act(s, "grounded", team=1, player=2, value=True), "grounded", team=0, player=1, value=True)
    with pytest.raises(IllegalActionError, match="Cy' carries the ball: a GROUNDED ball carrier "
                                                 "cannot STAND UP"):
        act(s, "grounded", team=1, player=2, value=False)
    with pytest.raises(IllegalActionError, match="Cy' is GROUNDED: a GROUNDED ball carrier "
                                                 "cannot SCORE A TRY"):
        act(s, "try", success=True)
    with pytest.raises(IllegalActionError, match="Bo is GROUNDED: a GROUNDED player can only "
                                                 "STAND UP, not steal the ball"):
        act(s, "steal", team=0, player=1)
    s = act(s, "grounded", team=0, player=1, value=False)      # a defender stands up
    s = act(s, "steal", team=0, player=1)                      # then steals
    assert s.ball == (0, 1) and s.attacker == 0
    s = act(s, "grounded", team=1, player=2, value=False)      # no longer the carrier: stands up
    assert not s.player(1, 2).grounded


def test_a_yamato_player_wounded_by_an_injury_gets_a_team_skill_token():
    """5.07 Unwavering Honor: "When a Yamato player receives a Wound token, it also receives a
    Team Skill token" — whatever gave the wound: the injury "I'm just tired" (+1 fatigue,
    +1 wound) too."""
    s = _injured(team=0, index=1)                        # a Yamato player, Max Fatigue
    assert s.player(0, 1).skill_tokens == 0
    s = act(s, "injury", team=0, player=1, rolls=[1])    # I'm just tired
    assert s.player(0, 1).wounds == 1 and s.player(0, 1).skill_tokens == 1
    t = act(_injured(team=1, index=1), "injury", team=1, player=1, rolls=[1])
    assert t.player(1, 1).wounds == 1 and t.player(1, 1).skill_tokens == 0   # Teriomorphs


def test_the_second_half_waits_for_every_players_halftime_rest():
    """6.02 HALFTIME: "All players remove a fatigue token: Remove a token, you can choose
    whichever one you want, whether it is active or not." """
    s = act(new(), "kickoff", kicking=0)
    s = act(act(s, "fatigue", team=0, player=0, op="gain"), "fatigue", team=1, player=3, op="gain")
    s = _play_out_half(s, 1)
    assert s.phase == "halftime"
    with pytest.raises(IllegalActionError, match="every player removes a fatigue token first "
                                                 "\\(Ace, Dan' have not\\)"):
        act(s, "second_half")
    s = act(s, "halftime_rest", team=0, player=0, active=True)
    with pytest.raises(IllegalActionError, match="\\(Dan' has not\\)"):
        act(s, "second_half")
    s = act(act(s, "halftime_rest", team=1, player=3, active=True), "second_half")
    assert s.half == 2


def test_journals_recorded_before_rules_editions_replay_as_played(tmp_path):
    """A journal without ``rules`` in game.start (saved by the previous version) opens, and
    what it recorded (an attacker resting) replays as the players saw it."""
    import json
    start = {"game": "takkure", **_setup()}
    lines = [{"seq": 1, "type": "game.start", "at": "", "data": start},
             {"seq": 2, "type": "takkure.kickoff", "at": "", "data": {"kicking": 0}},
             {"seq": 3, "type": "takkure.fatigue", "at": "", "data": {"team": 1, "player": 0, "op": "gain"}},
             {"seq": 4, "type": "takkure.fatigue", "at": "", "data": {"team": 1, "player": 0, "op": "rest"}}]
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    s = Session.open(path).state
    assert s.rules == 1 and s.player(1, 0).fatigue == (False,)


# -- issue 14: the active player's actions -----------------------------------------------------

def _active(s, team, index):
    return act(s, "activate", team=team, player=index)


def test_one_first_action_then_one_second_action_per_activation():
    """1.04 ATTACKER'S FIRST ACTION: "The player can perform one action amongst the following:
    MOVE, STAND UP, PASS FROM THE GROUND"; 1.08: "As a second action, the active player can
    perform one of the following actions"."""
    s = _active(act(new(), "kickoff", kicking=0), 1, 0)          # Ace' is the active player
    with pytest.raises(IllegalActionError, match="only the active player"):
        act(s, "action", team=1, player=1, action="MOVE")
    with pytest.raises(IllegalActionError, match="'FLY' is not an attacker's action"):
        act(s, "action", team=1, player=0, action="FLY")
    s = act(s, "action", team=1, player=0, action="MOVE")
    with pytest.raises(IllegalActionError, match="Ace' has done their first action \\(MOVE\\)"):
        act(s, "action", team=1, player=0, action="STAND UP")
    s = act(s, "action", team=1, player=0, action="MOVE 2")
    with pytest.raises(IllegalActionError, match="has done their second action \\(MOVE 2\\)"):
        act(s, "action", team=1, player=0, action="PICK UP")
    s = _active(s, 1, 0)                                          # a new activation
    assert s.acts == () and act(s, "action", team=1, player=0, action="MOVE").acts == ("MOVE",)
    assert RULES.describe(s, "takkure.action", {"team": 1, "player": 0, "action": "MOVE"},
                          act(s, "action", team=1, player=0, action="MOVE")) == "Ace': MOVE"


def test_fatigue_2_allows_one_mov_action_per_activation():
    """4.02 ADVERSE EFFECTS: "2 Fatigue - The player can only perform one MOV action per
    activation"."""
    s = act(new(), "kickoff", kicking=0)
    s = act(act(s, "fatigue", team=1, player=0, op="gain"), "fatigue", team=1, player=0, op="gain")
    s = act(_active(s, 1, 0), "action", team=1, player=0, action="MOVE")
    with pytest.raises(IllegalActionError, match="Ace' has 2 active fatigue tokens: only one MOV "
                                                 "action per activation"):
        act(s, "action", team=1, player=0, action="MOVE 2")
    assert act(s, "roll", text="pick-up", action={"team": 1, "player": 0,
                                                   "action": "PICK UP"}).acts == ("MOVE", "PICK UP")


def test_a_grounded_player_stands_up_and_a_pass_from_the_ground_ends_the_actions():
    """3.02 STAND UP: "As the first action of the active player (if it's not the ball
    carrier). If the player has no more ground tokens, it can perform a MOVE AS A 2nd
    ACTION"; 3.03 PASS FROM THE GROUND: "the player will not be able to perform a second
    action on this activation"."""
    s = act(new(), "kickoff", kicking=0)
    s = act(s, "grounded", team=1, player=1, value=True)
    s = _active(s, 1, 1)
    with pytest.raises(IllegalActionError, match="Bo' is GROUNDED: the first action can only be "
                                                 "STAND UP"):
        act(s, "action", team=1, player=1, action="MOVE")
    s = act(s, "action", team=1, player=1, action="STAND UP")
    assert not s.player(1, 1).grounded
    s = act(s, "action", team=1, player=1, action="MOVE 2")
    # a GROUNDED carrier: no STAND UP, a pass from the ground, and nothing after it
    s = act(act(s, "ball", team=1, player=2), "grounded", team=1, player=2, value=True)
    s = _active(s, 1, 2)
    with pytest.raises(IllegalActionError, match="a GROUNDED ball carrier cannot STAND UP"):
        act(s, "action", team=1, player=2, action="STAND UP")
    s = act(s, "roll", text="a pass from the ground",
            action={"team": 1, "player": 2, "action": "PASS FROM THE GROUND"})
    with pytest.raises(IllegalActionError, match="Cy' passed from the ground: no second action"):
        act(s, "action", team=1, player=2, action="MOVE 2")


def test_fractured_vertebrae_needs_a_bdy_roll_before_any_action():
    """7.01 Grave injuries 8-10: "Fractured vertebrae: -3 REF, -3 STR, -3 BaC and you need to
    succeed on a BOD roll before performing any action"."""
    s = _injured(act(new(), "kickoff", kicking=1), team=0, index=0)   # Yamato attack
    s = act(s, "injury", team=0, player=0, rolls=[12, 9])              # Fractured vertebrae
    assert s.player(0, 0).injuries[-1] == "Fractured vertebrae"
    s = act(act(s, "ball", team=0, player=1), "try", success=False)    # a missed try: kick-off
    s = act(s, "kickoff", kicking=1)                                   # Ace is back on the field
    assert s.player(0, 0).status == "field" and s.attacker == 0
    s = _active(s, 0, 0)
    with pytest.raises(IllegalActionError, match="Ace has Fractured vertebrae: a BDY roll must "
                                                 "succeed before any action"):
        act(s, "action", team=0, player=0, action="MOVE")
    failed = act(s, "bdy_roll", team=0, player=0, roll=11)            # BDY 4
    with pytest.raises(IllegalActionError, match="it failed: no action this activation"):
        act(failed, "action", team=0, player=0, action="MOVE")
    with pytest.raises(IllegalActionError, match="rolled BDY in this activation already"):
        act(failed, "bdy_roll", team=0, player=0, roll=2)
    ok = act(s, "bdy_roll", team=0, player=0, roll=3)
    assert act(ok, "action", team=0, player=0, action="MOVE").acts == ("MOVE",)
    with pytest.raises(IllegalActionError, match="Bo has no Fractured vertebrae"):
        act(_active(s, 0, 1), "bdy_roll", team=0, player=1, roll=3)


def test_superstars_tokens_spent_on_a_roll_go_with_it():
    """5.07 Superstars: "1x: Before making a roll, add +1 to the attribute you are using for
    the roll (up to a maximum of +3). 3x: Reroll a die. (Only once per roll)." """
    s = act(new(), "kickoff", kicking=0)
    s = act(s, "skill_token", team=1, delta=4)
    after = act(s, "roll", text="a boosted tackle", superstars=[{"team": 1, "player": 0, "tokens": 1}],
                rerolls=[{"team": 1, "player": 0, "die": 0, "dice": [12]}])
    assert after.teams[1].skill_tokens == 0
    assert RULES.describe(s, "takkure.roll", {"text": "t", "superstars": [
        {"team": 1, "player": 0, "tokens": 1}], "rerolls": [{"team": 1, "player": 0}]},
        after) == "t (Superstars: 4 tokens spent)"
    with pytest.raises(IllegalActionError, match="Teriomorphs have 4 Superstars tokens; this "
                                                 "roll spends 5"):
        act(s, "roll", text="x", superstars=[{"team": 1, "player": 0, "tokens": 2}],
            rerolls=[{"team": 1, "player": 0, "die": 0, "dice": [3]}])
    with pytest.raises(IllegalActionError, match="once per roll"):
        act(act(s, "skill_token", team=1, delta=4), "roll", text="x",
            rerolls=[{"team": 1, "player": 0, "die": 0, "dice": [3]},
                     {"team": 1, "player": 1, "die": 0, "dice": [4]}])
    with pytest.raises(IllegalActionError, match="Yamato have no Superstars tokens"):
        act(s, "roll", text="x", superstars=[{"team": 0, "player": 0, "tokens": 1}])


def test_shipped_roster_is_two_complete_teams_with_demo_players_marked():
    """Two teams a match can start with; every card but the printed Yokozuna is a demo card
    (named so, every value listed under defaults: nothing invented passes as printed)."""
    from companion.config import load_typed
    from companion.games.takkure import CARD_VALUES, POSITIONS, lineup_setup

    cfg = load_typed(TakkureConfig, "config/takkure.yaml")
    assert [t.name for t in cfg.teams] == ["Yamato", "Teriomorphs"]
    for team in cfg.teams:
        assert sorted(p for c in team.players for p in c.positions) == sorted(POSITIONS)
        lineup = {c.positions[0]: c.name for c in team.players}
        assert lineup_setup(team, lineup)["name"] == team.name
        for card in team.players:
            if card.name == "Yokozuna":
                assert not card.demo
                continue
            assert card.demo and card.name.endswith("(demo)")
            assert set(card.defaults) == set(CARD_VALUES)
