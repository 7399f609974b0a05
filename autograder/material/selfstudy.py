"""The self-study edition: course notebooks whose test cells run every check, hidden ones included, locally.

Built from the course release (answer cells stubbed, outputs cleared) and the sources: each
test cell gets its full source back, its seeds mixed with the learner's own seed (study.py, as
the grader mixes them with the course key), and the edition ships study_data.json: the hints of
every stub and its reference answer, scrambled (revealed by study.answer once its tests pass).
"""

from __future__ import annotations

import ast
import json
import tomllib
from pathlib import Path

import nbformat

from autograder import paths
from autograder.material import answers, markup

HINTS = paths.SOLUTIONS / "hints"  # one TOML per notebook: [stub] nudge, key_idea, code_shape
TIER_KEYS = ("nudge", "key_idea", "code_shape")
SEEDERS = {"manual_seed", "default_rng", "seed", "RandomState", "Random", "seed_everything"}  # as the grader's
HIDDEN_MARKERS = {
    markup.BEGIN_HIDDEN_TESTS: "# --- the full checks (a course keeps these hidden; here they run) ---",
    markup.END_HIDDEN_TESTS: "# --- end of the full checks ---",
}
HELPERS = '("workbook.py", "wb_refusal.py")'
STUDY_HELPERS = '("workbook.py", "wb_refusal.py", "study.py", "study_data.json")'
STUDY_MODULE = paths.SHIPPED / "study.py"


def seeded(source: str, test: str) -> str:
    """`source` with the first argument of every seeding call wrapped: `manual_seed(1)` -> `manual_seed(study.seed(...))`."""
    lines = source.split("\n")
    spots = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in SEEDERS:
                arg = node.args[0]
                spots.append((arg.lineno, arg.col_offset, arg.end_lineno or arg.lineno, arg.end_col_offset or 0))
    for start, col, end, end_col in sorted(spots, reverse=True):  # last first: earlier offsets stay valid
        head, tail = lines[start - 1].encode(), lines[end - 1].encode()  # ast offsets count UTF-8 bytes
        if start == end:
            lines[start - 1] = (
                head[:col] + f"study.seed({test!r}, ".encode() + head[col:end_col] + b")" + head[end_col:]
            ).decode()
        else:
            lines[end - 1] = (tail[:end_col] + b")" + tail[end_col:]).decode()
            lines[start - 1] = (head[:col] + f"study.seed({test!r}, ".encode() + head[col:]).decode()
    return "\n".join(lines)


def full_test(source: str, test: str) -> str:
    """A test cell's source with its hidden checks shown and run, its inputs from the learner's seed."""
    lines = [HIDDEN_MARKERS.get(ln.strip(), ln) for ln in seeded(source, test).split("\n")]
    return f"study.begin({test!r})  # this test's inputs: from your own seed (study.py)\n" + "\n".join(lines)


def stub_tests(source_nb) -> dict[str, list[str]]:
    """Each stub's tests: the first run of test cells after it (stubs side by side share theirs)."""
    mapping: dict[str, list[str]] = {}
    waiting: list[str] = []
    for cell in source_nb.cells:
        if answers.is_answer(cell):
            if waiting and mapping.get(waiting[-1]):
                waiting = []
            waiting.append(answers.nbgrader_id(cell))
            mapping[waiting[-1]] = []
        elif answers.is_test(cell) and waiting:
            for stub in waiting:
                mapping[stub].append(answers.nbgrader_id(cell))
    missing = [stub for stub, tests in mapping.items() if not tests]
    if missing:
        raise ValueError(f"stubs with no test cell after them: {missing}")
    return mapping


def load_hints(name: str, stubs: list[str], folder: Path = HINTS) -> dict[str, list[str]]:
    """The three hint tiers of every stub of notebook `name`, from solutions/hints/<name>.toml."""
    path = folder / f"{name}.toml"
    if not path.is_file():
        raise ValueError(f"{path}: no hints for notebook {name}")
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    hints = {}
    for stub in stubs:
        entry = table.get(stub)
        tiers = [str(entry.get(k, "")).strip() for k in TIER_KEYS] if isinstance(entry, dict) else []
        if len(tiers) != 3 or not all(tiers):
            raise ValueError(f"{path}: stub {stub!r} needs the three tiers {', '.join(TIER_KEYS)}")
        hints[stub] = tiers
    extra = sorted(set(table) - set(stubs))
    if extra:
        raise ValueError(f"{path}: hints for stubs the notebook does not have: {extra}")
    return hints


def study_data(source_nb, name: str, hints: dict[str, list[str]]) -> dict:
    """One notebook's entry of study_data.json: per stub its tests, hints and scrambled reference answer."""
    from autograder.shipped import study

    reference = answers.reference_answers(source_nb)
    return {
        "stubs": {
            stub: {"tests": tests, "hints": hints[stub], "answer": study.scramble(reference[stub], name, stub)}
            for stub, tests in stub_tests(source_nb).items()
        }
    }


def _markdown(text: str, cell_id: str) -> nbformat.NotebookNode:
    """A markdown cell with a fixed id (the edition is byte-stable)."""
    return nbformat.v4.new_markdown_cell(text, id=cell_id)


INTRO = """**Self-study edition.** Every check of every part runs here, the ones a course keeps hidden
until grading included, on inputs drawn from your own seed (`.workbook_seed` beside the notebook,
or `WORKBOOK_SEED`): a failing check names the mistake as grading would. Below every part:
`study.hint("<part>")` prints a nudge, called again the key idea, then the shape of the code
(never the answer); `study.answer("<part>")` prints the reference answer once all of that part's
tests have passed in this session. **Honour-based:** the answers ship scrambled, not encrypted;
anyone who reads `study.py` can unscramble them. Compare only after you have earned it."""


def _stub_note(stub: str) -> nbformat.NotebookNode:
    return _markdown(
        f'*Stuck on `{stub}`?* Run `study.hint("{stub}")` (again for the next tier). Once its tests pass, '
        f'`study.answer("{stub}")` shows the reference answer (honour-based).',
        f"study-{stub}",
    )


def edition(course_nb, source_nb, name: str) -> nbformat.NotebookNode:
    """The self-study notebook: the course notebook with full test cells, the study setup and hint notes."""
    full = {answers.nbgrader_id(c): c.source for c in source_nb.cells if answers.is_test(c)}
    nb = nbformat.from_dict(course_nb)
    cells = []
    for cell in nb.cells:
        gid = answers.grade_id(cell)
        if answers.is_test(cell):
            cell.source = full_test(full[answers.nbgrader_id(cell)], answers.nbgrader_id(cell))
        cells.append(cell)
        if gid == "setup":
            cell.source = _study_setup(cell.source)
            start = f'import study\n\nprint("self-study seed", study.start("{name}"))'
            cells += [_markdown(INTRO, "study-intro"), nbformat.v4.new_code_cell(start, id="study-start")]
        elif answers.is_answer(cell):
            cells.append(_stub_note(answers.nbgrader_id(cell)))
    nb.cells = cells
    return nb


def _study_setup(source: str) -> str:
    """The setup cell fetching the self-study helpers (in Colab) from the self-study folder."""
    if source.count(HELPERS) != 1 or source.count('/notebooks"') != 1:
        raise ValueError("the setup cell no longer fetches its helpers as the self-study edition expects")
    return source.replace(HELPERS, STUDY_HELPERS).replace('/notebooks"', f'/{paths.SELF_STUDY.name}"')


def write_edition(out_dir: Path, course_dir: Path, names: list[str], solutions: Path = paths.SOLUTIONS) -> list[Path]:
    """The self-study notebooks of `names` (from the course release in course_dir), their helpers and data."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data_file = out_dir / "study_data.json"  # a release of some notebooks keeps the others' entries
    data = json.loads(data_file.read_text(encoding="utf-8")) if data_file.is_file() else {}
    written = []
    for name in names:
        source = nbformat.read(solutions / f"{name}.ipynb", as_version=4)
        course = nbformat.read(course_dir / f"{name}.ipynb", as_version=4)
        data[name] = study_data(source, name, load_hints(name, answers.answer_ids(source), solutions / "hints"))
        nbformat.write(edition(course, source, name), out_dir / f"{name}.ipynb")
        written.append(out_dir / f"{name}.ipynb")
    for helper in ("workbook.py", "wb_refusal.py"):
        (out_dir / helper).write_bytes((course_dir / helper).read_bytes())
    (out_dir / "study.py").write_bytes(STUDY_MODULE.read_bytes())
    data = {key: data[key] for key in sorted(data)}
    data_file.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return written
