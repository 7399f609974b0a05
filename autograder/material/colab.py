"""Colab: links, the helper's download address pinned to the workbook's version, the setup cell's pin."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from autograder import paths

_BLOCK = re.compile(r"(<!-- colab-links:start -->\n).*?(<!-- colab-links:end -->)", re.S)
# The setup cell's two pinned values: the notebook's version and the helpers' address (its tag's folder).
_VERSION_LINE = re.compile(r'^WORKBOOK_VERSION = "[^"]*"', re.M)
_HELPER_URL = re.compile(r'"https://raw\.githubusercontent\.com/[^"]*/(notebooks|self-study)"')
LINK_PAGES = ("README.md", "docs/learner/index.md")
"""The pages that carry the table of Colab badges (release rewrites it)."""


def _pyproject() -> dict:
    return tomllib.loads((paths.ROOT / "pyproject.toml").read_text())


def version() -> str:
    """The workbook's one version: pyproject.toml's [project] version."""
    return _pyproject()["project"]["version"]


def tag(of: str | None = None) -> str:
    """The git tag of a release (of this checkout's version by default): v<version>."""
    return f"v{of or version()}"


def repository() -> tuple[str, str]:
    """(repository URL, branch the Colab links open) from pyproject.toml [tool.workbook]."""
    conf = _pyproject()["tool"]["workbook"]
    return conf["repository"].rstrip("/"), conf.get("branch", "main")


def colab_url(name: str, folder: str = "notebooks") -> str:
    """The 'Open in Colab' address of a notebook in `folder` (notebooks: the course's; self-study: the edition's)."""
    repo, branch = repository()
    slug = repo.removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{slug}/blob/{branch}/{folder}/{name}.ipynb"


def raw_base(folder: str = "notebooks") -> str:
    """Where the Colab setup cell downloads workbook.py (and the rest) from: the tag of this version, never a branch."""
    repo, _ = repository()
    return f"{repo.replace('https://github.com/', 'https://raw.githubusercontent.com/')}/{tag()}/{folder}"


def pin_setup(source: str) -> str:
    """A setup cell's source with its version and helper address set to this checkout's version."""
    if len(_VERSION_LINE.findall(source)) != 1 or len(_HELPER_URL.findall(source)) != 1:
        raise ValueError("a setup cell must hold one WORKBOOK_VERSION line and one helper address to pin")
    source = _VERSION_LINE.sub(f'WORKBOOK_VERSION = "{version()}"', source)
    return _HELPER_URL.sub(lambda m: f'"{raw_base(m.group(1))}"', source)


def links_block(names: list[str]) -> str:
    """The table of Colab badges: per notebook, the course version and the self-study edition."""
    rows = ["| notebook | course (visible tests; hidden ones when graded) | self-study (all checks, hints, answers) |"]
    rows.append("|---|---|---|")
    badge = "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
    study = paths.SELF_STUDY.name
    rows += [f"| `{n}` | {badge}({colab_url(n)}) | {badge}({colab_url(n, study)}) |" for n in names]
    return "\n".join(rows) + "\n"


def update_links(names: list[str]) -> list[Path]:
    """Rewrite the Colab block of README and the learner guide; the pages that changed."""
    changed = []
    for page in (paths.ROOT / name for name in LINK_PAGES):
        text = page.read_text()
        new = _BLOCK.sub(lambda m: m.group(1) + links_block(names) + m.group(2), text)
        if new != text:
            page.write_text(new)
            changed.append(page)
    return changed
