"""The host end of the PopDice link: handshake, commands, events (docs/link.md).

- ``open`` says hello with a fresh nonce and ignores every frame until the answer carrying
  it: stale bytes from before the connect never reach a caller.
- ``call`` sends one command at a time with the next sequence number and resends the same
  frame (the device never runs it twice) on a timeout or on an error frame that says a
  frame was damaged, a bounded number of times.
- Events are delivered in order, once: duplicates are dropped and acknowledged again, a
  number the device no longer holds becomes an ``EventGap``, a reboot a ``DeviceReboot``.
- A reboot seen in any frame starts a new handshake; the command in flight, if any, raises
  ``DeviceRestarted`` because it may or may not have run.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from popdice_fw import PROTOCOL, codec

from ..errors import (
    BadArguments,
    CommandsOutOfStep,
    DeviceBusy,
    DeviceDisconnected,
    DeviceError,
    DeviceRestarted,
    DeviceTimeout,
    HandshakeFailed,
    ProtocolMismatch,
    RequestNotJson,
    RequestTooLong,
    UnknownCommand,
)
from .transport import SerialTransport

STALE_SEQ = "stale_seq"
DEFAULT_TIMEOUT_S = 0.3
DEFAULT_RETRIES = 5
MAX_DAMAGE_RESENDS = 10
HANDSHAKE_TIMEOUT_S = 0.5
HANDSHAKE_TRIES = 3
TRANSCRIPT_LENGTH = 400
DATA_FRAMES = frozenset({"smp"})
DATA_BACKLOG = 2000  # data frames kept for a reader that is behind (two minutes of samples)
COMPLAINTS_KEPT = 100  # the newest error frames that answer no command, for whoever reads them

_DAMAGED = {codec.BAD_CRC, codec.BAD_FRAME, codec.BAD_JSON, codec.TOO_LONG}
_ERRORS = {"unknown_command": UnknownCommand, "bad_args": BadArguments, "busy": DeviceBusy}


@dataclass(frozen=True)
class DeviceInfo:
    """What a device says of itself in the handshake."""

    port: str
    board: str
    device_id: str
    firmware: str
    protocol: int
    session: str


@dataclass(frozen=True)
class Event:
    """Something the device reports unasked (a pop, a button): ``kind`` and its ``data``."""

    kind: str
    data: dict[str, Any]
    seq: int
    session: str
    received: float = field(default_factory=time.monotonic, compare=False)


@dataclass(frozen=True)
class EventGap:
    """Events ``first``..``last`` of a session were lost: the device's outbox overflowed."""

    session: str
    first: int
    last: int


@dataclass(frozen=True)
class DeviceReboot:
    """The device restarted: events it had not delivered from ``old_session`` are gone."""

    old_session: str
    new_session: str


Notice = Event | EventGap | DeviceReboot


@dataclass
class _Pending:
    seq: int
    frame: bytes
    wake: threading.Event = field(default_factory=threading.Event)
    reply: dict[str, Any] | None = None
    restarted: bool = False
    damaged: bool = False


@dataclass
class LinkStats:
    commands: int = 0
    resends: int = 0
    events: int = 0
    duplicate_events: int = 0
    out_of_order_events: int = 0
    lost_events: int = 0
    reboots: int = 0
    bad_frames: int = 0
    stale_frames: int = 0
    data_dropped: int = 0
    complaints_dropped: int = 0


class Link:
    def __init__(
        self,
        port: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        retries: int = DEFAULT_RETRIES,
    ) -> None:
        self.port = port
        self.timeout = timeout
        self.retries = retries
        self.info: DeviceInfo | None = None
        self.stats = LinkStats()
        self.transcript: deque[tuple[float, str, Any]] = deque(maxlen=TRANSCRIPT_LENGTH)
        self._lock = threading.RLock()
        self._call_lock = threading.Lock()
        self._deframer = codec.Deframer()
        self._events: queue.Queue[Notice | Exception] = queue.Queue()
        # Error frames that answer no command (a damaged frame): (code, message), the newest
        # COMPLAINTS_KEPT.
        self.complaints: queue.Queue[tuple[str, str]] = queue.Queue(COMPLAINTS_KEPT)
        # Unacknowledged data frames (``smp``: raw samples), newest last; the oldest are
        # dropped beyond DATA_BACKLOG.
        self._data: queue.Queue[dict[str, Any]] = queue.Queue(DATA_BACKLOG)
        self._session: str | None = None
        self._known_session: str | None = None
        self._next_seq = 1
        self._last_event = 0
        self._ack_due: str | None = None  # the session whose events this read acknowledges
        self._pending: _Pending | None = None
        self._hello_nonce: str | None = None
        # Sent in each hello, never back: a handheld reveals a roll only to a command that
        # carries it, which a program writing into this link session unasked cannot.
        self.session_key = ""
        self._hello_done = threading.Event()
        self._handshaking = False
        self._lost: Exception | None = None
        self._transport = SerialTransport(port, self._on_bytes, self._on_lost)

    # -- public --------------------------------------------------------------------

    def open(self) -> DeviceInfo:
        """Handshakes with the device; raises ``HandshakeFailed`` if nothing answers."""
        self._handshake()
        assert self.info is not None
        return self.info

    def call(
        self,
        command: str,
        args: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        retries: int | None = None,
    ) -> dict[str, Any]:
        """Runs one command on the device and returns its result."""
        timeout = self.timeout if timeout is None else timeout
        retries = self.retries if retries is None else retries
        with self._call_lock:
            if self._session is None:
                self._handshake()
            with self._lock:
                seq = self._next_seq
                message = {"t": "cmd", "d": self._session, "s": seq, "c": command, "a": args or {}}
                pending = _Pending(seq, _encode_request(message))
                self._next_seq += 1
                self._pending = pending
            self.stats.commands += 1
            try:
                reply = self._exchange(pending, message, timeout, retries)
            finally:
                with self._lock:
                    self._pending = None
        if reply["t"] == "err" and reply.get("code") == STALE_SEQ:
            # Another program numbered commands past ours in this session: ours did not run.
            self._renumber()
            raise CommandsOutOfStep(
                f"the {self._board()} on {self.port} took commands from another program "
                f"({reply.get('msg', '')}): {command!r} did not run; numbering started again"
            )
        if reply["t"] == "err":
            error = _ERRORS.get(reply.get("code", ""), DeviceError)
            raise error(str(reply.get("code")), str(reply.get("msg", "")))
        value = reply.get("v", {})
        return value if isinstance(value, dict) else {"value": value}

    def next_event(self, timeout: float | None = None) -> Notice | None:
        """The next event or notice, waiting up to ``timeout`` seconds (``None``: for ever);
        ``None`` if none came in that time (the link is fine: call again to go on waiting).
        Raises ``DeviceDisconnected`` once the port is gone and every event is read."""
        try:
            item = self._events.get(timeout=timeout)
        except queue.Empty:
            if self._lost is not None:
                raise self._gone() from None
            return None
        if isinstance(item, Exception):
            self._events.put(item)
            raise item
        return item

    def next_data(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next data frame (``{"t": "smp", "n": ..., "b": ...}``), waiting up to
        ``timeout`` seconds; None if none came."""
        try:
            return self._data.get(timeout=timeout)
        except queue.Empty:
            if self._lost is not None:
                raise self._gone() from None
            return None

    def send_raw(self, data: bytes) -> None:
        """Writes bytes as they are: for diagnostics and demonstrations of bad input."""
        self._send(data, {"raw": data.hex()})

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> Link:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- commands ------------------------------------------------------------------

    def _exchange(
        self, pending: _Pending, message: dict[str, Any], timeout: float, retries: int
    ) -> dict[str, Any]:
        """Sends and resends one command until its reply: ``retries`` more times after a
        timeout, and at once (up to ``MAX_DAMAGE_RESENDS`` times) when the device says a
        frame arrived damaged. Damage complaints come in bursts (one burst of noise can
        make several bad frames), so they are not counted against ``retries``."""
        timeouts = 0
        damage_resends = 0
        self._send(pending.frame, message)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            woken = left > 0 and pending.wake.wait(left)
            with self._lock:
                pending.wake.clear()
                if pending.reply is not None:
                    return pending.reply
                if pending.restarted:
                    raise DeviceRestarted(
                        f"the {self._board()} restarted during {message['c']!r}: "
                        "it may or may not have run"
                    )
                if self._lost is not None:
                    raise self._gone()
                damaged = pending.damaged
                pending.damaged = False
            if woken and not (damaged and damage_resends < MAX_DAMAGE_RESENDS):
                continue
            if woken:
                damage_resends += 1
            else:
                timeouts += 1
                if timeouts > retries:
                    raise DeviceTimeout(
                        f"no answer from the {self._board()} on {self.port} to "
                        f"{message['c']!r} after {retries + 1} tries"
                    )

            self.stats.resends += 1
            self._send(pending.frame, message)
            deadline = time.monotonic() + timeout

    def _renumber(self) -> None:
        """Starts the command numbering again on both sides (a hello with ``renumber``); if
        that hello is lost, the next command's ``stale_seq`` brings it here again."""
        self._start_handshake(renumber=True)
        self._hello_done.wait(self.timeout)

    def _board(self) -> str:
        return self.info.board if self.info else "device"

    # -- handshake -----------------------------------------------------------------

    def _start_handshake(self, renumber: bool = False) -> None:
        with self._lock:
            self._hello_nonce = os.urandom(4).hex()  # what secrets.token_hex(4) is, minus hmac
            self.session_key = os.urandom(16).hex()
            self._hello_done.clear()
            hello: dict[str, Any] = {
                "t": "hello",
                "nonce": self._hello_nonce,
                "proto": PROTOCOL,
                "key": self.session_key,
            }
            if renumber:
                hello["renumber"] = True
                self._next_seq = 1
        self._send(codec.encode(hello), hello)

    def _handshake(self) -> None:
        for _ in range(HANDSHAKE_TRIES):
            self._start_handshake()
            done = self._hello_done.wait(HANDSHAKE_TIMEOUT_S)
            if self._lost is not None:
                raise self._gone()
            if done:
                break
        else:
            raise HandshakeFailed(
                f"no PopDice hello from {self.port}: is the firmware installed "
                "(popdice flash) and no other program using the port?"
            )
        assert self.info is not None
        if self.info.protocol != PROTOCOL:
            raise ProtocolMismatch(
                f"the {self.info.board} on {self.port} speaks link protocol "
                f"{self.info.protocol}, this host speaks {PROTOCOL}: update both"
            )

    def _on_hello(self, message: dict[str, Any]) -> None:
        nonce = message.get("nonce")
        session = str(message.get("session"))
        if nonce is not None and nonce == self._hello_nonce:
            previous = self._known_session
            if session != previous:
                self._last_event = int(message.get("acked", 0))
            self._known_session = session
            self._session = session
            if previous is not None and session != previous:
                self.stats.reboots += 1
                self._fail_pending()
                self._events.put(DeviceReboot(previous, session))
            self._next_seq = max(self._next_seq, int(message.get("seq", 0)) + 1)
            self.info = DeviceInfo(
                port=self.port,
                board=str(message.get("board") or ""),
                device_id=str(message.get("id")),
                firmware=str(message.get("fw")),
                protocol=int(message.get("proto", 0)),
                session=session,
            )
            self._hello_nonce = None
            self._hello_done.set()
        elif nonce is None and self._known_session not in (None, session):
            self._session_lost()

    def _session_lost(self) -> None:
        """The device has a new session: the command in flight fails, a handshake follows."""
        self._session = None
        self._fail_pending()
        self._start_handshake_soon()

    def _fail_pending(self) -> None:
        if self._pending is not None:
            self._pending.restarted = True
            self._pending.wake.set()

    def _start_handshake_soon(self) -> None:
        """Handshakes in the background, so a reader of events alone recovers too."""
        if self._handshaking:
            return
        self._handshaking = True
        threading.Thread(target=self._quiet_handshake, daemon=True).start()

    def _quiet_handshake(self) -> None:
        try:
            with self._call_lock:
                self._handshake()
        except Exception:
            pass
        finally:
            self._handshaking = False

    # -- frames in -----------------------------------------------------------------

    def _on_bytes(self, data: bytes) -> None:
        """Handles the frames in one read; the events among them are acknowledged once, at
        the end (acknowledgements are cumulative): a device sending a burst reads and
        decodes one acknowledgement for each read of the host's, not one per event."""
        for item in self._deframer.feed(data):
            with self._lock:
                if isinstance(item, codec.FrameError):
                    self.stats.bad_frames += 1
                    self.transcript.append((time.monotonic(), "rx?", item.raw))
                else:
                    self.transcript.append((time.monotonic(), "rx", item))
                    self._on_message(item)
        with self._lock:
            session, self._ack_due = self._ack_due, None
        if session is not None:
            self._ack(session)

    def _on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("t")
        if kind == "hello":
            self._on_hello(message)
            return
        session = message.get("d")
        pending = self._pending
        if (
            kind == "err"
            and message.get("code") == "stale_session"
            and pending is not None
            and message.get("s") == pending.seq
        ):
            self._session_lost()
            return
        if self._session is None or session != self._session:
            self.stats.stale_frames += 1
            if self._known_session is not None and session != self._known_session:
                self._start_handshake_soon()
            return
        if kind in ("res", "err") and "s" in message:
            if pending is None or message["s"] != pending.seq:
                return
            pending.reply = message
            pending.wake.set()
        elif kind == "err":
            complaint = (str(message.get("code")), str(message.get("msg", "")))
            if _put_dropping_oldest(self.complaints, complaint):
                self.stats.complaints_dropped += 1
            if pending is not None and message.get("code") in _DAMAGED:
                pending.damaged = True
                pending.wake.set()
        elif kind == "evt":
            self._on_event(message, self._session)
        elif kind in DATA_FRAMES and _put_dropping_oldest(self._data, message):
            self.stats.data_dropped += 1

    def _on_event(self, message: dict[str, Any], session: str) -> None:
        seq = message.get("e")
        low = message.get("lo", seq)
        if not isinstance(seq, int) or not isinstance(low, int):
            self.stats.bad_frames += 1
            return
        expected = self._last_event + 1
        if seq < expected:
            self.stats.duplicate_events += 1
            self._ack_due = session
            return
        if low > expected:
            self.stats.lost_events += low - expected
            self._events.put(EventGap(session, expected, low - 1))
            self._last_event = low - 1
            expected = low
        if seq != expected:
            self.stats.out_of_order_events += 1
            return
        self._last_event = seq
        self.stats.events += 1
        data = message.get("v")
        self._events.put(
            Event(str(message.get("k")), data if isinstance(data, dict) else {}, seq, session)
        )
        self._ack_due = session

    def _ack(self, session: str) -> None:
        message = {"t": "ack", "d": session, "e": self._last_event}
        try:
            self._send(codec.encode(message), message)
        except DeviceDisconnected:
            pass

    def _on_lost(self, error: Exception) -> None:
        with self._lock:
            self._lost = error
            self._events.put(self._gone())
            if self._pending is not None:
                self._pending.wake.set()
            self._hello_done.set()

    def _gone(self) -> DeviceDisconnected:
        """The port went away: the transport says how, in plain words (``/dev/ttyACM0 was
        unplugged``)."""
        return DeviceDisconnected(str(self._lost))

    # -- frames out ----------------------------------------------------------------

    def _send(self, frame: bytes, message: dict[str, Any]) -> None:
        self.transcript.append((time.monotonic(), "tx", message))
        # A leading delimiter ends any partial frame a fault left on the line.
        self._transport.write(b"\x00" + frame)

    def format_transcript(self) -> str:
        """The frames exchanged lately, one line each, oldest first."""
        if not self.transcript:
            return "(no frames)"
        start = self.transcript[0][0]
        lines = []
        for when, direction, item in self.transcript:
            shown = item.decode("latin-1") if isinstance(item, bytes) else item
            lines.append(f"{when - start:9.3f} {direction:3} {shown!r}")
        return "\n".join(lines)


def _encode_request(message: dict[str, Any]) -> bytes:
    try:
        json.dumps(message, allow_nan=False)
    except ValueError:
        raise RequestNotJson(
            f"the request {message['c']!r} holds a number JSON cannot carry (an infinity or "
            "NaN): nothing was sent"
        ) from None
    try:
        return codec.encode(message)
    except codec.FrameError:
        size = len(codec.dumps(message))
        raise RequestTooLong(
            f"the request {message['c']!r} is {size} bytes of JSON; a frame carries at most "
            f"{codec.MAX_PAYLOAD}: nothing was sent"
        ) from None


def _put_dropping_oldest(box: queue.Queue[Any], item: Any) -> bool:
    """Puts ``item`` in ``box``, first dropping the oldest item if it is full (only this
    thread puts); says whether one was dropped."""
    dropped = False
    while True:
        try:
            box.put_nowait(item)
            return dropped
        except queue.Full:
            dropped = True
            with contextlib.suppress(queue.Empty):
                box.get_nowait()
