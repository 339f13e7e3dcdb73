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
    """Overwrites every free block of the heap with zeros; returns the bytes overwritten.

    What is allocated is held in a chain of two-item tuples, never in a list: a list grows
    by reallocation, which on a fragmented heap fails long before the small free blocks are
    used up, and left some of them (with a nonce's text in one) as they were.
    """
    gc.collect()
    held = None
    overwritten = 0
    size = gc.mem_free()
    while size >= _SMALLEST:
        try:
            chunk = bytearray(size)
            held = (chunk, held)
        except MemoryError:  # nothing this size is left (a chunk without a link was zeroed)
            size //= 2
            continue
        overwritten += size
    held = None
    gc.collect()
    return overwritten
