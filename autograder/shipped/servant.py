"""Kernel side of the trusted harness: call the learner's code on the grader's inputs.

Shipped: sent as source to the learner's kernel after the notebook ran (with codec.py, as
the private package autograder.shipped.boot builds there), and imported as an ordinary
module by the grader's unit tests. It imports nothing of the grader's and holds nothing
secret: no expected value, tolerance or check source. A request is a comm message (JSON +
binary buffers); the reply is one too, made of plain arrays and JSON only (never pickle),
which the grader reads with strict limits. Whatever the learner patches here can change
only what their own code is reported to return.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from typing import Any, cast

import torch

from . import codec

CALL_BACK_SECONDS = 120  # how long the learner's code waits for the grader to answer a call back
NO_LIMIT = 2**62  # the grader's own requests: well-formed, and bounded by the grader
REPLY_BYTES = 32 * 2**20  # the arrays one reply may bring, unless the grader says otherwise when it opens the channel


class Callback:
    """An object of the grader's check (a fake model, a scorer) that the learner's code may call."""

    def __init__(self, servant: Servant, ident: int) -> None:
        object.__setattr__(self, "_cb", (servant, ident))

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        servant, ident = self._cb
        return servant.ask({"op": "cb_getattr", "target": ident, "name": name})

    def __call__(self, *args, **kwargs):
        servant, ident = self._cb
        return servant.ask({"op": "cb_call", "target": ident, "args": list(args), "kwargs": kwargs})


class ModuleCallback(torch.nn.Module):
    """A module of the grader's check (e.g. a fake attention), usable as a child of the learner's."""

    def __init__(self, servant: Servant, ident: int) -> None:
        super().__init__()
        self._cb = (servant, ident)

    def forward(self, *args, **kwargs):
        servant, ident = self._cb
        return servant.ask({"op": "cb_call", "target": ident, "args": list(args), "kwargs": kwargs})

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name.startswith("_"):
                raise
            servant, ident = self._cb
            return servant.ask({"op": "cb_getattr", "target": ident, "name": name})


class Encoder(codec.Encoder):
    """The learner's values -> the format; what has no tag stays here, as a handle."""

    def __init__(self, servant: Servant) -> None:
        super().__init__()
        self.servant = servant

    def special(self, value: object) -> dict | None:
        if isinstance(value, (Callback, ModuleCallback)):
            return {codec.TAG: codec.CALLBACK, codec.IDENT: value._cb[1]}
        return None

    def other(self, value: object) -> object:
        if isinstance(value, tuple) and not isinstance(value, torch.Size):  # a NamedTuple: its items, as a tuple
            return self.small(tuple(value), 1)
        kind = type(value)
        nearest = next(
            (f"{k.__module__}.{k.__qualname__}" for k in kind.__mro__ if k.__module__.startswith("torch.")), ""
        )
        return {
            codec.TAG: codec.REF,
            codec.IDENT: self.servant.keep(value),
            codec.TYPE_NAME: kind.__name__,
            codec.IS_MODULE: isinstance(value, torch.nn.Module),
            codec.IS_CALLABLE: callable(value),
            codec.TORCH_CLASS: nearest,
        }


class Decoder(codec.Decoder):
    """The grader's values: handles to what lives here, the check's callbacks, its PyTorch modules."""

    def __init__(self, servant: Servant, arrays: dict) -> None:
        super().__init__(arrays)
        self.servant = servant

    def special(self, tag: str, node: dict) -> object:
        ident = node.get(codec.IDENT)
        if tag == codec.REF:
            return self.servant.handles[ident]  # type: ignore[index]  # the grader's request: well-formed
        if tag == codec.CALLBACK:
            return self.servant.callback(ident, bool(node.get(codec.IS_MODULE)))  # type: ignore[arg-type]
        # a PyTorch module of the grader's (an oracle), sent whole; the grader is trusted here
        return torch.load(io.BytesIO(self.array(node.get(codec.ARRAY)).tobytes()), weights_only=False)


def tensors_in(value: object, out: list | None = None) -> list:
    """Every tensor in a value's tuples, lists and dict values, in order (both sides use it)."""
    out = [] if out is None else out
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (tuple, list)):
        for x in value:
            tensors_in(x, out)
    elif isinstance(value, dict):
        for x in value.values():
            tensors_in(x, out)
    return out


def _to_device(value: object, device: torch.device) -> object:
    if isinstance(value, torch.Tensor):
        moved = value.detach().to(device)
        return moved.requires_grad_(True) if value.requires_grad else moved
    if isinstance(value, (tuple, list)):
        return type(value)(_to_device(x, device) for x in value)
    if isinstance(value, dict):
        return {k: _to_device(x, device) for k, x in value.items()}
    return value


def _module_device(target: object, args: list, kwargs: dict) -> torch.device | None:
    """The device of the module being called, or of the first module passed, if not the CPU."""
    owner = getattr(target, "__self__", target)
    for obj in (owner, *args, *kwargs.values()):
        if isinstance(obj, torch.nn.Module):
            param = next(obj.parameters(), None)
            return param.device if param is not None and param.device.type != "cpu" else None
    return None


class Servant:
    """The grader's requests, answered in the learner's kernel: one method per op."""

    def __init__(self, kernel: Any = None, namespace: dict | None = None) -> None:
        self.kernel, self.namespace = kernel, namespace if namespace is not None else {}
        self.handles: dict[int, Any] = {}  # the learner's values: anything at all
        self.graphs: dict[int, tuple[list, list]] = {}  # a call's grad inputs and outputs, for its backward
        self.callbacks: dict[int, Callback | ModuleCallback] = {}
        self.mutated: list[int] = []
        self.ops = {
            "global": self.op_global, "call": self.op_call, "backward": self.op_backward,
            "getattr": self.op_getattr, "setattr": self.op_setattr, "getitem": self.op_getitem,
            "list": self.op_list, "len": self.op_len, "hold": self.op_hold, "isinstance": self.op_isinstance,
        }  # fmt: skip

    def keep(self, value: object) -> int:
        """A handle for a value that stays here."""
        ident = len(self.handles) + 1
        self.handles[ident] = value
        return ident

    def callback(self, ident: int, module: bool) -> Callback | ModuleCallback:
        if ident not in self.callbacks:
            self.callbacks[ident] = (ModuleCallback if module else Callback)(self, ident)
        return self.callbacks[ident]

    # --- the ops ---

    def op_global(self, req: dict, dec: Decoder) -> object:
        if req["name"] not in self.namespace:
            raise NameError(f"name {req['name']!r} is not defined in the notebook")
        return self.namespace[req["name"]]

    def op_call(self, req: dict, dec: Decoder) -> object:
        target = self.handles[req["target"]]
        args, kwargs = cast(list, dec.decode(req["args"])), cast(dict, dec.decode(req["kwargs"]))
        device = _module_device(target, args, kwargs)
        if device is not None:  # the learner's model lives on the GPU: bring the inputs to it
            args, kwargs = cast(list, _to_device(args, device)), cast(dict, _to_device(kwargs, device))
        given = tensors_in((args, kwargs))
        before = [t.detach().clone() for t in given]
        result = target(*args, **kwargs)
        self.mutated = [
            i
            for i, (t, b) in enumerate(zip(given, before, strict=True))
            if t.shape != b.shape or t.dtype != b.dtype or not torch.equal(t.detach(), b)
        ]
        inputs = [t for t in tensors_in((args, kwargs)) if t.requires_grad and t.is_leaf]
        if inputs:
            self.graphs[req["id"]] = (inputs, [t for t in tensors_in(result) if t.requires_grad])
        return result

    def op_backward(self, req: dict, dec: Decoder) -> object:
        inputs, outputs = self.graphs.pop(req["call"])
        pairs = [(o, g) for o, g in zip(outputs, cast(list, dec.decode(req["grads"])), strict=False) if g is not None]
        if any(o.shape != g.shape for o, g in pairs):
            raise RuntimeError("a gradient does not have the shape of its output")
        if pairs:  # one scalar, sum of <o, g>: its gradient at each o is exactly g, as backward(outs, grads) gives,
            # without the explicit-gradient path, whose first use imports sympy (0.5-1 s of every job's checks)
            cast(torch.Tensor, sum((o * g.to(o.device)).sum() for o, g in pairs)).backward()
        return [t.grad for t in inputs]

    def op_getattr(self, req: dict, dec: Decoder) -> object:
        return getattr(self.handles[req["target"]], req["name"])

    def op_setattr(self, req: dict, dec: Decoder) -> object:
        setattr(self.handles[req["target"]], req["name"], dec.decode(req["value"]))
        return None

    def op_getitem(self, req: dict, dec: Decoder) -> object:
        return self.handles[req["target"]][dec.decode(req["key"])]

    def op_list(self, req: dict, dec: Decoder) -> object:
        return list(self.handles[req["target"]])

    def op_len(self, req: dict, dec: Decoder) -> object:
        return len(self.handles[req["target"]])

    def op_hold(self, req: dict, dec: Decoder) -> object:  # a module of the check's, kept here as a handle
        return dec.decode(req["value"])

    def op_isinstance(self, req: dict, dec: Decoder) -> object:
        kinds = [getattr(torch.nn, n) if hasattr(torch.nn, n) else getattr(torch, n) for n in req["kinds"]]
        return isinstance(self.handles[req["target"]], tuple(kinds))

    # --- the channel ---

    def serve(self, data: dict, buffers: list) -> tuple[dict, list[bytes]]:
        """One request of the grader's (a comm message): its reply, as (JSON, buffers)."""
        req = data["req"]
        arrays = codec.unpack(data.get("arrays", {}), buffers, NO_LIMIT, 64, NO_LIMIT)
        enc, sink = Encoder(self), io.StringIO()
        try:  # what the learner's code prints while the grader calls it is never shown
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                value = self.ops[req["op"]](req, Decoder(self, arrays))
            reply = {"ok": True, "value": enc.encode(value), "mutated": self.mutated}
        except (Exception, SystemExit, KeyboardInterrupt) as exc:  # noqa: BLE001 - any failure is the learner's result
            reply, enc = {"ok": False, "error": describe(exc)}, Encoder(self)
        self.mutated = []
        meta, out = codec.pack(enc.arrays)
        return {"done": data["n"], "reply": reply, "arrays": meta}, out

    def ask(self, req: dict) -> object:
        """Call back into the grader (an object of the check's own, e.g. a fake model) and wait, on stdin."""
        enc = Encoder(self)
        req = {k: enc.encode(v) if k in ("args", "kwargs") else v for k, v in req.items()}
        req["arrays"] = codec.pack_text(enc.arrays)
        reply = json.loads(self._input(json.dumps(req)))
        if not reply.get("ok"):
            raise (AttributeError if reply.get("missing") else RuntimeError)(
                reply.get("error", "the grader's object raised")
            )
        meta, buffers = codec.text_buffers(reply["arrays"], NO_LIMIT)
        return Decoder(self, codec.unpack(meta, buffers, NO_LIMIT, 64, NO_LIMIT)).decode(reply["value"])

    def _input(self, prompt: str) -> str:
        """One input_request on stdin to the grader, and its answer."""
        import zmq

        kernel = self.kernel
        kernel.session.send(kernel.stdin_socket, "input_request", {"prompt": prompt, "password": False},
                            kernel.get_parent("shell"), ident=kernel._parent_ident["shell"])  # fmt: skip
        poller = zmq.Poller()
        poller.register(kernel.stdin_socket, zmq.POLLIN)
        deadline = time.monotonic() + CALL_BACK_SECONDS
        while time.monotonic() < deadline:
            if poller.poll(1000):
                _, msg = kernel.session.recv(kernel.stdin_socket)
                if msg is not None and msg.get("msg_type") == "input_reply":
                    return msg["content"]["value"]
        raise TimeoutError("the grader did not answer a callback")


class Discard(io.TextIOBase):
    """A text stream that keeps nothing."""

    def write(self, text: str) -> int:
        return len(text)


def describe(exc: BaseException) -> dict:
    """An exception as the grader receives it: its type's name, nearest builtin and message."""
    builtin = next((k.__name__ for k in type(exc).__mro__ if k.__module__ == "builtins"), "Exception")
    return {"type": type(exc).__name__, "builtin": builtin, "message": str(exc)[:2000]}


def _quiet_status(kernel: Any, comm_id: str) -> None:
    """No busy/idle status around the grader's requests: two of a call's three messages on iopub.

    The grader waits for the servant's reply itself; ipykernel would publish a status before
    and after every shell message, each through its I/O thread and the channel relay.
    """
    publish = kernel._publish_status

    def status(state: str, channel: str, parent: dict | None = None) -> None:
        msg = parent or kernel.get_parent(channel) or {}
        content = msg.get("content")
        if msg.get("msg_type") == "comm_msg" and isinstance(content, dict) and content.get("comm_id") == comm_id:
            return
        publish(state, channel, parent)

    kernel._publish_status = status


def claim_refusal() -> Any:
    """The rule refusal the kernel set up as it started (autograder/shipped/refusal.py), claimed once; None if gone."""
    published = sys.modules.get("_wb_refusal")
    claim = getattr(published, "claim", None)
    return claim() if callable(claim) else None


def rule_control(refusal: Any, rule: object) -> dict:
    """Arm (a list of the rule's names) or disarm (None) the refusal; what the grader is told back."""
    if refusal is None:
        return {"refusal": "missing", "refused": []}
    try:
        if isinstance(rule, list):
            return {"refusal": "armed", "unknown": refusal.arm([str(n) for n in rule]), "refused": refusal.drain()}
        refusal.disarm()
        return {"refusal": "disarmed", "refused": refusal.drain()}
    except Exception as exc:  # noqa: BLE001 - told to the grader, which then cannot judge the rule
        return {"refusal": f"failed: {type(exc).__name__}: {str(exc)[:200]}", "refused": []}


def private_mappings() -> int:
    """In the copy, before the call: every writable shared mapping becomes private memory of the copy's, with
    the same contents (bytes made so). A buffer the kernel shared before the call (mmap, np.memmap) is otherwise
    written by the call without a page of its own, which neither the copy's private bytes nor the job's memory
    cgroup would count; honest code holds none (the kernel's own shared mappings are read-only)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype, libc.mremap.restype = ctypes.c_void_p, ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.mremap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
    made = 0
    with open("/proc/self/maps") as maps:
        shared = [line.split()[:2] for line in maps if line.split()[1][1:4:2] == "ws"]
    for span, perms in shared:
        start, end = (int(x, 16) for x in span.split("-"))
        size = end - start
        fresh = libc.mmap(None, size, 3, 0x22, -1, 0)  # PROT_READ|WRITE, MAP_PRIVATE|MAP_ANONYMOUS
        if fresh in (None, ctypes.c_void_p(-1).value):
            continue
        if perms[0] == "r":
            ctypes.memmove(fresh, start, size)
        if libc.mremap(fresh, size, size, 3, start) == start:  # MREMAP_MAYMOVE|MREMAP_FIXED: over the shared one
            made += size
    return made


def _send_answer(write: int, refused: list, answer: dict, out: list) -> None:
    """The copy's side: what it refused, its reply and the reply's arrays, down the pipe (length-prefixed JSON)."""
    import posix

    sizes = [len(memoryview(b)) for b in out]
    if sum(sizes) > REPLY_BYTES:  # too large to bring back: the grader's check then has no output to compare
        answer, out, sizes = {"reply": {"ok": False, "error": _copy_error("its reply was too large")}}, [], []
    head = json.dumps(
        {"refused": refused, "reply": answer["reply"], "arrays": answer.get("arrays", {}), "sizes": sizes}
    )
    for chunk in [len(head.encode()).to_bytes(8, "big"), head.encode(), *out]:
        view = memoryview(chunk).cast("B")
        while view:
            view = view[posix.write(write, view) :]


def _copy_error(what: str) -> dict:
    """A RuntimeError reply for a call in the copy that gave no answer."""
    return {
        "type": "RuntimeError",
        "builtin": "RuntimeError",
        "message": f"the call in the grader's copy of the kernel: {what}",
    }


def _read_answer(told: bytes, n: int) -> tuple[dict, list]:
    """The kernel's side: the copy's answer as a reply to the grader's request `n` (an error if it is malformed)."""
    try:
        size = int.from_bytes(told[:8], "big")
        head = json.loads(told[8 : 8 + size])
        refused, reply, meta = [str(x) for x in head["refused"]], dict(head["reply"]), dict(head["arrays"])
        at, buffers = 8 + size, []
        for length in head["sizes"]:
            buffers.append(told[at : at + int(length)])
            at += int(length)
        if at != len(told):
            raise ValueError("a reply of another length than it says")
    except (ValueError, TypeError, KeyError):
        return {
            "done": n,
            "arrays": {},
            "refused_in_copy": [],
            "reply": {"ok": False, "error": _copy_error("no reply")},
        }, []
    return {"done": n, "arrays": meta, "refused_in_copy": refused, "reply": {**reply, "mutated": []}}, buffers


def forked(servant: Servant, serve: Any, refusal: Any, data: dict, buffers: list) -> tuple[dict, list]:
    """Serve one call in a forked copy of the kernel: the reply (and arrays) the copy's call returned.

    Everything the kernel held before is shared with the copy, page by page, until the copy
    writes to it: a buffer made in an earlier cell and filled during the call is then new
    memory of the call's (copied on write), counted by the job's memory cgroup and by the
    copy's private pages (autograder.kernel.membudget), and nothing the call frees gives back
    what was there before. The copy ends as soon as the call does; the kernel is unchanged. The
    output comes from the measured call itself, so an answer remembered from an earlier call on the
    same inputs is no way around the budget, as long as the check gives the copy inputs the kernel
    has not seen.
    """
    import posix  # the fork the rule's refusal leaves alone (it guards os.fork while armed)

    read, write = posix.pipe()
    pid = posix.fork()
    if pid == 0:  # the copy: the call, then out at once (no atexit, no flush, no socket touched)
        code = 4
        try:
            posix.close(read)
            private_mappings()
            answer, out = serve(data, buffers)
            _send_answer(write, refusal.drain() if refusal else [], answer, out)
            code = 0 if answer["reply"]["ok"] else 3
        finally:
            posix._exit(code)
    posix.close(write)
    chunks, total = [], 0
    while chunk := posix.read(read, 2**20):
        if total <= REPLY_BYTES + 2**20:  # more than a reply may be is read and dropped
            chunks.append(chunk)
        total += len(chunk)
    posix.close(read)
    _, status = posix.waitpid(pid, 0)
    code = posix.WEXITSTATUS(status) if posix.WIFEXITED(status) else -1
    answer, arrays = _read_answer(b"".join(chunks), data["n"])
    if code == 0 or (code == 3 and not answer["reply"].get("ok", True)):
        return answer, arrays
    failed = _copy_error(f"it failed (status {code})")
    return {**answer, "arrays": {}, "reply": {"ok": False, "error": failed}}, []


def too_large(n: int, size: int, cap: int) -> dict:
    """The reply sent instead of one whose arrays are over the grader's cap: that call fails, and says why."""
    message = f"the reply was larger than {cap // 2**20} MiB ({size / 2**20:.1f} MiB of arrays)"
    return {
        "done": n,
        "arrays": {},
        "reply": {"ok": False, "error": {"type": "ValueError", "builtin": "ValueError", "message": message}},
    }


def open_channel(kernel: Any, namespace: dict) -> None:
    """Answer the grader's requests as comm messages: no cell to run, no history, no hooks (fast).

    Each message is served by `__wb_serve` as the notebook's namespace holds it when it
    arrives, so a learner who replaces it changes only what their own code is said to return.
    """
    servant = Servant(kernel, namespace)
    namespace["__wb_serve"] = servant.serve
    refusal = claim_refusal()
    # Nothing the kernel prints from now on is shown (the grader drops it), and ipykernel flushes
    # sys.stdout and sys.stderr after every message: two waits on its I/O thread per call, a third
    # of a call's time. Streams that keep nothing make those flushes free.
    sys.stdout = sys.stderr = Discard()

    def on_open(comm, msg):
        _quiet_status(kernel, comm.comm_id)
        opened = msg.get("content", {}).get("data", {})
        cap = int(opened.get("reply_bytes", REPLY_BYTES)) if isinstance(opened, dict) else REPLY_BYTES

        def on_msg(msg):
            data = msg["content"]["data"]
            if "rule" in data:  # the grader arms or disarms a rule itself: never the (replaceable) servant
                comm.send({"done": data["n"], **rule_control(refusal, data["rule"])})
                return
            serve = namespace["__wb_serve"]
            if data.get("fork"):  # a call whose memory the grader measures: in a copy of the kernel
                reply, buffers = forked(servant, serve, refusal, data, msg.get("buffers") or [])
            else:
                reply, buffers = serve(data, msg.get("buffers") or [])
            refused = [*reply.pop("refused_in_copy", []), *(refusal.drain() if refusal else [])]
            size = sum(len(memoryview(b)) for b in buffers)
            if size > cap:  # the grader would drop it unread and wait out the call: say so at once instead
                reply, buffers = too_large(data["n"], size, cap), []
            comm.send({**reply, "refused": refused}, buffers=buffers)

        comm.on_msg(on_msg)

    kernel.comm_manager.register_target("wb_servant", on_open)
