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


def colab_url(name: str) -> str:
    """The 'Open in Colab' address of a student notebook."""
    repo, branch = repository()
    slug = repo.removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{slug}/blob/{branch}/notebooks/{name}.ipynb"


def raw_base() -> str:
    """Where the Colab setup cell downloads workbook.py from."""
    repo, branch = repository()
    return f"{repo.replace('https://github.com/', 'https://raw.githubusercontent.com/')}/{branch}/notebooks"


def links_block(names: list[str]) -> str:
    """README's table of Colab badges, one per notebook."""
    rows = ["| notebook | open |", "|---|---|"]
    badge = "https://colab.research.google.com/assets/colab-badge.svg"
    rows += [f"| `{n}` | [![Open In Colab]({badge})]({colab_url(n)}) |" for n in names]
    return "\n".join(rows) + "\n"


def update_readme(names: list[str]) -> bool:
    """Rewrite README's Colab block; True if it changed."""
    readme = paths.ROOT / "README.md"
    text = readme.read_text()
    new = _BLOCK.sub(lambda m: m.group(1) + links_block(names) + m.group(2), text)
    if new != text:
        readme.write_text(new)
    return new != text
