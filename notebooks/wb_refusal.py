"""Run by a learner's kernel as it starts, under grading: the built-ins a rule forbids, made to refuse.

A notebook's rule ("implement attention yourself") is held by what the kernel can do, not by
reading the answer: while the grader runs a rule's checks, the computation the rule forbids
is not available in the kernel, by any route (a stash on an object, another cell, a closure).

    aten operators   every operator of the family (the public op, its math, flash, efficient,
                     cudnn and fused variants, found by name in the dispatcher's registry) gets
                     a refusing kernel on every dispatch key it runs under, registered when the
                     grader arms the rule and removed when it disarms it (torch.library), so the
                     original kernels run again untouched.
    Python code      the composites written in Python (nn.MultiheadAttention.forward,
                     F.multi_head_attention_forward, torch.optim.Adam/AdamW and their functional
                     forms, clip_grad_norm_ and friends) are replaced, here, before the learner's
                     first cell, by a function that refuses while their family is armed and calls
                     the original otherwise; the original is held only in that function's closure.

Every refusal is recorded. The controller is published once, as `sys.modules["_wb_refusal"]`,
for the servant to claim when the grader starts it (autograder.shipped.servant.open_channel);
claiming removes it, so a second claim (a learner's, or a planted fake's) finds nothing. Answer
code cannot name any of it without a private name, `sys.modules`, `gc` or a closure, which the
answer scan (autograder.checks.perimeter) reports. The kernel runs this file with `exec` in a
namespace of its own (autograder.kernel.reference.kernel_args): it leaves no name in the learner's.

Learners get the same file as wb_refusal.py beside workbook.py (release copies it): there
workbook.Check.forbidden makes a controller of its own, so that a notebook's visible test refuses
the built-ins as grading will, in JupyterLab, Colab and self_check.py alike.
"""

import re
import sys
import types
import warnings

# family -> the aten operator names it refuses (a regular expression over "aten::name")
OPERATORS = {
    "attention": r"scaled_dot_product|multi_head_attention|flash_attention|efficient_attention"
    r"|transformer_encoder_layer|triton_scaled_dot",
    # one family for every normalisation: rms_norm of the centred input is LayerNorm, layer_norm of [x, -x] RMSNorm
    "norm": r"layer_norm|batch_norm|group_norm|instance_norm|rms_norm|renorm|weight_norm|norm_except_dim",
    "adam": r"fused_adam",
    "clip": r"(?!)",  # written in Python only
    "process": r"(?!)",
}

# family -> the Python composites it refuses: (module, attribute path)
COMPOSITES = {
    "attention": [
        ("torch.nn.functional", "multi_head_attention_forward"),
        ("torch.nn.modules.activation", "MultiheadAttention.forward"),
        ("torch.ao.nn.quantizable.modules.activation", "MultiheadAttention.forward"),
        ("torch.nn.attention.flex_attention", "flex_attention"),
        ("torch.nn.attention.flex_attention", "flex_attention_hop"),  # the higher-order op it calls
    ],
    "norm": [  # a vector scaled to unit norm (times sqrt(D), an eps column: RMSNorm), or divided by its energy
        ("torch.nn.functional", "normalize"),
        ("torch.nn.functional", "local_response_norm"),
        ("torch.nn.modules.normalization", "CrossMapLRN2d.forward"),
    ],
    "adam": [
        ("torch.optim.adam", "Adam.step"),
        ("torch.optim.adamw", "AdamW.step"),
        ("torch.optim.sparse_adam", "SparseAdam.step"),  # on grad.to_sparse(), with eps rescaled: Adam
        ("torch.optim.adam", "adam"),
        ("torch.optim.adamw", "adamw"),
    ],
    "process": [  # armed with every family: a new process would start without the refusal
        ("os", "fork"),
        ("os", "forkpty"),
        ("os", "posix_spawn"),
        ("os", "posix_spawnp"),
        ("os", "system"),
        ("os", "execv"),
        ("os", "execve"),
        ("subprocess", "Popen.__init__"),
        ("multiprocessing.process", "BaseProcess.start"),
    ],
    "clip": [
        ("torch.nn.utils.clip_grad", "clip_grad_norm_"),
        ("torch.nn.utils.clip_grad", "clip_grad_norm"),
        ("torch.nn.utils", "clip_grads_with_norm_"),
        ("torch.nn.utils", "get_total_norm"),
        ("torch.nn.utils.clip_grad", "_clip_grads_with_norm_"),
        ("torch.nn.utils.clip_grad", "_get_total_norm"),
    ],
}

# the names a notebook's rule states (check.forbidden) -> the family each belongs to
FAMILY_OF = {
    "scaled_dot_product_attention": "attention",
    "multi_head_attention_forward": "attention",
    "MultiheadAttention": "attention",
    "_native_multi_head_attention": "attention",
    "_scaled_dot_product_attention_math": "attention",
    "_scaled_dot_product_flash_attention_for_cpu": "attention",
    "_scaled_dot_product_flash_attention": "attention",
    "_scaled_dot_product_efficient_attention": "attention",
    "_scaled_dot_product_cudnn_attention": "attention",
    "layer_norm": "norm",
    "LayerNorm": "norm",
    "native_layer_norm": "norm",
    "batch_norm": "norm",
    "group_norm": "norm",
    "instance_norm": "norm",
    "rms_norm": "norm",
    "RMSNorm": "norm",
    "_fused_rms_norm": "norm",
    "AdamW": "adam",
    "Adam": "adam",
    "adamw": "adam",
    "adam": "adam",
    "_fused_adamw_": "adam",
    "_fused_adam_": "adam",
    "normalize": "norm",
    "local_response_norm": "norm",
    "SparseAdam": "adam",
    "clip_grad_norm_": "clip",
    "clip_grad_norm": "clip",
    "clip_grads_with_norm_": "clip",
    "get_total_norm": "clip",
}

KEYS = (
    "CompositeImplicitAutograd", "CompositeExplicitAutograd", "Autograd", "CPU", "CUDA", "MPS", "XPU",
    "FuncTorchBatched", "FuncTorchBatchedDecomposition", "NestedTensorCPU", "NestedTensorCUDA", "AutogradNestedTensor", "SparseCPU", "SparseCUDA",
    "QuantizedCPU", "QuantizedCUDA",
)  # fmt: skip
"""The dispatch keys a refusing kernel is registered under: whichever one an operator runs under first."""


class Refused(RuntimeError):
    """A call the rule forbids, refused while its checks run."""


def make_controller():
    """The refusal's state and its three operations, all in closures of this function."""
    import torch
    from torch.library import Library

    armed: set[str] = set()
    record: list = []
    held: list = []

    def refuse(family, name):
        record.append(name)
        raise Refused(f"{name} is refused while this check runs: the notebook's rule asks you to write it yourself")

    def operators(family):
        pattern = re.compile(OPERATORS[family])
        names = [n for n in torch._C._dispatch_get_all_op_names() if n.startswith("aten::") and pattern.search(n)]
        return sorted(n[len("aten::") :] for n in names)

    def register(family):
        lib = Library("aten", "IMPL")
        for op in operators(family):
            kernel = _refusing_kernel(refuse, family, op.split(".")[0])
            for key in KEYS:
                try:
                    lib.impl(op, kernel, key)
                except RuntimeError:  # a key this operator may not take a kernel for (or an unknown one)
                    pass
        return lib

    def arm(names):
        """Refuse the families of these rule names until disarm(); the names no family knows are returned."""
        families = {FAMILY_OF[n] for n in names if n in FAMILY_OF}
        families |= {"process"} if families else set()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "overriding a previously registered kernel": that is the point
            for family in sorted(families - armed):
                held.append(register(family))
                armed.add(family)
        return sorted(n for n in names if n not in FAMILY_OF)

    def disarm():
        """Every family runs as before again."""
        while held:
            held.pop()._destroy()
        armed.clear()

    def drain():
        """The names refused since the last drain."""
        out = list(record)
        record.clear()
        return out

    renamed = [
        guarded
        for family, places in COMPOSITES.items()
        for module, path in places
        if (guarded := _guard(module, path, family, armed, refuse)) is not None
    ]
    _rename(renamed)
    _guard_vmap(armed, refuse)
    return types.SimpleNamespace(arm=arm, disarm=disarm, drain=drain)


def _guard_vmap(armed, refuse):
    """torch.vmap's batching rules run an operator's composite kernel in C++, past the refusing ones: while a
    family is armed, a vmapped function runs under a mode that refuses the family's functions by name."""
    import torch
    from torch.overrides import TorchFunctionMode

    original = getattr(torch, "vmap", None)
    if original is None:
        return
    patterns = {family: re.compile(OPERATORS[family]) for family in OPERATORS}

    class RefuseMode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            name = str(getattr(func, "__name__", func))
            for family in armed:
                if patterns[family].search(name):
                    refuse(family, name)
            return func(*args, **(kwargs or {}))

    def vmap(*args, **kwargs):
        batched = original(*args, **kwargs)

        def run(*inputs, **named):
            if not armed - {"process"}:
                return batched(*inputs, **named)
            with RefuseMode():
                return batched(*inputs, **named)

        return run

    vmap.__doc__, vmap.__name__ = original.__doc__, "vmap"
    for other in list(sys.modules.values()):
        try:
            if str(getattr(other, "__name__", "")).startswith("torch") and getattr(other, "vmap", None) is original:
                setattr(other, "vmap", vmap)  # noqa: B010 - any torch module: mypy cannot know which name vmap
        except Exception:  # noqa: BLE001, S110 - a module that will not be read is one that does not name it
            pass


def _refusing_kernel(refuse, family, name):
    def kernel(*args, **kwargs):
        refuse(family, name)

    return kernel


def _guard(module_name, path, family, armed, refuse):
    """Replace a Python composite in its module by a guarded one; (prefix, name, original, guarded) for a function
    that torch's other modules may name too (see _rename), None otherwise."""
    try:
        __import__(module_name)
    except ImportError:
        return None
    owner: object = sys.modules[module_name]
    *parents, attr = path.split(".")
    for part in parents:
        owner = getattr(owner, part, None)
    original = getattr(owner, attr, None) if owner is not None else None
    if original is None:
        return None
    name = path.split(".")[0] if parents else attr

    def guarded(*args, **kwargs):
        if family in armed:
            refuse(family, name)
        return original(*args, **kwargs)

    for field in ("__name__", "__qualname__", "__doc__", "__module__"):
        value = getattr(original, field, None)
        if isinstance(value, str):  # (a higher-order operator's are not all strings)
            setattr(guarded, field, value)
    setattr(owner, attr, guarded)
    if parents:
        return None
    return f"{module_name.split('.')[0]}.", attr, original, guarded


def _rename(renamed):
    """The same functions under other names (torch.nn.utils.clip_grad_norm_, torch.optim._functional): every
    module of the package that holds an original gets its guarded function, in one pass over the modules."""
    for other in list(sys.modules.values()):
        try:
            module_name = str(getattr(other, "__name__", ""))
            names = vars(other)  # its own names only: a module's __getattr__ (torch's lazy ones) is not run
            for prefix, attr, original, guarded in renamed:
                if module_name.startswith(prefix) and names.get(attr) is original:
                    setattr(other, attr, guarded)
        except Exception:  # noqa: BLE001, S110 - a module that will not be read is one that does not name it
            pass


def publish():
    """The controller, as a module the servant claims once."""
    box = [make_controller()]

    def claim():
        sys.modules.pop("_wb_refusal", None)
        return box.pop() if box else None

    module = types.ModuleType("_wb_refusal")
    setattr(module, "claim", claim)  # noqa: B010 - a module made here: its attributes are not declared
    sys.modules["_wb_refusal"] = module


if globals().get("__wb_startup__"):  # the grader's kernel start (reference.kernel_args); a learner's own copy
    publish()  # (wb_refusal.py beside workbook.py, for the notebook's own checks) publishes nothing
