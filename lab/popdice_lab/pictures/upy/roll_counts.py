"""Counts the faces of seeded rolls with the firmware's own dice and modes, inside MicroPython.

Arguments: MODE ROLLS SEED. ``popdice_fw.dice.Dice`` draws its bytes from a stand-in for
``os.urandom``: SHA-256 of the seed and a counter, one 32-byte digest at a time (the size
of the pool the firmware draws), so every run counts the same faces. Rejection sampling,
the modes' dice and the counting are the firmware's (``modes.roll``, ``modes.face_index``,
as the popper's ``roll_counts`` command counts). Standard output: a line of six counts per
die of the mode.
"""

import hashlib
import sys

from popdice_fw import modes
from popdice_fw.dice import Dice


def seeded_entropy(seed):
    drawn = [0]

    def entropy(size):
        drawn[0] += 1
        digest = hashlib.sha256(f"{seed}:{drawn[0]}".encode()).digest()
        return digest[:size]

    return entropy


def main():
    mode, rolls, seed = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    dice = Dice(seeded_entropy(seed))
    counts = [[0] * 6 for _ in range(modes.dice_count(mode))]
    for _ in range(rolls):
        for die, value in enumerate(modes.roll(mode, dice)):
            counts[die][modes.face_index(value)] += 1
    for row in counts:
        print(" ".join(str(count) for count in row))


main()
