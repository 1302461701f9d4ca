"""The session engine shared by every game.

A session is one game's journal plus the replay of it:

* every user action is one event, appended to the journal (fsynced) *before* the state
  the screen reads changes;
* the state is the fold of the game's ``apply`` over the actions in force;
* ``undo`` and ``redo`` are themselves recorded events (``session.undo``/``session.redo``),
  so a journal is never rewritten and a crash right after an undo resumes with it undone;
  they step one user action at a time, without limit within the game;
* a new action after undos clears the redo stack, as in every editor;
* the state after every action in force is kept, so an undo costs no replay;
* one writer per game: an open session holds its journal's OS lock; a second window or
  command opens the game read-only (``Session.open(..., read_only=True)``) or is told
  "this game is open elsewhere";
* replay validates like play: each event's data passes the same checks as the live action
  (:func:`check_event`: generic bounds, the dice tower's roll shape, and the game's own
  ``check(state, type, data)`` hook when it has one, ``game.start`` included) before the
  rules apply it, so a journal can only hold what the app itself could have written.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from . import registry
from .errors import IllegalActionError, JournalError, JournalTailError
from .games.base import GameRules
from .i18n import _
from .journal import Event, Journal, gc_paused, now_iso, read_events

S = TypeVar("S")

START = "game.start"
UNDO = "session.undo"
REDO = "session.redo"
ROLL = "dice.roll"
"""A physical roll from the dice tower, recorded in the open game's journal. For a game whose
rules take rolls (``ROLL in rules.event_types``) it is an action like any other; for the others
it is a fact in the log that undo does not touch."""
META_TYPES = frozenset({START, UNDO, REDO})

# Bounds every event's data keeps, live and on replay (nothing the app writes comes near).
MAX_DEPTH = 24
MAX_INT = 2 ** 128         # random seeds are 64-bit; bigger is damage
MAX_TEXT = 20_000          # characters in one string
MAX_ITEMS = 10_000         # entries in one list or object
MAX_NODES = 200_000        # values in one event's data
MAX_DICE = 64              # dice in one tower roll
DIE_STATUSES = ("clean", "cocked", "unreadable")


def _field(path: str, key: object) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}"


def _plainly_within(data: dict) -> bool:
    """The common case, quickly (a replay checks every event): an object of in-range
    numbers, short texts and short lists of numbers. False means: walk it properly."""
    if len(data) > MAX_ITEMS:
        return False
    for value in data.values():
        t = type(value)
        if t is int:
            if not -MAX_INT <= value <= MAX_INT:
                return False
        elif t is str:
            if len(value) > MAX_TEXT:
                return False
        elif t is list:
            if len(value) > MAX_DICE:
                return False
            for x in value:
                if type(x) is not int or not -MAX_INT <= x <= MAX_INT:
                    return False
        elif not (t is bool or value is None):
            return False
    return True  # top-level keys are text: JSON's, or keyword arguments


def check_bounds(data: Any, path: str = "data") -> None:
    """Refuse event data outside the bounds above; the message names the field."""
    if type(data) is dict and _plainly_within(data):
        return
    nodes = 0
    stack: list[tuple[Any, str, int]] = [(data, path, 0)]
    while stack:
        value, where, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise IllegalActionError(f"{path}: more than {MAX_NODES:,} values")
        if depth > MAX_DEPTH:
            raise IllegalActionError(f"{where}: nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int):
            if not -MAX_INT <= value <= MAX_INT:
                raise IllegalActionError(f"{where}: the number is out of range")
        elif isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise IllegalActionError(f"{where}: not a finite number")
        elif isinstance(value, str):
            if len(value) > MAX_TEXT:
                raise IllegalActionError(f"{where}: text longer than {MAX_TEXT:,} characters")
        elif isinstance(value, dict):
            if len(value) > MAX_ITEMS:
                raise IllegalActionError(f"{where}: more than {MAX_ITEMS:,} entries")
            for k, v in value.items():
                if not isinstance(k, str):
                    raise IllegalActionError(f"{where}: a key that is not text")
                stack.append((v, _field(where, k), depth + 1))
        elif isinstance(value, (list, tuple)):
            if len(value) > MAX_ITEMS:
                raise IllegalActionError(f"{where}: more than {MAX_ITEMS:,} entries")
            stack.extend((v, _field(where, i), depth + 1) for i, v in enumerate(value))
        else:
            raise IllegalActionError(f"{where}: {type(value).__name__} is not a JSON value")


def _whole(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise IllegalActionError(f"{where}: expected a whole number {low} to {high}, "
                                 f"got {_short(value)}")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_roll(data: Mapping[str, Any]) -> None:
    """A ``dice.roll`` event's data as the dice tower link produces it."""
    _whole(data.get("boot_id"), "data.boot_id", 0, 2 ** 64 - 1)
    _whole(data.get("seq"), "data.seq", 0, 2 ** 64 - 1)
    dice = data.get("dice")
    if not isinstance(dice, list):
        raise IllegalActionError(f"data.dice: expected a list of dice, got {_short(dice)}")
    if len(dice) > MAX_DICE:
        raise IllegalActionError(f"data.dice: {len(dice)} dice, more than {MAX_DICE}")
    for i, die in enumerate(dice):
        where = f"data.dice[{i}]"
        if not isinstance(die, dict):
            raise IllegalActionError(f"{where}: expected a die (an object), got {_short(die)}")
        if not isinstance(die.get("kind"), str) or not die["kind"]:
            raise IllegalActionError(f"{where}.kind: expected the kind of die, "
                                     f"got {_short(die.get('kind'))}")
        face = die.get("face")
        if face is not None and (isinstance(face, bool) or not isinstance(face, (str, int))):
            raise IllegalActionError(f"{where}.face: expected a face name or null, "
                                     f"got {_short(face)}")
        if die.get("colour") is not None and not isinstance(die["colour"], str):
            raise IllegalActionError(f"{where}.colour: expected a colour name, "
                                     f"got {_short(die['colour'])}")
        if die.get("status", "clean") not in DIE_STATUSES:
            raise IllegalActionError(f"{where}.status: expected one of "
                                     f"{', '.join(DIE_STATUSES)}, got {_short(die['status'])}")
        if "slot" in die:
            _whole(die["slot"], f"{where}.slot", 0, MAX_DICE)
        conf = die.get("confidence")  # the reading's, from a 1.2 tower; absent before
        if conf is not None and (isinstance(conf, bool) or not isinstance(conf, (int, float))
                                 or not 0 <= conf <= 1):
            raise IllegalActionError(f"{where}.confidence: expected a number from 0 to 1, "
                                     f"got {_short(conf)}")


def check_event(rules: GameRules, state: Any, type_: str, data: Mapping[str, Any]) -> None:
    """The checks an event's data passes before the rules apply it, live and on replay:
    the generic bounds, the roll's shape for ``dice.roll``, then the game's own
    ``check(state, type, data)`` hook (``state`` is None for ``game.start``).
    Raises IllegalActionError naming the field at fault."""
    check_bounds(data)
    if type_ == ROLL:
        check_roll(data)
    hook = getattr(rules, "check", None)
    if hook is not None:
        hook(state, type_, data)


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
        self.lines = 1  # journal lines read or written, game.start included

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
        self.lines += 1
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
        check_event(rules, None, START, start.data)
        fold = _Replay(rules, start)
    except IllegalActionError as exc:
        raise JournalError(file, 1, f"bad game.start: {exc}") from None
    except (RecursionError, MemoryError):
        raise JournalError(file, 1, "bad game.start: too large or too deeply nested") from None
    except Exception as exc:  # noqa: BLE001 - no journal may crash the app
        raise JournalError(file, 1, f"bad game.start: malformed data ({exc!r})") from None
    allowed = rules.event_types
    for lineno, event in enumerate(events[1:], start=2):
        if event.type not in allowed and event.type not in (UNDO, REDO, ROLL):
            owner = event.type.split(".", 1)[0]
            hint = (f" (an event of the game {owner!r})" if registry.find(owner) and owner != game
                    else "")
            raise JournalError(file, lineno, f"event {event.type!r} does not belong to a "
                                             f"{rules.title} game{hint}")
        try:
            if event.type not in (UNDO, REDO):
                check_event(rules, fold.state, event.type, event.data)
            fold.feed(event)
        except IllegalActionError as exc:
            raise JournalError(file, lineno, f"{event.type}: {exc}") from None
        except (RecursionError, MemoryError):
            raise JournalError(file, lineno, f"{event.type}: too large or too deeply "
                                             "nested") from None
        except Exception as exc:  # noqa: BLE001 - no journal may crash the app
            raise JournalError(file, lineno, f"{event.type}: malformed data ({exc!r})") from None
    return fold


class Session(Generic[S]):
    """One open game: the engine every screen talks to."""

    def __init__(self, path: Path, journal: Journal | None, fold: _Replay[S],
                 rng: random.Random | None = None) -> None:
        self.path = path
        self._journal = journal
        self._fold = fold
        self.rules: GameRules[S] = fold.rules
        self._rng = rng if rng is not None else secrets.SystemRandom()
        self._listeners: list[Callable[[Session], None]] = []

    # -- opening -----------------------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path, game: str, setup: Mapping[str, Any],
               rng: random.Random | None = None) -> Session:
        rules = rules_for(game, str(path), None)
        rng = rng if rng is not None else secrets.SystemRandom()
        data = {"game": game, **rules.start(setup, rng)}
        check_event(rules, None, START, data)  # the checks a replay makes, before any write
        start = Event(1, START, data, now_iso())
        fold = _Replay(rules, start)
        journal = Journal.create(path, start)  # whole first line or no file at all
        return cls(Path(path), journal, fold, rng)

    @classmethod
    def open(cls, path: str | Path, *, expected_game: str | None = None,
             rng: random.Random | None = None, read_only: bool = False,
             repair: JournalTailError | None = None) -> Session:
        """Reopen a saved game exactly where it was, holding its lock.

        Raises GameLockedError when it is open elsewhere (``read_only=True`` then reads it
        without the lock; a read-only session refuses every change). Raises
        JournalTailError when only the end of the journal is damaged, with
        ``actions_in_force`` set to the number of intact actions in force; passing that
        error back as ``repair`` moves the damaged tail aside and opens the rest."""
        file = str(path)
        if read_only:
            events = _events_counted(path, expected_game)
            return cls(Path(path), None, replay(events, file, expected_game), rng)
        journal = Journal(path)
        try:
            try:
                events = read_events(path)
            except JournalTailError as exc:
                if repair is None or (exc.good_bytes, exc.bad_bytes) != \
                        (repair.good_bytes, repair.bad_bytes):
                    raise _counted(exc, expected_game) from None
                fold = replay(exc.good_events, file, expected_game)  # check before cutting
                journal.repair(exc)
                events = exc.good_events
            else:
                fold = replay(events, file, expected_game)
        except BaseException:
            journal.close()
            raise
        journal.next_seq = len(events) + 1
        return cls(Path(path), journal, fold, rng)

    @property
    def read_only(self) -> bool:
        """True when the game is open elsewhere and can only be looked at here."""
        return self._journal is None

    def _writer(self) -> Journal:
        if self._journal is None:
            raise IllegalActionError("this game is open elsewhere: it can only be read here")
        return self._journal

    def close(self) -> None:
        if self._journal is not None:
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

    def state_before(self, n: int) -> S:
        """The state the ``n``-th action in force (0-based) was applied to."""
        return self._fold.states[n]

    @property
    def start_event(self) -> Event:
        return self._fold.start

    def log(self, last: int | None = None) -> list[LogEntry]:
        """The readable action log of the actions in force (and the dice tower's rolls),
        oldest first; only the ``last`` newest entries when given, so that a screen's log
        panel costs the same at 20 actions and at 20,000."""
        describe, states, actions = self.rules.describe, self._fold.states, self._fold.actions
        first = 0 if last is None else max(0, len(actions) - last)
        entries = [LogEntry(actions[i].seq, actions[i].at,
                            describe(states[i], actions[i].type, actions[i].data, states[i + 1]))
                   for i in range(first, len(actions))]
        rolls = self._fold.rolls if last is None else self._fold.rolls[-last:]
        if rolls:
            entries += [LogEntry(e.seq, e.at, roll_text(e.data)) for e in rolls]
            entries.sort(key=lambda entry: entry.seq)
            if last is not None:
                entries = entries[-last:]
        return entries

    @property
    def rolls(self) -> tuple[Event, ...]:
        """Dice tower rolls recorded in this game that its rules do not take as actions."""
        return tuple(self._fold.rolls)

    def has_roll(self, boot_id: int, seq: int) -> bool:
        """Whether this game's journal has the roll (tower boot, roll number)."""
        key = (int(boot_id), int(seq))
        return key in self._fold.roll_keys or any(
            (a.data.get("boot_id"), a.data.get("seq")) == key
            for a in self._fold.actions if a.type == ROLL)

    def record_roll(self, boot_id: int, seq: int, dice: list[dict[str, Any]], *,
                    late: bool = False) -> Event | None:
        """Record one physical roll in this game's journal, once: a roll already recorded
        (same tower boot and roll number) is ignored and ``None`` returned. ``late``: it
        reaches the game after the app restarted or the tower reconnected."""
        key = (int(boot_id), int(seq))
        if self.has_roll(*key):
            return None
        data: dict[str, Any] = {"boot_id": key[0], "seq": key[1],
                                "dice": list(dice) if isinstance(dice, (list, tuple)) else dice}
        if late:
            data["late"] = True
        if ROLL in self.rules.event_types:
            return self.do(ROLL, **data)
        check_event(self.rules, self.state, ROLL, data)
        event = self._writer().append(ROLL, data)
        self._fold.lines = event.seq
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
            "events": self._fold.lines,
            "actions_in_force": len(self._fold.actions),
            "can_undo": self.can_undo,
            "can_redo": self.can_redo,
            "over": self.rules.is_over(self.state),
            "state": self.rules.to_json(self.state, reveal_hidden=reveal_hidden),
        }

    # -- changing ------------------------------------------------------------------------
    def reword(self) -> None:
        """Fold the actions in force again (the same events, nothing drawn anew): the words the
        rules keep in the state (notes, a win's reason) come back in the language now spoken."""
        fold = self._fold
        states = [fold.rules.initial(fold.start.data)]
        with gc_paused():
            for event in fold.actions:
                states.append(fold.rules.apply(states[-1], event.type, event.data))
        fold.states = states
        self._changed()

    def subscribe(self, listener: Callable[[Session], None]) -> None:
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
        writer = self._writer()
        full = self.rules.decide(self.state, type_, data, self._rng)
        check_event(self.rules, self.state, type_, full)  # what a replay checks, too
        new_state = self.rules.apply(self.state, type_, full)  # raises before any write
        event = writer.append(type_, full)
        self._fold.lines = event.seq
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
        check_event(self.rules, self.state, type_, full)
        return self.rules.apply(self.state, type_, full)

    def allows(self, type_: str, /, **data: Any) -> bool:
        """Whether the rules accept this action now (what enables a button)."""
        return not self.why_not(type_, **data)

    def why_not(self, type_: str, /, **data: Any) -> str:
        """Why the rules refuse this action now, in their words ("" when they accept it): what
        a greyed button says when it is tapped."""
        try:
            self.preview(type_, **data)
        except IllegalActionError as exc:
            return str(exc) or _("not now")
        return ""

    def undo(self) -> Event:
        if not self.can_undo:
            raise IllegalActionError("nothing to undo")
        self._fold.lines = self._writer().append(UNDO, {}).seq
        undone = self._fold.pop()
        self._changed()
        return undone

    def redo(self) -> Event:
        if not self.can_redo:
            raise IllegalActionError("nothing to redo")
        self._fold.lines = self._writer().append(REDO, {}).seq
        event = self._fold.redo_stack.pop()
        self._fold.push(event, clear_redo=False)
        self._changed()
        return event


def _counted(exc: JournalTailError, expected_game: str | None = None) -> JournalError:
    """The tail error with ``actions_in_force`` (what a repair keeps: actions, not undo or
    redo lines); when the intact events themselves fail replay, that error instead (the
    damage is not only at the end)."""
    if exc.good_events:
        fold = replay(exc.good_events, exc.file, expected_game)  # raises JournalError
        exc.actions_in_force = len(fold.actions)
    else:
        exc.actions_in_force = 0
    return exc


def _events_counted(path: str | Path, expected_game: str | None = None) -> list[Event]:
    try:
        return read_events(path)
    except JournalTailError as exc:
        raise _counted(exc, expected_game) from None


def roll_text(data: Mapping[str, Any]) -> str:
    """"Dice tower: red d12 7, yellow d12 ? (cocked)", in players' words and language."""
    from .dice_words import dice_words

    dice = [dict(d) for d in data.get("dice", [])]
    words = dice_words(dice) if dice else _("no dice")
    return (_("Dice tower (arrived late): {dice}") if data.get("late") else
            _("Dice tower: {dice}")).format(dice=words)


def export_json(session: Session, *, reveal_hidden: bool = False) -> str:
    return json.dumps(session.to_json(reveal_hidden=reveal_hidden), indent=2, ensure_ascii=False)
