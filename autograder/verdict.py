"""The trusted verdict: compare the learner's recorded values with the reference's, outside the kernel."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAX_RECORD_BYTES = 64 * 2**20


@dataclass
class CheckVerdict:
    """Whether every value a test recorded for the reference was recorded equal by the learner."""

    passed: bool
    detail: str = ""


def _load(path: Path) -> np.ndarray | None:
    """A recorded array, or None if it is missing, too big, or not a plain array."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_RECORD_BYTES:
            return None
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    return array if isinstance(array, np.ndarray) and array.dtype != object else None


def _same(mine: np.ndarray, ref: np.ndarray, meta: dict) -> bool:
    if mine.shape != ref.shape:
        return False
    if meta.get("kind") == "equal" or ref.dtype.kind in "bUS":
        return mine.dtype.kind == ref.dtype.kind and bool(np.array_equal(mine, ref))
    if mine.dtype.kind not in "biuf" or ref.dtype.kind not in "biuf":
        return False
    atol, rtol = float(meta.get("atol", 1e-5)), float(meta.get("rtol", 1e-5))
    a, b = mine.astype(np.float64), ref.astype(np.float64)
    return bool(np.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True))


def judge_check(reference: Path, learner: Path) -> CheckVerdict:
    """Compare one check's folder of records (reference tolerances decide)."""
    keys = sorted(p.stem for p in reference.glob("*.npy"))
    if not keys:
        return CheckVerdict(False, "the reference recorded nothing for this test")
    for key in keys:
        meta = json.loads((reference / f"{key}.json").read_text())
        ref = np.load(reference / f"{key}.npy", allow_pickle=False)
        mine = _load(learner / f"{key}.npy")
        if mine is None:
            return CheckVerdict(False, f"no recorded result for {key!r} (the check did not run to it)")
        if not _same(mine, ref, meta):
            return CheckVerdict(False, f"the recorded result for {key!r} does not match the reference")
    return CheckVerdict(True)


def _inside(path: Path, root: Path) -> bool:
    """`path` is a real folder (no symbolic link anywhere) under `root`, or absent."""
    if path.is_symlink():
        return False
    return not path.exists() or path.resolve().parent == root.resolve()


def suspicious_records(learner_dir: Path) -> list[str]:
    """Flags for record files no honest Check writes: links, and files that are not plain arrays."""
    flags = []
    for path in sorted(learner_dir.rglob("*")):
        rel = path.relative_to(learner_dir)
        if path.is_symlink():
            flags.append(f"record {rel} is a symbolic link (ignored)")
        elif path.suffix == ".npy" and path.is_file() and _load(path) is None:
            flags.append(f"record {rel} is not a plain array (a pickle?) and was ignored")
    return flags[:20]


def judge(reference_dir: Path, learner_dir: Path, test_ids: list[str]) -> dict[str, CheckVerdict]:
    """Trusted verdicts for the given test cells (check name == test cell grade_id)."""
    verdicts = {}
    for test in test_ids:
        ref = reference_dir / test
        if not ref.is_dir():
            verdicts[test] = CheckVerdict(False, "the reference recorded nothing for this test")
        elif not _inside(learner_dir / test, learner_dir):
            verdicts[test] = CheckVerdict(False, "the learner's record folder is a link; ignored")
        else:
            verdicts[test] = judge_check(ref, learner_dir / test)
    return verdicts
