"""Every public name an answer may reach is decided once: allowed, refused, or a module judged by its own name.

tests/decided_api.json holds, per module (torch, torch.nn, torch.nn.functional, numpy and the
standard-library modules autograder.checks.allowlist.ANSWER_MODULES lets an answer import), the
decision for each public name, as reviewed. This test recomputes the decision of every public name
the installed versions have and fails on a name the file does not hold (a new PyTorch, NumPy or
Python release) or whose decision changed: the diff is reviewed, then written with

    python tests/test_decided_api.py --write

which adds what the installed versions have and keeps what other versions added (CI runs two PyTorch
versions: the floor and the newest pip resolves).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import pkgutil
import sys
from pathlib import Path

import pytest

from autograder.checks import forbidden
from autograder.checks.allowlist import ANSWER_MODULES

DECIDED = Path(__file__).resolve().parent / "decided_api.json"
NOT_DECIDED_HERE = {"torch", "numpy", "matplotlib", "tqdm", "workbook", "__future__"}  # a library's own, or ours
MODULES = ["torch", "torch.nn", "torch.nn.functional", "numpy", "collections.abc", "sys"] + sorted(
    ANSWER_MODULES - NOT_DECIDED_HERE
)


def decision(module: str, name: str) -> str:
    """What the scan makes of `module.name` anywhere in an answer (outside any rule's own names)."""
    state = forbidden.Rule(frozenset(), inside=True).status(module, name)
    if state != "module":
        return state
    own = forbidden._module_name(f"{module}.{name}")  # noqa: SLF001 - the scan's own resolution, tested here
    return "refused" if forbidden._off_list(own) else f"module {own}"  # noqa: SLF001


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
    changed = sorted(f"{n}: {reviewed[module][n]} -> {d}" for n, d in here.items() if reviewed[module].get(n, d) != d)
    assert not new and not changed, (
        f"{module}: {len(new)} public name(s) never reviewed {new[:40]}, {len(changed)} decision(s) changed "
        f"{changed[:20]}: review them (autograder/checks/allowlist.py REFUSED), then "
        "python tests/test_decided_api.py --write"
    )


def test_the_refusals_that_matter_are_decided_so():
    """The names that could undo the kernel's refusal or reach the grader are refused, the honest ones allowed."""
    reviewed = json.loads(DECIDED.read_text())
    for module, name in [("torch", "library"), ("torch", "ops"), ("torch", "load"), ("torch", "compile"),
                         ("torch", "jit"), ("torch", "fx"), ("torch", "overrides"), ("torch", "os"),
                         ("functools", "wraps"), ("sys", "modules"), ("logging", "config"), ("operator", "attrgetter"),
                         ("typing", "get_type_hints"), ("numpy", "load")]:  # fmt: skip
        assert reviewed.get(module, {}).get(name, decision(module, name)) == "refused", (module, name)
    for module, name in [("torch", "dropout"), ("torch", "promote_types"), ("torch", "result_type"),
                         ("numpy", "result_type"), ("numpy", "interp"), ("torch", "distributions"),
                         ("heapq", "heappush"), ("operator", "itemgetter"), ("typing", "cast"),
                         ("typing", "Generator"), ("torch", "BoolTensor"), ("collections.abc", "Sequence")]:  # fmt: skip
        assert reviewed[module][name] != "refused", (module, name)


def write() -> None:
    """Add the installed versions' decisions to the reviewed file (keeping names other versions have)."""
    reviewed = json.loads(DECIDED.read_text()) if DECIDED.exists() else {}
    for module, names in installed().items():
        reviewed[module] = dict(sorted({**reviewed.get(module, {}), **names}.items()))
    DECIDED.write_text(json.dumps(reviewed, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    write()
