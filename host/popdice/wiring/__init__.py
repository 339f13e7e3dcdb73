"""What is wired where on each board, read from the board modules (``boards/*/board.py``): the
Pico's header (``pico``), a board's parts and wires (``board``), its wiring diagram as SVG
(``svg``) and the ``popdice wiring`` command (``cli``)."""
