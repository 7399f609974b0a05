"""What the platforms install and run: the slim grading requirements, the container, the Kubernetes and Slurm files."""

from __future__ import annotations

import re

from conftest import ROOT


def _requirements(path) -> dict[str, str]:
    """name -> specifier of each requirement line (comments and options left out)."""
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            name, spec = re.match(r"([A-Za-z0-9_.\-]+)(.*)", line).groups()
            out[name.lower()] = spec.strip()
    return out


def test_grading_requirements_are_slim_and_share_the_floors():
    full, slim = _requirements(ROOT / "requirements.txt"), _requirements(ROOT / "requirements-grader.txt")
    assert not {"jupyterlab", "playwright", "pytest", "ruff", "nbval", "hypothesis"} & set(slim)
    for name, spec in slim.items():
        if name in full:
            assert spec == full[name], f"{name}: {spec!r} in requirements-grader.txt, {full[name]!r} in requirements.txt"
    assert {"torch", "nbgrader", "ipykernel", "nbclient", "nbformat", "numpy"} <= set(slim)
