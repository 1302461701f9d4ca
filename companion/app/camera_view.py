"""A camera image in a widget: cropped (to the pitch), fitted, and overlays drawn over it
(polygons and labels in image pixels). Used by the measuring and calibration views."""

from __future__ import annotations

from typing import Any

import numpy as np
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.uix.widget import Widget

from .scale import ui


class CameraView(Widget):
    """The camera image, cropped to the pitch and fitted into the widget, and the overlays
    drawn over it. Coordinates: image pixels (y down) <-> widget coordinates (y up)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.texture: Texture | None = None
        self.image_size = (1, 1)
        self.crop = (0.0, 0.0, 1.0, 1.0)          # x0, y0, x1, y1 in image pixels
        self.overlays: list[tuple[str, Any]] = []
        self.bind(pos=self.redraw, size=self.redraw)

    def _fit(self) -> tuple[float, float, float]:
        x0, y0, x1, y1 = self.crop
        w, h = max(1.0, x1 - x0), max(1.0, y1 - y0)
        scale = min(self.width / w, self.height / h)
        ox = self.x + (self.width - w * scale) / 2
        oy = self.y + (self.height - h * scale) / 2
        return scale, ox, oy

    def to_widget(self, px: float, py: float) -> tuple[float, float]:
        scale, ox, oy = self._fit()
        x0, _, _, y1 = self.crop
        return ox + (px - x0) * scale, oy + (y1 - py) * scale

    def to_image(self, wx: float, wy: float) -> tuple[float, float]:
        scale, ox, oy = self._fit()
        x0, _, _, y1 = self.crop
        return x0 + (wx - ox) / scale, y1 - (wy - oy) / scale

    def set_crop(self, box: tuple[float, float, float, float]) -> None:
        """Show this part of the image (the pitch); small changes are ignored, so the view
        does not breathe with the camera noise."""
        w, h = self.image_size
        x0, y0, x1, y1 = (max(0.0, box[0]), max(0.0, box[1]), min(float(w), box[2]),
                          min(float(h), box[3]))
        if x1 - x0 < 16 or y1 - y0 < 16:
            return
        old = self.crop
        if max(abs(a - b) for a, b in zip(old, (x0, y0, x1, y1))) > 0.03 * max(w, h) or \
                old == (0.0, 0.0, 1.0, 1.0):
            self.crop = (x0, y0, x1, y1)

    def show(self, image: np.ndarray) -> None:
        h, w = image.shape[:2]
        if self.texture is None or self.image_size != (w, h):
            self.texture = Texture.create(size=(w, h), colorfmt="bgr")
            self.texture.flip_vertical()
            self.image_size = (w, h)
            self.crop = (0.0, 0.0, float(w), float(h))
        self.texture.blit_buffer(np.ascontiguousarray(image).tobytes(), colorfmt="bgr",
                                 bufferfmt="ubyte")

    def redraw(self, *args: Any) -> None:
        self.canvas.clear()
        with self.canvas:
            Color(0.06, 0.06, 0.07, 1)
            Rectangle(pos=self.pos, size=self.size)
            if self.texture is None:
                return
            scale, ox, oy = self._fit()
            x0, y0, x1, y1 = self.crop
            w, h = self.image_size
            # the texture is flipped: its rows run from the image's bottom
            region = self.texture.get_region(int(x0), int(h - y1), int(x1 - x0), int(y1 - y0))
            Color(1, 1, 1, 1)
            Rectangle(texture=region, pos=(ox, oy),
                      size=(int(x1 - x0) * scale, int(y1 - y0) * scale))
            for kind, item in self.overlays:
                if kind == "poly":
                    pts, rgba, width = item
                    Color(*rgba)
                    flat = [c for p in pts for c in self.to_widget(*p)]
                    Line(points=flat, close=True, width=width)
                elif kind == "text":
                    (px, py), text, rgba = item
                    label = CoreLabel(text=text, font_size=ui.body, bold=True)
                    label.refresh()
                    tex = label.texture
                    x, y = self.to_widget(px, py)
                    Color(0, 0, 0, 0.6)
                    Rectangle(pos=(x - tex.width / 2 - 3, y - 3),
                              size=(tex.width + 6, tex.height + 6))
                    Color(*rgba)
                    Rectangle(texture=tex, size=tex.size, pos=(x - tex.width / 2, y))
