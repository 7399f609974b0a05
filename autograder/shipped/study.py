"""Self-study helpers, copied beside every self-study notebook as study.py (imports nothing of the package).

What a learner working alone needs: the full checks of every part with inputs drawn from a
seed of their own (`start`, `begin`, `seed`: the grader draws a course's hidden inputs the same
way from the course key), hints in three tiers (`hint`), a part's reference answer once the
tests that call it passed (`answer`), and, once every test of the notebook passed, the model
answer of each written question (`answer`) and the worked solutions of the exercises
(`exercise`). Progress (hints shown, answers opened) is kept in .study_progress.json beside the
notebook, so a kernel restart loses none of it.

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
PROGRESS_FILE = ".study_progress.json"  # hints shown and answers opened, per notebook (delete it to start over)
DATA_FILE = "study_data.json"
TIERS = ("nudge", "key idea", "shape of the code")
_STATE: dict[str, Any] = {"notebook": "", "key": b"", "progress_file": None, "progress": {}}


class StudyError(ValueError):
    """A part or tier the notebook does not have, an answer not earned yet, or data that is missing."""


def start(notebook: str, folder: str | os.PathLike[str] = ".") -> str:
    """Name this notebook, load (or make) the local seed and the saved progress; returns the seed's fingerprint."""
    seed_text = os.environ.get(SEED_ENV) or _seed_file(Path(folder) / SEED_FILE)
    progress_file = Path(folder) / PROGRESS_FILE
    _STATE.update(notebook=notebook, key=hashlib.sha256(seed_text.encode()).digest(), progress_file=progress_file)
    _STATE["progress"] = _read_progress(progress_file).get(notebook, {})
    _STATE["data"] = _load_data(Path(folder), notebook)
    return hashlib.sha256(b"fingerprint" + _STATE["key"]).hexdigest()[:12]


def _seed_file(path: Path) -> str:
    """The seed in `path`, made there with 16 random bytes on first use."""
    if not path.exists():
        path.write_text(secrets.token_hex(16) + "\n", encoding="ascii")
    return path.read_text(encoding="ascii").strip()


def _read_progress(path: Path) -> dict:
    """Every notebook's saved progress in `path` (none when it is missing or unreadable: progress is a comfort)."""
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return saved if isinstance(saved, dict) else {}


def _save_progress() -> None:
    """Write this notebook's progress back, beside the other notebooks' (write then rename: never half a file)."""
    path = _STATE["progress_file"]
    if path is None:
        return
    saved = _read_progress(path)
    saved[_STATE["notebook"]] = _STATE["progress"]
    spare = path.with_name(path.name + ".tmp")
    try:
        spare.write_text(json.dumps(saved, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(spare, path)
    except OSError as exc:  # a read-only folder: the session goes on, only a restart forgets
        print(f"(progress not saved: {exc})", file=sys.stderr)


def progress() -> dict:
    """This notebook's saved progress: hint tiers shown per part, answers opened, whether every test passed."""
    return json.loads(json.dumps(_STATE["progress"]))


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


def _data() -> dict:
    if "data" not in _STATE:
        raise StudyError("run the notebook's setup cells first (study.start)")
    return _STATE["data"]


def _stub(stub: str) -> dict:
    stubs = _data().get("stubs", {})
    if stub not in stubs:
        written = sorted(_data().get("written", {}))
        raise StudyError(
            f"no graded part {stub!r} in {_STATE['notebook']}; parts: {sorted(stubs)}; written questions: {written}"
        )
    return stubs[stub]


def hint(stub: str, tier: int | None = None) -> None:
    """Show the next hint for `stub` (or tier 1, 2 or 3): a nudge, then the key idea, then the shape of the code."""
    if stub in _data().get("written", {}):
        print(
            f"{stub} is a written question: no hint tiers. Answer it in your own words first; "
            f'study.answer("{stub}") shows a model answer once every test of this notebook has passed.'
        )
        return
    hints = _stub(stub)["hints"]
    shown = _STATE["progress"].setdefault("hints", {})
    number = tier if tier is not None else min(shown.get(stub, 0) + 1, len(hints))
    if not 1 <= number <= len(hints):
        raise StudyError(f"hint tiers of {stub!r} are 1 to {len(hints)}, not {number}")
    if number > shown.get(stub, 0):
        shown[stub] = number
        _save_progress()
    more = f" (hint({stub!r}) again for tier {number + 1})" if number < len(hints) else " (the last tier)"
    print(f"Hint {number}/{len(hints)} for {stub}, {TIERS[number - 1]}{more}:\n{hints[number - 1]}")


def _passed() -> set[str]:
    """The tests that passed in this session (the checks of the notebook's test cells record there)."""
    workbook = sys.modules.get("workbook")  # the notebook's setup cell imported it
    if workbook is None:
        raise StudyError("run the notebook's setup cell first: its checks are what open the answers")
    return {name for name, part in workbook.current_context().parts.items() if part.get("status") == "passed"}


def unpassed(stub: str) -> list[str]:
    """The tests that call `stub` and have not passed in this session (all of them if none has run)."""
    return [t for t in _stub(stub)["tests"] if t not in _passed()]


def _earned(name: str, tests: list[str], what: str) -> None:
    """Mark `name` opened once all of `tests` passed (or it was opened before a restart); else say what is left."""
    opened = _STATE["progress"].setdefault("opened", [])
    if name in opened:
        return
    waiting = [t for t in tests if t not in _passed()]
    if waiting:
        raise StudyError(f"{what} opens once these tests pass; not yet: {', '.join(waiting)}")
    opened.append(name)
    _save_progress()


def answer(part: str) -> None:
    """Show the reference answer of a part once the tests that call it passed, or a written question's model answer.

    A written question's model answer (and how a grader scores it) opens once every test of the
    notebook passed. Honour-based: compare only after you have earned it.
    """
    written = _data().get("written", {})
    if part in written:
        _earned(part, _data()["tests"], f"the model answer of {part!r}")
        text = unscramble(written[part], _STATE["notebook"], part)
        print(f"Model answer of {part} (compare it with yours):\n\n{text}")
        return
    _earned(part, _stub(part)["tests"], f"the reference answer of {part!r}")
    text = unscramble(_stub(part)["answer"], _STATE["notebook"], part)
    print(f"Reference answer of {part} (compare it with yours):\n\n{text}")


def exercise(number: int) -> None:
    """Show the worked solution of the end-of-notebook exercise `number`, once every test of the notebook passed."""
    solutions = _data().get("exercises", [])
    if not 1 <= number <= len(solutions):
        raise StudyError(f"{_STATE['notebook']} has worked solutions for exercises 1 to {len(solutions)}")
    _earned(f"exercise {number}", _data()["tests"], f"the worked solution of exercise {number}")
    text = unscramble(solutions[number - 1], _STATE["notebook"], f"exercise {number}")
    print(f"Worked solution of exercise {number} (try it yourself first):\n\n{text}")


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
