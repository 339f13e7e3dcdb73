"""Runs the firmware's press detector over a stream of samples, inside MicroPython.

With a JSON object of settings as the first argument it runs the settings-driven detector
(``popdice_fw.impulse``) with them; without, the detector the popper runs by default.

Standard input: samples as little-endian 16-bit integers, x, y, z in milli-g, one triple
after another, until the end of the stream. Standard output: the index (from 0) of every
sample on which the detector recognised a press, one a line, then a last line
``done SAMPLES PRESSES REJECTED RELEASES`` (the detector's counters).
"""

import json
import sys
from array import array

from popdice_fw.impulse import ImpulseDetector
from popdice_fw.press import PressDetector

_CHUNK_SAMPLES = 2048


def main():
    settings = json.loads(sys.argv[1]) if len(sys.argv) > 1 else None
    detector = PressDetector() if settings is None else ImpulseDetector(settings)
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
            if update(values[i], values[i + 1], values[i + 2]):
                print(first + i // 3)
        first += len(values) // 3
    print("done", detector.samples, detector.presses, detector.rejected, detector.releases)


main()
