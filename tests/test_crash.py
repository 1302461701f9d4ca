"""Kill the session process with SIGKILL at random moments: no action shown as done is lost.

A driver subprocess plays a scripted (seeded) game and prints "DONE <seq> <type>" after
each action returns, which is the moment the app would show it. We SIGKILL it at random
times, at least 20 times, restarting it on the same journal each time; after every kill
the journal must hold every DONE event, and must reopen (at worst with a torn last line
that no DONE ever reported).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from companion.errors import JournalTailError
from companion.journal import read_events, repair_tail
from companion.session import Session, replay

DRIVER = Path(__file__).with_name("kill_driver.py")
KILLS = 25


def _run_and_kill(journal: Path, seed: int, after: int,
                  delay: float) -> tuple[list[tuple[int, str]], bool]:
    """Start the driver, let it report ``after`` done actions, wait ``delay``, SIGKILL."""
    env = dict(os.environ, PYTHONPATH=str(DRIVER.parent.parent))
    proc = subprocess.Popen([sys.executable, str(DRIVER), str(journal), str(seed)],
                            stdout=subprocess.PIPE, text=True, env=env)
    done: list[tuple[int, str]] = []
    ready = threading.Event()
    over = threading.Event()
    enough = threading.Event()

    def reader() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("READY"):
                ready.set()
            elif line.startswith("DONE"):
                _, seq, type_ = line.split()
                done.append((int(seq), type_))
                if len(done) >= after:
                    enough.set()
            elif line.startswith("GAME_OVER"):
                over.set()
                enough.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    assert ready.wait(30), "the driver did not start"
    assert enough.wait(60), "the driver made no progress"
    time.sleep(delay)  # lands anywhere: between actions, mid-write, mid-fsync
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    t.join(10)
    return done, over.is_set()


def _check_after_kill(journal: Path, all_done: dict[int, str], kill: int) -> None:
    try:
        events = read_events(journal)
    except JournalTailError as exc:
        # Only a line that no DONE ever reported may be torn.
        assert exc.line > max(all_done, default=1), exc
        events = exc.good_events
    by_seq = {e.seq: e.type for e in events}
    for seq, type_ in all_done.items():
        assert by_seq.get(seq) == type_, f"kill {kill}: DONE event {seq} ({type_}) lost"
    replay(events, str(journal))  # the intact journal always replays


def test_sigkill_at_random_points_loses_no_done_action(tmp_path):
    rng = random.Random(20261122)
    game = 1
    journal = tmp_path / f"game{game}.jsonl"
    all_done: dict[int, str] = {}
    progress = []
    for kill in range(KILLS):
        done, over = _run_and_kill(journal, rng.randrange(2**31), rng.randint(1, 400),
                                   rng.uniform(0, 0.01))
        progress.append(len(done))
        all_done.update(done)
        _check_after_kill(journal, all_done, kill)
        if over:  # that game ended: the next runs play a new one
            game += 1
            journal = tmp_path / f"game{game}.jsonl"
            all_done = {}
    assert len(progress) == KILLS and all(n > 0 for n in progress), progress
    # Whatever state the last kill left, the game reopens (after the app's tail repair).
    try:
        session = Session.open(journal)
    except JournalTailError as exc:
        repair_tail(journal, exc)
        session = Session.open(journal)
    assert session._journal.next_seq - 1 >= max(all_done, default=1)
