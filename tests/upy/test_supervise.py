"""The supervisor: a task that raises is counted and started again; a cancelled one is not."""

import asyncio

from popdice_fw.supervise import Supervisor


async def test_a_task_that_raises_comes_back_until_it_returns():
    supervisor = Supervisor()
    runs = []
    done = asyncio.Event()

    async def flaky():
        runs.append(len(runs))
        if len(runs) < 3:
            raise ValueError("not yet")
        if len(runs) == 3:
            raise MemoryError
        done.set()

    assert supervisor.report() == {}
    supervisor.start("flaky", flaky)
    await asyncio.wait_for_ms(done.wait(), 2000)
    await asyncio.sleep_ms(100)
    assert runs == [0, 1, 2, 3]
    assert supervisor.report() == {"task_failures": 3, "task_failed": "flaky: MemoryError"}


async def test_a_cancelled_task_stays_cancelled():
    supervisor = Supervisor()
    started = []

    async def forever():
        started.append(1)
        await asyncio.sleep_ms(10_000)

    supervisor.start("forever", forever)
    await asyncio.sleep_ms(10)
    supervisor.cancel("forever")
    await asyncio.sleep_ms(100)
    assert started == [1] and supervisor.report() == {}
