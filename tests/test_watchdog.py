"""The hardware watchdog: a board whose firmware hangs is restarted, and says why.

The firmware frees the REPL (as ``popdice flash`` has it do), and there a script notes a
stuck task as the supervisor does, starts the watchdog with a short timeout and never yields.
The watchdog restarts the board: on the unix port the simulator keeps it (a process that
hangs cannot stop it), on the emulated RP2040 rp2040js's own, with the reset reason and the
scratch registers kept across its reset as the chip keeps them. The firmware comes back and
its status says why it started.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

import pytest
from test_handheld_repl_wipe import wait_for_the_repl

from popdice.errors import PopdiceError
from popdice.hil import DeviceUnderTest

BACK_TIMEOUT_S = 90
_HANG = """\
from popdice_fw import watchdog
watchdog.note("sensor")
import machine
machine.WDT(timeout=100)
while True:
    pass
"""


def hang_at_the_repl(port: str) -> None:
    from mpremote.transport_serial import SerialTransport

    wait_for_the_repl(port)
    transport = SerialTransport(port, baudrate=115200)
    try:
        transport.enter_raw_repl(soft_reset=False)
        transport.exec_raw_no_follow(_HANG)
    finally:
        transport.close()


def status_once_back(dut: DeviceUnderTest) -> dict:
    deadline = time.monotonic() + BACK_TIMEOUT_S
    while True:
        try:
            return dut.connect().status_reply()
        except PopdiceError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


@pytest.mark.rp2040_tier
def test_a_board_that_hangs_is_restarted_by_the_watchdog_and_says_why(popper_dut):
    client = popper_dut.client
    assert client.status_reply()["reset"] == "power on"
    client.enter_repl()
    hang_at_the_repl(popper_dut.port)
    assert status_once_back(popper_dut)["reset"] == "watchdog: sensor stuck"


def test_firmware_that_stops_running_is_restarted_by_the_watchdog(popper_dut):
    """The whole firmware stopped (its process held by SIGSTOP, as a CPU stuck in a loop
    with interrupts off): nothing feeds the watchdog, which restarts the board."""
    if popper_dut.sim is None or popper_dut.sim.backend != "unix":
        pytest.skip("stops the unix port's process")
    state = popper_dut.control.state()
    assert state.pid is not None and popper_dut.client.status_reply()["reset"] == "power on"
    popper_dut.release()
    os.kill(state.pid, signal.SIGSTOP)
    try:
        assert status_once_back(popper_dut)["reset"] == "watchdog"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(state.pid, signal.SIGCONT)
    assert popper_dut.control.state().boots == state.boots + 1
