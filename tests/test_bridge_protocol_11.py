"""Protocol 1.1 (issue 19): one deterministic test per finding of the second-tower trial.

Each test drives the host protocol (and, where the finding is the tower's, the simulated tower
and the reference firmware's logic under CPython) with a hand-driven clock, so none of them
depends on timing. Findings: 1 reset grace, 2 one ACK key for rolls and notices, 3 a crash
between the roll journal and the game, 4 unbounded memory, 5 out-of-range rolls, 6 reused boot
ids, 7 spec deviations.
"""

from __future__ import annotations

import random
import struct
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.host.events import (
    Connected,
    DeviceReset,
    HandshakeTimeout,
    ProtocolMismatch,
    RollEvent,
    RollsDropped,
)
from firmware_bridge.host.protocol import PENDING_WINDOW, HostProtocol
from firmware_bridge.host.rolls import MemoryRollStore, RollJournal, SeqRanges, deliver_undelivered
from firmware_bridge.tower.sim import NonVolatile, SimTower
from firmware_bridge.wire import messages as m
from firmware_bridge.wire.codec import FrameDecoder, cobs_encode, crc32, encode_frame

from .test_bridge_protocol import Pair
from .test_firmware import fw, new_tower


def frames(*msgs) -> bytes:
    return b"".join(encode_frame(x.pack()) for x in msgs)


def sent(host: HostProtocol) -> list[m.Message]:
    dec = FrameDecoder()
    return [m.parse(p) for p in dec.feed(host.take_output())]


def connected_host(boot: int = 0x1234, store=None, minor: int = 1) -> HostProtocol:
    host = HostProtocol(store if store is not None else MemoryRollStore(), port="t")
    host.begin(0.0)
    host.take_output()
    reply = m.HelloReply(1, minor, 0, boot, 0, 32, "test", ("red",),
                         (m.DieKind("d6", tuple("123456")),), 4)
    events = host.feed(frames(reply), 0.0)
    assert any(isinstance(e, Connected) for e in events)
    host.take_output()
    return host


D6 = (m.Die(0, 0, 2, 0, m.CLEAN),)


# -- finding 1: the reset grace ---------------------------------------------------------------

def test_restored_rolls_whose_first_resends_are_lost_are_still_recorded():
    """Two (here: five) lost resends after a reset used to outlast the 3 s grace: the host
    reported the rolls lost, then ACKed the real roll as a duplicate without recording it."""
    pair = Pair(nv=NonVolatile())
    pair.connect()
    old = pair.tower.boot_id
    pair.lose = lambda p: p[0] == m.ROLL
    for _ in range(3):
        pair.roll()
    for _ in range(12):
        pair.step(0.1)  # a heartbeat says next_seq = 3: the host knows of three rolls
    pair.tower.boot()
    copies = []

    def lose(p):
        if p[0] == m.ROLL and m.parse(p).boot_id == old:
            copies.append(pair.clock.t)
            return len(copies) <= 15  # the first five copies of each of the three rolls
        return False

    pair.lose = lose
    for _ in range(150):
        pair.step(0.1)
    assert sorted(r.key for r in pair.rolls()) == [(old, 0), (old, 1), (old, 2)]
    assert sorted(r.key for r in pair.store.rolls) == [(old, 0), (old, 1), (old, 2)]
    assert not [e for e in pair.events if isinstance(e, RollsDropped)]
    assert pair.tower.unacked == 0


def test_a_roll_the_host_declared_lost_is_recorded_late_when_it_arrives():
    pair = Pair()
    pair.connect()
    old = pair.tower.boot_id
    pair.lose = lambda p: p[0] == m.ROLL
    pair.roll()
    late_copy = next(p for p in pair.tower.poll() if p[0] == m.ROLL)
    for _ in range(3):
        pair.step(1.0)
    pair.tower.nv.ring = []  # no persistent memory: the roll is really gone from the tower
    pair.tower.boot()
    pair.lose = lambda p: False
    for _ in range(30):
        pair.step(0.1)
    lost = [e for e in pair.events if isinstance(e, RollsDropped)]
    assert [(d.boot_id, d.first_seq, d.count, d.declared_by) for d in lost] == [(old, 0, 1, "host")]
    pair.host.take_output()
    events = pair.host.feed(encode_frame(late_copy), pair.clock.t)  # a copy that was delayed
    assert [(e.key, e.late) for e in events if isinstance(e, RollEvent)] == [((old, 0), True)]
    assert m.Ack(old, 0) in sent(pair.host)


# -- finding 2: distinct ACK keys for drop notices ---------------------------------------------

def test_host_acknowledges_a_notice_with_its_own_key():
    host = connected_host(minor=1)
    host.feed(frames(m.Dropped(0x1234, 5, 3, m.DROP_OVERFLOW)), 0.1)
    out = sent(host)
    assert out == [m.AckDropped(0x1234, 5, 3)]


def test_host_uses_the_shared_key_with_a_1_0_tower():
    host = connected_host(minor=0)
    host.feed(frames(m.Dropped(0x1234, 5, 3, m.DROP_OVERFLOW)), 0.1)
    assert sent(host) == [m.Ack(0x1234, 5)]


def _sim_with_notice() -> SimTower:
    clock = [0.0]
    t = SimTower(seed=1, ring_size=1, clock=lambda: clock[0])
    t.feed(encode_frame(m.Hello(7).pack()))  # a 1.1 host
    t.roll(D6)
    t.roll(D6)  # the ring holds one: roll 0 is dropped, notice (boot, 0, 1)
    t.poll()
    return t


def test_sim_tower_keeps_a_notice_when_only_the_roll_key_is_acked():
    t = _sim_with_notice()
    t.feed(encode_frame(m.Ack(t.boot_id, 0).pack()))  # a late ACK for roll 0
    assert t.notices() == [(t.boot_id, 0, 1)]
    t.feed(encode_frame(m.AckDropped(t.boot_id, 0, 1).pack()))
    assert t.notices() == []


def test_firmware_keeps_a_notice_when_only_the_roll_key_is_acked():
    t = new_tower()
    t.boot(0)
    t.receive(encode_frame(m.Hello(7).pack()), 0)
    for seq in range(33):  # one more than the ring: roll 0 dropped
        t.add_roll([(0, 0, 1, 0, 0)], seq)
    t.take()
    t.receive(encode_frame(m.Ack(t.boot_id, 0).pack()), 40)
    assert [(n.boot_id, n.first_seq, n.count) for n in t.notices] == [(t.boot_id, 0, 1)]
    t.receive(encode_frame(m.AckDropped(t.boot_id, 0, 1).pack()), 41)
    assert t.notices == []


def test_firmware_still_takes_the_shared_key_from_a_1_0_host():
    t = new_tower()
    t.boot(0)
    t.receive(encode_frame(m.Hello(7, 1, 0).pack()), 0)  # HELLO of a 1.0 host
    for seq in range(33):
        t.add_roll([(0, 0, 1, 0, 0)], seq)
    t.receive(encode_frame(m.Ack(t.boot_id, 0).pack()), 40)
    assert t.notices == []


# -- finding 3: exactly once to the game --------------------------------------------------------

def _journal_with_an_undelivered_roll(path):
    j = RollJournal(path)
    host = connected_host(store=j)
    host.feed(frames(m.Roll(0x1234, 0, 10, 0, D6), m.Roll(0x1234, 1, 20, 0, D6)), 0.1)
    j.mark_delivered((0x1234, 0))  # the app took roll 0, then died before taking roll 1
    j.close()


def test_a_roll_recorded_but_not_delivered_is_delivered_once_marked_late(tmp_path):
    _journal_with_an_undelivered_roll(tmp_path / "rolls.jsonl")
    j = RollJournal(tmp_path / "rolls.jsonl")
    got: list[RollEvent] = []
    deliver_undelivered(j, got.append)
    assert [(r.key, r.late, r.dice[0].face) for r in got] == [((0x1234, 1), True, "3")]
    deliver_undelivered(j, got.append)  # after the next reconnect: nothing more
    j.close()
    again = RollJournal(tmp_path / "rolls.jsonl")  # and after the next restart
    deliver_undelivered(again, got.append)
    assert len(got) == 1
    again.close()


def test_reconcile_with_a_game_session_records_the_roll_once(tmp_path):
    from companion.games.tekken_play import DEMO_SETUP
    from companion.session import Session

    _journal_with_an_undelivered_roll(tmp_path / "rolls.jsonl")
    session = Session.create(tmp_path / "game.jsonl", "tekken", DEMO_SETUP, random.Random(1))
    j = RollJournal(tmp_path / "rolls.jsonl")

    def deliver(roll: RollEvent) -> None:  # what the app does, and it dies half-way once
        session.record_roll(*roll.key, [d.to_json() for d in roll.dice], late=roll.late)

    deliver(j.undelivered()[0])  # delivered, then killed before the mark was written
    j.close()
    j = RollJournal(tmp_path / "rolls.jsonl")
    deliver_undelivered(j, deliver)
    assert [(e.data["seq"], e.data.get("late")) for e in session.rolls] == [(1, True)]
    assert "late" in session.log()[-1].text
    session.close()
    j.close()


def test_a_journal_from_1_0_counts_its_rolls_as_delivered(tmp_path):
    path = tmp_path / "rolls.jsonl"
    path.write_text('{"type":"roll","boot_id":5,"seq":0,"dice":[],"late":false}\n')
    j = RollJournal(path)
    assert j.undelivered() == []
    j.close()


# -- finding 4: bounded memory ------------------------------------------------------------------

def hostile_frames(boot: int, n: int) -> list[bytes]:
    """What a hostile tower sends: next_seq climbing 4,096 at a time, DROPPED notices of
    2^32-1 rolls, rolls out of range, new boot ids, garbage."""
    rng = random.Random(4)
    out = []
    for i in range(n):
        k = i % 5
        if k == 0:
            out.append(encode_frame(m.Heartbeat(boot, 4096 * (i + 1), i, 0, 0).pack()))
        elif k == 1:
            out.append(encode_frame(m.Dropped(boot, 4096 * i, 0xFFFFFFFF, 1).pack()))
        elif k == 2:
            out.append(encode_frame(m.Dropped(rng.randrange(1, 2**32), rng.randrange(2**32),
                                              0xFFFFFFFF, 2).pack()))
        elif k == 3:
            out.append(encode_frame(m.Heartbeat(rng.randrange(1, 2**32), rng.randrange(2**32),
                                                0, 0xFFFF, 0xFFFFFFFF).pack()))
        else:
            out.append(bytes(rng.randrange(1, 256) for _ in range(40)) + b"\x00")
    return out


def test_host_memory_stays_bounded_whatever_the_tower_sends():
    host = connected_host(boot=0x1234)
    stream = hostile_frames(0x1234, 300)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for i, frame in enumerate(stream):
            host.feed(frame, 1.0 + i * 0.001)
            host.tick(1.0 + i * 0.001)
            host.take_output()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, f"{peak / 1e6:.1f} MB"  # 0.34 MB measured; 1.0: 1,558 MB
    # and a normal roll is still handled at once (no huge structure to walk)
    host2 = connected_host(boot=0x99)
    events = host2.feed(frames(m.Roll(0x99, 0, 1, 0, D6)), 5.0)
    assert [e.key for e in events if isinstance(e, RollEvent)] == [(0x99, 0)]


def test_drop_notices_are_kept_as_ranges_in_the_journal_index(tmp_path):
    path = tmp_path / "rolls.jsonl"
    j = RollJournal(path)
    host = connected_host(store=j)
    for i in range(40):
        host.feed(frames(m.Dropped(0x1234, i * 100_000, 0xFFFFFFFF, 1)), 0.1)
    j.close()
    tracemalloc.start()
    try:
        again = RollJournal(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, f"{peak / 1e6:.1f} MB"
    assert (0x1234, 5) in again.dropped and (0x1234, 3_999_999 + 4096) not in again.dropped
    again.close()


# -- finding 5: rolls out of range --------------------------------------------------------------

@pytest.mark.parametrize("die", [m.Die(0, 7, 0), m.Die(0, 0, 9), m.Die(0, 0, 1, 5),
                                 m.Die(0, 0, 1, 0, 3), m.Die(0, 0, m.NONE, 0, m.CLEAN)])
def test_a_roll_out_of_range_is_recorded_as_unreadable_and_acknowledged(die):
    store = MemoryRollStore()
    host = connected_host(store=store)
    events = host.feed(frames(m.Roll(0x1234, 0, 5, 0, (die, m.Die(1, 0, 5, 0)))), 0.1)
    (roll,) = [e for e in events if isinstance(e, RollEvent)]
    bad, good = roll.dice
    assert bad.status == "unreadable" and bad.face is None and not roll.clean
    assert (good.face, good.status) == ("6", "clean")
    assert sent(host) == [m.Ack(0x1234, 0)]
    assert len(store.rolls) == 1


# -- finding 6: a reused boot id ----------------------------------------------------------------

def test_a_reused_boot_id_is_told_from_a_replay():
    store = MemoryRollStore()
    host = connected_host(store=store)
    first = m.Roll(0x1234, 0, 500, 0, D6)
    host.feed(frames(first), 0.1)
    replay = host.feed(frames(m.Roll(0x1234, 0, 500, 3, D6)), 0.2)  # a resend: duplicate
    assert not [e for e in replay if isinstance(e, RollEvent)]
    # the tower reboots and draws the same boot id: its seq 0 is a new roll
    host.take_output()
    reboot = m.HelloReply(1, 1, 0, 0x1234, 0, 32, "test", ("red",),
                          (m.DieKind("d6", tuple("123456")),), 4)
    events = host.feed(frames(reboot, m.Roll(0x1234, 0, 40, 0, (m.Die(0, 0, 4, 0),))), 5.0)
    rolls = [e for e in events if isinstance(e, RollEvent)]
    assert len(rolls) == 1 and rolls[0].dice[0].face == "5"
    assert rolls[0].key != (0x1234, 0) and rolls[0].boot_id == 0x1234
    assert m.Ack(0x1234, 0) in sent(host)
    assert any(isinstance(e, DeviceReset) for e in events)
    assert len(store.rolls) == 2
    # its own resend is a duplicate of the new roll, not of the old one
    assert not [e for e in host.feed(frames(m.Roll(0x1234, 0, 40, 1, (m.Die(0, 0, 4, 0),))), 5.1)
                if isinstance(e, RollEvent)]


def test_reused_boot_ids_survive_a_host_restart(tmp_path):
    path = tmp_path / "rolls.jsonl"
    j = RollJournal(path)
    host = connected_host(store=j)
    host.feed(frames(m.Roll(0x1234, 0, 500, 0, D6)), 0.1)
    host.feed(frames(m.Roll(0x1234, 0, 40, 0, (m.Die(0, 0, 4, 0),))), 0.2)
    j.close()
    assert path.read_text().count('"type":"roll"') == 2
    j = RollJournal(path)
    host = connected_host(store=j)
    for uptime, face in ((500, 2), (40, 4)):  # both resent again: both duplicates
        events = host.feed(frames(m.Roll(0x1234, 0, uptime, 2, (m.Die(0, 0, face, 0),))), 1)
        assert not [e for e in events if isinstance(e, RollEvent)]
    j.close()


def test_sim_tower_boot_ids_count_up_across_resets():
    t = SimTower(seed=1, nv=NonVolatile())
    first = t.boot_id
    t.boot()
    t.boot()
    expected = first % 0xFFFFFFFF + 1
    assert t.boot_id == expected % 0xFFFFFFFF + 1
    assert SimTower(seed=1).boot_id == first  # a fresh tower: random


def test_firmware_boot_ids_count_up_from_the_ring_file():
    assert fw_main_new_boot_id(0x10, [0x10]) == 0x11
    assert fw_main_new_boot_id(0xFFFFFFFF, []) == 1
    assert fw_main_new_boot_id(0x10, [0x10, 0x11]) == 0x12
    assert fw_main_new_boot_id(0, []) != 0


def fw_main_new_boot_id(writer, avoid):
    return fw.store.next_boot_id(writer, avoid)


# -- finding 7: spec deviations -----------------------------------------------------------------

@pytest.mark.parametrize("size", [1025, 1026, 1028])
def test_packets_over_1024_bytes_are_dropped(size):
    body = bytes([0x99]) + bytes(size - 5)  # zeros: COBS adds a single byte, 1030 at most
    packet = body + struct.pack("<I", crc32(body))
    assert len(packet) == size and len(cobs_encode(packet)) <= 1029
    dec = FrameDecoder()
    assert dec.feed(cobs_encode(packet) + b"\x00") == []
    assert dec.counters.oversized_frames == 1


def test_packets_of_1024_bytes_pass():
    body = bytes([0x99]) + bytes(1019)
    dec = FrameDecoder()
    assert dec.feed(encode_frame(body)) == [body]


def test_a_roll_of_more_than_46_dice_is_a_bad_frame():
    dice = tuple(m.Die(i % 8, 0, 1, 0) for i in range(47))
    with pytest.raises(m.BadMessage, match="47 dice"):
        m.parse(m.Roll(5, 0, 0, 0, dice).pack())
    m.parse(m.Roll(5, 0, 0, 0, dice[:46]).pack())


@pytest.mark.parametrize("msg", [m.Roll(0, 0, 0, 0, D6), m.Heartbeat(0, 0, 0, 0, 0),
                                 m.Dropped(0, 0, 1, 1),
                                 m.HelloReply(1, 1, 0, 0, 0, 32, "x", (), (), 1)])
def test_boot_id_zero_is_a_bad_frame(msg):
    with pytest.raises(m.BadMessage, match="boot id 0"):
        m.parse(msg.pack())


def test_a_hello_reply_with_bad_utf8_is_not_called_a_baud_rate_problem():
    host = HostProtocol(MemoryRollStore(), port="p")
    host.begin(0.0)
    good = m.HelloReply(1, 1, 0, 9, 0, 32, "fw", (), (), 1).pack()
    bad = good.replace(b"\x02fw", b"\x02\xff\xfe")
    host.feed(encode_frame(bad), 0.5)
    (event,) = host.tick(3.1)
    assert isinstance(event, HandshakeTimeout)
    assert "baud" not in event.detail
    assert "HELLO_REPLY" in event.detail and "byte 17" in event.detail and "UTF-8" in event.detail


def test_a_stale_heartbeat_of_the_old_boot_raises_no_second_reset():
    host = connected_host(boot=0x1)
    reboot = m.HelloReply(1, 1, 0, 0x2, 0, 32, "test", ("red",),
                          (m.DieKind("d6", tuple("123456")),), 4)
    events = host.feed(frames(reboot), 1.0)
    events += host.feed(frames(m.Heartbeat(0x1, 3, 900, 0, 0)), 1.1)  # sent before the reset
    events += host.feed(frames(m.Heartbeat(0x2, 0, 100, 0, 0)), 1.2)
    assert [(e.old_boot_id, e.new_boot_id) for e in events
            if isinstance(e, DeviceReset)] == [(0x1, 0x2)]
    assert host.boot_id == 0x2


def test_after_a_major_2_reply_the_host_keeps_asking():
    host = HostProtocol(MemoryRollStore(), port="p")
    host.begin(0.0)
    host.take_output()
    future = m.HelloReply(2, 0, 0, 9, 0, 32, "future", (), (), 1)
    assert host.feed(frames(future), 0.1) == [ProtocolMismatch("p", "2.0", "1.3")]
    host.tick(3.2)
    assert [x for x in sent(host) if isinstance(x, m.Hello)], "no HELLO after the mismatch"
    # the tower was flashed back to 1.x: the next reply connects
    fixed = m.HelloReply(1, 1, 0, 10, 0, 32, "fixed", (), (), 1)
    assert any(isinstance(e, Connected) for e in host.feed(frames(fixed), 3.3))


def test_unknown_frame_types_are_counted_apart_and_ignored():
    host = connected_host()
    events = host.feed(encode_frame(bytes([0x90]) + b"a picture, one day"), 0.1)
    assert events == [] and sent(host) == []
    assert host.counters.unknown_types == 1
    assert host.decoder.counters.bad_frames == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([m.HELLO_REPLY, m.ROLL, m.HEARTBEAT, m.DROPPED, 0x85,
                                           m.ACK, m.ACK_DROPPED]),
                          st.binary(max_size=60)), max_size=40))
def test_any_frame_with_a_good_crc_is_taken_or_counted_never_raised(bodies):
    """Whatever a tower sends: no exception, and the host's waits stay within their caps."""
    host = connected_host()
    for i, (kind, body) in enumerate(bodies):
        host.feed(encode_frame(bytes([kind]) + body), 0.1 + i * 0.01)
        host.tick(0.1 + i * 0.01)
    assert len(host._pending) <= 2 * PENDING_WINDOW
    assert len(host._old_pending) <= 4 and len(host._tables) <= 8


u32 = st.integers(0, 2**32 - 1)
u8 = st.integers(0, 255)
wild_messages = st.one_of(
    st.builds(m.Heartbeat, st.sampled_from([0x1234, 0x1235]) | u32, u32, u32,
              st.integers(0, 0xFFFF), u32),
    st.builds(m.Dropped, st.sampled_from([0x1234]) | u32, u32, u32, u8),
    st.builds(m.Roll, st.sampled_from([0x1234]) | u32, st.integers(0, 40) | u32, u32, u8,
              st.lists(st.builds(m.Die, u8, u8, u8, u8, u8), min_size=0, max_size=50)
              .map(tuple)))


@settings(max_examples=60, deadline=None)
@given(st.lists(wild_messages, max_size=30))
def test_well_formed_frames_with_wild_values_are_taken_within_bounds(msgs):
    store = MemoryRollStore()
    host = connected_host(store=store)
    for i, msg in enumerate(msgs):
        host.feed(encode_frame(msg.pack()), 0.1 + i * 0.01)
        host.tick(0.1 + i * 0.01)
        out = sent(host)
        if isinstance(msg, m.Roll) and msg.boot_id and 0 < len(msg.dice) <= m.MAX_DICE:
            assert m.Ack(msg.boot_id, msg.seq) in out  # every well-formed roll leaves the ring
    assert len(host._pending) <= 2 * PENDING_WINDOW
    assert store.dropped.runs() <= len(msgs)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 100), st.integers(0, 20)), max_size=8),
       st.integers(0, 110), st.integers(0, 40))
def test_seq_ranges_agree_with_a_plain_set(adds, first, length):
    ranges, plain = SeqRanges(), set()
    for start, count in adds:
        ranges.add(7, start, count)
        plain.update(range(start, start + count))
    assert [s for lo, hi in ranges.gaps(7, first, first + length) for s in range(lo, hi)] == [
        s for s in range(first, first + length) if s not in plain]
    assert all(((7, s) in ranges) == (s in plain) for s in range(130))
    assert ranges.runs() <= len(adds)
