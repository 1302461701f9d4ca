"""The tower side of the dice tower protocol v1.1 (docs/protocol.md), as pure logic.

No I/O and no clock of its own: the caller feeds host bytes in with receive(), reports rolls
with add_roll(), calls tick() with the uptime in milliseconds, and writes out whatever
take() returns. That keeps the rules testable under CPython with a fake clock, and the same
code runs on a board.

Durability: a new roll is written to the store before any frame that carries it leaves
take(), so a roll the host may have seen is always in ring.bin. Removals (ACKs) are saved
lazily, at most SAVE_DELAY_MS later: losing one only costs a duplicate the host drops.
"""

import struct

from cobs import Decoder, frame

PROTO_MAJOR = 1
PROTO_MINOR = 1

HELLO = 0x01
ACK = 0x02
ACK_DROPPED = 0x03   # 1.1: a notice's own acknowledgement
HELLO_REPLY = 0x81
ROLL = 0x82
HEARTBEAT = 0x83
DROPPED = 0x84

NONE = 255
CLEAN = 0
COCKED = 1
UNREADABLE = 2
DROP_OVERFLOW = 1
DROP_REBOOT = 2

FIRST_WAIT_MS = 200
MAX_WAIT_MS = 2000
HEARTBEAT_MS = 1000
SAVE_DELAY_MS = 250
MIN_RING = 32
MAX_DICE = 46        # 19 bytes of ROLL header and CRC + 5 per die <= 250
NOTICE_MAX = 16      # unacknowledged DROPPED notices kept before they are merged
U32 = 0xFFFFFFFF


class Roll:
    """One unacknowledged roll: its identity, its packed dice and its resend timer."""

    def __init__(self, boot_id, seq, uptime, dice):
        self.boot_id = boot_id
        self.seq = seq
        self.uptime = uptime
        self.dice = dice      # bytes, 5 per die: slot kind face colour status
        self.attempt = 0      # the attempt number of the next copy sent
        self.due = None       # uptime of the next resend; None until first sent
        self.wait = FIRST_WAIT_MS

    def packet(self):
        return struct.pack("<BIIIBB", ROLL, self.boot_id, self.seq, self.uptime & U32,
                           min(self.attempt, 255), len(self.dice) // 5) + self.dice


class Notice:
    """One unacknowledged DROPPED notice; a 1.1 host clears it with ACK_DROPPED(boot_id,
    first_seq, count), a 1.0 host with ACK(boot_id, first_seq)."""

    def __init__(self, boot_id, first_seq, count, reason):
        self.boot_id = boot_id
        self.first_seq = first_seq
        self.count = count
        self.reason = reason
        self.attempt = 0
        self.due = None
        self.wait = FIRST_WAIT_MS

    def packet(self):
        return struct.pack("<BIIIB", DROPPED, self.boot_id, self.first_seq, self.count,
                           self.reason)


def pack_str(text):
    raw = text.encode("utf-8")
    if len(raw) > 64:
        raise ValueError("string over 64 bytes: " + text)
    return bytes((len(raw),)) + raw


class Tower:
    """Protocol state of one boot. kinds: sequence of (name, faces); colours: names."""

    def __init__(self, boot_id, kinds, colours, n_slots, firmware, ring_size=MIN_RING,
                 store=None):
        if not 0 < boot_id <= U32:
            raise ValueError("boot_id must be a non-zero u32")
        self.boot_id = boot_id
        self.kinds = kinds
        self.colours = colours
        self.n_slots = n_slots
        self.firmware = firmware
        self.ring_size = max(MIN_RING, min(int(ring_size), 0xFFFF))
        self.store = store
        self.decoder = Decoder()
        self.ring = []        # Roll, oldest first
        self.notices = []     # Notice, oldest first
        self.next_seq = 0
        self.dropped_total = 0
        self.next_heartbeat = HEARTBEAT_MS
        self.host_minor = 0   # the minor version of the last HELLO; 0 until one comes
        self.out = []         # frames waiting for take()
        self.must_save = False   # a roll was added and is not yet in the store
        self.save_at = None      # uptime by which a lazy save (after ACKs) is due
        self._reply_tail = self._describe()
        if len(self._reply_tail) + 22 > 250:
            raise ValueError("HELLO_REPLY would exceed 250 bytes: fewer kinds, faces or colours")

    # -- boot ---------------------------------------------------------------------------

    def boot(self, now, restored=None):
        """Announce the boot and resend what earlier boots left unacknowledged.

        restored: (rolls, notices, lost, damaged) as Store.load() gives them, or None.
        """
        if restored is not None:
            rolls, notices, lost, damaged = restored
            for old in rolls:
                roll = Roll(old[0], old[1], old[2], old[3])
                roll.attempt = 1  # it was (very likely) sent in an earlier boot
                self.ring.append(roll)
            for n in notices:
                notice = Notice(n[0], n[1], n[2], n[3])
                notice.attempt = 1
                notice.due = 0  # sent in an earlier boot: it must not grow any more
                self.notices.append(notice)
            for boot_id, first_seq, count in lost:
                self._notice(boot_id, first_seq, count, DROP_REBOOT)
            while len(self.ring) > self.ring_size:
                self._drop_oldest()
        # saved at once: ring.bin names this boot, so the next boot id counts up from it
        self.must_save = True
        self.out.append(frame(self._hello_reply(0)))
        self._send_all(now)

    # -- input --------------------------------------------------------------------------

    def receive(self, data, now):
        """Bytes from the host, in any chunking."""
        for packet in self.decoder.feed(data):
            self._handle(packet, now)

    def _handle(self, packet, now):
        kind = packet[0]
        if kind == HELLO:
            # A HELLO of another major version may be longer; it is answered all the same.
            if len(packet) < 7:
                return
            major = packet[1]
            if major == PROTO_MAJOR and len(packet) != 7:
                return
            nonce = struct.unpack_from("<I", packet, 3)[0]
            self.out.append(frame(self._hello_reply(nonce)))
            if major == PROTO_MAJOR:
                self.host_minor = packet[2]
                self._send_all(now)
        elif kind == ACK:
            if len(packet) != 9:
                return
            boot_id, seq = struct.unpack_from("<II", packet, 1)
            self._ack(boot_id, seq, now)
        elif kind == ACK_DROPPED:
            if len(packet) != 13:
                return
            boot_id, first_seq, count = struct.unpack_from("<III", packet, 1)
            self._ack_notice(boot_id, first_seq, count, now)
        # Anything else (tower-to-host types echoed back, types of a later minor version) is
        # dropped unanswered: a later minor version only adds types.

    def _ack(self, boot_id, seq, now):
        for i in range(len(self.ring)):
            roll = self.ring[i]
            if roll.seq == seq and roll.boot_id == boot_id:
                self.ring.pop(i)
                self._changed(now)
                return
        if self.host_minor == 0:
            # a 1.0 host: one ACK key for rolls and notices
            for i in range(len(self.notices)):
                notice = self.notices[i]
                if notice.first_seq == seq and notice.boot_id == boot_id:
                    self.notices.pop(i)
                    self._changed(now)
                    return

    def _ack_notice(self, boot_id, first_seq, count, now):
        """ACK_DROPPED: only the notice with exactly this range (one that grew after the host
        saw it is resent, and acknowledged again with its new count)."""
        for i in range(len(self.notices)):
            notice = self.notices[i]
            if (notice.boot_id == boot_id and notice.first_seq == first_seq
                    and notice.count == count):
                self.notices.pop(i)
                self._changed(now)
                return

    def _changed(self, now):
        if self.save_at is None:
            self.save_at = now + SAVE_DELAY_MS

    # -- rolls --------------------------------------------------------------------------

    def add_roll(self, dice, now):
        """Record one roll: dice is a list of (slot, kind, face, colour, status). Returns
        (boot_id, seq). Raises ValueError on a die the HELLO_REPLY cannot describe."""
        packed = self.pack_dice(dice)
        if len(self.ring) >= self.ring_size:
            self._drop_oldest()
        roll = Roll(self.boot_id, self.next_seq, now, packed)
        self.next_seq = (self.next_seq + 1) & U32
        self.ring.append(roll)
        self.must_save = True
        self._send(roll, now)
        return roll.boot_id, roll.seq

    def pack_dice(self, dice):
        if not dice:
            raise ValueError("a roll with no dice is not sent")
        if len(dice) > min(self.n_slots, MAX_DICE):
            raise ValueError("more dice than slots")
        out = bytearray()
        slots = []
        for die in dice:
            slot, kind, face, colour, status = die
            if not 0 <= slot < self.n_slots or slot in slots:
                raise ValueError("bad or repeated slot %r" % (slot,))
            slots.append(slot)
            if not 0 <= kind < len(self.kinds):
                raise ValueError("unknown kind %r" % (kind,))
            if face != NONE and not 0 <= face < len(self.kinds[kind][1]):
                raise ValueError("unknown face %r" % (face,))
            if colour != NONE and not 0 <= colour < len(self.colours):
                raise ValueError("unknown colour %r" % (colour,))
            if status == CLEAN and face == NONE:
                raise ValueError("a clean die needs a face")
            if status == UNREADABLE and face != NONE:
                raise ValueError("an unreadable die has no face")
            if status not in (CLEAN, COCKED, UNREADABLE):
                raise ValueError("bad status %r" % (status,))
            out += bytes((slot, kind, face, colour, status))
        return bytes(out)

    def _drop_oldest(self):
        roll = self.ring.pop(0)
        self.dropped_total += 1
        self._notice(roll.boot_id, roll.seq, 1, DROP_OVERFLOW)
        self.must_save = True

    def _notice(self, boot_id, first_seq, count, reason):
        """Queue a DROPPED notice, merged into the newest one when that is possible without
        confusing an ACK: only a notice not yet sent may grow, except when NOTICE_MAX notices
        are already waiting (then the newest grows and goes out again)."""
        if reason == DROP_REBOOT:
            self.dropped_total += count
        last = self.notices[-1] if self.notices else None
        if (last is not None and last.boot_id == boot_id and last.reason == reason
                and last.first_seq + last.count == first_seq
                and (last.due is None or len(self.notices) >= NOTICE_MAX)):
            last.count += count
            last.due = None if last.due is None else -1  # -1: resend at the next tick
            last.wait = FIRST_WAIT_MS
            return
        if len(self.notices) >= NOTICE_MAX and last is not None and last.boot_id == boot_id \
                and last.reason == reason and first_seq > last.first_seq:
            # Over the cap and not contiguous: widen the newest notice. The range then also
            # names rolls that were acknowledged; the host keeps those as recorded.
            last.count = first_seq + count - last.first_seq
            last.due = -1
            last.wait = FIRST_WAIT_MS
            return
        self.notices.append(Notice(boot_id, first_seq, count, reason))

    # -- output -------------------------------------------------------------------------

    def _send(self, item, now):
        self.out.append(frame(item.packet()))
        if item.attempt < 255:
            item.attempt += 1
        item.due = now + item.wait
        item.wait = min(item.wait * 2, MAX_WAIT_MS)

    def _send_all(self, now):
        """Everything unacknowledged, at once: notices (about older rolls) then rolls, oldest
        first; the waits start again at FIRST_WAIT_MS."""
        for item in self.notices:
            item.wait = FIRST_WAIT_MS
            self._send(item, now)
        for item in self.ring:
            item.wait = FIRST_WAIT_MS
            self._send(item, now)

    def tick(self, now):
        """Timers: heartbeat, resends that are due (notices, then rolls, oldest first), the
        lazy save."""
        if now >= self.next_heartbeat:
            self.out.append(frame(struct.pack(
                "<BIIIHI", HEARTBEAT, self.boot_id, self.next_seq, now & U32,
                min(len(self.ring), 0xFFFF), self.dropped_total & U32)))
            self.next_heartbeat += HEARTBEAT_MS
            if self.next_heartbeat <= now:
                self.next_heartbeat = now + HEARTBEAT_MS
        for item in self.notices:
            if item.due is None or item.due <= now:
                self._send(item, now)
        for item in self.ring:
            if item.due is not None and item.due <= now:
                self._send(item, now)
        if self.save_at is not None and now >= self.save_at:
            self.must_save = True

    def next_wakeup(self, now):
        """Milliseconds until tick() has something to do (0 when it has now)."""
        due = self.next_heartbeat
        if self.save_at is not None and self.save_at < due:
            due = self.save_at
        for item in self.notices:
            if item.due is None:
                return 0
            if item.due < due:
                due = item.due
        for item in self.ring:
            if item.due is not None and item.due < due:
                due = item.due
        return max(0, due - now)

    def take(self):
        """The frames to write now. The store is brought up to date first, so no roll
        leaves before it is saved."""
        if self.must_save:
            self.save()
        if not self.out:
            return b""
        data = b"".join(self.out)
        self.out = []
        return data

    def save(self):
        if self.store is not None:
            self.store.save(
                self.boot_id,
                [(r.boot_id, r.seq, r.uptime, r.dice) for r in self.ring],
                [(n.boot_id, n.first_seq, n.count, n.reason) for n in self.notices])
        self.must_save = False
        self.save_at = None

    # -- messages -----------------------------------------------------------------------

    def _describe(self):
        out = bytearray(pack_str(self.firmware))
        out.append(len(self.colours))
        for name in self.colours:
            out += pack_str(name)
        out.append(len(self.kinds))
        for name, faces in self.kinds:
            out += pack_str(name)
            out.append(len(faces))
            for face in faces:
                out += pack_str(face)
        out.append(self.n_slots)
        return bytes(out)

    def _hello_reply(self, nonce):
        return struct.pack("<BBBIIIH", HELLO_REPLY, PROTO_MAJOR, PROTO_MINOR, nonce & U32,
                           self.boot_id, self.next_seq, self.ring_size) + self._reply_tail
