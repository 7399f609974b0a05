"""Proxies: a learner's object, living in their kernel, as a check holds it; every use is a request.

A proxy asks through its link (autograder.checks.link.KernelLink), which encodes the request
(autograder.checks.encoding) and bridges gradients (autograder.checks.bridge).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import torch

from autograder.kernel import wire


class Link(Protocol):
    """What proxies, the codec glue, the autograd bridge and the callback desk use of a kernel's link."""

    @property
    def callbacks(self) -> dict[int, Any]: ...

    @property
    def budget(self) -> wire.Budget: ...

    def request(self, req: dict, arrays: dict[str, np.ndarray]) -> Any: ...

    def ask(self, target: int, op: str, fields: dict[str, Any]) -> Any: ...

    def call(self, target: int, args: tuple, kwargs: dict[str, Any]) -> Any: ...


class RemoteObject:
    """A learner's function, class, module or other object, living in their kernel."""

    __slots__ = ("_r_link", "_r_id", "_r_type", "_r_module", "_r_call", "_r_class")

    def __init__(
        self, link: Link, ident: int, kind: str, module: bool = False, call: bool = True, cls: type | None = None
    ) -> None:
        for name, value in (("_r_link", link), ("_r_id", ident), ("_r_type", kind), ("_r_module", module),
                            ("_r_call", call), ("_r_class", cls)):  # fmt: skip
            object.__setattr__(self, name, value)

    @property  # type: ignore[misc]  # read-only on purpose: a proxy's class is not set
    def __class__(self):  # isinstance(proxy, nn.Linear) asks the learner's object's nearest PyTorch class
        return self._r_class or RemoteObject

    def _r_ask(self, op: str, **fields) -> Any:
        return self._r_link.ask(self._r_id, op, fields)

    def __call__(self, *args, **kwargs):
        return self._r_link.call(self._r_id, args, kwargs)

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
