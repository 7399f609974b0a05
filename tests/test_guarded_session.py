"""The client's session reads the kernel's messages as hostile input: what it cannot read is ignored and counted."""

from __future__ import annotations

import json

import pytest
from jupyter_client.session import Session

from autograder.kernel import guarded
from autograder.kernel.guarded import IGNORED_TYPE, GuardedSession

KEY = b"0123456789abcdef"


def _frames(session: Session, header: bytes, content: bytes, parent: bytes = b"{}") -> list[bytes]:
    parts = [header, parent, b"{}", content]
    return [b"<IDS|MSG>", session.sign(parts), *parts]


def _header(msg_type: str = "stream") -> bytes:
    return json.dumps({"msg_id": "m1", "msg_type": msg_type, "session": "s", "username": "u",
                       "date": "2026-01-01T00:00:00Z", "version": "5.3"}).encode()  # fmt: skip


def _deserialize(session: GuardedSession, frames: list[bytes]) -> dict:
    _, rest = session.feed_identities(frames)
    return session.deserialize(rest)


READERS = {"deserialize": _deserialize, "read": guarded.read}  # jupyter's full way, and the link's


@pytest.mark.parametrize("reader", READERS)
def test_a_well_formed_signed_message_is_read_as_it_is(reader):
    kernel, client = Session(key=KEY), GuardedSession(key=KEY)
    msg = READERS[reader](client, _frames(kernel, _header(), b'{"name": "stdout", "text": "hi"}'))
    assert msg["msg_type"] == "stream" and msg["content"]["text"] == "hi" and msg["header"]["msg_id"] == "m1"
    assert msg["parent_header"] == {} and msg["metadata"] == {} and msg["buffers"] == []
    assert client.malformed == 0


def test_the_links_reader_keeps_buffers_and_leaves_dates_as_text():
    kernel, client = Session(key=KEY), GuardedSession(key=KEY)
    msg = guarded.read(client, [b"topic", *_frames(kernel, _header("comm_msg"), b'{"data": {}}'), b"buf1", b"buf2"])
    assert [bytes(b) for b in msg["buffers"]] == [b"buf1", b"buf2"]
    assert msg["header"]["date"] == "2026-01-01T00:00:00Z"  # never parsed: no call reads it


def test_a_plain_message_sent_is_one_jupyters_session_reads():
    """send_plain builds the frames itself: a kernel's Session verifies and reads them as its own."""
    import zmq

    ctx = zmq.Context.instance()
    a, b = ctx.socket(zmq.PAIR), ctx.socket(zmq.PAIR)
    try:
        port = a.bind_to_random_port("tcp://127.0.0.1")
        b.connect(f"tcp://127.0.0.1:{port}")
        client, kernel = GuardedSession(key=KEY, username="grader"), Session(key=KEY)
        msg_id = guarded.send_plain(client, a, "comm_msg", {"comm_id": "c", "data": {"n": 1}}, [b"\x00\x01"])
        assert b.poll(2000)
        msg = kernel.deserialize(kernel.feed_identities(b.recv_multipart())[1])
        assert msg["msg_id"] == msg_id and msg["msg_type"] == "comm_msg" and msg["content"]["data"] == {"n": 1}
        assert msg["header"]["session"] == client.session and msg["header"]["username"] == "grader"
        assert msg["parent_header"] == {} and [bytes(x) for x in msg["buffers"]] == [b"\x00\x01"]
    finally:
        a.close(linger=0)
        b.close(linger=0)


MALFORMED = {
    "no delimiter": lambda s: [b"garbage"],
    "delimiter only": lambda s: [b"<IDS|MSG>"],
    "unsigned": lambda s: [b"<IDS|MSG>", b"", _header(), b"{}", b"{}", b"{}"],
    "too few frames": lambda s: [b"<IDS|MSG>", b"0" * 64, _header()],
    "wrong signature": lambda s: [b"<IDS|MSG>", b"0" * 64, _header(), b"{}", b"{}", b"{}"],
    "header not an object": lambda s: _frames(s, b"[1, 2]", b"{}"),
    "content not JSON": lambda s: _frames(s, _header(), b"not json"),
    "content nested too deep": lambda s: _frames(s, _header(), b"[" * 100_000 + b"]" * 100_000),
    "content a list": lambda s: _frames(s, _header(), b"[1, 2]"),
    "parent not an object": lambda s: _frames(s, _header(), b"{}", parent=b'"x"'),
    "type not a string": lambda s: _frames(s, json.dumps({"msg_id": "m", "msg_type": 5}).encode(), b"{}"),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("kind", MALFORMED)
def test_a_malformed_message_is_ignored_and_counted(kind, reader):
    kernel, client = Session(key=KEY), GuardedSession(key=KEY)
    msg = READERS[reader](client, MALFORMED[kind](kernel))
    assert msg["msg_type"] == IGNORED_TYPE and msg["parent_header"] == {} and msg["content"] == {}
    assert client.malformed == 1


@pytest.mark.parametrize("reader", READERS)
def test_a_replayed_message_is_ignored(reader):
    """The same signed message twice (HMAC replay) is read once."""
    kernel, client = Session(key=KEY), GuardedSession(key=KEY)
    frames = _frames(kernel, _header(), b'{"name": "stdout", "text": "hi"}')
    assert READERS[reader](client, list(frames))["msg_type"] == "stream"
    assert READERS[reader](client, list(frames))["msg_type"] == IGNORED_TYPE
    assert client.malformed == 1


def test_the_managers_session_and_its_clone_are_guarded():
    """The kernel manager's session, which every client clones, is the guarded one."""
    from autograder.kernel.launchers import CappedKernelManager

    session = CappedKernelManager().session
    assert isinstance(session, GuardedSession) and isinstance(session.clone(), GuardedSession)


# The link reads only comm messages while a call runs: others are dropped by their header, unread.


def _channels_reading(frames_sent: list[list[bytes]], session: GuardedSession):
    """A KernelChannels whose iopub socket has these messages waiting (a real ZeroMQ pair, no kernel)."""
    import types

    import zmq

    from autograder.checks.channels import KernelChannels

    ctx = zmq.Context.instance()
    reader, writer = ctx.socket(zmq.PULL), ctx.socket(zmq.PUSH)
    port = reader.bind_to_random_port("tcp://127.0.0.1")
    writer.connect(f"tcp://127.0.0.1:{port}")
    for frames in frames_sent:
        writer.send_multipart(frames)
    client = types.SimpleNamespace(kc=types.SimpleNamespace(session=session))
    channels = KernelChannels(client, clock=None)
    channels._plain["iopub"] = reader
    return channels, (reader, writer)


@pytest.mark.parametrize(
    "header",
    [
        b"not json",
        b"\xff\xfe",
        b"[" * 3000 + b"]" * 3000,
        json.dumps({"msg_type": 5}).encode(),
        json.dumps(["msg_type", "status"]).encode(),
        json.dumps({"msg_type": "status", "pad": "x" * 5000}).encode(),
    ],
    ids=["not-json", "not-utf8", "too-deep", "type-not-a-string", "not-an-object", "longer-than-the-peek"],
)
def test_a_header_the_peek_cannot_read_names_no_type(header):
    from autograder.checks.channels import header_type

    assert header_type([b"topic", b"<IDS|MSG>", b"sig", header, b"{}", b"{}", b"{}"]) is None


def test_the_peek_needs_the_delimiter_and_a_header():
    from autograder.checks.channels import header_type

    assert header_type([b"garbage"]) is None
    assert header_type([b"<IDS|MSG>", b"sig"]) is None
    assert header_type([b"topic", b"<IDS|MSG>", b"sig", _header("status"), b"{}", b"{}", b"{}"]) == "status"


def test_other_messages_are_dropped_unread_and_a_comm_reply_is_verified():
    kernel, client = Session(key=KEY), GuardedSession(key=KEY)
    status = [b"topic", *_frames(kernel, _header("status"), b'{"execution_state": "busy"}')]
    forged_status = [b"topic", b"<IDS|MSG>", b"0" * 64, _header("status"), b"{}", b"{}", b"{}"]
    comm = [b"topic", *_frames(kernel, _header("comm_msg"), b'{"comm_id": "c", "data": {"done": 1}}')]
    forged_comm = [b"topic", b"<IDS|MSG>", b"0" * 64, _header("comm_msg"), b"{}", b"{}", b"{}"]
    channels, sockets = _channels_reading([status, forged_status, comm, forged_comm], client)
    try:
        got = []
        for _ in range(4):
            assert sockets[0].poll(2000), "a message sent was not received"
            got.append(channels.next_message("iopub", only="comm_msg"))
        assert [m["msg_type"] for m in got] == [IGNORED_TYPE, IGNORED_TYPE, "comm_msg", IGNORED_TYPE]
        assert got[2]["content"]["data"] == {"done": 1}
        assert client.malformed == 1  # the forged comm reply was verified (and refused); the statuses never were
        assert channels.next_message("iopub", only="comm_msg") is None  # nothing waiting
    finally:
        for sock in sockets:
            sock.close(linger=0)


def _head(**fields) -> bytes:
    header = {"msg_id": "m1", "msg_type": "comm_msg", "session": "s", "username": "u",
              "date": "2026-01-01T00:00:00Z", "version": "5.3", **fields}  # fmt: skip
    return json.dumps({k: v for k, v in header.items() if v is not None}).encode()


HEADERS = {  # what a learner's kernel can sign: the link's reader refuses what Jupyter's refuses
    "no message id": _head(msg_id=None),
    "a version that is not a number": _head(version="x.1"),
    "a version that is not text": _head(version=5),
    "no version (an old protocol)": _head(version=None),
    "an old protocol's version": _head(version="4.1"),
    "an empty version": _head(version=""),
    "a date that is not a date": _head(date="yesterday"),
    "no date": _head(date=None),
}


@pytest.mark.parametrize("kind", HEADERS)
def test_the_links_reader_refuses_the_headers_jupyters_refuses(kind):
    kernel = Session(key=KEY)
    frames = _frames(kernel, HEADERS[kind], b'{"comm_id": "c", "data": {"done": 1}}')
    full, plain = GuardedSession(key=KEY), GuardedSession(key=KEY)
    assert (_deserialize(full, list(frames))["msg_type"] == IGNORED_TYPE) == (
        guarded.read(plain, list(frames))["msg_type"] == IGNORED_TYPE
    )
    assert full.malformed == plain.malformed
