// The handheld's SSD1306 128x64 OLED controller on I2C (Solomon Systech rev 1.1): the control
// byte of each transfer says commands or data; commands (with their argument bytes) set the
// panel (on, contrast, invert, remaps, start line) and the addressing (page, horizontal,
// vertical; column and page windows); data goes into the page-major frame buffer (a byte is
// eight pixels down, least significant on top, as framebuf.MONO_VLSB). `onChange` runs at the
// end of a transfer that changed what the panel shows.

const WIDTH = 128;
const PAGES = 8;
const ARGUMENTS = new Map([
  [0x81, 1], [0x20, 1], [0x21, 2], [0x22, 2], [0x26, 6], [0x27, 6], [0x29, 5], [0x2a, 5],
  [0xa3, 2], [0xa8, 1], [0xd3, 1], [0xd5, 1], [0xd9, 1], [0xda, 1], [0xdb, 1], [0x8d, 1],
]);
const HORIZONTAL = 0;
const VERTICAL = 1;
const PAGE = 2;

export class Ssd1306 {
  constructor(onChange) {
    this.onChange = onChange;
    this.buffer = new Uint8Array(WIDTH * PAGES);
    this.on = false;
    this.contrast = 0x7f;
    this.invert = false;
    this.entireOn = false;
    this.segmentRemap = false;
    this.comReverse = false;
    this.startLine = 0;
    this.mode = PAGE;
    this.column = 0;
    this.page = 0;
    this.columnStart = 0;
    this.columnEnd = WIDTH - 1;
    this.pageStart = 0;
    this.pageEnd = PAGES - 1;
    this.command = null;
    this.args = [];
    this.changed = false;
  }

  // --- I2C: the first byte of a transfer (and after a continuation byte) is a control byte
  i2cStart(read) {
    this.control = null;
    this.reading = read;
  }

  i2cWrite(value) {
    if (this.control === null) {
      this.control = value;
      return true;
    }
    const isData = (this.control & 0x40) !== 0;
    if (isData) this.writeData(value);
    else this.take(value);
    if (this.control & 0x80) this.control = null; // Co: one byte, then a control byte again
    return true;
  }

  i2cRead() {
    return this.on ? 0x00 : 0x40; // the status byte: display off
  }

  i2cStop() {
    if (this.changed) {
      this.changed = false;
      this.onChange(this);
    }
  }

  take(byte) {
    if (this.command === null) {
      if (ARGUMENTS.has(byte)) {
        this.command = byte;
        this.args = [];
      } else {
        this.execute(byte, []);
      }
      return;
    }
    this.args.push(byte);
    if (this.args.length === ARGUMENTS.get(this.command)) {
      const command = this.command;
      this.command = null;
      this.execute(command, this.args);
    }
  }

  set(name, value) {
    if (this[name] !== value) {
      this[name] = value;
      this.changed = true;
    }
  }

  execute(command, args) {
    if (command === 0xae || command === 0xaf) this.set('on', command === 0xaf);
    else if (command === 0x81) this.set('contrast', args[0]);
    else if (command === 0xa6 || command === 0xa7) this.set('invert', command === 0xa7);
    else if (command === 0xa4 || command === 0xa5) this.set('entireOn', command === 0xa5);
    else if (command === 0xa0 || command === 0xa1) this.set('segmentRemap', command === 0xa1);
    else if (command === 0xc0 || command === 0xc8) this.set('comReverse', command === 0xc8);
    else if (command === 0x20) {
      if ((args[0] & 3) !== 3) this.mode = args[0] & 3;
    } else if (command === 0x21) {
      this.columnStart = args[0] & 0x7f;
      this.columnEnd = args[1] & 0x7f;
      this.column = this.columnStart;
    } else if (command === 0x22) {
      this.pageStart = args[0] & 0x07;
      this.pageEnd = args[1] & 0x07;
      this.page = this.pageStart;
    } else if (command >= 0x40 && command <= 0x7f) this.set('startLine', command & 0x3f);
    else if (command <= 0x0f) this.column = (this.column & 0xf0) | command;
    else if (command <= 0x1f) this.column = (this.column & 0x0f) | ((command & 0x07) << 4);
    else if (command >= 0xb0 && command <= 0xb7) this.page = command & 0x07;
  }

  writeData(byte) {
    const index = this.page * WIDTH + this.column;
    if (this.buffer[index] !== byte) {
      this.buffer[index] = byte;
      this.changed = true;
    }
    if (this.mode === HORIZONTAL) {
      if (this.column >= this.columnEnd) {
        this.column = this.columnStart;
        this.page = this.page >= this.pageEnd ? this.pageStart : this.page + 1;
      } else this.column += 1;
    } else if (this.mode === VERTICAL) {
      if (this.page >= this.pageEnd) {
        this.page = this.pageStart;
        this.column = this.column >= this.columnEnd ? this.columnStart : this.column + 1;
      } else this.page += 1;
    } else {
      this.column = this.column >= WIDTH - 1 ? this.columnStart : this.column + 1;
    }
  }

  state() {
    return {
      on: this.on,
      contrast: this.contrast,
      invert: this.invert,
      entire_on: this.entireOn,
      segment_remap: this.segmentRemap,
      com_reverse: this.comReverse,
      start_line: this.startLine,
      buffer: Buffer.from(this.buffer).toString('base64'),
    };
  }
}
