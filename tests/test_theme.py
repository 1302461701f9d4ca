"""The type scale (companion/app/theme.py) and that every text size comes from it (issue 28)."""

from __future__ import annotations

import gc
import re
from pathlib import Path

import pytest

from companion.app import theme

ROOT = Path(__file__).resolve().parents[1]
KS = [0.75 + i * 0.05 for i in range(16)]      # every scale factor from 960x600 to 1920x1200


def test_nothing_below_12_sp_and_only_the_tag_below_14() -> None:
    for k in KS:
        for role in theme.ROLES:
            size = theme.size_sp(role, k)
            assert size >= theme.MIN_SP
            if role != "tag":
                assert size >= theme.BODY_MIN_SP, (role, k)


def test_headline_figures_at_least_32_sp() -> None:
    for k in KS:
        assert theme.size_sp("figure", k) >= theme.FIGURE_MIN_SP
        assert theme.size_sp("hero", k) >= theme.FIGURE_MIN_SP


def test_the_roles_keep_their_order_at_every_size() -> None:
    for k in KS:
        sizes = [theme.size_sp(r, k) for r in theme.ROLES]
        assert sizes == sorted(sizes), k
    # and grow with the window: 1600x1000 dp draws larger than 960x600 dp
    assert theme.size_sp("body", 1.25) > theme.size_sp("body", 0.75)


def test_an_unknown_role_is_named() -> None:
    with pytest.raises(ValueError, match="'huge'.*body"):
        theme.size_sp("huge", 1.0)


def test_old_sizes_map_to_the_nearest_role() -> None:
    assert theme.role_of_design(17) == "body"
    assert theme.role_of_design(47) == "figure"


def test_every_font_size_of_the_app_comes_from_the_scale() -> None:
    """No literal text size in a .kv rule, a markup tag or Python widget code: only roles."""
    offenders = []
    literal_kv = re.compile(r"font_size:.*\bsp\(|\[size=\d+(sp|dp)?\]")
    literal_py = re.compile(r"font_size=(sp\(|['\"]\d)|font_sp=|\[size=\d+(sp|dp)?\]|title_size=['\"f]")
    for path in sorted((ROOT / "companion" / "app").rglob("*")):
        if path.suffix not in (".kv", ".py") or path.name in ("theme.py", "scale.py"):
            continue
        pattern = literal_kv if path.suffix == ".kv" else literal_py
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_a_colour_used_again_and_again_has_a_name_in_the_palette() -> None:
    """The .kv files take their colours from the palette (``C.go``, ``C.quiet``...): a literal
    colour written three times or more is one the palette lacks, or a near-miss of one."""
    from collections import Counter

    literal = re.compile(r"\(?\s*(\d*\.?\d+),\s*(\d*\.?\d+),\s*(\d*\.?\d+),\s*(\d*\.?\d+)\s*\)?")
    seen: Counter[tuple[float, ...]] = Counter()
    for path in (ROOT / "companion" / "app").rglob("*.kv"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("#"):
                continue
            for m in literal.finditer(line):
                seen[tuple(round(float(v), 3) for v in m.groups())] += 1
    palette = {tuple(round(float(v), 3) for v in getattr(theme.C, name))
               for name in vars(type(theme.C)) if not name.startswith("_")}
    repeated = {c: n for c, n in seen.items() if n >= 3 and c != (0, 0, 0, 0)}
    assert not repeated, f"colours to name in theme.Palette: {repeated}"
    # and no literal is the palette's own colour written out
    assert not [c for c in seen if c in palette], [c for c in seen if c in palette]


@pytest.mark.gui
def test_a_rule_of_a_collected_widget_does_not_stop_a_resize(app) -> None:
    """A .kv rule of a widget already collected, not yet unbound, raised ReferenceError when
    the window was resized: the rules bound after it were not told, and the app stopped
    (twice in seven layout tours). The resize goes on and every other rule is told.
    (A GUI test: the type scale asks Kivy for the screen's dpi, which opens the window, and
    the app must open it first, at its own size, for the GUI tests that follow.)"""
    from companion.app.scale import UiScale

    ui = UiScale()
    told: list[float] = []
    dead = []

    def collected(*_args: object) -> None:
        # as Kivy's rule on a dead proxy: it fails until the collector unbinds it
        ui.funbind("body", collected)
        dead.append(True)
        raise ReferenceError("weakly-referenced object no longer exists")

    ui.fbind("body", collected)
    ui.fbind("body", lambda _ui, value: told.append(value))

    class Window:
        size = (960, 600)

        def bind(self, **_kw: object) -> None:
            pass

    ui.follow(Window())
    assert dead == [True]
    assert ui.k == 0.75 and told and told[-1] == ui.body


def _kivy_proxy(target: object) -> object:
    from kivy.weakproxy import WeakProxy

    return WeakProxy(target)


def _python_proxy(target: object) -> object:
    import weakref

    return weakref.proxy(target)


@pytest.mark.gui
@pytest.mark.parametrize("proxy", [_kivy_proxy, _python_proxy], ids=["widget", "canvas"])
def test_a_rule_whose_object_the_collector_never_unbound_does_not_stop_a_resize(
        app, proxy) -> None:
    """The same where the collector does not unbind the rule (the layout tour stopped so after
    it had run, 2026-12-05): a .kv rule, bound as Kivy binds one (its ``call_fn``, the object
    it sets as a weak proxy), whose object is gone. A widget's rule gets Kivy's proxy; a
    canvas instruction's (a ``Color`` whose ``rgba`` a rule sets) gets Python's, and even
    asking a dead one whether it is Kivy's raised ReferenceError (the layout tour stopped so
    later that day). The resize unbinds it and tells every other rule."""
    from types import SimpleNamespace

    from kivy.lang.builder import call_fn

    from companion.app.scale import UiScale

    class Target:  # what a rule's proxy stands for (a Label outlives a test's del)
        font_size = 0.0

    ui = UiScale()
    gone, live = Target(), Target()
    dead_rule = SimpleNamespace(count=0, value="ui.body")
    live_rule = SimpleNamespace(count=0, value="ui.body")
    for target, rule in ((gone, dead_rule), (live, live_rule)):
        ui.fbind("body", call_fn, (proxy(target), "font_size",
                                   compile("ui.body", "<rule>", "eval"), rule, {"ui": ui}))
    del gone
    gc.collect()

    class Window:
        def __init__(self, size: tuple[int, int]) -> None:
            self.size = size

        def bind(self, **_kw: object) -> None:
            pass

    ui.follow(Window((1600, 1000)))
    assert ui.k == 1.25 and live.font_size == ui.body > 0
    tried = dead_rule.count
    ui.follow(Window((960, 600)))  # unbound: the next resize does not try it again
    assert ui.k == 0.75 and live.font_size == ui.body and dead_rule.count == tried
