"""What the platforms install and run: the slim grading requirements, the container, the Kubernetes and Slurm files."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
import yaml
from conftest import ROOT


def _requirements(path) -> dict[str, str]:
    """name -> specifier of each requirement line (comments and options left out)."""
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            name, spec = re.match(r"([A-Za-z0-9_.\-]+)(.*)", line).groups()
            out[name.lower()] = spec.strip()
    return out


def test_grading_requirements_are_slim_and_share_the_floors():
    full, slim = _requirements(ROOT / "requirements.txt"), _requirements(ROOT / "requirements-grader.txt")
    assert not {"jupyterlab", "playwright", "pytest", "ruff", "nbval", "hypothesis"} & set(slim)
    for name, spec in slim.items():
        if name in full:
            assert spec == full[name], (
                f"{name}: {spec!r} in requirements-grader.txt, {full[name]!r} in requirements.txt"
            )
    assert {"torch", "nbgrader", "ipykernel", "nbclient", "nbformat", "numpy"} <= set(slim)


# --- the grading container -----------------------------------------------------------------


def _instructions(path) -> list[tuple[str, str]]:
    """A Containerfile's instructions, continuation lines joined: (INSTRUCTION, arguments)."""
    joined, out = "", []
    for line in path.read_text().splitlines():
        if not joined and (not line.strip() or line.lstrip().startswith("#")):
            continue
        joined += line.rstrip("\\").rstrip() + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            word, _, rest = joined.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
            joined = ""
    return out


KNOWN = {"FROM", "RUN", "COPY", "ADD", "WORKDIR", "ENV", "ARG", "LABEL", "USER", "ENTRYPOINT", "CMD", "EXPOSE"}


def test_containerfile_parses_and_installs_what_setup_sh_installs():
    steps = _instructions(ROOT / "deploy" / "Containerfile")
    assert steps[0][0] == "FROM" and all(word in KNOWN for word, _ in steps), steps
    version = re.search(r"python:(\d+)\.(\d+)", steps[0][1])
    assert version and (int(version[1]), int(version[2])) >= (3, 11), steps[0]
    for word, args in steps:
        if word == "COPY":
            *sources, _dest = args.split()
            assert all((ROOT / s).exists() for s in sources), args  # what it copies is in the repository
    run = " ".join(args for word, args in steps if word == "RUN")
    assert "bubblewrap" in run and "requirements-grader.txt" in run and "requirements.txt " not in run
    # the same three steps as the Gradescope image: CPU torch from its index, the rest, nbgrader --no-deps
    from autograder.scale.gradescope import SETUP_SH

    for text in (run, SETUP_SH):
        assert "grep '^torch'" in text and "download.pytorch.org/whl/cpu" in text
        assert "grep -v -e '^torch' -e '^nbgrader'" in text and "--no-deps" in text


# --- Kubernetes ------------------------------------------------------------------------------

K8S = ROOT / "deploy" / "kubernetes"
K8S_VERSIONS = ("1.33.0", "1.34.0", "1.35.0", "1.36.0", "1.37.0")  # the versions the manifests state they need


def test_kubernetes_manifests_validate_against_the_versions_they_need():
    validate = pytest.importorskip("kubernetes_validate.utils", reason="pip install kubernetes-validate")
    for name in ("grade-job.yaml", "merge-job.yaml", "similarity-job.yaml"):
        text = (K8S / name).read_text()
        assert "Kubernetes >= 1.33" in text
        for version in K8S_VERSIONS:
            for resource in yaml.safe_load_all(text):
                validate.validate(resource, version, strict=True)  # raises ValidationError


def test_kubernetes_jobs_have_deadlines_failure_policies_and_a_ttl():
    jobs = (("grade-job.yaml", "grade"), ("merge-job.yaml", "merge"), ("similarity-job.yaml", "similarity"))
    for name, container in jobs:
        job = yaml.safe_load((K8S / name).read_text())
        spec = job["spec"]
        assert spec["activeDeadlineSeconds"] > 0 and spec["ttlSecondsAfterFinished"] > 0
        rules = spec["podFailurePolicy"]["rules"]
        fail_job = [r for r in rules if r["action"] == "FailJob"]
        assert fail_job and fail_job[0]["onExitCodes"] == {"containerName": container, "operator": "In", "values": [2]}
        pod = spec["template"]["spec"]
        assert pod["hostUsers"] is False and pod["restartPolicy"] == "Never"
        assert pod["containers"][0]["image"] == "IMAGE"  # run.sh puts a digest there, never a tag


FAKE_KUBECTL = r"""#!/bin/bash
# kubectl for tests: Jobs as files in $FAKE; a Job applied ends as $FAKE/next-NAME says (Complete or Failed).
echo "$*" >> "$FAKE/calls"
case "$1" in
    get)
        name=$3
        [ -f "$FAKE/$name.state" ] || exit 1
        [ "$#" -gt 3 ] && cat "$FAKE/$name.state"
        exit 0 ;;
    apply)
        cat > "$FAKE/applied.yaml"
        name=$(sed -n 's/^  name: //p' "$FAKE/applied.yaml" | head -1)
        cp "$FAKE/applied.yaml" "$FAKE/$name.yaml"
        outcome=$(head -1 "$FAKE/next-$name"); sed -i 1d "$FAKE/next-$name"
        echo "$outcome" > "$FAKE/$name.state" ;;
    delete) rm -f "$FAKE/$3.state" ;;
    describe) echo "fake description of $3" ;;
    logs) echo "merged: fake" ;;
esac
"""


def _run_sh(fake, image="registry.example.org/attention-workbook@sha256:" + "ab" * 32):
    env = {**os.environ, "KUBECTL": str(fake / "kubectl"), "FAKE": str(fake), "POLL": "0", "IMAGE": image}
    return subprocess.run(["sh", str(K8S / "run.sh")], env=env, capture_output=True, text=True, timeout=60)


def test_run_sh_fails_on_a_failed_job_and_can_be_run_again(tmp_path):
    (tmp_path / "kubectl").write_text(FAKE_KUBECTL)
    (tmp_path / "kubectl").chmod(0o755)
    (tmp_path / "next-grade-shards").write_text("Failed\nComplete\n")
    (tmp_path / "next-grade-merge").write_text("Complete\n")
    (tmp_path / "next-grade-similarity").write_text("Complete\n")
    first = _run_sh(tmp_path)
    assert first.returncode == 1 and "job/grade-shards: FAILED" in first.stderr, first
    assert not (tmp_path / "grade-merge.yaml").exists()  # no merge after a failed grading Job
    second = _run_sh(tmp_path)
    assert second.returncode == 0, second.stderr
    calls = (tmp_path / "calls").read_text()
    assert "delete job grade-shards" in calls and calls.count("apply -f -") == 4
    assert calls.index("logs job/grade-merge") < calls.rindex("apply -f -")  # the similarity Job after the merge
    for name in ("grade-shards", "grade-merge", "grade-similarity"):
        applied = yaml.safe_load((tmp_path / f"{name}.yaml").read_text())
        image = applied["spec"]["template"]["spec"]["containers"][0]["image"]
        assert re.fullmatch(r"registry\.example\.org/attention-workbook@sha256:[0-9a-f]{64}", image), image
    third = _run_sh(tmp_path)  # everything complete: nothing applied again
    assert third.returncode == 0 and (tmp_path / "calls").read_text().count("apply -f -") == 4
    assert "complete already" in third.stdout
    refused = _run_sh(tmp_path, image="registry.example.org/attention-workbook:latest")
    assert refused.returncode == 2 and "by digest" in refused.stderr


# --- Slurm -----------------------------------------------------------------------------------

SLURM = ROOT / "deploy" / "slurm"
FAKE_SBATCH = r"""#!/bin/bash
# sbatch for tests: records its arguments (and SHARD), prints a job id as --parsable does.
n=$(( $(wc -l < "$FAKE/calls" 2>/dev/null || echo 0) + 100 ))
echo "$n SHARD=${SHARD:-} $*" >> "$FAKE/calls"
echo "$n;cluster"
"""


def test_slurm_scripts_name_every_value_to_change():
    grade_text = (SLURM / "grade.sbatch").read_text()
    for value in ("--cpus-per-task", "--mem", "--time", "WORKBOOK", "SUBMISSIONS", "RESULTS", "array size"):
        assert value in grade_text.split("set -euo pipefail")[0], value  # named in the header, before any command
    assert "--mem" in (SLURM / "merge.sbatch").read_text().split("#SBATCH")[0]


def test_submit_prints_the_array_and_merges_after_any_end_and_rerun_recovers(tmp_path):
    (tmp_path / "sbatch").write_text(FAKE_SBATCH)
    (tmp_path / "sbatch").chmod(0o755)
    env = {**os.environ, "SBATCH": str(tmp_path / "sbatch"), "FAKE": str(tmp_path)}
    submitted = subprocess.run(["bash", str(SLURM / "submit.sh"), "5"], env=env, capture_output=True, text=True)
    assert submitted.returncode == 0, submitted.stderr
    array, merge, similar = (tmp_path / "calls").read_text().splitlines()
    assert "--array=1-5" in array and array.startswith("100 ")
    assert "--dependency=afterany:100 " in merge  # the merge runs even when a task failed, and refuses then
    assert "--dependency=afterok:101 " in similar and similar.endswith("similarity.sbatch")  # a job of its own
    assert "array job 100" in submitted.stdout and "rerun.sh K 5" in submitted.stdout
    rerun = subprocess.run(["bash", str(SLURM / "rerun.sh"), "3", "5"], env=env, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    task, again, similar = (tmp_path / "calls").read_text().splitlines()[3:]
    assert "SHARD=3/5" in task and "--array=3" in task and "--export=ALL,SHARD=3/5" in task
    assert "--dependency=afterok:103 " in again and again.endswith("merge.sbatch")
    assert "--dependency=afterok:104 " in similar and similar.endswith("similarity.sbatch")
