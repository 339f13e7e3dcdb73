"""Hardware-in-the-loop harness: a pytest plugin that gives tests a device to talk to.

``--device sim`` (the default) spawns a simulated Pico per test (the unix port);
``--device rp2040`` boots MicroPython's own Pico image in an emulated RP2040 per test (if
Node, rp2040js, the bootrom or the base image is missing, its tests are skipped saying why,
or fail when ``$POPDICE_REQUIRE_RP2040`` is set, as in CI); ``--device auto`` takes the
first real board of the kind a test needs; ``--device PORT`` uses that port or pyserial
URL. Fixtures: ``popper`` and ``handheld`` (connected clients), ``popper_dut`` and
``handheld_dut`` (the device under test: port, reconnects, the simulator), and
``popper_control`` / ``handheld_control`` (the simulator's control channel: tests that need
it are skipped on real hardware, with the reason). When a test fails, each device's output
and the frames exchanged with it are added to the report.

Load it with ``pytest_plugins = ["popdice.hil"]`` in a conftest.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from .devices.client import DeviceClient
from .devices.connect import connect, connect_when_ready
from .devices.discovery import find_port

if TYPE_CHECKING:
    from .sim.control import SimControl
    from .sim.supervisor import SimulatedPico

_DUTS = pytest.StashKey[list["DeviceUnderTest"]]()
SIM_BOOT_TIMEOUT_S = 15.0
RP2040_BOOT_TIMEOUT_S = 60.0
REQUIRE_RP2040 = "POPDICE_REQUIRE_RP2040"
CONTROL_SKIP = "needs the simulated board's control channel (run with --device sim)"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("popdice", "PopDice hardware in the loop")
    group.addoption(
        "--device",
        default="sim",
        help="sim: spawn simulated Picos on the unix port (default); rp2040: MicroPython's "
        "Pico image in an emulated RP2040; auto: the first real board of the kind a test "
        "needs; or a serial port / pyserial URL",
    )


def pytest_configure(config: pytest.Config) -> None:
    device = str(config.getoption("--device"))
    workers = getattr(config.option, "numprocesses", None)
    if device not in ("sim", "rp2040") and workers:
        raise pytest.UsageError(
            f"--device {device}: real boards are shared by every test, so run them in one "
            "process (-n 0), not in parallel workers"
        )
    config.addinivalue_line("markers", "sim_only: the test needs the simulator's control channel")
    config.addinivalue_line(
        "markers",
        "rp2040_tier: one of the device tests `make test` also runs on the emulated RP2040",
    )
    config.addinivalue_line(
        "markers", "unix_only: the test needs the unix-port simulator (skipped on --device rp2040)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if str(config.getoption("--device")) != "rp2040":
        return
    for item in items:
        marker = item.get_closest_marker("unix_only")
        if marker is not None:
            reason = marker.args[0] if marker.args else "needs the unix-port simulator"
            item.add_marker(pytest.mark.skip(reason=f"not on the emulated RP2040: {reason}"))


class DeviceUnderTest:
    """One device for one test: its port, its clients, and the simulator behind it if any."""

    def __init__(self, kind: str, port: str, sim: SimulatedPico | None = None) -> None:
        self.kind = kind
        self.port = port
        self.sim = sim
        self.clients: list[DeviceClient] = []
        self._control: SimControl | None = None

    @property
    def simulated(self) -> bool:
        return self.sim is not None

    @property
    def heap_floor(self) -> int:
        """The least heap the firmware may leave free after boot: 100 KB on a Pico, real or
        emulated. On the unix port every object is twice the size (64-bit), the heap also
        holds the simulator's own ``machine``, ``neopixel`` and part models (about 30 KB that
        a Pico keeps in flash), and the viper modules are compiled there from their sources
        (their .mpy files hold the RP2040's machine code), so there it is 48 KB."""
        if self.sim is not None and self.sim.backend == "unix":
            return 48 * 1024
        return 100 * 1024

    @property
    def control(self) -> SimControl:
        if self.sim is None:
            pytest.skip(CONTROL_SKIP)
        if self._control is None:
            from .sim.control import SimControl

            self._control = SimControl(self.sim.control_path)
        return self._control

    def connect(self, port: str | None = None, **kwargs: Any) -> DeviceClient:
        """A new client on the device (or on ``port``, e.g. a proxy in front of it)."""
        client = connect(port or self.port, **kwargs)
        self.clients.append(client)
        return client

    @property
    def client(self) -> DeviceClient:
        """The first client, connected before the test ran (or on first use)."""
        return self.clients[0] if self.clients else self.connect()

    def release(self) -> None:
        """Closes every client, so that another program can open the port."""
        for client in self.clients:
            client.close()

    def output(self) -> str:
        parts = []
        if self.sim is not None:
            try:
                parts.append(self.control.output())
            except Exception as error:
                parts.append(f"(no simulator output: {error})")
        for client in self.clients:
            noise = [
                item.decode("latin-1")
                for _, direction, item in client.link.transcript
                if direction == "rx?" and isinstance(item, bytes)
            ]
            if noise:
                parts.append("bytes that were not frames:\n" + "\n".join(noise))
        return "\n".join(parts) or "(no output)"

    def frames(self) -> str:
        return "\n\n".join(
            f"client {i}:\n{client.link.format_transcript()}"
            for i, client in enumerate(self.clients)
        )

    def close(self) -> None:
        self.release()
        if self._control is not None:
            self._control.close()
        if self.sim is not None:
            self.sim.stop()


def open_device(config: pytest.Config, kind: str) -> DeviceUnderTest:
    """The device of ``kind`` that ``--device`` asks for, or a skip saying why there is none."""
    choice = str(config.getoption("--device"))
    if choice == "sim":
        from .sim.supervisor import SimulatedPico

        sim = SimulatedPico(kind)
        sim.start()
        dut = DeviceUnderTest(kind, sim.port, sim)
        # Connected before the test starts: a button pressed while the firmware boots
        # would be a button held at boot, which means safe mode.
        dut.clients.append(connect_when_ready(sim.port, SIM_BOOT_TIMEOUT_S))
        return dut
    if choice == "rp2040":
        return _emulated_device(kind)
    if choice == "auto":
        port = find_port(kind, simulated=False)
        if port is not None:
            return DeviceUnderTest(kind, port)
        pytest.skip(f"no real {kind} plugged in (USB 2E8A:0005 with PopDice firmware)")
    dut = DeviceUnderTest(kind, choice)
    if dut.client.info.board != kind:
        board = dut.client.info.board
        dut.close()
        pytest.skip(f"{choice} is a {board}; this test needs a {kind}")
    return dut


def emulator_problem() -> str | None:
    """Why the emulated RP2040 cannot run here (one line), or None if it can."""
    from .sim.rp2040.tools import problems

    found = problems()
    return "; ".join(found) if found else None


def _emulated_device(kind: str) -> DeviceUnderTest:
    from .errors import SimulatorError
    from .sim.supervisor import SimulatedPico

    problem = emulator_problem()
    if problem is not None:
        if os.environ.get(REQUIRE_RP2040):
            pytest.fail(f"the emulated RP2040 is required (${REQUIRE_RP2040}): {problem}")
        pytest.skip(f"no emulated RP2040 here: {problem}")
    sim = SimulatedPico(kind, backend="rp2040")
    try:
        sim.start()
    except SimulatorError as error:
        pytest.fail(f"the emulated {kind} did not start: {error}")
    dut = DeviceUnderTest(kind, sim.port, sim)
    try:
        dut.clients.append(connect_when_ready(sim.port, RP2040_BOOT_TIMEOUT_S))
    except BaseException:
        dut.close()
        raise
    return dut


def _dut(request: pytest.FixtureRequest, kind: str) -> Iterator[DeviceUnderTest]:
    dut = open_device(request.config, kind)
    request.node.stash.setdefault(_DUTS, []).append(dut)
    try:
        yield dut
    finally:
        dut.close()


@pytest.fixture
def popper_dut(request: pytest.FixtureRequest) -> Iterator[DeviceUnderTest]:
    yield from _dut(request, "popper")


@pytest.fixture
def handheld_dut(request: pytest.FixtureRequest) -> Iterator[DeviceUnderTest]:
    yield from _dut(request, "handheld")


@pytest.fixture
def sim_backend(request: pytest.FixtureRequest) -> str:
    """The simulator backend ``--device`` asks for: rp2040 with ``--device rp2040``, else
    unix (for tests that start simulators of their own)."""
    if str(request.config.getoption("--device")) == "rp2040":
        problem = emulator_problem()
        if problem is not None:
            if os.environ.get(REQUIRE_RP2040):
                pytest.fail(f"the emulated RP2040 is required (${REQUIRE_RP2040}): {problem}")
            pytest.skip(f"no emulated RP2040 here: {problem}")
        return "rp2040"
    return "unix"


@pytest.fixture
def popper(popper_dut: DeviceUnderTest) -> DeviceClient:
    return popper_dut.client


@pytest.fixture
def handheld(handheld_dut: DeviceUnderTest) -> DeviceClient:
    return handheld_dut.client


@pytest.fixture
def popper_control(popper_dut: DeviceUnderTest) -> SimControl:
    return popper_dut.control


@pytest.fixture
def handheld_control(handheld_dut: DeviceUnderTest) -> SimControl:
    return handheld_dut.control


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if report.failed:
        for dut in item.stash.get(_DUTS, []):
            report.sections.append((f"{dut.kind} output", dut.output()))
            report.sections.append((f"{dut.kind} frames", dut.frames()))
    return report
