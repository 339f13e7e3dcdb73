// The laptop's side of the USB cable, for the board's CDC serial port: rp2040js's USBCDC host
// enumerates the device; here its OUT endpoint is fed from an unbounded queue the way a real
// host does it (a read the device arms while nothing is queued waits until bytes come, instead
// of completing empty at once, which would keep the emulated CPU busy forever).

export class UsbSerialHost {
  constructor(USBCDC, usb, onData, onConnected, onTaken) {
    this.onTaken = onTaken;
    this.usb = usb;
    this.cdc = new USBCDC(usb);
    this.queue = [];
    this.queued = 0;
    this.parkedRead = null;
    this.connected = false;
    this.cdc.onDeviceConnected = () => {
      this.connected = true;
      onConnected();
      this.serve();
    };
    this.cdc.onSerialData = (bytes) => onData(bytes);
    usb.onEndpointRead = (endpoint, size) => {
      if (endpoint !== this.cdc.outEndpoint) return;
      this.parkedRead = size;
      this.serve();
    };
  }

  // The cable is pulled or the chip reset: what the device had not read is gone.
  drop() {
    const lost = this.queued;
    this.queue = [];
    this.queued = 0;
    if (lost) this.onTaken(lost);
  }

  send(bytes) {
    if (!bytes.length) return;
    this.queue.push(bytes);
    this.queued += bytes.length;
    this.serve();
  }

  // Completes the device's parked OUT read with what is queued; returns the bytes handed over.
  serve() {
    const size = this.parkedRead;
    if (size === null || !this.queued || !this.connected) return 0;
    this.parkedRead = null;
    const out = new Uint8Array(Math.min(size, this.queued));
    let filled = 0;
    while (filled < out.length) {
      const head = this.queue[0];
      const take = Math.min(head.length, out.length - filled);
      out.set(head.subarray(0, take), filled);
      filled += take;
      if (take === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(take);
    }
    this.queued -= filled;
    this.onTaken(filled);
    this.usb.endpointReadDone(this.cdc.outEndpoint, out);
    return filled;
  }
}
