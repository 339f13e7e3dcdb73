"""The simulated Pico: the unchanged firmware on the MicroPython unix port."""
