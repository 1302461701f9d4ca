"""Teaching the camera dice tower from the tablet (protocol 1.2), and the Tray view.

**Teach a die** (screen ``teach``): pick a kind the games use (or name a new one with its
faces), throw dice of that kind through the tower again and again; each die the tower cannot
name yet comes as a picture, shown big, with one button per face to tap, Skip and Undo last
answer; a progress line per face; "Saved" when the tower has saved its profile. Cancel (and
leaving the screen while teaching) stops teaching on the tower: nothing is saved.

**Tray view** (screen ``tray``): the latest picture of the tray, the tower's reading drawn
on it, refreshed on request and every few seconds while shown (to set focus and light).

Both only talk to the tower through the App's link (``Link.teach_*``, ``Link.snapshot``);
the link's events reach them from ``CompanionApp._on_tower_event`` on the GUI thread.
"""

from __future__ import annotations

import io
import re
from typing import Any

from kivy.clock import Clock
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.i18n import N_, _, ngettext
from firmware_bridge.wire.messages import UNKNOWN_KIND

from .. import widgets  # noqa: F401  (its rules first)
from ..dice_look import face_words
from ..kv import load_kv

GAME_DIE = {"d12": N_("{game} D12"), "kotd": N_("{game} die"), "spawn": N_("{game} spawn die")}
"""How a game's die is called: "Takkure D12", "Danchie Go spawn die" (another kind: the
game's name and the kind's)."""
TRAY_REFRESH_S = 3.0
UNDO_DEPTH = 4  # answers the tower can take back (firmware_bridge/tower/teach.py)


def texture_of(jpeg: bytes) -> Any:
    """A JPEG from the tower as a Kivy texture."""
    from kivy.core.image import Image as CoreImage

    return CoreImage(io.BytesIO(jpeg), ext="jpg").texture


def kinds_to_teach(tower_kinds: list[str] | tuple[str, ...]) -> list[tuple[str, str]]:
    """(kind, label) for each kind the games use, then the tower's own others; never the pip
    D6 (read without teaching) nor the tower's ``unknown``."""
    from companion import registry

    out: list[tuple[str, str]] = []
    for entry in registry.games():
        for kind in entry.dice_kinds:
            if kind not in (k for k, _label in out):
                name = _(GAME_DIE[kind]) if kind in GAME_DIE else "{game} " + kind
                out.append((kind, name.format(game=_(entry.tile.title))))
    for kind in tower_kinds:
        if kind not in ("d6", UNKNOWN_KIND) and kind not in (k for k, _label in out):
            out.append((kind, kind))
    return out


def colours_of(kind: str) -> list[str]:
    """The colours the games' dice of ``kind`` come in, when a game tells them apart by
    colour (Takkure's red and yellow D12s): taught with the faces. [] for the others."""
    from companion import registry

    out: list[str] = []
    for entry in registry.games():
        if kind in entry.dice_kinds:
            out += [c for c in entry.dice_colours if c not in out]
    return out


def face_label(face: str, faces: list[str]) -> str:
    """A face as players name it (Tile under you, GRIFFE...); faces that read the same (the
    spawn die's two Tile on Spawn faces) are told apart by their number."""
    words = face_words(face)
    same = [f for f in faces if face_words(f) == words]
    if len(same) > 1:
        words = f"{words} ({same.index(face) + 1})"
    return words


def parse_faces(text: str) -> list[str]:
    """"HEADS, TAILS" -> ["HEADS", "TAILS"] (commas or spaces)."""
    return [f for f in text.replace(",", " ").split() if f]


def teaching_unavailable(link: Any) -> str:
    """Why this tower cannot be taught nor show its tray, in the player's words ("" when it
    can): the link's own reason is for logs, in English."""
    protocol = getattr(link, "protocol", None)
    hello = getattr(protocol, "hello", None)
    if protocol is None or hello is None or not protocol.connected:
        return _("no dice tower is connected")
    if hello.proto_minor < 2:
        return _("this tower speaks protocol {version}; teaching needs 1.2 (a camera "
                 "tower)").format(version=f"{hello.proto_major}.{hello.proto_minor}")
    return ""


# The camera tower's TEACH_STATUS messages (firmware_bridge/tower/teach.py), in the
# player's language; anything else is shown in the tower's words.
_TOWER_MESSAGES: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(r"^throw the dice$"), lambda m: _("throw the dice")),
    (re.compile(r"^skipped: (\d+) pictures? still to answer$"),
     lambda m: ngettext("skipped: {n} picture still to answer",
                        "skipped: {n} pictures still to answer", int(m[1])).format(n=int(m[1]))),
    (re.compile(r"^stopped: nothing saved$"), lambda m: _("stopped: nothing saved")),
    (re.compile(r"^(\S+): thanks$"), lambda m: _("{face}: thanks").format(face=m[1])),
    # the die of the picture just taught was found oddly large or small (its shadow, glare,
    # or only part of it): the player may take it back and skip it
    (re.compile(r"^(\S+): thanks; found larger than the others"),
     lambda m: _("{face}: thanks. That die looked larger than the others: if its picture "
                 "shows a shadow or glare, undo and skip it").format(face=m[1])),
    (re.compile(r"^(\S+): thanks; found smaller than the others"),
     lambda m: _("{face}: thanks. That die looked smaller than the others: if its picture "
                 "shows only part of it, undo and skip it").format(face=m[1])),
    (re.compile(r"^(\S+): taken back$"),
     lambda m: _("{face}: taken back").format(face=m[1])),
    (re.compile(r"^(\d+) pictures? sent$"),
     lambda m: ngettext("{n} picture sent", "{n} pictures sent", int(m[1])).format(n=int(m[1]))),
    (re.compile(r"^every die there has a face known already: throw again$"),
     lambda m: _("every die there has a face known already: throw again")),
    (re.compile(r"^(\d+) dice left out \(answer the pictures first\)$"),
     lambda m: ngettext("{n} die left out (answer the pictures first)",
                        "{n} dice left out (answer the pictures first)",
                        int(m[1])).format(n=int(m[1]))),
    (re.compile(r"^saved (.+)$"), lambda m: _("saved {file}").format(file=m[1])),
    (re.compile(r"^the pip D6 is read without teaching$"),
     lambda m: _("the pip D6 is read without teaching")),
    (re.compile(r"^'(.+)' is new: a new kind needs its faces$"),
     lambda m: _("{die} is new: a new kind needs its faces").format(die=m[1])),
    # a die to check (protocol 1.3: firmware_bridge/tower/die_check.py)
    (re.compile(r"^(\S+): kept$"), lambda m: _("{face}: kept as a teaching example").format(
        face=face_words(m[1]))),
    (re.compile(r"^picture \d+: no longer here"),
     lambda m: _("the tower no longer has that picture: throw again to teach it")),
    (re.compile(r"^roll \d+: no longer here"), lambda m: _("the tower no longer has that throw")),
    (re.compile(r"^roll \d+ has no die in slot \d+$"), lambda m: _("the tower has no such die")),
    (re.compile(r"^the pip D6 is read without teaching: it takes no examples$"),
     lambda m: _("the pip D6 is read without teaching: it takes no examples")),
    (re.compile(r"^the tower could not tell this die's kind: teach the kind first$"),
     lambda m: _("the tower could not tell this die's kind: teach the kind first")),
    (re.compile(r"^(\S+): not kept, a tilted die teaches nothing$"),
     lambda m: _("not kept: a tilted die teaches nothing")),
    (re.compile(r"^(\S+): not kept while teaching"),
     lambda m: _("not kept while the tower is being taught")),
    (re.compile(r"^no camera: this tower has no pictures of its dice$"),
     lambda m: _("this tower has no camera: no pictures of its dice")),
    # the Tray view's caption (firmware_bridge.tower.teach.draw_reading)
    (re.compile(r"^the tray is empty$"), lambda m: _("the tray is empty")),
    (re.compile(r"^(\d+) dice, (\d+) clean$"),
     lambda m: ngettext("{n} die, {clean} clean", "{n} dice, {clean} clean",
                        int(m[1])).format(n=int(m[1]), clean=int(m[2]))),
]


def tower_message(text: str) -> str:
    for pattern, say in _TOWER_MESSAGES:
        found = pattern.match(text)
        if found:
            return say(found)
    return text


class TeachScreen(Screen):
    phase = StringProperty("pick")  # "pick", "teaching", "saved"
    kind = StringProperty("")  # the kind being taught (its name on the wire)
    kind_label = StringProperty("")
    faces = ListProperty([])  # [(face, examples so far)]
    needed = NumericProperty(3)
    message = StringProperty("")  # the tower's last word
    problem = StringProperty("")  # why something the player asked for did not happen
    picture_id = NumericProperty(0)  # the picture shown (0: none)
    waiting = NumericProperty(0)  # pictures still to answer, the one shown included
    can_undo = BooleanProperty(False)
    guess = StringProperty("")
    guess_text = StringProperty("")  # the guess as players name it
    colours = ListProperty([])  # the colours the kind's dice come in ([]: not asked)
    colour = StringProperty("")  # the colour tapped (stays for the next pictures)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._pictures: list[Any] = []  # TeachPicture events to answer, the shown one first
        self._answered: list[int] = []  # picture ids answered, newest last (for Undo)
        self._undoing = False

    # -- the pick phase -------------------------------------------------------------------
    def on_pre_enter(self, *args: Any) -> None:
        if self.phase != "teaching":
            self.phase = "pick"
            self.problem = ""
            self.build_kinds()

    def build_kinds(self) -> None:
        from kivy.app import App

        from ..widgets import BigButton

        app = App.get_running_app()
        box = self.ids.kinds
        box.clear_widgets()
        for kind, label in kinds_to_teach(list(app.tower_kinds)):
            button = BigButton(text=label, tap_dp=64)
            button.kind = kind
            button.bind(on_release=lambda b: self.start(b.kind, (), b.text))
            box.add_widget(button)

    def start_new(self) -> None:
        name = self.ids.new_name.text.strip()
        faces = parse_faces(self.ids.new_faces.text)
        if not name:
            self.problem = _("Name the new kind of die first")
            return
        if len(faces) < 2 or len(set(faces)) != len(faces):
            self.problem = _("A die needs two or more different faces, separated by commas")
            return
        self.start(name, faces, name)

    def start(self, kind: str, faces: Any, label: str) -> None:
        from kivy.app import App

        from firmware_bridge.host.protocol import TeachingUnavailable

        app = App.get_running_app()
        link = app.tower_link
        why = teaching_unavailable(link)
        if why:
            self.problem = _("Cannot teach now: {why}").format(why=why)
            return
        try:
            link.teach_start(kind, tuple(faces))
        except TeachingUnavailable:  # the tower went in between
            self.problem = _("Cannot teach now: {why}").format(why=teaching_unavailable(link))
            return
        self.kind, self.kind_label, self.problem = kind, label, ""
        self.colours, self.colour = colours_of(kind), ""
        self.faces = [(f, 0) for f in faces]
        self.message = _("Waiting for the tower…")
        self._pictures.clear()
        self._answered.clear()
        self._show()
        self.phase = "teaching"

    # -- from the tower -------------------------------------------------------------------
    def on_status(self, status: Any) -> None:
        if status.state == "teaching" and (self.phase != "teaching" or status.kind != self.kind):
            # the tower teaches while nobody here does (a lost stop, an app restarted while
            # teaching): its throws would never be rolls. Stop it again (safe to repeat).
            self._stop_on_tower(force=True)
            return
        if self.phase == "pick" or (status.kind and status.kind != self.kind):
            return  # a status of an earlier visit's teaching: not ours
        self.needed = status.needed
        if status.faces:
            self.faces = list(status.faces)
        self.message = tower_message(status.message)
        if status.state == "saved":
            self.phase = "saved"
            self._pictures.clear()
            self._show()
        elif status.state == "refused":
            self.phase = "pick"
            self.problem = _("The tower cannot learn {die}: {why}").format(
                die=self.kind_label, why=tower_message(status.message))
        elif status.state == "off" and self.phase == "teaching":
            self.phase = "pick"

    def on_picture(self, picture: Any) -> None:
        if self.phase != "teaching" or picture.kind != self.kind:
            return
        if any(p.picture_id == picture.picture_id for p in self._pictures):
            return
        if self._undoing:  # the die taken back comes again: asked first
            self._undoing = False
            self._pictures.insert(0, picture)
        else:
            self._pictures.append(picture)
        self._show()

    # -- answers --------------------------------------------------------------------------
    def _show(self) -> None:
        self.waiting = len(self._pictures)
        if not self._pictures:
            self.picture_id, self.guess = 0, ""
            self.ids.picture.texture = None
            self.ids.picture.opacity = 0
        else:
            pic = self._pictures[0]
            self.picture_id, self.guess = pic.picture_id, pic.guess
            self.ids.picture.texture = texture_of(pic.jpeg)
            self.ids.picture.opacity = 1
        self.guess_text = face_label(self.guess, [f for f, _n in self.faces]) if self.guess else ""
        self.can_undo = bool(self._answered)
        self._colour_buttons()
        self._face_buttons()

    def _colour_buttons(self) -> None:
        from ..widgets import BigButton

        box = self.ids.colour_buttons
        box.clear_widgets()
        for colour in self.colours:
            button = BigButton(text=_(colour).capitalize(), tap_dp=56, font_role="text",
                               disabled=not self.picture_id)
            button.colour = colour
            button.bg = (0.16, 0.5, 0.3, 1) if colour == self.colour else (0.3, 0.31, 0.36, 1)
            button.bind(on_release=lambda b: self.pick_colour(b.colour))
            box.add_widget(button)

    def pick_colour(self, colour: str) -> None:
        """The die's colour: kept for the next pictures (dice are often thrown a colour at a
        time), until another is tapped."""
        self.colour = colour
        self._show()

    def _face_buttons(self) -> None:
        from ..widgets import BigButton

        box = self.ids.face_buttons
        box.clear_widgets()
        for face, _count in self.faces:
            button = BigButton(text=face_label(face, [f for f, _n in self.faces]), tap_dp=64,
                               font_role="text",
                               disabled=not self.picture_id or (self.colours and not self.colour))
            button.face = face
            if face == self.guess:
                button.bg = (0.16, 0.5, 0.3, 1)
            button.bind(on_release=lambda b: self.answer(b.face))
            box.add_widget(button)

    def current(self) -> Any:
        """The picture shown (its TeachPicture event), or None."""
        return self._pictures[0] if self._pictures else None

    def answer(self, face: str | None) -> None:
        """The shown picture's face (None: skip it)."""
        from kivy.app import App

        from firmware_bridge.host.protocol import TeachingUnavailable

        pic = self.current()
        link = App.get_running_app().tower_link
        if pic is None or link is None:
            return
        try:
            link.teach_answer(pic.picture_id, face, self.colour if face and self.colours else None)
        except TeachingUnavailable:
            self.problem = _("Not sent: {why}").format(why=teaching_unavailable(link))
            return
        self.problem = ""
        self._pictures.pop(0)
        if face is not None:
            self._answered.append(pic.picture_id)
            del self._answered[:-UNDO_DEPTH]
        self._show()

    def undo(self) -> None:
        from kivy.app import App

        from firmware_bridge.host.protocol import TeachingUnavailable

        link = App.get_running_app().tower_link
        if not self._answered or link is None:
            return
        try:
            link.teach_undo(self._answered[-1])
        except TeachingUnavailable:
            self.problem = _("Not sent: {why}").format(why=teaching_unavailable(link))
            return
        self._answered.pop()
        self._undoing = True
        self._show()

    def cancel(self) -> None:
        """Stop teaching on the tower (nothing saved) and go back to the dice panel."""
        self._stop_on_tower()
        self.phase = "pick"
        from kivy.app import App

        App.get_running_app().go("dice")

    def _stop_on_tower(self, force: bool = False) -> None:
        from kivy.app import App

        from firmware_bridge.host.protocol import TeachingUnavailable

        link = App.get_running_app().tower_link
        if (force or self.phase == "teaching") and link is not None:
            try:
                link.teach_stop()
            except TeachingUnavailable:
                pass  # the tower is gone: it was not teaching for us any more
        self._pictures.clear()
        self._answered.clear()

    def on_leave(self, *args: Any) -> None:
        if self.phase == "teaching":  # never left teaching on the tower behind the player
            self._stop_on_tower()
            self.phase = "pick"

    def progress_lines(self, faces: list, needed: int, column: int = 0) -> str:
        """A line per face: how many examples it has and how many more it needs. Up to six
        faces in one column; more (a D12's twelve) in two side by side (``column`` 0, 1)."""
        half = len(faces) if len(faces) <= 6 else (len(faces) + 1) // 2
        lines = []
        names = [f for f, _n in faces]
        for face, n in faces:
            if n >= needed:
                line = _("{face}: {n}/{needed} (done)")
            else:
                line = _("{face}: {n}/{needed} ({more} more)")
            lines.append(line.format(face=face_label(face, names), n=min(n, needed), needed=int(needed),
                                     more=int(needed) - n))
        return "\n".join(lines[:half] if column == 0 else lines[half:])


class TrayScreen(Screen):
    caption = StringProperty("")
    problem = StringProperty("")
    has_picture = BooleanProperty(False)
    auto = BooleanProperty(True)
    snapshots = NumericProperty(0)  # snapshots shown since the app started

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._timer: Any = None

    def on_pre_enter(self, *args: Any) -> None:
        # the picture of an earlier visit is not what the tray holds now: "asking the tower"
        # until this visit's snapshot comes
        self.has_picture = False
        self.caption = ""
        self.ids.picture.texture = None

    def on_enter(self, *args: Any) -> None:
        self.refresh()
        self._timer = Clock.schedule_interval(self._tick, TRAY_REFRESH_S)

    def on_leave(self, *args: Any) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _tick(self, dt: float) -> None:
        if self.auto:
            self.refresh()

    def refresh(self) -> None:
        from kivy.app import App

        from firmware_bridge.host.protocol import TeachingUnavailable

        link = App.get_running_app().tower_link
        why = teaching_unavailable(link)
        try:
            if not why:
                link.snapshot(max(320, min(1280, int(self.ids.picture.width) or 640)))
        except TeachingUnavailable:
            why = teaching_unavailable(link)
        self.problem = _("No tray picture: {why}").format(why=why) if why else ""

    def on_snapshot(self, snapshot: Any) -> None:
        self.ids.picture.texture = texture_of(snapshot.jpeg)
        self.caption = tower_message(snapshot.caption)
        self.has_picture = True
        self.snapshots += 1


load_kv(__package__, "teach.kv")
