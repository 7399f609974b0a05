"""Compare test records made on another device (e.g. CUDA) with the CPU reference's, test by test.

    python benchmarks/compare_records.py GPU_RECORDS [--cache DIR]

GPU_RECORDS holds one folder per notebook, as `GPU_RECORDS=... pytest -m gpu tests/test_gpu.py`
writes them. The CPU reference is built here exactly as `grade` builds it, and every check is
judged by the grader's own trusted verdict, with the tolerances the tests declare.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from autograder import course, paths, reference, verdict  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", type=Path)
    parser.add_argument("--cache", type=Path, default=Path("build/reference-cpu"))
    args = parser.parse_args(argv)
    failed = 0
    for name in paths.notebook_names():
        cpu = reference.build_reference(name, args.cache, course.sources_digest([name]))
        tests = sorted(p.name for p in cpu.iterdir() if p.is_dir())
        verdicts = verdict.judge(cpu, args.records / name, tests)
        bad = {t: v.detail for t, v in verdicts.items() if not v.passed}
        failed += len(bad)
        print(f"{name:34} {len(tests) - len(bad):>3}/{len(tests)} checks match the CPU reference", flush=True)
        for test, detail in bad.items():
            print(f"    {test}: {detail}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
