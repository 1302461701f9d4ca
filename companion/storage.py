"""Where games and user settings live, and the list of saved games.

* ``$COMPANION_HOME`` (default ``~/.local/share/tabletop-companion``) holds ``games/``
  (one journal per game) and ``config/`` (the user's own edits of the shipped YAML, e.g.
  a character's max HP, written by the app and validated like every config file).
* ``$COMPANION_CONFIG_DIR`` (default: the repository's ``config/``) holds the shipped YAML.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import dump_yaml, load_typed
from .errors import CompanionError, JournalTailError
from .games.kotd import KotdConfig
from .games.takkure import TakkureConfig, card_data
from .games.tekken import TekkenConfig, stage_data
from .journal import read_events
from .session import replay

SHIPPED_CONFIG = Path(__file__).resolve().parent.parent / "config"


def data_dir() -> Path:
    env = os.environ.get("COMPANION_HOME")
    return Path(env) if env else Path.home() / ".local" / "share" / "tabletop-companion"


def games_dir(root: Path | None = None) -> Path:
    return (root or data_dir()) / "games"


def shipped_config_dir() -> Path:
    env = os.environ.get("COMPANION_CONFIG_DIR")
    return Path(env) if env else SHIPPED_CONFIG


def user_config_path(name: str, root: Path | None = None) -> Path:
    return (root or data_dir()) / "config" / f"{name}.yaml"


def config_path(name: str, root: Path | None = None) -> Path:
    """The user's edited copy if there is one, else the shipped file."""
    user = user_config_path(name, root)
    return user if user.exists() else shipped_config_dir() / f"{name}.yaml"


def load_tekken_config(root: Path | None = None) -> TekkenConfig:
    return load_typed(TekkenConfig, config_path("tekken", root))


def load_tagteam_config(root: Path | None = None) -> Any:
    from .games.tagteam import TagTeamConfig

    return load_typed(TagTeamConfig, config_path("tagteam", root))


def load_danchie_config(root: Path | None = None) -> Any:
    from .games.danchie import DanchieConfig

    return load_typed(DanchieConfig, config_path("danchie", root))


def load_kotd_config(root: Path | None = None) -> KotdConfig:
    return load_typed(KotdConfig, config_path("kotd", root))


def kotd_config_data(cfg: KotdConfig) -> dict[str, Any]:
    """Plain data for writing config/kotd.yaml back (the user's copy)."""
    def monster(m: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"name": m.name, "hp": m.hp, "power": m.power}
        if m.defaults:
            out["defaults"] = list(m.defaults)
        return out

    def buzz(b: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"id": b.id, "cells": list(b.cells)}
        if b.covers:
            out["covers"] = b.covers
        if b.king:
            out["king"] = True
        return out

    return {"defaults": list(cfg.defaults), "faces": list(cfg.faces),
            "monsters": [monster(m) for m in cfg.monsters],
            "tracks": [{"name": t.name, "cells": t.cells, "spotlight": t.spotlight}
                       for t in cfg.tracks],
            "buzz": [buzz(b) for b in cfg.buzz],
            "second_player": {"energy": cfg.second_player.energy,
                              "dice_tokens": cfg.second_player.dice_tokens}}


def load_takkure_config(root: Path | None = None) -> TakkureConfig:
    return load_typed(TakkureConfig, config_path("takkure", root))


def takkure_config_data(cfg: TakkureConfig) -> dict[str, Any]:
    """Plain data for writing the rosters back to YAML (the user's roster file)."""
    teams = []
    for t in cfg.teams:
        players = []
        for p in t.players:
            card = card_data(p)
            card["mov"] = [int(v) if float(v).is_integer() else v for v in card["mov"]]
            card["skills"] = [{"name": s.name, "training": s.training, "text": s.text}
                              for s in p.skills]
            if p.defaults:
                card["defaults"] = list(p.defaults)
            if p.marker_id is not None:
                card["marker_id"] = p.marker_id
                card["marker_height_mm"] = p.marker_height_mm
                if p.marker_side_in is not None:
                    card["marker_side_in"] = p.marker_side_in
            players.append(card)
        teams.append({"name": t.name, "team_skill": t.team_skill, "players": players})
    return {"teams": teams}


def save_user_config(name: str, data: dict[str, Any], cls: type, root: Path | None = None) -> Path:
    """Write the user's config atomically, after checking it loads back as ``cls``."""
    from .config import loads_typed

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


def tekken_config_data(cfg: TekkenConfig) -> dict[str, Any]:
    """Plain data for writing a TekkenConfig back to YAML."""
    return {
        "characters": [{"name": c.name, "max_hp": c.max_hp,
                        "max_hp_is_default": c.max_hp_is_default,
                        "rage_cards": list(c.rage_cards)} for c in cfg.characters],
        "stages": [stage_data(s) for s in cfg.stages],
        "rounds_to_win": cfg.rounds_to_win,
    }


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
