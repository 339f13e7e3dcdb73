"""What goes onto a board and what runs it: the compiled firmware files, ``popdice flash``,
the mip packages, one-file UF2 images on MicroPython's Pico image, and the unix port that
runs the firmware on this computer."""
