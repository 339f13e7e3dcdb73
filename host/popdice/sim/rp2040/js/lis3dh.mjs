// The popper's LIS3DH accelerometer on I2C, register by register (ST DocID17530): WHO_AM_I,
// CTRL_REG1..6, STATUS_REG and OUT_X_L..OUT_Z_H with auto-increment. It samples on its own
// clock in emulated time, like the real part: every 1/ODR a new sample is latched (the next
// fed one, or the resting vector when none is queued), STATUS.ZYXDA and INT1 (with
// I1_ZYXDA) go up, and reading the high bytes of every axis takes them down. A sample not
// read before the next one is latched is overwritten: STATUS.ZYXOR and `overruns` count it.
// With BDU (CTRL_REG4 bit 7) the output registers are not updated once a low byte has been
// read until its high byte has, nor, here, during the rest of a read that has begun on them
// (the datasheet promises the pair; the firmware reads all six bytes in one burst and takes
// them for one sample): a sample due meanwhile waits and is latched at the end of the read.

const WHO_AM_I = 0x0f;
const CTRL_REG1 = 0x20;
const CTRL_REG3 = 0x22;
const CTRL_REG4 = 0x23;
const CTRL_REG5 = 0x24;
const CTRL_REG6 = 0x25;
const STATUS_REG = 0x27;
const OUT_X_L = 0x28;
const AUTO_INCREMENT = 0x80;
const BDU = 0x80;
const ODR_HZ = [0, 1, 10, 25, 50, 100, 200, 400, 0, 1344];
const ODR_HZ_LOW_POWER = [0, 1, 10, 25, 50, 100, 200, 400, 1600, 5376];
const FULL_SCALE_G = [2, 4, 8, 16];
const MG_PER_DIGIT = { 8: [16, 32, 64, 192], 10: [4, 8, 16, 48], 12: [1, 2, 4, 12] };
const READ_ONLY = new Set([WHO_AM_I, STATUS_REG, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d]);

export class Lis3dh {
  constructor(clock, int1Pin, events) {
    this.clock = clock;
    this.int1Pin = int1Pin;
    this.events = events; // batchDone(batch)
    this.regs = new Uint8Array(0x40);
    this.regs[WHO_AM_I] = 0x33;
    this.regs[0x1e] = 0x10;
    this.regs[CTRL_REG1] = 0x07;
    this.rest = [0, 0, 1];
    this.queue = []; // {samples: Float64Array (x, y, z...), pos, batch}
    this.pointer = 0;
    this.ready = false;
    this.readMask = 0;
    this.latchedBatch = null; // the batch whose last sample is in the output registers
    this.produced = 0;
    this.consumed = 0;
    this.overruns = 0;
    this.int1 = false;
    this.lowBytesRead = 0; // axes whose low byte was read and high byte not yet, under BDU
    this.outputsInRead = false; // the read going on has read an output register, under BDU
    this.waiting = null; // a sample BDU holds back: {x, y, z, batch}
    this.alarm = clock.createAlarm(() => this.sample());
    this.int1Pin.setInputValue(false);
  }

  // --- I2C
  i2cStart(read) {
    this.reading = read;
    this.first = !read;
  }

  i2cWrite(value) {
    if (this.first) {
      this.pointer = value;
      this.first = false;
    } else {
      this.writeRegister(this.pointer & 0x7f, value);
      this.advance();
    }
    return true;
  }

  i2cRead() {
    const value = this.readRegister(this.pointer & 0x7f);
    this.advance();
    return value;
  }

  i2cStop() {
    this.checkConsumed();
    this.outputsInRead = false;
    if (!this.lowBytesRead && this.waiting) {
      const { x, y, z, batch } = this.waiting;
      this.waiting = null;
      this.latch(x, y, z, batch);
    }
  }

  advance() {
    if (this.pointer & AUTO_INCREMENT) {
      this.pointer = AUTO_INCREMENT | ((this.pointer + 1) & 0x7f);
    }
  }

  readRegister(reg) {
    if (reg >= this.regs.length) return 0;
    if (reg >= OUT_X_L && reg <= 0x2d) {
      const axis = 1 << ((reg - OUT_X_L) >> 1);
      if (this.regs[CTRL_REG4] & BDU) this.outputsInRead = true;
      if ((reg & 1) === 0) {
        if (this.regs[CTRL_REG4] & BDU) this.lowBytesRead |= axis;
      } else {
        this.lowBytesRead &= ~axis;
        if (this.ready) this.readMask |= axis;
      }
    }
    return this.regs[reg];
  }

  writeRegister(reg, value) {
    if (reg >= this.regs.length || READ_ONLY.has(reg)) return;
    const before = this.odrHz();
    if (reg === CTRL_REG5) value &= 0x7f; // BOOT clears itself
    this.regs[reg] = value;
    if (reg === CTRL_REG1 && this.odrHz() !== before) this.restartClock();
    this.updateInt1();
  }

  // --- configuration, as the registers say
  lowPower() {
    return (this.regs[CTRL_REG1] & 0x08) !== 0;
  }

  odrHz() {
    const field = this.regs[CTRL_REG1] >> 4;
    const table = this.lowPower() ? ODR_HZ_LOW_POWER : ODR_HZ;
    return field < table.length ? table[field] : 0;
  }

  fullScaleG() {
    return FULL_SCALE_G[(this.regs[CTRL_REG4] >> 4) & 3];
  }

  resolutionBits() {
    if (this.lowPower()) return 8;
    return this.regs[CTRL_REG4] & 0x08 ? 12 : 10;
  }

  encode(g) {
    const fullScale = this.fullScaleG();
    const bits = this.resolutionBits();
    const mgPerDigit = MG_PER_DIGIT[bits][(this.regs[CTRL_REG4] >> 4) & 3];
    g = Math.min(Math.max(g, -fullScale), fullScale);
    const limit = 1 << (bits - 1);
    const digits = Math.min(Math.max(Math.round((g * 1000) / mgPerDigit), -limit), limit - 1);
    return (digits << (16 - bits)) & 0xffff;
  }

  restartClock() {
    const hz = this.odrHz();
    this.alarm.cancel();
    if (hz) this.alarm.schedule(1e9 / hz);
  }

  // --- the physical side
  feed(samples, batch) {
    if (samples.length) {
      this.queue.push({ samples: Float64Array.from(samples), pos: 0, batch });
    } else {
      this.events.batchDone(batch);
    }
  }

  queued() {
    let count = 0;
    for (const chunk of this.queue) count += (chunk.samples.length - chunk.pos) / 3;
    return count;
  }

  dropQueue() {
    const lost = this.queue.map((chunk) => chunk.batch);
    this.queue = [];
    return lost;
  }

  sample() {
    const hz = this.odrHz();
    if (!hz) return;
    this.alarm.schedule(1e9 / hz);
    let x, y, z;
    let batch = null;
    if (this.queue.length) {
      const chunk = this.queue[0];
      const s = chunk.samples;
      [x, y, z] = [s[chunk.pos], s[chunk.pos + 1], s[chunk.pos + 2]];
      if (chunk.pos === 0) chunk.batch.firstLatchedNs = this.clock.nanos;
      chunk.pos += 3;
      if (chunk.pos >= s.length) {
        this.queue.shift();
        batch = chunk.batch;
      }
    } else {
      [x, y, z] = this.rest;
    }
    if (this.lowBytesRead || this.outputsInRead) {
      const lost = this.waiting?.batch;
      if (this.waiting) this.overruns += 1; // two samples came during one read: one is lost
      if (lost) {
        lost.overwritten = true;
        this.events.batchDone(lost);
      }
      this.waiting = { x, y, z, batch };
      return;
    }
    this.latch(x, y, z, batch);
  }

  latch(x, y, z, batch) {
    let status = 0x08 | (this.regs[CTRL_REG1] & 0x07); // ZYXDA and the axes
    if (this.ready) {
      this.overruns += 1;
      status |= 0x80; // ZYXOR: the last sample was never read
      this.finishBatch(this.latchedBatch, true);
    }
    const enabled = this.regs[CTRL_REG1] & 0x07;
    const axes = [x, y, z];
    for (let axis = 0; axis < 3; axis++) {
      const raw = enabled & (1 << axis) ? this.encode(axes[axis]) : 0;
      this.regs[OUT_X_L + 2 * axis] = raw & 0xff;
      this.regs[OUT_X_L + 2 * axis + 1] = raw >> 8;
    }
    this.regs[STATUS_REG] = status;
    this.latchedBatch = batch;
    this.ready = true;
    this.readMask = 0;
    this.produced += 1;
    this.updateInt1();
  }

  checkConsumed() {
    const needed = this.regs[CTRL_REG1] & 0x07 || 0x07;
    if (!this.ready || (this.readMask & needed) !== needed) return;
    this.ready = false;
    this.regs[STATUS_REG] = 0;
    this.consumed += 1;
    this.updateInt1();
    this.finishBatch(this.latchedBatch, false);
  }

  finishBatch(batch, overwritten) {
    this.latchedBatch = null;
    if (batch) {
      if (overwritten) batch.overwritten = true;
      this.events.batchDone(batch);
    }
  }

  updateInt1() {
    const active = this.ready && (this.regs[CTRL_REG3] & 0x10) !== 0;
    const level = active !== ((this.regs[CTRL_REG6] & 0x02) !== 0);
    if (level !== this.int1) {
      this.int1 = level;
      this.int1Pin.setInputValue(level);
    }
  }

  stats() {
    return {
      produced: this.produced,
      consumed: this.consumed,
      overruns: this.overruns,
      queued: this.queued(),
      odr_hz: this.odrHz(),
      full_scale_g: this.fullScaleG(),
      resolution_bits: this.resolutionBits(),
      rest: this.rest,
    };
  }
}
