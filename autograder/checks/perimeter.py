"""The perimeter of a "write it yourself" rule: what reading the answers' source judges, in the grader's process.

A notebook's rule is data in its test cell's metadata (`cell_rules`: the names it forbids, the answer
cells it covers, its message), as nbgrader declares grade_id and points. It is held by the job, not by
reading source: while the rule's checks run the kernel refuses the forbidden computation by family
(autograder/shipped/refusal.py), no program can start in the kernel (the no-exec seccomp filter) and
no process of the learner's may run beside it (the harness looks from outside before arming and after).
Reading source keeps only what no honest answer needs, as typed findings (`Finding`, `Kind`):

- PERIMETER, counted against every rule of the notebook wherever it is: private `_` names of other
  objects, `__x__` attributes beyond the plain protocol ones, frame and code attributes, getattr & co.
  with a name that cannot be known (a loop over literal strings can), eval/exec/compile/open/vars and
  their kin, modules off ANSWER_MODULES (os, subprocess, importlib, pickle, gc, ctypes, inspect, ...)
  and the REFUSED paths of listed ones (torch.library, torch.ops, torch.export, torch.jit, torch.load,
  sys.modules, ...) by name or as the same object re-exported, modules passed around as values, star
  imports, IPython's history, patching a library, defining PyTorch's hooks.
- RULE_NAME, counted against the rule only in its cells (and the cells defining or changing a name they
  use, a list root `[fn][0].x = ...` included): the rule's own names, resolved through imports and aliases.

Everything else an answer writes is no finding at all: @functools.wraps(fn), dataclasses, `match`,
`__repr__` with `self.__class__.__name__`, getattr(module, f"{name}_proj") over a literal tuple.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import enum
import functools
import importlib
import importlib.util
import re
import sys
import types
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from autograder.checks import attrnames, pysource


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


BUILTIN_VALUES = _names(
    """
    dir memoryview
    abs all any ascii bin bool bytearray bytes callable chr complex dict divmod enumerate filter float format
    frozenset hash hex int iter len list map max min next object oct ord pow print range repr reversed round
    set slice sorted str sum tuple zip property staticmethod classmethod type aiter anext id
    None True False Ellipsis NotImplemented
    """
)
"""Built-ins an answer may call, pass or store (exception classes too: any BaseException subclass)."""

BUILTIN_CALLS = BUILTIN_VALUES | _names("isinstance issubclass super hasattr getattr setattr")
"""Built-ins an answer may call; getattr, hasattr and setattr only with a literal attribute name."""

DUNDER_ATTRIBUTES = _names("__init__ __name__ __qualname__ __doc__ __class__")
"""The only `__x__` attributes an answer may read (super().__init__, type(x).__name__, ...)."""

MODULE_DUNDERS = _names("__version__ __name__ __doc__")
"""The only `__x__` attributes of a module an answer may read (strings: print(torch.__version__))."""

DUNDER_METHODS = _names(
    """
    __init__ __post_init__ __call__ __repr__ __str__ __len__ __iter__ __next__ __getitem__ __setitem__
    __contains__ __enter__ __exit__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__ __hash__ __bool__
    __add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __matmul__ __rmatmul__ __truediv__ __neg__
    __rtruediv__ __floordiv__ __rfloordiv__ __mod__ __rmod__ __pow__ __rpow__ __divmod__ __rdivmod__
    __and__ __rand__ __or__ __ror__ __xor__ __rxor__ __lshift__ __rlshift__ __rshift__ __rrshift__
    __iadd__ __isub__ __imul__ __imatmul__ __itruediv__ __ifloordiv__ __imod__ __ipow__ __iand__ __ior__
    __ixor__ __ilshift__ __irshift__ __pos__ __abs__ __invert__ __round__ __trunc__ __floor__ __ceil__
    __int__ __float__ __complex__ __index__ __format__ __bytes__ __reversed__ __delitem__ __missing__
    __length_hint__ __aiter__ __anext__ __aenter__ __aexit__ __await__
    """
)
"""The special methods an answer's class may define: not __getattr__, __set_name__, __init_subclass__,
__class_getitem__, descriptors, ... (library code calls those with names or objects it chooses)."""

DUNDER_NAMES = _names("__name__ __debug__ __slots__ __all__ __hash__ __doc__")
"""The only bare `__x__` names an answer may use (not __builtins__, __import__, __loader__, ...)."""

FRAME_ATTRIBUTES = _names(
    """
    gi_frame gi_code gi_yieldfrom cr_frame cr_code cr_await cr_origin ag_frame ag_code ag_await
    f_globals f_locals f_builtins f_back f_code f_trace tb_frame tb_next
    co_code co_consts co_names co_varnames co_filename func_globals
    ctypes cffi mro
    """
)
"""Frame, code, traceback and raw-memory attributes (a generator's frame, an array's ctypes, a class's mro):
ways to the namespaces or to memory from an ordinary object. Never an answer's own attribute."""

CALL_ONLY = _names("copy.deepcopy")
"""Allowed names that may only be called directly, never passed or stored: their arguments are judged
(deepcopy's memo is a finding: it holds the copies' insides)."""

EXCEPTION_OBJECTS = _names("obj")
"""Attributes by which an exception hands back an object (AttributeError.obj: whatever a failed lookup
was on, such as a name some library resolved from a string): a finding unless read as self.obj."""

TORCH_HOOKS = _names("__torch_function__ __torch_dispatch__")
"""Methods PyTorch calls with its own functions (forbidden ones too): an answer may not define them."""

IPYTHON_NAMES = r"_+|_\d+|_i+|_i\d+|_[iod]h|In|Out|get_ipython|exit|quit"
"""IPython's history and shell (a regular expression): earlier outputs can hold any object."""

DEFAULT_GIVEN = """
import math, os, random, re, sys, tempfile, time, warnings, contextlib, weakref, urllib.request
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from collections import defaultdict
from tqdm.auto import tqdm
from workbook import GRADING, Check, calls_to, count_parameters, heatmap, pick_device, scaled, seed_everything
"""
"""What the notebooks' own cells bind for the answers, assumed whatever the notebook's cells say."""


# --- The modules: every public name of these is allowed unless REFUSED says otherwise ---------------------
# tests/test_decided_api.py fails on a name of the installed PyTorch, NumPy or Python that
# tests/decided_api.json does not hold, with why it is allowed (tests/decided_reasons.py).

ANSWER_MODULES = _names(
    """
    torch numpy math cmath random re heapq bisect operator numbers enum abc collections typing functools
    itertools dataclasses copy fractions decimal statistics string textwrap time warnings logging json
    pprint struct array hashlib base64 difflib graphlib datetime calendar unicodedata keyword queue
    contextlib weakref sys matplotlib tqdm workbook __future__
    """
)
"""The modules an answer may import, with their public submodules (less REFUSED). Every other module
(os, subprocess, importlib, pickle, gc, ctypes, inspect, types, threading, IPython, ...) can start a
process, run a string, read memory or a namespace: it could undo the refusal or reach the grader."""

REFUSED = _names(
    """
    torch.ops torch.library torch.overrides torch.compile torch.compiler torch.fx torch.jit torch.package
    torch.hub torch.load torch.serialization torch.from_file torch.multiprocessing torch.distributed torch.export torch.classes
    torch.onnx torch.utils.cpp_extension torch.utils.benchmark torch.utils.model_zoo torch.utils.collect_env
    torch.utils.bottleneck torch.utils.jit torch.utils.mobile_optimizer torch.utils.bundled_inputs
    torch.cuda.jiterator torch.sym_eval
    numpy.load numpy.conftest numpy.ctypeslib numpy.f2py numpy.distutils numpy.lib.format
    numpy.testing.extbuild
    functools.update_wrapper operator.attrgetter operator.methodcaller
    typing.get_type_hints typing.ForwardRef dataclasses.make_dataclass
    logging.currentframe logging.config logging.handlers logging.setLogRecordFactory logging.setLoggerClass
    string.Formatter
    """
)
"""Dotted paths an answer may not reach (a path below one is refused too): they compile or run
strings (torch.jit, torch.fx, torch.utils.benchmark's statements, dataclasses' field names,
typing's string annotations, string.Formatter's field names), load pickles or native code (torch.load and torch.serialization, numpy.load, torch.ops,
cpp_extension, ctypeslib), register kernels or modes over the refusal (torch.library,
torch.overrides), start processes (torch.multiprocessing, torch.distributed), read attributes by
computed names (attrgetter, methodcaller, wraps/update_wrapper), or reach frames (logging.currentframe)."""

REFUSED_BUT = _names("torch.jit.is_scripting torch.jit.is_tracing torch.jit.annotate")
"""Names below a refused path that are plain (TorchScript's guards, assert_close): allowed."""

SYS_NAMES = _names("stdout stderr maxsize float_info version version_info byteorder")
"""sys is refused but for these (its modules, path, frames, hooks and limits lead anywhere)."""

REFUSED_ATTRIBUTES = _names("compile")
"""Attributes of objects the scan cannot name that are refused (nn.Module.compile is torch.compile)."""

MODULE = "<module>"
"""The global scope, one for all answer cells and the notebook's own cells (they share a kernel)."""
ATTRIBUTE_CALLS = {"getattr", "hasattr", "setattr"}
PLAIN_BUILTINS = BUILTIN_CALLS - ATTRIBUTE_CALLS
"""Built-ins a learner may name their own things after (getattr & co. never: they stay judged)."""
PLAIN_CALL_ONLY = frozenset({"functools.wraps"})
"""Allowed only as written for one function: `@functools.wraps(fn)` (wraps' `assigned` and `updated` name the
attributes it copies: any object's __globals__ or __builtins__)."""
PURE = (ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.List, ast.Constant, ast.BinOp, ast.BitOr, ast.Load)


@functools.cache
def _exceptions() -> frozenset[str]:
    """The built-in exception classes (any of them may be raised, caught or passed)."""
    return frozenset(n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException))


@functools.cache
def refused(path: str) -> bool:
    """Whether an answer may not reach the dotted path (it, or a path above it, is REFUSED)."""
    parts = path.split(".")
    if parts[0] == "sys" and len(parts) > 1:
        return parts[1] not in SYS_NAMES
    if path in REFUSED_BUT:
        return False
    return any(".".join(parts[:i]) in REFUSED for i in range(1, len(parts) + 1))


@functools.cache
def _loaded(root: str) -> bool:
    """Import a module of ANSWER_MODULES here (never one an answer names otherwise), to read what it holds."""
    if root not in ANSWER_MODULES or root == "workbook":
        return root in sys.modules
    try:
        importlib.import_module(root)
    except Exception:  # noqa: BLE001 - not installed here: nothing of it is a module
        return False
    return True


def _resolve(path: str) -> object | None:
    """The object at a dotted path, read through modules' own dictionaries only (nothing run), or None."""
    parts = path.split(".")
    if not _loaded(parts[0]):
        return None
    obj: object = sys.modules.get(parts[0])
    for part in parts[1:]:
        if not isinstance(obj, types.ModuleType):
            return None
        obj = sys.modules.get(f"{obj.__name__}.{part}") or vars(obj).get(part)
    return obj


@functools.cache
def _refused_objects() -> dict[int, str]:
    """id -> path of every object a REFUSED member path names (a module's re-export is the same object)."""
    found = {}
    for path in REFUSED:
        obj = _resolve(path)
        if obj is not None and not isinstance(obj, types.ModuleType):
            found[id(obj)] = path
    return found


def same_as(path: str, targets: frozenset[str]) -> bool:
    """Whether the dotted path names the very object one of the targets names (contextlib.wraps is functools.wraps)."""
    if path in targets:
        return True
    obj = _resolve(path)
    return obj is not None and any(obj is _resolve(t) for t in targets)


@functools.cache
def is_module(path: str) -> bool:
    """Whether the dotted path names a module (ANSWER_MODULES and their submodules are imported here to tell)."""
    _loaded(path.split(".")[0])
    parent, _, name = path.rpartition(".")
    if path not in sys.modules and hasattr(sys.modules.get(parent), "__path__") and not refused(path):
        with contextlib.suppress(Exception):  # a submodule of a listed package, not imported yet: what it holds
            if importlib.util.find_spec(path) is not None:
                importlib.import_module(path)
    if path in sys.modules:
        return isinstance(sys.modules[path], types.ModuleType)
    owner = sys.modules.get(parent)
    try:
        return isinstance(owner.__dict__.get(name), types.ModuleType) if owner is not None else False
    except Exception:  # noqa: BLE001 - a module that will not say is no module an answer names
        return False


def _off_list(module: str) -> bool:
    """Whether a module, by its own name, is one no answer may reach (refused, private, or off the list)."""
    parts = module.split(".")
    return refused(module) or parts[0] not in ANSWER_MODULES or any(p.startswith("_") for p in parts)


def _module_name(path: str) -> str:
    """The name a module reached as an attribute goes by (warnings.sys is sys), or the path itself."""
    parent, _, name = path.rpartition(".")
    owner = sys.modules.get(path) or getattr(sys.modules.get(parent), "__dict__", {}).get(name)
    found = getattr(owner, "__name__", None) if isinstance(owner, types.ModuleType) else None
    return found if isinstance(found, str) else path


@dataclass(frozen=True)
class Rule:
    """One rule as it applies to one cell: the names it forbids, and whether the cell is one it covers."""

    names: frozenset[str]
    inside: bool

    def status(self, module: str, name: str) -> str:
        """'forbidden', 'refused', 'module' or 'allowed': what `module.name` is to this rule."""
        there = f"{module}.{name}"
        if name in self.names:
            return "forbidden"
        if refused(there) or id(_resolve(there)) in _refused_objects():
            return "refused"
        return "module" if is_module(there) else "allowed"


_TIMING = re.compile(r"^(\s*)%(time|timeit)(?=\s|$)(.*)$")  # %time stmt, %timeit [-n N -r N ...] stmt
_TIMING_CELL = re.compile(r"^%%(time|timeit)(?=\s|$)(.*)$")
_PLOTS = re.compile(r"^\s*%matplotlib(\s+[\w-]+)?\s*$")
_TIMEIT_VALUES = {"-n", "-r", "-p"}  # %timeit's options that take a value; the others are flags


def _timed(rest: str, timeit: bool) -> str:
    """The statement a %time or %timeit line runs (%timeit's options dropped)."""
    words = rest.split(" ") if timeit else []
    while words and (not words[0] or words[0].startswith("-")):
        words = words[2:] if words[0] in _TIMEIT_VALUES else words[1:]
    return " ".join(words) if timeit else rest.strip()


def _plain_magics(source: str) -> str:
    """The timing and plotting magics honest learners use, as the Python they run: %%time and %%timeit run the
    cell's body, %time/%timeit one statement, %matplotlib nothing. Every other magic is left to IPython."""
    lines = source.split("\n")
    if lines and (cell := _TIMING_CELL.match(lines[0])):
        lines[0] = _timed(cell.group(2), cell.group(1) == "timeit")  # %%timeit's setup statement, or nothing
    for i, line in enumerate(lines):
        if timing := _TIMING.match(line):
            lines[i] = timing.group(1) + _timed(timing.group(3), timing.group(2) == "timeit")
        elif _PLOTS.match(line):
            lines[i] = ""
    return "\n".join(lines)


def _python(source: str) -> str:
    """IPython syntax (magics, shell escapes) as the Python it runs, so that nothing hides behind it."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(_plain_magics(source))


def _children(node: ast.AST) -> Iterator[tuple[ast.AST, bool]]:
    """The node's children, each with whether it runs in the node's own scope (True) or around it."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = node.args
        every = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]
        outside: list[ast.AST] = [
            *a.defaults,
            *(d for d in a.kw_defaults if d),
            *(x.annotation for x in every if x.annotation),
        ]
        if not isinstance(node, ast.Lambda):
            outside += [*node.decorator_list, *([node.returns] if node.returns else []), *_type_params(node)]
        yield from ((n, False) for n in outside)
        body: list[ast.AST] = [*node.body] if isinstance(node.body, list) else [node.body]
        yield from ((n, True) for n in [*every, *body])
    elif isinstance(node, ast.ClassDef):
        yield from ((n, False) for n in [*node.bases, *node.keywords, *node.decorator_list, *_type_params(node)])
        yield from ((n, True) for n in node.body)
    elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        first, *rest = node.generators
        yield first.iter, False
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        yield from ((n, True) for n in [*parts, first.target, *first.ifs, *rest])
    elif not isinstance(node, ast.arg):
        yield from ((n, False) for n in ast.iter_child_nodes(node))


def _type_params(node: ast.AST) -> list[ast.AST]:
    """A generic definition's type parameters (Python 3.12+), judged with what surrounds it."""
    return list(getattr(node, "type_params", []))


def _walk(tree: ast.AST) -> list[tuple[ast.AST, tuple]]:
    """Every node with the scopes around it (MODULE first), without recursion (learner code can nest deep)."""
    out: list[tuple[ast.AST, tuple]] = []
    todo: list[tuple[ast.AST, tuple]] = [(tree, (MODULE,))]
    while todo:
        node, scopes = todo.pop()
        out.append((node, scopes))
        todo += [(child, (*scopes, node) if inner else scopes) for child, inner in _children(node)]
    return out


def _binds(node: ast.AST) -> list[str]:
    """The names a node binds in the scope it runs in."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return [node.id]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return [node.name] if node.name else []
    return [node.rest] if isinstance(node, ast.MatchMapping) and node.rest else []


def _key(scope) -> object:
    """A scope as a dictionary key: MODULE, or the node's id."""
    return scope if scope == MODULE else id(scope)


def _chain(node: ast.AST) -> tuple[ast.AST, list[str]]:
    """The root of an attribute chain and the attributes read from it, in order."""
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    return node, attrs[::-1]


def _root(node: ast.AST | None) -> ast.AST | None:
    """The object at the bottom of `a.b[c].d`."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node


def _literal_name(call: ast.Call) -> str | None:
    """The attribute name of getattr(x, "name", ...), or None when it is computed."""
    if len(call.args) >= 2 and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str):
        return call.args[1].value
    return None


@dataclass
class _Cell:
    """One parsed answer cell: its nodes with their scopes, and each node's parent."""

    cell_id: str
    tree: ast.Module
    nodes: list[tuple[ast.AST, tuple]] = field(default_factory=list)
    parents: dict[int, ast.AST] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Walk the tree once: every node with its scopes, and the parents."""
        self.nodes = _walk(self.tree)
        self.parents = {id(c): p for p in ast.walk(self.tree) for c in ast.iter_child_nodes(p)}


def _imported(node: ast.AST) -> list[tuple[str, str]]:
    """(name, dotted path) for each name an import binds."""
    if isinstance(node, ast.Import):
        return [(a.asname, a.name) if a.asname else (a.name.split(".")[0],) * 2 for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        return [(a.asname or a.name, f"{node.module}.{a.name}") for a in node.names if a.name != "*"]
    return []


def _aliases(node: ast.AST | None, scopes: tuple) -> list[tuple[ast.Name, ast.expr]]:
    """The (name, value) pairs of `name = a.b.c` (outside a class body), the aliases that are followed."""
    if isinstance(scopes[-1], ast.ClassDef) or not isinstance(node, (ast.Assign, ast.AnnAssign)):
        return []
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if not isinstance(node.value, (ast.Name, ast.Attribute)):
        return []
    names = [t for t in targets if isinstance(t, ast.Name)]
    return [(t, node.value) for t in names] if len(names) == len(targets) else []


def _own_attributes(cells: list[_Cell]) -> set[str]:
    """Private attribute names the code itself defines: stored, set, registered, or bound in a class body."""
    names = set()
    for cell in cells:
        for node, scopes in cell.nodes:
            if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                names.add(node.attr)
            elif isinstance(scopes[-1], ast.ClassDef):
                names.update(_binds(node))
            elif isinstance(node, ast.Call) and node.args:
                names.update(_registered(node))
    return {n for n in names if n.startswith("_") and not (n.startswith("__") and n.endswith("__"))}


def _is_setattr(call: ast.Call) -> bool:
    """Whether a call is spelt setattr(...)."""
    return isinstance(call.func, ast.Name) and call.func.id == "setattr"


def _registered(call: ast.Call) -> list[str]:
    """The attribute a call names: setattr(x, "name", v), self.register_buffer("name", t), ..."""
    registers = ("register_buffer", "register_parameter", "add_module", "register_module")
    if _is_setattr(call):
        return [n for n in [_literal_name(call)] if n]
    if isinstance(call.func, ast.Attribute) and call.func.attr in registers:
        first = call.args[0]
        return [first.value] if isinstance(first, ast.Constant) and isinstance(first.value, str) else []
    return []


@dataclass
class _Notebook:
    """What the notebook's own cells give the answers: names, modules and aliases, helpers and what they reach."""

    env: dict[str, set[str]]
    names: set[str]
    helpers: dict[str, tuple[set[tuple[str, ...]], set[str]]]
    private: set[str]


def _parsed(source: str) -> _Cell | None:
    """A cell of the notebook's, parsed, or None."""
    try:
        return _Cell("", pysource.parse(_python(source)))
    except Exception:  # noqa: BLE001 - a notebook cell that is not Python binds nothing
        return None


@functools.lru_cache(maxsize=8)
def _notebook(sources: tuple[str, ...]) -> _Notebook:
    """The notebook's cells (the instructor's, trusted) as the answers see them, with DEFAULT_GIVEN."""
    cells = [c for c in map(_parsed, (DEFAULT_GIVEN, *sources)) if c]
    env: dict[str, set[str]] = {}
    for stmt in (s for c in cells for s in c.tree.body):
        for name, path in _imported(stmt):
            env.setdefault(name, set()).add(path)
        for target, value in _aliases(stmt, (MODULE,)):
            root, attrs = _chain(value)
            paths = {".".join([p, *attrs]) for p in env.get(getattr(root, "id", ""), ())}
            env.setdefault(target.id, set()).update(paths)
    names = {n for c in cells for node, scopes in c.nodes if len(scopes) == 1 for n in _binds(node)}
    helpers = {}
    for stmt in (s for c in cells for s in c.tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))):
        reached, used = _reached(stmt, env)
        helpers.update({n: (reached, used) for n in _binds(stmt) + [t.id for t in _targets(stmt)]})
    return _Notebook(env, names, helpers, _own_attributes(cells))


def _targets(stmt: ast.AST) -> list[ast.Name]:
    """The names an assignment statement binds."""
    targets: list[ast.AST | None] = [*stmt.targets] if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    return [n for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)]


def _reached(stmt: ast.AST, env: dict[str, set[str]]) -> tuple[set[tuple[str, ...]], set[str]]:
    """The dotted paths a statement of the notebook reaches, and the names it reads."""
    reached, used = set(), set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            used.add(node.id)
        if isinstance(node, ast.Attribute):
            root, attrs = _chain(node)
            reached |= {(*p.split("."), *attrs) for p in env.get(getattr(root, "id", ""), ())}
    return reached, used


class _Program:
    """Everything the answer cells bind, in which scope, and which modules their names stand for."""

    def __init__(self, cells: list[_Cell], given: tuple[str, ...]) -> None:
        self.binds: defaultdict[object, set[str]] = defaultdict(set)
        self.globals: defaultdict[object, set[str]] = defaultdict(set)
        self.nonlocals: defaultdict[object, set[str]] = defaultdict(set)
        for node, scopes in (pair for cell in cells for pair in cell.nodes):
            self.binds[_key(scopes[-1])].update(_binds(node))
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                (self.globals if isinstance(node, ast.Global) else self.nonlocals)[_key(scopes[-1])].update(node.names)
        self.nodes = [pair for cell in cells for pair in cell.nodes]
        self.classes = {n.name for n, _ in self.nodes if isinstance(n, ast.ClassDef)}
        self.methods = {  # the answers' plain methods (not static or class methods): self is an instance
            m.name
            for c, _ in self.nodes
            if isinstance(c, ast.ClassDef)
            for m in c.body
            if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
            and not any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in m.decorator_list)
        }
        self._rebound: dict[int, set[str]] = {}
        self.notebook = _notebook(given)
        self.env: defaultdict[object, dict[str, set[str]]] = defaultdict(dict)
        self.env[MODULE] = {name: set(paths) for name, paths in self.notebook.env.items()}
        self._follow(cells)
        self.private = _own_attributes(cells) | self.notebook.private
        self._trees = [c.tree for c in cells]
        self._constants: dict[str, tuple[str, list[str]] | None] = {}
        compares = {"__eq__", "__ne__", "__hash__"}
        self.own_equality = any(  # a str subclass could say "relu" == it and still be "__dict__" to getattr
            {getattr(n, "name", None), getattr(n, "id", None), getattr(n, "attr", None), getattr(n, "value", None)}
            & compares
            for n, _ in self.nodes
        )
        self.parents = {k: v for c in cells for k, v in c.parents.items()}

    def constant(self, name: str, kind: str) -> list[str] | None:
        """The strings of a module-level name of the answers of that kind (attrnames.module_value), else None."""
        if name not in self._constants:  # each name's bindings walked once per program, not once per read
            given = frozenset(self.notebook.names)
            self._constants[name] = attrnames.module_value(name, self._trees, self.parents, given)
        return attrnames.of_kind(self._constants[name], kind)

    def owner(self, name: str, scopes: tuple, load: bool = True) -> object:
        """The scope a name refers to where it is used: the nearest one binding it, else the module.

        A class body reads its own names, or, before it binds them, the enclosing ones and the
        built-ins (`getattr = getattr`): a name read there is judged as the enclosing scope's.
        """
        if name in self.globals[_key(scopes[-1])]:
            return MODULE
        for i in range(len(scopes) - 1, 0, -1):
            key = _key(scopes[i])
            if isinstance(scopes[i], ast.ClassDef) and (i != len(scopes) - 1 or load):
                continue  # a class body's names are not visible in its methods
            if name in self.binds[key] and name not in self.nonlocals[key] | self.globals[key]:
                return key
        return MODULE

    def paths(self, name: str, scopes: tuple) -> set[str]:
        """The dotted paths (modules and their members) a name may stand for where it is used."""
        return self.env[self.owner(name, scopes)].get(name, set())

    def _follow(self, cells: list[_Cell]) -> None:
        """Imports, and plain aliases `name = a.b.c` of what names stand for, to a fixpoint."""
        aliases = []
        for node, scopes in (pair for cell in cells for pair in cell.nodes):
            for name, path in _imported(node):
                self.env[self.owner(name, scopes, load=False)].setdefault(name, set()).add(path)
            aliases += [(target, value, scopes) for target, value in _aliases(node, scopes)]
        for _ in range(8):
            grown = False
            for target, value, scopes in aliases:
                root, attrs = _chain(value)
                paths = (
                    {".".join([p, *attrs]) for p in self.paths(root.id, scopes)}
                    if isinstance(root, ast.Name)
                    else set()
                )
                slot = self.env[self.owner(target.id, scopes, load=False)].setdefault(target.id, set())
                grown |= not paths <= slot
                slot |= paths
            if not grown:
                return

    def rebound(self, method: ast.AST) -> set[str]:
        """The names bound anywhere inside `method` other than by its own parameters (self = x, nonlocal self)."""
        if id(method) not in self._rebound:
            own_args = {id(a) for a in ast.walk(method.args)} if hasattr(method, "args") else set()
            names: set[str] = set()
            for node, scopes in self.nodes:
                if any(s is method for s in scopes) and id(node) not in own_args:
                    names.update(_binds(node))
                    if isinstance(node, (ast.Global, ast.Nonlocal)):
                        names.update(node.names)
            self._rebound[id(method)] = names
        return self._rebound[id(method)]

    def is_builtin(self, name: str, scopes: tuple) -> bool:
        """Whether a name is the built-in: not the learner's own (a built-in a rule cares about is never)."""
        if self.owner(name, scopes) != MODULE or not hasattr(builtins, name):
            return False
        own = name in self.binds[MODULE] or name in self.notebook.names
        return not own or name not in PLAIN_BUILTINS | _exceptions()

    def reach(self, name: str) -> set[tuple[str, ...]]:
        """What a helper of the notebook reaches, through the other helpers it uses."""
        seen, todo, out = set(), [name], set()
        while todo:
            helper = todo.pop()
            if helper in seen or helper not in self.notebook.helpers:
                continue
            seen.add(helper)
            reached, used = self.notebook.helpers[helper]
            out |= reached
            todo += used
        return out


class _Judge:
    """The findings of one rule in one answer cell."""

    def __init__(self, program: _Program, cell: _Cell, rule: Rule) -> None:
        self.program, self.cell, self.rule = program, cell, rule
        self.mentioned = self._mentions()

    def findings(self) -> list[tuple[int, str]]:
        """(line, what) for everything the rule finds in the cell."""
        found = []
        for node, scopes in self.cell.nodes:
            found += [(getattr(node, "lineno", 0), what) for what in self._node(node, scopes) if what]
        return found

    def _node(self, node: ast.AST, scopes: tuple) -> list[str | None]:
        """What is wrong with one node: the names it binds, its import, its chain of attributes."""
        rebinds = [self._rebinds(n, scopes) for n in _binds(node)] if not isinstance(node, ast.Name) else []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(scopes[-1], ast.ClassDef):
            name = node.name
            if name.startswith("__") and name.endswith("__") and name not in DUNDER_METHODS:
                rebinds.append(f"defines {name} (library code calls it with names or objects it chooses)")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return rebinds + self._import(node)
        parent = self.cell.parents.get(id(node))
        if isinstance(node, (ast.Name, ast.Attribute)) and not (
            isinstance(parent, ast.Attribute) and parent.value is node
        ):
            return self._chain(node, scopes)
        if isinstance(node, ast.Call) and self._deepcopy_memo(node, scopes):
            return rebinds + ["passes a memo to copy.deepcopy (it holds the copies' insides, a tensor's storage)"]
        if isinstance(node, ast.MatchClass):  # `case C(attr=x)` reads x.attr (of any object: not its own)
            return rebinds + [self._attribute(a, False, False, False) for a in node.kwd_attrs]
        return rebinds

    def _mentions(self) -> set[int]:
        """The nodes only mentioned, never called: plain type annotations, the classes of isinstance/issubclass."""
        roots = []
        for node, scopes in self.cell.nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                every = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]
                roots += [x.annotation for x in every] + [node.returns]
            elif isinstance(node, (ast.AnnAssign, ast.MatchClass)):  # `case nn.LayerNorm():` is an isinstance
                roots.append(node.annotation if isinstance(node, ast.AnnAssign) else node.cls)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 2:
                if node.func.id in ("isinstance", "issubclass") and self.program.is_builtin(node.func.id, scopes):
                    roots.append(node.args[1])
        pure = [r for r in roots if r is not None and all(isinstance(n, PURE) for n in ast.walk(r))]
        return {id(n) for r in pure for n in ast.walk(r)}

    def _position(self, node: ast.AST, scopes: tuple) -> str:
        """How an expression's value is used: 'store', 'mention', 'call', 'alias' (followed) or 'value'."""
        parent = self.cell.parents.get(id(node))
        if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
            return "store"
        if id(node) in self.mentioned:
            return "mention"
        if isinstance(parent, ast.Call) and parent.func is node:
            return "call"
        return "alias" if any(value is node for _, value in _aliases(parent, scopes)) else "value"

    def _attribute_call(self, node: ast.AST, scopes: tuple) -> ast.Call | None:
        """The getattr/hasattr/setattr(node, ...) call whose object node is, if any."""
        call = self.cell.parents.get(id(node))
        if not (isinstance(call, ast.Call) and call.args and call.args[0] is node):
            return None
        name = call.func.id if isinstance(call.func, ast.Name) else ""
        return call if name in ATTRIBUTE_CALLS and self.program.is_builtin(name, scopes) else None

    def _chain(self, node: ast.AST, scopes: tuple) -> list[str | None]:
        """An expression `root.a.b` (or getattr(root.a, "b")): what it reaches, and how it is used."""
        root, attrs = _chain(node)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            return [self._rebinds(node.id, scopes, assigned=True)]
        position, call = self._position(node, scopes), self._attribute_call(node, scopes)
        called = call.func.id if call and isinstance(call.func, ast.Name) else ""
        if call and called == "setattr":  # setattr(x, name, v) changes x, whatever the name
            attrs, position = attrs + [n for n in [_literal_name(call)] if n], "store"
        elif call and (names := self._names_read(call, scopes)):  # getattr(x, "name") reads x.name
            used = "mention" if called == "hasattr" else self._position(call, scopes).replace("alias", "value")
            return [f for name in names for f in self._reached(node, root, [*attrs, name], used, scopes)]
        return self._reached(node, root, attrs, position, scopes)

    def _names_read(self, call: ast.Call, scopes: tuple) -> list[str]:
        """The attribute names getattr(x, name) can read: its literal, or each string a pinned name can be."""
        if literal := _literal_name(call):
            return [literal]
        known = attrnames.Known(
            builtin=functools.partial(self.program.is_builtin, scopes=scopes),
            sequence=functools.partial(self.program.constant, kind="sequence"),
            string=functools.partial(self.program.constant, kind="string"),
            own_equality=self.program.own_equality,
            scopes=scopes,
            parents=self.program.parents,
        )
        values = attrnames.possible_names(call.args[1], scopes[-1], known) if len(call.args) >= 2 else None
        return sorted(values or [])

    def _reached(
        self, node: ast.AST, root: ast.AST, attrs: list[str], position: str, scopes: tuple
    ) -> list[str | None]:
        """What `root.a.b` reaches, used so (`_chain`'s second half)."""
        via_class = [
            b for a, b in zip(attrs, attrs[1:], strict=False) if a == "__class__" and b in self.program.methods
        ]
        if via_class or (attrs and self._unbound(root, attrs[0], scopes)):
            method = (via_class or attrs)[0]
            return [f"reads the method .{method} off its class (called so, its self is any object)"]
        if isinstance(root, ast.Name) and self.program.paths(root.id, scopes):
            paths = sorted(self.program.paths(root.id, scopes))
            if any(same_as(".".join([p, *attrs]), PLAIN_CALL_ONLY) for p in paths):
                return [self._plain_call(node, ".".join([paths[0], *attrs]), position)]
            return [self._path([*p.split("."), *attrs], position) for p in paths]
        found = [self._name(root, scopes, position if not attrs else "value")] if isinstance(root, ast.Name) else []
        if position == "store" and attrs and isinstance(root, ast.Call):
            found.append("assigns an attribute of a computed object (type(x).name = ...)")
        return found + self._attributes(attrs, position, own=self._is_self(root, scopes))

    def _plain_call(self, node: ast.AST, path: str, position: str) -> str | None:
        """functools.wraps(fn) as a decorator: one argument, nothing else (its `assigned`/`updated` name attributes)."""
        call = self.cell.parents.get(id(node))
        if position in ("import", "mention"):
            return None
        if position == "call" and isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords:
            return None if not isinstance(call.args[0], ast.Starred) else f"passes {path} a starred argument"
        return f"uses {path} other than as a decorator of one function (its other arguments name attributes)"

    def _deepcopy_memo(self, call: ast.Call, scopes: tuple) -> bool:
        """copy.deepcopy(x, memo): the memo it fills holds what it copied along the way (a storage's `type(name)`
        then resolves any dotted name)."""
        root, attrs = _chain(call.func)
        if not isinstance(root, ast.Name):
            return False
        called = {".".join([p, *attrs]) for p in self.program.paths(root.id, scopes)}
        return "copy.deepcopy" in called and (len(call.args) > 1 or any(k.arg in ("memo", None) for k in call.keywords))

    def _unbound(self, root: ast.AST, attr: str, scopes: tuple) -> bool:
        """`C.m`, `type(x).m` or `x.__class__.m` for a plain method m of the answers' classes: self unbound.

        A private name is the answer's own only as self._name (`_is_self`); a method read off its
        class can be called with any object as self.
        """
        if attr not in self.program.methods:
            return False
        if isinstance(root, ast.Name):
            return root.id in self.program.classes and self.program.owner(root.id, scopes) == MODULE
        return isinstance(root, ast.Call) and isinstance(root.func, ast.Name) and root.func.id == "type"

    def _is_self(self, root: ast.AST, scopes: tuple) -> bool:
        """Whether `root` is the instance (self, cls) of a method of a class the answers define, never rebound.

        Only there is a private attribute the answers define their own: on any other object the
        same name may be a library's (a ForwardRef's `_evaluate`, a proxy's `_cb`) and lead anywhere.
        """
        method = next(
            (scopes[i] for i in range(len(scopes) - 1, 0, -1) if isinstance(scopes[i - 1], ast.ClassDef)), None
        )
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not isinstance(root, ast.Name):
            return False
        first = [*method.args.posonlyargs, *method.args.args][:1]
        plain = not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list)
        if not (first and plain and root.id == first[0].arg and self.program.owner(root.id, scopes) == id(method)):
            return False
        return root.id not in self.program.rebound(method)

    def _path(self, parts: list[str], position: str) -> str | None:
        """What is wrong with reaching the dotted path `parts`, used at `position`, or None."""
        here = parts[0]
        if here not in ANSWER_MODULES:
            if len(parts) > 1:
                return f"reaches {here}.{parts[1]}, which no answer may use"
            return f"imports {here}, which no answer may use" if position == "import" else self._module(here, position)
        state, i = "module", 1
        while state == "module" and i < len(parts):
            there = f"{here}.{parts[i]}"
            if parts[i] in MODULE_DUNDERS:  # a string: nothing may be read from it, nor written
                plain = i == len(parts) - 1 and position != "store"
                return None if plain else f"reaches {'.'.join(parts)} ({position}), which no answer may use"
            if parts[i].startswith("_"):
                return f"reaches {there}, a private name no answer may use"
            state = self.rule.status(here, parts[i])
            excepted = ".".join(parts[: i + 2]) in REFUSED_BUT  # torch.jit.is_scripting
            if state == "refused" and not excepted:
                return f"reaches {there}, which no answer may use (it could undo the grader's checks or reach them)"
            state = "module" if excepted else state
            here, i = (_module_name(there) if state == "module" else there), i + 1
            if not excepted and (state == "module" and _off_list(here) or here.split(".")[0] not in ANSWER_MODULES):
                return f"reaches {there} (the module {here}), which no answer may use"  # torch.os, warnings.sys
        if state == "module":
            return self._module(here, position)
        if position == "store":
            return f"assigns to {'.'.join(parts)} (patches a library)"
        return next((f for f in self._attributes(parts[i:], position, own=False) if f), None) or self._leaf(
            here, state, position
        )

    def _module(self, path: str, position: str) -> str | None:
        """A module itself: attributes may be read from it, or it may be named again; nothing else."""
        if position == "store":
            return f"assigns to {path} (patches a library)"
        if position in ("call", "alias", "import", "mention"):
            return None
        return f"passes the module {path} around (what is reached through it cannot be judged)"

    def _leaf(self, path: str, state: str, position: str) -> str | None:
        """A member of a module: allowed, or the rule's own name inside the rule's cells."""
        if path in CALL_ONLY and position not in ("call", "import", "mention"):
            return f"passes {path} around (it may only be called, so that what it is given is seen)"
        if state == "forbidden" and self.rule.inside and position != "mention":
            return f"uses the forbidden built-in {path}"
        return None

    def _attributes(self, attrs: list[str], position: str, own: bool) -> list[str | None]:
        """Each attribute of a chain judged (the last one is what is called or stored)."""
        last = len(attrs) - 1
        return [  # `own` is the root's: only its first attribute is read from it (self._x, not self._x._y)
            self._attribute(a, own and j == 0, position == "call" and j == last, position == "store", j == last)
            for j, a in enumerate(attrs)
        ]

    def _attribute(self, attr: str, own: bool, called: bool, store: bool, last: bool = True) -> str | None:
        """What is wrong with reading (or setting) `.attr` of an object the scan cannot name, or None."""
        if attr in FRAME_ATTRIBUTES:
            return f"uses .{attr} (frame or code access)"
        if attr in REFUSED_ATTRIBUTES and not (own and attr in self.program.methods):
            return f"uses .{attr} (it compiles the code, which then runs where the grader's checks cannot see it)"
        if attr in EXCEPTION_OBJECTS and not own:
            return f"uses .{attr} (what an exception holds: any object, a resolved name)"
        if attr.startswith("__") and attr.endswith("__"):
            plain = attr in DUNDER_ATTRIBUTES | DUNDER_METHODS and not store
            return None if plain else f"uses .{attr} (namespace, frame or code access)"
        if attr.startswith("_"):
            if own and attr in self.program.private:
                return None
            return f"uses .{attr}, a private name (answers may use only their own, as self.{attr} in their class)"
        if store and last:
            return None
        if attr in self.rule.names and self.rule.inside:
            return f"uses the forbidden built-in .{attr}"
        return None

    def _name(self, node: ast.Name, scopes: tuple, position: str) -> str | None:
        """A global name read that stands for no module: a built-in, IPython's, a dunder, a notebook helper."""
        name = node.id
        if self.program.owner(name, scopes) != MODULE:
            return None
        if re.fullmatch(IPYTHON_NAMES, name):
            return f"uses {name} (IPython's history and shell)"
        if name.startswith("__") and name.endswith("__"):
            return None if name in DUNDER_NAMES else f"uses {name} (namespace access)"
        if self.program.is_builtin(name, scopes):
            return self._builtin(name, position, self.cell.parents.get(id(node)), scopes)
        return self._helper(name) if name not in self.program.binds[MODULE] else None

    def _rebinds(self, name: str, scopes: tuple, assigned: bool = False) -> str | None:
        """A global name bound: a built-in a rule cares about, or a dunder, may not be; nor a torch hook, anywhere.

        A dunder assigned (not a method defined) is a finding in any scope: in a class body,
        `__annotations__ = {...}` hands dataclasses field "names" that it pastes into code it execs.
        """
        if name in TORCH_HOOKS:
            return f"defines {name} (PyTorch calls it with its own functions, forbidden ones too)"
        if assigned and name.startswith("__") and name.endswith("__") and name not in DUNDER_NAMES:
            return f"binds {name} (namespace access)"
        if self.program.owner(name, scopes, load=False) != MODULE:
            return None
        if name.startswith("__") and name.endswith("__") and name not in DUNDER_NAMES:
            return f"binds {name} (namespace access)"
        if hasattr(builtins, name) and name not in PLAIN_BUILTINS | _exceptions():
            return f"rebinds the built-in {name} (the built-in stays reachable around the name)"
        return None

    def _computed_name(self, name: str, call: ast.Call, scopes: tuple) -> str | None:
        """getattr(x, f"{n}_proj") with n looping over literal strings: each name it can be, judged as written."""
        values = self._names_read(call, scopes)
        if not values:
            return f"calls {name}() with a computed attribute name"
        return next((what for v in values if (what := self._attribute(v, False, False, False))), None)

    def _builtin(self, name: str, position: str, parent: ast.AST | None, scopes: tuple) -> str | None:
        """A built-in: the plain ones may be called or passed; getattr & co. only with a literal name."""
        if name == "type" and position == "call" and isinstance(parent, ast.Call):
            if len(parent.args) + len(parent.keywords) != 1:
                return "calls type() to make a class from a dict (its keys are names nothing checks)"
        if name in BUILTIN_VALUES or name in _exceptions():
            return None
        if position == "call" and name in BUILTIN_CALLS and isinstance(parent, ast.Call):
            if name in ("getattr", "hasattr") and not _literal_name(parent):
                return self._computed_name(name, parent, scopes)
            if name == "setattr" and parent.args and isinstance(_root(parent.args[0]), ast.Call):
                return "assigns an attribute of a computed object (setattr(type(x), ...))"
            return None
        if position == "call":
            return f"calls {name}(), which no answer may use (it reaches names from strings, frames or files)"
        return f"uses the built-in {name} as a value (passed or stored, it could reach a forbidden built-in)"

    def _helper(self, name: str) -> str | None:
        """A helper of the notebook's own cells, used where the rule applies: what it reaches counts."""
        if not self.rule.inside:
            return None
        for parts in sorted(self.program.reach(name)):
            what = self._path(list(parts), "call") if parts[0] == "torch" else None
            if what:
                return f"uses the notebook's {name}, which {what}"
        return None

    def _import(self, node: ast.Import | ast.ImportFrom) -> list[str | None]:
        """An import: each module and name it binds must be on the list (no star, nothing relative)."""
        if isinstance(node, ast.Import):
            return [self._path(a.name.split("."), "import") for a in node.names]
        if node.level or not node.module:
            return ["a relative import (what it binds cannot be judged)"]
        if any(a.name == "*" for a in node.names):
            return [f"star-imports from {node.module} (the names it binds cannot be judged)"]
        return [self._path([*node.module.split("."), a.name], "import") for a in node.names]


@functools.lru_cache(maxsize=128)
def _answer_cell(cell_id: str, source: str) -> _Cell:
    """An answer cell parsed once (each rule of each test scans the same cells; nothing changes them)."""
    return _Cell(cell_id, pysource.parse(_python(source)))


def _mutated(node: ast.AST) -> ast.AST | None:
    """The object a node may change: an attribute or item store's, a method's own, setattr's first argument."""
    if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.value
    return node.args[0] if isinstance(node, ast.Call) and _is_setattr(node) and node.args else None


def _defined(program: _Program, cell: _Cell) -> set[str]:
    """The global names a cell binds, and those of the objects it may change (not modules)."""
    names = {n for node, scopes in cell.nodes if len(scopes) == 1 for n in _binds(node)}
    for node, scopes in cell.nodes:
        for root in _roots(_mutated(node)):
            if program.owner(root.id, scopes) == MODULE:
                names |= set() if program.paths(root.id, scopes) else {root.id}
    return names


def _roots(node: ast.AST | None) -> list[ast.Name]:
    """The names an object being changed may be: `a` of `a.b[c].d`, and each element of a display at its bottom
    (`[fn][0]`, `(fn,)[0]`, `{0: fn}[0]`), which hands the same object on."""
    root = _root(node)
    if isinstance(root, ast.Name):
        return [root]
    if isinstance(root, (ast.List, ast.Tuple, ast.Set)):
        return [n for e in root.elts for n in _roots(e.value if isinstance(e, ast.Starred) else e)]
    if isinstance(root, ast.Dict):
        return [n for e in root.values for n in _roots(e)]
    return []


def _in_scope(program: _Program, cells: dict[str, _Cell], named: list[str]) -> set[str]:
    """The cells named, and every answer cell defining or changing a name they use or define (transitively)."""
    defines = {cell_id: _defined(program, cell) for cell_id, cell in cells.items()}
    scope, todo = set(), [c for c in named if c in cells]
    while todo:
        cell_id = todo.pop()
        if cell_id in scope:
            continue
        scope.add(cell_id)
        used = _reached_by_calls(program, cells[cell_id])
        todo += [other for other, names in defines.items() if other not in scope and names & used]
    return scope


def _reached_by_calls(program: _Program, cell: _Cell) -> set[str]:
    """The names the rule's checks can reach through a cell: those read inside its functions and classes, and
    the functions and classes it defines (a function's own locals aside). A name only its top-level code reads (a demo's `x = torch.randn(...)`)
    runs when the cell does, not while the checks call the answer: another cell binding it is not pulled in."""
    used = {
        node.id
        for node, scopes in cell.nodes
        if len(scopes) > 1 and isinstance(node, ast.Name) and program.owner(node.id, scopes) == MODULE
    }
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return used | {node.name for node, scopes in cell.nodes if len(scopes) == 1 and isinstance(node, defs)}


class Kind(enum.Enum):
    """What a finding is, and so where it counts."""

    RULE_NAME = "rule name"  # the rule's own built-in named in the rule's cells: counts against that rule
    PERIMETER = "perimeter"  # a way around the refusal or to the grader: counts against every rule, anywhere
    UNREADABLE = "unreadable"  # an answer cell whose source could not be parsed, so not judged


@dataclass(frozen=True)
class Finding:
    """One thing the scan found in one answer cell."""

    kind: Kind
    cell: str
    line: int
    what: str

    def __str__(self) -> str:
        if self.kind is Kind.UNREADABLE:
            return f"answer cell {self.cell!r}: {self.what}"
        return f"answer cell {self.cell!r}, line {self.line}: {self.what}"


RULE_NAME_FINDINGS = ("uses the forbidden built-in", "uses the notebook's ")
"""How the findings about a rule's own names begin (_leaf, _attribute, _helper): only inside the rule's cells."""


def findings(
    sources: dict[str, str], forbidden: list[str], cells: list[str] | None = None, given: list[str] | None = None
) -> list[Finding]:
    """Everything that counts against a rule in the answer cells (grade_id -> source), as typed findings.

    forbidden: the rule's names. cells: the answer cells (grade ids) the rule covers; with them,
    every answer cell defining or changing a name they use (None: every answer cell). The rule's
    own names are findings there only; a way around the kernel's refusal or to the grader (private
    and frame access, computed names, modules off the list, eval and its kin) is one in any answer
    cell, since no honest answer has one. given: the notebook's other code cells' sources.
    """
    found: list[Finding] = []
    parsed: dict[str, _Cell] = {}
    for cell_id, source in sources.items():
        try:
            parsed[cell_id] = _answer_cell(cell_id, source)
        except Exception:  # noqa: BLE001 - whatever the parser makes of it, it could not be checked
            found.append(
                Finding(Kind.UNREADABLE, cell_id, 0, "its source could not be parsed, so it could not be checked")
            )
    program = _Program(list(parsed.values()), tuple(given or ()))
    scope = set(parsed) if cells is None else _in_scope(program, parsed, list(cells))
    for cell_id, cell in parsed.items():
        judged = _Judge(program, cell, Rule(frozenset(forbidden), cell_id in scope)).findings()
        for line, what in sorted(set(judged)):
            kind = Kind.RULE_NAME if what.startswith(RULE_NAME_FINDINGS) else Kind.PERIMETER
            found.append(Finding(kind, cell_id, line, what))
    return found


def scan(
    sources: dict[str, str], forbidden: list[str], cells: list[str] | None = None, given: list[str] | None = None
) -> list[str]:
    """The findings that count against a rule, as text (see findings)."""
    return [str(f) for f in findings(sources, forbidden, cells, given)]


@dataclass(frozen=True)
class StatedRule:
    """One `check.forbidden(key, names, message, cells=[...])` of a test cell."""

    names: list[str]
    cells: list[str] | None
    message: str


RULES_KEY = "workbook"
"""The test cell's metadata key holding its rules: {"rules": [{"forbids": [...], "cells": [...], "message": "..."}]},
declared as nbgrader declares grade_id and points (tests/test_perimeter.py: it agrees with the cell's
check.forbidden, which runs the same rule in the learner's own notebook)."""


def cell_rules(cell: dict) -> list[StatedRule]:
    """The rules a test cell declares in its metadata (none: a cell without a rule)."""
    declared = cell.get("metadata", {}).get(RULES_KEY, {}).get("rules", [])
    return [
        StatedRule([str(n) for n in r["forbids"]], None if r.get("cells") is None else [str(c) for c in r["cells"]],
                   str(r.get("message", "a built-in the rule forbids")))
        for r in declared
    ]  # fmt: skip


def stated_rules(source: str) -> list[StatedRule]:
    """The rules a test cell states: its `check.forbidden(key, [...], msg, cells=[...])` calls."""
    rules = []
    for node in ast.walk(pysource.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "forbidden":
            with contextlib.suppress(ValueError, IndexError, TypeError, SyntaxError):
                cells = next((kw.value for kw in node.keywords if kw.arg == "cells"), None)
                cells = cells if cells is not None else (node.args[3] if len(node.args) > 3 else None)
                names = [str(n) for n in ast.literal_eval(node.args[1])]
                message = str(ast.literal_eval(node.args[2])) if len(node.args) > 2 else "a built-in the rule forbids"
                rules.append(
                    StatedRule(names, None if cells is None else [str(c) for c in ast.literal_eval(cells)], message)
                )
    return rules
