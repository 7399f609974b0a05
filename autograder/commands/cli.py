"""Thin command-line dispatcher: each sub-command is a module with a main(argv)."""

from __future__ import annotations

import importlib
import sys

from autograder import __version__

# (rfc3987_syntax, which jsonschema would spend a second on, is kept out in autograder/__init__.py,
# which every process of the package runs before this module.)

COMMANDS = {
    "release": ("autograder.gradebook.release", "regenerate notebooks/ and the student bundle from solutions/"),
    "grade": ("autograder.run.grade", "grade SUBMISSIONS into RESULTS (grades.csv, results.json, feedback)"),
    "merge": ("autograder.scale.merge", "merge the results of grade --shard K/N (K = 1..N) into one results folder"),
    "check": ("autograder.commands.check", "run a notebook's visible tests and print a per-part table"),
    "demo": ("autograder.commands.demo", "release, grade the sample submissions in data/, print the grades"),
    "gradescope": ("autograder.scale.gradescope", "build a Gradescope autograder zip (--out autograder.zip)"),
    "gradescope-run": ("autograder.scale.gradescope:run_main", "(inside Gradescope) grade /autograder/submission"),
    "mark": (
        "autograder.commands.manual:mark_main",
        "score a written answer or override a test, then rewrite the reports",
    ),
    "export": ("autograder.commands.manual:export_main", "rewrite RESULTS' reports with the points given by hand"),
    "release-feedback": (
        "autograder.commands.release_feedback",
        "put learners' feedback pages in nbgrader's exchange, a Canvas zip or a Moodle zip",
    ),
    "formgrader": (
        "autograder.commands.formgrader",
        "open RESULTS' gradebook in nbgrader's formgrader (prints its URL)",
    ),
    "author": ("autograder.material.authoring", "turn a percent-format draft into a source notebook"),
    "replay": (
        "autograder.commands.replay",
        "re-run one learner's test: its inputs, outputs, expected values (instructor)",
    ),
    "similarity": (
        "autograder.run.similarity",
        "compare RESULTS' answers with each other, the reference, earlier years",
    ),
    "docs": ("autograder.commands.docs", "build the documentation site into build/docs/html (warnings are errors)"),
}


def usage() -> str:
    """The list of commands."""
    lines = ["usage: python -m autograder [--version] COMMAND [options]", "", "commands:"]
    lines += [f"  {name:<10} {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the named command with the remaining arguments."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    if argv[0] == "--version":
        print(f"attention-workbook {__version__}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module_name, _, function = COMMANDS[name][0].partition(":")
    entry = getattr(importlib.import_module(module_name), function or "main")
    return int(entry(rest) or 0)
