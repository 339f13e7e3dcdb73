"""Runs the firmware's press detector over a stream of samples, inside MicroPython.

Standard input: samples as little-endian 16-bit integers, x, y, z in milli-g, one triple
after another, until the end of the stream. Standard output: the index (from 0) of every
sample on which the detector recognised a press, one a line, then a last line
``done SAMPLES PRESSES REJECTED RELEASES`` (the detector's counters).
"""

import sys
from array import array

from popdice_fw.press import PressDetector

_CHUNK_SAMPLES = 2048


def main():
    detector = PressDetector()
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
