"""Loads tests/vectors/*.json inside MicroPython."""

import json
import os


def load(name):
    root = (os.getenv("POPDICE_ROOT") if hasattr(os, "getenv") else None) or "."
    with open(root + "/tests/vectors/" + name) as f:
        return json.load(f)


def unhex(text):
    return bytes(int(text[i : i + 2], 16) for i in range(0, len(text), 2))
