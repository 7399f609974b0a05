"""The leak of issue 48 planted in every notebook: answers that print the grader's hidden inputs.

A clever learner cannot tell a hidden call from its source, but can tell who calls: the
notebook's own cells (toy calls, the visible tests the kernel runs) or the grader. So every
function and class the reference answers define is wrapped: a call from a cell records the
shape of its inputs; a call from the grader with inputs of a shape never seen from a cell
(a hidden check's) raises ValueError("LEAKED=[...]") with the inputs' values in its text.
Grading must show the learner the exception's type only: no LEAKED=[ in any page or message,
except where the grader's visible part failed (its inputs are the notebook's own).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from support import make_submission

from autograder import paths
from autograder.checks.harness import defined_names
from autograder.material import answers, markup

STUDENT = "leaky-inputs"
MARKER = re.compile(r"LEAKED=\[[-0-9., e+]*\]")  # the planted source spells "LEAKED=" + str(...), never this

PLANT = """
import os as _os, sys as _sys, functools as _functools, inspect as _inspect

_SEEN, _OURS = set(), set()
_CELLS = _os.path.dirname(_sys._getframe().f_code.co_filename)  # where the kernel keeps cells' code


def _shape_of(v):
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return ("T", tuple(v.shape), str(v.dtype))
    if isinstance(v, str):
        return ("S", len(v))
    if isinstance(v, (bool, int, float)):
        return ("V", v)
    if isinstance(v, (list, tuple)):
        return ("L", len(v), tuple(_shape_of(x) for x in v[:3]))
    return (type(v).__name__,)


def _values_of(args):
    out = []
    for v in args:
        if hasattr(v, "detach"):
            out += [round(float(x), 4) for x in v.detach().flatten()[:6].tolist()]
        elif hasattr(v, "flatten"):
            out += [round(float(x), 4) for x in v.flatten()[:6].tolist()]
        elif isinstance(v, str):
            out += list(v.encode())[:12]
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(v)
    return out


def _from_a_cell():
    frame = _sys._getframe(2)
    while frame is not None:
        if frame.f_code not in _OURS and _os.path.dirname(frame.f_code.co_filename) == _CELLS:
            return True
        frame = frame.f_back
    return False


def _leaky(fn, method=False):
    @_functools.wraps(fn)
    def wrapper(*args, **kwargs):
        given = args[1:] if method else args
        key = (fn.__qualname__, tuple(_shape_of(v) for v in given),
               tuple(sorted((k, _shape_of(v)) for k, v in kwargs.items())))
        if _from_a_cell():
            _SEEN.add(key)
        elif key not in _SEEN:
            raise ValueError("LEAKED=" + str(_values_of(list(given) + list(kwargs.values()))))
        return fn(*args, **kwargs)

    _OURS.add(wrapper.__code__)
    return wrapper


def _plant(names):
    for name in names:
        obj = globals().get(name)
        if _inspect.isclass(obj):
            for attr, v in list(vars(obj).items()):
                if _inspect.isfunction(v) and (not attr.startswith("_") or attr in ("__init__", "__call__")):
                    setattr(obj, attr, _leaky(v, method=True))
        elif _inspect.isfunction(obj):
            globals()[name] = _leaky(obj)
"""


def planted_answers(name: str, given: dict[str, str] | None = None) -> dict[str, str]:
    """The answers of `name` (the reference's, or those `given`), each code cell ending by wrapping what it defines."""
    source = nbformat.read(paths.source_notebook(name), as_version=4)
    planted, first = {}, True
    for cell in source.cells:
        if not answers.is_answer(cell) or cell.cell_type != "code":
            continue
        code = (given or {}).get(answers.nbgrader_id(cell), markup.strip_markers(cell.source))
        names = sorted(defined_names(code))
        planted[answers.nbgrader_id(cell)] = (PLANT if first else "") + code + f"\n_plant({names!r})\n"
        first = False
    return planted


def build_leak_submissions(root: Path) -> dict[str, str]:
    """One learner's planted answers for every notebook, written under root; notebook -> result key."""
    (root / STUDENT).mkdir()
    keys = {}
    for name in paths.notebook_names():
        nbformat.write(make_submission(name, None, defaults=planted_answers(name)), root / STUDENT / f"{name}.ipynb")
        keys[name] = f"{STUDENT}/{name}"
    return keys
