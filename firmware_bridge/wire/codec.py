"""Bytes <-> frames for the dice tower protocol (docs/protocol.md, section 2). No I/O.

A frame on the wire is ``COBS(type | body | crc32_le) 0x00``. :class:`FrameDecoder` takes
bytes in any chunking (one byte at a time, half a frame, ten frames and some noise) and
returns the packets it could check; everything it had to throw away is counted, never raised.
Its buffer never holds more than one maximal frame.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

MAX_PACKET = 1024
"""Largest packet (type + body + CRC) before COBS encoding."""
MAX_ENCODED = MAX_PACKET + MAX_PACKET // 254 + 1
"""Largest COBS encoding of a packet, without the 0x00 delimiter."""
MIN_PACKET = 5
"""A type byte and the CRC."""


class FrameTooLarge(ValueError):
    """Raised by :func:`encode_frame` for a packet over :data:`MAX_PACKET` bytes."""


def cobs_encode(data: bytes) -> bytes:
    """COBS-encode ``data``; the result contains no 0x00 byte."""
    out = bytearray()
    block = bytearray()
    for byte in data:
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out += block
                block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes | None:
    """Invert :func:`cobs_encode`; ``None`` when ``data`` is not a valid COBS encoding."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            return None
        end = i + code
        if end > n:
            return None
        chunk = data[i + 1:end]
        if 0 in chunk:
            return None
        out += chunk
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def crc32(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


def encode_frame(packet_without_crc: bytes) -> bytes:
    """``type | body`` -> the bytes on the wire, CRC and delimiter included."""
    packet = packet_without_crc + struct.pack("<I", crc32(packet_without_crc))
    if len(packet) > MAX_PACKET:
        raise FrameTooLarge(f"packet of {len(packet)} bytes; the limit is {MAX_PACKET}")
    return cobs_encode(packet) + b"\x00"


@dataclass
class DecoderCounters:
    frames: int = 0
    crc_errors: int = 0
    bad_frames: int = 0
    oversized_frames: int = 0
    bytes_in: int = 0


class FrameDecoder:
    """Streaming decoder: ``feed(bytes) -> [packet, ...]`` where each packet is
    ``type | body`` with its CRC checked and removed."""

    __slots__ = ("_buf", "_skipping", "counters")

    def __init__(self) -> None:
        self._buf = bytearray()
        self._skipping = False
        self.counters = DecoderCounters()

    @property
    def buffered(self) -> int:
        """Bytes held for a frame not yet ended (never more than :data:`MAX_ENCODED`)."""
        return len(self._buf)

    def reset(self) -> None:
        """Forget a half-received frame (after a reconnect)."""
        self._buf.clear()
        self._skipping = False

    def feed(self, data: bytes) -> list[bytes]:
        counters = self.counters
        counters.bytes_in += len(data)
        packets: list[bytes] = []
        buf = self._buf
        start = 0
        n = len(data)
        while start < n:
            end = data.find(b"\x00", start)
            if end < 0:
                piece_len = n - start
                if not self._skipping:
                    if len(buf) + piece_len > MAX_ENCODED:
                        buf.clear()
                        self._skipping = True
                        counters.oversized_frames += 1
                    else:
                        buf += data[start:]
                break
            if self._skipping:
                self._skipping = False
            elif len(buf) + (end - start) > MAX_ENCODED:
                counters.oversized_frames += 1
                buf.clear()
            else:
                buf += data[start:end]
                if buf:
                    packet = self._check(bytes(buf))
                    buf.clear()
                    if packet is not None:
                        packets.append(packet)
            start = end + 1
        return packets

    def _check(self, encoded: bytes) -> bytes | None:
        counters = self.counters
        decoded = cobs_decode(encoded)
        if decoded is not None and len(decoded) > MAX_PACKET:
            # up to 1028 bytes still fit MAX_ENCODED when COBS adds a single byte
            counters.oversized_frames += 1
            return None
        if decoded is None or len(decoded) < MIN_PACKET:
            counters.bad_frames += 1
            return None
        body = decoded[:-4]
        (crc,) = struct.unpack_from("<I", decoded, len(decoded) - 4)
        if crc32(body) != crc:
            counters.crc_errors += 1
            return None
        counters.frames += 1
        return body
