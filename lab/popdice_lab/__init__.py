"""PopDice's development lab, beside the benches and not in the wheel: model families of a
popper (``families``), the cross-family protocol of ``bench/detect.py`` (``crossfamily``),
the look-alike bound (``visibility``), what mistakes come with (``causes``), and the
README's pictures (``pictures``, ``make pictures``)."""
