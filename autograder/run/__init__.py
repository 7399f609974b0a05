"""One grading run over one results folder: its jobs, workers, late work, shard, reports and regrades."""
