"""The session engine shared by every game.

A session is one game's journal plus the replay of it:

* every user action is one event, appended to the journal (fsynced) *before* the state
  the screen reads changes;
* the state is the fold of the game's ``apply`` over the actions in force;
* ``undo`` and ``redo`` are themselves recorded events (``session.undo``/``session.redo``),
  so a journal is never rewritten and a crash right after an undo resumes with it undone;
  they step one user action at a time, without limit within the game;
* a new action after undos clears the redo stack, as in every editor;
* the state after every action in force is kept, so an undo costs no replay.
"""

from __future__ import annotations

import json
import random
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Generic, Mapping, TypeVar

from .errors import IllegalActionError, JournalError
from . import registry
from .games.base import GameRules
from .journal import Event, Journal, gc_paused, read_events

S = TypeVar("S")

START = "game.start"
UNDO = "session.undo"
REDO = "session.redo"
ROLL = "dice.roll"
"""A physical roll from the dice tower, recorded in the open game's journal. For a game whose
rules take rolls (``ROLL in rules.event_types``) it is an action like any other; for the others
it is a fact in the log that undo does not touch."""
META_TYPES = frozenset({START, UNDO, REDO})


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of the action log, for an action currently in force."""

    seq: int
    at: str
    text: str


def rules_for(name: object, file: str = "", line: int | None = 1) -> GameRules:
    """The registered rules of game ``name``; an unknown game names the file and line."""
    return registry.rules(name, file, line)


class _Replay(Generic[S]):
    """The in-memory fold: actions in force, the state after each, and the redo stack.

    Keeping every state (they are immutable and share unchanged parts) makes undo O(1);
    a 100,000-event game holds a few tens of MB.
    """

    def __init__(self, rules: GameRules[S], start: Event) -> None:
        self.rules = rules
        self.start = start
        self.actions: list[Event] = []
        self.states: list[S] = [rules.initial(start.data)]  # states[i]: after i actions
        self.redo_stack: list[Event] = []
        self.rolls: list[Event] = []  # dice.roll events the rules do not take
        self.roll_keys: set[tuple[int, int]] = set()

    @property
    def initial(self) -> S:
        return self.states[0]

    @property
    def state(self) -> S:
        return self.states[-1]

    def push(self, event: Event, *, clear_redo: bool = True, state: S | None = None) -> None:
        """Apply ``event`` (or take ``state``, already computed from it) and record it."""
        if state is None:
            state = self.rules.apply(self.states[-1], event.type, event.data)
        self.states.append(state)
        self.actions.append(event)
        if clear_redo:
            self.redo_stack.clear()

    def note_roll(self, event: Event) -> None:
        self.rolls.append(event)
        self.roll_keys.add((int(event.data["boot_id"]), int(event.data["seq"])))

    def pop(self) -> Event:
        event = self.actions.pop()
        self.states.pop()
        self.redo_stack.append(event)
        return event

    def feed(self, event: Event) -> None:
        """Apply one journal line during a replay (action, undo or redo)."""
        if event.type == UNDO:
            if not self.actions:
                raise IllegalActionError("nothing to undo")
            self.pop()
        elif event.type == REDO:
            if not self.redo_stack:
                raise IllegalActionError("nothing to redo")
            self.push(self.redo_stack.pop(), clear_redo=False)
        elif event.type == ROLL and ROLL not in self.rules.event_types:
            self.note_roll(event)
        else:
            self.push(event)


def replay(events: list[Event], file: str = "<journal>",
           expected_game: str | None = None) -> _Replay:
    """Fold a whole event list; errors name the file and the line at fault."""
    with gc_paused():
        return _replay(events, file, expected_game)


def _replay(events: list[Event], file: str, expected_game: str | None) -> _Replay:
    if not events:
        raise JournalError(file, None, "the journal has no events")
    start = events[0]
    if start.type != START:
        raise JournalError(file, 1, f"the first event is {start.type!r}, not {START!r}")
    game = start.data.get("game")
    rules = rules_for(game, file)
    if expected_game is not None and game != expected_game:
        wanted = (registry.rules(expected_game).title if registry.find(expected_game)
                  else expected_game)
        raise JournalError(file, 1, f"this is a {rules.title} game, not {wanted}")
    try:
        fold = _Replay(rules, start)
    except (IllegalActionError, KeyError, TypeError, ValueError) as exc:
        raise JournalError(file, 1, f"bad game.start: {exc}") from None
    allowed = rules.event_types
    for lineno, event in enumerate(events[1:], start=2):
        if event.type not in allowed and event.type not in (UNDO, REDO, ROLL):
            owner = event.type.split(".", 1)[0]
            hint = (f" (an event of the game {owner!r})" if registry.find(owner) and owner != game
                    else "")
            raise JournalError(file, lineno, f"event {event.type!r} does not belong to a "
                                             f"{rules.title} game{hint}")
        try:
            fold.feed(event)
        except IllegalActionError as exc:
            raise JournalError(file, lineno, f"{event.type}: {exc}") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise JournalError(file, lineno, f"{event.type}: malformed data ({exc!r})") from None
    return fold


class Session(Generic[S]):
    """One open game: the engine every screen talks to."""

    def __init__(self, path: Path, journal: Journal, fold: _Replay[S],
                 rng: random.Random | None = None) -> None:
        self.path = path
        self._journal = journal
        self._fold = fold
        self.rules: GameRules[S] = fold.rules
        self._rng = rng if rng is not None else secrets.SystemRandom()
        self._listeners: list[Callable[["Session"], None]] = []

    # -- opening -----------------------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path, game: str, setup: Mapping[str, Any],
               rng: random.Random | None = None) -> "Session":
        rules = rules_for(game, str(path), None)
        rng = rng if rng is not None else secrets.SystemRandom()
        data = {"game": game, **rules.start(setup, rng)}
        rules.initial(data)  # validate before anything touches the disk
        journal = Journal.create(path)
        start = journal.append(START, data)
        return cls(Path(path), journal, _Replay(rules, start), rng)

    @classmethod
    def open(cls, path: str | Path, *, expected_game: str | None = None,
             rng: random.Random | None = None) -> "Session":
        """Reopen a saved game exactly where it was. Raises JournalTailError on a torn tail."""
        events = read_events(path)
        fold = replay(events, str(path), expected_game)
        return cls(Path(path), Journal(path, len(events) + 1), fold, rng)

    def close(self) -> None:
        self._journal.close()
        self._listeners.clear()

    # -- reading -------------------------------------------------------------------------
    @property
    def game(self) -> str:
        return self.rules.name

    @property
    def state(self) -> S:
        return self._fold.state

    @property
    def can_undo(self) -> bool:
        return bool(self._fold.actions)

    @property
    def can_redo(self) -> bool:
        return bool(self._fold.redo_stack)

    @property
    def actions(self) -> tuple[Event, ...]:
        """The actions currently in force, oldest first."""
        return tuple(self._fold.actions)

    @property
    def start_event(self) -> Event:
        return self._fold.start

    def log(self) -> list[LogEntry]:
        """The readable action log of the actions in force (and the dice tower's rolls),
        oldest first."""
        describe, states = self.rules.describe, self._fold.states
        entries = [LogEntry(e.seq, e.at, describe(states[i], e.type, e.data, states[i + 1]))
                   for i, e in enumerate(self._fold.actions)]
        if self._fold.rolls:
            entries += [LogEntry(e.seq, e.at, roll_text(e.data)) for e in self._fold.rolls]
            entries.sort(key=lambda entry: entry.seq)
        return entries

    @property
    def rolls(self) -> tuple[Event, ...]:
        """Dice tower rolls recorded in this game that its rules do not take as actions."""
        return tuple(self._fold.rolls)

    def record_roll(self, boot_id: int, seq: int, dice: list[dict[str, Any]], *,
                    late: bool = False) -> Event | None:
        """Record one physical roll in this game's journal, once: a roll already recorded
        (same tower boot and roll number) is ignored and ``None`` returned. ``late``: it
        reaches the game after the app restarted or the tower reconnected."""
        key = (int(boot_id), int(seq))
        if key in self._fold.roll_keys or any(
                (a.data.get("boot_id"), a.data.get("seq")) == key
                for a in self._fold.actions if a.type == ROLL):
            return None
        data: dict[str, Any] = {"boot_id": key[0], "seq": key[1], "dice": list(dice)}
        if late:
            data["late"] = True
        if ROLL in self.rules.event_types:
            return self.do(ROLL, **data)
        event = self._journal.append(ROLL, data)
        self._fold.note_roll(event)
        self._changed()
        return event

    def next_undo_text(self) -> str | None:
        """What an undo would take back, for the undo button's label."""
        if not self._fold.actions:
            return None
        last, states = self._fold.actions[-1], self._fold.states
        return self.rules.describe(states[-2], last.type, last.data, states[-1])

    def next_redo_text(self) -> str | None:
        if not self._fold.redo_stack:
            return None
        e = self._fold.redo_stack[-1]
        return self.rules.describe(self.state, e.type, e.data,
                                   self.rules.apply(self.state, e.type, e.data))

    def to_json(self, *, reveal_hidden: bool = False) -> dict[str, Any]:
        return {
            "game": self.game,
            "journal": str(self.path),
            "events": self._journal.next_seq - 1,
            "actions_in_force": len(self._fold.actions),
            "can_undo": self.can_undo,
            "can_redo": self.can_redo,
            "over": self.rules.is_over(self.state),
            "state": self.rules.to_json(self.state, reveal_hidden=reveal_hidden),
        }

    # -- changing ------------------------------------------------------------------------
    def subscribe(self, listener: Callable[["Session"], None]) -> None:
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener(self)

    def do(self, type_: str, **data: Any) -> Event:
        """Perform one user action: validate, record durably, then change the state.

        An illegal action raises IllegalActionError and neither the journal nor the
        state changes.
        """
        if type_ in META_TYPES or type_ not in self.rules.event_types:
            raise IllegalActionError(f"{type_!r} is not an action of {self.rules.title}")
        full = self.rules.decide(self.state, type_, data, self._rng)
        new_state = self.rules.apply(self.state, type_, full)  # raises before any write
        event = self._journal.append(type_, full)
        self._fold.push(event, state=new_state)
        self._changed()
        return event

    def preview(self, type_: str, **data: Any) -> S:
        """The state this action would lead to, without recording anything.

        Screens use it to ask for confirmation before an action that ends a round.
        Random draws in a preview are throwaway; the real action draws afresh.
        """
        if type_ in META_TYPES or type_ not in self.rules.event_types:
            raise IllegalActionError(f"{type_!r} is not an action of {self.rules.title}")
        full = self.rules.decide(self.state, type_, data, random.Random(0))
        return self.rules.apply(self.state, type_, full)

    def allows(self, type_: str, /, **data: Any) -> bool:
        """Whether the rules accept this action now (what enables a button)."""
        try:
            self.preview(type_, **data)
        except IllegalActionError:
            return False
        return True

    def undo(self) -> Event:
        if not self.can_undo:
            raise IllegalActionError("nothing to undo")
        self._journal.append(UNDO, {})
        undone = self._fold.pop()
        self._changed()
        return undone

    def redo(self) -> Event:
        if not self.can_redo:
            raise IllegalActionError("nothing to redo")
        self._journal.append(REDO, {})
        event = self._fold.redo_stack.pop()
        self._fold.push(event, clear_redo=False)
        self._changed()
        return event


def roll_text(data: Mapping[str, Any]) -> str:
    """"Dice tower: red d12 7, yellow d12 ? (cocked)"."""
    parts = []
    for die in data.get("dice", []):
        colour = f"{die['colour']} " if die.get("colour") else ""
        face = die.get("face") if die.get("face") is not None else "?"
        status = die.get("status", "clean")
        parts.append(f"{colour}{die.get('kind', '?')} {face}" + ("" if status == "clean" else f" ({status})"))
    source = "Dice tower (arrived late)" if data.get("late") else "Dice tower"
    return f"{source}: " + (", ".join(parts) or "no dice")


def export_json(session: Session, *, reveal_hidden: bool = False) -> str:
    return json.dumps(session.to_json(reveal_hidden=reveal_hidden), indent=2, ensure_ascii=False)
