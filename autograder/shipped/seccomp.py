"""A seccomp filter for learner kernels: deny the system calls a notebook never needs.

Denied with EPERM: new user namespaces (clone/unshare with CLONE_NEWUSER), mount and the
new mount API, pivot_root, chroot, setns, ptrace and process_vm_*, bpf, perf_event_open,
io_uring, userfaultfd, the key ring, kernel modules, kexec, swap and reboot, and every x32
system call (numbers with __X32_SYSCALL_BIT, which would otherwise bypass it). clone3 gets
ENOSYS, so that the C library falls back to clone, whose flags the filter can read.

Self-contained (standard library only): the fork server loads it inside its sandbox, and
`python seccomp.py -- CMD...` installs the filter and then execs CMD (the bwrap path).
Only x86_64 is filtered; elsewhere `program()` is None and the other limits still apply.

A second filter, `no_exec_program()`, is loaded by every learner kernel as it starts (run with
`__wb_startup__`, see autograder.kernel.reference.kernel_args), on all its threads, in every sandbox
mode: execve and execveat fail with EPERM from then on. No process of the job can then be anything
but a copy of the kernel, with its refusal and its filters; the grader checks from outside that no
such copy is alive when it arms a rule (autograder.checks.harness), and forks its own copy only to
measure memory, while the rule is armed (autograder.shipped.servant.forked).
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys

_AUDIT_ARCH_X86_64 = 0xC000003E
_CLONE_NEWUSER = 0x10000000
_X32_SYSCALL_BIT = 0x40000000  # an x32 call is its x86_64 number with this bit set
_EPERM, _ENOSYS = 1, 38
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_W_ABS, _JEQ_K, _JSET_K, _RET_K = 0x20, 0x15, 0x45, 0x06
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2

DENIED_X86_64 = {
    "ptrace": 101, "chroot": 161, "pivot_root": 155, "mount": 165, "umount2": 166, "swapon": 167,
    "swapoff": 168, "reboot": 169, "init_module": 175, "delete_module": 176, "kexec_load": 246,
    "add_key": 248, "request_key": 249, "keyctl": 250, "perf_event_open": 298, "setns": 308,
    "process_vm_readv": 310, "process_vm_writev": 311, "finit_module": 313, "kexec_file_load": 320,
    "bpf": 321, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
    "fsmount": 432, "fspick": 433, "mount_setattr": 442,
}  # fmt: skip
_CLONE, _UNSHARE, _CLONE3 = 56, 272, 435
NO_EXEC_X86_64 = {"execve": 59, "execveat": 322}
_SECCOMP, _SET_MODE_FILTER, _FILTER_FLAG_TSYNC = 317, 1, 1
_PR_SET_NO_NEW_PRIVS = 38


def _assemble(code: list[tuple]) -> bytes:
    """Resolve ('jeq'|'jset', k, label) jumps to labels and pack struct sock_filter entries."""
    labels = {item[1]: i for i, item in enumerate(code) if item[0] == "label"}
    insns = [item for item in code if item[0] != "label"]
    index, out = 0, b""
    for item in code:
        if item[0] == "label":
            continue
        op, k, *target = item
        if op in ("jeq", "jset"):
            dest = sum(1 for j in code[: labels[target[0]]] if j[0] != "label")
            jt = dest - index - 1
            out += struct.pack("HBBI", _JEQ_K if op == "jeq" else _JSET_K, jt, 0, k)
        else:
            out += struct.pack("HBBI", {"ld": _LD_W_ABS, "ret": _RET_K}[op], 0, 0, k)
        index += 1
    assert index == len(insns)
    return out


def program() -> bytes | None:
    """The filter as raw struct sock_filter entries (what bwrap --seccomp reads), or None."""
    if platform.machine() != "x86_64":
        return None
    code: list[tuple] = [("ld", 4), ("jeq", _AUDIT_ARCH_X86_64, "native"), ("ret", _RET_ERRNO | _EPERM)]
    code += [("label", "native"), ("ld", 0), ("jset", _X32_SYSCALL_BIT, "deny")]  # x32 numbers: none pass
    code += [("jeq", nr, "deny") for nr in sorted(DENIED_X86_64.values())]
    code += [("jeq", _CLONE3, "enosys"), ("jeq", _CLONE, "flags"), ("jeq", _UNSHARE, "flags"), ("ret", _RET_ALLOW)]
    code += [("label", "flags"), ("ld", 16), ("jset", _CLONE_NEWUSER, "deny"), ("ret", _RET_ALLOW)]
    code += [("label", "deny"), ("ret", _RET_ERRNO | _EPERM), ("label", "enosys"), ("ret", _RET_ERRNO | _ENOSYS)]
    return _assemble(code)


def no_exec_program() -> bytes | None:
    """The kernel's own second filter: no program can be started (execve, execveat: EPERM), or None."""
    if platform.machine() != "x86_64":
        return None
    code: list[tuple] = [("ld", 4), ("jeq", _AUDIT_ARCH_X86_64, "native"), ("ret", _RET_ERRNO | _EPERM)]
    code += [("label", "native"), ("ld", 0), ("jset", _X32_SYSCALL_BIT, "deny")]
    code += [("jeq", nr, "deny") for nr in sorted(NO_EXEC_X86_64.values())]
    code += [("ret", _RET_ALLOW), ("label", "deny"), ("ret", _RET_ERRNO | _EPERM)]
    return _assemble(code)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install() -> bool:
    """Load the filter into this process (no_new_privs must be set); False where none applies."""
    prog = program()
    if prog is None:
        return False
    buffer = ctypes.create_string_buffer(prog)
    fprog = _SockFprog(len(prog) // 8, ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "could not load the seccomp filter")
    return True


def install_no_exec() -> bool:
    """Load no_exec_program() on every thread of this process (TSYNC); False where none applies."""
    prog = no_exec_program()
    if prog is None:
        return False
    buffer = ctypes.create_string_buffer(prog)
    fprog = _SockFprog(len(prog) // 8, ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "could not set no_new_privs")
    got = libc.syscall(_SECCOMP, _SET_MODE_FILTER, _FILTER_FLAG_TSYNC, ctypes.byref(fprog))
    if got != 0:  # -1 with errno, or the id of a thread that could not take the filter
        raise OSError(ctypes.get_errno(), f"could not load the no-exec filter on every thread ({got})")
    return True


if globals().get("__wb_startup__"):  # a learner kernel's start (reference.kernel_args), before any cell
    install_no_exec()

if __name__ == "__main__":  # python seccomp.py -- CMD ARGS...: filter, then become CMD
    args = sys.argv[sys.argv.index("--") + 1 :]
    install()
    os.execvp(args[0], args)
