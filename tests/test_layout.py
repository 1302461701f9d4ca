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
import tempfile
from pathlib import Path
from typing import Any

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
    # and on a full-HD 8" tablet (density 2): the smallest size, in French
    "density-2-fr": ("2", "960x600", "home,tekken,dice,takkure,kotd,tagteam,danchie", "", "fr"),
}


PARALLEL = 2  # tours running at once (each is one Kivy process, about 1 GB; 2 cores here)
_RUNS: dict[tuple[str, str], tuple[subprocess.Popen, Any, Any]] = {}  # process, out, err


def _cases() -> list[tuple[str, str]]:
    return [(c, lang) for c, spec in CASES.items() for lang in ([spec[4]] if spec[4] else LANGS)]


def _start(case: str, lang: str) -> None:
    density, sizes, only, also, _lang = CASES[case]
    env = dict(os.environ, KIVY_METRICS_DENSITY=density, KIVY_NO_CONSOLELOG="1",
               PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "tests.layout_run", "--sizes", sizes, "--lang", lang]
    if only:
        cmd += ["--only", only]
    if also:
        cmd += ["--also", also]
    out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")  # never a full pipe
    _RUNS[(case, lang)] = (subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=err,
                                            text=True), out, err)


def run_layout(case: str, lang: str) -> dict:
    """The tour's result for this case. The cases run PARALLEL at a time, in their own
    processes: the one asked for first, then the next ones while it is being waited for
    (make test's time is mostly these tours)."""
    if not os.environ.get("DISPLAY"):
        pytest.fail("the layout test needs an X display: run it under xvfb-run")
    if (case, lang) not in _RUNS:
        _start(case, lang)
    for other in _cases():
        running = sum(1 for p, _o, _e in _RUNS.values() if p.poll() is None)
        if running >= PARALLEL:
            break
        if other not in _RUNS:
            _start(*other)
    proc, out_file, err_file = _RUNS[(case, lang)]
    try:
        proc.wait(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    out_file.seek(0)
    err_file.seek(0)
    out, err = out_file.read(), err_file.read()
    lines = out.strip().splitlines()
    if proc.returncode != 0 or not lines or not lines[-1].startswith("{"):
        pytest.fail(f"the layout tour failed (exit {proc.returncode}):\n"
                    f"{out[-3000:]}\n{err[-3000:]}")
    return json.loads(lines[-1])


@pytest.mark.parametrize("case,lang", _cases())
def test_every_screen_fits(case: str, lang: str) -> None:
    density, sizes, only, also, _lang = CASES[case]
    result = run_layout(case, lang)
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


@pytest.mark.gui
def test_checks_find_text_below_12_sp(kivy_window) -> None:
    from kivy.uix.label import Label
    small = Label(text="KEPT", font_size="10sp", size=(200, 60), size_hint=(None, None))
    faults = layout_check.check(small, (1280, 800), 1.0)
    assert any(f.kind == "text too small" and "10.0 sp" in f.detail for f in faults), faults
    small.font_size = "12sp"
    assert not [f for f in layout_check.check(small, (1280, 800), 1.0) if f.kind == "text too small"]


@pytest.mark.gui
def test_checks_hold_sentences_to_14_sp_and_find_shortened_text(kivy_window) -> None:
    from kivy.uix.label import Label
    line = Label(text="Jeanne lost 3 HP", font_size="13sp", size=(400, 60), size_hint=(None, None))
    assert any(f.kind == "text too small" and "under 14" in f.detail
               for f in layout_check.check(line, (1280, 800), 1.0))
    line.font_size = "14sp"
    assert not [f for f in layout_check.check(line, (1280, 800), 1.0) if f.kind == "text too small"]
    # a size in markup counts like the label's own
    marked = Label(text="Pick\n[size=11sp]face 3[/size]", markup=True, font_size="20sp",
                   size=(400, 120), size_hint=(None, None))
    assert any(f.kind == "text too small" and "'face 3'" in f.detail
               for f in layout_check.check(marked, (1280, 800), 1.0))
    # a name cut with '...' is a fault; the same name in a box wide enough is not
    name = Label(text="Yamato Scrum-Half (demo team)", font_size="20sp", shorten=True,
                 size=(120, 40), size_hint=(None, None))
    name.text_size = name.size
    assert any(f.kind == "text shortened" for f in layout_check.check(name, (1280, 800), 1.0))
    name.size = name.text_size = (600, 40)
    assert not layout_check.check(name, (1280, 800), 1.0)
