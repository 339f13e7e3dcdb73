// The Pico's W25Q16 flash chip behind the SSI, for the commands the bootrom's and pico-sdk's
// flash routines send with chip select forced low (IO_QSPI's SS output override): write
// enable, sector and block erase, page program, read, status, JEDEC id and the unique id.
// rp2040js keeps XIP reads of flash as they are and leaves the chip select alone; this is
// what makes MicroPython's filesystem writable, and what gives the board its unique id.
// Erased and programmed sectors are reported through `onWrite(offset, length)`.

const SS_CTRL = 0x0c;
const OUTOVER_SHIFT = 8;
const OUTOVER_LOW = 2;
const SSI_SSIENR = 0x08;
const SSI_SR = 0x28;
const SSI_TXFLR = 0x20;
const SSI_RXFLR = 0x24;
const SSI_DR0 = 0x60;
const SR_TFNF = 0x02;
const SR_TFE = 0x04;
const SR_RFNE = 0x08;
const RX_FIFO_DEPTH = 16;
const PAGE = 256;
const SECTOR = 4096;

export class SpiFlash {
  constructor(mcu, size, uniqueId, onWrite) {
    this.mcu = mcu;
    this.size = size;
    this.uniqueId = uniqueId; // 8 bytes
    this.onWrite = onWrite;
    this.selected = false;
    this.index = 0;
    this.command = 0;
    this.address = 0;
    this.data = [];
    this.writeEnabled = false;
    this.rx = [];
    this.io = new Uint32Array(0x40 / 4); // IO_QSPI: six pins' STATUS and CTRL, interrupts
    this.erases = 0;
    this.programs = 0;
    this.install();
  }

  install() {
    const flash = this;
    const ioqspi = {
      rawWriteValue: 0,
      readUint32(offset) {
        const index = (offset & 0xfff) >> 2;
        return index < flash.io.length ? flash.io[index] : 0;
      },
      writeUint32(offset, value) {
        const index = (offset & 0xfff) >> 2;
        if (index < flash.io.length) flash.io[index] = value;
        if ((offset & 0xfff) === SS_CTRL) flash.chipSelect(value);
      },
      writeUint32Atomic(offset, value, atomicType) {
        const current = this.readUint32(offset);
        const next = [value, current ^ value, current | value, current & ~value][atomicType];
        this.writeUint32(offset, next >>> 0);
      },
    };
    this.mcu.peripherals[0x40018] = ioqspi;
    const ssi = this.mcu.peripherals[0x18000];
    const read = ssi.readUint32.bind(ssi);
    const write = ssi.writeUint32.bind(ssi);
    // The SSI's data path as the chip sees it: every byte written to DR0 clocks a byte back
    // into the receive FIFO, the flash's answer while its chip select is forced low, nothing
    // (0) otherwise. Disabling the SSI empties the FIFO.
    ssi.readUint32 = (offset) => {
      switch (offset) {
        case SSI_SR:
          return SR_TFNF | SR_TFE | (flash.rx.length ? SR_RFNE : 0);
        case SSI_TXFLR:
          return 0;
        case SSI_RXFLR:
          return flash.rx.length;
        case SSI_DR0:
          return flash.rx.length ? flash.rx.shift() : 0;
      }
      return read(offset);
    };
    ssi.writeUint32 = (offset, value) => {
      if (offset === SSI_DR0) {
        const reply = flash.selected ? flash.transfer(value & 0xff) : 0;
        if (flash.rx.length < RX_FIFO_DEPTH) flash.rx.push(reply);
        return;
      }
      if (offset === SSI_SSIENR && !(value & 1)) flash.rx = [];
      write(offset, value);
    };
  }

  chipSelect(ctrl) {
    const low = ((ctrl >> OUTOVER_SHIFT) & 3) === OUTOVER_LOW;
    if (low && !this.selected) {
      this.selected = true;
      this.index = 0;
      this.data = [];
    } else if (!low && this.selected) {
      this.selected = false;
      this.finish();
    }
  }

  transfer(byte) {
    const i = this.index++;
    if (i === 0) {
      this.command = byte;
      this.address = 0;
      return 0;
    }
    const withAddress = [0x02, 0x03, 0x0b, 0x20, 0x52, 0xd8];
    if (withAddress.includes(this.command) && i <= 3) {
      this.address = ((this.address << 8) | byte) & 0xffffff;
      return 0;
    }
    switch (this.command) {
      case 0x05: // status register 1: never busy, WEL as it stands
        return this.writeEnabled ? 0x02 : 0x00;
      case 0x35: // status register 2: quad enable set
        return 0x02;
      case 0x9f: // JEDEC id: Winbond W25Q16
        return [0xef, 0x40, 0x15][i - 1] ?? 0;
      case 0x4b: // unique id, after four dummy bytes
        return i >= 5 ? this.uniqueId[(i - 5) % 8] : 0;
      case 0x03:
        return this.mcu.flash[(this.address + i - 4) % this.size];
      case 0x0b:
        return i >= 5 ? this.mcu.flash[(this.address + i - 5) % this.size] : 0;
      case 0x02:
        this.data.push(byte);
        return 0;
      default:
        return 0;
    }
  }

  finish() {
    const command = this.command;
    if (this.index === 0) return;
    if (command === 0x06) {
      this.writeEnabled = true;
      return;
    }
    if (command === 0x04) {
      this.writeEnabled = false;
      return;
    }
    const sizes = { 0x20: SECTOR, 0x52: 32 * 1024, 0xd8: 64 * 1024, 0xc7: this.size, 0x60: this.size };
    if (command in sizes) {
      if (!this.writeEnabled) return;
      const length = sizes[command];
      const start = command === 0xc7 || command === 0x60 ? 0 : this.address - (this.address % length);
      this.mcu.flash.fill(0xff, start, start + length);
      this.writeEnabled = false;
      this.erases += 1;
      this.onWrite(start, length);
    } else if (command === 0x02 && this.index > 4) {
      if (!this.writeEnabled) return;
      const page = this.address - (this.address % PAGE);
      let column = this.address % PAGE;
      for (const byte of this.data.slice(-PAGE)) {
        this.mcu.flash[page + column] &= byte; // programming only clears bits
        column = (column + 1) % PAGE;
      }
      this.writeEnabled = false;
      this.programs += 1;
      this.onWrite(page, PAGE);
    }
  }
}
