"""Protocol 1.3, a die to check: the camera tower on a real pseudo-terminal sends a picture of
each die it is not sure of after the roll, answers DIE_LOOK and KEEP_EXAMPLE, and keeps what a
1.2 host or a 1.2-speaking firmware sees unchanged; the host protocol's 1.3 frames driven by
hand for keys, resends, the minor version gate and malformed frames."""

from __future__ import annotations

import copy
import dataclasses
import math
import time

import pytest
import serial

from firmware_bridge.host.events import (
    Connected,
    DiePicture,
    RollEvent,
    TeachStatus,
)
from firmware_bridge.host.link import Link
from firmware_bridge.host.protocol import HostProtocol, TeachingUnavailable
from firmware_bridge.host.rolls import MemoryRollStore
from firmware_bridge.tower.sim import NO_CAMERA, SimTower
from firmware_bridge.wire import messages as m
from firmware_bridge.wire.codec import FrameDecoder, encode_frame
from tests.bridge_support import Recorder
from tests.camera_teach_support import decode
from tests.camera_tower_support import STYLE, PtyCameraTower, kotd_profile
from vision.dice import Profile
from vision.dice.render import SceneDie, render_tray

# a roll of three symbol dice: FAME flat (slot 0), CLAW tilted (slot 1: cocked), HEART flat
DICE = [SceneDie("kotd", "FAME", "black", 200, 200, 0.4),
        SceneDie("kotd", "CLAW", "black", 430, 300, 0.3, tilt_deg=30, tilt_dir=0.5),
        SceneDie("kotd", "HEART", "black", 320, 380, 1.2)]


def throw_frames(dice=DICE, seed: int = 11):
    """The empty tray, then the dice at rest (they stay: the camera keeps seeing them)."""
    empty = [render_tray([], dataclasses.replace(STYLE, seed=seed * 100 + k))[0]
             for k in range(4)]
    still = [render_tray(dice, dataclasses.replace(STYLE, seed=seed * 100 + 10 + k))[0]
             for k in range(8)]
    return empty + still


def statuses(rec: Recorder) -> list[TeachStatus]:
    return rec.of(TeachStatus)


def kotd_tower(tmp_path, seed: int = 71) -> PtyCameraTower:
    """A camera tower whose profile (a copy: keeping changes it) saves to tmp/tower.yaml."""
    tower = PtyCameraTower(tmp_path, profile=copy.deepcopy(kotd_profile()), seed=seed)
    tower.tower.teacher.profile_path = tmp_path / "tower.yaml"
    return tower


def test_a_die_the_tower_is_unsure_of_reaches_the_host_with_its_roll_key_and_can_be_kept(
        tmp_path):
    tower = kotd_tower(tmp_path)
    rec = Recorder()
    link = Link(tower.path, MemoryRollStore(), rec).start()
    try:
        rec.wait(lambda: rec.of(Connected), what="connected")
        assert rec.of(Connected)[0].proto == "1.3"
        assert link.dice_check_unavailable() == ""
        tower.play(throw_frames())
        rec.wait(lambda: rec.rolls(), timeout=30, what="the roll")
        roll = rec.rolls()[0]
        assert [(d.slot, d.face, d.status) for d in roll.dice] == [
            (0, "FAME", "clean"), (1, roll.dice[1].face, "cocked"), (2, "HEART", "clean")]
        # the cocked die follows its roll as a picture, with the faces to pick from
        rec.wait(lambda: rec.of(DiePicture), what="the cocked die's picture")
        pic = rec.of(DiePicture)[0]
        assert pic.key == roll.key and (pic.boot_id, pic.seq) == (roll.boot_id, roll.seq)
        assert pic.slot == 1 and pic.kind == roll.dice[1].kind == "kotd"
        assert pic.faces[0] == "CLAW" and 1 <= len(pic.faces) <= 3
        assert set(pic.faces) <= {"CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER"}
        assert math.hypot(pic.x - 430, pic.y - 300) < 12
        assert (pic.width, pic.height) == (192, 192) and decode(pic.jpeg).shape == (192, 192, 3)
        assert pic.to_json()["event"] == "die_picture"
        time.sleep(0.8)  # acknowledged: not resent, and only the die not read cleanly
        assert len(rec.of(DiePicture)) == 1 and link.counters()["die_pictures"] == 1
        # a disputed reading: the clean FAME die, asked for
        assert link.die_look(roll.key, 0)
        rec.wait(lambda: len(rec.of(DiePicture)) == 2, what="the disputed die's picture")
        look = rec.of(DiePicture)[1]
        assert look.key == roll.key and look.slot == 0 and look.faces[0] == "FAME"
        assert look.picture_id != pic.picture_id and math.hypot(look.x - 200, look.y - 200) < 12
        # kept as a taught example: saved to the profile file, and said
        before = len(kotd_profile().kinds["kotd"].examples["FAME"])
        assert link.keep_example(look.picture_id, "FAME")
        rec.wait(lambda: any(s.message == "FAME: kept" for s in statuses(rec)), what="kept")
        kept = statuses(rec)[-1]
        assert kept.kind == "kotd" and dict(kept.faces)["FAME"] == before + 1
        saved = tmp_path / "tower.yaml"
        assert len(Profile.load(saved).kinds["kotd"].examples["FAME"]) == before + 1
        assert not (tmp_path / "tower.yaml.tmp").exists()
        # a repeat changes nothing and answers again
        n = len(statuses(rec))
        assert link.keep_example(look.picture_id, "FAME")
        rec.wait(lambda: len(statuses(rec)) > n, what="the repeat's answer")
        assert statuses(rec)[-1] == kept
        assert len(Profile.load(saved).kinds["kotd"].examples["FAME"]) == before + 1
        # what the tower cannot keep or show, it says
        for ask, said in ((lambda: link.keep_example(pic.picture_id, "CLAW"),
                           "CLAW: not kept, a tilted die teaches nothing"),
                          (lambda: link.die_look(roll.key, 7), "has no die in slot 7"),
                          (lambda: link.die_look((roll.key[0], 99), 0), "no longer here"),
                          (lambda: link.keep_example(12345, "FAME"), "no longer here")):
            n = len(statuses(rec))
            assert ask()
            rec.wait(lambda n=n: len(statuses(rec)) > n, what=said)
            assert said in statuses(rec)[-1].message
        assert len(Profile.load(saved).kinds["kotd"].examples["CLAW"]) == 3
    finally:
        link.stop()
        tower.stop()


def frames_from(port: serial.Serial, decoder: FrameDecoder, seconds: float) -> list[m.Message]:
    out: list[m.Message] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        data = port.read(4096)
        for packet in decoder.feed(data):
            try:
                out.append(m.parse(packet))
            except m.BadMessage:
                pass
    return out


def test_a_1_2_host_gets_no_1_3_frame_from_a_1_3_tower(tmp_path):
    tower = kotd_tower(tmp_path, seed=72)
    port = serial.serial_for_url(tower.path, baudrate=115200, timeout=0.05)
    decoder = FrameDecoder()
    try:
        port.write(b"\x00" + encode_frame(m.Hello(0x1234, 1, 2).pack()))  # a 1.2 host
        got = frames_from(port, decoder, 0.5)
        reply = next(x for x in got if isinstance(x, m.HelloReply) and x.nonce == 0x1234)
        assert reply.proto_minor == 3
        tower.play(throw_frames(seed=12))
        seen: list[m.Message] = []
        end = time.monotonic() + 30
        while time.monotonic() < end and not any(isinstance(x, m.Roll) for x in seen):
            seen += frames_from(port, decoder, 0.2)
        rolls = [x for x in seen if isinstance(x, m.Roll)]
        assert rolls and rolls[0].dice[1].status == m.COCKED
        port.write(encode_frame(m.Ack(rolls[0].boot_id, rolls[0].seq).pack()))
        seen += frames_from(port, decoder, 1.5)  # the die pictures would be streaming now
        kinds = {type(x) for x in seen}
        assert not kinds & {m.DiePicture, m.Picture, m.PictureData, m.TeachStatus}, kinds
        assert tower.tower.checks.throws and not tower.tower.checks.held  # kept for a look
        # the 1.3 host who comes next can ask about that roll
        port.write(encode_frame(m.Hello(0x5678).pack()))
        frames_from(port, decoder, 0.3)
        port.write(encode_frame(m.DieLook(rolls[0].boot_id, rolls[0].seq, 1).pack()))
        later = frames_from(port, decoder, 2.0)
        pictures = [x for x in later if isinstance(x, m.DiePicture)]
        assert pictures and pictures[0].slot == 1 and "CLAW" in pictures[0].faces
        assert any(isinstance(x, m.PictureData) and x.picture_id == pictures[0].picture_id
                   for x in later)
    finally:
        port.close()
        tower.stop()


def test_the_simulated_tower_as_1_3_says_it_has_no_camera():
    tower = SimTower(seed=1, minor=3)
    tower.feed(encode_frame(m.Hello(1).pack()))
    tower.poll()
    tower.feed(encode_frame(m.DieLook(tower.boot_id, 0, 0).pack())
               + encode_frame(m.KeepExample(5, "3").pack())
               + encode_frame(m.TeachStart("spawn").pack()))
    out = [m.parse(p) for p in tower.poll()]
    assert out == [m.TeachStatus(0, "", 3, (), NO_CAMERA), m.TeachStatus(0, "", 3, (), NO_CAMERA),
                   m.TeachStatus(3, "spawn", 3, (), NO_CAMERA)]
    old = SimTower(seed=2)  # a 1.1 tower drops 1.3 frames unanswered
    old.feed(encode_frame(m.Hello(1).pack()))
    old.poll()
    old.feed(encode_frame(m.DieLook(old.boot_id, 0, 0).pack()))
    assert old.poll() == []


def test_a_1_3_link_to_the_simulated_tower_gets_no_camera(tmp_path):
    from firmware_bridge.host.urlhandlers.protocol_sim import forget

    rec = Recorder()
    link = Link("sim://die-check-nocam?minor=3&seed=4", MemoryRollStore(), rec).start()
    try:
        rec.wait(lambda: rec.of(Connected), what="connected")
        assert rec.of(Connected)[0].proto == "1.3"
        assert link.die_look((1, 0), 0)
        rec.wait(lambda: statuses(rec), what="the answer")
        assert statuses(rec)[-1].message == NO_CAMERA
    finally:
        link.stop()
        forget("die-check-nocam")


def test_a_1_3_host_with_the_1_1_firmware_works_as_before_and_asks_for_no_picture(tmp_path):
    from tests.test_bridge_link import FirmwareAdapter, _firmware_available

    missing = _firmware_available()
    if missing:
        pytest.fail(f"the reference firmware cannot run here: {missing}")
    tower = FirmwareAdapter(tmp_path)
    rec = Recorder()
    link = Link(tower.path, MemoryRollStore(), rec).start()
    try:
        rec.wait(lambda: rec.of(Connected), what="connected")
        assert rec.of(Connected)[0].proto == "1.1"
        tower.roll("d12:red:7 d12:yellow:?cocked")
        rec.wait(lambda: rec.rolls(), what="the roll")
        roll = rec.rolls()[0]
        assert [d.status for d in roll.dice] == ["clean", "cocked"]
        assert "1.3" in link.dice_check_unavailable()
        assert link.die_look(roll.key, 1) is False and link.keep_example(1, "7") is False
        assert not link._commands
        time.sleep(0.5)
        assert not rec.of(DiePicture) and link.counters()["bad_frames"] == 0
        assert link.protocol.counters.unexpected == 0
    finally:
        link.stop()
        tower.stop()


# ---------------------------------------------------------------- the host, driven by hand

def connected_host(minor: int = 3) -> HostProtocol:
    host = HostProtocol(MemoryRollStore(), port="t")
    host.begin(0.0)
    hello = sent(host)[0]
    assert isinstance(hello, m.Hello) and hello.proto_minor == 3
    host.feed(encode_frame(reply(minor, hello.nonce).pack()), 0.0)
    assert host.connected
    host.take_output()
    return host


def reply(minor: int = 3, nonce: int = 0) -> m.HelloReply:
    return m.HelloReply(1, minor, nonce, 0x42, 0, 32, "test", (),
                        (m.DieKind("kotd", ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION",
                                            "POWER")),), 4)


def sent(host: HostProtocol) -> list[m.Message]:
    return [m.parse(p) for p in FrameDecoder().feed(host.take_output())]


def roll_frame(seq: int, uptime: int, face: int = 0) -> bytes:
    return encode_frame(m.Roll(0x42, seq, uptime, 0, (
        m.Die(0, 0, face, m.NONE, m.CLEAN, 99), m.Die(1, 0, m.NONE, m.NONE, m.COCKED, 40),
    )).pack(confidence=True))


def die_picture_frames(pid: int, seq: int, jpeg: bytes, slot: int = 1) -> list[bytes]:
    out = [encode_frame(m.DiePicture(pid, 0x42, seq, slot, len(jpeg), 192, 192, "kotd", 30,
                                     40, ("CLAW", "FAME")).pack())]
    for off in range(0, len(jpeg), m.PICTURE_CHUNK):
        out.append(encode_frame(m.PictureData(pid, off, jpeg[off:off + m.PICTURE_CHUNK]).pack()))
    return out


def test_the_die_picture_carries_the_key_its_roll_was_recorded_under():
    host = connected_host()
    first = [e for e in host.feed(roll_frame(0, 100), 1.0) if isinstance(e, RollEvent)][0]
    # the tower drew boot id 0x42 again: the same seq, other dice, is a new incarnation
    again = [e for e in host.feed(roll_frame(0, 999, face=3), 2.0)
             if isinstance(e, RollEvent)][0]
    assert again.incarnation == 1 and again.key != first.key
    sent(host)
    jpeg = bytes(range(256)) * 10
    events = host.feed(b"".join(die_picture_frames(7, 0, jpeg)), 2.1)
    assert [type(e) for e in events] == [DiePicture]
    pic = events[0]
    assert pic.key == again.key and pic.incarnation == 1 and pic.jpeg == jpeg
    assert (pic.slot, pic.kind, pic.faces, pic.x, pic.y) == (1, "kotd", ("CLAW", "FAME"), 30, 40)
    assert sent(host) == [m.PictureAck(7)]
    # our ACK was lost: the copy is acknowledged again and not reported again
    assert host.feed(b"".join(die_picture_frames(7, 0, jpeg)), 2.5) == []
    assert sent(host) == [m.PictureAck(7)] and host.counters.die_pictures == 1


def test_a_die_picture_before_its_roll_waits_for_the_resend():
    host = connected_host()
    jpeg = bytes(2500)
    frames = die_picture_frames(8, 3, jpeg)
    assert host.feed(b"".join(frames), 1.0) == []  # the ROLL_C was lost on the way
    assert sent(host) == [] and host.counters.die_pictures_early == 1
    host.feed(roll_frame(3, 50), 1.2)  # its resend
    assert [type(x) for x in sent(host)] == [m.Ack]
    events = host.feed(b"".join(frames[:2] + frames[3:]), 1.4)  # a chunk lost: waits
    assert events == [] and host.counters.picture_gaps == 1
    events = host.feed(b"".join(frames), 1.6)
    assert [type(e) for e in events] == [DiePicture] and events[0].seq == 3
    assert sent(host) == [m.PictureAck(8)]


def test_look_and_keep_are_sent_again_until_answered_and_held_across_a_rehandshake():
    host = connected_host()
    host.feed(roll_frame(0, 10), 0.1)
    sent(host)
    host.command(m.DieLook(0x42, 0, 0), 1.0)
    host.command(m.KeepExample(7, "FAME"), 1.0)
    assert sent(host) == [m.DieLook(0x42, 0, 0)]  # one at a time
    host.tick(2.0)  # no answer in a second: again
    assert sent(host) == [m.DieLook(0x42, 0, 0)] and host.counters.commands_resent == 1
    # the picture's header answers the look; the keep goes next
    host.feed(die_picture_frames(9, 0, bytes(100), slot=0)[0], 2.1)
    assert sent(host) == [m.KeepExample(7, "FAME")]
    host.begin(2.2)  # the port reopened before the tower answered
    host.take_output()
    host.tick(3.5)
    assert [type(x) for x in sent(host)] == [m.Hello]  # held, not sent, while handshaking
    host.feed(encode_frame(reply().pack()), 3.6)
    assert sent(host) == [m.KeepExample(7, "FAME")]  # sent again once connected
    host.feed(encode_frame(m.TeachStatus(0, "kotd", 3, (("FAME", 4),), "FAME: kept").pack()),
              3.7)
    host.tick(10.0)
    assert sent(host) == []
    # a tower that comes back as 1.2 takes neither: what waits is dropped, new ones refused
    host.command(m.KeepExample(8, "CLAW"), 10.0)
    sent(host)
    host.begin(10.1)
    host.take_output()
    host.feed(encode_frame(reply(minor=2).pack()), 10.2)
    host.tick(12.0)
    assert not any(isinstance(x, m.KeepExample) for x in sent(host))
    with pytest.raises(TeachingUnavailable, match="needs 1.3"):
        host.command(m.DieLook(0x42, 0, 0))


def test_look_and_keep_go_only_to_a_1_3_tower():
    link = Link("loop://", MemoryRollStore())  # never started: its protocol is driven here
    assert link.die_look((0x42, 0), 0) is False  # no tower yet
    link.protocol = connected_host(minor=2)
    assert "1.3" in link.dice_check_unavailable()
    assert link.die_look((0x42, 0), 0) is False and link.keep_example(5, "FAME") is False
    assert not link._commands
    link.protocol = connected_host(minor=3)
    assert link.die_look((0x42 | 1 << 32, 3), 1) and link.keep_example(5, "FAME", "black")
    assert list(link._commands) == [m.DieLook(0x42, 3, 1), m.KeepExample(5, "FAME", "black")]
    with pytest.raises(ValueError, match="over 64 bytes"):
        link.keep_example(5, "X" * 65)
    with pytest.raises(ValueError, match="boot id 0"):
        link.die_look((0, 3), 1)


def test_malformed_1_3_frames_are_counted_as_bad_frames_and_change_nothing():
    host = connected_host()
    good = m.DiePicture(3, 0x42, 0, 1, 10, 192, 192, "kotd", 1, 2, ("CLAW",)).pack()
    bad = [m.DiePicture(0, 0x42, 0, 1, 10, 1, 1, "kotd", 0, 0).pack(),
           m.DiePicture(3, 0x42, 0, 1, 0, 1, 1, "kotd", 0, 0).pack(),
           m.DiePicture(3, 0x42, 0, 1, m.MAX_PICTURE + 1, 1, 1, "kotd", 0, 0).pack(),
           m.DiePicture(3, 0x42, 0, 1, 10, 1, 1, "kotd", 0, 0, tuple("ABCD")).pack(),
           m.DiePicture(3, 0, 0, 1, 10, 1, 1, "kotd", 0, 0).pack(),
           good[:-1], good + b"\x01", b"\x89"]
    assert host.feed(b"".join(encode_frame(p) for p in bad), 1.0) == []
    assert host.decoder.counters.bad_frames == len(bad) and sent(host) == []
    assert host.connected and host._die_picture is None
    # and a tower drops malformed host frames unanswered
    seen: list[m.Message] = []
    tower = SimTower(seed=3, minor=3, on_command=seen.append)
    tower.feed(encode_frame(m.Hello(1).pack()))
    tower.poll()
    look = m.DieLook(tower.boot_id, 0, 1).pack()
    keep = m.KeepExample(9, "CLAW").pack()
    tower.feed(encode_frame(look[:-1]) + encode_frame(look + b"\x00")
               + encode_frame(m.KeepExample(0, "CLAW").pack()) + encode_frame(keep[:-2])
               + encode_frame(struct_bytes(m.DIE_LOOK, 0)))
    assert seen == [] and tower.poll() == []
    tower.feed(encode_frame(look) + encode_frame(keep))
    assert seen == [m.DieLook(tower.boot_id, 0, 1), m.KeepExample(9, "CLAW")]


def struct_bytes(kind: int, boot_id: int) -> bytes:
    import struct

    return struct.pack("<BIIB", kind, boot_id, 0, 0)
