#!/bin/bash
# deploy/slurm on a real one-node Slurm cluster, with one shard that fails and is re-run.
#
#   benchmarks/slurm_cluster.sh [WORKDIR]        # as root, on Debian 12 (or Ubuntu): heavy, minutes
#
# 1. installs Debian's slurm-wlm and munge (apt-get), writes a one-node slurm.conf under
#    WORKDIR (this machine's CPUs and memory, from slurmd -C), starts munged, slurmctld and
#    slurmd;
# 2. copies the checkout (frozen sources, as a cluster node has) with the sbatch headers
#    changed as README says (--cpus-per-task=1, --mem=2G), and 6 learners of notebook 01;
# 3. deploy/slurm/submit.sh 3, then cancels shard 2 while it runs: the merge (afterany) runs,
#    refuses and names the shard; deploy/slurm/rerun.sh 2 3 grades it again and merges;
# 4. grades the same learners in one run and compares: per-test verdicts, grades.csv,
#    lms.csv, feedback pages, gradebook rows;
# 5. stops the daemons it started. PYTHON: the venv's python (default .venv/bin/python).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-/tmp/slurm-bench}
PYTHON=${PYTHON:-$REPO/.venv/bin/python}
export OMP_NUM_THREADS=1 REPO
rm -rf "$WORK" && mkdir -p "$WORK"/{state,spool,logs}

# ---- 1. the cluster ------------------------------------------------------------------
command -v slurmctld >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge
[ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
chown munge: /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge && chown munge: /run/munge /var/log/munge /var/lib/munge
started_munge=""
if ! pgrep -x munged >/dev/null; then runuser -u munge -- /usr/sbin/munged && started_munge=1; fi
node=$(slurmd -C | head -1)
host=$(hostname -s)
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=bench
SlurmctldHost=$host
SlurmUser=root
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
$node State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld
slurmd
stop() {  # the daemons this script started, by their pid files
    for f in slurmd slurmctld; do [ -f "$WORK/$f.pid" ] && kill "$(cat "$WORK/$f.pid")" 2>/dev/null || true; done
    if [ -n "$started_munge" ] && [ -f /run/munge/munged.pid ]; then kill "$(cat /run/munge/munged.pid)" || true; fi
}
trap stop EXIT
for _ in $(seq 60); do sinfo -h -o %T 2>/dev/null | grep -qx idle && break; sleep 1; done
sinfo
echo "$(sinfo -V) on one node: $node"

# ---- 2. the checkout and the class ---------------------------------------------------------
CHECKOUT=$WORK/workbook
mkdir -p "$CHECKOUT"
for part in autograder solutions notebooks data deploy; do cp -r "$REPO/$part" "$CHECKOUT/"; done
cp "$REPO/pyproject.toml" "$CHECKOUT/"
sed -i 's/^#SBATCH --cpus-per-task=.*/#SBATCH --cpus-per-task=1/; s/^#SBATCH --mem=.*/#SBATCH --mem=2G/' \
    "$CHECKOUT"/deploy/slurm/*.sbatch
"$PYTHON" - "$WORK/subs" <<'PY'
import os, shutil, sys
from pathlib import Path
sys.path[:0] = [os.environ["REPO"] + "/tests", os.environ["REPO"]]
import nbformat
from support import make_submission
from autograder import paths
subs, nb = Path(sys.argv[1]), "01_scaled_dot_product_attention"
for student in ("ada", "ben", "cy", "dee"):
    (subs / student).mkdir(parents=True)
    shutil.copy(paths.DATA / "submissions" / student / f"{nb}.ipynb", subs / student)
for student, entry in (("gil", "wrong_no_scale.py"), ("hal", "right_einsum.py")):
    (subs / student).mkdir(parents=True)
    nbformat.write(make_submission(nb, Path(os.environ["REPO"]) / "tests/catalogue" / nb / entry), subs / student / f"{nb}.ipynb")
PY
export WORKBOOK=$CHECKOUT SUBMISSIONS=$WORK/subs RESULTS=$WORK/results PYTHON GRADE_ARGS=--quiet
cd "$WORK/logs"

wait_for() {  # JOBID: until it has left the queue; prints its final state
    while squeue -h -j "$1" 2>/dev/null | grep -q .; do sleep 1; done
    scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1
}

# ---- 3. submit, fail shard 2, recover -----------------------------------------------------
t0=$(date +%s)
"$CHECKOUT/deploy/slurm/submit.sh" 3 | tee submit.txt
array=$(sed -n 's/^array job \([0-9]*\).*/\1/p' submit.txt)
merge=$(sed -n 's/^merge job \([0-9]*\).*/\1/p' submit.txt)
until squeue -h -j "${array}_2" -o %T 2>/dev/null | grep -qx RUNNING; do sleep 0.2; done
sleep 2
scancel "${array}_2" && echo "cancelled task ${array}_2 while it ran"
echo "merge job $merge: $(wait_for "$merge")"
sed -n '/cannot merge/,$p' "grade-merge-$merge.out"
"$CHECKOUT/deploy/slurm/rerun.sh" 2 3 | tee rerun.txt
merge2=$(sed -n 's/.*merge job \([0-9]*\).*/\1/p' rerun.txt)
echo "merge job $merge2: $(wait_for "$merge2")"
tail -3 "grade-merge-$merge2.out"
echo "sharded run with one failure and recovery: $(( $(date +%s) - t0 )) s"
sacct >/dev/null 2>&1 || true

# ---- 4. one run, compared ---------------------------------------------------------------
cd "$CHECKOUT"
"$PYTHON" -m autograder grade "$WORK/subs" --out "$WORK/one" --jobs 2 --quiet >/dev/null
"$PYTHON" - "$WORK/results/merged" "$WORK/one" <<'PY'
import os, sys
from pathlib import Path
sys.path[:0] = [os.environ["REPO"] + "/tests", os.environ["REPO"]]
from test_shard import _gradebook, _verdicts
merged, one = Path(sys.argv[1]), Path(sys.argv[2])
same = {
    "verdicts": _verdicts(merged) == _verdicts(one),
    "grades.csv": (merged / "grades.csv").read_text() == (one / "grades.csv").read_text(),
    "lms.csv": (merged / "lms.csv").read_text() == (one / "lms.csv").read_text(),
    "feedback": sorted(p.relative_to(merged) for p in (merged / "feedback").rglob("*.html"))
    == sorted(p.relative_to(one) for p in (one / "feedback").rglob("*.html")),
    "gradebook": _gradebook(merged / ".course" / "gradebook.db") == _gradebook(one / ".course" / "gradebook.db"),
}
book = _gradebook(merged / ".course" / "gradebook.db")
rows = (merged / "grades.csv").read_text().count("\n") - 1
print(f"merged: {rows} grades.csv rows, {len(book['grades'])} gradebook grades, {len(book['comments'])} comments")
print("merged == one run:", same)
sys.exit(0 if all(same.values()) else 1)
PY
