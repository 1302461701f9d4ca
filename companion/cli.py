"""The ``companion`` command.

    companion                         start the tablet app (resumes the last game)
    companion new GAME [options]      start a new game (and open it in the app)
    companion replay JOURNAL [--json] print a saved game's final state
    companion log JOURNAL             print a saved game's readable action log
    companion games                   list saved games
    companion serve [--bind A] [--port N] the live view without a window (prints its address)
    companion dice-stats [--json|--csv] what the dice tower has read, die by die, and whether
                                      each kind of die looks fair (--reset KIND/COLOUR: "I
                                      changed dice")

Every error a user can cause (bad config, damaged journal, illegal action) ends in one
readable line on stderr and a distinct exit code, never a traceback:
2 usage/other, 3 config, 4 illegal action, 5 journal, 6 journal with a damaged end,
8 the game is open elsewhere, 9 a file cannot be written (disk full, read-only folder: nothing
is left half-created). ``replay``, ``log`` and ``games`` only read, so they work while the app
has the game open.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from tabletop_base.pipes import output_gone

from . import __version__, files, registry, storage
from .errors import CompanionError, JournalTailError
from .journal import read_events
from .session import Session, replay


def _events(path: str, ignore_torn_tail: bool) -> list:
    try:
        return read_events(path)
    except JournalTailError as exc:
        intact = len(exc.good_events)
        if not intact:
            raise JournalTailError(exc.file, exc.line,
                                   f"{exc.problem}; its first line is damaged, so no game can "
                                   "be read from it (the app moves it aside)", [],
                                   exc.good_bytes, exc.bad_bytes) from None
        if not ignore_torn_tail:
            raise JournalTailError(exc.file, exc.line,
                                   f"{exc.problem}; the {intact} events before it are intact "
                                   "(use --ignore-torn-tail to read them; the app offers to "
                                   "keep them)", exc.good_events, exc.good_bytes,
                                   exc.bad_bytes) from None
        print(f"companion: warning: {exc}; reading the {intact} intact events before it",
              file=sys.stderr)
        return exc.good_events


def cmd_replay(args: argparse.Namespace) -> int:
    events = _events(args.journal, args.ignore_torn_tail)
    fold = replay(events, args.journal)
    rules = fold.rules
    if args.json:
        out = {"game": rules.name, "journal": args.journal, "events": len(events),
               "actions_in_force": len(fold.actions), "over": rules.is_over(fold.state),
               "state": rules.to_json(fold.state, reveal_hidden=args.reveal_hidden)}
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print(f"{rules.title}: {rules.summary(fold.state)} "
              f"({len(fold.actions)} actions, {len(events)} journal lines)")
    return 0


def cmd_log(args: argparse.Namespace) -> int:
    events = _events(args.journal, args.ignore_torn_tail)
    fold = replay(events, args.journal)
    rules, states = fold.rules, fold.states
    print(f"{rules.title}: {args.journal}")
    for n, e in enumerate(fold.actions, start=1):
        print(f"{n:4d}  {e.at[11:19] if len(e.at) >= 19 else e.at:8s}  "
              f"{rules.describe(states[n - 1], e.type, e.data, states[n])}")
    print(f"      {rules.summary(fold.state)}")
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    games = storage.list_saved(args.data_dir)
    if not games:
        print(f"No saved games in {files.games_dir(args.data_dir)}")
    for g in games:
        status = "finished" if g.over else "in progress"
        problem = f"  [{g.problem}]" if g.problem else ""
        print(f"{g.path}\n    {g.title}: {g.summary} ({status}){problem}")
    return 0


def cmd_dice_stats(args: argparse.Namespace) -> int:
    import csv

    from . import dice_stats
    from .app.dice_look import die_group_words, face_words

    root = args.data_dir or files.data_dir()
    if args.reset or args.undo_reset:
        key = args.reset or args.undo_reset
        if "/" not in key:
            raise CompanionError(f"{key}: write the die as KIND/COLOUR, e.g. d12/red "
                                 "(- for a die with no colour)")
        if args.reset:
            dice_stats.reset(root, key)
            print(f"{key}: counted again from now")
        elif not dice_stats.undo_reset(root, key):
            raise CompanionError(f"{key}: no reset to take back")
        else:
            print(f"{key}: the last reset is taken back")
        return 0
    stats = dice_stats.statistics(root)
    if args.json:
        print(json.dumps({"journal": str(root / dice_stats.JOURNAL), "alpha": dice_stats.ALPHA,
                          "dice": [s.to_json() for s in stats]}, indent=1))
    elif args.csv:
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(["kind", "colour", "face", "count", "expected", "throws", "not_clean",
                      "p_value", "biased", "throws_needed", "verdict"])
        for s in stats:
            j = s.to_json()
            for face, count in zip(s.faces, s.counts):
                out.writerow([s.kind, s.colour or "", face, count, j["expected"], s.throws,
                              s.not_clean, "" if j["p_value"] is None else j["p_value"],
                              int(s.biased), "" if s.throws_needed is None else s.throws_needed,
                              j["verdict"]])
    elif not stats:
        print(f"No dice read by the tower yet ({root / dice_stats.JOURNAL})")
    else:
        for s in stats:
            print(f"{die_group_words(s.kind, s.colour)}: {s.throws} throw{'' if s.throws == 1 else 's'}"
                  + (f" ({s.not_clean} not read cleanly, not counted)" if s.not_clean else ""))
            print("    " + "  ".join(f"{face_words(f)} {c}" for f, c in zip(s.faces, s.counts)))
            print("    " + s.verdict(face_words))
            if s.detail():
                print("    " + s.detail())
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from .live.serve import serve

    return serve(args.data_dir or files.data_dir(), args.bind, args.port, args.tower)


def cmd_new(args: argparse.Namespace) -> int:
    entry = registry.get(args.game)
    if entry.cli_setup is None:
        raise CompanionError(f"{entry.tile.title} is set up in the app, not on the command line")
    cfg = registry.load_config(entry.id, args.data_dir or files.data_dir())
    setup, label = registry.resolve(entry.cli_setup)(cfg, args)
    path = files.new_game_path(entry.id, label, args.data_dir)
    Session.create(path, entry.id, setup).close()
    print(path)
    if args.no_app:
        return 0
    return _run_app(args.data_dir, args.tower)


def _run_app(data_dir: Path | None, tower: str | None = None) -> int:
    root = data_dir or files.data_dir()
    for entry in registry.games():  # every config is checked before any window opens
        registry.load_config(entry.id, root)
    from .app.tower_config import load_tower_config

    load_tower_config(data_dir)
    import importlib.util

    if importlib.util.find_spec("kivy") is None:   # installed without the app's extra
        raise CompanionError("the app's window needs Kivy, which this installation does not "
                             "have: pip install 'tabletop-companion[app]' (the other "
                             "commands work without it)")
    from .app.main import run_app  # Kivy is imported only when the app runs

    run_app(data_dir, tower)
    return 0


def cmd_app(args: argparse.Namespace) -> int:
    return _run_app(args.data_dir, args.tower)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description=(
        "Tabletop Companion: tracks HP, tokens and dials beside a real game table."))
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="where games and settings are kept (default: $COMPANION_HOME, "
                             "else the system's user data folder)")
    parser.add_argument("--tower", default=None, metavar="URL",
                        help="dice tower port or URL (a path, socket://HOST:PORT, sim://demo); "
                             "default: config/dice_tower.yaml (find by USB ids, else simulate)")
    parser.set_defaults(func=cmd_app)
    sub = parser.add_subparsers(dest="command")

    new = sub.add_parser("new", help="start a new game")
    per_game = new.add_subparsers(dest="game", metavar="GAME", required=True)
    for entry in registry.games():
        if entry.cli_setup is None:
            continue  # set up in the app only
        p = per_game.add_parser(entry.id, help=f"start a new {entry.tile.title} game")
        if entry.cli_arguments is not None:
            registry.resolve(entry.cli_arguments)(p)
        p.add_argument("--no-app", action="store_true",
                       help="only create the game and print its journal path")
        p.set_defaults(func=cmd_new)

    for name, func, text in (("replay", cmd_replay, "print a saved game's final state"),
                             ("log", cmd_log, "print a saved game's action log")):
        p = sub.add_parser(name, help=text)
        p.add_argument("journal")
        p.add_argument("--ignore-torn-tail", action="store_true",
                       help="read the intact events before a torn last line")
        if name == "replay":
            p.add_argument("--json", action="store_true", help="print the state as JSON")
            p.add_argument("--reveal-hidden", action="store_true",
                           help="include hidden information (face-down token order)")
        p.set_defaults(func=func)

    games = sub.add_parser("games", help="list saved games")
    games.set_defaults(func=cmd_games)

    live = sub.add_parser("serve", help="the live view (last roll, the game's public state) "
                                        "as a web page, without a window")
    live.add_argument("--bind", default="127.0.0.1", metavar="ADDR",
                      help="the address to listen on (default 127.0.0.1: this machine only; "
                           "0.0.0.0: every network it is on)")
    live.add_argument("--port", type=int, default=8765, metavar="N",
                      help="the port (default 8765; 0 picks a free one)")
    live.add_argument("--tower", default=argparse.SUPPRESS, metavar="URL",
                      help="dice tower port or URL, as for the app")
    live.set_defaults(func=cmd_serve)

    stats = sub.add_parser("dice-stats", help="what the dice tower has read, and whether each "
                                              "kind of die looks fair")
    form = stats.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="one JSON object")
    form.add_argument("--csv", action="store_true", help="one CSV row per die and face")
    form.add_argument("--reset", metavar="KIND/COLOUR",
                      help='"I changed dice": count that die again from now (e.g. d12/red)')
    form.add_argument("--undo-reset", metavar="KIND/COLOUR", help="take back its last reset")
    stats.set_defaults(func=cmd_dice_stats)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except CompanionError as exc:
        print(f"companion: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:   # `companion dice-stats --csv | head`: the reader has enough
        output_gone()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
