"""Kernel side of the trusted harness: call the learner's code on the grader's inputs.

This file's source is sent to the learner's kernel, after the notebook ran, as one cell
that defines ``__wb_serve``. It imports nothing from the grader and holds nothing secret:
no expected value, tolerance or check source. Each request is a JSON file plus an ``.npz``
of input arrays that the grader wrote; the reply is the same pair, written here, made of
plain arrays and JSON only (never pickle), which the grader reads with strict limits.
Whatever the learner patches here can change only what their own code is reported to return.
"""


def __wb_make_server():  # noqa: C901 - one closure keeps the kernel's namespace clean
    import base64
    import contextlib
    import io
    import json

    import numpy as np
    import zmq

    try:
        import torch
    except ImportError:  # pragma: no cover
        torch = None

    import time

    handles, graphs, callbacks = {}, {}, {}
    counter = [0]
    channel = {}

    def pack(arrays):
        meta, buffers = {}, []
        for key, array in arrays.items():
            array = np.asarray(array, order="C")  # (keeps a 0-d array 0-d)
            meta[key] = [len(buffers), str(array.dtype), list(array.shape)]
            buffers.append(array.tobytes())
        return meta, buffers

    def unpack(meta, buffers):
        return {k: np.frombuffer(buffers[i], dtype=d).reshape(s).copy() for k, (i, d, s) in meta.items()}

    def ask(req):
        """Call back into the grader (an object of the check's own, e.g. a fake model) and wait, on stdin."""
        arrays = {}
        req = {k: encode(v, arrays) if k in ("args", "kwargs") else v for k, v in req.items()}
        meta, buffers = pack(arrays)
        req["arrays"] = {k: [d, s, base64.b64encode(buffers[i]).decode()] for k, (i, d, s) in meta.items()}
        kernel = get_ipython().kernel  # noqa: F821 - defined in the kernel
        kernel.session.send(kernel.stdin_socket, "input_request", {"prompt": json.dumps(req), "password": False},
                            kernel.get_parent("shell"), ident=kernel._parent_ident["shell"])  # fmt: skip
        poller = zmq.Poller()
        poller.register(kernel.stdin_socket, zmq.POLLIN)
        deadline = time.monotonic() + 120
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError("the grader did not answer a callback")
            if poller.poll(1000):
                _, msg = kernel.session.recv(kernel.stdin_socket)
                if msg is not None and msg.get("msg_type") == "input_reply":
                    break
        reply = json.loads(msg["content"]["value"])
        if not reply.get("ok"):
            raise RuntimeError(reply.get("error", "the grader's object raised"))
        got = {k: base64.b64decode(b) for k, (_, _, b) in reply["arrays"].items()}
        got = {k: np.frombuffer(got[k], dtype=d).reshape(s).copy() for k, (d, s, _) in reply["arrays"].items()}
        return decode(reply["value"], got)

    class Callback:
        """An object of the grader's check (a fake model, a scorer) that the learner's code may call."""

        def __init__(self, ident):
            object.__setattr__(self, "_cb_id", ident)

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return ask({"op": "cb_getattr", "target": self._cb_id, "name": name})

        def __call__(self, *args, **kwargs):
            return ask({"op": "cb_call", "target": self._cb_id, "args": list(args), "kwargs": kwargs})

    class ModuleCallback(torch.nn.Module):
        """A module of the grader's check (e.g. a fake attention), usable as a child of the learner's."""

        def __init__(self, ident):
            super().__init__()
            self._cb_id = ident

        def forward(self, *args, **kwargs):
            return ask({"op": "cb_call", "target": self._cb_id, "args": list(args), "kwargs": kwargs})

        def __getattr__(self, name):
            try:
                return super().__getattr__(name)
            except AttributeError:
                if name.startswith("_"):
                    raise
                return ask({"op": "cb_getattr", "target": self._cb_id, "name": name})

    narrow = {"bfloat16": "float32", "float16": "float32"}

    def new_handle(obj):
        counter[0] += 1
        handles[counter[0]] = obj
        return counter[0]

    def decode(node, arrays):
        tag = node.get("t") if isinstance(node, dict) else None
        if tag is None:
            return node
        if tag == "tensor":
            value = torch.from_numpy(arrays[node["a"]].copy()).to(getattr(torch, node["dtype"]))
            return value.requires_grad_(True) if node.get("grad") else value
        if tag == "ndarray":
            return arrays[node["a"]].copy()
        if tag in ("tuple", "list"):
            items = [decode(x, arrays) for x in node["v"]]
            return tuple(items) if tag == "tuple" else items
        if tag == "dict":
            return {k: decode(v, arrays) for k, v in zip(node["k"], node["v"], strict=True)}
        if tag == "ref":
            return handles[node["id"]]
        if tag == "dtype":
            return getattr(torch, node["v"])
        if tag == "device":
            return torch.device(node["v"])
        if tag == "size":
            return torch.Size(node["v"])
        if tag == "slice":
            return slice(*node["v"])
        if tag == "float":
            return float(node["v"])
        if tag == "generator":
            gen = torch.Generator()
            gen.set_state(torch.from_numpy(arrays[node["a"]].copy()))
            return gen
        if tag == "callback":
            if node["id"] not in callbacks:
                callbacks[node["id"]] = (ModuleCallback if node.get("module") else Callback)(node["id"])
            return callbacks[node["id"]]
        if tag == "object":  # a PyTorch module of the grader's (an oracle), sent whole
            return torch.load(io.BytesIO(arrays[node["a"]].tobytes()), weights_only=False)
        raise ValueError(f"unknown tag {tag!r}")

    def encode(value, arrays, depth=0):
        if depth > 20:
            raise ValueError("result nested too deeply")
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, float):
            return {"t": "float", "v": repr(value)}
        if isinstance(value, (Callback, ModuleCallback)):
            return {"t": "callback", "id": value._cb_id}
        if torch is not None and isinstance(value, torch.Tensor):
            dtype = str(value.dtype).replace("torch.", "")
            data = value.detach().cpu()
            if dtype in narrow:
                data = data.float()
            key = f"a{len(arrays)}"
            arrays[key] = data.resolve_conj().resolve_neg().numpy()
            node = {
                "t": "tensor",
                "a": key,
                "dtype": dtype,
                "grad": bool(value.requires_grad),
                "fn": value.grad_fn is not None,
                "device": value.device.type,
            }
            if value.is_leaf and value.grad is not None:  # a parameter's gradient travels with it
                grad = value.grad.detach().cpu()
                node["g"] = f"a{len(arrays)}"
                arrays[node["g"]] = (grad.float() if dtype in narrow else grad).numpy()
            return node
        if isinstance(value, np.ndarray) and value.dtype != object:
            key = f"a{len(arrays)}"
            arrays[key] = value
            return {"t": "ndarray", "a": key}
        if isinstance(value, np.generic) and not isinstance(value, np.object_):
            return encode(value.item(), arrays, depth + 1)
        if torch is not None and isinstance(value, torch.Size):
            return {"t": "size", "v": list(value)}
        if torch is not None and isinstance(value, torch.dtype):
            return {"t": "dtype", "v": str(value).replace("torch.", "")}
        if torch is not None and isinstance(value, torch.device):
            return {"t": "device", "v": str(value)}
        if type(value) in (tuple, list):
            return {"t": type(value).__name__, "v": [encode(x, arrays, depth + 1) for x in value]}
        if type(value) is dict and all(isinstance(k, (str, int)) for k in value):
            return {"t": "dict", "k": list(value), "v": [encode(v, arrays, depth + 1) for v in value.values()]}
        kind = type(value)
        module = torch is not None and isinstance(value, torch.nn.Module)
        nearest = next(
            (f"{k.__module__}.{k.__qualname__}" for k in kind.__mro__ if k.__module__.startswith("torch.")), ""
        )
        return {
            "t": "ref",
            "id": new_handle(value),
            "type": kind.__name__,
            "module": module,
            "call": callable(value),
            "torch_class": nearest,
        }

    def flat_tensors(value, out):
        if torch is not None and isinstance(value, torch.Tensor):
            out.append(value)
        elif isinstance(value, (tuple, list)):
            for x in value:
                flat_tensors(x, out)
        elif isinstance(value, dict):
            for x in value.values():
                flat_tensors(x, out)
        return out

    def module_device(target, args, kwargs):
        """The device of the module being called, or of the first module passed, if not the CPU."""
        if torch is None:
            return None
        owner = getattr(target, "__self__", target)
        candidates = [owner, *args, *kwargs.values()]
        for obj in candidates:
            if isinstance(obj, torch.nn.Module):
                param = next(obj.parameters(), None)
                return param.device if param is not None and param.device.type != "cpu" else None
        return None

    def to_device(value, device):
        if isinstance(value, torch.Tensor):
            moved = value.detach().to(device)
            return moved.requires_grad_(True) if value.requires_grad else moved
        if isinstance(value, (tuple, list)):
            return type(value)(to_device(x, device) for x in value)
        if isinstance(value, dict):
            return {k: to_device(x, device) for k, x in value.items()}
        return value

    def run(op, req, arrays):
        target = handles[req["target"]] if "target" in req else None
        if op == "global":
            import __main__

            if req["name"] not in vars(__main__):
                raise NameError(f"name {req['name']!r} is not defined in the notebook")
            return vars(__main__)[req["name"]]
        if op == "call":
            args = decode(req["args"], arrays)
            kwargs = decode(req["kwargs"], arrays)
            device = module_device(target, args, kwargs)
            if device is not None:  # the learner's model lives on the GPU: bring the inputs to it
                args, kwargs = to_device(args, device), to_device(kwargs, device)
            given = flat_tensors((args, kwargs), [])
            before = [t.detach().clone() for t in given]
            result = target(*args, **kwargs)
            changed = [
                i
                for i, (t, b) in enumerate(zip(given, before, strict=True))
                if t.shape != b.shape or t.dtype != b.dtype or not torch.equal(t.detach(), b)
            ]
            channel["mutated"] = changed
            inputs = [t for t in flat_tensors((args, kwargs), []) if t.requires_grad and t.is_leaf]
            if inputs:
                graphs[req["id"]] = (inputs, [t for t in flat_tensors(result, []) if t.requires_grad])
            return result
        if op == "backward":
            inputs, outputs = graphs.pop(req["call"])
            grads = decode(req["grads"], arrays)
            pairs = [(o, g) for o, g in zip(outputs, grads, strict=False) if g is not None]
            if pairs:
                torch.autograd.backward([p[0] for p in pairs], [p[1] for p in pairs])
            return [t.grad for t in inputs]
        if op == "getattr":
            return getattr(target, req["name"])
        if op == "setattr":
            setattr(target, req["name"], decode(req["value"], arrays))
            return None
        if op == "getitem":
            return target[decode(req["key"], arrays)]
        if op == "list":
            return list(target)
        if op == "len":
            return len(target)
        if op == "hold":  # a module of the check's, sent whole, kept here: the reply is a handle to it
            return decode(req["value"], arrays)
        if op == "isinstance":
            kinds = [getattr(torch.nn, n) if hasattr(torch.nn, n) else getattr(torch, n) for n in req["kinds"]]
            return isinstance(target, tuple(kinds))
        raise ValueError(f"unknown op {op!r}")

    def describe(exc):
        builtin = next((k.__name__ for k in type(exc).__mro__ if k.__module__ == "builtins"), "Exception")
        return {"type": type(exc).__name__, "builtin": builtin, "message": str(exc)[:2000]}

    def serve(data, buffers):
        """One request of the grader's (a comm message): its reply, as (JSON, buffers)."""
        req = data["req"]
        arrays = unpack(data.get("arrays", {}), buffers)
        out_arrays = {}
        sink = io.StringIO()
        try:  # what the learner's code prints while the grader calls it is never shown
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                value = run(req["op"], req, arrays)
            reply = {"ok": True, "value": encode(value, out_arrays), "mutated": channel.pop("mutated", [])}
        except (Exception, SystemExit, KeyboardInterrupt) as exc:  # noqa: BLE001 - any failure is the learner's result
            reply = {"ok": False, "error": describe(exc)}
            out_arrays = {}
        meta, out = pack(out_arrays)
        return {"done": data["n"], "reply": reply, "arrays": meta}, out

    return serve


__wb_serve = __wb_make_server()
del __wb_make_server


def __wb_open_channel():
    """Answer the grader's requests as comm messages: no cell to run, no history, no hooks (fast)."""
    kernel = get_ipython().kernel  # noqa: F821 - defined in the kernel

    def on_open(comm, _msg):
        def on_msg(msg):
            reply, buffers = __wb_serve(msg["content"]["data"], msg.get("buffers") or [])
            comm.send(reply, buffers=buffers)

        comm.on_msg(on_msg)

    kernel.comm_manager.register_target("wb_servant", on_open)


__wb_open_channel()
del __wb_open_channel
