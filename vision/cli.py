"""``python -m vision``: measure an image, calibrate a camera, print markers, render test
scenes, run the benchmark, read dice (``dice``). Every failure exits non-zero with a message naming what is at
fault (with ``--json``: ``{"ok": false, "error": "..."}`` on stdout)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from tabletop_base.errors import CompanionError
from tabletop_base.pipes import output_gone

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
    layout = (f"layout ±{m.layout_sigma_in:.4f}\"" if m.layout_checked
              else f"layout unchecked, assumed ±{m.layout_sigma_in:.3f}\"")
    print(f"{args.image}: {m.mode}, table fit {m.reprojection_error_in:.4f}\" at "
          f"{len(m.anchors)} anchors, {layout}")
    for p in m.pieces:
        print(f"  marker {p.id:>3} {p.name:<12} x {p.x_in:7.3f}\"  y {p.y_in:7.3f}\"  "
              f"(±{p.sigma_in:.3f}\")")
    for d in m.distances:
        print(f"  {d.a:>3} - {d.b:<3} centres {d.center_in:7.3f}\"  edges {d.edge_in:7.3f}\"  "
              f"±{d.uncertainty_in:.3f}\"" + ("  (contact)" if d.contact else ""))
    if m.missing_pieces:
        print("  not seen: markers " + ", ".join(map(str, m.missing_pieces)))
    for i in m.ignored:
        print(f"  ignored: marker {i.id} ({i.reason}" + (f": {i.detail})" if i.detail else ")"))
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


def _length_in(text: str, what: str) -> float:
    """A length in inches ("1", "0.75") or millimetres ("40mm")."""
    t = text.strip().lower()
    try:
        if t.endswith("mm"):
            return float(t[:-2]) / 25.4
        return float(t.rstrip('"').removesuffix("in"))
    except ValueError:
        raise ValueError(f"--{what} {text!r}: a length in inches (0.75) or millimetres "
                         "(20mm)") from None


def board_spec(args: argparse.Namespace):
    """The board the calibration looks for, from ``--board`` and its sizes."""
    from .config import CHARUCO, CharucoSpec

    if args.board is None and not any((args.squares, args.square, args.marker, args.dictionary)):
        return CHARUCO
    kind: Literal["charuco", "chessboard"] = \
        "chessboard" if args.board == "chessboard" else "charuco"
    sx, sy = CHARUCO.squares_x, CHARUCO.squares_y
    if args.squares:
        try:
            sx, sy = (int(v) for v in args.squares.lower().split("x"))
        except ValueError:
            raise ValueError(f"--squares {args.squares!r}: squares across x down, as 9x6") from None
    square = _length_in(args.square, "square") if args.square else CHARUCO.square_in
    marker = (_length_in(args.marker, "marker") if args.marker
              else square * CHARUCO.marker_in / CHARUCO.square_in)
    spec = CharucoSpec(sx, sy, square, marker, args.dictionary or CHARUCO.dictionary, kind)
    bad = spec.validate()
    if bad:
        raise ValueError(f"--{bad[0]}: {bad[1]}")
    return spec


def cmd_calibrate(args: argparse.Namespace) -> int:
    from .calibrate import calibrate_images, calibrate_live
    from .config import save_camera

    spec = board_spec(args)

    def progress(done: int, total: int) -> None:
        print(f"  {done}/{total}", file=sys.stderr, flush=True)

    if args.live is not None:
        device = int(args.live) if args.live.isdigit() else args.live
        cam, report = calibrate_live(device if isinstance(device, int) else _capture(device),
                                     n_views=args.views, spec=spec, progress=progress)
    elif args.images:
        cam, report = calibrate_images(args.images, spec, progress=progress)
    else:
        raise ValueError("give the board's images, or --live DEVICE")
    path = save_camera(args.out, cam)
    report = {"ok": True, "camera": str(path), **report}
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{path}: {report['views']} views, reprojection error {report['rms_px']} px, "
              f"coverage {report['coverage']:.0%}, k3 {report['k3_reason']}")
        for w in report["warnings"]:
            print(f"  warning: {w}")
    return 0


def _capture(url: str):  # a device path or stream URL
    import cv2

    return cv2.VideoCapture(url)


def cmd_render(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from tabletop_base.typed_yaml import dump_yaml

    from .config import camera_data
    from .render import default_table, random_scene, render

    table = load_table(args.table) if args.table else default_table()
    scene = random_scene(np.random.default_rng(args.seed), table,
                         max_tilt_deg=args.tilt, occlusion_prob=args.occlusion)
    frame = render(scene)
    out = Path(args.out)
    if not cv2.imwrite(str(out), frame.image):
        raise OSError(f"{out}: cannot write the image (is the extension .png or .jpg?)")
    stem = out.with_suffix("")
    t = scene.table
    table_data = {"dictionary": t.dictionary,
                  "anchors": [{"id": a.id, "x_in": a.x_in, "y_in": a.y_in, "side_in": a.side_in}
                              for a in t.anchors],
                  "pieces": [{"id": p.id, "side_in": p.side_in, "base_mm": p.base_mm,
                              "height_mm": round(p.height_mm, 3)} for p in t.pieces]}
    Path(f"{stem}.table.yaml").write_text(dump_yaml(table_data), encoding="utf-8")
    Path(f"{stem}.camera.yaml").write_text(dump_yaml(camera_data(scene.camera)), encoding="utf-8")
    truth = {"pieces": [{"id": p.id, "x_in": p.x_in, "y_in": p.y_in, "visible": p.visible}
                        for p in frame.truth], "anchors_visible": list(frame.anchors_visible)}
    Path(f"{stem}.truth.json").write_text(json.dumps(truth, indent=1), encoding="utf-8")
    for f in (out, f"{stem}.table.yaml", f"{stem}.camera.yaml", f"{stem}.truth.json"):
        print(f)
    return 0


def cmd_dice(args: argparse.Namespace) -> int:
    from .dice.cli import cmd_dice as run

    return run(args)


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import run

    figures = run(args.scenes, args.seed)
    print(json.dumps(figures))
    return 0 if figures["meets_targets"] else 1


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "measure": cmd_measure, "markers": cmd_markers, "calibrate": cmd_calibrate,
    "render": cmd_render, "bench": cmd_bench, "dice": cmd_dice}


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
    c = sub.add_parser("calibrate", help="camera intrinsics from views of a ChArUco board "
                                         "(the project's, unless --board says otherwise) "
                                         "or a chessboard")
    c.add_argument("images", nargs="*", help="photos of the board (8 or more, varied)")
    c.add_argument("--board", choices=("charuco", "chessboard"),
                   help="the board's kind (default: the project's ChArUco board)")
    c.add_argument("--squares", metavar="WxH", help="squares across x down (default 9x6)")
    c.add_argument("--square", metavar="SIZE", help="a square's side: inches, or 40mm")
    c.add_argument("--marker", metavar="SIZE", help="a ChArUco marker's side: inches, or 20mm")
    c.add_argument("--dictionary", help="a ChArUco board's ArUco dictionary (DICT_5X5_100)")
    c.add_argument("--live", metavar="DEVICE", help="take the views from a camera (0, /dev/video2)")
    c.add_argument("--views", type=int, default=20, help="views to take live (default 20)")
    c.add_argument("--out", required=True, help="CAMERA.yaml to write")
    c.add_argument("--json", action="store_true")
    r = sub.add_parser("render", help="a synthetic scene with its table, camera and truth")
    r.add_argument("out", help="image file (.png)")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--table", help="TABLE.yaml whose anchors to use (default: a 22x30\" pitch)")
    r.add_argument("--tilt", type=float, default=25.0, help="maximum camera tilt, degrees")
    r.add_argument("--occlusion", type=float, default=0.0, help="chance of a finger per piece")
    from .dice.cli import add_parser as add_dice

    add_dice(sub)
    b = sub.add_parser("bench", help="the measurement benchmark (figures as JSON)")
    b.add_argument("--scenes", type=int, default=200)
    b.add_argument("--seed", type=int, default=2026)
    return p


def quiet_opencv() -> None:
    """OpenCV's own warnings off (a damaged PNG: "[ WARN:0@0.2] global grfmt_png.cpp:793
    readFromStreamOrBuffer PNG input buffer is incomplete"): each command says what is wrong
    with a file in its own words, on its own line; OpenCV's errors still show."""
    import cv2

    try:
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    except AttributeError:  # pragma: no cover - an OpenCV without the logging module
        pass


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    quiet_opencv()
    try:
        return COMMANDS[args.command](args)
    except BrokenPipeError:   # whatever read the output had enough (`... | head -1`)
        output_gone()
        return 0
    except CompanionError as exc:
        return _fail(args, str(exc), exc.exit_code)
    except (ValueError, OSError) as exc:
        return _fail(args, str(exc), 2)


if __name__ == "__main__":
    sys.exit(main())
