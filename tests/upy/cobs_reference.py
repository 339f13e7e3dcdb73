"""COBS a byte at a time, as the algorithm is defined: the reference the link's codec (which
works a block at a time, for speed on the RP2040) is tested against, in CPython and inside
MicroPython. Plain Python that runs in both."""


def encode(data):
    """``data`` with every zero byte stuffed away (the definition, byte by byte)."""
    n = len(data)
    out = bytearray(n + n // 254 + 2)
    code_at = 0
    code = 1
    o = 1
    for i in range(n):
        byte = data[i]
        if byte == 0:
            out[code_at] = code
            code_at = o
            o += 1
            code = 1
        else:
            out[o] = byte
            o += 1
            code += 1
            if code == 0xFF and i + 1 < n:
                out[code_at] = code
                code_at = o
                o += 1
                code = 1
    out[code_at] = code
    return bytes(out[:o])


def decode(data):
    """The inverse of ``encode``, byte by byte; None where ``data`` is not COBS."""
    n = len(data)
    out = bytearray()
    i = 0
    while i < n:
        code = data[i]
        if code == 0 or i + code > n:
            return None
        for k in range(i + 1, i + code):
            out.append(data[k])
        i += code
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)
