"""Plays random legal TEKKEN actions on a journal until killed (used by test_crash.py).

Resumes the journal if it exists (keeping the intact prefix if the last line was torn,
as the app's "keep the intact actions" button does), then after every action that
returned — i.e. that the screen would now show — prints "DONE <seq> <type>".
"""

import random
import sys
from pathlib import Path

from companion.errors import JournalTailError
from companion.games.tekken_play import DEMO_SETUP as SETUP
from companion.games.tekken_play import random_action
from companion.journal import repair_tail
from companion.session import Session


def main() -> None:
    path, seed = Path(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    if path.exists():
        try:
            session = Session.open(path)
        except JournalTailError as exc:
            repair_tail(path, exc)
            print(f"REPAIRED {exc.line}", flush=True)
            session = Session.open(path)
    else:
        session = Session.create(path, "tekken", SETUP, rng=rng)
    print("READY", flush=True)
    while True:
        r = rng.random()
        if r < 0.08 and session.can_undo:
            event = session.undo()
            print(f"DONE {session._journal.next_seq - 1} session.undo", flush=True)
            continue
        if r < 0.12 and session.can_redo:
            session.redo()
            print(f"DONE {session._journal.next_seq - 1} session.redo", flush=True)
            continue
        action = random_action(session.state, rng, damage=0.05)
        if action is None:
            print("GAME_OVER", flush=True)
            return
        event = session.do(action[0], **action[1])
        print(f"DONE {event.seq} {event.type}", flush=True)


if __name__ == "__main__":
    main()
