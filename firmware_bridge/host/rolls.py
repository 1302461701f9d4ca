"""The roll journal: where a roll becomes durable before the tower is told so.

One JSON line per roll or drop notice, appended and fsynced. Its ``(boot_id, seq)`` index is
what keeps a roll from being counted twice, also after the host restarts while the tower still
resends. A torn last line (the host died mid-write) is safe to cut: that roll was never
acknowledged, so the tower resends it; the cut bytes are kept in a sidecar file.

Exactly once to the game (protocol 1.1): the app marks each roll *delivered* once the open
game has it (``mark_delivered``, a line without fsync: it only has to survive the app, and
a game ignores a roll it already holds). At start and after every reconnect,
:func:`deliver_undelivered` hands the game every roll recorded but never marked, as late.

Memory: one index entry per roll in the journal; drop notices are kept as merged ranges
(:class:`SeqRanges`), so a notice of 2^32 rolls costs what a notice of one does.
"""

from __future__ import annotations

import bisect
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from .events import DieReading, RollEvent, RollsDropped, roll_boot_key

MAX_UNDELIVERED = 1000
"""Rolls kept waiting for the game; older ones are given up (a game would not want them)."""


class RollJournalError(ValueError):
    """A roll journal line that is not the last one cannot be read."""

    def __init__(self, file: str, line: int, problem: str) -> None:
        super().__init__(f"{file}, line {line}: {problem}")
        self.file, self.line, self.problem = file, line, problem


class SeqRanges:
    """Sets of (boot id, seq) kept as merged half-open ranges per boot id."""

    __slots__ = ("_by_boot",)

    def __init__(self) -> None:
        self._by_boot: dict[int, list[list[int]]] = {}

    def __contains__(self, key: tuple[int, int]) -> bool:
        runs = self._by_boot.get(key[0])
        if not runs:
            return False
        i = bisect.bisect_right(runs, [key[1], float("inf")]) - 1
        return i >= 0 and runs[i][0] <= key[1] < runs[i][1]

    def add(self, boot_id: int, first: int, count: int) -> None:
        if count <= 0:
            return
        runs = self._by_boot.setdefault(boot_id, [])
        lo, hi = first, first + count
        i = bisect.bisect_left(runs, [lo, lo])
        if i > 0 and runs[i - 1][1] >= lo:
            i -= 1
        j = i
        while j < len(runs) and runs[j][0] <= hi:
            lo, hi = min(lo, runs[j][0]), max(hi, runs[j][1])
            j += 1
        runs[i:j] = [[lo, hi]]

    def gaps(self, boot_id: int, first: int, end: int) -> list[tuple[int, int]]:
        """The parts of [first, end) not in the set, as half-open ranges."""
        runs = self._by_boot.get(boot_id)
        if not runs:
            return [(first, end)] if first < end else []
        out = []
        i = max(0, bisect.bisect_right(runs, [first, float("inf")]) - 1)
        at = first
        while at < end and i < len(runs):
            lo, hi = runs[i]
            if hi <= at:
                i += 1
                continue
            if lo >= end:
                break
            if lo > at:
                out.append((at, lo))
            at = max(at, hi)
            i += 1
        if at < end:
            out.append((at, end))
        return out

    def runs(self) -> int:
        return sum(len(r) for r in self._by_boot.values())


class RollStore(Protocol):
    dropped: SeqRanges

    def __contains__(self, key: tuple[int, int]) -> bool: ...

    def lookup(self, key: tuple[int, int]) -> int | None:
        """The recorded roll's fingerprint (0: recorded before 1.1), None if not recorded."""

    def incarnation(self, boot_id: int) -> int:
        """How many times this tower boot id was found used again (0: never)."""

    def record(self, roll: RollEvent) -> float:
        """Make ``roll`` durable; return ``time.monotonic()`` once it is."""

    def record_dropped(self, drop: RollsDropped) -> None: ...

    @property
    def recorded_count(self) -> int:
        """Rolls recorded by this process so far."""

    def offer_below(self, recorded_count: int) -> None:
        """After a reconnect: the rolls recorded before ``recorded_count`` (by the HELLO's
        resends) are offered again as undelivered; a store without deliveries ignores it."""


class _KeyIndex:
    """What both stores answer from their index: is a roll recorded, its fingerprint, and how
    often a tower boot id was used again."""

    keys: dict[tuple[int, int], int]   # key -> fingerprint (0: recorded before 1.1)
    _inc: dict[int, int]               # boot id -> its highest incarnation

    def __contains__(self, key: tuple[int, int]) -> bool:
        return key in self.keys

    def lookup(self, key: tuple[int, int]) -> int | None:
        return self.keys.get(key)

    def incarnation(self, boot_id: int) -> int:
        return self._inc.get(boot_id, 0)


class MemoryRollStore(_KeyIndex):
    """For tests and ``listen --no-journal``: nothing survives the process."""

    def __init__(self) -> None:
        self.keys: dict[tuple[int, int], int] = {}
        self.rolls: list[RollEvent] = []
        self.drops: list[RollsDropped] = []
        self.dropped = SeqRanges()
        self._inc: dict[int, int] = {}

    def record(self, roll: RollEvent) -> float:
        self.keys[roll.key] = roll.fingerprint
        if roll.incarnation:
            self._inc[roll.boot_id] = max(roll.incarnation, self._inc.get(roll.boot_id, 0))
        self.rolls.append(roll)
        return time.monotonic()

    def record_dropped(self, drop: RollsDropped) -> None:
        self.drops.append(drop)
        self.dropped.add(drop.boot_id, drop.first_seq, drop.count)

    @property
    def recorded_count(self) -> int:
        return len(self.rolls)

    def offer_below(self, recorded_count: int) -> None:
        pass   # nothing here is delivered later: every roll reached its listener at once


def roll_to_json(roll: RollEvent) -> dict[str, Any]:
    item = {"type": "roll", "boot_id": roll.boot_id, "seq": roll.seq,
            "dice": [d.to_json() for d in roll.dice], "late": roll.late, "at": time.time()}
    if roll.fingerprint:
        item["fp"] = roll.fingerprint
    if roll.incarnation:
        item["inc"] = roll.incarnation
    return item


def _roll_from_json(item: dict[str, Any], *, late: bool | None = None) -> RollEvent:
    return RollEvent(int(item["boot_id"]), int(item["seq"]),
                     tuple(DieReading.from_json(d) for d in item["dice"]),
                     late=bool(item.get("late", False)) if late is None else late,
                     incarnation=int(item.get("inc", 0)), fingerprint=int(item.get("fp", 0)))


def _key(item: dict[str, Any]) -> tuple[int, int]:
    return (roll_boot_key(int(item["boot_id"]), int(item.get("inc", 0))), int(item["seq"]))


MAX_DROPPED = 1 << 16  # the link records at most this many dropped rolls at once (protocol.py)


class RollJournal(_KeyIndex):
    """Append-only, fsynced JSON Lines file of rolls; thread-safe."""

    def __init__(self, path: str | Path, *, fsync: bool = True) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._fsync = fsync
        self._lock = threading.Lock()
        self.keys: dict[tuple[int, int], int] = {}  # key -> fingerprint (0: before 1.1)
        self.dropped = SeqRanges()
        self._inc: dict[int, int] = {}
        # key -> (order recorded in this process, -1 if read from the file; the line)
        self._undelivered: dict[tuple[int, int], tuple[int, dict[str, Any]]] = {}
        self.recorded_count = 0
        self._offer_below = 0  # rolls recorded before this one are offered by undelivered()
        self._tracking = False
        self.history: list[dict[str, Any]] = []
        self.repaired: Path | None = None
        self.fsync_ms: list[float] = []  # how long each fsync took: the floor of a roll's latency
        self._load()
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        if hasattr(os, "fchmod") and os.fstat(self._fd).st_mode & 0o077:
            os.fchmod(self._fd, 0o600)  # the player's rolls: owner only, like the games
        if not self._tracking:
            # a new journal, or one written before deliveries were tracked: what it holds
            # already reached the app
            self._undelivered.clear()
            self._append({"type": "tracking", "at": time.time()}, sync=False)
            self._tracking = True

    def _load(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        lines = raw.split(b"\n")
        tail = lines.pop()  # b"" when the file ends with a newline
        for number, line in enumerate(lines, start=1):
            try:
                item = json.loads(line)
                kind = item.get("type")
                if kind == "roll":
                    key = _key(item)
                    self.keys[key] = int(item.get("fp", 0))
                    if item.get("inc"):
                        boot = int(item["boot_id"])
                        self._inc[boot] = max(self._inc.get(boot, 0), int(item["inc"]))
                    self._keep_undelivered(key, -1, item)
                elif kind == "dropped":
                    self.dropped.add(int(item["boot_id"]), int(item["first_seq"]),
                                     int(item["count"]))
                elif kind == "delivered":
                    self._undelivered.pop(_key(item), None)
                elif kind == "corrected":
                    self._apply_correction(_key(item), item["dice"])
                elif kind == "tracking":
                    self._tracking = True
                else:
                    raise ValueError(f"unknown record type {kind!r}")
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
                raise RollJournalError(str(self.path), number, f"cannot read this record ({exc})") from exc
            if kind != "delivered":
                self._keep_history(item)
        if tail:
            # never fsynced whole, so never acknowledged: keep the bytes aside and cut them
            side = self.path.with_name(f"{self.path.name}.torn-line-{len(lines) + 1}-{int(time.time())}")
            side.write_bytes(tail)
            with open(self.path, "r+b") as fh:
                fh.truncate(len(raw) - len(tail))
                fh.flush()
                os.fsync(fh.fileno())
            self.repaired = side

    def _keep_undelivered(self, key: tuple[int, int], order: int, item: dict[str, Any]) -> None:
        self._undelivered[key] = (order, item)
        if len(self._undelivered) > MAX_UNDELIVERED:
            del self._undelivered[next(iter(self._undelivered))]

    def _keep_history(self, item: dict[str, Any]) -> None:
        self.history.append(item)
        if len(self.history) > 1000:
            del self.history[:500]

    def _append(self, item: dict[str, Any], *, sync: bool = True) -> float:
        line = (json.dumps(item, separators=(",", ":")) + "\n").encode("utf-8")
        with self._lock:
            os.write(self._fd, line)
            if self._fsync and sync:
                t = time.perf_counter()
                os.fsync(self._fd)
                self.fsync_ms.append((time.perf_counter() - t) * 1000)
                if len(self.fsync_ms) > 100_000:
                    del self.fsync_ms[:50_000]
            if item["type"] != "delivered":
                self._keep_history(item)
        return time.monotonic()

    def record(self, roll: RollEvent) -> float:
        item = roll_to_json(roll)
        done = self._append(item)
        self.keys[roll.key] = roll.fingerprint
        if roll.incarnation:
            self._inc[roll.boot_id] = max(self._inc.get(roll.boot_id, 0), roll.incarnation)
        with self._lock:
            self._keep_undelivered(roll.key, self.recorded_count, item)
            self.recorded_count += 1
        return done

    def record_dropped(self, drop: RollsDropped) -> None:
        item = drop.to_json()
        item["type"] = "dropped"
        item["at"] = time.time()
        self._append(item)
        self.dropped.add(drop.boot_id, drop.first_seq, drop.count)

    # -- a player's correction (1.3) -----------------------------------------------------
    def record_correction(self, key: tuple[int, int], dice: list[dict[str, Any]]) -> None:
        """The player set the faces of roll ``key`` (a die the tower was not sure of, or a
        reading disputed): ``dice`` is the whole roll as it really came up, each die as JSON.
        The roll's own line keeps what the tower read; this line, fsynced, says what the
        player set, and from now on the roll reads as corrected (history, the rolls still to
        deliver, the statistics)."""
        boot_id, seq = key[0] & 0xFFFFFFFF, key[1]
        item: dict[str, Any] = {"type": "corrected", "boot_id": boot_id, "seq": seq,
                                "dice": [dict(d) for d in dice], "at": time.time()}
        if key[0] >> 32:
            item["inc"] = key[0] >> 32
        if key not in self.keys:
            raise KeyError(f"{self.path.name}: no roll {key} to correct")
        self._append(item)
        with self._lock:
            self._apply_correction(key, item["dice"])

    def _apply_correction(self, key: tuple[int, int], dice: list[dict[str, Any]]) -> None:
        held = self._undelivered.get(key)
        if held is not None:
            held[1]["dice"] = dice
        for old in reversed(self.history):
            if old.get("type") == "roll" and _key(old) == key:
                old["dice"] = dice
                break

    # -- delivery to the game (1.1) -----------------------------------------------------
    def mark_delivered(self, key: tuple[int, int]) -> None:
        """The open game (or, with none open, the app) has the roll ``key``. Not fsynced:
        an app killed before the mark only makes the game see the roll again, which it
        ignores (it keeps rolls by key)."""
        with self._lock:
            found = self._undelivered.pop(key, None)
        if found is not None:
            item = found[1]
            mark = {"type": "delivered", "boot_id": item["boot_id"], "seq": item["seq"]}
            if item.get("inc"):
                mark["inc"] = item["inc"]
            self._append(mark, sync=False)

    def offer_below(self, recorded_count: int) -> None:
        """Called by the link as it reports Connected, with :attr:`recorded_count` as it was
        before the frames that connected: rolls recorded from then on have their own roll
        events still on the way to the app, so :meth:`undelivered` leaves them out."""
        with self._lock:
            self._offer_below = recorded_count

    def undelivered(self) -> list[RollEvent]:
        """Rolls recorded but never marked delivered (read from the file, or recorded before
        the last Connected and not delivered since), oldest first, marked late."""
        with self._lock:
            items = [item for order, item in self._undelivered.values()
                     if order < self._offer_below]
        return [_roll_from_json(item, late=True) for item in items]

    def recent_rolls(self, n: int = 20) -> list[RollEvent]:
        """The last ``n`` rolls, newest last, as events (for the app's history)."""
        out = [_roll_from_json(item) for item in self.history if item.get("type") == "roll"]
        return out[-n:]

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


def deliver_undelivered(journal: Any, deliver: Callable[[RollEvent], None]) -> list[RollEvent]:
    """Reconcile the roll journal with the game: every roll recorded but never delivered goes
    to ``deliver`` once, marked late, oldest first, then is marked delivered. Run it at start
    and after every reconnect. A store without delivery tracking delivers nothing."""
    undelivered = getattr(journal, "undelivered", None)
    if undelivered is None:
        return []
    done = []
    for roll in undelivered():
        deliver(roll)
        journal.mark_delivered(roll.key)
        done.append(roll)
    return done
