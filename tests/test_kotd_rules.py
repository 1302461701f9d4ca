"""King of Tokyo Duel rules: dice limits, rolls and keeping, resolution, tracks, Buzz
tokens, The King's tokens, victory in each of the three ways, and a replayed game."""

from __future__ import annotations

import random

import pytest

from companion.config import load_typed, loads_typed
from companion.errors import ConfigError, IllegalActionError
from companion.games import kotd as k
from companion.games.kotd import RULES, KotdConfig, setup_from_config
from companion.journal import read_events
from companion.session import Session, replay

CFG = load_typed(KotdConfig, "config/kotd.yaml")


def new(a="Gigazaur", b="Alienoid", first=0) -> k.KotdState:
    return RULES.initial(RULES.start(setup_from_config(CFG, (a, b), first), random.Random(1)))


def act(state, kind, **data):
    return RULES.apply(state, kind if "." in kind else f"kotd.{kind}", data)


def roll(state, *faces):
    return act(state, "roll", faces=list(faces))


def play_turn(state, *faces):
    """Roll once with these faces and resolve."""
    return act(roll(state, *faces), "resolve")


# -- set-up and dice limits ----------------------------------------------------------------

def test_start_hp_energy_and_the_second_players_compensation():
    s = new(first=1)
    assert s.current == 1 and [m.hp for m in s.monsters] == [10, 10]
    assert s.monsters[0].dice_tokens == 1 and s.monsters[1].dice_tokens == 0   # config default
    assert (s.track("fame").pawn, len(s.track("fame").cells)) == (5, 11)


def test_first_players_first_turn_is_5_dice_then_6():
    s = new()
    assert s.n_dice == 5
    with pytest.raises(IllegalActionError, match="the first roll is 5 dice; 6 came in"):
        roll(s, *["CLAW"] * 6)
    s = act(play_turn(s, "ENERGY", "ENERGY", "HEART", "POWER", "FAME"), "gain_energy")
    s = act(s, "end_turn")
    assert s.current == 1 and s.n_dice == 6
    s = act(play_turn(s, *["HEART"] * 6), "end_turn")
    assert s.current == 0 and s.n_dice == 6      # only the very first turn has 5


def test_dice_tokens_add_dice_never_more_than_8_and_at_most_2_held():
    s = act(act(play_turn(new(), *["HEART"] * 5), "gain_energy"), "end_turn")   # player 1
    s = act(s, "adjust", player=1, what="dice_tokens", delta=1)
    assert s.monsters[1].dice_tokens == 2
    with pytest.raises(IllegalActionError, match="dice tokens: 0 to 2"):
        act(s, "adjust", player=1, what="dice_tokens", delta=1)
    s = act(s, "spend_tokens", count=2)
    assert s.n_dice == 8 and s.monsters[1].dice_tokens == 0
    with pytest.raises(IllegalActionError, match="never more than 8 dice"):
        act(s, "extra_die")
    s2 = roll(s, *["CLAW"] * 8)
    with pytest.raises(IllegalActionError, match="before the first roll"):
        act(s2, "extra_die")


def test_three_rolls_keep_and_take_back():
    s = roll(new(), "CLAW", "CLAW", "HEART", "FAME", "POWER")
    s = act(s, "keep", die=0, kept=True)
    s = act(s, "keep", die=1, kept=True)
    with pytest.raises(IllegalActionError, match="3 dice are not kept; 2 came in"):
        roll(s, "FAME", "FAME")
    s = roll(s, "FAME", "FAME", "FAME")
    assert k.dice_text(s.dice) == "CLAW* CLAW* FAME FAME FAME" and s.rolls == 2
    s = act(s, "keep", die=1, kept=False)            # take a kept die back
    s = roll(s, "HEART", "ENERGY", "ENERGY", "ENERGY")
    assert s.rolls == 3 and k.dice_text(s.dice) == "CLAW* HEART ENERGY ENERGY ENERGY"
    with pytest.raises(IllegalActionError, match="three rolls already"):
        roll(s, "CLAW")
    with pytest.raises(IllegalActionError, match="no roll is left"):
        act(s, "keep", die=0, kept=False)


# -- resolution ------------------------------------------------------------------------------

def test_rulebook_examples_3_fame_pull_1_and_5_fame_pull_3():
    s = play_turn(new(), "FAME", "FAME", "FAME", "CLAW", "HEART")
    assert s.track("fame").pawn == 4                 # toward player 0: one cell
    assert "3 FAME: pull the Fame pawn 1 cell" in s.last_resolution
    s = new()
    s = play_turn(s, *["FAME"] * 5)
    assert s.track("fame").pawn == 2                 # 3 cells
    assert [k.pull_for(n) for n in range(7)] == [0, 0, 0, 1, 2, 3, 4]


def test_claws_hearts_capped_energy_and_power_listed():
    s = new()
    s = act(s, "adjust", player=0, what="hp", delta=-1)
    s = play_turn(s, "CLAW", "CLAW", "HEART", "HEART", "POWER")
    assert (s.monsters[1].hp, s.monsters[0].hp) == (8, 10)
    assert "2 HEART: Gigazaur +1 HP (capped at 10)" in s.last_resolution
    assert any(line.startswith("1 POWER: Gigazaur's power") for line in s.last_resolution)
    s = act(s, "gain_energy")
    assert s.monsters[0].energy == 1


def test_a_partial_roll_is_never_resolved():
    s = new()
    throw = [{"kind": "kotd", "face": "CLAW", "status": "clean"}] * 4 + \
            [{"kind": "kotd", "face": None, "status": "cocked"}]
    s = act(s, "dice.roll", dice=throw)
    assert s.pending == (4,) and s.rolls == 1
    with pytest.raises(IllegalActionError, match="nothing is resolved on a partial roll"):
        act(s, "resolve")
    with pytest.raises(IllegalActionError, match="re-roll it or set it by hand first"):
        act(s, "keep", die=0, kept=True)
    rerolled = act(s, "dice.roll", dice=[{"kind": "kotd", "face": "HEART", "status": "clean"}])
    assert rerolled.pending == () and rerolled.rolls == 1 and rerolled.dice[4].face == "HEART"
    by_hand = act(s, "set_die", die=4, face="FAME")
    assert by_hand.dice[4].face == "FAME" and by_hand.rolls == 1
    with pytest.raises(IllegalActionError, match="only a die the tower could not read"):
        act(by_hand, "set_die", die=0, face="FAME")


def test_tower_rolls_take_only_the_king_of_tokyo_dice():
    s = new()
    throw = [{"kind": "d6", "face": "4"}] + [{"kind": "kotd", "face": f} for f in
                                              ("CLAW", "HEART", "ENERGY", "FAME", "POWER")]
    s = act(s, "dice.roll", dice=throw)
    assert k.dice_text(s.dice) == "CLAW HEART ENERGY FAME POWER"
    with pytest.raises(IllegalActionError, match="no King of Tokyo die"):
        act(new(), "dice.roll", dice=[{"kind": "d12", "face": "3"}])


# -- victory ---------------------------------------------------------------------------------

def test_victory_by_hp():
    s = new()
    s = act(s, "adjust", player=1, what="hp", delta=-7)
    s = play_turn(s, "CLAW", "CLAW", "CLAW", "HEART", "FAME")
    assert s.winner == 0 and s.phase == "over" and "Alienoid has no HP left" in s.win_reason
    with pytest.raises(IllegalActionError, match="the duel is over"):
        act(s, "end_turn")


def test_victory_on_a_victory_cell():
    s = new()                                        # Fame pawn at 5, player 0's Victory at 0
    s = act(s, "pull", track="fame", toward=0, cells=2)      # a power's pull: 3
    s = play_turn(s, "FAME", "FAME", "FAME", "FAME", "FAME")  # 3 more: cell 0
    assert s.winner == 0 and "Fame pawn reached Gigazaur's Victory cell" in s.win_reason
    assert s.track("fame").pawn == 0


def test_victory_with_both_pawns_in_the_spotlight():
    s = new()
    s = act(s, "pull", track="destruction", toward=1, cells=2)   # 7: player 1's spotlight
    assert s.winner is None
    s = act(s, "pull", track="fame", toward=1, cells=3)          # 8: both in the spotlight
    assert s.winner == 1 and "both pawns are in Alienoid's spotlight" in s.win_reason


# -- Buzz tokens and The King ----------------------------------------------------------------

def test_buzz_bonus_on_every_cell_entered():
    s = new()
    s = act(s, "place_buzz", token="energy", track="fame", cell=4)
    s = act(s, "place_buzz", token="damage", track="fame", cell=3)
    s = play_turn(s, "FAME", "FAME", "FAME", "FAME", "HEART")    # pull 2: cells 4 then 3
    assert s.track("fame").pawn == 3
    assert s.monsters[0].energy == 1 and s.monsters[1].hp == 9
    assert "Buzz on the Fame track: +1 energy" in s.last_resolution


def test_buzz_tokens_cannot_cover_a_pawn_or_another_token():
    s = new()
    with pytest.raises(IllegalActionError, match="cannot cover the cell the Fame pawn"):
        act(s, "place_buzz", token="heal", track="fame", cell=5)
    s = act(s, "place_buzz", token="energy-heal", track="fame", cell=6)
    with pytest.raises(IllegalActionError, match="would cover energy-heal"):
        act(s, "place_buzz", token="heal", track="fame", cell=7)
    moved = act(s, "place_buzz", token="energy-heal", track="destruction", cell=1)
    assert moved.track("fame").placements == () and moved.track("destruction").placements


def test_longer_and_shorter_tokens_change_the_track_length():
    s = new()
    s = act(s, "place_buzz", token="longer", track="fame", cell=2)     # 1 cell becomes 2
    t = s.track("fame")
    assert len(t.cells) == 12 and t.cells[t.pawn].zone == "plain" and t.pawn == 6
    assert [c.zone for c in t.cells[:5]] == ["victory0", "spot0", "spot0", "spot0", "spot0"]
    s = act(s, "place_buzz", token="shorter", track="destruction", cell=0)   # over a Victory cell
    d = s.track("destruction")
    assert len(d.cells) == 10 and d.cells[0].zone == "victory0" and d.cells[0].bonus == "damage"


def test_the_kings_token_stops_the_rivals_pull_and_the_rest_is_lost():
    s = new("The King", "Gigazaur")
    s = act(s, "place_buzz", token="king-1", track="fame", cell=6)
    s = act(act(play_turn(s, "HEART", "HEART", "HEART", "HEART", "HEART"), "gain_energy"), "end_turn")
    s = play_turn(s, *["FAME"] * 6)                  # Gigazaur pulls 4 toward his end
    assert s.track("fame").pawn == 6                 # stopped on the token after 1 cell
    assert any("The King's token stops the Fame pawn (3 cells lost)" in x for x in s.last_resolution)
    s = act(act(s, "gain_energy"), "end_turn")
    hearts = play_turn(s, "HEART", "HEART", "HEART", "HEART", "HEART", "HEART")
    s = act(act(hearts, "gain_energy"), "end_turn")
    s = play_turn(s, "FAME", "FAME", "FAME", "FAME", "CLAW", "CLAW")   # starts on it: moves normally
    assert s.track("fame").pawn == 8


def test_only_the_king_places_his_tokens():
    with pytest.raises(IllegalActionError, match="only The King"):
        act(new(), "place_buzz", token="king-1", track="fame", cell=6)


def test_buying_gaining_and_sweeping():
    s = play_turn(new(), "ENERGY", "ENERGY", "ENERGY", "HEART", "HEART")
    s = act(s, "buy", cost=2)
    assert s.monsters[0].energy == 1
    with pytest.raises(IllegalActionError, match="only by a player who buys no card"):
        act(s, "gain_energy")
    with pytest.raises(IllegalActionError, match="has 1 energy"):
        act(s, "sweep")
    with pytest.raises(IllegalActionError, match="resolve the dice"):
        act(new(), "end_turn")


def test_config_errors_name_the_key():
    text = open("config/kotd.yaml").read().replace("cells: 11, spotlight: 3}", "cells: 10, spotlight: 3}", 1)
    with pytest.raises(ConfigError, match=r"tracks\[0\]\.cells: 10: a track has an odd number"):
        loads_typed(KotdConfig, text, "kotd.yaml")
    text = open("config/kotd.yaml").read().replace("DESTRUCTION, POWER]", "DESTRUCTION, SKULL]")
    with pytest.raises(ConfigError, match="faces: the die's six faces are CLAW"):
        loads_typed(KotdConfig, text, "kotd.yaml")


# -- a whole game ----------------------------------------------------------------------------

def _random_turn(session, rng):
    s = session.state
    n = s.n_dice
    if rng.random() < 0.3 and s.monsters[s.current].dice_tokens and n < 8:
        session.do("kotd.spend_tokens", count=1)
    for _ in range(rng.randint(1, 3)):
        s = session.state
        if s.rolls >= 3:
            break
        free = [i for i, d in enumerate(s.dice) if not d.kept] if s.dice else range(s.n_dice)
        if s.dice and not free:
            break
        faces = [rng.choice(k.FACES) for _ in free]
        if rng.random() < 0.5:
            session.do("kotd.roll", faces=faces)
        else:
            session.do("dice.roll", dice=[{"kind": "kotd", "face": f, "status": "clean"} for f in faces],
                       boot_id=1, seq=rng.randrange(10**9))
        if session.state.rolls < 3:
            for i, d in enumerate(session.state.dice):
                if rng.random() < 0.4:
                    session.do("kotd.keep", die=i, kept=not d.kept)
    if rng.random() < 0.1:
        session.undo()
        return
    session.do("kotd.resolve")
    if session.state.phase == "over":
        return
    if rng.random() < 0.4 and session.state.monsters[session.state.current].energy >= 2:
        session.do("kotd.buy", cost=2)
    else:
        session.do("kotd.gain_energy")
    session.do("kotd.end_turn")


def test_a_full_game_replays_from_its_journal(tmp_path):
    rng = random.Random(5)
    path = tmp_path / "duel.jsonl"
    session = Session.create(path, "kotd", setup_from_config(CFG, ("Meka Dragon", "The King")), rng)
    session.do("kotd.place_buzz", token="energy", track="fame", cell=3)
    for _ in range(400):
        if session.state.phase == "over":
            break
        _random_turn(session, rng)
    final = session.state
    session.close()
    assert final.phase == "over" and final.winner is not None
    events = read_events(path)
    assert len(events) > 100
    assert replay(events).state == final
    assert Session.open(path).state == final


# -- issue 14: rules fidelity ------------------------------------------------------------------

def test_a_buzz_token_partly_in_the_spotlight_counts_its_cells_entirely_inside():
    """FIN DE PARTIE: "Si un jeton Buzz est posé, même partiellement, sur cette zone, chaque
    case de ce jeton entièrement dans la zone est considérée comme Sous les projecteurs (à
    l'inverse d'une case partiellement dans ou hors de la zone)"."""
    s = act(new(), "place_buzz", token="energy-heal", track="fame", cell=3)   # over spot0 | plain
    zones = [c.zone for c in s.track("fame").cells]
    assert zones[:6] == ["victory0", "spot0", "spot0", "spot0", "plain", "plain"]
    assert s.track("fame").cells[3].token == "energy-heal" == s.track("fame").cells[4].token
    s = act(s, "place_buzz", token="longer", track="destruction", cell=7)    # 2 cells on 1: both in
    assert [c.zone for c in s.track("destruction").cells][7:9] == ["spot1", "spot1"]
    s = act(s, "place_buzz", token="shorter", track="destruction", cell=2)   # 1 cell on 2: inside
    assert s.track("destruction").cells[2].zone == "spot0"
    s = act(s, "pull", track="destruction", toward=0, cells=3)               # onto the shorter token
    assert s.track("destruction").cells[s.track("destruction").pawn].zone == "spot0"
    s = act(s, "pull", track="fame", toward=0, cells=1)                      # onto the token's plain cell
    assert s.winner is None
    s = act(s, "pull", track="fame", toward=0, cells=1)                      # its cell inside the zone
    assert s.winner == 0 and "both pawns are in Gigazaur's spotlight" in s.win_reason


def test_a_token_cell_partly_outside_the_spotlight_is_not_in_it():
    """FIN DE PARTIE: "(à l'inverse d'une case partiellement dans ou hors de la zone)": a
    one-cell token over a spotlight cell and a plain cell is not in the spotlight."""
    s = act(new(), "place_buzz", token="shorter", track="fame", cell=3)      # spans 3 (spot) + 4
    assert s.track("fame").cells[3].zone == "plain"
    s = act(s, "pull", track="destruction", toward=0, cells=3)
    s = act(s, "pull", track="fame", toward=0, cells=1)                      # pawn on the token
    assert s.track("fame").cells[s.track("fame").pawn].token == "shorter" and s.winner is None


def test_a_turn_with_no_purchase_gains_1_energy_at_the_end_automatically():
    """3. ACHETER DES CARTES ÉNERGIE OU GAGNER 1⚡: "Si vous ne voulez ou ne pouvez pas acheter
    de cartes Énergie durant ce tour, gagnez 1⚡. Dépenser 2⚡ pour défausser les 3 cartes
    Énergie ne compte pas comme un achat"."""
    s = play_turn(new(), "HEART", "HEART", "HEART", "CLAW", "CLAW")
    assert k.free_energy_due(s)
    after = act(s, "end_turn")                          # "End turn" cannot skip it
    assert after.monsters[0].energy == 1 and after.current == 1
    assert RULES.describe(s, "kotd.end_turn", {}, after) == \
        "Gigazaur buys nothing: +1 energy; Alienoid's turn"
    taken = act(act(s, "gain_energy"), "end_turn")       # taken by hand: once, not twice
    assert taken.monsters[0].energy == 1
    rich = play_turn(new(), "ENERGY", "ENERGY", "ENERGY", "ENERGY", "HEART")
    bought = act(act(rich, "buy", cost=3), "end_turn")   # a purchase: nothing free
    assert bought.monsters[0].energy == 1
    swept = act(act(rich, "sweep"), "end_turn")          # a sweep is not a purchase
    assert swept.monsters[0].energy == 4 - 2 + 1


def test_a_journal_recorded_before_rules_editions_still_opens_as_it_was_played(tmp_path):
    """Journals saved by the previous version have no ``rules`` in ``game.start``: they
    replay under edition 1, where ending a turn gave no energy by itself."""
    import json
    start = {"game": "kotd", **setup_from_config(CFG, ("Gigazaur", "Alienoid"))}
    assert "rules" not in start
    lines = [{"seq": 1, "type": "game.start", "at": "", "data": start},
             {"seq": 2, "type": "kotd.roll", "at": "", "data": {"faces": ["HEART"] * 5}},
             {"seq": 3, "type": "kotd.resolve", "at": "", "data": {}},
             {"seq": 4, "type": "kotd.end_turn", "at": "", "data": {}}]
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    old = Session.open(path).state
    assert old.rules == 1 and old.monsters[0].energy == 0 and old.current == 1
    new_game = Session.create(tmp_path / "new.jsonl", "kotd",
                              setup_from_config(CFG, ("Gigazaur", "Alienoid")), random.Random(1))
    from companion.games.base import RULES_EDITION
    assert new_game.start_event.data["rules"] == RULES_EDITION


def test_a_journal_of_a_newer_rules_edition_is_refused_with_its_line(tmp_path):
    """A ``rules`` edition this version does not know (a newer companion's journal) is a
    clear error naming the file and line 1, not a traceback."""
    import json

    from companion.errors import JournalError
    from companion.games.base import RULES_EDITION
    newer = RULES_EDITION + 1
    start = {"game": "kotd", **setup_from_config(CFG, ("Gigazaur", "Alienoid")), "rules": newer}
    path = tmp_path / "newer.jsonl"
    path.write_text(json.dumps({"seq": 1, "type": "game.start", "at": "", "data": start}) + "\n")
    with pytest.raises(JournalError, match=rf"newer.jsonl:1: bad game.start: rules: edition 1 "
                                           rf"to {RULES_EDITION}, not {newer} \(a journal from a newer "
                                           r"version"):
        Session.open(path)


def test_players_names_beside_the_monsters_are_kept_tidy_and_replayed(tmp_path):
    """Each player's name may be typed beside their Monster: spaces are tidied, a blank name
    is no name, and the journal's ``game.start`` carries it so a replay shows it again."""
    setup = setup_from_config(CFG, ("Gigazaur", "Alienoid"), players=("  Ana   María ", "  "))
    start = RULES.start(setup, random.Random(1))
    assert start["monsters"][0]["player"] == "Ana María"
    assert "player" not in start["monsters"][1]
    s = RULES.initial(start)
    assert (s.monsters[0].player, s.monsters[1].player) == ("Ana María", "")
    session = Session.create(tmp_path / "g.jsonl", "kotd", setup, random.Random(1))
    session.close()
    assert Session.open(tmp_path / "g.jsonl").state.monsters[0].player == "Ana María"


def test_a_players_name_that_is_not_text_is_refused_with_its_place():
    setup = setup_from_config(CFG, ("Gigazaur", "Alienoid"))
    setup["monsters"][1]["player"] = 7
    with pytest.raises(IllegalActionError, match="Alienoid: the player's name must be text"):
        RULES.start(setup, random.Random(1))
    start = {**setup_from_config(CFG, ("Gigazaur", "Alienoid")), "rules": 2}
    start["monsters"][0]["player"] = ["Ana"]
    with pytest.raises(IllegalActionError, match=r"data\.monsters\[0\]\.player"):
        RULES.check(None, "game.start", start)


def test_the_log_names_the_dice_in_the_players_language():
    """Issue 28: the dice names and 'tower' stayed English in a French log."""
    from companion import i18n

    s = new()
    data = {"dice": [{"kind": "kotd", "face": f, "status": "clean"}
                     for f in ("CLAW", "FAME", "HEART", "ENERGY", "POWER")]}
    after = RULES.apply(s, k.ROLL, data)
    i18n.set_language("fr")
    try:
        text = RULES.describe(s, k.ROLL, data, after)
    finally:
        i18n.set_language("en")
    assert "GRIFFE" in text and "tour à dés" in text and "CLAW" not in text


def test_the_set_up_says_the_second_players_compensation_from_the_config():
    """Issue 28: the set-up pointed to game settings that do not exist; it says the
    compensation the config sets."""
    import dataclasses

    from companion.games.kotd import SecondPlayerConfig, start_rule_text

    cfg = CFG
    cfg = dataclasses.replace(cfg, second_player=SecondPlayerConfig(energy=0, dice_tokens=1))
    assert start_rule_text(cfg) == ("The first player rolls 5 dice on the first turn; the "
                                       "second player starts with 1 dice token.")
    cfg = dataclasses.replace(cfg, second_player=SecondPlayerConfig(energy=2, dice_tokens=0))
    assert start_rule_text(cfg).endswith("starts with 2 energy.")
