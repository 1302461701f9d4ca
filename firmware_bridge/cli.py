"""``python -m firmware_bridge``: ports, listen, simulate, soak, camera-tower."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tabletop_base.pipes import output_gone

from .host.discovery import UsbMatch, serial_ports
from .host.events import Connected, LinkEvent, RollEvent
from .host.link import Link
from .host.rolls import MemoryRollStore, RollJournal, RollJournalError, deliver_undelivered

if TYPE_CHECKING:  # the test tools are imported only by the commands that use them
    from .testing.ptyport import PtyPort


def _pty_port(path: str | Path) -> PtyPort:
    """A pty standing in for a serial port (``--pty``): a test and bench tool, in
    ``firmware_bridge.testing``, which the app's wheel leaves out."""
    try:
        from .testing.ptyport import PtyPort
    except ImportError as exc:
        raise SystemExit(f"--pty needs firmware_bridge.testing, which this installation "
                         f"leaves out (run from a checkout of the sources): {exc}") from exc
    return PtyPort(path)


def _usb(text: str | None) -> UsbMatch:
    if not text:
        return UsbMatch()
    parts = text.split(":")
    try:
        vid = int(parts[0], 16) if parts[0] else None
        pid = int(parts[1], 16) if len(parts) > 1 and parts[1] else None
    except ValueError as exc:
        raise SystemExit(f"--usb {text!r}: write VID:PID[:SERIAL] in hex, e.g. 2E8A:000A") from exc
    serial_number = parts[2] if len(parts) > 2 and parts[2] else None
    return UsbMatch(vid, pid, serial_number)


def cmd_ports(args: argparse.Namespace) -> int:
    ports = serial_ports()
    usb = _usb(args.usb)
    for port in ports:
        item = port.to_json()
        item["matches"] = usb.matches(port)
        print(json.dumps(item))
    if not ports:
        print("no serial ports found", file=sys.stderr)
    return 0


def cmd_listen(args: argparse.Namespace) -> int:
    try:
        store = RollJournal(args.journal) if args.journal else MemoryRollStore()
    except RollJournalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 5
    done = threading.Event()
    count = [0]
    out_lock = threading.Lock()
    gone = threading.Event()   # whatever read the lines has closed them (`listen | head -3`)

    def put(line: dict[str, Any]) -> bool:
        with out_lock:
            if gone.is_set():
                return False
            try:
                print(json.dumps(line), flush=True)
                return True
            except BrokenPipeError:
                # the listener stops; a roll not printed is not marked delivered
                output_gone()
                gone.set()
                done.set()
                return False

    class Gone(Exception):
        """The lines' reader went away before this roll was printed."""

    def late(event: RollEvent) -> None:
        if not put(event.to_json()):
            raise Gone  # deliver_undelivered marks it delivered only once printed
        count_roll()

    def deliver_late() -> None:
        try:
            deliver_undelivered(store, late)  # rolls a killed listener never printed
        except Gone:
            pass

    def count_roll() -> None:
        count[0] += 1
        if args.count and count[0] >= args.count:
            done.set()

    def on_event(event: LinkEvent) -> None:
        if not put(event.to_json()):
            return
        if isinstance(event, RollEvent):
            mark = getattr(store, "mark_delivered", None)
            if mark is not None:
                mark(event.key)  # printed: this listener is the roll's consumer
            count_roll()
        elif isinstance(event, Connected):
            deliver_late()

    deliver_late()

    link = Link(args.url, store, on_event, usb=_usb(args.usb),
                baudrates=[int(b) for b in args.baud.split(",")])
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    link.start()
    try:
        done.wait(args.seconds if args.seconds else None)
    except KeyboardInterrupt:
        pass
    finally:
        link.stop()
        put({"event": "counters", **link.counters()})
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from .tower.sim import Faults, SimServer, SimTower, SocketTransport

    faults = Faults.parse(args.faults or "")
    tower = SimTower(seed=args.seed, ring_size=args.ring)
    if args.socket:
        host, _, port = args.socket.rpartition(":")
        transport: SocketTransport | PtyPort = SocketTransport(host or "127.0.0.1",
                                                               int(port or 0))
        where = transport.plug()
    else:
        link = args.pty or os.path.join(tempfile.mkdtemp(prefix="dice-tower-"), "tower")
        pty_port = transport = _pty_port(link)
        real = pty_port.plug()
        where = str(pty_port.link)
        print(f"# pty {real}", file=sys.stderr)
    server = SimServer(tower, transport, faults=faults, seed=args.seed,
                       log_frames=bool(args.frame_log)).start()
    print(json.dumps({"serving": where, "boot_id": tower.boot_id}), flush=True)
    stop = threading.Event()
    if args.auto:
        def auto() -> None:
            while not stop.wait(args.auto):
                server.roll(args.dice)
        threading.Thread(target=auto, daemon=True).start()
    made: list[tuple[int, int]] = []
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd, rest = words[0], " ".join(words[1:])
        reply: dict = {"ok": cmd}
        try:
            if cmd == "roll":
                seq = server.roll(rest or args.dice)
                made.append((tower.boot_id, seq))
                if args.quiet:
                    continue
                reply.update(boot_id=tower.boot_id, seq=seq)
            elif cmd == "reset":  # reset [N]: the first N copies of each restored roll are lost
                server.reset(int(rest or 0))
                reply.update(boot_id=tower.boot_id, t=time.monotonic())
            elif cmd == "unplug":
                server.unplug()
                reply.update(t=time.monotonic())
            elif cmd == "replug":
                server.replug()
                reply.update(t=server.plug_times[-1] if server.plug_times else time.monotonic())
            elif cmd == "stats":
                reply.update(rolls_made=tower.rolls_made, unacked=tower.unacked,
                             dropped_total=tower.dropped_total, wire=server.wire.stats,
                             dropped_writes=getattr(transport, "dropped_writes", 0))
                if args.frame_log:
                    Path(args.frame_log).write_text(json.dumps(
                        {"frames": server.frame_log, "made": made}))
            elif cmd == "quit":
                break
            else:
                reply = {"error": f"unknown command {cmd!r}: roll [dice], reset [N], unplug, "
                                  "replug, stats, quit"}
        except ValueError as exc:
            reply = {"error": str(exc)}
        print(json.dumps(reply), flush=True)
    stop.set()
    server.stop()
    close = getattr(transport, "close", None)
    if close:
        close()
    return 0


def cmd_camera_tower(args: argparse.Namespace) -> int:
    """The camera dice tower (firmware_bridge/tower/camera_tower.py, docs/tower.md)."""
    from vision.dice import DiceError, Profile

    from .tower.camera_tower import CameraTower, SentRoll
    from .tower.errors import CameraTowerError
    from .tower.frames import CameraSource, FolderSource
    from .tower.serial_transport import SerialTransport
    from .tower.sim import Transport

    def say(text: str) -> None:
        print(f"camera-tower: {text}", file=sys.stderr, flush=True)

    try:
        profile = Profile.load(args.profile)
        if profile.background is None:
            raise DiceError(f"{args.profile}: no empty tray (run `python -m vision dice "
                            "background` first)")
        source: CameraSource | FolderSource
        if args.frames:
            source = FolderSource(args.frames, fps=args.fps, warn=say)
        else:
            source = CameraSource(args.camera, profile.image_size)
        ring = args.ring_file or str(Path(args.profile).with_suffix(".ring.json"))
        transport: Transport
        if args.pty:
            pty_port = _pty_port(args.pty)
            pty_port.plug()
            transport = pty_port
            where = str(pty_port.link)
        else:
            transport = SerialTransport(args.port, args.baud, warn=say)
            where = args.port

        def on_roll(sent: SentRoll) -> None:
            table = tower.table
            dice = [{"kind": table.kinds[d.kind].name,
                     "face": None if d.face == 255 else table.kinds[d.kind].faces[d.face],
                     "colour": None if d.colour == 255 else table.colours[d.colour],
                     "status": ("clean", "cocked", "unreadable")[d.status]} for d in sent.dice]
            print(json.dumps({"roll": {"boot_id": sent.boot_id, "seq": sent.seq,
                                       "frame": sent.frame, "dice": dice}}), flush=True)

        tower = CameraTower(profile, source, transport, ring_file=ring,
                            profile_name=str(args.profile), still_frames=args.still_frames,
                            log=say, on_roll=on_roll)
    except DiceError as exc:  # a damaged profile: file, key and line
        say(str(exc))
        return 3
    except CameraTowerError as exc:
        say(str(exc))
        return 3
    print(json.dumps({"serving": where, "boot_id": tower.tower.boot_id,
                      "firmware": tower.tower.firmware, "ring_file": ring}), flush=True)
    signal.signal(signal.SIGTERM, lambda *_: tower.stop())
    try:
        tower.run(stop_when_done=args.exit_when_done)
    except KeyboardInterrupt:
        pass
    finally:
        tower.stop()
        close = getattr(transport, "close", None)
        if close:
            close()
    print(json.dumps({"rolls_sent": len(tower.sent), "unacked": tower.tower.unacked,
                      "frames": tower.frames, "frame_errors": len(tower.errors)}), flush=True)
    return 7 if tower.errors and not tower.sent else 0


def cmd_soak(args: argparse.Namespace) -> int:
    from .testing.soak import run_soak

    result = run_soak(rolls=args.rolls, seed=args.seed, interval=args.interval,
                      unplugs=args.unplugs, resets=args.resets, host_kills=args.host_kills,
                      ring=args.ring, corrupt=args.corrupt, drop=args.drop,
                      duplicate=args.duplicate, truncate=args.truncate, ack_drop=args.ack_drop,
                      progress=not args.quiet)
    print(json.dumps(result), flush=True)
    return 0 if (result["lost"] == result["duplicated"] == result["undelivered_to_game"]
                 == result["doubled_in_game"] == 0) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge",
                                     description="The dice tower link: list ports, listen, "
                                                 "simulate, soak, camera-tower.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ports", help="list candidate serial ports, one JSON line each")
    p.add_argument("--usb", help="VID:PID[:SERIAL] (hex) to mark the matching port")
    p.set_defaults(func=cmd_ports)

    p = sub.add_parser("listen", help="connect and print one JSON line per roll and link event")
    p.add_argument("url", nargs="?", default="auto",
                   help="a port path, socket://HOST:PORT, sim://NAME, or auto (find by --usb)")
    p.add_argument("--usb", help="VID:PID[:SERIAL] (hex) for auto")
    p.add_argument("--journal", help="record rolls durably here (acknowledged only once fsynced); "
                                     "without it rolls are acknowledged once printed")
    p.add_argument("--baud", default="115200", help="baud rate, or a comma list to try in turn")
    p.add_argument("--count", type=int, default=0, help="stop after this many rolls")
    p.add_argument("--seconds", type=float, default=0, help="stop after this long")
    p.set_defaults(func=cmd_listen)

    p = sub.add_parser("simulate", help="serve a simulated tower on a pty or a TCP socket; "
                                        "commands on stdin: roll [dice], reset [N], unplug, "
                                        "replug, stats, quit")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--pty", help="the stable path (symlink) to serve the pty at")
    where.add_argument("--socket", help="HOST:PORT to listen on (port 0: any)")
    p.add_argument("--seed", type=int)
    p.add_argument("--ring", type=int, default=32, help="ring size (default 32, as the spec)")
    p.add_argument("--faults", help="e.g. drop=0.01,duplicate=0.01,corrupt=0.01,truncate=0,"
                                    "delay=0,ack_drop=0")
    p.add_argument("--dice", default="takkure", help="default dice for roll: takkure, kotd, d6, spawn, "
                                                     "or e.g. 'd12:red:7 d12:yellow:3'")
    p.add_argument("--auto", type=float, default=0, help="roll by itself every this many seconds")
    p.add_argument("--frame-log", help="on 'stats', write the send time of every roll frame here")
    p.add_argument("--quiet", action="store_true", help="no reply line for roll commands")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("camera-tower", help="the camera dice tower: reads throws from a camera "
                                            "(or a folder of frames) and sends one ROLL each "
                                            "(docs/tower.md)")
    p.add_argument("--profile", required=True, help="the dice profile (python -m vision dice)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--camera", default="0", help="camera index or device path (default 0)")
    src.add_argument("--frames", help="a folder of images, read in name order, instead of a camera")
    dst = p.add_mutually_exclusive_group()
    dst.add_argument("--port", default="/dev/ttyGS0",
                     help="the serial port to the tablet (default /dev/ttyGS0, the USB gadget)")
    dst.add_argument("--pty", help="serve on a pseudo-terminal reachable at this path instead")
    p.add_argument("--baud", type=int, default=115200)
    p.add_argument("--ring-file", help="the unacknowledged rolls (default: PROFILE.ring.json)")
    p.add_argument("--still-frames", type=int, default=5,
                   help="frames the tray must hold still before a throw is read (default 5)")
    p.add_argument("--fps", type=float, default=30.0, help="pace of --frames (0: as fast as read)")
    p.add_argument("--exit-when-done", action="store_true",
                   help="with --frames: exit once the frames are read and every roll is acknowledged")
    p.set_defaults(func=cmd_camera_tower)

    p = sub.add_parser("soak", help="the link soak: rolls through a faulty simulated tower over a pty")
    p.add_argument("--rolls", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--interval", type=float, default=0.02, help="seconds between rolls")
    p.add_argument("--unplugs", type=int, default=3)
    p.add_argument("--resets", type=int, default=5, help="each losing the first two resends")
    p.add_argument("--host-kills", type=int, default=2)
    p.add_argument("--ring", type=int, default=32)
    p.add_argument("--corrupt", type=float, default=0.05, help="probability per frame of one flipped bit")
    p.add_argument("--drop", type=float, default=0.05, help="probability per frame")
    p.add_argument("--duplicate", type=float, default=0.05, help="probability per frame")
    p.add_argument("--truncate", type=float, default=0.05, help="probability per frame")
    p.add_argument("--ack-drop", type=float, default=0.05, help="probability per host write")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_soak)

    args = parser.parse_args(argv)
    return int(args.func(args) or 0)
