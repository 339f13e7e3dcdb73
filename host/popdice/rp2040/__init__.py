"""The real MicroPython for the Pico: one UF2 image per board, and the RP2040 emulator that
boots it (rp2040js under Node) as a third kind of device beside real boards and the unix port."""
