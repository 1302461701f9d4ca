"""The app's overhead camera set-up (no window): which pieces the camera looks for, from the
players' roster cards and ``overhead_camera.yaml``, and the errors that name what to fix."""

from __future__ import annotations

import copy

import pytest

from companion import registry
from companion.app import overhead
from companion.config import dump_yaml, loads_typed
from companion.games.takkure import TakkureConfig
from tests.takkure_support import DEMO_ROSTER
from vision.measure import VisionError

PLAYERS = ["Yokozuna", "Kaze", "Hana", "Tetsu", "Kitsune", "Oso", "Lince", "Lobo"]
ANCHORS = [{"id": i, "x_in": x, "y_in": y, "side_in": 1.5}
           for i, (x, y) in enumerate([(1.2, 1.2), (20.8, 1.2), (1.2, 28.8), (20.8, 28.8)])]


class FakeCamera:
    released = False

    def read(self):
        return False, None

    def release(self):
        self.released = True


def setup_home(tmp_path, markers, pieces=()):
    roster = copy.deepcopy(DEMO_ROSTER)
    for team in roster["teams"]:
        for card in team["players"]:
            if card["name"] in markers:
                card["marker_id"], card["marker_height_mm"] = markers[card["name"]]
    (tmp_path / "config").mkdir(parents=True, exist_ok=True)
    (tmp_path / "config" / "takkure.yaml").write_text(dump_yaml(roster))
    (tmp_path / "config" / "overhead_camera.yaml").write_text(dump_yaml({
        "source": "0", "intrinsics": "",
        "table": {"anchors": ANCHORS, "pieces": list(pieces)}}))


@pytest.fixture
def camera(monkeypatch):
    cam = FakeCamera()
    monkeypatch.setattr(overhead, "_open_camera", lambda source, size: cam)
    return cam


def test_the_players_roster_markers_become_the_cameras_pieces(tmp_path, camera):
    setup_home(tmp_path, {"Kaze": (12, 30), "Oso": (13, 35), "Lobo": (14, 0)},
               pieces=[{"id": 20, "side_in": 0.8, "base_mm": 40, "name": "Oso"}])
    live, text = overhead.open_live(tmp_path, PLAYERS)
    pieces = {p.name: p for p in live.measurer.table.pieces}
    assert set(pieces) == {"Kaze", "Oso", "Lobo"}
    assert (pieces["Kaze"].id, pieces["Kaze"].height_mm, pieces["Kaze"].base_mm) == (12, 30, 30)
    assert pieces["Kaze"].side_in == 0.625                    # the printed 30 mm topper
    assert pieces["Oso"].id == 20                             # the table's own entry wins
    assert text == "Camera 0, no camera file: heights not corrected"
    assert live.measurer.camera is None and not camera.released


def test_a_marker_used_by_an_anchor_or_nobody_with_a_marker_is_named(tmp_path, camera):
    setup_home(tmp_path, {"Kaze": (3, 30)})
    with pytest.raises(VisionError, match="Kaze's camera marker 3 is already used on the table"):
        overhead.open_live(tmp_path, PLAYERS)
    assert camera.released
    setup_home(tmp_path, {})
    with pytest.raises(VisionError, match="no miniature has a marker: set each player's camera "
                                          "marker in the roster editor"):
        overhead.open_live(tmp_path, PLAYERS)


def test_marker_fields_round_trip_through_the_roster_file(tmp_path):
    roster = copy.deepcopy(DEMO_ROSTER)
    roster["teams"][0]["players"][1].update(marker_id=12, marker_height_mm=30)
    cfg = loads_typed(TakkureConfig, dump_yaml(roster), "r.yaml")
    path = registry.save_config("takkure", cfg, tmp_path)
    again = loads_typed(TakkureConfig, path.read_text(), str(path))
    kaze = again.team("Yamato").player("Kaze")
    assert (kaze.marker_id, kaze.marker_height_mm) == (12, 30) and again == cfg
    roster["teams"][0]["players"][1]["marker_id"] = 0
    with pytest.raises(Exception, match=r"players\[1\]\.marker_id: 0 is not a marker id"):
        loads_typed(TakkureConfig, dump_yaml(roster), "r.yaml")
