"""Where rolls come from. The protocol core only needs poll() -> dice or None.

A dice source is any object with:
    poll()   -> None, or one roll: a list of (slot, kind, face, colour, status) tuples, all
                indices into config (face/colour 255 = not known; status 0 clean,
                1 cocked, 2 unreadable). Called once per main-loop turn; must not block.
    stream   -> an object select.poll can wait on for input, or None
    idle_ms  -> how long the main loop may sleep between poll() calls when stream is None
    quit     -> True when the source asks the firmware to stop (unix stand-in only)
    pending()-> True when poll() has more rolls ready right now (the loop then does not sleep)

Real sensing (camera, hall sensors, a colour sensor per slot ...) goes in a class like
ButtonDice: read the tray when it has settled, return one list per throw.

Shipped here: ButtonDice (a push button rolls random faces: a bare board with no sensors),
ControlDice (text commands from a FIFO: tests and manual play on the unix port) and
NoDice (nothing to read).
"""

import random
import time

try:
    import machine
    Pin = getattr(machine, "Pin", None)  # the unix port has a machine module without Pin
except ImportError:
    Pin = None

NONE = 255
STATUSES = ("clean", "cocked", "unreadable")


def _below(n):
    """A uniform random integer in 0..n-1 (n <= 256) from getrandbits, on any port."""
    limit = 256 - 256 % n
    while True:
        r = random.getrandbits(8)
        if r < limit:
            return r % n


class Catalogue:
    """Names <-> indices for the kinds and colours of config, plus the default throw."""

    def __init__(self, kinds, colours, n_slots, default_dice, sets=None):
        self.kinds = kinds
        self.colours = colours
        self.n_slots = n_slots
        self.sets = sets or {}
        self.default = []
        for kind_name, colour_name in default_dice:
            self.default.append((self.kind(kind_name),
                                 NONE if colour_name is None else self.colour(colour_name)))

    def kind(self, name):
        for i in range(len(self.kinds)):
            if self.kinds[i][0] == name:
                return i
        raise ValueError("unknown kind " + name)

    def colour(self, name):
        if name == "-":
            return NONE
        for i in range(len(self.colours)):
            if self.colours[i] == name:
                return i
        raise ValueError("unknown colour " + name)

    def face(self, kind, name):
        faces = self.kinds[kind][1]
        for i in range(len(faces)):
            if faces[i] == name:
                return i
        raise ValueError("kind %s has no face %s" % (self.kinds[kind][0], name))

    def random_roll(self, dice=None):
        """A throw of dice ((kind, colour) per slot; the default set when None) with random
        faces, all read clean."""
        out = []
        dice = self.default if dice is None else dice
        for slot in range(len(dice)):
            kind, colour = dice[slot]
            out.append((slot, kind, _below(len(self.kinds[kind][1])), colour, 0))
        return out

    def parse_dice(self, words):
        """Die specs `kind:colour:face[:status][@slot]` -> one roll.

        colour: a name, or `-` for not known. face: a name; `*` for a random one; `?` or
        `?unreadable` for none (unreadable); `?cocked` for cocked with no guess.
        status (optional): clean, cocked (with face as the best guess) or unreadable.
        slot: defaults to the lowest free one.
        """
        dice = []
        used = []
        for word in words:
            slot = None
            if "@" in word:
                word, at = word.split("@", 1)
                slot = int(at)
            parts = word.split(":")
            if len(parts) not in (3, 4):
                raise ValueError("a die is kind:colour:face[:status][@slot], not " + word)
            kind = self.kind(parts[0])
            colour = self.colour(parts[1])
            face_name = parts[2]
            if face_name in ("?", "?unreadable"):
                face, status = NONE, 2
            elif face_name == "?cocked":
                face, status = NONE, 1
            elif face_name == "*":
                face, status = _below(len(self.kinds[kind][1])), 0
            else:
                face, status = self.face(kind, face_name), 0
            if len(parts) == 4:
                if parts[3] not in STATUSES:
                    raise ValueError("unknown status " + parts[3])
                status = STATUSES.index(parts[3])
            if slot is None:
                slot = 0
                while slot in used:
                    slot += 1
            if not 0 <= slot < self.n_slots or slot in used:
                raise ValueError("bad or repeated slot %d" % slot)
            used.append(slot)
            dice.append((slot, kind, face, colour, status))
        if not dice:
            raise ValueError("no dice")
        return dice

    def named_set(self, name):
        """A named dice set of config.DICE_SETS as (kind, colour) indices, or None."""
        spec = self.sets.get(name)
        if spec is None:
            return None
        return [(self.kind(k), NONE if c is None else self.colour(c)) for k, c in spec]


class NoDice:
    """A tower with nothing to read: the link still works (handshake, heartbeats)."""

    stream = None
    idle_ms = 1000
    quit = False

    def poll(self):
        return None

    def pending(self):
        return False


class ButtonDice:
    """Bare-board stand-in: each press of a button (GPIO to GND) throws the default dice
    with random faces."""

    stream = None
    idle_ms = 5
    quit = False

    def __init__(self, catalogue, pin, debounce_ms=30):
        if Pin is None:
            raise RuntimeError("machine.Pin is not available on this port")
        self.catalogue = catalogue
        self.pin = Pin(pin, Pin.IN, Pin.PULL_UP)
        self.debounce_ms = debounce_ms
        self.raw = self.stable = self.pin.value()
        self.changed = time.ticks_ms()

    def poll(self):
        value = self.pin.value()
        now = time.ticks_ms()
        if value != self.raw:
            self.raw = value
            self.changed = now
            return None
        if value != self.stable and time.ticks_diff(now, self.changed) >= self.debounce_ms:
            self.stable = value
            if value == 0:  # pressed (pulled to GND)
                return self.catalogue.random_roll()
        return None

    def pending(self):
        return False


class ControlDice:
    """Unix stand-in: one text command per line from a FIFO (mkfifo) or a growing file.

        roll                              the default dice, random faces
        roll takkure                      a named set of config.DICE_SETS, random faces
        roll d12:red:7 kotd:-:CLAW ...    these dice (see Catalogue.parse_dice)
        burst N                           N random rolls, as fast as the loop goes
        quit                              stop the firmware

    Blank lines and lines starting with # are ignored; a bad line is logged and skipped.
    Write each line with a single write() so the firmware never sees half of one.
    """

    idle_ms = 1000
    quit = False
    MAX_LINES = 64  # per poll(), so a flood of commands cannot starve the link

    def __init__(self, catalogue, path, log=None):
        import os
        import select
        self.catalogue = catalogue
        self.log = log
        self.queue = []  # rolls (lists), counts of random rolls (ints) or "quit"
        is_fifo = (os.stat(path)[0] & 0o170000) == 0o010000
        # r+b on a FIFO: the open does not wait for a writer and reads never see EOF.
        self.file = open(path, "r+b" if is_fifo else "rb")
        if is_fifo:
            self.stream = self.file
            self._poller = select.poll()
            self._poller.register(self.file, select.POLLIN)
        else:  # a plain file is followed like tail -f
            self.stream = None
            self.idle_ms = 50
            self._poller = None
            self._partial = b""

    def _lines(self):
        lines = []
        if self._poller is not None:
            while len(lines) < self.MAX_LINES and self._poller.poll(0):
                lines.append(self.file.readline())
            return lines
        while len(lines) < self.MAX_LINES:
            line = self.file.readline()
            if not line:
                break
            if not line.endswith(b"\n"):  # the writer is mid-line: keep it for next time
                self._partial += line
                break
            lines.append(self._partial + line)
            self._partial = b""
        return lines

    def _command(self, line):
        text = line.decode().strip()
        if not text or text.startswith("#"):
            return
        words = text.split()
        if words[0] == "roll":
            named = self.catalogue.named_set(words[1]) if len(words) == 2 else None
            if len(words) == 1:
                self.queue.append(1)
            elif named is not None:
                self.queue.append(self.catalogue.random_roll(named))
            else:
                self.queue.append(self.catalogue.parse_dice(words[1:]))
        elif words[0] == "burst" and len(words) == 2:
            self.queue.append(int(words[1]))
        elif words[0] == "quit":
            self.queue.append("quit")
        else:
            raise ValueError("unknown command")

    def poll(self):
        if not self.queue:
            for line in self._lines():
                try:
                    self._command(line)
                except (ValueError, IndexError, UnicodeError) as exc:
                    if self.log:
                        self.log("control: %r: %s" % (line, exc))
        if not self.queue:
            return None
        item = self.queue[0]
        if item == "quit":
            self.queue.pop(0)
            self.quit = True
            return None
        if isinstance(item, int):
            if item <= 1:
                self.queue.pop(0)
            else:
                self.queue[0] = item - 1
            return self.catalogue.random_roll() if item >= 1 else None
        return self.queue.pop(0)

    def pending(self):
        """True while commands read earlier still wait to be turned into rolls."""
        return bool(self.queue)
