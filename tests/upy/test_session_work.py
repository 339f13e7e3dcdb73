"""Work a host starts (a burst) belongs to its link session and ends with it: a new hello,
or the host gone quiet (its port closed). Its unacknowledged events leave the outbox; events
nobody started and those of the current session are kept. A file of its own: each test
runs a whole device, which the link tests' harnesses, left running, would crowd out."""

import asyncio
import gc

from fakeport import FakePort

from popdice_fw import PROTOCOL


def device():
    from popdice_fw.device import Device

    gc.collect()  # the last test's device: the fake port keeps every frame it was sent
    app = Device(port=FakePort())
    app.task = asyncio.create_task(app.link.run())
    return app


async def shut(app):
    """Stops the device's link and its work, so that the next test has the heap."""
    for entry in getattr(app.link, "_work", ()):
        entry[0].cancel()
    app.link.stop()
    await asyncio.wait_for_ms(app.task, 3000)
    app.link._port.frames.clear()


async def answer(port, message, predicate):
    """Sends ``message`` until a frame that matches comes, as a host resends after its
    timeout: a full transmit queue drops an answer (docs/link.md)."""
    for _ in range(5):
        port.send(message)
        try:
            return await port.wait_frame(predicate, 400)
        except AssertionError:
            pass
    raise AssertionError("no answer to %r" % (message,))


async def hello(port, nonce):
    message = {"t": "hello", "nonce": nonce, "proto": PROTOCOL}
    reply = await answer(port, message, lambda f: f["t"] == "hello" and f["nonce"] == nonce)
    return port.frames.index(reply), reply


async def call(app, seq, name, **args):
    message = {"t": "cmd", "d": app.link.session, "s": seq, "c": name, "a": args}
    return await answer(
        app.link._port, message, lambda f: f["t"] in ("res", "err") and f.get("s") == seq
    )


def bursts_after(port, start):
    return [f for f in port.frames[start:] if isinstance(f, dict) and f.get("k") == "burst"]


async def test_a_new_hello_ends_the_bursts_of_the_last_session():
    app = device()
    try:
        port = app.link._port
        await hello(port, "first")
        press = app.link.emit("button", {"button": "mode", "edge": "press"})  # nobody's work
        assert (await call(app, 1, "burst", n=100000))["v"] == {"n": 100000}
        assert (await call(app, 2, "burst", n=100000))["v"] == {"n": 100000}
        await port.wait_frame(lambda f: f.get("k") == "burst" and f["v"]["i"] == 10)
        port.send({"t": "ack", "d": app.link.session, "e": press + 5})  # some acknowledged
        await asyncio.sleep_ms(50)
        assert app.link.unacked() == 32, "the bursts fill the outbox when nobody acknowledges"
        start, reply = await hello(port, "second")  # the host closed the port; another opened it
        assert app.link.unacked() == 0 and app.link.running_work() == 0
        assert reply["acked"] == reply["event"], "the withdrawn events are not owed to anybody"
        await asyncio.sleep_ms(300)
        assert bursts_after(port, start) == [], "the new session got the last one's events"
        assert (await call(app, 3, "burst", n=3))["v"] == {"n": 3}, "a new burst is not busy"
        for _ in range(100):
            await asyncio.sleep_ms(10)
            if len(bursts_after(port, start)) >= 3:
                break
        assert sorted({f["v"]["i"] for f in bursts_after(port, start)}) == [0, 1, 2]
        assert app.link.stats["events_withdrawn"] >= 1
    finally:
        await shut(app)


async def test_events_nobody_started_and_those_of_the_current_session_are_kept():
    app = device()
    try:
        port = app.link._port
        await hello(port, "first")
        assert (await call(app, 1, "burst", n=100000))["v"] == {"n": 100000}
        await port.wait_frame(lambda f: f.get("k") == "burst" and f["v"]["i"] == 5)
        press = app.link.emit("button", {"button": "mode", "edge": "press"})
        start, _ = await hello(port, "second")
        assert [entry[0] for entry in app.link._outbox] == [press], "the press was withdrawn"
        assert (await call(app, 2, "burst", n=5))["v"] == {"n": 5}
        for _ in range(100):
            await asyncio.sleep_ms(10)
            if not app.link.running_work():
                break
        kept = [(entry[1], entry[2].get("i")) for entry in app.link._outbox]
        assert kept == [("button", None)] + [("burst", i) for i in range(5)], kept
        after = port.frames[start:]
        assert [f["k"] for f in after if f.get("e") == press][:1] == ["button"]
        got = sorted({f["v"]["i"] for f in after if f.get("k") == "burst"})
        assert got == list(range(5)), "the current session's burst lost events"
        assert app.link.stats["events_dropped"] == 0
    finally:
        await shut(app)


async def test_the_host_gone_quiet_ends_the_bursts_it_started():
    app = device()
    try:
        port = app.link._port
        app.link.host_gone_ms = 600
        await hello(port, "first")
        assert (await call(app, 1, "burst", n=100000))["v"] == {"n": 100000}
        assert (await call(app, 2, "burst", n=100000))["v"] == {"n": 100000}
        await asyncio.sleep_ms(300)
        assert app.link.unacked() == 32 and app.link.running_work() == 2
        await asyncio.sleep_ms(900)  # the port closed: no acknowledgement, no frame
        assert app.link.running_work() == 0 and app.link.unacked() == 0
        assert app.link.stats["hosts_gone"] == 1
        port.frames.clear()
        await asyncio.sleep_ms(300)
        assert bursts_after(port, 0) == []
        reply = await call(app, 3, "burst", n=1)
        assert reply.get("v") == {"n": 1}, reply
    finally:
        await shut(app)
