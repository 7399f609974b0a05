"""The channel relay between the grader and a kernel, against fake kernel sockets (no kernel started)."""

from __future__ import annotations

import json
import time

import pytest
import zmq

from autograder.kernel import launchers, wire

CHANNELS = launchers.CHANNELS
PORTS = {name: i + 1 for i, name in enumerate(CHANNELS)}


def _message(msg_type: str, msg_id: str, parent: str = "", *buffers: bytes) -> list[bytes]:
    """A Jupyter message's frames (unsigned: the relay never checks signatures, the grader does)."""
    header = json.dumps({"msg_type": msg_type, "msg_id": msg_id}).encode()
    return [b"<IDS|MSG>", b"", header, json.dumps({"msg_id": parent}).encode(), b"{}", b"{}", *buffers]


@pytest.fixture
def wired(tmp_path):
    """A fake kernel's five sockets, a relay to them, and the grader's sockets through the relay."""
    ctx = zmq.Context()
    base = str(tmp_path / "k")
    kernel = {"shell": ctx.socket(zmq.ROUTER), "control": ctx.socket(zmq.ROUTER), "stdin": ctx.socket(zmq.ROUTER),
              "iopub": ctx.socket(zmq.PUB), "hb": ctx.socket(zmq.REP)}  # fmt: skip
    for name, sock in kernel.items():
        sock.bind(f"ipc://{base}-{PORTS[name]}")
    limits = wire.WireLimits(reply_bytes=2**20, message_bytes=2**20, small_message_bytes=2**16, callback_bytes=2**16)
    relay = launchers.ChannelRelay({"ip": base, **{f"{n}_port": p for n, p in PORTS.items()}}, limits)
    grader = {"shell": ctx.socket(zmq.DEALER), "stdin": ctx.socket(zmq.DEALER), "iopub": ctx.socket(zmq.SUB)}
    for name, sock in grader.items():
        if name != "iopub":
            sock.setsockopt(zmq.IDENTITY, b"grader")
        sock.connect(f"ipc://{relay.ip}-{PORTS[name]}")
    grader["iopub"].setsockopt(zmq.SUBSCRIBE, b"")
    time.sleep(0.5)  # subscriptions travel through the relay
    yield kernel, grader, relay
    relay.close()
    ctx.destroy(linger=0)


def _recv(sock: zmq.Socket, timeout: float = 2.0) -> list[bytes] | None:
    return sock.recv_multipart() if sock.poll(int(timeout * 1000)) else None


def test_a_request_and_its_large_reply_pass_whole(wired):
    kernel, grader, _ = wired
    grader["shell"].send_multipart(_message("comm_msg", "req-1"))
    ident, *frames = _recv(kernel["shell"])
    assert frames == _message("comm_msg", "req-1")
    reply = _message("comm_msg", "r1", "req-1", b"x" * 2**19)
    kernel["iopub"].send_multipart(reply)
    assert _recv(grader["iopub"]) == reply
    kernel["iopub"].send_multipart(_message("comm_msg", "r2", "req-1", b"x" * 2**19))  # a second one: dropped
    kernel["iopub"].send_multipart(_message("stream", "s1", "", b"small"))
    assert _recv(grader["iopub"])[2] == json.dumps({"msg_type": "stream", "msg_id": "s1"}).encode()


def test_a_large_reply_whose_bulk_is_json_is_dropped(wired):
    """Red team: 38 MiB of `{}, ` in a reply's content parsed into ~575 MB in the worker. A
    large reply may be large in its buffers only; its JSON frames stay within the small size."""
    kernel, grader, _ = wired
    grader["shell"].send_multipart(_message("comm_msg", "req-2"))
    _recv(kernel["shell"])
    bloated = _message("comm_msg", "r1", "req-2")
    bloated[5] = json.dumps({"data": {"pad": [{}] * 2**15}}).encode()  # 128 KiB of JSON: over 64 KiB
    kernel["iopub"].send_multipart(bloated)
    kernel["iopub"].send_multipart(_message("stream", "after", ""))
    assert json.loads(_recv(grader["iopub"])[2])["msg_id"] == "after"


def test_large_messages_nobody_asked_for_are_dropped(wired):
    kernel, grader, _ = wired
    for msg_type in ("stream", "display_data", "comm_msg"):
        kernel["iopub"].send_multipart(_message(msg_type, "big", "nobody", b"x" * 2**17))
    kernel["iopub"].send_multipart(_message("stream", "after", ""))
    assert json.loads(_recv(grader["iopub"])[2])["msg_id"] == "after"


def test_an_input_request_reaches_the_grader_by_its_shell_identity(wired):
    kernel, grader, _ = wired
    grader["shell"].send_multipart(_message("comm_msg", "req-1"))
    ident, *_ = _recv(kernel["shell"])
    kernel["stdin"].send_multipart([ident, *_message("input_request", "cb1", "req-1")])
    assert json.loads(_recv(grader["stdin"])[2])["msg_type"] == "input_request"
    grader["stdin"].send_multipart(_message("input_reply", "cbr1", "cb1"))
    assert _recv(kernel["stdin"])[0] == ident


def test_one_call_back_at_a_time_waits_on_stdin(wired):
    """A kernel asks once and waits; more input requests before the answer would wait unread in the grader."""
    kernel, grader, _ = wired
    grader["shell"].send_multipart(_message("comm_msg", "req-1"))
    ident, *_ = _recv(kernel["shell"])
    for n in range(20):
        kernel["stdin"].send_multipart([ident, *_message("input_request", f"cb{n}", "req-1", b"x" * 2**15)])
    assert json.loads(_recv(grader["stdin"])[2])["msg_id"] == "cb0"
    assert _recv(grader["stdin"], timeout=0.5) is None  # the 19 others were dropped
    grader["stdin"].send_multipart(_message("input_reply", "r0", "cb0"))
    _recv(kernel["stdin"])
    kernel["stdin"].send_multipart([ident, *_message("input_request", "next", "req-1")])
    assert json.loads(_recv(grader["stdin"])[2])["msg_id"] == "next"


@pytest.mark.slow
def test_a_message_of_many_frames_never_reaches_the_grader(wired):
    """One message of many frames, each under ZeroMQ's frame limit: the relay drops it or dies, alone."""
    kernel, grader, relay = wired
    frame = b"x" * (2**20 - 64)
    for _ in range(3):
        kernel["iopub"].send_multipart(_message("stream", "many", "", *([frame] * 300)), copy=False)
    assert _recv(grader["iopub"], timeout=3) is None
    assert relay.proc.poll() is not None or _recv(grader["iopub"], timeout=0.5) is None


@pytest.mark.slow
def test_a_bomb_over_the_relays_memory_cap_never_reaches_the_grader(wired):
    """400 MB in one message, under a 128 MiB address-space cap: libzmq refuses the allocation and drops
    that connection (or the relay dies); the grader never receives it, and the relay never held it."""
    kernel, grader, relay = wired
    frame = b"x" * (2**20 - 64)
    kernel["iopub"].send_multipart(_message("stream", "bomb", "", *([frame] * 400)), copy=False)
    got, deadline = None, time.monotonic() + 6
    while got is None and time.monotonic() < deadline and relay.proc.poll() is None:
        kernel["iopub"].send_multipart(_message("stream", "after", ""))
        got = _recv(grader["iopub"], timeout=0.2)
    assert got is None or json.loads(got[2])["msg_id"] == "after"
    if relay.proc.poll() is None:  # alive: it never held the bomb
        with open(f"/proc/{relay.proc.pid}/status") as fh:
            peak = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:"))
        assert peak < 128 * 2**20, peak
