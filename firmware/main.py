"""Boot: the board's pin map, then the PopDice firmware, or the REPL in safe mode.

Ctrl-C is off from the first line: a host that opens the port while the board boots sends
its handshake, and a 0x03 byte in it would otherwise interrupt these imports and leave the
board at the REPL. It is on again whenever the REPL is handed back.
"""

import micropython

micropython.kbd_intr(-1)
try:
    import board  # pyright: ignore[reportMissingImports]  (board.py is written at flash time)

    from popdice_fw import boot

    boot.run(board)
finally:
    micropython.kbd_intr(3)
