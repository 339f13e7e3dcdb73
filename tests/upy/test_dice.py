"""Fair dice inside MicroPython: rejection sampling from the entropy source."""

from popdice_fw.dice import Dice


def scripted(values):
    data = bytes(values)

    def entropy(n):
        nonlocal data
        out, data = data[:n], data[n:]
        return out

    return entropy


def test_bytes_above_the_last_full_cycle_are_rejected():
    dice = Dice(scripted([252, 253, 255, 0, 11]))
    assert dice.roll() == 1
    assert dice.bytes_rejected == 3 and dice.bytes_used == 4
    assert dice.roll() == 6


def test_every_byte_below_the_limit_maps_evenly():
    counts = [0] * 6
    dice = Dice(scripted(list(range(252))))
    for _ in range(252):
        counts[dice.roll() - 1] += 1
    assert counts == [42] * 6


def test_other_sizes():
    dice = Dice(scripted([255, 250, 3]))
    assert dice.roll(4) == 4  # 256 is a multiple of 4: nothing is rejected
    dice = Dice(scripted([250, 3]))
    assert dice.roll(10) == 4 and dice.bytes_rejected == 1


def test_an_empty_entropy_source_is_an_error_not_a_hang():
    dice = Dice(scripted([]))
    try:
        dice.roll()
    except OSError:
        pass
    else:
        raise AssertionError("rolled without entropy")


def test_real_entropy_covers_every_face():
    dice = Dice()
    seen = set(dice.roll_many(600))
    assert seen == {1, 2, 3, 4, 5, 6}
