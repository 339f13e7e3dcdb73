"""The press detector's built-in settings, for a popper with no ``detector.json``.

Written by ``bench/fit_builtin.py`` from the model families, not set by hand; fitted on
table; 3 units each, 27 min in all.
"""

BUILT_IN = {
    "band_samples": 2,
    "polarity": 0,
    "threshold_mg": 149,
    "contrast": 3.815,
    "lead_ratio": 0.07,
    "window_samples": 2,
    "max_sideways": 0.151,
    "moving_mg": 16,
    "settle_ms": 200,
    "refractory_ms": 50,
    "hold_min_ms": 60,
    "hold_max_ms": 2000,
    "release_ratio": 0.06,
    "release_contrast": 1.0,
    "release_sideways": 0.039,
    "release_polarity": 0,
    "pop_on": "release",
}
