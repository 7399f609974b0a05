"""A job's view of its cgroup and a bounded fork bomb, printed as one CGPROBE line (then the reference answer)."""
# %% answer sdpa
import json as _json, os as _os, time as _time

if _os.fork() == 0:  # a copy of the kernel left running on purpose (no program can start): the grader kills it
    _time.sleep(317)
    _os._exit(0)
_kids, _stopped = [], ""
try:
    for _ in range(2000):  # more than any job may have: the pids limit (or RLIMIT_NPROC) stops it
        _pid = _os.fork()
        if _pid == 0:
            _time.sleep(60)
            _os._exit(0)
        _kids.append(_pid)
except OSError as _e:
    _stopped = type(_e).__name__
_time.sleep(4)  # held at the limit while tests/test_cgroups.py reads the group's counters
for _pid in _kids:
    _os.kill(_pid, 9)
    _os.waitpid(_pid, 0)
with open("/proc/self/cgroup") as _fh:
    _inside = _fh.read().split()
print("CGPROBE" + _json.dumps({"forked": len(_kids), "stopped": _stopped, "cgroup": _inside}))


# __reference answer__
