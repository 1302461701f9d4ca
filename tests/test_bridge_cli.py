"""``python -m firmware_bridge``: ports, listen, simulate (the soak has its smoke test)."""

from __future__ import annotations

import json
import subprocess
import sys

from firmware_bridge.cli import main


def test_ports_lists_json_lines(capsys):
    assert main(["ports", "--usb", "2E8A:0005"]) == 0
    out = capsys.readouterr()
    for line in out.out.splitlines():
        item = json.loads(line)
        assert {"device", "vid", "pid", "matches"} <= set(item)
    if not out.out:
        assert "no serial ports found" in out.err


def test_listen_prints_rolls_and_link_events(tmp_path):
    """`simulate` serves a tower on a pty; `listen` prints one JSON line per event."""
    link = tmp_path / "tower"
    sim = subprocess.Popen([sys.executable, "-m", "firmware_bridge", "simulate", "--pty", str(link),
                            "--seed", "4"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        served = json.loads(sim.stdout.readline())
        assert served["serving"] == str(link)
        listen = subprocess.Popen([sys.executable, "-m", "firmware_bridge", "listen", str(link),
                                   "--journal", str(tmp_path / "rolls.jsonl"), "--count", "2",
                                   "--seconds", "20"], stdout=subprocess.PIPE, text=True)
        first = json.loads(listen.stdout.readline())
        assert first["event"] == "connected" and first["firmware"] == "sim 1.1.0"
        for spec in ("d12:red:7 d12:yellow:1", "kotd:black:CLAW"):
            sim.stdin.write(f"roll {spec}\n")
            sim.stdin.flush()
            assert json.loads(sim.stdout.readline())["ok"] == "roll"
        out, _ = listen.communicate(timeout=20)
        events = [json.loads(x) for x in out.splitlines()]
        rolls = [e for e in events if e["event"] == "roll"]
        assert [[d["face"] for d in r["dice"]] for r in rolls] == [["7", "1"], ["CLAW"]]
        assert events[-1]["event"] == "counters" and events[-1]["rolls_recorded"] == 2
        lines = [json.loads(x) for x in (tmp_path / "rolls.jsonl").read_text().splitlines()]
        assert [x["type"] for x in lines if x["type"] != "delivered"] == [
            "tracking", "roll", "roll"]
        assert sum(x["type"] == "delivered" for x in lines) == 2  # printed = delivered
    finally:
        sim.stdin.write("quit\n")
        sim.stdin.flush()
        sim.wait(5)


def test_simulate_refuses_a_bad_roll_with_the_reason(tmp_path):
    sim = subprocess.run([sys.executable, "-m", "firmware_bridge", "simulate", "--pty",
                          str(tmp_path / "t")], input="roll d12:red:13\nroll d7:red:1\nquit\n",
                         capture_output=True, text=True, timeout=20)
    lines = [json.loads(x) for x in sim.stdout.splitlines()[1:]]
    assert "d12 has faces 1, 2" in lines[0]["error"]
    assert "unknown die kind 'd7'" in lines[1]["error"]


def test_listen_names_a_missing_port(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "firmware_bridge", "listen",
                           str(tmp_path / "nope"), "--seconds", "1"],
                          capture_output=True, text=True, timeout=20)
    events = [json.loads(x) for x in proc.stdout.splitlines()]
    assert events[0]["event"] == "port_not_found" and "nope" in events[0]["detail"]


def test_listen_stops_quietly_when_its_reader_goes_and_keeps_the_roll(tmp_path):
    """`listen | head -1`: the reader closes the lines. The listener exits 0 with no
    traceback, and the roll it could not print is not marked delivered: the next listener
    prints it."""
    link, journal = tmp_path / "tower", tmp_path / "rolls.jsonl"
    sim = subprocess.Popen([sys.executable, "-m", "firmware_bridge", "simulate", "--pty", str(link),
                            "--seed", "4"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(sim.stdout.readline())["serving"] == str(link)
        listen = subprocess.Popen([sys.executable, "-m", "firmware_bridge", "listen", str(link),
                                   "--journal", str(journal), "--seconds", "20"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert json.loads(listen.stdout.readline())["event"] == "connected"
        listen.stdout.close()  # the reader has had enough
        sim.stdin.write("roll d12:red:7 d12:yellow:1\n")
        sim.stdin.flush()
        assert json.loads(sim.stdout.readline())["ok"] == "roll"
        err = listen.stderr.read()
        assert listen.wait(20) == 0, err
        assert "Traceback" not in err and "BrokenPipe" not in err, err
        lines = [json.loads(x) for x in journal.read_text().splitlines()]
        assert [x["type"] for x in lines] == ["tracking", "roll"]  # recorded, not delivered
        again = subprocess.run([sys.executable, "-m", "firmware_bridge", "listen", str(link),
                                "--journal", str(journal), "--count", "1", "--seconds", "10"],
                               capture_output=True, text=True, timeout=30)
        rolls = [e for e in map(json.loads, again.stdout.splitlines()) if e["event"] == "roll"]
        assert [[d["face"] for d in r["dice"]] for r in rolls] == [["7", "1"]]
        assert rolls[0]["late"] is True
    finally:
        sim.stdin.write("quit\n")
        sim.stdin.flush()
        sim.wait(5)
