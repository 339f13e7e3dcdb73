"""The host side of the USB link and the two devices: the serial transport, the framed link,
the typed clients (``Popper``, ``Handheld``), finding boards and simulators, reattaching after
an unplug, and the popper's fairness test. Imports no game, table or simulator."""
