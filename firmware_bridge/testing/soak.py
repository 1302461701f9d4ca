"""The link soak: many rolls through a faulty simulated tower over a real pty, to a game.

Three processes, as in real use: the simulated tower (``python -m firmware_bridge simulate
--pty``), the host (``python -m firmware_bridge.testing.soak host``: the link, the roll journal, and
a stand-in for the open game), and this driver, which throws the dice, unplugs the port,
resets the tower and kills the host (SIGKILL) and starts it again.

The game stand-in keeps rolls by key in its own fsynced file, as ``companion.session`` does,
and takes them exactly the way the app does: each roll event is delivered, then marked
delivered in the roll journal; at start and at every Connected, the rolls recorded but not
delivered are delivered late (``rolls.deliver_undelivered``). One host kill happens right
between a roll being recorded (and ACKed) and its delivery: the window of issue 19's third
finding.

All processes read the same ``CLOCK_MONOTONIC``, so a roll's latency is the time from the
tower writing the copy that got through to the host having fsynced it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from ..host.events import Connected, DeviceReset, LinkEvent, RollEvent, RollsDropped
from ..host.link import Link
from ..host.rolls import RollJournal, deliver_undelivered


class GameStandIn:
    """What the open game keeps of the tower's rolls: keys, once, fsynced."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.keys: set[tuple[int, int]] = set()
        if path.exists():
            for line in path.read_text().splitlines():
                item = json.loads(line)
                self.keys.add((item["boot"], item["seq"]))
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def record(self, roll: RollEvent) -> None:
        if roll.key in self.keys:
            return  # a game ignores a roll it holds (Session.record_roll)
        os.write(self._fd, (json.dumps({"boot": roll.key[0], "seq": roll.key[1],
                                        "late": roll.late}) + "\n").encode())
        os.fsync(self._fd)
        self.keys.add(roll.key)


def host_main(argv: list[str]) -> int:
    """The soak's host process: ``host TOWER_PATH WORKDIR``. Commands on stdin: ``die``
    (SIGKILL itself at the next roll, after it is recorded and ACKed and before the game
    has it), ``quit``. Writes host-events.jsonl in WORKDIR."""
    path, work = argv[0], Path(argv[1])
    journal = RollJournal(work / "rolls.jsonl")
    game = GameStandIn(work / "game.jsonl")
    log = open(work / "host-events.jsonl", "a", buffering=1)
    lock = threading.Lock()
    die = threading.Event()

    def deliver(roll: RollEvent) -> None:
        game.record(roll)
        journal.mark_delivered(roll.key)

    def on_event(event: LinkEvent) -> None:
        with lock:
            if isinstance(event, RollEvent):
                log.write(json.dumps({"roll": list(event.key), "recorded_at": event.recorded_at,
                                      "late": event.late}) + "\n")
                if die.is_set():
                    log.flush()
                    os.kill(os.getpid(), signal.SIGKILL)
                deliver(event)
            elif isinstance(event, Connected):
                log.write(json.dumps({"connected": time.monotonic()}) + "\n")
                for roll in deliver_undelivered(journal, deliver):
                    log.write(json.dumps({"delivered_late": list(roll.key)}) + "\n")
            elif isinstance(event, RollsDropped):
                log.write(json.dumps({"dropped": event.to_json()}) + "\n")
            elif isinstance(event, DeviceReset):
                log.write(json.dumps({"reset": [event.old_boot_id, event.new_boot_id]}) + "\n")

    with lock:
        for roll in deliver_undelivered(journal, deliver):
            log.write(json.dumps({"delivered_late": list(roll.key)}) + "\n")
    link = Link(path, journal, on_event).start()
    print(json.dumps({"ready": time.monotonic()}), flush=True)
    for line in sys.stdin:
        if line.strip() == "die":
            die.set()
        elif line.strip() == "quit":
            break
    link.stop()
    with lock:
        print(json.dumps({"counters": link.counters(), "fsync_ms": journal.fsync_ms}), flush=True)
    journal.close()
    return 0


class _Proc:
    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen([sys.executable, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        first = self.proc.stdout.readline()  # type: ignore[union-attr]
        if not first:
            raise RuntimeError(f"{' '.join(args[:3])} did not start")
        self.first = json.loads(first)

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
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(5)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def _read_lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # the half line of a killed writer
    return out


def _spread(n: int, rolls: int, shift: int) -> list[int]:
    return [rolls * (k + 1) // (n + 1) + shift for k in range(n)]


def run_soak(*, rolls: int = 10_000, seed: int = 1, interval: float = 0.02, unplugs: int = 3,
             resets: int = 5, lose_resends: int = 2, host_kills: int = 2, ring: int = 32,
             corrupt: float = 0.05, drop: float = 0.05, duplicate: float = 0.05,
             truncate: float = 0.05, ack_drop: float = 0.05, unplug_s: float = 0.5,
             settle_s: float = 60.0, progress: bool = False,
             workdir: str | None = None) -> dict[str, Any]:
    """Faults: per frame tower -> host, ``corrupt`` (one flipped bit), ``drop``,
    ``duplicate``, ``truncate``; ``ack_drop``: host -> tower writes lost. ``resets`` device
    resets, each losing the first ``lose_resends`` copies of every restored roll;
    ``unplugs`` unplug/replug cycles; ``host_kills`` SIGKILLs of the host (the first between
    record and game, the next ones wherever they land)."""
    tmp = Path(workdir or tempfile.mkdtemp(prefix="dice-soak-"))
    link_path = tmp / "tower"
    frame_log = tmp / "frames.json"
    faults = (f"corrupt={corrupt},drop={drop},duplicate={duplicate},truncate={truncate},"
              f"ack_drop={ack_drop}")
    sim = _Proc(["-m", "firmware_bridge", "simulate", "--pty", str(link_path), "--seed",
                 str(seed), "--ring", str(ring), "--quiet", "--faults", faults,
                 "--frame-log", str(frame_log)])
    host_args = ["-m", "firmware_bridge.testing.soak", "host", str(link_path), str(tmp)]
    events_path = tmp / "host-events.jsonl"

    def connected_count() -> int:
        return sum("connected" in x for x in _read_lines(events_path))

    def wait_connected(after: int, timeout: float = 20.0) -> None:
        end = time.monotonic() + timeout
        while connected_count() <= after:
            if time.monotonic() > end:
                raise RuntimeError(f"the host did not connect to {link_path} in {timeout:.0f} s")
            time.sleep(0.02)

    host = _Proc(host_args)
    started = time.monotonic()
    killed = resets_done = 0
    final: dict[str, Any] = {}
    try:
        wait_connected(0)
        unplug_at = set(_spread(unplugs, rolls, 0))
        reset_at = set(_spread(resets, rolls, 7))
        kill_at = _spread(host_kills, rolls, 13)
        replug_times: list[float] = []
        next_at = time.monotonic()
        for i in range(rolls):
            if i in unplug_at:
                sim.send("unplug")
                time.sleep(unplug_s)  # a bus-powered tower reads no dice while unplugged
                replug_times.append(sim.send("replug")["t"])
                next_at = time.monotonic()
            if i in reset_at:
                sim.send(f"reset {lose_resends}")
                resets_done += 1
            if i in kill_at:
                before = connected_count()
                if killed == 0:
                    host.send("die", reply=False)  # dies at its next roll, before the game
                    sim.send("roll", reply=False)
                    host.proc.wait(20)
                else:
                    host.proc.send_signal(signal.SIGKILL)
                    host.proc.wait(20)
                killed += 1
                host = _Proc(host_args)  # the players wait for the app to come back
                wait_connected(before)
                next_at = time.monotonic()
            delay = next_at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            next_at += interval
            sim.send("roll", reply=False)
            if progress and i and i % 1000 == 0:
                print(f"# {i} rolls sent", file=sys.stderr, flush=True)
        stats = sim.send("stats")
        deadline = time.monotonic() + settle_s
        while time.monotonic() < deadline:
            lines = _read_lines(events_path)
            recorded = {(x["boot_id"], x["seq"]) for x in _read_lines(tmp / "rolls.jsonl")
                        if x["type"] == "roll"}
            in_game = {(x["boot"], x["seq"]) for x in _read_lines(tmp / "game.jsonl")}
            declared = sum(x["dropped"]["count"] for x in lines
                           if "dropped" in x and x["dropped"]["declared_by"] == "tower")
            if (len(recorded) + declared >= stats["rolls_made"] and stats["unacked"] == 0
                    and recorded <= in_game):
                break
            time.sleep(0.2)
            stats = sim.send("stats")
        host.send("quit", reply=False)
        tail = host.proc.stdout.readline()  # type: ignore[union-attr]
        final = json.loads(tail) if tail else {}
        host.proc.wait(10)
    finally:
        if host.proc.poll() is None:
            host.proc.kill()
        sim.close()
    elapsed = time.monotonic() - started

    log = json.loads(frame_log.read_text())
    made = {(b, s) for b, s in log["made"]}
    writes: dict[tuple[int, int], list[float]] = {}
    for boot, seq, _attempt, t in log["frames"]:
        writes.setdefault((boot, seq), []).append(t)
    # what the files hold is the truth, not the events
    journal = [json.loads(x) for x in (tmp / "rolls.jsonl").read_text().splitlines()]
    keys = [(x["boot_id"], x["seq"]) for x in journal if x["type"] == "roll"]
    unique = set(keys)
    game = _read_lines(tmp / "game.jsonl")
    game_keys = [(x["boot"], x["seq"]) for x in game]
    lines = _read_lines(events_path)
    drops = [x["dropped"] for x in lines if "dropped" in x]
    declared = {(d["boot_id"], s) for d in drops if d["declared_by"] == "tower"
                for s in range(d["first_seq"], d["first_seq"] + d["count"])}
    host_lost = {(d["boot_id"], s) for d in drops if d["declared_by"] == "host"
                 for s in range(d["first_seq"], d["first_seq"] + d["count"])}
    lost = made - unique - declared
    latencies = []
    for x in lines:
        if "roll" in x:
            sent = [t for t in writes.get(tuple(x["roll"]), []) if t <= x["recorded_at"]]
            if sent:
                latencies.append((x["recorded_at"] - max(sent)) * 1000)
    connected_at = sorted(x["connected"] for x in lines if "connected" in x)
    reconnect = []
    for t in replug_times:
        after = [c for c in connected_at if c >= t]
        if after:
            reconnect.append(after[0] - t)
    counters = final.get("counters", {})
    fsync_ms = final.get("fsync_ms", [])
    return {
        "rolls_sent": len(made),
        "rolls_recorded": len(unique),
        "lost": len(lost),
        "duplicated": len(keys) - len(unique),
        "undelivered_to_game": len(unique - set(game_keys)),
        "doubled_in_game": len(game_keys) - len(set(game_keys)),
        "delivered_late": sum("delivered_late" in x for x in lines),
        "declared_dropped": len(declared),
        "lost_reported_by_host": len(host_lost),
        "lost_reported_then_recorded": len(host_lost & unique),
        "replugs": len(replug_times),
        "resets": resets_done,
        "resets_seen_by_host": sum("reset" in x for x in lines),
        "host_kills": killed,
        "max_reconnect_s": round(max(reconnect), 3) if reconnect else None,
        "p50_latency_ms": round(_percentile(latencies, 50), 2),
        "p99_latency_ms": round(_percentile(latencies, 99), 2),
        "max_latency_ms": round(max(latencies), 2) if latencies else None,
        "fsync_p50_ms": round(_percentile(fsync_ms, 50), 2),
        "fsync_p99_ms": round(_percentile(fsync_ms, 99), 2),
        "crc_errors_last_host": counters.get("crc_errors"),
        "bad_frames_last_host": counters.get("bad_frames"),
        "wire": stats.get("wire"),
        "tower_unacked_at_end": stats.get("unacked"),
        "elapsed_s": round(elapsed, 1),
        "workdir": str(tmp),
    }


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "host":
        sys.exit(host_main(sys.argv[2:]))
    sys.exit("usage: python -m firmware_bridge.testing.soak host TOWER_PATH WORKDIR")
