#!/bin/bash
# Re-run one shard of a grading run (it resumes: only what is not graded yet is graded),
# then merge again once it succeeded, and write the similarity report again after the merge.
#   deploy/slurm/rerun.sh K N        # shard K of N
set -euo pipefail
K=${1:?usage: rerun.sh SHARD NUMBER_OF_SHARDS}
N=${2:?usage: rerun.sh SHARD NUMBER_OF_SHARDS}
here=$(cd "$(dirname "$0")" && pwd)
SBATCH=${SBATCH:-sbatch}
task=$(SHARD="$K/$N" $SBATCH --parsable --export=ALL,SHARD="$K/$N" --array="$K" "$here/grade.sbatch")
task=${task%%;*}
merge=$($SBATCH --parsable --dependency=afterok:"$task" "$here/merge.sbatch")
merge=${merge%%;*}
similarity=$($SBATCH --parsable --dependency=afterok:"$merge" "$here/similarity.sbatch")
similarity=${similarity%%;*}
echo "shard $K/$N: job $task; merge job $merge after it succeeds; similarity job $similarity after that"
