import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpiFlash } from '../../host/popdice/sim/rp2040/js/spiflash.mjs';

const SS_CTRL = 0x0c;
const DR0 = 0x60;

function chip() {
  const ssiWrites = [];
  const ssi = {
    readUint32: () => 0x1234,
    writeUint32: (offset, value) => ssiWrites.push([offset, value]),
  };
  const mcu = { peripherals: { 0x18000: ssi }, flash: new Uint8Array(64 * 1024).fill(0xff) };
  const written = [];
  const flash = new SpiFlash(mcu, mcu.flash.length, Buffer.from('0123456789abcdef', 'hex'), (o, n) =>
    written.push([o, n]),
  );
  const io = mcu.peripherals[0x40018];
  function transaction(bytes) {
    io.writeUint32(SS_CTRL, 2 << 8); // chip select forced low
    const replies = bytes.map((byte) => {
      ssi.writeUint32(DR0, byte);
      return ssi.readUint32(DR0);
    });
    io.writeUint32(SS_CTRL, 3 << 8); // and high again
    return replies;
  }
  return { mcu, flash, ssi, ssiWrites, written, transaction };
}

test('erase, then program a page, as the bootrom does it', () => {
  const { mcu, transaction, written } = chip();
  mcu.flash.fill(0x00, 0x1000, 0x2000);
  transaction([0x06]);
  transaction([0x20, 0x00, 0x10, 0x80]); // sector erase inside 0x1000..0x1fff
  assert.ok(mcu.flash.subarray(0x1000, 0x2000).every((b) => b === 0xff));
  transaction([0x06]);
  transaction([0x02, 0x00, 0x10, 0xfe, 0x12, 0x34, 0x56]); // wraps within the page
  assert.deepEqual([...mcu.flash.subarray(0x10fe, 0x1100)], [0x12, 0x34]);
  assert.equal(mcu.flash[0x1000], 0x56);
  assert.deepEqual(written, [[0x1000, 4096], [0x1000, 256]]);
});

test('without write enable nothing changes, and programming only clears bits', () => {
  const { mcu, transaction } = chip();
  transaction([0x02, 0x00, 0x00, 0x00, 0x00]);
  transaction([0x20, 0x00, 0x00, 0x00]);
  assert.equal(mcu.flash[0], 0xff);
  transaction([0x06]);
  transaction([0x02, 0x00, 0x00, 0x00, 0xf0]);
  transaction([0x06]);
  transaction([0x02, 0x00, 0x00, 0x00, 0x3c]);
  assert.equal(mcu.flash[0], 0x30);
});

test('reads, status, JEDEC id and the unique id', () => {
  const { mcu, transaction } = chip();
  mcu.flash.set([1, 2, 3], 0x200);
  assert.deepEqual(transaction([0x03, 0x00, 0x02, 0x00, 0, 0, 0]).slice(4), [1, 2, 3]);
  assert.deepEqual(transaction([0x9f, 0, 0, 0]).slice(1), [0xef, 0x40, 0x15]);
  const id = transaction([0x4b, 0, 0, 0, 0, ...Array(8).fill(0)]).slice(5);
  assert.equal(Buffer.from(id).toString('hex'), '0123456789abcdef');
  assert.deepEqual(transaction([0x05, 0]), [0, 0]);
  transaction([0x06]);
  assert.deepEqual(transaction([0x05, 0]), [0, 0x02]); // write enable latched
});

test('with chip select not forced the SSI answers zeros and the flash is left alone', () => {
  const { mcu, ssi, ssiWrites } = chip();
  ssi.writeUint32(DR0, 0x06);
  ssi.writeUint32(DR0, 0x20);
  assert.equal(ssi.readUint32(0x24), 2); // RXFLR: a byte back for each byte out
  assert.equal(ssi.readUint32(DR0), 0);
  assert.equal(mcu.flash[0], 0xff);
  ssi.writeUint32(0x08, 0); // disabling the SSI empties its FIFO
  assert.equal(ssi.readUint32(0x24), 0);
  assert.deepEqual(ssiWrites, [[0x08, 0]]);
  assert.equal(ssi.readUint32(0x00), 0x1234); // other registers are rp2040js's own
});
