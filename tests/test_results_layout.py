"""Only results_folder/ knows the results folder's layout: no other module joins a path onto one.

The rule, checked on the source of every module of the package but results_folder/'s:

(a) from the results_folder package a module uses only ResultsFolder and the records: never
    one of its layout names (GRADES, STATE, SHARD, ...), imported or read as an attribute;
(b) no path is joined with a string literal that is one of those names (the right operand
    of `/`, an argument of joinpath, with_name or os.path.join), save the uses listed in
    OTHER_FOLDERS, which name an entry of another folder that happens to share the name.

So a module that needs a file of a results folder asks a ResultsFolder for it by what it
holds (folder.shard_record, folder.overrides, ...). The scanner is tested on planted code.
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
    ("feedback.py", "feedback"),  # the nbgrader course's feedback/ folder, inside .course
    ("release_feedback.py", "feedback"),  # nbgrader's exchange: <root>/<course>/feedback/
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


def violations(source: str, filename: str, names: set[str]) -> list[str]:
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
        found += [f"{filename}:{node.lineno}: joins {name!r}" for name in hits if (filename, name) not in OTHER_FOLDERS]
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
