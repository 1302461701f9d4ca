"""The few exceptions the companion, the camera and the dice tower tools raise.

Each subclasses a built-in so callers can catch broadly, and each message carries
the bad value and where it came from (file, key path, line, event type).
"""

from __future__ import annotations

from .words import _


class CompanionError(Exception):
    """Base of every error the companion reports to a user (exit code 2 on the CLI)."""

    exit_code = 2


class ConfigError(CompanionError, ValueError):
    """A configuration file is malformed: names the file, the key path and the line."""

    exit_code = 3

    def __init__(self, file: str, line: int | None, key_path: str, problem: str) -> None:
        self.file = file
        self.line = line
        self.key_path = key_path
        self.problem = problem
        where = f"{file}:{line}" if line is not None else file
        key = f" {key_path}:" if key_path else ""
        super().__init__(f"{where}:{key} {problem}")


class IllegalActionError(CompanionError, ValueError):
    """A user action the rules do not allow now. The game state is left unchanged."""

    exit_code = 4


class JournalError(CompanionError, ValueError):
    """A saved game (journal) cannot be read as it is: names the file and the line."""

    exit_code = 5

    def __init__(self, file: str, line: int | None, problem: str) -> None:
        self.file = file
        self.line = line
        self.problem = problem
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where}: {problem}")


class JournalTailError(JournalError):
    """The journal ends in a torn or corrupted line (typically cut off by a crash).

    Everything before ``line`` is intact; ``good_events`` holds those events and
    ``good_bytes`` the length of the intact prefix, so nothing is silently dropped.
    """

    line: int      # always known: the damaged line

    exit_code = 6

    def __init__(self, file: str, line: int, problem: str, good_events: list, good_bytes: int,
                 bad_bytes: bytes) -> None:
        super().__init__(file, line, problem)
        self.good_events = good_events
        self.good_bytes = good_bytes
        self.bad_bytes = bad_bytes
        self.actions_in_force: int | None = None  # set by the session: what a repair keeps


class GameLockedError(CompanionError, OSError):
    """Another window or process has this game open for writing."""

    exit_code = 8

    def __init__(self, file: str) -> None:
        self.file = file
        super().__init__(_("{file}: this game is open elsewhere (another window or a "
                           "companion command); it can only be read here until it is closed "
                           "there").format(file=file))


class StorageError(CompanionError, OSError):
    """A file could not be written (disk full, read-only folder, no permission)."""

    exit_code = 9
