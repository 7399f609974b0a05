"""Patch sections of answer files: how they apply, how they fail, and that every catalogue patch resolves."""

from __future__ import annotations

import re

import pytest
from catalogue_patch import patch_text, rebase, same_code
from conftest import NAMES
from support import CATALOGUE, catalogue_entries, entry_kind, load_entry, reference_of

from autograder.material import answers
from autograder.material.answer_patches import PatchError, apply

REFERENCE = """def f(x):
    \"\"\"Twice x, plus one.\"\"\"
    y = x * 2  # double
    return y + 1


def g(x):
    return y + 1
"""


def test_a_block_replaces_the_lines_it_names():
    patched = apply(REFERENCE, "# -     y = x * 2  # double\n# +     y = x * 3\n", "entry")
    assert patched == REFERENCE.replace("    y = x * 2  # double", "    y = x * 3")


def test_blocks_apply_each_in_its_place_with_context_and_empty_lines():
    body = "# = def g(x):\n# +     x = -x\n\n# -     y = x * 2  # double\n# +\n# +     y = x\n"
    patched = apply(REFERENCE, body, "entry")
    assert patched == REFERENCE.replace("def g(x):\n", "def g(x):\n    x = -x\n").replace(
        "    y = x * 2  # double\n", "\n    y = x\n"
    )


def test_a_block_may_only_remove():
    assert "double" not in apply(REFERENCE, "# -     y = x * 2  # double", "entry")


@pytest.mark.parametrize(
    "body,error",
    [
        ("# -     y = x * 4\n# +     y = x\n", "entry, cell f: the reference answer has no lines\n    y = x * 4"),
        ("# -     return y + 1\n# +     return y\n", "entry, cell f: the reference answer has 2 places with the lines"),
        ("# +     y = x\n", "a block that only adds lines needs a '# = ' line to say where"),
        ("# = def f(x):\n", "a block that changes nothing"),
        ("y = x\n", "line 1 of the patch is not '# = ', '# - ' or '# + '"),
        ("# = def f(x):\n#-     y = x * 2  # double\n", "line 2 of the patch is not"),
        ("\n\n", "a patch section without a change"),
        ('# = def f(x):\n# -     """Twice x, plus one."""\n\n# -     """Twice x, plus one."""\n', "two blocks"),
    ],
)
def test_a_patch_that_does_not_fit_its_reference_is_an_error_naming_it(body, error):
    with pytest.raises(PatchError, match=re.escape(error)):
        apply(REFERENCE, body, "entry, cell f")


def test_the_loader_resolves_patches_and_names_the_file_and_cell(tmp_path):
    entry = tmp_path / "wrong_x.py"
    entry.write_text('"""x."""\n# %% patch f\n# -     y = x * 2  # double\n# +     y = x\n# %% answer h\nh = 1\n')
    assert answers.load_answer_file(entry, {"f": REFERENCE}) == {
        "f": REFERENCE.replace("x * 2  # double", "x"),
        "h": "h = 1\n",
    }
    with pytest.raises(ValueError, match=re.escape(f"{entry}: a patch of cell 'f', read without the reference")):
        answers.load_answer_file(entry)
    entry.write_text("# %% patch f\n# -     y = x * 5\n# +     y = x\n")
    with pytest.raises(PatchError, match=re.escape(f"{entry}, cell f: the reference answer has no lines")):
        answers.load_answer_file(entry, {"f": REFERENCE})


def test_the_conversion_tool_keeps_the_entry_code_and_the_reference_comments():
    entry = REFERENCE.replace('    """Twice x, plus one."""\n', "").replace("x * 2  # double", "x * 3")
    target, share = rebase(REFERENCE, entry)
    assert same_code(target, entry) and share < 0.5 and "# double" not in target and "Twice x" in target
    assert patch_text(REFERENCE, target) == "# -     y = x * 2  # double\n# +     y = x * 3"


@pytest.mark.parametrize("name", NAMES)
def test_every_catalogue_patch_resolves_and_right_entries_stay_whole(name):
    reference = reference_of(name)
    patched = 0
    for path in catalogue_entries(name):
        text = path.read_text()
        if entry_kind(path) == "right":
            assert "# %% patch " not in text, f"{path.name}: right entries are written whole"
            continue
        resolved = load_entry(path)
        assert resolved and all(code != reference.get(cell) for cell, code in resolved.items()), path.name
        patched += text.count("# %% patch ")
    assert patched or not list((CATALOGUE / name).glob("wrong_*.py")), f"{name}: no wrong entry is a patch"
