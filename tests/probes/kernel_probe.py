"""What the kernel sees of itself and its neighbours, printed as one PROBE line (then the reference answer)."""
# %% answer sdpa
import json as _json, os as _os, subprocess as _subprocess


def _status(key):
    with open("/proc/self/status") as _fh:
        return next(line.split()[1] for line in _fh if line.startswith(key + ":"))


def _ls(path):
    try:
        return sorted(_os.listdir(path))
    except OSError as _e:
        return type(_e).__name__


def _works(*command):
    """True when the command succeeds (the sandbox should make these fail)."""
    try:
        return _subprocess.run(command, capture_output=True, timeout=30).returncode == 0
    except OSError:
        return False


def _signal(pid):
    try:
        _os.kill(pid, 0)
        return "delivered"
    except OSError as _e:
        return type(_e).__name__


def _fds():
    """Every descriptor the kernel holds: what it points at (sockets, pipes, files, epolls)."""
    out = {}
    for _fd in _os.listdir("/proc/self/fd"):
        try:
            out[_fd] = _os.readlink(f"/proc/self/fd/{_fd}")
        except OSError:
            pass
    return out


_planted = _os.path.exists("/tmp/left-by-an-earlier-job")
open("/tmp/left-by-an-earlier-job", "w").write("x")
def _program_starts():
    """True when a program can be started from the kernel (its seccomp filter refuses execve)."""
    try:
        _subprocess.run(["true"], capture_output=True, timeout=30)
        return True
    except OSError:
        return False


if _os.fork() == 0:  # a copy of the kernel left running on purpose: the grader must kill it
    import time as _time

    _time.sleep(300)
    _os._exit(0)
_probe = {
    "uid": _os.getuid(),
    "cap_eff": _status("CapEff"),
    "cap_bnd": _status("CapBnd"),
    "no_new_privs": _status("NoNewPrivs"),
    "hash": hash("attention"),
    "threads": torch.get_num_threads(),
    "rand": torch.rand(3).tolist(),
    "learner_folder": _ls(".."),
    "work_root": _ls("../.."),
    "planted": _planted,
    "fds": _fds(),
    # filled in by tests/test_rootless.py: folders of the instructor's, and the grader's pid
    "seen": {_p: _os.path.exists(_p) for _p in "__SECRETS__".split("|") if not _p.startswith("__")},
    "signal_grader": _signal(int("__GRADER_PID__")) if "__GRADER_PID__".isdigit() else "",
    "pids_visible": sorted(int(_p) for _p in _os.listdir("/proc") if _p.isdigit()),
    "new_userns": _works("unshare", "--user", "true"),
    "mount": _works("unshare", "--user", "--map-root-user", "mount", "-t", "tmpfs", "none", "/tmp"),
    "program_starts": _program_starts(),
}
print("PROBE" + _json.dumps(_probe))


# __reference answer__
