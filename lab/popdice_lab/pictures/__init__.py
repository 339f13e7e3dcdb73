"""The README's pictures, drawn by the project's own code from what it really does: LED
frames of the simulated popper, the firmware's dice and press detector, the table's screen,
the handheld's display and the board modules' wiring. ``python -m popdice_lab.pictures``
(``make pictures``) writes them all into docs/images/; ``--check`` says which are stale."""
