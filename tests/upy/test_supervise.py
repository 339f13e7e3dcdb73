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
    await asyncio.wait_for_ms(done.wait(), 10000)
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


class FakeWatchdog:
    def __init__(self):
        self.fed = 0

    def feed(self):
        self.fed += 1


async def test_the_watchdog_is_fed_while_every_task_checks_in_and_not_after():
    supervisor = Supervisor()
    dog = FakeWatchdog()
    noted = []
    beating = [True]

    async def heart():
        while True:
            if beating[0]:
                supervisor.check_in("heart")
            await asyncio.sleep_ms(20)

    supervisor.start("heart", heart, limit_ms=300)
    watcher = asyncio.create_task(supervisor.watch(dog, noted.append))
    await asyncio.sleep_ms(800)
    assert dog.fed >= 2 and noted == [] and supervisor.stuck is None
    beating[0] = False
    await asyncio.sleep_ms(700)  # past its limit, then a watch
    fed = dog.fed
    assert noted == ["heart"] and supervisor.stuck == "heart"
    await asyncio.sleep_ms(600)
    assert dog.fed == fed and noted == ["heart"]  # no more feeding: the board will restart
    watcher.cancel()
    supervisor.cancel_all()


async def test_a_task_without_a_limit_never_holds_the_watchdog_back():
    supervisor = Supervisor()
    dog = FakeWatchdog()

    async def quiet():
        await asyncio.sleep_ms(10_000)

    supervisor.start("quiet", quiet)
    watcher = asyncio.create_task(supervisor.watch(dog, lambda name: None))
    await asyncio.sleep_ms(600)
    assert dog.fed >= 2 and supervisor.overdue(0) is None
    watcher.cancel()
    supervisor.cancel_all()
