"""A Jupyter session that reads what the kernel sends as hostile input: a malformed message is ignored.

Every message from the learner's kernel (iopub, shell, stdin) is decoded by the client's
session, both while nbclient runs the notebook and while the checks call the kernel. A
message that is unframed, unsigned, signed twice, not JSON, nested too deep or not of the
protocol's shape would raise inside nbclient or the link and end the job as a grader
error; here it becomes a message nothing waits for (no parent), and it is counted.
"""

from __future__ import annotations

from hmac import compare_digest
from typing import Any, cast

import zmq
from jupyter_client.session import Session

IGNORED_TYPE = "wb_ignored"
_FIELDS = ("header", "parent_header", "metadata")


def ignored_message() -> dict[str, Any]:
    """A message no reader waits for: no parent, no content (nbclient and the link skip it)."""
    header = {"msg_id": "", "msg_type": IGNORED_TYPE}
    return {"header": header, "msg_id": "", "msg_type": IGNORED_TYPE, "parent_header": {}, "metadata": {},
            "content": {}, "buffers": []}  # fmt: skip


def well_formed(msg: Any, content: bool) -> bool:
    """The protocol's shape: header, parent_header and metadata objects, a string type, an object content."""
    if not isinstance(msg, dict) or not all(isinstance(msg.get(k), dict) for k in _FIELDS):
        return False
    if not isinstance(msg["header"].get("msg_type"), str) or not isinstance(
        msg["parent_header"].get("msg_id", ""), str
    ):
        return False
    return not content or isinstance(msg.get("content"), dict)


class GuardedSession(Session):
    """jupyter_client's Session, but a message it cannot read is ignored (and counted), never raised."""

    malformed = 0  # per instance once counted (a clone starts at 0)

    def feed_identities(self, msg_list, copy: bool = True):
        try:
            return super().feed_identities(msg_list, copy)
        except Exception:  # noqa: BLE001 - no delimiter: not a message of the protocol
            return [], None

    def deserialize(self, msg_list, content: bool = True, copy: bool = True) -> dict[str, Any]:
        if msg_list is None:
            return self._ignore()
        try:
            msg = super().deserialize(msg_list, content=content, copy=copy)
        except Exception:  # noqa: BLE001 - bad or repeated signature, not JSON, too deep, wrong shape
            return self._ignore()
        return msg if well_formed(msg, content) else self._ignore()

    def _ignore(self) -> dict[str, Any]:
        self.malformed += 1
        return ignored_message()


def _ignore(session: Session) -> dict[str, Any]:
    """ignored_message(), counted when the session is a guarded one."""
    return session._ignore() if isinstance(session, GuardedSession) else ignored_message()


def _readable_version(header: dict) -> bool:
    """A protocol version jupyter_client's adapt() can read (none means an old protocol, 4)."""
    version = header.get("version", "4")
    try:
        int(version.split(".")[0])
    except (AttributeError, ValueError):
        return False
    return True


def read(session: Session, frames: list[bytes]) -> dict[str, Any]:
    """deserialize() for the link's own traffic: the same checks (signed once, JSON, the protocol's
    shape, a message id and a readable version), but dates are not parsed and older protocols not
    adapted: the link reads neither (a comm reply's content is the same in every version).
    """
    try:
        parts = cast("list[bytes] | None", session.feed_identities(frames)[1])  # frames received copied: bytes
        if parts is None or len(parts) < 5:
            return _ignore(session)
        signature = parts[0]
        if session.auth is not None:
            if not signature or signature in session.digest_history:
                return _ignore(session)
            if not compare_digest(signature, session.sign(parts[1:5])):
                return _ignore(session)
            session._add_digest(signature)
        header, parent, metadata, content = (session.unpack(p) for p in parts[1:5])
    except Exception:  # noqa: BLE001 - not JSON, too deep
        return _ignore(session)
    msg = {"header": header, "parent_header": parent, "metadata": metadata, "content": content}
    if not well_formed(msg, True) or "msg_id" not in header or not _readable_version(header):
        return _ignore(session)
    return {
        **msg,
        "msg_id": header["msg_id"],
        "msg_type": header["msg_type"],
        "buffers": [memoryview(b) for b in parts[5:]],
    }


def send_plain(session: Session, socket: zmq.Socket, msg_type: str, content: dict, buffers: list[bytes]) -> str:
    """send() of a new message with no parent or metadata: its id (Session.send without its traitlets and dict copies)."""
    header = session.msg_header(msg_type)
    parts = [session.pack(header), b"{}", b"{}", session.pack(content)]
    socket.send_multipart([b"<IDS|MSG>", session.sign(parts), *parts, *buffers])
    return header["msg_id"]
