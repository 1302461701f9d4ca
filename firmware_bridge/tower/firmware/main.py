"""Dice tower firmware entry point: wires the protocol core to the serial link, the clock,
ring.bin and a dice source, then runs the main loop forever.

On a board this file runs at boot and the link is USB CDC (sys.stdin / sys.stdout). On the
unix port:

    micropython main.py [--control PATH] [--ring-size N] [--seed N] [--ring-file PATH]

speaks the protocol on stdin/stdout, takes roll commands from PATH (a FIFO; see
dice.ControlDice; the TOWER_CONTROL environment variable works too) and logs to stderr.
Nothing but frames is ever written to stdout.
"""

import os
import select
import sys
import time

import config
from dice import ButtonDice, Catalogue, ControlDice, NoDice, Pin
from store import Store, next_boot_id
from tower import Tower

UNIX = sys.platform in ("linux", "darwin")
READ_CHUNK = 512  # host bytes taken per loop turn, so rolls and timers keep their turn


def log(message):
    """Diagnostics go to stderr on the unix port only: on a board stderr is the same USB
    link as the frames."""
    if UNIX:
        sys.stderr.write("tower: " + message + "\n")


def parse_args(argv):
    opts = {"control": None, "ring_size": config.RING_SIZE, "seed": None,
            "ring_file": config.RING_FILE}
    i = 0
    while i < len(argv):
        name = argv[i]
        value = argv[i + 1] if i + 1 < len(argv) else None
        if value is None or name not in ("--control", "--ring-size", "--seed", "--ring-file"):
            raise SystemExit("usage: main.py [--control PATH] [--ring-size N] [--seed N] "
                             "[--ring-file PATH]")
        key = name[2:].replace("-", "_")
        opts[key] = value if key in ("control", "ring_file") else int(value)
        i += 2
    if opts["control"] is None and UNIX:
        opts["control"] = os.getenv("TOWER_CONTROL") or None
    return opts


class Link:
    """The serial link: non-blocking reads via select.poll, whole-frame writes."""

    def __init__(self):
        self.rx = getattr(sys.stdin, "buffer", sys.stdin)
        self.tx = getattr(sys.stdout, "buffer", sys.stdout)
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)
        self.eof = False

    def read(self):
        data = bytearray()
        while len(data) < READ_CHUNK:
            events = self.poller.poll(0)
            if not events:
                break
            flags = events[0][1]
            if not flags & select.POLLIN:
                if flags & (select.POLLHUP | select.POLLERR):
                    self.eof = UNIX  # a board's USB link never ends; a pipe does
                break
            byte = self.rx.read(1)
            if not byte:
                self.eof = UNIX
                break
            data += byte
        return data

    def write(self, data):
        view = memoryview(data)
        while len(view):
            n = self.tx.write(view)
            if not n:  # nobody listening (USB host absent): the frames are lost, as allowed
                return
            view = view[n:]
        if hasattr(self.tx, "flush"):
            self.tx.flush()


def make_dice(catalogue, control):
    if control:
        return ControlDice(catalogue, control, log)
    if Pin is not None:
        try:
            return ButtonDice(catalogue, config.BUTTON_PIN, config.BUTTON_DEBOUNCE_MS)
        except Exception as exc:  # a board without that pin: run without a dice source
            log("button: %s" % exc)
    return NoDice()


def run(argv):
    opts = parse_args(argv)
    try:
        import micropython
        micropython.kbd_intr(-1)  # 0x03 is data here, not Ctrl-C
    except (ImportError, AttributeError):
        pass
    if opts["seed"] is not None:
        import random
        random.seed(opts["seed"])

    store = Store(opts["ring_file"])
    restored = store.load()
    avoid = []
    for item in restored[0] + restored[1] + restored[2]:
        avoid.append(item[0])
    boot_id = next_boot_id(store.writer_boot, avoid)
    if restored[3]:
        log("ring file damaged; %d rolls restored, lost %r" % (len(restored[0]), restored[2]))

    tower = Tower(boot_id, config.KINDS, config.COLOURS, config.N_SLOTS, config.FIRMWARE,
                  opts["ring_size"], store)
    catalogue = Catalogue(config.KINDS, config.COLOURS, config.N_SLOTS, config.DEFAULT_DICE,
                          config.DICE_SETS)
    dice = make_dice(catalogue, opts["control"])
    link = Link()
    waiter = select.poll()
    waiter.register(sys.stdin, select.POLLIN)
    if dice.stream is not None:
        waiter.register(dice.stream, select.POLLIN)

    last = time.ticks_ms()
    uptime = 0
    tower.boot(uptime, restored)
    log("boot %08x, %d rolls restored" % (boot_id, len(restored[0])))
    link.write(tower.take())

    while True:
        timeout = tower.next_wakeup(uptime)
        if dice.stream is None and dice.idle_ms < timeout:
            timeout = dice.idle_ms
        if dice.pending():
            timeout = 0
        waiter.poll(timeout)
        now = time.ticks_ms()
        uptime += time.ticks_diff(now, last)  # ticks wrap; the sum does not
        last = now

        data = link.read()
        if data:
            tower.receive(data, uptime)
        roll = dice.poll()
        if roll:
            try:
                tower.add_roll(roll, uptime)
            except ValueError as exc:
                log("roll refused: %s" % exc)
        tower.tick(uptime)
        link.write(tower.take())
        if dice.quit or link.eof:
            tower.save()
            log("stopping (%s)" % ("quit" if dice.quit else "stdin closed"))
            return


def safe_mode():
    """On a board, the button held down at power-up skips the tower and leaves the REPL on
    the USB port (the tower disables Ctrl-C, so there is no other way back in)."""
    if UNIX or Pin is None:
        return False
    try:
        return Pin(config.BUTTON_PIN, Pin.IN, Pin.PULL_UP).value() == 0
    except Exception:
        return False


def main():
    if safe_mode():
        return
    try:
        run(sys.argv[1:])
    except KeyboardInterrupt:
        pass
    except Exception:
        if UNIX:
            raise
        # On a board: start over; ring.bin keeps every unacknowledged roll.
        import machine
        time.sleep_ms(1000)
        machine.reset()


main()
