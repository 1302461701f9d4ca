"""Face to face: the games whose screen has one half per player can turn the far player's
half by 180 degrees, for two players sitting across the table with the tablet flat between
them (as life-counter apps do). Which games have it turned is remembered in
``$COMPANION_HOME/face_to_face.json`` (a list of game ids)."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import CompanionError
from ..journal import write_private_file

FILE = "face_to_face.json"


def load(root: Path) -> set[str]:
    """The games played face to face; a missing file is none. A file that is not a JSON list
    of game ids is refused, naming the file."""
    path = Path(root) / FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return set()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CompanionError(f"{path}: line {exc.lineno}: not JSON ({exc.msg}); the face to "
                             "face setting is ignored until it is set again") from None
    if not isinstance(data, list) or not all(isinstance(g, str) for g in data):
        raise CompanionError(f"{path}: expected a list of game ids such as [\"tekken\"], got "
                             f"{text.strip()[:60]!r}")
    return set(data)


def save(root: Path, games: set[str]) -> Path:
    return write_private_file(Path(root) / FILE,
                              (json.dumps(sorted(games)) + "\n").encode("utf-8"))
