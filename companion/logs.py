"""The app's log: the standard :mod:`logging` module everywhere (every package logs to its
module's logger; in the app Kivy's handlers sit on the root logger), plus one rotating file
in the user's log folder, so that what went wrong at a table can be read afterwards.

Tracebacks go to the log, never on screen: the player is shown a sentence.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
from pathlib import Path

from . import files
from .journal import private_dir

LOG_NAME = "companion.log"
MAX_BYTES = 1_000_000
BACKUPS = 4
_FORMAT = "%(asctime)s %(levelname)-7s %(name)s [%(threadName)s]: %(message)s"

_handler: logging.Handler | None = None


def setup(root: Path | None = None, level: int = logging.INFO) -> Path | None:
    """Add the rotating log file (once per process) and return its path; None when the log
    folder cannot be written (the app still runs: a log must never stop a game)."""
    global _handler
    folder = files.log_dir(root)
    path = folder / LOG_NAME
    if _handler is not None:
        if getattr(_handler, "baseFilename", None) == str(path):
            return path
        logging.getLogger().removeHandler(_handler)
        _handler.close()
        _handler = None
    try:
        private_dir(folder)  # and any folder it makes on the way (the data folder): 0700
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=MAX_BYTES,
                                                       backupCount=BACKUPS, encoding="utf-8")
        os.chmod(path, 0o600)
    except OSError as exc:  # StorageError included
        logging.getLogger(__name__).warning("no log file in %s: %s", folder, exc)
        return None
    handler.setFormatter(logging.Formatter(_FORMAT))
    handler.setLevel(level)
    top = logging.getLogger()
    top.addHandler(handler)
    if top.level > level or top.level == logging.NOTSET:
        top.setLevel(level)
    for name in ("companion", "firmware_bridge", "vision"):
        logging.getLogger(name).setLevel(level)
    _handler = handler
    return path


def current_file() -> Path | None:
    """The log file in use (None before :func:`setup`)."""
    name = getattr(_handler, "baseFilename", None)
    return Path(name) if name else None
