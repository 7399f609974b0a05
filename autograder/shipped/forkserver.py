"""A kernel fork server: torch and ipykernel imported once, a fresh sandboxed child per job.

Importing torch, numpy and matplotlib is over half of what grading one notebook costs.
This server runs, as root, inside one bubblewrap sandbox (no network, no repository, no
course); it imports them once and then, for each job, forks a child that

  * joins the job's pids/memory cgroups (the grader kills and removes them afterwards),
  * unshares mount, network, ipc, uts and pid namespaces: a private /tmp, the other
    jobs' folders hidden under an empty tmpfs, workbook.py read-only, a loopback-less
    network of its own, and a pid namespace whose init dies with it,
  * drops to the job's own uid with no capabilities and no_new_privs, under the limits,
  * and becomes the ipykernel of that job's connection file.

Each child serves exactly one job. This file imports nothing from the autograder: it
is copied into the sandbox and run there on its own. The protocol (one connection per
job, from autograder.shipped.kernel_relay): a JSON request line in; "exit CODE" back when the
kernel has exited; the connection closing kills the job.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import selectors
import signal
import socket
import stat
import sys
import traceback
from typing import cast

import seccomp  # next to this file: autograder/shipped/seccomp.py, copied into the server's folder

PRELOAD = [
    "numpy",
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "matplotlib.pyplot",
    "tqdm.auto",
    "urllib.request",
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "IPython.core.completer",
    "jedi",
    "matplotlib_inline.backend_inline",
    "ipykernel.debugger",  # the kernel's debugger_class: imported by every kernel as it starts
    # what the kernel's refusal (refusal.py, run as it starts) imports to guard their composites
    "torch.nn.attention.flex_attention",
    "torch.ao.nn.quantizable.modules.activation",
    "torch.optim.adam",
    "torch.optim.adamw",
    "torch.nn.utils.clip_grad",
    "subprocess",
    "multiprocessing.process",
]
_CLONE = {"ns": 0x00020000, "uts": 0x04000000, "ipc": 0x08000000, "pid": 0x20000000, "net": 0x40000000}
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_MNT_DETACH = 2
_PR_SET_PDEATHSIG, _PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS = 1, 24, 38
_libc = ctypes.CDLL(None, use_errno=True)
STAGE = "/stage"  # an empty folder the server's sandbox provides (bwrap --dir)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [None if s is None else s.encode() for s in (source, target, fstype, data)]
    _check(_libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {target}")


def _join_cgroups(groups: list[str]) -> None:
    """Move this process (and so everything it will start) into the job's cgroups."""
    for group in groups:
        with open(os.path.join(group, "cgroup.procs"), "w") as fh:
            fh.write(str(os.getpid()))


def _private_mounts(req: dict) -> None:
    """A private /tmp; of the work root only this job's folders; workbook.py and Python read-only."""
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)  # from here on, nothing reaches the server's mounts
    for mounted in ("/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory"):
        if os.path.ismount(mounted):
            _check(_libc.umount2(mounted.encode(), _MNT_DETACH), f"umount {mounted}")
    keep = [req["work"], req["export"], req["ipc"], *req["read_only"]]
    _mount("tmpfs", STAGE, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0700")
    for i, path in enumerate(keep):  # set aside before /tmp and the work root are covered
        os.mkdir(f"{STAGE}/{i}")
        _mount(path, f"{STAGE}/{i}", None, _MS_BIND)
    _mount("tmpfs", "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, f"mode=1777,size={req['limits']['disk_bytes']}")
    if os.path.isdir(req["work_root"]):  # (gone already if it was under /tmp)
        _mount("tmpfs", req["work_root"], "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755")
    for i, path in enumerate(keep):
        os.makedirs(path, mode=0o755, exist_ok=True)
        _mount(f"{STAGE}/{i}", path, None, _MS_BIND)
    _check(_libc.umount2(STAGE.encode(), _MNT_DETACH), f"umount {STAGE}")
    helper = os.path.join(req["work"], "workbook.py")
    _mount(helper, helper, None, _MS_BIND)  # a mount of its own, so that it alone can be made read-only
    for path in [helper, *req["read_only"]]:
        _mount(None, path, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY)


def _drop_privileges(uid: int, limits: dict, memory_capped: bool) -> None:
    """The job's uid, no capabilities (bounding set emptied), no_new_privs, process and core limits."""
    resource.setrlimit(resource.RLIMIT_NPROC, (limits["processes"], limits["processes"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_bytes"], limits["file_bytes"]))
    if not memory_capped:  # no memory cgroup here: cap the address space beyond what is preloaded
        with open("/proc/self/statm") as fh:
            mapped = int(fh.read().split()[0]) * resource.getpagesize()
        cap = mapped + limits["memory_bytes"]
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    for cap in range(64):
        if _libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    seccomp.install()  # no new user namespaces, mounts, ptrace, bpf, io_uring, keys, modules


def fresh_random_state() -> None:
    """Seed Python's, numpy's and torch's generators from the OS, as a freshly started process does.

    Otherwise every kernel would inherit the server's state and draw the same numbers.
    """
    import random

    import numpy
    import torch

    random.seed()
    numpy.random.seed()
    torch.seed()


def _become_kernel(req: dict) -> None:
    """In the job's namespaces, as its uid: become an ipykernel, as `python -m ipykernel_launcher` would."""
    os.setsid()
    fresh_random_state()
    _drop_privileges(req["uid"], req["limits"], req["memory_cgroup"])
    os.chdir(req["work"])
    os.environ.clear()
    os.environ.update(req["env"])
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    del sys.path[0]  # this file's folder; ipykernel puts the working folder back
    sys.argv = ["ipykernel_launcher", "-f", req["connection_file"], *req.get("kernel_args", [])]
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()


def _namespace_init(req: dict) -> None:
    """pid 1 of the job's pid namespace: start the kernel, reap orphans, exit with the kernel."""
    _check(_libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
    _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    kernel = os.fork()
    if kernel == 0:
        _run_or_die(_become_kernel, req)
    while True:  # when pid 1 exits, the kernel kills everything left in the namespace
        pid, status = os.wait()
        if pid == kernel:
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _read_only_file(fd: int) -> bool:
    """Whether a descriptor is a regular file open for reading only (a font matplotlib holds, say)."""
    try:
        with open(f"/proc/self/fdinfo/{fd}") as fh:
            flags = int(next(line.split()[1] for line in fh if line.startswith("flags:")), 8)
        return stat.S_ISREG(os.fstat(fd).st_mode) and flags & os.O_ACCMODE == os.O_RDONLY
    except (OSError, StopIteration, ValueError):
        return False


def close_inherited() -> list[int]:
    """Close every descriptor the server held beyond stdio and read-only files; the ones closed.

    A forked kernel must not reach the server (its epoll, listener, stdin pipe) or another
    job through a descriptor it inherited.
    """
    fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
    closed = [fd for fd in fds if fd > 2 and not _read_only_file(fd)]
    for fd in closed:
        with contextlib.suppress(OSError):  # (the listing's own descriptor is gone already)
            os.close(fd)
    return closed


def _job(req: dict) -> None:
    """The per-job child: cgroups, namespaces, mounts, then the namespace's init."""
    close_inherited()
    _check(_libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
    _join_cgroups(req["cgroups"])
    flags = _CLONE["ns"] | _CLONE["net"] | _CLONE["ipc"] | _CLONE["uts"] | _CLONE["pid"]
    _check(_libc.unshare(flags), "unshare")
    _private_mounts(req)
    init = os.fork()  # the first child in a new pid namespace is its pid 1
    if init == 0:
        _run_or_die(_namespace_init, req)
    _, status = os.waitpid(init, 0)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _run_or_die(step, req: dict) -> None:
    """Run a child's step; a child never returns into the server's loop."""
    try:
        step(req)
        os._exit(0)
    except BaseException:  # noqa: BLE001 - report and die, whatever happened
        traceback.print_exc()
        os._exit(70)


class Server:
    """Accepts one connection per job, forks its child, reports its exit, kills it on hang-up."""

    def __init__(self, path: str) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(64)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.selector.register(sys.stdin, selectors.EVENT_READ)  # the grader holds the other end
        self.jobs: dict[int, socket.socket] = {}

    def _start(self) -> None:
        conn, _ = self.listener.accept()
        req = json.loads(conn.makefile("r").readline())
        pid = os.fork()
        if pid == 0:  # the job's child keeps nothing of the server's: no listener, epoll, job connection
            self.selector.close()
            for sock in (self.listener, conn, *self.jobs.values()):
                sock.close()
            _run_or_die(_job, req)
        self.jobs[pid] = conn
        self.selector.register(conn, selectors.EVENT_READ, pid)

    def _reap(self) -> None:
        while self.jobs:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                return
            conn = self.jobs.pop(pid, None)
            if conn is not None:
                if conn.fileno() in self.selector.get_map():
                    self.selector.unregister(conn)
                try:
                    conn.sendall(f"exit {os.waitstatus_to_exitcode(status)}\n".encode())
                except OSError:
                    pass
                conn.close()

    def serve(self) -> None:
        """Until the grader goes away (stdin closes)."""
        while True:
            for key, _ in self.selector.select(timeout=0.1):
                if key.fileobj is self.listener:
                    self._start()
                elif key.fileobj is sys.stdin:
                    if not os.read(0, 1):
                        return
                elif not cast(socket.socket, key.fileobj).recv(1):  # the relay hung up: the job is over
                    os.kill(key.data, signal.SIGKILL)
                    self.selector.unregister(key.fileobj)
            self._reap()


OPTIMIZERS = "optimizers"
"""The optional last argument: the run's notebooks train, so preload what an optimizer's first use imports."""


def _warm_optimizers() -> None:
    """Build and step an optimizer once: its first use imports torch._dynamo (about 2 s in every kernel)."""
    import torch

    weight = torch.nn.Parameter(torch.ones(2, 2))
    optimizer = torch.optim.AdamW([weight], lr=0.1)
    weight.sum().backward()
    optimizer.step()


def _warm_up() -> None:
    """Pay the first-call costs (operator dispatch, autograd, font loading) once, here (single-threaded)."""
    import io

    import matplotlib.pyplot as plt
    import torch

    x = torch.linspace(-1, 1, 4 * 8 * 16).reshape(4, 8, 16).requires_grad_()
    layer = torch.nn.Linear(16, 16)
    y = torch.nn.functional.scaled_dot_product_attention(layer(x), x, x)
    (y.softmax(-1) @ x.transpose(-2, -1)).sum().backward()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0], label="x")
    ax.imshow([[0, 1], [1, 0]])
    ax.set_title("warm-up")
    ax.legend()
    fig.tight_layout()  # the notebooks' figures lay themselves out: its first call's costs, paid here
    fig.savefig(io.BytesIO(), format="png")
    plt.close(fig)


def main() -> None:
    """python forkserver.py SOCKET WORK_ROOT [optimizers]: preload, listen, say 'ready', serve.

    WORK_ROOT is not used: it is there so that the command line (which every forked
    kernel inherits) tells which grading run a process belongs to.
    """
    for module in PRELOAD:
        __import__(module)
    _warm_up()
    if sys.argv[3:] == [OPTIMIZERS]:
        _warm_optimizers()
    threads = len(os.listdir("/proc/self/task"))
    if threads != 1:  # a thread does not survive fork: the kernels would be broken
        raise RuntimeError(f"the fork server must be single-threaded after preloading, it has {threads} threads")
    server = Server(sys.argv[1])
    print("ready", flush=True)
    try:
        server.serve()
    finally:
        for pid in list(server.jobs):
            os.kill(pid, signal.SIGKILL)
    os._exit(0)  # nothing to flush: skip the interpreter's teardown of torch (about half a second)


if __name__ == "__main__":
    main()
