"""The link soak: many rolls through a faulty simulated tower over a real pty.

The tower runs in its own process (``python -m firmware_bridge simulate --pty``) so that the
host's reader loop, its fsyncs and the tower compete for the machine as they would for real.
Both processes read the same ``CLOCK_MONOTONIC``, so a roll's latency is the time from the
tower writing the copy that got through to the host having fsynced it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from .events import Connected, LinkEvent, RollEvent, RollsDropped
from .link import Link
from .rolls import RollJournal


class _Sim:
    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "firmware_bridge", "simulate", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     bufsize=1)
        first = self.proc.stdout.readline()  # type: ignore[union-attr]
        if not first:
            raise RuntimeError("the simulated tower did not start")
        self.hello = json.loads(first)

    def send(self, line: str, *, reply: bool = True) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        if not reply:
            return {}
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        try:
            self.send("quit", reply=False)
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def run_soak(*, rolls: int = 10_000, seed: int = 1, interval: float = 0.02, unplugs: int = 3,
             resets: int = 2, ring: int = 32, corrupt: float = 0.01, drop: float = 0.01,
             duplicate: float = 0.01, unplug_s: float = 0.5, settle_s: float = 30.0,
             progress: bool = False, workdir: str | None = None) -> dict[str, Any]:
    tmp = Path(workdir or tempfile.mkdtemp(prefix="dice-soak-"))
    link_path = tmp / "tower"
    frame_log = tmp / "frames.json"
    sim = _Sim(["--pty", str(link_path), "--seed", str(seed), "--ring", str(ring), "--quiet",
                "--faults", f"corrupt={corrupt},drop={drop},duplicate={duplicate}",
                "--frame-log", str(frame_log)])
    journal = RollJournal(tmp / "rolls.jsonl")
    recorded: list[RollEvent] = []
    connected_at: list[float] = []
    drops: list[RollsDropped] = []
    lock = threading.Lock()
    first = threading.Event()

    def on_event(event: LinkEvent) -> None:
        with lock:
            if isinstance(event, RollEvent):
                recorded.append(event)
            elif isinstance(event, Connected):
                connected_at.append(time.monotonic())
                first.set()
            elif isinstance(event, RollsDropped):
                drops.append(event)

    link = Link(str(link_path), journal, on_event).start()
    started = time.monotonic()
    try:
        if not first.wait(10):
            raise RuntimeError(f"the host never connected to the simulated tower at {link_path}")
        unplug_at = {rolls * (k + 1) // (unplugs + 1) for k in range(unplugs)}
        reset_at = {rolls * (2 * k + 1) // (2 * resets + 1) + 7 for k in range(resets)}
        replug_times: list[float] = []
        next_at = time.monotonic()
        for i in range(rolls):
            if i in unplug_at:
                sim.send("unplug")
                time.sleep(unplug_s)  # a bus-powered tower reads no dice while unplugged
                replug_times.append(sim.send("replug")["t"])
                next_at = time.monotonic()
            if i in reset_at:
                sim.send("reset")
            delay = next_at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            next_at += interval
            sim.send("roll", reply=False)
            if progress and i and i % 1000 == 0:
                print(f"# {i} rolls sent, {len(recorded)} recorded", file=sys.stderr, flush=True)
        stats = sim.send("stats")
        deadline = time.monotonic() + settle_s
        while time.monotonic() < deadline:
            with lock:
                accounted = len(recorded) + sum(d.count for d in drops)
            if accounted >= stats["rolls_made"]:
                break
            time.sleep(0.05)
        stats = sim.send("stats")
    finally:
        link.stop()
        sim.close()
        journal.close()
    elapsed = time.monotonic() - started

    log = json.loads(frame_log.read_text())
    made = {(b, s) for b, s in log["made"]}
    writes: dict[tuple[int, int], list[float]] = {}
    for boot, seq, _attempt, t in log["frames"]:
        writes.setdefault((boot, seq), []).append(t)
    # what the journal holds is the truth, not the events
    lines = [json.loads(x) for x in (tmp / "rolls.jsonl").read_text().splitlines()]
    keys = [(x["boot_id"], x["seq"]) for x in lines if x["type"] == "roll"]
    unique = set(keys)
    declared = {(d.boot_id, s) for d in drops for s in range(d.first_seq, d.first_seq + d.count)
                if d.declared_by == "tower"}
    host_lost = {(d.boot_id, s) for d in drops for s in range(d.first_seq, d.first_seq + d.count)
                 if d.declared_by == "host"}
    lost = made - unique - declared
    latencies = []
    for event in recorded:
        sent = [t for t in writes.get(event.key, []) if t <= event.recorded_at]
        if sent:
            latencies.append((event.recorded_at - max(sent)) * 1000)
    reconnect = []
    for t in replug_times:
        after = [c for c in connected_at if c >= t]
        if after:
            reconnect.append(after[0] - t)
    counters = link.counters()
    return {
        "rolls_sent": len(made),
        "rolls_recorded": len(unique),
        "lost": len(lost),
        "lost_reported_by_host": len(host_lost),
        "duplicated": len(keys) - len(unique),
        "declared_dropped": len(declared),
        "reconnects": counters["reconnects"],
        "replugs": len(replug_times),
        "resets": counters["resets"],
        "max_reconnect_s": round(max(reconnect), 3) if reconnect else None,
        "p50_latency_ms": round(_percentile(latencies, 50), 2),
        "p99_latency_ms": round(_percentile(latencies, 99), 2),
        "max_latency_ms": round(max(latencies), 2) if latencies else None,
        "fsync_p50_ms": round(_percentile(journal.fsync_ms, 50), 2),
        "fsync_p99_ms": round(_percentile(journal.fsync_ms, 99), 2),
        "fsync_max_ms": round(max(journal.fsync_ms), 2) if journal.fsync_ms else None,
        "crc_errors": counters["crc_errors"],
        "bad_frames": counters["bad_frames"],
        "retransmits": counters["retransmits"],
        "duplicates_dropped": counters["duplicates"],
        "wire": stats.get("wire"),
        "tower_unacked_at_end": stats.get("unacked"),
        "elapsed_s": round(elapsed, 1),
        "workdir": str(tmp),
    }
