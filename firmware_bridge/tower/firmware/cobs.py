"""COBS framing with CRC-32 (docs/protocol.md, section 2), for MicroPython and CPython.

A frame on the wire is COBS(type | body | crc32_le) followed by one 0x00. The decoder takes
bytes in any chunking and hands back checked packets (type | body, CRC removed); anything
it cannot check is counted and forgotten, never answered and never raised.
"""

import struct

try:
    from binascii import crc32 as _crc32
except ImportError:  # a port built without binascii.crc32: a small table-less fallback
    _crc32 = None

MAX_PACKET = 250   # type + body + CRC, before encoding
MAX_ENCODED = 252  # its COBS encoding, without the delimiter
MIN_PACKET = 5     # a type byte and the CRC


def crc32(data):
    if _crc32 is not None:
        return _crc32(data) & 0xFFFFFFFF
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def encode(data):
    """COBS-encode data; the result holds no 0x00."""
    out = bytearray()
    code_at = 0
    out.append(0)  # placeholder for the first code byte
    code = 1
    for byte in data:
        if byte == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(byte)
            code += 1
            if code == 255:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def decode(data):
    """Invert encode(); None when data is not valid COBS (a code past the end, or a 0x00)."""
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
        j = i + 1
        while j < end:
            byte = data[j]
            if byte == 0:
                return None
            out.append(byte)
            j += 1
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def frame(packet):
    """type | body -> the bytes on the wire: CRC appended, COBS-encoded, 0x00-terminated."""
    full = bytes(packet) + struct.pack("<I", crc32(packet))
    if len(full) > MAX_PACKET:
        raise ValueError("packet too long")
    return encode(full) + b"\x00"


class Decoder:
    """Streaming frame decoder: feed(bytes) -> list of checked packets (type | body).

    Holds at most MAX_ENCODED bytes of a frame not yet ended; an over-long run is skipped up
    to the next 0x00 (an oversized frame).
    """

    def __init__(self):
        self.buf = bytearray()
        self.skipping = False
        self.frames = 0
        self.bad = 0
        self.crc_errors = 0
        self.oversized = 0

    def reset(self):
        self.buf = bytearray()
        self.skipping = False

    def feed(self, data):
        packets = []
        start = 0
        n = len(data)
        while start < n:
            end = data.find(b"\x00", start)
            if end < 0:
                if not self.skipping:
                    if len(self.buf) + (n - start) > MAX_ENCODED:
                        self.buf = bytearray()
                        self.skipping = True
                        self.oversized += 1
                    else:
                        self.buf += data[start:]
                break
            if self.skipping:
                self.skipping = False
            elif len(self.buf) + (end - start) > MAX_ENCODED:
                self.oversized += 1
                self.buf = bytearray()
            else:
                self.buf += data[start:end]
                if self.buf:
                    packet = self._check(self.buf)
                    self.buf = bytearray()
                    if packet is not None:
                        packets.append(packet)
            start = end + 1
        return packets

    def _check(self, encoded):
        decoded = decode(encoded)
        if decoded is None or len(decoded) < MIN_PACKET:
            self.bad += 1
            return None
        body = decoded[:-4]
        if crc32(body) != struct.unpack("<I", decoded[-4:])[0]:
            self.crc_errors += 1
            return None
        self.frames += 1
        return body
