"""The companion's exceptions: defined in :mod:`tabletop_base.errors`, which ``vision`` can
use too without importing ``companion``; named here for the app and the CLI."""

from __future__ import annotations

from tabletop_base.errors import (
                                  CompanionError,
                                  ConfigError,
                                  GameLockedError,
                                  IllegalActionError,
                                  JournalError,
                                  JournalTailError,
                                  StorageError,
)

__all__ = ["CompanionError", "ConfigError", "GameLockedError", "IllegalActionError",
           "JournalError", "JournalTailError", "StorageError"]
