#!/bin/bash
# Queue a sharded grading run on Slurm: N array tasks (one shard each), the merge, the similarity report.
#   deploy/slurm/submit.sh 50        # 50 shards; results in $RESULTS/merged
# N: the array size (how many shards). The merge waits for every task to END (afterany):
# if a shard failed it refuses and names it; re-run it with rerun.sh K N (merges again).
# Exports (WORKBOOK, SUBMISSIONS, RESULTS, ...) reach both jobs: sbatch passes the environment.
set -euo pipefail
SHARDS=${1:?usage: submit.sh NUMBER_OF_SHARDS}
here=$(cd "$(dirname "$0")" && pwd)
SBATCH=${SBATCH:-sbatch}
array=$($SBATCH --parsable --array=1-"$SHARDS" "$here/grade.sbatch")
array=${array%%;*}
merge=$($SBATCH --parsable --dependency=afterany:"$array" "$here/merge.sbatch")
merge=${merge%%;*}
similarity=$($SBATCH --parsable --dependency=afterok:"$merge" "$here/similarity.sbatch")
similarity=${similarity%%;*}
echo "array job $array: shards 1..$SHARDS (logs grade-shard-${array}_K.out)"
echo "merge job $merge: runs when every task of $array has ended (log grade-merge-${merge}.out)"
echo "similarity job $similarity: the similarity report, after the merge succeeded (log grade-similarity-${similarity}.out)"
echo "if a shard fails (sacct -j $array), the merge refuses and names it; then:"
echo "  $here/rerun.sh K $SHARDS     # grades shard K again (it resumes) and queues the merge after it"
