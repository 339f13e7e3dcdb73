"""The serial transport over a real pty: a device that stops reading makes a write fail with
``DeviceTimeout`` after the write timeout, instead of blocking for ever."""

from __future__ import annotations

import os
import time

import pytest

from popdice.errors import DeviceTimeout
from popdice.transport import SerialTransport


def test_a_write_the_device_never_reads_times_out() -> None:
    device, host = os.openpty()
    try:
        transport = SerialTransport(
            os.ttyname(host), lambda _data: None, lambda _error: None, write_timeout=0.3
        )
        started = time.monotonic()
        with pytest.raises(DeviceTimeout, match=r"took no data for 0\.3 s"):
            for _ in range(10_000):
                transport.write(b"x" * 4096)
        assert time.monotonic() - started < 10
        transport.close()
    finally:
        os.close(device)
