"""The reader loop over real pseudo-terminals, against the simulated tower and the reference
firmware running under the MicroPython unix port."""

from __future__ import annotations

import json
import os
import random
import threading
import time

import pytest
import serial

from firmware_bridge.host import link as link_module
from firmware_bridge.host.events import (
    Connected,
    DeviceReset,
    HandshakeTimeout,
    LinkLost,
    PortBusy,
    PortNotFound,
)
from firmware_bridge.host.link import Link
from firmware_bridge.host.rolls import MemoryRollStore, RollJournal
from firmware_bridge.testing.ptyport import PtyPort
from firmware_bridge.tower.sim import Faults, SimServer, SimTower, SocketTransport
from tests.bridge_support import Recorder, SimPtyTower


class FirmwareAdapter:
    name = "firmware"

    def __init__(self, workdir):
        from firmware_bridge.testing.mpy_tower import FirmwareTower

        self.fw = FirmwareTower(workdir, workdir / "tower", seed=11)
        self.fw.start()
        self.port = self.fw.port

    @property
    def path(self):
        return self.fw.path

    def roll(self, spec="d12:red:7 d12:yellow:12"):
        self.fw.roll("roll " + spec)

    def reset(self):
        self.fw.reset()

    def unplug(self):
        self.fw.unplug()

    def replug(self):
        self.fw.replug()

    def stop(self):
        self.fw.stop()


def _firmware_available() -> str | None:
    try:
        from firmware_bridge.testing.mpy_tower import find_micropython

        find_micropython()
    except Exception as exc:  # the harness or the interpreter is missing
        return str(exc)
    return None


@pytest.fixture(params=["sim", "firmware"])
def tower(request, tmp_path):
    if request.param == "sim":
        t = SimPtyTower(tmp_path)
    else:
        missing = _firmware_available()
        if missing:  # a test dependency (make test installs it): failing says so loudly
            pytest.fail(f"the reference firmware cannot run here: {missing}")
        t = FirmwareAdapter(tmp_path)
    yield t
    t.stop()


@pytest.fixture
def journal(tmp_path):
    j = RollJournal(tmp_path / "rolls.jsonl")
    yield j
    j.close()


def _connected(rec, n=1):
    return lambda: len(rec.of(Connected)) >= n


def test_rolls_are_recorded_once_and_acknowledged(tower, journal, tmp_path):
    rec = Recorder()
    with Link(tower.path, journal, rec):
        rec.wait(_connected(rec), what="connected")
        for face in ("3", "7", "12"):
            tower.roll(f"d12:red:{face} d12:yellow:1")
        rec.wait(lambda: len(rec.rolls()) == 3, what="3 rolls")
        time.sleep(0.6)  # long enough for a resend if an ACK had not arrived
    assert [r.dice[0].face for r in rec.rolls()] == ["3", "7", "12"]
    assert [(d.colour, d.kind) for d in rec.rolls()[0].dice] == [("red", "d12"), ("yellow", "d12")]
    lines = (tmp_path / "rolls.jsonl").read_text().splitlines()
    assert [json.loads(x)["type"] for x in lines] == ["tracking", "roll", "roll", "roll"]


def test_garbage_on_connect_is_ignored(tower, journal):
    """A modem manager probing the port writes AT commands; the tower's side may hold noise."""
    noise = bytes(random.Random(1).randrange(256) for _ in range(300))
    tower.port.write(b"AT+GCAP\r\nATI\r\n\x7e\xff\x00\x13" + noise)
    rec = Recorder()
    with Link(tower.path, journal, rec) as link:
        rec.wait(_connected(rec), what="connected")
        tower.roll()
        rec.wait(lambda: len(rec.rolls()) == 1, what="a roll")
        assert link.state == "connected"


def test_unplug_and_replug_keep_every_roll(tower, journal):
    rec = Recorder()
    with Link(tower.path, journal, rec) as link:
        rec.wait(_connected(rec), what="connected")
        tower.roll("d6:white:1")
        rec.wait(lambda: len(rec.rolls()) == 1, what="first roll")
        tower.unplug()
        rec.wait(lambda: rec.of(LinkLost), what="link lost")
        assert link.state == "reconnecting"
        tower.roll("d6:white:2")  # read while the host cannot hear it
        tower.roll("d6:white:3")
        time.sleep(0.5)
        tower.replug()
        back = time.monotonic()
        rec.wait(_connected(rec, 2), what="reconnected")
        reconnected_at = rec.timed(Connected)[-1][0]
        assert reconnected_at - back < 2.0
        rec.wait(lambda: len(rec.rolls()) == 3, what="the rolls made while unplugged")
    assert [r.dice[0].face for r in rec.rolls()] == ["1", "2", "3"]
    assert link.reconnects == 1


def test_reset_with_rolls_in_flight_loses_and_doubles_nothing(tower, journal, tmp_path):
    rec = Recorder()
    with Link(tower.path, journal, rec):
        rec.wait(_connected(rec), what="connected")
        tower.unplug()  # nothing gets acknowledged from here
        rec.wait(lambda: rec.of(LinkLost), what="link lost")
        for face in ("4", "5", "6"):
            tower.roll(f"d6:white:{face}")
        time.sleep(0.3)
        tower.reset()
        tower.replug()
        rec.wait(lambda: rec.of(DeviceReset), what="device reset")
        rec.wait(lambda: len(rec.rolls()) == 3, what="the rolls of the old boot")
        tower.roll("d6:white:1")
        rec.wait(lambda: len(rec.rolls()) == 4, what="a roll of the new boot")
        time.sleep(0.6)
    rolls = rec.rolls()
    old, new = rec.of(DeviceReset)[0].old_boot_id, rec.of(DeviceReset)[0].new_boot_id
    assert [(r.boot_id, r.seq, r.dice[0].face) for r in rolls] == [
        (old, 0, "4"), (old, 1, "5"), (old, 2, "6"), (new, 0, "1")]
    assert (tmp_path / "rolls.jsonl").read_text().count('"type":"roll"') == 4


def test_duplicated_reordered_and_truncated_frames(tmp_path, journal):
    t = SimPtyTower(tmp_path, faults=Faults(duplicate=0.3, delay=0.3, delay_max_s=0.2,
                                            truncate=0.1))
    rec = Recorder()
    try:
        with Link(t.path, journal, rec) as link:
            rec.wait(_connected(rec), what="connected")
            for i in range(30):
                t.roll(f"d12:red:{i % 12 + 1}")
            rec.wait(lambda: len(rec.rolls()) == 30, what="30 rolls")
            time.sleep(0.5)
    finally:
        t.stop()
    assert sorted(r.seq for r in rec.rolls()) == list(range(30))
    stats = t.server.wire.stats
    assert stats["duplicated"] > 0 and stats["delayed"] > 0 and stats["truncated"] > 0
    assert link.counters()["duplicates"] > 0
    assert len(journal.keys) == 30


def test_port_busy_then_free(tmp_path, journal):
    t = SimPtyTower(tmp_path)
    holder = serial.serial_for_url(t.path, exclusive=True)
    rec = Recorder()
    try:
        with Link(t.path, journal, rec) as link:
            rec.wait(lambda: rec.of(PortBusy), what="port busy")
            assert link.state == "busy" and t.path in rec.of(PortBusy)[0].port
            holder.close()
            rec.wait(_connected(rec), what="connected once free")
    finally:
        holder.close()
        t.stop()


def test_port_not_found_until_it_appears(tmp_path, journal):
    rec = Recorder()
    path = tmp_path / "tower"
    with Link(str(path), journal, rec) as link:
        rec.wait(lambda: rec.of(PortNotFound), what="not found")
        assert link.state == "not_found" and str(path) in rec.of(PortNotFound)[0].detail
        time.sleep(0.5)
        assert len(rec.of(PortNotFound)) == 1  # said once, not on every retry
        t = SimPtyTower(tmp_path)
        try:
            rec.wait(_connected(rec), what="connected")
        finally:
            t.stop()


@pytest.mark.parametrize("error", [OSError(5, "Input/output error"), "termios"])
def test_errors_pyserial_does_not_wrap_do_not_kill_the_reader(tmp_path, journal, monkeypatch, error):
    """pyserial's own ReaderThread died on an OSError from in_waiting; ours reconnects."""
    import termios

    exc = termios.error(5, "Input/output error") if error == "termios" else error
    real = serial.serial_for_url
    opened = []

    class Flaky:
        def __init__(self, port):
            self._port = port
            self.calls = 0

        @property
        def in_waiting(self):
            self.calls += 1
            if len(opened) == 1 and self.calls == 20:
                raise exc
            return self._port.in_waiting

        def __getattr__(self, name):
            return getattr(self._port, name)

    def flaky_for_url(*a, **kw):
        port = Flaky(real(*a, **kw))
        opened.append(port)
        return port

    monkeypatch.setattr(link_module.serial, "serial_for_url", flaky_for_url)
    t = SimPtyTower(tmp_path)
    rec = Recorder()
    try:
        with Link(t.path, journal, rec) as link:
            rec.wait(lambda: rec.of(LinkLost), what="link lost")
            rec.wait(_connected(rec, 2), what="reconnected")
            t.roll()
            rec.wait(lambda: len(rec.rolls()) == 1, what="a roll after the error")
            assert link.running
    finally:
        t.stop()
    assert "Input/output error" in rec.of(LinkLost)[0].reason


def test_baud_mismatch_times_out_with_a_hint_and_keeps_trying(tmp_path, journal):
    """At the wrong baud rate a UART delivers noise; the link says so and tries the next rate."""
    port = PtyPort(tmp_path / "tower")
    port.plug()
    stop = threading.Event()
    rng = random.Random(5)

    def noise():
        while not stop.is_set():
            port.write(bytes(rng.choice([0, 0x80, 0xF8, 0xFE, 0x7F, 0x00]) for _ in range(64)))
            time.sleep(0.02)

    th = threading.Thread(target=noise, daemon=True)
    th.start()
    rec = Recorder()
    try:
        with Link(str(port.link), journal, rec, baudrates=(115200, 9600)) as link:
            rec.wait(lambda: rec.of(HandshakeTimeout), timeout=6, what="handshake timeout")
            assert "check the baud rate" in rec.of(HandshakeTimeout)[0].detail
            rec.wait(lambda: link.opens >= 2, what="reopened at the next rate")
            assert link._baud_index == 1
            assert link.running
    finally:
        stop.set()
        th.join()
        port.unplug()


def test_socket_url(journal):
    server = SimServer(SimTower(seed=2), SocketTransport()).start()
    rec = Recorder()
    try:
        with Link(server.transport.plug(), journal, rec):
            rec.wait(_connected(rec), what="connected over TCP")
            server.roll("kotd:black:CLAW kotd:black:FAME")
            rec.wait(lambda: len(rec.rolls()) == 1, what="a roll")
    finally:
        server.stop()
        server.transport.close()
    assert [d.face for d in rec.rolls()[0].dice] == ["CLAW", "FAME"]


def test_sim_url_in_process():
    from firmware_bridge.host.urlhandlers import protocol_sim

    name = f"t{os.getpid()}x{time.monotonic_ns()}"
    rec = Recorder()
    store = MemoryRollStore()
    with Link(f"sim://{name}?seed=4", store, rec):
        rec.wait(_connected(rec), what="connected")
        protocol_sim.hub(name).roll("spawn:white:NO_SPAWN")
        rec.wait(lambda: len(rec.rolls()) == 1, what="a roll")
    protocol_sim.forget(name)
    assert rec.rolls()[0].dice[0].face == "NO_SPAWN"


def test_a_tower_of_another_major_version_is_refused(tmp_path, journal):
    from firmware_bridge.host.events import ProtocolMismatch
    from firmware_bridge.wire import messages as m
    from firmware_bridge.wire.codec import encode_frame

    port = PtyPort(tmp_path / "tower")
    port.plug()
    stop = threading.Event()
    reply = m.HelloReply(2, 3, 0, 77, 0, 32, "future 2.3", (), (m.DieKind("d6", tuple("123456")),), 1)
    roll = m.Roll(77, 0, 0, 0, (m.Die(0, 0, 5),))

    def future_tower():
        while not stop.is_set():
            port.write(encode_frame(reply.pack()) + encode_frame(roll.pack()))
            time.sleep(0.1)

    th = threading.Thread(target=future_tower, daemon=True)
    th.start()
    rec = Recorder()
    try:
        with Link(str(port.link), journal, rec) as link:
            rec.wait(lambda: rec.of(ProtocolMismatch), what="protocol mismatch")
            time.sleep(0.5)
            assert link.state == "mismatch" and "protocol 2.3" in link.reason
            assert len(rec.of(ProtocolMismatch)) == 1 and rec.rolls() == []
            assert not journal.keys
    finally:
        stop.set()
        th.join()
        port.unplug()
