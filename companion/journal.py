"""The on-disk journal of a game: one JSON object per line (JSON Lines).

Every user action is one line, appended, flushed and fsynced before :meth:`Journal.append`
returns, so the screen only ever shows a change that is already on disk. Lines are never
rewritten; the only change to existing bytes is :func:`repair_tail`, which the user asks for
when a crash tore the last line, and which first copies the torn bytes aside.

Line format (see docs/events.md)::

    {"seq": 7, "type": "tekken.strike", "at": "2026-11-22T10:04:05.120Z", "data": {...}}
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .errors import JournalError, JournalTailError

FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class Event:
    """One recorded user action (or the game's opening ``game.start``)."""

    seq: int
    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    at: str = ""

    def to_line(self) -> bytes:
        obj = {"seq": self.seq, "type": self.type, "at": self.at, "data": self.data}
        return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def now_iso() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03d}Z"


def _parse(line: bytes, file: str, lineno: int, expected_seq: int) -> Event:
    try:
        obj = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise JournalError(file, lineno, f"not a JSON object ({exc})") from None
    if not isinstance(obj, dict):
        raise JournalError(file, lineno, "not a JSON object")
    seq, type_, data, at = obj.get("seq"), obj.get("type"), obj.get("data", {}), obj.get("at", "")
    if not isinstance(type_, str) or not type_:
        raise JournalError(file, lineno, "the event has no 'type'")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise JournalError(file, lineno, f"the event {type_!r} has no whole-number 'seq'")
    if seq != expected_seq:
        raise JournalError(file, lineno, f"event number {seq} where {expected_seq} was expected "
                                         "(lines missing or out of order)")
    if not isinstance(data, dict):
        raise JournalError(file, lineno, f"the event {type_!r} has 'data' that is not an object")
    if not isinstance(at, str):
        raise JournalError(file, lineno, f"the event {type_!r} has an 'at' that is not text")
    return Event(seq, type_, data, at)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many acyclic objects.

    A replay allocates hundreds of thousands of small immutable values and no cycles;
    left on, the collector rescans the growing heap again and again (measured: replay
    times swinging from 0.8 s to 1.5 s for 100,000 events).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def read_events(path: str | Path) -> list[Event]:
    """All events of the journal at ``path``.

    Raises :class:`JournalTailError` when only the last line is torn or corrupt (it carries
    the intact events), and :class:`JournalError` for damage anywhere else.
    """
    file = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise JournalError(file, None, "no such saved game") from None
    except OSError as exc:
        raise JournalError(file, None, f"cannot read: {exc.strerror}") from None
    if not raw:
        raise JournalError(file, None, "the file is empty (no game.start line)")
    lines = raw.split(b"\n")
    with gc_paused():
        if not lines[-1]:  # intact: the journal ends with a line end
            fast = _read_fast(lines[:-1])
            if fast is not None:
                return fast
        return _read_slow(file, raw, lines)


def _read_fast(lines: list[bytes]) -> list[Event] | None:
    """Parse all lines in one JSON call; None when anything is off (the slow path then
    finds and names the line at fault)."""
    try:
        objs = json.loads(b"[" + b",".join(lines) + b"]")
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if len(objs) != len(lines):
        return None
    events = []
    append = events.append
    for n, obj in enumerate(objs, start=1):
        if type(obj) is not dict:
            return None
        seq, type_, data, at = obj.get("seq"), obj.get("type"), obj.get("data", {}), \
            obj.get("at", "")
        if seq != n or type(seq) is not int or type(type_) is not str or not type_ \
                or type(data) is not dict or type(at) is not str:
            return None
        append(Event(seq, type_, data, at))
    return events


def _read_slow(file: str, raw: bytes, lines: list[bytes]) -> list[Event]:
    events: list[Event] = []
    # A journal always ends with "\n", so the last split item is b"" when intact.
    offset = 0
    last_index = len(lines) - 1
    for index, line in enumerate(lines):
        lineno = index + 1
        if index == last_index:
            if line:  # bytes after the final newline: a torn append
                raise JournalTailError(file, lineno, f"the last line is cut off ({len(line)} "
                                                     "bytes with no line end)",
                                       events, offset, line)
            break
        try:
            events.append(_parse(line, file, lineno, len(events) + 1))
        except JournalError as exc:
            tail_is_only_damage = all(not rest.strip() for rest in lines[index + 1:])
            if tail_is_only_damage:
                raise JournalTailError(file, lineno, f"the last line is damaged: {exc.problem}",
                                       events, offset, raw[offset:]) from None
            raise
        offset += len(line) + 1
    return events


def repair_tail(path: str | Path, error: JournalTailError) -> Path:
    """Move the damaged tail of a journal into a sidecar file and truncate to the good prefix.

    Returns the sidecar's path. The sidecar is written and fsynced before the journal is
    truncated, so the damaged bytes are never lost.
    """
    path = Path(path)
    sidecar = path.with_name(f"{path.name}.damaged-line-{error.line}-{int(time.time())}")
    with open(sidecar, "wb") as out:
        out.write(error.bad_bytes)
        out.flush()
        os.fsync(out.fileno())
    with open(path, "r+b") as f:
        f.truncate(error.good_bytes)
        f.flush()
        os.fsync(f.fileno())
    _fsync_dir(path.parent)
    return sidecar


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class Journal:
    """Append-only writer of one game's journal."""

    def __init__(self, path: str | Path, next_seq: int) -> None:
        self.path = Path(path)
        self.next_seq = next_seq
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    @classmethod
    def create(cls, path: str | Path) -> "Journal":
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)  # never overwrite
        os.close(fd)
        _fsync_dir(path.parent)
        return cls(path, 1)

    def append(self, type_: str, data: Mapping[str, Any]) -> Event:
        """Write one event durably (write + fsync) and return it."""
        event = Event(self.next_seq, type_, data, now_iso())
        line = event.to_line()
        size_before = os.fstat(self._fd).st_size
        try:
            written = os.write(self._fd, line)
            if written != len(line):
                raise OSError(f"short write to {self.path}: {written} of {len(line)} bytes")
            os.fsync(self._fd)
        except OSError:
            # Disk full or similar: never leave half a line behind for the next append.
            os.ftruncate(self._fd, size_before)
            raise
        self.next_seq += 1
        return event

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
