"""The detector's settings file inside MicroPython: the defaults without a file, a good file
read back, every kind of bad file falling back to the defaults with the reason, and a save
that checks first and replaces the old file whole."""

import os

from popdice_fw import detector_file
from popdice_fw.press import defaults

# tests/upy_run.py gives each run a scratch folder of its own.
FOLDER = (os.getenv("POPDICE_UPY_TMP") or "/tmp") + "/popdice-detector"


def path(name):
    try:
        os.mkdir(FOLDER)
    except OSError:
        pass
    return FOLDER + "/" + name


def write(name, text):
    with open(path(name), "w") as stream:
        stream.write(text)
    return path(name)


def test_no_file_is_the_defaults():
    assert detector_file.load(path("missing.json")) == (defaults(), "defaults")


def test_a_saved_file_is_read_back():
    target = path("good.json")
    saved = detector_file.save({"threshold_mg": 333, "polarity": 0}, target)
    settings, source = detector_file.load(target)
    assert source == "file" and settings == saved
    assert settings["threshold_mg"] == 333 and settings["polarity"] == 0
    detector_file.save({"threshold_mg": 444}, target)
    assert detector_file.load(target)[0]["threshold_mg"] == 444
    detector_file.remove(target)
    detector_file.remove(target)
    assert detector_file.load(target) == (defaults(), "defaults")


def test_a_bad_file_falls_back_to_the_defaults_and_says_why():
    for text, reason in (
        ("{", ""),
        ("[1, 2]", 'no "settings"'),
        ('{"settings": {"threshold_mg": 1}}', "threshold_mg is out of range"),
        ('{"settings": {"nope": 1}}', "unknown nope"),
        ('{"settings": {"hold_min_ms": 90, "hold_max_ms": 60}}', "hold_min_ms is above hold_max"),
        ('{"settings": 5}', "not an object"),
        ("{" + " " * 5000 + "}", "over 4096 bytes"),
    ):
        settings, source = detector_file.load(write("bad.json", text))
        assert settings == defaults(), text
        assert source.startswith("defaults (") and reason in source, (text, source)


def test_a_bad_save_is_refused_and_keeps_the_old_file():
    target = path("kept.json")
    detector_file.save({"threshold_mg": 250}, target)
    try:
        detector_file.save({"threshold_mg": -5}, target)
    except ValueError as error:
        assert "threshold_mg" in str(error)
    else:
        raise AssertionError("a bad setting was saved")
    assert detector_file.load(target)[0]["threshold_mg"] == 250
