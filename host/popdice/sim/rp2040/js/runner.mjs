// The emulated Pico's process: `node runner.mjs CONFIG.json`. It boots the board's flash image
// in rp2040js and talks to its supervisor (popdice.sim.rp2040.core) in JSON lines: requests on
// stdin (serial bytes from the host, buttons, accelerometer samples, VSYS, reset, power,
// stats), reports on stdout (serial bytes to the host, LED frames, the display, the buzzer,
// boots, finished feeds). Emulated time runs no faster than wall time, and slower when the
// emulated CPU has more to do than this machine can keep up with; it never races to catch up.

import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Board } from './board.mjs';

const SLICE_WALL_MS = 8; // at most this long executing before looking at the outside world
const MAX_LAG_NS = 20e6; // behind wall time by more than this: let it go, do not catch up
const CHECK_EVERY = 2048; // instructions between looks at the wall clock
const IDLE_POLL_MS = 1;

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const lib = await import(
  pathToFileURL(path.join(config.rp2040js, 'dist', 'esm', 'index.js')).href
);
config.bootrom = new Uint32Array(new Uint8Array(fs.readFileSync(config.bootromPath)).buffer);
config.uniqueId = Buffer.from(config.deviceId, 'hex');

function out(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

// --- the physical world, kept across reboots
const flashFd = fs.openSync(config.flashPath, 'r+');
const flashImage = new Uint8Array(fs.readFileSync(config.flashPath));
const dirty = new Set();
let txChunks = [];
let txTimes = []; // [emulated us, bytes] of each USB transfer to the host, this slice
let rxTaken = 0;
let rxTimes = []; // [emulated us, bytes] of each transfer the device took from the host
let board = null;
let powered = false;
let boots = 0;
let reboot = null;
const batches = new Map();

const world = {
  pressed: new Set(config.pressed),
  watchdogKept: null, // the watchdog's reason and scratch registers, across its reset
  rest: config.rest,
  vsys: config.vsys,
  flashWritten(offset, length) {
    for (let sector = offset >> 12; sector <= (offset + length - 1) >> 12; sector++) dirty.add(sector);
  },
  serialTaken(n) {
    rxTaken += n;
    rxTimes.push([board ? board.micros() : 0, n]);
  },
  serialFromDevice(bytes) {
    txChunks.push(Buffer.from(bytes));
    txTimes.push([board ? board.micros() : 0, bytes.length]);
  },
  rebootRequested(how) {
    reboot = how;
  },
  batchDone(batch) {
    if (!batches.delete(batch.id)) return;
    out({
      t: 'accel_done',
      id: batch.id,
      samples: batch.samples,
      first_us: batch.firstLatchedNs === undefined ? null : batch.firstLatchedNs / 1000,
      overwritten: Boolean(batch.overwritten),
    });
  },
};

function saveFlash() {
  for (const sector of [...dirty].sort((a, b) => a - b)) {
    const start = sector << 12;
    const bytes = board ? board.mcu.flash.subarray(start, start + 4096) : flashImage.subarray(start, start + 4096);
    fs.writeSync(flashFd, bytes, 0, 4096, start);
    flashImage.set(bytes, start);
  }
  dirty.clear();
}

function powerOn() {
  if (board) flashImage.set(board.mcu.flash.subarray(0, flashImage.length));
  boots += 1;
  board = new Board(lib, config, world, flashImage, out);
  powered = true;
  out({ t: 'boot', boots, us: 0 });
}

function powerOff(reason) {
  if (!board) return;
  saveFlash();
  flashImage.set(board.mcu.flash.subarray(0, flashImage.length));
  if (board.accel) {
    for (const batch of board.accel.dropQueue()) lostBatch(batch, reason);
    if (board.accel.latchedBatch) lostBatch(board.accel.latchedBatch, reason);
  }
  board.usb.drop();
  board = null;
  powered = false;
}

function lostBatch(batch, reason) {
  if (batches.delete(batch.id)) out({ t: 'accel_lost', id: batch.id, reason });
}

// --- requests from the supervisor
const clicks = new Map();

function handle(request) {
  const op = request.op;
  if (op === 'rx') {
    if (board) board.usb.send(Buffer.from(request.b64, 'base64'));
    else rxTaken += Buffer.from(request.b64, 'base64').length; // nobody there: the bytes are lost
  } else if (op === 'button') {
    if (request.pressed) world.pressed.add(request.pin);
    else world.pressed.delete(request.pin);
    if (board) board.driveButton(request.pin);
  } else if (op === 'click') {
    world.pressed.add(request.pin);
    if (!board) {
      world.pressed.delete(request.pin);
      out({ t: 'done', id: request.id });
      return;
    }
    board.driveButton(request.pin);
    const alarm = board.mcu.clock.createAlarm(() => {
      world.pressed.delete(request.pin);
      if (board) board.driveButton(request.pin);
      clicks.delete(request.id);
      out({ t: 'done', id: request.id });
    });
    clicks.set(request.id, alarm);
    alarm.schedule(request.hold_ms * 1e6);
  } else if (op === 'accel') {
    const batch = { id: request.id, samples: request.samples.length / 3 };
    batches.set(batch.id, batch);
    if (board && board.accel) board.accel.feed(request.samples, batch);
    else lostBatch(batch, 'no accelerometer running');
  } else if (op === 'rest') {
    world.rest = request.g;
    if (board && board.accel) board.accel.rest = request.g;
  } else if (op === 'vsys') {
    world.vsys = request.volts;
    if (board) board.setVsys(request.volts);
  } else if (op === 'reset') {
    reboot = 'reset';
  } else if (op === 'power') {
    if (request.on && !powered) powerOn();
    else if (!request.on && powered) powerOff('lost power');
    out({ t: 'done', id: request.id });
  } else if (op === 'stats') {
    out({ t: 'stats', id: request.id, ...stats() });
  } else if (op === 'stop') {
    saveFlash();
    process.exit(0);
  }
}

function stats() {
  const result = { boots, powered, instructions, us: board ? board.micros() : 0, wall_ms: performance.now() };
  if (board) {
    result.i2c_transfers = board.i2c.transfers;
    result.flash = { erases: board.flashChip.erases, programs: board.flashChip.programs };
    if (board.accel) result.accel = board.accel.stats();
    if (board.leds) result.led_frames = board.leds.frames;
  }
  return result;
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim()) handle(JSON.parse(line));
});
process.stdin.on('end', () => {
  saveFlash();
  process.exit(0);
});

// --- running the CPU against the wall clock
let instructions = 0;
let wallZero = performance.now();
let shiftNs = 0;

function targetNanos() {
  return (performance.now() - wallZero) * 1e6 + shiftNs;
}

function run() {
  if (!board) {
    setTimeout(run, IDLE_POLL_MS);
    return;
  }
  const { mcu } = board;
  const { core, clock } = mcu;
  let target = targetNanos();
  if (target - clock.nanos > MAX_LAG_NS) {
    shiftNs -= target - clock.nanos - MAX_LAG_NS;
    target = clock.nanos + MAX_LAG_NS;
  }
  const cycleNanos = 1e9 / mcu.clkSys;
  const wallEnd = performance.now() + SLICE_WALL_MS;
  let count = 0;
  while (clock.nanos < target && board && board.mcu === mcu && reboot === null) {
    if (core.waiting) {
      const next = clock.nextAlarm;
      const step = next ? Math.min(Math.max(next.nanos - clock.nanos, 0), target - clock.nanos) : target - clock.nanos;
      clock.tick(step);
      continue;
    }
    clock.tick(core.executeInstruction() * cycleNanos);
    if (++count % CHECK_EVERY === 0 && performance.now() >= wallEnd) break;
  }
  instructions += count;
  flushOutput();
  if (reboot !== null) {
    const how = reboot;
    reboot = null;
    // The watchdog's own reset leaves its reason and scratch registers as they were (the
    // firmware reads them back); the RUN pin and a power cycle clear them.
    const dog = board && board.mcu.watchdog;
    world.watchdogKept =
      how === 'watchdog' && dog ? { reason: dog.reason, scratch: Uint32Array.from(dog.scratchData) } : null;
    out({ t: 'reset', how });
    powerOff('restarted');
    powerOn();
    setImmediate(run);
    return;
  }
  if (board && clock.nanos < target) setImmediate(run);
  else setTimeout(run, IDLE_POLL_MS);
}

function flushOutput() {
  if (txChunks.length) {
    out({ t: 'tx', b64: Buffer.concat(txChunks).toString('base64'), times: txTimes });
    txChunks = [];
    txTimes = [];
  }
  // Bytes the device took (or lost) since the last report: the supervisor may send as many more.
  if (rxTaken) {
    out({ t: 'rx_taken', n: rxTaken, times: rxTimes });
    rxTaken = 0;
    rxTimes = [];
  }
  if (dirty.size) saveFlash();
}

powerOn();
run();
