"""release: solutions/ -> notebooks/ (student versions) and the student bundle zip."""

from __future__ import annotations

import argparse
import shutil
import tempfile
import zipfile
from pathlib import Path

import nbformat

from autograder import paths
from autograder.gradebook import coursecache
from autograder.gradebook.course_folder import RELEASE, CourseFolder
from autograder.material import answers, colab, contents, released, selfstudy

BUNDLE_NAME = "attention-workbook-student.zip"


def normalise(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Clear outputs and execution counts so that the release is byte-stable."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)
    return nb


def release_notebooks(out_dir: Path, names: list[str] | None = None, solutions: Path = paths.SOLUTIONS) -> list[Path]:
    """Write every student notebook (nbgrader generate_assignment, via the course cache) into out_dir."""
    names = names or paths.notebook_names(solutions)
    out_dir.mkdir(parents=True, exist_ok=True)
    if out_dir.resolve() == paths.NOTEBOOKS.resolve() and solutions.resolve() == paths.SOLUTIONS.resolve():
        pin_sources(names, solutions)  # the release learners get names this version: so must its sources
    written = []
    with tempfile.TemporaryDirectory(prefix="release-") as tmp:
        setup = CourseFolder(Path(tmp))
        coursecache.materialise(names, setup.root, solutions)
        for name in names:
            nb = normalise(nbformat.read(setup.format_path(RELEASE, name, notebook=name), as_version=4))
            _current_points(nb)
            _keep_history(name, nb, solutions, record=out_dir.resolve() == paths.NOTEBOOKS.resolve())
            target = out_dir / f"{name}.ipynb"
            nbformat.write(nb, target)
            written.append(target)
    for name, helper in paths.LEARNER_HELPERS.items():  # what the notebooks import beside them (and Colab fetches)
        shutil.copyfile(helper, out_dir / name)
    return written


def _current_points(nb: nbformat.NotebookNode) -> None:
    """The self-check cell written from the graded cells' points now, whatever the source's cell still says."""
    for cell in (c for c in nb.cells if contents.is_self_check(c)):
        cell.source = contents.self_check_source(nb)


def pin_sources(names: list[str], solutions: Path = paths.SOLUTIONS) -> list[str]:
    """Set every source's setup cell to this version (colab.pin_setup); the notebooks whose cell changed."""
    pinned = []
    for name in names:
        path = solutions / f"{name}.ipynb"
        nb = nbformat.read(path, as_version=4)
        (setup,) = [cell for cell in nb.cells if answers.grade_id(cell) == "setup"]
        if colab.pin_setup(setup.source) != setup.source:
            setup.source = colab.pin_setup(setup.source)
            nbformat.write(nb, path)
            print(f"pinned {path.name}'s setup cell to version {colab.version()}")
            pinned.append(name)
    return pinned


def _keep_history(name: str, nb: nbformat.NotebookNode, solutions: Path, record: bool) -> None:
    """What the release learners have (notebooks/) gave out that `nb` changes: kept in the source and in `nb`.

    Learners' copies of an earlier release then carry no "edited" flag (autograder.material.released).
    Only the release into notebooks/ records (`record`); a release elsewhere (a test's) writes no source.
    """
    previous, source_path = paths.NOTEBOOKS / f"{name}.ipynb", solutions / f"{name}.ipynb"
    if not record or not previous.is_file() or solutions.resolve() != paths.SOLUTIONS.resolve():
        return  # `nb` carries the source's history as it is (nbgrader keeps the notebook's metadata)
    source = nbformat.read(source_path, as_version=4)
    if released.remember(source, nbformat.read(previous, as_version=4), nb):
        nbformat.write(source, source_path)
        nb.metadata.setdefault("workbook", {})[released.KEY] = released.earlier(source)
        print(f"kept what the previous release of {name} handed out ({source_path.name}'s metadata)")


# The learner's kit beside the notebooks: its own README, requirements and self-check (name in the zip: source).
KIT = {
    "README.md": paths.ROOT / "autograder" / "kit" / "README.md",
    "requirements.txt": paths.ROOT / "requirements-learner.txt",
    "self_check.py": paths.ROOT / "autograder" / "checks" / "selfcheck.py",
    # the answer scan self_check.py runs, as the grader does (autograder.checks.perimeter and what it reads)
    "autograder/__init__.py": paths.ROOT / "autograder" / "kit" / "scan_package.py",
    "autograder/checks/__init__.py": paths.ROOT / "autograder" / "kit" / "scan_package.py",
    "autograder/checks/perimeter.py": paths.ROOT / "autograder" / "checks" / "perimeter.py",
    "autograder/checks/pysource.py": paths.ROOT / "autograder" / "checks" / "pysource.py",
    "autograder/checks/attrnames.py": paths.ROOT / "autograder" / "checks" / "attrnames.py",
}


def write_bundle(notebook_dir: Path, bundle: Path) -> Path:
    """Zip the student notebooks, the helper module and the learner's kit (nothing else) for distribution."""
    bundle.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(bundle, "w", zipfile.ZIP_DEFLATED) as zf:
        helpers = [notebook_dir / name for name in paths.LEARNER_HELPERS]
        for path in sorted(notebook_dir.glob("[0-9][0-9]_*.ipynb")) + helpers:
            zf.write(path, f"attention-workbook/{path.name}")
        for name, path in KIT.items():
            zf.write(path, f"attention-workbook/{name}")
        zf.writestr("attention-workbook/VERSION", f"{colab.version()}\n")  # the release these notebooks are
    return bundle


def main(argv: list[str] | None = None) -> int:
    """Regenerate notebooks/ from solutions/ and write the student bundle."""
    parser = argparse.ArgumentParser(prog="python -m autograder release", description=main.__doc__)
    parser.add_argument("--out", type=Path, default=paths.NOTEBOOKS, help="student notebook folder")
    parser.add_argument("--bundle", type=Path, default=paths.BUILD / BUNDLE_NAME, help="zip to write")
    parser.add_argument("--self-study", type=Path, default=paths.SELF_STUDY, help="self-study edition folder")
    parser.add_argument("notebooks", nargs="*", help="only these notebooks (default: all)")
    args = parser.parse_args(argv)
    written = release_notebooks(args.out, args.notebooks or None)
    bundle = write_bundle(args.out, args.bundle)
    studied = selfstudy.write_edition(args.self_study, args.out, [p.stem for p in written])
    if args.out == paths.NOTEBOOKS:
        for page in colab.update_links(paths.notebook_names(paths.NOTEBOOKS)):
            print(f"updated {page.relative_to(paths.ROOT)}'s Open-in-Colab links")
    for path in written:
        print(f"released {path}")
    for path in studied:
        print(f"self-study {path}")
    print(f"bundle   {bundle}")
    return 0
