"""``companion serve``: the live view without a window.

It connects the dice tower as the app does (``config/dice_tower.yaml``, or ``--tower``; the
simulated tower when none is found), records each roll in the roll journal before the tower
is told (as the app does) and shows it; and it follows the game last played in the data
folder: the newest game journal, read again whenever it changes (the app, or ``companion
new``, writes it; this process only reads it, so the game can be open in the app at the
same time). Rolls it receives are shown, not written into a game: a game takes its rolls in
the app that has it open.

The first line printed is ``Live view: URL`` (the real port, token included) once it
listens; it stops cleanly on SIGTERM or Ctrl-C (the port closed, the tower link stopped,
the roll journal closed).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .. import files
from ..errors import CompanionError, JournalError, JournalTailError
from ..journal import read_events
from ..session import replay
from .controller import LiveView

log = logging.getLogger(__name__)
POLL_SECONDS = 0.1   # how often the game folder is looked at


class GameFollower:
    """The newest game journal of a data folder, folded again when it changes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._seen: tuple[str, int, int] | None = None

    def poll(self) -> tuple[str, Any] | None | bool:
        """(game id, state) when the newest game changed, None when there is no game, False
        when nothing changed since the last call."""
        directory = files.games_dir(self.root)
        try:
            found = [(e.stat().st_mtime_ns, e.path) for e in os.scandir(directory)
                     if e.name.endswith(".jsonl") and e.is_file()]
        except OSError:
            found = []
        if not found:
            if self._seen is None:
                return False
            self._seen = None
            return None
        mtime, path = max(found)
        size = os.stat(path).st_size
        key = (path, mtime, size)
        if key == self._seen:
            return False
        self._seen = key
        try:
            try:
                events = read_events(path)
            except JournalTailError as exc:     # mid-write, or torn: its intact events
                events = exc.good_events
            fold = replay(events, path)
        except (JournalError, CompanionError, OSError) as exc:
            log.warning("live view: %s cannot be followed: %s", path, exc)
            return None
        return fold.rules.name, fold.state


def serve(root: Path, bind: str, port: int, tower: str | None,
          stop: threading.Event | None = None, out: Any = None) -> int:
    from firmware_bridge.host import events as tower_events
    from firmware_bridge.host.link import Link
    from firmware_bridge.host.rolls import RollJournal

    from .. import i18n, settings
    from ..app.tower_config import choose_url, load_tower_config

    out = out or sys.stdout
    stop = stop or threading.Event()
    i18n.set_language(settings.load(root).language)   # the app's language, as the app
    live = LiveView()
    try:
        url = live.start(bind, port)
    except OSError as exc:
        raise CompanionError(f"the live view cannot listen on {bind}:{port}: "
                             f"{exc.strerror or exc}") from None
    print(f"Live view: {url}", file=out, flush=True)

    def handler(signum: int, frame: Any) -> None:
        stop.set()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handler)
        signal.signal(signal.SIGINT, handler)
    cfg = load_tower_config(root)
    tower_url, simulated, why = choose_url(cfg, tower)
    journal = RollJournal(root / "rolls.jsonl")

    def on_event(event: Any) -> None:      # the link's reader thread
        if isinstance(event, tower_events.RollEvent):
            if not event.late:
                live.set_roll([d.to_json() for d in event.dice], time.time())
            journal.mark_delivered(event.key)   # shown here; no game takes it from this process
        elif isinstance(event, tower_events.Connected):
            print(f"Dice tower: {event.firmware} on {event.port}, protocol {event.proto}",
                  file=out, flush=True)

    link = Link(tower_url, journal, on_event, usb=cfg.usb_match, baudrates=cfg.baudrates).start()
    if simulated:
        print(f"Dice tower: simulated ({tower_url})", file=out, flush=True)
    follower = GameFollower(root)
    try:
        while not stop.is_set():
            changed = follower.poll()
            if changed is None:
                live.set_game(None)
            elif isinstance(changed, tuple):
                live.set_game(*changed)
            stop.wait(POLL_SECONDS)
    finally:
        live.stop()
        link.stop()
        journal.close()
    print("Live view stopped", file=out, flush=True)
    return 0
