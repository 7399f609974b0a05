"""The course key: the secret hidden inputs are drawn from, per learner, notebook and test.

A course makes its key once (32 random bytes in a file only its owner can read) and keeps
it: every run, resume, shard and machine given the same key draws the same hidden inputs
for the same learner, so a grade can be reproduced (`python -m autograder replay`), and
two learners never get the same inputs. A course has one key, which `grade`, `gradescope`,
`merge` and `replay` all look for in the same places, first found:

1. `--key FILE`,
2. the file named by `AUTOGRADER_KEY_FILE`,
3. `build/course.key` in this checkout (git ignores build/; DEFAULT_KEY).

`grade` and `gradescope` make the default file on a course's first run (mode 0600, atomically),
and a named one only when told `--new-key` (every shard of a run may be told: they get one key);
a mistyped path is refused, never made. `replay` and `merge` never make one. Results folders graded before this default
hold their key in `RESULTS/.key` (legacy_key): a refusal names it.
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

from autograder import paths
from autograder.results_folder import ResultsFolder

KEY_ENV = "AUTOGRADER_KEY_FILE"
KEY_BYTES = 32
DEFAULT_KEY = paths.BUILD / "course.key"  # the course's one place when no other is named
WHERE = f"--key FILE, else ${KEY_ENV}, else build/course.key"  # the search, as errors say it
NEW_KEY_FLAG = "--new-key"  # the one way to make a key at a named place (grade, gradescope)


class CourseKeyError(ValueError):
    """A key file that cannot be used, or a results folder graded with another key."""


def locate(explicit: Path | None = None) -> Path:
    """Where the course's one key is: --key, else $AUTOGRADER_KEY_FILE, else build/course.key."""
    if explicit is not None:
        return Path(explicit)
    if os.environ.get(KEY_ENV):
        return Path(os.environ[KEY_ENV])
    return DEFAULT_KEY


def named(explicit: Path | None = None) -> bool:
    """Whether the key's place was named (--key or $AUTOGRADER_KEY_FILE), not the default."""
    return explicit is not None or bool(os.environ.get(KEY_ENV))


def legacy_key(results: ResultsFolder) -> Path | None:
    """RESULTS/.key, where a folder graded before build/course.key was the default keeps its key, or None."""
    path = results.key_file
    return path if path.is_file() else None


def check(path: Path, create: bool) -> None:
    """Refuse, before anything is written, a key place that cannot be used: a folder, no file, an unreadable file.

    A missing file is refused unless `create` (the default place on a course's first run, or --new-key).
    """
    path = Path(path)
    if path.is_dir():
        raise CourseKeyError(
            f"{path} is a folder, not a course key file: give the key file itself, e.g. --key {path / 'course.key'}"
        )
    if not path.exists():
        if not create:
            raise CourseKeyError(
                f"{path}: no course key there (looked for: {WHERE}); check the path, or pass {NEW_KEY_FLAG} to "
                "make a new key there (new hidden inputs: grade into a new results folder)"
            )
        return
    if not os.access(path, os.R_OK):  # as this user; root reads every file, the open below catches the rest
        raise CourseKeyError(_unreadable(path))


def _unreadable(path: Path) -> str:
    """Why a key file this user cannot read is refused, and what to do."""
    return (
        f"{path}: this user ({_user()}) cannot read the course key (permission denied); run as the key's "
        f"owner, or give a copy this user owns (chmod 600) with --key FILE or ${KEY_ENV}"
    )


def _user() -> str:
    """This process's user name, or its uid."""
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return f"uid {os.getuid()}"


def load(path: Path, create: bool = True) -> bytes:
    """The key in `path`, made there (0600) if missing and `create`; refuses a file others can read."""
    path = Path(path)
    check(path, create)
    if not path.exists():
        try:
            _create(path)
        except OSError as err:
            raise CourseKeyError(
                f"{path}: cannot make the course key there ({err.strerror}); name a place this user can "
                f"write with --key FILE or ${KEY_ENV}"
            ) from None
    if os.name == "posix" and path.stat().st_mode & 0o077:
        raise CourseKeyError(f"{path}: the course key is readable by others; chmod 600 {path}")
    try:
        key = bytes.fromhex(path.read_text(encoding="ascii").strip())
    except PermissionError:
        raise CourseKeyError(_unreadable(path)) from None
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


PSEUDONYM_PREFIX = "anon-"


def pseudonym(key: bytes, student: str) -> str:
    """A learner's stable pseudonym for anonymous grading: HMAC-SHA256(key, a label and the id), 10 hex digits.

    The same key gives the same pseudonym in every run and results folder; without the key
    (learners never have it) it cannot be traced back to the learner.
    """
    digest = hmac.new(key, b"attention-workbook pseudonym\0" + student.encode("utf-8", "surrogatepass"), hashlib.sha256)
    return PSEUDONYM_PREFIX + digest.hexdigest()[:10]


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


def claim(results: ResultsFolder, key: bytes, source: Path | None = None) -> None:
    """Record the key's fingerprint in RESULTS/key.json; refuse a folder graded with another key.

    source: the file the key came from, named in the refusal.
    """
    mine = fingerprint(key)
    if results.key_record.exists():  # the fingerprint of the key it was graded with (one that cannot be read: none)
        held = results.read_key()
        if held != mine:
            raise CourseKeyError(refusal(results, held, mine, source))
        return
    results.write_key(mine)


def refusal(results: ResultsFolder, held: str | None, mine: str, source: Path | None) -> str:
    """Why a folder graded with key `held` refuses key `mine` (from `source`), and what to give instead."""
    text = f"{results} was graded with course key {held}, not {mine}" + (f" (the key in {source})" if source else "")
    old = legacy_key(results)
    if old is not None and old != source:
        try:
            if fingerprint(load(old, create=False)) == held:
                return f"{text}: its key is {old}, the old default; move it to {DEFAULT_KEY} or give --key {old}"
        except CourseKeyError:
            pass
    return f"{text}: give the key it was graded with ({WHERE}), or grade into a new folder"


def held_by(results: ResultsFolder) -> str | None:
    """The fingerprint RESULTS/key.json names, or None."""
    return results.read_key()
