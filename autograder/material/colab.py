"""Colab: links and the helper's download address, built from one configured repository URL."""

from __future__ import annotations

import re
import tomllib

from autograder import paths

_BLOCK = re.compile(r"(<!-- colab-links:start -->\n).*?(<!-- colab-links:end -->)", re.S)


def repository() -> tuple[str, str]:
    """(repository URL, branch) from pyproject.toml [tool.workbook]."""
    conf = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["tool"]["workbook"]
    return conf["repository"].rstrip("/"), conf.get("branch", "main")


def colab_url(name: str, folder: str = "notebooks") -> str:
    """The 'Open in Colab' address of a notebook in `folder` (notebooks: the course's; self-study: the edition's)."""
    repo, branch = repository()
    slug = repo.removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{slug}/blob/{branch}/{folder}/{name}.ipynb"


def raw_base(folder: str = "notebooks") -> str:
    """Where the Colab setup cell of `folder`'s notebooks downloads workbook.py (and the rest) from."""
    repo, branch = repository()
    return f"{repo.replace('https://github.com/', 'https://raw.githubusercontent.com/')}/{branch}/{folder}"


def links_block(names: list[str]) -> str:
    """README's table of Colab badges: per notebook, the course version and the self-study edition."""
    rows = ["| notebook | course (visible tests; hidden ones when graded) | self-study (all checks, hints, answers) |"]
    rows.append("|---|---|---|")
    badge = "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
    study = paths.SELF_STUDY.name
    rows += [f"| `{n}` | {badge}({colab_url(n)}) | {badge}({colab_url(n, study)}) |" for n in names]
    return "\n".join(rows) + "\n"


def update_readme(names: list[str]) -> bool:
    """Rewrite README's Colab block; True if it changed."""
    readme = paths.ROOT / "README.md"
    text = readme.read_text()
    new = _BLOCK.sub(lambda m: m.group(1) + links_block(names) + m.group(2), text)
    if new != text:
        readme.write_text(new)
    return new != text
