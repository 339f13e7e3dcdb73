import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ssd1306 } from '../../host/popdice/sim/rp2040/js/ssd1306.mjs';

function transfer(part, bytes) {
  part.i2cStart(false);
  for (const byte of bytes) part.i2cWrite(byte);
  part.i2cStop();
}

test('commands set the panel and data fills the window, page by page', () => {
  const changes = [];
  const part = new Ssd1306((p) => changes.push(p.state()));
  transfer(part, [0x00, 0xaf, 0x81, 0x40, 0x20, 0x00, 0x21, 2, 3, 0x22, 1, 2]);
  assert.equal(changes.length, 1);
  assert.equal(changes[0].on, true);
  assert.equal(changes[0].contrast, 0x40);
  transfer(part, [0x40, 1, 2, 3, 4, 5]); // four bytes fit: the fifth wraps to the start
  assert.deepEqual([...part.buffer.subarray(128 + 2, 128 + 4)], [5, 2]);
  assert.deepEqual([...part.buffer.subarray(256 + 2, 256 + 4)], [3, 4]);
  assert.equal(part.buffer[128 + 1], 0);
  assert.equal(Buffer.from(changes[1].buffer, 'base64')[128 + 2], 5);
});

test('a control byte with Co set covers one byte only, and nothing new reports nothing', () => {
  const changes = [];
  const part = new Ssd1306((p) => changes.push(p.state()));
  transfer(part, [0x80, 0xa7, 0x00, 0xc8]);
  assert.equal(changes.length, 1);
  assert.equal(changes[0].invert, true);
  assert.equal(changes[0].com_reverse, true);
  transfer(part, [0x80, 0xa7]);
  assert.equal(changes.length, 1);
});
