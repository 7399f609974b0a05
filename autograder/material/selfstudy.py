"""The self-study edition: course notebooks whose test cells run every check, hidden ones included, locally.

Built from the course release (answer cells stubbed, outputs cleared) and the sources: each
test cell gets its full source back, its seeds mixed with the learner's own seed (study.py, as
the grader mixes them with the course key), and the edition ships study_data.json: the hints of
every stub and its reference answer, scrambled (revealed by study.answer once its tests pass).
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from pathlib import Path

import nbformat

from autograder import paths
from autograder.material import answers, contents, markup, rubrics

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


def _names_used(node: ast.AST) -> set[str]:
    """Every plain name `node` reads (a call `f(x)` reads `f`)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _defined(source: str) -> dict[str, set[str]]:
    """The functions and classes a cell defines at its top level, each with the names its body reads."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {n.name: _names_used(n) for n in tree.body if isinstance(n, kinds)}


def _reached(source: str, through: dict[str, set[str]]) -> set[str]:
    """The names a test cell reads, directly or through the helper functions it calls (`through`)."""
    todo, seen = list(_names_used(ast.parse(source))), set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += through.get(name, ())
    return seen


def _callers(stubs: dict[str, dict[str, set[str]]], reads: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each stub's tests by what they call: a test belongs to the newest stub it calls (the others built its input)."""
    order = list(stubs)
    calls = {test: [s for s in order if set(stubs[s]) & names] for test, names in reads.items()}
    own = {s: [t for t, called in calls.items() if called and called[-1] == s] for s in order}
    return {s: own[s] or [t for t, called in calls.items() if s in called] for s in order}


def stub_tests(source_nb) -> dict[str, list[str]]:
    """Each stub's tests: the test cells that call what the stub defines (not where they sit).

    A test calls a stub when its source, or a helper function of the notebook it calls, names a
    function or class the stub's cell defines. A test calling several stubs is the newest one's
    (02's test_to_additive_mask builds its input with causal_mask: it tests to_additive_mask); a
    stub only older tests call gets them all, and one no test names (09's DecoderBlock) gets the
    tests of the stubs whose reference answers call it.
    """
    stubs = {answers.nbgrader_id(c): _defined(c.source) for c in source_nb.cells if answers.is_answer(c)}
    helpers: dict[str, set[str]] = {}
    for cell in source_nb.cells:
        if cell.cell_type == "code" and not answers.is_answer(cell) and not answers.is_test(cell):
            helpers.update(_defined(cell.source))
    tests = {answers.nbgrader_id(c): c.source for c in source_nb.cells if answers.is_test(c)}
    mapping = _callers(stubs, {t: _reached(src, helpers) for t, src in tests.items()})
    for stub, defs in stubs.items():
        users = [s for s, d in stubs.items() if s != stub and any(set(defs) & used for used in d.values())]
        mapping[stub] = mapping[stub] or [t for user in users for t in mapping[user] if t not in mapping[stub]]
    missing = [stub for stub, found in mapping.items() if not found]
    if missing:
        raise ValueError(f"stubs no test cell calls: {missing}")
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


EXERCISES_HEADING = "## Exercises"
_ITEM = re.compile(r"^(\d+)\. ", re.M)
_SOLUTION = re.compile(r"^## Exercise (\d+)\s*$", re.M)


def exercise_count(source_nb) -> int:
    """How many numbered exercises the notebook's '## Exercises' section sets."""
    for cell in source_nb.cells:
        if cell.cell_type == "markdown" and EXERCISES_HEADING in cell.source:
            return len(_ITEM.findall(cell.source.split(EXERCISES_HEADING, 1)[1]))
    return 0


def load_exercises(name: str, count: int, folder: Path = HINTS) -> list[str]:
    """The worked solutions of a notebook's exercises, from solutions/hints/<name>.exercises.md ('## Exercise N').

    A notebook without the file has none yet (the edition then offers none); a file whose
    exercises are not exactly 1..count is refused.
    """
    path = folder / f"{name}.exercises.md"
    if not path.is_file():
        return []
    parts = _SOLUTION.split(path.read_text(encoding="utf-8"))
    numbers, texts = [int(n) for n in parts[1::2]], [t.strip() for t in parts[2::2]]
    if numbers != list(range(1, count + 1)) or not all(texts):
        raise ValueError(f"{path}: needs '## Exercise 1' to '## Exercise {count}' in order, each with a solution")
    return texts


def written_answers(source_nb) -> dict[str, str]:
    """Each written question's model answer and how a grader scores it, as the edition reveals them."""
    found = {}
    for cell in source_nb.cells:
        if answers.is_written(cell):
            gid = answers.nbgrader_id(cell)
            rubric = rubrics.parse(gid, float(cell.metadata.nbgrader.get("points", 0)), cell.source)
            found[gid] = f"{rubric.model_answer}\n\nHow a grader scores it:\n{rubric.rubric}"
    return found


def study_data(source_nb, name: str, hints: dict[str, list[str]], exercises: list[str] | None = None) -> dict:
    """One notebook's entry of study_data.json: its tests; per stub its tests, hints and scrambled answer;
    the written questions' model answers and the exercises' worked solutions, scrambled."""
    from autograder.shipped import study

    reference = answers.reference_answers(source_nb)
    return {
        "tests": [answers.nbgrader_id(c) for c in source_nb.cells if answers.is_test(c)],
        "stubs": {
            stub: {"tests": tests, "hints": hints[stub], "answer": study.scramble(reference[stub], name, stub)}
            for stub, tests in stub_tests(source_nb).items()
        },
        "written": {gid: study.scramble(text, name, gid) for gid, text in written_answers(source_nb).items()},
        "exercises": [study.scramble(text, name, f"exercise {i}") for i, text in enumerate(exercises or [], 1)],
    }


def _markdown(text: str, cell_id: str) -> nbformat.NotebookNode:
    """A markdown cell with a fixed id (the edition is byte-stable)."""
    return nbformat.v4.new_markdown_cell(text, id=cell_id)


INTRO = """**Self-study edition.** Every check of every part runs here, the ones a course keeps hidden
until grading included, on inputs drawn from your own seed (`.workbook_seed` beside the notebook,
or `WORKBOOK_SEED`): a failing check names the mistake as grading would. Below every part:
`study.hint("<part>")` shows a nudge, called again the key idea, then the shape of the code
(never the answer); `study.answer("<part>")` shows the reference answer once the tests that call
that part have passed. Once every test of the notebook has passed, `study.answer("<question>")`
shows a written question's model answer and `study.exercise(n)` the worked solution of exercise n.
Your progress (hints shown, answers opened) is kept in `.study_progress.json` beside the notebook:
a kernel restart keeps it; delete the file to start over. **Honour-based:** the answers ship
scrambled, not encrypted; anyone who reads `study.py` can unscramble them. Compare only after you
have earned it."""

CHECK_HEADING = "## Check your work"
CHECK_YOUR_WORK = """## Check your work

The table below lists every test of this notebook and its result. In this self-study edition every
check has already run, the full ones a course keeps hidden included, on inputs drawn from your own
seed: nothing is left to check when you are done, and a part that passes here passes in full. Run
the notebook again with another seed (`WORKBOOK_SEED`) to try your code on other inputs. The written
questions have no automatic check: answer them in your own words, then compare with
`study.answer("<question>")` once every test passes."""


_GRADED_LATER = re.compile(
    r"Visible tests give points and say what is likely wrong; hidden tests check more\s+\(([^)]*)\)\s+"
    r"when your notebook is graded\."
)
_FULL_HERE = (
    r"Every test says what is likely wrong, and in this self-study edition every test runs its full\n"
    r"checks (\1): nothing is left for later."
)


def _stub_note(stub: str) -> nbformat.NotebookNode:
    return _markdown(
        f'*Stuck on `{stub}`?* Run `study.hint("{stub}")` (again for the next tier). Once the tests that call it '
        f'pass, `study.answer("{stub}")` shows the reference answer (honour-based).',
        f"study-{stub}",
    )


def _written_note(gid: str) -> nbformat.NotebookNode:
    return _markdown(
        f'*Answered in your own words?* Once every test of this notebook passes, `study.answer("{gid}")` '
        "shows a model answer and how a grader scores it (honour-based).",
        f"study-{gid}",
    )


def _exercises_note(count: int) -> nbformat.NotebookNode:
    return _markdown(
        f"*Worked solutions.* Once every test of this notebook passes, `study.exercise(n)` shows the worked "
        f"solution of exercise n (1 to {count}). Try each one yourself first.",
        "study-exercises",
    )


def _study_cells(cell, name: str, exercises: int) -> list[nbformat.NotebookNode]:
    """The course cell as the edition has it, followed by the edition's own cells after it."""
    gid = answers.grade_id(cell)
    if gid == "setup":
        cell.source = _study_setup(cell.source)
        start = f'import study\n\nprint("self-study seed", study.start("{name}"))'
        return [cell, _markdown(INTRO, "study-intro"), nbformat.v4.new_code_cell(start, id="study-start")]
    if answers.is_answer(cell):
        return [cell, _stub_note(answers.nbgrader_id(cell))]
    if answers.is_written(cell):
        return [cell, _written_note(answers.nbgrader_id(cell))]
    if cell.cell_type == "markdown" and _GRADED_LATER.search(cell.source):
        cell.source = _GRADED_LATER.sub(_FULL_HERE, cell.source)
    if cell.cell_type == "markdown" and cell.source.startswith(CHECK_HEADING):
        cell.source = CHECK_YOUR_WORK
    elif contents.is_self_check(cell):
        if not cell.source.endswith(")"):
            raise ValueError(f"{name}: the self-check call no longer ends its cell")
        cell.source = cell.source[:-1] + ", every_check_ran=True)"
    elif cell.cell_type == "markdown" and EXERCISES_HEADING in cell.source and exercises:
        return [cell, _exercises_note(exercises)]
    return [cell]


def edition(course_nb, source_nb, name: str, exercises: int = 0) -> nbformat.NotebookNode:
    """The self-study notebook: the course notebook with full test cells, the study setup and its notes."""
    full = {answers.nbgrader_id(c): c.source for c in source_nb.cells if answers.is_test(c)}
    nb = nbformat.from_dict(course_nb)
    cells = []
    for cell in nb.cells:
        if answers.is_test(cell):
            cell.source = full_test(full[answers.nbgrader_id(cell)], answers.nbgrader_id(cell))
        cells += _study_cells(cell, name, exercises)
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
        hints = load_hints(name, answers.answer_ids(source), solutions / "hints")
        exercises = load_exercises(name, exercise_count(source), solutions / "hints")
        data[name] = study_data(source, name, hints, exercises)
        nbformat.write(edition(course, source, name, len(exercises)), out_dir / f"{name}.ipynb")
        written.append(out_dir / f"{name}.ipynb")
    for helper in ("workbook.py", "wb_refusal.py"):
        (out_dir / helper).write_bytes((course_dir / helper).read_bytes())
    (out_dir / "study.py").write_bytes(STUDY_MODULE.read_bytes())
    data = {key: data[key] for key in sorted(data)}
    data_file.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return written
