"""The one registry of games: everything the app shell, the saved-games list, export and the
command line need to know about a game, declared by the game in one place.

A game is a :class:`GameEntry`. The five games of the box declare theirs at the end of their
rules module (``companion/games/<game>.py``, ``ENTRY = GameEntry(...)``) and are listed in
:data:`BUILTIN`; another package adds one with :func:`register`, or through the
``tabletop_companion.games`` entry point group (``name = "package.module:ENTRY"``), with no
edit anywhere else.

An entry names its Kivy screens and hooks as ``"module:attribute"`` strings, imported on first
use, so that this module, the rules and the command line never import Kivy.

Nothing here imports Kivy, pyserial or OpenCV.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import files
from .errors import CompanionError, JournalError
from .i18n import N_, _

if TYPE_CHECKING:  # pragma: no cover
    from .games.base import GameRules

ENTRY_POINT_GROUP = "tabletop_companion.games"

Colour = tuple[float, float, float, float]


def resolve(target: str) -> Any:
    """The object a ``"package.module:attribute"`` string names (imported now)."""
    module, _, attr = target.partition(":")
    if not module or not attr:
        raise ValueError(f"{target!r}: write 'package.module:attribute'")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class HomeTile:
    """The game's tile on the Home screen."""

    title: str                 # "TEKKEN"
    subtitle: str              # "The Board Game"
    colour: Colour
    pressed: Colour
    order: int = 100           # tiles are shown by order, then title


@dataclass(frozen=True)
class ConfigFile:
    """The game's YAML file: shipped with the game, the user's edited copy preferred.

    ``shipped`` is ``"package:relative/path.yaml"``, read with :mod:`importlib.resources` so
    that it is found in a checkout, a wheel or an APK alike. ``name`` is the file's name in
    the user's config folder (``<data>/config/<name>.yaml``) and in ``$COMPANION_CONFIG_DIR``.
    """

    name: str
    type: str                  # "module:DataclassName", the typed config
    shipped: str               # "package:relative/path.yaml"
    data: str | None = None    # "module:function": the config back to plain data, to save it


@dataclass(frozen=True)
class GameEntry:
    """Everything about one game that is not its rules.

    ``screens`` maps a screen name (unique across games: prefix it with the game's id) to
    ``"module:ScreenClass"``; ``setup`` and ``play`` are two of those names. The play screen
    is a :class:`companion.app.game_screen.GameScreen`: it draws the open game and is offered
    every throw of the dice tower through ``take_throw``.
    """

    id: str                                   # the journal's game id, e.g. "tekken"
    rules: str                                # "module:RULES", a games.base.GameRules
    tile: HomeTile
    setup: str                                # the set-up screen's name
    play: str                                 # the play screen's name
    screens: dict[str, str] = field(default_factory=dict)
    config: ConfigFile | None = None
    # the dice kinds this game takes from the tower (empty: it uses no dice) and the
    # simulated tower's dice set that throws them (a name in firmware_bridge.tower.sim.DICE_SETS)
    dice_kinds: tuple[str, ...] = ()
    sim_dice: str | None = None
    # the colours its dice come in, when the game tells dice apart by colour (Takkure's red
    # and yellow D12s): a camera tower is taught them with the faces
    dice_colours: tuple[str, ...] = ()
    # before an action: "module:function(before, after) -> question or None" and the title
    confirm: str | None = None
    confirm_title: str = N_("Confirm")
    # ``companion new <id>``: "module:function(parser)" adds options and
    # "module:function(config, args) -> (setup, label)" turns them into a game.start setup
    cli_arguments: str | None = None
    cli_setup: str | None = None
    # the live view's public summary: "module:function(state) -> dict" (companion/live/
    # summary.py says the shape); never what the table keeps hidden
    spectator: str | None = None

    def takes(self, dice: Iterable[Mapping[str, Any]]) -> bool:
        """Whether a throw holds any die of a kind this game uses (a game without dice kinds
        takes none)."""
        return any(d.get("kind") in self.dice_kinds for d in dice)

    def load_rules(self) -> GameRules:
        return resolve(self.rules)

    def confirm_function(self) -> Callable[[Any, Any], str | None] | None:
        return resolve(self.confirm) if self.confirm else None

    def spectator_function(self) -> Callable[[Any], dict[str, Any]] | None:
        return resolve(self.spectator) if self.spectator else None


BUILTIN = (
    "companion.games.tekken:ENTRY",
    "companion.games.takkure:ENTRY",
    "companion.games.kotd:ENTRY",
    "companion.games.tagteam:ENTRY",
    "companion.games.danchie:ENTRY",
)

_entries: dict[str, GameEntry] = {}
_rules: dict[str, Any] = {}
_loaded = False
_listeners: list[Callable[[], None]] = []


def subscribe(listener: Callable[[], None]) -> None:
    """Call ``listener()`` after a game is added or removed (Home redraws its tiles)."""
    _listeners.append(listener)


def _changed() -> None:
    for listener in list(_listeners):
        listener()


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for target in BUILTIN:
        _add(resolve(target))
    found: Iterable[Any]
    try:
        found = entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # noqa: BLE001 - broken metadata must not stop the app
        found = ()
    for ep in found:
        try:
            entry = ep.load()
        except Exception:  # noqa: BLE001 - a broken plug-in is skipped, the rest still run
            continue
        if isinstance(entry, GameEntry) and entry.id not in _entries:
            _add(entry)


def _add(entry: GameEntry) -> None:
    if not isinstance(entry, GameEntry):
        raise TypeError(f"not a GameEntry: {entry!r}")
    for other in _entries.values():
        if other.id == entry.id:
            continue
        clash = set(other.screens) & set(entry.screens)
        if clash:
            raise ValueError(f"game {entry.id!r}: screen names {sorted(clash)} are "
                             f"already {other.id!r}'s")
    missing = {entry.setup, entry.play} - set(entry.screens)
    if missing:
        raise ValueError(f"game {entry.id!r}: screens {sorted(missing)} are not declared")
    _entries[entry.id] = entry
    _rules.pop(entry.id, None)


def register(entry: GameEntry) -> GameEntry:
    """Add (or replace) a game. Returns ``entry``, so it can be used as a module's last line."""
    _load()
    _add(entry)
    _changed()
    return entry


def unregister(game_id: str) -> None:
    """Remove a game added with :func:`register` (tests)."""
    _load()
    _entries.pop(game_id, None)
    _rules.pop(game_id, None)
    _changed()


def games() -> list[GameEntry]:
    """Every registered game, in Home's order."""
    _load()
    return sorted(_entries.values(), key=lambda e: (e.tile.order, e.tile.title))


def ids() -> list[str]:
    return [e.id for e in games()]


def get(game_id: str) -> GameEntry:
    _load()
    try:
        return _entries[game_id]
    except KeyError:
        raise CompanionError(_("unknown game '{game}' (this version knows: {known})").format(
            game=game_id, known=", ".join(sorted(_entries)))) from None


def find(game_id: object) -> GameEntry | None:
    _load()
    return _entries.get(game_id) if isinstance(game_id, str) else None


def rules(game_id: object, file: str = "", line: int | None = 1) -> GameRules:
    """The rules of ``game_id``; an unknown id is a journal error naming the file and line."""
    entry = find(game_id)
    if entry is None:
        known = ", ".join(sorted(_entries))
        raise JournalError(file, line, _("unknown game '{game}' (this version knows: {known})").format(
            game=game_id, known=known))
    found = _rules.get(entry.id)
    if found is None:
        found = _rules[entry.id] = entry.load_rules()
    return found


def screen_targets() -> dict[str, str]:
    """Every game's screens: name -> "module:Class"."""
    out: dict[str, str] = {}
    for entry in games():
        out.update(entry.screens)
    return out


def game_of_screen(name: str) -> GameEntry | None:
    for entry in games():
        if name in entry.screens:
            return entry
    return None


# -- config files ----------------------------------------------------------------------------
def load_config(game_id: str, root: Path) -> Any:
    """The game's typed config: the user's copy in ``root/config/`` if there is one, else the
    shipped file (None for a game without one). Errors name the file, the line and the key."""
    cfg = get(game_id).config
    if cfg is None:
        return None
    return files.load_config(resolve(cfg.type), cfg.name, root, cfg.shipped)


def config_data(game_id: str, cfg: Any) -> dict[str, Any]:
    """Plain data for writing a game's config back to YAML."""
    entry = get(game_id)
    if entry.config is None or entry.config.data is None:
        raise CompanionError(_("{game}: its settings cannot be edited").format(game=_(entry.tile.title)))
    return resolve(entry.config.data)(cfg)


def save_config(game_id: str, cfg: Any, root: Path) -> Path:
    """Write the user's copy of the game's config (checked first: a config that would not
    load back writes nothing)."""
    entry = get(game_id)
    data = config_data(game_id, cfg)
    assert entry.config is not None  # config_data refused a game without one
    return files.save_user_config(entry.config.name, data, resolve(entry.config.type), root)
