"""The on-disk journal of a game: one JSON object per line (JSON Lines), each line checksummed.

Every user action is one line, appended, flushed and fsynced before :meth:`Journal.append`
returns, so the screen only ever shows a change that is already on disk. Lines are never
rewritten; the only change to existing bytes is :func:`repair_tail`, which the user asks for
when a crash tore the end of the journal, and which first copies the damaged bytes aside.

Line format (see docs/events.md): one JSON object whose last key is ``crc``, the CRC-32 (eight
lower-case hex digits) of the line's bytes before ``,"crc"`` followed by ``}`` (that is, of
the same object written without its ``crc``)::

    {"seq":7,"type":"tekken.strike","at":"2026-11-22T10:04:05.120Z","data":{...},"crc":"1c291ca3"}

so every line is still plain JSON. Lines written before checksums (no ``crc``) are still
read, but only before the first checksummed line: after it, a line without one is damage.

One writer per game: an open :class:`Journal` holds an exclusive OS lock on its file
(``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows, both imported inside a guard); a
second writer gets :class:`GameLockedError` ("this game is open elsewhere"). Readers
(:func:`read_events`) never need the lock.

Reading is bounded: a line longer than :data:`MAX_LINE_BYTES`, nesting deeper than the JSON
parser allows, or an integer too long to convert is a located :class:`JournalError`, never a
traceback.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import json
import os
import time
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import GameLockedError, JournalError, JournalTailError, StorageError

try:  # POSIX
    import fcntl as _fcntl
except ImportError:  # Windows
    _fcntl = None  # type: ignore[assignment]
try:  # Windows
    import msvcrt as _msvcrt
except ImportError:  # POSIX
    _msvcrt = None  # type: ignore[assignment]

FORMAT_VERSION = 2
MAX_LINE_BYTES = 1 << 20
"""No event the app writes comes near this (the largest, a roster's game.start, is a few KB);
a longer line is damage, refused before it is parsed."""
FILE_MODE = 0o600
DIR_MODE = 0o700
_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no "\n" -> "\r\n" on the way to the disk
_LOCK_OFFSET = 1 << 30  # Windows: a byte-range lock far past any journal's end, so readers
                        # are never blocked (the range lock on Windows is mandatory)


@dataclass(frozen=True, slots=True)
class Event:
    """One recorded user action (or the game's opening ``game.start``)."""

    seq: int
    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    at: str = ""

    def to_line(self) -> bytes:
        obj = {"seq": self.seq, "type": self.type, "at": self.at, "data": self.data}
        body = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
        return body[:-1] + b',"crc":"%08x"}\n' % zlib.crc32(body)


def now_iso() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03d}Z"


_CRC_KEY = b',"crc":"'
_CRC_TAIL = len(b',"crc":"12345678"}')


def _checksum(line: bytes) -> bool | None:
    """True when the line's checksum matches, False when it has one that does not, None
    for a line written before checksums."""
    if line[-_CRC_TAIL:-_CRC_TAIL + 8] == _CRC_KEY and line[-2:] == b'"}':
        body_crc = zlib.crc32(b"}", zlib.crc32(line[:-_CRC_TAIL]))
        return b"%08x" % body_crc == line[-10:-2]
    return None


def _parse(line: bytes, file: str, lineno: int, expected_seq: int,
           legacy_allowed: bool = True) -> tuple[Event, bool]:
    """One line as an Event, and whether it carried a checksum."""
    if len(line) > MAX_LINE_BYTES:
        raise JournalError(file, lineno, f"the line is {len(line):,} bytes long, more than "
                                         f"the {MAX_LINE_BYTES:,} an event may take")
    body, ok = line, _checksum(line)
    if ok is False:
        raise JournalError(file, lineno, "the line's checksum does not match its bytes "
                                         "(changed or damaged)")
    try:
        obj = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise JournalError(file, lineno, f"not a JSON object ({exc})") from None
    except RecursionError:
        raise JournalError(file, lineno, "the JSON is nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of thousands of digits
        raise JournalError(file, lineno, f"unreadable JSON value ({exc})") from None
    if not isinstance(obj, dict):
        raise JournalError(file, lineno, "not a JSON object")
    if ok is None and not legacy_allowed:
        raise JournalError(file, lineno, "the line has no checksum, after checksummed lines "
                                         "(damaged)")
    seq, type_, data, at = obj.get("seq"), obj.get("type"), obj.get("data", {}), obj.get("at", "")
    if not isinstance(type_, str) or not type_:
        raise JournalError(file, lineno, "the event has no 'type'")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise JournalError(file, lineno, f"the event {type_!r} has no whole-number 'seq'")
    if seq != expected_seq:
        raise JournalError(file, lineno, f"event number {seq} where {expected_seq} was expected "
                                         "(lines missing, repeated or out of order)")
    if not isinstance(data, dict):
        raise JournalError(file, lineno, f"the event {type_!r} has 'data' that is not an object")
    if not isinstance(at, str):
        raise JournalError(file, lineno, f"the event {type_!r} has an 'at' that is not text")
    return Event(seq, type_, data, at), ok is True


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


def parse_line(line: bytes, file: str, lineno: int) -> Event:
    """One journal line (without its newline) as an Event, with every check a full read
    makes of it; ``lineno`` is also its expected sequence number. JournalError names the
    file and the line."""
    event, _signed = _parse(line, file, lineno, lineno)
    return event


def read_events(path: str | Path) -> list[Event]:
    """All events of the journal at ``path``.

    Raises :class:`JournalTailError` when only the end of the journal is damaged (a torn
    line, random bytes after the last good line: no intact event follows the damage); it
    carries the intact events. Raises :class:`JournalError` for damage anywhere else.
    """
    file = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise JournalError(file, None, "no such saved game") from None
    except IsADirectoryError:
        raise JournalError(file, None, "a folder, not a saved game") from None
    except OSError as exc:
        raise JournalError(file, None, f"cannot read: {exc.strerror}") from None
    except MemoryError:
        raise JournalError(file, None, "too large to read into memory") from None
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
    """Check every checksum, then parse all lines in one JSON call; None when anything is
    off (the slow path then finds and names the line at fault)."""
    crc32 = zlib.crc32
    checked = False
    key, tail = _CRC_KEY, _CRC_TAIL
    for line in lines:
        if len(line) > MAX_LINE_BYTES:
            return None
        if line[-tail:-tail + 8] == key:
            if b"%08x" % crc32(b"}", crc32(line[:-tail])) != line[-10:-2]:
                return None
            checked = True
        elif checked:  # no checksum after checksummed lines
            return None
    try:
        objs = json.loads(b"[" + b",".join(lines) + b"]")
    except (ValueError, RecursionError):  # JSONDecodeError, UnicodeDecodeError, huge ints
        return None
    if len(objs) != len(lines):
        return None
    events: list[Event] = []
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


def _looks_intact(line: bytes) -> bool:
    """Whether a line after a damaged one is a whole event (then the damage is not at the
    end of the journal: random bytes and torn lines never pass the checksum)."""
    if len(line) > MAX_LINE_BYTES:
        return False
    body, ok = line, _checksum(line)
    if ok is False:
        return False
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(obj, dict) and isinstance(obj.get("seq"), int) \
        and isinstance(obj.get("type"), str)


def _read_slow(file: str, raw: bytes, lines: list[bytes]) -> list[Event]:
    events: list[Event] = []
    # A journal always ends with "\n", so the last split item is b"" when intact.
    offset = 0
    last_index = len(lines) - 1
    legacy_allowed = True
    for index, line in enumerate(lines):
        lineno = index + 1
        if index == last_index:
            if line:  # bytes after the final newline: a torn append
                raise JournalTailError(file, lineno, f"the last line is cut off ({len(line)} "
                                                     "bytes with no line end)",
                                       events, offset, line)
            break
        try:
            event, checked = _parse(line, file, lineno, len(events) + 1, legacy_allowed)
        except JournalError as exc:
            # Damage with no intact event after it is the end of the journal: a crash tore
            # it or junk was appended. Anything else is damage in the middle.
            if not any(_looks_intact(rest) for rest in lines[index + 1:last_index]):
                raise JournalTailError(file, lineno, f"the journal is damaged from line "
                                                     f"{lineno} on: {exc.problem}",
                                       events, offset, raw[offset:]) from None
            raise
        legacy_allowed = legacy_allowed and not checked
        events.append(event)
        offset += len(line) + 1
    return events


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


def private_dir(directory: Path) -> Path:
    """Create ``directory`` (and missing parents) readable by this user only (0700); an
    existing folder of ours is tightened to 0700. Raises StorageError naming the folder."""
    directory = Path(directory)
    try:
        missing = []
        here = directory
        while not here.exists() and here != here.parent:
            missing.append(here)
            here = here.parent
        for folder in reversed(missing):  # each new folder 0700, not just the last
            folder.mkdir(mode=DIR_MODE, exist_ok=True)
        if os.name == "posix" and directory.stat().st_mode & 0o077:
            os.chmod(directory, DIR_MODE)
    except OSError as exc:
        raise StorageError(f"{directory}: cannot create the folder: "
                           f"{exc.strerror or exc}") from None
    return directory


def _private(fd: int) -> None:
    """Journals hold hidden information (the face-down token order): owner only."""
    if hasattr(os, "fchmod"):
        try:
            if os.fstat(fd).st_mode & 0o077:
                os.fchmod(fd, FILE_MODE)
        except OSError:
            pass


def _lock(fd: int, file: str) -> bool:
    """Take the exclusive, non-blocking OS lock on an open journal. False where the file
    system has no locks (then there is nothing to hold)."""
    try:
        if _fcntl is not None:
            _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
        elif _msvcrt is not None:
            here = os.lseek(fd, 0, os.SEEK_CUR)
            os.lseek(fd, _LOCK_OFFSET, os.SEEK_SET)
            try:
                _msvcrt.locking(fd, _msvcrt.LK_NBLCK, 1)
            finally:
                os.lseek(fd, here, os.SEEK_SET)
        else:
            return False
    except OSError as exc:
        if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
            return False  # e.g. some network file systems
        raise GameLockedError(file) from None
    return True


def _unlock(fd: int) -> None:
    if _msvcrt is not None and _fcntl is None:
        try:
            os.lseek(fd, _LOCK_OFFSET, os.SEEK_SET)
            _msvcrt.locking(fd, _msvcrt.LK_UNLCK, 1)
        except OSError:
            pass
    # flock is released when the file is closed


def repair_tail(path: str | Path, error: JournalTailError) -> Path:
    """Move the damaged tail of a journal into a sidecar file and truncate to the good prefix.

    Returns the sidecar's path. The sidecar is written and fsynced before the journal is
    truncated, so the damaged bytes are never lost. The caller holds the journal's lock
    (:meth:`Journal.repair`); a journal with no intact first line is moved aside whole
    instead (:func:`move_aside`).
    """
    path = Path(path)
    if not error.good_events:
        raise JournalError(str(path), error.line, "no intact game.start line to keep")
    sidecar = path.with_name(f"{path.name}.damaged-line-{error.line}-{int(time.time())}")
    _write_private(sidecar, error.bad_bytes)
    with open(path, "r+b") as f:
        f.truncate(error.good_bytes)
        f.flush()
        os.fsync(f.fileno())
    _fsync_dir(path.parent)
    return sidecar


def move_aside(path: str | Path) -> Path:
    """Rename a journal whose first line is damaged (no game can be read from it) to
    ``<name>.damaged-<time>``, out of the saved-games list, bytes untouched. Refused while
    the game is open elsewhere."""
    path = Path(path)
    with Journal(path):  # the lock: never move a journal another window is writing
        target = path.with_name(f"{path.name}.damaged-{int(time.time())}")
        try:
            os.rename(path, target)
        except OSError as exc:
            raise StorageError(f"{path}: cannot move it aside: {exc.strerror or exc}") from None
    _fsync_dir(path.parent)
    return target


def delete(path: str | Path) -> None:
    """Delete a saved game's journal, under its lock: refused (GameLockedError) while the
    game is open for writing anywhere, this app included; a file already gone is named."""
    path = Path(path)
    with Journal(path):  # the lock: never delete a journal a window is writing
        try:
            os.unlink(path)
        except OSError as exc:
            raise StorageError(f"{path}: cannot delete it: {exc.strerror or exc}") from None
    _fsync_dir(path.parent)


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _BINARY, FILE_MODE)
    try:
        _private(fd)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def write_private_file(path: str | Path, data: bytes) -> Path:
    """Write a whole file atomically (temporary file, fsync, rename), owner-only (0600); its
    folder is made 0700. Raises StorageError with the file and the reason."""
    path = Path(path)
    private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        _write_private(tmp, data)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise StorageError(f"{path}: cannot write: {exc.strerror or exc}") from None
    _fsync_dir(path.parent)
    return path


class Journal:
    """Append-only writer of one game's journal, holding the game's OS lock while open."""

    def __init__(self, path: str | Path, next_seq: int = 1) -> None:
        self.path = Path(path)
        self.next_seq = next_seq
        file = str(self.path)
        try:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | _BINARY)
        except FileNotFoundError:
            raise JournalError(file, None, "no such saved game") from None
        except OSError as exc:
            raise StorageError(f"{file}: cannot open it for writing: "
                               f"{exc.strerror or exc}") from None
        try:
            self.locked = _lock(self._fd, file)
        except BaseException:
            os.close(self._fd)
            self._fd = -1
            raise
        _private(self._fd)

    @classmethod
    def create(cls, path: str | Path, first: Event | None = None) -> Journal:
        """A new journal at ``path`` (never overwriting one), holding ``first`` when given.

        The first line is written to a temporary file, fsynced, then linked into place, so
        a full disk or a read-only folder leaves nothing behind: no 0-byte game, no torn
        ``game.start``. Errors are StorageError naming the file and the reason."""
        path = Path(path)
        private_dir(path.parent)
        tmp = path.with_name(f".{path.name}.new-{os.getpid()}")
        data = first.to_line() if first is not None else b""
        try:
            _write_private(tmp, data)
            try:
                os.link(tmp, path)  # fails if a game of that name exists: never overwrite
            except FileExistsError:
                raise
            except OSError:
                if os.name != "nt":
                    raise
                os.rename(tmp, path)  # Windows: rename never replaces an existing file
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            if isinstance(exc, FileExistsError):
                raise StorageError(f"{path}: a saved game of that name exists") from None
            raise StorageError(f"{path}: cannot create the game: "
                               f"{exc.strerror or exc}") from None
        _fsync_dir(path.parent)
        return cls(path, 2 if first is not None else 1)

    def append(self, type_: str, data: Mapping[str, Any]) -> Event:
        """Write one event durably (write + fsync) and return it."""
        event = Event(self.next_seq, type_, data, now_iso())
        self.write(event)
        return event

    def write(self, event: Event) -> None:
        if self._fd < 0:
            raise JournalError(str(self.path), None, "the game is closed")
        line = event.to_line()
        size_before = os.fstat(self._fd).st_size
        try:
            written = os.write(self._fd, line)
            if written != len(line):
                raise OSError(errno.ENOSPC, f"short write to {self.path}: {written} of "
                                            f"{len(line)} bytes")
            os.fsync(self._fd)
        except OSError:
            # Disk full or similar: never leave half a line behind for the next append.
            os.ftruncate(self._fd, size_before)
            raise
        self.next_seq = event.seq + 1

    def repair(self, error: JournalTailError) -> Path:
        """:func:`repair_tail` under this journal's lock."""
        return repair_tail(self.path, error)

    def close(self) -> None:
        if self._fd >= 0:
            _unlock(self._fd)
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
