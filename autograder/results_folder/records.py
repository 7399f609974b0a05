"""The results folder's typed records: each with one reader and one writer, and nothing else reads or writes them.

- a submission's saved state (`SavedState`: .state/<student>/<notebook>.json, its executed
  notebook beside it): `read_state` (and `read_states`, each through it), `write_state`;
- the shard a folder holds (`ShardRecord`: shard.json): `read_shard`, `write_shard`;
- the fingerprint of the course key a folder was graded with (key.json): `read_key`, `write_key`;
- each submission's time as the runs found it (`HandedIn`: timestamps.json): `read_times`, `write_times`.

Each reader and writer takes the record's path; a ResultsFolder (autograder.results_folder.layout)
knows where each is and is what callers go through (`folder.read_shard()`, `folder.save(...)`, ...).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import nbformat

from autograder.results import NotebookResult, clean_text, write_json_atomic


class RecordError(ValueError):
    """A record on disk that cannot be read as what it is; the message names its file."""


@dataclass
class SavedState:
    """One submission's saved grading: its result, what graded it, and whether nbgrader recorded it."""

    result: NotebookResult
    digest: str  # the sources and engine it was graded under
    recorded: bool = False  # scored by nbgrader and its feedback written

    @classmethod
    def from_dict(cls, data: dict) -> SavedState:
        """From the file's JSON; raises on anything malformed."""
        result = NotebookResult.from_dict(data["result"])
        if not isinstance(data["digest"], str) or not isinstance(result.content_hash, str):
            raise TypeError("a saved state's digest and content hash are strings")
        return cls(result, data["digest"], bool(data.get("recorded")))

    def to_dict(self) -> dict:
        return {"digest": self.digest, "recorded": self.recorded, "result": self.result.to_dict()}


def read_state(path: Path) -> SavedState | None:
    """The saved state at `path`, or None when there is none or it cannot be read."""
    try:
        return SavedState.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # a torn file cannot exist (atomic writes), but never trust disk blindly


def read_states(state_dir: Path) -> dict[str, SavedState]:
    """Every saved state under `state_dir`, by 'student/notebook' (a file that cannot be read is left out)."""
    states = {}
    for path in state_dir.glob("*/*.json"):
        state = read_state(path)
        if state is not None:
            states[state.result.key] = state
    return states


def write_state(path: Path, state: SavedState, executed=None) -> None:
    """Save a submission's state at `path` (and its executed notebook beside it, as .ipynb, when given), atomically."""
    if executed is not None:
        tmp = path.with_suffix(f".ipynb.{os.getpid()}.tmp")
        path.parent.mkdir(parents=True, exist_ok=True)
        clean_text(executed)  # a kernel's output may hold text UTF-8 cannot encode
        nbformat.write(executed, tmp)
        os.replace(tmp, path.with_suffix(".ipynb"))
    write_json_atomic(path, state.to_dict())


@dataclass(frozen=True)
class ShardRecord:
    """Which shard of the learners a folder holds (autograder.run.shard), what graded it, the key's fingerprint."""

    index: int
    count: int
    digest: str = ""  # the sources and engine its results were graded under
    key: str = ""  # the course key's fingerprint (never the key); "" in folders graded before fingerprints


def read_shard(path: Path) -> ShardRecord | None:
    """The shard record at `path`, or None when there is none; RecordError when it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise RecordError(f"{path}: unreadable ({exc})") from None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), int) for k in ("index", "count")):
        raise RecordError(f"{path}: not a shard record")
    return ShardRecord(data["index"], data["count"], data.get("digest") or "", data.get("key") or "")


def write_shard(path: Path, record: ShardRecord) -> None:
    write_json_atomic(path, asdict(record))


def read_key(path: Path) -> str | None:
    """The course key's fingerprint recorded at `path`, or None (no record, or one that cannot be read)."""
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("fingerprint")
    except (OSError, ValueError, AttributeError):
        return None


def write_key(path: Path, fingerprint: str) -> None:
    write_json_atomic(path, {"fingerprint": fingerprint})


@dataclass(frozen=True)
class HandedIn:
    """When one submission was handed in, as a run found it (autograder.run.late)."""

    timestamp: str = ""  # ISO 8601, or "" when none was found
    late_mark: bool = False  # the LMS marked it late
    content_hash: str = ""  # the submission the time is of


def read_times(path: Path) -> dict[str, HandedIn]:
    """Each submission's time by 'student/notebook' ({} when there is no record); RecordError when unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise RecordError(f"{path}: unreadable ({exc})") from None
    if not isinstance(data, dict):
        raise RecordError(f"{path}: not a record of submission times")
    return {
        key: HandedIn(
            str(seen.get("timestamp") or ""), bool(seen.get("late_mark")), str(seen.get("content_hash") or "")
        )
        for key, seen in data.items()
        if isinstance(seen, dict)
    }


def write_times(path: Path, times: dict[str, HandedIn]) -> None:
    write_json_atomic(path, {key: asdict(seen) for key, seen in times.items()})
