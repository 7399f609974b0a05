"""Every public name an answer may reach is decided once: allowed, refused, or a module judged by its own name.

tests/decided_api.json holds, per module (torch, torch.nn, torch.nn.functional, numpy and the
standard-library modules autograder.checks.perimeter.ANSWER_MODULES lets an answer import), the
decision for each public name, as reviewed. This test recomputes the decision of every public name
the installed versions have and fails on a name the file does not hold (a new PyTorch, NumPy or
Python release) or whose decision changed: the diff is reviewed, then written with

    python tests/test_decided_api.py --write

which adds what the installed versions have and keeps what other versions added (CI runs two PyTorch
versions: the floor and the newest pip resolves). An allowed name is stored with why it is allowed
("allowed: <why>", tests/decided_reasons.py): a reviewer's reason where the name reads like a rule's
computation or a way out, else the kernel's refusal family or what its module is for.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import pkgutil
import sys
from pathlib import Path

import pytest
from decided_reasons import SENSITIVE, reviewed, why

from autograder.checks import perimeter
from autograder.checks.perimeter import ANSWER_MODULES

DECIDED = Path(__file__).resolve().parent / "decided_api.json"
NOT_DECIDED_HERE = {"torch", "numpy", "matplotlib", "tqdm", "workbook", "__future__"}  # a library's own, or ours
MODULES = ["torch", "torch.nn", "torch.nn.functional", "numpy", "collections.abc", "sys"] + sorted(
    ANSWER_MODULES - NOT_DECIDED_HERE
)


def decision(module: str, name: str) -> str:
    """What the scan makes of `module.name` anywhere in an answer (outside any rule's own names)."""
    state = perimeter.Rule(frozenset(), inside=True).status(module, name)
    if state != "module":
        return state
    own = perimeter._module_name(f"{module}.{name}")  # noqa: SLF001 - the scan's own resolution, tested here
    return "refused" if perimeter._off_list(own) else f"module {own}"  # noqa: SLF001


def _is_submodule(module: str, name: str) -> bool:
    """Whether `name` is a module in the package `module`'s folder (found without importing it)."""
    loaded = importlib.import_module(module)
    return hasattr(loaded, "__path__") and any(m.name == name for m in pkgutil.iter_modules(loaded.__path__))


def public_names(module: str) -> set[str]:
    """A module's public names, whatever this process happened to import before.

    A submodule is an attribute of its package only once something imported it (logging.config):
    those are left out of dir() and taken from the package's folder instead, imported or not.
    """
    loaded = importlib.import_module(module)
    names = {n for n in dir(loaded) if not n.startswith("_")}
    names = {n for n in names if getattr(getattr(loaded, n, None), "__name__", None) != f"{module}.{n}"}
    if hasattr(loaded, "__path__"):
        names |= {m.name for m in pkgutil.iter_modules(loaded.__path__) if not m.name.startswith("_")}
    return names


def installed() -> dict[str, dict[str, str]]:
    """The decision for every public name of every decided module, as installed here."""
    found = {}
    for module in MODULES:
        names = public_names(module)
        found[module] = {n: decision(module, n) for n in sorted(names)}
    return found


@pytest.mark.parametrize("module", MODULES)
def test_every_public_name_is_decided(module):
    reviewed = json.loads(DECIDED.read_text())
    assert module in reviewed, f"{module} is not in {DECIDED.name}: run python tests/test_decided_api.py --write"
    here = installed()[module]
    new = sorted(n for n in here if n not in reviewed[module])
    decided = {n: _decision(reviewed[module].get(n, d)) for n, d in here.items()}
    changed = sorted(f"{n}: {reviewed[module][n]} -> {d}" for n, d in here.items() if decided[n] != d)
    assert not new and not changed, (
        f"{module}: {len(new)} public name(s) never reviewed {new[:40]}, {len(changed)} decision(s) changed "
        f"{changed[:20]}: review them (autograder/checks/perimeter.py REFUSED), then "
        "python tests/test_decided_api.py --write"
    )


def _decision(stored: str) -> str:
    """The decision part of a stored entry ("allowed: why" -> "allowed")."""
    return stored.split(":", 1)[0]


def test_every_allowed_name_says_why_and_a_sensitive_one_was_reviewed():
    """No bare "allowed": each says why; one that reads like a rule's computation or a way out has a reviewer's
    reason or its refusal family, never only what its module is for."""
    stored = json.loads(DECIDED.read_text())
    bare = [f"{m}.{n}" for m, names in stored.items() for n, v in names.items() if v.strip() == "allowed"]
    assert not bare, f"{len(bare)} allowed name(s) without a reason: {bare[:10]}"
    unreviewed = [
        f"{m}.{n}"
        for m, names in stored.items()
        for n, v in names.items()
        if v.startswith("allowed") and SENSITIVE.search(n) and not reviewed(m, n) and "refused in the kernel" not in v
    ]
    assert not unreviewed, f"allowed without a reviewer's reason (tests/decided_reasons.py REVIEWED): {unreviewed}"


def test_the_routes_found_by_computation_are_refused_by_family():
    """F.normalize, F.local_response_norm and SparseAdam compute a rule's result: each is in a refusal family."""
    stored = json.loads(DECIDED.read_text())
    for module, name in [("torch.nn.functional", "normalize"), ("torch.nn.functional", "local_response_norm")]:
        assert "refused in the kernel while a layer_norm rule" in stored[module][name], (module, name)
    from autograder.shipped import refusal

    assert ("torch.optim.sparse_adam", "SparseAdam.step") in refusal.COMPOSITES["adam"]


def test_the_refusals_that_matter_are_decided_so():
    """The names that could undo the kernel's refusal or reach the grader are refused, the honest ones allowed."""
    reviewed = json.loads(DECIDED.read_text())
    for module, name in [("torch", "library"), ("torch", "ops"), ("torch", "load"), ("torch", "compile"),
                         ("torch", "jit"), ("torch", "fx"), ("torch", "overrides"), ("torch", "os"),
                         ("functools", "update_wrapper"), ("sys", "modules"), ("logging", "config"), ("operator", "attrgetter"),
                         ("typing", "get_type_hints"), ("numpy", "load")]:  # fmt: skip
        assert _decision(reviewed.get(module, {}).get(name, decision(module, name))) == "refused", (module, name)
    for module, name in [("torch", "dropout"), ("torch", "promote_types"), ("torch", "result_type"),
                         ("numpy", "result_type"), ("numpy", "interp"), ("torch", "distributions"),
                         ("heapq", "heappush"), ("operator", "itemgetter"), ("typing", "cast"),
                         ("typing", "Generator"), ("torch", "BoolTensor"), ("collections.abc", "Sequence"),
                         ("functools", "wraps")]:  # fmt: skip
        assert _decision(reviewed[module][name]) != "refused", (module, name)


def write() -> None:
    """Add the installed versions' decisions to the reviewed file (keeping names other versions have)."""
    reviewed = json.loads(DECIDED.read_text()) if DECIDED.exists() else {}
    for module, names in installed().items():
        names = {n: f"allowed: {why(module, n)}" if d == "allowed" else d for n, d in names.items()}
        kept = {
            n: v if not v.startswith("allowed") else f"allowed: {why(module, n)}"
            for n, v in reviewed.get(module, {}).items()
        }
        reviewed[module] = dict(sorted({**kept, **names}.items()))
    DECIDED.write_text(json.dumps(reviewed, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    write()
