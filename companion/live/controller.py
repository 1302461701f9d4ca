"""The live view switched on and off, fed by the app (or by ``companion serve``), Kivy-free.

    live = LiveView()
    url = live.start("127.0.0.1")        # a new token each time; OSError names the address
    live.set_roll(dice, time.time())    # a tower throw (dice as the roll journal writes them)
    live.set_game("tekken", state)      # the open game (None: no game open)
    live.stop()                         # the port is closed

Feeding it costs nothing while it is off. A game whose summary fails (a bug) shows no game
rather than stopping the app; the failure goes to the log.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from .feed import compose
from .server import LiveServer, LiveState
from .summary import game_summary

log = logging.getLogger(__name__)


class LiveView:
    def __init__(self) -> None:
        self.state = LiveState()
        self.server: LiveServer | None = None
        self._lock = threading.Lock()
        self._roll: list[dict[str, Any]] | None = None
        self._roll_at: float | None = None
        self._game_id: str | None = None
        self._game_state: Any = None

    @property
    def running(self) -> bool:
        return self.server is not None

    @property
    def url(self) -> str | None:
        return self.server.url if self.server is not None else None

    def start(self, bind: str = "127.0.0.1", port: int = 0) -> str:
        """Serve on ``bind`` (a new token); returns the address to open, token included."""
        self.stop()
        self.server = LiveServer(self.state, bind, port).start()
        self.publish()
        return self.server.url

    def stop(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            server.stop()

    def set_roll(self, dice: Sequence[Mapping[str, Any]], at: float) -> None:
        with self._lock:
            self._roll, self._roll_at = [dict(d) for d in dice], at
        self.publish()

    def set_game(self, game_id: str | None, state: Any = None) -> None:
        with self._lock:
            self._game_id, self._game_state = game_id, state
        self.publish()

    def publish(self) -> None:
        """Send what the page shows now to every viewer (nothing while off)."""
        if self.server is None:
            return
        with self._lock:
            roll, at, game_id, state = self._roll, self._roll_at, self._game_id, self._game_state
        game = None
        if game_id is not None and state is not None:
            try:
                game = game_summary(game_id, state)
            except Exception:   # noqa: BLE001 - a summary's bug must not stop the game
                log.exception("live view: the %s summary failed", game_id)
        self.state.publish(compose(roll, at, game))
