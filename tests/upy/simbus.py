"""An I2C bus for MicroPython tests with the simulator's part models on it, no supervisor."""


class SimBus:
    def __init__(self, *parts):
        self.parts = {part.address: part for part in parts}

    def _part(self, address):
        if address not in self.parts:
            raise OSError(5)
        return self.parts[address]

    def readfrom_mem_into(self, address, register, buf):
        part = self._part(address)
        part.i2c_write(bytes([register]))
        data = part.i2c_read(len(buf))
        for i in range(len(buf)):
            buf[i] = data[i]

    def writeto_mem(self, address, register, buf):
        self._part(address).i2c_write(bytes([register]) + bytes(buf))

    def writeto(self, address, buf, stop=True):
        self._part(address).i2c_write(bytes(buf))
        return len(buf)

    def writevto(self, address, vector, stop=True):
        data = b"".join(bytes(b) for b in vector)
        self._part(address).i2c_write(data)
        return len(data)


class NoAllocBus:
    """Serves one fixed sample without allocating, for heap_lock tests of the sample path."""

    def __init__(self, sample):
        self.sample = sample
        self.reads = 0

    def readfrom_mem_into(self, address, register, buf):
        self.reads += 1
        if len(buf) == 1:
            buf[0] = 0x33
            return
        for i in range(len(buf)):
            buf[i] = self.sample[i]

    def writeto_mem(self, address, register, buf):
        pass
