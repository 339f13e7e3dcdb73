"""Starts the app a board file builds, unless the board asks for safe mode."""


def run(board):
    if board.safe_mode():
        print("PopDice %s: safe mode, the REPL is free" % board.NAME)
        return
    app = board.make_app()
    app.run()
    print("PopDice %s: link stopped, the REPL is free" % board.NAME)
