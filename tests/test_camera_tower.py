"""The camera dice tower (firmware_bridge/tower/camera_tower.py): rendered throws (dice fall in,
settle, are taken out) feed the tower on a real pseudo-terminal; the host's Link records
exactly one roll per throw with the faces that settled. Restarts resend the ring from its
file; no camera still handshakes and says so; bad input is named and sends nothing."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware_bridge.host.events import Connected, DeviceReset, LinkLost
from firmware_bridge.host.link import Link
from firmware_bridge.host.rolls import MemoryRollStore
from firmware_bridge.testing import camera_bench
from firmware_bridge.testing.ptyport import PtyPort
from firmware_bridge.tower.camera_tower import CameraTower
from firmware_bridge.tower.dice_table import CAMERA_MISSING, FIRMWARE, DiceTable
from firmware_bridge.tower.errors import CameraTowerError
from firmware_bridge.tower.frames import CameraSource, IterSource
from firmware_bridge.tower.ring_file import RingFile
from firmware_bridge.wire import messages as m
from tests.bridge_support import Recorder
from tests.camera_tower_support import STYLE, PtyCameraTower, kotd_profile, throw
from vision.dice import Profile
from vision.dice.render import empty_tray

ROOT = Path(__file__).resolve().parent.parent


def faces(roll) -> Counter:
    assert all(d.kind == "kotd" and d.status == "clean" for d in roll.dice), roll
    return Counter(d.face for d in roll.dice)


def test_each_throw_is_one_roll_with_the_faces_that_settled(tmp_path):
    throws = [throw(seed, n) for seed, n in ((3, 2), (4, 5), (6, 3))]
    tower = PtyCameraTower(tmp_path)
    rec = Recorder()
    try:
        with Link(tower.path, MemoryRollStore(), rec):
            rec.wait(lambda: rec.of(Connected), what="connected")
            hello = rec.of(Connected)[0]
            assert hello.firmware == FIRMWARE
            assert list(hello.kinds) == ["d6", "kotd", "unknown"]
            assert list(hello.colours) == ["black"]
            for frames, _ in throws:
                tower.play(frames)
            rec.wait(lambda: len(rec.rolls()) == 3, timeout=30, what="3 rolls")
            time.sleep(1.0)  # the tray stays still: no second roll of the same throw
        rolls = rec.rolls()
        assert [faces(r) for r in rolls] == [truth for _, truth in throws]
        assert [r.seq for r in rolls] == [0, 1, 2] and len(tower.tower.sent) == 3
        assert all(d.colour == "black" for r in rolls for d in r.dice)
        assert tower.tower.tower.unacked == 0
        assert json.loads(tower.ring.read_text())["rolls"] == []  # acknowledged: off the disk
    finally:
        tower.stop()


def test_a_restart_resends_the_rolls_the_host_never_acknowledged(tmp_path):
    frames, truth = throw(8, 4)
    first = PtyCameraTower(tmp_path)  # nobody listens on the port
    first.play(frames)
    deadline = time.monotonic() + 20
    while not first.tower.sent and time.monotonic() < deadline:
        time.sleep(0.05)
    first.stop()
    sent = first.tower.sent[0]
    assert json.loads(first.ring.read_text())["rolls"][0][1:3] == [sent.boot_id, sent.seq]

    second = PtyCameraTower(tmp_path)  # the same ring file
    rec = Recorder()
    try:
        assert second.tower.tower.boot_id == sent.boot_id + 1  # counts up from the stored one
        with Link(second.path, MemoryRollStore(), rec):
            rec.wait(lambda: rec.rolls(), what="the restored roll")
            rec.wait(lambda: second.tower.tower.unacked == 0, what="its ACK")
        (roll,) = rec.rolls()
        assert (roll.boot_id, roll.seq) == (sent.boot_id, sent.seq)
        assert faces(roll) == truth
    finally:
        second.stop()


class LateCamera(IterSource):
    """A camera that is missing at start and plugged in after ``missing`` reads."""

    def __init__(self, frames, missing: int) -> None:
        super().__init__(frames)
        self.missing = missing
        self.error = "camera 7: cannot be opened (not connected?)"

    def probe(self) -> bool:
        return False

    def read(self):
        if self.missing > 0:
            self.missing -= 1
            time.sleep(0.05)
            return None
        return super().read()


def test_no_camera_still_handshakes_heartbeats_and_says_camera_missing(tmp_path):
    frames, truth = throw(9, 3)
    source = LateCamera(frames + [frames[-1]] * 200, missing=50)  # 2.5 s without a camera
    tower = PtyCameraTower(tmp_path, source=source)
    rec = Recorder()
    try:
        with Link(tower.path, MemoryRollStore(), rec):
            rec.wait(lambda: rec.of(Connected), what="connected")
            assert rec.of(Connected)[0].firmware == f"{FIRMWARE}; {CAMERA_MISSING}"
            assert tower.log[0] == ("camera 7: cannot be opened (not connected?): the tower "
                                    "says 'camera missing' and keeps trying")
            # the camera comes: a new boot whose name no longer says it; then the throw
            rec.wait(lambda: rec.of(DeviceReset), timeout=10, what="the new boot")
            rec.wait(lambda: rec.rolls(), timeout=20, what="the throw")
            assert rec.of(Connected)[-1].firmware == FIRMWARE
            assert not rec.of(LinkLost)  # heartbeats kept the link up all along
        assert faces(rec.rolls()[0]) == truth
    finally:
        tower.stop()


def test_a_camera_that_cannot_be_opened_is_named(tmp_path):
    cam = CameraSource(str(tmp_path / "no-camera"), (640, 480))
    assert not cam.probe()
    assert cam.error == f"camera {tmp_path / 'no-camera'}: cannot be opened (not connected?)"
    assert cam.read() is None  # tried again later, not at every frame


def test_bad_frames_are_named_and_nothing_is_sent(tmp_path):
    empty = empty_tray(STYLE, seed=3)
    black = np.zeros_like(empty)
    white = np.full_like(empty, 255)
    small = cv2.resize(empty, (320, 240))
    frames = [empty] * 3 + [small] * 3 + [black] * 6 + [empty] * 6 + [white] * 6 \
        + [empty.astype(np.float32)]
    port = PtyPort(tmp_path / "tower")
    port.plug()
    log: list[str] = []
    tower = CameraTower(kotd_profile(), IterSource(frames), port, ring_file=tmp_path / "r.json",
                        still_frames=4, log=log.append)
    try:
        while tower.step():
            pass
    finally:
        port.unplug()
    assert log == [
        "frame 3: the image is 320x240 but the profile's empty tray is 640x480 (same camera "
        "and resolution needed): skipped",
        "frame 10: the frame is black (mean level 0.0): is the light on and the lens "
        "uncovered? (nothing sent)",
        "frame 22: the frame is white (mean level 255.0): overexposed (nothing sent)",
        "frame 24: not an 8-bit colour image: skipped"]  # the same fault in a row: said once
    assert len(tower.errors) == 6
    assert tower.sent == [] and tower.tower.next_seq == 0 and tower.tower.unacked == 0


def test_a_dice_table_the_protocol_cannot_carry_is_refused_at_start():
    p = Profile()
    p.kind("wheel", [f"f{i}" for i in range(300)])
    with pytest.raises(CameraTowerError, match=r"^tower.yaml: kind 'wheel' has 300 faces; "
                                               r"the protocol carries at most 254$"):
        DiceTable.of(p, "tower.yaml")
    p = Profile()
    p.kind("unknown", ["a", "b"])
    with pytest.raises(CameraTowerError, match="kind 'unknown': the name 'unknown' is the "
                                               "tower's"):
        DiceTable.of(p, "tower.yaml")
    p = Profile()
    for k in range(12):
        p.kind(f"kind{k}", [f"face-number-{i}" for i in range(12)])
    with pytest.raises(CameraTowerError, match=r"a HELLO_REPLY of \d+ bytes; a packet holds "
                                               r"1024"):
        DiceTable.of(p, "tower.yaml")


def test_readings_map_to_the_dice_table():
    from vision.dice import DieReading

    p = kotd_profile()
    table = DiceTable.of(p)
    dice = table.dice([
        DieReading("kotd", "FAME", "black", "clean", 0.9, 300, 200),
        DieReading("d6pips", "5", None, "clean", 0.9, 100, 205),
        DieReading(None, None, None, "unreadable", 0.0, 50, 400),
        DieReading("kotd", "CLAW", "black", "cocked", 0.3, 20, 20),
        DieReading("kotd", None, "black", "clean", 0.2, 500, 20)])
    assert dice == (m.Die(0, 1, 0, 0, m.COCKED, 30), m.Die(1, 1, m.NONE, 0, m.UNREADABLE, 20),
                    m.Die(2, 0, 4, m.NONE, m.CLEAN, 90), m.Die(3, 1, 3, 0, m.CLEAN, 90),
                    m.Die(4, 2, m.NONE, m.NONE, m.UNREADABLE, 0))


def test_a_damaged_ring_file_is_moved_aside_and_said(tmp_path):
    ring = tmp_path / "ring.json"
    ring.write_text('{"camera_tower_ring": 1, "last_boot_id": 5, "rolls": [], "crc": 1}')
    said: list[str] = []
    nv = RingFile(ring, warn=said.append)
    assert nv.ring == [] and nv.last_boot_id == 0 and not ring.exists()
    assert said == [f"{ring}: damaged ring file (its checksum does not match); moved to "
                    "ring.json.damaged, starting with an empty ring: rolls it held are lost"]
    nv.last_boot_id = 9
    nv.save()
    assert RingFile(ring).last_boot_id == 9


def _cli(*args: str, timeout: float = 60) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "firmware_bridge", "camera-tower", *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_cli_damaged_profile_is_named_and_nothing_served(tmp_path):
    profile = tmp_path / "tower.yaml"
    profile.write_text("dice_profile: 1\nimage_size: [640, 480]\nbackground: [oops\n")
    proc = _cli("--profile", str(profile), "--frames", str(tmp_path), "--pty",
                str(tmp_path / "tower"))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3 and out == ""
    assert err.startswith(f"camera-tower: {profile}:4: not valid YAML")
    assert not (tmp_path / "tower").exists()


def test_cli_frames_folder_over_a_pty(tmp_path):
    """python -m firmware_bridge camera-tower --frames DIR --pty PATH: one roll line per
    throw, a file that is no image named and skipped, exit once every roll is acknowledged."""
    profile = tmp_path / "tower.yaml"
    kotd_profile().save(profile)
    frames, truth = throw(12, 4)
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, f in enumerate(frames):
        cv2.imwrite(str(folder / f"{i:03d}.png"), f)
    (folder / "010b.png").write_bytes(b"not a png")
    proc = _cli("--profile", str(profile), "--frames", str(folder), "--fps", "0",
                "--still-frames", "4", "--pty", str(tmp_path / "tower"), "--exit-when-done")
    try:
        first = json.loads(proc.stdout.readline())
        assert first["serving"] == str(tmp_path / "tower") and first["firmware"] == FIRMWARE
        assert first["ring_file"] == str(tmp_path / "tower.ring.json")
        rec = Recorder()
        with Link(first["serving"], MemoryRollStore(), rec):
            out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    lines = [json.loads(x) for x in out.splitlines()]
    (roll,) = [x["roll"] for x in lines if "roll" in x]
    assert Counter(d["face"] for d in roll["dice"]) == truth
    assert lines[-1] == {"rolls_sent": 1, "unacked": 0, "frames": len(frames),
                         "frame_errors": 0}
    assert f"{folder / '010b.png'}: not a readable image (9 bytes): skipped" in err
    assert proc.returncode == 0 and faces(rec.rolls()[0]) == truth


def test_held_still_to_the_wire_short(tmp_path):
    """The benchmark's measure (bench/camera_tower_bench.py), two throws: each is one roll
    with the right faces and its latency is measured (the figure is the benchmark's)."""
    figures = camera_bench.run(throws=2, seed=7, fps=60, kinds=["kotd"], workdir=tmp_path)
    assert (figures["rolls_sent"], figures["rolls_on_wire"], figures["rolls_right"]) == (2, 2, 2)
    assert 0 < figures["held_still_to_wire_ms_median"] < math.inf


def test_serial_transport_on_a_tty_and_after_it_vanishes(tmp_path):
    """--port: the tower's end of a serial port (here the slave of a pty, as /dev/ttyGS0 is a
    tty); a port that goes away is reopened, a missing one is not an error."""
    import os
    import tty

    from firmware_bridge.tower.serial_transport import SerialTransport

    master, slave = os.openpty()
    tty.setraw(slave)
    port = SerialTransport(os.ttyname(slave))
    try:
        assert port.write(b"\x00frame\x00")
        assert os.read(master, 100) == b"\x00frame\x00"
        os.write(master, b"ack")
        assert port.read(0.5) == b"ack"
    finally:
        port.close()
        os.close(master)
        os.close(slave)
    said: list[str] = []
    gone = SerialTransport(str(tmp_path / "ttyGS0"), warn=said.append)
    assert gone.write(b"x") is False and gone.read(0.01) == b""
    gone._retry_at = 0.0
    assert gone.write(b"x") is False  # tried again, said once
    assert len(said) == 1 and said[0].startswith(f"{tmp_path / 'ttyGS0'}: ")
    assert said[0].endswith("(trying again)")


def test_a_reader_network_that_cannot_be_used_is_said_at_start(tmp_path, monkeypatch):
    """A damaged model file: the tower says so once, by name, and reads without it."""
    import vision.dice.taught as taught

    bad = tmp_path / "taught.npz"
    bad.write_bytes(taught.MODEL.read_bytes()[:5000])
    monkeypatch.setattr(taught, "MODEL", bad)
    taught._loaded.cache_clear()
    taught.model_id.cache_clear()
    try:
        port = PtyPort(tmp_path / "tower")
        port.plug()
        log: list[str] = []
        tower = CameraTower(kotd_profile(), IterSource([empty_tray(STYLE, seed=3)]), port,
                            ring_file=tmp_path / "r.json", still_frames=4, log=log.append)
        port.unplug()
        assert len(log) == 1 and log[0].startswith(f"the dice reader: {bad}: not a model file")
        assert log[0].endswith("taught faces are compared by their edges alone")
        assert tower.reader is not None
    finally:
        taught._loaded.cache_clear()
        taught.model_id.cache_clear()
