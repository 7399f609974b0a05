"""Whether a run's kernels will train (build a torch.optim optimizer): a speed hint for the fork server.

An optimizer's first use imports torch._dynamo, about 2 s of CPU in every kernel that trains.
When the run grades such a notebook, the fork server pays it once instead (kernel/preload.py);
when it grades none (a run of notebook 01 only), the server does not pay it at all. Only the
names in the submissions folder are read, two levels deep, links not followed: a hint, never
a decision about a grade. A folder whose names say nothing (zips, odd names) counts as training.
"""

from __future__ import annotations

import functools
import itertools
import os
from pathlib import Path

import nbformat

from autograder import paths

MAX_NAMES = 100_000  # a huge folder is not read to its end for a hint


@functools.cache
def training_notebooks() -> frozenset[str]:
    """The notebooks whose code builds a torch.optim optimizer."""
    found = set()
    for name in paths.notebook_names():
        nb = nbformat.read(paths.source_notebook(name), as_version=4)
        if any(c.cell_type == "code" and "torch.optim" in c.source for c in nb.cells):
            found.add(name)
    return frozenset(found)


def _names(folder: Path) -> list[str]:
    """File and folder names in `folder` and its sub-folders (one level), links not followed, at most MAX_NAMES."""
    names: list[str] = []
    try:
        with os.scandir(folder) as top:
            for entry in itertools.islice(top, MAX_NAMES):
                names.append(entry.name)
                if entry.is_dir(follow_symlinks=False):
                    with os.scandir(entry.path) as inner:
                        names += [e.name for e in itertools.islice(inner, MAX_NAMES)]
                if len(names) >= MAX_NAMES:
                    break
    except OSError:  # unreadable: no hint
        return []
    return names


def run_trains(submissions: Path) -> bool:
    """True unless the folder's names show only notebooks that train nothing."""
    names = _names(submissions)
    named = {nb for nb in paths.notebook_names() if any(nb in name for name in names)}
    return not named or bool(named & training_notebooks())
