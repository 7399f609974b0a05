"""Rewrite a catalogue entry's whole answer sections as patches of the reference answer.

    python tests/catalogue_patch.py tests/catalogue/NN_topic/wrong_x.py [...]   # print the patched form
    python tests/catalogue_patch.py --write tests/catalogue/*/wrong_*.py        # rewrite the files

The change is taken over code lines (comments, blank lines and docstrings set aside), so the patch
keeps the reference's comments and shows only the code that differs; the resolved source has the
entry's code exactly (the same AST, docstrings aside), checked before anything is written. A section
whose code changes more than half of the cell's lines stays whole, and so do right entries.
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import sys
import tokenize
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

from support import reference_of  # noqa: E402

from autograder.material import answer_patches  # noqa: E402

HEADER = re.compile(r"^# %% answer (\S+)\s*$", re.MULTILINE)
MOST = 0.5  # a section whose code changes more than this share of its lines stays whole


def _docstring_owners(tree: ast.AST) -> list[ast.AST]:
    """The module, class and function nodes whose body starts with a docstring."""
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return [n for n in ast.walk(tree) if isinstance(n, kinds) and n.body and ast.get_docstring(n, clean=False)]


def code_lines(source: str) -> list[tuple[int, str]]:
    """(index, text without its comment) of the lines that hold code: no blank, comment or docstring line."""
    bare = source.splitlines()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            bare[row - 1] = bare[row - 1][:col]
    docs = {i for n in _docstring_owners(ast.parse(source)) for i in range(n.body[0].lineno - 1, n.body[0].end_lineno)}
    return [(i, text.rstrip()) for i, text in enumerate(bare) if text.strip() and i not in docs]


def same_code(one: str, two: str) -> bool:
    """The two sources parse to the same tree, docstrings aside."""
    trees = [ast.parse(one), ast.parse(two)]
    for tree in trees:
        for node in _docstring_owners(tree):
            node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(trees[0]) == ast.dump(trees[1])


def rebase(reference: str, source: str) -> tuple[str, float]:
    """The reference with the source's code changes put in, and the share of code lines changed."""
    ref, ent = reference.splitlines(), source.splitlines()
    rc, ec = code_lines(reference), code_lines(source)
    matcher = difflib.SequenceMatcher(None, [t for _, t in rc], [t for _, t in ec], autojunk=False)
    put: dict[int, list[str]] = {}  # reference line -> the lines in its place
    before: dict[int, list[str]] = {}  # reference line -> lines added before it
    kept = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            kept += i2 - i1
            continue
        new = ent[ec[j1][0] : ec[j2 - 1][0] + 1] if j2 > j1 else []
        if i2 > i1:
            put.update({k: [] for k in range(rc[i1][0], rc[i2 - 1][0] + 1)})
            put[rc[i1][0]] = new
        else:
            before.setdefault(rc[i1][0] if i1 < len(rc) else len(ref), []).extend(new)
    out = [line for k in range(len(ref) + 1) for line in before.get(k, []) + put.get(k, ref[k : k + 1])]
    share = max((len(ec) - kept) / max(len(ec), 1), (len(rc) - kept) / max(len(rc), 1))
    return "\n".join(out).strip("\n") + "\n", share


def _unique(ref: list[str], lo: int, hi: int) -> bool:
    old = ref[lo:hi]
    return bool(old) and sum(ref[i : i + len(old)] == old for i in range(len(ref) - len(old) + 1)) == 1


def _hunks(ref: list[str], new: list[str]) -> list[list[int]]:
    """[lo, hi, jlo, jhi] per change, widened by context lines until its reference lines occur once."""
    out: list[list[int]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ref, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        b = a = 0
        while not _unique(ref, i1 - b, i2 + a) and (i1 - b > 0 or i2 + a < len(ref)):
            if i1 - b > 0 and (b <= a or i2 + a >= len(ref)):
                b += 1
            else:
                a += 1
        hunk = [i1 - b, i2 + a, j1 - b, j2 + a]
        if out and hunk[0] < out[-1][1]:  # overlapping context: one block
            out[-1][1], out[-1][3] = max(out[-1][1], hunk[1]), max(out[-1][3], hunk[3])
        else:
            out.append(hunk)
    return out


def _mark(mark: str, lines: list[str]) -> list[str]:
    return [f"# {mark} {t}" if t else f"# {mark}" for t in lines]


def patch_text(reference: str, target: str) -> str:
    """The patch section body that turns the reference into the target."""
    ref, new = reference.splitlines(), target.splitlines()
    blocks = []
    for lo, hi, jlo, jhi in _hunks(ref, new):
        lines: list[str] = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
            None, ref[lo:hi], new[jlo:jhi], autojunk=False
        ).get_opcodes():
            if tag == "equal":
                lines += _mark(answer_patches.KEEP, ref[lo + i1 : lo + i2])
            else:
                lines += _mark(answer_patches.REMOVE, ref[lo + i1 : lo + i2])
                lines += _mark(answer_patches.ADD, new[jlo + j1 : jlo + j2])
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def section(reference: dict[str, str], cell: str, body: str, where: str) -> str | None:
    """A whole answer section as a patch section, or None where it stays whole."""
    source = body.strip("\n") + "\n"
    if cell not in reference or "# __reference answer__" in source:
        return None
    target, share = rebase(reference[cell], source)
    if share > MOST or target == reference[cell] or not same_code(target, source):
        return None
    patch = patch_text(reference[cell], target)
    if answer_patches.apply(reference[cell], patch, where) != target:
        raise AssertionError(f"{where}: the patch does not give back the entry's code")
    return f"# %% patch {cell}\n{patch}" + body[len(body.rstrip("\n")) :]


def convert(path: Path) -> str | None:
    """The entry's text with its small changes as patches, or None if nothing changes."""
    reference = reference_of(path.parent.name)
    parts = HEADER.split(path.read_text())
    out, changed = [parts[0]], False
    for cell, body in zip(parts[1::2], parts[2::2], strict=True):
        patched = section(reference, cell, body, f"{path}, cell {cell}")
        changed |= patched is not None
        out.append(patched or f"# %% answer {cell}{body}")
    return "".join(out) if changed else None


def main(argv: list[str]) -> int:
    write = "--write" in argv
    for name in [a for a in argv if a != "--write"]:
        path = Path(name).resolve()
        if not path.name.startswith("wrong_"):
            continue  # right entries stay whole
        text = convert(path)
        if text is not None and write:
            path.write_text(text)
        elif text is not None:
            print(f"==> {path}\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
