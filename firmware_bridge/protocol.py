"""The host side of protocol 1.0 as a state machine: bytes in, events and bytes out. No I/O.

:class:`HostProtocol` is driven by the reader loop (``link.py``) and by tests directly. It
never reads a clock itself: every call takes ``now`` (``time.monotonic()`` seconds). A roll is
passed to the :class:`~firmware_bridge.rolls.RollStore` (which fsyncs it) *before* its ACK is
queued, so a roll is acknowledged only once it is durable.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass

from . import messages as m
from .codec import FrameDecoder, encode_frame
from .events import (Connected, DeviceReset, DieReading, HandshakeTimeout, LinkEvent, LinkLost,
                     ProtocolMismatch, RollEvent, RollsDropped, RollsMissing)
from .rolls import RollStore

HELLO_INTERVAL = 0.5
HANDSHAKE_TIMEOUT = 3.0
SILENCE_TIMEOUT = 3.0
RESET_GRACE = 3.0
"""After a reset, how long rolls of the old boot may still arrive (restored from the tower's
ring) before the host reports them lost."""


@dataclass
class ProtocolCounters:
    rolls_recorded: int = 0
    retransmits: int = 0
    duplicates: int = 0
    acks_sent: int = 0
    drops_declared: int = 0
    rolls_lost: int = 0
    resets: int = 0
    unexpected: int = 0  # valid frames the host did not expect (a roll before the handshake...)


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
        self._dropped: set[tuple[int, int]] = set(getattr(store, "dropped_keys", ()))
        self.connected = False
        self.mismatch = False
        self._nonce = 0
        self._hello_sent_at = 0.0
        self._handshake_started = 0.0
        self._last_frame_at = 0.0
        self._out = bytearray()
        self.boot_id: int | None = None
        self._next_seq = 0  # highest next_seq heard for the current boot
        self._pending: dict[int, float] = {}  # seq of the current boot -> when first missed
        self._reported_missing: frozenset[int] = frozenset()
        self._highest_recorded = -1
        # (old boot id, seqs still unaccounted for, deadline to report them lost)
        self._old_pending: list[tuple[int, set[int], float]] = []

    # -- output ---------------------------------------------------------------------------
    def take_output(self) -> bytes:
        """Bytes to write to the port now (HELLOs and ACKs), emptied by the call."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def _send(self, msg: m.Hello | m.Ack) -> None:
        self._out += encode_frame(msg.pack())

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
        self._send(m.Hello(self._nonce))

    def tick(self, now: float) -> list[LinkEvent]:
        """Timers: HELLO resends, handshake timeout, silence, and rolls lost in a reset."""
        events: list[LinkEvent] = []
        if self.mismatch:
            return events
        if not self.connected:
            if now - self._handshake_started >= HANDSHAKE_TIMEOUT:
                c = self.decoder.counters
                hint = ""
                if c.crc_errors or c.bad_frames:
                    hint = (f"; {c.crc_errors} CRC errors and {c.bad_frames} bad frames so far: "
                            "check the baud rate")
                events.append(HandshakeTimeout(self.port, f"no HELLO_REPLY in {HANDSHAKE_TIMEOUT:.0f} s{hint}"))
                self._handshake_started = now
            elif now - self._hello_sent_at >= HELLO_INTERVAL:
                self._hello(now)
        elif now - self._last_frame_at >= SILENCE_TIMEOUT:
            self.connected = False
            events.append(LinkLost(self.port, f"no frame from the tower for {SILENCE_TIMEOUT:.0f} s"))
        still = []
        for boot, seqs, deadline in self._old_pending:
            seqs -= {s for s in seqs if self._known((boot, s))}
            if not seqs:
                continue
            if now >= deadline:
                events.extend(self._lost(boot, sorted(seqs), "lost in a reboot", "host"))
            else:
                still.append((boot, seqs, deadline))
        self._old_pending = still
        return events

    # -- input ----------------------------------------------------------------------------
    def feed(self, data: bytes, now: float) -> list[LinkEvent]:
        events: list[LinkEvent] = []
        for packet in self.decoder.feed(data):
            try:
                msg = m.parse(packet)
            except m.BadMessage:
                self.decoder.counters.bad_frames += 1
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
        else:
            self.counters.unexpected += 1  # a host -> tower message echoed back to us
        return events

    def _resume(self, now: float) -> list[LinkEvent]:
        """A frame of the boot we already hold the HELLO_REPLY of: after a reopen, that is as
        good as a handshake (a boot's dice table never changes), and much quicker on a noisy
        line, where a long HELLO_REPLY is the frame most likely to be hit."""
        if self.connected or self.boot_id is None or self.boot_id not in self._tables:
            return []
        return self._connect(self._tables[self.boot_id])

    def _connect(self, hello: m.HelloReply) -> list[LinkEvent]:
        self.connected = True
        return [Connected(self.port, hello.boot_id, hello.firmware,
                          f"{hello.proto_major}.{hello.proto_minor}", self._next_seq,
                          hello.ring_size, tuple(k.name for k in hello.kinds),
                          hello.colours, hello.n_slots)]

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
        if msg.boot_id != self.boot_id:
            events.extend(self._new_boot(msg.boot_id, now, rehandshake=False))
        self._tables[msg.boot_id] = msg
        while len(self._tables) > 8:
            del self._tables[next(iter(self._tables))]
        self.hello = msg
        self._note_next_seq(msg.next_seq, now)
        if not self.connected:
            events.extend(self._connect(msg))
        return events

    def _new_boot(self, boot_id: int, now: float, *, rehandshake: bool = True) -> list[LinkEvent]:
        events: list[LinkEvent] = []
        old = self.boot_id
        if old is not None:
            self.counters.resets += 1
            events.append(DeviceReset(old, boot_id))
            unaccounted = {s for s in self._pending if not self._known((old, s))}
            if unaccounted:
                self._old_pending.append((old, unaccounted, now + RESET_GRACE))
            self.connected = False
            self._handshake_started = now
            if rehandshake:
                self._hello(now)
        self.boot_id = boot_id
        self._next_seq = 0
        self._pending = {}
        self._reported_missing = frozenset()
        self._highest_recorded = -1
        return events

    def _known(self, key: tuple[int, int]) -> bool:
        """Recorded as a roll, or as dropped."""
        return key in self.store or key in self._dropped

    def _note_next_seq(self, next_seq: int, now: float) -> None:
        if next_seq > self._next_seq:
            start = self._next_seq
            self._next_seq = next_seq
            if next_seq - start > 4096:  # a host meeting a long-running tower: only look back a little
                start = next_seq - 4096
            for seq in range(start, next_seq):
                if not self._known((self.boot_id, seq)):  # type: ignore[arg-type]
                    self._pending.setdefault(seq, now)

    def _on_heartbeat(self, msg: m.Heartbeat, now: float) -> list[LinkEvent]:
        events: list[LinkEvent] = []
        self._note_next_seq(msg.next_seq, now)
        late = frozenset(s for s, since in self._pending.items() if now - since >= 1.0)
        if late and late != self._reported_missing:
            events.append(RollsMissing(msg.boot_id, tuple(sorted(late))))
        self._reported_missing = late
        return events

    def _dice(self, msg: m.Roll, hello: m.HelloReply) -> tuple[DieReading, ...] | None:
        out = []
        for die in msg.dice:
            if die.kind >= len(hello.kinds) or die.status > 2:
                return None
            kind = hello.kinds[die.kind]
            if die.face == m.NONE:
                face = None
            elif die.face < len(kind.faces):
                face = kind.faces[die.face]
            else:
                return None
            if die.colour == m.NONE:
                colour = None
            elif die.colour < len(hello.colours):
                colour = hello.colours[die.colour]
            else:
                return None
            if face is None and die.status == m.CLEAN:
                return None
            out.append(DieReading(die.slot, kind.name, face, colour, m.STATUS_NAMES[die.status]))
        return tuple(out)

    def _on_roll(self, msg: m.Roll, now: float) -> list[LinkEvent]:
        # the dice table of the roll's own boot; for a roll restored from an earlier boot we
        # never saw, the current one (the tower's firmware is the same across a reset)
        hello = self._tables.get(msg.boot_id) or self.hello
        if hello is None:
            self.counters.unexpected += 1  # before any handshake: resent after it, nothing lost
            return []
        key = (msg.boot_id, msg.seq)
        if msg.attempt > 0:
            self.counters.retransmits += 1
        if self._known(key):
            self.counters.duplicates += 1
            self._send(m.Ack(*key))
            self.counters.acks_sent += 1
            return []
        dice = self._dice(msg, hello)
        if dice is None or not dice:
            self.decoder.counters.bad_frames += 1
            return []
        current = msg.boot_id == self.boot_id
        late = current and msg.seq < self._highest_recorded
        event = RollEvent(msg.boot_id, msg.seq, dice, msg.attempt, late, now)
        recorded_at = self.store.record(event)
        event = RollEvent(msg.boot_id, msg.seq, dice, msg.attempt, late, now, recorded_at)
        self.counters.rolls_recorded += 1
        self._send(m.Ack(*key))
        self.counters.acks_sent += 1
        if current:
            self._pending.pop(msg.seq, None)
            self._highest_recorded = max(self._highest_recorded, msg.seq)
            self._note_next_seq(msg.seq + 1, now)
        return [event]

    def _on_dropped(self, msg: m.Dropped) -> list[LinkEvent]:
        # recorded first, acknowledged after, like a roll; ACK(boot_id, first_seq) is the
        # notice's acknowledgement (the roll itself is gone, so the key is free)
        seqs = [s for s in range(msg.first_seq, msg.first_seq + min(msg.count, 65536))
                if not self._known((msg.boot_id, s))]
        events: list[LinkEvent] = []
        if seqs:
            events = self._lost(msg.boot_id, seqs,
                                m.DROP_REASONS.get(msg.reason, f"reason {msg.reason}"), "tower")
        self._send(m.Ack(msg.boot_id, msg.first_seq))
        return events

    def _lost(self, boot_id: int, seqs: list[int], reason: str, by: str) -> list[LinkEvent]:
        events: list[LinkEvent] = []
        for s in seqs:
            self._dropped.add((boot_id, s))
        if boot_id == self.boot_id:
            for s in seqs:
                self._pending.pop(s, None)
        for _, pending, _ in self._old_pending:
            pending.difference_update(seqs)
        if by == "tower":
            self.counters.drops_declared += len(seqs)
        else:
            self.counters.rolls_lost += len(seqs)
        # report consecutive runs
        run_start = prev = seqs[0]
        for s in seqs[1:] + [None]:  # type: ignore[list-item]
            if s is not None and s == prev + 1:
                prev = s
                continue
            drop = RollsDropped(boot_id, run_start, prev - run_start + 1, reason, by)
            self.store.record_dropped(drop)
            events.append(drop)
            if s is not None:
                run_start = prev = s
        return events
