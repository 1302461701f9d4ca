"""The app's type scale, defined once: every text a player reads takes its size from a role
here, at every window size from 960x600 to 1600x1000 dp (issue 28).

A role has a design size (sp at 1280x800 dp, where ``ui.k`` is 1) and a floor: the window's
scale factor shrinks or grows text with the layout, but never below the floor. Body text (logs,
help, stat lines, instructions) never goes under 14 sp, a headline figure (HP and the like)
never under 32 sp, and nothing at all under 12 sp: the ``tag`` role, for one-word badges
("KEPT", "max"), is the only one allowed down to 12 sp.

In a .kv file the roles are properties of ``ui`` (``companion.app.scale.ui``) in pixels:
``font_size: ui.body``; in markup ``'[size={}]'.format(int(ui.body))``. A BigButton takes a
role name: ``BigButton(font_role="text")``. Where a text does not fit, the layout changes
(it wraps, takes two lines, opens a sheet), never the size below its role's floor.

Kivy-free: the numbers are tested without a window.
"""

from __future__ import annotations

from typing import Final

MIN_SP: Final = 12          # nothing at all below this
BODY_MIN_SP: Final = 14     # text a player reads during play
FIGURE_MIN_SP: Final = 32   # headline figures

# role -> (design sp at ui.k == 1, floor sp), smallest first
TYPE_SCALE: Final[dict[str, tuple[float, float]]] = {
    "tag": (14, MIN_SP),          # one-word badges on chips and slots
    "body": (17, BODY_MIN_SP),    # logs, help, stat lines, instructions, notes
    "text": (20, 15),             # buttons, names, roll sentences, list rows
    "large": (22, 16.5),          # a panel's main line, a fighter's name
    "heading": (24, 18),          # section headings, dialog titles
    "title": (30, 22.5),          # screen titles, the big action of a screen
    "display": (36, 27),          # the one number or word a screen is about
    "figure": (48, 36),           # HP and other headline figures
    "hero": (72, 54),             # the giant figure of a panel (TEKKEN's HP, KotD's HP)
}
ROLES: Final = tuple(TYPE_SCALE)


def size_sp(role: str, k: float) -> float:
    """The size in sp of ``role`` where the window's scale factor is ``k``."""
    try:
        design, floor = TYPE_SCALE[role]
    except KeyError:
        raise ValueError(f"no text role {role!r} in the type scale; roles: {', '.join(ROLES)}") \
            from None
    return max(floor, k * design)


def role_of_design(design: float) -> str:
    """The role whose design size is nearest ``design`` sp (ties go to the larger): how a
    size drawn before the scale existed maps onto it."""
    return min(ROLES, key=lambda r: (abs(TYPE_SCALE[r][0] - design), -TYPE_SCALE[r][0]))


# ------------------------------------------------------------------------------ palette
class Palette:
    """The app's colours, by what they are for (RGBA, 0 to 1). The .kv files say
    ``#:import C companion.app.theme.C`` then ``bg: C.go``; Python says ``theme.C.go``.
    A colour used once, for one thing only (a game's own piece), may stay where it is."""

    bg = (0.07, 0.075, 0.09, 1)        # the window behind everything
    panel = (0.12, 0.13, 0.16, 1)      # a card or a panel on the window
    sheet = (0.10, 0.11, 0.14, 1)      # a modal sheet
    accent = (0.16, 0.42, 0.78, 1)     # the ordinary button
    chosen = (0.16, 0.50, 0.90, 1)     # a toggle that is selected
    neutral = (0.25, 0.27, 0.33, 1)    # a secondary button
    quiet = (0.30, 0.32, 0.40, 1)      # Back, Cancel, Undo, Redo: leaving or taking back
    go = (0.18, 0.55, 0.30, 1)         # the action that moves the game on (Resolve, End turn)
    danger = (0.55, 0.16, 0.16, 1)     # a loss: -1 HP, a wound, Delete
    gain = (0.20, 0.42, 0.25, 1)       # a gain by hand: +1 HP, +1 Energy
    power = (0.40, 0.20, 0.50, 1)      # a special power: Rage, a Power-Up card
    warn = (0.90, 0.55, 0.12, 1)       # an action that costs (Punishment, a Power-Up)
    text = (1, 1, 1, 1)                # text a player reads
    text_soft = (0.75, 0.77, 0.82, 1)  # secondary text: help, stat lines, logs
    text_faint = (0.65, 0.67, 0.72, 1) # the least important line of a panel
    green = (0.20, 0.72, 0.35, 1)      # good news: connected, read cleanly, healed
    red = (0.88, 0.18, 0.18, 1)        # bad news: an error, the red zone
    orange = (1.0, 0.62, 0.15, 1)      # attention: a default value, a die not read cleanly
    grey = (0.38, 0.40, 0.45, 1)
    dim = (0.20, 0.21, 0.25, 1)        # an empty slot


C = Palette()
