"""The tablet app: owns the open Session, the loaded config and the data root.

Every game change goes through :meth:`CompanionApp.act` (or ``undo``/``redo``), which wraps
``Session.do``: an illegal action shows a red toast and changes nothing; an action that
would end a Round asks for confirmation first. Screens only read ``app.session.state``
and re-render on a rate-limited trigger.

File reading (config, saved games, opening a journal, exports) runs on worker threads and
comes back to the GUI thread through ``Clock.schedule_once``; the only I/O on the GUI thread
is the fsynced journal append inside ``Session.do`` (by design).
"""

from __future__ import annotations

import os
import time

_IMPORT_T = time.time()


def _process_start_time() -> float:
    """When this process started: $COMPANION_T0, else /proc, else this module's import."""
    env = os.environ.get("COMPANION_T0")
    if env:
        try:
            return float(env)
        except ValueError:
            pass
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22 overall: start time in clock ticks
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        # uptime and start time share the boot clock (10 ms resolution)
        return time.time() - uptime + start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return _IMPORT_T


T0 = _process_start_time()

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "0")

from kivy.config import Config  # noqa: E402

Config.set("graphics", "width", "1280")
Config.set("graphics", "height", "800")
Config.set("graphics", "resizable", "1")
Config.set("input", "mouse", "mouse,multitouch_on_demand")
Config.set("kivy", "exit_on_escape", "0")

import logging  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any

from kivy.app import App  # noqa: E402
from kivy.base import ExceptionHandler, ExceptionManager  # noqa: E402
from kivy.clock import Clock  # noqa: E402
from kivy.core.window import Window  # noqa: E402
from kivy.metrics import dp  # noqa: E402
from kivy.properties import BooleanProperty, DictProperty, ListProperty, ObjectProperty, StringProperty  # noqa: E402
from kivy.uix.popup import Popup  # noqa: E402
from kivy.uix.screenmanager import FadeTransition, ScreenManager  # noqa: E402

from firmware_bridge.host.link import Link  # noqa: E402
from firmware_bridge.host.rolls import RollJournal  # noqa: E402
from firmware_bridge.tower.sim import DICE_SETS  # noqa: E402
from tabletop_base.platform import on_android  # noqa: E402

from .. import files, i18n, journal, logs, registry, storage  # noqa: E402
from .. import settings as app_settings  # noqa: E402
from ..errors import CompanionError, GameLockedError, IllegalActionError, JournalTailError  # noqa: E402
from ..i18n import _, ngettext  # noqa: E402
from ..journal import private_dir, write_private_file  # noqa: E402
from ..live.controller import LiveView  # noqa: E402
from ..session import Session, export_json, replay  # noqa: E402
from . import face_to_face, scale, widgets  # noqa: E402
from .screens.dice import DiceScreen  # noqa: E402
from .screens.home import HomeScreen  # noqa: E402
from .screens.saved_games import SavedGamesScreen  # noqa: E402
from .tower import TowerController, roll_words  # noqa: E402, F401  (roll_words: the tests read it here)

log = logging.getLogger(__name__)

# The shell's own screens built on first use (module:class); every game's screens come from
# the registry. Start-up builds only home, saved games and the dice panel.
SHELL_SCREENS = {
    "camera_calibrate": "companion.app.screens.camera_calibrate:CameraCalibrateScreen",
    "dice_stats": "companion.app.screens.dice_stats:DiceStatsScreen",
    "settings": "companion.app.screens.settings:SettingsScreen",
    "teach": "companion.app.screens.teach:TeachScreen",
    "tray": "companion.app.screens.teach:TrayScreen",
}


def for_player(exc: BaseException) -> BaseException:
    """The error as a player may read it: errors of the app's own (file, line, key...) as
    they are; a file the tablet cannot read or write named by its file name; anything else
    a sentence (its traceback goes to the log)."""
    if isinstance(exc, CompanionError):
        return exc
    if isinstance(exc, OSError) and exc.strerror:
        if exc.filename:
            text = _("The tablet could not read or write a file ({file}): {problem}.").format(
                file=Path(exc.filename).name, problem=exc.strerror)
        else:
            text = _("The tablet could not read or write a file: {problem}.").format(
                problem=exc.strerror)
        err: BaseException = CompanionError(text)
    else:
        err = CompanionError(_("Something unexpected went wrong. Nothing was lost; the details "
                               "are in the app's log."))
    err.__cause__ = exc
    return err


class LazyScreens(ScreenManager):
    """A ScreenManager that builds a screen (the shell's, or any registered game's) when it is
    first asked for: each costs its module, its .kv and its widgets only when first shown."""

    @staticmethod
    def targets() -> dict[str, str]:
        return {**SHELL_SCREENS, **registry.screen_targets()}

    def get_screen(self, name: str) -> Any:
        if name not in self.screen_names:
            target = self.targets().get(name)
            if target is not None:
                self.add_widget(registry.resolve(target)(name=name))
        return super().get_screen(name)

    def has_screen(self, name: str) -> bool:
        return name in self.targets() or super().has_screen(name)


TOAST_SECONDS = 3.0


def keep_placed(widget: Any, where: Callable[[], tuple[float, float]]) -> None:
    """Put a widget laid over the window (a toast, a banner) at ``where()`` now and whenever
    the window or the widget changes size, until it leaves the window."""
    def place(*_: Any) -> None:
        if widget.parent is None:
            Window.unbind(size=place)
            return
        widget.pos = where()

    Window.bind(size=place)
    widget.bind(size=place)
    place()


class CompanionApp(App):
    """The single App: one open Session at a time."""

    title = "Tabletop Companion"
    session = ObjectProperty(None, allownone=True)     # the open companion.session.Session
    settings = ObjectProperty(None, allownone=True)    # companion.settings.Settings (language)
    # each game's typed config (game id -> config), loaded when its set-up is opened
    game_configs = DictProperty({})
    status = StringProperty("")                        # "", "loading", "ready"
    # the dice tower, as the reader thread last reported it (set on the GUI thread only)
    tower_state = StringProperty("stopped")
    tower_detail = StringProperty("")
    tower_simulated = BooleanProperty(False)
    last_roll = ListProperty([])                       # dice of the last roll, as dicts
    last_roll_text = StringProperty("")
    last_roll_unclean = BooleanProperty(False)
    last_roll_note = StringProperty("")                # what became of the last roll
    roll_history = ListProperty([])                    # newest first, readable lines
    tower_kinds = ListProperty([])                     # the kinds the tower's HELLO declares
    teach_why = StringProperty(" ")  # why the tower cannot be taught ("": it can, 1.2)
    # the demo camera tower (firmware_bridge/tower/demo_camera.py) is the link's tower for now
    tower_demo = BooleanProperty(False)
    demo_throwing = BooleanProperty(False)   # a demo throw is being drawn or is in the tray
    sim_dice = StringProperty(next(iter(DICE_SETS)))
    live_url = StringProperty("")      # the live view's address while it is on ("": off)
    live_bind = StringProperty("")     # the address it listens on
    # game id -> True when its far player's half is turned toward them (face_to_face.py)
    face_to_face = DictProperty({})

    def __init__(self, data_root: Path | None = None, tower_url: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if data_root is None and not os.environ.get("COMPANION_HOME") and on_android():
            data_root = Path(self.user_data_dir)     # the app's own storage on Android
        self.data_root = Path(data_root) if data_root else files.data_dir()
        self.log_file = logs.setup(Path(data_root) if data_root else None)
        self.tower_url = tower_url
        self.tower = TowerController(self)
        # Tests and the screenshot script set this to a seeded random.Random so the hidden
        # breakage tokens are reproducible; None means a system RNG.
        self.new_game_rng: random.Random | None = None
        self.toast_widget: widgets.Toast | None = None
        self.banner_widget: widgets.Banner | None = None
        self.popup: Popup | None = None
        self._changed = Clock.create_trigger(self._refresh_screens, -1)
        self.live = LiveView()   # off until the player switches it on (Settings)
        self._busy = 0
        self._dice_back: str | None = None     # the screen the dice panel was opened from
        self.teach_why = _("no dice tower is connected")

    # -- building ------------------------------------------------------------------------
    def build(self) -> ScreenManager:
        Window.clearcolor = widgets.BG
        # the language first, so the first frame is in it (one small file, read once)
        self.settings = app_settings.load(self.data_root)
        i18n.set_language(self.settings.language)
        i18n.subscribe(self._language_switched)
        scale.follow_window()
        sm = LazyScreens(transition=FadeTransition(duration=0.12))
        sm.add_widget(HomeScreen(name="home"))
        sm.add_widget(SavedGamesScreen(name="saved"))
        sm.add_widget(DiceScreen(name="dice"))
        sm.bind(current=self._screen_changed)
        return sm

    def on_start(self) -> None:
        self.status = "loading"
        self.in_background(self._startup_io, self._startup_done, self._startup_failed)
        self.in_background(face_to_face.load,
                           lambda games: setattr(self, "face_to_face",
                                                 dict.fromkeys(games, True)),
                           lambda exc: self.toast(str(exc)))
        if os.environ.get("COMPANION_EXIT_AFTER_FIRST_FRAME") == "1":
            Window.bind(on_flip=self._first_frame)

    def _first_frame(self, *args: Any) -> None:
        Window.unbind(on_flip=self._first_frame)
        print(f"FIRST_FRAME {time.time() - T0:.3f}", flush=True)
        if os.environ.get("COMPANION_EXIT_WHEN_READY") != "1":
            Clock.schedule_once(lambda dt: self.stop(), 0)

    def _landed(self) -> None:
        """Start-up is over and its screen (Home or the resumed game) is showing: the
        benchmark hook reports the time once that screen has been drawn."""
        if os.environ.get("COMPANION_EXIT_WHEN_READY") != "1":
            return

        def drawn(*args: Any) -> None:
            Window.unbind(on_flip=drawn)
            print(f"READY {time.time() - T0:.3f} {self.root.current}", flush=True)
            Clock.schedule_once(lambda dt: self.stop(), 0)

        # The screen manager fades in; wait for the transition to end, then one frame.
        def check(dt: float) -> None:
            if self.root.transition.is_active:
                Clock.schedule_once(check, 0)
            else:
                Window.bind(on_flip=drawn)
                Window.canvas.ask_update()

        Clock.schedule_once(check, 0)

    def on_stop(self) -> None:
        Window.allow_screensaver = True
        if self.root is not None:     # worker threads (cameras) end before the process does
            for screen in self._built_screens():
                stop = getattr(screen, "stop_workers", None)
                if stop is not None:
                    stop()
        self.tower.stop()
        self.live.stop()
        if self.session is not None:
            self.session.close()

    # -- Android: pause and resume -------------------------------------------------------
    def on_pause(self) -> bool:
        """The tablet puts the app in the background (another app, the screen turned off).
        Every action is already in the journal on disk; the dice tower's reader thread and
        the cameras stop (the port and the camera are the system's while paused) and come
        back on resume. True: Android may pause rather than stop the app."""
        stopped = self.tower.pause()
        for screen in self._built_screens():
            pause = getattr(screen, "pause_workers", None)
            if pause is not None:
                pause()
        log.info("paused (tower %s)", "stopped" if stopped else "not running")
        return True

    def on_resume(self) -> None:
        """Back from the background: the tower link and the cameras start again."""
        self.tower.resume()
        for screen in self._built_screens():
            resume = getattr(screen, "resume_workers", None)
            if resume is not None:
                resume()
        log.info("resumed")

    def _built_screens(self) -> list[Any]:
        return list(self.root.screens) if self.root is not None else []

    @staticmethod
    def _startup_io(root: Path) -> storage.SavedGame | None:
        return storage.last_unfinished(root)

    def _startup_done(self, last: storage.SavedGame | None) -> None:
        self.status = "ready"
        self.tower.start()
        if last is not None:
            self.open_game(last.path)
        else:
            self.go("home")
            self._landed()

    def _startup_failed(self, exc: BaseException) -> None:
        self.status = "ready"
        self.show_error(_("Could not start"), str(exc))

    # -- the dice tower ------------------------------------------------------------------
    # -- the dice tower (companion/app/tower.py carries it out) ----------------------------
    @property
    def tower_link(self) -> Link | None:
        return self.tower.link

    @property
    def roll_journal(self) -> RollJournal | None:
        return self.tower.journal

    def connect_tower(self, url: str, journal: RollJournal | None = None) -> None:
        """Move the dice tower link to another port (a path, ``socket://`` or ``sim://``);
        ``journal``: where its rolls are kept (default: the app's roll journal)."""
        self.tower.connect(url, journal)

    def try_demo_camera(self, screen: str) -> None:
        self.tower.try_demo(screen)

    def start_demo_camera(self, screen: str) -> None:
        self.tower.start_demo(screen)

    def leave_demo_camera(self, then: str | None = "dice") -> None:
        self.tower.leave_demo(then)

    def demo_throw(self, kind: str) -> None:
        self.tower.demo_throw(kind)

    def _screen_changed(self, manager: Any, name: str) -> None:
        self.tower.screen_changed(name)

    def _refresh_dice_panel(self) -> None:
        self.tower.refresh_dice_panel()

    def simulated_roll(self, dice: str | None = None) -> None:
        """The demo's "Roll" button: the in-process simulated tower throws ``dice`` (a set
        name such as "spawn"; default: the dice panel's ``sim_dice``)."""
        self.tower.simulated_roll(dice or self.sim_dice)

    def next_sim_dice(self) -> None:
        names = list(DICE_SETS)
        self.sim_dice = names[(names.index(self.sim_dice) + 1) % len(names)]

    def open_dice(self) -> None:
        """The dice panel (every tower chip): Back returns to the screen it was opened from."""
        if self.root is not None and self.root.current != "dice":
            self._dice_back = self.root.current
        self.go("dice")

    def go_back_from_dice(self) -> None:
        back = self._dice_back
        owner = registry.game_of_screen(back) if back else None
        # a game's screen only while that game is still the open one
        if back and (owner is None or (self.session is not None
                                       and owner.id == self.session.game)):
            self.go(back)
        elif self.session is not None:
            self.go(registry.get(self.session.game).play)
        else:
            self.go("home")

    def game_screen(self) -> Any:
        """The open game's play screen (None when no game is open)."""
        if self.root is None or self.session is None:
            return None
        return self.root.get_screen(registry.get(self.session.game).play)

    # -- threads -------------------------------------------------------------------------
    def in_background(self, work: Callable[..., Any], done: Callable[[Any], None],
                      failed: Callable[[BaseException], None] | None = None) -> None:
        """Run ``work(data_root)`` on a worker thread; call back on the GUI thread."""
        root = self.data_root
        self._busy += 1

        def run() -> None:
            try:
                result = work(root)
            except Exception as exc:  # noqa: BLE001 - reported to the user, never a crash
                err = for_player(exc)
                if err is exc and isinstance(exc, CompanionError):
                    log.info("%s: %s", getattr(work, "__qualname__", "a task"), exc)
                else:
                    log.error("background task %s failed",
                              getattr(work, "__qualname__", repr(work)), exc_info=exc)
                Clock.schedule_once(lambda dt: self._finish(failed or self._default_failed,
                                                            err), 0)
            else:
                Clock.schedule_once(lambda dt: self._finish(done, result), 0)

        threading.Thread(target=run, daemon=True).start()

    def _finish(self, callback: Callable[[Any], None], value: Any) -> None:
        self._busy -= 1
        callback(value)

    @property
    def busy(self) -> bool:
        """True while a worker thread has not reported back (tests wait on this)."""
        return self._busy > 0

    def _default_failed(self, exc: BaseException) -> None:
        self.show_error(_("Something went wrong"), str(exc))
        self.go("home")

    # -- navigation ----------------------------------------------------------------------
    def go(self, name: str) -> None:
        if self.root is not None and self.root.current != name:
            self.root.current = name

    def go_home(self) -> None:
        self.go("home")

    # -- language ------------------------------------------------------------------------
    def set_language(self, code: str) -> None:
        """Settings' language switch: speak ``code`` ("system", "en", "fr") now, and
        remember it (written on a worker thread)."""
        self.settings = app_settings.Settings(language=code)
        i18n.set_language(code)
        chosen = self.settings
        self.in_background(lambda root: app_settings.save(root, chosen), lambda path: None,
                           lambda exc: self.toast(_("The language is not remembered: {problem}")
                                                  .format(problem=exc)))

    def _language_switched(self) -> None:
        """After a switch: kv rules follow by themselves (tr._); the words built in Python
        are built again on every screen already made, and the open game's state is folded
        again so the words it keeps (notes) are in the new language."""
        if self.root is None:
            return
        for screen in self._built_screens():
            for w in screen.walk():
                if isinstance(w, widgets.SlotTile):
                    w.on_kind()
                elif isinstance(w, widgets.TokenTile):
                    w._redraw()
            if hasattr(screen, "_drawn"):
                screen._drawn = None      # drawn from a cache key: draw again
            hook = getattr(screen, "on_language", None)
            if hook is not None:
                hook()
        home = self.root.get_screen("home")
        home.build_tiles()
        if self.status == "ready":
            self.find_unfinished(home.show_unfinished)
            if self.root.current == "saved":
                self.list_saved(self.root.get_screen("saved").show)
        self.tower.reword()
        self._refresh_dice_panel()
        self.live.publish()      # the open pages in the new language
        session = self.session
        if session is not None:
            session.reword()
            screen = self.game_screen()
            if screen is not None:
                screen.bind_session(session)

    # -- opening games -------------------------------------------------------------------
    def open_setup(self, game: str) -> None:
        """Home's tile: load the game's config (the user's copy if there is one) on a worker
        thread, then show its set-up screen. A bad file is named in a popup (file, line,
        key) and nothing is opened."""
        entry = registry.get(game)

        def done(cfg: Any) -> None:
            self.game_configs[game] = cfg
            self.go(entry.setup)

        self.in_background(lambda root: registry.load_config(game, root), done,
                           lambda exc: self.show_error(
                               _("{game} not loaded").format(game=_(entry.tile.title)), str(exc)))

    def config_of(self, game: str) -> Any:
        """The game's config as last loaded (None before its set-up was first opened)."""
        return self.game_configs.get(game)

    def start_game(self, game: str, setup: dict[str, Any], label: str,
                   rng: random.Random | None = None) -> None:
        """Create a new game of ``game`` from its set-up screen's data and show it."""
        rng = rng if rng is not None else self.new_game_rng

        def work(root: Path) -> Session:
            return Session.create(files.new_game_path(game, label, root), game,
                                  setup, rng=rng)

        self.in_background(work, self._show_session, self._open_failed)

    def save_game_config(self, game: str, cfg: Any,
                         then: Callable[[Path], None] | None = None,
                         announce: bool = True) -> None:
        """Write the user's copy of a game's config (validated first: a refused config writes
        nothing) and use it from now on."""
        def done(path: Path) -> None:
            self.game_configs[game] = cfg
            if announce:
                self.toast(_("Saved as your defaults"), error=False)
            if then is not None:
                then(path)

        self.in_background(lambda root: registry.save_config(game, cfg, root), done,
                           lambda exc: self.toast(_("Not saved: {problem}").format(problem=exc)))

    def open_calibration(self, back_to: str = "home") -> None:
        """The guided camera calibration (the demo board when there is no camera)."""
        from . import overhead

        def done(result: Any) -> None:
            source, text, demo = result
            self.root.get_screen("camera_calibrate").start(source, text, demo, back_to)
            self.go("camera_calibrate")

        self.in_background(lambda root: overhead.open_calibration_source(root), done,
                           lambda exc: self.show_error(_("The camera cannot be opened"), str(exc)))

    def open_game(self, path: str | Path, rng: random.Random | None = None) -> None:
        """Reopen a saved game exactly where it was (errors become popups, never crashes)."""
        path = Path(path)
        rng = rng if rng is not None else self.new_game_rng
        if self.session is not None and self.session.path == path:
            self.session.close()  # reopening our own game: let go of its lock first
            self.session = None

        def work(root: Path) -> Session:
            try:
                return Session.open(path, rng=rng)
            except GameLockedError:  # another window plays it: look, do not touch
                return Session.open(path, rng=rng, read_only=True)

        self.in_background(work, self._show_session,
                           lambda exc: self._open_failed(exc, path, rng))

    def _open_failed(self, exc: BaseException, path: Path | None = None,
                     rng: random.Random | None = None) -> None:
        if isinstance(exc, JournalTailError) and path is not None:
            if exc.good_events:
                self._ask_repair(exc, path, rng)
            else:
                self._ask_move_aside(exc, path)
            return
        title = _("Could not open the game") if isinstance(exc, CompanionError) else _("Error")
        self.show_error(title, str(exc))
        self.go("home")

    def _ask_repair(self, err: JournalTailError, path: Path, rng: random.Random | None) -> None:
        intact = err.actions_in_force
        if intact is None:  # counted by Session.open; not undo/redo lines
            intact = len(replay(err.good_events, str(path)).actions)
        message = ngettext("The saved game\n[b]{file}[/b]\nhas a damaged line {line}: {problem}."
                           "\n\n{count} action before it is intact. The damaged bytes are kept "
                           "in a file next to it.",
                           "The saved game\n[b]{file}[/b]\nhas a damaged line {line}: {problem}."
                           "\n\n{count} actions before it are intact. The damaged bytes are kept "
                           "in a file next to it.", intact).format(
            file=path.name, line=err.line, problem=err.problem, count=intact)

        def keep() -> None:
            def work(root: Path) -> Session:
                return Session.open(path, rng=rng, repair=err)  # under the game's lock
            self.in_background(work, self._show_session,
                               lambda exc: self._open_failed(exc, path, rng))

        self.confirm(message, keep,
                     ok_text=ngettext("Keep the {count} intact action and continue",
                                      "Keep the {count} intact actions and continue",
                                      intact).format(count=intact),
                     cancel_text=_("Leave it untouched"), on_cancel=self.go_home,
                     title=_("Saved game damaged"))

    def _ask_move_aside(self, err: JournalTailError, path: Path) -> None:
        """A journal whose very first line is damaged holds no game to keep: offer to move
        it out of the list (renamed, bytes untouched)."""
        message = _("The saved game\n[b]{file}[/b]\ncannot be opened: its first line is damaged "
                    "({problem}), so there is no game to read from it.\n\nMoving it aside keeps "
                    "the file (renamed) and takes it off the list.").format(file=path.name,
                                                                            problem=err.problem)

        def moved(aside: Path) -> None:
            self.toast(_("Moved aside to {file}").format(file=aside.name), error=False)
            self.go_home()

        def move() -> None:
            self.in_background(lambda root: journal.move_aside(path), moved,
                               lambda exc: self.show_error(_("Not moved"), str(exc)))

        self.confirm(message, move, ok_text=_("Move it aside"), cancel_text=_("Leave it untouched"),
                     on_cancel=self.go_home, title=_("Saved game damaged"))

    def _show_session(self, session: Session) -> None:
        entry = registry.get(session.game)
        try:
            screen = self.root.get_screen(entry.play)
        except Exception:  # noqa: BLE001 - a game whose screen cannot be built is refused
            title = session.rules.title
            session.close()
            self.show_error(_("Not on the tablet yet"),
                            _("This is a {game} game. Its screen cannot be shown in this "
                              "version of the app.").format(game=_(title)))
            self.go("home")
            return
        if self.session is not None and self.session is not session:
            self.session.close()
        self.session = session
        if entry.sim_dice is not None:
            self.sim_dice = entry.sim_dice   # the demo tower throws this game's dice
        session.subscribe(lambda s: self._changed())
        screen.bind_session(session)
        self.live.set_game(session.game, session.state)
        self.go(screen.name)
        if session.read_only:
            self.banner(_("This game is open elsewhere: you can look, not play"), seconds=6.0)
        self._landed()

    # -- game commands -------------------------------------------------------------------
    def act(self, type_: str, /, *, then: Callable[[], None] | None = None,
            **data: Any) -> None:
        """Perform one user action. Asks first when it would end a Round; illegal actions
        show a red toast and change nothing."""
        session = self.session
        if session is None:
            return
        try:
            after = session.preview(type_, **data)
        except IllegalActionError as exc:
            self.toast(str(exc))
            return
        entry = registry.get(session.game)
        confirm = entry.confirm_function()
        text = confirm(session.state, after) if confirm is not None else None
        if text:
            def confirmed() -> None:
                self._do(type_, data, then)

            self.confirm(text, confirmed, ok_text=_("Confirm"), title=_(entry.confirm_title))
        else:
            self._do(type_, data, then)

    def _do(self, type_: str, data: dict[str, Any], then: Callable[[], None] | None) -> bool:
        session = self.session
        if session is None:
            return False
        before = session.state
        try:
            session.do(type_, **data)
        except IllegalActionError as exc:
            self.toast(str(exc))
            return False
        except OSError as exc:
            self.toast(_("Could not save the action ({problem}); nothing changed").format(problem=exc))
            return False
        if then is not None:
            then()
        # reminders belong to a new action only: undo, redo and replay never announce
        screen = self.game_screen()
        if screen is not None:
            screen.announce(before, session.state)
        return True

    def undo(self) -> None:
        self._meta("undo")

    def redo(self) -> None:
        self._meta("redo")

    def _meta(self, which: str) -> None:
        if self.session is None:
            return
        try:
            getattr(self.session, which)()
        except IllegalActionError as exc:
            self.toast(str(exc))
        except OSError as exc:
            self.toast((_("Could not save the undo ({problem}); nothing changed") if which == "undo" else
                        _("Could not save the redo ({problem}); nothing changed")).format(problem=exc))

    def _refresh_screens(self, *args: Any) -> None:
        if self.root is None or self.session is None:
            return
        self.game_screen().refresh()
        self.live.set_game(self.session.game, self.session.state)

    # -- the live view -------------------------------------------------------------------
    def set_live(self, bind: str | None) -> None:
        """Settings' Live view: serve on ``bind`` (a new token each time), or off (None)."""
        self.live.stop()
        self.live_url = self.live_bind = ""
        if bind is None:
            return
        try:
            self.live_url = self.live.start(bind)
        except OSError as exc:
            self.toast(_("The live view cannot start on {address}: {problem}").format(
                address=bind, problem=exc.strerror or exc))
            return
        self.live_bind = bind
        session = self.session
        self.live.set_game(session.game if session else None, session.state if session else None)

    def export_json(self) -> None:
        session = self.session
        if session is None:
            return
        text = export_json(session)
        stem = session.path.stem

        def work(root: Path) -> Path:  # owner-only: an export may hold hidden information
            private_dir(root)
            return write_private_file(root / "exports" / f"{stem}.json",
                                      (text + "\n").encode("utf-8"))

        self.in_background(work, lambda p: self.toast(_("Exported: {file}").format(file=p.name), error=False),
                           lambda exc: self.toast(_("Export failed: {problem}").format(problem=exc)))

    def set_face_to_face(self, game: str, on: bool) -> None:
        """Turn (or turn back) the far player's half of ``game``'s screen; remembered."""
        turned = {g for g, v in self.face_to_face.items() if v and g != game}
        if on:
            turned.add(game)
        self.face_to_face = dict.fromkeys(turned, True)
        self.in_background(lambda root: face_to_face.save(root, turned), lambda path: None,
                           lambda exc: self.toast(f"Not remembered: {exc}"))

    # -- saved games ---------------------------------------------------------------------
    def list_saved(self, done: Callable[[list[storage.SavedGame]], None]) -> None:
        self.in_background(storage.list_saved, done,
                           lambda exc: self.toast(
                               _("Cannot list saved games: {problem}").format(problem=exc)))

    def delete_saved(self, saved: storage.SavedGame,
                     done: Callable[[], None] | None = None) -> None:
        """Delete a saved game after one confirmation. The game open on this tablet is never
        deleted (refused here, and by the journal's lock it holds)."""
        path = Path(saved.path)
        if self.session is not None and self.session.path == path:
            self.toast(_("This game is open: it cannot be deleted"))
            return

        def deleted(_result: Any) -> None:
            self.toast(_("Deleted: {game}, {summary}").format(game=_(saved.title), summary=saved.summary),
                       error=False)
            if done is not None:
                done()

        def delete() -> None:
            if self.session is not None and self.session.path == path:  # opened meanwhile
                self.toast(_("This game is open: it cannot be deleted"))
                return
            self.in_background(lambda root: journal.delete(path), deleted,
                               lambda exc: self.show_error(_("Not deleted"), str(exc)))

        self.confirm(_("Delete this saved game?\n[b]{game}[/b]   {summary}\n\nIt cannot be brought "
                       "back.").format(game=_(saved.title), summary=saved.summary), delete,
                     ok_text=_("Delete it"), cancel_text=_("Keep it"), title=_("Delete a saved game"))

    def find_unfinished(self, done: Callable[[storage.SavedGame | None], None]) -> None:
        self.in_background(storage.last_unfinished, done, lambda exc: done(None))

    # -- feedback ------------------------------------------------------------------------
    def toast(self, text: str, error: bool = True, seconds: float = TOAST_SECONDS) -> None:
        if self.toast_widget is not None and self.toast_widget.parent is not None:
            self.toast_widget.parent.remove_widget(self.toast_widget)
        t = widgets.Toast(text=text, bg=widgets.RED if error else (0.15, 0.45, 0.25, 0.95))
        t.pos_hint = {"center_x": 0.5}
        Window.add_widget(t)
        t.texture_update()
        keep_placed(t, lambda: (Window.width / 2 - t.width / 2, dp(96) * scale.ui.k))
        self.toast_widget = t
        widgets.flash(t, seconds)

    def banner(self, text: str, seconds: float = 3.0) -> None:
        if self.banner_widget is not None and self.banner_widget.parent is not None:
            self.banner_widget.parent.remove_widget(self.banner_widget)
        b = widgets.Banner(text=text)
        Window.add_widget(b)
        b.texture_update()
        # centred, a little above the middle, and inside the window however short it is
        keep_placed(b, lambda: (Window.width / 2 - b.width / 2,
                                max(0, min(Window.height - b.height,
                                           Window.height / 2 + dp(80) * scale.ui.k
                                           - b.height / 2))))
        self.banner_widget = b
        widgets.flash(b, seconds)

    def confirm(self, message: str, on_ok: Callable[[], None], *, ok_text: str | None = None,
                cancel_text: str | None = None, on_cancel: Callable[[], None] | None = None,
                title: str | None = None) -> Popup:
        ok_text = _("Confirm") if ok_text is None else ok_text
        cancel_text = _("Cancel") if cancel_text is None else cancel_text
        title = _("Confirm") if title is None else title
        body = widgets.ConfirmBody(message=message, ok_text=ok_text, cancel_text=cancel_text)
        body.ids.ok.font_role = "large" if len(ok_text) > 24 else "heading"
        k = scale.ui.k       # as wide as the window allows, up to 960x500 dp (scaled)
        popup = Popup(title=title, content=body, size_hint=(0.94, 0.9),
                      size_hint_max=(dp(960) * k, dp(500) * k), auto_dismiss=False,
                      title_size=scale.ui.heading, separator_color=widgets.ACCENT)
        for label in body.walk():
            if hasattr(label, "markup"):
                label.markup = True

        def ok(*_args: Any) -> None:
            popup.dismiss()
            on_ok()

        def cancel(*_args: Any) -> None:
            popup.dismiss()
            if on_cancel is not None:
                on_cancel()

        body.ids.ok.bind(on_release=ok)
        body.ids.cancel.bind(on_release=cancel)
        if not cancel_text:
            body.ids.buttons.remove_widget(body.ids.cancel)
        popup.bind(on_dismiss=lambda *_: setattr(self, "popup", None)
                   if self.popup is popup else None)
        self.popup = popup
        popup.open(animation=False)
        return popup

    def show_error(self, title: str, message: str) -> Popup:
        return self.confirm(message, lambda: None, ok_text=_("OK"), cancel_text="", title=title)


class KeepPlaying(ExceptionHandler):
    """An unexpected error in a screen's code must not close the app mid-game: it is logged
    with its traceback and the player is told in a sentence (the journal already holds every
    action, so nothing is lost)."""

    def handle_exception(self, inst: BaseException) -> int:
        if isinstance(inst, (KeyboardInterrupt, SystemExit)):
            return ExceptionManager.RAISE
        log.error("unexpected error in the app", exc_info=inst)
        app = App.get_running_app()
        if app is None or app.root is None:
            return ExceptionManager.RAISE
        try:
            app.show_error(_("Something went wrong"),
                           _("Something unexpected went wrong. Your game is saved; the details "
                             "are in the app's log."))
        except Exception:  # noqa: BLE001 - the popup itself failed: give up cleanly
            return ExceptionManager.RAISE
        return ExceptionManager.PASS


def run_app(data_root: Path | None = None, tower_url: str | None = None) -> None:
    """Start the tablet app on ``data_root`` (default: $COMPANION_HOME)."""
    ExceptionManager.add_handler(KeepPlaying())
    CompanionApp(data_root=data_root, tower_url=tower_url).run()


if __name__ == "__main__":
    run_app(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
