// The popper's 45 WS2812B LEDs, read from the data pin as the first LED of the chain reads it:
// every high pulse is a bit (longer than 625 ns is a one: T0H is about 400 ns, T1H 800 ns), the
// bits make GRB bytes, and the line low for longer than 50 us (the reset time) ends a frame.
// Pulse widths are measured in emulated time, so a frame the firmware times wrongly decodes
// wrongly, as it would on the strip.

const ONE_THRESHOLD_NS = 625;
const RESET_NS = 50000;

export class Ws2812Chain {
  constructor(clock, pin, count, onFrame) {
    this.clock = clock;
    this.count = count;
    this.onFrame = onFrame; // (rgbBytes, startNs, endNs, badPulses)
    this.bits = [];
    this.riseNs = null;
    this.startNs = null;
    this.badPulses = 0;
    this.frames = 0;
    this.alarm = clock.createAlarm(() => this.endFrame());
    pin.addListener((state) => this.edge(state === 1));
  }

  edge(high) {
    const now = this.clock.nanos;
    if (high) {
      this.riseNs = now;
      if (this.startNs === null) this.startNs = now;
      this.alarm.cancel();
      return;
    }
    if (this.riseNs === null) return;
    const width = now - this.riseNs;
    this.riseNs = null;
    if (width > 5000) this.badPulses += 1; // no WS2812 bit is this long
    this.bits.push(width > ONE_THRESHOLD_NS ? 1 : 0);
    this.endNs = now;
    this.alarm.schedule(RESET_NS);
  }

  endFrame() {
    const bits = this.bits;
    const bytes = Math.floor(bits.length / 8);
    const grb = new Uint8Array(bytes);
    for (let i = 0; i < bytes; i++) {
      let value = 0;
      for (let b = 0; b < 8; b++) value = (value << 1) | bits[8 * i + b];
      grb[i] = value;
    }
    const rgb = new Uint8Array(this.count * 3);
    for (let led = 0; led < this.count && 3 * led + 2 < bytes; led++) {
      rgb[3 * led] = grb[3 * led + 1];
      rgb[3 * led + 1] = grb[3 * led];
      rgb[3 * led + 2] = grb[3 * led + 2];
    }
    const complete = bits.length === this.count * 24 && this.badPulses === 0;
    this.frames += 1;
    this.onFrame(rgb, this.startNs, this.endNs, complete, bits.length);
    this.bits = [];
    this.startNs = null;
    this.badPulses = 0;
  }
}
