"""Codec glue: a check's values to the boundary's one format (autograder/shipped/codec.py) and a kernel's reply back.

A learner's object comes back as a proxy (autograder.checks.proxy); a check's own callable or
object goes out as a handle the learner's code calls back (autograder.checks.callbacks).
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import torch

from autograder.checks.clock import RemoteError
from autograder.checks.proxy import Link, RemoteObject
from autograder.shipped import codec


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

    def __init__(self, link: Link, arrays: dict[str, np.ndarray], inside_callback: bool = False) -> None:
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
