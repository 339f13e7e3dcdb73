"""Runs the test_* functions of one test module inside MicroPython.

Usage: micropython upytest.py [--list] PATH/test_x.py (or, where there is no sys.argv, as on
a Pico: ``import upytest; upytest.main("PATH/test_x.py")``).
Prints first ``tests: [...]``, the names it will run, in order (all, with ``--list``), then
one JSON line per test: {"test", "ok", "error", "ms"} (``ms``: how long it ran, in the
interpreter's ticks). A test that returns a coroutine is run with asyncio. A test that tries
to end the interpreter (``sys.exit``) fails, and the tests after it still run. The pytest
collector in tests/upy/conftest.py starts this and reports each test as an item of
its own; a listed test with no line (the interpreter died) is reported as failed.
"""

import gc
import io
import json
import sys
import time

LISTED = "tests: "


def _run(fn):
    result = fn()
    if result is not None and hasattr(result, "send"):
        import asyncio

        # A fresh loop: tasks an earlier test left running (a link's retransmitter, its
        # port keeping every frame) would take this one's time and heap.
        asyncio.new_event_loop()
        asyncio.run(result)


def _traceback(exc):
    text = io.StringIO()
    sys.print_exception(exc, text)
    return text.getvalue()


def main(path, run=True):
    folder, _, filename = path.rpartition("/")
    sys.path.insert(0, folder or ".")
    module = __import__(filename[:-3])
    names = sorted(n for n in dir(module) if n.startswith("test_"))
    print(LISTED + json.dumps(names))
    if not run:
        return
    for name in names:
        fn = getattr(module, name)
        error = None
        gc.collect()  # each test starts from the heap the last one left, as one boot would
        started = time.ticks_ms()
        try:
            _run(fn)
        except Exception as exc:  # noqa: BLE001 - every failure is reported, not raised
            error = _traceback(exc)
        except BaseException as exc:  # noqa: BLE001 - SystemExit too: the next tests must run
            error = "the test tried to end the interpreter (%s): a test must not\n%s" % (
                type(exc).__name__,
                _traceback(exc),
            )
        ms = time.ticks_diff(time.ticks_ms(), started)
        print(json.dumps({"test": name, "ok": error is None, "error": error, "ms": ms}))


if __name__ == "__main__":
    main(sys.argv[-1], "--list" not in sys.argv)
