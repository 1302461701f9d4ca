"""``python -m vision``: measure an image, calibrate a camera, print markers, render test
scenes, run the benchmark. Every failure exits non-zero with a message naming what is at
fault (with ``--json``: ``{"ok": false, "error": "..."}`` on stdout)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

from companion.errors import CompanionError

from .config import load_camera, load_table


def _fail(args: argparse.Namespace, message: str, code: int) -> int:
    if getattr(args, "json", False):
        print(json.dumps({"ok": False, "error": message}))
    else:
        print(f"error: {message}", file=sys.stderr)
    return code


def cmd_measure(args: argparse.Namespace) -> int:
    from .measure import Measurer, read_image

    table = load_table(args.table)
    camera = load_camera(args.camera) if args.camera else None
    image = read_image(args.image)
    m = Measurer(table, camera).measure(image)
    if args.json:
        print(json.dumps(m.to_json()))
        return 0
    print(f"{args.image}: {m.mode}, table fit {m.reprojection_error_in:.4f}\" at "
          f"{len(m.anchors)} anchors")
    for p in m.pieces:
        print(f"  marker {p.id:>3} {p.name:<12} x {p.x_in:7.3f}\"  y {p.y_in:7.3f}\"  "
              f"(±{p.sigma_in:.3f}\")")
    for d in m.distances:
        print(f"  {d.a:>3} - {d.b:<3} centres {d.center_in:7.3f}\"  edges {d.edge_in:7.3f}\"  "
              f"±{d.uncertainty_in:.3f}\"" + ("  (contact)" if d.contact else ""))
    if m.missing_pieces:
        print("  not seen: markers " + ", ".join(map(str, m.missing_pieces)))
    for w in m.warnings:
        print(f"  warning: {w}")
    return 0


def cmd_markers(args: argparse.Namespace) -> int:
    from .sheets import write_sheets

    table = load_table(args.table) if args.table else None
    which = set(args.only.split(",")) if args.only else None
    paths = write_sheets(Path(args.out), table, paper=args.paper, dpi=args.dpi, which=which)
    for path in paths:
        print(path)
    print("Print at 100% (no fit-to-page), then measure each sheet's 1-inch check line.")
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"measure": cmd_measure,
                                                            "markers": cmd_markers}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m vision",
                                description="Overhead camera measurement for Takkure")
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="positions and distances (inches) in one image")
    m.add_argument("image")
    m.add_argument("--table", required=True, help="TABLE.yaml: anchors and pieces")
    m.add_argument("--camera", help="CAMERA.yaml from `calibrate` (height correction)")
    m.add_argument("--json", action="store_true", help="one JSON object on stdout")
    k = sub.add_parser("markers", help="printable sheets (PDF and PNG at exact scale): base "
                                       "toppers, anchors, the ChArUco calibration board")
    k.add_argument("out", help="output directory")
    k.add_argument("--table", help="TABLE.yaml: toppers for its pieces, its anchors")
    k.add_argument("--paper", choices=("letter", "a4"), default="letter")
    k.add_argument("--dpi", type=int, default=300, help="PNG resolution (the PDF is vector)")
    k.add_argument("--only", help="comma-separated: toppers, anchors, charuco")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except CompanionError as exc:
        return _fail(args, str(exc), exc.exit_code)
    except (ValueError, OSError) as exc:
        return _fail(args, str(exc), 2)


if __name__ == "__main__":
    sys.exit(main())
