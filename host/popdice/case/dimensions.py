"""Reads a board's ``case.json`` into frozen dataclasses and checks every value in it.

A missing or bad value (not a number, out of its range, a name list that is not one) is a
``PopdiceError`` of one line naming the file and the key: ``boards/popper/case.json:
dome.flange_width is missing``. Lengths are millimetres, angles degrees. Whether the parts
fit together is ``placement``'s to say; this module checks each value alone.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..deploy.files import board_data
from ..errors import PopdiceError
from ..files import MB, read_limited

CASE_LIMIT = MB
"""The largest case.json read: the real ones are a few kilobytes."""

LARGEST = 1000.0  # mm: no length in a case comes near a metre
MOST_CLEARANCE = 1.5  # mm a side: past this nothing fits, it rattles
SEGMENTS = (16, 512)
STIFF_FLOOR = 3.0  # the popper's base: the LIS3DH feels a press through it
STIFF_WALL = 2.4


@dataclass(frozen=True)
class Fit:
    clearance: float
    segments: int


@dataclass(frozen=True)
class Tray:
    height: float
    floor: float
    wall: float


@dataclass(frozen=True)
class Lid:
    thickness: float
    lip_height: float
    lip_wall: float


@dataclass(frozen=True)
class LidScrews:
    count: int
    first_angle_deg: float
    length: float
    clearance_hole: float
    pilot_hole: float
    pilot_depth: float
    boss_diameter: float
    boss_inset: float


@dataclass(frozen=True)
class Pico:
    width: float
    length: float
    thickness: float
    hole_across: float
    hole_along: float
    hole_from_end: float
    usb_overhang: float
    usb_socket_height: float
    standoff_height: float
    standoff_diameter: float
    pilot_hole: float
    pilot_depth: float


@dataclass(frozen=True)
class UsbOpening:
    width: float
    height: float


@dataclass(frozen=True)
class Dome:
    diameter: float
    flange_width: float
    flange_thickness: float
    wall: float
    margin: float
    height: float


@dataclass(frozen=True)
class Dice:
    count: int
    pixel_pitch: float
    pip_hole: float
    ring_radius: float
    first_angle_deg: float
    pixel_board: float


@dataclass(frozen=True)
class Rim:
    thickness: float
    clamp: float
    wall_around_screw: float


@dataclass(frozen=True)
class Accelerometer:
    width: float
    length: float
    pad_height: float
    pad_border: float
    pocket_depth: float


@dataclass(frozen=True)
class ModeButton:
    thread: float
    angle_deg: float
    height: float


@dataclass(frozen=True)
class Feet:
    count: int
    diameter: float
    depth: float
    first_angle_deg: float
    inset: float


@dataclass(frozen=True)
class Box:
    inner_width: float
    inner_length: float
    height: float
    floor: float
    wall: float
    corner_radius: float


@dataclass(frozen=True)
class Display:
    centre_y: float
    module_width: float
    module_length: float
    glass_width: float
    glass_length: float
    glass_thickness: float
    glass_offset_y: float
    active_width: float
    active_length: float
    active_offset_y: float
    window_margin: float
    frame_wall: float
    frame_height: float


@dataclass(frozen=True)
class Buttons:
    names: tuple[str, ...]
    thread: float
    pitch: float
    centre_y: float
    dot: float
    dot_depth: float
    dot_pitch: float
    dot_offset: float


@dataclass(frozen=True)
class Hardware:
    """One line of what a builder buys for the case (the bill of materials reads these)."""

    qty: int
    part: str
    number: str
    rating: str
    used_for: str


@dataclass(frozen=True)
class PopperCase:
    source: str
    fit: Fit
    bed_gap: float
    dome: Dome
    dice: Dice
    base: Tray
    lid: Lid
    rim: Rim
    screws: LidScrews
    pico: Pico
    usb: UsbOpening
    accelerometer: Accelerometer
    mode_button: ModeButton
    feet: Feet
    hardware: tuple[Hardware, ...]


@dataclass(frozen=True)
class HandheldCase:
    source: str
    fit: Fit
    bed_gap: float
    box: Box
    lid: Lid
    screws: LidScrews
    pico: Pico
    usb: UsbOpening
    display: Display
    buttons: Buttons
    hardware: tuple[Hardware, ...]


Case = PopperCase | HandheldCase


def load(kind: str, path: Path | None = None) -> Case:
    """The case of board ``kind`` from its ``case.json`` (or from ``path``), checked."""
    path = board_data(kind, "case.json") if path is None else path
    source = f"boards/{kind}/case.json"
    try:
        document = json.loads(read_limited(str(path), CASE_LIMIT, "case dimensions"))
    except OSError as error:
        raise PopdiceError(f"{source} cannot be read: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise PopdiceError(f"{source} is not JSON: {error}") from None
    if not isinstance(document, dict):
        raise PopdiceError(f"{source} must hold a JSON object")
    data = _Document(source, document)
    if kind == "popper":
        return _popper(data)
    return _handheld(data)


def _popper(data: _Document) -> PopperCase:
    base, dice, button, feet = (
        data.group(name) for name in ("base", "dice", "mode_button", "feet")
    )
    placed = ("count", "first_angle_deg")
    return PopperCase(
        source=data.source,
        fit=_fit(data),
        bed_gap=data.group("bed").length("gap"),
        dome=Dome(**data.group("dome").lengths(Dome)),
        dice=Dice(
            count=dice.whole("count", 1, 12),
            first_angle_deg=dice.angle("first_angle_deg"),
            **dice.lengths(Dice, but=placed),
        ),
        base=Tray(
            height=base.length("height"),
            floor=base.length("floor", least=STIFF_FLOOR),
            wall=base.length("wall", least=STIFF_WALL),
        ),
        lid=Lid(**data.group("lid").lengths(Lid)),
        rim=Rim(**data.group("rim").lengths(Rim)),
        screws=_screws(data, counted=True),
        pico=Pico(**data.group("pico").lengths(Pico)),
        usb=UsbOpening(**data.group("usb").lengths(UsbOpening)),
        accelerometer=Accelerometer(**data.group("accelerometer").lengths(Accelerometer)),
        mode_button=ModeButton(
            angle_deg=button.angle("angle_deg"),
            **button.lengths(ModeButton, but=("angle_deg",)),
        ),
        feet=Feet(
            count=feet.whole("count", 3, 12),
            first_angle_deg=feet.angle("first_angle_deg"),
            **feet.lengths(Feet, but=placed),
        ),
        hardware=_hardware(data),
    )


def _handheld(data: _Document) -> HandheldCase:
    display = data.group("display")
    buttons = data.group("buttons")
    offsets = ("centre_y", "glass_offset_y", "active_offset_y")
    return HandheldCase(
        source=data.source,
        fit=_fit(data),
        bed_gap=data.group("bed").length("gap"),
        box=Box(**data.group("box").lengths(Box)),
        lid=Lid(**data.group("lid").lengths(Lid)),
        screws=_screws(data, counted=False),
        pico=Pico(**data.group("pico").lengths(Pico)),
        usb=UsbOpening(**data.group("usb").lengths(UsbOpening)),
        display=Display(
            **{key: display.offset(key) for key in offsets},
            **display.lengths(Display, but=offsets),
        ),
        buttons=Buttons(
            names=buttons.names("names"),
            centre_y=buttons.offset("centre_y"),
            **buttons.lengths(Buttons, but=("names", "centre_y")),
        ),
        hardware=_hardware(data),
    )


def _fit(data: _Document) -> Fit:
    fit = data.group("fit")
    return Fit(
        clearance=fit.length("clearance", least=0.0, most=MOST_CLEARANCE),
        segments=fit.whole("segments", *SEGMENTS),
    )


def _screws(data: _Document, *, counted: bool) -> LidScrews:
    """The lid's screws: the popper says how many and where; the handheld has one a corner."""
    screws = data.group("lid_screws")
    placed = ("count", "first_angle_deg")
    return LidScrews(
        count=screws.whole("count", 3, 24) if counted else 4,
        first_angle_deg=screws.angle("first_angle_deg") if counted else 0.0,
        **screws.lengths(LidScrews, but=placed),
    )


def _hardware(data: _Document) -> tuple[Hardware, ...]:
    rows = data.document.get("hardware")
    where = f"{data.source}: hardware"
    if not isinstance(rows, list) or not rows:
        raise PopdiceError(f"{where} must be a list of what to buy, one object a line")
    lines: list[Hardware] = []
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            raise PopdiceError(f"{where}[{index}] must be an object")
        qty = row.get("qty")
        if isinstance(qty, bool) or not isinstance(qty, int) or not 1 <= qty <= 1000:
            raise PopdiceError(f"{where}[{index}].qty must be a whole number from 1 to 1,000")
        texts: dict[str, str] = {}
        for key in ("part", "number", "rating", "for"):
            text = row.get(key)
            if not isinstance(text, str) or not text.strip():
                raise PopdiceError(f"{where}[{index}].{key} must be a text, not empty")
            texts[key] = text
        lines.append(Hardware(qty, texts["part"], texts["number"], texts["rating"], texts["for"]))
    return tuple(lines)


class _Document:
    """A case.json being read: its groups, each an object of named values."""

    def __init__(self, source: str, document: dict[str, Any]) -> None:
        self.source = source
        self.document = document

    def group(self, name: str) -> _Group:
        values = self.document.get(name)
        if values is None:
            raise PopdiceError(f"{self.source}: {name} is missing")
        if not isinstance(values, dict):
            raise PopdiceError(f"{self.source}: {name} must be an object of named values")
        return _Group(f"{self.source}: {name}", values)


class _Group:
    """One group of a case.json (``dome``, ``pico``...): its values, each checked as read."""

    def __init__(self, where: str, values: dict[str, Any]) -> None:
        self.where = where
        self.values = values

    def _value(self, key: str) -> Any:
        if key not in self.values:
            raise PopdiceError(f"{self.where}.{key} is missing")
        return self.values[key]

    def _number(self, key: str) -> float:
        value = self._value(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise PopdiceError(f"{self.where}.{key} must be a number, not {json.dumps(value)}")
        if not math.isfinite(value):
            raise PopdiceError(f"{self.where}.{key} must be a finite number")
        return float(value)

    def length(self, key: str, *, least: float | None = None, most: float = LARGEST) -> float:
        """A length in mm: more than 0 (or at least ``least``), at most ``most``."""
        value = self._number(key)
        if least is None and value <= 0:
            raise PopdiceError(f"{self.where}.{key} must be more than 0 mm, not {value:g}")
        if least is not None and value < least:
            raise PopdiceError(f"{self.where}.{key} must be at least {least:g} mm, not {value:g}")
        if value > most:
            raise PopdiceError(f"{self.where}.{key} must be at most {most:g} mm, not {value:g}")
        return value

    def offset(self, key: str) -> float:
        """A position along an axis in mm, either side of the centre."""
        value = self._number(key)
        if abs(value) > LARGEST:
            raise PopdiceError(f"{self.where}.{key} must be within {LARGEST:g} mm of the centre")
        return value

    def angle(self, key: str) -> float:
        value = self._number(key)
        if not -360 <= value <= 360:
            raise PopdiceError(f"{self.where}.{key} must be from -360 to 360 degrees")
        return value

    def whole(self, key: str, low: int, high: int) -> int:
        value = self._value(key)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            shown = json.dumps(value)[:40]
            raise PopdiceError(
                f"{self.where}.{key} must be a whole number from {low} to {high}, not {shown}"
            )
        return value

    def names(self, key: str) -> tuple[str, ...]:
        value = self._value(key)
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(name, str) and name.strip() for name in value)
        ):
            raise PopdiceError(f"{self.where}.{key} must be a list of names, not empty")
        return tuple(value)

    def lengths(self, kind: type, but: tuple[str, ...] = ()) -> dict[str, float]:
        """Every field of the dataclass ``kind`` but those in ``but``, each a length."""
        fields: dict[str, Any] = kind.__dataclass_fields__
        return {name: self.length(name) for name in fields if name not in but}
