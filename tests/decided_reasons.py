"""Why each public name an answer may reach is allowed: the reasons tests/decided_api.json records.

A name is allowed for one of three reasons, tried in this order:

1. REVIEWED: a reviewer's reason for a name that looks like a rule's computation, a way to run code or
   start a process (tests/test_decided_api.py requires one for every allowed name matching SENSITIVE).
2. The kernel refuses it: its name belongs to a family of autograder/shipped/refusal.py (the dispatcher's
   operators or the Python composites), so it is allowed by the scan and refused while that rule is checked.
3. Its module's kind of content (MODULES), and for torch and numpy the kind of object (a function is tensor
   math that computes no rule's result; a class or constant holds no computation of its own).
"""

from __future__ import annotations

import importlib
import re

SENSITIVE = re.compile(
    r"norm|adam|attention|attn|clip|optim|export|compile|jit|script|trace|librar|spawn|fork|exec|system|popen"
    r"|process|lrn|response|softmax|wraps",
    re.IGNORECASE,
)
"""Names that need a reviewer's reason to be allowed: they read like a rule's computation or a way out."""

REVIEWED: list[tuple[str, str]] = [
    # (regular expression over "module.name", reason): the first that matches gives the reason
    (
        r"(functools|contextlib)\.wraps",
        "only as written for one function, @functools.wraps(fn): with `assigned` or `updated` it "
        "names the attributes it copies, and that is a perimeter finding (checks/perimeter.py PLAIN_CALL_ONLY)",
    ),
    (
        r"torch\.(Script|LiteScript|JITException|GraphExecutorState|ExecutionPlan|BenchmarkExecutionStats|IODescriptor)\w*",
        "a TorchScript type, exposed for isinstance checks: it compiles nothing (torch.jit, which does, is refused)",
    ),
    (
        r"torch\.fork",
        "TorchScript's fork: runs a function on an inter-op thread of the same process, where the "
        "refusal holds as in the kernel's main thread; no process is started",
    ),
    (
        r"torch\.prepare_multiprocessing_environment",
        "sets a path for shared-memory file names; starts nothing (and the kernel cannot exec a program)",
    ),
    (r"torch\.compiled_with_cxx11_abi", "a build flag: returns a bool"),
    (r"torch\.choose_qparams_optimized", "quantisation parameters (scale, zero point) of one tensor: no rule's result"),
    (r"(torch|numpy)\.trace", "the sum of a matrix's diagonal: no rule's result"),
    (
        r"(torch|numpy)\.clip_?",
        "clamps each element to a range (torch.clamp): not clipping by the global norm, "
        "which scales every gradient by one factor",
    ),
    (
        r"torch\.(norm|frobenius_norm|nuclear_norm|native_norm)",
        "a norm of one tensor: a building block that honest normalisations and clipping use; its result (a number "
        "per slice) is no rule's output. F.normalize, which divides by it, is refused with the normalisations",
    ),
    (r"torch\.set_flush_denormal", "a floating-point mode of the CPU: no rule's result"),
    (r"torch\.normal", "samples from a normal distribution"),
    (
        r"torch\.nn\.functional\.softmax|torch\.softmax",
        "attention's own building block, which the notebooks ask "
        "for by name; attention itself (scaled_dot_product_attention and its kernels) is refused",
    ),
    (
        r"torch\.nn\.(functional\.)?(log_softmax|softmin|Softmax|Softmax2d|LogSoftmax|Softmin|gumbel_softmax|AdaptiveLogSoftmaxWithLoss)",
        "a softmax variant: a building block, not attention",
    ),
    (
        r"torch\.nn\.(Adaptive|Lazy)?.*Norm.*|torch\.nn\.(CrossMapLRN2d|LocalResponseNorm)",
        "a normalisation layer: allowed by the scan in any cell, and refused in the kernel while a normalisation "
        "rule is checked (its operators and Python composite are in the layer_norm / rms_norm families)",
    ),
    (
        r"torch\.nn\.MultiheadAttention|torch\.nn\.functional\.(multi_head_attention_forward|"
        r"scaled_dot_product_attention)",
        "attention itself: refused in the kernel while an attention rule is "
        "checked (family attention), and a rule's own name inside its cells; elsewhere a notebook uses it as an oracle",
    ),
    (r"logging\.(logMultiprocessing|logProcesses)", "a flag: whether log records carry the process name"),
    (
        r"time\.(CLOCK_PROCESS_CPUTIME_ID|process_time(_ns)?)",
        "a clock of this process's CPU time: reads, starts nothing",
    ),
    (r"random\.SystemRandom", "random numbers from the operating system's source: no process, no file opened"),
    (
        r"random\.(lognormvariate|normalvariate)|statistics\.NormalDist",
        "the normal distribution: sampling and its statistics",
    ),
    (r"re\.compile", "compiles a regular expression (a pattern, not Python code)"),
    (r"decimal\.Subnormal", "a decimal signal class"),
    (r"typing\.(MethodDescriptorType|WrapperDescriptorType)", "a type for annotations and isinstance"),
    (r"unicodedata\.(is_normalized|normalize)", "Unicode text normalisation (NFC, NFD): strings only"),
]

MODULES: dict[str, str] = {
    "abc": "abstract base classes: declare interfaces",
    "array": "typed arrays of numbers",
    "base64": "bytes to text and back",
    "bisect": "binary search in sorted lists",
    "calendar": "calendar arithmetic",
    "cmath": "complex scalar math",
    "collections": "containers (deque, Counter, defaultdict, namedtuple's fields are checked by the scan)",
    "collections.abc": "abstract container types, for isinstance and hints",
    "contextlib": "context-manager helpers",
    "copy": "copies of objects (deepcopy's memo argument is a finding)",
    "dataclasses": "data classes of declared fields (make_dataclass, whose field names become code, is refused)",
    "datetime": "dates and times",
    "decimal": "decimal arithmetic",
    "difflib": "sequence differences",
    "enum": "enumerations",
    "fractions": "exact rational numbers",
    "functools": "higher-order functions: caching, partial application, reduce (update_wrapper is refused)",
    "graphlib": "topological sorting",
    "hashlib": "hash digests of bytes",
    "heapq": "heap queues on lists",
    "itertools": "iterator building blocks",
    "json": "JSON text to plain values and back (no object is built from a name)",
    "keyword": "Python's keyword list",
    "logging": "log records to the handlers a logger has (config, handlers and currentframe are refused)",
    "math": "scalar math",
    "numbers": "abstract number types",
    "operator": "operators as functions (attrgetter and methodcaller, which read attributes by name, are refused)",
    "pprint": "pretty printing",
    "queue": "thread-safe queues between threads of the kernel (no process)",
    "random": "pseudo-random numbers",
    "re": "regular expressions",
    "statistics": "descriptive statistics of numbers",
    "string": "string constants and templates (Formatter, whose fields read attributes, is refused)",
    "struct": "bytes to numbers and back",
    "sys": "the interpreter's version and standard streams only (every other name of sys is refused)",
    "textwrap": "text wrapping",
    "time": "clocks and sleeping",
    "typing": "type hints (get_type_hints and ForwardRef, which evaluate strings, are refused)",
    "unicodedata": "the Unicode database",
    "warnings": "warnings",
    "weakref": "weak references",
}
"""What a standard-library module an answer may import is for: why each of its public names is harmless."""

LIBRARY = {
    "function": "tensor math: a building block that computes none of the rules' forbidden results (attention, a "
    "normalisation, Adam/AdamW, clipping by the global norm); those are refused in the kernel by family",
    "class": "a class or type: what its methods compute is held by the kernel's refusal where a rule applies",
    "value": "a constant, dtype or flag: holds no computation",
}


def _kind(module: str, name: str) -> str:
    """'function', 'class' or 'value': what `module.name` is, as installed here."""
    try:
        obj = getattr(importlib.import_module(module), name)
    except Exception:  # noqa: BLE001 - a name another version has: judged as a function, the strictest reading
        return "function"
    if isinstance(obj, type):
        return "class"
    return "function" if callable(obj) else "value"


def _family(name: str) -> str | None:
    """The refusal family whose operators or composites carry this name, if any."""
    from autograder.shipped import refusal

    for family, pattern in refusal.OPERATORS.items():
        if pattern != "(?!)" and re.search(pattern, name):
            return family
    for family, places in refusal.COMPOSITES.items():
        if any(path.split(".")[0] == name for _, path in places):
            return family
    return refusal.FAMILY_OF.get(name)


def reviewed(module: str, name: str) -> str | None:
    """A reviewer's reason for `module.name`, or None."""
    dotted = f"{module}.{name}"
    return next((why for pattern, why in REVIEWED if re.fullmatch(pattern, dotted)), None)


def why(module: str, name: str) -> str:
    """Why `module.name` is allowed (see the module's docstring for the order)."""
    found = reviewed(module, name)
    if found:
        return found
    family = _family(name)
    if family and family != "process":
        return f"refused in the kernel while a {family} rule is checked (autograder/shipped/refusal.py)"
    if module in MODULES:
        return MODULES[module]
    return LIBRARY[_kind(module, name)]
