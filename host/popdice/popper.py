"""The popper's client: the table-centre dice (shared/spec/hardware.md, "The popper")."""

from __future__ import annotations

from .client import DeviceClient


class Popper(DeviceClient):
    """The popper: the table-centre dice."""

    board = "popper"
