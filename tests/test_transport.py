"""The serial transport over a real pty: a device that stops reading makes a write fail with
``DeviceTimeout`` after the write timeout, instead of blocking for ever; closing cancels the
read the reader waits in, and hands over every byte that had arrived."""

from __future__ import annotations

import os
import threading
import time

import pytest
import serial

from popdice.devices import transport as transport_module
from popdice.devices.transport import SerialTransport
from popdice.errors import DeviceTimeout


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


def test_close_cancels_the_read_instead_of_waiting_it_out(monkeypatch) -> None:
    monkeypatch.setattr(transport_module, "_READ_TIMEOUT_S", 5.0)
    device, host = os.openpty()
    try:
        transport = SerialTransport(os.ttyname(host), lambda _data: None, lambda _error: None)
        time.sleep(0.05)  # the reader is waiting in its five-second read
        transport.close()
        # close joins the reader for at most a second: had it waited the read out, the
        # reader would still be in it
        assert not transport._thread.is_alive()
    finally:
        os.close(device)


class HeldPort:
    """A port in the manner of pyserial's POSIX one, fed by the test: a read waits for bytes
    or a cancel, and a cancel made while no read waits ends the next read with nothing."""

    def __init__(self) -> None:
        self.timeout = 5.0
        self.waiting = bytearray()
        self.cancelled = False
        self.changed = threading.Condition()

    @property
    def in_waiting(self) -> int:
        with self.changed:
            return len(self.waiting)

    def arrive(self, data: bytes) -> None:
        with self.changed:
            self.waiting += data
            self.changed.notify_all()

    def read(self, size: int) -> bytes:
        with self.changed:
            self.changed.wait_for(lambda: self.cancelled or self.waiting, self.timeout)
            if self.cancelled:
                self.cancelled = False
                return b""
            data, self.waiting[:] = bytes(self.waiting[:size]), self.waiting[size:]
            return data

    def cancel_read(self) -> None:
        with self.changed:
            self.cancelled = True
            self.changed.notify_all()

    def reset_input_buffer(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_bytes_that_arrived_before_close_are_handed_over(monkeypatch) -> None:
    port = HeldPort()
    monkeypatch.setattr(serial, "serial_for_url", lambda *_args, **_kwargs: port)
    received: list[bytes] = []
    handing_over, go_on = threading.Event(), threading.Event()

    def on_bytes(data: bytes) -> None:
        received.append(data)
        handing_over.set()
        go_on.wait(5)

    transport = SerialTransport("held", on_bytes, lambda _error: None)
    port.arrive(b"first")
    assert handing_over.wait(5)
    # More arrives while the reader hands over "first", and close cancels a read that is
    # not waiting yet: the next read ends with nothing, and "second" must not be lost.
    port.arrive(b"second")
    closing = threading.Thread(target=transport.close)
    closing.start()
    with port.changed:
        assert port.changed.wait_for(lambda: port.cancelled, 5), "close did not cancel the read"
    go_on.set()
    closing.join(5)
    assert not closing.is_alive() and not transport._thread.is_alive()
    assert b"".join(received) == b"firstsecond"
