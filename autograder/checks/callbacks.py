"""The callback desk: a check's own objects the learner's code may call back during a call, and what it is told."""

from __future__ import annotations

import inspect
import json
from typing import Any

import numpy as np
import torch

from autograder.checks.clock import RemoteError
from autograder.checks.encoding import Decoder, Encoder
from autograder.checks.proxy import Link
from autograder.kernel import wire

# A call back's JSON is parsed in the worker: its objects cost ~16x their bytes, so they are
# counted first (a call's arguments are a few tensors and numbers, each a node or two).
MAX_CALL_NODES = 20_000


class CallbackDesk:
    """The check's own objects the learner's code may call back (input_request on stdin), and their answers."""

    def __init__(self, link: Link) -> None:
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
