"""Only results_folder/ knows the results folder's layout, and only gradebook/course_folder.py knows the
layout of the nbgrader course folder inside it (RESULTS/.course, and every other course folder):
no other module joins a path onto either.

The rule, checked on the source of every module of the package but results_folder/'s:

(a) from the results_folder package a module uses only ResultsFolder and the records: never
    one of its layout names (GRADES, STATE, SHARD, ...), imported or read as an attribute;
(b) no path is joined with a string literal that is one of those names (the right operand
    of `/`, an argument of joinpath, with_name or os.path.join), save the uses listed in
    OTHER_FOLDERS, which name an entry of another folder that happens to share the name.

So a module that needs a file of a results folder asks a ResultsFolder for it by what it
holds (folder.shard_record, folder.overrides, ...). The scanner is tested on planted code.

The course folder's rule is (b) with course_folder.py's names (source, release, submitted,
autograded, feedback, gradebook.db, nbgrader_config.py, .exchange, ...), save COURSE_ELSEWHERE;
and (c): only course_folder.py loads nbgrader's config (PyFileConfigLoader) or sets its Exchange.root.
"""

from __future__ import annotations

import ast

from autograder import paths

PACKAGE = paths.ROOT / "autograder"
OWNER = PACKAGE / "results_folder"  # the package that owns the layout
LAYOUT = OWNER / "layout.py"  # where its names are defined
ALLOWED = {"ResultsFolder", "SavedState", "ShardRecord", "HandedIn", "RecordError"}  # the owner and its records
OTHER_FOLDERS = {
    ("gradescope.py", "results.json"),  # Gradescope's own /autograder/results/results.json
}
COURSE_OWNER = PACKAGE / "gradebook" / "course_folder.py"
COURSE_ELSEWHERE = {
    ("gradescope.py", "source"),  # Gradescope's own /autograder/source/
    ("late.py", "timestamp.txt"),  # SUBMISSIONS/<student>/timestamp.txt, as nbgrader collect leaves it
    ("intake.py", "timestamp.txt"),  # the same file, read as the submission's time
}


def layout_names() -> set[str]:
    """The entry names results_folder/layout.py defines (its module-level upper-case string constants)."""
    names = set()
    for node in ast.parse(LAYOUT.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name | ast.Tuple) for t in node.targets):
            targets = [n for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            values = [v for v in ast.walk(node.value) if isinstance(v, ast.Constant) and isinstance(v.value, str)]
            if targets and all(t.id.isupper() for t in targets):
                names.update(v.value for v in values)
    return names


def _is_layout_module(name: str | None) -> bool:
    parts = (name or "").split(".")
    return parts[-1] == "results_folder" or parts[-2:] == ["results_folder", "layout"]


def _literal_names(args: list[ast.expr], names: set[str]) -> list[str]:
    return [a.value for a in args if isinstance(a, ast.Constant) and a.value in names]


def course_names() -> set[str]:
    """The names course_folder.py gives the course folder's entries (not the helper module's, which is everywhere)."""
    from autograder.gradebook import course_folder as c

    return {*c.KINDS, c.GRADEBOOK, c.CONFIG, c.EXCHANGE, c.PREPARED, c.TIMESTAMP}


def violations(source: str, filename: str, names: set[str], exempt: set[tuple[str, str]] = OTHER_FOLDERS) -> list[str]:
    """Where `source` breaks rule (a) or (b), as 'file:line: what'."""
    tree, found, aliases = ast.parse(source), [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if _is_layout_module(node.module):
                found += [f"{filename}:{node.lineno}: imports {a.name}" for a in node.names if a.name not in ALLOWED]
            aliases.update(a.asname or a.name for a in node.names if a.name == "results_folder")
        elif isinstance(node, ast.Import):
            aliases.update(a.asname or a.name for a in node.names if _is_layout_module(a.name))
    for node in ast.walk(tree):
        hits: list[str] = []
        if isinstance(node, ast.Attribute) and node.attr not in ALLOWED and ast.unparse(node.value) in aliases:
            found.append(f"{filename}:{node.lineno}: reads {ast.unparse(node)}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            hits = _literal_names([node.right], names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("joinpath", "with_name") or ast.unparse(node.func) == "os.path.join":
                hits = _literal_names(node.args, names)
        found += [f"{filename}:{node.lineno}: joins {name!r}" for name in hits if (filename, name) not in exempt]
    return found


def test_the_layout_has_names_to_guard():
    assert {"grades.csv", ".state", "shard.json", "overrides.json", ".grade.lock", "similarity.json"} <= layout_names()


def test_no_module_but_results_folder_joins_a_path_onto_a_results_folder():
    names, found = layout_names(), []
    for path in sorted(PACKAGE.rglob("*.py")):
        if not path.is_relative_to(OWNER):
            found += violations(path.read_text(encoding="utf-8"), path.name, names)
    assert not found, "ask a ResultsFolder for these paths:\n" + "\n".join(found)


PLANTED = {
    "from autograder import results_folder as layout\nx = out / layout.SHARD\n": "reads layout.SHARD",
    "from autograder.results_folder import GRADES\n": "imports GRADES",
    "import autograder.results_folder\nautograder.results_folder.LOCK\n": "reads autograder.results_folder.LOCK",
    "p = out / 'shard.json'\n": "joins 'shard.json'",
    "p = (out / '.state').glob('*/*.json')\n": "joins '.state'",
    "p = Path(out).joinpath('overrides.json')\n": "joins 'overrides.json'",
    "p = os.path.join(out, 'grades.csv')\n": "joins 'grades.csv'",
    "p = out / 'results.json'\n": "joins 'results.json'",  # allowed in gradescope.py only
}


def test_the_scanner_finds_each_planted_violation():
    names = layout_names()
    for source, said in PLANTED.items():
        found = violations(source, "planted.py", names)
        assert len(found) == 1 and found[0].endswith(said), (source, found)


def test_the_scanner_passes_what_the_rule_allows():
    names = layout_names()
    allowed = [
        "from autograder.results_folder import ResultsFolder, SavedState\nx = ResultsFolder(out).shard_record\n",
        "from autograder import results_folder\nf = results_folder.ResultsFolder(out)\n",
        "p = course.root / 'gradebook.db'\nq = out / f'{name}.ipynb'\n",  # not a results folder's entry
    ]
    assert [violations(s, "ok.py", names) for s in allowed] == [[], [], []]
    assert violations("p = root / 'results' / 'results.json'\n", "gradescope.py", names) == []


def config_loads(source: str, filename: str) -> list[str]:
    """Where `source` loads nbgrader's config file or sets its exchange (rule c), as 'file:line: what'."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and any(a.name == "PyFileConfigLoader" for a in node.names):
            found.append(f"{filename}:{node.lineno}: imports PyFileConfigLoader")
        elif isinstance(node, ast.Attribute) and node.attr == "root" and ast.unparse(node.value).endswith("Exchange"):
            found.append(f"{filename}:{node.lineno}: names {ast.unparse(node)}")
    return found


def test_the_course_layout_has_names_to_guard():
    assert {"submitted", "autograded", "feedback", "release", "source", "gradebook.db", "nbgrader_config.py"} <= (
        course_names()
    )


def test_no_module_but_course_folder_joins_a_path_onto_a_course_folder_or_loads_its_config():
    names, found = course_names(), []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path != COURSE_OWNER and not path.is_relative_to(OWNER):  # results_folder/ names .course only
            text = path.read_text(encoding="utf-8")
            found += violations(text, path.name, names, COURSE_ELSEWHERE) + config_loads(text, path.name)
    assert not found, "ask a CourseFolder (autograder.gradebook.course_folder) for these:\n" + "\n".join(found)


def test_the_course_scanner_finds_each_planted_violation():
    names = course_names()
    planted = {
        "p = course.root / 'submitted' / student / name\n": "joins 'submitted'",
        "p = (root / 'autograded').glob('*/*/*.ipynb')\n": "joins 'autograded'",
        "p = Path(tmp).joinpath('release', name)\n": "joins 'release'",
        "p = os.path.join(root, 'gradebook.db')\n": "joins 'gradebook.db'",
        "p = course.root / 'nbgrader_config.py'\n": "joins 'nbgrader_config.py'",
    }
    for source, said in planted.items():
        found = violations(source, "planted.py", names, COURSE_ELSEWHERE)
        assert len(found) == 1 and found[0].endswith(said), (source, found)
    loads = "from traitlets.config.loader import PyFileConfigLoader\nextra.Exchange.root = str(root / 'x')\n"
    assert config_loads(loads, "planted.py") == [
        "planted.py:1: imports PyFileConfigLoader",
        "planted.py:2: names extra.Exchange.root",
    ]
    assert violations("p = root / 'source' / KEY\n", "gradescope.py", names, COURSE_ELSEWHERE) == []
