"""The kernels' seccomp filter, loaded into a throwaway process: what it denies, with which error."""

from __future__ import annotations

import json
import platform
import subprocess
import sys

import pytest

from autograder import paths

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="the filter applies to x86_64 only")

PROBE = f"""
import ctypes, json, sys
sys.path.insert(0, {str(paths.SHIPPED)!r})
import seccomp
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0  # no_new_privs, as the kernels have it
seccomp.install()
out = {{}}
for name, nr in [("getpid", 39), ("x32 getpid", 0x40000000 | 39), ("x32 unshare", 0x40000000 | 272),
                 ("x32 mount", 0x40000000 | 165), ("x32 ptrace", 0x40000000 | 101), ("bpf", 321)]:
    ctypes.set_errno(0)
    result = libc.syscall(nr, 0, 0, 0, 0, 0)
    out[name] = [result, ctypes.get_errno()]
print(json.dumps(out))
"""


def test_x32_system_calls_are_denied_not_merely_unknown():
    """With __X32_SYSCALL_BIT set, a denied call's number would pass a filter that does not mask it.

    Without x32 support in the running kernel such calls fail with ENOSYS either way; the filter
    must answer first, with EPERM, whatever the kernel supports.
    """
    got = json.loads(subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout)
    assert got["getpid"][0] > 0, got
    for name in ("x32 getpid", "x32 unshare", "x32 mount", "x32 ptrace", "bpf"):
        assert got[name] == [-1, 1], (name, got[name])  # EPERM from the filter
