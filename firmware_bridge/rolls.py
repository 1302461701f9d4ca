"""The roll journal: where a roll becomes durable before the tower is told so.

One JSON line per roll or drop notice, appended and fsynced. Its ``(boot_id, seq)`` index is
what keeps a roll from being counted twice, also after the host restarts while the tower still
resends. A torn last line (the host died mid-write) is safe to cut: that roll was never
acknowledged, so the tower resends it; the cut bytes are kept in a sidecar file.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Protocol

from .events import DieReading, RollEvent, RollsDropped


class RollJournalError(ValueError):
    """A roll journal line that is not the last one cannot be read."""

    def __init__(self, file: str, line: int, problem: str) -> None:
        super().__init__(f"{file}, line {line}: {problem}")
        self.file, self.line, self.problem = file, line, problem


class RollStore(Protocol):
    def __contains__(self, key: tuple[int, int]) -> bool: ...

    def record(self, roll: RollEvent) -> float:
        """Make ``roll`` durable; return ``time.monotonic()`` once it is."""

    def record_dropped(self, drop: RollsDropped) -> None: ...


class MemoryRollStore:
    """For tests and ``listen --no-journal``: nothing survives the process."""

    def __init__(self) -> None:
        self.keys: set[tuple[int, int]] = set()
        self.rolls: list[RollEvent] = []
        self.drops: list[RollsDropped] = []
        self.dropped_keys: set[tuple[int, int]] = set()

    def __contains__(self, key: tuple[int, int]) -> bool:
        return key in self.keys

    def record(self, roll: RollEvent) -> float:
        self.keys.add(roll.key)
        self.rolls.append(roll)
        return time.monotonic()

    def record_dropped(self, drop: RollsDropped) -> None:
        self.drops.append(drop)
        self.dropped_keys.update((drop.boot_id, s)
                                 for s in range(drop.first_seq, drop.first_seq + drop.count))


def roll_to_json(roll: RollEvent) -> dict[str, Any]:
    return {"type": "roll", "boot_id": roll.boot_id, "seq": roll.seq,
            "dice": [d.to_json() for d in roll.dice], "late": roll.late, "at": time.time()}


MAX_DROPPED = 1 << 16  # the link records at most this many dropped rolls at once (protocol.py)


class RollJournal:
    """Append-only, fsynced JSON Lines file of rolls; thread-safe."""

    def __init__(self, path: str | Path, *, fsync: bool = True) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._fsync = fsync
        self._lock = threading.Lock()
        self.keys: set[tuple[int, int]] = set()
        self.dropped_keys: set[tuple[int, int]] = set()
        self.history: list[dict[str, Any]] = []
        self.repaired: Path | None = None
        self.fsync_ms: list[float] = []  # how long each fsync took: the floor of a roll's latency
        self._load()
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        if hasattr(os, "fchmod") and os.fstat(self._fd).st_mode & 0o077:
            os.fchmod(self._fd, 0o600)  # the player's rolls: owner only, like the games

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
                if item.get("type") == "roll":
                    self.keys.add((int(item["boot_id"]), int(item["seq"])))
                elif item.get("type") == "dropped":
                    first, count = int(item["first_seq"]), int(item["count"])
                    if not 0 <= count <= MAX_DROPPED:
                        raise ValueError(f"a count of {count} dropped rolls (0 to {MAX_DROPPED})")
                    self.dropped_keys.update((int(item["boot_id"]), s)
                                             for s in range(first, first + count))
                else:
                    raise ValueError(f"unknown record type {item.get('type')!r}")
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
                raise RollJournalError(str(self.path), number, f"cannot read this record ({exc})") from exc
            self.history.append(item)
        if tail:
            # never fsynced whole, so never acknowledged: keep the bytes aside and cut them
            side = self.path.with_name(f"{self.path.name}.torn-line-{len(lines) + 1}-{int(time.time())}")
            side.write_bytes(tail)
            with open(self.path, "r+b") as fh:
                fh.truncate(len(raw) - len(tail))
                fh.flush()
                os.fsync(fh.fileno())
            self.repaired = side

    def __contains__(self, key: tuple[int, int]) -> bool:
        return key in self.keys

    def _append(self, item: dict[str, Any]) -> float:
        line = (json.dumps(item, separators=(",", ":")) + "\n").encode("utf-8")
        with self._lock:
            os.write(self._fd, line)
            if self._fsync:
                t = time.perf_counter()
                os.fsync(self._fd)
                self.fsync_ms.append((time.perf_counter() - t) * 1000)
                if len(self.fsync_ms) > 100_000:
                    del self.fsync_ms[:50_000]
            self.history.append(item)
            if len(self.history) > 1000:
                del self.history[:500]
        return time.monotonic()

    def record(self, roll: RollEvent) -> float:
        done = self._append(roll_to_json(roll))
        self.keys.add(roll.key)
        return done

    def record_dropped(self, drop: RollsDropped) -> None:
        item = drop.to_json()
        item["type"] = "dropped"
        item["at"] = time.time()
        self._append(item)
        self.dropped_keys.update((drop.boot_id, s)
                                 for s in range(drop.first_seq, drop.first_seq + drop.count))

    def recent_rolls(self, n: int = 20) -> list[RollEvent]:
        """The last ``n`` rolls, newest last, as events (for the app's history)."""
        out = []
        for item in self.history:
            if item.get("type") == "roll":
                out.append(RollEvent(int(item["boot_id"]), int(item["seq"]),
                                     tuple(DieReading.from_json(d) for d in item["dice"]),
                                     late=bool(item.get("late", False))))
        return out[-n:]

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1
