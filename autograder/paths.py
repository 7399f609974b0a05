"""Where things live in the repository, and which notebooks exist."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"
DATA = ROOT / "data"
WORKBOOK = Path(__file__).resolve().parent / "workbook.py"
BUILD = ROOT / "build"


def notebook_names(solutions: Path = SOLUTIONS) -> list[str]:
    """Names (stems) of the source notebooks, e.g. '01_scaled_dot_product_attention'."""
    return sorted(p.stem for p in solutions.glob("[0-9][0-9]_*.ipynb"))


def source_notebook(name: str, solutions: Path = SOLUTIONS) -> Path:
    """The instructor source of a notebook."""
    return solutions / f"{name}.ipynb"


SHIPPED = Path(__file__).resolve().parent / "shipped"  # runs in other processes; imports nothing of ours
CHANNEL_RELAY = SHIPPED / "channel_relay.py"
LEARNER_HELPERS = {"workbook.py": WORKBOOK, "wb_refusal.py": SHIPPED / "refusal.py"}
"""The files a notebook imports beside it (notebooks/ and the bundle hold copies; Colab fetches them)."""
