"""The transport to one learner's kernel: Jupyter messages through the notebook client that ran the notebook."""

from __future__ import annotations

import json
import queue
import time

import zmq
from jupyter_core.utils import run_sync

from autograder.checks.clock import CallClock
from autograder.kernel import guarded
from autograder.kernel.guarded import ignored_message

HEADER_PEEK_BYTES = 4096  # a header longer than this is decoded the full way


def header_type(frames: list[bytes]) -> str | None:
    """The msg_type a message's header frame names, without verifying or decoding the rest; None if unreadable."""
    try:
        at = frames.index(b"<IDS|MSG>")
        raw = frames[at + 2]  # after the delimiter: signature, header, parent header, metadata, content
        header = json.loads(raw) if len(raw) <= HEADER_PEEK_BYTES else None
    except (ValueError, IndexError, RecursionError):  # no delimiter, too few frames, not JSON
        return None
    kind = header.get("msg_type") if isinstance(header, dict) else None
    return kind if isinstance(kind, str) else None


class KernelChannels:
    """Jupyter messaging with one kernel through the notebook client that ran the learner's notebook."""

    def __init__(self, client, clock: CallClock) -> None:
        self.client, self.clock = client, clock
        self._plain: dict[str, zmq.Socket] = {}

    def _socket(self, channel: str) -> zmq.Socket:
        """A blocking twin of the client's socket for iopub or stdin (the same ZeroMQ socket, no event loop).

        A call's reply takes a few messages; polling and reading them through asyncio and
        run_sync cost about a millisecond per call, more than the rest of the grader's part.
        """
        if channel not in self._plain:
            self._plain[channel] = zmq.Socket.shadow(getattr(self.client.kc, f"{channel}_channel").socket.underlying)
        return self._plain[channel]

    def send(self, msg_type: str, content: dict, buffers: list[bytes] | None = None) -> str:
        """Send one message on the kernel's shell channel; its id."""
        kc = self.client.kc
        return guarded.send_plain(kc.session, kc.shell_channel.socket, msg_type, content, buffers or [])

    def execute(self, code: str) -> None:
        """Run code in the kernel (the servant's definition): wait for its shell reply, discard its output."""
        limit = self.clock.time_left()
        try:
            self._wait_reply(self.client.kc.execute(code, store_history=False, allow_stdin=False), limit)
        finally:
            self.drain_output()

    def check_alive(self, end: float, limit: float) -> None:
        """Raise (and mark the link dead) when the kernel died or the call ran past `end`."""
        if not run_sync(self.client.km.is_alive)():
            raise self.clock.fail("the kernel died while the grader called the learner's code")
        if time.monotonic() >= end:
            raise self.clock.fail(f"the learner's code ran over the {limit:.0f} s limit of one call")

    def _wait_reply(self, msg_id: str, limit: float) -> None:
        """The shell reply to `msg_id`, within `limit` seconds, noticing a dead kernel within a second."""
        end = time.monotonic() + limit
        while True:
            try:
                reply = run_sync(self.client.kc.get_shell_msg)(timeout=min(1.0, max(0.01, end - time.monotonic())))
            except queue.Empty:
                self.check_alive(end, limit)
                continue
            if reply.get("parent_header", {}).get("msg_id") == msg_id:
                return

    def drain_output(self) -> None:
        """Drop what the kernel published while the grader called it (never shown, never kept)."""
        for _ in range(10_000):
            if self.next_message("iopub") is None:
                return

    def ready(self, timeout: float) -> set[str]:
        """Which of iopub and stdin have a message waiting, within `timeout` seconds."""
        poller = zmq.Poller()
        sockets = {name: self._socket(name) for name in ("iopub", "stdin")}
        for sock in sockets.values():
            poller.register(sock, zmq.POLLIN)
        ready = dict(poller.poll(int(timeout * 1000)))
        return {name for name, sock in sockets.items() if sock in ready}

    def next_message(self, channel: str, only: str = "") -> dict | None:
        """The message waiting on iopub or stdin, None if none is.

        `only`: a message whose header names another type is dropped unread (neither verified nor
        decoded; ignored_message() stands for it). A call's reply is one comm message among the
        kernel's status messages and whatever it prints: decoding each cost a quarter of the
        grader's CPU in a check-heavy notebook. A header that cannot be read goes the full way
        (the session counts it as malformed); a forged header can only get its message dropped.
        """
        if not only:
            return self.client.kc.session.recv(self._socket(channel), mode=zmq.NOBLOCK)[1]
        try:
            frames = self._socket(channel).recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            return None
        if header_type(frames) not in (only, None):
            return ignored_message()
        return guarded.read(self.client.kc.session, frames)

    def answer(self, reply: dict) -> None:
        """The input_reply to the kernel's pending input_request."""
        self.client.kc.input(json.dumps(reply))
