// What the part models' tests share: rp2040js's own simulation clock (from the installed
// package named by $RP2040JS), and a GPIO pin that records what the models drive.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.env.RP2040JS;
if (!root) throw new Error('set RP2040JS to the installed rp2040js package');
const clockModule = await import(
  pathToFileURL(path.join(root, 'dist', 'esm', 'clock', 'simulation-clock.js')).href
);

export function newClock() {
  return new clockModule.SimulationClock();
}

export class FakePin {
  constructor() {
    this.level = null;
    this.listeners = [];
  }

  setInputValue(level) {
    this.level = level;
  }

  addListener(listener) {
    this.listeners.push(listener);
  }

  drive(high) {
    for (const listener of this.listeners) listener(high ? 1 : 0);
  }
}
