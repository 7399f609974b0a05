"""The grader parses Python source past CPython 3.11's AST recursion-depth race (gh-106905)."""

from __future__ import annotations

import ast
import gc

import pytest

from autograder.checks import pysource

SOURCE = "\n".join(f"x{j} = [({j}, {j})]" for j in range(300))


class _ParsesWhenCollected:
    """A finaliser that parses source from deeper in the stack, as a traceback's formatting does."""

    def __del__(self):
        def deep(n):
            return deep(n - 1) if n else ast.parse("y = [1, 2, (3, 4)]")

        deep(40)


@pytest.fixture
def finalisers_that_parse():
    """Cycles whose finalisers parse, collected during the next parse's AST construction."""
    thresholds = gc.get_threshold()
    gc.set_threshold(1, 1, 1)

    def plant() -> None:
        for _ in range(5):
            item = _ParsesWhenCollected()
            item.me = item

    yield plant
    gc.set_threshold(*thresholds)
    gc.collect()


def test_a_parse_the_race_stopped_is_parsed_again(finalisers_that_parse):
    finalisers_that_parse()
    tree = pysource.parse(SOURCE)
    assert len(tree.body) == 300


def test_the_race_is_real_here_or_fixed(finalisers_that_parse):
    """Plain ast.parse under the same finalisers: the race (CPython 3.11 before 3.11.8) or a tree."""
    finalisers_that_parse()
    try:
        ast.parse(SOURCE)
    except SystemError as exc:
        assert "recursion depth mismatch" in str(exc)


@pytest.mark.parametrize(
    ("message", "attempts"),
    [("something else", 1), ("AST constructor recursion depth mismatch (before=1, after=2)", pysource.ATTEMPTS)],
    ids=["another-system-error-is-not-retried", "a-race-that-keeps-coming-is-raised-after-the-last-attempt"],
)
def test_a_system_error_is_retried_only_for_the_race(monkeypatch, message, attempts):
    calls = []

    def failing(source):
        calls.append(source)
        raise SystemError(message)

    monkeypatch.setattr(ast, "parse", failing)
    with pytest.raises(SystemError, match=message.split(" (")[0]):
        pysource.parse("x = 1")
    assert len(calls) == attempts
