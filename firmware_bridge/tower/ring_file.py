"""The camera tower's ring on disk: the rolls the host has not acknowledged, kept across a
restart of the tower."""

from __future__ import annotations

import json
import os
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..wire import messages as m
from .errors import CameraTowerError
from .sim import NonVolatile


class RingFile(NonVolatile):
    """The unacknowledged ring and the last boot id in a file, rewritten (temporary file,
    fsync, rename) at every change, so a restart of the tower resends what the host never
    acknowledged, with its original boot id and seq (as the firmware's ring.bin).

    Format: one JSON object ``{"camera_tower_ring": 1, "last_boot_id", "rolls": [[order,
    boot_id, seq, uptime_ms, [[slot, kind, face, colour, status, confidence], ...]], ...],
    "crc"}`` (a file of 1.1 has no confidence: read as not known);
    ``crc`` is the CRC-32 of the object without it. A damaged file is moved aside to
    ``NAME.damaged`` and said on stderr; the tower then starts with an empty ring."""

    def __init__(self, path: str | Path, warn: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self.path = Path(path)
        self.warn = warn or (lambda text: print(text, file=sys.stderr, flush=True))
        self.saves = 0
        self._load()

    @staticmethod
    def _body(data: dict) -> bytes:
        return json.dumps({k: v for k, v in data.items() if k != "crc"},
                          sort_keys=True, separators=(",", ":")).encode()

    def _load(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise CameraTowerError(f"{self.path}: cannot read the ring file ({exc.strerror})"
                                   ) from None
        try:
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("camera_tower_ring") != 1:
                raise ValueError("not a camera tower ring file (camera_tower_ring: 1)")
            if data.get("crc") != zlib.crc32(self._body(data)):
                raise ValueError("its checksum does not match")
            last = data["last_boot_id"]
            ring = []
            for order, boot_id, seq, uptime, dice in data["rolls"]:
                ring.append((int(order), m.Roll(int(boot_id), int(seq), int(uptime), 0,
                                                tuple(m.Die(*map(int, d)) for d in dice))))
            if not isinstance(last, int) or not 0 <= last <= 0xFFFFFFFF:
                raise ValueError(f"last_boot_id {last!r}")
        except (ValueError, KeyError, TypeError) as exc:
            aside = self.path.with_name(self.path.name + ".damaged")
            os.replace(self.path, aside)
            self.warn(f"{self.path}: damaged ring file ({exc}); moved to {aside.name}, "
                      "starting with an empty ring: rolls it held are lost")
            return
        self.ring, self.last_boot_id = ring, last

    def save(self) -> None:
        data: dict[str, Any] = {
            "camera_tower_ring": 1, "last_boot_id": self.last_boot_id,
            "rolls": [[order, r.boot_id, r.seq, r.uptime_ms,
                       [[d.slot, d.kind, d.face, d.colour, d.status, d.confidence]
                        for d in r.dice]]
                      for order, r in self.ring]}
        data["crc"] = zlib.crc32(self._body(data))
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(json.dumps(data).encode())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        self.saves += 1
