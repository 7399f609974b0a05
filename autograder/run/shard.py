"""Shards: `grade --shard K/N` grades only the learners whose id hashes to shard K of N.

A learner's shard is a stable hash of their id (SHA-256 of its UTF-8 bytes, mod N, plus
one), so every submission lands in exactly one shard, whatever machine computes it and in
whatever order the folder is read. K counts from 1.

`--shard auto` takes the shard from the scheduler that started the process:

- Kubernetes Indexed Job: `JOB_COMPLETION_INDEX` (0-based, so K = index + 1) and N from
  `AUTOGRADER_SHARDS`, which the manifest sets to the Job's `completions` (Kubernetes
  puts the index, not the count, into the pod's environment).
- Slurm job array: `SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_STEP`
  and `SLURM_ARRAY_TASK_COUNT`. An array's ids may start at 0 or 1 (or anywhere:
  `--array=0-49`, `--array=1-50`, `--array=10-108:2`), so K = (id - min) / step + 1 and
  N = count; the ids must form one evenly spaced range (a list such as `--array=1,4,9`
  is refused). A shard re-run on its own (`sbatch --array=7`) is an array of one: give
  it `--shard 7/50` instead.

Each results folder a sharded run writes holds `shard.json` (K, N and the digest of the
sources and engine it was graded with, and the fingerprint of the course key, never the key);
`python -m autograder merge` checks them.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from autograder.results_folder import RecordError, ResultsFolder, ShardRecord

COUNT_ENV = "AUTOGRADER_SHARDS"


class ShardError(ValueError):
    """A shard that cannot be used: a bad spec, missing scheduler variables, a folder of another shard."""


@dataclass(frozen=True)
class Shard:
    """Shard `index` (from 1) of `count`."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not (isinstance(self.index, int) and isinstance(self.count, int)) or not 1 <= self.index <= self.count:
            raise ShardError(f"shard {self.index}/{self.count}: K/N needs 1 <= K <= N (K counts from 1)")

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, student_id: str) -> bool:
        """Whether this learner is graded in this shard."""
        return shard_of(student_id, self.count) == self.index


def shard_of(student_id: str, count: int) -> int:
    """The shard (1..count) of a learner: a stable hash of the id, the same on every machine."""
    digest = hashlib.sha256(student_id.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def parse(spec: str, environ: dict[str, str] | None = None) -> Shard:
    """`K/N`, or `auto` (from the scheduler's variables, see the module's doc)."""
    spec = spec.strip()
    if spec == "auto":
        return from_env(os.environ if environ is None else environ)
    k, sep, n = spec.partition("/")
    try:
        if not sep:
            raise ValueError
        return Shard(int(k), int(n))
    except ValueError:
        raise ShardError(f"--shard {spec!r}: expected K/N (e.g. 2/8, K from 1 to N) or 'auto'") from None


def _int(environ, name: str) -> int:
    try:
        return int(environ[name])
    except KeyError:
        raise ShardError(f"--shard auto: {name} is not set") from None
    except ValueError:
        raise ShardError(f"--shard auto: {name}={environ[name]!r} is not an integer") from None


def from_env(environ) -> Shard:
    """The shard of this task, from a Kubernetes Indexed Job's or a Slurm array's variables."""
    kube, slurm = "JOB_COMPLETION_INDEX" in environ, "SLURM_ARRAY_TASK_ID" in environ
    if kube and slurm:
        raise ShardError("--shard auto: both JOB_COMPLETION_INDEX and SLURM_ARRAY_TASK_ID are set; give --shard K/N")
    if kube:
        if COUNT_ENV not in environ:
            raise ShardError(
                f"--shard auto: JOB_COMPLETION_INDEX is set but {COUNT_ENV} is not: set it to the Job's completions"
            )
        return Shard(_int(environ, "JOB_COMPLETION_INDEX") + 1, _int(environ, COUNT_ENV))
    if slurm:
        task, count = _int(environ, "SLURM_ARRAY_TASK_ID"), _int(environ, "SLURM_ARRAY_TASK_COUNT")
        low = _int(environ, "SLURM_ARRAY_TASK_MIN")
        high = int(environ.get("SLURM_ARRAY_TASK_MAX", low + count - 1))
        step = int(environ.get("SLURM_ARRAY_TASK_STEP", 1) or 1)
        if step <= 0 or (task - low) % step or (high - low) // step + 1 != count:
            raise ShardError(
                f"--shard auto: the array's ids ({low}-{high}:{step}, {count} tasks) are not one evenly spaced "
                "range; submit it as --array=1-N, or give --shard K/N"
            )
        shard = Shard((task - low) // step + 1, count)
        if COUNT_ENV in environ and _int(environ, COUNT_ENV) != count:
            raise ShardError(
                f"--shard auto: the array has {count} task(s) but {COUNT_ENV}={environ[COUNT_ENV]}: "
                f"a shard re-run on its own needs --shard K/{environ[COUNT_ENV]}"
            )
        return shard
    raise ShardError(
        "--shard auto: no scheduler variables (JOB_COMPLETION_INDEX with "
        f"{COUNT_ENV}, or SLURM_ARRAY_TASK_ID): give --shard K/N"
    )


def select(items: list, shard: Shard | None) -> list:
    """The intake items (submissions or rejected rows) of this shard's learners."""
    if shard is None:
        return items
    return [item for item in items if shard.holds(item.student_id)]


def read(folder: ResultsFolder) -> ShardRecord | None:
    """A results folder's shard record, or None when it has none."""
    try:
        return folder.read_shard()
    except RecordError as exc:
        raise ShardError(str(exc)) from None


def claim(out: ResultsFolder, shard: Shard | None) -> None:
    """Before a run: refuse a results folder that holds another shard, or all learners when a shard is asked for.

    A folder is one shard's for its whole life, so that its results are that shard's only.
    """
    held = read(out)
    if shard is None:
        if held is not None:
            raise ShardError(
                f"{out.root} holds shard {held.index}/{held.count}: grade it with --shard "
                f"{held.index}/{held.count}, or grade everyone into a new folder"
            )
        return
    if held is not None and (held.index, held.count) != (shard.index, shard.count):
        raise ShardError(
            f"{out.root} holds shard {held.index}/{held.count}, not {shard}: give each shard its own results folder"
        )
    if held is None and out.has_states():
        raise ShardError(f"{out.root} already holds results graded without --shard: give shard {shard} a new folder")


def record(out: ResultsFolder, shard: Shard | None, digest: str, key: str = "") -> None:
    """Write RESULTS/shard.json: which shard, the sources and engine and the course key's fingerprint."""
    if shard is not None:
        out.write_shard(ShardRecord(shard.index, shard.count, digest, key))
