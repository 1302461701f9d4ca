"""The dice tower codec and messages: exact bytes, and no input that can break the decoder."""

from __future__ import annotations

import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.wire import messages as m
from firmware_bridge.wire.codec import (
    MAX_ENCODED,
    MAX_PACKET,
    FrameDecoder,
    FrameTooLarge,
    cobs_decode,
    cobs_encode,
    crc32,
    encode_frame,
)


def test_crc_check_value_is_the_one_in_the_spec():
    assert crc32(b"123456789") == 0xCBF43926


@pytest.mark.parametrize("data, encoded", [
    (b"", b"\x01"),
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255)) + b"\x01"),
])
def test_cobs_known_vectors(data, encoded):
    """Vectors from Cheshire and Baker's paper (and Wikipedia's table)."""
    assert cobs_encode(data) == encoded
    assert cobs_decode(encoded) == data


@given(st.binary(max_size=2000))
def test_cobs_round_trip_never_contains_zero(data):
    encoded = cobs_encode(data)
    assert b"\x00" not in encoded
    assert cobs_decode(encoded) == data
    assert len(encoded) <= len(data) + len(data) // 254 + 1


@pytest.mark.parametrize("bad", [b"\x05\x11\x22", b"\x00", b"\x03\x11\x00"])
def test_cobs_decode_refuses_invalid_codes(bad):
    assert cobs_decode(bad) is None


def test_spec_example_frames_have_these_exact_bytes():
    hello = m.Hello(0x11223344).pack()  # a 1.3 host
    assert hello == bytes.fromhex("01 01 03 44 33 22 11")
    roll = m.Roll(0x0A0B0C0D, 0, 0x01020304, 0, (m.Die(0, 0, 3, m.NONE, m.CLEAN),)).pack()
    assert roll == bytes.fromhex("82 0D0C0B0A 00000000 04030201 00 01 00 00 03 FF 00")
    wire = encode_frame(roll)
    assert wire[-1] == 0 and b"\x00" not in wire[:-1]
    packet = cobs_decode(wire[:-1])
    assert packet[:-4] == roll
    assert struct.unpack("<I", packet[-4:])[0] == zlib.crc32(roll)
    # 1.2: the same roll to a 1.2 host, the die read at 97 %
    roll_c = m.Roll(0x0A0B0C0D, 0, 0x01020304, 0,
                    (m.Die(0, 0, 3, m.NONE, m.CLEAN, 97),)).pack(confidence=True)
    assert roll_c == bytes.fromhex("85 0D0C0B0A 00000000 04030201 00 01 00 00 03 FF 00 61")
    assert m.parse(roll_c).dice[0].confidence == 97


def test_the_1_3_frames_have_these_exact_bytes():
    """The die to check of section 4.9, as its example shows it."""
    look = m.DieLook(0x0A0B0C0D, 0, 1).pack()
    assert look == bytes.fromhex("0B 0D0C0B0A 00000000 01")
    pic = m.DiePicture(0x01020304, 0x0A0B0C0D, 0, 1, 0x1A2B, 192, 192, "d6", 0x0140, 0x00C8,
                       ("3", "5")).pack()
    assert pic == bytes.fromhex("89 04030201 0D0C0B0A 00000000 01 2B1A0000 C000 C000"
                                "02 6436 4001 C800 02 0133 0135")
    keep = m.KeepExample(0x01020304, "3", "").pack()
    assert keep == bytes.fromhex("0C 04030201 01 33 00")
    assert [m.parse(p) for p in (look, pic, keep)] == [
        m.DieLook(0x0A0B0C0D, 0, 1),
        m.DiePicture(0x01020304, 0x0A0B0C0D, 0, 1, 0x1A2B, 192, 192, "d6", 320, 200,
                     ("3", "5")),
        m.KeepExample(0x01020304, "3", "")]


def test_oversized_packet_is_refused_when_encoding():
    with pytest.raises(FrameTooLarge):
        encode_frame(b"\x82" + bytes(MAX_PACKET))


SAMPLE_MESSAGES = [
    m.Hello(7),
    m.Ack(0xDEADBEEF, 42),
    m.Heartbeat(5, 9, 123456, 2, 0),
    m.Dropped(5, 3, 2, m.DROP_OVERFLOW),
    m.Roll(5, 3, 99, 2, (m.Die(0, 1, 11, 0, m.CLEAN), m.Die(1, 1, m.NONE, 1, m.COCKED))),
    m.HelloReply(1, 0, 7, 5, 10, 32, "ref 1.0", ("red", "yellow"),
                 (m.DieKind("d12", tuple(str(i) for i in range(1, 13))),
                  m.DieKind("kotd", ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER"))),
                 8),
    # 1.2
    m.TeachStart("spawn"),
    m.TeachStart("coin", ("HEADS", "TAILS")),
    m.TeachStop(),
    m.TeachAnswer(0xCAFE, "CLAW"),
    m.TeachAnswer(9, ""),
    m.TeachUndo(9),
    m.PictureAck(9),
    m.Snapshot(3, 480),
    m.Picture(9, m.PURPOSE_TEACH, 5000, 192, 192, "spawn", 320, 200, "NO_SPAWN"),
    m.Picture(10, m.PURPOSE_SNAPSHOT, 65536, 480, 360, "", 0, 0, "3 dice, 3 clean"),
    m.PictureData(9, 1000, bytes(range(256)) * 3),
    m.TeachStatus(1, "spawn", 3, (("NO_SPAWN", 2), ("TILE_UNDER_YOU", 0)), "throw the dice"),
    # 1.3
    m.DieLook(0x0A0B0C0D, 7, 2),
    m.KeepExample(0xCAFE, "CLAW"),
    m.KeepExample(9, "7", "red"),
    m.DiePicture(9, 0x0A0B0C0D, 7, 2, 6000, 192, 192, "kotd", 320, 200,
                 ("CLAW", "HEART", "FAME")),
    m.DiePicture(10, 5, 0, 0, 1, 192, 192, "unknown", 0, 0),
]


@pytest.mark.parametrize("msg", SAMPLE_MESSAGES, ids=lambda x: type(x).__name__)
def test_every_message_round_trips(msg):
    assert m.parse(msg.pack()) == msg
    frames = FrameDecoder().feed(encode_frame(msg.pack()))
    assert [m.parse(p) for p in frames] == [msg]


@pytest.mark.parametrize("packet, problem", [
    (b"\x7f", "unknown message type 0x7F"),
    (m.Ack(1, 2).pack()[:-1], "body ends"),
    (m.Ack(1, 2).pack() + b"\x00", "unexpected bytes"),
    (b"\x81" + bytes(16) + b"\x05ab", "runs past the end"),
    # 1.2
    (m.Picture(0, 1, 10, 1, 1).pack(), "picture id 0"),
    (m.Picture(1, 3, 10, 1, 1).pack(), "purpose 3"),
    (m.Picture(1, 1, m.MAX_PICTURE + 1, 1, 1).pack(), "1 to 65536"),
    (m.PictureData(1, 0, b"").pack(), "PICTURE_DATA of 0 bytes"),
    (m.PictureData(1, 0, bytes(1001)).pack(), "PICTURE_DATA of 1001 bytes"),
    (m.PictureData(1, m.MAX_PICTURE - 10, bytes(11)).pack(), "runs past"),
    (m.TeachStatus(4, "k", 3).pack(), "state 4"),
    (m.Roll(1, 0, 0, 0, (m.Die(0, 0, 0, 0, 0, 101),)).pack(confidence=True), "confidence 101"),
    (m.Snapshot(1, 8).pack(), "max width 8"),
    # 1.3
    (m.DiePicture(0, 5, 0, 0, 10, 1, 1, "d6", 0, 0).pack(), "DIE_PICTURE with picture id 0"),
    (m.DiePicture(1, 0, 0, 0, 10, 1, 1, "d6", 0, 0).pack(), "DIE_PICTURE with boot id 0"),
    (m.DiePicture(1, 5, 0, 0, 0, 1, 1, "d6", 0, 0).pack(), "DIE_PICTURE of 0 bytes"),
    (m.DiePicture(1, 5, 0, 0, m.MAX_PICTURE + 1, 1, 1, "d6", 0, 0).pack(), "1 to 65536"),
    (m.DiePicture(1, 5, 0, 0, 10, 1, 1, "d6", 0, 0, tuple("1234")).pack(), "of 4 faces"),
    (m.DiePicture(1, 5, 0, 0, 10, 1, 1, "d6", 0, 0, ("1",)).pack()[:-1], "runs past"),
    (m.DieLook(0, 1, 0).pack(), "DIE_LOOK with boot id 0"),
    (m.DieLook(5, 1, 0).pack() + b"\x00", "unexpected bytes"),
    (m.KeepExample(0, "1").pack(), "KEEP_EXAMPLE with picture id 0"),
    (m.KeepExample(3, "1").pack()[:-1], "body ends"),
])
def test_bad_bodies_say_what_is_wrong(packet, problem):
    with pytest.raises(m.BadMessage, match=problem):
        m.parse(packet)


def test_decoder_counts_each_kind_of_damage():
    dec = FrameDecoder()
    good = encode_frame(m.Ack(1, 2).pack())
    packet = bytearray(cobs_decode(good[:-1]))
    packet[2] ^= 0x40  # a bit of the body: COBS still valid, CRC not
    assert dec.feed(cobs_encode(bytes(packet)) + b"\x00") == []
    assert dec.counters.crc_errors == 1
    assert dec.feed(b"\x02\x01\x00") == []  # decodes to 2 bytes: too short
    assert dec.counters.bad_frames == 1
    assert dec.feed(b"\x07" * (MAX_ENCODED + 10)) == []
    assert dec.buffered == 0
    assert dec.feed(b"\x00" + good) == [m.Ack(1, 2).pack()]
    assert dec.counters.oversized_frames == 1
    assert dec.counters.frames == 1


# -- the decoder under hostile input --------------------------------------------------------

packets = st.builds(lambda msg: msg.pack(), st.sampled_from(SAMPLE_MESSAGES))
noise = st.binary(max_size=300)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(noise, packets), max_size=12), noise,
       st.lists(st.integers(1, 64), min_size=1, max_size=8))
def test_every_valid_frame_in_noise_is_recovered(pieces, tail, chunks):
    """Noise then a 0x00 then a frame: the frame always comes out, whatever the noise and
    however the stream is cut into reads."""
    stream = bytearray()
    expected = []
    for junk, packet in pieces:
        stream += junk + b"\x00" + encode_frame(packet)
        expected.append(packet)
    stream += tail
    dec = FrameDecoder()
    got = []
    pos = 0
    i = 0
    while pos < len(stream):
        size = chunks[i % len(chunks)]
        got += dec.feed(bytes(stream[pos:pos + size]))
        assert dec.buffered <= MAX_ENCODED
        pos += size
        i += 1
    # noise can itself contain a valid frame by chance only with a right CRC: allow extras
    # but require every real one, in order
    it = iter(got)
    assert all(any(p == q for q in it) for p in expected)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=4000))
def test_random_bytes_never_raise_and_stay_bounded(data):
    dec = FrameDecoder()
    for packet in dec.feed(data):
        try:
            m.parse(packet)
        except m.BadMessage:
            pass
    assert dec.buffered <= MAX_ENCODED


@settings(max_examples=300, deadline=None)
@given(st.lists(packets, min_size=1, max_size=6), st.data())
def test_mutated_streams_never_yield_a_wrong_packet(msgs, data):
    """Flip, drop or insert bytes: whatever comes out passed its CRC, so it is one of the
    packets that were sent (a CRC-32 collision is not something 300 examples will find)."""
    stream = bytearray(b"".join(encode_frame(p) for p in msgs))
    for _ in range(data.draw(st.integers(1, 5))):
        op = data.draw(st.sampled_from(["flip", "drop", "insert"]))
        pos = data.draw(st.integers(0, len(stream) - 1)) if stream else 0
        if op == "flip" and stream:
            stream[pos] ^= 1 << data.draw(st.integers(0, 7))
        elif op == "drop" and stream:
            del stream[pos]
        else:
            stream.insert(pos, data.draw(st.integers(0, 255)))
    dec = FrameDecoder()
    out = dec.feed(bytes(stream))
    assert all(p in msgs for p in out)
    assert dec.buffered <= MAX_ENCODED
