"""The device end of the PopDice link (docs/link.md).

- ``hello``: answered with the protocol version, firmware version, board, device id, this
  boot's session id, the last command sequence number seen, the last event number and the
  last one acknowledged. It is also sent unasked at boot, so a host sees a reboot. A hello
  with ``renumber`` starts the command numbering again (a host whose commands the device
  ignored because another program had numbered past them).
- A host's hello starts a new link session (``host_session`` counts them; 0 until the first):
  what a board does for a host belongs to the link session it was asked in (the handheld
  reveals a roll by command only to the link session it was made in).
- Commands carry the session id and a sequence number. A new number runs the command and
  its reply is kept; the same number again gets the kept reply without running twice; an
  older number is not run and gets ``stale_seq`` (another program numbered past it). A
  command for another session gets ``stale_session``.
- Events are numbered, kept in a bounded outbox and sent again every ``_RETRANSMIT_MS``
  until the host acknowledges them. Each carries ``lo``, the oldest number still kept, so
  the host knows when a full outbox dropped events.
- Work a host starts (a burst) belongs to its link session, which ends with a new hello or
  when the host has gone (``host_gone_ms`` without a frame from it while the outbox holds
  the session's events): the work is cancelled and its unacknowledged events are withdrawn
  from the outbox, so that nobody gets them and they do not fill it. Events nobody started
  (a button, a pop) are kept.
- A frame that cannot be read gets an error frame (its text always UTF-8, whatever of the
  host's it quotes); nothing a host sends stops the link:
  the reader, writer and retransmitter run under a ``Supervisor``, which starts a task that
  raised again and counts it.
"""

import asyncio
import gc
import os
import time
from binascii import hexlify

from micropython import const

from popdice_fw import PROTOCOL, VERSION, codec
from popdice_fw.supervise import Supervisor

_RETRANSMIT_MS = const(250)
_OUTBOX = const(32)
_TX_QUEUE = const(24)
_READ_CHUNK = const(128)
_SEQ_LIMIT = const(0x3FFFFFFF)  # command numbers are 1.._SEQ_LIMIT: small ints on a Pico
_NONCE_MAX = const(64)
_HOST_GONE_MS = const(3000)  # a host that sent nothing for this long while owed events is gone

STALE_SESSION = "stale_session"
STALE_SEQ = "stale_seq"
UNKNOWN_COMMAND = "unknown_command"
BAD_ARGS = "bad_args"
INTERNAL = "internal"
BUSY = "busy"
_TASKS = (
    ("link writer", "_writer"),
    ("link retransmitter", "_retransmitter"),
    ("link reader", "_reader"),
)


def _as_text(text):
    """``text`` with each lone surrogate (a host's ``\\ud800``, which MicroPython keeps as
    bytes that are not UTF-8) made a ``?``: an error may quote what the host sent."""
    for char in text:
        if 0xD800 <= ord(char) <= 0xDFFF:
            return "".join("?" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    return text


class CommandError(Exception):
    """A command refused: becomes an error frame with ``code`` and ``message``."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class Link:
    def __init__(self, port, board, device_id, dispatch, supervisor=None):
        self.supervisor = supervisor or Supervisor()
        self.session = hexlify(os.urandom(4)).decode()
        self.board = board
        self.device_id = device_id
        self._port = port
        self._dispatch = dispatch
        self._deframer = codec.Deframer()
        self._last_seq = 0
        self._last_reply = None
        self._event_seq = 0
        self._acked = 0
        self._outbox = []
        self._tx = []
        self._tx_ready = asyncio.Event()
        self._space = asyncio.Event()
        self._host_seen = False
        # The host's link session: a new one with each hello; work it starts and the events
        # of that work carry its number (``start_work``).
        self.host_session = 0
        self.host_key = None  # the secret the session's hello gave, never sent back
        self.host_gone_ms = _HOST_GONE_MS
        self._heard = time.ticks_ms()
        self._work = []  # the running work, each as [task]
        self._lost_upto = 0  # the last event the full outbox dropped
        self._stopping = False
        self._stopped = asyncio.Event()
        self.stats = {
            "rx_frames": 0,
            "rx_errors": 0,
            "tx_frames": 0,
            "tx_dropped": 0,
            "duplicates": 0,
            "retransmits": 0,
            "events_dropped": 0,
            "handler_errors": 0,
            "events_withdrawn": 0,
            "hosts_gone": 0,
        }

    # -- running -------------------------------------------------------------------

    async def run(self):
        """Serves the link until ``stop`` is called and every queued frame is written."""
        self._send_hello(None)
        supervisor = self.supervisor
        for name, make in _TASKS:
            supervisor.start(name, getattr(self, make))
        await self._stopped.wait()
        for name, _make in _TASKS:
            supervisor.cancel(name)

    def stop(self):
        """Ends ``run`` once the frames already queued (a last reply) are written."""
        self._stopping = True
        self._tx_ready.set()

    async def _reader(self):
        buf = bytearray(_READ_CHUNK)
        while True:
            n = await self._port.read(buf)
            if not n:
                await asyncio.sleep_ms(50)
                continue
            self._heard = time.ticks_ms()
            try:
                for item in self._deframer.feed(buf, n):
                    if isinstance(item, codec.FrameError):
                        self.stats["rx_errors"] += 1
                        self.send_error(None, item.code, item.message)
                    else:
                        self.stats["rx_frames"] += 1
                        try:
                            await self._handle(item)
                        except Exception as error:  # noqa: BLE001 - the reader outlives any frame
                            self._handler_failed(error)
            except MemoryError:
                # No block left to take a frame into (a fragmented heap): it is dropped like a
                # damaged one, unanswered, and the host sends it again.
                gc.collect()
                self.stats["rx_errors"] += 1

    async def _writer(self):
        while True:
            while self._tx:
                frame = self._tx.pop(0)
                self._space.set()
                for _attempt in range(2):
                    try:
                        # A leading delimiter ends any partial frame a fault left on the
                        # line, so that damage to one frame never spoils the next.
                        await self._port.write(b"\x00" + frame)
                        self.stats["tx_frames"] += 1
                        break
                    except OSError:
                        self.stats["tx_dropped"] += 1
                        break
                    except MemoryError:  # no block for the write's copy: once more, after
                        gc.collect()  # a collection, rather than leave a reply to the resend
                else:
                    self.stats["tx_dropped"] += 1
            if self._stopping:
                self._stopped.set()
                return
            self._tx_ready.clear()
            await self._tx_ready.wait()

    async def _retransmitter(self):
        while True:
            await asyncio.sleep_ms(_RETRANSMIT_MS)
            if self._host_gone():
                self.stats["hosts_gone"] += 1
                self.end_session()
            if self._host_seen and self._outbox:
                self._resend_outbox()

    def _host_gone(self):
        """Whether the host has sent nothing for ``host_gone_ms`` while it is owed events of
        its work: a live host acknowledges each resend, one that closed the port never does."""
        if time.ticks_diff(time.ticks_ms(), self._heard) < self.host_gone_ms:
            return False
        for entry in self._outbox:
            if entry[3] is not None:
                return True
        return False

    # -- frames in -----------------------------------------------------------------

    def _handler_failed(self, error):
        """A frame whose handling raised: counted, answered with a short error frame."""
        if isinstance(error, MemoryError):
            gc.collect()
        self.stats["handler_errors"] += 1
        self.send_error(None, INTERNAL, type(error).__name__)

    async def _handle(self, message):
        kind = message.get("t")
        if kind == "cmd":
            await self._on_command(message)
        elif kind == "ack":
            self._on_ack(message)
        elif kind == "hello":
            nonce = message.get("nonce")
            key = message.get("key")
            for name, value in (("nonce", nonce), ("key", key)):
                if value is not None and not (isinstance(value, str) and len(value) <= _NONCE_MAX):
                    self.send_error(
                        None, codec.BAD_FRAME, name + ": a string of at most 64 characters"
                    )
                    return
            if message.get("renumber") is True:
                self._last_seq = 0  # the host starts its numbering again
                self._last_reply = None
            self.end_session()  # a hello starts a new link session
            self.host_key = key
            self._send_hello(nonce)
            self._host_seen = True
            self._resend_outbox()
        else:
            self.send_error(None, codec.BAD_FRAME, "unknown frame type %r" % (kind,))

    async def _on_command(self, message):
        seq = message.get("s")
        name = message.get("c")
        args = message.get("a", {})
        if not isinstance(seq, int) or not isinstance(name, str) or not isinstance(args, dict):
            self.send_error(
                seq if isinstance(seq, int) and 0 < seq <= _SEQ_LIMIT else None,
                codec.BAD_FRAME,
                "a command needs s (int), c (str) and a (object)",
            )
            return
        if not 0 < seq <= _SEQ_LIMIT:
            self.send_error(None, codec.BAD_FRAME, "s must be from 1 to %d" % _SEQ_LIMIT)
            return
        if message.get("d") != self.session:
            self.send_error(seq, STALE_SESSION, "this boot's session is " + self.session)
            return
        if seq <= self._last_seq:
            if seq == self._last_seq:
                if self._last_reply is not None:
                    self.stats["duplicates"] += 1
                    self._queue(self._last_reply)
            else:
                self.send_error(seq, STALE_SEQ, "the last command number was %d" % self._last_seq)
            return
        self._last_seq = seq
        self._last_reply = None
        try:
            value = await self._dispatch(name, args)
            reply = self._encode({"t": "res", "d": self.session, "s": seq, "v": value or {}})
        except CommandError as error:
            reply = self._error_frame(seq, error.code, error.message)
        except Exception as error:  # noqa: BLE001 - a failing command must not stop the link
            reply = self._error_frame(seq, INTERNAL, "%s: %s" % (type(error).__name__, error))
        self._last_reply = reply
        self._queue(reply)

    def _on_ack(self, message):
        upto = message.get("e")
        if message.get("d") != self.session or not isinstance(upto, int):
            return
        if upto > self._acked:
            self._acked = min(upto, self._event_seq)
        kept = [entry for entry in self._outbox if entry[0] > upto]
        if len(kept) != len(self._outbox):
            self._outbox = kept
            self._space.set()

    # -- frames out ----------------------------------------------------------------

    def _encode(self, message):
        try:
            return codec.encode(message)
        except codec.FrameError as error:
            return self._error_frame(message.get("s"), error.code, error.message)

    def _error_frame(self, seq, code, text):
        message = {"t": "err", "d": self.session, "code": code, "msg": _as_text(text[:200])}
        if seq is not None:
            message["s"] = seq
        try:
            return codec.encode(message)
        except codec.FrameError:  # text that encodes too long: the code alone
            return codec.encode({"t": "err", "d": self.session, "code": code, "msg": ""})

    def send_error(self, seq, code, text):
        self._queue(self._error_frame(seq, code, text))

    def _send_hello(self, nonce):
        self._queue(
            codec.encode(
                {
                    "t": "hello",
                    "nonce": nonce,
                    "proto": PROTOCOL,
                    "fw": VERSION,
                    "board": self.board,
                    "id": self.device_id,
                    "session": self.session,
                    "seq": self._last_seq,
                    "event": self._event_seq,
                    "acked": self._acked,
                    "uptime_ms": time.ticks_ms(),
                }
            )
        )

    def _queue(self, frame):
        if len(self._tx) >= _TX_QUEUE:
            self.stats["tx_dropped"] += 1
            return
        self._tx.append(frame)
        self._tx_ready.set()

    # -- unreliable data ----------------------------------------------------------------

    def send_data(self, kind, message):
        """Sends a frame of type ``kind`` that is neither acknowledged nor sent again (raw
        samples): False, and nothing sent, if the transmit queue has no room for it."""
        if len(self._tx) >= _TX_QUEUE // 2:
            return False
        message["t"] = kind
        message["d"] = self.session
        self._queue(self._encode(message))
        return True

    # -- events --------------------------------------------------------------------

    def emit(self, kind, value, owner=None):
        """Sends an event now; if the outbox is full the oldest unacknowledged one is lost.
        ``owner``: the host session whose work sent it (``start_work``), None for events
        nobody asked for (a button, a pop)."""
        if len(self._outbox) >= _OUTBOX:
            self._lost_upto = self._outbox.pop(0)[0]
            self.stats["events_dropped"] += 1
        self._event_seq += 1
        entry = (self._event_seq, kind, value, owner)
        self._outbox.append(entry)
        self._queue(self._event_frame(entry))
        return self._event_seq

    async def send_event(self, kind, value, owner=None):
        """Like ``emit``, but waits for room (outbox and transmit queue) instead of dropping,
        and lets the other tasks run after each event: a task sending many (a burst) must not
        hold the CPU from the sensor until the outbox is full. An event of a session that
        ended while it waited is not sent (None)."""
        while len(self._outbox) >= _OUTBOX or len(self._tx) >= _TX_QUEUE:
            self._space.clear()
            await self._space.wait()
        if owner is not None and owner != self.host_session:
            return None
        seq = self.emit(kind, value, owner)
        await asyncio.sleep_ms(0)
        return seq

    # -- work of a host session ----------------------------------------------------------

    def start_work(self, make):
        """Runs ``make(owner)``, a coroutine function, as work of the current host session:
        ``owner`` is the session's number, for ``send_event``. It ends with the session."""
        owner = self.host_session
        work = self._work
        entry = []  # [task], once it is made

        async def run():
            try:
                await make(owner)
            finally:
                if entry in work:
                    work.remove(entry)

        entry.append(asyncio.create_task(run()))
        work.append(entry)

    def running_work(self):
        return len(self._work)

    def end_session(self):
        """Ends the host's link session: its work is cancelled, and the events of any ended
        session not yet acknowledged leave the outbox (nobody holds that session any more).
        Events nobody started stay. When the withdrawn events were all that was owed, a new
        host is told (``acked`` in the hello) that nothing before the next event is due."""
        self.host_session += 1
        work, self._work = self._work, []
        for entry in work:
            entry[0].cancel()
        kept = [entry for entry in self._outbox if entry[3] is None]
        withdrawn = len(self._outbox) - len(kept)
        if withdrawn:
            self._outbox = kept
            self.stats["events_withdrawn"] += withdrawn
            if self._lost_upto <= self._acked:
                self._acked = kept[0][0] - 1 if kept else self._event_seq
            self._space.set()

    def _event_frame(self, entry):
        seq, kind, value, _owner = entry
        low = self._outbox[0][0] if self._outbox else seq
        return self._encode(
            {"t": "evt", "d": self.session, "e": seq, "lo": low, "k": kind, "v": value}
        )

    def _resend_outbox(self):
        for entry in self._outbox:
            if len(self._tx) >= _TX_QUEUE:
                return
            self.stats["retransmits"] += 1
            self._queue(self._event_frame(entry))

    def unacked(self):
        return len(self._outbox)
