"""A small SVG canvas for the pictures: shapes and text in, one standalone document out.

Coordinates are rounded to whole numbers (or one decimal where a curve needs it) and
attributes are written in a fixed order, so the same drawing is the same bytes every time.
"""

from __future__ import annotations

from html import escape

DRAWN_BY = "drawn by python -m popdice_lab.pictures (make pictures)"


def number(value: float) -> str:
    """``value`` as SVG wants it: a whole number, or one decimal if it has a fraction."""
    rounded = round(value, 1)
    if rounded == int(rounded):
        return str(int(rounded))
    return f"{rounded:.1f}"


def colour(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


class Canvas:
    """A picture being drawn: call the shape methods, then ``document()``. Keyword arguments
    ``extra`` are further attributes, underscores standing for hyphens (``stroke_width``)."""

    def __init__(self, width: int, height: int, background: str = "white") -> None:
        self.width = width
        self.height = height
        self.parts: list[str] = []
        self.rect(0, 0, width, height, background)

    def rect(
        self, x: float, y: float, width: float, height: float, fill: str, **extra: str
    ) -> None:
        at = {"x": number(x), "y": number(y), "width": number(width), "height": number(height)}
        self._element("rect", {**at, "fill": fill}, extra)

    def circle(self, x: float, y: float, radius: float, fill: str, **extra: str) -> None:
        at = {"cx": number(x), "cy": number(y), "r": number(radius)}
        self._element("circle", {**at, "fill": fill}, extra)

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str, **extra: str) -> None:
        ends = {"x1": number(x1), "y1": number(y1), "x2": number(x2), "y2": number(y2)}
        self._element("line", {**ends, "stroke": stroke}, extra)

    def polyline(self, points: list[tuple[float, float]], stroke: str, **extra: str) -> None:
        self._element(
            "polyline", {"points": _points(points), "fill": "none", "stroke": stroke}, extra
        )

    def polygon(self, points: list[tuple[float, float]], fill: str) -> None:
        self._element("polygon", {"points": _points(points), "fill": fill}, {})

    def text(
        self,
        x: float,
        y: float,
        content: str,
        size: int = 12,
        anchor: str = "start",
        fill: str = "#222222",
        weight: str = "normal",
    ) -> None:
        at = {"x": number(x), "y": number(y), "font-size": str(size)}
        if anchor != "start":
            at["text-anchor"] = anchor
        if weight != "normal":
            at["font-weight"] = weight
        self._element("text", {**at, "fill": fill}, {}, content)

    def _element(
        self, tag: str, attributes: dict[str, str], extra: dict[str, str], content: str = ""
    ) -> None:
        pairs = [*attributes.items(), *((k.replace("_", "-"), v) for k, v in extra.items())]
        written = " ".join(f'{name}="{escape(value)}"' for name, value in pairs)
        if content:
            self.parts.append(f"<{tag} {written}>{escape(content)}</{tag}>")
        else:
            self.parts.append(f"<{tag} {written}/>")

    def document(self) -> bytes:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
            f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" '
            'font-family="sans-serif">'
        )
        return ("\n".join([head, *self.parts, "</svg>"]) + "\n").encode()


def _points(points: list[tuple[float, float]]) -> str:
    return " ".join(f"{number(x)},{number(y)}" for x, y in points)
