"""Runs the firmware's press detector over a stream of samples, inside MicroPython.

With a JSON object of settings in the environment variable POPDICE_DETECTOR_SETTINGS it
runs with them; without, with the built-in settings the popper uses by default.

Standard input: samples as little-endian 16-bit integers, x, y, z in milli-g, one triple
after another, until the end of the stream. Standard output: every event, one a line, as
the index (from 0) of the sample that brought it and the event (1 cue, 2 pop, 3 cancel),
then a last line ``done SAMPLES CUES POPS CANCELS REJECTED RELEASES`` (the detector's
counts).
"""

import json
import os
import sys
from array import array

from popdice_fw.press import PressDetector

_CHUNK_SAMPLES = 2048


def main():
    given = os.getenv("POPDICE_DETECTOR_SETTINGS")
    settings = json.loads(given) if given else None
    detector = PressDetector(settings)
    update = detector.update
    stream = sys.stdin.buffer
    first = 0
    while True:
        chunk = stream.read(6 * _CHUNK_SAMPLES)
        if not chunk:
            break
        if len(chunk) % 6:
            raise ValueError("the stream ended inside a sample")
        values = array("h", chunk)
        for i in range(0, len(values), 3):
            event = update(values[i], values[i + 1], values[i + 2])
            if event:
                print(first + i // 3, event)
        first += len(values) // 3
    counts = detector.counts()
    names = ("cues", "pops", "cancels", "rejected", "releases")
    print("done", detector.samples, *[counts[name] for name in names])


main()
