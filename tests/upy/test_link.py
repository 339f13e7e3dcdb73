"""The firmware's link protocol inside MicroPython, over an in-memory port."""

import asyncio
import json

from fakeport import FakePort

from popdice_fw import PROTOCOL, codec
from popdice_fw.link import CommandError, Link


class Harness:
    def __init__(self):
        self.port = FakePort()
        self.applied = 0
        self.link = Link(self.port, "popper", "e6614c311b000001", self.dispatch)
        self.task = asyncio.create_task(self.link.run())

    async def dispatch(self, name, args):
        if name == "add":
            self.applied += 1
            return {"applied": self.applied}
        if name == "slow":
            await asyncio.sleep_ms(30)
            return {"slow": True}
        if name == "boom":
            raise KeyError("x")
        raise CommandError("unknown_command", "no " + name)

    async def hello(self, nonce="n1"):
        self.port.send({"t": "hello", "nonce": nonce, "proto": PROTOCOL})
        return await self.port.wait_frame(lambda f: f["t"] == "hello" and f["nonce"] == nonce)

    def cmd(self, seq, name, session=None, **args):
        self.port.send(
            {"t": "cmd", "d": session or self.link.session, "s": seq, "c": name, "a": args}
        )

    async def reply(self, seq):
        return await self.port.wait_frame(lambda f: f["t"] in ("res", "err") and f.get("s") == seq)


async def test_boot_hello_and_handshake():
    h = Harness()
    boot = await h.port.wait_frame(lambda f: f["t"] == "hello")
    assert boot["nonce"] is None
    assert boot["board"] == "popper" and boot["id"] == "e6614c311b000001"
    assert boot["proto"] == PROTOCOL and len(boot["session"]) == 8
    reply = await h.hello("abc")
    assert reply["session"] == boot["session"] and reply["seq"] == 0


async def test_command_runs_once_and_duplicates_get_the_kept_reply():
    h = Harness()
    await h.hello()
    h.cmd(1, "add")
    first = await h.reply(1)
    assert first == {"t": "res", "d": h.link.session, "s": 1, "v": {"applied": 1}}
    h.cmd(1, "add")
    h.cmd(2, "add")
    await h.reply(2)
    assert h.applied == 2
    assert len(h.port.matching(lambda f: f.get("s") == 1)) == 2
    h.cmd(1, "add")  # older than the last: ignored
    h.cmd(3, "add")
    await h.reply(3)
    assert h.applied == 3 and h.link.stats["duplicates"] == 1
    assert (await h.hello("again"))["seq"] == 3


async def test_errors_are_frames_and_the_link_keeps_running():
    h = Harness()
    await h.hello()
    h.cmd(1, "nope")
    err = await h.reply(1)
    assert err["t"] == "err" and err["code"] == "unknown_command"
    h.cmd(2, "boom")
    err = await h.reply(2)
    assert err["code"] == "internal" and "KeyError" in err["msg"]
    h.cmd(3, "add", session="deadbeef")
    assert (await h.reply(3))["code"] == "stale_session"
    h.port.feed(b"\x07garbage\x00")
    bad = bytearray(codec.encode({"t": "ping"}))
    bad[3] ^= 0x40
    h.port.feed(bad)
    h.port.send({"t": "what"})
    h.port.send({"t": "cmd", "s": "x"})
    await h.port.wait_frame(lambda f: f["t"] == "err" and f["msg"].startswith("a command needs"))
    h.cmd(4, "add")
    assert (await h.reply(4))["v"] == {"applied": 1}
    codes = [f["code"] for f in h.port.matching(lambda f: f["t"] == "err" and "s" not in f)]
    assert codes == ["bad_frame", "bad_crc", "bad_frame", "bad_frame"], codes
    assert h.link.stats["rx_errors"] == 2


async def test_an_error_quoting_a_lone_surrogate_is_still_utf8():
    h = Harness()
    await h.hello()
    h.cmd(1, json.loads('"a\\ud800b\\udfff"'))  # a host's JSON may hold lone surrogates
    err = await h.reply(1)
    assert err["msg"] == "no a?b?", err["msg"]
    assert b"\xed\xa0" not in h.port.sent and b"\xed\xbf" not in h.port.sent
    h.cmd(2, "add")
    assert (await h.reply(2))["v"] == {"applied": 1}


async def test_a_reply_whose_write_finds_no_memory_is_written_after_all():
    h = Harness()
    await h.hello()
    write = h.port.write
    failed = []

    async def short_of_memory(data):
        if not failed:
            failed.append(data)
            raise MemoryError
        await write(data)

    h.port.write = short_of_memory
    h.cmd(1, "add")
    assert (await h.reply(1))["v"] == {"applied": 1}
    assert len(failed) == 1 and h.link.stats["duplicates"] == 0  # not the host's resend


async def test_events_are_resent_until_acknowledged():
    h = Harness()
    await h.hello()
    seq = h.link.emit("pop", {"dice": [1, 2, 3, 4, 5]})
    first = await h.port.wait_frame(lambda f: f["t"] == "evt")
    assert first["e"] == seq == 1 and first["lo"] == 1 and first["k"] == "pop"
    again = await h.port.wait_frame(lambda f: f["t"] == "evt" and f is not first)
    assert again["e"] == 1
    h.port.send({"t": "ack", "d": h.link.session, "e": 1})
    await asyncio.sleep_ms(5)
    assert h.link.unacked() == 0
    count = len(h.port.matching(lambda f: f["t"] == "evt"))
    await asyncio.sleep_ms(600)
    assert len(h.port.matching(lambda f: f["t"] == "evt")) == count


async def test_a_full_outbox_drops_the_oldest_and_says_so():
    h = Harness()
    for i in range(40):
        h.link.emit("n", {"i": i})
    assert h.link.unacked() == 32 and h.link.stats["events_dropped"] == 8
    await h.hello()
    resent = await h.port.wait_frame(lambda f: f["t"] == "evt" and f["e"] == 9 and f["lo"] == 9)
    assert resent["v"] == {"i": 8}


async def test_send_event_waits_for_room_instead_of_dropping():
    h = Harness()
    await h.hello()
    for i in range(32):
        h.link.emit("n", {"i": i})
    waiter = asyncio.create_task(h.link.send_event("n", {"i": 32}))
    await asyncio.sleep_ms(20)
    assert h.link.unacked() == 32 and h.link.stats["events_dropped"] == 0
    h.port.send({"t": "ack", "d": h.link.session, "e": 5})
    seq = await waiter
    assert seq == 33 and h.link.stats["events_dropped"] == 0


async def test_stop_ends_run_after_the_last_reply():
    h = Harness()
    await h.hello()
    h.link.stop()
    await asyncio.wait_for_ms(h.task, 10000)
    assert h.port.frames[-1]["t"] == "hello"


async def test_oversized_reply_becomes_an_error_frame():
    h = Harness()

    async def big(name, args):
        return {"blob": "z" * 600}

    h.link._dispatch = big
    await h.hello()
    h.cmd(1, "big")
    err = await h.reply(1)
    assert err["t"] == "err" and err["code"] == "too_long"


async def test_frames_that_cannot_be_answered_leave_the_link_running():
    h = Harness()
    await h.hello()
    h.port.send({"t": "hello", "nonce": "n" * 400, "proto": PROTOCOL})  # the answer: > 500 B
    await h.port.wait_frame(lambda f: f["t"] == "err" and f["msg"].startswith("nonce"))
    h.port.send({"t": "hello", "nonce": 12345, "proto": PROTOCOL})
    h.cmd(10**420, "add")
    h.cmd(10**18, "add")
    h.cmd(0, "add")
    h.cmd(-5, "add")
    await h.port.wait_frame(lambda f: f["t"] == "err" and f["msg"].startswith("s must be"))
    h.cmd(1, "add")
    assert (await h.reply(1))["v"] == {"applied": 1}, "the sequence was poisoned"
    refused = h.port.matching(lambda f: f["t"] == "err" and f["msg"].startswith("s must be"))
    assert len(refused) >= 3 and all("s" not in f for f in refused)
    assert (await h.hello("still"))["seq"] == 1


async def test_a_handler_that_raises_is_answered_and_counted():
    h = Harness()
    await h.hello()

    def broken_ack(message):
        raise MemoryError

    h.link._on_ack = broken_ack
    h.port.send({"t": "ack", "d": h.link.session, "e": 1})
    await h.port.wait_frame(lambda f: f["t"] == "err" and f["msg"] == "MemoryError")
    assert h.link.stats["handler_errors"] == 1
    h.cmd(1, "add")
    assert (await h.reply(1))["v"] == {"applied": 1}


async def test_a_link_task_that_dies_is_started_again_and_counted():
    h = Harness()
    await h.hello()

    async def broken_read(buf):
        h.port.read = real_read
        raise RuntimeError("a port that failed in a way nobody expected")

    real_read = h.port.read
    h.port.read = broken_read  # the read after the next frame fails
    h.cmd(1, "add")
    assert (await h.reply(1))["v"] == {"applied": 1}
    h.cmd(2, "add")
    assert (await h.reply(2))["v"] == {"applied": 2}, "the reader did not come back"
    assert h.link.supervisor.report() == {
        "task_failures": 1,
        "task_failed": "link reader: RuntimeError",
    }
