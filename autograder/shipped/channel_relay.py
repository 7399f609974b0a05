"""Between the grader and one learner's kernel: every Jupyter channel, each message bounded as a whole.

    python channel_relay.py CONFIG_JSON

ZeroMQ bounds a frame (ZMQ_MAXMSGSIZE) but not how many frames one message has, and it
holds a whole multipart message before anyone can read it: a kernel sending one message
of 30 frames of 39 MB each grew the grader to 3.7 GB. So the grader never reads the
kernel's sockets itself. This small process (pyzmq only; its address space capped by
RLIMIT_AS) connects to the kernel's five channels and offers the same five to the grader
on sockets in a folder only the grader can reach, forwarding each message whole when its
frames and bytes are within the limits and dropping it otherwise. A kernel that makes
this process run out of memory kills it, and with it only that job's channels: the
grader then sees a kernel that does not answer. It imports nothing from the package.
"""

from __future__ import annotations

import ctypes
import json
import resource
import signal
import sys

import zmq

_PR_SET_PDEATHSIG = 1
ROUTED = ("shell", "control", "stdin")  # DEALER on the grader's side, ROUTER on the kernel's


def _limit(memory_bytes: int) -> None:
    """Die with the grader; no more memory than allowed."""
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))


def _sockets(ctx: zmq.Context, cfg: dict) -> dict[str, tuple[zmq.Socket, zmq.Socket]]:
    """Per channel: (the socket facing the grader, the one facing the kernel)."""
    pairs = {}
    identity = cfg["identity"].encode()
    for name in (*ROUTED, "iopub", "hb"):
        if name in ROUTED or name == "hb":
            outer, inner = ctx.socket(zmq.ROUTER), ctx.socket(zmq.DEALER)
            inner.setsockopt(zmq.IDENTITY, identity)  # shell and stdin must share it: input requests route by it
        else:
            outer, inner = ctx.socket(zmq.XPUB), ctx.socket(zmq.XSUB)
        inner.setsockopt(zmq.MAXMSGSIZE, cfg["frame_bytes"])
        outer.setsockopt(zmq.MAXMSGSIZE, cfg["frame_bytes"])
        outer.bind(cfg["grader"][name])
        inner.connect(cfg["kernel"][name])
        pairs[name] = (outer, inner)
    return pairs


HEADER, PARENT = 2, 3  # frames after the delimiter: signature, header, parent header, metadata, content


def _header(frames: list, which: int, key: str) -> str:
    """A field of a Jupyter message's header or parent header, '' when unreadable."""
    small = [f.bytes if len(f) <= 65536 else b"" for f in frames[:12]]  # (frames are zmq.Frame: not copied)
    try:
        at = small.index(b"<IDS|MSG>")
        return str(json.loads(small[at + which]).get(key, ""))
    except (ValueError, IndexError, TypeError, AttributeError):
        return ""


def _json_bytes(frames: list) -> int:
    """The bytes of a message's JSON frames (signature to content), all of it when unreadable."""
    heads = [f.bytes if len(f) <= 64 else b"" for f in frames[:12]]
    if b"<IDS|MSG>" not in heads:
        return sum(len(f) for f in frames)
    at = heads.index(b"<IDS|MSG>")
    return sum(len(f) for f in frames[at + 1 : at + 6])


def _within(name: str, frames: list[bytes], cfg: dict, pending: set[str]) -> bool:
    """Whether a kernel's message may reach the grader.

    Any message: at most so many frames and bytes. A large one (over `small_bytes`) only as
    the one reply to a request the grader has pending (a comm message whose parent is that
    request), so that however fast the kernel sends, few large messages wait unread.
    """
    size = sum(len(f) for f in frames)
    if len(frames) > cfg["frames"] or size > cfg["message_bytes"]:
        return False
    if size <= cfg["small_bytes"] or (name == "stdin" and size <= cfg["callback_bytes"]):
        return True
    if _json_bytes(frames) > cfg["small_bytes"]:  # a large reply's bulk is its buffers: JSON parses ~16x bigger
        return False
    parent = _header(frames, PARENT, "msg_id")
    if name == "iopub" and _header(frames, HEADER, "msg_type") == "comm_msg" and parent in pending:
        pending.discard(parent)
        return True
    return False


def relay(cfg: dict) -> None:
    """Forward until the grader closes stdin (or dies)."""
    ctx = zmq.Context()
    ctx.setsockopt(zmq.RCVHWM, cfg["queued"])
    ctx.setsockopt(zmq.SNDHWM, cfg["queued"])
    pairs = _sockets(ctx, cfg)
    poller, route, peers, pending = zmq.Poller(), {}, {}, set()
    asking = 0  # the kernel's calls back on stdin that the grader has not answered yet
    for name, (outer, inner) in pairs.items():
        poller.register(outer, zmq.POLLIN)
        poller.register(inner, zmq.POLLIN)
        route[outer], route[inner] = (name, "out"), (name, "in")
    poller.register(sys.stdin, zmq.POLLIN)
    print("ready", flush=True)
    while True:
        for sock, _ in poller.poll():
            if sock is sys.stdin or sock == sys.stdin.fileno():
                return
            name, side = route[sock]
            frames = sock.recv_multipart(copy=False)  # forwarded as received: one copy of a reply, not two
            outer, inner = pairs[name]
            if side == "out":  # from the grader: a ROUTER prefixes its identity
                if name in ROUTED or name == "hb":
                    peers[name], frames = frames[0].bytes, frames[1:]
                if name == "shell" and _header(frames, HEADER, "msg_type") == "comm_msg":
                    pending.add(_header(frames, HEADER, "msg_id"))
                asking -= name == "stdin" and asking > 0
                inner.send_multipart(frames, copy=False)
            elif name == "stdin" and asking:
                continue  # a call back waits for its answer: anything more on stdin would wait unread
            elif _within(name, frames, cfg, pending):
                if name in ROUTED or name == "hb":
                    peer = peers.get(name) or peers.get("shell")  # the grader's stdin shares shell's identity
                    if peer is None:
                        continue  # nobody asked yet
                    frames = [peer, *frames]
                asking += name == "stdin"
                outer.send_multipart(frames, copy=False)


def main() -> int:
    with open(sys.argv[1]) as fh:
        cfg = json.load(fh)
    _limit(cfg["memory_bytes"])
    relay(cfg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
