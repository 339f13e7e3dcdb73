"""The emulated Pico: MicroPython's own image for the RP2040 booted in rp2040js under Node,
with models of the parts on its pins; a backend of the simulated board beside the unix port.
Its UF2 images are built by ``popdice.deploy``."""
