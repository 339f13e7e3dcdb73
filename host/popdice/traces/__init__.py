"""Accelerometer traces of the popper and what users do with them: record them from a popper
(``popdice record``), fit the detector's settings to labelled ones (``popdice tune``,
``popdice calibrate``), run the firmware's detector over one (``popdice detect``), and score
its detections against the labels. The physical model that makes traces for the simulators
is ``popdice.sim.physics``."""
