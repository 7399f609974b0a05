"""formgrader: nbgrader's grading UI on a results folder's own course and gradebook, as root or not.

`python -m autograder formgrader RESULTS` starts a Jupyter server in RESULTS/.course with
nbgrader's formgrader extension only, on 127.0.0.1 and a free port, with a fresh token, and
prints the URL to open (token included). The token reaches the server in its environment
(JUPYTER_TOKEN), never its command line, which any user's `ps` shows. As root it passes `--allow-root`. It serves
RESULTS/.grading (autograder.gradebook.grading_view): the course's submissions with each
written answer's rubric beside it, on the course's own gradebook, or with `--anonymous` on a
copy where every learner is a pseudonym (HMAC of the course key: `pseudonyms`), whose scores
are carried back when it stops. Scores typed there (written answers, and overrides of a
test's score) reach the reports with `python -m autograder export RESULTS`. Its Autograde button is refused by the course's
config (it would run learner code without the sandbox). Ctrl-C, SIGTERM or SIGHUP (a
service manager's stop, a closed terminal) stops the server too, never leaving it running.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

from autograder.checks import coursekey
from autograder.gradebook import grading_view
from autograder.gradebook.course_folder import CourseFolder
from autograder.results_folder import ResultsFolder

EXTENSION = "--ServerApp.jpserver_extensions={'nbgrader.server_extensions.formgrader': True}"


def free_port(ip: str) -> int:
    """A port nothing listens on now."""
    with socket.socket() as s:
        s.bind((ip, 0))
        return s.getsockname()[1]


TOKEN_ENV = "JUPYTER_TOKEN"  # where Jupyter's server reads its token: never on the command line, which ps shows


def command(port: int, ip: str = "127.0.0.1") -> list[str]:
    """The Jupyter server command (as root: --allow-root); its token goes in its environment (TOKEN_ENV)."""
    argv = [sys.executable, "-m", "jupyter", "server", "--no-browser", f"--ip={ip}", f"--port={port}"]
    argv += ["--ServerApp.port_retries=0", EXTENSION]
    return argv + (["--allow-root"] if os.geteuid() == 0 else [])


def pseudonyms(results: ResultsFolder, key_file: Path | None = None) -> dict[str, str]:
    """Each student id in RESULTS' gradebook and its pseudonym, from the course key RESULTS was graded with."""
    path = coursekey.locate(key_file)
    key = coursekey.load(path, create=False)
    held, mine = coursekey.held_by(results), coursekey.fingerprint(key)
    if held is not None and held != mine:
        raise coursekey.CourseKeyError(coursekey.refusal(results, held, mine, path))
    names = {s: coursekey.pseudonym(key, s) for s in grading_view.students(CourseFolder.of(results))}
    if len(set(names.values())) != len(names):
        raise ValueError("two learners' pseudonyms are the same; grade them by name")
    return names


def main(argv: list[str] | None = None) -> int:
    """Open RESULTS' gradebook in nbgrader's formgrader (prints the URL with its token)."""
    parser = argparse.ArgumentParser(prog="python -m autograder formgrader", description=main.__doc__)
    parser.add_argument("results", type=Path)
    parser.add_argument("--port", type=int, default=0, help="default: a free one")
    parser.add_argument("--ip", default="127.0.0.1", help="default: this machine only")
    parser.add_argument("--anonymous", action="store_true", help="learners shown as pseudonyms, names nowhere")
    parser.add_argument("--key", type=Path, help=f"the course key, for --anonymous (default: {coursekey.WHERE})")
    args = parser.parse_args(argv)
    folder = ResultsFolder(args.results.resolve())
    if not CourseFolder.of(folder).config_path.is_file():
        print(f"ERROR: {args.results} holds no graded course (run python -m autograder grade first)", file=sys.stderr)
        return 2
    try:
        shown = pseudonyms(folder, args.key) if args.anonymous else None
        view = grading_view.build(folder, shown)
    except (ValueError, OSError, sqlite3.Error) as exc:  # CourseKeyError is a ValueError
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    port, token = args.port or free_port(args.ip), secrets.token_hex(24)
    print(f"formgrader: http://{args.ip}:{port}/formgrader?token={token}", flush=True)
    if shown is not None:
        print(f"anonymous: {len(shown)} learner(s) shown as pseudonyms", flush=True)
    print(f"stop it with Ctrl-C, then: python -m autograder export {args.results}", flush=True)
    try:
        return serve(command(port, args.ip), view.root, {**os.environ, TOKEN_ENV: token})
    finally:
        if shown is not None:
            print(f"{grading_view.collect(folder)} score(s) and comment(s) carried to the learners", flush=True)


class Stopped(Exception):
    """A stop signal this process was sent (SIGTERM, SIGHUP)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_stopped(signum: int, _frame) -> None:
    raise Stopped(signum)


def serve(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> int:
    """Run the server until it ends or this process is stopped (Ctrl-C: 0; a signal: 128 + it), then stop it."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env)
    before = {s: signal.signal(s, _raise_stopped) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return proc.wait()
    except KeyboardInterrupt:
        return 0
    except Stopped as stop:
        return 128 + stop.signum
    finally:
        _stop(proc)
        for signum, handler in before.items():
            signal.signal(signum, handler)


def _stop(proc: subprocess.Popen) -> None:
    """Terminate the server (as Ctrl-C would), and kill it if it has not gone in 10 s."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
