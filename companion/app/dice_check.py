"""Check the dice: the sheet where a player sets the faces of dice the tower was not sure of,
or of a die they dispute, in one tap a die (issue 26, item 6).

The sheet only shows and forwards: what it shows comes from :mod:`companion.views.dice_check`
and what a tap does is the tower controller's (``companion/app/tower.py``): ``on_set`` with
the faces set once every die asked about has one (and the dice set to a face of another kind,
with that kind; a die the player said is none is set to ``view.NOT_A_DIE``), ``on_keep`` to
keep a die's picture as a teaching example, ``on_roll_again`` to leave a held throw out of the
game.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kivy.core.image import Image as CoreImage
from kivy.factory import Factory
from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.image import Image
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView

from ..i18n import _
from ..views import dice_check as view
from . import widgets
from .dice_look import face_words
from .kv import load_kv
from .scale import ui
from .theme import C

LONG_FACE = 7  # characters: a face's name longer than this gets a wider button


class DieRow(BoxLayout):
    """One die to check: its picture (or its name on a plain square until the picture
    comes), what the tower read, its likeliest faces as buttons and "Other face"."""

    line = StringProperty("")      # the die and what the tower read
    chosen = StringProperty("")


class CheckDiceSheet(ModalView):
    title = StringProperty("")
    note = StringProperty("")
    held = BooleanProperty(True)      # a throw held back from the game (else a dispute)
    done = BooleanProperty(False)     # every die has its face: the throw went on

    def __init__(self, dice: Sequence[Mapping[str, Any]], slots: Sequence[int], *,
                 kind_faces: Mapping[str, Sequence[str]], held: bool,
                 on_set: Callable[[dict[int, str], dict[int, str]], None],
                 on_roll_again: Callable[[], None] | None = None,
                 on_keep: Callable[[int, str], bool] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dice, self.slots = list(dice), list(slots)
        self.kind_faces = kind_faces
        self.held = held
        self.on_set, self.on_roll_again, self.on_keep = on_set, on_roll_again, on_keep
        self.chosen: dict[int, str] = {}
        self.kinds: dict[int, str] = {}    # dice set to a face of another kind: that kind
        self.likely: dict[int, tuple[str, ...]] = {}
        self.pictures: dict[int, bytes] = {}
        self.expanded: set[int] = set()
        self.kept: set[int] = set()
        self.can_keep: set[int] = set()
        n = len(self.slots)
        self.title = (_("Which face is up?") if n == 1 else _("Which faces are up?")) if held \
            else _("Set this die's face")
        unsure = len(view.unsure([d for d in self.dice if d.get("slot") in self.slots]))
        self.note = _("The dice tower was not sure of this die: tap the face on top.") if unsure and n == 1 \
            else _("The dice tower was not sure of these dice: tap the face on top of each.") if unsure \
            else _("Tap the face really on top.")
        self.auto_dismiss = not held
        self.draw()

    # -- what the tower sends while the sheet is open ---------------------------------------
    def picture(self, slot: int, jpeg: bytes, likely: Sequence[str], keepable: bool) -> None:
        """The tower's picture of die ``slot`` and its likeliest faces."""
        if slot not in self.slots:
            return
        self.pictures[slot] = jpeg
        if likely:
            self.likely[slot] = tuple(likely)
        if keepable:
            self.can_keep.add(slot)
        self.draw()

    # -- taps -------------------------------------------------------------------------------
    def set_face(self, slot: int, face: str, kind: str | None = None) -> None:
        """The player taps ``face`` for die ``slot``: of ``kind`` where it is another kind
        than the tower took the die for."""
        if self.done:
            return
        self.chosen[slot] = face
        if kind is None:
            self.kinds.pop(slot, None)
        else:
            self.kinds[slot] = kind
        self.expanded.discard(slot)
        if view.complete(self.slots, self.chosen):
            self.done = True
            self.auto_dismiss = True
            self.on_set(dict(self.chosen), dict(self.kinds))
            self.title = _("Dice set")
            self.note = (_("Keep a die's picture as a teaching example: the tower learns the "
                           "dice of this table.") if any(map(self._keepable, self.can_keep))
                         else "")
        self.draw()

    def other(self, slot: int) -> None:
        self.expanded ^= {slot}
        self.draw()

    def _keepable(self, slot: int) -> bool:
        """Die ``slot``'s picture may be kept: the tower sent one it can keep, and the die
        was not set to another kind (the tower keeps a picture under the kind it read)."""
        return slot in self.can_keep and slot not in self.kinds \
            and self.chosen.get(slot) != view.NOT_A_DIE

    def keep(self, slot: int) -> None:
        if slot in self.kept or slot not in self.chosen or not self._keepable(slot) \
                or self.on_keep is None:
            return
        if self.on_keep(slot, self.chosen[slot]):
            self.kept.add(slot)
            self.draw()

    def roll_again(self) -> None:
        if self.on_roll_again is not None:
            self.on_roll_again()
        self.dismiss(animation=False)

    # -- drawing ----------------------------------------------------------------------------
    def draw(self) -> None:
        rows = self.ids.rows
        rows.clear_widgets()
        for die in view.to_check(self.dice, self.slots, self.likely, self.kind_faces,
                                 self.chosen, self.kinds):
            rows.add_widget(self._row(die))

    def _row(self, die: view.DieToCheck) -> DieRow:
        row = DieRow(line=die.line, chosen=die.chosen or "")
        jpeg = self.pictures.get(die.slot)
        holder = row.ids.picture
        if jpeg:
            try:
                texture = CoreImage(io.BytesIO(jpeg), ext="jpg").texture
                holder.add_widget(Image(texture=texture, fit_mode="contain"))
            except Exception:   # a picture Kivy cannot decode: the name square stays
                jpeg = b""
        if not jpeg:            # no picture (yet): the die's name on the square
            name = Label(text=die.name, font_size=ui.body, color=C.text_soft,
                         halign="center", valign="middle")
            name.bind(width=lambda w, width: setattr(w, "text_size", (width - ui.k * dp(8), None)))
            holder.add_widget(name)
        choices = row.ids.choices
        faces = Factory.Row(row_dp=72, gap_dp=10)
        if self.done:
            faces.add_widget(self._chosen_label(die))
            if self._keepable(die.slot) and self.on_keep is not None:
                kept = die.slot in self.kept
                b = widgets.BigButton(
                    text=_("Kept as a teaching example") if kept else _("Keep as a teaching example"),
                    font_role="text", disabled=kept, bg=C.power)
                b.bind(on_release=lambda *_a, s=die.slot: self.keep(s))
                faces.add_widget(b)
            choices.add_widget(faces)
            return row
        for face in die.first:
            faces.add_widget(self._face_button(die.slot, face, big=True))
        expanded = die.slot in self.expanded
        if (die.rest or die.others) and (die.first or die.others):
            # with likely faces: the kind's other faces (and other kinds') one tap further;
            # without, the kind's faces are all shown, and other kinds one tap further
            more = widgets.BigButton(
                text=_("Fewer faces") if expanded else _("Other face") if die.first
                else _("Another kind of die"), font_role="text", bg=C.neutral)
            more.bind(on_release=lambda *_a, s=die.slot: self.other(s))
            faces.add_widget(more)
        own = self._grid(die.slot, die.rest, None) if expanded or not die.first else None
        if not die.first and own is not None:  # nothing likelier: the kind's faces first
            choices.add_widget(own)
            own = None
        if faces.children:
            choices.add_widget(faces)
        if own is not None:
            choices.add_widget(own)
        if expanded:
            for other in die.others:
                choices.add_widget(Factory.TallLabel(
                    text=_("Or a {die}:").format(die=other.name), color=C.text_soft))
                choices.add_widget(self._grid(die.slot, other.faces, other.kind))
        # what the tower took for a die and is none (a shadow, a coin): the throw goes on
        # without it
        none = Factory.Row(row_dp=72, gap_dp=10)
        none.add_widget(Label(size_hint_x=1))
        gone = widgets.BigButton(text=_("Not a die"), font_role="text", size_hint_x=None,
                                 width=ui.k * dp(200), bg=C.chosen if die.gone else C.quiet)
        gone.bind(on_release=lambda *_a, s=die.slot: self.set_face(s, view.NOT_A_DIE))
        none.add_widget(gone)
        choices.add_widget(none)
        return row

    def _grid(self, slot: int, faces: Sequence[str], kind: str | None) -> GridLayout:
        """The faces of a kind as buttons: the die's own (``kind`` None) or another's; six a
        row, or three where a face's name is long (a King of Tokyo die's DESTRUCTION, a spawn
        die's: at 800 dp, six a row broke them mid-word)."""
        words = [face_words(f) for f in faces]
        cols = 6 if all(len(w) <= LONG_FACE for w in words) else 3
        grid = GridLayout(cols=cols, spacing=ui.k * dp(8), size_hint_y=None)
        grid.bind(minimum_height=grid.setter("height"))
        for face in faces:
            grid.add_widget(self._face_button(slot, face, big=False, kind=kind))
        return grid

    def _face_button(self, slot: int, face: str, big: bool,
                     kind: str | None = None) -> widgets.BigButton:
        """A face to tap: of the die's own kind (``kind`` None) or of another; marked where
        it is the one set."""
        chosen = self.chosen.get(slot) == face and self.kinds.get(slot) == kind
        b = widgets.BigButton(text=face_words(face), font_role="heading" if big else "text",
                              bg=C.chosen if chosen else C.accent)
        b.bind(on_release=lambda *_a: self.set_face(slot, face, kind))
        return b

    def _chosen_label(self, die: view.DieToCheck) -> Label:
        other = next((o for o in die.others if o.kind == die.chosen_kind), None)
        text = (_("Not a die: left out of the throw") if die.gone
                else _("Set to {face}").format(face=face_words(die.chosen)) if other is None
                else _("Set to {face}, a {die}").format(face=face_words(die.chosen),
                                                       die=other.name))
        return Label(text=text, font_size=ui.heading, bold=True, color=C.green)


load_kv(__package__, "dice_check.kv")
