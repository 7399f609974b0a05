"""Run by a learner's kernel as it starts, under grading: nothing an answer may name leads to the kernel.

The forbidden-built-in scan (autograder.checks.forbidden) lets an answer use what the allow-list
names, and read public attributes of the objects it gets. Two of those objects are live parts of
the kernel in a plain ipykernel: sys.stdout and sys.stderr (ipykernel's OutStream, whose
`.session.parent.kernel.shell` evaluates strings), and a notebook tqdm (its widget's `.comm`
leads to the kernel too). Here, before any cell runs, each stream becomes an object with only
what printing needs, holding the real stream in a closure (reached only through `__closure__`,
which the scan refuses), and tqdm.auto's tqdm becomes a console tqdm that draws nothing (a bar
shows nothing in feedback). `tests/attacks/reach_the_kernel.py` walks the public attributes of
everything the allow-list names, and of instances of its classes, in a graded kernel: none may
lead to the kernel, a namespace or a module off the list.

The kernel runs it with `exec` in a namespace of its own (IPKernelApp.exec_lines, see
autograder.kernel.reference.kernel_args): it leaves no name in the learner's.
"""

import sys


def inert_stream(real):
    """A text stream that writes to `real` and offers nothing else of it."""

    class Stream:
        """What print, warnings, tracebacks and tqdm use of a text stream, and ipykernel of its own."""

        encoding = "utf-8"
        errors = "strict"
        closed = False

        def write(self, text):
            return real.write(text)

        def writelines(self, lines):
            for line in lines:
                real.write(line)

        def flush(self):
            real.flush()

        def isatty(self):
            return False

        def readable(self):
            return False

        def writable(self):
            return True

        def seekable(self):
            return False

        def fileno(self):
            return real.fileno()

        def set_parent(self, parent):  # ipykernel: the cell whose output this is
            real.set_parent(parent)

        def set_thread_parent(self, parent):
            return real.set_thread_parent(parent)

        def reset_thread_parent(self, token):
            real.reset_thread_parent(token)

    if not hasattr(real, "set_thread_parent"):
        del Stream.set_thread_parent, Stream.reset_thread_parent
    if not hasattr(real, "set_parent"):
        del Stream.set_parent
    return Stream()


def quiet_tqdm():
    """tqdm.auto's tqdm, as a console tqdm that draws nothing: no widget, nothing written."""
    try:
        import tqdm.auto
        import tqdm.std
    except ImportError:
        return

    class tqdm_quiet(tqdm.std.tqdm):  # noqa: N801 - it stands for tqdm
        def __init__(self, *args, **kwargs):
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

    tqdm_quiet.__name__ = tqdm_quiet.__qualname__ = "tqdm"
    tqdm.auto.tqdm = tqdm_quiet


sys.stdout, sys.stderr = inert_stream(sys.stdout), inert_stream(sys.stderr)
quiet_tqdm()
