"""Where the app's files live, and its config files: below the registry (a game's entry
names its config file; this module reads and writes it without knowing any game).

* ``$COMPANION_HOME`` (default: the user data folder, see :func:`data_dir`) holds ``games/``
  (one journal per game) and ``config/`` (the user's own edits of the shipped YAML, e.g.
  a character's max HP, written by the app and validated like every config file).
* The shipped YAML is package data (``companion/config/*.yaml``, read with
  :mod:`importlib.resources`); a file in ``$COMPANION_CONFIG_DIR``, when set, replaces it.

Everything written here is owner-only (files 0600, folders 0700). The list of saved games is
:mod:`companion.storage`'s.
"""

from __future__ import annotations

import os
import re
import time
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from tabletop_base.typed_yaml import decode_text, read_text

from .config import dump_yaml, loads_typed
from .errors import ConfigError
from .journal import private_dir, write_private_file

T = TypeVar("T")
SHIPPED_PACKAGE = "companion.config"


APP_NAME = "tabletop-companion"


def data_dir() -> Path:
    """Where games and the user's config live: ``$COMPANION_HOME``, else the system's user
    data folder (platformdirs: ``~/.local/share/tabletop-companion`` on Linux,
    ``%LOCALAPPDATA%\\tabletop-companion`` on Windows, ``~/Library/Application Support/...``
    on macOS). The Android app passes Kivy's ``user_data_dir`` instead."""
    env = os.environ.get("COMPANION_HOME")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def log_dir(root: Path | None = None) -> Path:
    """Where the app writes its rotating log: ``<data>/logs`` when ``$COMPANION_HOME`` (or an
    explicit data folder) is used, else the system's user log folder."""
    if root is not None or os.environ.get("COMPANION_HOME"):
        return (root or data_dir()) / "logs"
    import platformdirs

    return Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))


def games_dir(root: Path | None = None) -> Path:
    return (root or data_dir()) / "games"


def user_config_path(name: str, root: Path | None = None) -> Path:
    return (root or data_dir()) / "config" / f"{name}.yaml"


def shipped_config_text(name: str, shipped: str | None = None) -> tuple[str, str]:
    """The text of a shipped config file and a name for it in messages.

    ``shipped`` is ``"package:relative/path.yaml"`` (default: this app's
    ``companion.config:NAME.yaml``). When ``$COMPANION_CONFIG_DIR`` is set, a ``NAME.yaml``
    in that folder replaces the shipped file."""
    env = os.environ.get("COMPANION_CONFIG_DIR")
    if env and (Path(env) / f"{name}.yaml").exists():
        path = Path(env) / f"{name}.yaml"
        return read_text(path), str(path)
    package, _, rel = (shipped or f"{SHIPPED_PACKAGE}:{name}.yaml").partition(":")
    res = resources.files(package).joinpath(rel)
    try:
        raw = res.read_bytes()
    except OSError:
        raise ConfigError(f"{rel} (shipped with the app in {package})", None, "",
                          "file not found: the installation is incomplete") from None
    return decode_text(raw, str(res)), str(res)


def config_source(name: str, root: Path | None = None,
                  shipped: str | None = None) -> tuple[str, str]:
    """(text, file name) of config ``name``: the user's edited copy if there is one, else the
    shipped file."""
    user = user_config_path(name, root)
    if user.exists():
        return read_text(user), str(user)
    return shipped_config_text(name, shipped)


def load_config(cls: type[T], name: str, root: Path | None = None,
                shipped: str | None = None) -> T:
    """Config ``name`` as an instance of the dataclass ``cls`` (user copy, else shipped);
    every error names the file, the line and the key."""
    text, file = config_source(name, root, shipped)
    return loads_typed(cls, text, file)


def save_user_config(name: str, data: dict[str, Any], cls: type, root: Path | None = None) -> Path:
    """Write the user's config atomically, after checking it loads back as ``cls``."""
    path = user_config_path(name, root)
    text = dump_yaml(data)
    loads_typed(cls, text, str(path))  # refuse to write anything that would not load
    private_dir(path.parent.parent)
    return write_private_file(path, text.encode("utf-8"))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "game"


def new_game_path(game: str, label: str, root: Path | None = None) -> Path:
    """A fresh journal path; the data and games folders are made (0700) if missing, a
    folder that cannot be made is a StorageError naming it."""
    stamp = time.strftime("%Y-%m-%d-%H%M%S")
    private_dir(root or data_dir())
    directory = private_dir(games_dir(root))
    path = directory / f"{stamp}-{game}-{_slug(label)}.jsonl"
    n = 2
    while path.exists():
        path = directory / f"{stamp}-{game}-{_slug(label)}-{n}.jsonl"
        n += 1
    return path
