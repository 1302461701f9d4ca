"""The app's overhead camera: which source, which table, which intrinsics.

``open_live(root, players)`` (on a worker thread) reads ``overhead_camera.yaml`` (the user's
copy or the shipped one), opens the camera it names, or, with ``source: auto`` and no
camera, the demo scene: the match's players as miniatures on a rendered pitch, measured
through the very same pipeline. It returns a ``vision.capture.LiveMeasure`` not yet started
and a line saying what is measuring.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_base.platform import on_android

from .. import files
from ..files import load_config, user_config_path
from ..i18n import _

DEMO_SIZE = (1920, 1080)


class DemoCamera:
    """The demo: the players on a pitch seen by a known camera (slightly tilted, mild lens
    distortion, miniatures 30 mm tall), sensor noise drawn fresh every frame."""

    def __init__(self, players: list[str], seed: int = 7, size: tuple[int, int] = DEMO_SIZE) -> None:
        from vision import render

        rng = np.random.default_rng(seed)
        base = render.default_table()
        scene = render.random_scene(rng, base, image_size=size, max_tilt_deg=10,
                                    n_pieces=(len(players), len(players)), occlusion_prob=0.0,
                                    noise=False, blur=False, lighting=True)
        placed = sorted(scene.table.pieces, key=lambda p: p.id)
        # a crowded pitch may place fewer miniatures than players: the first ones get them
        pieces = tuple(dataclasses.replace(p, name=name) for p, name in zip(placed, players))
        self.table = dataclasses.replace(scene.table, pieces=pieces)
        self.camera = scene.camera
        kept = {p.id for p in pieces}
        self.scene = dataclasses.replace(scene, table=self.table, noise_sigma=1.5,
                                         pieces=tuple(p for p in scene.pieces if p.id in kept))
        self.frame = 0

    def read(self) -> tuple[bool, np.ndarray | None]:
        from vision import render

        self.frame += 1
        return True, render.render(dataclasses.replace(self.scene, seed=self.frame)).image

    def release(self) -> None:
        pass


def _open_camera(source: str, size: tuple[int, int]) -> Any:
    """The camera as a frame source: OpenCV's on a computer; Kivy's camera on Android,
    where OpenCV cannot open the device."""
    if on_android():
        from .kivy_camera import KivyCameraSource

        return KivyCameraSource(int(source) if source.isdigit() else 0, size)
    from vision.capture import CameraSource

    return CameraSource(int(source) if source.isdigit() else source, size)


def open_live(root: Path | None, players: list[str]) -> tuple[Any, str]:
    from vision.capture import LiveMeasure
    from vision.config import OverheadConfig, load_camera
    from vision.measure import VisionError

    cfg = load_config(OverheadConfig, "overhead_camera", root)
    source = None
    if cfg.source != "demo":
        try:
            source = _open_camera("0" if cfg.source == "auto" else cfg.source, cfg.resolution)
        except VisionError:
            if cfg.source != "auto":
                raise
    if source is None:
        demo = DemoCamera(players)
        return (LiveMeasure(demo, demo.table, demo.camera, max_fps=10),
                _("Demo scene (no camera found): a rendered pitch with known positions"))
    try:
        table = with_roster_markers(cfg, root, players)
    except VisionError:
        source.release()
        raise
    if not table.pieces:
        source.release()
        raise VisionError(_("The camera knows no miniature: no miniature has a marker: set each "
                            "player's camera marker in the roster editor"))
    path = intrinsics_path(root, cfg)
    camera = load_camera(path) if path is not None and path.exists() else None
    text = (_("Camera {camera}, calibrated") if camera is not None else
            _("Camera {camera}, no camera file: heights not corrected")).format(camera=cfg.source)
    return LiveMeasure(source, table, camera), text


def with_roster_markers(cfg: Any, root: Path | None, players: list[str]) -> Any:
    """The table of ``overhead_camera.yaml`` with a piece for every player of the match whose
    roster card has a camera marker (a piece the table lists by name or id wins)."""
    from vision.config import PieceConfig, TableConfig
    from vision.measure import VisionError
    from vision.sheets import topper_side_in

    from .. import registry

    table = cfg.table or TableConfig()
    pieces = list(table.pieces)
    names, ids = {p.name for p in pieces}, {p.id for p in pieces}
    roster = registry.load_config("takkure", root or files.data_dir())
    for team in roster.teams:
        for card in team.players:
            if card.name in players and card.marker_id is not None and card.name not in names:
                if card.marker_id in ids or table.anchor(card.marker_id) is not None:
                    raise VisionError(_("{player}'s camera marker {marker} is already used on the "
                                        "table: give them another in the roster editor").format(
                        player=card.name, marker=card.marker_id))
                side = card.marker_side_in or topper_side_in(card.base_mm, table.dictionary)
                pieces.append(PieceConfig(card.marker_id, side, card.base_mm,
                                          card.marker_height_mm, card.name))
                names.add(card.name)
                ids.add(card.marker_id)
    return dataclasses.replace(table, pieces=tuple(pieces))


class DemoBoardCamera:
    """The calibration demo: the ChArUco board shown to the demo camera in varied poses
    (each held for a few frames, as a hand would), drawn by the renderer."""

    def __init__(self, seed: int = 11, poses: int = 24, hold: int = 3) -> None:
        from vision import render

        demo = DemoCamera(["demo"], seed=seed)
        self.camera = demo.camera
        self.poses = render.random_board_poses(np.random.default_rng(seed), self.camera, poses)
        self.hold = hold
        self.frame = 0

    def read(self) -> tuple[bool, np.ndarray | None]:
        from vision import render

        i = self.frame // self.hold
        self.frame += 1
        if i >= len(self.poses):
            return False, None
        rvec, tvec = self.poses[i]
        return True, render.render_board_view(self.camera, rvec, tvec, noise_sigma=1.5,
                                              blur_sigma=0.4, seed=self.frame)

    def release(self) -> None:
        pass


def intrinsics_path(root: Path | None, cfg: Any = None) -> Path | None:
    """Where the app reads and writes the camera file (``intrinsics`` in the config, read
    here unless the caller has it already)."""
    from vision.config import OverheadConfig

    if cfg is None:
        cfg = load_config(OverheadConfig, "overhead_camera", root)
    if not cfg.intrinsics:
        return None
    path = Path(cfg.intrinsics)
    return path if path.is_absolute() else user_config_path("camera", root).parent / path


def open_calibration_source(root: Path | None) -> tuple[Any, str, bool]:
    """(source, description, is_demo) for the guided calibration."""
    from vision.config import OverheadConfig
    from vision.measure import VisionError

    cfg = load_config(OverheadConfig, "overhead_camera", root)
    if cfg.source != "demo":
        try:
            return (_open_camera("0" if cfg.source == "auto" else cfg.source, cfg.resolution),
                    _("Camera {camera}").format(camera=cfg.source), False)
        except VisionError:
            if cfg.source != "auto":
                raise
    return (DemoBoardCamera(), _("Demo: the board shown to a rendered camera (nothing is saved)"),
            True)
