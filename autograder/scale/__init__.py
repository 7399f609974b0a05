"""Beyond one machine's run: Gradescope, and the merge of shards."""
