"""Overwrites the free heap, so that what was freed cannot be read back from RAM.

MicroPython frees memory without clearing it: a string that was dropped stays readable in
RAM (``machine.mem8``, or a heap scan at the REPL) until the block is used again, and on a
Pico RAM keeps its contents across a reset. ``free_heap`` collects the garbage and then
allocates every free block (allocation fills it with zeros) before letting it go. The
handheld calls it before the REPL is handed over, with its secrets already overwritten.
"""

import gc

from micropython import const

_SMALLEST = const(16)  # one GC block on a Pico


def free_heap():
    """Overwrites every free block of the heap with zeros; returns the bytes overwritten."""
    gc.collect()
    held = []
    overwritten = 0
    size = gc.mem_free()
    while size >= _SMALLEST:
        try:
            chunk = bytearray(size)
        except MemoryError:
            size //= 2
            continue
        try:
            held.append(chunk)
        except MemoryError:
            break
        overwritten += size
    held = None
    gc.collect()
    return overwritten
