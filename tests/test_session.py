"""The session engine: journal-backed actions, replay, undo/redo, resume, bad journals."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.errors import IllegalActionError, JournalError, JournalTailError, StorageError
from companion.games.tekken import RULES
from companion.games.tekken_play import DEMO_SETUP as SETUP
from companion.games.tekken_play import random_action
from companion.journal import Event, read_events, repair_tail
from companion.session import Session, replay


def new_session(tmp_path, seed=1, name="g.jsonl"):
    return Session.create(tmp_path / name, "tekken", SETUP, rng=random.Random(seed))


def play(session, rng, n, undo_rate=0.1):
    """n random legal steps, some of them undo/redo; returns the states after each step."""
    states = []
    for _ in range(n):
        r = rng.random()
        if r < undo_rate and session.can_undo:
            session.undo()
        elif r < undo_rate * 1.6 and session.can_redo:
            session.redo()
        else:
            action = random_action(session.state, rng)
            if action is None:
                break
            session.do(action[0], **action[1])
        states.append(session.state)
    return states


def test_each_action_is_one_fsynced_journal_line(tmp_path):
    s = new_session(tmp_path)
    s.do("tekken.card", result="hit")
    s.do("tekken.strike", symbols=[2])
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines] == [
        "game.start", "tekken.card", "tekken.strike"]
    assert [json.loads(line)["seq"] for line in lines] == [1, 2, 3]
    assert s.state.fighters[1].hp == 18


def test_the_journal_line_is_on_disk_before_the_state_changes(tmp_path):
    s = new_session(tmp_path)
    seen = []
    s.subscribe(lambda sess: seen.append(len(read_events(sess.path))))
    s.do("tekken.card", result="hit")
    assert seen == [2]


def test_illegal_action_changes_neither_journal_nor_state(tmp_path):
    s = new_session(tmp_path)
    s.do("tekken.heat")
    before = (tmp_path / "g.jsonl").read_bytes()
    state = s.state
    with pytest.raises(IllegalActionError, match="once per round"):
        s.do("tekken.heat")
    with pytest.raises(IllegalActionError, match="not an action"):
        s.do("session.undo")
    assert (tmp_path / "g.jsonl").read_bytes() == before and s.state is state


def test_undo_and_redo_step_one_action_and_are_recorded(tmp_path):
    s = new_session(tmp_path)
    s.do("tekken.card", result="hit")
    s.do("tekken.strike", symbols=[2])
    assert s.next_undo_text() == "Kazuya -2 HP (Strike 2)"
    s.undo()
    assert s.state.fighters[1].hp == 20 and s.can_redo
    assert s.next_redo_text() == "Kazuya -2 HP (Strike 2)"
    s.redo()
    assert s.state.fighters[1].hp == 18 and not s.can_redo
    s.undo()
    s.do("tekken.strike", symbols=[1])  # a new action clears the redo stack
    assert not s.can_redo
    types = [e.type for e in read_events(tmp_path / "g.jsonl")]
    assert types == ["game.start", "tekken.card", "tekken.strike", "session.undo",
                     "session.redo", "session.undo", "tekken.strike"]
    assert [e.text for e in s.log()] == ["Jin: card 1 connects", "Kazuya -1 HP (Strike 1)"]
    with pytest.raises(IllegalActionError, match="nothing to redo"):
        s.redo()


def test_undo_has_no_limit_within_a_game(tmp_path):
    s = new_session(tmp_path)
    play(s, random.Random(5), 300, undo_rate=0)
    n = len(s.actions)
    for _ in range(n):
        s.undo()
    assert not s.can_undo and s.state == RULES.initial(s.start_event.data)
    with pytest.raises(IllegalActionError, match="nothing to undo"):
        s.undo()


def test_undo_never_rerolls_the_floor_and_redo_brings_back_the_same_draw(tmp_path):
    s = new_session(tmp_path, seed=3)
    s.do("tekken.card", result="hit")
    while s.state.floor.breaks == 0:
        s.do("tekken.strike", symbols=[1], cracked_floor=True)
        if s.state.phase != "fight" or s.state.free_slots == 0 and s.state.floor.breaks == 0:
            pytest.fail("setup did not break the floor")
    broken = s.state.floor
    s.undo()
    s.redo()
    assert s.state.floor == broken
    reopened = Session.open(tmp_path / "g.jsonl", read_only=True)  # s still holds the lock
    assert reopened.state == s.state


def test_resume_reproduces_the_exact_state_and_continues(tmp_path):
    s = new_session(tmp_path)
    play(s, random.Random(9), 150)
    state, log = s.state, s.log()
    s.close()
    again = Session.open(tmp_path / "g.jsonl")
    assert again.state == state and again.log() == log
    type_, data = random_action(again.state, random.Random(1))
    again.do(type_, **data)
    assert read_events(tmp_path / "g.jsonl")[-1].type == type_


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 120))
def test_replaying_any_prefix_equals_the_state_at_that_point(tmp_path_factory, seed, steps):
    tmp = tmp_path_factory.mktemp("prop")
    s = new_session(tmp, seed=seed)
    states = play(s, random.Random(seed), steps)
    events = read_events(tmp / "g.jsonl")
    for k, expected in enumerate(states, start=2):
        assert replay(events[:k]).state == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 120), undos=st.integers(1, 30))
def test_undo_then_redo_is_the_identity(tmp_path_factory, seed, steps, undos):
    tmp = tmp_path_factory.mktemp("prop")
    s = new_session(tmp, seed=seed)
    play(s, random.Random(seed), steps, undo_rate=0)
    state, log = s.state, s.log()
    k = min(undos, len(s.actions))
    for _ in range(k):
        s.undo()
    for _ in range(k):
        s.redo()
    assert s.state == state and s.log() == log


# ------------------------------------------------------------------ damaged journals

def test_torn_last_line_is_reported_with_its_line_and_the_good_prefix_kept(tmp_path):
    s = new_session(tmp_path)
    s.do("tekken.card", result="hit")
    s.do("tekken.strike", symbols=[2])
    state = s.state
    s.close()
    path = tmp_path / "g.jsonl"
    with open(path, "ab") as f:
        f.write(b'{"seq":4,"type":"tekken.str')
    with pytest.raises(JournalTailError) as info:
        Session.open(path)
    err = info.value
    assert err.line == 4 and len(err.good_events) == 3
    assert "g.jsonl:4" in str(err) and "cut off" in str(err)
    sidecar = repair_tail(path, err)
    assert sidecar.read_bytes() == b'{"seq":4,"type":"tekken.str'
    again = Session.open(path)
    assert again.state == state
    again.do("tekken.strike", symbols=[1])     # appends cleanly after the repair
    again.close()
    assert Session.open(path).state.fighters[1].hp == 17


def test_corrupt_last_line_with_newline_is_a_tail_error(tmp_path):
    s = new_session(tmp_path)
    s.do("tekken.card", result="hit")
    s.close()
    path = tmp_path / "g.jsonl"
    with open(path, "ab") as f:
        f.write(b'\x00\x00garbage\n')
    with pytest.raises(JournalTailError, match="g.jsonl:3: the journal is damaged from line 3"):
        Session.open(path)


def test_damage_in_the_middle_is_refused_not_dropped(tmp_path):
    s = new_session(tmp_path)
    s.do("tekken.card", result="hit")
    s.do("tekken.strike", symbols=[2])
    s.close()
    path = tmp_path / "g.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[1] = b"{broken"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match=r"g.jsonl:2: not a JSON object") as info:
        Session.open(path)
    assert not isinstance(info.value, JournalTailError)


def test_a_journal_from_another_game_is_refused(tmp_path):
    s = new_session(tmp_path)
    s.close()
    path = tmp_path / "g.jsonl"
    with pytest.raises(JournalError, match="g.jsonl:1: this is a TEKKEN – The Board Game "
                                           "game, not Takkure"):
        Session.open(path, expected_game="takkure")
    with open(path, "ab") as f:
        f.write(Event(2, "takkure.fatigue", {}).to_line())
    with pytest.raises(JournalError, match=r"g.jsonl:2: event 'takkure.fatigue' does not "
                                           r"belong to a TEKKEN.* game \(an event of the game 'takkure'\)"):
        Session.open(path)
    s.close()


def test_unknown_game_and_missing_start_are_refused(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"seq":1,"type":"game.start","at":"","data":{"game":"chess"}}\n')
    with pytest.raises(JournalError, match="unknown game 'chess'"):
        Session.open(path)
    path.write_text('{"seq":1,"type":"tekken.card","at":"","data":{}}\n')
    with pytest.raises(JournalError, match="x.jsonl:1: the first event is 'tekken.card'"):
        Session.open(path)


def test_an_illegal_event_in_a_journal_names_its_line(tmp_path):
    new_session(tmp_path).close()
    path = tmp_path / "g.jsonl"
    with open(path, "ab") as f:
        f.write(Event(2, "tekken.end_string", {}).to_line())
    with pytest.raises(JournalError, match="g.jsonl:2: tekken.end_string: .*String goes on"):
        Session.open(path)


def test_out_of_order_sequence_numbers_are_refused(tmp_path):
    new_session(tmp_path).close()
    path = tmp_path / "g.jsonl"
    with open(path, "ab") as f:
        f.write(Event(5, "tekken.heat", {}).to_line())
        f.write(Event(6, "tekken.heat", {}).to_line())
    with pytest.raises(JournalError, match="event number 5 where 2 was expected"):
        read_events(path)


def test_creating_never_overwrites_an_existing_game(tmp_path):
    new_session(tmp_path).close()
    before = (tmp_path / "g.jsonl").read_bytes()
    with pytest.raises(StorageError, match="g.jsonl: a saved game of that name exists"):
        new_session(tmp_path)
    assert (tmp_path / "g.jsonl").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.jsonl"]  # no temporary left


# -- dice tower rolls in a game that takes no dice -----------------------------------------

ROLL_DICE = [{"slot": 0, "kind": "d12", "face": "7", "colour": "red", "status": "clean"},
             {"slot": 1, "kind": "d12", "face": None, "colour": "yellow", "status": "cocked"}]


def test_a_roll_is_recorded_once_logged_and_replayed(tmp_path):
    path = tmp_path / "g.jsonl"
    s = Session.create(path, "tekken", SETUP, random.Random(1))
    s.do("tekken.adjust_hp", player=1, delta=-2)
    event = s.record_roll(77, 0, ROLL_DICE)
    assert event is not None and event.type == "dice.roll"
    assert s.record_roll(77, 0, ROLL_DICE) is None  # the same tower roll again
    assert s.log()[-1].text == "Dice tower: red d12 7, yellow d12 ? (cocked)"
    s.undo()  # undoes the HP change, not the roll
    assert s.state.fighters[1].hp == s.state.fighters[1].max_hp
    assert len(s.rolls) == 1 and not s.can_undo
    s.close()
    again = Session.open(path)
    assert [e.data for e in again.rolls] == [event.data]
    assert again.record_roll(77, 0, ROLL_DICE) is None  # still once after reopening
    assert again.state == s.state
    again.close()


def test_a_malformed_roll_line_is_named(tmp_path):
    path = tmp_path / "g.jsonl"
    Session.create(path, "tekken", SETUP, random.Random(1)).close()
    with open(path, "ab") as fh:
        fh.write(Event(2, "dice.roll", {"dice": []}, "2026-11-22T10:00:00Z").to_line())
    with pytest.raises(JournalError, match=r"g.jsonl:2: dice.roll: data.boot_id: expected a "
                                           r"whole number"):
        Session.open(path)


def test_a_roll_keeps_each_die_s_confidence_and_a_bad_one_is_named(tmp_path):
    path = tmp_path / "g.jsonl"
    s = Session.create(path, "tekken", SETUP, random.Random(1))
    dice = [dict(ROLL_DICE[0], confidence=0.97), dict(ROLL_DICE[1], confidence=0.0)]
    event = s.record_roll(78, 0, dice)
    assert [d["confidence"] for d in event.data["dice"]] == [0.97, 0.0]
    s.close()
    again = Session.open(path)  # replayed with it; a roll without one (before 1.2) as well
    assert [d.get("confidence") for e in again.rolls for d in e.data["dice"]] == [0.97, 0.0]
    with pytest.raises(IllegalActionError, match=r"data.dice\[0\].confidence: expected a "
                                                 r"number from 0 to 1, got 1.5"):
        again.record_roll(79, 0, [dict(ROLL_DICE[0], confidence=1.5)])
    assert again.record_roll(80, 0, ROLL_DICE) is not None
    again.close()
