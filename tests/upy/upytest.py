"""Runs the test_* functions of one test module inside MicroPython.

Usage: micropython upytest.py PATH/test_x.py (or, where there is no sys.argv, as on a Pico:
``import upytest; upytest.main("PATH/test_x.py")``).
Prints one JSON line per test: {"test", "ok", "error"}; a test that returns a coroutine is
run with asyncio. The pytest collector in tests/upy/conftest.py starts this and reports
each line as a test of its own.
"""

import io
import json
import sys


def _run(fn):
    result = fn()
    if result is not None and hasattr(result, "send"):
        import asyncio

        asyncio.run(result)


def main(path):
    folder, _, filename = path.rpartition("/")
    sys.path.insert(0, folder or ".")
    module = __import__(filename[:-3])
    names = sorted(n for n in dir(module) if n.startswith("test_"))
    for name in names:
        fn = getattr(module, name)
        error = None
        try:
            _run(fn)
        except Exception as exc:  # noqa: BLE001 - every failure is reported, not raised
            text = io.StringIO()
            sys.print_exception(exc, text)
            error = text.getvalue()
        print(json.dumps({"test": name, "ok": error is None, "error": error}))


if __name__ == "__main__":
    main(sys.argv[1])
