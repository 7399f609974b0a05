"""Intake: submissions found, validated and named (LMS downloads, the roster)."""
