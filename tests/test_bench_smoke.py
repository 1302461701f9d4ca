"""Short versions of the `make bench` benchmarks: they run, and print their JSON figures.

The figures themselves are measured by `make bench`, not asserted here (no timed tests).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def last_json(args: list[str], target_may_be_missed: bool = False) -> dict:
    """The benchmark's last line. ``target_may_be_missed``: a benchmark that exits 1 when its
    speed target is missed (a loaded or slower machine) still ran: its exit follows its
    ``meets_targets``, and anything else is a failure."""
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode in ((0, 1) if target_may_be_missed else (0,)), proc.stderr[-2000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    if target_may_be_missed:
        assert proc.returncode == (0 if figures["meets_targets"] else 1)
    return figures


def test_replay_bench_small():
    figures = last_json([str(BENCH / "replay_bench.py"), "--events", "3000", "--repeat", "1"])
    assert figures["benchmark"] == "replay" and figures["events"] == 3000
    assert 0 < figures["actions_in_force"] < 3000
    assert figures["replay_s_median"] > 0 and "meets_target" in figures


def test_log_panel_bench_small():
    figures = last_json([str(BENCH / "log_panel_bench.py"), "--small", "100", "--large", "400",
                         "--repeat", "3"])
    assert figures["benchmark"] == "log_panel"
    assert figures["small_actions"] < figures["large_actions"]
    assert figures["refresh_ms_large"] > 0 and "meets_target" in figures


@pytest.mark.gui
def test_startup_scale_bench_small():
    assert os.environ.get("DISPLAY"), "needs an X display: run under Xvfb, as make test does"
    figures = last_json([str(BENCH / "startup_scale_bench.py"), "--runs", "1", "--games", "5",
                         "--large-mb", "33"])
    assert figures["benchmark"] == "startup_scale" and figures["saved_games"] == 5
    assert figures["empty_first_frame_s_median"] > 0 and figures["many_peak_rss_mb"] > 0
    assert "meets_target" in figures


@pytest.mark.gui
def test_cold_start_bench_small():
    assert os.environ.get("DISPLAY"), "needs an X display: run under Xvfb, as make test does"
    figures = last_json([str(BENCH / "cold_start_bench.py"), "--runs", "1"])
    assert figures["benchmark"] == "cold_start"
    # each launch draws its first frame before it lands; the median of the first frames is
    # taken over fresh and resumed launches together, so it is bounded by the later landing
    assert 0 < figures["first_frame_s_median"] <= max(figures["home_ready_s_median"],
                                                      figures["resumed_game_on_screen_s_median"])
    assert figures["home_ready_s_median"] > 0


def test_dice_soak_small():
    """200 rolls with the full fault mix of issue 19 (5% flips, drops, duplicates, truncations
    and lost ACKs; 5 resets losing the first two resends; 3 unplugs; 2 host kills, the first
    between a roll's record and the game): nothing lost, doubled or kept from the game."""
    figures = last_json([str(BENCH / "soak_bench.py"), "--rolls", "200", "--clean-rolls", "50",
                         "--seed", "3"])
    assert figures["benchmark"] == "dice_soak"
    assert figures["rolls_sent"] == figures["rolls_recorded"] + figures["declared_dropped"]
    assert figures["rolls_sent"] > 200 and figures["clean_rolls"] == 50
    assert figures["lost"] == 0 and figures["duplicated"] == 0 and figures["clean_lost"] == 0
    assert figures["undelivered_to_game"] == 0 and figures["doubled_in_game"] == 0
    assert figures["replugs"] == 3 and figures["resets"] == 5 and figures["host_kills"] == 2
    assert figures["delivered_late"] >= 1  # the roll the first killed host never handed over
    assert all(figures["wire"][k] > 0 for k in ("dropped", "duplicated", "corrupted", "truncated"))


def test_dice_bench_small():
    """A short dice reader benchmark: the figures are there and add up (targets: make bench)."""
    proc = subprocess.run([sys.executable, str(BENCH / "dice_bench.py"), "12", "--per-tower",
                           "12", "--seed", "5"], capture_output=True, text=True, timeout=300)
    # exit 1 only says that a target is missed (12 trays are too few to say): not an error
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert proc.returncode == (0 if figures["meets_targets"] else 1)
    assert figures["benchmark"] == "dice_reader" and figures["trays"] == 12
    assert figures["dice"] == figures["flat_dice"] + figures["tilted_dice"] >= 12
    for key in ("flat_face_accuracy", "colour_accuracy"):
        assert 0.5 < figures[key] <= 1
    assert 0 <= figures["wrong_clean_rate"] < 0.05
    assert figures["read_ms_p95"] > 0 and "meets_targets" in figures
    # the held-out real photographs, read without a profile, next to the rendered figures
    real = figures["real_held_out"]
    if "error" in real:
        assert not figures["meets_targets"]
    else:
        assert real["photos"] >= 30 and real["dice"] >= 200
        assert 0 <= real["clean_right_rate"] + real["wrong_clean_rate"] + real["flagged_rate"] \
            + real["missed_rate"] <= 1.0001
        assert figures["meets_targets"] == (figures["meets_targets_rendered"] and real["meets_targets"])
        # the same dice from far (a figure for the record): all of them counted
        assert real["far_twice"]["dice"] == real["far_three_times"]["dice"] == real["dice"]


def test_tower_sets_renders_teaches_reads_and_dumps_one_line_per_die(tmp_path):
    """bench/tower_sets.py on one tower of the fifth renderer with one tray: rendered, taught
    as `dice background|teach` do, read, scored; a reader threshold set for the run is named
    in the output; the dump holds each true die once, paired with its reading or None."""
    dump = tmp_path / "dice.jsonl"
    figures = last_json([str(BENCH / "tower_sets.py"), "--sets", "e", "--towers", "1",
                         "--trays", "1", "--work", str(tmp_path), "--dump", str(dump),
                         "--set", "VECTOR_LIKENESS=0.86"])
    assert figures["set"] == {"VECTOR_LIKENESS": 0.86}
    e = figures["e"]
    assert e["towers"] == 1 and e["dice"] == e["flat_dice"] + e["tilted_dice"] > 0
    assert 0 <= e["flat_clean_right"] <= 1 and e["wrong_faces"] >= 0
    lines = [json.loads(line) for line in dump.read_text().splitlines()]
    assert len(lines) == e["dice"] and {d["tower"] for d in lines} == {"tower-e318"}
    assert sum(d["read"] is None for d in lines) == e["missed"]
    assert (tmp_path / "profiles" / "tower-e318.yaml").exists()  # taught once, kept
    # a name the reader has no number for is refused, named, before anything is rendered
    proc = subprocess.run([sys.executable, str(BENCH / "tower_sets.py"), "--set", "VECTOR_LIKNESS=1",
                           "--work", str(tmp_path / "none")], capture_output=True, text=True)
    assert proc.returncode != 0 and "no number 'VECTOR_LIKNESS'" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "none").exists()


def test_tower_sets_compares_two_dumps_die_by_die(tmp_path):
    """bench/tower_sets.py --compare: the dice whose reading a player sees differs between two
    dumps of the same towers, and how many moved from what to what; dumps of other dice, or
    a file that is no dump, are refused, named, without a traceback."""
    def die(face, status="clean", read_face=None, colour="red", tilted=False, likely=None):
        truth = {"kind": "d12", "colour": "red", "face": face, "x": 1.0, "y": 2.0,
                 "tilted": tilted}
        read = None if status is None else {
            "kind": "d12", "face": read_face, "colour": colour, "status": status,
            "confidence": 0.9, "x": 1.0, "y": 2.0, "likely": likely or [read_face or face]}
        return {"tower": "tower-c11", "tray": "tray-0001.png", "truth": truth, "read": read}

    before = [die("4", read_face="4"), die("5", read_face="8"), die("6", read_face="6"),
              die("7", read_face="7", tilted=True), die("9", status=None)]
    after = [die("4", "unreadable", likely=["4"]), die("5", "unreadable", likely=["8"]),
             die("6", read_face="6", colour="black"), die("7", read_face="7", tilted=True),
             die("9", "unreadable", likely=["9"])]
    paths = []
    for name, rows in (("before", before), ("after", after)):
        paths.append(tmp_path / f"{name}.jsonl")
        paths[-1].write_text("".join(json.dumps(r) + "\n" for r in rows))
    proc = subprocess.run([sys.executable, str(BENCH / "tower_sets.py"), "--compare",
                           *map(str, paths)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    *lines, last = proc.stdout.strip().splitlines()
    assert json.loads(last) == {"benchmark": "tower_sets_compare", "dice": 5, "changed": 4,
                                "flat right -> not clean": 1, "flat wrong -> not clean": 1,
                                "flat right -> right": 1, "colour changed": 1,
                                "flat missed -> not clean": 1}
    assert len(lines) == 4 and all(line.startswith("tower-c11 tray-0001.png flat d12") for line in lines)
    # dumps of other dice, and a file that is no dump, are named
    paths[1].write_text("".join(json.dumps(r) + "\n" for r in after[:4]))
    proc = subprocess.run([sys.executable, str(BENCH / "tower_sets.py"), "--compare",
                           *map(str, paths)], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "5 dice against 4: not the same sets" in proc.stderr
    paths[1].write_text(json.dumps(after[0]) + "\n{not json\n")
    proc = subprocess.run([sys.executable, str(BENCH / "tower_sets.py"), "--compare",
                           *map(str, paths)], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and f"{paths[1]}: line 2: not a line of --dump" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_camera_tower_bench_small():
    figures = last_json([str(BENCH / "camera_tower_bench.py"), "2"], target_may_be_missed=True)
    assert figures["benchmark"] == "camera_tower" and figures["throws"] == 2
    assert figures["rolls_on_wire"] == figures["rolls_right"] == 2
    assert figures["held_still_to_wire_ms_p95"] > 0 and "meets_targets" in figures


def test_webcam_dice_bench_small():
    # it exits 1 while issue 26's webcam target is missed: the figures still come, last
    proc = subprocess.run([sys.executable, str(BENCH / "webcam_dice_bench.py"), "--setups", "1",
                           "--images", "3", "--seed", "9100"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["benchmark"] == "dice_webcam_renders"
    (one,) = figures["per_setup"].values()
    assert one["dice"] == one["flat_dice"] + one["tilted_dice"] > 0
    assert 0 <= figures["flat_clean_right"] <= 1 and 0 <= figures["wrong_clean"] <= 1
    assert figures["clean_where_no_die"] == one["clean_where_no_die"] >= 0
    assert proc.returncode == (0 if figures["meets_targets"] else 1)


@pytest.mark.parametrize("renderer", ["c", "d"])
def test_webcam_dice_bench_reads_the_other_renderers_setups(renderer):
    """`--renderer c` and `d`: bench/webcam_renderer_c.py's and webcam_renderer_d.py's setups
    (each written by a hand that read neither the reader nor the other renderers), read
    through the command line the same way."""
    proc = subprocess.run([sys.executable, str(BENCH / "webcam_dice_bench.py"), "--renderer",
                           renderer, "--setups", "1", "--images", "2", "--seed", "9100"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["benchmark"] == f"dice_webcam_renders_{renderer}"
    assert figures["renderer"] == renderer
    (one,) = figures["per_setup"].values()
    assert one["dice"] == one["flat_dice"] + one["tilted_dice"] > 0


def test_the_webcam_renderer_refuses_an_elevation_it_cannot_render(tmp_path):
    """`--elevation LO,HI` (degrees above the desk; the pip networks learn from lower webcams
    with it): a range outside 5 to 85, reversed or not two numbers is refused, naming the
    flag, before anything is rendered."""
    for bad in ("3,20", "30,20", "20", "low,high"):
        proc = subprocess.run([sys.executable, str(BENCH / "webcam_renderer.py"), str(tmp_path / "out"),
                               "--elevation", bad], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and "--elevation" in proc.stderr, (bad, proc.stderr[-500:])
        assert not (tmp_path / "out" / "truth.json").exists()
