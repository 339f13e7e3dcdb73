"""The live table: USB-connected scoring of a game on the laptop (issue 6)."""
