import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ws2812Chain } from '../../host/popdice/sim/rp2040/js/ws2812.mjs';
import { FakePin, newClock } from './support.mjs';

function chain(count) {
  const clock = newClock();
  const pin = new FakePin();
  const frames = [];
  new Ws2812Chain(clock, pin, count, (rgb, start, end, complete, bits) =>
    frames.push({ rgb: [...rgb], start, end, complete, bits }),
  );
  return { clock, pin, frames };
}

function send(clock, pin, bytes, oneHigh = 800, zeroHigh = 400) {
  for (const byte of bytes) {
    for (let bit = 7; bit >= 0; bit--) {
      const one = (byte >> bit) & 1;
      pin.drive(true);
      clock.tick(one ? oneHigh : zeroHigh);
      pin.drive(false);
      clock.tick(1250 - (one ? oneHigh : zeroHigh));
    }
  }
}

test('pulses decode to GRB bytes, reported as RGB, when the line rests 50 us', () => {
  const { clock, pin, frames } = chain(2);
  send(clock, pin, [0x10, 0x20, 0x30, 0x00, 0xff, 0x01]);
  assert.equal(frames.length, 0);
  clock.tick(60000);
  assert.equal(frames.length, 1);
  assert.deepEqual(frames[0].rgb, [0x20, 0x10, 0x30, 0xff, 0x00, 0x01]);
  assert.equal(frames[0].complete, true);
  assert.equal(frames[0].bits, 48);
  assert.ok(Math.abs(frames[0].end - frames[0].start - 47 * 1250 - 800) < 1); // last bit a one
});

test('a frame too short, or with a pulse no WS2812 makes, is not complete', () => {
  const { clock, pin, frames } = chain(2);
  send(clock, pin, [1, 2, 3]);
  clock.tick(60000);
  send(clock, pin, [1, 2, 3, 4, 5, 6], 9000);
  clock.tick(60000);
  assert.deepEqual(
    frames.map((f) => f.complete),
    [false, false],
  );
});
