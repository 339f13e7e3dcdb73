// One emulated Pico and what is soldered to it: rp2040js's RP2040 with the bootrom and the
// flash image loaded, the flash chip, the USB cable to the laptop, and the parts of a popper
// (LIS3DH, 45 WS2812, mode button, buzzer) or a handheld (SSD1306, three buttons, VSYS
// divider). A reboot builds a new one around the same flash and the same physical world.

import { I2CBus } from './i2cbus.mjs';
import { Lis3dh } from './lis3dh.mjs';
import { Rosc } from './rosc.mjs';
import { SpiFlash } from './spiflash.mjs';
import { Ssd1306 } from './ssd1306.mjs';
import { UsbSerialHost } from './usbhost.mjs';
import { Ws2812Chain } from './ws2812.mjs';

const FLASH_START = 0x10000000;
const ADC_REFERENCE_VOLTS = 3.3;
const TEMPERATURE_VOLTS = 0.706; // 27 C

export class Board {
  constructor(lib, config, world, flash, out) {
    this.config = config;
    this.world = world; // shared across reboots: pressed pins, rest, vsys
    this.out = out; // (message) => void
    const mcu = new lib.RP2040();
    this.mcu = mcu;
    mcu.logger = new lib.ConsoleLogger(lib.LogLevel.Error, true);
    mcu.logger.error = (name, text) => out({ t: 'log', text: `rp2040js ${name}: ${text}` });
    mcu.loadBootrom(config.bootrom);
    mcu.flash.set(flash);
    mcu.core.PC = FLASH_START;
    mcu.peripherals[0x40060] = new Rosc();
    this.flashChip = new SpiFlash(mcu, flash.length, config.uniqueId, (offset, length) =>
      world.flashWritten(offset, length),
    );
    this.usb = new UsbSerialHost(
      lib.USBCDC,
      mcu.usbCtrl,
      (bytes) => world.serialFromDevice(bytes),
      () => out({ t: 'usb', connected: true, us: this.micros() }),
      (n) => world.serialTaken(n),
    );
    mcu.watchdog = mcu.peripherals[0x40058];
    // rp2040js's watchdog alarm fires again at once while its counter stays at 0, which would
    // hold the emulation at that instant: the first bite stops it, and the board restarts.
    mcu.watchdog.onWatchdogTrigger = () => {
      mcu.watchdog.alarm.enable = false;
      world.rebootRequested('watchdog');
    };
    if (world.watchdogKept) {
      mcu.watchdog.reason = world.watchdogKept.reason;
      mcu.watchdog.scratchData.set(world.watchdogKept.scratch);
      world.watchdogKept = null;
    }
    for (const pin of Object.values(config.buttons)) this.driveButton(pin);
    this.setVsys(world.vsys);
    mcu.adc.channelValues[4] = this.adcCode(TEMPERATURE_VOLTS);
    this.i2c = new I2CBus(mcu, mcu.i2c[0]);
    if (config.kind === 'popper') this.buildPopper();
    else this.buildHandheld();
  }

  micros() {
    return this.mcu.clock.nanos / 1000;
  }

  buildPopper() {
    const { mcu, config, world } = this;
    this.accel = new Lis3dh(mcu.clock, mcu.gpio[config.int1], {
      batchDone: (batch) => world.batchDone(batch),
    });
    this.accel.rest = world.rest;
    this.i2c.attach(0x18, this.accel);
    this.leds = new Ws2812Chain(mcu.clock, mcu.gpio[config.ledData], config.ledCount,
      (rgb, startNs, endNs, complete, bits) => this.out({
        t: 'leds',
        pin: config.ledData,
        bpp: 3,
        rgb: Buffer.from(rgb).toString('hex'),
        start_us: startNs / 1000,
        end_us: endNs / 1000,
        complete,
        bits,
      }));
    this.watchPwm(config.buzzer);
  }

  buildHandheld() {
    this.display = new Ssd1306((part) => this.out({ t: 'display', ...part.state(), us: this.micros() }));
    this.i2c.attach(0x3c, this.display);
  }

  // A button closes its pin to ground; released, the pin's pull-up holds it high.
  driveButton(pin) {
    this.mcu.gpio[pin].setInputValue(!this.world.pressed.has(pin));
  }

  adcCode(volts) {
    const clamped = Math.min(Math.max(volts, 0), ADC_REFERENCE_VOLTS);
    return Math.round((clamped / ADC_REFERENCE_VOLTS) * 4095);
  }

  setVsys(volts) {
    this.mcu.adc.channelValues[this.config.vsysChannel] = this.adcCode(volts / 3);
  }

  // The buzzer's PWM output: the slice and channel of its pin, read back after every write.
  watchPwm(pin) {
    const pwm = this.mcu.pwm;
    const slice = (pin >> 1) & 7;
    const channelB = pin & 1;
    const write = pwm.writeUint32.bind(pwm);
    let last = '';
    pwm.writeUint32 = (offset, value) => {
      write(offset, value);
      const channel = pwm.channels[slice];
      const top = channel.top;
      const divider = ((channel.div >> 4) & 0xff || 256) + (channel.div & 0xf) / 16;
      const phaseCorrect = (channel.csr & 0x02) !== 0;
      const level = channelB ? channel.cc >>> 16 : channel.cc & 0xffff;
      const enabled = (channel.csr & 0x01) !== 0;
      const freq = this.mcu.clkSys / divider / (top + 1) / (phaseCorrect ? 2 : 1);
      const duty = Math.min(65535, Math.round((level * 65536) / (top + 1)));
      const state = { pin, freq: Math.round(freq), duty_u16: duty, on: enabled && duty > 0 };
      const key = JSON.stringify(state);
      if (key !== last) {
        last = key;
        this.out({ t: 'pwm', ...state, us: this.micros() });
      }
    };
  }
}

