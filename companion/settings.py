"""The app's own settings (today: the language), kept in the user's data folder beside the
games (``settings.json``; ``COMPANION_HOME`` moves it with them).

A missing file is the defaults; a damaged one is reported in the log, naming the file and the
problem, and the defaults are used (the app must start)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from .i18n import LANGUAGES, SYSTEM
from .journal import write_private_file

log = logging.getLogger(__name__)

FILE_NAME = "settings.json"
MAX_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Settings:
    language: str = SYSTEM      # "system" (the default), or a code of i18n.LANGUAGES


def settings_path(root: Path) -> Path:
    return root / FILE_NAME


def problem(data: object) -> str | None:
    """What is wrong with the file's content (None: nothing)."""
    if not isinstance(data, dict):
        return "not a JSON object"
    unknown = sorted(set(data) - {"language"})
    if unknown:
        return f"{unknown[0]}: unknown key"
    lang = data.get("language", SYSTEM)
    if lang != SYSTEM and lang not in LANGUAGES:
        return f"language: {lang!r} is not {SYSTEM!r} or one of {', '.join(sorted(LANGUAGES))}"
    return None


def load(root: Path) -> Settings:
    path = settings_path(root)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        log.warning("%s: cannot be read (%s): default settings", path, exc.strerror)
        return Settings()
    try:
        if len(raw) > MAX_BYTES:
            raise ValueError(f"larger than {MAX_BYTES} bytes")
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        log.warning("%s: not settings this app wrote (%s): default settings", path, exc)
        return Settings()
    why = problem(data)
    if why is not None:
        log.warning("%s: %s: default settings", path, why)
        return Settings()
    return Settings(language=data.get("language", SYSTEM))


def save(root: Path, settings: Settings) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"language": settings.language}, indent=1) + "\n"
    return write_private_file(settings_path(root), text.encode("utf-8"))
