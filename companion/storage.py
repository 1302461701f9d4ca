"""Where games and user settings live, and the list of saved games.

* ``$COMPANION_HOME`` (default: the user data folder, see :func:`data_dir`) holds ``games/``
  (one journal per game) and ``config/`` (the user's own edits of the shipped YAML, e.g.
  a character's max HP, written by the app and validated like every config file).
* The shipped YAML is package data (``companion/config/*.yaml``, read with
  :mod:`importlib.resources`); a file in ``$COMPANION_CONFIG_DIR``, when set, replaces it.

Nothing here knows a particular game: a game's config file is declared in its registry
entry (:mod:`companion.registry`).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from .config import dump_yaml, loads_typed
from .errors import CompanionError, ConfigError, JournalTailError
from .journal import read_events
from .session import replay

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


def _decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise ConfigError(name, line, "", f"not UTF-8 text (byte {exc.start}: "
                                          f"0x{raw[exc.start]:02x})") from None


def _read_file(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(str(path), None, "", "file not found") from None
    except OSError as exc:
        raise ConfigError(str(path), None, "", f"cannot read: {exc.strerror}") from None
    return _decode(raw, str(path))


def shipped_config_text(name: str, shipped: str | None = None) -> tuple[str, str]:
    """The text of a shipped config file and a name for it in messages.

    ``shipped`` is ``"package:relative/path.yaml"`` (default: this app's
    ``companion.config:NAME.yaml``). When ``$COMPANION_CONFIG_DIR`` is set, a ``NAME.yaml``
    in that folder replaces the shipped file."""
    env = os.environ.get("COMPANION_CONFIG_DIR")
    if env and (Path(env) / f"{name}.yaml").exists():
        path = Path(env) / f"{name}.yaml"
        return _read_file(path), str(path)
    package, _, rel = (shipped or f"{SHIPPED_PACKAGE}:{name}.yaml").partition(":")
    res = resources.files(package).joinpath(rel)
    try:
        raw = res.read_bytes()
    except OSError:
        raise ConfigError(f"{rel} (shipped with the app in {package})", None, "",
                          "file not found: the installation is incomplete") from None
    return _decode(raw, str(res)), str(res)


def config_source(name: str, root: Path | None = None,
                  shipped: str | None = None) -> tuple[str, str]:
    """(text, file name) of config ``name``: the user's edited copy if there is one, else the
    shipped file."""
    user = user_config_path(name, root)
    if user.exists():
        return _read_file(user), str(user)
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
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".yaml.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "game"


def new_game_path(game: str, label: str, root: Path | None = None) -> Path:
    stamp = time.strftime("%Y-%m-%d-%H%M%S")
    directory = games_dir(root)
    path = directory / f"{stamp}-{game}-{_slug(label)}.jsonl"
    n = 2
    while path.exists():
        path = directory / f"{stamp}-{game}-{_slug(label)}-{n}.jsonl"
        n += 1
    return path


@dataclass(frozen=True, slots=True)
class SavedGame:
    path: Path
    game: str                 # "tekken", or "?" when unreadable
    title: str                # the game's title
    summary: str              # e.g. "Jin 1 – 0 Kazuya, round 2"
    over: bool
    modified: float
    problem: str | None = None  # a readable reason when the journal needs attention


def read_saved(path: Path) -> SavedGame:
    modified = path.stat().st_mtime
    try:
        events = read_events(path)
        problem = None
    except JournalTailError as exc:
        events, problem = exc.good_events, f"damaged last line {exc.line}: {exc.problem}"
    except CompanionError as exc:
        return SavedGame(path, "?", "unreadable", str(exc), False, modified, str(exc))
    try:
        fold = replay(events, str(path))
    except CompanionError as exc:
        return SavedGame(path, "?", "unreadable", str(exc), False, modified, str(exc))
    rules = fold.rules
    return SavedGame(path, rules.name, rules.title, rules.summary(fold.state),
                     rules.is_over(fold.state), modified, problem)


def list_saved(root: Path | None = None) -> list[SavedGame]:
    """Every saved game, most recently played first."""
    directory = games_dir(root)
    if not directory.is_dir():
        return []
    games = [read_saved(p) for p in directory.glob("*.jsonl")]
    return sorted(games, key=lambda g: g.modified, reverse=True)


def last_unfinished(root: Path | None = None) -> SavedGame | None:
    for g in list_saved(root):
        if not g.over and g.game != "?":
            return g
    return None
