"""Walk the public attributes of everything the allow-list names, and of instances of its classes.

Not a cheat but a census, run in a graded kernel: from each start, attribute reads (and items of
lists, tuples and dicts) that the scan would allow must never lead to an object of the kernel's
(ipykernel, IPython, jupyter_client, zmq, traitlets, ipywidgets, comm), to a namespace, or to a
module off the list. The test (tests/test_attacks.py) reads the counts it prints.
"""
# %% answer sdpa
import importlib, json, types, random, functools
import numpy as np
import matplotlib.pyplot as plt
from tqdm.auto import tqdm
import workbook

PLAN = json.loads("__WB_PLAN__")  # filled in by tests/test_attacks.py: the allow-list and what the scan refuses
OWN = ("IPython", "ipykernel", "jupyter_client", "zmq", "traitlets", "ipywidgets", "comm", "tornado", "asyncio")
starts = {}
for mod, names in PLAN["allowed"].items():
    try:
        m = importlib.import_module(mod)
    except ImportError:
        continue
    starts.update({f"{mod}.{n}": getattr(m, n) for n in names if hasattr(m, n)})
made = {"tqdm()": lambda: tqdm(range(1)), "figure": plt.figure, "subplots": plt.subplots,
        "Random": random.Random, "default_rng": np.random.default_rng, "Generator": torch.Generator,
        "Check": lambda: workbook.Check("census"), "partial": lambda: functools.partial(print),
        "error": lambda: ValueError("x"), "tensor": lambda: torch.zeros(2, requires_grad=True) * 2,
        "Linear": lambda: torch.nn.Linear(2, 2)}
for label, make in made.items():
    try:
        starts[label] = make()
    except Exception as exc:
        print("could not make", label, exc)
reached = []
for label, start in starts.items():
    seen, todo = set(), [(start, label, 0)]
    while todo:
        obj, path, depth = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        kind = type(obj).__module__ or ""
        if isinstance(obj, types.ModuleType):
            if obj.__name__ not in PLAN["allowed"]:
                reached.append(f"{path} -> module {obj.__name__}")
            continue
        if kind.startswith(OWN):
            reached.append(f"{path} -> {kind}.{type(obj).__name__}")
            continue
        if isinstance(obj, dict) and "__builtins__" in obj:
            reached.append(f"{path} -> a namespace")
            continue
        if depth >= 6 or isinstance(obj, (str, bytes, int, float, complex, bool, type(None))):
            continue
        if isinstance(obj, (torch.Tensor, torch.nn.Module)):
            names = []  # judged by the scan's own lists of their methods
        else:
            try:
                names = [n for n in dir(obj) if not n.startswith("_") and n not in PLAN["refused"]]
            except Exception:
                names = []
        for name in names[:300]:
            try:
                todo.append((getattr(obj, name), f"{path}.{name}", depth + 1))
            except Exception:
                pass
        if isinstance(obj, (list, tuple)):
            todo += [(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(list(obj)[:30])]
        if isinstance(obj, dict):
            todo += [(v, f"{path}[{k!r}]", depth + 1) for k, v in list(obj.items())[:60]]
print(f"CENSUS started from {len(starts)} objects; REACHED {len(reached)}")
for line in reached[:20]:
    print("REACHED:", line)
plt.close("all")


def scaled_dot_product_attention(q, k, v, mask=None):
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype)
    return out, torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
