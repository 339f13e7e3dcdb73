"""Runs Python code as if on Windows or macOS, here on Linux, for the portability tests:
``python as_platform.py PLATFORM PORTS CODE``. PLATFORM is ``win32`` or ``darwin``; PORTS is
a JSON object of the serial ports the system lists, ``{name: [vid, pid, opens]}``, each
opening ``opens`` (a real port here) when opened by its name; CODE then runs.

What is faked: ``sys.platform``; on Windows, the POSIX-only modules (termios, tty, pty,
fcntl, resource, pwd, grp) cannot be imported, ``os`` has no ``getuid``, and ``os.kill``
refuses signal 0, which on Windows would end the process; the serial port listing; and the
ports' names. Modules that pick their implementation by platform when imported (asyncio,
subprocess, pyserial, mpremote's console) are imported first, as this machine's: they are
not what is tested.
"""

import asyncio  # noqa: F401
import json
import os
import selectors  # noqa: F401
import socket  # noqa: F401
import subprocess  # noqa: F401
import sys

import mpremote.transport_serial  # noqa: F401
import serial
import serial.tools.list_ports
from serial.tools.list_ports_common import ListPortInfo

PLATFORM, PORTS, CODE = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
POSIX_ONLY = ("termios", "tty", "pty", "fcntl", "resource", "pwd", "grp")

if PLATFORM == "win32":
    for module in POSIX_ONLY:
        sys.modules[module] = None  # type: ignore[assignment]  # import raises ImportError
    for call in ("getuid", "geteuid", "getgid"):
        if hasattr(os, call):
            delattr(os, call)
    posix_kill = os.kill

    def kill(pid: int, signal: int) -> None:
        if signal == 0:
            raise AssertionError("os.kill(pid, 0) ends the process on Windows")
        posix_kill(pid, signal)

    os.kill = kill
sys.platform = PLATFORM


def comports(include_links: bool = False) -> list[ListPortInfo]:
    listed = []
    for name, (vid, pid, _opens) in PORTS.items():
        info = ListPortInfo(name, skip_link_detection=True)
        info.vid, info.pid = vid, pid
        listed.append(info)
    return listed


open_url = serial.serial_for_url


def serial_for_url(url: str, *args, **kwargs):
    return open_url(PORTS[url][2] if url in PORTS else url, *args, **kwargs)


serial.tools.list_ports.comports = comports
serial.serial_for_url = serial_for_url
exec(compile(CODE, "<code>", "exec"), {"__name__": "__main__"})
