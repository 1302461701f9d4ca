"""The host protocol object against the simulated tower's logic, with a hand-driven clock."""

from __future__ import annotations

from dataclasses import replace

import pytest

from firmware_bridge.host.events import (
    Connected,
    DeviceReset,
    HandshakeTimeout,
    LinkLost,
    ProtocolMismatch,
    RollEvent,
    RollsDropped,
    RollsMissing,
)
from firmware_bridge.host.protocol import HostProtocol
from firmware_bridge.host.rolls import MemoryRollStore, RollJournal
from firmware_bridge.tower.sim import NonVolatile, SimTower, parse_dice
from firmware_bridge.wire import messages as m
from firmware_bridge.wire.codec import encode_frame


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class Pair:
    """A tower and a host wired back to back; ``lose`` drops tower -> host packets."""

    def __init__(self, *, ring: int = 32, store=None, nv=None) -> None:
        self.clock = Clock()
        self.tower = SimTower(seed=7, ring_size=ring, clock=self.clock, nv=nv)
        self.store = store if store is not None else MemoryRollStore()
        self.host = HostProtocol(self.store, port="test")
        self.events: list = []
        self.lose = lambda packet: False

    def step(self, dt: float = 0.0) -> list:
        self.clock.t += dt
        packets = [p for p in self.tower.poll() if not self.lose(p)]
        events = self.host.feed(b"".join(encode_frame(p) for p in packets), self.clock.t)
        events += self.host.tick(self.clock.t)
        self.tower.feed(self.host.take_output())
        self.events += events
        return events

    def connect(self) -> Connected:
        self.host.begin(self.clock.t)
        self.tower.feed(self.host.take_output())
        events = self.step()
        connected = [e for e in events if isinstance(e, Connected)]
        assert connected, events
        return connected[0]

    def roll(self, spec: str = "d12:red:7 d12:yellow:12") -> int:
        return self.tower.roll(parse_dice(spec, self.tower.rng))

    def rolls(self) -> list[RollEvent]:
        return [e for e in self.events if isinstance(e, RollEvent)]


def test_handshake_reports_the_towers_dice():
    pair = Pair()
    c = pair.connect()
    assert c.boot_id == pair.tower.boot_id != 0
    assert c.kinds == ("d6", "d12", "kotd", "spawn")
    assert c.colours == ("red", "yellow", "white", "black")
    assert c.proto == "1.1"


def test_a_roll_is_recorded_named_and_acknowledged_once():
    pair = Pair()
    pair.connect()
    pair.roll("d12:red:7 d12:yellow:?cocked kotd:-:FAME")
    (roll,) = pair.step()
    assert roll.seq == 0 and roll.boot_id == pair.tower.boot_id
    assert [(d.kind, d.colour, d.face, d.status) for d in roll.dice] == [
        ("d12", "red", "7", "clean"), ("d12", "yellow", None, "cocked"),
        ("kotd", None, "FAME", "clean")]
    assert not roll.clean
    assert roll.text() == "red d12 7, yellow d12 ? (cocked), kotd FAME"
    assert pair.tower.unacked == 0
    for _ in range(10):  # no resend after the ACK
        assert not pair.step(0.5) or all(not isinstance(e, RollEvent) for e in pair.events[1:])
    assert len(pair.rolls()) == 1


def test_no_ack_until_the_store_has_it():
    class FailingStore(MemoryRollStore):
        def record(self, roll):
            raise OSError("disk full")

    pair = Pair(store=FailingStore())
    pair.connect()
    pair.roll()
    with pytest.raises(OSError):
        pair.step()
    assert pair.host.take_output() == b""  # nothing was acknowledged
    assert pair.tower.unacked == 1


def test_lost_copies_are_resent_with_backoff_and_recorded_once():
    pair = Pair()
    pair.connect()
    sent_at = []

    def lose(packet):
        if packet[0] == m.ROLL:
            sent_at.append(pair.clock.t)
            return len(sent_at) <= 3  # the first three copies vanish
        return False

    pair.lose = lose
    pair.roll()
    for _ in range(200):
        pair.step(0.01)
    gaps = [round(b - a, 1) for a, b in zip(sent_at, sent_at[1:])]
    assert gaps[:3] == [0.2, 0.4, 0.8]
    assert len(pair.rolls()) == 1 and pair.rolls()[0].attempt == 3
    assert pair.host.counters.retransmits == 1


def test_duplicate_copies_are_acknowledged_but_not_counted():
    pair = Pair()
    pair.connect()
    pair.roll()
    packets = pair.tower.poll()
    roll_packet = next(p for p in packets if p[0] == m.ROLL)
    data = encode_frame(roll_packet)
    first = pair.host.feed(data, pair.clock.t)
    again = pair.host.feed(data * 3, pair.clock.t)
    assert len(first) == 1 and again == []
    assert pair.host.counters.duplicates == 3
    assert pair.host.take_output().count(encode_frame(m.Ack(pair.tower.boot_id, 0).pack())) == 4


def test_a_gap_shows_in_the_heartbeat_even_if_every_copy_was_lost():
    pair = Pair()
    pair.connect()
    pair.lose = lambda p: p[0] == m.ROLL and m.parse(p).seq == 1
    for _ in range(3):
        pair.roll()
    for _ in range(30):
        pair.step(0.1)
    missing = [e for e in pair.events if isinstance(e, RollsMissing)]
    assert missing and missing[0].seqs == (1,)
    assert sorted(r.seq for r in pair.rolls()) == [0, 2]
    pair.lose = lambda p: False
    for _ in range(30):
        pair.step(0.1)
    late = [r for r in pair.rolls() if r.seq == 1]
    assert late and late[0].late  # recorded after seq 2: flagged


def test_ring_overflow_is_declared_and_recorded():
    pair = Pair(ring=4)
    pair.connect()
    pair.lose = lambda p: p[0] == m.ROLL  # nothing gets through
    for _ in range(6):
        pair.roll()
    pair.lose = lambda p: p[0] == m.ROLL and m.parse(p).seq < 2
    for _ in range(20):
        pair.step(0.3)
    drops = [e for e in pair.events if isinstance(e, RollsDropped)]
    assert [(d.first_seq, d.count, d.reason, d.declared_by) for d in drops] == [
        (0, 1, "ring overflow", "tower"), (1, 1, "ring overflow", "tower")]
    assert sorted(r.seq for r in pair.rolls()) == [2, 3, 4, 5]
    assert pair.store.drops == drops
    # the notices stop once acknowledged
    before = len(pair.events)
    pair.step(5)
    assert not [e for e in pair.events[before:] if isinstance(e, RollsDropped)]


def test_reset_with_rolls_in_flight_loses_nothing_when_the_ring_survives():
    nv = NonVolatile()
    pair = Pair(nv=nv)
    pair.connect()
    old_boot = pair.tower.boot_id
    pair.lose = lambda p: p[0] == m.ROLL
    for _ in range(3):
        pair.roll()
    pair.step()
    pair.tower.boot()  # the ring is kept in nv: restored and resent with the old boot id
    pair.lose = lambda p: False
    for _ in range(10):
        pair.step(0.1)
    assert any(isinstance(e, DeviceReset) and e.old_boot_id == old_boot for e in pair.events)
    assert sorted(r.key for r in pair.rolls()) == [(old_boot, 0), (old_boot, 1), (old_boot, 2)]
    pair.roll()
    pair.step()
    assert pair.rolls()[-1].key == (pair.tower.boot_id, 0)


def test_reset_that_loses_the_ring_is_reported_by_the_host():
    pair = Pair()
    pair.connect()
    old_boot = pair.tower.boot_id
    pair.lose = lambda p: p[0] == m.ROLL
    for _ in range(2):
        pair.roll()
    for _ in range(3):
        pair.step(1.0)  # heartbeats announce next_seq = 2
    pair.tower.nv.ring = []  # a tower without persistent memory
    pair.tower.boot()
    pair.lose = lambda p: False
    for _ in range(40):
        pair.step(0.1)
    lost = [e for e in pair.events if isinstance(e, RollsDropped)]
    assert [(d.boot_id, d.first_seq, d.count, d.declared_by) for d in lost] == [(old_boot, 0, 2, "host")]


def test_resume_after_reopen_needs_no_new_hello_reply():
    pair = Pair()
    pair.connect()
    pair.host.begin(pair.clock.t)  # the port was reopened
    pair.lose = lambda p: p[0] == m.HELLO_REPLY
    pair.step(1.0)  # the heartbeat of the boot we know is enough
    assert sum(isinstance(e, Connected) for e in pair.events) == 2


def test_protocol_mismatch_is_reported_once_and_nothing_is_recorded():
    host = HostProtocol(MemoryRollStore(), port="p")
    host.begin(0.0)
    reply = m.HelloReply(2, 0, 0, 9, 0, 32, "future", (), (m.DieKind("d6", ("1",) * 6),), 1)
    events = host.feed(encode_frame(reply.pack()) * 2, 0.1)
    assert events == [ProtocolMismatch("p", "2.0", "1.3")]
    roll = m.Roll(9, 0, 0, 0, (m.Die(0, 0, 0),))
    assert host.feed(encode_frame(roll.pack()), 0.2) == []


def test_handshake_timeout_hints_at_the_baud_rate_when_frames_are_garbled():
    host = HostProtocol(MemoryRollStore(), port="/dev/ttyACM0")
    host.begin(0.0)
    host.feed(b"\x13\x99\x42\x00" * 20, 1.0)  # what a wrong baud rate looks like
    events = host.tick(3.1)
    assert len(events) == 1 and isinstance(events[0], HandshakeTimeout)
    assert "check the baud rate" in events[0].detail


def test_silence_is_a_lost_link():
    pair = Pair()
    pair.connect()
    pair.host.feed(b"", pair.clock.t)
    assert [e for e in pair.host.tick(pair.clock.t + 3.5) if isinstance(e, LinkLost)]


def test_journal_keeps_duplicates_out_across_a_host_restart(tmp_path):
    path = tmp_path / "rolls.jsonl"
    pair = Pair(store=RollJournal(path))
    pair.connect()
    pair.roll()
    copy = next(p for p in pair.tower.poll() if p[0] == m.ROLL)
    pair.host.feed(encode_frame(copy), pair.clock.t)
    pair.store.close()
    # the host restarts; the tower resends the roll because its ACK was lost
    again = HostProtocol(RollJournal(path), port="test")
    again.begin(0)
    hello = pair.tower._hello_reply(0)
    roll = replace(m.parse(copy), attempt=1)
    events = again.feed(encode_frame(hello) + encode_frame(roll.pack()), 0.1)
    assert not [e for e in events if isinstance(e, RollEvent)]
    assert again.counters.duplicates == 1
    assert path.read_text().count('"type":"roll"') == 1


def test_torn_journal_tail_is_cut_and_kept_aside(tmp_path):
    path = tmp_path / "rolls.jsonl"
    j = RollJournal(path)
    pair = Pair(store=j)
    pair.connect()
    pair.roll()
    pair.step()
    j.close()
    with open(path, "ab") as fh:
        fh.write(b'{"type":"roll","boot_id":1,"se')
    again = RollJournal(path)
    assert again.repaired is not None and again.repaired.read_bytes().startswith(b'{"type"')
    assert len(again.keys) == 1
    assert path.read_bytes().endswith(b"}\n")


def test_damaged_journal_line_is_named(tmp_path):
    from firmware_bridge.host.rolls import RollJournalError

    path = tmp_path / "rolls.jsonl"
    path.write_text('{"type":"roll","boot_id":1,"seq":0,"dice":[]}\nnot json\n{"type":"roll"}\n')
    with pytest.raises(RollJournalError, match=r"rolls.jsonl, line 2"):
        RollJournal(path)
