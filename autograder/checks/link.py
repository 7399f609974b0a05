"""Grader side of the trusted harness: the link to one learner's kernel, through which checks call their code.

A check runs in the grader's process. When it calls a learner's function or module, the
proxy (autograder.checks.proxy) sends the inputs (plain arrays + JSON, in-band) to the
kernel's servant, and takes back the outputs: plain arrays and JSON only, size-limited
(autograder.kernel.wire), no pickle. Inputs are copies, so nothing the learner's code does
to them reaches the check; outputs are new local tensors. Gradients cross the boundary
through an autograd bridge (autograder.checks.bridge).
"""

from __future__ import annotations

import ast
import builtins
import re
import time
import uuid
from typing import Any

import nbformat
import numpy as np
import torch

from autograder import paths
from autograder.checks.bridge import with_grad
from autograder.checks.callbacks import CallbackDesk
from autograder.checks.channels import KernelChannels
from autograder.checks.clock import CallClock, RemoteError
from autograder.checks.encoding import Decoder, Encoder
from autograder.checks.proxy import RemoteObject
from autograder.kernel import wire
from autograder.shipped.servant import tensors_in

_EXCEPTIONS = {n: getattr(builtins, n) for n in dir(builtins) if isinstance(getattr(builtins, n), type)}


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
        # set by the worker (autograder.kernel.membudget.others): the job's processes beside its kernel, read
        # from outside it (None: they cannot be told apart here)
        self.beside: Any = None

    @property
    def callbacks(self) -> dict[int, Any]:
        """The check's own objects the learner's code may call back, by handle."""
        return self.desk.objects

    @property
    def deadline(self) -> float:
        return self.clock.deadline

    def ask(self, target: int, op: str, fields: dict[str, Any]) -> Any:
        """One request about a learner's object (a proxy's getattr, len, ...): its fields encoded for the kernel."""
        enc = Encoder(self.callbacks)
        req = {"op": op, "target": target, **{k: enc.encode(v) for k, v in fields.items()}}
        return self.request(req, enc.arrays)

    def call(self, target: int, args: tuple, kwargs: dict[str, Any]) -> Any:
        """A call of a learner's object; outputs stay linked to the check's inputs for backward()."""
        inputs = [t for t in tensors_in((args, kwargs)) if t.requires_grad]
        enc = Encoder(self.callbacks)
        req = {"op": "call", "target": target, "args": enc.encode(list(args)), "kwargs": enc.encode(kwargs)}
        result = self.request(req, enc.arrays)
        if inputs and torch.is_grad_enabled():
            return with_grad(self, self.count, inputs, result)
        return result

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


SHIPPED = ("arrays", "codec", "servant")  # autograder/shipped/, in the order they are defined in the kernel
BOOT = paths.SHIPPED / "boot.py"  # its function `__wb_boot` is the cell that defines them there


def boot_source() -> str:
    """`__wb_boot`'s definition, exactly as autograder/shipped/boot.py writes it (nothing else of that file)."""
    text = BOOT.read_text()
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == "__wb_boot")
    source = ast.get_source_segment(text, node)
    if source is None:  # cannot happen: the node was parsed from this text
        raise RuntimeError(f"{BOOT} holds no source for __wb_boot")
    return source


def servant_cell() -> str:
    """The code that defines the servant in the kernel: the shipped modules, as a private package."""
    files = {name: (paths.SHIPPED / f"{name}.py").read_text() for name in SHIPPED}
    return f"{boot_source()}\n__wb_boot({files!r})\ndel __wb_boot\n"


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
