"""``python -m vision dice background|teach|read``: the dice reader on the command line.

    dice background --profile P.yaml IMAGE...           empty-tray images; creates or updates P
    dice teach --profile P.yaml --kind K --face F [--colour C] [--faces A,B,...] IMAGE...
    dice read [--profile P.yaml] IMAGE... [--json]      one JSON object per image; without a
                                                        profile: pip D6 dice on any surface

An IMAGE may be a folder: it stands for the images in it (png, jpg, ...: IMAGE_SUFFIXES),
sorted by name, so ``dice read --json trays/`` prints one line per image in that order.

Every failure exits non-zero and names the file at fault (with ``--json``:
``{"ok": false, "error": "..."}`` on stdout). ``teach`` teaches every picture it can use: one
it cannot (two dice in it, say) is named in the error and left out, the others are saved.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from .. import measure
from .model import DiceError
from .profile import Profile, odd_pictures

# what a folder given for IMAGE stands for: its files of these kinds (not its subfolders)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm",
                  ".pnm")


def expand_images(paths: list[str]) -> list[str]:
    """The images named on the command line, a folder standing for the images in it (its
    files of IMAGE_SUFFIXES, any case, sorted by name, hidden files left out). A folder with
    none stays itself, for :func:`read_image` to name."""
    out: list[str] = []
    for path in paths:
        if not Path(path).is_dir():
            out.append(path)
            continue
        inside = sorted(p.name for p in Path(path).iterdir()
                        if p.suffix.lower() in IMAGE_SUFFIXES and not p.name.startswith(".")
                        and p.is_file())
        out += [str(Path(path) / name) for name in inside] or [path]
    return out


def read_image(path: str) -> np.ndarray:
    """An image file as 8-bit BGR (any depth, grey or with alpha read alike, as the table
    camera's files); DiceError naming the file when it cannot be read."""
    if Path(path).is_dir():  # (expand_images found no image in it)
        raise DiceError(f"{path}: a folder with no images in it (looked for "
                        f"{', '.join(s[1:] for s in IMAGE_SUFFIXES)})")
    try:
        image = measure.read_image(path)
    except measure.VisionError as exc:
        raise DiceError(str(exc)) from None
    return image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)


def _load_or_new(path: str) -> Profile:
    return Profile.load(path) if Path(path).exists() else Profile()


def _out(args, obj: dict, text: str) -> None:
    print(json.dumps(obj) if args.json else text, flush=True)


def cmd_background(args: argparse.Namespace) -> int:
    profile = _load_or_new(args.profile)
    for path in expand_images(args.images):
        profile.add_background(read_image(path), name=path)
    saved = profile.save(args.profile)
    size = profile.image_size
    if size is None:   # add_background sets it: only an empty image list leaves it unset
        raise DiceError(f"{args.profile}: no empty-tray image was given")
    w, h = size
    _out(args, {"ok": True, "profile": str(saved), "background_frames":
                profile.background_frames, "image_size": [w, h]},
         f"{saved}: empty tray from {profile.background_frames} frame(s), {w}x{h}")
    return 0


def cmd_teach(args: argparse.Namespace) -> int:
    if not Path(args.profile).exists():
        raise DiceError(f"{args.profile}: no such profile (start with `dice background`)")
    profile = Profile.load(args.profile)
    faces = [f.strip() for f in args.faces.split(",")] if args.faces else None
    # each picture on its own: one the reader cannot use (two dice in it, a blurred one) is
    # named and left out, and the others are still taught
    refused: list[str] = []
    taught: list[tuple[str, float]] = []  # each picture taught, with its die's size
    images = expand_images(args.images)
    for path in images:
        try:
            profile.add_example(args.kind, args.face, read_image(path), colour=args.colour,
                                name=path, faces=faces)
            taught.append((path, profile.kinds[args.kind].sizes[-1]))
        except DiceError as exc:
            refused.append(str(exc))
    if len(refused) == len(images):  # nothing taught (an unknown kind fails every one)
        raise DiceError("; ".join(refused))
    saved = profile.save(args.profile)
    missing = profile.missing(args.kind)
    m = profile.kinds[args.kind]
    n = len(m.examples.get(args.face, []))
    # how alike its pictures of one face are: unlike, its faces are read clean only when
    # very sure (reader.PICTURES_ALIKE): the player is told, and what helps
    from .reader import PICTURES_ALIKE
    alike = m.pictures_alike()
    odd = odd_pictures(taught, m.sizes)
    result = {"ok": not refused, "profile": str(saved), "kind": args.kind, "face": args.face,
              "examples": n, "missing": missing,
              "pictures_alike": None if alike is None else round(alike, 3),
              "odd_pictures": [path for path, _, _ in odd]}
    if refused:
        result["error"] = "; ".join(refused)
    unlike = alike is not None and alike < PICTURES_ALIKE
    _out(args, result,
         f"{saved}: {args.kind} {args.face}: {n} example(s)"
         + ("; still needed: " + ", ".join(f"{f} x{k}" for f, k in missing.items())
            if missing else "; every face known")
         + (f"\nnote: {args.kind}'s pictures of one face look unlike each other ({alike:.2f} "
            f"alike, {PICTURES_ALIKE} or more is usual), so its faces are read clean only when "
            "very sure: check that each picture shows the face it was taught as; more light, "
            "a plainer tray or more pictures help" if unlike else "")
         + "".join(f"\nnote: {path}: the die was found {size:.0f} pixels across, where "
                   f"{args.kind}'s pictures show it about {usual:.0f}: found with its shadow "
                   "or in pieces, perhaps. It is kept, and compares poorly: teaching this "
                   "face again from a clearer picture (more light, the die away from the "
                   "wall and from anything dark) helps" for path, size, usual in odd))
    if refused and not args.json:
        for message in refused:
            print(f"error: {message} (this picture was not taught)", file=sys.stderr, flush=True)
    return 2 if refused else 0


def cmd_read(args: argparse.Namespace) -> int:
    if args.profile is None:
        # no tower's profile: pip dice on any surface, by the networks learned from real
        # photographs (vision/dice/pips.py)
        from .netrun import ModelError
        from .pips import shipped_reader

        try:
            pips = shipped_reader()
        except ModelError as exc:
            raise DiceError(str(exc)) from None

        def read(frame: np.ndarray, name: str) -> list:
            return pips.read(frame)
    else:
        from .reader import DiceReader, network_problems

        read = DiceReader(Profile.load(args.profile)).read
        for problem in network_problems():  # it reads all the same, less well: said once
            print(f"warning: {problem}", file=sys.stderr, flush=True)
    code = 0
    for path in expand_images(args.images):
        try:
            dice = read(read_image(path), name=path)
        except DiceError as exc:
            code = 2
            if args.json:
                print(json.dumps({"ok": False, "error": str(exc)}), flush=True)
            else:
                print(f"error: {exc}", file=sys.stderr, flush=True)
            continue
        if args.json:
            print(json.dumps({"ok": True, "dice": [d.to_json() for d in dice]}), flush=True)
        else:
            print(f"{path}: {len(dice)} dice")
            for d in dice:
                print(f"  {d.kind or '?':<8} {d.face or '-':<12} {d.colour or '-':<8} "
                      f"{d.status:<10} {d.confidence:.2f}  at ({d.x:.0f}, {d.y:.0f})")
    return code


FOLDER_HELP = "an image file, or a folder: the images in it, sorted by name"


def add_parser(sub) -> None:
    d = sub.add_parser("dice", help="the dice tower's camera: learn the tray and the dice, "
                                    "read throws")
    ds = d.add_subparsers(dest="dice_command", required=True)
    b = ds.add_parser("background", help="empty-tray images; creates or updates PROFILE")
    b.add_argument("--profile", required=True)
    b.add_argument("images", nargs="+", metavar="IMAGE", help=FOLDER_HELP)
    b.add_argument("--json", action="store_true")
    b.set_defaults(dice_func=cmd_background)
    t = ds.add_parser("teach", help="images of the tray with exactly one die, FACE on top")
    t.add_argument("--profile", required=True)
    t.add_argument("--kind", required=True, help="d6pips, d12, kotd, spawn or a new kind")
    t.add_argument("--face", required=True)
    t.add_argument("--colour", help="the die's colour, to tell dice apart by colour")
    t.add_argument("--faces", help="a new kind's faces, comma-separated")
    t.add_argument("images", nargs="+", metavar="IMAGE", help=FOLDER_HELP)
    t.add_argument("--json", action="store_true")
    t.set_defaults(dice_func=cmd_teach)
    r = ds.add_parser("read", help="the dice in each image (one JSON object per image); "
                                   "without --profile, pip D6 dice on any plain surface")
    r.add_argument("--profile", help="the tower's profile: its empty tray and taught dice")
    r.add_argument("images", nargs="+", metavar="IMAGE", help=FOLDER_HELP)
    r.add_argument("--json", action="store_true")
    r.set_defaults(dice_func=cmd_read)


def cmd_dice(args: argparse.Namespace) -> int:
    return args.dice_func(args)
