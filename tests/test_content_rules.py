"""Content rules of the notebooks: what learners read is self-contained, follows one template,
keeps cells short, and states every rule a hidden check enforces."""

from __future__ import annotations

import ast
import re
import textwrap

import nbformat
import pytest
from conftest import NAMES
from dependencies import answer_dependencies

from autograder import paths
from autograder.material import answers, contents

# Words that point to documents learners do not have (the course material the workbook was built from).
MISSING_DOCUMENTS = re.compile(r"\b(seed|the lab|assessment exercises?)\b", re.IGNORECASE)
CHECK_METHODS = {"close", "equal", "true", "raises", "forbidden", "untouched"}
HIDDEN_BLOCK = re.compile(r"### BEGIN HIDDEN TESTS(.*?)### END HIDDEN TESTS", re.S)
MAX_CODE_LINES = 40


def student(name: str) -> nbformat.NotebookNode:
    return nbformat.read(paths.NOTEBOOKS / f"{name}.ipynb", as_version=4)


def source(name: str) -> nbformat.NotebookNode:
    return nbformat.read(paths.source_notebook(name), as_version=4)


def prose(text: str) -> str:
    """Markdown without code: fenced blocks and `inline code` (argument names such as `seed` are code)."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    return re.sub(r"`[^`\n]*`", " ", text)


def normalise(text: str) -> str:
    return " ".join(text.split())


def learner_strings(code: str) -> list[str]:
    """Test names, check keys, messages, hints and mistake names: the strings a learner reads in results."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:  # not plain Python: every string literal counts
        return [prose(m.group(1)) for m in re.finditer(r"\"([^\"\n]*)\"", code)]
    found: list[str] = []

    def strings(node: ast.AST) -> None:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                found.append(sub.value)

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        is_check = isinstance(func, ast.Name) and func.id == "Check"
        is_method = isinstance(func, ast.Attribute) and func.attr in CHECK_METHODS
        if is_check or is_method:
            for arg in [*node.args, *(kw.value for kw in node.keywords)]:
                if isinstance(arg, ast.Lambda):
                    continue
                strings(arg)
    return [prose(s) for s in found]


@pytest.mark.parametrize("name", NAMES)
def test_no_text_names_a_missing_document(name):
    nb = student(name)
    hits = []
    for index, cell in enumerate(nb.cells):
        texts = [prose(cell.source)] if cell.cell_type == "markdown" else learner_strings(cell.source)
        hits += [
            f"cell {index}: {m.group(0)!r} in {t.strip()[:80]!r}" for t in texts for m in MISSING_DOCUMENTS.finditer(t)
        ]
    # hidden checks' names and messages reach learners through feedback
    for index, cell in enumerate(source(name).cells):
        if answers.is_test(cell):
            for block in HIDDEN_BLOCK.findall(cell.source):
                for text in learner_strings(block):
                    hits += [
                        f"source cell {index} (hidden): {m.group(0)!r} in {text.strip()[:80]!r}"
                        for m in MISSING_DOCUMENTS.finditer(text)
                    ]
    assert hits == []


@pytest.mark.parametrize("folder", ["solutions", "notebooks"])
@pytest.mark.parametrize("name", NAMES)
def test_code_cells_are_short(name, folder):
    path = (paths.SOLUTIONS if folder == "solutions" else paths.NOTEBOOKS) / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    too_long = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        lines = len(cell.source.splitlines())
        if lines > MAX_CODE_LINES:
            too_long.append(f"cell {index} ({cell.get('id')}): {lines} lines")
    assert too_long == [], f"code cells over {MAX_CODE_LINES} lines: split them or move helpers out"


TEMPLATE = ["objectives", "setup", "concepts", "check your work", "summary", "exercises"]


def template_positions(nb) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {part: [] for part in TEMPLATE}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            if answers.grade_id(cell) == "setup":
                found["setup"].append(index)
            continue
        for line in cell.source.splitlines():
            if line.startswith("**Objectives.**"):
                found["objectives"].append(index)
            elif re.match(r"## 1\. ", line):
                found["concepts"].append(index)
            elif line.strip() == "## Check your work":
                found["check your work"].append(index)
            elif line.strip() == "## Summary":
                found["summary"].append(index)
            elif line.strip() == "## Exercises":
                found["exercises"].append(index)
    return found


@pytest.mark.parametrize("name", NAMES)
def test_template_order(name):
    nb = student(name)
    found = template_positions(nb)
    assert all(len(found[part]) == 1 for part in TEMPLATE), found
    order = [found[part][0] for part in TEMPLATE]
    assert order == sorted(order), f"template order broken: {dict(zip(TEMPLATE, order, strict=True))}"
    check_cell = nb.cells[found["check your work"][0] + 1]
    assert contents.is_self_check(check_cell), "the cell after 'Check your work' is the self-check cell"
    later_headings = [
        line
        for cell in nb.cells[found["check your work"][0] + 2 :]
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("## ")
    ]
    assert later_headings == ["## Summary", "## Exercises"], later_headings
    headings = [
        line.split(". ", 1)[-1]
        for cell in nb.cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("## ")
    ]
    assert len(headings) == len(set(headings)), f"two sections share a title: {headings}"


# -- every hidden check is stated in the text ---------------------------------------------

HIDDEN_CALL = re.compile(r"check\.(?:close|equal|true|raises|forbidden|untouched)\(\s*f?(\"[^\"]*\"|'[^']*')")


def hidden_checks(nb) -> list[str]:
    """'grade_id/key' of every check in a hidden block (f-string keys as written, braces kept)."""
    keys = []
    for cell in nb.cells:
        if answers.is_test(cell):
            for block in HIDDEN_BLOCK.findall(cell.source):
                keys += [f"{answers.grade_id(cell)}/{m.group(1)[1:-1]}" for m in HIDDEN_CALL.finditer(block)]
    return keys


def rules_table(nb) -> dict[str, str]:
    return dict(nb.metadata.get("workbook", {}).get("rules", {}))


RULED = [name for name in NAMES if rules_table(source(name))]


@pytest.mark.parametrize("name", RULED)
def test_every_hidden_check_names_its_stated_rule(name):
    src = source(name)
    table = rules_table(src)
    keys = hidden_checks(src)
    assert keys, "a rules table but no hidden check"
    assert sorted(set(keys) - set(table)) == [], "hidden checks with no rule in metadata.workbook.rules"
    assert sorted(set(table) - set(keys)) == [], "rules for hidden checks that no longer exist"
    text = normalise(" ".join(c.source for c in student(name).cells if c.cell_type == "markdown"))
    missing = {key: sentence for key, sentence in table.items() if normalise(sentence) not in text}
    assert missing == {}, "rule sentences not found in the released notebook's text"
    near = stated_near(src, student(name))
    far = {key: sentence for key, sentence in table.items() if not near(key, sentence)}
    assert far == {}, "rule sentences not in the section of the test or of an answer cell it reads"


def section_texts(nb) -> tuple[dict[str, int], dict[int, str]]:
    """Each graded cell's section (a new one at every '## ' heading) and each section's markdown."""
    where, texts, section = {}, {}, 0
    for cell in nb.cells:
        if cell.cell_type == "markdown" and any(line.startswith("## ") for line in cell.source.splitlines()):
            section += 1
        if cell.cell_type == "markdown":
            texts[section] = texts.get(section, "") + " " + cell.source
        if answers.grade_id(cell):
            where[answers.grade_id(cell)] = section
    return where, {k: normalise(v) for k, v in texts.items()}


def stated_near(src, learner):
    """(key, sentence) -> whether the rule stands next to its stub: in the section of its test cell or of an
    answer cell that test reads (tests/dependencies.py)."""
    where, texts = section_texts(learner)
    deps = answer_dependencies(src)

    def near(key: str, sentence: str) -> bool:
        test = key.split("/", 1)[0]
        sections = {where[test]} | {where[a] for a in deps.get(test, ()) if a in where}
        return any(normalise(sentence) in texts.get(s, "") for s in sections)

    return near


def test_rules_tables_cover_every_notebook():
    """Every notebook maps each of its hidden checks to the sentence that states its rule."""
    assert RULED == list(NAMES), f"notebooks without a rules table: {sorted(set(NAMES) - set(RULED))}"


def names_a_mistake(code: str) -> bool:
    """The code passes a check `mistakes=` (named wrong outputs), or a string it uses says "mistake"."""
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and any(k.arg == "mistakes" for k in node.keywords):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "mistake" in node.value.lower():
            return True
    return False


@pytest.mark.parametrize("name", NAMES)
def test_every_visible_test_names_the_classic_mistakes(name):
    """Issue 17: the student version of every visible test names the classic mistakes it can recognise."""
    silent = [
        answers.grade_id(cell)
        for cell in student(name).cells
        if answers.is_test(cell) and not names_a_mistake(cell.source)
    ]
    assert silent == [], f"visible tests that name no classic mistake (no mistakes=, no message): {silent}"


def test_a_test_that_names_no_mistake_is_found():
    assert not names_a_mistake("check.close('out', f(x), want)  # a mistake in a comment does not count")
    assert names_a_mistake("check.close('out', f(x), want, mistakes={'no scaling': g(x)})")
    assert names_a_mistake("check.true('rows', ok, 'classic mistake: the mask is inverted')")
