// The RP2040's ring oscillator, as far as software sees it: enabled and stable, and its
// RANDOMBIT register, whose jitter pico_rand (and so MicroPython's os.urandom and random)
// takes entropy from. rp2040js leaves the ROSC unimplemented (every read all ones, a
// "random" bit that is always 1), which made every boot of an emulated board draw the same
// session id and the same dice; here the bit comes from the host's CSPRNG.

import { randomBytes } from 'node:crypto';

const CTRL = 0x00;
const STATUS = 0x18;
const RANDOMBIT = 0x1c;
const COUNT = 0x20;
const CTRL_ENABLED = 0x00fabaa0; // ENABLE = 0xfab, FREQ_RANGE = 0xaa0 (low)
const STATUS_STABLE_ENABLED = 0x80001000;

export class Rosc {
  constructor() {
    this.regs = new Uint32Array(0x24 / 4);
    this.regs[CTRL >> 2] = CTRL_ENABLED;
    this.pool = randomBytes(256);
    this.bit = 0;
    this.rawWriteValue = 0;
  }

  randomBit() {
    if (this.bit >= this.pool.length * 8) {
      this.pool = randomBytes(256);
      this.bit = 0;
    }
    const byte = this.pool[this.bit >> 3];
    const value = (byte >> (this.bit & 7)) & 1;
    this.bit += 1;
    return value;
  }

  readUint32(offset) {
    switch (offset & 0xfff) {
      case STATUS:
        return STATUS_STABLE_ENABLED;
      case RANDOMBIT:
        return this.randomBit();
      case COUNT:
        return 0;
    }
    const index = (offset & 0xfff) >> 2;
    return index < this.regs.length ? this.regs[index] : 0;
  }

  writeUint32(offset, value) {
    const index = (offset & 0xfff) >> 2;
    if (index < this.regs.length) this.regs[index] = value;
  }

  writeUint32Atomic(offset, value, atomicType) {
    const current = this.readUint32(offset);
    const next = [value, current ^ value, current | value, current & ~value][atomicType];
    this.writeUint32(offset, next >>> 0);
  }
}
