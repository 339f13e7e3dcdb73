"""The handheld's client: Lowdown's secret dice (shared/spec/hardware.md, "The handheld")."""

from __future__ import annotations

from .client import DeviceClient


class Handheld(DeviceClient):
    """The handheld: Lowdown's secret dice."""

    board = "handheld"
