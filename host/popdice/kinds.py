"""The kinds of PopDice board, by the names the firmware, the commands and the simulator
give them. A module of its own so that a command's arguments can offer them without
loading the firmware tools."""

KINDS = ("popper", "handheld")
