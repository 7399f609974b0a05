"""Self-study helpers, copied beside every self-study notebook as study.py (imports nothing of the package).

Three things a learner working alone needs: the full checks of every part with inputs drawn
from a seed of their own (`start`, `begin`, `seed`: the grader draws a course's hidden inputs
the same way from the course key), hints in three tiers (`hint`), and a stub's reference
answer once every check of it passed in this session (`answer`).

The answers in study_data.json are scrambled, not secret: `answer` is honour-based. Anyone
who reads this file can unscramble them; the point is not to see them by accident, and to
compare only after earning it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import random
import secrets
import sys
from pathlib import Path
from typing import Any

SEED_ENV = "WORKBOOK_SEED"  # a learner's own seed, to redraw (or repeat) every check's inputs
SEED_FILE = ".workbook_seed"  # else a random one, made once in the notebook's folder
DATA_FILE = "study_data.json"
TIERS = ("nudge", "key idea", "shape of the code")
_STATE: dict[str, Any] = {"notebook": "", "key": b"", "shown": {}}


class StudyError(ValueError):
    """A stub or tier the notebook does not have, or data that is missing."""


def start(notebook: str, folder: str | os.PathLike[str] = ".") -> str:
    """Name this notebook and load (or make) the local seed; returns the seed's public fingerprint."""
    seed_text = os.environ.get(SEED_ENV) or _seed_file(Path(folder) / SEED_FILE)
    _STATE.update(notebook=notebook, key=hashlib.sha256(seed_text.encode()).digest(), shown={})
    _STATE["data"] = _load_data(Path(folder), notebook)
    return hashlib.sha256(b"fingerprint" + _STATE["key"]).hexdigest()[:12]


def _seed_file(path: Path) -> str:
    """The seed in `path`, made there with 16 random bytes on first use."""
    if not path.exists():
        path.write_text(secrets.token_hex(16) + "\n", encoding="ascii")
    return path.read_text(encoding="ascii").strip()


def _load_data(folder: Path, notebook: str) -> dict:
    """This notebook's hints, tests and scrambled answers from study_data.json (beside it or beside this file)."""
    for place in (folder / DATA_FILE, Path(__file__).resolve().parent / DATA_FILE):
        if place.is_file():
            data = json.loads(place.read_text(encoding="utf-8"))
            if notebook not in data:
                raise StudyError(f"{place} has no notebook {notebook!r}")
            return data[notebook]
    raise StudyError(f"no {DATA_FILE} beside the notebook: the self-study edition ships it")


def seed(test: str, value: object) -> int:
    """The seed a check asked for (`value`), mixed with the local seed, the notebook and the test."""
    if not _STATE["key"]:
        raise StudyError("run the notebook's setup cells first (study.start)")
    message = json.dumps([_STATE["notebook"], test, repr(value)], ensure_ascii=True).encode()
    return int.from_bytes(hmac.new(_STATE["key"], message, hashlib.sha256).digest()[:4], "little")


def begin(test: str) -> None:
    """Seed the global generators for one test cell, as grading does before each one."""
    import numpy as np

    random.seed(seed(test, "random"))
    np.random.seed(seed(test, "numpy"))
    try:
        import torch
    except ImportError:  # pragma: no cover - every notebook imports torch
        return
    torch.manual_seed(seed(test, "torch"))


def _stub(stub: str) -> dict:
    stubs = _STATE.get("data", {}).get("stubs", {})
    if stub not in stubs:
        raise StudyError(f"no graded stub {stub!r} in {_STATE['notebook'] or 'this notebook'}; stubs: {sorted(stubs)}")
    return stubs[stub]


def hint(stub: str, tier: int | None = None) -> str:
    """Print the next hint for `stub` (or tier 1, 2 or 3): a nudge, then the key idea, then the shape of the code."""
    hints = _stub(stub)["hints"]
    shown = _STATE["shown"]
    number = tier if tier is not None else min(shown.get(stub, 0) + 1, len(hints))
    if not 1 <= number <= len(hints):
        raise StudyError(f"hint tiers of {stub!r} are 1 to {len(hints)}, not {number}")
    shown[stub] = max(shown.get(stub, 0), number)
    more = f" (hint({stub!r}) again for tier {number + 1})" if number < len(hints) else " (the last tier)"
    text = f"Hint {number}/{len(hints)} for {stub}, {TIERS[number - 1]}{more}:\n{hints[number - 1]}"
    print(text)
    return text


def unpassed(stub: str) -> list[str]:
    """The tests of `stub` that have not passed in this session (all of them if none has run)."""
    workbook = sys.modules.get("workbook")  # the notebook's setup cell imported it; its checks record there
    if workbook is None:
        raise StudyError("run the notebook's setup cell first: its checks are what open the answers")
    parts = workbook.current_context().parts
    return [t for t in _stub(stub)["tests"] if parts.get(t, {}).get("status") != "passed"]


def answer(stub: str) -> str:
    """Print the reference answer of `stub`, once every one of its tests passed in this session (honour-based)."""
    waiting = unpassed(stub)
    if waiting:
        raise StudyError(f"the reference answer of {stub!r} opens once its tests pass; not yet: {', '.join(waiting)}")
    text = unscramble(_stub(stub)["answer"], _STATE["notebook"], stub)
    print(f"Reference answer of {stub} (compare it with yours):\n\n{text}")
    return text


def _keystream(notebook: str, stub: str, size: int) -> bytes:
    """SHA-256 in counter mode over the notebook and stub names: a scramble anyone can undo, on purpose."""
    base = f"attention-workbook self-study answer {notebook}/{stub}".encode()
    blocks = (hashlib.sha256(base + i.to_bytes(4, "big")).digest() for i in range(size // 32 + 1))
    return b"".join(blocks)[:size]


def scramble(text: str, notebook: str, stub: str) -> str:
    """`text` scrambled for study_data.json (base64 of its bytes XOR the keystream)."""
    raw = text.encode("utf-8")
    return base64.b64encode(
        bytes(a ^ b for a, b in zip(raw, _keystream(notebook, stub, len(raw)), strict=True))
    ).decode()


def unscramble(blob: str, notebook: str, stub: str) -> str:
    """The text `scramble` hid."""
    raw = base64.b64decode(blob)
    return bytes(a ^ b for a, b in zip(raw, _keystream(notebook, stub, len(raw)), strict=True)).decode("utf-8")
