#!/bin/bash
# Queue a sharded grading run on Slurm: SHARDS array tasks, then the merge once all succeed.
#   deploy/slurm/submit.sh 50        # 50 shards; results in $RESULTS/merged
set -euo pipefail
SHARDS=${1:?usage: submit.sh NUMBER_OF_SHARDS}
here=$(cd "$(dirname "$0")" && pwd)
array=$(sbatch --parsable --array=1-"$SHARDS" "$here/grade.sbatch")
sbatch --dependency=afterok:"${array%%;*}" "$here/merge.sbatch"
