// The I2C bus of the emulated board: rp2040js's I2C controller on one side, the parts at their
// addresses on the other. Every step takes the time it takes on a real bus (START and STOP
// one SCL period, each byte nine), counted in emulated time from the controller's own SCL
// settings, so the firmware waits for the bus as it does on a Pico.

const BITS_PER_BYTE = 9; // eight data bits and the acknowledge

export class I2CBus {
  constructor(mcu, controller) {
    this.mcu = mcu;
    this.controller = controller;
    this.parts = new Map();
    this.current = null;
    this.transfers = 0;
    const clock = mcu.clock;
    this.pending = null;
    this.alarm = clock.createAlarm(() => {
      const step = this.pending;
      this.pending = null;
      if (step) step();
    });
    controller.onStart = () => this.after(1, () => controller.completeStart());
    controller.onConnect = (address, mode) => {
      const part = this.parts.get(address) || null;
      this.current = part;
      if (part) part.i2cStart(mode === 1);
      this.after(BITS_PER_BYTE, () => controller.completeConnect(part !== null));
    };
    controller.onWriteByte = (value) => {
      const part = this.current;
      const ack = part ? part.i2cWrite(value) !== false : false;
      this.after(BITS_PER_BYTE, () => controller.completeWrite(ack));
    };
    controller.onReadByte = () => {
      const part = this.current;
      const value = part ? part.i2cRead() : 0xff;
      this.after(BITS_PER_BYTE, () => controller.completeRead(value));
    };
    controller.onStop = () => {
      const part = this.current;
      this.current = null;
      this.transfers += 1;
      if (part) part.i2cStop();
      this.after(1, () => controller.completeStop());
    };
  }

  attach(address, part) {
    this.parts.set(address, part);
  }

  // The SCL period in nanoseconds, from the controller's high and low counts at clk_sys.
  bitNanos() {
    const c = this.controller;
    const cycles = c.sclHighPeriod + c.sclLowPeriod;
    return (cycles * 1e9) / this.mcu.clkSys;
  }

  after(bits, step) {
    this.pending = step;
    this.alarm.schedule(bits * this.bitNanos());
  }
}
