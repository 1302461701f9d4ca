"""The camera tower's latency: from "held still" to the ROLL on the wire (bench/camera_tower_bench.py).

Rendered throws (``vision.dice.render.throw_sequence``: the empty tray, dice falling in,
settled, taken out) are played at ``fps`` to a :class:`~firmware_bridge.tower.camera_tower.CameraTower`
on a real pseudo-terminal. The host end of the pty is read raw on a thread (HELLO at the
start, an ACK for every roll) and notes when the first copy of each ROLL arrives.

*Held still* is the moment the tower has the frame that completes the still run (the frame
the detector reports; the tray had then been still for ``still_frames`` frames, which at
``fps`` is a fixed ``still_frames / fps`` after the dice stopped and is reported apart). The
figure is that frame's arrival to the ROLL's last byte read on the host's side: reading the
tray, the ring file's fsync, the frame on the pty.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

from ..tower.camera_tower import CameraTower
from ..tower.frames import IterSource
from ..wire import messages as m
from ..wire.codec import FrameDecoder, encode_frame
from .ptyport import PtyPort

TARGET_MS = 150.0


class RawHost:
    """The host's end of the pty, without the Link: HELLO, ACK every roll, note arrivals."""

    def __init__(self, path: str) -> None:
        import tty  # POSIX only: this module still imports on Windows

        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        self.first_seen: dict[tuple[int, int], tuple[float, m.Roll]] = {}
        self.hello: m.HelloReply | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        os.write(self.fd, b"\x00" + encode_frame(m.Hello(0x5EED).pack()))
        self._thread.start()

    def _run(self) -> None:
        import select

        decoder = FrameDecoder()
        while not self._stop.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.02)
            if not ready:
                continue
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                return
            t = time.monotonic()
            for packet in decoder.feed(data):
                try:
                    msg = m.parse(packet)
                except m.BadMessage:
                    continue
                if isinstance(msg, m.HelloReply):
                    self.hello = msg
                elif isinstance(msg, m.Roll):
                    self.first_seen.setdefault((msg.boot_id, msg.seq), (t, msg))
                    os.write(self.fd, encode_frame(m.Ack(msg.boot_id, msg.seq).pack()))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        os.close(self.fd)


def run(throws: int = 30, seed: int = 2026, fps: float = 30.0, still_frames: int = 5,
        kinds: list[str] | None = None, workdir: str | Path | None = None) -> dict:
    """Figures of ``throws`` rendered throws through the camera tower on a pty."""
    from vision.dice.bench import teach_tower
    from vision.dice.render import random_style, throw_sequence

    kinds = kinds or ["d6pips", "kotd", "d12"]
    rng = np.random.default_rng(seed)
    style = random_style(rng)
    profile = teach_tower(style, seed, kinds=kinds)
    frames: list[np.ndarray] = []
    truths: list[Counter] = []
    for i in range(throws):
        seq = throw_sequence(seed * 100 + i, n_dice=int(rng.integers(1, 7)), kinds=kinds,
                             style=style)
        frames.extend(f.image for f in seq)
        truths.append(Counter((t.kind, t.face) for t in
                              next(f for f in seq if f.phase == "settled").truth))
    tmp = tempfile.TemporaryDirectory(prefix="camera-bench-") if workdir is None else None
    where = Path(workdir or tmp.name)  # type: ignore[union-attr]
    port = PtyPort(where / "tower")
    port.plug()
    host = RawHost(str(port.link))
    source = IterSource(frames, fps=fps)
    tower = CameraTower(profile, source, port, ring_file=where / "ring.json",
                        still_frames=still_frames, seed=seed, log=lambda _: None)
    try:
        tower.start_link()
        tower.run(stop_when_done=True)
        deadline = time.monotonic() + 5
        while len(host.first_seen) < len(tower.sent) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        tower.stop()
        host.close()
        port.unplug()
        if tmp is not None:
            tmp.cleanup()
    names = {i: k.name for i, k in enumerate(tower.table.kinds)}
    wire_kind = {"d6": "d6pips"}
    latencies, right = [], 0
    for sent, truth in zip(tower.sent, truths):
        seen = host.first_seen.get((sent.boot_id, sent.seq))
        if seen is None:
            continue
        latencies.append((seen[0] - sent.t_frame) * 1000)
        got = Counter((wire_kind.get(names[d.kind], names[d.kind]),
                       tower.table.kinds[d.kind].faces[d.face] if d.face != m.NONE else None)
                      for d in seen[1].dice if d.status == m.CLEAN)
        right += got == truth
    lat = np.array(latencies) if latencies else np.array([float("nan")])
    p95 = float(np.percentile(lat, 95))
    return {"benchmark": "camera_tower", "throws": throws, "rolls_sent": len(tower.sent),
            "rolls_on_wire": len(host.first_seen), "rolls_right": right, "fps": fps,
            "still_frames": still_frames,
            "still_window_ms": round(1000 * still_frames / fps, 1) if fps else 0.0,
            "held_still_to_wire_ms_median": round(float(np.median(lat)), 2),
            "held_still_to_wire_ms_p95": round(p95, 2),
            "held_still_to_wire_ms_max": round(float(lat.max()), 2),
            "target_ms_p95": TARGET_MS,
            "meets_targets": bool(len(tower.sent) == throws == len(host.first_seen)
                                  and right == throws and p95 <= TARGET_MS)}
