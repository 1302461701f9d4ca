"""Every screen of the app, with a game in progress where it has one, at 960x600, 1280x800 and
1600x1000 dp (density 1), at density 2 (a 1920x1200 px window is 960x600 dp) and 2.5 (2400x1500 px),
and in phone
landscape (800x360 dp) for Home, the dice panel and TEKKEN: nothing outside the window or its
parent, no overlapping siblings, no word broken mid-word, no clipped text, no button under
48 dp (tests/layout_check.py says what each check is).

Each case runs the screen tour (tests/screen_tour.py) in its own Kivy process, since the
density is fixed when Kivy starts. Every screen is also checked in French at density 1 (its
words are longer); $LAYOUT_LANGS (default ``en``) sets the languages of the other cases.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import layout_check

ROOT = Path(__file__).resolve().parent.parent
LANGS = [v for v in os.environ.get("LAYOUT_LANGS", "en").split(",") if v]
PHONE = "800x360:home,dice,tekken"

CASES = {
    # density, window sizes in dp, parts of the tour, extra sizes for some stops, language
    # (None: each of $LAYOUT_LANGS)
    "density-1": ("1", "960x600,1280x800,1600x1000", "", PHONE, None),
    "density-2": ("2", "960x600", "home,tekken,saved,dice,kotd,tagteam", PHONE, None),
    # the top of the range: 960x600 dp is a 2400x1500 px window
    "density-2.5": ("2.5", "960x600", "home,tekken,dice", "", None),
    # French words are longer: every screen at every size in French too
    "density-1-fr": ("1", "960x600,1280x800,1600x1000", "", PHONE, "fr"),
}


def run_layout(density: str, sizes: str, only: str, also: str, lang: str) -> dict:
    if not os.environ.get("DISPLAY"):
        pytest.fail("the layout test needs an X display: run it under xvfb-run")
    env = dict(os.environ, KIVY_METRICS_DENSITY=density, KIVY_NO_CONSOLELOG="1",
               PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "tests.layout_run", "--sizes", sizes, "--lang", lang]
    if only:
        cmd += ["--only", only]
    if also:
        cmd += ["--also", also]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=400)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines or not lines[-1].startswith("{"):
        pytest.fail(f"the layout tour failed (exit {proc.returncode}):\n"
                    f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1])


@pytest.mark.parametrize("case,lang", [(c, lang) for c, spec in CASES.items()
                                       for lang in ([spec[4]] if spec[4] else LANGS)])
def test_every_screen_fits(case: str, lang: str) -> None:
    density, sizes, only, also, _lang = CASES[case]
    result = run_layout(density, sizes, only, also, lang)
    assert result["density"] == float(density)
    assert len(result["stops"]) >= (20 if not only else 8), result["stops"]
    faults = result["faults"]
    if faults:
        shown = "\n".join(f"{f['stop']} at {f['size']} dp: {f['path']}: {f['kind']}: "
                          f"{f['detail']}" for f in faults[:80])
        more = f"\n... and {len(faults) - 80} more" if len(faults) > 80 else ""
        pytest.fail(f"{len(faults)} layout faults ({case}, {lang}):\n{shown}{more}")


# -- the checks themselves, on widgets built here (they must catch what they claim) --------

@pytest.fixture
def kivy_window(app):
    """The GUI tests' one window (built by the app fixture, which configures it first)."""
    from kivy.core.window import Window
    return Window


def _laid_out(root, size=(400, 300)):
    from kivy.base import EventLoop
    root.size = size
    root.pos = (0, 0)
    for _ in range(3):
        root.do_layout() if hasattr(root, "do_layout") else None
        EventLoop.idle()
    return root


@pytest.mark.gui
def test_checks_find_a_word_broken_mid_word(kivy_window) -> None:
    from kivy.uix.label import Label
    label = Label(text="Blocked!", font_size="30sp", size=(60, 120), size_hint=(None, None),
                  text_size=(60, None))
    label.texture_update()
    faults = layout_check.check(label, (1280, 800), 1.0)
    assert any(f.kind == "word broken" and "Bloc" in f.detail for f in faults), faults
    label.text_size = (400, None)
    label.size = (400, 120)
    label.texture_update()
    assert not [f for f in layout_check.check(label, (1280, 800), 1.0)
                if f.kind == "word broken"]


@pytest.mark.gui
def test_checks_find_overlap_overflow_clipping_and_small_targets(kivy_window) -> None:
    from kivy.uix.button import Button
    from kivy.uix.floatlayout import FloatLayout
    from kivy.uix.label import Label

    box = FloatLayout(size_hint=(None, None))
    box.add_widget(Label(text="header", size_hint=(None, None), size=(200, 60), pos=(0, 200)))
    box.add_widget(Label(text="20 / 20", font_size="60sp", size_hint=(None, None),
                         size=(200, 40), pos=(0, 180)))           # taller text, overlapping
    box.add_widget(Button(text="+", size_hint=(None, None), size=(30, 30), pos=(300, 0)))
    box.add_widget(Label(text="off", size_hint=(None, None), size=(100, 40), pos=(350, 280)))
    _laid_out(box)
    kinds = {(f.kind, f.path.split("/")[-1]) for f in layout_check.check(box, (1280, 800), 1.0)}
    assert ("overlaps", "Label[0]") in kinds
    assert ("text clipped", "Label[1]") in kinds
    assert ("tap target", "Button[2]") in kinds
    assert ("outside its parent", "Label[3]") in kinds
    kinds = {f.kind for f in layout_check.check(box, (380, 800), 1.0)}
    assert "outside the window" in kinds


def test_broken_word_finder() -> None:
    assert layout_check._broken_word("End String", ["End Strin", "g"]) == "Strin/g"
    assert layout_check._broken_word("End String", ["End", "String"]) is None
    assert layout_check._broken_word("Blocked!", ["Blocked!"]) is None
