"""Learner-side helpers for the workbook notebooks: device, seeds, grading mode and checks.

This file is copied next to every student notebook (and fetched by the Colab setup
cell). It holds nothing a learner is asked to implement.

Checks compare what the learner's code produced with what it should be, and say what is
wrong. In a learner's notebook they run the visible tests. Under grading the same test
cells, hidden checks included, run in the grader's own process, which calls the
learner's code in their kernel: nothing done inside the kernel can turn a wrong answer
into a pass.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import re
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np

try:  # torch is optional so that the grader can import this module cheaply
    import torch
except ImportError:  # pragma: no cover
    torch = None  # type: ignore[assignment]  # optional: importing this needs no torch

GRADING = os.environ.get("WORKBOOK_GRADING") == "1"
__version__ = "0.1.0"  # the workbook's release (pyproject.toml's); each notebook's setup cell names the one it needs
TORCH_FLOOR = (2, 13)  # requirements-learner.txt's torch floor
PYTHON_FLOOR = (3, 11)  # pyproject.toml's requires-python
"""True when the autograder runs the notebook: training cells use a small configuration."""

_KEY = re.compile(r"^[A-Za-z0-9_.-]{1,80}$")

# Without ipywidgets (requirements-learner.txt lists it) tqdm.auto falls back to its text bar,
# which is all a training loop needs: its TqdmWarning would only alarm a learner.
warnings.filterwarnings("ignore", message="IProgress not found")


def _release(text: str) -> tuple[int, ...]:
    """The leading numbers of a version string ("2.13.0+cpu" -> (2, 13, 0))."""
    return tuple(int(part) for part in re.findall(r"\d+", text.split("+")[0])[:3])


def environment_problems(torch_version: str | None = None, python: tuple[int, ...] | None = None) -> list[str]:
    """One line per thing older than the workbook needs (torch, Python), each with its fix."""
    import sys  # here, not at the top: the module's attributes stay what answers could reach before

    torch_version = torch_version or (torch.__version__ if torch is not None else "0")
    python = python or tuple(sys.version_info[:2])
    floor = ".".join(map(str, TORCH_FLOOR))
    problems = []
    if _release(torch_version)[:2] < TORCH_FLOOR:
        problems.append(
            f"torch {torch_version} is older than this workbook needs ({floor}): "
            f'run  %pip install -U "torch>={floor}"  then restart the kernel (Colab: Runtime > Restart session)'
        )
    if tuple(python[:2]) < PYTHON_FLOOR:
        needed = ".".join(map(str, PYTHON_FLOOR))
        problems.append(
            f"Python {'.'.join(map(str, python[:2]))} is older than this workbook needs ({needed}): "
            f"start JupyterLab from a Python {needed} or newer (Colab: Runtime > Change runtime type)"
        )
    return problems


def check_environment() -> None:
    """Print one line per problem environment_problems finds (nothing when all is well): the setup cell's check."""
    for line in environment_problems():
        print(line)


def pick_device() -> torch.device:
    """The best available device: cuda, then mps, then cpu."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def seed_everything(seed: int = 0) -> None:
    """Seed Python, NumPy and PyTorch (all devices)."""
    random.seed(seed)
    np.random.seed(seed)
    if torch is not None:
        torch.manual_seed(seed)
        # TF32 would make CUDA matmuls differ from the CPU by ~1e-3: keep full float32.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False


def scaled(full: int, small: int) -> int:
    """`full` normally, `small` under grading (keeps training cells to seconds there)."""
    return small if GRADING else full


def to_numpy(value: Any) -> np.ndarray:
    """A plain NumPy copy of a tensor, array, number or bool (no object arrays)."""
    if torch is not None and isinstance(value, torch.Tensor):
        value = value.detach()
        if value.dtype in (torch.bfloat16, torch.float16):
            value = value.float()
        value = value.cpu().numpy()
    array = np.array(value, copy=True)
    if array.dtype == object:
        raise TypeError(f"cannot record a value of type {type(value).__name__}")
    return array


class CheckFailure(AssertionError):
    """A check that failed: its message says what is wrong, never the answer."""

    def _render_traceback_(self) -> list[str]:
        """IPython's traceback of a failed check: the notebook's lines that led to it, then the message.

        The frames of this file (how a check fails) and of IPython itself are left out: what a
        learner needs is their line and what is wrong, not the helper's machinery.
        """
        try:
            return _notebook_traceback(self)
        except Exception:  # noqa: BLE001 - a traceback must never fail: the message alone then
            return [f"{type(self).__name__}: {self}"]


def _kept_frames(tb: Any) -> list[Any]:
    """The traceback entries of `tb` outside this file and outside IPython's own package."""
    here = os.path.abspath(__file__)
    kept = []
    while tb is not None:
        name = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if name != here and f"{os.sep}IPython{os.sep}" not in name:
            kept.append(tb)
        tb = tb.tb_next
    return kept


def _without_frames_here(tb: Any) -> Any:
    """`tb` rebuilt through the kept frames only."""
    import types

    chain = None
    for entry in reversed(_kept_frames(tb)):
        chain = types.TracebackType(chain, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return chain


def _notebook_traceback(error: BaseException) -> list[str]:
    """The structured traceback IPython would show for `error`, through the kept frames only.

    The learner's error a check caught (Check.raises) is shown too, as its cause, without this
    file's frame that called their code.
    """
    seen, link = set(), error.__cause__ or error.__context__
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        link.with_traceback(_without_frames_here(link.__traceback__))
        link = link.__cause__ or link.__context__
    shell = get_ipython()  # type: ignore[name-defined]  # noqa: F821 - only IPython asks for this
    chain = _without_frames_here(error.__traceback__)
    return shell.InteractiveTB.structured_traceback(type(error), error, chain, tb_offset=0)


Scanner = Callable[[list[str], list[str] | None], list[str]]
"""How Check.forbidden reads the answer cells' source: (names, cells) -> findings."""


@dataclass(frozen=True)
class GraderHooks:
    """Grader only: what the checks reach through the grader (the answer cells' source, the learner's kernel)."""

    scanner: Scanner  # Check.forbidden: what the answer cells use (autograder.checks.perimeter.scan)
    mutations: Callable[[], int]  # Check.untouched: how many of the grader's calls found an input changed
    kernel_copier: Callable[[Any], Any]  # kernel_copy: a check's module put into the learner's kernel
    memory_budget: Callable[[Callable[[], Any], int], bool]  # fits_in_memory: measured on the kernel, by the OS


@dataclass
class CheckContext:
    """Every check's record and, under grading, the grader's hooks: one per grading call.

    The default context (hooks None) is a visible test in the learner's own notebook: its
    records feed self_check(), and what only the grader can judge is left to it.
    """

    hooks: GraderHooks | None = None
    parts: dict[str, dict[str, Any]] = field(default_factory=dict)  # check name -> status, message, asserts
    this_cell: list[str] = field(default_factory=list)  # checks made by the cell running now
    forbidden: list[str] = field(default_factory=list)  # what Check.forbidden found
    mutations_at_start: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.mutations_at_start = self.hooks.mutations() if self.hooks else 0

    def asserted(self) -> bool:
        """Whether the checks made in this context checked anything."""
        return any(p["asserts"] for p in self.parts.values())

    def assert_count(self) -> int:
        """How many checks have been made in this context so far."""
        return sum(p["asserts"] for p in self.parts.values())

    def found_forbidden(self) -> list[str]:
        """What Check.forbidden found in the answer cells, in this context."""
        return list(self.forbidden)


_NOTEBOOK = CheckContext()  # the learner's own notebook: a kernel never installs another
_CONTEXT: ContextVar[CheckContext] = ContextVar("workbook_check_context", default=_NOTEBOOK)


def current_context() -> CheckContext:
    """The context checks record into now (the notebook's own unless a grading call installed one)."""
    return _CONTEXT.get()


@contextlib.contextmanager
def checking(context: CheckContext) -> Iterator[CheckContext]:
    """Install `context` for the checks made inside the block (this thread only); the previous one comes back after.

    The grader installs one per test cell it runs (autograder.checks.harness), in its own process.
    """
    token = _CONTEXT.set(context)
    try:
        yield context
    finally:
        _CONTEXT.reset(token)


def _after_cell(result) -> None:
    """IPython post_run_cell hook: settle the checks of the cell that just ran."""
    context = _CONTEXT.get()
    error = getattr(result, "error_in_exec", None)
    for name in context.this_cell:
        part = context.parts[name]
        if part["status"] == "running":
            part["status"] = "failed" if error else ("passed" if part["asserts"] else "hidden")
            if isinstance(error, NotImplementedError):
                part["message"] = "NotImplementedError: an answer cell this test uses is not implemented yet"
            elif error:
                part["message"] = f"{type(error).__name__}: {error}"[:300]
    context.this_cell.clear()


_REFUSAL: list[Any] = []  # the learner's own refusal controller, made once per kernel (or None)


def _local_refusal() -> Any:
    """A refusal controller from wb_refusal.py beside this file (a copy of the grader's), or None without it."""
    if not _REFUSAL:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wb_refusal.py")
        controller = None
        if os.path.exists(path):
            namespace: dict = {}
            with open(path, encoding="utf-8") as handle:
                exec(compile(handle.read(), path, "exec"), namespace)  # noqa: S102 - the course's own file
            controller = namespace["make_controller"]()
            controller.refused_error = namespace["Refused"]
        _REFUSAL.append(controller)
    return _REFUSAL[0]


def _watch_cells() -> None:
    try:
        shell = get_ipython()  # type: ignore[name-defined]  # noqa: F821 - defined inside IPython only
    except NameError:
        return
    if _after_cell not in shell.events.callbacks["post_run_cell"]:
        shell.events.register("post_run_cell", _after_cell)


def render_table(parts: list[tuple[str, str, str, float | None]], every_check_ran: bool = False) -> str:
    """The self-check table: (part, status, message, points or None) rows, then an honest total.

    every_check_ran: the self-study edition, where the checks a course keeps hidden ran too.
    """
    marks = {"passed": "✓", "failed": "✗", "hidden": "·", "running": "?", "written": "✎", "not run": "–"}
    lines = [f"{'part':<32} {'points':>6}  result"]
    for name, status, message, points in parts:
        shown = "" if points is None else f"{points:g}"
        note = {
            "hidden": " (checked by hidden tests when graded)",
            "written": " (compare with study.answer)" if every_check_ran else " (graded by a person)",
            "not run": " (run its cell first)",
        }.get(status, "")
        lines.append(f"{name:<32} {shown:>6}  {marks[status]} {status}{note}")
        if status == "failed":
            lines.append(f"    {message}")
    done = [p for p in parts if p[1] in ("passed", "failed")]
    passed = sum(p[1] == "passed" for p in done)
    if every_check_ran:
        lines.append(
            f"\nTests passed: {passed} / {len(done)} parts. Every check ran here, "
            "the full ones included: nothing is left to check later."
        )
    else:
        lines.append(
            f"\nVisible tests passed: {passed} / {len(done)} parts. "
            "Hidden tests will check more (other shapes, dtypes, masks, gradients) when you are graded."
        )
    return "\n".join(lines)


def self_check(
    points: dict[str, float] | None = None, written: list[str] | tuple[str, ...] = (), every_check_ran: bool = False
) -> None:
    """Print the table `python -m autograder check` prints: every graded part, its points and result.

    points: each test and written question of the notebook (grade_id -> points, in order), as the
    notebook's self-check cell passes them; written: those a person grades; every_check_ran: the
    self-study edition's call (its test cells ran the full checks).
    """
    recorded = _CONTEXT.get().parts
    if not recorded:
        print("No test has run yet: run the notebook's cells first (Run > Run All Cells).")
        return
    if points is None:
        print(render_table([(n, p["status"], p["message"], None) for n, p in recorded.items()], every_check_ran))
        return
    rows: list[tuple[str, str, str, float | None]] = []
    for name, value in points.items():
        part = recorded.get(name, {"status": "not run", "message": ""})
        status = "written" if name in written else part["status"]
        rows.append((name, str(status), str(part["message"]), float(value)))
    print(render_table(rows, every_check_ran))


class Check:
    """One test's checks: records each value, then asserts it with a helpful message."""

    def __init__(self, name: str) -> None:
        if not _KEY.match(name):
            raise ValueError(f"check name {name!r} must match {_KEY.pattern}")
        self.name = name
        context = _CONTEXT.get()
        context.parts[name] = {"status": "running", "message": "", "asserts": 0}
        context.this_cell.append(name)
        _watch_cells()

    # -- recording -----------------------------------------------------------------
    def _record(self, key: str, value: Any) -> np.ndarray | None:
        _CONTEXT.get().parts[self.name]["asserts"] += 1
        try:
            return to_numpy(value)
        except (TypeError, ValueError, RuntimeError):
            return None

    def _fail(self, key: str, message: str) -> NoReturn:
        text = f"[{self.name}/{key}] {message}"
        _CONTEXT.get().parts[self.name].update(status="failed", message=text)
        raise CheckFailure(text)

    # -- checks --------------------------------------------------------------------
    def close(
        self,
        key: str,
        actual: Any,
        expected: Any,
        *,
        atol: float = 1e-5,
        rtol: float = 1e-5,
        hint: str = "",
        mistakes: dict[str, Any] | None = None,
    ) -> None:
        """`actual` equals `expected` in shape and values (within atol/rtol, NaN == NaN)."""
        array = self._record(key, actual)
        if array is None:
            self._fail(key, f"expected a tensor or array, got {type(actual).__name__}. {hint}")
        want = to_numpy(expected)
        if array.shape != want.shape:
            self._fail(key, f"shape {tuple(array.shape)} but expected {tuple(want.shape)}. {hint}")
        if _allclose(array, want, atol, rtol):
            return
        for mistake, wrong in (mistakes or {}).items():
            wrong_array = to_numpy(wrong)
            if wrong_array.shape == array.shape and _allclose(array, wrong_array, atol, rtol):
                self._fail(key, f"the result matches a known mistake: {mistake}.")
        if np.isnan(array).any() and not np.isnan(want).any():
            self._fail(key, f"the result contains NaN. {hint}")
        err = np.nanmax(np.abs(array.astype(np.float64) - want.astype(np.float64)))
        self._fail(key, f"values differ (max abs error {err:.3g}). {hint}")

    def equal(self, key: str, actual: Any, expected: Any, *, hint: str = "") -> None:
        """`actual` equals `expected` exactly: shape, dtype kind and every value."""
        array = self._record(key, actual)
        if array is None:
            self._fail(key, f"expected a tensor or array, got {type(actual).__name__}. {hint}")
        want = to_numpy(expected)
        if array.shape != want.shape:
            self._fail(key, f"shape {tuple(array.shape)} but expected {tuple(want.shape)}. {hint}")
        if array.dtype.kind != want.dtype.kind:
            self._fail(key, f"dtype {array.dtype} but expected {want.dtype}. {hint}")
        if not np.array_equal(array, want):
            self._fail(key, f"{int((array != want).sum())} value(s) differ. {hint}")

    def true(self, key: str, value: bool, message: str) -> None:
        """A property that must hold; `message` says what it means when it does not."""
        ok = bool(value) if isinstance(value, (bool, np.bool_)) else _truthy(value)
        self._record(key, ok)
        if not ok:
            self._fail(key, message)

    def raises(self, key: str, error: type[BaseException], fn: Callable[[], Any], *, match: str = "") -> None:
        """`fn()` raises `error` with a message matching the regex `match`."""
        try:
            fn()
        except error as exc:
            ok = bool(re.search(match, str(exc))) if match else True
            self._record(key, ok)
            if not ok:
                self._fail(
                    key,
                    f"{error.__name__} raised, but its message {str(exc)!r} "
                    f"does not say what is wrong (expected to mention {match!r}).",
                )
            return
        except Exception as exc:  # noqa: BLE001 - a wrong exception type is the finding
            self._record(key, False)
            self._fail(key, f"raised {type(exc).__name__} ({exc}) instead of {error.__name__}.")
        self._record(key, False)
        self._fail(key, f"expected {error.__name__}, but nothing was raised.")

    def forbidden(
        self,
        key: str,
        names: list[str],
        message: str,
        cells: list[str] | None = None,
        probe: Callable[[], Any] | None = None,
    ) -> None:
        """The rule "write it yourself": the built-ins `names` refuse while `probe()` (a call of your code) runs.

        Graded, the kernel refuses them during every call of the test cell holding the rule, and the
        answer cells `cells` (grade ids; None: all) are read for ways around it
        (autograder.checks.perimeter). In a notebook, `probe()` runs with the same refusal, made
        here from wb_refusal.py beside this file; without that file only grading checks the rule.
        """
        context = _CONTEXT.get()
        if context.hooks is None:
            if probe is not None:
                self._probe_refused(key, names, message, probe)
            return
        context.parts[self.name]["asserts"] += 1
        findings = context.hooks.scanner(names, cells)
        context.forbidden.extend(findings)
        if findings:
            self._fail(key, f"{message} ({findings[0]})")
        if probe is not None:  # graded: the kernel refuses for the whole cell; a refusal fails the rule there
            probe()

    def _probe_refused(self, key: str, names: list[str], message: str, probe: Callable[[], Any]) -> None:
        """Run `probe()` with the learner's own refusal armed; fail with the rule's message if it refused."""
        refusal = _local_refusal()
        if refusal is None:
            return
        self._record(key, True)
        refusal.arm(list(names))
        try:
            probe()
        except refusal.refused_error:
            pass  # judged below; any other error of the probe is the code's own, raised as it is
        finally:
            refusal.disarm()
        refused = list(dict.fromkeys(refusal.drain()))
        if refused:
            self._fail(key, f"{message} (your code called {', '.join(refused[:4])}, which the rule refuses)")

    def untouched(self, key: str, message: str) -> None:
        """The learner's code changed none of its inputs in place (observed by the grader's calls)."""
        context = _CONTEXT.get()
        if context.hooks is None:  # in a learner's kernel: the grader checks this when it grades
            return
        context.parts[self.name]["asserts"] += 1
        if context.hooks.mutations() > context.mutations_at_start:
            self._fail(key, message)


def count_parameters(module: Any) -> int:
    """How many numbers `module` learns: its state dict's trainable tensors, a tensor shared by several names once.

    Judged from what the module does, not from what it says about itself: the sizes are those
    of the tensors its state dict holds, and a shared tensor is found by loading distinct
    random values under every name at once and reading them back (names that share one
    tensor come back holding the same values). The module's own values are loaded back after.
    """
    state = dict(list(module.state_dict(keep_vars=True).items()))
    for name, value in state.items():  # under grading a tensor crossed with its bytes; anything else only says a shape
        if not isinstance(value, torch.Tensor) and not name.endswith("_extra_state"):
            raise TypeError(f"state_dict() holds {name!r}, which is not a tensor: its size cannot be counted")
    names = [name for name, value in state.items() if isinstance(value, torch.Tensor) and value.requires_grad]
    shapes = [tuple(state[name].shape) for name in names]
    how_many = Counter(shapes)  # linear: a learner's state dict may hold thousands of names
    probed = [n for n, shape in zip(names, shapes, strict=True) if how_many[shape] > 1]
    shared: set[str] = set()
    if probed:
        gen = torch.Generator().manual_seed(int.from_bytes(os.urandom(4), "little"))
        probe = {n: torch.randn(state[n].shape, generator=gen, dtype=torch.float64).to(state[n].dtype) for n in probed}
        original = {n: state[n].detach().clone() for n in probed}
        module.load_state_dict(probe, strict=False)
        back = {name: value.detach().clone() for name, value in list(module.state_dict().items())}
        module.load_state_dict(original, strict=False)
        first: dict[tuple, str] = {}
        for name in probed:  # holds what another name came back holding: the same tensor, counted there
            if not isinstance(back.get(name), torch.Tensor):  # what came back is only what the module says
                raise TypeError(f"state_dict() no longer holds {name!r} as a tensor: its size cannot be counted")
            value = back[name].reshape(-1).contiguous().cpu()
            key = (str(value.dtype), tuple(back[name].shape), hashlib.sha256(value.view(torch.uint8).numpy()).digest())
            if key not in first:
                first[key] = name
            elif _same_tensor(module, name, first[key], probe[name]):  # equal values may be chance (one number)
                shared.add(name)
    return sum(int(np.prod(shape)) for name, shape in zip(names, shapes, strict=True) if name not in shared)


def _same_tensor(module: Any, name: str, other: str, value: Any) -> bool:
    """Whether loading a new value under `name` changes what `other` holds (then they are one tensor)."""
    state = module.state_dict()
    mine, before = state[name].detach().clone(), state[other].detach().clone()
    module.load_state_dict({name: value + 1}, strict=False)
    after = module.state_dict()[other].detach().clone()
    module.load_state_dict({name: mine, other: before}, strict=False)  # the module's own values back
    return isinstance(after, torch.Tensor) and not torch.equal(after, before)


def kernel_copy(module: Any) -> Any:
    """A copy of a check's module for the learner's code to use, that the check may change afterwards.

    Under grading the copy lives in the learner's kernel (the check holds a handle to it there),
    so that what the learner's code kept of it (its Parameters, their storage) is what the
    check changes; in a notebook it is a deep copy.
    """
    hooks = _CONTEXT.get().hooks
    if hooks is not None:
        return hooks.kernel_copier(module)
    import copy

    return copy.deepcopy(module)


def fits_in_memory(fn: Callable[[], Any], budget: int, here: Callable[[Callable[[], Any]], int]) -> bool:
    """Whether `fn()`, a call of the learner's code, holds at most `budget` bytes at once beyond what it starts with.

    Under grading the operating system measures it on the learner's kernel, outside it
    (autograder.kernel.membudget: the kernel's memory cgroup, or its address-space limit); in a
    notebook `here(fn)` measures it (the peak bytes of the tensors fn creates).
    """
    hooks = _CONTEXT.get().hooks
    if hooks is not None:
        return hooks.memory_budget(fn, budget)
    return here(fn) <= budget


def measured_call(fn: Callable[[], Any], budget: int, here: Callable[[Callable[[], Any]], int]) -> tuple[bool, Any]:
    """One call of the learner's code: whether it held at most `budget` bytes at once, and what it returned.

    Under grading both come from the same call, which the operating system measures in a copy of the
    learner's kernel (fits_in_memory): an answer remembered from an earlier call cannot stand in for
    the work, since the check gives that call inputs the kernel has not seen. In a notebook `here`
    measures it.
    """
    box: list[Any] = []

    def call() -> Any:
        box.append(fn())
        return box[-1]

    fits = fits_in_memory(call, budget, here)
    return fits, box[-1] if box else None


def _truthy(value: Any) -> bool:
    if torch is not None and isinstance(value, torch.Tensor):
        return bool(value.all().item())
    return bool(value)


def _allclose(a: np.ndarray, b: np.ndarray, atol: float, rtol: float) -> bool:
    if a.dtype.kind == "b" or b.dtype.kind == "b":
        return a.dtype.kind == b.dtype.kind and np.array_equal(a, b)
    try:
        return bool(np.allclose(a.astype(np.float64), b.astype(np.float64), atol=atol, rtol=rtol, equal_nan=True))
    except (TypeError, ValueError):
        return False


def calls_to(fn: Callable[[], Any], *targets: Callable[..., Any]) -> int:
    """How many times running `fn()` calls any of the torch functions `targets`."""
    from torch.overrides import TorchFunctionMode

    hits = []

    class _Spy(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func in targets:
                hits.append(func)
            return func(*args, **(kwargs or {}))

    with _Spy():
        fn()
    return len(hits)


def heatmap(weights: Any, xlabels=None, ylabels=None, title: str = "attention weights", ax=None):
    """Plot a (L, S) attention matrix with labels and a colour bar."""
    import matplotlib.pyplot as plt

    data = to_numpy(weights).astype(float)  # bool masks plot as 0/1
    if ax is None:
        _, ax = plt.subplots(figsize=(1 + 0.5 * data.shape[1], 1 + 0.45 * data.shape[0]))
    image = ax.imshow(data, cmap="viridis", vmin=0.0, vmax=max(1e-9, float(data.max())))
    ax.set_xlabel("key position (attended to)")
    ax.set_ylabel("query position")
    ax.set_title(title)
    if xlabels is not None or data.shape[1] <= 32:  # integer ticks; labels when given
        ax.set_xticks(
            range(data.shape[1]),
            xlabels if xlabels is not None else range(data.shape[1]),
            rotation=45 if xlabels is not None else 0,
        )
    if ylabels is not None or data.shape[0] <= 32:
        ax.set_yticks(range(data.shape[0]), ylabels if ylabels is not None else range(data.shape[0]))
    ax.figure.colorbar(image, ax=ax, fraction=0.046)
    return ax
