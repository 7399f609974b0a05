"""Sandbox modes: one launcher class each, picked in one place, with a clear refusal where none runs (no kernel)."""

from __future__ import annotations

import os
import pickle
import re
from pathlib import Path

import pytest
from conftest import sandbox_or_skip

from autograder.kernel import launchers, reference, sandbox
from autograder.run import grade

ROOT = Path(__file__).resolve().parent.parent


def test_every_mode_is_one_launcher_class():
    assert set(launchers.LAUNCHERS) == {"forkserver", "bwrap", "rootless", "user-only", "unsafe"}
    for mode, cls in launchers.LAUNCHERS.items():
        assert issubclass(cls, launchers.Launcher) and cls.mode == mode
    launch = launchers.Launch("forkserver", "/tmp/agf-x/ctl/sock")
    assert pickle.loads(pickle.dumps(launch)) == launch, "a Job carries its Launch to a spawned worker"


def test_unsafe_is_asked_for_and_unknown_modes_are_refused(monkeypatch):
    assert launchers.choose(unsafe=True).mode == "unsafe"
    with pytest.raises(launchers.NoSandbox, match="not a sandbox mode"):
        launchers.choose(environ={"AUTOGRADER_SANDBOX": "chroot"})


def test_without_bubblewrap_grade_refuses_and_says_what_to_install(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(sandbox.shutil, "which", lambda tool: None)
    with pytest.raises(launchers.NoSandbox, match="apt-get install bubblewrap"):
        launchers.choose(environ={})
    (tmp_path / "subs").mkdir()
    assert grade.main([str(tmp_path / "subs"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "no sandbox" in err and "apt-get install bubblewrap" in err and "--unsafe" in err and "Gradescope" in err
    assert not (tmp_path / "out").exists(), "nothing is written when grading is refused"


def test_the_strongest_mode_this_system_allows_is_chosen():
    sandbox_or_skip()
    want = (
        ("forkserver" if os.environ.get("AUTOGRADER_PRELOAD", "1") != "0" else "bwrap")
        if os.geteuid() == 0
        else "rootless"
    )
    assert launchers.choose(environ=dict(os.environ)).mode == want


def test_root_modes_refuse_a_user_and_rootless_refuses_root():
    problem = sandbox.mode_problem("rootless" if os.geteuid() == 0 else "bwrap")
    assert problem and ("ordinary user" in problem or "needs root" in problem)


def test_the_kernel_environment_is_defined_once():
    env = reference.kernel_env("/home/k")
    assert {**reference.GRADING_ENV, "HOME": "/home/k", "TMPDIR": "/home/k"}.items() <= env.items()
    for path in (ROOT / "autograder").rglob("*.py"):
        if path.name != "reference.py":
            assert not re.search(r"MPLCONFIGDIR|PYTHONHASHSEED", path.read_text()), f"{path.name} defines kernel env"


def test_trusted_code_gets_the_strongest_sandbox_here_or_none(monkeypatch):
    """The project's own code (samples, tests, benchmarks) asks choose(), never decides unsafe itself."""
    monkeypatch.setattr(sandbox, "available", lambda: "no bubblewrap (simulated)")
    assert launchers.choose(trusted=True).mode == "unsafe"
    with pytest.raises(launchers.NoSandbox, match="simulated"):
        launchers.choose()  # learners' code: no sandbox is an error, not a fallback
    monkeypatch.setattr(sandbox, "available", lambda: None)
    assert launchers.choose(trusted=True).sandboxed


def test_no_module_but_launchers_picks_a_mode():
    """README: choose() is the only place a mode is picked; the others carry the Launcher it returns."""
    for path in [*(ROOT / "autograder").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py")]:
        text = path.read_text()
        if path.name != "launchers.py":
            assert not re.search(r"unsafe=bool\(|\.mode\s*=(?!=)|opts\.unsafe", text), path
