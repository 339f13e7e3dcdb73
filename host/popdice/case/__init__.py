"""``popdice case``: a 3D-printable enclosure for each board, generated from the dimensions in
``boards/KIND/case.json``.

``dimensions`` reads and checks that file, ``placement`` works out where the parts go (plain
numbers, no geometry library), ``popper`` and ``handheld`` build the printed bodies as solids
with manifold3d (the ``case`` extra), ``bed`` lays them flat for printing, ``stl`` writes
them, and ``cli`` is the command.
"""
