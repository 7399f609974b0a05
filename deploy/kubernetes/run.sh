#!/bin/sh
# Grade in shards on Kubernetes, then merge: the Indexed Job, a wait for all of it, the merge Job.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kubectl apply -f "$here/grade-job.yaml"
kubectl wait --for=condition=complete job/grade-shards --timeout="${TIMEOUT:-24h}"
kubectl apply -f "$here/merge-job.yaml"
kubectl wait --for=condition=complete job/grade-merge --timeout="${TIMEOUT:-24h}"
kubectl logs job/grade-merge | tail -20
