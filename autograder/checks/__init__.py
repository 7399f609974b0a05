"""The trusted harness: hidden checks run in the grader's process against the learner's kernel."""
