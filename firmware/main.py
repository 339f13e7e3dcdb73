"""Boot: the board's pin map, then the PopDice firmware, or the REPL in safe mode."""

import board  # pyright: ignore[reportMissingImports]  (board.py is written at flash time)

from popdice_fw import boot

boot.run(board)
