"""The progress bar: in place on a terminal, a line per tenth elsewhere."""

import io

from popdice.console.progress import ProgressBar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_line_per_tenth_and_the_last_step():
    out = io.StringIO()
    bar = ProgressBar("games", out, width=10)
    for done in range(1, 1001):
        bar(done, 1000, f"game {done}")
    lines = out.getvalue().splitlines()
    assert len(lines) == 11  # the first step, then each tenth up to the end
    assert lines[-1] == "games [##########] 1000/1000 game 1000"


def test_a_terminal_redraws_in_place_and_ends_the_line():
    out = Terminal()
    bar = ProgressBar("flash", out, width=4)
    bar(1, 2, "a.mpy")
    bar(2, 2, "main.py")
    assert out.getvalue() == "\r\x1b[Kflash [##--] 1/2 a.mpy\r\x1b[Kflash [####] 2/2 main.py\n"
