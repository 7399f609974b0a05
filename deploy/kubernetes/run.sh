#!/bin/sh
# Grade in shards on Kubernetes (>= 1.33), then merge: the Indexed Job, a wait, the merge Job,
# then the similarity report's Job.
#
#   IMAGE=registry.example.org/attention-workbook@sha256:<digest> deploy/kubernetes/run.sh
#
# IMAGE: the grading image (deploy/Containerfile), by digest: every pod runs the same grader.
# Exit status: 0 merged; 1 a Job failed (its description is printed; fix the cause and run
# this again); 2 IMAGE missing or not a digest. Re-runnable: a complete Job is kept, a
# failed one is deleted and applied again (the shards resume: nothing graded is lost),
# a running one is waited for. To grade a new round: kubectl delete job grade-shards
# grade-merge grade-similarity, and move /data/results/merged away. The course key is a Secret
# (kubectl create secret generic course-key --from-file=course.key=build/course.key), mounted
# where every command looks for it (build/course.key).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
KUBECTL=${KUBECTL:-kubectl}
POLL=${POLL:-10}  # seconds between looks at a Job
case "${IMAGE:-}" in
    *@sha256:*) ;;
    *)
        echo "run.sh: set IMAGE to the grading image by digest (registry/attention-workbook@sha256:...)" >&2
        exit 2
        ;;
esac

state() {  # Complete, Failed, Running (exists, not finished) or Absent
    if ! $KUBECTL get job "$1" >/dev/null 2>&1; then echo Absent; return; fi
    done=$($KUBECTL get job "$1" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{"\n"}{end}')
    case "$done" in
        *Failed*) echo Failed ;;
        *Complete*) echo Complete ;;
        *) echo Running ;;
    esac
}

run_job() {  # NAME FILE: run the Job to its end; 0 when it completed, 1 when it failed
    case "$(state "$1")" in
        Complete) echo "job/$1: complete already"; return 0 ;;
        Failed) echo "job/$1: failed before: deleting it to run it again"; $KUBECTL delete job "$1" --wait=true ;;
    esac
    if [ "$(state "$1")" = Absent ]; then
        sed "s|image: IMAGE |image: $IMAGE |" "$2" | $KUBECTL apply -f -
    fi
    while :; do
        case "$(state "$1")" in
            Complete) echo "job/$1: complete"; return 0 ;;
            Failed)
                echo "job/$1: FAILED" >&2
                $KUBECTL describe job "$1" >&2 || true
                return 1
                ;;
            Absent) echo "job/$1: deleted while running" >&2; return 1 ;;
        esac
        sleep "$POLL"
    done
}

run_job grade-shards "$here/grade-job.yaml" || exit 1
run_job grade-merge "$here/merge-job.yaml" || exit 1
$KUBECTL logs job/grade-merge | tail -20
run_job grade-similarity "$here/similarity-job.yaml" || exit 1  # a step of its own: grades stay merged if it fails
$KUBECTL logs job/grade-similarity | tail -3
