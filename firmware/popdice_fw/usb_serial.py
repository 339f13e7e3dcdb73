"""The USB serial port (the REPL's stdin and stdout) as an asyncio byte stream.

Reads wait for input without blocking the loop, then take every byte already waiting;
writes wait until the port can take them (on the simulator a host that is not reading
makes the port refuse bytes instead of freezing the firmware).
"""

import asyncio
import select
import sys


class UsbSerial:
    def __init__(self, stream_in=None, stream_out=None):
        self._in = stream_in or sys.stdin.buffer
        self._out = stream_out or sys.stdout.buffer
        self._reader = asyncio.StreamReader(self._in)
        self._writer = asyncio.StreamWriter(self._out, {})
        self._poll = select.poll()
        self._poll.register(self._in, select.POLLIN)
        self._byte = bytearray(1)

    def _waiting(self):
        for _, events in self._poll.ipoll(0):
            return events & select.POLLIN
        return False

    async def read(self, buf):
        """Waits for input, then fills ``buf`` with what is waiting; 0 means end of input."""
        first = await self._reader.read(1)
        if not first:
            return 0
        buf[0] = first[0]
        n = 1
        one = self._byte
        while n < len(buf) and self._waiting():
            if not self._in.readinto(one):  # pyright: ignore[reportAttributeAccessIssue]
                break
            buf[n] = one[0]
            n += 1
        return n

    async def write(self, data):
        self._writer.write(data)
        await self._writer.drain()
