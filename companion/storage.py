"""Where games and user settings live, and the list of saved games.

* ``$COMPANION_HOME`` (default: the user data folder, see :func:`data_dir`) holds ``games/``
  (one journal per game) and ``config/`` (the user's own edits of the shipped YAML, e.g.
  a character's max HP, written by the app and validated like every config file).
* The shipped YAML is package data (``companion/config/*.yaml``, read with
  :mod:`importlib.resources`); a file in ``$COMPANION_CONFIG_DIR``, when set, replaces it.

Nothing here knows a particular game: a game's config file is declared in its registry
entry (:mod:`companion.registry`).

The saved-games list costs the same with 5 games or 500, small or huge: ``games/index.json``
keeps each journal's summary with the size and modification time it was read at; a journal
whose size or time differ (played since, or new) is read again and the index rewritten, a
missing or unreadable index is rebuilt. A journal larger than :data:`LARGE_JOURNAL_BYTES`
that is not in the index is listed from its first line alone (a bounded read). Everything
written here is owner-only (files 0600, folders 0700).
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from tabletop_base.typed_yaml import decode_text, read_text

from .config import dump_yaml, loads_typed
from .errors import CompanionError, ConfigError, JournalError, JournalTailError
from .i18n import _, language
from .journal import MAX_LINE_BYTES, private_dir, read_events, write_private_file
from .session import replay

log = logging.getLogger(__name__)

INDEX_NAME = "index.json"
INDEX_VERSION = 1
MAX_INDEX_BYTES = 8 << 20
LARGE_JOURNAL_BYTES = 32 << 20
"""A journal this large (some 200,000 actions) is not replayed just to be listed."""

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


@dataclass(frozen=True, slots=True)
class SavedGame:
    path: Path
    game: str                 # "tekken", or "?" when unreadable
    title: str                # the game's title
    summary: str              # e.g. "Jin 1 – 0 Kazuya, round 2"
    over: bool
    modified: float
    problem: str | None = None  # a readable reason when the journal needs attention
    known: bool = True        # False: a large journal listed from its first line only


_INDEXED = ("game", "title", "summary", "over", "problem", "known")


def _unreadable(path: Path, modified: float, why: str) -> SavedGame:
    return SavedGame(path, "?", _("unreadable"), why, False, modified, why)


def read_saved(path: Path, size: int | None = None, modified: float | None = None) -> SavedGame:
    """One journal's list entry, read from the journal itself (never raises for a bad
    journal: it is listed with its problem)."""
    try:
        if size is None or modified is None:
            st = path.stat()
            size, modified = st.st_size, st.st_mtime
        if size > LARGE_JOURNAL_BYTES:
            return _read_large(path, size, modified)
        try:
            events = read_events(path)
            problem = None
        except JournalTailError as exc:
            if not exc.good_events:
                why = _("its first line is damaged ({problem}): no game can be read from it; "
                        "open it to move it aside").format(problem=exc.problem)
                return _unreadable(path, modified, why)
            events, problem = exc.good_events, _("damaged line {line}: {problem}").format(
                line=exc.line, problem=exc.problem)
        fold = replay(events, str(path))
    except JournalError as exc:   # located by the file's name and the line, not its path
        where = f"{path.name}:{exc.line}: {exc.problem}" if exc.line is not None else \
            f"{path.name}: {exc.problem}"
        return _unreadable(path, modified or 0.0, where)
    except CompanionError as exc:
        return _unreadable(path, modified or 0.0, str(exc))
    except OSError as exc:
        return _unreadable(path, modified or 0.0, _("cannot be read: {problem}").format(
            problem=exc.strerror))
    except Exception as exc:  # noqa: BLE001 - one bad file must not hide the others
        log.error("listing %s failed", path, exc_info=exc)
        return _unreadable(path, modified or 0.0, _("cannot be read"))
    rules = fold.rules
    return SavedGame(path, rules.name, rules.title, rules.summary(fold.state),
                     rules.is_over(fold.state), modified, problem)


def _read_large(path: Path, size: int, modified: float) -> SavedGame:
    """A huge journal from its first line (at most MAX_LINE_BYTES read)."""
    with open(path, "rb") as f:
        head = f.read(MAX_LINE_BYTES + 1)
    first, newline, _rest = head.partition(b"\n")
    if not newline:
        raise JournalError(str(path), 1, "the first line is too long or cut off")
    from .journal import _parse  # the same checks as a full read, for one line

    start, _line = _parse(first, str(path), 1, 1)
    rules = replay([start], str(path)).rules
    return SavedGame(path, rules.name, rules.title,
                     _("a long game ({size_mb:,.0f} MB): open it to see the score").format(
                         size_mb=size / (1 << 20)),
                     False, modified, None, known=False)


def _index_path(root: Path | None) -> Path:
    return games_dir(root) / INDEX_NAME


def _load_index(path: Path) -> dict[str, dict[str, Any]]:
    """The index's entries; {} when it is missing, too large or not what we wrote (then
    it is rebuilt)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_INDEX_BYTES + 1)
        if len(raw) > MAX_INDEX_BYTES:
            return {}
        obj = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(obj, dict) or obj.get("version") != INDEX_VERSION or \
            not isinstance(obj.get("games"), dict):
        return {}
    return obj["games"]


def _from_index(path: Path, entry: Any, size: int, mtime_ns: int, modified: float
                ) -> SavedGame | None:
    if not isinstance(entry, dict) or entry.get("size") != size or \
            entry.get("mtime_ns") != mtime_ns or entry.get("lang") != language():
        return None     # changed since, or its words are in another language
    try:
        game, title, summary, over, problem, known = (entry[k] for k in _INDEXED)
    except KeyError:
        return None
    if not (isinstance(game, str) and isinstance(title, str) and isinstance(summary, str)
            and isinstance(over, bool) and isinstance(known, bool)
            and (problem is None or isinstance(problem, str))):
        return None
    return SavedGame(path, game, title, summary, over, modified, problem, known)


def _scan(root: Path | None) -> tuple[list[tuple[Path, os.stat_result]],
                                       dict[str, dict[str, Any]]]:
    """Every journal with its stat, and the index's entries."""
    directory = games_dir(root)
    try:
        found = [(Path(e.path), e.stat()) for e in os.scandir(directory)
                 if e.name.endswith(".jsonl") and e.is_file()]
    except (FileNotFoundError, NotADirectoryError):
        return [], {}
    except OSError as exc:
        raise CompanionError(f"{directory}: cannot list the saved games: {exc.strerror}") from None
    return found, _load_index(_index_path(root))


def _entry(path: Path, st: os.stat_result, index: dict[str, dict[str, Any]],
           fresh: dict[str, dict[str, Any]]) -> tuple[SavedGame, bool]:
    """The list entry of one journal (from the index when current) and whether it was read;
    its index record goes into ``fresh``."""
    g = _from_index(path, index.get(path.name), st.st_size, st.st_mtime_ns, st.st_mtime)
    read = g is None
    if g is None:
        g = read_saved(path, st.st_size, st.st_mtime)
    record = {k: v for k, v in asdict(g).items() if k in _INDEXED}
    fresh[path.name] = dict(record, size=st.st_size, mtime_ns=st.st_mtime_ns, lang=language())
    return g, read


def list_saved(root: Path | None = None) -> list[SavedGame]:
    """Every saved game, most recently played first (from the index where it is current)."""
    found, index = _scan(root)
    fresh: dict[str, dict[str, Any]] = {}
    games = []
    changed = False
    for path, st in found:
        g, read = _entry(path, st, index, fresh)
        games.append(g)
        changed = changed or read
    if found and (changed or set(fresh) != set(index)):
        _save_index(_index_path(root), fresh)
    return sorted(games, key=lambda g: g.modified, reverse=True)


def _save_index(path: Path, games: dict[str, dict[str, Any]]) -> None:
    """Best effort: a folder we cannot write to still lists its games (read every time)."""
    data = json.dumps({"version": INDEX_VERSION, "games": games}, ensure_ascii=False,
                      separators=(",", ":")).encode("utf-8")
    try:
        write_private_file(path, data)
    except CompanionError as exc:
        log.info("saved-games index not written: %s", exc)


def last_unfinished(root: Path | None = None) -> SavedGame | None:
    """The most recent unfinished game to resume (never an unreadable one, nor a huge one
    whose state is not known without reading it all; a torn tail is resumed, and the app
    offers its repair). Journals are looked at newest first and only until one is found, so
    even with no index this reads few of them."""
    found, index = _scan(root)
    found.sort(key=lambda item: item[1].st_mtime, reverse=True)
    fresh = {name: entry for name, entry in index.items()}
    changed = False
    chosen = None
    for path, st in found:
        g, read = _entry(path, st, index, fresh)
        changed = changed or read
        if not g.over and g.game != "?" and g.known:
            chosen = g
            break
    if changed:  # what was read is remembered; the rest of the index is left as it was
        _save_index(_index_path(root), fresh)
    return chosen
