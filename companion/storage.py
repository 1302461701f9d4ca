"""The list of saved games (the journals in ``games/``, see :mod:`companion.files`).

The list costs the same with 5 games or 500, small or huge: ``games/index.json`` keeps each
journal's summary with the size and modification time it was read at; a journal whose size or
time differ (played since, or new) is read again and the index rewritten, a missing or
unreadable index is rebuilt. A journal larger than :data:`LARGE_JOURNAL_BYTES` that is not in
the index is listed from its first line alone (a bounded read). The index is owner-only.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .errors import CompanionError, JournalError, JournalTailError
from .files import games_dir
from .i18n import _, language
from .journal import MAX_LINE_BYTES, parse_line, read_events, write_private_file
from .session import replay

log = logging.getLogger(__name__)

INDEX_NAME = "index.json"
INDEX_VERSION = 1
MAX_INDEX_BYTES = 8 << 20
LARGE_JOURNAL_BYTES = 32 << 20
"""A journal this large (some 200,000 actions) is not replayed just to be listed."""


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
    start = parse_line(first, str(path), 1)   # the same checks as a full read, for one line
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
