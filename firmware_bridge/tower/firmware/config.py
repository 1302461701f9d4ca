"""What this tower reads and how it is wired. Edit for your build; the host learns all of it
from the HELLO_REPLY, so a new kind of die needs no host change.

The HELLO_REPLY must fit in one 250-byte packet: Tower() refuses a catalogue that does not.
"""

FIRMWARE = "ref-mpy 1.1.0"

# Colours, numbered 0.. in this order (255 on the wire means not known).
COLOURS = ("red", "yellow", "white", "black")

# Kinds, numbered 0.. in this order; faces numbered 0.. within their kind.
KINDS = (
    ("d6", ("1", "2", "3", "4", "5", "6")),
    ("d12", ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12")),
    ("kotd", ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER")),
    # Danchie Go's spawn die: the simulated tower's six names (config/danchie.yaml maps them
    # to their meanings). With these names the HELLO_REPLY is 247 of its 250 bytes.
    ("spawn", ("TILE_UNDER_YOU", "POWER_UP_ON_SPAWN", "TILE_ON_SPAWN", "TILE_ON_SPAWN_2",
               "NO_SPAWN", "NO_SPAWN_2")),
)

N_SLOTS = 8          # places in the tray where a die can come to rest
RING_SIZE = 32       # unacknowledged rolls kept (the protocol's minimum is 32)
RING_FILE = "ring.bin"

# The dice a stand-in roll throws (the button on a bare board, `roll` on the unix port):
# (kind name, colour name or None for not known), one slot each in this order.
DEFAULT_DICE = (("d12", "red"), ("d12", "yellow"), ("kotd", "black"), ("spawn", None))

# Named sets for the unix stand-in's `roll NAME` (same names as the simulated tower's).
DICE_SETS = {
    "takkure": (("d12", "red"),) * 3 + (("d12", "yellow"),) * 3,
    "kotd": (("kotd", "black"),) * 6,
    "d6": (("d6", "white"),) * 2,
    "spawn": (("spawn", "white"),),
}

# Bare-board stand-in: a push button between this GPIO and GND (internal pull-up).
BUTTON_PIN = 14
BUTTON_DEBOUNCE_MS = 30
