"""Keeps a board's tasks alive: a task that raises is counted and started again.

The link's reader, writer and retransmitter and every task of a board are started through
the board's one ``Supervisor``. Each guards itself against what it expects (a frame that
cannot be handled is answered and the reader goes on); this catches what nobody expected, so
that no input can leave a board running with a task gone. It is asyncio's exception handler
(called for a task that raised and that nobody awaits), so it costs no coroutine per task.
``status`` reports ``task_failures`` and the last task that failed, with its error's type.

A task can also hang: a loop that never yields, a read that never returns. A task started
with a limit checks in (``check_in``) at least that often; ``watch`` feeds the hardware
watchdog only while every such task has, and while the loop runs at all. A task past its
limit is noted (``watchdog.note``) and the watchdog is left to restart the board.
"""

import asyncio
import gc
import time

from micropython import const

_PAUSE_MS = const(50)  # before a restart, so a task that fails at once cannot spin
_WATCH_EVERY_MS = const(250)


class Supervisor:
    def __init__(self):
        self.failures = 0
        self.last_failure = None  # "<task>: <error type>"
        self._running = {}  # name: (coroutine function, its task)
        self._limits = {}  # name: the longest a task may go without checking in, ms
        self._seen = {}  # name: ticks_ms of its last check-in
        self.stuck = None  # the task found past its limit: the board is about to restart

    def start(self, name, make, limit_ms=0):
        """Runs ``make()`` (a coroutine function) as the task ``name``; it is started again,
        after a pause, each time it raises. With ``limit_ms`` it must ``check_in`` at least
        that often."""
        asyncio.get_event_loop().set_exception_handler(self._on_exception)
        self._running[name] = (make, asyncio.create_task(make()))
        if limit_ms:
            self._limits[name] = limit_ms
            self._seen[name] = time.ticks_ms()

    def check_in(self, name):
        """``name`` is making progress; allocates nothing."""
        self._seen[name] = time.ticks_ms()

    def overdue(self, now):
        """The first task with a limit that has not checked in within it, or None."""
        for name, limit in self._limits.items():
            if time.ticks_diff(now, self._seen[name]) > limit:
                return name
        return None

    async def watch(self, watchdog, note):
        """Feeds ``watchdog`` while no task is overdue; the first one that is goes to
        ``note`` (once), and the feeding stops."""
        while True:
            stuck = self.overdue(time.ticks_ms())
            if stuck is None and self.stuck is None:
                watchdog.feed()
            elif self.stuck is None:
                self.stuck = stuck
                note(stuck)
            await asyncio.sleep_ms(_WATCH_EVERY_MS)

    def cancel(self, name):
        entry = self._running.pop(name, None)
        self._limits.pop(name, None)
        self._seen.pop(name, None)
        if entry is not None:
            entry[1].cancel()

    def cancel_all(self):
        for name in list(self._running):
            self.cancel(name)

    def _on_exception(self, loop, context):
        error = context.get("exception")
        if isinstance(error, MemoryError):
            gc.collect()
        self.failures += 1
        failed = context.get("future")
        name = "a task not supervised"
        for key, (make, task) in self._running.items():
            if task is failed:
                name = key
                self._running[key] = (make, asyncio.create_task(_after_a_pause(make)))
                break
        try:
            self.last_failure = name + ": " + type(error).__name__
        except MemoryError:
            self.last_failure = name

    def report(self):
        """What ``status`` shows: nothing while no task has failed."""
        if not self.failures:
            return {}
        return {"task_failures": self.failures, "task_failed": self.last_failure}


async def _after_a_pause(make):
    await asyncio.sleep_ms(_PAUSE_MS)
    await make()
