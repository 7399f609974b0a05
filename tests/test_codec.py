"""The kernel boundary's one format (autograder/shipped/codec.py) and the servant, without a kernel."""

from __future__ import annotations

import ast
import json
import math
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder import paths
from autograder.checks import clock, encoding, link, proxy
from autograder.kernel import wire
from autograder.shipped import codec, servant

LIMITS = wire.WireLimits()

_dtypes = st.sampled_from([torch.float32, torch.float64, torch.int64, torch.int8, torch.bool, torch.bfloat16])
_shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3)


@st.composite
def tensors(draw):
    dtype, shape = draw(_dtypes), draw(_shapes)
    gen = torch.Generator().manual_seed(draw(st.integers(0, 2**31)))
    return (torch.randn(shape, generator=gen) * 10).to(dtype)


_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**62), 2**62),
    st.text(max_size=20),
    st.floats(allow_nan=True, allow_infinity=True),
    tensors(),
    tensors().map(lambda t: t.float().numpy()),
    _shapes.map(torch.Size),
    _dtypes,
    st.sampled_from([torch.device("cpu"), torch.device("cuda:1")]),
    st.tuples(st.none() | st.integers(-5, 5), st.none() | st.integers(-5, 5), st.none() | st.integers(1, 3)).map(
        lambda t: slice(*t)
    ),
)
values = st.recursive(
    _leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=5) | st.integers(0, 9), inner, max_size=4),
    ),
    max_leaves=12,
)


def same(a, b) -> bool:
    """Equal in value and kind (NaN equals NaN; tensors and arrays by dtype, shape and values)."""
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, float):
        return type(b) is float and (a == b or (math.isnan(a) and math.isnan(b)))
    if type(a) in (list, tuple):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is dict:
        return type(b) is dict and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _cross(node: object, arrays: dict) -> tuple[object, dict]:
    """What the other side receives: JSON text and binary buffers, checked on the grader's side."""
    meta, buffers = codec.pack(arrays)
    return json.loads(json.dumps(node)), wire.unpack(json.loads(json.dumps(meta)), buffers, wire.Budget(LIMITS))


@settings(max_examples=150, deadline=None)
@given(values)
def test_every_value_comes_back_as_it_was_sent(value):
    enc = codec.Encoder()
    node, arrays = _cross(enc.encode(value), enc.arrays)
    assert same(value, codec.Decoder(arrays).decode(node))


@settings(max_examples=60, deadline=None)
@given(values)
def test_the_text_form_of_arrays_carries_the_same_values(value):
    enc = codec.Encoder()
    node = enc.encode(value)
    arrays = wire.unpack_text(json.loads(json.dumps(codec.pack_text(enc.arrays))), wire.Budget(LIMITS))
    assert same(value, codec.Decoder(arrays).decode(node))


class _Link:
    """What the grader's decoder needs of a link: the check's callbacks (no kernel)."""

    callbacks: dict = {}


def _ask(serve, req: dict, arrays: dict):
    """One request through the servant and back, as the grader decodes it (no kernel, no transport)."""
    meta, buffers = codec.pack(arrays)
    data = json.loads(json.dumps({"n": 1, "req": {**req, "id": 1}, "arrays": meta}))
    done, out = serve(data, buffers)
    done = json.loads(json.dumps(done))
    reply, got = done["reply"], wire.unpack(done["arrays"], out, wire.Budget(LIMITS))
    if not reply["ok"]:
        raise link.remote_exception(reply["error"])
    return encoding.Decoder(_Link(), got).decode(reply["value"])


def test_the_servant_calls_the_learners_code_on_the_graders_inputs():
    namespace = {"double": lambda x: x * 2, "model": torch.nn.Linear(3, 2)}
    serve = servant.Servant(namespace=namespace).serve
    double = _ask(serve, {"op": "global", "name": "double"}, {})
    assert isinstance(double, proxy.RemoteObject)
    enc = encoding.Encoder({})
    x = torch.arange(6.0).reshape(2, 3)
    out = _ask(
        serve, {"op": "call", "target": double._r_id, "args": enc.encode([x]), "kwargs": enc.encode({})}, enc.arrays
    )
    assert torch.equal(out, x * 2)
    model = _ask(serve, {"op": "global", "name": "model"}, {})
    assert isinstance(model, torch.nn.Linear)  # the learner's object's nearest PyTorch class, looked up here
    weight = _ask(serve, {"op": "getattr", "target": model._r_id, "name": "weight"}, {})
    assert torch.equal(weight.detach(), namespace["model"].weight.detach()) and weight.requires_grad


def test_the_learners_exceptions_come_back_as_builtin_ones():
    def broken(x):
        raise KeyError("no")

    serve = servant.Servant(namespace={"broken": broken}).serve
    handle = _ask(serve, {"op": "global", "name": "broken"}, {})
    with pytest.raises(KeyError, match="no"):
        enc = encoding.Encoder({})
        _ask(serve, {"op": "call", "target": handle._r_id, "args": enc.encode([1]), "kwargs": enc.encode({})}, {})
    with pytest.raises(NameError):
        _ask(serve, {"op": "global", "name": "missing"}, {})


def _backward(serve, handle, inputs: list, grads: list) -> list:
    """A call of the learner's function on inputs that require grad, then its backward with these grads."""
    enc = encoding.Encoder({})
    req = {"op": "call", "target": handle._r_id, "args": enc.encode(inputs), "kwargs": enc.encode({})}
    _ask(serve, req, enc.arrays)
    enc = encoding.Encoder({})
    return _ask(serve, {"op": "backward", "call": 1, "grads": enc.encode(grads)}, enc.arrays)


def test_the_servants_backward_gives_the_inputs_the_gradients_pytorch_does():
    def two_outputs(a, b):
        return (a * b).tanh(), a.exp() @ b.T

    serve = servant.Servant(namespace={"f": two_outputs}).serve
    handle = _ask(serve, {"op": "global", "name": "f"}, {})
    gen = torch.Generator().manual_seed(0)
    a, b = (torch.randn(3, 4, generator=gen, dtype=torch.float64) for _ in range(2))
    grads = [
        torch.randn(3, 4, generator=gen, dtype=torch.float64),
        torch.randn(3, 3, generator=gen, dtype=torch.float64),
    ]
    got = _backward(serve, handle, [a.requires_grad_(), b.requires_grad_()], grads)
    torch.autograd.backward(list(two_outputs(a, b)), grads)
    assert torch.allclose(got[0], a.grad, rtol=0, atol=1e-12) and torch.allclose(got[1], b.grad, rtol=0, atol=1e-12)
    with pytest.raises(RuntimeError, match="shape"):  # a gradient of another shape is refused, never broadcast
        _backward(serve, handle, [a.detach().requires_grad_(), b.detach().requires_grad_()], [grads[0], grads[0]])


def test_every_op_the_grader_sends_has_a_method():
    ops = servant.Servant().ops
    assert all(callable(m) and m.__name__ == f"op_{op}" for op, m in ops.items())
    sources = [(paths.ROOT / "autograder" / "checks" / f"{m}.py").read_text() for m in ("link", "proxy", "bridge")]
    sent = {node.value for s in sources for node in ast.walk(ast.parse(s)) if isinstance(node, ast.Constant)} & {
        "global", "call", "backward", "getattr", "setattr", "getitem", "list", "len", "hold", "isinstance"
    }  # fmt: skip
    assert sent <= set(ops) and len(sent) >= 8


FORGED = [
    {codec.TAG: "pickle", "v": "x"},
    {codec.TAG: codec.TENSOR, codec.ARRAY: "a0", codec.KIND: "object"},
    {codec.TAG: codec.TENSOR, codec.ARRAY: "nope", codec.KIND: "float32"},
    {codec.TAG: codec.DICT, codec.KEYS: [{"a": 1}], codec.VALUE: [1]},
    {codec.TAG: codec.DICT, codec.KEYS: ["a", "b"], codec.VALUE: [1]},
    {codec.TAG: codec.SLICE, codec.VALUE: ["a", None, None]},
    {codec.TAG: codec.SIZE, codec.VALUE: [-1]},
    {codec.TAG: codec.OBJECT, codec.ARRAY: "a0"},  # a pickled module: only the grader sends those
    {codec.TAG: codec.CALLBACK, codec.IDENT: 7},  # a callback the check never offered
    {codec.TAG: codec.LIST, codec.VALUE: "not a list"},
]


@pytest.mark.parametrize("node", FORGED, ids=range(len(FORGED)))
def test_a_forged_reply_is_refused_by_the_grader(node):
    arrays = {"a0": np.zeros(2, dtype=np.float32)}
    with pytest.raises(clock.RemoteError):
        encoding.Decoder(_Link(), arrays).decode(node)


def test_a_reply_nested_deeper_than_the_limit_is_refused():
    node: dict = {codec.TAG: codec.LIST, codec.VALUE: []}
    deep = node
    for _ in range(codec.MAX_DEPTH + 5):
        child = {codec.TAG: codec.LIST, codec.VALUE: []}
        deep[codec.VALUE].append(child)
        deep = child
    with pytest.raises(clock.RemoteError, match="nested too deeply"):
        encoding.Decoder(_Link(), {}).decode(node)


def test_a_device_the_kernel_names_is_only_one_of_the_known_kinds():
    dec = encoding.Decoder(_Link(), {})
    assert dec.decode({codec.TAG: codec.DEVICE, codec.VALUE: "cuda:1"}) == torch.device("cuda:1")
    assert dec.decode({codec.TAG: codec.DEVICE, codec.VALUE: "meta"}) == torch.device("cpu")


# the fork server also imports ipykernel (the kernel it forks) and matplotlib (preloaded for plots);
# inert.py replaces the kernel's tqdm
ALLOWED_IMPORTS = {"torch", "numpy", "zmq", "ipykernel", "matplotlib", "tqdm"} | set(sys.stdlib_module_names)
SIBLINGS = {p.stem for p in paths.SHIPPED.glob("*.py")}  # imported by file name beside them (seccomp)


@pytest.mark.parametrize("path", sorted(paths.SHIPPED.glob("*.py")), ids=lambda p: p.name)
def test_shipped_code_imports_nothing_of_the_graders(path):
    """What runs in another process imports the standard library, numpy, torch, zmq and its siblings only."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # a sibling in shipped/
                continue
            names = [node.module or ""]
        else:
            continue
        assert all(n.split(".")[0] in ALLOWED_IMPORTS | SIBLINGS for n in names), (path.name, names)


def test_the_grade_commands_own_process_imports_no_torch():
    """Only workers import torch (they share its pages, forked from one server): the command stays small."""
    import subprocess

    modules = [
        "run.grade", "gradebook.records", "gradebook.feedback", "run.report", "kernel.launchers", "kernel.wire",
        "submissions.intake", "gradebook.course", "gradebook.coursecache", "scale.merge", "commands.manual", "run.job",
    ]  # fmt: skip
    imports = "".join(f"import autograder.{m}\n" for m in modules)
    code = f"import sys\n{imports}print(sorted(m for m in sys.modules if m.split('.')[0] == 'torch')[:3])"
    out = subprocess.run([sys.executable, "-c", code], cwd=paths.ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_call_back_with_too_many_values_is_refused_before_its_json_is_parsed():
    """Red team (json_amplification): a call's JSON parses into ~16x its bytes in the worker, so its
    objects are counted first; within the byte limit, 30,000 of them are refused, unparsed."""
    kernel = link.KernelLink(None, 1.0, float("inf"))
    bloated = "[" + "{}," * 30_000 + "{}]"
    assert len(bloated) < kernel.budget.limits.callback_bytes
    reply = kernel.desk.answer({"msg_type": "input_request", "content": {"prompt": bloated}})
    assert reply["ok"] is False and "more values" in reply["error"], reply
    assert not kernel.desk.serving


class _Kernel:
    """What the servant's channel uses of an ipykernel Kernel: statuses recorded, a parent per channel."""

    def __init__(self) -> None:
        self.published: list[tuple[str, str]] = []
        self.parent: dict = {}

    def _publish_status(self, state: str, channel: str, parent: dict | None = None) -> None:
        self.published.append((state, (parent or self.parent).get("msg_type", "")))

    def get_parent(self, channel: str = "shell") -> dict:
        return self.parent


def test_no_status_is_published_around_the_graders_requests_only():
    """The servant's comm messages get no busy/idle (the grader waits for the reply); everything else does."""
    kernel = _Kernel()
    servant._quiet_status(kernel, "ours")
    for msg in (
        {"msg_type": "comm_msg", "content": {"comm_id": "ours", "data": {}}},
        {"msg_type": "comm_msg", "content": {"comm_id": "another", "data": {}}},
        {"msg_type": "execute_request", "content": {"code": "1"}},
        {"msg_type": "comm_msg", "content": "not an object"},
    ):
        kernel.parent = msg
        kernel._publish_status("busy", "shell")
        kernel._publish_status("idle", "shell")
    quiet = ("busy", "comm_msg"), ("idle", "comm_msg")
    assert kernel.published == [*quiet, ("busy", "execute_request"), ("idle", "execute_request"), *quiet]


def test_the_kernel_boot_cell_is_boots_function_as_written():
    """Issue 50: the code the kernel runs to define the servant lives in shipped/boot.py; the cell is its function only."""
    text = (paths.SHIPPED / "boot.py").read_text()
    boot = link.boot_source()
    assert boot.startswith("def __wb_boot(files):\n") and boot in text
    cell = link.servant_cell()
    assert cell.startswith(boot + "\n__wb_boot({") and cell.endswith("})\ndel __wb_boot\n")
    assert str(ast.get_docstring(ast.parse(text))) not in cell
    compile(cell, "<servant cell>", "exec")
