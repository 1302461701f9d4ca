"""The ring of unacknowledged rolls in a file, so it survives a reboot (protocol.md, 6.3).

Every save writes the whole ring to a temporary file and renames it over ring.bin, so a
power cut leaves either the old or the new ring, never half of one. Layout (little-endian):

    magic     b"TWR1"
    dir_len   u16
    dir       writer_boot u32 | n_rolls u16 | n_rolls x (boot_id u32, seq u32, rec_len u8)
              | n_notices u8 | n_notices x (boot_id u32, first_seq u32, count u32, reason u8)
    dir_crc   u32, CRC-32 of dir
    records   per roll, in dir order: rec_len u8 | body | crc32(body) u32
              body = boot_id u32 | seq u32 | uptime u32 | n_dice u8 | n_dice x 5 bytes

The directory names every roll, so a damaged record still tells which roll was lost
(DROPPED reason 2); the records carry their own lengths and CRCs, so a damaged directory
still lets the intact rolls be restored (their loss, if any, cannot be named then).
"""

import os
import struct
import sys

from cobs import crc32

MAGIC = b"TWR1"
# A board's VFS needs os.sync() to reach flash; on CPython it would sync every disk.
_SYNC = sys.implementation.name == "micropython" and hasattr(os, "sync")


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def encode(writer_boot, rolls, notices):
    """rolls: (boot_id, seq, uptime, dice_bytes); notices: (boot_id, first_seq, count, reason)."""
    directory = bytearray(struct.pack("<IH", writer_boot, len(rolls)))
    records = bytearray()
    for boot_id, seq, uptime, dice in rolls:
        body = struct.pack("<IIIB", boot_id, seq, uptime & 0xFFFFFFFF, len(dice) // 5) + dice
        directory += struct.pack("<IIB", boot_id, seq, len(body))
        records.append(len(body))
        records += body
        records += struct.pack("<I", crc32(body))
    directory += struct.pack("<B", len(notices))
    for notice in notices:
        directory += struct.pack("<IIIB", notice[0], notice[1], notice[2], notice[3])
    return MAGIC + struct.pack("<H", len(directory)) + directory \
        + struct.pack("<I", crc32(directory)) + records


def _record(data, pos):
    """(boot_id, seq, uptime, dice, next_pos) of the record at pos, or None if damaged."""
    if pos >= len(data):
        return None
    rec_len = data[pos]
    end = pos + 1 + rec_len + 4
    if rec_len < 13 or end > len(data):
        return None
    body = data[pos + 1:pos + 1 + rec_len]
    if crc32(body) != struct.unpack_from("<I", data, pos + 1 + rec_len)[0]:
        return None
    boot_id, seq, uptime, n = struct.unpack_from("<IIIB", body, 0)
    if 13 + 5 * n != rec_len:
        return None
    return boot_id, seq, uptime, bytes(body[13:]), end


def _ranges(ids):
    """[(boot_id, seq)] in ring order -> [(boot_id, first_seq, count)] of consecutive runs."""
    out = []
    for boot_id, seq in ids:
        if out and out[-1][0] == boot_id and out[-1][1] + out[-1][2] == seq:
            out[-1] = (boot_id, out[-1][1], out[-1][2] + 1)
        else:
            out.append((boot_id, seq, 1))
    return out


def decode(data):
    """ring.bin bytes -> (writer_boot, rolls, notices, lost, damaged).

    lost: (boot_id, first_seq, count) runs of rolls the directory names but whose records
    are damaged. damaged: True when anything at all was wrong with the file.
    """
    rolls = []
    if len(data) < 10 or data[:4] != MAGIC:
        return 0, rolls, [], [], len(data) > 0
    dir_len = struct.unpack_from("<H", data, 4)[0]
    dir_end = 6 + dir_len
    directory = data[6:dir_end]
    dir_ok = (dir_end + 4 <= len(data) and dir_len >= 7
              and crc32(directory) == struct.unpack_from("<I", data, dir_end)[0])
    pos = dir_end + 4
    if not dir_ok:
        # Salvage: the records are self-checking; keep every intact one up to the first bad.
        while True:
            rec = _record(data, pos)
            if rec is None:
                break
            rolls.append(rec[:4])
            pos = rec[4]
        return 0, rolls, [], [], True
    writer_boot, n_rolls = struct.unpack_from("<IH", directory, 0)
    at = 6
    notices = []
    lost_ids = []
    damaged = False
    try:
        for _ in range(n_rolls):
            boot_id, seq, rec_len = struct.unpack_from("<IIB", directory, at)
            at += 9
            rec = _record(data, pos)
            if rec is None or rec[0] != boot_id or rec[1] != seq or rec[4] != pos + rec_len + 5:
                lost_ids.append((boot_id, seq))
                damaged = True
            else:
                rolls.append(rec[:4])
            pos += rec_len + 5
        n_notices = directory[at]
        at += 1
        for _ in range(n_notices):
            notices.append(struct.unpack_from("<IIIB", directory, at))
            at += 13
    except (IndexError, ValueError):  # a directory with a right CRC but a wrong shape
        return 0, rolls, [], _ranges(lost_ids), True
    if pos != len(data):
        damaged = True
    return writer_boot, rolls, notices, _ranges(lost_ids), damaged


def next_boot_id(writer_boot, avoid):
    """Protocol 1.1 boot ids: one more than the boot that last wrote ring.bin (skipping 0
    and every boot id in avoid, those still named in the ring), or a random non-zero u32
    when there is no readable ring.bin. A random start and a counter: two boots of one
    tower never share an id, two towers almost never."""
    if writer_boot:
        boot_id = writer_boot % 0xFFFFFFFF + 1
        while boot_id in avoid:
            boot_id = boot_id % 0xFFFFFFFF + 1
        return boot_id
    while True:
        try:
            raw = os.urandom(4)
            boot_id = raw[0] | raw[1] << 8 | raw[2] << 16 | raw[3] << 24
        except (AttributeError, OSError, NotImplementedError):
            import random
            boot_id = random.getrandbits(16) << 16 | random.getrandbits(16)
        if boot_id != 0 and boot_id not in avoid:
            return boot_id


class Store:
    """ring.bin in the current directory (the flash root on a board)."""

    def __init__(self, path="ring.bin"):
        self.path = path
        self.tmp = path + ".tmp"
        self.damaged = False
        self.writer_boot = 0
        self.saves = 0

    def read(self):
        for path in (self.path, self.tmp):
            # ring.tmp only counts when ring.bin is missing: a port whose rename cannot
            # replace a file removes ring.bin first (see save), and may stop right there.
            if _exists(path):
                with open(path, "rb") as f:
                    return f.read()
        return b""

    def load(self):
        """(rolls, notices, lost, damaged) from the file, as Tower.boot() takes them; the
        boot id of the boot that wrote it goes to writer_boot. See decode()."""
        writer_boot, rolls, notices, lost, damaged = decode(self.read())
        self.writer_boot = writer_boot
        self.damaged = damaged
        return rolls, notices, lost, damaged

    def save(self, writer_boot, rolls, notices):
        data = encode(writer_boot, rolls, notices)
        with open(self.tmp, "wb") as f:
            f.write(data)
        try:
            os.rename(self.tmp, self.path)
        except OSError:  # FAT on some ports: rename does not replace an existing file
            try:
                os.remove(self.path)
            except OSError:
                pass
            os.rename(self.tmp, self.path)
        if _SYNC:
            os.sync()
        self.saves += 1
