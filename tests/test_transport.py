"""The serial transport over a real pty: a device that stops reading makes a write fail with
``DeviceTimeout`` after the write timeout, instead of blocking for ever; closing cancels the
read the reader waits in, and hands over every byte that had arrived; a port that goes away
or cannot be used is said in PopDice's words, not pyserial's."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest
import serial

from popdice.devices import transport as transport_module
from popdice.devices.transport import SerialTransport
from popdice.errors import DeviceDisconnected, DeviceTimeout, LinkError


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


class UnpluggedPort(HeldPort):
    """A USB board pulled out: pyserial's POSIX port finds it readable with nothing to read."""

    def read(self, size: int) -> bytes:
        raise serial.SerialException(
            "device reports readiness to read but returned no data "
            "(device disconnected or multiple access on port?)"
        )


class Losses:
    """What a transport's ``on_lost`` is called with."""

    def __init__(self) -> None:
        self.errors: list[Exception] = []
        self.came = threading.Event()

    def __call__(self, error: Exception) -> None:
        self.errors.append(error)
        self.came.set()

    def only(self) -> str:
        """The one loss, as the transport says it (after waiting for it)."""
        assert self.came.wait(5), "the transport did not see the port go"
        (error,) = self.errors
        assert isinstance(error, DeviceDisconnected)
        return str(error)


def test_an_unplugged_board_is_said_in_plain_words(monkeypatch) -> None:
    monkeypatch.setattr(serial, "serial_for_url", lambda *_args, **_kwargs: UnpluggedPort())
    lost = Losses()
    transport = SerialTransport("/dev/ttyACM0", lambda _data: None, lost)
    assert lost.only() == "/dev/ttyACM0 was unplugged"
    with pytest.raises(DeviceDisconnected, match=r"^/dev/ttyACM0 was unplugged$"):
        transport.write(b"x")
    transport.close()


def test_a_pty_whose_far_end_closed_was_unplugged() -> None:
    device, host = os.openpty()
    port = os.ttyname(host)
    lost = Losses()
    transport = SerialTransport(port, lambda _data: None, lost)
    os.close(host)
    os.close(device)
    assert lost.only() == f"{port} was unplugged"
    transport.close()


@pytest.mark.parametrize(
    ("port", "said"),
    [
        ("loop://", "loop:// is a loopback with no board behind it"),
        (
            "socket://256.0.0.1:99999",
            "socket://256.0.0.1:99999 is not a host and port PopDice can connect to "
            "(the port is a number from 1 to 65535, not 99999)",
        ),
        ("socket://:99", "socket://:99 is not a host and port PopDice can connect to (no host)"),
        ("socket://pico", "socket://pico is not a host and port PopDice can connect to (no port"),
        ("/dev/nonexistent", "cannot open /dev/nonexistent: No such file or directory"),
    ],
)
def test_a_port_popdice_cannot_use_is_said_in_its_words(port: str, said: str) -> None:
    with pytest.raises(LinkError) as refused:
        SerialTransport(port, lambda _data: None, lambda _error: None)
    assert str(refused.value).startswith(said), str(refused.value)


def test_a_port_the_user_may_not_open_names_the_group_on_linux(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(*_args: object, **_kwargs: object) -> None:
        raise serial.SerialException(13, "could not open port /dev/ttyACM0: Permission denied")

    monkeypatch.setattr(serial, "serial_for_url", refused)
    monkeypatch.setattr(sys, "platform", "linux")
    with pytest.raises(LinkError) as said:
        SerialTransport("/dev/ttyACM0", lambda _data: None, lambda _error: None)
    assert str(said.value).startswith("cannot open /dev/ttyACM0: Permission denied (serial ")
    assert "usermod -aG dialout $USER" in str(said.value)
