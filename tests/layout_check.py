"""Layout faults of what is on screen, found by walking Kivy's widget tree (no Kivy import at
module level: the checks run inside a process that has a window).

A fault names the widget by its path from the screen (``TekkenGameScreen/BoxLayout[0]/
FighterPanel#left/Label#hp_label``: class, then ``#id`` when the kv file gives it one, else
its index among its parent's children in drawing order) and says what is wrong:

- ``outside the window``: a widget reaches past the window's edge;
- ``outside its parent``: a child reaches past its parent's box (a ScrollView's content,
  which is meant to be larger, and the screens of a ScreenManager are not checked; what is
  inside a ScrollView's content is, but may lie outside the window);
- ``overlaps``: two siblings that both show something cover each other (a FloatLayout's or
  RelativeLayout's children that are meant to stack say so with ``layout_overlay: True``);
- ``word broken``: a wrapped Label split a word across two lines ("Bloc / ked!");
- ``text clipped``: a Label's text is larger than its box, or lines were dropped;
- ``tap target``: a button smaller than 48 dp in width or height;
- ``text too small``: text drawn below the type scale (``companion/app/theme.py``): nothing
  at all below 12 sp, and nothing of more than one word (a sentence, a log, an instruction)
  below 14 sp, at any window size; a ``[size=...]`` in markup counts like the label's size;
- ``text shortened``: a Label drew its text cut with "..." (names, instructions and roll
  sentences wrap instead).

Hidden widgets (opacity 0, zero size, a HideBox not shown) and everything under them are
skipped, as are widgets of a screen that is not the current one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

TOLERANCE_PX = 1.5          # rounding of layouts: a pixel and a half is not a fault
MIN_TARGET_DP = 48
MIN_TEXT_SP = 12            # the smallest text a player is asked to read (a one-word tag)
MIN_BODY_SP = 14            # the smallest text of more than one word
TAG_LETTERS = 10            # a tag is one word of at most this many letters
SIZE_TAG = re.compile(r"\[size=([0-9.]+)(sp|dp|px)?\]")
MIN_OVERLAP_DP = 3          # siblings touching by less than this are adjacent, not overlapping

MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")


@dataclass(frozen=True)
class Fault:
    path: str
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.kind}: {self.detail}"


def plain(text: str) -> str:
    return MARKUP.sub("", text).replace("&bl;", "[").replace("&br;", "]").replace("&amp;", "&")


_ID_NAMES: dict[int, str] = {}      # id(widget) -> its kv id, for the tree being checked


def name_of(widget: Any, index: int | None) -> str:
    wid = _ID_NAMES.get(id(widget))
    if wid:
        return f"{type(widget).__name__}#{wid}"
    return type(widget).__name__ + (f"[{index}]" if index is not None else "")


def _collect_ids(root: Any) -> None:
    """The ids the kv rules gave, looked up once for the whole tree."""
    _ID_NAMES.clear()
    for w in root.walk(restrict=True):
        for key, value in getattr(w, "ids", {}).items():
            try:
                target = getattr(value, "__self__", value)
            except ReferenceError:      # an id's widget taken out of the tree and gone
                continue
            _ID_NAMES.setdefault(id(target), key)


def window_box(widget: Any) -> tuple[float, float, float, float]:
    """The widget's box in window pixels (x0, y0, x1, y1), through any Scatter's turn."""
    x, y = widget.pos
    w, h = widget.size
    corners = [widget.to_window(cx, cy) for cx, cy in ((x, y), (x + w, y), (x, y + h),
                                                        (x + w, y + h))]
    xs = [c[0] for c in corners]
    ys = [c[1] for c in corners]
    return min(xs), min(ys), max(xs), max(ys)


def hidden(widget: Any) -> bool:
    if widget.opacity <= 0.01 or widget.width < 1 or widget.height < 1:
        return True
    return getattr(widget, "shown", True) is False


def shows_something(widget: Any) -> bool:
    """A widget a player sees: text, a button, a picture, a drawing of the app's own (HP bar,
    pips), or a box holding one of those."""
    from kivy.uix.behaviors import ButtonBehavior
    from kivy.uix.image import Image
    from kivy.uix.label import Label
    from kivy.uix.textinput import TextInput

    if isinstance(widget, Label) and not isinstance(widget, ButtonBehavior):
        return bool(widget.text.strip())
    if isinstance(widget, (ButtonBehavior, Image, TextInput)):
        return True
    if not widget.children:
        return type(widget).__module__.startswith("companion.app.widgets")
    return any(shows_something(c) for c in widget.children if not hidden(c))


def walk(widget: Any, path: str) -> Iterator[tuple[Any, str]]:
    yield widget, path
    children = list(reversed(widget.children))         # drawing order
    for i, child in enumerate(children):
        if hidden(child):
            continue
        yield from walk(child, f"{path}/{name_of(child, i)}")


def check(root: Any, window_size: tuple[int, int], dp: float, root_path: str = "") -> list[Fault]:
    """Every fault under ``root`` (a screen, a popup) in a window of ``window_size`` pixels
    where one dp is ``dp`` pixels."""
    from kivy.uix.behaviors import ButtonBehavior
    from kivy.uix.label import Label
    from kivy.uix.screenmanager import ScreenManager
    from kivy.uix.scrollview import ScrollView

    faults: list[Fault] = []
    _collect_ids(root)
    W, H = window_size
    tol = TOLERANCE_PX
    in_scroll: set[int] = set()
    outside: set[int] = set()        # reported: their children are not reported again
    for widget, path in walk(root, root_path or name_of(root, None)):
        box = window_box(widget)
        parent = widget.parent
        scrolled = parent is not None and id(parent) in in_scroll
        if isinstance(widget, ScrollView) or scrolled:
            in_scroll.add(id(widget))
        if parent is not None and id(parent) in outside:
            outside.add(id(widget))
        else:
            # a ScrollView's content may reach past the window (it scrolls there), but
            # everything in it must still fit in its own parent
            if not scrolled and (box[0] < -tol or box[1] < -tol or box[2] > W + tol
                                 or box[3] > H + tol):
                outside.add(id(widget))
                faults.append(Fault(path, "outside the window",
                                    f"box {_fmt(box, dp)} dp, window {W / dp:.0f}x{H / dp:.0f} dp"))
            elif parent is not None and widget is not root and not isinstance(
                    parent, (ScreenManager, ScrollView)) and hasattr(parent, "to_window"):
                pbox = window_box(parent)
                if (box[0] < pbox[0] - tol or box[1] < pbox[1] - tol or box[2] > pbox[2] + tol
                        or box[3] > pbox[3] + tol):
                    outside.add(id(widget))
                    faults.append(Fault(path, "outside its parent",
                                        f"box {_fmt(box, dp)} dp, parent {_fmt(pbox, dp)} dp"))
        faults.extend(_overlaps(widget, path, dp))
        if isinstance(widget, Label):
            faults.extend(_label_faults(widget, path, dp))
        if isinstance(widget, ButtonBehavior) and not widget.disabled and (
                widget.width < MIN_TARGET_DP * dp - tol or widget.height < MIN_TARGET_DP * dp - tol):
            faults.append(Fault(path, "tap target",
                                f"{widget.width / dp:.0f}x{widget.height / dp:.0f} dp, under "
                                f"{MIN_TARGET_DP} dp ({_text_of(widget)!r})"))
    return faults


def _overlaps(widget: Any, path: str, dp: float) -> list[Fault]:
    from kivy.uix.scrollview import ScrollView

    if isinstance(widget, ScrollView):
        return []
    kids = [(i, c) for i, c in enumerate(reversed(widget.children))
            if not hidden(c) and shows_something(c) and not getattr(c, "layout_overlay", False)]
    faults = []
    m = MIN_OVERLAP_DP * dp
    for n, (i, a) in enumerate(kids):
        ba = window_box(a)
        for j, b in kids[n + 1:]:
            bb = window_box(b)
            ox = min(ba[2], bb[2]) - max(ba[0], bb[0])
            oy = min(ba[3], bb[3]) - max(ba[1], bb[1])
            if ox > m and oy > m:
                faults.append(Fault(f"{path}/{name_of(a, i)}", "overlaps",
                                    f"{name_of(b, j)} by {ox / dp:.0f}x{oy / dp:.0f} dp"))
    return faults


def _rendered_lines(label: Any) -> list[str]:
    core = label._label
    lines = getattr(core, "_cached_lines", None) or []
    out = []
    for line in lines:
        out.append("".join(getattr(w, "text", "") for w in getattr(line, "words", [])))
    return out


def _label_faults(label: Any, path: str, dp: float) -> list[Fault]:
    text = plain(label.text) if label.markup else label.text
    if not text.strip():
        return []
    from kivy.metrics import sp

    faults = []
    for part, size in _sized_parts(label, text, dp):
        floor = MIN_TEXT_SP if _is_tag(part) else MIN_BODY_SP
        if size < sp(floor) - 0.5:
            faults.append(Fault(path, "text too small",
                                f"{part[:40]!r}: {size / sp(1):.1f} sp, under {floor}"))
            break
    label.texture_update()
    tw, th = label.texture_size
    tol = TOLERANCE_PX
    if tw > label.width + tol or th > label.height + tol:
        faults.append(Fault(path, "text clipped",
                            f"{text[:40]!r}: text {tw / dp:.0f}x{th / dp:.0f} dp in a "
                            f"{label.width / dp:.0f}x{label.height / dp:.0f} dp box"))
        return faults
    lines = _rendered_lines(label)
    if not lines:
        return faults
    shown = "".join(lines)
    if label.shorten and _letters(shown.replace("...", "").replace("\u2026", "")) < \
            _letters(text):
        faults.append(Fault(path, "text shortened",
                            f"{text[:40]!r} drawn as {' / '.join(lines)[:60]!r} in its "
                            f"{label.width / dp:.0f} dp wide box"))
    elif not label.shorten and _letters(shown) < _letters(text):
        faults.append(Fault(path, "text clipped",
                            f"{text[:40]!r}: only {' / '.join(lines)[:60]!r} fits in its "
                            f"{label.width / dp:.0f}x{label.height / dp:.0f} dp box"))
    if label.text_size[0] is not None:
        broken = _broken_word(text, lines)
        if broken:
            faults.append(Fault(path, "word broken", f"{broken!r} in {text[:50]!r}"))
    return faults


def _is_tag(text: str) -> bool:
    words = text.split()
    return len(words) <= 1 and _letters(text) <= TAG_LETTERS


def _sized_parts(label: Any, text: str, dp: float) -> list[tuple[str, float]]:
    """The label's text in the sizes it is drawn at: the whole at its font size, or, with
    markup, each ``[size=...]`` part at its own size and the rest at the label's."""
    if not label.markup or "[size=" not in label.text:
        return [(text, label.font_size)]
    from kivy.metrics import sp

    parts = []
    rest = label.text
    outer = []
    for chunk in re.split(r"(\[size=[^\]]*\].*?\[/size\])", rest, flags=re.S):
        m = SIZE_TAG.match(chunk)
        if m:
            value, unit = float(m.group(1)), m.group(2) or "px"
            px = value * (sp(1) if unit == "sp" else dp if unit == "dp" else 1)
            inner = plain(chunk)
            if inner.strip():
                parts.append((inner, px))
        else:
            outer.append(plain(chunk))
    whole = " ".join(o for o in outer if o.strip())
    if whole.strip():
        parts.insert(0, (whole, label.font_size))
    return parts


def _letters(text: str) -> int:
    return sum(1 for ch in text if not ch.isspace())


def _broken_word(text: str, lines: list[str]) -> str | None:
    """The word a wrap split (its two halves joined by '/'), or None."""
    pos = 0
    prev_end = None
    for line in lines:
        body = line.strip()
        if not body:
            continue
        at = text.find(body, pos)
        if at < 0:                    # a shortened line ('...') cannot be located: stop
            return None
        if prev_end is not None and at == prev_end and at > 0 and text[at - 1].isalnum() \
                and text[at].isalnum():
            start = at
            while start > 0 and not text[start - 1].isspace():
                start -= 1
            end = at
            while end < len(text) and not text[end].isspace():
                end += 1
            return text[start:at] + "/" + text[at:end]
        prev_end = at + len(body)
        pos = prev_end
    return None


def _text_of(widget: Any) -> str:
    return str(getattr(widget, "text", "") or type(widget).__name__)[:30]


def _fmt(box: tuple[float, float, float, float], dp: float) -> str:
    x0, y0, x1, y1 = (v / dp for v in box)
    return f"({x0:.0f},{y0:.0f})-({x1:.0f},{y1:.0f})"
