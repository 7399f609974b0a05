"""The machine's course cache: nbgrader's set-up of each version of the sources, built once.

A course folder needs, per notebook, its source, the student version nbgrader generates
from it and the gradebook entries of its cells (``nbgrader generate_assignment``). These
depend only on the sources and the engine, so they are built once per machine and copied
into every new results folder, instead of being generated again each time.

An entry is ``<cache>/<key>/``: ``source/``, ``release/``, ``gradebook.db`` (assignments
only, no student) and ``MANIFEST.json`` (the key, and the SHA-256 of every file). The key
hashes the notebooks' names and contents, the helper module, the course configuration and
the versions of this package and nbgrader.

- **Where**: ``$AUTOGRADER_CACHE``, else ``$XDG_CACHE_HOME/attention-workbook``, else
  ``~/.cache/attention-workbook``. Deleting it at any time is safe.
- **Two runs at once**: an entry is built under an exclusive lock (``fcntl.flock`` on
  ``.<key>.lock``) in a folder beside it, then renamed into place: one run builds, the
  other waits and uses it.
- **Trust**: an entry is used only if its manifest names this key, and each file is
  copied only if its bytes match the manifest's hash; anything else (a half-written or
  altered entry, a leftover build) is removed and built again.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path

from autograder import __version__, paths
from autograder.gradebook import course, course_folder
from autograder.material import markup

CACHE_ENV = "AUTOGRADER_CACHE"
FORMAT = "1"  # the layout of an entry; bump when it changes
MANIFEST = "MANIFEST.json"
_PARTS = course_folder.SETUP  # source/, release/, gradebook.db


class CacheCorrupt(RuntimeError):
    """An entry's files do not match its manifest."""


def root() -> Path:
    """The cache folder of this machine (and user)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "attention-workbook"


def engine() -> str:
    """What, besides the sources, decides an entry's content."""
    template = hashlib.sha256(f"{course._CONFIG}{markup.CODE_STUB}".encode()).hexdigest()[:16]
    return f"format={FORMAT} autograder={__version__} nbgrader={version('nbgrader')} config={template}"


def key(names: list[str], solutions: Path = paths.SOLUTIONS) -> str:
    """The entry key of these notebooks as they are now (sources, helper module, engine)."""
    names = sorted(set(names))
    text = "\n".join([engine(), *names, course.sources_digest(names, solutions)])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def materialise(names: list[str], dest: Path, solutions: Path = paths.SOLUTIONS) -> str:
    """Put the set-up of these notebooks (source/, release/, gradebook.db) into the course folder dest.

    Builds the entry first if this machine has none. Returns the entry's key.
    """
    k = key(names, solutions)
    for _attempt in range(2):
        folder = _ensure(names, k, solutions)
        try:
            _copy_verified(folder, dest, k)
            return k
        except CacheCorrupt:
            with _locked(k):
                if not _intact(folder, k):
                    _discard(folder)
    raise CacheCorrupt(f"the course cache entry {root() / k} is altered as soon as it is built")


def _ensure(names: list[str], k: str, solutions: Path) -> Path:
    """The entry's folder, built (once, under the lock) when there is no complete one."""
    folder = root() / k
    if _manifest(folder, k) is not None:
        return folder
    with _locked(k):
        if _manifest(folder, k) is not None:
            return folder  # another run built it while this one waited
        if folder.exists() or folder.is_symlink():
            _discard(folder)  # half-written or foreign: never used
        for leftover in root().glob(f".*{k}.*"):
            if leftover.name != f".{k}.lock":
                _discard(leftover)  # what a builder that died left (the lock is ours now)
        build = root() / f".{k}.build-{os.getpid()}"
        try:
            _build(build, names, k, solutions)
            os.replace(build, folder)
        finally:
            if build.exists():
                _discard(build)
    return folder


def _build(build: Path, names: list[str], k: str, solutions: Path) -> None:
    build.mkdir(parents=True)
    setup = course.Course(build)
    setup.write_config()
    for name in names:
        setup.add_source(name, solutions)
    setup.generate_assignments(names)
    files = {}
    for part in _PARTS:
        top = build / part
        for path in sorted([top] if top.is_file() else top.rglob("*")):
            if path.is_file():
                files[path.relative_to(build).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    manifest = {"key": k, "names": sorted(names), "engine": engine(), "files": files}
    (build / MANIFEST).write_text(json.dumps(manifest, indent=1))  # written last: the entry is complete


def _manifest(folder: Path, k: str) -> dict | None:
    """The manifest of a complete entry for this key, else None."""
    try:
        data = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != k or not isinstance(data.get("files"), dict):
        return None
    return data


def _intact(folder: Path, k: str) -> bool:
    data = _manifest(folder, k)
    if data is None:
        return False
    for rel, digest in data["files"].items():
        try:
            if hashlib.sha256((folder / rel).read_bytes()).hexdigest() != digest:
                return False
        except OSError:
            return False
    return True


def _copy_verified(folder: Path, dest: Path, k: str) -> None:
    """Copy every file the manifest lists, each only if its bytes hash to what the manifest says."""
    data = _manifest(folder, k)
    if data is None or not data["files"]:
        raise CacheCorrupt(f"{folder}: no complete entry")
    for rel, digest in data["files"].items():
        source = folder / rel
        if ".." in Path(rel).parts or Path(rel).is_absolute() or rel.split("/")[0] not in _PARTS:
            raise CacheCorrupt(f"{folder}: the manifest names {rel!r}")
        try:
            blob = source.read_bytes()
        except OSError as exc:
            raise CacheCorrupt(f"{source}: {exc}") from exc
        if hashlib.sha256(blob).hexdigest() != digest:
            raise CacheCorrupt(f"{source}: does not match the manifest")
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_bytes(blob)
        os.replace(tmp, target)


@contextmanager
def _locked(k: str) -> Iterator[None]:
    """One builder of this key at a time, across processes."""
    base = root()
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    with open(base / f".{k}.lock", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _discard(path: Path) -> None:
    """Remove a folder that must not be used: first out of the way (one rename), then from disk."""
    trash = path.with_name(f".{path.name}.trash-{os.getpid()}")
    try:
        os.replace(path, trash)
    except OSError:
        trash = path
    if trash.is_dir() and not trash.is_symlink():
        shutil.rmtree(trash, ignore_errors=True)
    else:
        trash.unlink(missing_ok=True)
