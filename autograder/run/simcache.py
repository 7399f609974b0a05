"""simcache: each answer cell's print (simindex.CellPrint) kept in the results folder, by its code.

Shaping the answers (parsing and hashing every syntax node) is the similarity report's one cost
that grows with the class once the index has taken away every pair. A cell's print depends only
on its code, its cell's id, the notebook's starter code and imported names (the `Starter`), and
the code of codeshape and simindex. So prints are kept under RESULTS/.shapes/<notebook>/<version>/,
the version a digest of everything but the answer's code, in files of entries keyed by a digest
of the cell's id and code. A shard's report (`grade`) writes its learners' prints; `merge` copies
every shard's folder; `similarity RESULTS` on the merged folder then shapes only the cells no
file holds (an earlier year's, once). A print found here is the print shaping would give:
nothing about a verdict depends on whether it was kept.

Each file: {"version": V, "cells": {key: [counted, tokens, weights, big]}}, key the hex digest,
tokens and big little-endian 64-bit hashes and weights 32-bit counts, base64. A file that cannot
be read is ignored (its cells are shaped again); a file is never read from another version.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import struct
from pathlib import Path

from autograder.results import write_json_atomic
from autograder.run import codeshape, simindex

COMPACT_AT = 32  # files in a version's folder from which a save rewrites them as one


@functools.cache
def _code_digest() -> bytes:
    """The digest of the code that makes a print (a change of either makes every kept print stale)."""
    digest = hashlib.sha256()
    for module in (codeshape, simindex):
        digest.update(Path(module.__file__).read_bytes())  # type: ignore[arg-type]
    return digest.digest()


def version(cells: dict[str, frozenset[bytes]], imported: dict[str, str], cut: int) -> str:
    """The digest of all a print depends on but the answer's code: the starter code's shapes, the names, the cut."""
    digest = hashlib.sha256(_code_digest())
    digest.update(json.dumps(sorted(imported.items())).encode() + str(cut).encode())
    for cell in sorted(cells):
        digest.update(cell.encode("utf-8", "surrogatepass") + b"\0" + b"".join(sorted(cells[cell])) + b"\1")
    return digest.hexdigest()[:32]


def key(cell: str, code: str) -> str:
    """The entry of one answer cell's code."""
    text = cell.encode("utf-8", "surrogatepass") + b"\0" + code.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).hexdigest()


def _pack(cp: simindex.CellPrint) -> list:
    hashes = list(cp.tokens)
    b64 = base64.b64encode
    return [cp.counted, b64(struct.pack(f"<{len(hashes)}Q", *hashes)).decode(),
            b64(struct.pack(f"<{len(hashes)}I", *cp.tokens.values())).decode(),
            b64(struct.pack(f"<{len(cp.big)}Q", *sorted(cp.big))).decode()]  # fmt: skip


def _unpack(entry: list) -> simindex.CellPrint:
    counted, tokens, weights, big = entry
    t, w, b = (base64.b64decode(x) for x in (tokens, weights, big))
    hashes = struct.unpack(f"<{len(t) // 8}Q", t)
    return simindex.CellPrint(int(counted), dict(zip(hashes, struct.unpack(f"<{len(w) // 4}I", w), strict=True)),
                              frozenset(struct.unpack(f"<{len(b) // 8}Q", b)))  # fmt: skip


class Store:
    """One notebook's kept prints at one version: read once, new ones written by `save` (None: keep nothing)."""

    def __init__(self, folder: Path | None, version_: str) -> None:
        self.folder = folder / version_ if folder is not None else None
        self.version = version_
        self.found: dict[str, simindex.CellPrint] = {}
        self.new: dict[str, simindex.CellPrint] = {}
        for path in sorted(self.folder.glob("*.json")) if self.folder is not None and self.folder.is_dir() else []:
            self.found |= _read(path, version_)

    def get(self, k: str) -> simindex.CellPrint | None:
        return self.found.get(k)

    def add(self, k: str, cp: simindex.CellPrint) -> None:
        self.found[k] = self.new[k] = cp

    def save(self) -> None:
        """Write the prints added since the store was read (one new file), stale versions' folders removed."""
        if self.folder is None or not self.new:
            return
        _drop_other_versions(self.folder)
        files = sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []
        entries = self.found if len(files) + 1 >= COMPACT_AT else self.new
        _write(self.folder, self.version, entries)
        if entries is self.found:  # compacted: the older files' entries are all in the new one
            for path in files:
                path.unlink(missing_ok=True)
        self.new = {}


def _read(path: Path, version_: str) -> dict[str, simindex.CellPrint]:
    """A file's prints ({} when it cannot be read or is of another version)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != version_:
            return {}
        return {k: _unpack(v) for k, v in data["cells"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError, struct.error):
        return {}


def _write(folder: Path, version_: str, entries: dict[str, simindex.CellPrint]) -> None:
    cells = {k: _pack(cp) for k, cp in sorted(entries.items())}
    name = hashlib.sha256(json.dumps(cells).encode()).hexdigest()[:24]  # by content: shards' files never clash
    write_json_atomic(folder / f"{name}.json", {"version": version_, "cells": cells})


def _drop_other_versions(folder: Path) -> None:
    """The notebook's folders of other versions (never read again)."""
    for other in folder.parent.glob("*") if folder.parent.is_dir() else []:
        if other != folder and other.is_dir():
            for path in other.glob("*.json"):
                path.unlink(missing_ok=True)
            other.rmdir() if not any(other.iterdir()) else None
