"""The host side of protocol 1.3 as a state machine: bytes in, events and bytes out. No I/O.

:class:`HostProtocol` is driven by the reader loop (``link.py``) and by tests directly. It
never reads a clock itself: every call takes ``now`` (``time.monotonic()`` seconds). A roll is
passed to the :class:`~firmware_bridge.host.rolls.RollStore` (which fsyncs it) *before* its ACK is
queued, so a roll is acknowledged only once it is durable: duplicates are ACKed because the
first copy is in the journal, never because of a verdict of the host's.

Bounded: every count and sequence jump read from the wire is capped (``PENDING_WINDOW``,
``messages.MAX_DROP_COUNT``, ``MAX_OLD_BOOTS``), so the work per frame and the memory held
do not depend on what a tower claims. 1.2's pictures: one being assembled per purpose, at
most ``messages.MAX_PICTURE`` bytes each, the ids of the last ``DONE_PICTURES`` kept.

1.2 commands (teaching, the tray snapshot) are queued with :meth:`HostProtocol.command`, only
to a tower whose HELLO_REPLY says minor 2 or more (:class:`TeachingUnavailable` otherwise).
A teaching command is sent again until a TEACH_STATUS shows its effect (4.8: "a host command
that was lost shows as a status that did not change"), and held while the link re-handshakes.

1.3, a die to check (4.9): DIE_PICTURE and its data are taken like a picture (one at a time,
the ids of the last ``DONE_PICTURES`` kept) and reported as a ``DiePicture`` with its roll's
key; DIE_LOOK and KEEP_EXAMPLE go only to a tower of minor 3 or more, each sent again until
the tower answers (a DIE_PICTURE of that die or a TEACH_STATUS for a look, a TEACH_STATUS for
a keep), held across a re-handshake like the teaching commands.
"""

from __future__ import annotations

import os
import struct
from collections import deque
from dataclasses import dataclass

from ..wire import messages as m
from ..wire.codec import FrameDecoder, encode_frame
from .events import (
    Connected,
    DeviceReset,
    DiePicture,
    DieReading,
    HandshakeTimeout,
    LinkEvent,
    LinkLost,
    ProtocolMismatch,
    RollEvent,
    RollsDropped,
    RollsMissing,
    TeachPicture,
    TeachStatus,
    TraySnapshot,
    roll_boot_key,
)
from .rolls import RollStore

HELLO_INTERVAL = 0.5
HANDSHAKE_TIMEOUT = 3.0
SILENCE_TIMEOUT = 3.0
PENDING_WINDOW = 1024
"""Rolls below a heartbeat's next_seq that the host waits for: the newest this many. A tower
cannot hold more unacknowledged rolls than this without saying it dropped some."""
MAX_OLD_BOOTS = 4
"""Earlier boots whose missing rolls the host still waits for after resets."""
MAX_INCARNATIONS = 8
"""Uses of one boot id searched for a duplicate (a tower reusing ids is already faulty)."""
DONE_PICTURES = 16
"""Pictures remembered as received, so a resent copy is acknowledged but not shown twice."""
TEACHING_MINOR = 2
CHECK_MINOR = 3
"""A tower's minor from which it takes DIE_LOOK and KEEP_EXAMPLE (and may send DIE_PICTURE)."""
TEACH_RESEND = 1.0
"""A teaching command with no effect seen this long after it was sent is sent again (the
tower says its status at once after every command, and once a second while teaching)."""
TEACH_TRIES = 4
"""Sends of one teaching command before the host gives up on seeing its effect."""
MAX_TEACH_COMMANDS = 32
"""Teaching commands waiting for their effect (more: the oldest are given up)."""


class TeachingUnavailable(RuntimeError):
    """A 1.2 command for a tower that does not speak 1.2 (or no tower yet): says why."""


@dataclass
class ProtocolCounters:
    rolls_recorded: int = 0
    retransmits: int = 0
    duplicates: int = 0
    acks_sent: int = 0
    drops_declared: int = 0
    rolls_lost: int = 0
    late_rolls: int = 0  # recorded after the host had reported them lost or missing
    resets: int = 0
    reused_boot_ids: int = 0
    unreadable_dice: int = 0  # dice out of the HELLO_REPLY's range, recorded as unreadable
    stale_frames: int = 0  # heartbeats of an earlier boot, after its reset
    unknown_types: int = 0  # frames of a later minor version's types: ignored
    pictures: int = 0  # 1.2: whole pictures received (each once)
    commands_resent: int = 0  # 1.2: teaching commands sent again (no effect seen yet)
    commands_given_up: int = 0  # 1.2: teaching commands whose effect was never seen
    picture_gaps: int = 0  # 1.2: picture data out of order or of no announced picture
    die_pictures: int = 0  # 1.3: whole die pictures received (each once)
    die_pictures_early: int = 0  # 1.3: whole before their roll was recorded: taken on resend
    unexpected: int = 0  # valid frames the host did not expect (a roll before the handshake...)


@dataclass
class _Command:
    """A teaching command until a TEACH_STATUS shows its effect."""

    msg: m.Message
    baseline: m.TeachStatus | None = None  # the last status before it was first sent
    sent_at: float | None = None
    tries: int = 0

    def took_effect(self, status: m.TeachStatus) -> bool:
        msg = self.msg
        if isinstance(msg, m.TeachStart):
            return status.state == 3 or (status.state in (1, 2) and status.kind == msg.kind)
        if isinstance(msg, m.TeachStop):
            return status.state != 1
        # an answer or an undo changes the counts or the message; once teaching is over
        # it has nothing left to do. 1.3: a look or a keep is answered with a status (the
        # tower says none while not teaching, and a new one while teaching)
        return status.state != 1 or status != self.baseline

    def answered_by(self, picture: m.DiePicture) -> bool:
        """1.3: a DIE_PICTURE of the die a DIE_LOOK asked about answers it."""
        msg = self.msg
        return isinstance(msg, m.DieLook) and (msg.boot_id, msg.seq, msg.slot) == (
            picture.boot_id, picture.seq, picture.slot)


class HostProtocol:
    """One instance per link; survives reconnects (it remembers which rolls are pending)."""

    def __init__(self, store: RollStore, *, port: str = "", nonce_source=os.urandom) -> None:
        self.store = store
        self.port = port
        self.decoder = FrameDecoder()
        self.counters = ProtocolCounters()
        self._nonce_source = nonce_source
        self.hello: m.HelloReply | None = None
        self._tables: dict[int, m.HelloReply] = {}  # boot id -> its HELLO_REPLY (last 8)
        self._earlier_boots: deque[int] = deque(maxlen=16)
        self.connected = False
        self.mismatch = False
        self._bad_hello = ""
        self._nonce = 0
        # nonces of HELLOs no HELLO_REPLY has answered yet: until one is answered the tower
        # may not know this host's minor version (a HELLO after a boot announcement lost)
        self._unanswered: deque[int] = deque(maxlen=8)
        self._hello_sent_at = 0.0
        self._handshake_started = 0.0
        self._last_frame_at = 0.0
        self._out = bytearray()
        self.boot_id: int | None = None
        self._next_seq = 0  # highest next_seq heard for the current boot
        self._pending: dict[int, float] = {}  # seq of the current boot -> when first missed
        self._reported_missing: frozenset[int] = frozenset()
        self._highest_recorded = -1
        # earlier boots' rolls still unaccounted for after a reset: (boot id, seqs)
        self._old_pending: deque[tuple[int, set[int]]] = deque(maxlen=MAX_OLD_BOOTS)
        # 1.2: purpose -> (header, bytes so far) of the picture being received
        self._pictures: dict[int, tuple[m.Picture, bytearray]] = {}
        self._done_pictures: deque[int] = deque(maxlen=DONE_PICTURES)
        # 1.2 commands: teaching ones until their effect shows, in the order given; a tray
        # snapshot asked while the link re-handshakes
        self._teach: list[_Command] = []
        self._status: m.TeachStatus | None = None  # the tower's last TEACH_STATUS
        self._held_snapshot: m.Snapshot | None = None
        # 1.3: looks and keeps until the tower answers, in the order given (apart from the
        # teaching ones: a TEACH_START or TEACH_STOP does not replace them)
        self._checks: list[_Command] = []
        self._die_picture: tuple[m.DiePicture, bytearray] | None = None  # being received
        self._done_die_pictures: deque[int] = deque(maxlen=DONE_PICTURES)

    # -- output ---------------------------------------------------------------------------
    def take_output(self) -> bytes:
        """Bytes to write to the port now (HELLOs and ACKs), emptied by the call."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def _send(self, msg: m.Message) -> None:
        self._out += encode_frame(msg.pack())

    # -- 1.2 commands ---------------------------------------------------------------------
    def teaching_unavailable(self) -> str:
        """Why the tower cannot be taught from here ("" when it can)."""
        if self.hello is None or not self.connected:
            return "no dice tower is connected"
        return self._too_old()

    def commands_refused(self) -> str:
        """Why a 1.2 command cannot even be held for later ("" when it can): no tower has
        answered yet, or the last one does not speak 1.2. A 1.2 tower being reconnected to
        takes commands (they go once it is connected)."""
        if self.hello is None:
            return "no dice tower is connected"
        return self._too_old()

    def checks_refused(self) -> str:
        """Why a 1.3 command (DIE_LOOK, KEEP_EXAMPLE) cannot be sent or held ("" when it
        can): no tower answered yet, or the last one does not speak 1.3."""
        if self.hello is None:
            return "no dice tower is connected"
        if self.mismatch or self.hello.proto_minor < CHECK_MINOR:
            return (f"this tower speaks protocol {self.hello.proto_major}."
                    f"{self.hello.proto_minor}; a die's picture needs 1.{CHECK_MINOR}")
        return ""

    def _too_old(self) -> str:
        """Why the last tower heard cannot take 1.2 commands ("" when it can)."""
        assert self.hello is not None
        if self.mismatch or self.hello.proto_minor < TEACHING_MINOR:
            return (f"this tower speaks protocol {self.hello.proto_major}."
                    f"{self.hello.proto_minor}; teaching needs 1.{TEACHING_MINOR} (a camera "
                    "tower)")
        return ""

    def command(self, msg: m.Message, now: float | None = None) -> None:
        """Queue a 1.2 host -> tower message (TeachStart, TeachStop, TeachAnswer, TeachUndo,
        Snapshot). Raises :class:`TeachingUnavailable` for a tower of an earlier minor, or
        before any tower answered. While the link re-handshakes with a 1.2 tower the command
        is held, and sent once it is connected again.

        Teaching commands are kept until a TEACH_STATUS shows their effect, and sent again
        every ``TEACH_RESEND`` s (at most ``TEACH_TRIES`` sends) and after a reconnect. They
        are safe to repeat (4.8). Order is kept where it matters: a TEACH_START or TEACH_STOP
        replaces everything still waiting (it ends that teaching), and answers and undos go
        one at a time, each after the effect of the one before."""
        check = isinstance(msg, (m.DieLook, m.KeepExample))
        why = self.checks_refused() if check else self.commands_refused()
        if why:
            raise TeachingUnavailable(why)
        when = self._last_frame_at if now is None else now
        if check:
            self._checks.append(_Command(msg))
            while len(self._checks) > MAX_TEACH_COMMANDS:
                self._checks.pop(0)
                self.counters.commands_given_up += 1
            self._send_due(self._checks, when)
            return
        if isinstance(msg, m.Snapshot):
            if self.connected:
                self._send(msg)
            else:
                self._held_snapshot = msg  # only the latest matters
            return
        if isinstance(msg, (m.TeachStart, m.TeachStop)):
            self._teach = [_Command(msg)]
        else:
            self._teach.append(_Command(msg))
            while len(self._teach) > MAX_TEACH_COMMANDS:
                self._teach.pop(0)
                self.counters.commands_given_up += 1
        self._send_teaching(when)

    def _send_teaching(self, now: float) -> None:
        """Send the teaching commands due: new ones in order, and resends of those whose
        effect has not shown for ``TEACH_RESEND`` s. Only while connected. The 1.3 looks and
        keeps the same way, in their own queue."""
        if not self.connected:
            return
        self._send_due(self._teach, now)
        self._send_due(self._checks, now)

    def _send_due(self, queue: list[_Command], now: float) -> None:
        if not self.connected:
            return
        for c in list(queue):
            if c.sent_at is None:
                c.baseline = self._status
            elif now - c.sent_at < TEACH_RESEND:
                return  # one at a time: the rest go once this one took effect
            elif c.tries >= TEACH_TRIES:
                queue.remove(c)  # never seen to take effect: most likely it was a
                self.counters.commands_given_up += 1  # no-op (say, a picture not waiting)
                continue
            else:
                self.counters.commands_resent += 1
            c.sent_at, c.tries = now, c.tries + 1
            self._send(c.msg)
            return

    def _teaching_effect(self, status: m.TeachStatus) -> None:
        """A TEACH_STATUS: the commands it shows took effect are done with."""
        self._status = status
        for queue in (self._teach, self._checks):
            while queue and queue[0].sent_at is not None and queue[0].took_effect(status):
                queue.pop(0)

    # -- life cycle -----------------------------------------------------------------------
    def begin(self, now: float) -> None:
        """The port was (re)opened: forget half a frame and start the handshake."""
        self.decoder.reset()
        self.connected = False
        self.mismatch = False
        self._handshake_started = now
        self._last_frame_at = now
        self._out += b"\x00"
        self._hello(now)

    def _hello(self, now: float) -> None:
        self._nonce = struct.unpack("<I", self._nonce_source(4))[0] or 1
        self._hello_sent_at = now
        self._unanswered.append(self._nonce)
        self._send(m.Hello(self._nonce))

    def tick(self, now: float) -> list[LinkEvent]:
        """Timers: HELLO resends, handshake timeout, silence."""
        events: list[LinkEvent] = []
        if self.mismatch:
            # keep asking, slowly: a tower flashed back to 1.x (or one that also speaks 1.x)
            # answers and connects without waiting for a reset
            if now - self._hello_sent_at >= HANDSHAKE_TIMEOUT:
                self._hello(now)
            return events
        if not self.connected:
            if now - self._handshake_started >= HANDSHAKE_TIMEOUT:
                c = self.decoder.counters
                hint = ""
                if self._bad_hello:
                    hint = f"; {self._bad_hello}"
                elif c.crc_errors or c.bad_frames:
                    hint = (f"; {c.crc_errors} CRC errors and {c.bad_frames} bad frames so far: "
                            "check the baud rate")
                events.append(HandshakeTimeout(
                    self.port, f"no HELLO_REPLY in {HANDSHAKE_TIMEOUT:.0f} s{hint}"))
                self._handshake_started = now
            elif now - self._hello_sent_at >= HELLO_INTERVAL:
                self._hello(now)
        elif now - self._last_frame_at >= SILENCE_TIMEOUT:
            self.connected = False
            events.append(LinkLost(self.port, f"no frame from the tower for {SILENCE_TIMEOUT:.0f} s"))
        else:
            if self._unanswered and now - self._hello_sent_at >= HELLO_INTERVAL:
                self._hello(now)  # connected by a boot announcement, our HELLO unanswered
            self._send_teaching(now)
        return events

    # -- input ----------------------------------------------------------------------------
    def feed(self, data: bytes, now: float) -> list[LinkEvent]:
        events: list[LinkEvent] = []
        for packet in self.decoder.feed(data):
            try:
                msg = m.parse(packet)
            except m.UnknownType:
                self.counters.unknown_types += 1  # a later minor version's frame: ignored
                self._last_frame_at = now
                continue
            except m.BadMessage as exc:
                self.decoder.counters.bad_frames += 1
                if packet[0] == m.HELLO_REPLY:
                    self._bad_hello = f"the tower's HELLO_REPLY cannot be read: {exc}"
                continue
            self._last_frame_at = now
            events.extend(self._on_message(msg, now))
        return events

    def _on_message(self, msg: m.Message, now: float) -> list[LinkEvent]:
        if isinstance(msg, m.HelloReply):
            return self._on_hello_reply(msg, now)
        if self.mismatch:
            return []
        events: list[LinkEvent] = []
        if isinstance(msg, m.Heartbeat):
            if msg.boot_id != self.boot_id:
                if msg.boot_id in self._earlier_boots:
                    self.counters.stale_frames += 1  # sent before the reset, read after it
                    return events
                # a reset the boot announcement of which we missed: handshake again
                events.extend(self._new_boot(msg.boot_id, now))
                return events
            events.extend(self._resume(now))
            events.extend(self._on_heartbeat(msg, now))
        elif isinstance(msg, m.Roll):
            if msg.boot_id == self.boot_id:
                events.extend(self._resume(now))
            events.extend(self._on_roll(msg, now))
        elif isinstance(msg, m.Dropped):
            if msg.boot_id == self.boot_id:
                events.extend(self._resume(now))
            events.extend(self._on_dropped(msg))
        elif isinstance(msg, m.Picture):
            events.extend(self._on_picture(msg))
        elif isinstance(msg, m.PictureData):
            events.extend(self._on_picture_data(msg))
        elif isinstance(msg, m.DiePicture):
            events.extend(self._on_die_picture(msg, now))
        elif isinstance(msg, m.TeachStatus):
            self._teaching_effect(msg)
            self._send_teaching(now)
            events.append(TeachStatus(m.TEACH_STATES[msg.state], msg.kind, msg.needed,
                                      msg.faces, msg.message))
        else:
            self.counters.unexpected += 1  # a host -> tower message echoed back to us
        return events

    # -- 1.2 pictures ---------------------------------------------------------------------
    def _on_picture(self, msg: m.Picture) -> list[LinkEvent]:
        """A picture's header: (re)starts its assembly. One picture per purpose at a time,
        so a tower cannot make the host hold more than two pictures' bytes."""
        if msg.picture_id in self._done_pictures:
            self._send(m.PictureAck(msg.picture_id))  # our ACK was lost: say it again
            return []
        held = self._pictures.get(msg.purpose)
        if held is not None and held[0] == msg:
            return []  # a resend of the header we hold: its data follows again
        self._pictures[msg.purpose] = (msg, bytearray())
        return []

    def _on_picture_data(self, msg: m.PictureData) -> list[LinkEvent]:
        found = [(p, h, d) for p, (h, d) in self._pictures.items()
                 if h.picture_id == msg.picture_id]
        if not found:
            if self._die_picture is not None \
                    and self._die_picture[0].picture_id == msg.picture_id:
                return self._on_die_picture_data(msg)
            if msg.picture_id not in self._done_pictures \
                    and msg.picture_id not in self._done_die_pictures:
                self.counters.picture_gaps += 1
            return []
        purpose, head, data = found[0]
        if not self._take_chunk(data, head.size, msg):
            return []
        del self._pictures[purpose]
        self._done_pictures.append(head.picture_id)
        self.counters.pictures += 1
        self._send(m.PictureAck(head.picture_id))
        if purpose == m.PURPOSE_TEACH:
            return [TeachPicture(head.picture_id, head.kind, head.x, head.y, head.caption,
                                 head.width, head.height, bytes(data))]
        return [TraySnapshot(head.picture_id, head.caption, head.width, head.height,
                             bytes(data))]

    def _take_chunk(self, data: bytearray, size: int, msg: m.PictureData) -> bool:
        """Append ``msg``'s bytes to a picture's ``data`` when they continue it (data only in
        order: anything else waits for the resend, counted as a gap); True once all ``size``
        bytes are in."""
        if msg.offset != len(data) or msg.offset + len(msg.data) > size:
            if msg.offset > len(data) or msg.offset + len(msg.data) > size:
                self.counters.picture_gaps += 1  # a chunk lost (or a lying tower): resent
            return False
        data += msg.data
        return len(data) >= size

    # -- 1.3 die pictures -----------------------------------------------------------------
    def _on_die_picture(self, msg: m.DiePicture, now: float) -> list[LinkEvent]:
        """A die picture's header: (re)starts its assembly; one at a time (a new header
        replaces the one being received), so a tower cannot make the host hold more."""
        if self._checks and self._checks[0].sent_at is not None \
                and self._checks[0].answered_by(msg):
            self._checks.pop(0)  # the look is answered: the picture itself may take a while
            self._send_due(self._checks, now)
        if msg.picture_id in self._done_die_pictures:
            self._send(m.PictureAck(msg.picture_id))  # our ACK was lost: say it again
            return []
        if self._die_picture is not None and self._die_picture[0] == msg:
            return []  # a resend of the header we hold: its data follows again
        self._die_picture = (msg, bytearray())
        return []

    def _on_die_picture_data(self, msg: m.PictureData) -> list[LinkEvent]:
        assert self._die_picture is not None
        head, data = self._die_picture
        if not self._take_chunk(data, head.size, msg):
            return []
        self._die_picture = None
        inc = self._roll_incarnation(head.boot_id, head.seq)
        if inc is None:
            # whole before its roll was recorded (the ROLL_C was lost): not acknowledged, so
            # it comes again after the roll's resend, and its key is the roll's for sure
            self.counters.die_pictures_early += 1
            return []
        self._done_die_pictures.append(head.picture_id)
        self.counters.die_pictures += 1
        self._send(m.PictureAck(head.picture_id))
        return [DiePicture(head.picture_id, head.boot_id, head.seq, head.slot, head.kind,
                           head.x, head.y, head.faces, head.width, head.height, bytes(data),
                           inc)]

    def _roll_incarnation(self, boot_id: int, seq: int) -> int | None:
        """The incarnation under which roll (boot id, seq) was recorded, its latest first
        (as ``_on_roll`` looks copies up); None when it is not recorded."""
        inc = self.store.incarnation(boot_id)
        for i in range(inc, max(-1, inc - MAX_INCARNATIONS), -1):
            if self.store.lookup((roll_boot_key(boot_id, i), seq)) is not None:
                return i
        return None

    def _resume(self, now: float) -> list[LinkEvent]:
        """A frame of the boot we already hold the HELLO_REPLY of: after a reopen, that is as
        good as a handshake (a boot's dice table never changes), and much quicker on a noisy
        line, where a long HELLO_REPLY is the frame most likely to be hit."""
        if self.connected or self.boot_id is None or self.boot_id not in self._tables:
            return []
        return self._connect(self._tables[self.boot_id], now)

    def _connect(self, hello: m.HelloReply, now: float) -> list[LinkEvent]:
        self.connected = True
        self._bad_hello = ""
        if hello.proto_minor < CHECK_MINOR:
            self._checks.clear()  # a tower of an earlier minor takes no look or keep
        else:
            for c in self._checks:
                c.sent_at, c.tries = None, 0
        if hello.proto_minor < TEACHING_MINOR:
            self._teach.clear()  # a tower flashed back to 1.1: nothing to teach any more
            self._held_snapshot = None
        else:
            for c in self._teach:  # what was in flight may have been lost with the link
                c.sent_at, c.tries = None, 0
            if self._held_snapshot is not None:
                self._send(self._held_snapshot)
                self._held_snapshot = None
            self._send_teaching(now)
        return [Connected(self.port, hello.boot_id, hello.firmware,
                          f"{hello.proto_major}.{hello.proto_minor}", self._next_seq,
                          hello.ring_size, tuple(k.name for k in hello.kinds),
                          hello.colours, hello.n_slots,
                          tuple(tuple(k.faces) for k in hello.kinds))]

    def _on_hello_reply(self, msg: m.HelloReply, now: float) -> list[LinkEvent]:
        events: list[LinkEvent] = []
        if msg.proto_major != m.PROTO_MAJOR:
            if not self.mismatch:
                self.mismatch = True
                self.connected = False
                events.append(ProtocolMismatch(self.port, f"{msg.proto_major}.{msg.proto_minor}",
                                               f"{m.PROTO_MAJOR}.{m.PROTO_MINOR}"))
            return events
        self.mismatch = False
        if msg.nonce in self._unanswered:
            self._unanswered.clear()  # the tower heard a HELLO of ours: it knows our minor
        if msg.boot_id != self.boot_id:
            events.extend(self._new_boot(msg.boot_id, now, rehandshake=False))
            if msg.nonce == 0:
                # the boot announcement: say HELLO so the tower learns this host's minor
                # version (1.1 towers then keep notices for ACK_DROPPED)
                self._hello(now)
        self._tables[msg.boot_id] = msg
        while len(self._tables) > 8:
            del self._tables[next(iter(self._tables))]
        self.hello = msg
        self._note_next_seq(msg.next_seq, now)
        if not self.connected:
            events.extend(self._connect(msg, now))
        return events

    def _new_boot(self, boot_id: int, now: float, *, rehandshake: bool = True) -> list[LinkEvent]:
        events: list[LinkEvent] = []
        old = self.boot_id
        if old is not None:
            self.counters.resets += 1
            events.append(DeviceReset(old, boot_id))
            if old != boot_id:
                self._earlier_boots.append(old)
                unaccounted = {s for s in self._pending if not self._known(old, s)}
                if unaccounted:
                    self._old_pending.append((old, unaccounted))
            self.connected = False
            self._handshake_started = now
            if rehandshake:
                self._hello(now)
        if boot_id in self._earlier_boots:
            self._earlier_boots.remove(boot_id)
        self.boot_id = boot_id
        self._next_seq = 0
        self._pending = {}
        self._reported_missing = frozenset()
        self._highest_recorded = -1
        return events

    def _current_key(self, boot_id: int, seq: int) -> tuple[int, int]:
        return (roll_boot_key(boot_id, self.store.incarnation(boot_id)), seq)

    def _known(self, boot_id: int, seq: int) -> bool:
        """Recorded as a roll (of the boot id's latest use), or as dropped."""
        return self._current_key(boot_id, seq) in self.store or (boot_id, seq) in self.store.dropped

    def _unknown_in(self, boot_id: int, first: int, end: int) -> list[int]:
        """The seqs in [first, end) neither recorded nor dropped (end - first is capped by
        the callers: PENDING_WINDOW or MAX_DROP_COUNT)."""
        store = self.store
        key = roll_boot_key(boot_id, store.incarnation(boot_id))
        return [s for lo, hi in store.dropped.gaps(boot_id, first, end) for s in range(lo, hi)
                if (key, s) not in store]

    def _note_next_seq(self, next_seq: int, now: float) -> None:
        if next_seq > self._next_seq:
            start = max(self._next_seq, next_seq - PENDING_WINDOW)
            self._next_seq = next_seq
            for seq in self._unknown_in(self.boot_id, start, next_seq):  # type: ignore[arg-type]
                self._pending.setdefault(seq, now)
            floor = next_seq - PENDING_WINDOW
            if len(self._pending) > PENDING_WINDOW:
                self._pending = {s: t for s, t in self._pending.items() if s >= floor}

    def _on_heartbeat(self, msg: m.Heartbeat, now: float) -> list[LinkEvent]:
        events: list[LinkEvent] = []
        self._note_next_seq(msg.next_seq, now)
        late = frozenset(s for s, since in self._pending.items() if now - since >= 1.0)
        if late and late != self._reported_missing:
            events.append(RollsMissing(msg.boot_id, tuple(sorted(late))))
        self._reported_missing = late
        if msg.unacked == 0 and self._old_pending:
            # The tower's ring is empty, so every roll of an earlier boot it still had was
            # resent and recorded (ACKs only leave after that): what is still missing was
            # lost in the reset. Not a verdict that blocks anything: a copy that turns up
            # later is recorded, late.
            while self._old_pending:
                boot, seqs = self._old_pending.popleft()
                gone = sorted(s for s in seqs if not self._known(boot, s))
                if gone:
                    events.extend(self._lost(boot, gone, "lost in a reboot", "host"))
        return events

    def _dice(self, msg: m.Roll, hello: m.HelloReply) -> tuple[DieReading, ...]:
        """The dice named with the tower's table; a die the table cannot name (kind, face,
        colour or status out of range, or a clean die without a face) is recorded as
        unreadable rather than refused, so the roll is ACKed and leaves the tower's ring."""
        out = []
        for die in msg.dice:
            kind = hello.kinds[die.kind] if die.kind < len(hello.kinds) else None
            colour = None
            if die.colour != m.NONE and die.colour < len(hello.colours):
                colour = hello.colours[die.colour]
            face = None
            if kind is not None and die.face != m.NONE and die.face < len(kind.faces):
                face = kind.faces[die.face]
            status = m.STATUS_NAMES[die.status] if die.status <= m.UNREADABLE else None
            conf = die.confidence / 100 if die.confidence <= 100 else None
            readable = (kind is not None and status is not None
                        and (die.colour == m.NONE or colour is not None)
                        and (die.face == m.NONE or face is not None)
                        and not (face is None and status == "clean"))
            if not readable:
                self.counters.unreadable_dice += 1
                face, status = None, "unreadable"
            out.append(DieReading(die.slot, kind.name if kind is not None else f"kind {die.kind}",
                                  face, colour, status, conf))  # type: ignore[arg-type]
        return tuple(out)

    def _ack_roll(self, msg: m.Roll) -> None:
        self._send(m.Ack(msg.boot_id, msg.seq))
        self.counters.acks_sent += 1

    def _on_roll(self, msg: m.Roll, now: float) -> list[LinkEvent]:
        # the dice table of the roll's own boot; for a roll restored from an earlier boot we
        # never saw, the current one (the tower's firmware is the same across a reset)
        hello = self._tables.get(msg.boot_id) or self.hello
        if hello is None:
            self.counters.unexpected += 1  # before any handshake: resent after it, nothing lost
            return []
        if msg.attempt > 0:
            self.counters.retransmits += 1
        fp = msg.fingerprint()
        inc = self.store.incarnation(msg.boot_id)
        for i in range(inc, max(-1, inc - MAX_INCARNATIONS), -1):
            got = self.store.lookup((roll_boot_key(msg.boot_id, i), msg.seq))
            if got is not None and (got == fp or got == 0):  # 0: recorded before 1.1
                self.counters.duplicates += 1
                self._ack_roll(msg)
                return []
        events: list[LinkEvent] = []
        current = msg.boot_id == self.boot_id
        if self.store.lookup((roll_boot_key(msg.boot_id, inc), msg.seq)) is not None:
            # same boot id and seq, other uptime or dice: the tower drew this boot id again
            inc += 1
            self.counters.reused_boot_ids += 1
            events.append(DeviceReset(msg.boot_id, msg.boot_id))
            if current:
                self._next_seq, self._pending, self._highest_recorded = 0, {}, -1
                self._reported_missing = frozenset()
        dice = self._dice(msg, hello)
        late = (msg.boot_id, msg.seq) in self.store.dropped or (
            current and msg.seq < self._highest_recorded)
        if late:
            self.counters.late_rolls += 1
        event = RollEvent(msg.boot_id, msg.seq, dice, msg.attempt, late, now,
                          incarnation=inc, fingerprint=fp)
        recorded_at = self.store.record(event)
        event = RollEvent(msg.boot_id, msg.seq, dice, msg.attempt, late, now, recorded_at,
                          inc, fp)
        self.counters.rolls_recorded += 1
        self._ack_roll(msg)
        if current:
            self._pending.pop(msg.seq, None)
            self._highest_recorded = max(self._highest_recorded, msg.seq)
            self._note_next_seq(msg.seq + 1, now)
        events.append(event)
        return events

    def _on_dropped(self, msg: m.Dropped) -> list[LinkEvent]:
        # recorded first, acknowledged after, like a roll. A 1.1 tower takes
        # ACK_DROPPED(boot_id, first_seq, count); a 1.0 tower ACK(boot_id, first_seq).
        count = min(msg.count, m.MAX_DROP_COUNT, 2**32 - msg.first_seq)
        seqs = self._unknown_in(msg.boot_id, msg.first_seq, msg.first_seq + count)
        events: list[LinkEvent] = []
        if seqs:
            events = self._lost(msg.boot_id, seqs,
                                m.DROP_REASONS.get(msg.reason, f"reason {msg.reason}"), "tower")
        if self.hello is not None and self.hello.proto_minor >= 1:
            self._send(m.AckDropped(msg.boot_id, msg.first_seq, msg.count))
        else:
            self._send(m.Ack(msg.boot_id, msg.first_seq))
        return events

    def _lost(self, boot_id: int, seqs: list[int], reason: str, by: str) -> list[LinkEvent]:
        events: list[LinkEvent] = []
        if boot_id == self.boot_id:
            for s in seqs:
                self._pending.pop(s, None)
        for old, pending in self._old_pending:
            if old == boot_id:
                pending.difference_update(seqs)
        if by == "tower":
            self.counters.drops_declared += len(seqs)
        else:
            self.counters.rolls_lost += len(seqs)
        # report consecutive runs
        run_start = prev = seqs[0]
        following: list[int | None] = [*seqs[1:], None]
        for nxt in following:
            if nxt is not None and nxt == prev + 1:
                prev = nxt
                continue
            drop = RollsDropped(boot_id, run_start, prev - run_start + 1, reason, by)
            self.store.record_dropped(drop)
            events.append(drop)
            if nxt is not None:
                run_start = prev = nxt
        return events
