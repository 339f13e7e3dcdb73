"""Starts the app a board file builds, unless the board asks for safe mode."""


def run(board):
    if board.safe_mode():
        print("PopDice %s: safe mode, the REPL is free" % board.NAME)
        return
    from popdice_fw.watchdog import TIMEOUT_MS

    app = board.make_app()
    app.run(TIMEOUT_MS)
    print("PopDice %s: link stopped, the REPL is free" % board.NAME)
