"""One learner kernel: its sandbox, limits, launch, execution and kill."""
