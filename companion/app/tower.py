"""The dice tower, as the tablet app sees it: one controller owns the link, the roll journal
and the demo camera tower, and carries out what :mod:`companion.tower_routes` decides.

The link's reader thread hands every event to :meth:`TowerController.event`, the one crossing
point to the GUI thread; from there the pure ``route(event)`` says where it goes and
``roll_fate()`` what became of a throw. What a player sees of the tower (its state, the last
roll, the demo's banner) stays in the app's Kivy properties, which the .kv rules bind to; this
class only sets them.
"""

from __future__ import annotations

import dataclasses
import logging
import shutil
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from kivy.clock import Clock

from firmware_bridge.host import events as tower_events
from firmware_bridge.host.link import Link
from firmware_bridge.host.rolls import RollJournal, deliver_undelivered
from firmware_bridge.wire.messages import UNKNOWN_KIND

from .. import registry, tower_routes
from ..errors import IllegalActionError
from ..i18n import _, ngettext
from ..session import ROLL
from ..views import dice_check
from .dice_look import dice_words
from .game_screen import Throw
from .tower_config import choose_url, load_tower_config


class TowerApp(Protocol):
    """What the controller uses of the app (``CompanionApp``): the Kivy properties the .kv
    rules show, the open game, navigation, messages and the worker threads."""

    tower_url: str | None
    tower_state: str
    tower_detail: str
    tower_simulated: bool
    tower_kinds: list[str]
    tower_demo: bool
    demo_throwing: bool
    teach_why: str
    last_roll: list[dict[str, Any]]
    last_roll_text: str
    last_roll_unclean: bool
    last_roll_note: str
    roll_history: list[str]
    session: Any
    root: Any
    live: Any

    def in_background(self, work: Callable[..., Any], done: Callable[[Any], None],
                      failed: Callable[[BaseException], None] | None = None) -> None: ...
    def game_screen(self) -> Any: ...
    def go(self, name: str) -> None: ...
    def toast(self, text: str, error: bool = True, seconds: float = ...) -> None: ...
    def banner(self, text: str, seconds: float = 3.0) -> None: ...
    def confirm(self, message: str, on_ok: Callable[[], None], *, ok_text: str | None = None,
                title: str | None = None) -> Any: ...

log = logging.getLogger(__name__)

# the screens the demo camera tower serves: leaving them ends the demo
DEMO_SCREENS = ("dice", "teach", "tray")
PICTURES_KEPT = 32   # the tower's pictures of dice to check, the newest kept
DEMO_THROW_MAX = 10.0  # seconds: the demo's Throw dice comes back by then, still or not


def roll_words(roll: Any) -> str:
    """A roll as a player reads it ("Dice: 3, 5 and 6"; a throw whose every "die" the
    player said was none: "no die")."""
    return dice_words([d.to_json() for d in roll.dice]) or _("no die")


class TowerController:
    """The app's dice tower: started once the data folder is known, stopped with the app."""

    def __init__(self, app: TowerApp) -> None:
        self.app = app
        self.link: Link | None = None
        self.journal: RollJournal | None = None
        self.starting = False
        self._cfg: Any = None
        self._connected: tower_events.Connected | None = None   # the tower's last hello
        self._paused_url: tuple[str | None] | None = None
        self._demo: Any = None                 # the demo camera tower while it runs
        self._demo_journal: RollJournal | None = None
        self._url_before_demo: str | None = None
        # checking dice (issue 26): the last throw shown, a throw held back from the game
        # until the player sets the dice the tower was not sure of, the tower's pictures of
        # dice ((roll key, slot) -> DiePicture), the sheet open, each kind's faces
        self.last: tower_events.RollEvent | None = None
        self.held: tower_events.RollEvent | None = None
        self.pictures: OrderedDict[tuple[tuple[int, int], int], tower_events.DiePicture] = OrderedDict()
        self.sheet: Any = None
        self._sheet_key: tuple[int, int] | None = None
        self.kind_faces: dict[str, tuple[str, ...]] = {}
        self._asked: str | None = None     # "keep" or "look": a 1.3 request the tower answers

    # -- starting, stopping, pausing -----------------------------------------------------
    def start(self) -> None:
        """Read the tower's config and open the link (off the GUI thread), once per app: the
        link owns the port."""
        if self.link is not None or self.starting:
            return
        self.starting = True
        self.app.in_background(self._io, self._started, self._failed)

    def _io(self, root: Path) -> tuple[Any, str | None, bool, str, RollJournal]:
        cfg = load_tower_config(root)
        url, simulated, why = choose_url(cfg, self.app.tower_url)
        return cfg, url, simulated, why, RollJournal(root / "rolls.jsonl")

    def _failed(self, exc: BaseException) -> None:
        app = self.app
        app.tower_state = "stopped"
        app.tower_detail = _("The dice tower is off: {problem}").format(problem=exc)
        app.toast(app.tower_detail)

    def _started(self, result: tuple[Any, str | None, bool, str, RollJournal]) -> None:
        cfg, url, simulated, why, journal = result
        app = self.app
        self.journal = journal
        app.tower_simulated = simulated
        app.tower_detail = _("Simulated tower: {why}").format(why=why) if simulated else why
        app.roll_history = [roll_words(r) for r in reversed(journal.recent_rolls(12))]
        self._cfg = cfg
        self._open(url, journal)
        if app.session is not None:  # else at Connected: the last game may still be opening
            deliver_undelivered(journal, self.on_roll)  # recorded, never reached the game

    def _open(self, url: str | None, journal: RollJournal) -> None:
        cfg = self._cfg
        self.link = Link(url, journal, self.event, usb=cfg.usb_match,
                         baudrates=cfg.baudrates).start()
        self.app.tower_state = "connecting"

    def connect(self, url: str, journal: RollJournal | None = None) -> None:
        """Move the link to another port (a path, ``socket://`` or ``sim://``); ``journal``:
        where its rolls are kept (default: the app's roll journal)."""
        if self.journal is None:
            raise RuntimeError("the dice tower link has not started yet")
        if self.link is not None:
            self.link.stop()
        self.app.tower_simulated = url.startswith("sim://")
        self.app.tower_detail = _("Connecting to {port}").format(port=url)
        self._open(url, journal or self.journal)

    def stop(self) -> None:
        """The app closes: the link, the demo tower and the journal."""
        if self.link is not None:
            self.link.stop()
        if self._demo is not None:
            self._end_demo(self._demo)
        if self.journal is not None:
            self.journal.close()

    def pause(self) -> bool:
        """The app goes to the background: the port is the system's until it resumes.
        True when a link was running."""
        link = self.link
        if link is None:
            return False
        self._paused_url = (link.url,)
        link.stop()
        self.link = None
        self.app.tower_state = "stopped"
        self.app.tower_detail = _("Paused while the app is in the background")
        return True

    def resume(self) -> None:
        paused, self._paused_url = self._paused_url, None
        if paused is not None and self.journal is not None and self.link is None:
            self._open(paused[0], self.journal)

    # -- what the tower says ---------------------------------------------------------------
    def words(self, event: tower_events.Connected) -> str:
        if self.app.tower_demo:
            return _("Demo camera tower on this tablet, protocol {protocol}").format(
                protocol=event.proto)
        return (_("Simulated tower {firmware} on {port}, protocol {protocol}")
                if self.app.tower_simulated else
                _("{firmware} on {port}, protocol {protocol}")).format(
            firmware=event.firmware, port=event.port, protocol=event.proto)

    def reword(self) -> None:
        """After a language switch: the connected tower's line in the new language."""
        if self.app.tower_state == "connected" and self._connected is not None:
            self.app.tower_detail = self.words(self._connected)

    def event(self, event: tower_events.LinkEvent) -> None:
        """Called on the link's reader thread: the one crossing point to the GUI thread."""
        Clock.schedule_once(lambda dt: self.handle(event), 0)

    def handle(self, event: tower_events.LinkEvent) -> None:
        """On the GUI thread: carry out what ``tower_routes.route`` decides for ``event``."""
        link = self.link
        if link is None:
            return
        app = self.app
        app.tower_state = link.state
        where = tower_routes.route(event)
        if where != "roll":
            log.info("dice tower: %r", event)
        if where == "connected":
            assert isinstance(event, tower_events.Connected)
            self._connected = event
            app.tower_detail = self.words(event)
            app.tower_kinds = list(event.kinds)
            self.kind_faces = dict(zip(event.kinds, event.faces))
            if not app.tower_demo:
                deliver_undelivered(self.journal, self.on_roll)  # exactly once to the game
        elif where == "roll":
            assert isinstance(event, tower_events.RollEvent)
            self.on_roll(event)
        elif where in ("teach_picture", "teach_status"):
            if where == "teach_status" and self._asked is not None:
                assert isinstance(event, tower_events.TeachStatus)
                self._answered(event)
            screen = app.root.get_screen("teach") if app.root is not None else None
            if screen is not None:
                (screen.on_picture if where == "teach_picture" else screen.on_status)(event)
        elif where == "tray":
            if app.root is not None:
                app.root.get_screen("tray").on_snapshot(event)
        elif where == "die_picture":
            assert isinstance(event, tower_events.DiePicture)
            self.on_picture(event)
        elif where == "rolls_dropped":
            assert isinstance(event, tower_events.RollsDropped)
            n = event.count
            app.toast(ngettext("The dice tower lost {count} roll ({reason}): roll again",
                               "The dice tower lost {count} rolls ({reason}): roll again",
                               n).format(count=n, reason=event.reason))
        elif where == "missing":
            pass    # the tower resends them; those it lost come as RollsDropped (a toast)
        elif where == "reset":
            app.banner(_("The dice tower restarted"))
        elif where == "retrying":
            assert isinstance(event, tower_events.LinkLost | tower_events.Reconnecting)
            app.tower_detail = _("{reason} — retrying").format(reason=event.reason)
        elif where == "no_tower":
            assert isinstance(event, tower_events.PortNotFound | tower_events.PortBusy
                              | tower_events.HandshakeTimeout)
            app.tower_detail = event.detail
        elif where == "mismatch":
            assert isinstance(event, tower_events.ProtocolMismatch)
            app.tower_detail = _("The tower speaks protocol {tower}; this app {app}. Update the "
                                 "tower's firmware.").format(tower=event.tower_version,
                                                             app=event.host_version)
        else:
            log.warning("dice tower event not shown to the player: %r", event)
        from .screens.teach import teaching_unavailable

        app.teach_why = teaching_unavailable(link)
        if app.root is not None and app.root.current == "dice":
            self.refresh_dice_panel()

    def on_roll(self, roll: tower_events.RollEvent) -> None:
        """A throw: recorded in the open game when it uses these dice, offered to its screen,
        and the player told what became of it. A throw with a die the tower was not sure of
        waits for the player to set that die (the sheet "Which face is up?") before it goes
        to the game."""
        app = self.app
        dice = [d.to_json() for d in roll.dice]
        if not roll.late:
            self.last = roll
        if app.tower_demo:     # drawn by the app: shown, never a game's, never counted
            self._show(roll, _("Demo camera tower: in no game and no statistics"))
            if self._demo_journal is not None:
                self._demo_journal.mark_delivered(roll.key)
            return      # no game waits: a tap on a die of the dice panel sets it by hand
        if not roll.late:      # the dice of a throw still held were thrown again
            self._release_held(_("Thrown again: that throw is in the dice history only"))
        session = app.session
        entry = registry.find(session.game) if session is not None else None
        # a game whose rules take a throw as an action (King of Tokyo Duel) takes it with its
        # unsure dice and has them set by hand on its own screen; the others wait for them
        if not roll.clean and not roll.late and session is not None and entry is not None \
                and entry.takes(dice) and ROLL not in session.rules.event_types:
            self._hold(roll)
            return
        self._deliver(roll)

    def _show(self, roll: tower_events.RollEvent, note: str) -> None:
        app = self.app
        app.last_roll = [d.to_json() for d in roll.dice]
        app.last_roll_text = roll_words(roll)
        app.last_roll_unclean = not roll.clean
        app.last_roll_note = note
        self.refresh_dice_panel()

    def _hold(self, roll: tower_events.RollEvent) -> None:
        """Keep ``roll`` from the game until the player has set its unsure dice. A throw
        still held when the next one comes was thrown again: it stays in the dice history
        only."""
        self.held = roll
        self.app.live.set_roll([d.to_json() for d in roll.dice], time.time())
        self.app.roll_history = [roll_words(roll)] + list(self.app.roll_history[:11])
        self._show(roll, _("Waiting for you to set the dice the tower was not sure of"))
        self.check(roll, dice_check.unsure([d.to_json() for d in roll.dice]), held=True)

    def _release_held(self, note: str) -> None:
        held, self.held = self.held, None
        if held is None:
            return
        if self.journal is not None:
            self.journal.mark_delivered(held.key)
        if self._sheet_key == held.key and self.sheet is not None:
            self.sheet.dismiss(animation=False)
        self.app.last_roll_note = note

    def _deliver(self, roll: tower_events.RollEvent, *, shown: bool = False) -> None:
        app = self.app
        dice = [d.to_json() for d in roll.dice]
        app.last_roll = dice
        if not roll.late and not shown:  # a roll from before a restart is not the throw on the table
            app.live.set_roll(dice, time.time())
        app.last_roll_text = roll_words(roll)
        app.last_roll_unclean = not roll.clean
        if not shown:
            app.roll_history = [roll_words(roll)] + list(app.roll_history[:11])
        # only a game that uses these dice records them (its registry entry's dice_kinds)
        session = app.session
        entry = registry.find(session.game) if session is not None else None
        takes = entry is not None and entry.takes(dice)
        recorded = False
        delivered = True
        if session is not None and takes:
            try:
                recorded = session.record_roll(*roll.key, dice, late=roll.late) is not None
            except OSError as exc:  # not marked delivered: offered again at the next reconnect
                delivered = False
                log.warning("roll %s not recorded in %s: %s", roll.key, session.path.name, exc)
                app.toast(_("The roll is in the dice history but not in the game: {problem}").format(
                    problem=exc))
            except IllegalActionError as exc:
                log.warning("roll %s refused by %s: %s", roll.key, session.path.name, exc)
                said = _("The roll is in the dice history but not in the game: {problem}").format(
                    problem=exc)
                if not roll.clean and not roll.late:  # a shadow or a coin taken for a die?
                    said += "\n" + _("A die the tower was not sure of may be none: tap it on "
                                      "the Dice tower screen")
                app.toast(said)
        if delivered and self.journal is not None:
            self.journal.mark_delivered(roll.key)
        if app.root is not None and app.root.current == "dice_stats":
            app.root.get_screen("dice_stats").refresh()     # the new throw counted at once
        # the open game's screen is offered the throw while it shows (never a late one: it is
        # not the throw on the table now); it takes it or declines
        taken = False
        screen = app.game_screen() if takes and not roll.late else None
        if screen is not None and app.root.current == screen.name:
            taken = screen.take_throw(Throw(dice, roll.clean, roll_words(roll)))
        fate = tower_routes.roll_fate(
            _(entry.tile.title) if entry is not None else None,
            bool(entry is not None and entry.dice_kinds), recorded=recorded, taken=taken,
            late=roll.late, on_dice_panel=app.root is None or app.root.current == "dice")
        app.last_roll_note = fate.note
        self.refresh_dice_panel()
        if fate.banner:
            said = (_("Dice, arrived late: {dice}") if roll.late else _("Dice: {dice}")).format(
                dice=roll_words(roll))
            app.banner(said + "\n" + fate.note)

    # -- checking dice: set by the player (issue 26) ---------------------------------------
    def check(self, roll: tower_events.RollEvent, slots: list[int], *, held: bool) -> None:
        """Open the sheet for the dice ``slots`` of ``roll``: ``held``, a throw the game waits
        for; otherwise a die the player disputes (the tower is asked for its picture)."""
        from .dice_check import CheckDiceSheet

        if self.sheet is not None:
            self.sheet.dismiss(animation=False)
        dice = [d.to_json() for d in roll.dice]
        sheet = CheckDiceSheet(
            dice, slots, kind_faces=self.kind_faces, held=held,
            on_set=lambda chosen, kinds: self._set(roll, chosen, kinds, held=held),
            on_roll_again=(lambda: self._release_held(
                _("Thrown again: that throw is in the dice history only"))) if held else None,
            on_keep=lambda slot, face: self.keep(roll, slot, face))
        self.sheet, self._sheet_key = sheet, roll.key
        sheet.bind(on_dismiss=lambda *_a: self._sheet_closed(sheet))
        for slot in slots:
            pic = self.pictures.get((roll.key, slot))
            if pic is not None:
                sheet.picture(slot, pic.jpeg, pic.faces, self.can_keep(pic))
            elif not held and self.link is not None and self.speaks(3) \
                    and self.link.die_look(roll.key, slot):
                self._asked = "look"      # its picture comes as a DiePicture (on_picture)
        sheet.open()

    def _sheet_closed(self, sheet: Any) -> None:
        if self.sheet is sheet:
            self.sheet, self._sheet_key = None, None

    def check_die(self, index: int) -> None:
        """The player taps die ``index`` of the last throw on the dice panel: a throw held
        for its unsure dice opens on them; any other die can be disputed."""
        roll = self.held or self.last
        if roll is None or not 0 <= index < len(roll.dice):
            return
        if self.held is not None and roll is self.held:
            unsure = dice_check.unsure([d.to_json() for d in roll.dice])
            self.check(roll, unsure, held=True)
            return
        self.check(roll, [roll.dice[index].slot], held=False)

    def on_picture(self, pic: tower_events.DiePicture) -> None:
        if self._asked == "look":
            self._asked = None
        self.pictures[(pic.key, pic.slot)] = pic
        while len(self.pictures) > PICTURES_KEPT:
            self.pictures.popitem(last=False)
        if self.sheet is not None and self._sheet_key == pic.key:
            self.sheet.picture(pic.slot, pic.jpeg, pic.faces, self.can_keep(pic))

    def speaks(self, minor: int) -> bool:
        """The connected tower speaks protocol 1.``minor`` or later."""
        proto = self._connected.proto if self._connected is not None else ""
        major, _dot, rest = proto.partition(".")
        return major == "1" and rest.isdigit() and int(rest) >= minor

    def can_keep(self, pic: tower_events.DiePicture) -> bool:
        """The tower can learn from this picture (protocol 1.3): not of a tilted die (its top
        face and outline would teach the wrong shape), nor of a die of no known kind."""
        roll = self.held if self.held is not None and self.held.key == pic.key else self.last
        die = next((d for d in roll.dice if d.slot == pic.slot), None) \
            if roll is not None and roll.key == pic.key else None
        return (self.link is not None and self.speaks(3) and pic.kind != UNKNOWN_KIND
                and (die is None or die.status != "cocked"))

    def keep(self, roll: tower_events.RollEvent, slot: int, face: str) -> bool:
        """Keep the tower's picture of die ``slot`` as a teaching example of ``face``."""
        pic = self.pictures.get((roll.key, slot))
        if pic is None or self.link is None:
            return False
        colour = next((d.colour for d in roll.dice if d.slot == slot), None)
        if not self.link.keep_example(pic.picture_id, face, colour):
            return False
        self._asked = "keep"      # the tower answers with a TEACH_STATUS (_answered)
        return True

    def _answered(self, status: tower_events.TeachStatus) -> None:
        """The tower's answer to a keep or a look: a kept example is good news; anything
        else says why in players' words (a look answered with a picture says nothing)."""
        from .screens.teach import tower_message

        asked, self._asked = self._asked, None
        if asked == "keep" and status.message.endswith(": kept"):
            self.app.toast(tower_message(status.message), error=False)
        else:
            self.app.toast(tower_message(status.message))

    def _set(self, roll: tower_events.RollEvent, chosen: dict[int, str],
             kinds: dict[int, str] | None = None, *, held: bool) -> None:
        """The player set the faces ``chosen`` (slot -> face) of ``roll``, some of them of
        another kind than the tower read (``kinds``: slot -> kind): kept in the roll journal
        beside the reading, then the throw goes on as it really came up."""
        app = self.app
        fixed = dice_check.corrected([d.to_json() for d in roll.dice], chosen, kinds)
        journal = self._demo_journal if app.tower_demo else self.journal
        try:
            if journal is not None:
                journal.record_correction(roll.key, fixed)
        except (OSError, KeyError) as exc:
            log.warning("correction of roll %s not kept: %s", roll.key, exc)
            app.toast(_("The dice you set are not in the dice history: {problem}").format(
                problem=exc))
        now = dataclasses.replace(
            roll, dice=tuple(tower_events.DieReading.from_json(d) for d in fixed))
        if self.last is not None and self.last.key == roll.key:
            self.last = now
        app.roll_history = [roll_words(now)] + list(app.roll_history[1:])
        if app.tower_demo:
            self._show(now, _("Demo camera tower: in no game and no statistics"))
            return
        if held:
            if self.held is not None and self.held.key == roll.key:
                if not now.dice:   # nothing the tower saw was a die: no throw for the game
                    self._release_held(_("No die in that throw: it is in the dice history "
                                         "only"))
                    self._show(now, app.last_roll_note)
                    app.live.set_roll([], time.time())
                    return
                self.held = None
                self._deliver(now, shown=True)
            return
        self._disputed(roll, now)

    def _disputed(self, was: tower_events.RollEvent, now: tower_events.RollEvent) -> None:
        """A die of a throw already delivered, set again by the player: the open game's last
        action, when it was this throw, is taken back and the throw recorded as it came up
        (given back as it was where the game refuses it so); the tower's last throw that the
        game refused as read (a die too many: a shadow taken for one) is offered to it again
        as it came up; a game that has used the throw otherwise is left to the player (said
        in the note)."""
        app = self.app
        session = app.session
        self._show(now, _("Set by hand; the dice history and statistics count it so"))
        app.live.set_roll([d.to_json() for d in now.dice], time.time())
        if session is None:
            return
        actions = session.actions
        last = actions[-1] if actions else None
        entry = registry.find(session.game)
        title = _(entry.tile.title) if entry is not None else ""
        dice = [d.to_json() for d in now.dice]
        as_it_came = _("Set by hand; the {game} game now has the throw as it came up")
        if last is not None and last.type == ROLL and (
                last.data.get("boot_id"), last.data.get("seq")) == was.key:
            undone = False
            try:
                session.undo()
                undone = True
                if dice:   # (none: nothing the tower saw was a die)
                    session.record_roll(*now.key, dice)
            except (IllegalActionError, OSError) as exc:
                if undone:   # the game keeps the throw as it had it
                    try:
                        session.redo()
                    except (IllegalActionError, OSError):
                        log.warning("roll %s: taken back and not given again", was.key)
                app.toast(str(exc))
                return
            app.last_roll_note = (
                as_it_came if dice else _("No die in that throw: the {game} game no longer has it")
            ).format(game=title)
            return
        if entry is None or not entry.takes([d.to_json() for d in was.dice]):
            return
        if not session.has_roll(*was.key) and dice and self.last is not None \
                and self.last.key == now.key:
            try:
                if session.record_roll(*now.key, dice) is not None:
                    app.last_roll_note = as_it_came.format(game=title)
                    return
            except (IllegalActionError, OSError) as exc:
                app.last_roll_note = _("Set by hand in the dice history; the {game} game does "
                                       "not take this throw: {problem}").format(
                    game=title, problem=exc)
                return
        app.last_roll_note = _("Set by hand in the dice history; the {game} game has "
                               "already used this throw: change it there").format(game=title)

    def refresh_dice_panel(self) -> None:
        if self.app.root is not None:
            self.app.root.get_screen("dice").refresh()

    def simulated_roll(self, dice: str) -> None:
        """The in-process simulated tower throws ``dice`` (a set name such as "spawn")."""
        link = self.link
        if link is None or link.url is None or not link.url.startswith("sim://"):
            return
        from firmware_bridge.host.urlhandlers import protocol_sim

        name, _rest = protocol_sim.parse_url(link.url)
        protocol_sim.hub(name).roll(dice)

    # -- the demo camera tower ------------------------------------------------------------
    def try_demo(self, screen: str) -> None:
        """Teach a die or the Tray view while the tower cannot: offer the demo camera tower,
        then open ``screen`` ("teach" or "tray") on it."""
        app = self.app
        why = app.teach_why.strip() or _("no camera tower is connected")
        app.confirm(_("This tower cannot do that: {why}.\n\nTry it on a demo camera tower? The "
                      "app draws dice falling in a tray and reads them as a camera tower "
                      "does. Nothing reaches your games, your dice statistics or your "
                      "tower.").format(why=why),
                    lambda: self.start_demo(screen), ok_text=_("Try the demo"),
                    title=_("Demo camera tower"))

    def start_demo(self, screen: str) -> None:
        """Start the demo camera tower (about a second, off the GUI thread), move the link
        onto it with a roll journal of its own, then open ``screen``."""
        app = self.app
        if app.tower_demo:
            app.go(screen)
            return
        if self.link is None or self.journal is None:
            app.toast(_("The dice tower link has not started yet"))
            return
        from firmware_bridge.tower.demo_camera import DemoCameraTower

        folder = Path(tempfile.mkdtemp(prefix="demo-camera-tower-"))
        demo = DemoCameraTower(folder)
        app.toast(_("Starting the demo camera tower…"))

        def started(url: str) -> None:
            self._demo = demo
            self._url_before_demo = self.link.url if self.link is not None else None
            app.tower_demo = True
            self._demo_journal = RollJournal(folder / "rolls.jsonl")
            self.connect(url, journal=self._demo_journal)
            app.go(screen)

        def failed(exc: BaseException) -> None:
            demo.stop()
            app.toast(_("The demo camera tower did not start: {problem}").format(problem=exc))

        app.in_background(lambda root: demo.start(), started, failed)

    def leave_demo(self, then: str | None = "dice") -> None:
        """Back to the tower connected before the demo; the demo tower and what it was
        taught are thrown away."""
        demo, self._demo = self._demo, None
        if demo is None:
            return
        if self.sheet is not None:      # its dice were the demo's
            self.sheet.dismiss(animation=False)
        self.last = None
        app = self.app
        app.tower_demo = False
        app.demo_throwing = False
        url = self._url_before_demo or app.tower_url or ""
        if url:
            self.connect(url)
        journal, self._demo_journal = self._demo_journal, None
        if journal is not None:
            journal.close()
        app.in_background(lambda root: self._end_demo(demo), lambda result: None,
                          lambda exc: log.warning("the demo camera tower: %s", exc))
        if then is not None:
            app.go(then)

    @staticmethod
    def _end_demo(demo: Any) -> None:
        demo.stop()
        shutil.rmtree(demo.folder, ignore_errors=True)

    def demo_throw(self, kind: str) -> None:
        """Drop three dice of ``kind`` in the demo tower's tray (drawn off the GUI thread)."""
        demo, app = self._demo, self.app
        if demo is None or app.demo_throwing:
            return
        app.demo_throwing = True

        def thrown(result: Any) -> None:
            # Throw dice comes back once the dice have fallen and lie still in the tray (the
            # demo's camera has shown every frame of the throw), or after DEMO_THROW_MAX
            # seconds whatever happens
            deadline = time.monotonic() + DEMO_THROW_MAX

            def still(dt: float) -> bool:
                if self._demo is demo and demo.busy and time.monotonic() < deadline:
                    return True         # check again
                app.demo_throwing = False
                return False

            Clock.schedule_interval(still, 0.1)

        def failed(exc: BaseException) -> None:
            app.demo_throwing = False
            app.toast(str(exc))

        app.in_background(lambda root: demo.throw(kind), thrown, failed)

    def screen_changed(self, name: str) -> None:
        """The demo ends when the player leaves the dice screens: its throws are never a
        game's."""
        if self.app.tower_demo and name not in DEMO_SCREENS:
            self.leave_demo(then=None)
