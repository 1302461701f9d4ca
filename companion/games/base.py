"""What the session engine needs from a game's rules module.

A game is a pure module (no Kivy, pyserial or OpenCV) exposing an object with this shape.
It works in two steps, so that randomness never enters a replay:

* ``decide`` checks a user command against the current state and returns the complete
  event data to record, drawing any random values (a shuffle) *now* from ``rng`` and
  writing the result into the data;
* ``apply`` is a pure function of (state, event type, event data): it never draws, so a
  replay, an undo or a redo reproduces exactly what the players saw.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Generic, Protocol, TypeVar

from ..errors import IllegalActionError
from ..i18n import _

S = TypeVar("S")


class GameRules(Protocol, Generic[S]):
    name: str          # journal/game id, e.g. "tekken"
    title: str         # shown to players, e.g. "TEKKEN – The Board Game"
    event_types: frozenset[str]  # every event type this game records (besides game.start)

    def start(self, setup: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
        """Validate a new game's setup and return the ``game.start`` data (draws included)."""

    def initial(self, data: Mapping[str, Any]) -> S:
        """The state right after ``game.start``."""

    def decide(self, state: S, type_: str, data: Mapping[str, Any],
               rng: random.Random) -> dict[str, Any]:
        """Check a command and complete its data; raises IllegalActionError."""

    def apply(self, state: S, type_: str, data: Mapping[str, Any]) -> S:
        """The state after the event; pure; raises IllegalActionError."""

    # Optional: ``check(state, type_, data)`` raises IllegalActionError naming the field when
    # an event's data breaks the bounds the live action keeps. The session calls it before
    # ``apply`` both live and on replay, and for ``game.start`` (``state`` None), so that a
    # journal can hold nothing the app could not have written.

    def describe(self, before: S, type_: str, data: Mapping[str, Any], after: S) -> str:
        """One readable action-log line, e.g. "Kazuya -3 HP (Strike 2, knocked down +1)"."""

    def to_json(self, state: S, *, reveal_hidden: bool = False) -> dict[str, Any]:
        """Plain JSON data for export; hidden information only with ``reveal_hidden``."""

    def is_over(self, state: S) -> bool:
        """True once the game has a result."""

    def summary(self, state: S) -> str:
        """One line for the saved-games list, e.g. "Jin 2 – 1 Kazuya, round 4"."""


_setattr = object.__setattr__
_UNSET = object()
_EVOLVERS: dict[type, Any] = {}


def _make_evolver(cls: type) -> Any:
    """Generate ``evolve`` for one slotted class: keyword arguments, no dict juggling."""
    names = cls.__slots__  # type: ignore[attr-defined]
    params = ", ".join(f"{n}=_UNSET" for n in names)
    body = "\n".join(f"    _setattr(new, {n!r}, o.{n} if {n} is _UNSET else {n})"
                     for n in names)
    source = f"def evolve(o, *, {params}):\n    new = _new(_cls)\n{body}\n    return new\n"
    scope: dict[str, Any] = {"_UNSET": _UNSET, "_setattr": _setattr, "_new": cls.__new__,
                             "_cls": cls}
    exec(compile(source, f"<evolve {cls.__name__}>", "exec"), scope)  # noqa: S102
    return scope["evolve"]


def evolver(cls: type) -> Any:
    """The fast ``evolve`` for one slotted class, to call directly on hot paths."""
    fn = _EVOLVERS.get(cls)
    if fn is None:
        fn = _EVOLVERS[cls] = _make_evolver(cls)
    return fn


def evolve(obj: S, **changes: Any) -> S:
    """A copy of the frozen, slotted dataclass ``obj`` with some fields changed.

    Same result as ``dataclasses.replace`` (without ``__post_init__``, which game values
    do not use) but several times faster: a replay folds 100,000 events.
    """
    return evolver(obj.__class__)(obj, **changes)


RULES_EDITION = 3
"""The edition of the rules checks a new game is recorded under, written into its
``game.start`` as ``rules``. Edition 2 refuses what the rulebooks forbid and edition 1 (a
journal without ``rules``) let through: an attacking Takkure player resting, a Danchie Go turn
ended with action sets left, ... Edition 3 ends a Tag Team fight at once when a Fighter is
taken to KO by hand, and lets Takkure's Broken leg no longer raise a MOV already below its
minimum. A journal replays under the edition it was recorded with,
so every journal saved before still opens and shows exactly what its players saw; the new
tracking (deck sizes, tokens) works in both."""


def rules_edition(data: Mapping[str, Any]) -> int:
    """The rules edition of a ``game.start`` (1 when it has none: recorded before editions)."""
    value = data.get("rules", 1)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= RULES_EDITION:
        raise IllegalActionError(_("rules: edition 1 to {rules_edition}, not {value!r} (a journal from "
                                   "a newer version of the companion?)").format(
                                     rules_edition=RULES_EDITION, value=value))
    return value


# -- field checks for a game's ``check`` hook: each names the field at fault -----------------

def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def whole(value: Any, where: str, low: int, high: int) -> int:
    """``value`` as a whole number from ``low`` to ``high``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise IllegalActionError(_("{where}: expected a whole number {low} to {high}, got {short}").format(
                                     where=where, low=low, high=high, short=_short(value)))
    return value


def mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise IllegalActionError(_("{where}: expected an object, got {short}").format(
                                     where=where, short=_short(value)))
    return value


def items(value: Any, where: str, count: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (count is not None and len(value) != count):
        wanted = _("a list") if count is None else _("a list of {count}").format(count=count)
        raise IllegalActionError(_("{where}: expected {wanted}, got {short}").format(
                                     where=where, wanted=wanted, short=_short(value)))
    return value


def text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise IllegalActionError(_("{where}: expected a name, got {short}").format(
                                     where=where, short=_short(value)))
    return value
