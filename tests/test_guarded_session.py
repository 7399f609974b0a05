"""The client's session reads the kernel's messages as hostile input: what it cannot read is ignored and counted."""

from __future__ import annotations

import json

import pytest
from jupyter_client.session import Session

from autograder.kernel.guarded import IGNORED_TYPE, GuardedSession

KEY = b"0123456789abcdef"


def _frames(session: Session, header: bytes, content: bytes, parent: bytes = b"{}") -> list[bytes]:
    parts = [header, parent, b"{}", content]
    return [b"<IDS|MSG>", session.sign(parts), *parts]


def _header(msg_type: str = "stream") -> bytes:
    return json.dumps({"msg_id": "m1", "msg_type": msg_type, "session": "s", "username": "u",
                       "date": "2026-01-01T00:00:00Z", "version": "5.3"}).encode()  # fmt: skip


def _read(session: GuardedSession, frames: list[bytes]) -> dict:
    _, rest = session.feed_identities(frames)
    return session.deserialize(rest)


def test_a_well_formed_signed_message_is_read_as_it_is():
    kernel, client = Session(key=KEY), GuardedSession(key=KEY)
    msg = _read(client, _frames(kernel, _header(), b'{"name": "stdout", "text": "hi"}'))
    assert msg["msg_type"] == "stream" and msg["content"]["text"] == "hi"
    assert client.malformed == 0


MALFORMED = {
    "no delimiter": lambda s: [b"garbage"],
    "delimiter only": lambda s: [b"<IDS|MSG>"],
    "wrong signature": lambda s: [b"<IDS|MSG>", b"0" * 64, _header(), b"{}", b"{}", b"{}"],
    "header not an object": lambda s: _frames(s, b"[1, 2]", b"{}"),
    "content not JSON": lambda s: _frames(s, _header(), b"not json"),
    "content nested too deep": lambda s: _frames(s, _header(), b"[" * 100_000 + b"]" * 100_000),
    "content a list": lambda s: _frames(s, _header(), b"[1, 2]"),
    "parent not an object": lambda s: _frames(s, _header(), b"{}", parent=b'"x"'),
    "type not a string": lambda s: _frames(s, json.dumps({"msg_id": "m", "msg_type": 5}).encode(), b"{}"),
}


@pytest.mark.parametrize("kind", MALFORMED)
def test_a_malformed_message_is_ignored_and_counted(kind):
    kernel, client = Session(key=KEY), GuardedSession(key=KEY)
    msg = _read(client, MALFORMED[kind](kernel))
    assert msg["msg_type"] == IGNORED_TYPE and msg["parent_header"] == {} and msg["content"] == {}
    assert client.malformed == 1


def test_a_replayed_message_is_ignored():
    """The same signed message twice (HMAC replay) is read once."""
    kernel, client = Session(key=KEY), GuardedSession(key=KEY)
    frames = _frames(kernel, _header(), b'{"name": "stdout", "text": "hi"}')
    assert _read(client, list(frames))["msg_type"] == "stream"
    assert _read(client, list(frames))["msg_type"] == IGNORED_TYPE
    assert client.malformed == 1


def test_the_managers_session_and_its_clone_are_guarded():
    """The kernel manager's session, which every client clones, is the guarded one."""
    from autograder.kernel.launchers import CappedKernelManager

    session = CappedKernelManager().session
    assert isinstance(session, GuardedSession) and isinstance(session.clone(), GuardedSession)
