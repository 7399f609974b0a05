"""Run by a learner's kernel as it starts, under grading: nothing an answer may name leads to the kernel.

The forbidden-built-in scan (autograder.checks.perimeter) lets an answer use what the allow-list
names, and read public attributes of the objects it gets. Two of those objects are live parts of
the kernel in a plain ipykernel: sys.stdout and sys.stderr (ipykernel's OutStream, whose
`.session.parent.kernel.shell` evaluates strings), and a notebook tqdm (its widget's `.comm`
leads to the kernel too). Here, before any cell runs, each stream becomes an object with only
what printing needs, holding the real stream in a closure (reached only through `__closure__`,
which the scan refuses), and tqdm.auto's tqdm becomes a small class of this file's that draws
nothing and has none of tqdm's methods (a bar shows nothing in feedback; `wrapattr` reads
attributes by name). `tests/attacks/reach_the_kernel.py` walks the public attributes of
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
    """tqdm.auto's tqdm, as a class of this file's that draws nothing and offers none of tqdm's own methods.

    Not a subclass of tqdm's: its classmethods (wrapattr, whose wrapper reads attributes by name),
    monitor thread and file wrappers would all come along.
    """
    try:
        import tqdm.auto
    except ImportError:
        return

    class tqdm_quiet:  # noqa: N801 - it stands for tqdm
        """What a training loop uses of a progress bar: iterate, count, describe, close."""

        def __init__(self, iterable=None, desc=None, total=None, *args, **kwargs):
            self.iterable, self.desc, self.n = iterable, desc, 0
            self.total = total if total is not None or iterable is None else _length(iterable)

        def __iter__(self):
            for item in self.iterable if self.iterable is not None else ():
                self.n += 1
                yield item

        def __len__(self):
            return self.total or 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, n=1):
            self.n += n

        def set_description(self, desc=None, refresh=True):
            self.desc = desc

        def set_postfix(self, *args, **kwargs):
            pass

        def set_postfix_str(self, s="", refresh=True):
            pass

        def refresh(self, *args, **kwargs):
            pass

        def reset(self, total=None):
            self.n, self.total = 0, total if total is not None else self.total

        def close(self):
            pass

        def clear(self, *args, **kwargs):
            pass

        @staticmethod
        def write(s, file=None, end="\n", nolock=False):
            (file or sys.stdout).write(s + end)

    tqdm_quiet.__name__ = tqdm_quiet.__qualname__ = "tqdm"
    tqdm.auto.tqdm = tqdm_quiet


def _length(iterable):
    try:
        return len(iterable)
    except TypeError:
        return None


sys.stdout, sys.stderr = inert_stream(sys.stdout), inert_stream(sys.stderr)
quiet_tqdm()
