"""Grader side of the trusted harness: proxies that call the learner's code in its kernel.

A check runs in the grader's process. When it calls a learner's function or module, the
proxy sends the inputs (plain arrays + JSON, in-band) to the kernel's servant, and takes
back the outputs: plain arrays and JSON only, size-limited (autograder.kernel.wire), no pickle.
Inputs are copies, so nothing the learner's code does to them reaches the check; outputs
are new local tensors. Gradients cross the boundary through an autograd bridge.
"""

from __future__ import annotations

import builtins
import inspect
import io
import json
import queue
import re
import time
import uuid
from typing import Any

import nbformat
import numpy as np
import torch
import zmq
from jupyter_core.utils import run_sync

from autograder import paths
from autograder.kernel import guarded, wire
from autograder.kernel.guarded import ignored_message
from autograder.shipped import codec
from autograder.shipped.servant import tensors_in

_EXCEPTIONS = {n: getattr(builtins, n) for n in dir(builtins) if isinstance(getattr(builtins, n), type)}


class RemoteError(RuntimeError):
    """The learner's kernel could not answer (it died, hung, or replied with garbage)."""


def remote_exception(error: dict) -> BaseException:
    """A local exception standing for one the learner's code raised (its builtin base class)."""
    kind = _EXCEPTIONS.get(str(error.get("builtin")), Exception)
    if not issubclass(kind, Exception):
        kind = RuntimeError
    message = f"{error.get('type', 'Exception')}: {error.get('message', '')}"[:2000]
    try:
        exc = kind(message)
    except TypeError:
        exc = RuntimeError(message)
    exc.wb_learner = True  # raised by the learner's code: its text is theirs
    return exc


class CallClock:
    """The time limits of one kernel's calls: each call's own, within the notebook's deadline."""

    def __init__(self, call_seconds: float, deadline: float) -> None:
        self.call_seconds, self.deadline, self.dead = call_seconds, deadline, ""

    def time_left(self) -> float:
        """Seconds one request may take (the call limit within the notebook's); raises once the link is dead."""
        if self.dead:
            raise RemoteError(self.dead)
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.dead = "the notebook's time limit was reached before this check"
            raise RemoteError(self.dead)
        return max(1.0, min(self.call_seconds, left))

    def fail(self, reason: str) -> RemoteError:
        """The link is dead from now on, for this reason."""
        self.dead = reason
        return RemoteError(reason)


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


class CallbackDesk:
    """The check's own objects the learner's code may call back (input_request on stdin), and their answers."""

    def __init__(self, link: KernelLink) -> None:
        self.link, self.budget = link, link.budget  # the learner's objects in a call's arguments are the link's
        self.objects: dict[int, Any] = {}
        self.serving = False

    def answer(self, msg: dict) -> dict:
        """The reply to one call of the learner's code to a check's object."""
        content = c if isinstance(c := msg.get("content"), dict) else {}
        prompt = content.get("prompt")
        enc = Encoder(self.objects)
        self.serving = True
        try:
            if msg.get("msg_type") != "input_request" or not isinstance(prompt, str):
                raise RemoteError("not a call to a check's object")
            if len(prompt) > self.budget.limits.callback_bytes:
                raise RemoteError("the call sends more data than a check's object accepts")
            if prompt.count("{") + prompt.count("[") > MAX_CALL_NODES:  # arrays travel as one string each
                raise RemoteError("the call sends more values than a check's object accepts")
            req = json.loads(prompt)
            if not isinstance(req, dict):
                raise RemoteError("a malformed call")
            value = self._callback_value(req, wire.unpack_text(req.get("arrays"), self.budget))
            return {"ok": True, "value": enc.encode(value), "arrays": wire.pack_text(enc.arrays)}
        except Exception as exc:  # noqa: BLE001 - reported to the learner's code as an error
            # a name not offered is missing there too, so that hasattr() and getattr(x, n, d) behave as on any object
            missing = isinstance(exc, AttributeError)
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:500], "missing": missing}
        finally:
            self.serving = False

    def _callback_value(self, req: dict, arrays: dict[str, np.ndarray]) -> Any:
        """What a call to a check's object returns: only what that object offers (see `offered`)."""
        target = self.objects.get(t) if type(t := req.get("target")) is int else None
        if target is None:
            raise RemoteError("the call names no object of the check's")
        dec = Decoder(self.link, arrays, inside_callback=True)
        if req.get("op") == "cb_getattr":
            name = str(req.get("name"))
            if not offered(target, name):
                raise AttributeError(f"{name!r} is not offered to the learner's code")
            return getattr(target, name)
        if req.get("op") == "cb_call":
            return target(*dec.decode(req.get("args")), **dec.decode(req.get("kwargs")))
        raise RemoteError("an unknown call")


class KernelLink:
    """One learner's kernel, reached in-band through the notebook client that ran their notebook.

    A request is a comm message on the shell channel (JSON + binary buffers); the reply is
    a comm message of the servant's on iopub. While a call runs, the learner's code may call
    a check's own objects back: it asks on the stdin channel (input_request) and is answered
    there (input_reply). No file is read or written, so nothing the kernel plants in a
    folder can reach the grader; every frame is bounded by ZeroMQ before it is decoded
    (launchers.capped_context) and every reply by `wire` before it is used. It composes the
    kernel's channels, the calls' clock and the desk that answers callbacks.
    """

    def __init__(self, client, call_seconds: float, deadline: float, limits: wire.WireLimits | None = None) -> None:
        self.clock = CallClock(call_seconds, deadline)
        self.channels = KernelChannels(client, self.clock)
        self.budget = wire.Budget(limits or wire.WireLimits())
        self.desk = CallbackDesk(self)
        self.count, self.mutations = 0, 0
        self.refused: list[str] = []  # what the kernel refused of an armed rule (autograder/shipped/refusal.py)
        self.forking = False  # while the OS measures a call's memory: it runs in a copy of the kernel
        # set by the worker (autograder.kernel.membudget): runs one call under a memory budget the OS measures
        self.memory_budget: Any = None

    @property
    def callbacks(self) -> dict[int, Any]:
        """The check's own objects the learner's code may call back, by handle."""
        return self.desk.objects

    @property
    def deadline(self) -> float:
        return self.clock.deadline

    def start(self) -> None:
        """Define the servant in the kernel (after the learner's notebook has run).

        nbclient writes each executed cell back into its notebook: the grader's calls run
        against a scratch notebook, so that none of them lands in the learner's graded one.
        """
        self.channels.client.nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("")])
        self.channels.execute(servant_cell())
        self.comm_id = uuid.uuid4().hex
        opened = {"reply_bytes": self.budget.limits.reply_bytes}  # a larger reply the servant refuses to send
        self.channels.send("comm_open", {"comm_id": self.comm_id, "target_name": "wb_servant", "data": opened})

    def _wait_done(self, n: int, limit: float) -> tuple[dict, list]:
        """The servant's reply to request n on iopub, answering its callbacks on stdin meanwhile."""
        end = time.monotonic() + limit
        while True:
            ready = self.channels.ready(min(1.0, max(0.001, end - time.monotonic())))
            if not ready:
                self.channels.check_alive(end, limit)
                continue
            if "stdin" in ready and (call := self.channels.next_message("stdin")) is not None:
                self.channels.answer(self.desk.answer(call))
            if "iopub" in ready and (msg := self.channels.next_message("iopub", only="comm_msg")) is not None:
                content = c if isinstance(c := msg.get("content"), dict) else {}
                data = d if isinstance(d := content.get("data"), dict) else {}
                if msg.get("msg_type") == "comm_msg" and content.get("comm_id") == self.comm_id:
                    if data.get("done") == n:
                        return data, list(msg.get("buffers") or [])
            if time.monotonic() >= end:
                self.channels.check_alive(end, limit)

    def request(self, req: dict, arrays: dict[str, np.ndarray]) -> Any:
        """Send one request; the decoded value, or the learner's exception raised here."""
        if self.desk.serving:
            raise RemoteError("a check's own object cannot call back into the learner's code")
        self.count += 1
        n = self.count
        meta, buffers = wire.pack(arrays)
        limit = self.clock.time_left()
        data = {"n": n, "req": {**req, "id": n}, "arrays": meta, **({"fork": True} if self.forking else {})}
        self.channels.send("comm_msg", {"comm_id": self.comm_id, "data": data}, buffers)
        data, got = self._wait_done(n, limit)
        self._note_refused(data)
        try:
            reply, values = data.get("reply"), wire.unpack(data.get("arrays"), got, self.budget)
        except wire.WireError as exc:
            raise RemoteError(f"the learner's code returned what the grader does not accept: {exc}") from None
        if not isinstance(reply, dict):
            raise RemoteError("the kernel's reply is not an object")
        if reply.get("ok") is not True:
            raise remote_exception(e if isinstance(e := reply.get("error"), dict) else {})
        if reply.get("mutated"):  # the learner's code changed an input in place (the check's own copy is intact)
            self.mutations += 1
        return Decoder(self, values).decode(reply.get("value"))

    def rule(self, names: list[str] | None) -> str:
        """Arm the kernel's refusal of a rule's built-ins (names) or disarm it (None): the state the kernel reports.

        Answered by the servant's channel itself, never by the servant the notebook's namespace holds.
        """
        if self.desk.serving:
            raise RemoteError("a rule cannot be armed from a check's own object")
        if getattr(self, "comm_id", None) is None:
            raise RemoteError("the servant never started in the kernel")
        self.count += 1
        n = self.count
        self.channels.send("comm_msg", {"comm_id": self.comm_id, "data": {"n": n, "rule": names}})
        data, _ = self._wait_done(n, self.clock.time_left())
        self._note_refused(data)
        state = data.get("refusal")
        return state[:240] if isinstance(state, str) else "no answer"

    def _note_refused(self, data: dict) -> None:
        """Keep the names the kernel says it refused (plain identifiers only, a bounded number)."""
        names = data.get("refused")
        if isinstance(names, list):
            self.refused += [x for x in names[:64] if isinstance(x, str) and _IDENTIFIER.fullmatch(x)]


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,80}")
_MODULE_METHODS = frozenset(dir(torch.nn.Module))


def offered(target: Any, name: str) -> bool:
    """Whether a check's object offers `name` to the learner's code.

    Plain data it holds, its own class's `forward` (called, it is the model), and the methods
    the check lists in the object's `wb_offer`: nothing else, so a check's class may also hold
    what computes its expected values (a reference `step`) without handing it over, and never
    a name of nn.Module's or of Python's (hooks, compile, submodules, parameters, __globals__).
    """
    if name.startswith("_") or not name.isidentifier():
        return False
    if name in getattr(target, "wb_offer", ()):
        return True
    own = [k for k in type(target).__mro__ if not k.__module__.startswith(("torch", "builtins"))]
    if name == "forward" and any(name in vars(k) for k in own):
        return True
    value = inspect.getattr_static(target, name, None)
    if isinstance(target, torch.nn.Module) and name not in _MODULE_METHODS:
        value = target.__dict__.get(name, value)
    return isinstance(value, (bool, int, float, str, torch.Size, torch.dtype, torch.device))


class Encoder(codec.Encoder):
    """Values of a check -> the format, for the kernel (copies: the check keeps its own)."""

    def __init__(self, callbacks: dict[int, Any] | None = None) -> None:
        super().__init__()
        self.callbacks = callbacks

    def special(self, value: object) -> dict | None:
        if isinstance(value, RemoteObject):
            return {codec.TAG: codec.REF, codec.IDENT: value._r_id}
        return None

    def other(self, value: object) -> object:
        if isinstance(value, (tuple, list)):  # a named tuple or a list of the check's: its items
            return self.encode(list(value))
        if isinstance(value, dict):
            return self.encode(dict(value))
        if isinstance(value, torch.nn.Module) and type(value).__module__.startswith("torch."):
            buffer = io.BytesIO()
            torch.save(value, buffer)
            return {codec.TAG: codec.OBJECT, codec.ARRAY: self.array(np.frombuffer(buffer.getvalue(), dtype=np.uint8))}
        if self.callbacks is not None and (callable(value) or type(value).__module__ == "__main__"):
            ident = next((k for k, v in self.callbacks.items() if v is value), len(self.callbacks) + 1)
            self.callbacks[ident] = value  # stays here: the learner's code calls it back
            return {codec.TAG: codec.CALLBACK, codec.IDENT: ident, codec.IS_MODULE: isinstance(value, torch.nn.Module)}
        raise TypeError(f"the grader cannot pass a {type(value).__name__} to the learner's code")


class Decoder(codec.Decoder):
    """A kernel's reply -> local values; anything unexpected is refused (RemoteError)."""

    def __init__(self, link: KernelLink, arrays: dict[str, np.ndarray], inside_callback: bool = False) -> None:
        super().__init__(arrays)
        self.link, self.inside_callback = link, inside_callback

    def decode(self, node: Any, depth: int = 0) -> Any:
        if depth:
            return super().decode(node, depth)
        try:
            return super().decode(node)
        except (codec.FormatError, ValueError, TypeError, OverflowError, RuntimeError) as exc:
            raise RemoteError(f"the kernel's reply is malformed: {str(exc)[:200]}") from None

    def attach(self, tensor: torch.Tensor, node: dict, grad: torch.Tensor | None) -> torch.Tensor:
        if node.get(codec.ON_DEVICE) == "cuda" and torch.cuda.is_available():
            tensor = tensor.to("cuda")  # as the learner's code returned it, where the grader has a GPU too
        if node.get(codec.REQUIRES_GRAD) is True:  # as in the kernel: requires grad, and a history if it had one
            tensor = tensor.requires_grad_(True).clone() if node.get(codec.HAS_HISTORY) else tensor.requires_grad_(True)
        if grad is not None and tensor.is_leaf:  # a learner parameter's gradient, after a backward in the kernel
            tensor.grad = grad.to(tensor.device)
        tensor._wb_grad = node.get(codec.REQUIRES_GRAD) is True  # type: ignore[attr-defined]  # the grader's own mark: the kernel's output is part of a graph
        return tensor

    def special(self, tag: str, node: dict) -> object:
        ident = node.get(codec.IDENT)
        if tag == codec.CALLBACK and type(ident) is int and ident in self.link.callbacks:
            return self.link.callbacks[ident]
        if tag == codec.REF and type(ident) is int:
            kind = str(node.get(codec.TYPE_NAME, "object"))[:80]
            cls = _torch_class(node.get(codec.TORCH_CLASS))
            module, call = bool(node.get(codec.IS_MODULE)), bool(node.get(codec.IS_CALLABLE))
            return RemoteObject(self.link, ident, kind, module, call, cls)
        raise codec.FormatError(f"the kernel's reply has an unknown or malformed {tag}")


SHIPPED = ("arrays", "codec", "servant")  # autograder/shipped/, in the order they are defined in the kernel

_BOOT = """\
def __wb_boot(files):
    import sys, types
    package = types.ModuleType("_wb_shipped")
    package.__path__ = []
    sys.modules[package.__name__] = package
    for name, source in files.items():
        module = types.ModuleType(f"_wb_shipped.{name}")
        module.__package__ = package.__name__
        sys.modules[module.__name__] = module
        setattr(package, name, module)
        exec(compile(source, f"<workbook {name}>", "exec"), module.__dict__)
    package.servant.open_channel(get_ipython().kernel, globals())
__wb_boot(%r)
del __wb_boot
"""


# A call back's JSON is parsed in the worker: its objects cost ~16x their bytes, so they are
# counted first (a call's arguments are a few tensors and numbers, each a node or two).
MAX_CALL_NODES = 20_000


def servant_cell() -> str:
    """The code that defines the servant in the kernel: the shipped modules, as a private package."""
    return _BOOT % {name: (paths.SHIPPED / f"{name}.py").read_text() for name in SHIPPED}


def _torch_class(name: Any) -> type | None:
    """A PyTorch module class named by the kernel, looked up among torch.nn's public classes only.

    Nothing is imported and no module the kernel names is resolved: the name must be one of
    the classes `torch.nn` itself exports (nn.Linear, nn.GRU, ...), or it is ignored.
    """
    if not isinstance(name, str) or len(name) > 200:
        return None
    return _NN_CLASSES.get(name.rpartition(".")[2]) if name.startswith("torch.nn.") else None


_NN_CLASSES = {
    n: c for n, c in vars(torch.nn).items() if isinstance(c, type) and issubclass(c, torch.nn.Module) and n[0] != "_"
}


class _Bridge(torch.autograd.Function):
    """Gradients across the process boundary: backward asks the kernel for its input grads."""

    @staticmethod
    def forward(ctx, link, call_id, n_out, *tensors):
        ctx.link, ctx.call_id, ctx.n_in, ctx.n_out = link, call_id, len(tensors) - n_out, n_out
        return tuple(t.detach().clone() for t in tensors[ctx.n_in :])

    @staticmethod
    def backward(ctx, *grads):
        enc = Encoder()
        req = {"op": "backward", "call": ctx.call_id, "grads": enc.encode(list(grads))}
        got = ctx.link.request(req, enc.arrays)
        got = list(got) + [None] * (ctx.n_in - len(got))
        return (None, None, None, *got[: ctx.n_in], *([None] * ctx.n_out))


def _with_grad(link: KernelLink, call_id: int, inputs: list, result: Any) -> Any:
    """Reattach the kernel's outputs to the check's inputs, so .backward() reaches the kernel."""
    outs = [t for t in tensors_in(result) if getattr(t, "_wb_grad", False)]
    if not outs:
        return result
    linked = iter(_Bridge.apply(link, call_id, len(outs), *inputs, *outs))
    swap = {id(t): next(linked) for t in outs}

    def rebuild(value):
        if isinstance(value, torch.Tensor):
            return swap.get(id(value), value)
        if isinstance(value, (tuple, list)):
            return type(value)(rebuild(x) for x in value)
        if isinstance(value, dict):
            return {k: rebuild(v) for k, v in value.items()}
        return value

    return rebuild(result)


class RemoteObject:
    """A learner's function, class, module or other object, living in their kernel."""

    __slots__ = ("_r_link", "_r_id", "_r_type", "_r_module", "_r_call", "_r_class")

    def __init__(
        self, link: KernelLink, ident: int, kind: str, module: bool = False, call: bool = True, cls: type | None = None
    ) -> None:
        for name, value in (("_r_link", link), ("_r_id", ident), ("_r_type", kind), ("_r_module", module),
                            ("_r_call", call), ("_r_class", cls)):  # fmt: skip
            object.__setattr__(self, name, value)

    @property  # type: ignore[misc]  # read-only on purpose: a proxy's class is not set
    def __class__(self):  # isinstance(proxy, nn.Linear) asks the learner's object's nearest PyTorch class
        return self._r_class or RemoteObject

    def _r_ask(self, op: str, **fields) -> Any:
        enc = Encoder(self._r_link.callbacks)
        req = {"op": op, "target": self._r_id, **{k: enc.encode(v) for k, v in fields.items()}}
        return self._r_link.request(req, enc.arrays)

    def __call__(self, *args, **kwargs):
        inputs = [t for t in tensors_in((args, kwargs)) if t.requires_grad]
        enc = Encoder(self._r_link.callbacks)
        req = {"op": "call", "target": self._r_id, "args": enc.encode(list(args)), "kwargs": enc.encode(kwargs)}
        result = self._r_link.request(req, enc.arrays)
        if inputs and torch.is_grad_enabled():
            return _with_grad(self._r_link, self._r_link.count, inputs, result)
        return result

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._r_ask("getattr", name=name)

    def __setattr__(self, name: str, value) -> None:
        self._r_ask("setattr", name=name, value=value)

    def __getitem__(self, key):
        return self._r_ask("getitem", key=key)

    def __iter__(self):
        return iter(self._r_ask("list"))

    def __len__(self) -> int:
        return int(self._r_ask("len"))

    def __repr__(self) -> str:
        return f"<learner's {self._r_type}>"

    def __bool__(self) -> bool:  # never let a learner's object decide a check by being truthy
        raise TypeError(f"a learner's {self._r_type} is not a truth value")


def remote_isinstance(obj: Any, *kinds: str) -> bool:
    """isinstance for a learner's object, by PyTorch class name (e.g. 'Module', 'Linear')."""
    if isinstance(obj, RemoteObject):
        return bool(obj._r_ask("isinstance", kinds=list(kinds)))
    return isinstance(obj, tuple(getattr(torch.nn, k, None) or getattr(torch, k) for k in kinds))


def hold(link: KernelLink, module: torch.nn.Module) -> RemoteObject:
    """A copy of a check's PyTorch module kept in the learner's kernel, as a handle (op "hold").

    The learner's code can then be given that very copy, and the check can change it there
    afterwards (e.g. an oracle's weights, to see whether the learner's module shares them).
    """
    if not (isinstance(module, torch.nn.Module) and type(module).__module__.startswith("torch.")):
        raise TypeError("only a PyTorch module of the check's own can be held in the kernel")
    enc = Encoder(link.callbacks)
    held = link.request({"op": "hold", "value": enc.encode(module)}, enc.arrays)
    if type(held) is not RemoteObject:
        raise RemoteError("the kernel did not keep the module it was sent")
    return held


def kernel_global(link: KernelLink, name: str) -> Any:
    """A global of the learner's kernel: plain data by value, anything else as a proxy."""
    return link.request({"op": "global", "name": name}, {})
