"""Integrity: no attack in tests/attacks/ earns a point, detectable ones are flagged, nothing escapes."""

from __future__ import annotations

import html
import json
import os
import re
import socket
from pathlib import Path

import nbformat
import pytest
from attack_support import NB01, ZERO_ANSWERS, attack_files, header, tamper
from census_names import CENSUS
from support import make_submission

from autograder import paths
from autograder.checks.perimeter import FRAME_ATTRIBUTES
from autograder.kernel import launchers, sandbox
from autograder.kernel.limits import Limits
from autograder.material.markup import strip_hidden
from autograder.run import grade

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]
ATTACKS = attack_files()


def notebook_of(path: Path) -> str:
    """The notebook an attack targets: 01 unless its `# notebook:` header names another."""
    return header(path, "notebook") or NB01


def honest_of(name: str) -> str:
    """The honest learner the attacks on a notebook are compared with."""
    return "honest" if name == NB01 else f"honest-{name[:2]}"


OTHER_NOTEBOOKS = sorted({notebook_of(p) for p in ATTACKS} - {NB01})
INJECTED_TAG = re.compile(r"<[^<>]*INJECTED")  # escaped text reads &lt;…INJECTED: never inside a tag
HOST_MARKERS = [Path("/work/pwned"), Path("/tmp/pwned-host")]
SENTINEL = Path(f"/tmp/wb-host-sentinel-{os.getuid()}")  # a host file plant_exchange_links points its links at
SENTINEL_TEXT = "a host file no learner may change\n"


def _attack_limits(how: launchers.Launcher) -> Limits:
    """Tight enough that the attacks which stall, spin or flood until a limit cost seconds, loose enough
    for the honest learner's slowest cell on a loaded 2-core machine: 0.5 s alone with a fork server
    (5 s per cell took the batch from 181 s / 302 CPU-s to 140 / 253), but its first cell imports torch
    where each kernel starts alone (rootless, bwrap): 5 s was too little there, four jobs at a time."""
    cell = 5 if how.mode == launchers.ForkServerLauncher.mode else 10
    return Limits(cell_seconds=cell, notebook_seconds=60, memory_bytes=3 * 2**29, processes=128, output_bytes=2**20)


def _other_limits() -> Limits:
    """For the other notebooks' attacks and honest learners: an honest 08's trusted checks (memory, generation)
    take seconds each on an idle machine, so the 01 batch's 5 s per cell would fail an honest learner under load."""
    return Limits(cell_seconds=60, notebook_seconds=300, memory_bytes=3 * 2**29, processes=128, output_bytes=2**20)


def _write(folder: Path, student: str, name: str, nb) -> None:
    (folder / student).mkdir()
    nbformat.write(nb, folder / student / f"{name}.ipynb")


def _submissions(tmp_path_factory) -> tuple[Path, Path]:
    """Notebook 01's attacks with its honest and idle learners, and the other notebooks' with theirs."""
    subs, others = tmp_path_factory.mktemp("attack-submissions"), tmp_path_factory.mktemp("attack-others")
    for path in ATTACKS:
        name = notebook_of(path)  # another notebook's attack starts from the reference: only its rule is at stake
        nb = make_submission(name, path, defaults=ZERO_ANSWERS if name == NB01 else None)
        for cell in nb.cells:  # the census (reach_the_kernel.py) is given what the scan allows and refuses
            cell.source = cell.source.replace('"__WB_PLAN__"', json.dumps(json.dumps(census_plan())))
        how = header(path, "tamper")
        _write(subs if name == NB01 else others, path.stem.replace("_", "-"), name, tamper(nb, how) if how else nb)
    for student, defaults in (("honest", None), ("zeros", ZERO_ANSWERS)):
        _write(subs, student, NB01, make_submission(NB01, None, defaults=defaults))
    for name in OTHER_NOTEBOOKS:  # the honest learner of each other notebook an attack targets
        _write(others, honest_of(name), name, make_submission(name, None))
    return subs, others


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    """Every attack, an honest learner and an idle one, graded into one results folder with tight limits."""
    SENTINEL.write_text(SENTINEL_TEXT)
    SENTINEL.chmod(0o600)
    subs, others = _submissions(tmp_path_factory)
    out = tmp_path_factory.mktemp("attack-results")
    listener = socket.socket()  # a real service on the host's loopback for the network attack to find
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("127.0.0.1", 8888))
        listener.listen(8)
    except OSError:  # another process (another test session) already listens there: the target exists
        socket.create_connection(("127.0.0.1", 8888), timeout=2).close()
    launcher = launchers.choose()  # the run's mode, chosen once: the limits follow it
    try:  # four at a time on 2 cores: the attacks that sleep until a limit leave the CPU to the others
        results = grade.grade(
            grade.Options(
                submissions=subs, out=out, jobs=4, sandbox=launcher, limits=_attack_limits(launcher), quiet=True
            )
        )
        results += grade.grade(
            grade.Options(submissions=others, out=out, jobs=2, sandbox=launcher, limits=_other_limits(), quiet=True)
        )
    finally:
        listener.close()
    return {r.student_id: r for r in results}, out


def census_plan() -> dict:
    """For reach_the_kernel.py: the modules and names an answer may use, and the attributes the scan refuses."""
    return {"allowed": {m: sorted(names) for m, names in CENSUS.items()}, "refused": sorted(FRAME_ATTRIBUTES)}


def _outputs(out: Path, student: str, name: str = NB01) -> str:
    """Everything the graded notebook printed (outputs only, not the attack's own source)."""
    path = out / ".state" / student / f"{name}.ipynb"
    if not path.exists():
        return ""
    cells = nbformat.read(path, as_version=4).cells
    return json.dumps([c.get("outputs", []) for c in cells])


@pytest.mark.parametrize("path", ATTACKS, ids=[p.stem for p in ATTACKS])
def test_attack_gains_nothing(attacked, path):
    results, out = attacked
    result, name = results[path.stem.replace("_", "-")], notebook_of(path)
    honest = results[honest_of(name)]
    withheld, lost = header(path, "withheld"), header(path, "lost")
    assert withheld or lost or name == NB01, (
        f"{path.stem}: an attack on {name} starts from the reference: name its test"
    )
    by_name = {t.name: t for t in result.tests}
    if withheld:  # a forbidden built-in gives right outputs: the rule's points are withheld, and it is flagged
        assert by_name[withheld].score == 0, by_name[withheld]
        assert any("forbidden" in f for f in result.flags), result.flags
        assert result.score <= honest.max_score - by_name[withheld].max_score
    elif lost:  # a property check passed without the work (memory, cache use): its test's points are lost
        assert by_name[lost].score == 0, by_name[lost]
        assert result.score <= honest.score - by_name[lost].max_score
    else:
        assert result.score == 0, [(t.name, t.score) for t in result.tests if t.score]
    assert result.max_score == honest.max_score
    flag = header(path, "flag")
    text = _outputs(out, result.student_id, name)
    if flag == "memory limit" and sandbox.cgroup_tree("memory") is None:
        # no memory cgroup (rootless): RLIMIT_AS refuses the allocation instead of killing the kernel
        assert "memory refused after" in text, "the allocation was not refused"
    elif flag:
        notes = " | ".join(result.flags + result.errors + [t.message for t in result.tests])
        assert flag.lower() in notes.lower(), f"expected a flag mentioning {flag!r}: {notes}"
    for marker in ("READABLE", "WROTE", "CONNECTED", "ESCAPED"):
        assert marker not in text, f"{path.stem}: the sandbox let it through ({marker})"
    page = out / "feedback" / result.student_id / f"{name}.html"
    if page.exists():
        assert not INJECTED_TAG.search(page.read_text(encoding="utf-8")), f"{path.stem}: markup became a tag"


# The attacks on the trusted checks themselves (what they are sent, what they read back)
IN_PROCESS = ["replace_servant", "forge_records_pickle", "frame_oracle", "tensor_subclass", "huge_reply"]


def test_attacks_on_the_checks_gain_nothing_in_the_graders_own_process(tmp_path):
    """A lone submission (and --jobs 1) is checked in the grader's process, not a worker: attack that path.

    The attacks on the checks run one after another in that one process, then an honest learner:
    each gains nothing, and nothing they did carries over to the next submission.
    """
    subs = tmp_path / "subs"
    for stem in IN_PROCESS:
        path = next(p for p in ATTACKS if p.stem == stem)
        (subs / stem.replace("_", "-")).mkdir(parents=True)
        nbformat.write(
            make_submission(NB01, path, defaults=ZERO_ANSWERS), subs / stem.replace("_", "-") / f"{NB01}.ipynb"
        )
    (subs / "zz-honest").mkdir()
    nbformat.write(make_submission(NB01, None), subs / "zz-honest" / f"{NB01}.ipynb")
    launcher = launchers.choose()  # the run's mode, chosen once: the limits follow it
    limits = _attack_limits(launcher)
    results = {
        r.student_id: r
        for r in grade.grade(
            grade.Options(submissions=subs, out=tmp_path / "out", jobs=1, sandbox=launcher, limits=limits, quiet=True)
        )
    }
    assert {s: results[s.replace("_", "-")].score for s in IN_PROCESS} == dict.fromkeys(IN_PROCESS, 0)
    assert results["zz-honest"].score == results["zz-honest"].auto_max > 0


def test_nothing_an_answer_may_name_reaches_the_kernel(attacked):
    """The census: public attributes of every allowed name (and instances of its classes) in a graded kernel."""
    results, out = attacked
    text = _outputs(out, "reach-the-kernel")
    counts = re.search(r"CENSUS started from (\d+) objects; REACHED (\d+)", text)
    assert counts, f"the census did not run: {text[-2000:]}"
    assert int(counts.group(1)) > 500, counts.group(0)  # every name the allow-list holds, and the instances
    assert counts.group(2) == "0", re.findall(r"REACHED: [^\"\\]*", text)


def _shortfall(result) -> dict:
    """What an honest learner lost: each test below its points, and every flag (empty when nothing)."""
    if result.score == result.auto_max > 0:
        return {}
    lost = [(t.name, t.score, t.max_score, t.message[:300]) for t in result.tests if t.score < t.max_score]
    return {"score": f"{result.score}/{result.auto_max}", "flags": result.flags, "errors": result.errors, "lost": lost}


def test_batch_survives_and_honest_learner_unaffected(attacked):
    results, _ = attacked
    assert results["honest"].score == results["honest"].auto_max > 0
    assert results["zeros"].score == 0
    assert len(results) == len(ATTACKS) + 2 + len(OTHER_NOTEBOOKS)
    short = {n: _shortfall(results[honest_of(n)]) for n in OTHER_NOTEBOOKS}
    assert not any(short.values()), short
    for marker in HOST_MARKERS:
        assert not marker.exists(), f"{marker} was written from inside the sandbox"
    assert SENTINEL.read_text() == SENTINEL_TEXT and SENTINEL.stat().st_mode & 0o777 == 0o600, "a host file changed"


def _hidden_lines() -> list[str]:
    """Every substantial line of a hidden block of notebook 01's source that no visible part shows."""
    source = nbformat.read(paths.source_notebook(NB01), as_version=4)
    visible = "\n".join(strip_hidden(c.source) for c in source.cells)
    lines = []
    for cell in source.cells:
        inside = False
        for line in cell.source.splitlines():
            if line.strip() == "### BEGIN HIDDEN TESTS":
                inside = True
            elif line.strip() == "### END HIDDEN TESTS":
                inside = False
            elif inside and len(line.strip()) > 24 and line.strip() not in visible:
                lines.append(line.strip())
    return lines


def test_no_hidden_line_reaches_a_learner(attacked):
    """No hidden-test line appears in any feedback page or any output of any graded notebook."""
    _, out = attacked
    hidden = _hidden_lines()
    assert len(hidden) > 20
    texts = [p.read_text() for p in (out / "feedback").glob("*/*.html")]
    texts += [_outputs(out, p.parent.name) for p in (out / ".state").glob(f"*/{NB01}.ipynb")]
    assert len(texts) > len(ATTACKS)
    for text in texts:
        leaked = [line for line in hidden if line in text or html.escape(line) in text]
        assert not leaked, leaked[:3]
    for path in (out / ".state").glob(f"*/{NB01}.ipynb"):  # the grader's own calls never land in a graded notebook
        sources = [c.source for c in nbformat.read(path, as_version=4).cells]
        assert not any(s.startswith(("__wb_serve(", "def __wb_boot(", "__wb_boot(")) for s in sources), path


INERT_MIMES = {"text/plain", "image/png", "image/jpeg"}


def test_the_course_folder_holds_no_live_learner_markup(attacked):
    """What nbgrader keeps (and formgrader renders) was made inert before nbgrader saw it.

    Between nbgrader's first pass and the feedback step, a failure (a locked gradebook while
    formgrader is open) used to leave the raw executed notebook there: HTML, SVG, scripts.
    """
    _, out = attacked
    kept = list((out / ".course").glob("submitted/*/*/*.ipynb")) + list(
        (out / ".course").glob("autograded/*/*/*.ipynb")
    )
    kept += list((out / ".state").glob("*/*.ipynb"))
    assert len(kept) > len(ATTACKS)
    for path in kept:
        for cell in nbformat.read(path, as_version=4).cells:
            for output in cell.get("outputs", []):
                assert set(output.get("data", {})) <= INERT_MIMES, (path, set(output.get("data", {})))


def test_results_stay_small(attacked):
    _, out = attacked
    assert (out / "results.json").stat().st_size < 2 * 2**20
    for page in (out / "feedback").glob("*/*.html"):
        assert page.stat().st_size < 8 * 2**20, page
