"""Tag Team fighter boards: edit a Fighter's HP track (maximum, STOP, POWER GAIN and its own
icons) and initial Power, or add one of the box's other Fighters, then save the user's copy
of ``config/tagteam.yaml`` (validated first: a refused file writes nothing).

Editing is pure (``BoardEditor``) until Save; the screen only draws it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kivy.app import App
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from ...games import tagteam as tt
from ...i18n import N_, _
from .. import widgets  # noqa: F401  (its rules must load first)
from ..kv import load_kv
from ..widgets import BigButton, BigToggle, Stepper

ICON_TEXT = {tt.STOP: N_("STOP"), tt.POWER_GAIN: N_("+POWER")}


@dataclass
class BoardEditor:
    """A working copy of the Fighters with the edits a player makes on the board screen."""

    fighters: list[tt.FighterConfig]
    chosen: int = 0
    brush: str = tt.STOP            # the icon a tap on a cell toggles; "" erases the cell
    changed: set[str] = field(default_factory=set)

    @property
    def fighter(self) -> tt.FighterConfig:
        return self.fighters[self.chosen]

    def _set(self, f: tt.FighterConfig, edited: str) -> None:
        self.fighters[self.chosen] = replace(
            f, defaults=tuple(d for d in f.defaults if d != edited))
        self.changed.add(f.name)

    def step(self, key: str, delta: int) -> None:
        f = self.fighter
        if key == "max_hp":
            new = max(1, min(60, f.max_hp + delta))
            icons = tuple(i for i in f.icons if i.hp <= new)
            self._set(replace(f, max_hp=new, icons=icons,
                              start_hp=min(f.start_hp, new)), "max_hp")
        elif key == "initial_power":
            self._set(replace(f, initial_power=max(0, min(20, f.initial_power + delta))),
                      "initial_power")
        else:
            raise KeyError(key)

    def tap_cell(self, hp: int) -> None:
        """Toggle the brush's icon on a cell (several icons may share one); erase clears it."""
        f = self.fighter
        if not self.brush:
            icons = tuple(i for i in f.icons if i.hp != hp)
        elif any(i.hp == hp and i.icon == self.brush for i in f.icons):
            icons = tuple(i for i in f.icons if not (i.hp == hp and i.icon == self.brush))
        else:
            icons = tuple(sorted(f.icons + (tt.IconConfig(hp, self.brush),),
                                 key=lambda i: (-i.hp, i.icon)))
        self._set(replace(f, icons=icons), "icons")

    def add(self, name: str) -> str | None:
        """A new Fighter (20 HP, power 0, no icons until set); the error text, or None."""
        name = " ".join(name.split())
        if not name:
            return _("Type the Fighter's name first")
        if any(f.name.casefold() == name.casefold() for f in self.fighters):
            return _("{fighter} is already on the list").format(fighter=name)
        self.fighters.append(tt.FighterConfig(name=name, max_hp=20, initial_power=0))
        self.chosen = len(self.fighters) - 1
        self.changed.add(name)
        return None

    def config(self) -> tt.TagTeamConfig:
        return tt.TagTeamConfig(tuple(self.fighters))


class BoardStepper(Stepper):
    """A Stepper whose taps go to the editor (which clamps and unmarks the default)."""

    key = StringProperty("")
    screen = ObjectProperty(None, allownone=True)

    def change(self, sign: int) -> None:
        self.screen.step(self.key, sign)


class TagTeamTracksScreen(Screen):
    names = ListProperty([])
    fname = StringProperty("")
    max_hp = NumericProperty(20)
    power = NumericProperty(0)
    hp_default = BooleanProperty(False)
    power_default = BooleanProperty(False)
    icons_default = BooleanProperty(False)
    other_side = StringProperty("")
    brush = StringProperty(tt.STOP)
    dirty = BooleanProperty(False)
    summary = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.editor: BoardEditor | None = None

    def on_pre_enter(self, *args: Any) -> None:
        cfg = App.get_running_app().config_of("tagteam")
        if cfg is None:
            return
        self.editor = BoardEditor(list(cfg.fighters))
        self.dirty = False
        self.refresh(rebuild=True)

    # -- drawing -------------------------------------------------------------------------
    def refresh(self, rebuild: bool = False) -> None:
        ed = self.editor
        if ed is None:
            return
        f = ed.fighter
        self.fname, self.max_hp, self.power = f.name, f.max_hp, f.initial_power
        self.hp_default = "max_hp" in f.defaults
        self.power_default = "initial_power" in f.defaults
        self.icons_default = "icons" in f.defaults
        self.other_side = f.other_side
        self.brush = ed.brush
        self.dirty = bool(ed.changed)
        marks = ", ".join(f"{i.hp}: {_(ICON_TEXT[i.icon]) if i.icon in ICON_TEXT else i.icon}"
                          for i in f.icons)
        self.summary = _("Icons: {marks}").format(marks=marks) if marks else _("No icons on this track")
        if rebuild or [b.text for b in self.ids.fighters.children][::-1] != [x.name for x in ed.fighters]:
            box = self.ids.fighters
            box.clear_widgets()
            for i, x in enumerate(ed.fighters):
                b = BigToggle(text=x.name, group=f"ttboard-{id(self)}", font_role="body",
                              tap_dp=52, size_hint_y=None)
                b.bind(on_release=lambda _b, i=i: self.choose(i))
                box.add_widget(b)
        for b, i in zip(reversed(self.ids.fighters.children), range(len(ed.fighters))):
            b.state = "down" if i == ed.chosen else "normal"
        grid = self.ids.cells
        grid.clear_widgets()
        marks_at: dict[int, list[str]] = {}
        for mark in f.icons:
            marks_at.setdefault(mark.hp, []).append(_(ICON_TEXT[mark.icon]) if mark.icon in ICON_TEXT
                                                     else mark.icon)
        for hp in range(f.max_hp, -1, -1):
            text = (_("KO") if hp == 0 else str(hp)) + "\n" + " ".join(marks_at.get(hp, []))
            b = BigButton(text=text, font_role="body", tap_dp=52, size_hint_y=None,
                          bg=(0.45, 0.3, 0.12, 1) if hp in marks_at else (0.2, 0.21, 0.26, 1))
            b.bind(on_release=lambda _b, hp=hp: self.tap_cell(hp))
            grid.add_widget(b)

    # -- actions -------------------------------------------------------------------------
    def choose(self, index: int) -> None:
        assert self.editor is not None
        self.editor.chosen = index
        self.refresh()

    def step(self, key: str, delta: int) -> None:
        assert self.editor is not None
        self.editor.step(key, delta)
        self.refresh()

    def set_brush(self, icon: str) -> None:
        assert self.editor is not None
        self.editor.brush = icon.strip()
        self.refresh()

    def tap_cell(self, hp: int) -> None:
        assert self.editor is not None
        self.editor.tap_cell(hp)
        self.refresh()

    def add_fighter(self) -> None:
        assert self.editor is not None
        error = self.editor.add(self.ids.new_name.text)
        if error:
            App.get_running_app().toast(error)
            return
        self.ids.new_name.text = ""
        self.refresh(rebuild=True)

    def save(self) -> None:
        assert self.editor is not None
        app = App.get_running_app()
        cfg = self.editor.config()

        def done() -> None:
            if self.editor is not None:
                self.editor.changed.clear()
            self.refresh()

        app.save_game_config("tagteam", cfg, then=lambda _path: done())


load_kv(__package__, "tagteam_tracks.kv")
