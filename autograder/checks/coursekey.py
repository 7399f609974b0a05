"""The course key: the secret hidden inputs are drawn from, per learner, notebook and test.

A course makes its key once (32 random bytes in a file only its owner can read) and keeps
it: every run, resume, shard and machine given the same key draws the same hidden inputs
for the same learner, so a grade can be reproduced (`python -m autograder replay`), and
two learners never get the same inputs. Where it lives, first found:

1. `--key FILE` (grade, replay, merge, gradescope),
2. the file named by `AUTOGRADER_KEY_FILE`,
3. `RESULTS/.key` (made by the first `grade` into that results folder).

A missing file is created (mode 0600, atomically: two shards starting at once get one key).
The key itself is never written anywhere else; results folders and shard records hold its
fingerprint (`fingerprint`), which names it without revealing it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

from autograder.results_folder import ResultsFolder

KEY_ENV = "AUTOGRADER_KEY_FILE"
KEY_BYTES = 32


class CourseKeyError(ValueError):
    """A key file that cannot be used, or a results folder graded with another key."""


def locate(explicit: Path | None, results: Path | None) -> Path:
    """Where the key is: --key, else $AUTOGRADER_KEY_FILE, else RESULTS/.key."""
    if explicit is not None:
        return Path(explicit)
    if os.environ.get(KEY_ENV):
        return Path(os.environ[KEY_ENV])
    if results is None:
        raise CourseKeyError(f"no course key: give --key FILE or set {KEY_ENV}")
    return ResultsFolder(results).key_file


def load(path: Path, create: bool = True) -> bytes:
    """The key in `path`, made there (0600) if missing and `create`; refuses a file others can read."""
    path = Path(path)
    if not path.exists():
        if not create:
            raise CourseKeyError(f"{path}: no course key there")
        _create(path)
    if os.name == "posix" and path.stat().st_mode & 0o077:
        raise CourseKeyError(f"{path}: the course key is readable by others; chmod 600 {path}")
    text = path.read_text(encoding="ascii").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise CourseKeyError(f"{path}: not a course key (64 hex digits)") from None
    if len(key) != KEY_BYTES:
        raise CourseKeyError(f"{path}: not a course key (64 hex digits)")
    return key


def _create(path: Path) -> None:
    """A new key written to a private temporary file, then linked into place (the first writer wins)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_bytes(KEY_BYTES).hex() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)  # fails if another process made it first: theirs is the key
        except FileExistsError:
            pass
    finally:
        tmp.unlink(missing_ok=True)


def fingerprint(key: bytes) -> str:
    """A public name for a key (HMAC of a fixed label): equal keys, equal fingerprints; reveals nothing."""
    return hmac.new(key, b"attention-workbook key fingerprint", hashlib.sha256).hexdigest()[:16]


def derive_seed(key: bytes, student: str, notebook: str, test: str, value: object, answers: str = "") -> int:
    """A 32-bit seed: HMAC-SHA256(key, [student id, notebook, test grade_id, the seed the cell asked for, answers]).

    answers: the digest of the submission's answer cells (answers_digest): change any answer and every
    hidden input changes, so inputs read from one submission are no use for the next; the same
    submission (a regrade, replay) draws the same ones.
    """
    message = json.dumps([student, notebook, test, repr(value), answers], ensure_ascii=True).encode()
    return int.from_bytes(hmac.new(key, message, hashlib.sha256).digest()[:4], "little")


def answers_digest(sources: dict[str, str]) -> str:
    """SHA-256 of the answer cells' sources, by grade id (whitespace at the ends of a cell ignored)."""
    canonical = json.dumps(sorted((str(k), str(v).strip()) for k, v in sources.items()), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def claim(results: Path, key: bytes) -> None:
    """Record the key's fingerprint in RESULTS/key.json; refuse a folder graded with another key."""
    record = ResultsFolder(results).key_record  # the fingerprint of the key it was graded with
    mine = fingerprint(key)
    if record.exists():
        try:
            held = json.loads(record.read_text(encoding="utf-8")).get("fingerprint")
        except (OSError, ValueError, AttributeError):
            held = None
        if held != mine:
            raise CourseKeyError(
                f"{results} was graded with course key {held}, not {mine}: give the same key "
                f"(--key FILE or {KEY_ENV}), or grade into a new folder"
            )
        return
    from autograder.results import write_json_atomic

    write_json_atomic(record, {"fingerprint": mine})


def held_by(results: Path) -> str | None:
    """The fingerprint RESULTS/key.json names, or None."""
    try:
        return json.loads(ResultsFolder(results).key_record.read_text(encoding="utf-8")).get("fingerprint")
    except (OSError, ValueError, AttributeError):
        return None
