"""Instructor commands that only report or ask: argv in, text and an exit code out."""
