"""benchmarks/suite_cpu.py: its parts together are the whole suite, each test module in one part."""

from __future__ import annotations

from pathlib import Path

from benchmarks import suite_cpu

ROOT = Path(__file__).resolve().parent.parent


def test_the_parts_cover_every_test_module_once_and_nbval():
    everything = [*suite_cpu.named_paths(), *suite_cpu.rest_modules()]
    modules = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py"))
    assert sorted(p for p in everything if p != "solutions") == modules
    assert len(everything) == len(set(everything)) and "solutions" in everything


def test_busy_cpu_grows_while_this_process_computes():
    before = suite_cpu.busy_cpu_seconds()
    total = sum(i * i for i in range(3_000_000))
    assert total > 0 and suite_cpu.busy_cpu_seconds() > before
