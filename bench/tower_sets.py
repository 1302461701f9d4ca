"""The tray reader with a profile on the named sets of rendered towers it is tuned and measured
on, read in this process: the tool to decide a change of the reader with, where
bench/independent_dice_bench.py is the end-to-end benchmark through the command line.

    python bench/tower_sets.py [--sets tuning,fresh,e] [--work /tmp/tower-sets] [--dump FILE]
        [--set NAME=VALUE ...] [--reteach] [--trays N]

The sets (docs/vision.md, "Clean that is right" and later sections):
- ``tuning``: 16 towers of the first four independent renderers (a8100, a8200, a8620, a8621,
  b100-b103, c10-c13, d9000-d9003). Choices are made on these.
- ``tuning2``: 20 towers more, four of each of the five renderers (a8950-a8953, b150-b153,
  c20-c23, d9160-d9163, e340-e343), rendered on 2026-12-06 to choose on beside ``tuning``
  (the fifth renderer's included: since then it is a renderer choices were made on, as the
  others; e318-e321 and the held-out towers below stay what they were).
- ``fresh``: five towers, one of each renderer (a8975, b234, c90, d9147, e317). Read once for
  each choice, never tuned on.
- ``e``: e318-e321, the fifth renderer, that no network learned from. Looked at since
  2026-12-03 (a fault was found there): say so where it is used to decide.
- ``unseen``: six towers rendered on 2026-12-04 after the choices of that day, nobody looked at
  (a8976, b235, c91, d9148, e322, e323). Read only to report a change once it is chosen.
- ``unseen2``: ten towers, two of each renderer, rendered on 2026-12-06 (eleventh session) after
  the hue rule was chosen, and read only to report it (a8977, a8978, b236, b237, c92, c93,
  d9149, d9150, e324, e325): read them so, not to choose.
- ``unseen3``: twenty towers, four of each renderer, rendered on 2026-12-06 (thirteenth
  session) after that session's change, and read once to report the head on more dice nobody
  looked at (a8979-a8982, b238-b241, c94-c97, d9151-d9154, e326-e329): not to choose.
- ``unseen4``: twenty towers more, four of each renderer, rendered on 2026-12-07 (fourteenth
  session) after that session's choice, read once to report it (a8983-a8986, b242-b245,
  c98-c101, d9155-d9158, e330-e333): not to choose.

Towers missing from ``--work`` are rendered there (bench/tray_*renderer*.py, 40 trays each,
10 to 30 s a tower); each tower's profile is taught there once, as `dice background` and `dice
teach` do (``--reteach`` teaches it again: after a change of what teaching keeps). Each tower's
trays are then read with a fresh ``DiceReader`` and scored as bench/independent_dice_bench.py
scores them (its ``score``): flat dice read clean with the right face, wrong faces, tilted
dice flagged, colour right.

``--set NAME=VALUE`` sets a number of vision/dice/reader.py (a threshold) for this run, to
try it without editing the code; the names set are in the output. ``--dump FILE`` writes one
JSON line per true die: its tower, tray, truth and the reading paired with it (None: missed).

    python bench/tower_sets.py --compare BEFORE.jsonl AFTER.jsonl

reads nothing: it lists each die whose verdict differs between two dumps of the same sets (a
change read die by die against the code before it: its status, kind, face, colour or first
face offered), then how many moved from what to what (right, wrong, not clean, missed; flat or
tilted) as one JSON object on the last line.

Prints each tower's figures, then the sets' totals as one JSON object on the last line.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from tabletop_base.threads import one_blas_thread  # noqa: E402

one_blas_thread()

from independent_dice_bench import (  # noqa: E402
    RENDERERS,
    nearest_pairs,
    score,
    teach_tower,
    weighted,
)

SETS: dict[str, list[tuple[str, int]]] = {
    "tuning": [("a", s) for s in (8100, 8200, 8620, 8621)] + [("b", s) for s in range(100, 104)]
    + [("c", s) for s in range(10, 14)] + [("d", s) for s in range(9000, 9004)],
    "tuning2": [("a", s) for s in range(8950, 8954)] + [("b", s) for s in range(150, 154)]
    + [("c", s) for s in range(20, 24)] + [("d", s) for s in range(9160, 9164)]
    + [("e", s) for s in range(340, 344)],
    "fresh": [("a", 8975), ("b", 234), ("c", 90), ("d", 9147), ("e", 317)],
    "e": [("e", s) for s in range(318, 322)],
    "unseen": [("a", 8976), ("b", 235), ("c", 91), ("d", 9148), ("e", 322), ("e", 323)],
    "unseen2": [("a", 8977), ("a", 8978), ("b", 236), ("b", 237), ("c", 92), ("c", 93),
                ("d", 9149), ("d", 9150), ("e", 324), ("e", 325)],
    "unseen3": [("a", s) for s in range(8979, 8983)] + [("b", s) for s in range(238, 242)]
    + [("c", s) for s in range(94, 98)] + [("d", s) for s in range(9151, 9155)]
    + [("e", s) for s in range(326, 330)],
    "unseen4": [("a", s) for s in range(8983, 8987)] + [("b", s) for s in range(242, 246)]
    + [("c", s) for s in range(98, 102)] + [("d", s) for s in range(9155, 9159)]
    + [("e", s) for s in range(330, 334)],
}
TRAYS = 40
KEYS = ("flat_clean_right", "wrong_clean", "tilted_flagged", "colour")


def parse_sets(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in SETS]
    if unknown or not names:
        raise SystemExit(f"--sets: {', '.join(unknown) or '(none)'}: not a set (one of "
                         f"{', '.join(SETS)})")
    return names


def set_constants(pairs: list[str]) -> dict[str, float]:
    """``NAME=VALUE`` pairs set on vision.dice.reader (numbers it already has only)."""
    from vision.dice import reader

    done = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        current = getattr(reader, name, None)
        if not sep or isinstance(current, bool) or not isinstance(current, (int, float)):
            raise SystemExit(f"--set {pair}: vision/dice/reader.py has no number {name!r}")
        try:
            done[name] = float(value)
        except ValueError:
            raise SystemExit(f"--set {pair}: {value!r} is not a number") from None
        setattr(reader, name, done[name])
    return done


def rendered(renderer: str, seed: int, work: Path, trays: int) -> Path:
    out = work / f"tower-{renderer}{seed}"
    if not (out / "truth.json").exists():
        subprocess.run([sys.executable, str(HERE / RENDERERS[renderer]), str(out), "--seed",
                        str(seed), "--trays", str(trays)], check=True, capture_output=True)
    return out


def dice(*args: str) -> list[dict]:
    """`python -m vision dice ARGS --json`, run in this process: its JSON lines."""
    from vision.cli import main as vision

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        vision(["dice", *args, "--json"])
    return [json.loads(line) for line in out.getvalue().splitlines() if line.startswith("{")]


def taught(tower: Path, path: Path, again: bool) -> Path:
    """The tower's profile, taught as its owner would (bench/independent_dice_bench.py's
    ``teach_tower``, its commands run in this process)."""
    if path.exists() and not again:
        return path
    path.unlink(missing_ok=True)
    teach_tower(tower, str(path), dice)
    return path


def read_tower(tower: Path, profile: Path, dump) -> dict:
    """The tower's trays read with ``profile`` (`dice read --profile`), scored."""
    truth = json.loads((tower / "truth.json").read_text())["trays"]
    names = sorted(truth)
    results = dict(zip(names, dice("read", "--profile", str(profile),
                                   *(str(tower / "trays" / n) for n in names))))
    if dump is not None:
        for name in names:
            readings = results[name].get("dice", [])
            pairs = nearest_pairs(truth[name], readings)
            for k, die in enumerate(truth[name]):
                dump.write(json.dumps({"tower": tower.name, "tray": name, "truth": die,
                                       "read": readings[pairs[k]] if k in pairs else None})
                           + "\n")
    return score(truth, results)


def load_dump(path: Path) -> list[dict]:
    """A ``--dump`` file's lines; a file that is not one is named, with its line."""
    rows = []
    try:
        text = path.read_text()
    except OSError as exc:
        raise SystemExit(f"{path}: cannot read it ({exc.strerror or exc})") from None
    for n, line in enumerate(text.splitlines(), 1):
        try:
            row = json.loads(line)
            if not {"tower", "tray", "truth", "read"} <= set(row):
                raise ValueError("no tower, tray, truth and read")
        except (ValueError, TypeError) as exc:
            raise SystemExit(f"{path}: line {n}: not a line of --dump ({exc})") from None
        rows.append(row)
    return rows


def verdict(row: dict) -> str:
    """A dumped die's verdict: 'right' or 'wrong' (read clean), 'not clean', 'missed'."""
    read, truth = row["read"], row["truth"]
    if read is None:
        return "missed"
    if read.get("status") != "clean":
        return "not clean"
    return "right" if (read.get("kind"), read.get("face")) == (truth["kind"], truth["face"]) \
        else "wrong"


def _shown(read: dict | None) -> tuple:
    """What a player sees of a reading: status, kind, face, colour, first face offered."""
    if read is None:
        return (None,)
    return (read.get("status"), read.get("kind"), read.get("face"), read.get("colour"),
            (read.get("likely") or [None])[0])


def compare(before: list[dict], after: list[dict]) -> tuple[list[str], dict[str, int]]:
    """(a line for each die whose reading a player sees differs, the count of each move
    'flat right -> not clean' ..., with 'colour changed' and 'kind changed'). The two dumps
    must hold the same dice in the same order (the same sets, towers and trays)."""
    if len(before) != len(after):
        raise ValueError(f"{len(before)} dice against {len(after)}: not the same sets")
    lines, tally = [], {}
    for n, (a, b) in enumerate(zip(before, after), 1):
        if (a["tower"], a["tray"], a["truth"]) != (b["tower"], b["tray"], b["truth"]):
            raise ValueError(f"line {n}: {a['tower']} {a['tray']} against {b['tower']} "
                             f"{b['tray']}: not the same dice")
        if _shown(a["read"]) == _shown(b["read"]):
            continue
        truth = a["truth"]
        lie = "tilted" if truth.get("tilted") else "flat"
        moves = [f"{lie} {verdict(a)} -> {verdict(b)}"]
        if a["read"] and b["read"]:
            moves += [f"{what} changed" for what in ("kind", "colour")
                      if a["read"].get(what) != b["read"].get(what)]
        for move in moves:
            tally[move] = tally.get(move, 0) + 1
        lines.append(f"{a['tower']} {a['tray']} {lie} {truth['kind']} {truth['face']} "
                     f"{truth.get('colour')}: {_shown(a['read'])} -> {_shown(b['read'])}")
    return lines, dict(sorted(tally.items()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="tuning", help=f"of {', '.join(SETS)}, comma-separated")
    ap.add_argument("--work", type=Path, default=Path("/tmp/tower-sets"))
    ap.add_argument("--dump", type=Path, default=None)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--reteach", action="store_true")
    ap.add_argument("--trays", type=int, default=TRAYS,
                    help="trays a tower is rendered with (a tower already rendered keeps its own)")
    ap.add_argument("--towers", type=int, default=0, help="the first N towers of each set only")
    ap.add_argument("--compare", nargs=2, type=Path, default=None, metavar=("BEFORE", "AFTER"),
                    help="two --dump files of the same sets: the dice whose reading differs")
    args = ap.parse_args(argv)
    if args.compare is not None:
        before, after = (load_dump(path) for path in args.compare)
        try:
            lines, tally = compare(before, after)
        except ValueError as exc:
            raise SystemExit(f"{args.compare[0]}, {args.compare[1]}: {exc}") from None
        for line in lines:
            print(line)
        print(json.dumps({"benchmark": "tower_sets_compare", "dice": len(before),
                          "changed": len(lines), **tally}))
        return 0
    names = parse_sets(args.sets)
    constants = set_constants(args.set)
    (args.work / "profiles").mkdir(parents=True, exist_ok=True)
    dump = args.dump.open("w") if args.dump else None
    figures: dict = {"benchmark": "tower_sets", "set": constants}
    try:
        for set_name in names:
            rows = []
            for renderer, seed in SETS[set_name][:args.towers or None]:
                tower = rendered(renderer, seed, args.work, args.trays)
                profile = taught(tower, args.work / "profiles" / f"{tower.name}.yaml",
                                 args.reteach)
                row = {"tower": tower.name, **read_tower(tower, profile, dump)}
                print(f"{set_name} {json.dumps(row)}", flush=True)
                rows.append(row)
            figures[set_name] = {
                "towers": len(rows), "dice": sum(r["dice"] for r in rows),
                "flat_dice": sum(r["flat_dice"] for r in rows),
                "tilted_dice": sum(r["tilted_dice"] for r in rows),
                "wrong_faces": sum(round(r["wrong_clean"] * r["dice"]) for r in rows),
                "missed": sum(r["missed"] for r in rows),
                **{k: weighted(rows, k) for k in KEYS}}
    finally:
        if dump is not None:
            dump.close()
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
