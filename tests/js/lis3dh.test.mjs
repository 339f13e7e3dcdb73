import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Lis3dh } from '../../host/popdice/sim/rp2040/js/lis3dh.mjs';
import { FakePin, newClock } from './support.mjs';

function configured() {
  const clock = newClock();
  const int1 = new FakePin();
  const done = [];
  const part = new Lis3dh(clock, int1, { batchDone: (batch) => done.push(batch) });
  write(part, 0x23, 0xa8); // BDU, +-8 g, high resolution
  write(part, 0x22, 0x10); // data ready on INT1
  write(part, 0x20, 0x77); // 400 Hz, x, y, z
  return { clock, int1, part, done };
}

function write(part, register, value) {
  part.i2cStart(false);
  part.i2cWrite(register);
  part.i2cWrite(value);
  part.i2cStop();
}

function readSample(part) {
  part.i2cStart(false);
  part.i2cWrite(0x27 | 0x80);
  part.i2cStart(true);
  const bytes = Array.from({ length: 7 }, () => part.i2cRead());
  part.i2cStop();
  const axis = (i) => ((bytes[1 + 2 * i] | (bytes[2 + 2 * i] << 8)) << 16 >> 16 >> 4) * 4;
  return { status: bytes[0], x: axis(0), y: axis(1), z: axis(2) };
}

test('a sample is ready every 2.5 ms of emulated time, and reading it lowers INT1', () => {
  const { clock, int1, part } = configured();
  assert.equal(part.odrHz(), 400);
  clock.tick(2.4e6);
  assert.equal(int1.level, false);
  clock.tick(0.2e6);
  assert.equal(int1.level, true);
  const sample = readSample(part);
  assert.equal(sample.status & 0x08, 0x08);
  assert.deepEqual([sample.x, sample.y, sample.z], [0, 0, 1000]);
  assert.equal(int1.level, false);
});

test('fed samples come in order, then the resting vector', () => {
  const { clock, part, done } = configured();
  const batch = { id: 7, samples: 2 };
  part.feed([0.5, -0.25, 1.0, 2.0, 0.0, -1.0], batch);
  clock.tick(2.5e6);
  assert.deepEqual(Object.values(readSample(part)).slice(1), [500, -248, 1000]);
  assert.equal(batch.firstLatchedNs, 2.5e6);
  clock.tick(2.5e6);
  assert.deepEqual(Object.values(readSample(part)).slice(1), [2000, 0, -1000]);
  assert.deepEqual(done, [batch]);
  clock.tick(2.5e6);
  assert.equal(readSample(part).z, 1000);
});

test('a sample not read in time is overwritten, and the part says so', () => {
  const { clock, part, done } = configured();
  const batch = { id: 1, samples: 1 };
  part.feed([0, 0, 3], batch);
  clock.tick(2.5e6); // the fed sample is latched...
  clock.tick(2.5e6); // ...and overwritten by the resting one before anyone read it
  assert.equal(part.overruns, 1);
  assert.deepEqual(done, [batch]);
  assert.equal(batch.overwritten, true);
  const sample = readSample(part);
  assert.equal(sample.status & 0x80, 0x80);
  assert.equal(sample.z, 1000);
  clock.tick(2.5e6);
  assert.equal(readSample(part).status & 0x80, 0); // read in time again: no overrun
});

test('readings clip at the full scale and the part powers down with ODR 0', () => {
  const { clock, part, int1 } = configured();
  part.feed([12, -12, 0], { id: 2, samples: 1 });
  clock.tick(2.5e6);
  const sample = readSample(part);
  assert.ok(sample.x > 7990 && sample.y < -7990);
  write(part, 0x20, 0x07);
  clock.tick(10e6);
  assert.equal(int1.level, false);
  assert.equal(part.produced, 1);
});

for (const [due, between] of [
  [3, "y's low and high byte"],
  [2, 'two axes'],
]) {
  test(`with BDU a sample due between ${between} waits for the read's end`, () => {
    const { clock, part } = configured();
    part.feed([-0.012, -0.004, 1, 0.012, 0.004, 0.9], { id: 3, samples: 2 });
    clock.tick(2.5e6); // (-12, -4, 1000) mg is latched
    part.i2cStart(false);
    part.i2cWrite(0x28 | 0x80);
    part.i2cStart(true);
    const bytes = Array.from({ length: due }, () => part.i2cRead());
    clock.tick(2.5e6); // (12, 4, 900) is due in the middle of the read
    while (bytes.length < 6) bytes.push(part.i2cRead());
    part.i2cStop();
    const axis = (i) => ((bytes[2 * i] | (bytes[2 * i + 1] << 8)) << 16 >> 16 >> 4) * 4;
    assert.deepEqual([axis(0), axis(1), axis(2)], [-12, -4, 1000]); // one sample, whole
    assert.equal(part.overruns, 0);
    const next = readSample(part); // the waiting one, latched when the read ended
    assert.deepEqual([next.x, next.y, next.z], [12, 4, 900]);
    assert.equal(part.overruns, 0);
  });
}

test('without BDU the same read takes the low byte of one sample and the high of the next', () => {
  const { clock, part } = configured();
  write(part, 0x23, 0x28); // +-8 g, high resolution, continuous update
  part.feed([0, -0.004, 1, 0, 0.004, 1], { id: 4, samples: 2 });
  clock.tick(2.5e6);
  part.i2cStart(false);
  part.i2cWrite(0x28 | 0x80);
  part.i2cStart(true);
  const bytes = [part.i2cRead(), part.i2cRead(), part.i2cRead()];
  clock.tick(2.5e6);
  bytes.push(part.i2cRead(), part.i2cRead(), part.i2cRead());
  part.i2cStop();
  const y = ((bytes[2] | (bytes[3] << 8)) << 16 >> 16 >> 4) * 4;
  assert.equal(y, 60); // 0xF0 of -4 mg, 0x00 of +4 mg: what the firmware's BDU prevents
});
